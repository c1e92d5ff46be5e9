/* results/nights.c: the rows of the nights (see nights.h). */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "results/column.h"
#include "results/nights.h"

static int bind_text(sqlite3_stmt *s, int i, const char *v) {
        return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int exec(struct db *db, const char *sql, struct kb_error *err) {
        int rc = sqlite3_exec(db_handle(db), sql, NULL, NULL, NULL);

        return rc == SQLITE_OK ? 0 : db_error(db, rc, err, "%s", sql);
}

static int night_insert(struct db *db, struct db_night *n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "INSERT INTO nights(started_at, baseline, alpha, noise) VALUES (?1, ?2, ?3, ?4)", &s,
                           err), rc;

        if (r < 0)
                return r;
        if (sqlite3_bind_double(s, 1, n->started_at > 0 ? n->started_at : now()) || bind_text(s, 2, n->baseline) ||
            sqlite3_bind_double(s, 3, n->alpha) || sqlite3_bind_double(s, 4, n->noise))
                return db_error(db, sqlite3_errcode(db_handle(db)), err, "binding a night");
        rc = sqlite3_step(s);
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "storing a night");
        n->id = sqlite3_last_insert_rowid(db_handle(db));
        return 0;
}

static int compares_insert(struct db *db, int64_t night, const struct db_night_compare *c, size_t nc,
                           struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "INSERT INTO night_compares(night_id, seq, subject, sel_a, sel_b) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)", &s, err), rc;

        for (size_t i = 0; r >= 0 && i < nc; i++) {
                sqlite3_reset(s);
                if (sqlite3_bind_int64(s, 1, night) || sqlite3_bind_int64(s, 2, (sqlite3_int64)i) ||
                    bind_text(s, 3, c[i].subject) || bind_text(s, 4, c[i].sel_a) || bind_text(s, 5, c[i].sel_b))
                        return db_error(db, sqlite3_errcode(db_handle(db)), err, "binding a night's comparison");
                rc = sqlite3_step(s);
                if (rc != SQLITE_DONE)
                        r = db_error(db, rc, err, "storing a night's comparison");
        }
        return r;
}

int db_night_add(struct db *db, struct db_night *n, const struct db_night_compare *c, size_t nc,
                 struct kb_error *err) {
        struct db_night row = *n;
        int r = exec(db, "BEGIN IMMEDIATE", err);

        if (r < 0)
                return r;
        r = night_insert(db, &row, err);
        if (r >= 0)
                r = compares_insert(db, row.id, c, nc, err);
        if (r >= 0)
                r = exec(db, "COMMIT", err);
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
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "SELECT night_id, subject, sel_a, sel_b FROM night_compares ORDER BY night_id, seq",
                           &s, err), rc;
        size_t k = 0;

        if (r < 0)
                return r;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
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
        return rc == SQLITE_DONE ? 0 : db_error(db, rc, err, "reading the nights' comparisons");
}

int db_nights_list(struct db *db, struct night_row **ret, size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        GArray *rows = g_array_new(FALSE, TRUE, sizeof(struct night_row));
        int r = db_prepare(db, "SELECT id, started_at, baseline, alpha, noise FROM nights ORDER BY id", &s, err), rc;
        struct night_row *list;
        size_t n;

        if (r < 0) {
                g_array_free(rows, TRUE);
                return r;
        }
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
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
                        break;
                }
        }
        n = rows->len;
        list = (struct night_row *)(void *)g_array_free(rows, FALSE);
        if (r >= 0)
                r = rc == SQLITE_DONE ? read_compares(db, list, n, err) : db_error(db, rc, err, "reading the nights");
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
