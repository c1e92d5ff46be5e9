/* Unit tests for cellrows: a cell kept as a pending JSON file comes back
 * byte for byte, hostile files are refused, and storing pending cells puts
 * them in the database and removes the files. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "common/test.h"
#include "common/proto.h"
#include "cell/cellrows.h"
#include "report/view.h"
#include "web/charts.h"

TEST_MAIN();

static const char console_bytes[] = "Linux version 6.1\n\x01\xff\xfe binary \0 after nul";

static struct db_cell sample(const struct db_metric *m, size_t nm, const struct db_vmstat_row *v, size_t nv,
                             const struct db_point *p, size_t np, const struct db_log *l, size_t nl) {
        return (struct db_cell){
                .run_id = 7, .cell_key = "c003", .kernel_id = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                .workload = "dd", .params_json = "{\"mem_mb\":160}", .iteration = 1, .attempt = 2,
                .state = CELL_INFRA_ERROR, .detail = "host disk full", .accel = "tcg", .started_at = 1700000000.25,
                .boot_s = 2.5, .workload_s = NAN, .total_s = 31.0, .exit_code = -1, .rejected_records = 3,
                .n_metrics = nm, .metrics = m, .n_vmstat = nv, .vmstat = v, .n_points = np, .points = p,
                .n_logs = nl, .logs = l,
        };
}

TEST(json_round_trip) {
        struct db_metric m[2] = { { "dd.write_MBps", 41.5, 1, "MB/s", NULL }, { "bonnie.x", NAN, 0, "/s", "+++++" } };
        struct db_vmstat_row v[2] = { { .seq = 4, .t_host = 1.5, .t_guest = 1.25, .first = 1 },
                                      { .seq = 5, .t_host = 2.5, .t_guest = 2.25 } };
        struct db_point p[1] = { { "ftp.bytes", 3.0, 65536 } };
        struct db_log l[2] = { { "console", console_bytes, sizeof(console_bytes) - 1 }, { "data", "", 0 } };
        struct db_cell c;
        struct cellrows back;
        struct kb_error err = { { 0 } };
        json_t *j;
        char *text;

        for (int k = 0; k < DB_VM_NCOLS; k++) {
                v[0].v[k] = k * 1.5;
                v[1].v[k] = k == 3 ? NAN : k;
        }
        c = sample(m, 2, v, 2, p, 1, l, 2);
        c.n_hostblk = 2;
        c.hostblk = (const struct db_hostblk_row[]){ { 2.0, 0, 4096, 0, 1 }, { 3.0, -1, 1 << 20, -1, 9 } };
        c.n_marks = 2;
        c.marks = (const struct db_mark[]){ { "phase write", 1.25, 1.5 }, { "sync-end", 2.0, NAN } };
        j = cellrows_to_json(&c);
        text = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        ASSERT_TRUE(text != NULL);
        j = json_loads(text, 0, NULL);
        free(text);
        ASSERT_EQ(cellrows_from_json(j, &back, &err), 0);
        json_decref(j);
        ASSERT_EQ(back.cell.run_id, 7);
        ASSERT_STREQ(back.cell.cell_key, "c003");
        ASSERT_STREQ(back.cell.state, CELL_INFRA_ERROR);
        ASSERT_STREQ(back.cell.detail, "host disk full");
        ASSERT_EQ(back.cell.attempt, 2);
        ASSERT_EQ(back.cell.iteration, 1);
        ASSERT_EQ(back.cell.exit_code, -1);
        ASSERT_EQ(back.cell.rejected_records, 3);
        ASSERT_NEAR(back.cell.started_at, 1700000000.25, 1e-6);
        ASSERT_TRUE(isnan(back.cell.workload_s));
        ASSERT_EQ(back.cell.n_metrics, 2);
        ASSERT_NEAR(back.cell.metrics[0].value, 41.5, 1e-12);
        ASSERT_EQ(back.cell.metrics[1].has_value, 0);
        ASSERT_STREQ(back.cell.metrics[1].note, "+++++");
        ASSERT_EQ(back.cell.n_vmstat, 2);
        ASSERT_EQ(back.cell.vmstat[0].first, 1);
        ASSERT_EQ(back.cell.vmstat[1].seq, 5);
        ASSERT_NEAR(back.cell.vmstat[0].v[DB_VM_NCOLS - 1], (DB_VM_NCOLS - 1) * 1.5, 1e-12);
        ASSERT_TRUE(isnan(back.cell.vmstat[1].v[3]));
        ASSERT_EQ(back.cell.n_points, 1);
        ASSERT_STREQ(back.cell.points[0].kind, "ftp.bytes");
        ASSERT_EQ(back.cell.n_hostblk, 2);
        ASSERT_NEAR(back.cell.hostblk[1].t_host, 3.0, 1e-12);
        ASSERT_EQ(back.cell.hostblk[1].rd_bytes, -1);
        ASSERT_EQ(back.cell.hostblk[1].wr_bytes, 1 << 20);
        ASSERT_EQ(back.cell.hostblk[0].wr_reqs, 1);
        ASSERT_EQ(back.cell.n_marks, 2);
        ASSERT_STREQ(back.cell.marks[0].name, "phase write");
        ASSERT_NEAR(back.cell.marks[0].t_guest, 1.25, 1e-12);
        ASSERT_NEAR(back.cell.marks[0].t_host, 1.5, 1e-12);
        ASSERT_TRUE(isnan(back.cell.marks[1].t_host));
        ASSERT_EQ(back.cell.n_logs, 2);
        ASSERT_EQ(back.cell.logs[0].len, sizeof(console_bytes) - 1);
        ASSERT_TRUE(memcmp(back.cell.logs[0].text, console_bytes, sizeof(console_bytes) - 1) == 0);
        ASSERT_EQ(back.cell.logs[1].len, 0);
        cellrows_clear(&back);

        /* A pending file of an older kbench: 20 vmstat values, the columns
         * after writeback not measured (NAN); fewer than 20, or more than
         * the columns, is not a pending file. */
        {
                static const char *const bad[] = { "[1,2,3]", NULL };
                char doc[1024];
                size_t n = 0;

                n += (size_t)snprintf(doc + n, sizeof(doc) - n,
                                      "{\"run_id\":7,\"cell_key\":\"c003\",\"kernel_id\":\"k\",\"workload\":\"dd\","
                                      "\"iteration\":0,\"attempt\":1,\"state\":\"ok\",\"exit_code\":0,"
                                      "\"rejected_records\":0,\"vmstat\":[{\"seq\":1,\"v\":[");
                for (int k = 0; k <= DB_VM_writeback; k++)
                        n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%s%d", k ? "," : "", k);
                snprintf(doc + n, sizeof(doc) - n, "]}]}");
                j = json_loads(doc, 0, NULL);
                ASSERT_TRUE(j != NULL);
                ASSERT_EQ(cellrows_from_json(j, &back, &err), 0);
                json_decref(j);
                ASSERT_EQ(back.cell.n_vmstat, 1);
                ASSERT_NEAR(back.cell.vmstat[0].v[DB_VM_writeback], DB_VM_writeback, 1e-12);
                ASSERT_TRUE(isnan(back.cell.vmstat[0].v[DB_VM_util]));
                cellrows_clear(&back);
                for (const char *const *b = bad; *b; b++) {
                        char *e = strstr(doc, "\"v\":[");
                        snprintf(e, sizeof(doc) - (size_t)(e - doc), "\"v\":%s}]}", *b);
                        j = json_loads(doc, 0, NULL);
                        ASSERT_TRUE(j != NULL);
                        ASSERT_EQ(cellrows_from_json(j, &back, &err), -EINVAL);
                        ASSERT_TRUE(strstr(err.msg, "vmstat[0]") != NULL);
                        json_decref(j);
                }
        }
}

