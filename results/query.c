/* results/query.c: read-side selections over the result store (see query.h).
 * Each function runs one prepared statement and copies the rows into plain
 * owned structs, so callers never hold sqlite statements or see SQL.
 *
 * A record kind is written once, as a table: which field of its struct each
 * result column fills, and how (struct q_kind). One reader prepares a
 * statement, binds its parameters, steps it and maps every row through that
 * table into a growing array (q_rows); the same table frees the rows. So a
 * selection is its SQL, its parameters and its kind; the few that group
 * rows (samples per series, metrics per cell) step through q_each with a
 * callback of their own. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/nearest.h"
#include "common/util.h"
#include "results/cellstate.h"
#include "results/column.h"
#include "results/query.h"

/* Make room for one more element of size elem in *v (count n, capacity *cap). */
static int grow(void **v, size_t *cap, size_t n, size_t elem) {
        size_t ncap;
        void *nv;

        if (n < *cap)
                return 0;
        ncap = *cap ? *cap * 2 : 16;
        nv = realloc(*v, ncap * elem);
        if (!nv)
                return -ENOMEM;
        memset((char *)nv + *cap * elem, 0, (ncap - *cap) * elem);
        *v = nv;
        *cap = ncap;
        return 0;
}

/* ---- statements -------------------------------------------------------- */

/* Called on each row of a statement; returns < 0 with err set to stop. */
typedef int (*q_row_fn)(sqlite3_stmt *s, void *ctx, struct kb_error *err);

/* Prepare sql with params and call row(s, ctx, err) on each of its rows.
 * Errors: what row said (a value that is not there, out of memory), or
 * the database error "reading <what>". */
static int q_each(struct db *db, const char *sql, const struct db_param *params, size_t n_params,
                  q_row_fn row, void *ctx, const char *what, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char reading[64];
        int r;

        snprintf(reading, sizeof(reading), "reading %s", what);
        r = db_query(db, sql, params, n_params, reading, &s, err);
        while (r >= 0 && (r = db_row(db, s, reading, err)) > 0)
                r = row(s, ctx, err);
        return r < 0 ? r : 0;
}

/* ---- record kinds ------------------------------------------------------ */

/* How one result column becomes one field of a row struct. */
enum q_col_type {
        Q_COL_TEXT,                /* char *, an owned copy; NULL stays NULL */
        Q_COL_REAL,                /* double, finite or NAN (column_real) */
        Q_COL_INT64,               /* int64_t */
        Q_COL_INT,                 /* int */
        Q_COL_INT_OR_NONE,         /* int, -1 for NULL */
        Q_COL_COUNTER,             /* int64_t, -1 for NULL or not a count (column_counter) */
};

struct q_col {
        enum q_col_type type;
        size_t off;                /* offset of the field in the row struct, bytes */
        const char *needed;        /* "table.column" when the readers need a value (the
                                      schema's NOT NULL), for the error; NULL: optional */
};

#define Q_COL(type, st, field) { Q_COL_##type, offsetof(st, field), NULL }
/* A column whose value the readers count on: NULL or not a number there is
 * an error naming src ("cells.workload"), never a NULL or NaN passed on. */
#define Q_NEED(type, st, field, src) { Q_COL_##type, offsetof(st, field), src }

/* A record kind: column i of its SELECT fills cols[i] of a size-byte row. */
struct q_kind {
        const char *what;          /* what the rows are, for "reading <what>" */
        size_t size;               /* bytes per row */
        const struct q_col *cols;
        size_t n_cols;
        void (*finish)(void *row); /* fields derived from the columns, or NULL */
        const char *row;           /* a row, in an error: "cell" (then its key column's
                                      value follows), "a metric of cell" (the scope's id) */
        int key;                   /* column that names the row (its id), or -1: the scope */
};

#define Q_KIND(name, st, columns, fin, row, key) \
        { name, sizeof(st), columns, ELEMENTSOF(columns), fin, row, key }

/* Say which row of kind k a bad value is in: its key column's value, or
 * the id of what the selection was of (the cell of a metric). */
static void q_row_name(const struct q_kind *k, sqlite3_stmt *s, int first, int64_t scope, char *buf,
                       size_t size) {
        const unsigned char *key = k->key >= 0 ? sqlite3_column_text(s, first + k->key) : NULL;

        if (k->key >= 0)
                snprintf(buf, size, "%s %.64s", k->row, key ? (const char *)key : "NULL");
        else
                snprintf(buf, size, "%s %lld", k->row, (long long)scope);
}

/* Fill row, zeroed, from the current row of s, its columns from first on,
 * each through its checked accessor (results/column.h). A needed value
 * that is missing is -EBADMSG with err naming the table, the row (scope:
 * the id the selection is of, for kinds without a key) and the column;
 * -ENOMEM when a copy fails. The copies made stay in row, so the kind's
 * free sees them. */
