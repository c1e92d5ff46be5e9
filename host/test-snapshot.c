/* Unit tests for host/snapshot: every part of the guest's shape changes
 * the key, and the store's snapshots are listed and removed per kernel. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "common/test.h"
#include "host/snapshot.h"

TEST_MAIN();

static const struct guest_shape base_guest = { .accel = "tcg", .mem_mb = 256, .cpus = 1, .disk_bytes = 2ull << 30,
                                               .fs = "ext4", .mount_opts = "" };

static struct snapshot_shape base(void) {
        return (struct snapshot_shape){
                .kernel_id = "0a1b", .initrd_sha256 = "c0ffee", .guest = &base_guest, .bus = "ide", .nic = 0,
                .cmdline = "console=ttyS0,115200 panic=-1 rdinit=/init kbench.cell=snapshot",
                .qemu_version = "7.2.0", .libvirt_version = "9.0.0",
        };
}

static void key_of(const struct snapshot_shape *s, char *k) {
        snapshot_key(s, k);
        ASSERT_EQ(strlen(k), SNAPSHOT_KEY_LEN);
}

TEST(key_is_stable) {
        struct snapshot_shape a = base(), b = base();
        char ka[SNAPSHOT_KEY_LEN + 1], kb[SNAPSHOT_KEY_LEN + 1];

        key_of(&a, ka);
        key_of(&b, kb);
        ASSERT_STREQ(ka, kb);
}

/* One row per component: change it alone, the key must change. */
TEST(every_component_changes_the_key) {
        static const char *const names[] = { "kernel", "initrd", "mem", "cpus", "disk", "swap", "bus", "nic",
                                             "cmdline", "accel", "qemu", "libvirt" };
        char k0[SNAPSHOT_KEY_LEN + 1], seen[G_N_ELEMENTS(names)][SNAPSHOT_KEY_LEN + 1];
        struct snapshot_shape s0 = base();

        key_of(&s0, k0);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                struct snapshot_shape s = base();
                struct guest_shape g = base_guest;

                s.guest = &g;
                switch (i) {
                case 0: s.kernel_id = "0a1c"; break;
                case 1: s.initrd_sha256 = "c0ffef"; break;
                case 2: g.mem_mb = 160; break;
                case 3: g.cpus = 2; break;
                case 4: g.disk_bytes = 1ull << 30; break;
                case 5: g.swap_bytes = 64ull << 20; break;
                case 6: s.bus = "sata"; break;
                case 7: s.nic = 1; break;
                case 8: s.cmdline = "console=ttyS0,115200 panic=-1 rdinit=/init kbench.cell=snapshot quiet"; break;
                case 9: g.accel = "kvm"; break;
                case 10: s.qemu_version = "8.2.0"; break;
                case 11: s.libvirt_version = "9.0.1"; break;
                }
                key_of(&s, seen[i]);
                if (strcmp(seen[i], k0) == 0)
                        TEST_FAIL("changing %s left the key unchanged", names[i]);
                for (size_t j = 0; j < i; j++)
                        if (strcmp(seen[i], seen[j]) == 0)
                                TEST_FAIL("%s and %s changes give the same key", names[i], names[j]);
        }
}

/* Fields are separated: moving a character from one to the next is a
 * different shape. */
TEST(fields_do_not_run_together) {
        struct snapshot_shape a = base(), b = base();
        char ka[SNAPSHOT_KEY_LEN + 1], kb[SNAPSHOT_KEY_LEN + 1];

        a.qemu_version = "7.2.01";
        a.libvirt_version = "9.0";
        b.qemu_version = "7.2.0";
        b.libvirt_version = "19.0";
        key_of(&a, ka);
        key_of(&b, kb);
        ASSERT_TRUE(strcmp(ka, kb) != 0);
}

TEST(uuid_from_key) {
        char u[37];

        snapshot_uuid("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", u);
        ASSERT_STREQ(u, "01234567-89ab-cdef-0123-456789abcdef");
}

