/* Unit tests for nightly/nightly_measured: the fingerprint ignores spelling
 * (order of sysctls, absent vs empty options) and what compare ignores
 * (repeats, timeouts, the kernel list), but not a setting that changes a
 * measurement, and nightly_measured counts exactly the ok cells of
 * one kernel with one fingerprint, on a database the test fills and on a
 * copy of the real result store when it is there. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "common/test.h"
#include "nightly/nightly_measured.h"
#include "settings/runopts.h"
#include "results/db.h"

TEST_MAIN();

#define KA "aaaa000000000000000000000000000000000000000000000000000000000001"
#define KB "bbbb000000000000000000000000000000000000000000000000000000000002"

/* A plan: the runner options, the accelerator and the workload spec. */
struct plan {
        struct run_settings o;
        const char *accel;
        const char *workload;
};

static struct plan dd256(void) {
        struct plan p = { .accel = "tcg", .workload = "dd:size=,bs=1M" };

        runopts_defaults(&p.o);
        return p;
}

static char *fingerprint(const struct plan *p) {
        return nightly_fingerprint(&p->o, p->accel, p->workload, NULL);
}

TEST(fingerprint_ignores_spelling_not_settings) {
        char *s1[] = { "vm.dirty_ratio=5", "vm.swappiness=10", NULL };
        char *s2[] = { "vm.swappiness=10", "vm.dirty_ratio=5", NULL };
        struct plan a = dd256(), b = dd256(), base_plan = dd256();
        g_autofree char *fa = NULL, *fb = NULL;

        b.o.guest.append = "";
        /* How kbench runs is not what it measures. */
        b.o.retries = 0;
        b.o.repeats = 7;
        b.o.cell_timeout_s = 600;
        b.o.warm = 1;
        b.o.accel = "tcg";
        fa = fingerprint(&a);
        fb = fingerprint(&b);
        ASSERT_EQ(strlen(fa), 64);
        ASSERT_STREQ(fa, fb);
        g_free(fa);
        g_free(fb);
        a.o.sysctls = s1;
        b.o.sysctls = s2;
        fa = fingerprint(&a);
        fb = fingerprint(&b);
        ASSERT_STREQ(fa, fb);

        /* Each setting on its own changes the fingerprint. */
        struct plan v[13];
        for (int i = 0; i < 13; i++)
                v[i] = dd256();
        v[0].workload = "dd:size=,bs=4K";
        v[1].o.guest.mem_mb = 160;
        v[2].o.guest.cpus = 2;
        v[3].o.guest.disk_bytes = 4ull << 30;
        v[4].o.guest.disk_mbps = 70;
        v[5].o.guest.fs = "ext3";
        v[6].o.guest.mount_opts = "data=ordered";
        v[7].o.guest.swap_bytes = 1 << 20;
        v[8].accel = "kvm";
        v[9].o.guest.append = "elevator=none";
        v[10].o.sysctls = s1;
        v[11].o.variant = "noop-";
        v[12].o.vmstat_interval_s = 0.5;
        g_autofree char *base = fingerprint(&base_plan);
        for (int i = 0; i < 13; i++) {
                g_autofree char *f = fingerprint(&v[i]);
                if (strcmp(f, base) == 0)
                        TEST_FAIL("setting %d does not change the fingerprint", i);
        }
}

TEST(how_kbench_ran_does_not_matter) {
        static const char cell[] = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648,"
                                   "\"disk_mbps\":0,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"tcg\"}";
        static const char a[] = "{\"kernels\":[{\"name\":\"x\"}],\"repeats\":5,\"retries\":2,\"cell_timeout_s\":1800.0,"
                                "\"append\":null,\"accel_requested\":\"auto\",\"planned_cells\":10}";
        static const char b[] = "{\"kernels\":[],\"repeats\":3,\"retries\":0,\"cell_timeout_s\":600.0,"
                                "\"append\":null,\"accel_requested\":\"tcg\",\"accel_why\":\"asked\",\"planned_cells\":3,"
                                "\"max_contention_pct\":20.0}";
        struct plan p = dd256();
        g_autofree char *fa = NULL, *fb = NULL, *want = fingerprint(&p);
        struct kb_error err = { { 0 } };

        ASSERT_EQ(nightly_fingerprint_stored(a, cell, &fa, &err), 0);
        ASSERT_EQ(nightly_fingerprint_stored(b, cell, &fb, &err), 0);
        ASSERT_STREQ(fa, fb);
        ASSERT_STREQ(fa, want);
}