static int q_row_read(struct db *db, const struct q_kind *k, sqlite3_stmt *s, int first, int64_t scope,
                      void *row, struct kb_error *err) {
        for (size_t c = 0; c < k->n_cols; c++) {
                const struct q_col *col = &k->cols[c];
                enum column_need need = col->needed ? COLUMN_NEEDED : COLUMN_OPTIONAL;
                void *f = (char *)row + col->off;
                int i = first + (int)c, r = 0;
                int64_t v;

                switch (col->type) {
                case Q_COL_TEXT:
                        r = column_text(s, i, need, (char **)f);
                        break;
                case Q_COL_REAL:
                        r = column_real(s, i, need, (double *)f);
                        break;
                case Q_COL_INT64:
                        r = column_int64(s, i, need, 0, (int64_t *)f);
                        break;
                case Q_COL_INT:
                case Q_COL_INT_OR_NONE: {
                        int64_t none = col->type == Q_COL_INT ? 0 : -1;

                        r = column_int64(s, i, need, none, &v);
                        /* Wider than an int is no count or code kbench wrote. */
                        if (r >= 0 && (v < INT_MIN || v > INT_MAX)) {
                                if (need == COLUMN_NEEDED)
                                        r = -ERANGE;
                                v = none;
                        }
                        if (r >= 0)
                                *(int *)f = (int)v;
                        break;
                }
                case Q_COL_COUNTER:
                        *(int64_t *)f = column_counter(s, i);
                        break;
                }
                if (r < 0) {
                        char where[128];

                        q_row_name(k, s, first, scope, where, sizeof(where));
                        return column_error(db, r, col->needed ? col->needed : k->what, where, err);
                }
        }
        if (k->finish)
                k->finish(row);
        return 0;
}

/* Free the text fields of n rows of kind k, and the array. Accepts NULL. */
static void q_rows_free(const struct q_kind *k, void *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                for (size_t c = 0; c < k->n_cols; c++)
                        if (k->cols[c].type == Q_COL_TEXT)
                                free(*(char **)((char *)v + i * k->size + k->cols[c].off));
        free(v);
}

struct q_rows_ctx {
        struct db *db;
        const struct q_kind *kind;
        int64_t scope;             /* the id the selection is of (its first parameter) */
        void *v;
        size_t n, cap;
};

static int q_rows_add(sqlite3_stmt *s, void *ctx, struct kb_error *err) {
        struct q_rows_ctx *a = ctx;

        if (grow(&a->v, &a->cap, a->n, a->kind->size) < 0)
                return error_setf(err, -ENOMEM, "out of memory");
        /* Counted before it is read: a row half copied is freed with the rest. */
        return q_row_read(a->db, a->kind, s, 0, a->scope, (char *)a->v + a->n++ * a->kind->size, err);
}

/* Every row of sql (with params) as an array of kind k; none is a NULL
 * array and 0. On failure frees what was read (errors as q_each).
 * OUT: *ret (caller frees with the kind's query_*_free), *ret_n. */
static int q_rows(struct db *db, const char *sql, const struct db_param *params, size_t n_params,
                  const struct q_kind *k, void **ret, size_t *ret_n, struct kb_error *err) {
        struct q_rows_ctx a = { .db = db, .kind = k,
                                .scope = n_params && params[0].type == DB_PARAM_INT ? params[0].i : 0 };
        int r;

        r = q_each(db, sql, params, n_params, q_rows_add, &a, k->what, err);
        if (r < 0) {
                q_rows_free(k, a.v, a.n);
                return r;
        }
        *ret = a.v;
        *ret_n = a.n;
        return 0;
}

/* The first row of sql as a row of kind k, or *ret = NULL when there is
 * none (the caller says what is missing). OUT: *ret, an array of one. */
static int q_first(struct db *db, const char *sql, const struct db_param *params, size_t n_params,
                   const struct q_kind *k, void **ret, struct kb_error *err) {
        void *v = NULL;
        size_t n = 0;
        int r;

        r = q_rows(db, sql, params, n_params, k, &v, &n, err);
        if (r < 0)
                return r;
        if (n == 0) {
                free(v);
                v = NULL;
        }
        *ret = v;
        return 0;
}

/* ---- runs -------------------------------------------------------------- */

#define RUN_SELECT                                                                       \
        "SELECT r.id, r.tag, r.settings_json, r.host, r.host_info_json, r.qemu_version, "  \
        "r.libvirt_version, r.kbench_version, r.started_at, r.finished_at, r.status, "     \
        "(SELECT count(DISTINCT kernel_id) FROM cells WHERE run_id = r.id), "              \
        "(SELECT count(DISTINCT cell_key) FROM cells WHERE run_id = r.id), "               \
        "(SELECT count(DISTINCT cell_key) FROM cells WHERE run_id = r.id AND state = '" CELL_OK "'), " \
        "CASE WHEN json_valid(r.settings_json) THEN json_extract(r.settings_json, '$.planned_cells') END " \
        "FROM runs r "

