/* results/nights.c: the rows of the nights (see nights.h). */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "results/column.h"
#include "results/nights.h"

static int night_insert(struct db *db, struct db_night *n, struct kb_error *err) {
        int r = db_write(db, "INSERT INTO nights(started_at, baseline, alpha, noise) VALUES (?1, ?2, ?3, ?4)",
                         DB_ARGS(DB_REAL(n->started_at > 0 ? n->started_at : db_now()), DB_TEXT(n->baseline),
                                 DB_REAL(n->alpha), DB_REAL(n->noise)),
                         "storing a night", NULL, err);

        if (r >= 0)
                n->id = sqlite3_last_insert_rowid(db_handle(db));
        return r;
}

static int compares_insert(struct db *db, int64_t night, const struct db_night_compare *c, size_t nc,
                           struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "INSERT INTO night_compares(night_id, seq, subject, sel_a, sel_b) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)", &s, err);

        for (size_t i = 0; r >= 0 && i < nc; i++)
                r = db_step_args(db, s, DB_ARGS(DB_INT(night), DB_INT((int64_t)i), DB_TEXT(c[i].subject),
                                                DB_TEXT(c[i].sel_a), DB_TEXT(c[i].sel_b)),
                                 "storing a night's comparison", err);
        return r;
}

int db_night_add(struct db *db, struct db_night *n, const struct db_night_compare *c, size_t nc,
                 struct kb_error *err) {
        struct db_night row = *n;
        int r = db_exec(db, "BEGIN IMMEDIATE", err);

        if (r < 0)
                return r;
        r = night_insert(db, &row, err);
        if (r >= 0)
                r = compares_insert(db, row.id, c, nc, err);
        if (r >= 0)
                r = db_exec(db, "COMMIT", err);
        if (r < 0) {
                sqlite3_exec(db_handle(db), "ROLLBACK", NULL, NULL, NULL);
                return r;
        }
        n->id = row.id;
        return 0;
}

/* Each night's comparisons, appended to the night they belong to (both
 * read in id order, so a merge). */
static int read_compares(struct db *db, struct night_row *rows, size_t n, struct kb_error *err) {
        static const char what[] = "reading the nights' comparisons";
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_query(db, "SELECT night_id, subject, sel_a, sel_b FROM night_compares ORDER BY night_id, seq",
                         DB_NO_ARGS, what, &s, err);
        size_t k = 0;

        while (r >= 0 && (r = db_row(db, s, what, err)) > 0) {
                int64_t id = sqlite3_column_int64(s, 0);
                struct column_row row = { s, 0, NULL };
                struct night_row *nr;

                while (k < n && rows[k].id < id)
                        k++;
                if (k == n || rows[k].id != id)
                        continue;
                nr = &rows[k];
                nr->compares = g_renew(struct night_compare_row, nr->compares, nr->n_compares + 1);
                /* Counted before it is checked: what was copied is freed with the rest. */
                nr->compares[nr->n_compares++] = (struct night_compare_row){
                        column_row_text(&row, 1, "night_compares.subject"),
                        column_row_text(&row, 2, "night_compares.sel_a"),
                        column_row_text(&row, 3, "night_compares.sel_b") };
                if (row.r < 0) {
                        char where[48];

                        snprintf(where, sizeof(where), "a comparison of night %lld", (long long)id);
                        return column_error(db, row.r, row.bad, where, err);
                }
        }
        return r;
}

int db_nights_list(struct db *db, struct night_row **ret, size_t *ret_n, struct kb_error *err) {
        static const char what[] = "reading the nights";
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        GArray *rows = g_array_new(FALSE, TRUE, sizeof(struct night_row));
        int r = db_query(db, "SELECT id, started_at, baseline, alpha, noise FROM nights ORDER BY id", DB_NO_ARGS,
                         what, &s, err);
        struct night_row *list;
        size_t n;

        while (r >= 0 && (r = db_row(db, s, what, err)) > 0) {
                struct column_row row = { s, 0, NULL };
                struct night_row nr = { .id = sqlite3_column_int64(s, 0),
                                        .started_at = column_row_real(&row, 1, "nights.started_at"),
                                        .baseline = column_row_text(&row, 2, "nights.baseline"),
                                        .alpha = column_row_real(&row, 3, "nights.alpha"),
                                        .noise = column_row_real(&row, 4, "nights.noise") };

                g_array_append_val(rows, nr);
                if (row.r < 0) {
                        char where[32];

                        snprintf(where, sizeof(where), "night %lld", (long long)nr.id);
                        r = column_error(db, row.r, row.bad, where, err);
                }
        }
        n = rows->len;
        list = (struct night_row *)(void *)g_array_free(rows, FALSE);
        if (r >= 0)
                r = read_compares(db, list, n, err);
        if (r < 0) {
                night_rows_free(list, n);
                return r;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}

void night_rows_free(struct night_row *rows, size_t n) {
        for (size_t i = 0; rows && i < n; i++) {
                for (size_t k = 0; k < rows[i].n_compares; k++) {
                        g_free(rows[i].compares[k].subject);
                        g_free(rows[i].compares[k].sel_a);
                        g_free(rows[i].compares[k].sel_b);
                }
                g_free(rows[i].compares);
                g_free(rows[i].baseline);
        }
        g_free(rows);
}
