/* Unit tests for cell/warm's choice of a cell's warm start, without
 * libvirt: which snapshot a cell restores (its key computed here again
 * from the shape, as host/snapshot.h defines it), a guest image that
 * cannot be read, and a snapshot that failed a cell, after which the
 * run's cells of its shape boot cold. Making a snapshot boots a guest:
 * tests/integration/warm.py covers it. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cell/warm.h"
#include "common/diskbus.h"
#include "common/test.h"
#include "common/test-scratch.h"

TEST_MAIN();

#define PREFIX "kbsnap-"

static const struct guest_shape guest = { .accel = "tcg", .mem_mb = 256, .cpus = 1, .disk_bytes = 64u << 20,
                                          .fs = "ext4", .mount_opts = "", .disk_bus = "ide",
                                          .append = "quiet" };

static struct kstore_kernel kernel = { .id = "0a1b2c", .name = "fake", .image_path = "/nonexistent/bzImage" };

/* A store with a guest image of the given content. OUT: *ret_initrd. */
static char *store_with_image(const char *name, const char *content, char **ret_initrd) {
        char *store;

        test_scratch("warm-XXXXXX");
        store = test_scratch_path(name);

        ASSERT_EQ(g_mkdir_with_parents(store, 0755), 0);
        *ret_initrd = g_build_filename(store, "initrd.img", NULL);
        ASSERT_TRUE(g_file_set_contents(*ret_initrd, content, -1, NULL));
        return store;
}

static struct warm_want want_of(const char *initrd, int nic) {
        return (struct warm_want){ .kernel = &kernel, .initrd = initrd, .guest = &guest, .nic = nic,
                                   .qemu_version = "7.2.0", .libvirt_version = "9.0.0", .boot_timeout_s = 120 };
}

/* The key of want's shape, as host/snapshot.h makes it. */
static void key_of(const struct warm_want *w, const char *image_content, char *ret) {
        g_autofree char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, image_content, -1);
        g_autofree char *cmdline = guest_cmdline(WARM_CELL_ID, guest.append);
        struct snapshot_shape shape = {
                .kernel_id = w->kernel->id, .initrd_sha256 = sha, .guest = w->guest,
                .bus = diskbus_get(guest.disk_bus)->name, .nic = w->nic, .cmdline = cmdline,
                .qemu_version = w->qemu_version, .libvirt_version = w->libvirt_version,
        };

        snapshot_key(&shape, ret);
}

static void put_save(const char *store, const char *key) {
        g_autofree char *dir = g_build_filename(store, "snapshots", NULL);
        g_autofree char *save = snapshot_path(store, key, ".save");

        ASSERT_EQ(g_mkdir_with_parents(dir, 0755), 0);
        ASSERT_TRUE(g_file_set_contents(save, "saved guest", -1, NULL));
}