static const struct q_col run_cols[] = {
        Q_COL(INT64, struct query_run, id),
        Q_COL(TEXT, struct query_run, tag),
        Q_NEED(TEXT, struct query_run, settings_json, "runs.settings_json"),
        Q_COL(TEXT, struct query_run, host),
        Q_COL(TEXT, struct query_run, host_info_json),
        Q_COL(TEXT, struct query_run, qemu_version),
        Q_COL(TEXT, struct query_run, libvirt_version),
        Q_COL(TEXT, struct query_run, kbench_version),
        Q_NEED(REAL, struct query_run, started_at, "runs.started_at"),
        Q_COL(REAL, struct query_run, finished_at),
        Q_NEED(TEXT, struct query_run, status, "runs.status"),
        Q_COL(INT64, struct query_run, n_kernels),
        Q_COL(INT64, struct query_run, n_cells),
        Q_COL(INT64, struct query_run, n_ok),
        Q_COL(COUNTER, struct query_run, n_planned),
};

static void run_finish(void *row) {
        struct query_run *r = row;

        /* Runs stored before the plan's size was saved, or whose settings
         * are damaged (no positive integer there), count the cells they have. */
        if (r->n_planned <= 0)
                r->n_planned = r->n_cells;
}

static const struct q_kind run_kind = Q_KIND("runs", struct query_run, run_cols, run_finish, "run", 0);

void query_runs_free(struct query_run *runs, size_t n) {
        q_rows_free(&run_kind, runs, n);
}

int query_runs(struct db *db, struct query_run **ret_runs, size_t *ret_n, struct kb_error *err) {
        return q_rows(db, RUN_SELECT "ORDER BY r.id", DB_NO_ARGS, &run_kind, (void **)ret_runs, ret_n, err);
}

int query_run(struct db *db, int64_t run_id, struct query_run **ret_run, struct kb_error *err) {
        struct query_run *v;
        int r;

        r = q_first(db, RUN_SELECT "WHERE r.id = ?1", DB_ARGS(DB_INT(run_id)), &run_kind, (void **)&v, err);
        if (r < 0)
                return r;
        if (!v)
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db_path(db));
        *ret_run = v;
        return 0;
}

/* Bare ids: the runs a selector names, the newest run. */
static const struct q_col id_cols[] = { { Q_COL_INT64, 0, NULL } };
static const struct q_kind id_kind = Q_KIND("runs", int64_t, id_cols, NULL, "run", 0);

int query_last_run_id(struct db *db, int64_t *ret_id, struct kb_error *err) {
        int64_t *v;
        int r;

        r = q_first(db, "SELECT id FROM runs ORDER BY id DESC LIMIT 1", DB_NO_ARGS, &id_kind, (void **)&v, err);
        if (r < 0)
                return r;
        if (!v)
                return error_setf(err, -ENOENT, "no runs in %s", db_path(db));
        *ret_id = *v;
        free(v);
        return 0;
}

/* ---- cells ------------------------------------------------------------- */

/* The name a kernel is shown under in a run: the run's variant label
 * (settings "variant", `kbench run --variant`, a nightly source's name)
 * before the store's name, so that variants of one image measured with
 * other settings are told apart wherever results are shown, while the
 * kernels table holds the image once. Unreadable settings label nothing. */
#define KERNEL_LABEL(runs, kname)                                                                          \
        "(CASE WHEN json_valid(" runs ".settings_json) AND "                                             \
        "json_type(" runs ".settings_json, '$.variant') = 'text' "                                       \
        "THEN json_extract(" runs ".settings_json, '$.variant') ELSE '' END || " kname ")"

#define CELL_SELECT                                                                      \
        "SELECT c.id, c.run_id, c.cell_key, c.kernel_id, " KERNEL_LABEL("vr", "k.name") ", c.workload, c.params_json, " \
        "c.iteration, c.attempt, c.state, c.detail, c.accel, c.started_at, c.boot_s, "     \
        "c.workload_s, c.total_s, c.exit_code, c.rejected_records, "                        \
        "(SELECT count(*) FROM vmstat v WHERE v.cell_id = c.id AND v.first = 0) "          \
        "FROM cells c JOIN kernels k ON k.id = c.kernel_id JOIN runs vr ON vr.id = c.run_id "

static const struct q_col cell_cols[] = {
        Q_COL(INT64, struct query_cell, id),
        Q_COL(INT64, struct query_cell, run_id),
        Q_NEED(TEXT, struct query_cell, cell_key, "cells.cell_key"),
        Q_NEED(TEXT, struct query_cell, kernel_id, "cells.kernel_id"),
        Q_NEED(TEXT, struct query_cell, kernel_name, "kernels.name"),
        Q_NEED(TEXT, struct query_cell, workload, "cells.workload"),
        Q_COL(TEXT, struct query_cell, params_json),
        Q_NEED(INT, struct query_cell, iteration, "cells.iteration"),
        Q_NEED(INT, struct query_cell, attempt, "cells.attempt"),
        Q_NEED(TEXT, struct query_cell, state, "cells.state"),
        Q_COL(TEXT, struct query_cell, detail),
        Q_COL(TEXT, struct query_cell, accel),
        Q_COL(REAL, struct query_cell, started_at),
        Q_COL(REAL, struct query_cell, boot_s),
        Q_COL(REAL, struct query_cell, workload_s),
        Q_COL(REAL, struct query_cell, total_s),
        Q_COL(INT_OR_NONE, struct query_cell, exit_code),
        Q_NEED(INT64, struct query_cell, rejected_records, "cells.rejected_records"),
        Q_COL(INT64, struct query_cell, vmstat_samples),
};

