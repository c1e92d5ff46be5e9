/* test-query.c: the read side of the result store (results/query.c) and the
 * views built on it (harness/show.c), on a database the test fills: two
 * kernels, dd repeats, a failed cell whose partial metric must stay out of
 * the statistics, a retried cell, and a workload with a print hook. The JSON
 * views are parsed back with jansson. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "harness/show.h"
#include "results/db.h"
#include "results/query.h"
#include "workloads/workload.h"

TEST_MAIN();

/* A stand-in registry: show.c looks workloads up by name to find print
 * hooks; this one gives "tiobench" a hook and "dd" none. */
static int hook_calls;

static void tio_print(const struct metric_list *metrics, FILE *out) {
        const struct metric *m = metric_find(metrics, "tiobench.seq_write_MBps");

        hook_calls++;
        fprintf(out, "TIOBENCH-LAYOUT metrics=%zu seq_write=%.1f\n", metrics->n, m ? m->value : -1.0);
}

static const struct workload_ops fake_dd = { .name = "dd" };
static const struct workload_ops fake_tio = { .name = "tiobench", .print = tio_print };

const struct workload_ops *workload_find(const char *name) {
        if (strcmp(name, "dd") == 0)
                return &fake_dd;
        if (strcmp(name, "tiobench") == 0)
                return &fake_tio;
        return NULL;
}

#define KID_A "1111111111111111111111111111111111111111111111111111111111111111"
#define KID_B "2222222222222222222222222222222222222222222222222222222222222222"

struct fixture {
        char dir[64], path[128];
        struct db *db;
        int64_t run, empty_run;
        int64_t failed_cell_id;
};

static const char console_log[] = "[    0.000000] Linux version 6.1.0-47-amd64\0\x01 after NUL\n";

static void insert(struct fixture *f, const char *key, const char *kid, const char *workload, int it,
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

static void fixture_init(struct fixture *f) {
        struct kb_error err = { { 0 } };
        struct db_kernel ka = { .id = KID_A, .name = "6.1.0-47-amd64", .release = "6.1.0-47-amd64",
                                .source = "linux-image-6.1.0-47-amd64-unsigned_6.1.170-3_amd64.deb",
                                .added_at = 1700000000 };
        struct db_kernel kb = { .id = KID_B, .name = "6.1.0-57-amd64", .release = "6.1.0-57-amd64",
                                .source = "linux-image-6.1.0-57.deb", .added_at = 1700000001 };
        struct db_run run = { .tag = "nightly", .settings_json = "{\"repeats\":3,\"mem_mb\":256}",
                              .host = "builder", .qemu_version = "7.2.19", .libvirt_version = "9.0.0",
                              .kbench_version = "0.1.0", .started_at = 1700000200 };
        struct db_run empty = { .tag = NULL, .settings_json = "{}", .started_at = 1700009000 };
        double wa[] = { 40, 42, 44 };

        snprintf(f->dir, sizeof(f->dir), "/tmp/kbench-test-query-XXXXXX");
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
                        { .name = "tiobench.seq_write_MBps", .value = 33.5, .has_value = 1, .unit = "MB/s" },
                        { .name = "tiobench.seq_write_lat_ms", .value = 0.9, .has_value = 1, .unit = "ms" },
                };
                insert(f, "c008", KID_A, "tiobench", 0, 1, "ok", NULL, 2, m, NULL);
        }
        ASSERT_EQ(db_run_finish(f->db, f->run, "complete", &err), 0);
        ASSERT_EQ(db_run_create(f->db, &empty, &err), 0);
        f->empty_run = empty.id;
}

static void fixture_done(struct fixture *f) {
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        char p[160];

        f->db = db_close(f->db);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", f->path, suffixes[i]);
                unlink(p);
        }
        ASSERT_EQ(rmdir(f->dir), 0);
}

