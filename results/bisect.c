/* results/bisect.c: the bisection rows (see bisect.h). */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results/bisect.h"
#include "results/column.h"

static int bind_text(sqlite3_stmt *s, int i, const char *v) {
        return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static int bind_real(sqlite3_stmt *s, int i, double v) {
        return isfinite(v) ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i);
}

static int step_done(struct db *db, sqlite3_stmt *s, const char *what, struct kb_error *err) {
        int rc = sqlite3_step(s);

        return rc == SQLITE_DONE ? 0 : db_error(db, rc, err, "%s", what);
}

static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int db_bisection_create(struct db *db, struct db_bisection *b, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "INSERT INTO bisections(started_at, status, workload, metric, source, good, bad, "
                            "settings_json) VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7)", &s, err);

        if (r < 0)
                return r;
        if (sqlite3_bind_double(s, 1, b->started_at > 0 ? b->started_at : now()) || bind_text(s, 2, b->workload) ||
            bind_text(s, 3, b->metric) || bind_text(s, 4, b->source) || bind_text(s, 5, b->good) ||
            bind_text(s, 6, b->bad) || bind_text(s, 7, b->settings_json ? b->settings_json : "{}"))
                return db_error(db, sqlite3_errcode(db_handle(db)), err, "binding bisection");
        r = step_done(db, s, "creating bisection", err);
        if (r >= 0)
                b->id = sqlite3_last_insert_rowid(db_handle(db));
        return r;
}

int db_bisect_step_add(struct db *db, const struct db_bisect_step *st, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "INSERT INTO bisect_steps(bisection_id, step, role, candidate, kernel_id, run_ids, "
                            "rounds, vs_good, vs_bad, decision, mean_good, mean_cand, mean_bad, note) VALUES "
                            "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", &s, err);

        if (r < 0)
                return r;
        if (sqlite3_bind_int64(s, 1, st->bisection_id) || sqlite3_bind_int(s, 2, st->step) ||
            bind_text(s, 3, st->role) || bind_text(s, 4, st->candidate) || bind_text(s, 5, st->kernel_id) ||
            bind_text(s, 6, st->run_ids_json ? st->run_ids_json : "[]") || sqlite3_bind_int(s, 7, st->rounds) ||
            bind_text(s, 8, st->vs_good) || bind_text(s, 9, st->vs_bad) || bind_text(s, 10, st->decision) ||
            bind_real(s, 11, st->mean_good) || bind_real(s, 12, st->mean_cand) || bind_real(s, 13, st->mean_bad) ||
            bind_text(s, 14, st->note))
                return db_error(db, sqlite3_errcode(db_handle(db)), err, "binding bisect step");
        return step_done(db, s, "storing bisect step", err);
}

int db_bisection_finish(struct db *db, int64_t id, const char *status, const char *outcome, const char *first_bad,
                        const char *summary_json, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "UPDATE bisections SET finished_at = ?1, status = ?2, outcome = ?3, first_bad = ?4, "
                            "summary_json = ?5 WHERE id = ?6", &s, err);

        if (r < 0)
                return r;
        if (sqlite3_bind_double(s, 1, now()) || bind_text(s, 2, status) || bind_text(s, 3, outcome) ||
            bind_text(s, 4, first_bad) || bind_text(s, 5, summary_json) || sqlite3_bind_int64(s, 6, id))
                return db_error(db, sqlite3_errcode(db_handle(db)), err, "binding bisection");
        return step_done(db, s, "finishing bisection", err);
}

#define BISECT_COLUMNS "id, started_at, finished_at, status, workload, metric, source, good, bad, settings_json, " \
                       "outcome, first_bad, summary_json"

/* Fill *b from a row of BISECT_COLUMNS; a value it needs that is not
 * there is the error naming it (b is filled as far as it got: the caller
 * frees it). */
static int read_bisection(struct db *db, sqlite3_stmt *s, struct bisect_row *b, struct kb_error *err) {
        struct column_row row = { s, 0, NULL };
        char where[40];

        *b = (struct bisect_row){ .id = sqlite3_column_int64(s, 0),
                                  .started_at = column_row_real(&row, 1, "bisections.started_at"),
                                  .finished_at = column_row_real(&row, 2, NULL),
                                  .status = column_row_text(&row, 3, "bisections.status"),
                                  .workload = column_row_text(&row, 4, "bisections.workload"),
                                  .metric = column_row_text(&row, 5, "bisections.metric"),
                                  .source = column_row_text(&row, 6, "bisections.source"),
                                  .good = column_row_text(&row, 7, "bisections.good"),
                                  .bad = column_row_text(&row, 8, "bisections.bad"),
                                  .settings_json = column_row_text(&row, 9, "bisections.settings_json"),
                                  .outcome = column_row_text(&row, 10, NULL),
                                  .first_bad = column_row_text(&row, 11, NULL),
                                  .summary_json = column_row_text(&row, 12, NULL) };
        if (row.r >= 0)
                return 0;
        snprintf(where, sizeof(where), "bisection %lld", (long long)b->id);
        return column_error(db, row.r, row.bad, where, err);
}