static const struct q_kind cell_kind = Q_KIND("cells", struct query_cell, cell_cols, NULL, "cell", 0);

void query_cells_free(struct query_cell *cells, size_t n) {
        q_rows_free(&cell_kind, cells, n);
}

int query_cells(struct db *db, int64_t run_id, struct query_cell **ret_cells, size_t *ret_n,
                struct kb_error *err) {
        return q_rows(db, CELL_SELECT "WHERE c.run_id = ?1 ORDER BY c.id", DB_ARGS(DB_INT(run_id)), &cell_kind,
                      (void **)ret_cells, ret_n, err);
}

int query_cell(struct db *db, int64_t run_id, const char *cell_key, struct query_cell **ret_cell,
               struct kb_error *err) {
        struct query_cell *v;
        int r;

        r = q_first(db, CELL_SELECT "WHERE c.run_id = ?1 AND c.cell_key = ?2 ORDER BY c.attempt DESC LIMIT 1",
                    DB_ARGS(DB_INT(run_id), DB_TEXT(cell_key)), &cell_kind, (void **)&v, err);
        if (r < 0)
                return r;
        if (!v)
                return error_setf(err, -ENOENT, "no cell " ERROR_VAL " in run %lld", ERROR_VALARG(cell_key),
                                  (long long)run_id);
        *ret_cell = v;
        return 0;
}

/* ---- one cell's data ---------------------------------------------------- */

/* The columns of a metric; a selection reads the first three (no note). */
static const struct q_col metric_cols[] = {
        Q_NEED(TEXT, struct query_metric, name, "metrics.name"),
        Q_COL(REAL, struct query_metric, value),
        Q_NEED(TEXT, struct query_metric, unit, "metrics.unit"),
        Q_COL(TEXT, struct query_metric, note),
};

static void metric_finish(void *row) {
        struct query_metric *m = row;

        m->has_value = !isnan(m->value);
}

static const struct q_kind metric_kind = Q_KIND("metrics", struct query_metric, metric_cols, metric_finish, "a metric of cell", -1);

void query_metrics_free(struct query_metric *m, size_t n) {
        q_rows_free(&metric_kind, m, n);
}

int query_cell_metrics(struct db *db, int64_t cell_id, struct query_metric **ret, size_t *ret_n,
                       struct kb_error *err) {
        return q_rows(db, "SELECT name, value, unit, note FROM metrics WHERE cell_id = ?1 ORDER BY name",
                      DB_ARGS(DB_INT(cell_id)), &metric_kind, (void **)ret, ret_n, err);
}

static const struct q_col vmstat_cols[] = {
        Q_NEED(INT64, struct db_vmstat_row, seq, "vmstat.seq"),
        Q_COL(REAL, struct db_vmstat_row, t_host),
        Q_COL(REAL, struct db_vmstat_row, t_guest),
        Q_NEED(INT, struct db_vmstat_row, first, "vmstat.first"),
#define X(name, width, group) Q_COL(REAL, struct db_vmstat_row, v[DB_VM_##name]),
        KB_VMSTAT_COLUMNS(X)
#undef X
};
_Static_assert(ELEMENTSOF(vmstat_cols) == 4 + DB_VM_NCOLS, "a column per vmstat field");

static const struct q_kind vmstat_kind = Q_KIND("vmstat", struct db_vmstat_row, vmstat_cols, NULL, "a vmstat row of cell", -1);

int query_cell_vmstat(struct db *db, int64_t cell_id, struct db_vmstat_row **ret, size_t *ret_n,
                      struct kb_error *err) {
        char sql[1024];
        size_t len;

        /* Column names come from the compile-time list, never from data. */
        len = (size_t)snprintf(sql, sizeof(sql), "SELECT seq, t_host, t_guest, first");
        for (size_t k = 0; k < DB_VM_NCOLS; k++)
                len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", \"%s\"", db_vmstat_column_names[k]);
        snprintf(sql + len, sizeof(sql) - len, " FROM vmstat WHERE cell_id = ?1 ORDER BY seq");
        return q_rows(db, sql, DB_ARGS(DB_INT(cell_id)), &vmstat_kind, (void **)ret, ret_n, err);
}

static const struct q_col hostblk_cols[] = {
        Q_NEED(REAL, struct db_hostblk_row, t_host, "host_block.t_host"),
        Q_COL(COUNTER, struct db_hostblk_row, rd_bytes),
        Q_COL(COUNTER, struct db_hostblk_row, wr_bytes),
        Q_COL(COUNTER, struct db_hostblk_row, rd_reqs),
        Q_COL(COUNTER, struct db_hostblk_row, wr_reqs),
};

static const struct q_kind hostblk_kind = Q_KIND("host_block", struct db_hostblk_row, hostblk_cols, NULL, "a host_block row of cell", -1);

