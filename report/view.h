/* report/view: the view models of the read side. A view is plain data
 * loaded through results/query and summarised with report/stats: the list
 * of runs, one run (cells, their metrics, per kernel and metric a summary
 * over ok cells), one cell in full, and the comparison of two selections
 * (its data and verdicts: report/compare.h). Renderers (report/text.c, report/json.c, later the
 * site's HTML) only lay views out, so every printing verb shows the same
 * numbers. A view owns everything it points to; free it with its *_free. */
#pragma once

#include <stdint.h>
#include <stddef.h>

#include "common/error.h"
#include "report/compare.h"
#include "report/stats.h"
#include "results/db.h"
#include "results/query.h"

struct view_runs {
        char *db_path;                     /* where they were read from (owned) */
        struct query_run *runs;            /* oldest first */
        size_t n;
};

/* One run's per (kernel, workload, metric) summary over its ok cells. */
struct view_series {
        const struct query_series *s;      /* borrowed from the run view */
        struct stats_summary sum;          /* over s->values */
};

struct view_run {
        struct query_run *run;
        struct query_cell *cells;          /* every stored attempt, insertion order */
        size_t n_cells;
        struct query_metric **metrics;     /* per cell */
        size_t *n_metrics;
        int *contended;                    /* per cell, see view_contended */
        struct query_series *series;
        size_t n_series;
        struct view_series *summary;       /* n_series entries, same order */
        struct _GHashTable *series_of;     /* "kernel\x1fworkload\x1fmetric" -> 1 + its place in
                                              summary, for view_run_series (owned) */
};

/* How a cell's guest started, from its boot_warm metric: "warm", "cold",
 * or NULL for cells stored before kbench recorded it. */
const char *view_cell_start(const struct query_metric *m, size_t n);

struct view_cell {
        struct query_cell *cell;           /* the latest attempt */
        struct query_metric *metrics;
        size_t n_metrics;
        int contended;                     /* see view_contended */
        struct db_vmstat_row *vmstat;
        size_t n_vmstat;
        struct query_point *points;
        size_t n_points;
        struct db_hostblk_row *hostblk;    /* the host's block statistics of the disk, read order */
        size_t n_hostblk;
        struct query_mark *marks;          /* the events the guest sent, arrival order */
        size_t n_marks;
        double vmstat_interval_s;          /* the run's vmstat interval (the option's default if it did
                                              not say) */
        struct query_log_info *logs;
        size_t n_logs;
};

/* Whether the host was busy beside a cell: 1 when its host.foreign_cpu_pct
 * is over the run's --max-contention (settings max_contention_pct), or
 * METRICS_CONTENDED_PCT when that is 0 or absent; 0 when not; -1 when the
 * figure is unknown (a remote host, or a cell older than the metric). */
int view_contended(const struct query_run *run, const struct query_metric *m, size_t n);

/* Whether a cell run with these settings (its run's settings_json, its own
 * params_json; either may be NULL) had its rates and times set by the
 * emulator's speed: TCG and an unthrottled disk (docs/design.md, "What a
 * verdict judges"). */
int view_cpu_paced(const char *settings_json, const char *params_json);

/* Whether compare would judge metric name between two sides whose cells
 * are all cpu_paced (view_cpu_paced) or all not: the registry's verdict
 * flag, less rates and times paced by the emulator. For a driver that
 * asks how precisely a run measured what compare will judge. */
int view_metric_judged(const char *name, int cpu_paced);

/* All runs. OUT: *ret (free with view_runs_free). */
int view_runs_load(struct db *db, struct view_runs **ret, struct kb_error *err);
struct view_runs *view_runs_free(struct view_runs *v);

/* The summary of (kernel name, workload, metric) in v, or NULL: one
 * lookup, for a renderer that asks it of every metric of every kernel
 * (the site's run and kernel pages). */
const struct view_series *view_run_series(const struct view_run *v, const char *kernel, const char *workload,
                                          const char *metric);

/* One run. Errors: -ENOENT "no run N in PATH", or a database error.
 * OUT: *ret (free with view_run_free). */
int view_run_load(struct db *db, int64_t run_id, struct view_run **ret, struct kb_error *err);
struct view_run *view_run_free(struct view_run *v);

/* The latest attempt of cell_key in run_id, in full. Errors: -ENOENT "no cell
 * KEY in run N". OUT: *ret (free with view_cell_free). */
int view_cell_load(struct db *db, int64_t run_id, const char *cell_key, struct view_cell **ret,
                   struct kb_error *err);
struct view_cell *view_cell_free(struct view_cell *v);

/* One log of the latest attempt of cell_key, raw (bytes as stored, NULs
 * included). Errors: "no cell KEY in run N", "run N cell KEY: cell has no
 * STREAM log". OUT: *ret_text (caller frees; NUL-terminated, the length
 * excludes it), *ret_len. */
int view_cell_log(struct db *db, int64_t run_id, const char *cell_key, const char *stream,
                  char **ret_text, size_t *ret_len, struct kb_error *err);

/* Resolve "RUN" (a positive decimal id) or "last"; the run must exist.
 * OUT: *ret_id. Errors: "bad run 'x' (a run id or 'last')", "no run N in PATH". */
int view_resolve_run(struct db *db, const char *text, int64_t *ret_id, struct kb_error *err);

/* The comparison of selectors o->a and o->b (report/compare.h): resolve
 * each (a kernel's latest run, or every run with o->all_runs; run:ID;
 * run:ID:KERNEL; tag:NAME[:KERNEL]), read only those runs' cells and
 * metrics, pair groups like with like, compute and judge. Errors name the
 * side: "A 'tag:x': no run tagged 'x' in PATH", "B 'run:3': run:3 has
 * several kernels (...)", -EINVAL for a bad selector. A comparison in which
 * nothing pairs is not an error here: v->n_groups is 0.
 * OUT: *ret (free with compare_view_free). */
int view_compare_load(struct db *db, const struct compare_options *o, struct compare_view **ret,
                      struct kb_error *err);
