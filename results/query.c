/* results/query.c: read-side selections over the result store (see query.h).
 * Each function runs one prepared statement and copies the rows into plain
 * owned structs, so callers never hold sqlite statements or see SQL. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
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

/* Copy a text column; NULL stays NULL. Sets *oom on allocation failure. */
static char *col_dup(sqlite3_stmt *s, int i, int *oom) {
        const unsigned char *t;
        char *d;

        if (sqlite3_column_type(s, i) == SQLITE_NULL)
                return NULL;
        t = sqlite3_column_text(s, i);
        if (!t) {
                *oom = 1;
                return NULL;
        }
        d = strdup((const char *)t);
        if (!d)
                *oom = 1;
        return d;
}

/* A number column as a finite double, or NAN when it holds none. SQLite
 * stores whatever a writer gave it, and would read the text 'abc' as 0 and
 * '12abc' as 12; text, a blob or an infinity is "no value", never a number. */
static double col_real(sqlite3_stmt *s, int i) {
        int t = sqlite3_column_type(s, i);
        double v;

        if (t != SQLITE_INTEGER && t != SQLITE_FLOAT)
                return NAN;
        v = sqlite3_column_double(s, i);
        return isfinite(v) ? v : NAN;
}

static int q_prepare(struct db *db, const char *sql, sqlite3_stmt **ret, struct kb_error *err) {
        int rc = sqlite3_prepare_v2(db_handle(db), sql, -1, ret, NULL);
        if (rc != SQLITE_OK)
                return db_error(db, rc, err, "prepare");
        return 0;
}

/* Fill row, zeroed, from the current row of s; set *oom when a copy fails
 * (the row counts as read either way, so the array's free sees it). */
typedef void (*row_read_fn)(sqlite3_stmt *s, void *row, int *oom);
/* Free n rows and their array; NULL: the rows own nothing, free() it. */
typedef void (*rows_free_fn)(void *v, size_t n);

/* Step s to its end, reading each row into a growing array of elem-byte
 * rows (read_row fills one). On failure frees what was read and returns
 * -ENOMEM or the database error "reading <what>". OUT: ret (caller frees
 * with the type's query_*_free), ret_n. */
static int rows_read(struct db *db, sqlite3_stmt *s, size_t elem, row_read_fn read_row, rows_free_fn rows_free,
                     const char *what, void **ret, size_t *ret_n, struct kb_error *err) {
        void *v = NULL;
        size_t n = 0, cap = 0;
        int rc, oom = 0;

        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                if (grow(&v, &cap, n, elem) < 0) {
                        oom = 1;
                        break;
                }
                read_row(s, (char *)v + n++ * elem, &oom);
                if (oom)
                        break;
        }
        if (oom || rc != SQLITE_DONE) {
                if (rows_free)
                        rows_free(v, n);
                else
                        free(v);
                return oom ? error_setf(err, -ENOMEM, "out of memory")
                           : db_error(db, rc, err, "reading %s", what);
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* ---- runs -------------------------------------------------------------- */

#define RUN_SELECT                                                                       \
        "SELECT r.id, r.tag, r.settings_json, r.host, r.host_info_json, r.qemu_version, "  \
        "r.libvirt_version, r.kbench_version, r.started_at, r.finished_at, r.status, "     \
        "(SELECT count(DISTINCT kernel_id) FROM cells WHERE run_id = r.id), "              \
        "(SELECT count(DISTINCT cell_key) FROM cells WHERE run_id = r.id), "               \
        "(SELECT count(DISTINCT cell_key) FROM cells WHERE run_id = r.id AND state = 'ok'), " \
        "CASE WHEN json_valid(r.settings_json) THEN json_extract(r.settings_json, '$.planned_cells') END " \
        "FROM runs r "

void query_runs_free(struct query_run *runs, size_t n) {
        if (!runs)
                return;
        for (size_t i = 0; i < n; i++) {
                free(runs[i].tag);
                free(runs[i].settings_json);
                free(runs[i].host);
                free(runs[i].host_info_json);
                free(runs[i].qemu_version);
                free(runs[i].libvirt_version);
                free(runs[i].kbench_version);
                free(runs[i].status);
        }
        free(runs);
}

static void runs_free(void *v, size_t n) {
        query_runs_free(v, n);
}

static void run_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_run *r = row;

        r->id = sqlite3_column_int64(s, 0);
        r->tag = col_dup(s, 1, oom);
        r->settings_json = col_dup(s, 2, oom);
        r->host = col_dup(s, 3, oom);
        r->host_info_json = col_dup(s, 4, oom);
        r->qemu_version = col_dup(s, 5, oom);
        r->libvirt_version = col_dup(s, 6, oom);
        r->kbench_version = col_dup(s, 7, oom);
        r->started_at = col_real(s, 8);
        r->finished_at = col_real(s, 9);
        r->status = col_dup(s, 10, oom);
        r->n_kernels = sqlite3_column_int64(s, 11);
        r->n_cells = sqlite3_column_int64(s, 12);
        r->n_ok = sqlite3_column_int64(s, 13);
        /* Runs stored before the plan's size was saved, or whose
         * settings are damaged, count the cells they have. */
        r->n_planned = sqlite3_column_type(s, 14) == SQLITE_INTEGER && sqlite3_column_int64(s, 14) > 0
                       ? sqlite3_column_int64(s, 14) : r->n_cells;
}