int query_cell_hostblk(struct db *db, int64_t cell_id, struct db_hostblk_row **ret, size_t *ret_n,
                       struct kb_error *err) {
        return q_rows(db, "SELECT t_host, rd_bytes, wr_bytes, rd_reqs, wr_reqs FROM host_block "
                          "WHERE cell_id = ?1 ORDER BY seq",
                      DB_ARGS(DB_INT(cell_id)), &hostblk_kind, (void **)ret, ret_n, err);
}

static const struct q_col point_cols[] = {
        Q_NEED(TEXT, struct query_point, kind, "timeline.kind"),
        Q_NEED(REAL, struct query_point, t, "timeline.t"),
        Q_COL(REAL, struct query_point, value),
};

static const struct q_kind point_kind = Q_KIND("timeline", struct query_point, point_cols, NULL, "a timeline point of cell", -1);

void query_points_free(struct query_point *p, size_t n) {
        q_rows_free(&point_kind, p, n);
}

int query_cell_points(struct db *db, int64_t cell_id, struct query_point **ret, size_t *ret_n,
                      struct kb_error *err) {
        return q_rows(db, "SELECT kind, t, value FROM timeline WHERE cell_id = ?1 ORDER BY kind, t",
                      DB_ARGS(DB_INT(cell_id)), &point_kind, (void **)ret, ret_n, err);
}

static const struct q_col mark_cols[] = {
        Q_COL(TEXT, struct query_mark, name),
        Q_COL(REAL, struct query_mark, t_guest),
        Q_COL(REAL, struct query_mark, t_host),
};

static const struct q_kind mark_kind = Q_KIND("marks", struct query_mark, mark_cols, NULL, "a mark of cell", -1);

void query_marks_free(struct query_mark *m, size_t n) {
        q_rows_free(&mark_kind, m, n);
}

int query_cell_marks(struct db *db, int64_t cell_id, struct query_mark **ret, size_t *ret_n, struct kb_error *err) {
        return q_rows(db, "SELECT name, t_guest, t_host FROM marks WHERE cell_id = ?1 AND name IS NOT NULL "
                          "AND typeof(t_guest) IN ('integer', 'real') ORDER BY seq",
                      DB_ARGS(DB_INT(cell_id)), &mark_kind, (void **)ret, ret_n, err);
}

static const struct q_col log_info_cols[] = {
        Q_NEED(TEXT, struct query_log_info, stream, "logs.stream"),
        Q_COL(INT64, struct query_log_info, bytes),
};

static const struct q_kind log_info_kind = Q_KIND("logs", struct query_log_info, log_info_cols, NULL, "a log of cell", -1);

void query_log_infos_free(struct query_log_info *l, size_t n) {
        q_rows_free(&log_info_kind, l, n);
}

int query_cell_logs(struct db *db, int64_t cell_id, struct query_log_info **ret, size_t *ret_n,
                    struct kb_error *err) {
        return q_rows(db, "SELECT stream, length(CAST(text AS BLOB)) FROM logs WHERE cell_id = ?1 ORDER BY stream",
                      DB_ARGS(DB_INT(cell_id)), &log_info_kind, (void **)ret, ret_n, err);
}

/* A log is bytes, not a record: copied whole, NULs and all. */
int query_cell_log(struct db *db, int64_t cell_id, const char *stream, char **ret_text,
                   size_t *ret_len, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        const void *blob;
        char *text;
        char what[128];
        int r, len;

        snprintf(what, sizeof(what), "reading log %s", stream);
        r = db_query_row(db, "SELECT text FROM logs WHERE cell_id = ?1 AND stream = ?2",
                         DB_ARGS(DB_INT(cell_id), DB_TEXT(stream)), what, &s, err);
        if (r < 0)
                return r;
        if (r == 0)
                return error_setf(err, -ENOENT, "cell has no " ERROR_VAL " log", ERROR_VALARG(stream));
        blob = sqlite3_column_blob(s, 0);
        len = sqlite3_column_bytes(s, 0);
        text = malloc((size_t)len + 1);
        if (!text)
                return error_setf(err, -ENOMEM, "out of memory");
        if (len > 0)
                memcpy(text, blob, (size_t)len);
        text[len] = '\0';
        *ret_text = text;
        *ret_len = (size_t)len;
        return 0;
}

/* ---- samples for statistics -------------------------------------------- */

/* A series' heading: the first five columns of the samples' SELECT. */
static const struct q_col series_cols[] = {
        Q_NEED(TEXT, struct query_series, kernel_id, "cells.kernel_id"),
        Q_NEED(TEXT, struct query_series, kernel_name, "kernels.name"),
        Q_NEED(TEXT, struct query_series, workload, "cells.workload"),
        Q_NEED(TEXT, struct query_series, metric, "metrics.name"),
        Q_NEED(TEXT, struct query_series, unit, "metrics.unit"),
};

static const struct q_kind series_kind = Q_KIND("samples", struct query_series, series_cols, NULL, "a sample of run", -1);

