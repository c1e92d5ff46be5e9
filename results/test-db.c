/* test-db.c: the result store: opening, migrating and refusing databases,
 * the round trip of a full cell, the atomicity of a cell insert, and the
 * keys a resumed run skips. Every test works in its own temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "common/proto.h"
#include "common/test.h"
#include "common/util.h"
#include "results/cellstate.h"
#include "results/db.h"
#include "results/profile.h"
#include "results/nights.h"
#include "results/query.h"
#include "results/schema-sql.h"

TEST_MAIN();

struct tmpdb {
        char dir[64];
        char path[128];
};

static void tmpdb_init(struct tmpdb *t) {
        snprintf(t->dir, sizeof(t->dir), "/tmp/kbench-test-db-XXXXXX");
        ASSERT_TRUE(mkdtemp(t->dir));
        snprintf(t->path, sizeof(t->path), "%s/results.db", t->dir);
}

static void tmpdb_done(struct tmpdb *t) {
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        char p[160];

        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", t->path, suffixes[i]);
                unlink(p);
        }
        ASSERT_EQ(rmdir(t->dir), 0);
}

/* First column of the first row of sql as an integer (or text via ret_text). */
static long long q_int(struct db *db, const char *sql) {
        sqlite3_stmt *s;
        long long v;

        ASSERT_EQ(sqlite3_prepare_v2(db_handle(db), sql, -1, &s, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        v = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        return v;
}

static char *q_text(struct db *db, const char *sql) {
        sqlite3_stmt *s;
        char *v;

        ASSERT_EQ(sqlite3_prepare_v2(db_handle(db), sql, -1, &s, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NULL : strdup((const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        return v;
}

static void add_kernel(struct db *db, const char *id, const char *name) {
        struct kb_error err = { { 0 } };
        struct db_kernel k = { .id = id, .name = name, .release = name, .source = "/tmp/x.deb",
                               .added_at = 1700000000.5 };
        ASSERT_EQ(db_kernel_upsert(db, &k, &err), 0);
}

static int64_t add_run(struct db *db, const char *tag) {
        struct kb_error err = { { 0 } };
        struct db_run run = { .tag = tag, .settings_json = "{\"repeats\":3}", .host = "testhost",
                              .host_info_json = "{}", .qemu_version = "7.2.0",
                              .libvirt_version = "9.0.0", .kbench_version = "0.1.0",
                              .started_at = 1700000100.0 };
        ASSERT_EQ(db_run_create(db, &run, &err), 0);
        ASSERT_TRUE(run.id > 0);
        return run.id;
}

#define KID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static struct db_cell simple_cell(int64_t run_id, const char *key, const char *state, int attempt) {
        return (struct db_cell){
                .run_id = run_id, .cell_key = key, .kernel_id = KID_A, .workload = "dd",
                .params_json = "{\"size\":\"512M\"}", .iteration = 0, .attempt = attempt,
                .state = state, .detail = NULL, .accel = "tcg", .started_at = 1700000200.0,
                .boot_s = 2.25, .workload_s = 30.5, .total_s = 35.0, .exit_code = 0,
        };
}

TEST(create_open_reopen) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        char *mode;
        int64_t run;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        ASSERT_EQ(q_int(db, "PRAGMA foreign_keys"), 1);
        mode = q_text(db, "PRAGMA journal_mode");
        ASSERT_STREQ(mode, "wal");
        free(mode);
        ASSERT_STREQ(db_path(db), t.path);
        run = add_run(db, "first");
        db = db_close(db);
        ASSERT_TRUE(db == NULL);

        ASSERT_EQ(db_open_existing(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM runs"), 1);
        ASSERT_EQ(q_int(db, "SELECT max(id) FROM runs"), run);
        db = db_close(db);
        ASSERT_TRUE(db_close(NULL) == NULL);
        tmpdb_done(&t);
}

TEST(open_existing_refuses_missing_file) {
        struct kb_error err = { { 0 } };
        struct db *db = NULL;

        ASSERT_EQ(db_open_existing("/tmp/kbench-no-such-dir/results.db", &db, &err), -ENOENT);
        ASSERT_TRUE(db == NULL);
        ASSERT_STREQ(err.msg, "no results database at /tmp/kbench-no-such-dir/results.db");
        ASSERT_TRUE(db_open("/tmp/kbench-no-such-dir/results.db", &db, &err) < 0);
        ASSERT_TRUE(strstr(err.msg, "/tmp/kbench-no-such-dir/results.db") != NULL);
}

TEST(empty_file_is_no_database) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        int fd;

        tmpdb_init(&t);
        fd = open(t.path, O_CREAT | O_WRONLY, 0644);
        ASSERT_TRUE(fd >= 0);
        close(fd);
        /* A reader (show, compare) pointed at an empty file leaves it alone. */
        ASSERT_EQ(db_open_existing(t.path, &db, &err), -ENODATA);
        ASSERT_TRUE(db == NULL);
        ASSERT_TRUE(strstr(err.msg, t.path) != NULL);
        {
                struct stat st;
                ASSERT_EQ(stat(t.path, &st), 0);
                ASSERT_EQ(st.st_size, 0);
        }
        /* Nor does a writer (run): only a path without a file becomes a
         * new database. */
        ASSERT_EQ(db_open(t.path, &db, &err), -ENODATA);
        ASSERT_TRUE(db == NULL);
        ASSERT_TRUE(strstr(err.msg, "empty, not a kbench results database") != NULL);
        {
                struct stat st;
                ASSERT_EQ(stat(t.path, &st), 0);
                ASSERT_EQ(st.st_size, 0);
        }
        ASSERT_EQ(unlink(t.path), 0);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
                            "('kernels','runs','cells','metrics','vmstat','timeline','logs')"), 7);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN "
                            "('cells_by_run','cells_by_kernel','metrics_by_name','timeline_by_cell')"), 4);
        db = db_close(db);
        /* Opening again migrates nothing and keeps the data. */
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        db = db_close(db);
        tmpdb_done(&t);
}

/* A store written by a kbench of schema version 1 (the schema.sql tables,
 * user_version 1, a cell) opens: it gains host_block and keeps its cell,
 * which reads back with no host samples. */
TEST(migrates_a_version_1_store) {
        struct kb_error err = { { 0 } };
        struct db_hostblk_row *hb = NULL;
        size_t n = 99;
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h;

        tmpdb_init(&t);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, db_schema_v1, NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "INSERT INTO kernels VALUES ('k1', 'old', '6.1', 'x.deb', 1);"
                                  "INSERT INTO runs(id, settings_json, started_at) VALUES (1, '{}', 1);"
                                  "INSERT INTO cells(id, run_id, cell_key, kernel_id, workload, iteration, state) "
                                  "VALUES (7, 1, 'c000', 'k1', 'dd', 0, 'ok');"
                                  "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);

        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'host_block'"), 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM cells WHERE id = 7 AND cell_key = 'c000'"), 1);
        ASSERT_EQ(query_cell_hostblk(db, 7, &hb, &n, &err), 0);
        ASSERT_EQ(n, 0);
        free(hb);
        db = db_close(db);
        tmpdb_done(&t);
}

