/* report/view.c: loading the run and cell views (see view.h). Everything
 * comes from results/query; statistics from report/stats. Failed cells are
 * part of a run view (they are listed) but never of its summary: the
 * series query returns ok cells only. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "report/view.h"

/* Mean and sample stddev until report/stats.c lands (stats_summarize). */
static void summarize(const double *v, size_t n, struct stats_summary *ret) {
        double sum = 0, ss = 0, mean;

        for (size_t i = 0; i < n; i++)
                sum += v[i];
        mean = n ? sum / (double)n : NAN;
        for (size_t i = 0; i < n; i++)
                ss += (v[i] - mean) * (v[i] - mean);
        *ret = (struct stats_summary){ .n = n, .mean = mean, .sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN };
}

int view_runs_load(struct db *db, struct view_runs **ret, struct kb_error *err) {
        struct view_runs *v = calloc(1, sizeof(*v));
        int r;

        if (!v || !(v->db_path = strdup(db_path(db)))) {
                free(v);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        r = query_runs(db, &v->runs, &v->n, err);
        if (r < 0) {
                view_runs_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

struct view_runs *view_runs_free(struct view_runs *v) {
        if (!v)
                return NULL;
        query_runs_free(v->runs, v->n);
        free(v->db_path);
        free(v);
        return NULL;
}

struct view_run *view_run_free(struct view_run *v) {
        if (!v)
                return NULL;
        query_runs_free(v->run, 1);
        for (size_t i = 0; v->metrics && i < v->n_cells; i++)
                query_metrics_free(v->metrics[i], v->n_metrics[i]);
        free(v->metrics);
        free(v->n_metrics);
        query_cells_free(v->cells, v->n_cells);
        query_series_free(v->series, v->n_series);
        free(v->summary);
        free(v);
        return NULL;
}

static int view_run_fill(struct db *db, int64_t run_id, struct view_run *v, struct kb_error *err) {
        int r;

        r = query_run(db, run_id, &v->run, err);
        if (r < 0)
                return r;
        r = query_cells(db, run_id, &v->cells, &v->n_cells, err);
        if (r < 0)
                return r;
        v->metrics = calloc(v->n_cells + 1, sizeof(*v->metrics));
        v->n_metrics = calloc(v->n_cells + 1, sizeof(*v->n_metrics));
        if (!v->metrics || !v->n_metrics)
                return error_setf(err, -ENOMEM, "out of memory");
        for (size_t i = 0; i < v->n_cells; i++) {
                r = query_cell_metrics(db, v->cells[i].id, &v->metrics[i], &v->n_metrics[i], err);
                if (r < 0)
                        return r;
        }
        r = query_run_samples(db, run_id, &v->series, &v->n_series, err);
        if (r < 0)
                return r;
        v->summary = calloc(v->n_series + 1, sizeof(*v->summary));
        if (!v->summary)
                return error_setf(err, -ENOMEM, "out of memory");
        for (size_t i = 0; i < v->n_series; i++) {
                v->summary[i].s = &v->series[i];
                summarize(v->series[i].values, v->series[i].n, &v->summary[i].sum);
        }
        return 0;
}

int view_run_load(struct db *db, int64_t run_id, struct view_run **ret, struct kb_error *err) {
        struct view_run *v = calloc(1, sizeof(*v));
        int r;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        r = view_run_fill(db, run_id, v, err);
        if (r < 0) {
                view_run_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

struct view_cell *view_cell_free(struct view_cell *v) {
        if (!v)
                return NULL;
        query_cells_free(v->cell, v->cell ? 1 : 0);
        query_metrics_free(v->metrics, v->n_metrics);
        free(v->vmstat);
        query_points_free(v->points, v->n_points);
        query_log_infos_free(v->logs, v->n_logs);
        free(v);
        return NULL;
}

int view_cell_load(struct db *db, int64_t run_id, const char *cell_key, struct view_cell **ret,
                   struct kb_error *err) {
        struct view_cell *v = calloc(1, sizeof(*v));
        int r;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        r = query_cell(db, run_id, cell_key, &v->cell, err);
        if (r >= 0)
                r = query_cell_metrics(db, v->cell->id, &v->metrics, &v->n_metrics, err);
        if (r >= 0)
                r = query_cell_vmstat(db, v->cell->id, &v->vmstat, &v->n_vmstat, err);
        if (r >= 0)
                r = query_cell_points(db, v->cell->id, &v->points, &v->n_points, err);
        if (r >= 0)
                r = query_cell_logs(db, v->cell->id, &v->logs, &v->n_logs, err);
        if (r < 0) {
                view_cell_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

int view_resolve_run(struct db *db, const char *text, int64_t *ret_id, struct kb_error *err) {
        struct query_run *run = NULL;
        int64_t id;
        int r;

        if (strcmp(text, "last") == 0)
                return query_last_run_id(db, ret_id, err);
        if (parse_i64(text, &id) < 0 || id <= 0)
                return error_setf(err, -EINVAL, "bad run '%.64s' (a run id or 'last')", text);
        r = query_run(db, id, &run, err);
        if (r < 0)
                return r;
        query_runs_free(run, 1);
        *ret_id = id;
        return 0;
}

int view_cell_log(struct db *db, int64_t run_id, const char *cell_key, const char *stream,
                  char **ret_text, size_t *ret_len, struct kb_error *err) {
        struct query_cell *c = NULL;
        int r;

        r = query_cell(db, run_id, cell_key, &c, err);
        if (r < 0)
                return r;
        r = query_cell_log(db, c->id, stream, ret_text, ret_len, err);
        if (r < 0)
                error_prefix(err, r, "run %lld cell %s", (long long)run_id, cell_key);
        query_cells_free(c, 1);
        return r;
}