void query_series_free(struct query_series *s, size_t n) {
        if (!s)
                return;
        for (size_t i = 0; i < n; i++)
                free(s[i].values);
        q_rows_free(&series_kind, s, n);
}

static int same_col(sqlite3_stmt *s, int i, const char *v) {
        const unsigned char *t = sqlite3_column_text(s, i);
        return t && v && strcmp((const char *)t, v) == 0;
}

struct samples_ctx {
        struct q_rows_ctx series;  /* of series_kind */
        size_t vcap;               /* capacity of the last series' values */
};

/* One (kernel, workload, metric, value) row: a new series when the first
 * three change (the rows come sorted by them), then its value. */
static int samples_add(sqlite3_stmt *s, void *ctx, struct kb_error *err) {
        struct samples_ctx *a = ctx;
        struct query_series *cur = a->series.n ? (struct query_series *)a->series.v + a->series.n - 1 : NULL;
        double value;

        if (!cur || !same_col(s, 0, cur->kernel_id) || !same_col(s, 2, cur->workload) ||
            !same_col(s, 3, cur->metric)) {
                int r = q_rows_add(s, &a->series, err);

                if (r < 0)
                        return r;
                cur = (struct query_series *)a->series.v + a->series.n - 1;
                a->vcap = 0;
        }
        (void)column_real(s, 5, COLUMN_OPTIONAL, &value);
        if (isnan(value)) {
                cur->n_missing++;
                return 0;
        }
        if (grow((void **)&cur->values, &a->vcap, cur->n, sizeof(double)) < 0)
                return error_setf(err, -ENOMEM, "out of memory");
        cur->values[cur->n++] = value;
        return 0;
}

int query_run_samples(struct db *db, int64_t run_id, struct query_series **ret, size_t *ret_n,
                      struct kb_error *err) {
        struct samples_ctx a = { .series = { .db = db, .kind = &series_kind, .scope = run_id } };
        int r;

        /* Only ok cells: a failed cell's partial metrics never enter statistics.
         * A cell run again counts by its latest attempt, as in compare. */
        r = q_each(db, "SELECT c.kernel_id, " KERNEL_LABEL("vr", "k.name") ", c.workload, m.name, m.unit, m.value, "
                       "(SELECT min(id) FROM cells f WHERE f.run_id = c.run_id AND f.kernel_id = c.kernel_id) AS kfirst "
                       "FROM metrics m JOIN cells c ON c.id = m.cell_id "
                       "JOIN kernels k ON k.id = c.kernel_id JOIN runs vr ON vr.id = c.run_id "
                       "WHERE c.run_id = ?1 AND c.state = '" CELL_OK "' "
                       "AND c.attempt = (SELECT max(attempt) FROM cells l "
                       "                 WHERE l.run_id = c.run_id AND l.cell_key = c.cell_key) "
                       "ORDER BY kfirst, c.workload, m.name, c.id",
                   DB_ARGS(DB_INT(run_id)), samples_add, &a, "samples", err);
        if (r < 0) {
                query_series_free(a.series.v, a.series.n);
                return r;
        }
        *ret = a.series.v;
        *ret_n = a.series.n;
        return 0;
}

/* ---- selections for compare -------------------------------------------- */

static const struct q_col kernel_cols[] = {
        Q_NEED(TEXT, struct query_kernel, id, "kernels.id"),
        Q_NEED(TEXT, struct query_kernel, name, "kernels.name"),
};

static const struct q_kind kernel_kind = Q_KIND("kernels", struct query_kernel, kernel_cols, NULL, "kernel", 0);

void query_kernels_free(struct query_kernel *k, size_t n) {
        q_rows_free(&kernel_kind, k, n);
}

/* " (did you mean A or B?)" for the stored kernel names nearest name, or
 * "" when none is near (caller frees). */
static char *kernel_suggestion(struct db *db, const char *name) {
        struct query_kernel *all = NULL;
        struct kb_error ignored = { { 0 } };
        _cleanup_free_ const char **names = NULL;
        char *out = NULL;
        size_t n = 0, near = 0;

        if (q_rows(db, "SELECT id, name FROM kernels ORDER BY name", NULL, 0, &kernel_kind, (void **)&all, &n,
                   &ignored) < 0 || !(names = calloc(n + 1, sizeof(*names))))
                goto out;
        for (size_t i = 0; i < n; i++)
                names[i] = all[i].name;
        near = nearest_sort(name, names, n);
        if ((near == 1 && asprintf(&out, " (did you mean %.128s?)", names[0]) < 0) ||
            (near > 1 && asprintf(&out, " (did you mean %.128s or %.128s?)", names[0], names[1]) < 0))
                out = NULL;
out:
        query_kernels_free(all, n);
        return out ? out : strdup("");
}

int query_kernel_by_name(struct db *db, const char *name, struct query_kernel **ret, struct kb_error *err) {
        struct query_kernel *v;
        int r;

        r = q_first(db, "SELECT id, name FROM kernels WHERE name = ?1", DB_ARGS(DB_TEXT(name)), &kernel_kind,
                    (void **)&v, err);
        if (r < 0)
                return r;
        if (!v) {
                _cleanup_free_ char *hint = kernel_suggestion(db, name);

                return error_setf(err, -ENOENT, "no kernel '%.128s' in %s%s", name, db_path(db), hint ? hint : "");
        }
        *ret = v;
        return 0;
}