/* One framed record appended to log, as the agent writes it. */
static void log_record(GString *log, uint64_t seq, uint64_t t_ms, const char *type, const char *payload) {
        char buf[PROTO_LINE_MAX + 1];
        int n = proto_format(buf, sizeof(buf), "c000", seq, t_ms, type, payload, strlen(payload));

        ASSERT_TRUE(n > 0);
        g_string_append_len(log, buf, n);
}

/* An older store (version 1 here) gains the marks table, filled from each
 * cell's raw ttyS1 log by the record parser: every good event record, in
 * order, on the host clock by the first ready record (boot_s); nothing
 * from a bad CRC, stray text or a cut record; no host time before a ready
 * record or without boot_s. */
TEST(migration_fills_marks_from_the_data_log) {
        struct kb_error err = { { 0 } };
        struct query_mark *m = NULL;
        size_t n = 0;
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h;
        sqlite3_stmt *s;
        GString *log = g_string_new(NULL);

        log_record(log, 0, 500, "event", "early");
        log_record(log, 1, 3000, "ready", "release=6.1");
        log_record(log, 2, 3100, "event", "mounted");
        g_string_append(log, "@kb c000 3 3200 event phase bogus *00000000\n");
        g_string_append(log, "stray text from the console\n");
        log_record(log, 4, 3300, "event", "phase write");
        log_record(log, 5, 3900, "ready", "release=6.1");       /* only the first ties the clocks */
        log_record(log, 6, 4000, "event", "a\\b");
        log_record(log, 7, 5000, "vmstat", "1 2 3");
        g_string_append(log, "@kb c000 8 6000 event phase cut");   /* no CRC, no newline */

        tmpdb_init(&t);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, db_schema_v1, NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "INSERT INTO kernels VALUES ('k1', 'old', '6.1', 'x.deb', 1);"
                                  "INSERT INTO runs(id, settings_json, started_at) VALUES (1, '{}', 1);"
                                  "INSERT INTO cells(id, run_id, cell_key, kernel_id, workload, iteration, state, "
                                  "boot_s) VALUES (7, 1, 'c000', 'k1', 'dd', 0, 'ok', 4.0);"
                                  "INSERT INTO cells(id, run_id, cell_key, kernel_id, workload, iteration, state) "
                                  "VALUES (8, 1, 'c001', 'k1', 'dd', 0, 'hang');"
                                  "INSERT INTO cells(id, run_id, cell_key, kernel_id, workload, iteration, state) "
                                  "VALUES (9, 1, 'c002', 'k1', 'dd', 0, 'hang');"
                                  "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_prepare_v2(h, "INSERT INTO logs VALUES (?1, 'data', ?2)", -1, &s, NULL), SQLITE_OK);
        for (int id = 7; id <= 8; id++) {
                sqlite3_reset(s);
                sqlite3_bind_int(s, 1, id);
                sqlite3_bind_blob(s, 2, log->str, (int)log->len, SQLITE_STATIC);
                ASSERT_EQ(sqlite3_step(s), SQLITE_DONE);
        }
        sqlite3_finalize(s);
        sqlite3_close(h);

        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        ASSERT_EQ(query_cell_marks(db, 7, &m, &n, &err), 0);
        ASSERT_EQ(n, 4);
        ASSERT_STREQ(m[0].name, "early");
        ASSERT_NEAR(m[0].t_guest, 0.5, 1e-12);
        ASSERT_TRUE(isnan(m[0].t_host));
        ASSERT_STREQ(m[1].name, "mounted");
        ASSERT_NEAR(m[1].t_host, 4.1, 1e-12);
        ASSERT_STREQ(m[2].name, "phase write");
        ASSERT_NEAR(m[2].t_guest, 3.3, 1e-12);
        ASSERT_NEAR(m[2].t_host, 4.3, 1e-12);
        ASSERT_STREQ(m[3].name, "a\\b");        /* unescaped */
        ASSERT_NEAR(m[3].t_host, 5.0, 1e-12);
        query_marks_free(m, n);
        /* no boot_s: the guest times only */
        ASSERT_EQ(query_cell_marks(db, 8, &m, &n, &err), 0);
        ASSERT_EQ(n, 4);
        for (size_t i = 0; i < n; i++)
                ASSERT_TRUE(isnan(m[i].t_host) && isfinite(m[i].t_guest));
        query_marks_free(m, n);
        /* no data log: no marks */
        ASSERT_EQ(query_cell_marks(db, 9, &m, &n, &err), 0);
        ASSERT_EQ(n, 0);
        query_marks_free(m, n);
        db = db_close(db);
        tmpdb_done(&t);
        g_string_free(log, TRUE);
}

/* Marks go in with the cell and come back in arrival order; an unknown
 * host time as NULL and back as NAN. */