static void touch(const char *path, size_t bytes) {
        g_autofree char *buf = g_malloc0(bytes);
        ASSERT_TRUE(g_file_set_contents(path, buf, (gssize)bytes, NULL));
}

TEST(list_and_remove_per_kernel) {
        g_autofree char *store = g_dir_make_tmp("kbench-snap-XXXXXX", NULL);
        g_autofree char *dir = g_build_filename(store, "snapshots", NULL);
        struct snapshot_shape a = base(), b = base();
        char ka[SNAPSHOT_KEY_LEN + 1], kb[SNAPSHOT_KEY_LEN + 1];
        struct kb_error err = { { 0 } };
        struct snapshot_info *v = NULL;
        size_t n = 99;
        uint64_t bytes = 0;
        int removed = 0;

        ASSERT_TRUE(store != NULL);
        /* No directory yet: an empty list, not an error. */
        ASSERT_EQ(snapshot_list(store, &v, &n, &err), 0);
        ASSERT_EQ(n, 0);
        snapshot_info_free(v, n);

        ASSERT_EQ(g_mkdir(dir, 0755), 0);
        b.kernel_id = "ffff";
        key_of(&a, ka);
        key_of(&b, kb);
        for (int i = 0; i < 2; i++) {
                const char *k = i ? kb : ka;
                g_autofree char *save = snapshot_path(store, k, ".save");
                touch(save, 65536);
                ASSERT_EQ(snapshot_write_manifest(store, k, i ? &b : &a, i ? "other" : "deb", 2.5, &err), 0);
        }
        {
                g_autofree char *junk = g_build_filename(dir, "notes.txt", NULL);
                touch(junk, 10);
        }
        ASSERT_EQ(snapshot_list(store, &v, &n, &err), 0);
        ASSERT_EQ(n, 2);
        for (size_t i = 0; i < n; i++) {
                int is_a = strcmp(v[i].key, ka) == 0;
                ASSERT_TRUE(is_a || strcmp(v[i].key, kb) == 0);
                ASSERT_STREQ(v[i].kernel_id, is_a ? "0a1b" : "ffff");
                ASSERT_STREQ(v[i].kernel_name, is_a ? "deb" : "other");
                ASSERT_EQ(v[i].mem_mb, 256);
                ASSERT_EQ(v[i].complete, 1);
                ASSERT_NEAR(v[i].boot_s, 2.5, 1e-9);
                ASSERT_TRUE(v[i].bytes >= 65536);
        }
        snapshot_info_free(v, n);

        ASSERT_EQ(snapshot_remove_kernel(store, "0a1b", &removed, &bytes, &err), 0);
        ASSERT_EQ(removed, 1);
        ASSERT_TRUE(bytes >= 65536);
        ASSERT_EQ(snapshot_list(store, &v, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(v[0].key, kb);
        snapshot_info_free(v, n);
        {
                g_autofree char *gone = snapshot_path(store, ka, ".save");
                ASSERT_TRUE(!g_file_test(gone, G_FILE_TEST_EXISTS));
        }
        ASSERT_EQ(snapshot_remove(store, kb, &err), 0);
        ASSERT_EQ(snapshot_list(store, &v, &n, &err), 0);
        ASSERT_EQ(n, 0);
        snapshot_info_free(v, n);
        {
                g_autofree char *junk = g_build_filename(dir, "notes.txt", NULL);
                g_unlink(junk);
        }
        g_rmdir(dir);
        g_rmdir(store);
}

TEST(file_sha256) {
        g_autofree char *dir = g_dir_make_tmp("kbench-snap-XXXXXX", NULL);
        g_autofree char *p = g_build_filename(dir, "f", NULL);
        g_autofree char *h = NULL;
        struct kb_error err = { { 0 } };

        ASSERT_TRUE(g_file_set_contents(p, "abc", 3, NULL));
        ASSERT_EQ(snapshot_file_sha256(p, &h, &err), 0);
        ASSERT_STREQ(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        g_unlink(p);
        ASSERT_TRUE(snapshot_file_sha256(p, &h, &err) < 0);
        g_rmdir(dir);
}