TEST(a_cell_restores_the_snapshot_of_its_shape) {
        g_autofree char *initrd = NULL, *store = store_with_image("restore", "image one", &initrd);
        g_autofree char *save = NULL, *domain = NULL;
        struct warm_want want = want_of(initrd, 1);
        struct warm_run wr;
        struct warm_cell w = { .save = NULL }, again = { .save = NULL };
        struct cell_spec spec = { 0 };
        struct warm_made made = { 0 };
        struct kb_error err = { { 0 } };
        char key[SNAPSHOT_KEY_LEN + 1], other[SNAPSHOT_KEY_LEN + 1];

        key_of(&want, "image one", key);
        put_save(store, key);
        warm_run_init(&wr, store, PREFIX);
        ASSERT_EQ(warm_cell_start(&wr, NULL, &want, &spec, &w, NULL, &made, &err), WARM_START_RESTORE);
        ASSERT_STREQ(w.key, key);
        save = snapshot_path(store, key, ".save");
        ASSERT_STREQ(spec.snapshot, save);
        ASSERT_TRUE(g_str_has_suffix(spec.snapshot_console, ".console"));
        domain = g_strdup_printf(PREFIX "%.16s", key);
        ASSERT_STREQ(spec.snapshot_domain, domain);
        ASSERT_EQ(strncmp(spec.snapshot_uuid, key, 8), 0);
        ASSERT_TRUE(strstr(spec.snapshot_cmdline, "kbench.cell=" WARM_CELL_ID) != NULL);
        ASSERT_TRUE(strstr(spec.snapshot_cmdline, "quiet") != NULL);
        /* The image is hashed once a run: its content changing under the
         * run does not move its cells to another key. */
        ASSERT_TRUE(g_file_set_contents(initrd, "image two", -1, NULL));
        ASSERT_EQ(warm_cell_start(&wr, NULL, &want, &spec, &again, NULL, &made, &err), WARM_START_RESTORE);
        ASSERT_STREQ(again.key, key);
        /* A guest without the NIC is another shape. */
        key_of(&(struct warm_want){ .kernel = &kernel, .guest = &guest, .qemu_version = "7.2.0",
                                    .libvirt_version = "9.0.0" }, "image one", other);
        ASSERT_TRUE(strcmp(other, key) != 0);
        warm_cell_clear(&w);
        warm_cell_clear(&again);
        warm_run_clear(&wr);
}

TEST(an_unreadable_image_boots_cold) {
        g_autofree char *initrd = NULL, *store = store_with_image("unreadable", "image", &initrd);
        struct warm_want want = want_of(initrd, 0);
        struct warm_run wr;
        struct warm_cell w = { .save = NULL };
        struct cell_spec spec = { 0 };
        struct warm_made made = { 0 };
        struct kb_error err = { { 0 } };

        ASSERT_EQ(g_unlink(initrd), 0);
        warm_run_init(&wr, store, PREFIX);
        ASSERT_EQ(warm_cell_start(&wr, NULL, &want, &spec, &w, NULL, &made, &err), WARM_START_NO_HASH);
        ASSERT_TRUE(strstr(err.msg, initrd) != NULL);
        ASSERT_TRUE(spec.snapshot == NULL);
        warm_cell_clear(&w);
        warm_run_clear(&wr);
}

TEST(a_snapshot_that_failed_a_cell_is_removed_and_not_used_again) {
        g_autofree char *initrd = NULL, *store = store_with_image("failed", "image", &initrd);
        g_autofree char *save = NULL;
        struct warm_want want = want_of(initrd, 0);
        struct warm_run wr;
        struct warm_cell w = { .save = NULL }, next = { .save = NULL };
        struct cell_spec spec = { 0 }, spec2 = { 0 };
        struct cell_result res = { 0 };
        struct warm_made made = { 0 };
        struct kb_error err = { { 0 } };
        char key[SNAPSHOT_KEY_LEN + 1];

        key_of(&want, "image", key);
        put_save(store, key);
        save = snapshot_path(store, key, ".save");
        warm_run_init(&wr, store, PREFIX);
        ASSERT_EQ(warm_cell_start(&wr, NULL, &want, &spec, &w, NULL, &made, &err), WARM_START_RESTORE);
        /* A cell it served: kept. */
        ASSERT_EQ(warm_cell_after(&wr, &w, &res, &err), 0);
        ASSERT_TRUE(g_file_test(save, G_FILE_TEST_EXISTS));
        /* A cell it failed: removed, and its shape boots cold from now on
         * (even were the file back), never making a new one this run. */
        res.snapshot_failed = 1;
        ASSERT_EQ(warm_cell_after(&wr, &w, &res, &err), 0);
        ASSERT_TRUE(!g_file_test(save, G_FILE_TEST_EXISTS));
        put_save(store, key);
        ASSERT_EQ(warm_cell_start(&wr, NULL, &want, &spec2, &next, NULL, &made, &err), WARM_START_COLD);
        ASSERT_TRUE(spec2.snapshot == NULL && spec2.snapshot_domain == NULL);
        warm_cell_clear(&w);
        warm_cell_clear(&next);
        warm_run_clear(&wr);
}