/* Run a view into a memory buffer. OUT: *ret (caller frees). */
#define CAPTURE(ret, call) do {                                                 \
                size_t _len = 0;                                                \
                FILE *_f = open_memstream(&(ret), &_len);                       \
                ASSERT_TRUE(_f);                                                \
                FILE *out = _f;                                                 \
                ASSERT_EQ((call), 0);                                           \
                fclose(_f);                                                     \
        } while (0)

TEST(runs_and_cells) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_run *runs = NULL, *one = NULL;
        struct query_cell *cells = NULL, *cell = NULL;
        size_t n = 0;
        int64_t last = 0;

        fixture_init(&f);
        ASSERT_EQ(query_runs(f.db, &runs, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_EQ(runs[0].id, f.run);
        ASSERT_STREQ(runs[0].tag, "nightly");
        ASSERT_STREQ(runs[0].status, "complete");
        ASSERT_TRUE(isfinite(runs[0].finished_at));
        ASSERT_EQ(runs[0].n_kernels, 2);
        ASSERT_EQ(runs[0].n_cells, 9);      /* c000..c008, c007 counted once */
        ASSERT_EQ(runs[0].n_ok, 8);         /* all but c006 */
        ASSERT_TRUE(runs[1].tag == NULL);
        ASSERT_STREQ(runs[1].status, "running");
        ASSERT_TRUE(isnan(runs[1].finished_at));
        ASSERT_EQ(runs[1].n_cells, 0);
        query_runs_free(runs, n);

        ASSERT_EQ(query_last_run_id(f.db, &last, &err), 0);
        ASSERT_EQ(last, f.empty_run);
        ASSERT_EQ(query_run(f.db, 77, &one, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no run 77 in ") && strstr(err.msg, f.path));
        ASSERT_EQ(query_run(f.db, f.run, &one, &err), 0);
        ASSERT_STREQ(one->qemu_version, "7.2.19");
        query_runs_free(one, 1);

        ASSERT_EQ(query_cells(f.db, f.run, &cells, &n, &err), 0);
        ASSERT_EQ(n, 10);
        ASSERT_STREQ(cells[0].cell_key, "c000");
        ASSERT_STREQ(cells[0].kernel_name, "6.1.0-47-amd64");
        ASSERT_STREQ(cells[1].kernel_name, "6.1.0-57-amd64");
        ASSERT_STREQ(cells[6].state, "workload-failure");
        ASSERT_EQ(cells[6].exit_code, 1);
        ASSERT_NEAR(cells[0].boot_s, 2.5, 1e-12);
        ASSERT_STREQ(cells[0].accel, "tcg");
        query_cells_free(cells, n);

        ASSERT_EQ(query_cell(f.db, f.run, "c007", &cell, &err), 0);
        ASSERT_EQ(cell->attempt, 2);
        ASSERT_STREQ(cell->state, "ok");
        query_cells_free(cell, 1);
        ASSERT_EQ(query_cell(f.db, f.run, "c999", &cell, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no cell c999 in run") != NULL);
        ASSERT_EQ(query_cells(f.db, f.empty_run, &cells, &n, &err), 0);
        ASSERT_EQ(n, 0);
        query_cells_free(cells, n);
        fixture_done(&f);
}

TEST(cell_data) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_metric *m = NULL;
        struct db_vmstat_row *rows = NULL;
        struct query_point *pts = NULL;
        struct query_log_info *logs = NULL;
        char *text = NULL;
        size_t n = 0, len = 0;

        fixture_init(&f);
        ASSERT_EQ(query_cell_metrics(f.db, f.failed_cell_id, &m, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(m[0].name, "dd.write_MBps");
        ASSERT_NEAR(m[0].value, 1000, 0);
        query_metrics_free(m, n);

        ASSERT_EQ(query_cell_vmstat(f.db, f.failed_cell_id, &rows, &n, &err), 0);
        ASSERT_EQ(n, 3);
        ASSERT_EQ(rows[0].seq, 3);
        ASSERT_EQ(rows[0].first, 1);
        ASSERT_EQ(rows[2].first, 0);
        ASSERT_NEAR(rows[2].v[DB_VM_bo], 2000, 0);
        ASSERT_NEAR(rows[2].v[DB_VM_in], 2, 0);
        ASSERT_TRUE(isnan(rows[2].v[DB_VM_gu]));
        ASSERT_NEAR(rows[1].t_guest, 2.5, 1e-12);
        free(rows);

        ASSERT_EQ(query_cell_points(f.db, f.failed_cell_id, &pts, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(pts[1].kind, "phase");
        ASSERT_NEAR(pts[1].t, 9.0, 0);
        query_points_free(pts, n);

        ASSERT_EQ(query_cell_logs(f.db, f.failed_cell_id, &logs, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(logs[0].stream, "console");
        ASSERT_EQ(logs[0].bytes, sizeof(console_log) - 1);
        query_log_infos_free(logs, n);

        ASSERT_EQ(query_cell_log(f.db, f.failed_cell_id, "console", &text, &len, &err), 0);
        ASSERT_EQ(len, sizeof(console_log) - 1);
        ASSERT_TRUE(memcmp(text, console_log, len) == 0);
        free(text);
        ASSERT_EQ(query_cell_log(f.db, f.failed_cell_id, "script", &text, &len, &err), -ENOENT);
        fixture_done(&f);
}

TEST(samples_use_ok_cells_only) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_series *s = NULL;
        size_t n = 0;

        fixture_init(&f);
        ASSERT_EQ(query_run_samples(f.db, f.run, &s, &n, &err), 0);
        /* Kernel A first (first cell), then B; workloads and metrics sorted. */
        ASSERT_EQ(n, 5);
        ASSERT_STREQ(s[0].kernel_name, "6.1.0-47-amd64");
        ASSERT_STREQ(s[0].metric, "dd.read_MBps");
        ASSERT_EQ(s[0].n, 3);
        ASSERT_STREQ(s[1].metric, "dd.write_MBps");
        ASSERT_EQ(s[1].n, 3);           /* 40 42 44; the failed cell's 1000 is out */
        ASSERT_NEAR(s[1].values[0] + s[1].values[1] + s[1].values[2], 126, 1e-9);
        ASSERT_STREQ(s[1].unit, "MB/s");
        ASSERT_STREQ(s[2].workload, "tiobench");
        ASSERT_STREQ(s[2].metric, "tiobench.seq_write_MBps");
        ASSERT_STREQ(s[4].kernel_name, "6.1.0-57-amd64");
        ASSERT_STREQ(s[4].kernel_id, KID_B);
        ASSERT_STREQ(s[4].metric, "dd.write_MBps");
        ASSERT_EQ(s[4].n, 3);           /* 50 50 and the retried c007's 53 */
        ASSERT_EQ(s[4].n_missing, 1);
        query_series_free(s, n);
        fixture_done(&f);
}

TEST(show_run_text) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        char *text = NULL;

        fixture_init(&f);
        hook_calls = 0;
        CAPTURE(text, show_run(f.db, f.run, 0, out, &err));
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "run 1  tag nightly  complete") != NULL);
        ASSERT_TRUE(strstr(text, "qemu 7.2.19") != NULL);
        ASSERT_TRUE(strstr(text, "c000  6.1.0-47-amd64  dd") != NULL);
        ASSERT_TRUE(strstr(text, "dd.write_MBps=40 ") != NULL || strstr(text, "dd.write_MBps=40\n") != NULL);
        /* The failed cell shows its detail with the escape byte masked. */
        ASSERT_TRUE(strstr(text, "dd exited 1: ?[31mNo space left on device") != NULL);
        ASSERT_TRUE(strchr(text, '\x1b') == NULL);
        /* One hook call: the ok tiobench cell. */
        ASSERT_EQ(hook_calls, 1);
        ASSERT_TRUE(strstr(text, "TIOBENCH-LAYOUT metrics=2 seq_write=33.5") != NULL);
        ASSERT_TRUE(strstr(text, "Summary over ok cells") != NULL);
        ASSERT_TRUE(strstr(text, "6.1.0-47-amd64  dd        dd.write_MBps") != NULL);
        ASSERT_TRUE(strstr(text, "3            42 ± 2 ") != NULL);
        ASSERT_TRUE(strstr(text, "(1 without value)") != NULL);
        free(text);

        CAPTURE(text, show_run(f.db, f.empty_run, 0, out, &err));
        ASSERT_TRUE(strstr(text, "no cells stored yet") != NULL);
        free(text);

        text = NULL;
        {
                FILE *out = fopen("/dev/null", "w");
                ASSERT_EQ(show_run(f.db, 7, 0, out, &err), -ENOENT);
                fclose(out);
        }
        ASSERT_TRUE(strncmp(err.msg, "no run 7 in ", 12) == 0);
        ASSERT_STREQ(err.msg + 12, f.path);
        fixture_done(&f);
}

TEST(show_run_json) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        json_error_t jerr;
        json_t *j, *cells, *c, *summary;
        char *text = NULL;
        size_t i, found = 0;

        fixture_init(&f);
        CAPTURE(text, show_run(f.db, f.run, 1, out, &err));
        j = json_loads(text, 0, &jerr);
        free(text);
        ASSERT_TRUE(j);
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "run"), "id")), f.run);
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(j, "run"), "tag")), "nightly");
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(json_object_get(j, "run"), "settings"),
                                                     "repeats")), 3);
        cells = json_object_get(j, "cells");
        ASSERT_EQ(json_array_size(cells), 10);
        c = json_array_get(cells, 6);
        ASSERT_STREQ(json_string_value(json_object_get(c, "state")), "workload-failure");
        ASSERT_STREQ(json_string_value(json_object_get(c, "key")), "c006");
        c = json_array_get(cells, 5);
        ASSERT_STREQ(json_string_value(json_object_get(c, "kernel")), "6.1.0-57-amd64");
        ASSERT_TRUE(json_is_null(json_object_get(json_object_get(json_object_get(c, "metrics"), "dd.write_MBps"),
                                                 "value")));
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(json_object_get(c, "metrics"),
                                                                       "dd.write_MBps"), "note")),
                     "dd printed no rate");
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(cells, 0), "boot_s")), 2.5, 1e-12);

        summary = json_object_get(j, "summary");
        ASSERT_EQ(json_array_size(summary), 5);
        json_array_foreach(summary, i, c) {
                if (strcmp(json_string_value(json_object_get(c, "kernel")), "6.1.0-47-amd64") == 0 &&
                    strcmp(json_string_value(json_object_get(c, "metric")), "dd.write_MBps") == 0) {
                        ASSERT_EQ(json_integer_value(json_object_get(c, "n")), 3);
                        ASSERT_NEAR(json_number_value(json_object_get(c, "mean")), 42, 1e-9);
                        ASSERT_NEAR(json_number_value(json_object_get(c, "stddev")), 2, 1e-9);
                        found++;
                }
                if (strcmp(json_string_value(json_object_get(c, "metric")), "tiobench.seq_write_MBps") == 0) {
                        /* One sample: no stddev. */
                        ASSERT_TRUE(json_is_null(json_object_get(c, "stddev")));
                        found++;
                }
        }
        ASSERT_EQ(found, 2);
        json_decref(j);

        CAPTURE(text, show_runs(f.db, 1, out, &err));
        j = json_loads(text, 0, &jerr);
        free(text);
        ASSERT_TRUE(j && json_array_size(j) == 2);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(j, 0), "cells_ok")), 8);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(j, 0), "cells")), 9);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(j, 1), "finished_at")));
        json_decref(j);
        fixture_done(&f);
}