TEST(marks_round_trip) {
        struct kb_error err = { { 0 } };
        const struct db_mark marks[] = { { "phase write", 3.25, 4.0 }, { "sync-start", 9.5, NAN } };
        struct db_cell c;
        struct query_mark *m = NULL;
        size_t n = 0;
        int64_t id = 0;
        struct tmpdb t;
        struct db *db = NULL;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "k-a");
        c = simple_cell(add_run(db, NULL), "c000", CELL_OK, 1);
        c.marks = marks;
        c.n_marks = ELEMENTSOF(marks);
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        ASSERT_EQ(query_cell_marks(db, id, &m, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(m[0].name, "phase write");
        ASSERT_NEAR(m[0].t_guest, 3.25, 1e-12);
        ASSERT_NEAR(m[0].t_host, 4.0, 1e-12);
        ASSERT_STREQ(m[1].name, "sync-start");
        ASSERT_TRUE(isnan(m[1].t_host));
        query_marks_free(m, n);
        db = db_close(db);
        tmpdb_done(&t);
}

/* Host block samples go in with the cell and come back in order, a counter
 * libvirt did not report (-1) as NULL and back as -1. */
TEST(host_block_round_trip) {
        struct kb_error err = { { 0 } };
        struct db_hostblk_row in[] = {
                { .t_host = 2.0, .rd_bytes = 0, .wr_bytes = 4096, .rd_reqs = 0, .wr_reqs = 1 },
                { .t_host = 3.01, .rd_bytes = -1, .wr_bytes = 8192000, .rd_reqs = -1, .wr_reqs = 250 },
        };
        struct db_hostblk_row *out = NULL;
        size_t n = 0;
        struct tmpdb t;
        struct db *db = NULL;
        struct db_cell c;
        int64_t run, id = 0;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "6.1.0-47-amd64");
        run = add_run(db, NULL);
        c = simple_cell(run, "c000", CELL_OK, 1);
        c.n_hostblk = ELEMENTSOF(in);
        c.hostblk = in;
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM host_block WHERE rd_bytes IS NULL"), 1);
        ASSERT_EQ(query_cell_hostblk(db, id, &out, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_NEAR(out[1].t_host, 3.01, 1e-12);
        ASSERT_EQ(out[0].wr_bytes, 4096);
        ASSERT_EQ(out[1].wr_bytes, 8192000);
        ASSERT_EQ(out[1].rd_bytes, -1);
        ASSERT_EQ(out[1].wr_reqs, 250);
        free(out);
        /* A sample without a time is refused with the cell. */
        in[0].t_host = NAN;
        c = simple_cell(run, "c001", CELL_OK, 1);
        c.n_hostblk = ELEMENTSOF(in);
        c.hostblk = in;
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "c001") != NULL);
        db = db_close(db);
        tmpdb_done(&t);
}

/* A host is one row per thing measured: the same host again is the same
 * row, another QEMU on it a new one; a cell keeps the row it ran on. */
TEST(hosts_one_row_per_host_measured) {
        struct kb_error err = { { 0 } };
        struct db_host h = { .name = "h1", .uri = "qemu+unix:///system?socket=/x/sock", .hostname = "vm",
                             .cpu_model = "AMD kvm64", .qemu_version = "7.2.0", .libvirt_version = "9.0.0",
                             .info_json = "{\"cpus\":2}" };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_cell c;
        int64_t a = 0, b = 0, q = 0, run, id = 0;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(db_host_upsert(db, &h, &a, &err), 0);
        ASSERT_EQ(db_host_upsert(db, &h, &b, &err), 0);
        ASSERT_EQ(a, b);
        h.qemu_version = "8.0.0";
        ASSERT_EQ(db_host_upsert(db, &h, &q, &err), 0);
        ASSERT_TRUE(q != a);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM hosts"), 2);
        add_kernel(db, KID_A, "6.1.0-47-amd64");
        run = add_run(db, NULL);
        c = simple_cell(run, "c000", CELL_OK, 1);
        c.host_id = q;
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        c = simple_cell(run, "c001", CELL_OK, 1);
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM cells c JOIN hosts h ON h.id = c.host_id WHERE "
                            "h.qemu_version = '8.0.0' AND c.cell_key = 'c000'"), 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM cells WHERE host_id IS NULL"), 1);
        db = db_close(db);
        tmpdb_done(&t);
}

TEST(runs_interrupt_marks_running_only) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        int64_t a, b;
        int n = -1;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        a = add_run(db, "killed");
        b = add_run(db, "finished");
        ASSERT_EQ(db_run_finish(db, b, "complete", &err), 0);
        ASSERT_EQ(db_runs_interrupt(db, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), 1);
        ASSERT_EQ(q_int(db, "SELECT max(id) FROM runs WHERE status = 'interrupted'"), a);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM runs WHERE status = 'complete'"), 1);
        db = db_close(db);
        tmpdb_done(&t);
}

/* Garbage written into the middle of the file, as a failing disk or a stray
 * dd would: the file still opens, the checks must say it is broken. */
TEST(check_finds_garbage_in_the_middle) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        static char text[4096], junk[32768];
        struct stat st;
        int64_t run;
        int fd;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "k-a");
        run = add_run(db, "big");
        memset(text, 'x', sizeof(text) - 1);
        for (int i = 0; i < 200; i++) {
                char key[16];
                struct db_log log = { "console", text, sizeof(text) - 1 };
                struct db_cell c;
                snprintf(key, sizeof(key), "c%03d", i);
                c = simple_cell(run, key, CELL_OK, 1);
                c.n_logs = 1;
                c.logs = &log;
                ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
        }
        ASSERT_EQ(db_check(db, 1, &err), 0);
        ASSERT_EQ(db_check(db, 0, &err), 0);
        db = db_close(db);

        ASSERT_EQ(stat(t.path, &st), 0);
        ASSERT_TRUE(st.st_size > 4 * (off_t)sizeof(junk));
        for (size_t i = 0; i < sizeof(junk); i++)
                junk[i] = (char)(i * 131 + 7);
        fd = open(t.path, O_WRONLY);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(pwrite(fd, junk, sizeof(junk), st.st_size / 2), (ssize_t)sizeof(junk));
        close(fd);

        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(db_check(db, 0, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "quick_check") != NULL);
        ASSERT_TRUE(strstr(err.msg, t.path) != NULL);
        ASSERT_EQ(db_check(db, 1, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "integrity_check") != NULL);
        db = db_close(db);
        tmpdb_done(&t);
}

