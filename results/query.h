/* results/query: the selections the readers of the result store need (show,
 * compare, nightly, publish), so none of them writes SQL. Every function
 * returns plain structs the caller owns and frees with the matching
 * query_*_free; strings in them are owned copies. Failed cells never enter
 * query_run_samples: statistics are built from ok cells only. */
#pragma once

#include <stdint.h>
#include <stddef.h>

#include "common/error.h"
#include "results/db.h"

struct query_run {
        int64_t id;
        char *tag;                 /* NULL if none */
        char *settings_json;
        char *host;
        char *host_info_json;
        char *qemu_version;
        char *libvirt_version;
        char *kbench_version;
        double started_at;         /* unix time */
        double finished_at;        /* unix time, NAN while running */
        char *status;              /* "running", "complete", "interrupted", ... */
        int64_t n_kernels;         /* distinct kernels among the run's cells */
        int64_t n_cells;           /* distinct cell keys stored (attempts count once) */
        int64_t n_ok;              /* distinct cell keys with an ok attempt */
        int64_t n_planned;         /* cells the run's plan holds (an interrupted run
                                      has fewer stored); n_cells when not saved */
};

struct query_cell {
        int64_t id;                /* cells.id */
        int64_t run_id;
        char *cell_key;
        char *kernel_id;           /* sha256 */
        char *kernel_name;
        char *workload;
        char *params_json;         /* may be NULL */
        int iteration;             /* 0-based */
        int attempt;               /* 1-based */
        char *state;
        char *detail;              /* may be NULL */
        char *accel;               /* may be NULL */
        double started_at;         /* unix time; NAN when unknown */
        double boot_s;             /* NAN when the stage was not reached */
        double workload_s;         /* NAN when not reached */
        double total_s;            /* NAN when unknown */
        int exit_code;             /* -1: none */
        int64_t rejected_records;
        int64_t vmstat_samples;    /* stored vmstat rows, since-boot row excluded */
};

struct query_metric {
        char *name;
        double value;              /* valid when has_value */
        int has_value;             /* 0: stored NULL (see note), or not a finite number */
        char *unit;
        char *note;                /* may be NULL */
};

struct query_point {
        char *kind;
        double t;                  /* seconds since QEMU start */
        double value;              /* NAN if stored NULL or not a finite number */
};

struct query_mark {
        char *name;                /* the event's text (guest data: untrusted) */
        double t_guest;            /* guest monotonic, s */
        double t_host;             /* arrival, s since QEMU start; NAN: unknown */
};

struct query_log_info {
        char *stream;
        int64_t bytes;
};

/* Samples of one metric, for statistics: the values of the ok cells of one
 * (kernel, workload) in a run, in cell order. */
struct query_series {
        char *kernel_id;
        char *kernel_name;
        char *workload;
        char *metric;
        char *unit;
        size_t n;                  /* number of values */
        double *values;
        size_t n_missing;          /* ok cells whose metric had no value (NULL) */
};

/* All runs, oldest first. OUT: *ret_runs (free with query_runs_free), *ret_n. */
int query_runs(struct db *db, struct query_run **ret_runs, size_t *ret_n, struct kb_error *err);
/* One run. -ENOENT with "no run N in PATH" if it does not exist.
 * OUT: *ret_run (free with query_runs_free(run, 1)). */
int query_run(struct db *db, int64_t run_id, struct query_run **ret_run, struct kb_error *err);
void query_runs_free(struct query_run *runs, size_t n);   /* accepts NULL */
/* The id of the newest run; -ENOENT ("no runs in PATH") if there is none. */
int query_last_run_id(struct db *db, int64_t *ret_id, struct kb_error *err);

/* Every stored cell row of a run (all attempts), in insertion order.
 * OUT: *ret_cells (free with query_cells_free), *ret_n. */
int query_cells(struct db *db, int64_t run_id, struct query_cell **ret_cells, size_t *ret_n,
                struct kb_error *err);
/* The latest attempt of cell_key in run_id; -ENOENT ("no cell KEY in run N")
 * if none. OUT: *ret_cell (free with query_cells_free(cell, 1)). */
int query_cell(struct db *db, int64_t run_id, const char *cell_key, struct query_cell **ret_cell,
               struct kb_error *err);
void query_cells_free(struct query_cell *cells, size_t n);

/* A cell's metrics ordered by name. OUT: *ret (free with query_metrics_free). */
int query_cell_metrics(struct db *db, int64_t cell_id, struct query_metric **ret, size_t *ret_n,
                       struct kb_error *err);
void query_metrics_free(struct query_metric *m, size_t n);

/* A cell's vmstat rows by sequence number; NULL columns come back as NAN.
 * OUT: *ret (caller frees with free()), *ret_n. */
int query_cell_vmstat(struct db *db, int64_t cell_id, struct db_vmstat_row **ret, size_t *ret_n,
                      struct kb_error *err);

/* A cell's host block samples (libvirt's statistics of the disk under
 * test) in the order they were read; counters not reported come back as
 * -1. A cell without any (stored before schema version 2, a failed read)
 * gives none. OUT: *ret (caller frees with free()), *ret_n. */
int query_cell_hostblk(struct db *db, int64_t cell_id, struct db_hostblk_row **ret, size_t *ret_n,
                       struct kb_error *err);

