/* harness/show.c: the views of `kbench show` (see show.h). Everything comes
 * from results/query.c; this file only lays it out. Strings that came from a
 * guest (cell details) are printed with control characters masked so a
 * hostile console line cannot drive the terminal. Failed cells are listed
 * but never enter the summary statistics. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/parse.h"
#include "common/util.h"
#include "harness/show.h"
#include "results/query.h"
#include "workloads/workload.h"

/* ---- small formatting helpers ------------------------------------------ */

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* Print s (NULL as "-") padded to width, with control characters masked. */
static void put_text(FILE *out, const char *s, int width) {
        int n = 0;

        if (!s)
                s = "-";
        for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++)
                fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
        for (; n < width; n++)
                fputc(' ', out);
}

static int text_width(const char *s) {
        return s ? (int)strlen(s) : 1;
}

/* Print v with prec digits ('f': after the point, 'g': significant), or
 * "-" when it is not finite; width as printf's (negative: left-aligned). */
static void put_num(FILE *out, double v, char style, int prec, int width) {
        char buf[64];

        if (!isfinite(v))
                snprintf(buf, sizeof(buf), "-");
        else if (style == 'g')
                snprintf(buf, sizeof(buf), "%.*g", prec, v);
        else
                snprintf(buf, sizeof(buf), "%.*f", prec, v);
        fprintf(out, "%*s", width, buf);
}