/* Rows as SQLite's integrity_check writes them for a damaged page. */
TEST(check_row_counts_one_problem_a_line) {
        char first[256] = "";

        ASSERT_EQ(db_check_row("*** in database main ***\nPage 4: btreeInitPage() returns error code 11",
                               first, sizeof(first)), 1);
        ASSERT_STREQ(first, "Page 4: btreeInitPage() returns error code 11");
        first[0] = '\0';
        ASSERT_EQ(db_check_row("*** in database main ***\nOn tree page 4 cell 0: Offset 65535 out of range\n"
                               "Page 9 is never used\nPage 10 is never used", first, sizeof(first)), 3);
        ASSERT_STREQ(first, "On tree page 4 cell 0: Offset 65535 out of range");
        /* A later row keeps the first problem of the first. */
        ASSERT_EQ(db_check_row("row 7 missing from index cells_by_run", first, sizeof(first)), 1);
        ASSERT_STREQ(first, "On tree page 4 cell 0: Offset 65535 out of range");
        first[0] = '\0';
        ASSERT_EQ(db_check_row("", first, sizeof(first)), 1);
        ASSERT_STREQ(first, "(empty row)");
}

/* kbench's user_version without kbench's tables is not a kbench database,
 * for readers and writers alike. */
TEST(refuses_a_version_without_tables) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h = NULL;

        tmpdb_init(&t);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open_existing(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "no table 'kernels'") != NULL);
        ASSERT_EQ(db_open(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(db == NULL);
        tmpdb_done(&t);
}

/* A user_version kbench never wrote (negative) is refused, by readers and
 * writers alike, and the file keeps its bytes: not migrated into, whether
 * it is someone else's file or a kbench store someone set to -5. */
TEST(refuses_a_negative_version) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h = NULL;
        gchar *before = NULL, *after = NULL;
        gsize nb = 0, na = 0;

        tmpdb_init(&t);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE mine(x); PRAGMA user_version = -1", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_TRUE(g_file_get_contents(t.path, &before, &nb, NULL));
        ASSERT_EQ(db_open_existing(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "schema version -1") && strstr(err.msg, "not a kbench results database"));
        ASSERT_EQ(db_open(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(db == NULL);
        ASSERT_TRUE(g_file_get_contents(t.path, &after, &na, NULL));
        ASSERT_TRUE(na == nb && memcmp(before, after, nb) == 0);
        g_free(before);
        g_free(after);
        unlink(t.path);

        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        db = db_close(db);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version = -5", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "schema version -5") != NULL);
        ASSERT_TRUE(strstr(err.msg, "migrating") == NULL);
        tmpdb_done(&t);
}

/* Tables of kbench's names without the columns kbench reads are no kbench
 * database: the check reads columns, not names only. */
TEST(refuses_tables_without_their_columns) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h = NULL;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        db = db_close(db);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "ALTER TABLE runs RENAME COLUMN tag TO label", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open_existing(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "table 'runs' has no column 'tag'") != NULL);
        /* A column the later versions added counts at those versions. */
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "ALTER TABLE runs RENAME COLUMN label TO tag; "
                                  "ALTER TABLE vmstat DROP COLUMN util", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open_existing(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "table 'vmstat' has no column 'util'") != NULL);
        /* Extra columns are the file's own. */
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "ALTER TABLE vmstat ADD COLUMN util REAL; ALTER TABLE runs ADD COLUMN mine TEXT",
                               NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open_existing(t.path, &db, &err), 0);
        db_close(db);
        tmpdb_done(&t);
}

TEST(vmstat_columns_match_schema) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3_stmt *s;
        int i = 0;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(sqlite3_prepare_v2(db_handle(db), "SELECT name FROM pragma_table_info('vmstat') "
                                     "ORDER BY cid", -1, &s, NULL), SQLITE_OK);
        while (sqlite3_step(s) == SQLITE_ROW) {
                static const char *const lead[] = { "cell_id", "seq", "t_host", "t_guest", "first" };
                const char *name = (const char *)sqlite3_column_text(s, 0);

                if (i < 5)
                        ASSERT_STREQ(name, lead[i]);
                else {
                        ASSERT_TRUE(i - 5 < DB_VM_NCOLS);
                        ASSERT_STREQ(name, db_vmstat_column_names[i - 5]);
                }
                i++;
        }
        sqlite3_finalize(s);
        ASSERT_EQ(i, 5 + DB_VM_NCOLS);
        ASSERT_STREQ(db_vmstat_column_names[DB_VM_in], "in");
        db = db_close(db);
        tmpdb_done(&t);
}

/* A store written at version 1 (before the vm and disk columns) opens,
 * gains them, and keeps its rows: the old samples read back with NULL
 * (NAN) there, never 0, and new cells store every column. */
