/* results/bisect.c: the bisection rows (see bisect.h). */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/bisect.h"
#include "results/column.h"

int db_bisection_create(struct db *db, struct db_bisection *b, struct kb_error *err) {
        int r = db_write(db, "INSERT INTO bisections(started_at, status, workload, metric, source, good, bad, "
                             "settings_json) VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7)",
                         DB_ARGS(DB_REAL(b->started_at > 0 ? b->started_at : db_now()), DB_TEXT(b->workload),
                                 DB_TEXT(b->metric), DB_TEXT(b->source), DB_TEXT(b->good), DB_TEXT(b->bad),
                                 DB_TEXT(b->settings_json ? b->settings_json : "{}")),
                         "creating bisection", NULL, err);

        if (r >= 0)
                b->id = sqlite3_last_insert_rowid(db_handle(db));
        return r;
}

int db_bisect_step_add(struct db *db, const struct db_bisect_step *st, struct kb_error *err) {
        return db_write(db, "INSERT INTO bisect_steps(bisection_id, step, role, candidate, kernel_id, run_ids, "
                            "rounds, vs_good, vs_bad, decision, mean_good, mean_cand, mean_bad, note) VALUES "
                            "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                        DB_ARGS(DB_INT(st->bisection_id), DB_INT(st->step), DB_TEXT(st->role),
                                DB_TEXT(st->candidate), DB_TEXT(st->kernel_id),
                                DB_TEXT(st->run_ids_json ? st->run_ids_json : "[]"), DB_INT(st->rounds),
                                DB_TEXT(st->vs_good), DB_TEXT(st->vs_bad), DB_TEXT(st->decision),
                                DB_REAL(st->mean_good), DB_REAL(st->mean_cand), DB_REAL(st->mean_bad),
                                DB_TEXT(st->note)),
                        "storing bisect step", NULL, err);
}

int db_bisection_finish(struct db *db, int64_t id, const char *status, const char *outcome, const char *first_bad,
                        const char *summary_json, struct kb_error *err) {
        return db_write(db, "UPDATE bisections SET finished_at = ?1, status = ?2, outcome = ?3, first_bad = ?4, "
                            "summary_json = ?5 WHERE id = ?6",
                        DB_ARGS(DB_REAL(db_now()), DB_TEXT(status), DB_TEXT(outcome), DB_TEXT(first_bad),
                                DB_TEXT(summary_json), DB_INT(id)),
                        "finishing bisection", NULL, err);
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
        static const char what[] = "reading bisections";
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(struct bisect_row));
        int r = db_query(db, "SELECT " BISECT_COLUMNS " FROM bisections ORDER BY id DESC", DB_NO_ARGS, what, &s,
                         err);

        while (r >= 0 && (r = db_row(db, s, what, err)) > 0) {
                struct bisect_row b;

                r = read_bisection(db, s, &b, err);
                g_array_append_val(rows, b);
        }
        if (r < 0) {
                guint n = rows->len;

                bisect_rows_free((struct bisect_row *)(void *)g_array_free(g_steal_pointer(&rows), FALSE), n);
                return r;
        }
        *ret_n = rows->len;
        *ret = (struct bisect_row *)(void *)g_array_free(g_steal_pointer(&rows), FALSE);
        return 0;
}

static int read_steps(struct db *db, struct bisect_row *b, struct kb_error *err) {
        static const char what[] = "reading bisect steps";
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        GArray *steps = g_array_new(FALSE, TRUE, sizeof(struct bisect_step_row));
        int r = db_query(db, "SELECT step, rounds, role, candidate, kernel_id, run_ids, vs_good, vs_bad, decision, "
                             "note, mean_good, mean_cand, mean_bad FROM bisect_steps WHERE bisection_id = ?1 "
                             "ORDER BY step", DB_ARGS(DB_INT(b->id)), what, &s, err);

        while (r >= 0 && (r = db_row(db, s, what, err)) > 0) {
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
                }
        }
        b->n_steps = steps->len;
        b->steps = (struct bisect_step_row *)(void *)g_array_free(steps, FALSE);
        return r < 0 ? r : 0;
}

int db_bisection_get(struct db *db, int64_t id, struct bisect_row **ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct bisect_row *b;
        char what[48];
        int r;

        snprintf(what, sizeof(what), "reading bisection %lld", (long long)id);
        r = db_query_row(db, "SELECT " BISECT_COLUMNS " FROM bisections WHERE id = ?1", DB_ARGS(DB_INT(id)), what,
                         &s, err);
        if (r < 0)
                return r;
        if (r == 0)
                return error_setf(err, -ENOENT, "no bisection %lld (kbench show --bisect lists them)", (long long)id);
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