TEST(stored_rows_give_the_same_fingerprint) {
        static const char run[] = "{\"kernels\":[],\"workloads\":[\"dd:size=,bs=1M\"],\"repeats\":5,\"append\":null}";
        static const char cell[] = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648,"
                                   "\"disk_mbps\":0,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"tcg\"}";
        static const char run_sys[] = "{\"append\":\"elevator=none\",\"sysctls\":[\"vm.dirty_ratio=5\",\"vm.swappiness=10\"]}";
        /* What the guest read back is a record of the cell, not a setting. */
        static const char cell_sys[] = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,"
                                       "\"disk_bytes\":2147483648,\"disk_mbps\":0,\"fs\":\"ext4\",\"mount_opts\":\"\","
                                       "\"swap_bytes\":0,\"accel\":\"tcg\",\"sysctls_applied\":{\"vm.dirty_ratio\":\"5\"}}";
        char *sys[] = { "vm.dirty_ratio=5", "vm.swappiness=10", NULL };
        struct plan s = dd256(), p = dd256();
        struct kb_error err = { { 0 } };
        g_autofree char *want = fingerprint(&p), *got = NULL, *want2 = NULL, *got2 = NULL;

        ASSERT_EQ(nightly_fingerprint_stored(run, cell, &got, &err), 0);
        ASSERT_STREQ(got, want);
        s.o.guest.append = "elevator=none";
        s.o.sysctls = sys;
        want2 = fingerprint(&s);
        ASSERT_EQ(nightly_fingerprint_stored(run_sys, cell, &got2, &err), 0);
        ASSERT_STREQ(got2, want2);
        /* A run of this build lists its how_keys; its cells carry the read-back. */
        {
                json_auto_t *j = json_loads(run_sys, 0, NULL);
                g_autofree char *with_how = NULL, *got3 = NULL;
                json_object_set_new(j, "how_keys", runopts_how_keys());
                json_object_set_new(j, "retries", json_integer(0));
                with_how = json_dumps(j, JSON_COMPACT);
                ASSERT_EQ(nightly_fingerprint_stored(with_how, cell_sys, &got3, &err), 0);
                ASSERT_STREQ(got3, want2);
        }
        /* Params from a layout with fewer keys: readable, but not these settings. */
        g_free(got);
        ASSERT_EQ(nightly_fingerprint_stored(run, "{\"workload\":\"dd:size=,bs=1M\"}", &got, &err), 0);
        ASSERT_TRUE(strcmp(got, want) != 0);
        ASSERT_EQ(nightly_fingerprint_stored(run, "{\"mem_mb\":256}", &got, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "cell params: not the object runs store (no workload)");
        ASSERT_EQ(nightly_fingerprint_stored("[]", cell, &got, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "run settings: not a JSON object");
}

static void add_cell(struct db *db, int64_t run, const char *key, const char *kid, int attempt, const char *state,
                     const char *params) {
        struct kb_error err = { { 0 } };
        struct db_cell c = { .run_id = run, .cell_key = key, .kernel_id = kid, .workload = "dd",
                             .params_json = params, .attempt = attempt, .state = state, .accel = "tcg",
                             .started_at = 1700000300, .boot_s = 2, .workload_s = 5, .total_s = 8, .exit_code = 0 };
        if (db_cell_insert(db, &c, NULL, &err) < 0)
                TEST_FAIL("%s", err.msg);
}

#define P256 "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648," \
        "\"disk_mbps\":0,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"tcg\"}"
#define P160 "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":160,\"cpus\":1,\"disk_bytes\":2147483648," \
        "\"disk_mbps\":0,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"tcg\"}"

static size_t measured(struct db *db, const char *kid, const struct plan *s) {
        g_autofree char *fp = fingerprint(s);
        struct kb_error err = { { 0 } };
        size_t n = 999;

        if (nightly_measured(db, kid, fp, &n, &err) < 0)
                TEST_FAIL("%s", err.msg);
        return n;
}

TEST(counts_ok_cells_of_one_kernel_and_fingerprint) {
        g_autofree char *dir = g_dir_make_tmp("nightly-measured-XXXXXX", NULL), *path = NULL;
        struct db_kernel ka = { .id = KA, .name = "6.1.0-57-amd64", .source = "a.deb", .added_at = 1 };
        struct db_kernel kb = { .id = KB, .name = "6.1.0-58-amd64", .source = "b.deb", .added_at = 2 };
        struct db_run r1 = { .settings_json = "{\"append\":null}", .host = "h", .started_at = 1700000000 };
        struct db_run r2 = { .settings_json = "{\"append\":\"elevator=none\"}", .host = "h", .started_at = 1700000100 };
        struct plan d = dd256(), noop = dd256(), small = dd256();
        struct kb_error err = { { 0 } };
        struct db *db = NULL;

        path = g_build_filename(dir, "results.db", NULL);
        ASSERT_EQ(db_open(path, &db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(db, &ka, &err), 0);
        ASSERT_EQ(db_kernel_upsert(db, &kb, &err), 0);
        ASSERT_EQ(measured(db, KA, &d), 0);   /* no runs at all */
        ASSERT_EQ(db_run_create(db, &r1, &err), 0);
        ASSERT_EQ(db_run_create(db, &r2, &err), 0);
        add_cell(db, r1.id, "c000", KA, 1, "ok", P256);
        add_cell(db, r1.id, "c001", KB, 1, "ok", P256);
        add_cell(db, r1.id, "c002", KA, 1, "infra-error", P256);
        add_cell(db, r1.id, "c002", KA, 2, "ok", P256);            /* a retry: one cell */
        add_cell(db, r1.id, "c003", KA, 1, "boot-crash", P256);    /* failed: never counts */
        add_cell(db, r1.id, "c004", KA, 1, "ok", P160);            /* other guest */
        add_cell(db, r2.id, "c000", KA, 1, "ok", P256);            /* other command line */
        add_cell(db, r2.id, "c001", KA, 1, "ok", P256);

        ASSERT_EQ(measured(db, KA, &d), 2);
        ASSERT_EQ(measured(db, KB, &d), 1);
        noop.o.guest.append = "elevator=none";
        ASSERT_EQ(measured(db, KA, &noop), 2);
        ASSERT_EQ(measured(db, KB, &noop), 0);
        small.o.guest.mem_mb = 160;
        ASSERT_EQ(measured(db, KA, &small), 1);
        ASSERT_EQ(measured(db, "cccc", &d), 0);
        db_close(db);
        g_unlink(path);
        {
                g_autofree char *wal = g_strconcat(path, "-wal", NULL), *shm = g_strconcat(path, "-shm", NULL);
                g_unlink(wal);
                g_unlink(shm);
        }
        g_rmdir(dir);
}

/* The store made with real runs (runs a1 and a2: 6.1.0-57, dd, n=5 each,
 * 256 MiB, 1 vCPU, ext4; run mixed: 160 MiB, 2 vCPUs, ext3 data=ordered,
 * n=3), copied so that opening it cannot change it. */
TEST(real_store_copy) {
        const char *src = "/work/data/store1/results.db";
        g_autofree char *dir = NULL, *path = NULL, *data = NULL;
        struct plan d = dd256(), mixed = dd256();
        struct kb_error err = { { 0 } };
        struct db *db = NULL;
        gsize len;

        if (!g_file_get_contents(src, &data, &len, NULL)) {
                fprintf(stderr, "  (no %s here: case not run)\n", src);
                return;
        }
        dir = g_dir_make_tmp("nightly-measured-real-XXXXXX", NULL);
        path = g_build_filename(dir, "results.db", NULL);
        ASSERT_TRUE(g_file_set_contents(path, data, (gssize)len, NULL));
        ASSERT_EQ(db_open_existing(path, &db, &err), 0);
        ASSERT_EQ(measured(db, "f61faf3cfe3e3d28ddefdd60ad12360e2433f430de0273422767ca9390795d92", &d), 10);
        mixed.o.guest.mem_mb = 160;
        mixed.o.guest.cpus = 2;
        mixed.o.guest.fs = "ext3";
        mixed.o.guest.mount_opts = "data=ordered";
        ASSERT_EQ(measured(db, "f61faf3cfe3e3d28ddefdd60ad12360e2433f430de0273422767ca9390795d92", &mixed), 3);
        ASSERT_EQ(measured(db, "aae27b9d21ab3114347e05ac1439b1f4cccd819c4384831d79ba377642f4b8cb", &mixed), 3);
        ASSERT_EQ(measured(db, "aae27b9d21ab3114347e05ac1439b1f4cccd819c4384831d79ba377642f4b8cb", &d), 0);
        mixed.workload = "ftp:size=64M,verify=no,seed=";
        ASSERT_EQ(measured(db, "aae27b9d21ab3114347e05ac1439b1f4cccd819c4384831d79ba377642f4b8cb", &mixed), 3);
        db_close(db);
}
