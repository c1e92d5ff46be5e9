/* Test that results/schema.sql's vmstat table has exactly the columns of
 * common/vmstat-columns.h, in that order, each a REAL that may be NULL (a
 * value the guest's kernel did not provide). The schema is the text the
 * build embeds from schema.sql, run on an in-memory database, so the check
 * reads what SQLite makes of the file rather than parsing SQL by hand. */
#include <string.h>

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
        sqlite3 *h = NULL;
        sqlite3_stmt *s = NULL;
        size_t i = 0;

        ASSERT_EQ(sqlite3_open(":memory:", &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, db_schema_v1, NULL, NULL, NULL), SQLITE_OK);
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
        sqlite3_close(h);
}

TEST_MAIN();