TEST(migrates_version_1_store) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_vmstat_row *rows = NULL;
        size_t n = 0;
        sqlite3 *h;

        tmpdb_init(&t);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, db_schema_v1, NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version = 1;"
                               "INSERT INTO kernels VALUES ('k', 'k', NULL, NULL, 0);"
                               "INSERT INTO runs(id, settings_json, started_at) VALUES (1, '{}', 0);"
                               "INSERT INTO cells(id, run_id, cell_key, kernel_id, workload, iteration, state) "
                               "VALUES (1, 1, 'c000', 'k', 'dd', 0, 'ok');"
                               "INSERT INTO vmstat(cell_id, seq, t_host, bo, dirty, writeback) "
                               "VALUES (1, 3, 1.5, 2048, 100, 4);",
                               NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);

        ASSERT_EQ(db_open_existing(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        ASSERT_EQ(query_cell_vmstat(db, 1, &rows, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_NEAR(rows[0].v[DB_VM_bo], 2048, 0);
        ASSERT_NEAR(rows[0].v[DB_VM_writeback], 4, 0);
        for (int k = DB_VM_writeback + 1; k < DB_VM_NCOLS; k++)
                ASSERT_TRUE(isnan(rows[0].v[k]));
        free(rows);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM vmstat WHERE util IS NULL AND nr_dirty IS NULL"), 1);
        db = db_close(db);
        tmpdb_done(&t);
}

TEST(refuses_newer_schema) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        db = db_close(db);
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        {
                char sql[64];
                snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
                ASSERT_EQ(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
        }
        sqlite3_close(h);

        ASSERT_EQ(db_open(t.path, &db, &err), -EPROTONOSUPPORT);
        ASSERT_TRUE(db == NULL);
        ASSERT_TRUE(strstr(err.msg, t.path) != NULL);
        {
                char want[128];
                snprintf(want, sizeof(want), "schema version %d is newer than this kbench understands (%d)",
                         DB_SCHEMA_VERSION + 1, DB_SCHEMA_VERSION);
                ASSERT_TRUE(strstr(err.msg, want) != NULL);
        }
        tmpdb_done(&t);
}

TEST(refuses_garbage_and_foreign_databases) {
        static const char garbage[] = "this is not an SQLite database, it is a text file\n";
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3 *h;
        FILE *f;

        tmpdb_init(&t);
        f = fopen(t.path, "w");
        ASSERT_TRUE(f);
        for (int i = 0; i < 100; i++)
                fputs(garbage, f);
        fclose(f);
        ASSERT_EQ(db_open(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "not a database") != NULL);
        unlink(t.path);

        /* Some other program's database: tables, user_version 0. */
        ASSERT_EQ(sqlite3_open(t.path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE notes(x)", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open(t.path, &db, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "not a kbench results database") != NULL);
        tmpdb_done(&t);
}

TEST(cell_round_trip) {
        static const char console[] = "Linux version 6.1.0\0binary\0tail\xff\n";
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_metric metrics[] = {
                { .name = "dd.write_MBps", .value = 45.25, .has_value = 1, .unit = "MB/s" },
                { .name = "bonnie.seek_per_s", .has_value = 0, .value = 99, .unit = "/s",
                  .note = "+++++: too fast to measure" },
        };
        struct db_vmstat_row rows[2];
        struct db_point points[] = {
                { .kind = "ftp.bytes", .t = 1.5, .value = 1048576 },
                { .kind = "ftp.bytes", .t = 2.5, .value = 2097152 },
                { .kind = "phase", .t = 3.0, .value = 1 },
        };
        struct db_log logs[] = {
                { .stream = "console", .text = console, .len = sizeof(console) - 1 },
                { .stream = "data", .text = "", .len = 0 },
        };
        struct db_cell c;
        sqlite3_stmt *s;
        int64_t run, id = 0;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "6.1.0-47-amd64");
        run = add_run(db, NULL);

        for (int r = 0; r < 2; r++) {
                rows[r] = (struct db_vmstat_row){ .seq = 10 + r, .t_host = 3.0 + r, .t_guest = 1.0 + r,
                                                  .first = r == 0 };
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        rows[r].v[k] = 100 * r + k;
        }
        rows[1].v[DB_VM_gu] = NAN;
        rows[1].v[DB_VM_dirty] = NAN;

        c = simple_cell(run, "c000", CELL_OK, 1);
        c.iteration = 2;
        c.rejected_records = 3;
        c.n_metrics = ELEMENTSOF(metrics); c.metrics = metrics;
        c.n_vmstat = ELEMENTSOF(rows);     c.vmstat = rows;
        c.n_points = ELEMENTSOF(points);   c.points = points;
        c.n_logs = ELEMENTSOF(logs);       c.logs = logs;
        c.workload_s = NAN;                /* e.g. never reached: stored NULL */
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        ASSERT_TRUE(id > 0);
        db = db_close(db);

        ASSERT_EQ(db_open_existing(t.path, &db, &err), 0);
        ASSERT_EQ(sqlite3_prepare_v2(db_handle(db),
                  "SELECT run_id, cell_key, kernel_id, workload, params_json, iteration, attempt, state, "
                  "detail, accel, started_at, boot_s, workload_s, total_s, exit_code, rejected_records "
                  "FROM cells WHERE id = ?", -1, &s, NULL), SQLITE_OK);
        sqlite3_bind_int64(s, 1, id);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        ASSERT_EQ(sqlite3_column_int64(s, 0), run);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 1), "c000");
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 2), KID_A);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 3), "dd");
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 4), "{\"size\":\"512M\"}");
        ASSERT_EQ(sqlite3_column_int(s, 5), 2);
        ASSERT_EQ(sqlite3_column_int(s, 6), 1);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 7), CELL_OK);
        ASSERT_EQ(sqlite3_column_type(s, 8), SQLITE_NULL);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 9), "tcg");
        ASSERT_NEAR(sqlite3_column_double(s, 10), 1700000200.0, 1e-6);
        ASSERT_NEAR(sqlite3_column_double(s, 11), 2.25, 1e-12);
        ASSERT_EQ(sqlite3_column_type(s, 12), SQLITE_NULL);
        ASSERT_NEAR(sqlite3_column_double(s, 13), 35.0, 1e-12);
        ASSERT_EQ(sqlite3_column_int(s, 14), 0);
        ASSERT_EQ(sqlite3_column_int(s, 15), 3);
        sqlite3_finalize(s);

        ASSERT_EQ(sqlite3_prepare_v2(db_handle(db), "SELECT name, value, unit, note FROM metrics "
                                     "WHERE cell_id = ? ORDER BY name", -1, &s, NULL), SQLITE_OK);
        sqlite3_bind_int64(s, 1, id);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 0), "bonnie.seek_per_s");
        ASSERT_EQ(sqlite3_column_type(s, 1), SQLITE_NULL);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 2), "/s");
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 3), "+++++: too fast to measure");
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 0), "dd.write_MBps");
        ASSERT_NEAR(sqlite3_column_double(s, 1), 45.25, 1e-12);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 2), "MB/s");
        ASSERT_EQ(sqlite3_column_type(s, 3), SQLITE_NULL);
        ASSERT_EQ(sqlite3_step(s), SQLITE_DONE);
        sqlite3_finalize(s);

        ASSERT_EQ(q_int(db, "SELECT count(*) FROM vmstat"), 2);
        ASSERT_EQ(q_int(db, "SELECT first FROM vmstat WHERE seq = 10"), 1);
        ASSERT_EQ(q_int(db, "SELECT first FROM vmstat WHERE seq = 11"), 0);
        ASSERT_EQ(q_int(db, "SELECT \"in\" FROM vmstat WHERE seq = 11"), 100 + DB_VM_in);
        ASSERT_EQ(q_int(db, "SELECT writeback FROM vmstat WHERE seq = 11"), 100 + DB_VM_writeback);
        ASSERT_EQ(q_int(db, "SELECT gu IS NULL AND dirty IS NULL FROM vmstat WHERE seq = 11"), 1);
        ASSERT_EQ(q_int(db, "SELECT gu IS NULL FROM vmstat WHERE seq = 10"), 0);
        ASSERT_EQ(q_int(db, "SELECT t_host * 10 FROM vmstat WHERE seq = 11"), 40);

        ASSERT_EQ(q_int(db, "SELECT count(*) FROM timeline WHERE kind = 'ftp.bytes'"), 2);
        ASSERT_EQ(q_int(db, "SELECT value FROM timeline WHERE kind = 'ftp.bytes' AND t = 2.5"), 2097152);

        ASSERT_EQ(sqlite3_prepare_v2(db_handle(db), "SELECT text FROM logs WHERE cell_id = ? AND "
                                     "stream = 'console'", -1, &s, NULL), SQLITE_OK);
        sqlite3_bind_int64(s, 1, id);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        ASSERT_EQ(sqlite3_column_bytes(s, 0), sizeof(console) - 1);
        ASSERT_TRUE(memcmp(sqlite3_column_blob(s, 0), console, sizeof(console) - 1) == 0);
        sqlite3_finalize(s);
        ASSERT_EQ(q_int(db, "SELECT length(text) FROM logs WHERE stream = 'data'"), 0);
        db = db_close(db);
        tmpdb_done(&t);
}