static int runs_select(struct db *db, sqlite3_stmt *s, struct query_run **ret, size_t *ret_n,
                       struct kb_error *err) {
        return rows_read(db, s, sizeof(**ret), run_read, runs_free, "runs", (void **)ret, ret_n, err);
}

int query_runs(struct db *db, struct query_run **ret_runs, size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, RUN_SELECT "ORDER BY r.id", &s, err);
        if (r < 0)
                return r;
        return runs_select(db, s, ret_runs, ret_n, err);
}

int query_run(struct db *db, int64_t run_id, struct query_run **ret_run, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct query_run *v = NULL;
        size_t n = 0;
        int r;

        r = q_prepare(db, RUN_SELECT "WHERE r.id = ?1", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        r = runs_select(db, s, &v, &n, err);
        if (r < 0)
                return r;
        if (n == 0) {
                free(v);
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db_path(db));
        }
        *ret_run = v;
        return 0;
}

int query_last_run_id(struct db *db, int64_t *ret_id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r, rc;

        r = q_prepare(db, "SELECT max(id) FROM runs", &s, err);
        if (r < 0)
                return r;
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return db_error(db, rc, err, "reading runs");
        if (sqlite3_column_type(s, 0) == SQLITE_NULL)
                return error_setf(err, -ENOENT, "no runs in %s", db_path(db));
        *ret_id = sqlite3_column_int64(s, 0);
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

void query_cells_free(struct query_cell *cells, size_t n) {
        if (!cells)
                return;
        for (size_t i = 0; i < n; i++) {
                free(cells[i].cell_key);
                free(cells[i].kernel_id);
                free(cells[i].kernel_name);
                free(cells[i].workload);
                free(cells[i].params_json);
                free(cells[i].state);
                free(cells[i].detail);
                free(cells[i].accel);
        }
        free(cells);
}

static void cells_free(void *v, size_t n) {
        query_cells_free(v, n);
}

static void cell_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_cell *c = row;

        c->id = sqlite3_column_int64(s, 0);
        c->run_id = sqlite3_column_int64(s, 1);
        c->cell_key = col_dup(s, 2, oom);
        c->kernel_id = col_dup(s, 3, oom);
        c->kernel_name = col_dup(s, 4, oom);
        c->workload = col_dup(s, 5, oom);
        c->params_json = col_dup(s, 6, oom);
        c->iteration = sqlite3_column_int(s, 7);
        c->attempt = sqlite3_column_int(s, 8);
        c->state = col_dup(s, 9, oom);
        c->detail = col_dup(s, 10, oom);
        c->accel = col_dup(s, 11, oom);
        c->started_at = col_real(s, 12);
        c->boot_s = col_real(s, 13);
        c->workload_s = col_real(s, 14);
        c->total_s = col_real(s, 15);
        c->exit_code = sqlite3_column_type(s, 16) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 16);
        c->rejected_records = sqlite3_column_int64(s, 17);
        c->vmstat_samples = sqlite3_column_int64(s, 18);
}

