/* results/dbcheck.c: the row checks of a results database (see dbcheck.h).
 * Each table is read once: its checks are sums in one SELECT, built from
 * the reference schema's column list (identifiers from kbench's own
 * migration SQL, quoted; no value from the file enters the SQL). */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "results/cellstate.h"
#include "results/dbcheck.h"

/* What the readers take a column to hold beyond its type: a bad value
 * here is read without an error and misleads (a negative repeat index
 * pairs with nothing, an unknown state is counted as neither ok nor a
 * failure). bad is true for a bad value and never for NULL. */
static const struct dbcheck_range {
        const char *table;
        const char *column;
        const char *bad;           /* SQL condition on the column; NULL: not one of
                                      the cell states (results/cellstate.h) */
        const char *rule;          /* what the column must hold, for the message */
} dbcheck_ranges[] = {
        { "cells", "iteration", "iteration < 0", "a repeat index, 0 or more" },
        { "cells", "attempt", "attempt < 1", "an attempt number, 1 or more" },
        { "cells", "state", NULL, "one of the cell states of docs/schema.md" },
        { "cells", "accel", "accel NOT IN ('kvm', 'tcg')", "kvm or tcg" },
        { "cells", "boot_s", "boot_s < 0", "seconds, 0 or more" },
        { "cells", "workload_s", "workload_s < 0", "seconds, 0 or more" },
        { "cells", "total_s", "total_s < 0", "seconds, 0 or more" },
        { "nights", "alpha", "alpha <= 0 OR alpha >= 1", "a level between 0 and 1" },
        { "nights", "noise", "noise < 0", "a fraction, 0 or more" },
};

/* One check of a table: cond selects the rows at fault. */
struct check {
        enum dbcheck_kind kind;
        char *column;              /* owned */
        char *cond;                /* SQL (owned) */
        char *about;               /* the rest of the message after "N row(s) " (owned) */
};

static void check_clear(void *p) {
        struct check *c = p;

        g_free(c->column);
        g_free(c->cond);
        g_free(c->about);
}

/* name as an SQL identifier. Caller g_frees. */
static char *ident(const char *name) {
        g_auto(GStrv) parts = g_strsplit(name, "\"", -1);
        g_autofree char *body = g_strjoinv("\"\"", parts);

        return g_strdup_printf("\"%s\"", body);
}

/* "COLUMN NOT IN ('ok', ...)": the cell states, spelt by their table.
 * The words are kbench's own and hold no quote. Caller g_frees. */
static char *not_a_cell_state(const char *column) {
        g_autoptr(GString) cond = g_string_new(NULL);

        g_string_append_printf(cond, "%s NOT IN (", column);
        for (int i = 0; i < CELLSTATE_N; i++)
                g_string_append_printf(cond, "%s'%s'", i ? ", " : "", cellstate_name((enum cellstate)i));
        g_string_append_c(cond, ')');
        return g_strdup(cond->str);
}

static void add(GArray *checks, enum dbcheck_kind kind, const char *column, char *cond, char *about) {
        struct check c = { kind, g_strdup(column), cond, about };

        g_array_append_val(checks, c);
}

/* The checks of one column of table, from its declared type, NOT NULL and
 * the ranges above. */
static void column_checks(GArray *checks, const char *table, const char *column, const char *type, int notnull) {
        g_autofree char *q = ident(column);

        if (notnull)
                add(checks, DBCHECK_NULL, column, g_strdup_printf("%s IS NULL", q),
                    g_strdup("with no value (NULL), where kbench reads one"));
        if (g_ascii_strcasecmp(type, "REAL") == 0)
                add(checks, DBCHECK_NUMBER, column,
                    g_strdup_printf("typeof(%s) NOT IN ('real', 'integer', 'null') OR %s IN (9e999, -9e999)", q, q),
                    g_strdup("with no finite number (text, bytes or infinity)"));
        else if (g_ascii_strcasecmp(type, "INTEGER") == 0)
                add(checks, DBCHECK_NUMBER, column, g_strdup_printf("typeof(%s) NOT IN ('integer', 'null')", q),
                    g_strdup("with no integer"));
        for (size_t i = 0; i < ELEMENTSOF(dbcheck_ranges); i++)
                if (strcmp(dbcheck_ranges[i].table, table) == 0 && strcmp(dbcheck_ranges[i].column, column) == 0)
                        add(checks, DBCHECK_RANGE, column,
                            dbcheck_ranges[i].bad ? g_strdup(dbcheck_ranges[i].bad) : not_a_cell_state(q),
                            g_strdup_printf("out of range (it holds %s)", dbcheck_ranges[i].rule));
}