static void assert_empty(struct db *db) {
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM cells"), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM metrics"), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM vmstat"), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM timeline"), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM logs"), 0);
}

TEST(cell_insert_is_atomic) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_metric good[] = { { .name = "dd.write_MBps", .value = 1, .has_value = 1, .unit = "MB/s" } };
        struct db_metric dup[] = {
                { .name = "dd.write_MBps", .value = 1, .has_value = 1, .unit = "MB/s" },
                { .name = "dd.write_MBps", .value = 2, .has_value = 1, .unit = "MB/s" },
        };
        struct db_vmstat_row rows[2] = { { .seq = 5 }, { .seq = 5 } };
        struct db_point points[] = { { .kind = "x", .t = 1, .value = 1 } };
        struct db_log dup_logs[] = {
                { .stream = "console", .text = "a", .len = 1 },
                { .stream = "console", .text = "b", .len = 1 },
        };
        struct db_cell c;
        int64_t run, id = -7;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "k-a");
        run = add_run(db, "atomic");

        /* Fails at the second metric, after the cell row and one metric. */
        c = simple_cell(run, "c000", CELL_OK, 1);
        c.n_metrics = 2; c.metrics = dup;
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), -EEXIST);
        ASSERT_EQ(id, -7);
        ASSERT_TRUE(strstr(err.msg, "metric dd.write_MBps") != NULL);
        assert_empty(db);

        /* Fails in the vmstat rows, after all metrics. */
        c.n_metrics = 1; c.metrics = good;
        c.n_vmstat = 2; c.vmstat = rows;
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), -EEXIST);
        assert_empty(db);

        /* Fails at the very last step (logs), after metrics, vmstat and points. */
        c.n_vmstat = 1;
        c.n_points = 1; c.points = points;
        c.n_logs = 2; c.logs = dup_logs;
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), -EEXIST);
        assert_empty(db);

        /* Unknown kernel: the foreign key refuses the cell row. */
        c.n_logs = 1;
        c.kernel_id = KID_B;
        ASSERT_TRUE(db_cell_insert(db, &c, NULL, &err) < 0);
        assert_empty(db);

        /* Unknown state: the CHECK constraint refuses it. */
        c.kernel_id = KID_A;
        c.state = "fine";
        ASSERT_TRUE(db_cell_insert(db, &c, NULL, &err) < 0);
        assert_empty(db);

        /* The same cell, valid now, goes in whole; a second copy of the same
         * (run, key, attempt) is refused and leaves the first intact. */
        c.state = CELL_OK;
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        ASSERT_TRUE(id > 0);
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), -EEXIST);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM cells"), 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM metrics"), 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM vmstat"), 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM timeline"), 1);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM logs"), 1);
        /* The connection is usable after the failures: no transaction left open. */
        ASSERT_EQ(sqlite3_get_autocommit(db_handle(db)), 1);
        db = db_close(db);
        tmpdb_done(&t);
}

TEST(done_keys_and_attempts) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_cell c;
        char **keys = NULL;
        int64_t run, other;
        int attempt = 0;
        size_t n;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "k-a");
        run = add_run(db, "resume");
        other = add_run(db, "other");

        ASSERT_EQ(db_run_done_keys(db, run, &keys, &err), 0);
        ASSERT_TRUE(keys && keys[0] == NULL);
        free(keys);

        c = simple_cell(run, "c001", CELL_OK, 1);
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
        c = simple_cell(run, "c000", CELL_HANG, 1);
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
        c = simple_cell(run, "c002", CELL_INFRA_ERROR, 1);
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
        ASSERT_EQ(db_cell_next_attempt(db, run, "c002", &attempt, &err), 0);
        ASSERT_EQ(attempt, 2);
        c = simple_cell(run, "c002", CELL_OK, attempt);
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
        c = simple_cell(other, "c000", CELL_OK, 1);
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);

        ASSERT_EQ(db_run_done_keys(db, run, &keys, &err), 0);
        for (n = 0; keys[n]; n++)
                ;
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(keys[0], "c001");
        ASSERT_STREQ(keys[1], "c002");
        for (n = 0; keys[n]; n++)
                free(keys[n]);
        free(keys);

        ASSERT_EQ(db_cell_next_attempt(db, run, "c002", &attempt, &err), 0);
        ASSERT_EQ(attempt, 3);
        ASSERT_EQ(db_cell_next_attempt(db, run, "c099", &attempt, &err), 0);
        ASSERT_EQ(attempt, 1);
        db = db_close(db);
        tmpdb_done(&t);
}

/* Every state of the table is a word the schema's CHECK takes, and the
 * table reads each word back as its state; a word outside it is neither. */