static int cells_select(struct db *db, sqlite3_stmt *s, struct query_cell **ret, size_t *ret_n,
                        struct kb_error *err) {
        return rows_read(db, s, sizeof(**ret), cell_read, cells_free, "cells", (void **)ret, ret_n, err);
}

int query_cells(struct db *db, int64_t run_id, struct query_cell **ret_cells, size_t *ret_n,
                struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, CELL_SELECT "WHERE c.run_id = ?1 ORDER BY c.id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        return cells_select(db, s, ret_cells, ret_n, err);
}

int query_cell(struct db *db, int64_t run_id, const char *cell_key, struct query_cell **ret_cell,
               struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct query_cell *v = NULL;
        size_t n = 0;
        int r;

        r = q_prepare(db, CELL_SELECT "WHERE c.run_id = ?1 AND c.cell_key = ?2 "
                          "ORDER BY c.attempt DESC LIMIT 1", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_text(s, 2, cell_key, -1, SQLITE_TRANSIENT);
        r = cells_select(db, s, &v, &n, err);
        if (r < 0)
                return r;
        if (n == 0) {
                free(v);
                return error_setf(err, -ENOENT, "no cell %s in run %lld", cell_key, (long long)run_id);
        }
        *ret_cell = v;
        return 0;
}

/* ---- one cell's data ---------------------------------------------------- */

void query_metrics_free(struct query_metric *m, size_t n) {
        if (!m)
                return;
        for (size_t i = 0; i < n; i++) {
                free(m[i].name);
                free(m[i].unit);
                free(m[i].note);
        }
        free(m);
}

static void metrics_free(void *v, size_t n) {
        query_metrics_free(v, n);
}

static void metric_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_metric *m = row;

        m->name = col_dup(s, 0, oom);
        m->value = col_real(s, 1);
        m->has_value = !isnan(m->value);
        m->unit = col_dup(s, 2, oom);
        m->note = col_dup(s, 3, oom);
}

int query_cell_metrics(struct db *db, int64_t cell_id, struct query_metric **ret, size_t *ret_n,
                       struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT name, value, unit, note FROM metrics WHERE cell_id = ?1 ORDER BY name",
                      &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        return rows_read(db, s, sizeof(**ret), metric_read, metrics_free, "metrics", (void **)ret, ret_n, err);
}

static void vmstat_read(sqlite3_stmt *s, void *ret_row, int *oom) {
        struct db_vmstat_row *row = ret_row;

        (void)oom;      /* numbers only: nothing to copy */
        row->seq = sqlite3_column_int64(s, 0);
        row->t_host = col_real(s, 1);
        row->t_guest = col_real(s, 2);
        row->first = sqlite3_column_int(s, 3);
        for (int k = 0; k < DB_VM_NCOLS; k++)
                row->v[k] = col_real(s, 4 + k);
}

int query_cell_vmstat(struct db *db, int64_t cell_id, struct db_vmstat_row **ret, size_t *ret_n,
                      struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char sql[1024];
        size_t len;
        int r;

        /* Column names come from the compile-time list, never from data. */
        len = (size_t)snprintf(sql, sizeof(sql), "SELECT seq, t_host, t_guest, first");
        for (size_t k = 0; k < DB_VM_NCOLS; k++)
                len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", \"%s\"", db_vmstat_column_names[k]);
        snprintf(sql + len, sizeof(sql) - len, " FROM vmstat WHERE cell_id = ?1 ORDER BY seq");
        r = q_prepare(db, sql, &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        return rows_read(db, s, sizeof(**ret), vmstat_read, NULL, "vmstat", (void **)ret, ret_n, err);
}

/* A stored counter, or -1 for NULL (not reported) and for anything that is
 * not a non-negative integer (the file is data). */
static int64_t col_counter(sqlite3_stmt *s, int i) {
        int64_t v;

        if (sqlite3_column_type(s, i) != SQLITE_INTEGER)
                return -1;
        v = sqlite3_column_int64(s, i);
        return v < 0 ? -1 : v;
}