/* The checks of table, from the reference schema ref. */
static int table_checks(struct db *db, sqlite3 *ref, const char *table, GArray *checks, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *cols = NULL, *refs = NULL;

        if (sqlite3_prepare_v2(ref, "SELECT name, type, \"notnull\" FROM pragma_table_info(?1) ORDER BY cid", -1, &cols,
                               NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(ref, "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1) "
                               "WHERE \"to\" IS NOT NULL ORDER BY id, seq", -1, &refs, NULL) != SQLITE_OK)
                return error_setf(err, -EIO, "%s: reading kbench's schema: %s", db_path(db), sqlite3_errmsg(ref));
        sqlite3_bind_text(cols, 1, table, -1, SQLITE_STATIC);
        while (sqlite3_step(cols) == SQLITE_ROW)
                column_checks(checks, table, (const char *)sqlite3_column_text(cols, 0),
                              (const char *)sqlite3_column_text(cols, 1), sqlite3_column_int(cols, 2));
        sqlite3_bind_text(refs, 1, table, -1, SQLITE_STATIC);
        while (sqlite3_step(refs) == SQLITE_ROW) {
                const char *from = (const char *)sqlite3_column_text(refs, 0);
                const char *parent = (const char *)sqlite3_column_text(refs, 1);
                g_autofree char *qf = ident(from), *qp = ident(parent);
                g_autofree char *qt = ident((const char *)sqlite3_column_text(refs, 2));

                add(checks, DBCHECK_ORPHAN, from,
                    g_strdup_printf("%s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s)", qf, qf, qt, qp),
                    g_strdup_printf("name no %s row (show, compare and the site leave them out)", parent));
        }
        return 0;
}

/* Run the checks of table over the file's rows; append a finding for
 * each check some row fails. */
static int table_scan(struct db *db, const char *table, GArray *checks, GArray *found, struct kb_error *err) {
        g_autoptr(GString) sql = g_string_new("SELECT ");
        g_autofree char *qt = ident(table);
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char what[128];
        int r;

        if (checks->len == 0)
                return 0;
        for (guint i = 0; i < checks->len; i++)
                g_string_append_printf(sql, "%stotal(CASE WHEN %s THEN 1 ELSE 0 END)", i ? ", " : "",
                                       g_array_index(checks, struct check, i).cond);
        g_string_append_printf(sql, " FROM %s", qt);
        snprintf(what, sizeof(what), "checking the rows of %s", table);
        r = db_query_row(db, sql->str, DB_NO_ARGS, what, &s, err);
        if (r == 0)
                r = db_error(db, SQLITE_DONE, err, "%s", what);
        if (r < 0)
                return r;
        for (guint i = 0; i < checks->len; i++) {
                const struct check *c = &g_array_index(checks, struct check, i);
                int64_t n = sqlite3_column_int64(s, (int)i);
                struct dbcheck_finding f;

                if (n <= 0)
                        continue;
                f = (struct dbcheck_finding){
                        .kind = c->kind, .table = g_strdup(table), .column = g_strdup(c->column), .rows = n,
                        .what = g_strdup_printf("%s.%s: %lld row(s) %s", table, c->column, (long long)n, c->about),
                };
                g_array_append_val(found, f);
        }
        return 0;
}

static void finding_clear(void *p) {
        struct dbcheck_finding *f = p;

        g_free(f->table);
        g_free(f->column);
        g_free(f->what);
}

int dbcheck_rows(struct db *db, struct dbcheck_finding **ret, size_t *ret_n, struct kb_error *err) {
        g_autoptr(GArray) found = g_array_new(FALSE, TRUE, sizeof(struct dbcheck_finding));
        _cleanup_stmt_ sqlite3_stmt *tables = NULL;
        sqlite3 *ref = NULL;
        int r = db_schema_reference(db, &ref, err);

        if (r < 0)
                return r;
        g_array_set_clear_func(found, finding_clear);
        /* In the order the migrations made them: kernels first. */
        if (sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid", -1, &tables,
                               NULL) != SQLITE_OK)
                r = error_setf(err, -EIO, "%s: reading kbench's schema: %s", db_path(db), sqlite3_errmsg(ref));
        while (r >= 0 && sqlite3_step(tables) == SQLITE_ROW) {
                g_autoptr(GArray) checks = g_array_new(FALSE, TRUE, sizeof(struct check));
                const char *table = (const char *)sqlite3_column_text(tables, 0);

                g_array_set_clear_func(checks, check_clear);
                r = table_checks(db, ref, table, checks, err);
                if (r >= 0)
                        r = table_scan(db, table, checks, found, err);
        }
        sqlite3_finalize(TAKE_PTR(tables));
        sqlite3_close(ref);
        if (r < 0)
                return r;        /* found's clear function frees what it holds */
        *ret_n = found->len;
        *ret = found->len ? (struct dbcheck_finding *)(void *)g_array_free(g_steal_pointer(&found), FALSE) : NULL;
        return 0;
}

struct dbcheck_finding *dbcheck_findings_free(struct dbcheck_finding *v, size_t n) {
        for (size_t i = 0; v && i < n; i++)
                finding_clear(&v[i]);
        g_free(v);
        return NULL;
}