TEST(cell_states_are_the_schemas) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_cell c;
        enum cellstate got;
        int64_t run;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "k-a");
        run = add_run(db, NULL);
        for (int s = 0; s < CELLSTATE_N; s++) {
                char key[16];

                snprintf(key, sizeof(key), "c%03d", s);
                c = simple_cell(run, key, cellstate_name((enum cellstate)s), 1);
                ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
                ASSERT_EQ(cellstate_parse(cellstate_name((enum cellstate)s), &got), 0);
                ASSERT_EQ(got, s);
                ASSERT_TRUE(cellstate_is(cellstate_name((enum cellstate)s), (enum cellstate)s));
        }
        ASSERT_EQ(q_int(db, "SELECT count(DISTINCT state) FROM cells"), CELLSTATE_N);
        ASSERT_STREQ(cellstate_name(CELLSTATE_OK), CELL_OK);
        ASSERT_TRUE(cellstate_name(CELLSTATE_N) == NULL);
        ASSERT_EQ(cellstate_parse("okay", &got), -EINVAL);
        ASSERT_EQ(cellstate_parse(NULL, &got), -EINVAL);
        ASSERT_TRUE(!cellstate_is(CELL_HANG, CELLSTATE_OK));
        ASSERT_TRUE(!cellstate_is(NULL, CELLSTATE_OK));
        c = simple_cell(run, "c100", "okay", 1);
        ASSERT_TRUE(db_cell_insert(db, &c, NULL, &err) < 0);
        db = db_close(db);
        tmpdb_done(&t);
}

TEST(kernel_upsert_and_rename) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        struct db_kernel k = { .id = KID_A, .name = "6.1", .release = "6.1.0-47-amd64",
                               .source = "new.deb", .added_at = 5 };
        char *s;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "6.1");
        ASSERT_EQ(db_kernel_upsert(db, &k, &err), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM kernels"), 1);
        s = q_text(db, "SELECT source FROM kernels");
        ASSERT_STREQ(s, "new.deb");
        free(s);
        /* added_at keeps the first import time. */
        ASSERT_EQ(q_int(db, "SELECT added_at FROM kernels"), 1700000000);

        add_kernel(db, KID_B, "6.1");
        s = q_text(db, "SELECT name FROM kernels WHERE id = '" KID_A "'");
        ASSERT_STREQ(s, "6.1~aaaaaaaaaaaa");
        free(s);
        s = q_text(db, "SELECT name FROM kernels WHERE id = '" KID_B "'");
        ASSERT_STREQ(s, "6.1");
        free(s);
        k.name = NULL;
        ASSERT_EQ(db_kernel_upsert(db, &k, &err), -EINVAL);
        db = db_close(db);
        tmpdb_done(&t);
}

TEST(run_finish) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        int64_t run;
        char *s;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        run = add_run(db, "fin");
        s = q_text(db, "SELECT status FROM runs");
        ASSERT_STREQ(s, "running");
        free(s);
        ASSERT_EQ(q_int(db, "SELECT finished_at IS NULL FROM runs"), 1);
        ASSERT_EQ(db_run_finish(db, run, "interrupted", &err), 0);
        s = q_text(db, "SELECT status FROM runs");
        ASSERT_STREQ(s, "interrupted");
        free(s);
        ASSERT_EQ(q_int(db, "SELECT finished_at > 1700000000 FROM runs"), 1);
        ASSERT_EQ(db_run_finish(db, run + 41, "complete", &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no run") != NULL);
        db = db_close(db);
        tmpdb_done(&t);
}

/* db_query binds its list from ?1 on and db_row steps the rows, then says
 * there are no more; a binding the statement has no place for, and a
 * single row that is not there, are errors naming what was asked. */
TEST(query_rows_and_their_errors) {
        struct kb_error err = { { 0 } };
        struct tmpdb t;
        struct db *db = NULL;
        sqlite3_stmt *s = NULL;
        int64_t v = 0;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_run(db, "a");
        add_run(db, "b");
        ASSERT_EQ(db_query(db, "SELECT tag FROM runs WHERE id >= ?1 AND tag != ?2 ORDER BY id",
                           DB_ARGS(DB_INT(1), DB_TEXT("a")), "reading runs", &s, &err), 0);
        ASSERT_EQ(db_row(db, s, "reading runs", &err), 1);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 0), "b");
        ASSERT_EQ(db_row(db, s, "reading runs", &err), 0);
        sqlite3_finalize(s);
        s = NULL;
        ASSERT_EQ(db_query(db, "SELECT tag FROM runs WHERE id = ?1", DB_ARGS(DB_INT(1), DB_INT(2)), "reading a run",
                           &s, &err), -EINVAL);
        ASSERT_TRUE(s == NULL);
        ASSERT_TRUE(strstr(err.msg, "reading a run: binding ?2") != NULL);
        ASSERT_EQ(db_one_int64(db, "SELECT id FROM runs WHERE tag = ?1", DB_ARGS(DB_TEXT("c")), "finding run c", &v,
                               &err), -EIO);
        ASSERT_TRUE(strstr(err.msg, "finding run c") != NULL);
        ASSERT_EQ(db_one_int64(db, "SELECT id FROM runs WHERE tag = ?1", DB_ARGS(DB_TEXT("b")), "finding run b", &v,
                               &err), 0);
        ASSERT_EQ(v, 2);
        ASSERT_EQ(db_query_row(db, "SELECT tag FROM runs WHERE id = ?1", DB_ARGS(DB_INT(3)), "reading run 3", &s,
                               &err), 0);
        sqlite3_finalize(s);
        ASSERT_EQ(db_query_row(db, "SELECT tag FROM runs WHERE id = ?1", DB_ARGS(DB_INT(1)), "reading run 1", &s,
                               &err), 1);
        ASSERT_STREQ((const char *)sqlite3_column_text(s, 0), "a");
        sqlite3_finalize(s);
        db = db_close(db);
        tmpdb_done(&t);
}

/* A night and its comparisons come back as they were stored, nights in the
 * order they ran; a store of version 5 (before nights) gains the empty
 * tables when it is opened for writing. */
