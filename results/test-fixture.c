/* results/test-fixture.c: the results database that results/test-query.c
 * and report/test-view.c fill and read (see test-fixture.h), written once so
 * the queries and the views built on them are tested on the same rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "results/test-fixture.h"

void insert(struct fixture *f, const char *key, const char *kid, const char *workload, int it,
            int attempt, const char *state, const char *detail, size_t nm,
            const struct db_metric *m, int64_t *ret_id) {
        struct kb_error err = { { 0 } };
        struct db_vmstat_row rows[3];
        struct db_point pts[] = { { .kind = "phase", .t = 2.0, .value = 1 },
                                  { .kind = "phase", .t = 9.0, .value = 2 } };
        struct db_log logs[] = { { .stream = "console", .text = console_log, .len = sizeof(console_log) - 1 },
                                 { .stream = "data", .text = "@kb c000 0 ready *00000000\n", .len = 27 } };
        struct db_cell c = {
                .run_id = f->run, .cell_key = key, .kernel_id = kid, .workload = workload,
                .params_json = "{\"size\":\"512M\",\"bs\":\"1M\",\"mem\":256}", .iteration = it,
                .attempt = attempt, .state = state, .detail = detail, .accel = "tcg",
                .started_at = 1700000300.0, .boot_s = 2.5, .workload_s = 20.0, .total_s = 24.0,
                .exit_code = strcmp(state, "ok") == 0 ? 0 : 1, .n_metrics = nm, .metrics = m,
                .n_vmstat = 3, .vmstat = rows, .n_points = 2, .points = pts, .n_logs = 2, .logs = logs,
        };

        for (int r = 0; r < 3; r++) {
                rows[r] = (struct db_vmstat_row){ .seq = 3 + r, .t_host = 3.0 + r, .t_guest = 1.5 + r,
                                                  .first = r == 0 };
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        rows[r].v[k] = k == DB_VM_bo ? 1000.0 * r : r;
        }
        rows[2].v[DB_VM_gu] = NAN;
        ASSERT_EQ(db_cell_insert(f->db, &c, ret_id, &err), 0);
}

void fixture_init(struct fixture *f) {
        struct kb_error err = { { 0 } };
        struct db_kernel ka = { .id = KID_A, .name = "6.1.0-47-amd64", .release = "6.1.0-47-amd64",
                                .source = "linux-image-6.1.0-47-amd64-unsigned_6.1.170-3_amd64.deb",
                                .added_at = 1700000000 };
        struct db_kernel kb = { .id = KID_B, .name = "6.1.0-57-amd64", .release = "6.1.0-57-amd64",
                                .source = "linux-image-6.1.0-57.deb", .added_at = 1700000001 };
        struct db_run run = { .tag = "nightly", .settings_json = "{\"repeats\":3,\"mem_mb\":256}",
                              .host = "builder", .qemu_version = "7.2.19", .libvirt_version = "9.0.0",
                              .kbench_version = "0.1.0", .started_at = 1700000200 };
        /* Interrupted before its first cell: the header counts the plan. */
        struct db_run empty = { .tag = NULL, .settings_json = "{\"planned_cells\":4}", .started_at = 1700009000 };
        double wa[] = { 40, 42, 44 };

        snprintf(f->dir, sizeof(f->dir), "/tmp/kbench-test-fixture-XXXXXX");
        ASSERT_TRUE(mkdtemp(f->dir));
        snprintf(f->path, sizeof(f->path), "%s/results.db", f->dir);
        ASSERT_EQ(db_open(f->path, &f->db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(f->db, &ka, &err), 0);
        ASSERT_EQ(db_kernel_upsert(f->db, &kb, &err), 0);
        ASSERT_EQ(db_run_create(f->db, &run, &err), 0);
        f->run = run.id;

        /* Interleaved like the planner does: A B A B A B. */
        for (int i = 0; i < 3; i++) {
                char ka_key[8], kb_key[8];
                struct db_metric ma[] = {
                        { .name = "dd.read_MBps", .value = 100 + i, .has_value = 1, .unit = "MB/s" },
                        { .name = "dd.write_MBps", .value = wa[i], .has_value = 1, .unit = "MB/s" },
                };
                struct db_metric mb[] = {
                        { .name = "dd.write_MBps", .value = 50, .has_value = i < 2, .unit = "MB/s",
                          .note = i < 2 ? NULL : "dd printed no rate" },
                };

                snprintf(ka_key, sizeof(ka_key), "c%03d", 2 * i);
                snprintf(kb_key, sizeof(kb_key), "c%03d", 2 * i + 1);
                insert(f, ka_key, KID_A, "dd", i, 1, "ok", NULL, 2, ma, NULL);
                insert(f, kb_key, KID_B, "dd", i, 1, "ok", NULL, 1, mb, NULL);
        }
        /* A failed cell with a partial metric: listed, never in statistics. */
        {
                struct db_metric bad[] = { { .name = "dd.write_MBps", .value = 1000, .has_value = 1,
                                             .unit = "MB/s" } };
                insert(f, "c006", KID_A, "dd", 3, 1, "workload-failure",
                       "dd exited 1: \x1b[31mNo space left on device", 1, bad, &f->failed_cell_id);
        }
        /* Retried after an infra error: two rows, one key. */
        insert(f, "c007", KID_B, "dd", 3, 1, "infra-error", "libvirt: domain create failed", 0, NULL, NULL);
        {
                struct db_metric m[] = { { .name = "dd.write_MBps", .value = 53, .has_value = 1, .unit = "MB/s" } };
                insert(f, "c007", KID_B, "dd", 3, 2, "ok", NULL, 1, m, NULL);
        }
        {
                struct db_metric m[] = {
                        { .name = "tiobench.seq_write.t1.MBps", .value = 33.5, .has_value = 1, .unit = "MB/s" },
                        { .name = "tiobench.seq_write.t1.lat_avg_ms", .value = 0.9, .has_value = 1, .unit = "ms" },
                };
                insert(f, "c008", KID_A, "tiobench", 0, 1, "ok", NULL, 2, m, NULL);
        }
        ASSERT_EQ(db_run_finish(f->db, f->run, "complete", &err), 0);
        ASSERT_EQ(db_run_create(f->db, &empty, &err), 0);
        f->empty_run = empty.id;
}

void fixture_done(struct fixture *f) {
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        char p[160];

        f->db = db_close(f->db);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", f->path, suffixes[i]);
                unlink(p);
        }
        ASSERT_EQ(rmdir(f->dir), 0);
}
