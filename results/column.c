/* results/column.c: checked reads of result columns (see column.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/column.h"

int column_text(sqlite3_stmt *s, int i, enum column_need need, char **ret) {
        const unsigned char *t;
        char *d;

        if (sqlite3_column_type(s, i) == SQLITE_NULL) {
                if (need == COLUMN_NEEDED)
                        return -ENODATA;
                *ret = NULL;
                return 0;
        }
        t = sqlite3_column_text(s, i);
        if (!t)
                return -ENOMEM;
        /* A blob may hold NULs: the text is what comes before the first. */
        d = strdup((const char *)t);
        if (!d)
                return -ENOMEM;
        *ret = d;
        return 0;
}

int column_real(sqlite3_stmt *s, int i, enum column_need need, double *ret) {
        int t = sqlite3_column_type(s, i);
        double v = t == SQLITE_INTEGER || t == SQLITE_FLOAT ? sqlite3_column_double(s, i) : NAN;

        if (!isfinite(v)) {
                if (need == COLUMN_NEEDED)
                        return t == SQLITE_NULL ? -ENODATA : -EDOM;
                v = NAN;
        }
        *ret = v;
        return 0;
}

int column_int64(sqlite3_stmt *s, int i, enum column_need need, int64_t none_value, int64_t *ret) {
        int t = sqlite3_column_type(s, i);

        if (t != SQLITE_INTEGER) {
                if (need == COLUMN_NEEDED)
                        return t == SQLITE_NULL ? -ENODATA : -ENOTNAM;
                *ret = none_value;
                return 0;
        }
        *ret = sqlite3_column_int64(s, i);
        return 0;
}

int64_t column_counter(sqlite3_stmt *s, int i) {
        int64_t v;

        if (sqlite3_column_type(s, i) != SQLITE_INTEGER)
                return -1;
        v = sqlite3_column_int64(s, i);
        return v < 0 ? -1 : v;
}

static void row_refused(struct column_row *row, int r, const char *needed) {
        if (r < 0 && row->r == 0) {
                row->r = r;
                row->bad = needed;
        }
}

char *column_row_text(struct column_row *row, int i, const char *needed) {
        char *v = NULL;

        row_refused(row, column_text(row->s, i, needed ? COLUMN_NEEDED : COLUMN_OPTIONAL, &v), needed);
        return v;
}

double column_row_real(struct column_row *row, int i, const char *needed) {
        double v = NAN;

        row_refused(row, column_real(row->s, i, needed ? COLUMN_NEEDED : COLUMN_OPTIONAL, &v), needed);
        return v;
}

int64_t column_row_int64(struct column_row *row, int i, const char *needed) {
        int64_t v = 0;

        row_refused(row, column_int64(row->s, i, needed ? COLUMN_NEEDED : COLUMN_OPTIONAL, 0, &v), needed);
        return v;
}

int column_error(struct db *db, int r, const char *column, const char *row, struct kb_error *err) {
        switch (r) {
        case -ENODATA:
                return error_setf(err, -EBADMSG, "%s: %s is NULL in %s", db_path(db), column, row);
        case -EDOM:
                return error_setf(err, -EBADMSG, "%s: %s is not a finite number in %s", db_path(db), column, row);
        case -ENOTNAM:
                return error_setf(err, -EBADMSG, "%s: %s is not an integer in %s", db_path(db), column, row);
        case -ERANGE:
                return error_setf(err, -EBADMSG, "%s: %s is out of range in %s (an integer wider than kbench "
                                  "writes there)", db_path(db), column, row);
        default:
                return error_setf(err, r, "out of memory");
        }
}