int db_bisections_list(struct db *db, struct bisect_row **ret, size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(struct bisect_row));
        int r = db_prepare(db, "SELECT " BISECT_COLUMNS " FROM bisections ORDER BY id DESC", &s, err), rc;

        if (r < 0)
                return r;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                struct bisect_row b;

                r = read_bisection(db, s, &b, err);
                g_array_append_val(rows, b);
                if (r < 0)
                        break;
        }
        if (r < 0 || rc != SQLITE_DONE) {
                guint n = rows->len;

                if (r >= 0)
                        r = db_error(db, rc, err, "reading bisections");
                bisect_rows_free((struct bisect_row *)(void *)g_array_free(g_steal_pointer(&rows), FALSE), n);
                return r;
        }
        *ret_n = rows->len;
        *ret = (struct bisect_row *)(void *)g_array_free(g_steal_pointer(&rows), FALSE);
        return 0;
}

static int read_steps(struct db *db, struct bisect_row *b, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        GArray *steps = g_array_new(FALSE, TRUE, sizeof(struct bisect_step_row));
        int r = db_prepare(db, "SELECT step, rounds, role, candidate, kernel_id, run_ids, vs_good, vs_bad, decision, "
                            "note, mean_good, mean_cand, mean_bad FROM bisect_steps WHERE bisection_id = ?1 "
                            "ORDER BY step", &s, err), rc;

        if (r < 0 || sqlite3_bind_int64(s, 1, b->id)) {
                g_array_free(steps, TRUE);
                return r < 0 ? r : db_error(db, sqlite3_errcode(db_handle(db)), err, "binding");
        }
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                struct column_row row = { s, 0, NULL };
                struct bisect_step_row st = {
                        .step = sqlite3_column_int(s, 0),
                        .rounds = (int)column_row_int64(&row, 1, "bisect_steps.rounds"),
                        .role = column_row_text(&row, 2, "bisect_steps.role"),
                        .candidate = column_row_text(&row, 3, "bisect_steps.candidate"),
                        .kernel_id = column_row_text(&row, 4, NULL),
                        .run_ids_json = column_row_text(&row, 5, "bisect_steps.run_ids"),
                        .vs_good = column_row_text(&row, 6, NULL), .vs_bad = column_row_text(&row, 7, NULL),
                        .decision = column_row_text(&row, 8, "bisect_steps.decision"),
                        .note = column_row_text(&row, 9, NULL),
                        .mean_good = column_row_real(&row, 10, NULL), .mean_cand = column_row_real(&row, 11, NULL),
                        .mean_bad = column_row_real(&row, 12, NULL) };

                /* Kept before it is checked: bisect_rows_free frees what was copied. */
                g_array_append_val(steps, st);
                if (row.r < 0) {
                        char where[64];

                        snprintf(where, sizeof(where), "step %d of bisection %lld", st.step, (long long)b->id);
                        r = column_error(db, row.r, row.bad, where, err);
                        break;
                }
        }
        b->n_steps = steps->len;
        b->steps = (struct bisect_step_row *)(void *)g_array_free(steps, FALSE);
        if (r < 0)
                return r;
        return rc == SQLITE_DONE ? 0 : db_error(db, rc, err, "reading bisect steps");
}

int db_bisection_get(struct db *db, int64_t id, struct bisect_row **ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct bisect_row *b;
        int r = db_prepare(db, "SELECT " BISECT_COLUMNS " FROM bisections WHERE id = ?1", &s, err), rc;

        if (r < 0)
                return r;
        if (sqlite3_bind_int64(s, 1, id))
                return db_error(db, sqlite3_errcode(db_handle(db)), err, "binding");
        rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return error_setf(err, -ENOENT, "no bisection %lld (kbench show --bisect lists them)", (long long)id);
        if (rc != SQLITE_ROW)
                return db_error(db, rc, err, "reading bisection %lld", (long long)id);
        b = g_new0(struct bisect_row, 1);
        r = read_bisection(db, s, b, err);
        if (r >= 0)
                r = read_steps(db, b, err);
        if (r < 0) {
                bisect_rows_free(b, 1);
                return r;
        }
        *ret = b;
        return 0;
}

void bisect_rows_free(struct bisect_row *rows, size_t n) {
        for (size_t i = 0; rows && i < n; i++) {
                struct bisect_row *b = &rows[i];

                for (size_t k = 0; k < b->n_steps; k++) {
                        struct bisect_step_row *st = &b->steps[k];

                        g_free(st->role), g_free(st->candidate), g_free(st->kernel_id), g_free(st->run_ids_json);
                        g_free(st->vs_good), g_free(st->vs_bad), g_free(st->decision), g_free(st->note);
                        g_free(st->kernel);
                }
                g_free(b->steps);
                g_free(b->status), g_free(b->workload), g_free(b->metric), g_free(b->source), g_free(b->good);
                g_free(b->bad), g_free(b->settings_json), g_free(b->outcome), g_free(b->first_bad);
                g_free(b->summary_json);
        }
        g_free(rows);
}