int query_run_kernels(struct db *db, int64_t run_id, struct query_kernel **ret, size_t *ret_n,
                      struct kb_error *err) {
        return q_rows(db, "SELECT c.kernel_id, k.name FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                          "WHERE c.run_id = ?1 GROUP BY c.kernel_id ORDER BY min(c.id)",
                      DB_ARGS(DB_INT(run_id)), &kernel_kind, (void **)ret, ret_n, err);
}

int query_run_shown_kernels(struct db *db, int64_t run_id, struct query_kernel **ret, size_t *ret_n,
                            struct kb_error *err) {
        return q_rows(db, "SELECT c.kernel_id, " KERNEL_LABEL("vr", "k.name") " FROM cells c "
                          "JOIN kernels k ON k.id = c.kernel_id JOIN runs vr ON vr.id = c.run_id "
                          "WHERE c.run_id = ?1 GROUP BY c.kernel_id ORDER BY min(c.id)",
                      DB_ARGS(DB_INT(run_id)), &kernel_kind, (void **)ret, ret_n, err);
}

/* Kernels by the name runs show them under: cells joined to their runs'
 * labels, a scan of cells (a name is not an index key; compare resolves
 * two selectors a call, nightly one per subject). */
int query_kernels_shown_as(struct db *db, const char *shown, struct query_kernel **ret, size_t *ret_n,
                           struct kb_error *err) {
        return q_rows(db, "SELECT DISTINCT c.kernel_id, ?1 FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                          "JOIN runs vr ON vr.id = c.run_id WHERE " KERNEL_LABEL("vr", "k.name") " = ?1 "
                          "ORDER BY c.kernel_id",
                      DB_ARGS(DB_TEXT(shown)), &kernel_kind, (void **)ret, ret_n, err);
}

int query_kernel_runs(struct db *db, const char *kernel_id, int64_t **ret_ids, size_t *ret_n,
                      struct kb_error *err) {
        /* cells_by_kernel leads with kernel_id; the run ids come off its rows. */
        return q_rows(db, "SELECT DISTINCT run_id FROM cells WHERE kernel_id = ?1 ORDER BY run_id",
                      DB_ARGS(DB_TEXT(kernel_id)), &id_kind, (void **)ret_ids, ret_n, err);
}

int query_shown_kernel_runs(struct db *db, const char *kernel_id, const char *shown, int64_t **ret_ids,
                            size_t *ret_n, struct kb_error *err) {
        return q_rows(db, "SELECT DISTINCT c.run_id FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                          "JOIN runs vr ON vr.id = c.run_id WHERE c.kernel_id = ?1 AND "
                          KERNEL_LABEL("vr", "k.name") " = ?2 ORDER BY c.run_id",
                      DB_ARGS(DB_TEXT(kernel_id), DB_TEXT(shown)), &id_kind, (void **)ret_ids, ret_n, err);
}

int query_tag_runs(struct db *db, const char *tag, int64_t **ret_ids, size_t *ret_n, struct kb_error *err) {
        return q_rows(db, "SELECT id FROM runs WHERE tag = ?1 ORDER BY id", DB_ARGS(DB_TEXT(tag)), &id_kind,
                      (void **)ret_ids, ret_n, err);
}

static const struct q_col sel_cell_cols[] = {
        Q_COL(INT64, struct query_sel_cell, id),
        Q_NEED(TEXT, struct query_sel_cell, cell_key, "cells.cell_key"),
        Q_NEED(TEXT, struct query_sel_cell, workload, "cells.workload"),
        Q_COL(TEXT, struct query_sel_cell, params_json),
        Q_NEED(TEXT, struct query_sel_cell, state, "cells.state"),
        Q_COL(REAL, struct query_sel_cell, boot_s),
        Q_COL(REAL, struct query_sel_cell, workload_s),
        Q_COL(REAL, struct query_sel_cell, total_s),
};

static const struct q_kind sel_cell_kind = Q_KIND("cells", struct query_sel_cell, sel_cell_cols, NULL, "cell", 0);

/* A selection's metrics: name, value and unit; compare reads no notes. */
static const struct q_kind sel_metric_kind = {
        "metrics", sizeof(struct query_metric), metric_cols, 3, metric_finish, "a metric of cell", -1,
};

struct query_selection *query_selection_free(struct query_selection *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_cells; i++)
                query_metrics_free(s->cells[i].metrics, s->cells[i].n_metrics);
        q_rows_free(&sel_cell_kind, s->cells, s->n_cells);
        free(s->tag);
        free(s->settings_json);
        free(s->kernel_id);
        free(s->kernel_name);
        free(s);
        return NULL;
}

/* The latest attempt of each cell key of (run, kernel[, workload]); the
 * correlated max() is answered by the UNIQUE (run_id, cell_key, attempt)
 * index, the outer scan by cells_by_run. */
