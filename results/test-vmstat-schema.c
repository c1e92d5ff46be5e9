/* Test that the vmstat table of a store at DB_SCHEMA_VERSION (schema.sql
 * and the migration steps of results/dbschema.c after it) has exactly the columns
 * of common/vmstat-columns.h, in that order, each a REAL that may be NULL (a
 * value the guest's kernel did not provide). The check reads what SQLite
 * makes of the schema rather than parsing SQL by hand. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/test.h"
#include "results/db.h"
#include "results/schema-sql.h"

/* The columns before the sampled ones: identity and times of a row. */
static const char *const row_columns[] = { "cell_id", "seq", "t_host", "t_guest", "first" };
#define N_ROW_COLUMNS (sizeof(row_columns) / sizeof(row_columns[0]))

TEST(vmstat_columns_match_the_list) {
        static const char *const names[] = {
#define X(name, width, group) #name,
                KB_VMSTAT_COLUMNS(X)
#undef X
        };
        struct kb_error err = { { 0 } };
        char path[] = "/tmp/kbench-test-vmstat-schema-XXXXXX";
        struct db *db = NULL;
        sqlite3 *h = NULL;
        sqlite3_stmt *s = NULL;
        size_t i = 0;
        int fd = mkstemp(path);

        ASSERT_TRUE(fd >= 0);
        close(fd);
        /* A unique name; only a path without a file becomes a database. */
        ASSERT_EQ(unlink(path), 0);
        ASSERT_EQ(db_open(path, &db, &err), 0);
        h = db_handle(db);
        ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT name, type, \"notnull\" FROM pragma_table_info('vmstat') ORDER BY cid",
                                     -1, &s, NULL), SQLITE_OK);
        while (sqlite3_step(s) == SQLITE_ROW) {
                const char *name = (const char *)sqlite3_column_text(s, 0);
                const char *type = (const char *)sqlite3_column_text(s, 1);

                if (i < N_ROW_COLUMNS) {
                        ASSERT_STREQ(name, row_columns[i]);
                } else {
                        ASSERT_TRUE(i - N_ROW_COLUMNS < KB_VM_NCOLS);
                        ASSERT_STREQ(name, names[i - N_ROW_COLUMNS]);
                        ASSERT_STREQ(name, db_vmstat_column_names[i - N_ROW_COLUMNS]);
                        ASSERT_STREQ(type, "REAL");
                        ASSERT_EQ(sqlite3_column_int(s, 2), 0);   /* NULL allowed */
                }
                i++;
        }
        ASSERT_EQ(i, N_ROW_COLUMNS + KB_VM_NCOLS);
        sqlite3_finalize(s);
        db_close(db);
        unlink(path);
        {
                char side[sizeof(path) + 8];
                snprintf(side, sizeof(side), "%s-wal", path);
                unlink(side);
                snprintf(side, sizeof(side), "%s-shm", path);
                unlink(side);
        }
}

/* schema.sql itself stays version 1: the columns after writeback come only
 * from migration steps, so a store created before them gains the same. */
TEST(schema_sql_is_version_1) {
        sqlite3 *h = NULL;
        sqlite3_stmt *s = NULL;

        ASSERT_EQ(sqlite3_open(":memory:", &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, db_schema_v1, NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(*) FROM pragma_table_info('vmstat')", -1, &s, NULL),
                  SQLITE_OK);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        ASSERT_EQ(sqlite3_column_int(s, 0), (int)N_ROW_COLUMNS + KB_VM_writeback + 1);
        sqlite3_finalize(s);
        sqlite3_close(h);
}

TEST_MAIN();
