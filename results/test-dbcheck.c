/* test-dbcheck.c: the row checks doctor runs over a results database: a
 * clean store has no finding, and each kind of damage a crafted or
 * repaired-by-hand file can hold (an orphan cell, an infinite metric, a
 * NULL where the schema of a file without NOT NULL lets one in, a value
 * out of range) is found, named and counted; every cell state is in range. */
#include <string.h>

#include <glib.h>

#include "common/test-scratch.h"
#include "common/test.h"
#include "results/cellstate.h"
#include "results/db.h"
#include "results/dbcheck.h"

TEST_MAIN();

#define KID "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void exec(struct db *db, const char *sql) {
        char *msg = NULL;

        if (sqlite3_exec(db_handle(db), sql, NULL, NULL, &msg) != SQLITE_OK)
                TEST_FAIL("%s: %s", sql, msg);
}

/* A store of one run with one good cell and its metric. */
static struct db *fresh(const char *name) {
        g_autofree char *path = NULL;
        struct kb_error err = { { 0 } };
        struct db *db = NULL;

        test_scratch("dbcheck-XXXXXX");
        path = test_scratch_path(name);
        ASSERT_EQ(db_open(path, &db, &err), 0);
        exec(db, "INSERT INTO kernels (id, name, added_at) VALUES ('" KID "', 'k', 1);"
                 "INSERT INTO runs (id, settings_json, started_at, status) VALUES (1, '{}', 2, 'complete');"
                 "INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, iteration, state, boot_s) "
                 "VALUES (1, 1, 'c000', '" KID "', 'dd', 0, 'ok', 2.5);"
                 "INSERT INTO metrics VALUES (1, 'dd.write_MBps', 100.5, 'MB/s', NULL);");
        return db;
}

static const struct dbcheck_finding *find(const struct dbcheck_finding *v, size_t n, const char *table,
                                          const char *column, enum dbcheck_kind kind) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i].table, table) == 0 && strcmp(v[i].column, column) == 0 && v[i].kind == kind)
                        return &v[i];
        return NULL;
}

TEST(clean_store_has_no_finding) {
        struct kb_error err = { { 0 } };
        struct dbcheck_finding *f = NULL;
        struct db *db = fresh("clean.db");
        size_t n = 99;

        ASSERT_EQ(dbcheck_rows(db, &f, &n, &err), 0);
        ASSERT_EQ(n, 0);
        ASSERT_TRUE(f == NULL);
        db_close(db);
}

/* Each word of results/cellstate.h is a state the check lets through. */
TEST(every_cell_state_is_in_range) {
        struct kb_error err = { { 0 } };
        struct dbcheck_finding *f = NULL;
        struct db *db = fresh("states.db");
        size_t n = 99;

        for (int i = 0; i < CELLSTATE_N; i++) {
                g_autofree char *sql = g_strdup_printf(
                        "INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, iteration, state) "
                        "VALUES (%d, 1, 'c1%02d', '" KID "', 'dd', 0, '%s')", 10 + i, i,
                        cellstate_name((enum cellstate)i));

                exec(db, sql);
        }
        ASSERT_EQ(dbcheck_rows(db, &f, &n, &err), 0);
        ASSERT_EQ(n, 0);
        db_close(db);
}