static void hostblk_read(sqlite3_stmt *s, void *p, int *oom) {
        struct db_hostblk_row *row = p;

        (void)oom;
        row->t_host = col_real(s, 0);
        row->rd_bytes = col_counter(s, 1);
        row->wr_bytes = col_counter(s, 2);
        row->rd_reqs = col_counter(s, 3);
        row->wr_reqs = col_counter(s, 4);
}

int query_cell_hostblk(struct db *db, int64_t cell_id, struct db_hostblk_row **ret, size_t *ret_n,
                       struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT t_host, rd_bytes, wr_bytes, rd_reqs, wr_reqs FROM host_block "
                          "WHERE cell_id = ?1 ORDER BY seq", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        return rows_read(db, s, sizeof(**ret), hostblk_read, NULL, "host_block", (void **)ret, ret_n, err);
}

void query_points_free(struct query_point *p, size_t n) {
        if (!p)
                return;
        for (size_t i = 0; i < n; i++)
                free(p[i].kind);
        free(p);
}

static void points_free(void *v, size_t n) {
        query_points_free(v, n);
}

static void point_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_point *p = row;

        p->kind = col_dup(s, 0, oom);
        p->t = col_real(s, 1);
        p->value = col_real(s, 2);
}

int query_cell_points(struct db *db, int64_t cell_id, struct query_point **ret, size_t *ret_n,
                      struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT kind, t, value FROM timeline WHERE cell_id = ?1 ORDER BY kind, t",
                      &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        return rows_read(db, s, sizeof(**ret), point_read, points_free, "timeline", (void **)ret, ret_n, err);
}

void query_marks_free(struct query_mark *m, size_t n) {
        if (!m)
                return;
        for (size_t i = 0; i < n; i++)
                free(m[i].name);
        free(m);
}

static void marks_free(void *v, size_t n) {
        query_marks_free(v, n);
}

static void mark_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_mark *m = row;

        m->name = col_dup(s, 0, oom);
        m->t_guest = col_real(s, 1);
        m->t_host = col_real(s, 2);
}

int query_cell_marks(struct db *db, int64_t cell_id, struct query_mark **ret, size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT name, t_guest, t_host FROM marks WHERE cell_id = ?1 AND name IS NOT NULL "
                          "AND typeof(t_guest) IN ('integer', 'real') ORDER BY seq", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        return rows_read(db, s, sizeof(**ret), mark_read, marks_free, "marks", (void **)ret, ret_n, err);
}

void query_log_infos_free(struct query_log_info *l, size_t n) {
        if (!l)
                return;
        for (size_t i = 0; i < n; i++)
                free(l[i].stream);
        free(l);
}

static void log_infos_free(void *v, size_t n) {
        query_log_infos_free(v, n);
}

static void log_info_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_log_info *l = row;

        l->stream = col_dup(s, 0, oom);
        l->bytes = sqlite3_column_int64(s, 1);
}

int query_cell_logs(struct db *db, int64_t cell_id, struct query_log_info **ret, size_t *ret_n,
                    struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT stream, length(CAST(text AS BLOB)) FROM logs WHERE cell_id = ?1 "
                          "ORDER BY stream", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        return rows_read(db, s, sizeof(**ret), log_info_read, log_infos_free, "logs", (void **)ret, ret_n, err);
}