/* A pending file written before marks were rows has none: they are read
 * from its data log as the store's migration reads a stored cell's (the
 * good event records, on the host clock by the first ready record). */
TEST(json_without_marks_reads_them_from_the_data_log) {
        char log[PROTO_LINE_MAX * 2], rec[PROTO_LINE_MAX + 1];
        struct db_log l[1];
        struct db_cell c;
        struct cellrows back;
        struct kb_error err = { { 0 } };
        size_t n = 0;
        json_t *j;
        int k;

        k = proto_format(rec, sizeof(rec), "c003", 0, 3000, "ready", "release=6.1", 11);
        ASSERT_TRUE(k > 0);
        memcpy(log + n, rec, (size_t)k), n += (size_t)k;
        k = proto_format(rec, sizeof(rec), "c003", 1, 3500, "event", "phase write", 11);
        ASSERT_TRUE(k > 0);
        memcpy(log + n, rec, (size_t)k), n += (size_t)k;
        memcpy(log + n, "@kb c003 2 3600 event phase bogus *00000000\n", 45), n += 45;
        l[0] = (struct db_log){ "data", log, n };
        c = sample(NULL, 0, NULL, 0, NULL, 0, l, 1);
        j = cellrows_to_json(&c);
        ASSERT_EQ(json_object_del(j, "marks"), 0);
        ASSERT_EQ(cellrows_from_json(j, &back, &err), 0);
        json_decref(j);
        ASSERT_EQ(back.cell.n_marks, 1);
        ASSERT_STREQ(back.cell.marks[0].name, "phase write");
        ASSERT_NEAR(back.cell.marks[0].t_guest, 3.5, 1e-12);
        ASSERT_NEAR(back.cell.marks[0].t_host, 2.5 + 0.5, 1e-12);   /* boot_s 2.5 at the ready record */
        cellrows_clear(&back);
}

