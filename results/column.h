/* results/column: the one way a value leaves a row of the result store.
 * A store is a file: a hand edit, a broken writer or another program can
 * leave a NULL where the schema said NOT NULL (the constraint is gone once
 * the schema is rewritten), text where a number belongs, an infinity.
 * Every reader in results/ takes its values through these accessors, so a
 * value the read side needs and does not get becomes one error naming the
 * table, the row and the column (column_error), never a NULL pointer or a
 * NaN deep in a view. */
#pragma once

#include <stdint.h>

#include <sqlite3.h>

#include "common/error.h"
#include "results/db.h"

/* Whether a column must hold a value: the schema's NOT NULL columns, and
 * the values computed from them, are COLUMN_NEEDED. */
enum column_need {
        COLUMN_OPTIONAL,
        COLUMN_NEEDED,
};

/* Column i of s's current row as an owned copy (caller frees with free()).
 * NULL: *ret = NULL when optional, -ENODATA when needed. -ENOMEM. */
int column_text(sqlite3_stmt *s, int i, enum column_need need, char **ret);
/* Column i as a finite double. NULL, text, a blob or an infinity is "no
 * value" (SQLite would read the text 'abc' as 0 and '12abc' as 12): NAN
 * when optional; when needed, -ENODATA for NULL and -EDOM for the rest. */
int column_real(sqlite3_stmt *s, int i, enum column_need need, double *ret);
/* Column i as an integer. When optional, NULL is none_value; when needed,
 * NULL is -ENODATA. Any other type than an integer is -ENOTNAM when
 * needed, none_value when optional. */
int column_int64(sqlite3_stmt *s, int i, enum column_need need, int64_t none_value, int64_t *ret);
/* A counter: a non-negative integer, or -1 for NULL (not reported) and
 * anything else (the file is data). */
int64_t column_counter(sqlite3_stmt *s, int i);

/* Reads of a row's fields one after another, for readers that fill a
 * struct field by field (results/nights.c, results/bisect.c): the first
 * refusal is kept with the column it came from, later reads of the row
 * give NULL / NAN, and the caller checks r once. */
struct column_row {
        sqlite3_stmt *s;
        int r;                     /* 0, or the first refusal (-ENODATA, -EDOM, -ENOMEM) */
        const char *bad;           /* "table.column" of that refusal */
};

/* Column i as column_text; needed is "table.column" when the value must be
 * there, NULL when optional. Returns the copy (caller frees) or NULL. */
char *column_row_text(struct column_row *row, int i, const char *needed);
/* Column i as column_real; needed as in column_row_text. NAN when absent. */
double column_row_real(struct column_row *row, int i, const char *needed);
/* Column i as column_int64 (0 when absent), an int when it fits. */
int64_t column_row_int64(struct column_row *row, int i, const char *needed);

/* The one line for a value a column_* accessor or its caller refused with
 * r: -ENODATA "PATH: TABLE.COLUMN is NULL in ROW" (column is
 * "table.column", row says which row: "cell 3"), -EDOM a real that is not
 * finite, -ENOTNAM an integer column holding something else, -ERANGE an
 * integer wider than its field. Any other r is "out of memory". Returns
 * -EBADMSG for the refusals (the file is damaged), else r. */
int column_error(struct db *db, int r, const char *column, const char *row, struct kb_error *err);