TEST(orphans_and_non_finite_numbers) {
        struct kb_error err = { { 0 } };
        struct dbcheck_finding *f = NULL;
        const struct dbcheck_finding *o;
        struct db *db = fresh("orphan.db");
        size_t n = 0;

        /* What a hand edit with foreign keys off leaves: cells of a kernel
         * whose row is gone, a metric of no cell, an infinite number. */
        exec(db, "PRAGMA foreign_keys = OFF;"
                 "INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, iteration, state) "
                 "VALUES (2, 1, 'c001', 'gone', 'dd', 0, 'ok'), (3, 1, 'c002', 'gone', 'dd', 1, 'ok');"
                 "INSERT INTO metrics VALUES (9, 'dd.write_MBps', 1, 'MB/s', NULL);"
                 "UPDATE metrics SET value = 9e999 WHERE cell_id = 1;"
                 "UPDATE cells SET boot_s = 'fast' WHERE id = 1;");
        ASSERT_EQ(dbcheck_rows(db, &f, &n, &err), 0);
        o = find(f, n, "cells", "kernel_id", DBCHECK_ORPHAN);
        ASSERT_TRUE(o != NULL);
        ASSERT_EQ(o->rows, 2);
        ASSERT_STREQ(o->what, "cells.kernel_id: 2 row(s) name no kernels row (show, compare and the site leave "
                              "them out)");
        o = find(f, n, "metrics", "cell_id", DBCHECK_ORPHAN);
        ASSERT_TRUE(o != NULL);
        ASSERT_EQ(o->rows, 1);
        o = find(f, n, "metrics", "value", DBCHECK_NUMBER);
        ASSERT_TRUE(o != NULL);
        ASSERT_EQ(o->rows, 1);
        ASSERT_TRUE(find(f, n, "cells", "boot_s", DBCHECK_NUMBER) != NULL);
        ASSERT_EQ(n, 4);
        dbcheck_findings_free(f, n);
        db_close(db);
}

/* A file whose tables were made without NOT NULL and CHECK (kbench opens
 * any file with its tables and columns): the NULLs and the values out of
 * range that kbench's own schema would have refused. */
TEST(nulls_and_ranges_of_a_crafted_schema) {
        struct kb_error err = { { 0 } };
        struct dbcheck_finding *f = NULL;
        const struct dbcheck_finding *o;
        g_autofree char *path = NULL;
        struct db *db = fresh("crafted.db");
        size_t n = 0;
        sqlite3 *h = NULL;

        path = g_strdup(db_path(db));
        db = db_close(db);
        /* kbench's own connection is defensive: the schema is edited
         * through a plain one, as a crafting hand would. */
        ASSERT_EQ(sqlite3_open(path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "PRAGMA writable_schema = ON;"
                 "UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') WHERE name = 'runs';"
                 "UPDATE sqlite_schema SET sql = 'CREATE TABLE cells (id INTEGER PRIMARY KEY, run_id INTEGER "
                 "REFERENCES runs(id), cell_key TEXT, kernel_id TEXT REFERENCES kernels(id), workload TEXT, "
                 "params_json TEXT, iteration INTEGER, attempt INTEGER DEFAULT 1, state TEXT, detail TEXT, "
                 "accel TEXT, started_at REAL, boot_s REAL, workload_s REAL, total_s REAL, exit_code INTEGER, "
                 "rejected_records INTEGER DEFAULT 0, host_id INTEGER REFERENCES hosts(id), "
                 "UNIQUE (run_id, cell_key, attempt))' WHERE name = 'cells';", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        ASSERT_EQ(db_open_existing(path, &db, &err), 0);
        exec(db, "INSERT INTO runs (id, settings_json, started_at) VALUES (2, NULL, 3);"
                 "INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, iteration, attempt, state, accel) "
                 "VALUES (5, 1, 'c005', '" KID "', 'dd', -1, 0, 'great', 'hvf');");
        ASSERT_EQ(dbcheck_rows(db, &f, &n, &err), 0);
        o = find(f, n, "runs", "settings_json", DBCHECK_NULL);
        ASSERT_TRUE(o != NULL);
        ASSERT_STREQ(o->what, "runs.settings_json: 1 row(s) with no value (NULL), where kbench reads one");
        ASSERT_TRUE(find(f, n, "cells", "iteration", DBCHECK_RANGE) != NULL);
        ASSERT_TRUE(find(f, n, "cells", "attempt", DBCHECK_RANGE) != NULL);
        ASSERT_TRUE(find(f, n, "cells", "state", DBCHECK_RANGE) != NULL);
        ASSERT_TRUE(find(f, n, "cells", "accel", DBCHECK_RANGE) != NULL);
        ASSERT_EQ(n, 5);
        dbcheck_findings_free(f, n);
        db_close(db);
}