TEST(show_runs_text_and_resolve) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        char *text = NULL;
        int64_t id = 0;

        fixture_init(&f);
        CAPTURE(text, show_runs(f.db, 0, out, &err));
        ASSERT_TRUE(strstr(text, "CELLS OK/TOTAL") != NULL);
        ASSERT_TRUE(strstr(text, "    1  nightly  ") != NULL);
        ASSERT_TRUE(strstr(text, "complete        2  8/9\n") != NULL);
        ASSERT_TRUE(strstr(text, "running         0  0/0\n") != NULL);
        free(text);

        ASSERT_EQ(show_resolve_run(f.db, "last", &id, &err), 0);
        ASSERT_EQ(id, f.empty_run);
        ASSERT_EQ(show_resolve_run(f.db, "1", &id, &err), 0);
        ASSERT_EQ(id, 1);
        ASSERT_EQ(show_resolve_run(f.db, "7", &id, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no run 7 in ") != NULL);
        ASSERT_EQ(show_resolve_run(f.db, "1x", &id, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "bad run '1x' (a run id or 'last')");
        ASSERT_EQ(show_resolve_run(f.db, "-3", &id, &err), -EINVAL);
        fixture_done(&f);
}

TEST(show_cell_views) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        json_error_t jerr;
        json_t *j;
        char *text = NULL;
        size_t len = 0;
        FILE *fo;

        fixture_init(&f);
        hook_calls = 0;
        CAPTURE(text, show_cell(f.db, f.run, "c008", 0, out, &err));
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "cell c008  run 1  attempt 1") != NULL);
        ASSERT_TRUE(strstr(text, "tiobench.seq_write_lat_ms") != NULL);
        ASSERT_TRUE(strstr(text, "TIOBENCH-LAYOUT metrics=2") != NULL);
        ASSERT_TRUE(strstr(text, "vmstat: 3 rows") != NULL);
        ASSERT_TRUE(strstr(text, "(since boot)") != NULL);
        ASSERT_TRUE(strstr(text, "phase: 2 points, t 2.00..9.00 s") != NULL);
        ASSERT_TRUE(strstr(text, "console (") != NULL);
        ASSERT_EQ(hook_calls, 1);
        free(text);

        /* A failed cell: no hook. */
        CAPTURE(text, show_cell(f.db, f.run, "c006", 0, out, &err));
        ASSERT_EQ(hook_calls, 1);
        free(text);

        CAPTURE(text, show_cell(f.db, f.run, "c007", 1, out, &err));
        j = json_loads(text, 0, &jerr);
        free(text);
        ASSERT_TRUE(j);
        ASSERT_EQ(json_integer_value(json_object_get(j, "attempt")), 2);
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(j, "params"), "bs")), "1M");
        ASSERT_EQ(json_array_size(json_object_get(j, "vmstat")), 3);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(json_object_get(j, "vmstat"), 2), "gu")));
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(json_object_get(j, "vmstat"), 2), "bo")),
                    2000, 0);
        ASSERT_EQ(json_is_true(json_object_get(json_array_get(json_object_get(j, "vmstat"), 0), "first")), 1);
        ASSERT_EQ(json_array_size(json_object_get(j, "timeline")), 2);
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "log_bytes"), "console")),
                  sizeof(console_log) - 1);
        json_decref(j);

        /* The raw log, NULs included. */
        text = NULL;
        fo = open_memstream(&text, &len);
        ASSERT_TRUE(fo);
        ASSERT_EQ(show_cell_log(f.db, f.run, "c006", "console", fo, &err), 0);
        fclose(fo);
        ASSERT_EQ(len, sizeof(console_log) - 1);
        ASSERT_TRUE(memcmp(text, console_log, len) == 0);
        free(text);

        fo = fopen("/dev/null", "w");
        ASSERT_EQ(show_cell_log(f.db, f.run, "c006", "script", fo, &err), -ENOENT);
        ASSERT_STREQ(err.msg, "run 1 cell c006: cell has no script log");
        ASSERT_EQ(show_cell(f.db, f.run, "nope", 0, fo, &err), -ENOENT);
        ASSERT_STREQ(err.msg, "no cell nope in run 1");
        fclose(fo);
        fixture_done(&f);
}