/* A cell's timeline points by kind, then time. OUT: *ret (query_points_free). */
int query_cell_points(struct db *db, int64_t cell_id, struct query_point **ret, size_t *ret_n,
                      struct kb_error *err);
void query_points_free(struct query_point *p, size_t n);

/* A cell's marks (the events the guest sent) in arrival order. A row whose
 * name is NULL or whose guest time is not a number is left out (a store
 * written by hand). OUT: *ret (query_marks_free), *ret_n. */
int query_cell_marks(struct db *db, int64_t cell_id, struct query_mark **ret, size_t *ret_n, struct kb_error *err);
void query_marks_free(struct query_mark *m, size_t n);

/* The log streams a cell has, with sizes. OUT: *ret (query_log_infos_free). */
int query_cell_logs(struct db *db, int64_t cell_id, struct query_log_info **ret, size_t *ret_n,
                    struct kb_error *err);
void query_log_infos_free(struct query_log_info *l, size_t n);
/* One log, raw bytes (may hold NULs). -ENOENT ("cell has no STREAM log") if
 * absent. OUT: *ret_text (caller frees; NUL-terminated for convenience, the
 * length excludes it), *ret_len. */
int query_cell_log(struct db *db, int64_t cell_id, const char *stream, char **ret_text,
                   size_t *ret_len, struct kb_error *err);

/* Per (kernel, workload, metric), the values of the run's ok cells, ordered
 * by kernel (first appearance in the run), workload, metric name.
 * OUT: *ret (free with query_series_free), *ret_n. */
int query_run_samples(struct db *db, int64_t run_id, struct query_series **ret, size_t *ret_n,
                      struct kb_error *err);
void query_series_free(struct query_series *s, size_t n);

/* ---- selections for `kbench compare` ------------------------------------
 * Compare reads only the runs and kernels its selectors name, never the
 * whole store: each function below is one indexed statement. */

struct query_kernel {
        char *id;                  /* sha256 */
        char *name;
};

/* The kernel named name. -ENOENT ("no kernel NAME in PATH").
 * OUT: *ret (free with query_kernels_free(k, 1)). */
int query_kernel_by_name(struct db *db, const char *name, struct query_kernel **ret, struct kb_error *err);
/* The distinct kernels of a run, by first cell. OUT: *ret (query_kernels_free), *ret_n. */
int query_run_kernels(struct db *db, int64_t run_id, struct query_kernel **ret, size_t *ret_n,
                      struct kb_error *err);
/* The same, each kernel under the name the run shows it by (its variant
 * label, then the store name, as query_cells names cells). */
int query_run_shown_kernels(struct db *db, int64_t run_id, struct query_kernel **ret, size_t *ret_n,
                            struct kb_error *err);
/* The kernels some run shows as `shown` (label, then store name), their
 * names being `shown`: usually one; none when no run shows that name; two
 * when a label and a name collide (label "a-" on kernel "b", and a kernel
 * named "a-b"). OUT: *ret (query_kernels_free), *ret_n. */
int query_kernels_shown_as(struct db *db, const char *shown, struct query_kernel **ret, size_t *ret_n,
                           struct kb_error *err);
void query_kernels_free(struct query_kernel *k, size_t n);

/* Ids of the runs that have a cell of kernel_id, ascending.
 * OUT: *ret_ids (caller frees with free()), *ret_n (0 when none). */
int query_kernel_runs(struct db *db, const char *kernel_id, int64_t **ret_ids, size_t *ret_n,
                      struct kb_error *err);
/* Ids of the runs that show kernel_id as `shown`, ascending. OUT: as
 * query_kernel_runs. */
int query_shown_kernel_runs(struct db *db, const char *kernel_id, const char *shown, int64_t **ret_ids,
                            size_t *ret_n, struct kb_error *err);
/* Ids of the runs tagged tag, ascending. OUT: as query_kernel_runs. */
int query_tag_runs(struct db *db, const char *tag, int64_t **ret_ids, size_t *ret_n, struct kb_error *err);

/* One cell as compare reads it: the latest attempt of its key. */
struct query_sel_cell {
        int64_t id;
        char *cell_key;
        char *workload;
        char *params_json;         /* may be NULL */
        char *state;
        double boot_s, workload_s, total_s;   /* NAN when unknown */
        struct query_metric *metrics;         /* ok cells only, in no set order; notes not read */
        size_t n_metrics;
};

/* The cells of one kernel in one run. */
struct query_selection {
        int64_t run_id;
        char *tag;                 /* NULL if none */
        char *settings_json;       /* NULL only if the row has none (NOT NULL in the schema) */
        char *kernel_id;
        char *kernel_name;         /* NULL if the kernel row is gone */
        struct query_sel_cell *cells;     /* latest attempt per cell key, by cell id */
        size_t n_cells;
};

/* The latest attempt of every cell of kernel_id in run_id (of workload
 * only, unless NULL), and the metrics of those that are ok. -ENOENT ("no
 * run N in PATH") if the run does not exist; a kernel without cells there
 * gives n_cells == 0. OUT: *ret (free with query_selection_free). */
int query_selection(struct db *db, int64_t run_id, const char *kernel_id, const char *workload,
                    struct query_selection **ret, struct kb_error *err);
struct query_selection *query_selection_free(struct query_selection *s);