TEST(json_refuses_bad_fields) {
        static const char *const bad[] = {
                "[]",
                "{\"run_id\":0,\"cell_key\":\"c0\",\"kernel_id\":\"k\",\"workload\":\"dd\",\"state\":\"ok\","
                "\"iteration\":0,\"attempt\":1,\"exit_code\":0,\"rejected_records\":0}",
                "{\"run_id\":1,\"cell_key\":\"c0\",\"kernel_id\":\"k\",\"workload\":\"dd\",\"state\":\"ok\","
                "\"iteration\":0,\"attempt\":0,\"exit_code\":0,\"rejected_records\":0}",
                "{\"run_id\":1,\"cell_key\":7,\"kernel_id\":\"k\",\"workload\":\"dd\",\"state\":\"ok\","
                "\"iteration\":0,\"attempt\":1,\"exit_code\":0,\"rejected_records\":0}",
                "{\"run_id\":1,\"cell_key\":\"c0\",\"kernel_id\":\"k\",\"workload\":\"dd\",\"state\":\"ok\","
                "\"iteration\":0,\"attempt\":1,\"exit_code\":256,\"rejected_records\":0}",
                "{\"run_id\":1,\"cell_key\":\"c0\",\"kernel_id\":\"k\",\"workload\":\"dd\",\"state\":\"ok\","
                "\"iteration\":0,\"attempt\":1,\"exit_code\":0,\"rejected_records\":0,\"vmstat\":[{\"seq\":1,\"v\":[1]}]}",
                "{\"run_id\":1,\"cell_key\":\"c0\",\"kernel_id\":\"k\",\"workload\":\"dd\",\"state\":\"ok\","
                "\"iteration\":0,\"attempt\":1,\"exit_code\":0,\"rejected_records\":0,\"logs\":[{\"stream\":\"a\"}]}",
        };
        /* Each row array's element, bad, names its array and index. */
        static const char *const head = "{\"run_id\":1,\"cell_key\":\"c0\",\"kernel_id\":\"k\",\"workload\":\"dd\","
                                        "\"state\":\"ok\",\"iteration\":0,\"attempt\":1,\"exit_code\":0,"
                                        "\"rejected_records\":0,";
        static const struct { const char *tail, *want; } named[] = {
                { "\"host_block\":[{\"t_host\":1,\"rd_bytes\":-2}]}", "host_block[0]" },
                { "\"marks\":[{\"name\":\"m\",\"t_guest\":1},{\"name\":\"m\"}]}", "marks[1]" },
                { "\"profile\":[{\"phase\":\"w\",\"symbol\":\"f\",\"insns\":0}]}", "profile[0]" },
                { "\"metrics\":[{\"name\":\"m\"}]}", "unit" },
                { "\"points\":[{\"t\":1}]}", "kind" },
                { "\"logs\":[{},{},{},{},{}]}", "logs: more than 4" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(named); i++) {
                g_autofree char *doc = g_strconcat(head, named[i].tail, NULL);
                struct cellrows back;
                struct kb_error err = { { 0 } };
                json_t *j = json_loads(doc, 0, NULL);

                ASSERT_TRUE(j != NULL);
                if (cellrows_from_json(j, &back, &err) != -EINVAL || !strstr(err.msg, named[i].want))
                        TEST_FAIL("%s: %s", doc, err.msg);
                json_decref(j);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                struct cellrows back;
                struct kb_error err = { { 0 } };
                json_t *j = json_loads(bad[i], 0, NULL);

                ASSERT_TRUE(j != NULL);
                if (cellrows_from_json(j, &back, &err) != -EINVAL)
                        TEST_FAIL("accepted: %s", bad[i]);
                ASSERT_TRUE(err.msg[0] != '\0');
                json_decref(j);
        }
}

TEST(pending_stored_on_resume) {
        g_autofree char *dir = g_dir_make_tmp("kbench-test-cellrows-XXXXXX", NULL);
        g_autofree char *pending = g_build_filename(dir, "pending", NULL);
        g_autofree char *dbpath = g_build_filename(dir, "results.db", NULL);
        g_autofree char *path = NULL;
        struct db_log l[1] = { { "console", console_bytes, sizeof(console_bytes) - 1 } };
        struct db_kernel k = { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "k", "r", "s", 1.0 };
        struct db_run run = { .settings_json = "{}", .started_at = 1.0 };
        struct kb_error err = { { 0 } };
        struct db *db = NULL;
        struct db_cell c;
        char **keys = NULL;
        int n = -1;

        ASSERT_TRUE(dir != NULL);
        ASSERT_EQ(db_open(dbpath, &db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(db, &k, &err), 0);
        ASSERT_EQ(db_run_create(db, &run, &err), 0);
        c = sample(NULL, 0, NULL, 0, NULL, 0, l, 1);
        c.run_id = run.id;
        c.state = CELL_OK;
        ASSERT_EQ(cellrows_save_pending(pending, &c, &path, &err), 0);
        ASSERT_TRUE(g_file_test(path, G_FILE_TEST_EXISTS));
        /* Another run's pending cells stay where they are. */
        ASSERT_EQ(cellrows_store_pending(db, pending, run.id + 1, &n, &err), 0);
        ASSERT_EQ(n, 0);
        ASSERT_TRUE(g_file_test(path, G_FILE_TEST_EXISTS));
        ASSERT_EQ(cellrows_store_pending(db, pending, run.id, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_TRUE(!g_file_test(path, G_FILE_TEST_EXISTS));
        ASSERT_EQ(db_run_done_keys(db, run.id, &keys, &err), 0);
        ASSERT_TRUE(keys && keys[0] && strcmp(keys[0], "c003") == 0 && !keys[1]);
        g_strfreev(keys);
        db_close(db);
        g_rmdir(pending);
        for (const char *sfx = ""; sfx; sfx = strcmp(sfx, "") == 0 ? "-wal" : strcmp(sfx, "-wal") == 0 ? "-shm" : NULL) {
                g_autofree char *f = g_strconcat(dbpath, sfx, NULL);
                g_unlink(f);
        }
        ASSERT_EQ(g_rmdir(dir), 0);
}

/* The agent's vmstat stream as the cell keeps it: the two header lines,
 * vmstat's since-boot average row, then one row a second. */
static void add_vm(struct cell_result *res, const char *type, const char *text, int64_t seq, double t) {
        struct cell_vmstat_line v = { g_strdup(type), g_strdup(text), seq, t, t - 0.5 };
        g_array_append_val(res->vmstat, v);
}

TEST(since_boot_row_is_marked_first) {
        struct cell_result res = { .state = CELL_OK, .exit_code = 0, .boot_s = 2, .workload_s = 3, .total_s = 6 };
        struct workload_spec *spec = NULL;
        struct kb_error err = { { 0 } };
        struct cellrows rows;
        struct cellrows_ctx ctx = { .run_id = 1, .cell_key = "c000", .kernel_id = "k", .iteration = 0,
                                    .attempt = 1, .accel = "tcg", .params_json = "{}" };

        ASSERT_EQ(workload_spec_parse("dd", &spec, &err), 0);
        ctx.workload = spec;
        res.vmstat = g_array_new(FALSE, TRUE, sizeof(struct cell_vmstat_line));
        res.points = g_array_new(FALSE, TRUE, sizeof(struct cell_point));
        res.console = g_string_new("Linux version 6.1\n");
        res.data = g_string_new("");
        add_vm(&res, "vmstat-header", "procs -----------memory---------- ---swap-- -----io---- -system-- "
               "-------cpu------- ---kbench---", 1, 2.0);
        add_vm(&res, "vmstat-header", " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id "
               "wa st gu  dirty writeback", 2, 2.0);
        add_vm(&res, "vmstat-boot", " 1  0      0 100000   2000  30000    0    0   900   800  100  200  5  5 88  2  0  "
               "0      0         0", 3, 2.1);
        add_vm(&res, "vmstat", " 2  0      0  99000   2000  31000    0    0     0  5000  300  400 10 20 50 20  0  "
               "0   4096         0", 4, 3.1);
        add_vm(&res, "vmstat", " 1  1      0  98000   2000  32000    0    0     0  6000  310  410 11 21 48 20  0  "
               "0   8192      1024", 5, 4.1);
        /* The host saw the same writes: 5000 KiB in the second to 3.1, 6000 in the next. */
        res.hostblk = g_array_new(FALSE, TRUE, sizeof(struct cell_hostblk));
        g_array_append_val(res.hostblk, ((struct cell_hostblk){ 2.1, { 0, 0, 0, 0 } }));
        g_array_append_val(res.hostblk, ((struct cell_hostblk){ 3.1, { 0, 5000 * 1024, 0, 40 } }));
        g_array_append_val(res.hostblk, ((struct cell_hostblk){ 4.1, { 0, 11000 * 1024, 0, 88 } }));
        cellrows_build(&ctx, &res, &rows);
        ASSERT_EQ(rows.cell.n_hostblk, 3);
        ASSERT_EQ(rows.cell.hostblk[2].wr_reqs, 88);
        ASSERT_NEAR(metric_find(&res.metrics, "host.disk_write_MBps")->value, 11000 * 1024 / 2.0 / 1e6, 1e-9);
        ASSERT_NEAR(metric_find(&res.metrics, "host.disk_written_MB")->value, 11000 * 1024 / 1e6, 1e-9);
        ASSERT_NEAR(metric_find(&res.metrics, "host.disk_read_MBps")->value, 0, 1e-12);
        ASSERT_NEAR(metric_find(&res.metrics, "host.write_disagree_s")->value, 0, 1e-12);
        ASSERT_EQ(rows.cell.n_vmstat, 3);
        ASSERT_EQ(rows.cell.vmstat[0].first, 1);
        ASSERT_EQ(rows.cell.vmstat[0].seq, 3);
        ASSERT_NEAR(rows.cell.vmstat[0].v[DB_VM_bo], 800, 1e-9);
        ASSERT_EQ(rows.cell.vmstat[1].first, 0);
        ASSERT_EQ(rows.cell.vmstat[1].seq, 4);
        ASSERT_NEAR(rows.cell.vmstat[1].v[DB_VM_bo], 5000, 1e-9);
        ASSERT_NEAR(rows.cell.vmstat[2].v[DB_VM_writeback], 1024, 1e-9);
        ASSERT_NEAR(rows.cell.vmstat[2].t_host, 4.1, 1e-9);
        /* An ok cell's rows carry its logs and settings. */
        ASSERT_STREQ(rows.cell.state, CELL_OK);
        ASSERT_STREQ(rows.cell.params_json, "{}");
        ASSERT_STREQ(rows.cell.logs[0].stream, "console");
        ASSERT_EQ(rows.cell.logs[0].len, strlen("Linux version 6.1\n"));
        cellrows_clear(&rows);
        cell_result_clear(&res);
        workload_spec_free(spec);
}

/* A finished cell from recorded facts (the .facts files in tests/data/cells): the
 * cell's raw ttyS1 log as `kbench show RUN --cell KEY --log data` prints
 * it, "# host-offset S" (host arrival minus guest time, taken from the
 * stored rows) and "# point KIND T VALUE" timeline points as stored. */
static void facts_read(const char *name, struct cell_result *res) {
        g_autofree char *path = g_build_filename(KB_TESTDATA_DIR, "cells", name, NULL);
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        double offset = 0;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                TEST_FAIL("cannot read %s", path);
        *res = (struct cell_result){ .state = CELL_OK, .exit_code = 0 };
        res->vmstat = g_array_new(FALSE, TRUE, sizeof(struct cell_vmstat_line));
        res->points = g_array_new(FALSE, TRUE, sizeof(struct cell_point));
        res->events = g_array_new(FALSE, TRUE, sizeof(struct cell_event));
        res->console = g_string_new("");
        res->data = g_string_new(text);
        lines = g_strsplit(text, "\n", -1);
        for (size_t i = 0; lines[i]; i++) {
                struct proto_record rec;
                double t;

                if (g_str_has_prefix(lines[i], "# host-offset ")) {
                        offset = g_ascii_strtod(lines[i] + 14, NULL);
                } else if (g_str_has_prefix(lines[i], "# point ")) {
                        g_auto(GStrv) f = g_strsplit(lines[i] + 8, " ", 3);
                        struct cell_point p;
                        ASSERT_TRUE(f[0] && f[1] && f[2]);
                        p = (struct cell_point){ g_intern_string(f[0]), g_ascii_strtod(f[1], NULL),
                                                 g_ascii_strtod(f[2], NULL) };
                        g_array_append_val(res->points, p);
                }
                if (proto_parse(lines[i], strlen(lines[i]), &rec) != PROTO_OK)
                        continue;
                t = (double)rec.t_ms / 1000.0;
                if (g_str_has_prefix(rec.type, "vmstat")) {
                        struct cell_vmstat_line v = { g_strdup(rec.type), g_strdup(rec.payload), (int64_t)rec.seq,
                                                      t + offset, t };
                        g_array_append_val(res->vmstat, v);
                } else if (strcmp(rec.type, "event") == 0) {
                        struct cell_event e = { g_strdup(rec.payload), t + offset, t };
                        g_array_append_val(res->events, e);
                }
        }
}

static const struct db_metric *row_metric(const struct cellrows *r, const char *name) {
        for (size_t i = 0; i < r->cell.n_metrics; i++)
                if (strcmp(r->cell.metrics[i].name, name) == 0)
                        return &r->cell.metrics[i];
        return NULL;
}

static double row_value(const struct cellrows *r, const char *name) {
        const struct db_metric *m = row_metric(r, name);

        if (!m)
                TEST_FAIL("no metric %s", name);
        return m->has_value ? m->value : NAN;
}

static void facts_rows(const char *file, const char *workload, double interval, struct cell_result *res,
                       struct workload_spec **ret_spec, struct cellrows *ret) {
        struct kb_error err = { { 0 } };
        struct cellrows_ctx ctx = { .run_id = 1, .cell_key = "c000", .kernel_id = "k", .iteration = 0,
                                    .attempt = 1, .accel = "tcg", .params_json = "{}",
                                    .vmstat_interval_s = interval };

        ASSERT_EQ(workload_spec_parse(workload, ret_spec, &err), 0);
        ctx.workload = *ret_spec;
        facts_read(file, res);
        cellrows_build(&ctx, res, ret);
}

/* A real dd cell on a disk throttled to 40 MB/s: the read phase's bo of 0
 * was a 14 s stall when the window was the whole cell; now the cell's
 * stall figures come from the write phase, and the read phase stores
 * none. */
TEST(dd_cell_stalls_come_from_the_write_phase) {
        struct cell_result res;
        struct workload_spec *spec = NULL;
        struct cellrows rows;

        facts_rows("dd-disk40.facts", "dd", 0, &res, &spec, &rows);
        ASSERT_NEAR(row_value(&rows, "vmstat.stall_longest_s"), 0, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.stall_count"), 0, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.samples"), 14, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.write.samples"), 14, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.write.stall_total_s"), 0, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.read.samples"), 14, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.read.bo_mean"), 12.0 / 14, 1e-9);
        ASSERT_TRUE(row_metric(&rows, "vmstat.read.stall_longest_s") == NULL);
        /* drop-caches is a phase the workload does not keep. */
        ASSERT_TRUE(row_metric(&rows, "vmstat.drop_caches.samples") == NULL);
        /* The windows are stored as timeline points, start (0) and end (1). */
        {
                int write = 0, read = 0, other = 0;
                for (size_t i = 0; i < rows.cell.n_points; i++) {
                        const struct db_point *p = &rows.cell.points[i];
                        if (strcmp(p->kind, "phase.write") == 0) {
                                ASSERT_NEAR(p->t, write ? 17.675 : 4.033, 1e-9);
                                ASSERT_NEAR(p->value, write, 1e-12);
                                write++;
                        } else if (strcmp(p->kind, "phase.read") == 0) {
                                read++;
                        } else {
                                other++;
                        }
                }
                ASSERT_EQ(write, 2);
                ASSERT_EQ(read, 2);
                ASSERT_EQ(other, 0);
        }
        /* Every event the cell saw is a mark row, in arrival order. */
        ASSERT_EQ(rows.cell.n_marks, res.events->len);
        ASSERT_TRUE(rows.cell.n_marks > 0);
        for (size_t i = 0; i < rows.cell.n_marks; i++) {
                const struct cell_event *e = &g_array_index(res.events, struct cell_event, i);
                ASSERT_STREQ(rows.cell.marks[i].name, e->name);
                ASSERT_NEAR(rows.cell.marks[i].t_guest, e->t_guest, 1e-12);
                ASSERT_NEAR(rows.cell.marks[i].t_host, e->t_host, 1e-12);
        }
        cellrows_clear(&rows);
        cell_result_clear(&res);
        workload_spec_free(spec);
}

/* A cell sampled every 0.5 s (--vmstat-interval 0.5) with planted stalls
 * (tests/data/cells/dd-half-planted.facts), stored and read back as the
 * site reads it: the writeout stall bands its charts shade are the runs
 * its vmstat.stall_* metrics count, of the same durations. A second
 * computation with a 1 s interval would shade two bands (it would count a
 * row after the write phase) and make the first 1.5 s wide. */
TEST(half_second_cell_shades_the_stalls_its_metrics_count) {
        struct cell_result res;
        struct workload_spec *spec = NULL;
        struct cellrows rows;
        struct kb_error err = { { 0 } };
        g_autofree char *dir = g_dir_make_tmp("kbench-test-cellrows-XXXXXX", NULL);
        g_autofree char *path = g_build_filename(dir, "results.db", NULL);
        g_autofree char *wal = g_strconcat(path, "-wal", NULL), *shm = g_strconcat(path, "-shm", NULL);
        struct db_kernel k = { "k", "6.1.0-57-amd64", "6.1.0-57-amd64", "k.deb", 1 };
        struct db_run run = { .settings_json = "{\"vmstat_interval_s\":0.5}", .started_at = 1 };
        struct view_cell *v = NULL;
        struct cell_charts charts = { 0 };
        struct db *db = NULL;
        double longest = 0, total = 0;

        facts_rows("dd-half-planted.facts", "dd", 0.5, &res, &spec, &rows);
        ASSERT_NEAR(row_value(&rows, "vmstat.stall_count"), 1, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.stall_longest_s"), 1.0, 1e-9);
        ASSERT_TRUE(dir != NULL);
        ASSERT_EQ(db_open(path, &db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(db, &k, &err), 0);
        ASSERT_EQ(db_run_create(db, &run, &err), 0);
        rows.cell.run_id = run.id;
        ASSERT_EQ(db_cell_insert(db, &rows.cell, NULL, &err), 0);
        ASSERT_EQ(view_cell_load(db, run.id, "c000", &v, &err), 0);
        ASSERT_NEAR(v->vmstat_interval_s, 0.5, 1e-12);
        charts_load(v, &charts);
        ASSERT_EQ(charts.n_stalls, (size_t)row_value(&rows, "vmstat.stall_count"));
        for (size_t i = 0; i < charts.n_stalls; i++) {
                double w = charts.stalls[i].t1 - charts.stalls[i].t0;
                longest = fmax(longest, w);
                total += w;
        }
        ASSERT_NEAR(longest, row_value(&rows, "vmstat.stall_longest_s"), 1e-9);
        ASSERT_NEAR(total, row_value(&rows, "vmstat.stall_total_s"), 1e-9);
        /* the band ends at the last stalled row (seq 9, at 1.908 s) */
        ASSERT_NEAR(charts.stalls[0].t1, 5.372 - 3.464, 1e-9);
        /* the marks are the cell's events from rows: write, drop-caches, read, end */
        ASSERT_EQ(charts.n_marks, 4);
        ASSERT_STREQ(charts.marks[0].label, "write");
        charts_free(&charts);
        view_cell_free(v);
        db = db_close(db);
        ASSERT_EQ(g_unlink(path), 0);
        g_unlink(wal);
        g_unlink(shm);
        ASSERT_EQ(g_rmdir(dir), 0);
        cellrows_clear(&rows);
        cell_result_clear(&res);
        workload_spec_free(spec);
}

/* A real ftp cell (64 MiB, unthrottled): the upload is the ftp.bytes
 * series' span on the host clock; the sync (20 ms) holds no row, so its
 * stall figures have no value rather than a claim of none. */
TEST(ftp_cell_upload_and_sync) {
        struct cell_result res;
        struct workload_spec *spec = NULL;
        struct cellrows rows;
        const struct db_metric *m;

        facts_rows("ftp-64M.facts", "ftp:size=64M", 0, &res, &spec, &rows);
        /* Upload 10.615..12.393; rows arriving at 11.331, 12.331, 12.445 describe
         * seconds at least half inside it. */
        ASSERT_NEAR(row_value(&rows, "vmstat.samples"), 3, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.upload.samples"), 3, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.upload.bo_mean"), (24588.0 + 36827 + 37614) / 3, 1e-6);
        ASSERT_NEAR(row_value(&rows, "vmstat.stall_count"), 0, 1e-9);
        ASSERT_NEAR(row_value(&rows, "vmstat.sync.samples"), 0, 1e-9);
        m = row_metric(&rows, "vmstat.sync.stall_longest_s");
        ASSERT_TRUE(m && !m->has_value && m->note);
        /* host-start opens a phase ftp does not keep. */
        ASSERT_TRUE(row_metric(&rows, "vmstat.host.samples") == NULL);
        cellrows_clear(&rows);
        cell_result_clear(&res);
        workload_spec_free(spec);
}