int query_cell_log(struct db *db, int64_t cell_id, const char *stream, char **ret_text,
                   size_t *ret_len, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        const void *blob;
        char *text;
        int r, rc, len;

        r = q_prepare(db, "SELECT text FROM logs WHERE cell_id = ?1 AND stream = ?2", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, cell_id);
        sqlite3_bind_text(s, 2, stream, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return error_setf(err, -ENOENT, "cell has no %s log", stream);
        if (rc != SQLITE_ROW)
                return db_error(db, rc, err, "reading log %s", stream);
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

void query_series_free(struct query_series *s, size_t n) {
        if (!s)
                return;
        for (size_t i = 0; i < n; i++) {
                free(s[i].kernel_id);
                free(s[i].kernel_name);
                free(s[i].workload);
                free(s[i].metric);
                free(s[i].unit);
                free(s[i].values);
        }
        free(s);
}

static int same_col(sqlite3_stmt *s, int i, const char *v) {
        const unsigned char *t = sqlite3_column_text(s, i);
        return t && v && strcmp((const char *)t, v) == 0;
}

int query_run_samples(struct db *db, int64_t run_id, struct query_series **ret, size_t *ret_n,
                      struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct query_series *v = NULL, *cur = NULL;
        size_t n = 0, cap = 0, vcap = 0;
        int r, rc, oom = 0;

        /* Only ok cells: a failed cell's partial metrics never enter statistics.
         * A cell run again counts by its latest attempt, as in compare. */
        r = q_prepare(db, "SELECT c.kernel_id, " KERNEL_LABEL("vr", "k.name") ", c.workload, m.name, m.unit, m.value, "
                          "(SELECT min(id) FROM cells f WHERE f.run_id = c.run_id AND f.kernel_id = c.kernel_id) AS kfirst "
                          "FROM metrics m JOIN cells c ON c.id = m.cell_id "
                          "JOIN kernels k ON k.id = c.kernel_id JOIN runs vr ON vr.id = c.run_id "
                          "WHERE c.run_id = ?1 AND c.state = 'ok' "
                          "AND c.attempt = (SELECT max(attempt) FROM cells l "
                          "                 WHERE l.run_id = c.run_id AND l.cell_key = c.cell_key) "
                          "ORDER BY kfirst, c.workload, m.name, c.id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                if (!cur || !same_col(s, 0, cur->kernel_id) || !same_col(s, 2, cur->workload) ||
                    !same_col(s, 3, cur->metric)) {
                        if (grow((void **)&v, &cap, n, sizeof(*v)) < 0) {
                                oom = 1;
                                break;
                        }
                        cur = &v[n++];
                        vcap = 0;
                        cur->kernel_id = col_dup(s, 0, &oom);
                        cur->kernel_name = col_dup(s, 1, &oom);
                        cur->workload = col_dup(s, 2, &oom);
                        cur->metric = col_dup(s, 3, &oom);
                        cur->unit = col_dup(s, 4, &oom);
                        if (oom)
                                break;
                }
                if (isnan(col_real(s, 5))) {
                        cur->n_missing++;
                        continue;
                }
                if (grow((void **)&cur->values, &vcap, cur->n, sizeof(double)) < 0) {
                        oom = 1;
                        break;
                }
                cur->values[cur->n++] = col_real(s, 5);
        }
        if (oom || rc != SQLITE_DONE) {
                query_series_free(v, n);
                return oom ? error_setf(err, -ENOMEM, "out of memory")
                           : db_error(db, rc, err, "reading samples");
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* ---- selections for compare -------------------------------------------- */

void query_kernels_free(struct query_kernel *k, size_t n) {
        if (!k)
                return;
        for (size_t i = 0; i < n; i++) {
                free(k[i].id);
                free(k[i].name);
        }
        free(k);
}

static void kernels_free(void *v, size_t n) {
        query_kernels_free(v, n);
}

static void kernel_read(sqlite3_stmt *s, void *row, int *oom) {
        struct query_kernel *k = row;

        k->id = col_dup(s, 0, oom);
        k->name = col_dup(s, 1, oom);
}

static int kernels_select(struct db *db, sqlite3_stmt *s, struct query_kernel **ret, size_t *ret_n,
                          struct kb_error *err) {
        return rows_read(db, s, sizeof(**ret), kernel_read, kernels_free, "kernels", (void **)ret, ret_n, err);
}

int query_kernel_by_name(struct db *db, const char *name, struct query_kernel **ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct query_kernel *v = NULL;
        size_t n = 0;
        int r;

        r = q_prepare(db, "SELECT id, name FROM kernels WHERE name = ?1", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
        r = kernels_select(db, s, &v, &n, err);
        if (r < 0)
                return r;
        if (n == 0) {
                free(v);
                return error_setf(err, -ENOENT, "no kernel '%.128s' in %s", name, db_path(db));
        }
        *ret = v;
        return 0;
}

int query_run_kernels(struct db *db, int64_t run_id, struct query_kernel **ret, size_t *ret_n,
                      struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT c.kernel_id, k.name FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                          "WHERE c.run_id = ?1 GROUP BY c.kernel_id ORDER BY min(c.id)", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        return kernels_select(db, s, ret, ret_n, err);
}

int query_run_shown_kernels(struct db *db, int64_t run_id, struct query_kernel **ret, size_t *ret_n,
                            struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT c.kernel_id, " KERNEL_LABEL("vr", "k.name") " FROM cells c "
                          "JOIN kernels k ON k.id = c.kernel_id JOIN runs vr ON vr.id = c.run_id "
                          "WHERE c.run_id = ?1 GROUP BY c.kernel_id ORDER BY min(c.id)", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        return kernels_select(db, s, ret, ret_n, err);
}

/* Kernels by the name runs show them under: cells joined to their runs'
 * labels, a scan of cells (a name is not an index key; compare resolves
 * two selectors a call, nightly one per subject). */
int query_kernels_shown_as(struct db *db, const char *shown, struct query_kernel **ret, size_t *ret_n,
                           struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT DISTINCT c.kernel_id, ?1 FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                          "JOIN runs vr ON vr.id = c.run_id WHERE " KERNEL_LABEL("vr", "k.name") " = ?1 "
                          "ORDER BY c.kernel_id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(s, 1, shown, -1, SQLITE_TRANSIENT);
        return kernels_select(db, s, ret, ret_n, err);
}

static void id_read(sqlite3_stmt *s, void *row, int *oom) {
        (void)oom;
        *(int64_t *)row = sqlite3_column_int64(s, 0);
}

static int ids_select(struct db *db, sqlite3_stmt *s, int64_t **ret_ids, size_t *ret_n, struct kb_error *err) {
        return rows_read(db, s, sizeof(**ret_ids), id_read, NULL, "runs", (void **)ret_ids, ret_n, err);
}

int query_kernel_runs(struct db *db, const char *kernel_id, int64_t **ret_ids, size_t *ret_n,
                      struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        /* cells_by_kernel leads with kernel_id; the run ids come off its rows. */
        r = q_prepare(db, "SELECT DISTINCT run_id FROM cells WHERE kernel_id = ?1 ORDER BY run_id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(s, 1, kernel_id, -1, SQLITE_TRANSIENT);
        return ids_select(db, s, ret_ids, ret_n, err);
}

int query_shown_kernel_runs(struct db *db, const char *kernel_id, const char *shown, int64_t **ret_ids,
                            size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT DISTINCT c.run_id FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                          "JOIN runs vr ON vr.id = c.run_id WHERE c.kernel_id = ?1 AND "
                          KERNEL_LABEL("vr", "k.name") " = ?2 ORDER BY c.run_id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(s, 1, kernel_id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, shown, -1, SQLITE_TRANSIENT);
        return ids_select(db, s, ret_ids, ret_n, err);
}

int query_tag_runs(struct db *db, const char *tag, int64_t **ret_ids, size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = q_prepare(db, "SELECT id FROM runs WHERE tag = ?1 ORDER BY id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_text(s, 1, tag, -1, SQLITE_TRANSIENT);
        return ids_select(db, s, ret_ids, ret_n, err);
}

struct query_selection *query_selection_free(struct query_selection *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_cells; i++) {
                struct query_sel_cell *c = &s->cells[i];

                free(c->cell_key);
                free(c->workload);
                free(c->params_json);
                free(c->state);
                query_metrics_free(c->metrics, c->n_metrics);
        }
        free(s->cells);
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

static int selection_cells(struct db *db, struct query_selection *v, const char *workload, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        size_t cap = 0;
        int r, rc, oom = 0;

        r = q_prepare(db, "SELECT c.id, c.cell_key, c.workload, c.params_json, c.state, c.boot_s, "
                          "c.workload_s, c.total_s FROM cells c " SEL_WHERE "ORDER BY c.id", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, v->run_id);
        sqlite3_bind_text(s, 2, v->kernel_id, -1, SQLITE_TRANSIENT);
        if (workload)
                sqlite3_bind_text(s, 3, workload, -1, SQLITE_TRANSIENT);
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                struct query_sel_cell *c;

                if (grow((void **)&v->cells, &cap, v->n_cells, sizeof(*v->cells)) < 0) {
                        oom = 1;
                        break;
                }
                c = &v->cells[v->n_cells++];
                c->id = sqlite3_column_int64(s, 0);
                c->cell_key = col_dup(s, 1, &oom);
                c->workload = col_dup(s, 2, &oom);
                c->params_json = col_dup(s, 3, &oom);
                c->state = col_dup(s, 4, &oom);
                c->boot_s = col_real(s, 5);
                c->workload_s = col_real(s, 6);
                c->total_s = col_real(s, 7);
                if (oom)
                        break;
        }
        if (oom)
                return error_setf(err, -ENOMEM, "out of memory");
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "reading cells");
        return 0;
}

static int sel_cell_cmp(const void *key, const void *elem) {
        int64_t id = *(const int64_t *)key, other = ((const struct query_sel_cell *)elem)->id;

        return (id > other) - (id < other);
}

static int selection_metrics(struct db *db, struct query_selection *v, const char *workload,
                             struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct query_sel_cell *c = NULL;
        size_t cap = 0;
        int r, rc, oom = 0;

        /* No ORDER BY: the join walks each cell's metrics by primary key
         * (cell_id, name), so they come grouped by cell and sorted by name;
         * a sorter over every row would cost more than the rows. */
        r = q_prepare(db, "SELECT m.cell_id, m.name, m.value, m.unit FROM cells c "
                          "JOIN metrics m ON m.cell_id = c.id " SEL_WHERE "AND c.state = 'ok'", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, v->run_id);
        sqlite3_bind_text(s, 2, v->kernel_id, -1, SQLITE_TRANSIENT);
        if (workload)
                sqlite3_bind_text(s, 3, workload, -1, SQLITE_TRANSIENT);
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                int64_t cell_id = sqlite3_column_int64(s, 0);
                struct query_metric *m;

                if (!c || c->id != cell_id) {
                        /* v->cells is sorted by id (selection_cells). */
                        c = bsearch(&cell_id, v->cells, v->n_cells, sizeof(*v->cells), sel_cell_cmp);
                        if (!c)
                                continue;
                        cap = c->n_metrics;
                }
                if (grow((void **)&c->metrics, &cap, c->n_metrics, sizeof(*c->metrics)) < 0) {
                        oom = 1;
                        break;
                }
                m = &c->metrics[c->n_metrics++];
                m->name = col_dup(s, 1, &oom);
                m->value = col_real(s, 2);
                m->has_value = !isnan(m->value);
                m->unit = col_dup(s, 3, &oom);
                if (oom)
                        break;
        }
        if (oom)
                return error_setf(err, -ENOMEM, "out of memory");
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "reading metrics");
        return 0;
}

int query_selection(struct db *db, int64_t run_id, const char *kernel_id, const char *workload,
                    struct query_selection **ret, struct kb_error *err) {
        struct query_selection *v = calloc(1, sizeof(*v));
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r, rc, oom = 0;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        v->run_id = run_id;
        r = q_prepare(db, "SELECT r.tag, r.settings_json, "
                          "(SELECT " KERNEL_LABEL("r", "name") " FROM kernels WHERE id = ?2) "
                          "FROM runs r WHERE r.id = ?1", &s, err);
        if (r < 0)
                goto fail;
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_text(s, 2, kernel_id, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(s);
        if (rc == SQLITE_DONE) {
                r = error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db_path(db));
                goto fail;
        }
        if (rc != SQLITE_ROW) {
                r = db_error(db, rc, err, "reading run %lld", (long long)run_id);
                goto fail;
        }
        v->tag = col_dup(s, 0, &oom);
        v->settings_json = col_dup(s, 1, &oom);
        v->kernel_name = col_dup(s, 2, &oom);
        v->kernel_id = strdup(kernel_id);
        if (oom || !v->kernel_id) {
                r = error_setf(err, -ENOMEM, "out of memory");
                goto fail;
        }
        r = selection_cells(db, v, workload, err);
        if (r >= 0)
                r = selection_metrics(db, v, workload, err);
        if (r < 0)
                goto fail;
        *ret = v;
        return 0;
fail:
        query_selection_free(v);
        return r;
}