static void fmt_time(double t, char *buf, size_t size) {
        struct tm tm;
        time_t s;

        if (!isfinite(t) || t <= 0) {
                snprintf(buf, size, "-");
                return;
        }
        s = (time_t)t;
        localtime_r(&s, &tm);
        strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

static json_t *json_num(double v) {
        return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_str(const char *s) {
        return s ? json_string(s) : json_null();
}

static int json_print(json_t *j, FILE *out, struct kb_error *err) {
        if (!j)
                return error_setf(err, -ENOMEM, "out of memory building JSON");
        if (json_dumpf(j, out, JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10)) < 0)
                return error_setf(err, -EIO, "cannot write JSON");
        fputc('\n', out);
        return 0;
}

/* Call the workload's print hook with a cell's metrics. The list only
 * borrows the query's strings: it is never freed as a metric_list. */
static void print_hook(const char *workload, const struct query_metric *m, size_t n, FILE *out) {
        const struct workload_ops *ops = workload_find(workload);
        struct metric *v;

        if (!ops || !ops->print || n == 0)
                return;
        v = calloc(n, sizeof(*v));
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                v[i] = (struct metric){ .name = m[i].name, .value = m[i].has_value ? m[i].value : 0,
                                        .has_value = m[i].has_value, .unit = m[i].unit,
                                        .note = m[i].note };
        ops->print(&(struct metric_list){ .v = v, .n = n, .cap = n }, out);
        free(v);
}

static void mean_stddev(const double *v, size_t n, double *ret_mean, double *ret_sd) {
        double sum = 0, ss = 0, mean;

        for (size_t i = 0; i < n; i++)
                sum += v[i];
        mean = n ? sum / (double)n : NAN;
        for (size_t i = 0; i < n; i++)
                ss += (v[i] - mean) * (v[i] - mean);
        *ret_mean = mean;
        *ret_sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

static json_t *metrics_json(const struct query_metric *m, size_t n) {
        json_t *o = json_object();

        for (size_t i = 0; o && i < n; i++) {
                json_t *e = json_pack("{s:o, s:s}", "value", m[i].has_value ? json_num(m[i].value) : json_null(),
                                      "unit", m[i].unit ? m[i].unit : "");
                if (e && m[i].note)
                        json_object_set_new(e, "note", json_string(m[i].note));
                json_object_set_new(o, m[i].name, e ? e : json_null());
        }
        return o;
}

static json_t *run_json(const struct query_run *r) {
        json_t *j = json_object(), *settings = NULL;

        if (!j)
                return NULL;
        if (r->settings_json)
                settings = json_loads(r->settings_json, JSON_DECODE_ANY, NULL);
        json_object_set_new(j, "id", json_integer(r->id));
        json_object_set_new(j, "tag", json_str(r->tag));
        json_object_set_new(j, "status", json_str(r->status));
        json_object_set_new(j, "started_at", json_num(r->started_at));
        json_object_set_new(j, "finished_at", json_num(r->finished_at));
        json_object_set_new(j, "host", json_str(r->host));
        json_object_set_new(j, "qemu_version", json_str(r->qemu_version));
        json_object_set_new(j, "libvirt_version", json_str(r->libvirt_version));
        json_object_set_new(j, "kbench_version", json_str(r->kbench_version));
        json_object_set_new(j, "kernels", json_integer(r->n_kernels));
        json_object_set_new(j, "cells", json_integer(r->n_cells));
        json_object_set_new(j, "cells_ok", json_integer(r->n_ok));
        json_object_set_new(j, "settings", settings ? settings : json_str(r->settings_json));
        return j;
}

static json_t *cell_json(const struct query_cell *c) {
        json_t *j = json_object();

        if (!j)
                return NULL;
        json_object_set_new(j, "key", json_str(c->cell_key));
        json_object_set_new(j, "kernel", json_str(c->kernel_name));
        json_object_set_new(j, "kernel_id", json_str(c->kernel_id));
        json_object_set_new(j, "workload", json_str(c->workload));
        json_object_set_new(j, "iteration", json_integer(c->iteration));
        json_object_set_new(j, "attempt", json_integer(c->attempt));
        json_object_set_new(j, "state", json_str(c->state));
        json_object_set_new(j, "detail", json_str(c->detail));
        json_object_set_new(j, "accel", json_str(c->accel));
        json_object_set_new(j, "started_at", json_num(c->started_at));
        json_object_set_new(j, "boot_s", json_num(c->boot_s));
        json_object_set_new(j, "workload_s", json_num(c->workload_s));
        json_object_set_new(j, "total_s", json_num(c->total_s));
        json_object_set_new(j, "exit_code", json_integer(c->exit_code));
        json_object_set_new(j, "rejected_records", json_integer(c->rejected_records));
        json_object_set_new(j, "vmstat_samples", json_integer(c->vmstat_samples));
        return j;
}

/* ---- runs --------------------------------------------------------------- */

int show_runs(struct db *db, int json, FILE *out, struct kb_error *err) {
        struct query_run *runs = NULL;
        size_t n = 0;
        int r, wtag = 3, wstatus = 6;

        r = query_runs(db, &runs, &n, err);
        if (r < 0)
                return r;
        if (json) {
                json_auto_t *a = json_array();
                for (size_t i = 0; a && i < n; i++)
                        json_array_append_new(a, run_json(&runs[i]));
                r = json_print(a, out, err);
                query_runs_free(runs, n);
                return r;
        }
        if (n == 0) {
                fprintf(out, "no runs in %s\n", db_path(db));
                query_runs_free(runs, n);
                return 0;
        }
        for (size_t i = 0; i < n; i++) {
                wtag = MAX(wtag, text_width(runs[i].tag));
                wstatus = MAX(wstatus, text_width(runs[i].status));
        }
        fprintf(out, "%5s  %-*s  %-19s  %-*s  %7s  %s\n", "ID", wtag, "TAG", "STARTED", wstatus, "STATUS",
                "KERNELS", "CELLS OK/TOTAL");
        for (size_t i = 0; i < n; i++) {
                char started[32];

                fmt_time(runs[i].started_at, started, sizeof(started));
                fprintf(out, "%5lld  ", (long long)runs[i].id);
                put_text(out, runs[i].tag, wtag);
                fprintf(out, "  %-19s  ", started);
                put_text(out, runs[i].status, wstatus);
                fprintf(out, "  %7lld  %lld/%lld\n", (long long)runs[i].n_kernels, (long long)runs[i].n_ok,
                        (long long)runs[i].n_cells);
        }
        query_runs_free(runs, n);
        return 0;
}

int show_resolve_run(struct db *db, const char *text, int64_t *ret_id, struct kb_error *err) {
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

/* ---- one run ------------------------------------------------------------ */

struct run_view {
        struct query_run *run;
        struct query_cell *cells;
        size_t n_cells;
        struct query_metric **metrics;     /* per cell */
        size_t *n_metrics;
        struct query_series *series;
        size_t n_series;
};

static void run_view_free(struct run_view *v) {
        query_runs_free(v->run, 1);
        for (size_t i = 0; v->metrics && i < v->n_cells; i++)
                query_metrics_free(v->metrics[i], v->n_metrics[i]);
        free(v->metrics);
        free(v->n_metrics);
        query_cells_free(v->cells, v->n_cells);
        query_series_free(v->series, v->n_series);
}

static int run_view_load(struct db *db, int64_t run_id, struct run_view *v, struct kb_error *err) {
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
        return query_run_samples(db, run_id, &v->series, &v->n_series, err);
}

static int show_run_json(const struct run_view *v, FILE *out, struct kb_error *err) {
        json_auto_t *j = json_object();
        json_t *cells = json_array(), *summary = json_array();

        if (!j || !cells || !summary) {
                json_decref(cells);
                json_decref(summary);
                return error_setf(err, -ENOMEM, "out of memory building JSON");
        }
        json_object_set_new(j, "run", run_json(v->run));
        json_object_set_new(j, "cells", cells);
        json_object_set_new(j, "summary", summary);
        for (size_t i = 0; i < v->n_cells; i++) {
                json_t *c = cell_json(&v->cells[i]);
                if (c)
                        json_object_set_new(c, "metrics", metrics_json(v->metrics[i], v->n_metrics[i]));
                json_array_append_new(cells, c);
        }
        for (size_t i = 0; i < v->n_series; i++) {
                const struct query_series *s = &v->series[i];
                json_t *e = json_object(), *vals = json_array();
                double mean, sd;

                mean_stddev(s->values, s->n, &mean, &sd);
                for (size_t k = 0; vals && k < s->n; k++)
                        json_array_append_new(vals, json_real(s->values[k]));
                if (!e) {
                        json_decref(vals);
                        continue;
                }
                json_object_set_new(e, "kernel", json_str(s->kernel_name));
                json_object_set_new(e, "kernel_id", json_str(s->kernel_id));
                json_object_set_new(e, "workload", json_str(s->workload));
                json_object_set_new(e, "metric", json_str(s->metric));
                json_object_set_new(e, "unit", json_str(s->unit));
                json_object_set_new(e, "n", json_integer((json_int_t)s->n));
                json_object_set_new(e, "n_missing", json_integer((json_int_t)s->n_missing));
                json_object_set_new(e, "mean", json_num(mean));
                json_object_set_new(e, "stddev", json_num(sd));
                json_object_set_new(e, "values", vals);
                json_array_append_new(summary, e);
        }
        return json_print(j, out, err);
}

static void show_run_header(const struct query_run *r, FILE *out) {
        char started[32], finished[32];

        fmt_time(r->started_at, started, sizeof(started));
        fmt_time(r->finished_at, finished, sizeof(finished));
        fprintf(out, "run %lld", (long long)r->id);
        if (r->tag) {
                fputs("  tag ", out);
                put_text(out, r->tag, 0);
        }
        fputs("  ", out);
        put_text(out, r->status, 0);
        fprintf(out, "  started %s  finished %s  cells ok %lld/%lld\n", started, finished,
                (long long)r->n_ok, (long long)r->n_cells);
        fputs("host ", out);
        put_text(out, r->host, 0);
        fputs("  qemu ", out);
        put_text(out, r->qemu_version, 0);
        fputs("  libvirt ", out);
        put_text(out, r->libvirt_version, 0);
        fputs("  kbench ", out);
        put_text(out, r->kbench_version, 0);
        fputc('\n', out);
}

static void show_summary_text(const struct query_series *series, size_t n, FILE *out) {
        int wk = 6, ww = 8, wm = 6;

        if (n == 0) {
                fputs("\nno ok cells: nothing to summarise\n", out);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                wk = MAX(wk, text_width(series[i].kernel_name));
                ww = MAX(ww, text_width(series[i].workload));
                wm = MAX(wm, text_width(series[i].metric));
        }
        fputs("\nSummary over ok cells (mean ± stddev):\n", out);
        fprintf(out, "%-*s  %-*s  %-*s  %3s  %12s   %-10s  %s\n", wk, "KERNEL", ww, "WORKLOAD", wm, "METRIC",
                "N", "MEAN", "STDDEV", "UNIT");
        for (size_t i = 0; i < n; i++) {
                const struct query_series *s = &series[i];
                double mean, sd;

                mean_stddev(s->values, s->n, &mean, &sd);
                put_text(out, s->kernel_name, wk);
                fputs("  ", out);
                put_text(out, s->workload, ww);
                fputs("  ", out);
                put_text(out, s->metric, wm);
                fprintf(out, "  %3zu  ", s->n);
                put_num(out, mean, 'g', 6, 12);
                fputs(" ± ", out);
                put_num(out, sd, 'g', 3, -10);
                fputs("  ", out);
                put_text(out, s->unit, 0);
                if (s->n_missing)
                        fprintf(out, "  (%zu without value)", s->n_missing);
                fputc('\n', out);
        }
}

static void show_run_text(const struct run_view *v, FILE *out) {
        int wkey = 3, wk = 6, ww = 8, wst = 5;
        int any_hook = 0;

        show_run_header(v->run, out);
        if (v->n_cells == 0) {
                fputs("\nno cells stored yet\n", out);
                return;
        }
        for (size_t i = 0; i < v->n_cells; i++) {
                wkey = MAX(wkey, text_width(v->cells[i].cell_key));
                wk = MAX(wk, text_width(v->cells[i].kernel_name));
                ww = MAX(ww, text_width(v->cells[i].workload));
                wst = MAX(wst, text_width(v->cells[i].state));
        }
        fprintf(out, "\n%-*s  %-*s  %-*s  %3s  %3s  %-*s  %-5s  %7s  %8s  %8s  %s\n", wkey, "KEY", wk, "KERNEL",
                ww, "WORKLOAD", "IT", "TRY", wst, "STATE", "ACCEL", "BOOT_S", "WORK_S", "TOTAL_S", "METRICS");
        for (size_t i = 0; i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];
                const struct workload_ops *ops;

                put_text(out, c->cell_key, wkey);
                fputs("  ", out);
                put_text(out, c->kernel_name, wk);
                fputs("  ", out);
                put_text(out, c->workload, ww);
                fprintf(out, "  %3d  %3d  ", c->iteration, c->attempt);
                put_text(out, c->state, wst);
                fputs("  ", out);
                put_text(out, c->accel, 5);
                fputs("  ", out);
                put_num(out, c->boot_s, 'f', 2, 7);
                fputs("  ", out);
                put_num(out, c->workload_s, 'f', 2, 8);
                fputs("  ", out);
                put_num(out, c->total_s, 'f', 2, 8);
                fputs(" ", out);
                if (strcmp(c->state, "ok") != 0) {
                        fputs(" ", out);
                        put_text(out, c->detail ? c->detail : c->state, 0);
                }
                /* The workload's own figures only (vmstat.* are in the
                 * summary), or a pointer to its table below. */
                ops = workload_find(c->workload);
                if (strcmp(c->state, "ok") == 0 && ops && ops->print) {
                        fputs(" (table below)\n", out);
                        any_hook = 1;
                        continue;
                }
                for (size_t k = 0; k < v->n_metrics[i]; k++) {
                        const struct query_metric *m = &v->metrics[i][k];
                        size_t wl = strlen(c->workload);

                        if (strncmp(m->name, c->workload, wl) != 0 || m->name[wl] != '.')
                                continue;
                        fputc(' ', out);
                        put_text(out, m->name, 0);
                        fputc('=', out);
                        if (m->has_value)
                                fprintf(out, "%.6g", m->value);
                        else
                                fputs("-", out);
                }
                fputc('\n', out);
        }
        if (any_hook)
                for (size_t i = 0; i < v->n_cells; i++) {
                        const struct query_cell *c = &v->cells[i];

                        const struct workload_ops *ops = workload_find(c->workload);

                        if (strcmp(c->state, "ok") != 0 || !ops || !ops->print)
                                continue;
                        fprintf(out, "\n-- %s ", c->cell_key);
                        put_text(out, c->kernel_name, 0);
                        fprintf(out, " %s iteration %d --\n", c->workload, c->iteration);
                        print_hook(c->workload, v->metrics[i], v->n_metrics[i], out);
                }
        show_summary_text(v->series, v->n_series, out);
}

int show_run(struct db *db, int64_t run_id, int json, FILE *out, struct kb_error *err) {
        struct run_view v = { 0 };
        int r;

        r = run_view_load(db, run_id, &v, err);
        if (r >= 0) {
                if (json)
                        r = show_run_json(&v, out, err);
                else
                        show_run_text(&v, out);
        }
        run_view_free(&v);
        return r;
}

/* ---- one cell ----------------------------------------------------------- */

struct cell_view {
        struct query_cell *cell;
        struct query_metric *metrics;
        size_t n_metrics;
        struct db_vmstat_row *vmstat;
        size_t n_vmstat;
        struct query_point *points;
        size_t n_points;
        struct query_log_info *logs;
        size_t n_logs;
};

static void cell_view_free(struct cell_view *v) {
        query_cells_free(v->cell, v->cell ? 1 : 0);
        query_metrics_free(v->metrics, v->n_metrics);
        free(v->vmstat);
        query_points_free(v->points, v->n_points);
        query_log_infos_free(v->logs, v->n_logs);
}

static int cell_view_load(struct db *db, int64_t run_id, const char *key, struct cell_view *v,
                          struct kb_error *err) {
        int r;

        r = query_cell(db, run_id, key, &v->cell, err);
        if (r < 0)
                return r;
        r = query_cell_metrics(db, v->cell->id, &v->metrics, &v->n_metrics, err);
        if (r >= 0)
                r = query_cell_vmstat(db, v->cell->id, &v->vmstat, &v->n_vmstat, err);
        if (r >= 0)
                r = query_cell_points(db, v->cell->id, &v->points, &v->n_points, err);
        if (r >= 0)
                r = query_cell_logs(db, v->cell->id, &v->logs, &v->n_logs, err);
        return r;
}

static int show_cell_json(const struct cell_view *v, FILE *out, struct kb_error *err) {
        json_auto_t *j = cell_json(v->cell);
        json_t *vm = json_array(), *pts = json_array(), *logs = json_object(), *params = NULL;

        if (!j || !vm || !pts || !logs) {
                json_decref(vm);
                json_decref(pts);
                json_decref(logs);
                return error_setf(err, -ENOMEM, "out of memory building JSON");
        }
        if (v->cell->params_json)
                params = json_loads(v->cell->params_json, JSON_DECODE_ANY, NULL);
        json_object_set_new(j, "run", json_integer(v->cell->run_id));
        json_object_set_new(j, "params", params ? params : json_str(v->cell->params_json));
        json_object_set_new(j, "metrics", metrics_json(v->metrics, v->n_metrics));
        for (size_t i = 0; i < v->n_vmstat; i++) {
                const struct db_vmstat_row *row = &v->vmstat[i];
                json_t *e = json_object();

                if (!e)
                        continue;
                json_object_set_new(e, "seq", json_integer(row->seq));
                json_object_set_new(e, "t_host", json_num(row->t_host));
                json_object_set_new(e, "t_guest", json_num(row->t_guest));
                json_object_set_new(e, "first", json_boolean(row->first));
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        json_object_set_new(e, db_vmstat_column_names[k], json_num(row->v[k]));
                json_array_append_new(vm, e);
        }
        json_object_set_new(j, "vmstat", vm);
        for (size_t i = 0; i < v->n_points; i++)
                json_array_append_new(pts, json_pack("{s:s, s:o, s:o}", "kind", v->points[i].kind,
                                                     "t", json_num(v->points[i].t),
                                                     "value", json_num(v->points[i].value)));
        json_object_set_new(j, "timeline", pts);
        for (size_t i = 0; i < v->n_logs; i++)
                json_object_set_new(logs, v->logs[i].stream, json_integer(v->logs[i].bytes));
        json_object_set_new(j, "log_bytes", logs);
        return json_print(j, out, err);
}

static void show_cell_text(const struct cell_view *v, FILE *out) {
        const struct query_cell *c = v->cell;
        char started[32];
        int wm = 6, wu = 4;

        fmt_time(c->started_at, started, sizeof(started));
        fprintf(out, "cell %s  run %lld  attempt %d\n", c->cell_key, (long long)c->run_id, c->attempt);
        fputs("kernel      ", out);
        put_text(out, c->kernel_name, 0);
        fprintf(out, " (%s)\nworkload    %s  iteration %d\nparams      ", c->kernel_id, c->workload,
                c->iteration);
        put_text(out, c->params_json, 0);
        fputs("\nstate       ", out);
        put_text(out, c->state, 0);
        fputs("\ndetail      ", out);
        put_text(out, c->detail, 0);
        fputs("\naccel       ", out);
        put_text(out, c->accel, 0);
        fprintf(out, "\nstarted     %s\ntimes       boot ", started);
        put_num(out, c->boot_s, 'f', 3, 0);
        fputs(" s  workload ", out);
        put_num(out, c->workload_s, 'f', 3, 0);
        fputs(" s  total ", out);
        put_num(out, c->total_s, 'f', 3, 0);
        fprintf(out, " s\nexit code   %d  rejected records %lld\n", c->exit_code,
                (long long)c->rejected_records);

        if (v->n_metrics) {
                for (size_t i = 0; i < v->n_metrics; i++) {
                        wm = MAX(wm, text_width(v->metrics[i].name));
                        wu = MAX(wu, text_width(v->metrics[i].unit));
                }
                fprintf(out, "\n%-*s  %12s  %-*s  %s\n", wm, "METRIC", "VALUE", wu, "UNIT", "NOTE");
                for (size_t i = 0; i < v->n_metrics; i++) {
                        const struct query_metric *m = &v->metrics[i];

                        put_text(out, m->name, wm);
                        fputs("  ", out);
                        put_num(out, m->has_value ? m->value : NAN, 'g', 6, 12);
                        fputs("  ", out);
                        put_text(out, m->unit, wu);
                        fputs("  ", out);
                        put_text(out, m->note ? m->note : "", 0);
                        fputc('\n', out);
                }
                if (strcmp(c->state, "ok") == 0) {
                        fputc('\n', out);
                        print_hook(c->workload, v->metrics, v->n_metrics, out);
                }
        }

        fprintf(out, "\nvmstat: %zu rows\n", v->n_vmstat);
        if (v->n_vmstat) {
                fprintf(out, "%6s %8s %8s", "SEQ", "T_HOST", "T_GUEST");
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        fprintf(out, " %7s", db_vmstat_column_names[k]);
                fputc('\n', out);
                for (size_t i = 0; i < v->n_vmstat; i++) {
                        const struct db_vmstat_row *row = &v->vmstat[i];

                        fprintf(out, "%6lld ", (long long)row->seq);
                        put_num(out, row->t_host, 'f', 2, 8);
                        fputc(' ', out);
                        put_num(out, row->t_guest, 'f', 2, 8);
                        for (int k = 0; k < DB_VM_NCOLS; k++) {
                                fputc(' ', out);
                                put_num(out, row->v[k], 'f', 0, 7);
                        }
                        fputs(row->first ? "  (since boot)\n" : "\n", out);
                }
        }

        fprintf(out, "\ntimeline: %zu points\n", v->n_points);
        for (size_t i = 0; i < v->n_points;) {
                size_t j = i;
                double lo = v->points[i].value, hi = lo;

                while (j < v->n_points && strcmp(v->points[j].kind, v->points[i].kind) == 0) {
                        lo = fmin(lo, v->points[j].value);
                        hi = fmax(hi, v->points[j].value);
                        j++;
                }
                fputs("  ", out);
                put_text(out, v->points[i].kind, 0);
                fprintf(out, ": %zu points, t %.2f..%.2f s, value %.6g..%.6g\n", j - i, v->points[i].t,
                        v->points[j - 1].t, lo, hi);
                i = j;
        }

        fputs("\nlogs:", out);
        if (v->n_logs == 0)
                fputs(" none", out);
        for (size_t i = 0; i < v->n_logs; i++) {
                fputc(' ', out);
                put_text(out, v->logs[i].stream, 0);
                fprintf(out, " (%lld bytes)", (long long)v->logs[i].bytes);
        }
        fprintf(out, "\n");
        if (v->n_logs)
                fprintf(out, "  (kbench show %lld --cell %s --log STREAM prints one)\n",
                        (long long)c->run_id, c->cell_key);
}

int show_cell(struct db *db, int64_t run_id, const char *cell_key, int json, FILE *out,
              struct kb_error *err) {
        struct cell_view v = { 0 };
        int r;

        r = cell_view_load(db, run_id, cell_key, &v, err);
        if (r >= 0) {
                if (json)
                        r = show_cell_json(&v, out, err);
                else
                        show_cell_text(&v, out);
        }
        cell_view_free(&v);
        return r;
}

int show_cell_log(struct db *db, int64_t run_id, const char *cell_key, const char *stream,
                  FILE *out, struct kb_error *err) {
        struct query_cell *c = NULL;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r;

        r = query_cell(db, run_id, cell_key, &c, err);
        if (r < 0)
                return r;
        r = query_cell_log(db, c->id, stream, &text, &len, err);
        if (r < 0) {
                error_prefix(err, r, "run %lld cell %s", (long long)run_id, cell_key);
                query_cells_free(c, 1);
                return r;
        }
        query_cells_free(c, 1);
        if (len && fwrite(text, 1, len, out) != len)
                return error_setf(err, -EIO, "cannot write the log");
        return 0;
}