TEST(nights_round_trip) {
        struct tmpdb t;
        struct db *db = NULL;
        struct kb_error err = { { 0 } };
        struct night_row *rows = NULL;
        size_t n = 99;
        const struct db_night_compare c[] = {
                { "6.1.0-57-amd64", "run:1:6.1.0-47-amd64", "run:2:6.1.0-57-amd64" },
                { "slow-6.1.0-57-amd64", "run:1:6.1.0-47-amd64", "run:3:6.1.0-57-amd64" },
        };
        struct db_night n1 = { .started_at = 1000, .baseline = "6.1.0-47-amd64", .alpha = 0.2, .noise = 0.02 };
        struct db_night n2 = { .started_at = 2000, .baseline = "6.1.0-47-amd64", .alpha = 0.05, .noise = 0.03 };

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(sqlite3_exec(db_handle(db), "DROP TABLE profile; DROP TABLE kernel_symbols; DROP TABLE symbols; "
                               "DROP TABLE night_compares; DROP TABLE nights; "
                               "ALTER TABLE cells DROP COLUMN host_id; DROP TABLE hosts; PRAGMA user_version = 5",
                               NULL, NULL, NULL), SQLITE_OK);
        db = db_close(db);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        ASSERT_EQ(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
        ASSERT_EQ(db_nights_list(db, &rows, &n, &err), 0);
        ASSERT_EQ(n, 0);
        night_rows_free(rows, n);

        ASSERT_EQ(db_night_add(db, &n1, c, 2, &err), 0);
        ASSERT_EQ(db_night_add(db, &n2, NULL, 0, &err), 0);
        ASSERT_TRUE(n1.id > 0 && n2.id > n1.id);
        ASSERT_EQ(db_nights_list(db, &rows, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_EQ(rows[0].id, n1.id);
        ASSERT_NEAR(rows[0].started_at, 1000, 1e-9);
        ASSERT_NEAR(rows[0].alpha, 0.2, 1e-12);
        ASSERT_NEAR(rows[1].noise, 0.03, 1e-12);
        ASSERT_STREQ(rows[0].baseline, "6.1.0-47-amd64");
        ASSERT_EQ(rows[0].n_compares, 2);
        ASSERT_STREQ(rows[0].compares[1].subject, "slow-6.1.0-57-amd64");
        ASSERT_STREQ(rows[0].compares[1].sel_b, "run:3:6.1.0-57-amd64");
        ASSERT_EQ(rows[1].n_compares, 0);
        night_rows_free(rows, n);
        db_close(db);
        tmpdb_done(&t);
}

/* A cell's profile comes back as stored, per phase; the kernel's symbol
 * names are stored once (a later cell with no more names adds none), and
 * tell a function the kernel lacks from one that did not run. A row that
 * is not one fails the whole cell, nothing written. */
TEST(profile_round_trip) {
        struct tmpdb t;
        struct db *db = NULL;
        struct kb_error err = { { 0 } };
        const struct db_profile_row rows[] = {
                { "write", "vfs_write", 5000 },
                { "write", "ext4_buffered_write_iter [ext4]", 700 },
                { "read", "vfs_read", 30 },
        };
        const char *const names[] = { "vfs_write", "vfs_read", "ext4_buffered_write_iter [ext4]" };
        const struct db_profile_row bad[] = { { "write", "vfs_write", 0 } };
        struct db_profile_entry *e = NULL;
        struct db_cell c;
        int64_t run, id = 0;
        size_t n = 0;
        int has = 7;

        tmpdb_init(&t);
        ASSERT_EQ(db_open(t.path, &db, &err), 0);
        add_kernel(db, KID_A, "6.1.0-47-amd64");
        add_kernel(db, KID_B, "6.1.0-57-amd64");
        run = add_run(db, NULL);
        c = simple_cell(run, "c000", CELL_OK, 1);
        c.n_profile = ELEMENTSOF(rows);
        c.profile = rows;
        c.n_kernel_symbols = ELEMENTSOF(names);
        c.kernel_symbols = names;
        ASSERT_EQ(db_cell_insert(db, &c, &id, &err), 0);
        c = simple_cell(run, "c001", CELL_OK, 1);
        c.n_profile = 1;
        c.profile = rows;
        c.n_kernel_symbols = 2;
        c.kernel_symbols = names;
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), 0);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM kernel_symbols"), 3);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM symbols"), 3);

        ASSERT_EQ(db_profile_read(db, id, "write", &e, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_TRUE(strcmp(e[0].symbol, "vfs_write") == 0 ? e[0].insns == 5000 : e[1].insns == 5000);
        db_profile_entries_free(e, n);
        ASSERT_EQ(db_profile_read(db, id, "drop-caches", &e, &n, &err), 0);
        ASSERT_EQ(n, 0);
        db_profile_entries_free(e, n);

        ASSERT_EQ(db_profile_kernel_has(db, KID_A, "vfs_read", &has, &err), 0);
        ASSERT_EQ(has, 1);
        ASSERT_EQ(db_profile_kernel_has(db, KID_A, "rt_spin_lock", &has, &err), 0);
        ASSERT_EQ(has, 0);
        ASSERT_EQ(db_profile_kernel_has(db, KID_B, "vfs_read", &has, &err), 0);
        ASSERT_EQ(has, -1);

        c = simple_cell(run, "c002", CELL_OK, 1);
        c.n_profile = 1;
        c.profile = bad;
        ASSERT_EQ(db_cell_insert(db, &c, NULL, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "c002") != NULL);
        ASSERT_EQ(q_int(db, "SELECT count(*) FROM cells WHERE cell_key = 'c002'"), 0);

        /* A damaged row is an error naming the cell, never a count of 0. */
        ASSERT_EQ(sqlite3_exec(db_handle(db), "UPDATE profile SET insns = -3 WHERE phase = 'read'", NULL, NULL, NULL) &
                  0xff, SQLITE_CONSTRAINT);
        ASSERT_EQ(sqlite3_exec(db_handle(db), "PRAGMA ignore_check_constraints = 1; "
                               "UPDATE profile SET insns = -3 WHERE phase = 'read'", NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(db_profile_read(db, id, "read", &e, &n, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "profile.insns") != NULL);
        db_close(db);
        tmpdb_done(&t);
}