#define SEL_WHERE                                                                         \
        "WHERE c.run_id = ?1 AND c.kernel_id = ?2 AND (?3 IS NULL OR c.workload = ?3) "   \
        "AND c.attempt = (SELECT max(c2.attempt) FROM cells c2 "                          \
        "WHERE c2.run_id = c.run_id AND c2.cell_key = c.cell_key) "

#define SEL_ARGS(v, workload) DB_ARGS(DB_INT((v)->run_id), DB_TEXT((v)->kernel_id), DB_TEXT(workload))

static int selection_cells(struct db *db, struct query_selection *v, const char *workload, struct kb_error *err) {
        return q_rows(db, "SELECT c.id, c.cell_key, c.workload, c.params_json, c.state, c.boot_s, "
                          "c.workload_s, c.total_s FROM cells c " SEL_WHERE "ORDER BY c.id",
                      SEL_ARGS(v, workload), &sel_cell_kind, (void **)&v->cells, &v->n_cells, err);
}

static int sel_cell_cmp(const void *key, const void *elem) {
        int64_t id = *(const int64_t *)key, other = ((const struct query_sel_cell *)elem)->id;

        return (id > other) - (id < other);
}

struct sel_metrics_ctx {
        struct db *db;
        struct query_selection *v;
        struct query_sel_cell *c;  /* the cell of the last row */
        size_t cap;                /* capacity of c->metrics */
};

/* One (cell_id, name, value, unit) row, into its cell's metrics. */
static int sel_metric_add(sqlite3_stmt *s, void *ctx, struct kb_error *err) {
        struct sel_metrics_ctx *a = ctx;
        int64_t cell_id = sqlite3_column_int64(s, 0);
        struct query_sel_cell *c = a->c;

        if (!c || c->id != cell_id) {
                /* v->cells is sorted by id (selection_cells). */
                c = a->c = bsearch(&cell_id, a->v->cells, a->v->n_cells, sizeof(*c), sel_cell_cmp);
                if (!c)
                        return 0;
                a->cap = c->n_metrics;
        }
        if (grow((void **)&c->metrics, &a->cap, c->n_metrics, sizeof(*c->metrics)) < 0)
                return error_setf(err, -ENOMEM, "out of memory");
        return q_row_read(a->db, &sel_metric_kind, s, 1, cell_id, &c->metrics[c->n_metrics++], err);
}

static int selection_metrics(struct db *db, struct query_selection *v, const char *workload,
                             struct kb_error *err) {
        struct sel_metrics_ctx a = { .db = db, .v = v };

        /* No ORDER BY: the join walks each cell's metrics by primary key
         * (cell_id, name), so they come grouped by cell and sorted by name;
         * a sorter over every row would cost more than the rows. */
        return q_each(db, "SELECT m.cell_id, m.name, m.value, m.unit FROM cells c "
                          "JOIN metrics m ON m.cell_id = c.id " SEL_WHERE "AND c.state = '" CELL_OK "'",
                      SEL_ARGS(v, workload), sel_metric_add, &a, "metrics", err);
}

/* The run's tag and settings, and the kernel's name as the run shows it. */
struct sel_head {
        char *tag, *settings_json, *kernel_name;
};

static const struct q_col sel_head_cols[] = {
        Q_COL(TEXT, struct sel_head, tag),
        Q_NEED(TEXT, struct sel_head, settings_json, "runs.settings_json"),
        Q_NEED(TEXT, struct sel_head, kernel_name, "kernels.name"),
};

static const struct q_kind sel_head_kind = Q_KIND("runs", struct sel_head, sel_head_cols, NULL, "run", -1);

static int selection_head(struct db *db, struct query_selection *v, struct kb_error *err) {
        struct sel_head *h;
        int r;

        r = q_first(db, "SELECT r.tag, r.settings_json, "
                        "(SELECT " KERNEL_LABEL("r", "name") " FROM kernels WHERE id = ?2) "
                        "FROM runs r WHERE r.id = ?1",
                    DB_ARGS(DB_INT(v->run_id), DB_TEXT(v->kernel_id)), &sel_head_kind, (void **)&h, err);
        if (r < 0)
                return r;
        if (!h)
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)v->run_id, db_path(db));
        v->tag = h->tag;
        v->settings_json = h->settings_json;
        v->kernel_name = h->kernel_name;
        free(h);
        return 0;
}

int query_selection(struct db *db, int64_t run_id, const char *kernel_id, const char *workload,
                    struct query_selection **ret, struct kb_error *err) {
        struct query_selection *v = calloc(1, sizeof(*v));
        int r;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        v->run_id = run_id;
        v->kernel_id = strdup(kernel_id);
        if (!v->kernel_id) {
                query_selection_free(v);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        r = selection_head(db, v, err);
        if (r >= 0)
                r = selection_cells(db, v, workload, err);
        if (r >= 0)
                r = selection_metrics(db, v, workload, err);
        if (r < 0) {
                query_selection_free(v);
                return r;
        }
        *ret = v;
        return 0;
}
