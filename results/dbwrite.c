/* results/dbwrite.c: the rows a run writes (see dbwrite.h). A cell goes in
 * whole, in one IMMEDIATE transaction, or not at all, so an interrupted run
 * never leaves half a cell; every value is a bound parameter (db.h's
 * struct db_param), never SQL text. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/proto.h"
#include "common/util.h"
#include "results/cellstate.h"
#include "results/column.h"
#include "results/dbwrite.h"
#include "results/profile.h"

/* ---- kernels, runs and hosts -------------------------------------------- */

/* A time of day given, or now: started_at <= 0 and added_at <= 0 mean now. */
static double or_now(double t) {
        return t > 0 ? t : (double)time(NULL);
}

int db_kernel_upsert(struct db *db, const struct db_kernel *k, struct kb_error *err) {
        int r;

        if (!k->id || !k->name)
                return error_setf(err, -EINVAL, "%s: kernel without id or name", db_path(db));
        r = db_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        /* Another image under the same name (removed from the store and a
         * different one imported): keep its history under a distinct name. */
        r = db_write(db, "UPDATE kernels SET name = name || '~' || substr(id, 1, 12) WHERE name = ?1 AND id != ?2",
                     DB_ARGS(DB_TEXT(k->name), DB_TEXT(k->id)), "renaming an older kernel", NULL, err);
        if (r >= 0)
                r = db_write(db, "INSERT INTO kernels(id, name, release, source, added_at) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(id) DO UPDATE SET "
                                 "name = excluded.name, release = excluded.release, source = excluded.source",
                             DB_ARGS(DB_TEXT(k->id), DB_TEXT(k->name), DB_TEXT(k->release), DB_TEXT(k->source),
                                     DB_REAL(or_now(k->added_at))),
                             "storing kernel", NULL, err);
        if (r >= 0)
                return db_exec(db, "COMMIT", err);
        sqlite3_exec(db_handle(db), "ROLLBACK", NULL, NULL, NULL);
        return r;
}

int db_run_create(struct db *db, struct db_run *run, struct kb_error *err) {
        int r = db_write(db, "INSERT INTO runs(tag, settings_json, host, host_info_json, qemu_version, "
                             "libvirt_version, kbench_version, started_at, status) "
                             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running')",
                         DB_ARGS(DB_TEXT(run->tag), DB_TEXT(run->settings_json ? run->settings_json : "{}"),
                                 DB_TEXT(run->host), DB_TEXT(run->host_info_json), DB_TEXT(run->qemu_version),
                                 DB_TEXT(run->libvirt_version), DB_TEXT(run->kbench_version),
                                 DB_REAL(or_now(run->started_at))),
                         "creating run", NULL, err);

        if (r < 0)
                return r;
        run->id = sqlite3_last_insert_rowid(db_handle(db));
        return 0;
}

int db_host_upsert(struct db *db, const struct db_host *h, int64_t *ret_id, struct kb_error *err) {
        char what[300];

        snprintf(what, sizeof(what), "storing host %s", h->name);
        /* The row is what the host was: an existing one is reused, never
         * changed (its cells were measured on what it says). */
        return db_one_int64(db, "INSERT INTO hosts(name, uri, hostname, cpu_model, qemu_version, libvirt_version, "
                                "info_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO UPDATE SET id = id "
                                "RETURNING id",
                            DB_ARGS(DB_TEXT(h->name), DB_TEXT(h->uri), DB_TEXT(h->hostname), DB_TEXT(h->cpu_model),
                                    DB_TEXT(h->qemu_version), DB_TEXT(h->libvirt_version), DB_TEXT(h->info_json)),
                            what, ret_id, err);
}

/* An UPDATE of run run_id: no row changed is -ENOENT, no such run. */
static int run_update(struct db *db, int64_t run_id, const char *sql, const struct db_param *params,
                      size_t n_params, const char *what, struct kb_error *err) {
        int changes = 0;
        int r = db_write(db, sql, params, n_params, what, &changes, err);

        if (r < 0)
                return r;
        if (changes == 0)
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db_path(db));
        return 0;
}

int db_run_finish(struct db *db, int64_t run_id, const char *status, struct kb_error *err) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return run_update(db, run_id, "UPDATE runs SET finished_at = ?1, status = ?2 WHERE id = ?3",
                          DB_ARGS(DB_REAL((double)ts.tv_sec + ts.tv_nsec / 1e9),
                                  DB_TEXT(status ? status : "complete"), DB_INT(run_id)),
                          "finishing run", err);
}

int db_run_set_setting(struct db *db, int64_t run_id, const char *key, const char *json_value,
                       struct kb_error *err) {
        /* json_set with a '$."key"' path: a key is never read as a path. */
        return run_update(db, run_id, "UPDATE runs SET settings_json = json_set(settings_json, '$.\"' || ?1 || "
                                      "'\"', json(?2)) WHERE id = ?3",
                          DB_ARGS(DB_TEXT(key), DB_TEXT(json_value), DB_INT(run_id)),
                          "updating the run's settings", err);
}

int db_run_reopen(struct db *db, int64_t run_id, struct kb_error *err) {
        return run_update(db, run_id, "UPDATE runs SET finished_at = NULL, status = 'running' WHERE id = ?1",
                          DB_ARGS(DB_INT(run_id)), "reopening run", err);
}

int db_runs_interrupt(struct db *db, int *ret_n, struct kb_error *err) {
        return db_write(db, "UPDATE runs SET status = 'interrupted' WHERE status = 'running'", DB_NO_ARGS,
                        "marking interrupted runs", ret_n, err);
}

/* ---- cells ------------------------------------------------------------ */

/* A count libvirt did not report (-1), or a host id of the run's own host
 * (0), is stored as NULL. */
static struct db_param int_or_null(int64_t v, int64_t least) {
        return v < least ? (struct db_param)DB_NULL : (struct db_param)DB_INT(v);
}

static int cell_insert_row(struct db *db, const struct db_cell *c, int64_t *ret_id, struct kb_error *err) {
        int r = db_write(db, "INSERT INTO cells(run_id, cell_key, kernel_id, workload, params_json, "
                             "iteration, attempt, state, detail, accel, started_at, boot_s, workload_s, "
                             "total_s, exit_code, rejected_records, host_id) VALUES "
                             "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                         DB_ARGS(DB_INT(c->run_id), DB_TEXT(c->cell_key), DB_TEXT(c->kernel_id),
                                 DB_TEXT(c->workload), DB_TEXT(c->params_json), DB_INT(c->iteration),
                                 DB_INT(c->attempt > 0 ? c->attempt : 1), DB_TEXT(c->state), DB_TEXT(c->detail),
                                 DB_TEXT(c->accel), DB_REAL(c->started_at), DB_REAL(c->boot_s),
                                 DB_REAL(c->workload_s), DB_REAL(c->total_s), DB_INT(c->exit_code),
                                 DB_INT(c->rejected_records), int_or_null(c->host_id, 1)),
                         "storing cell", NULL, err);

        if (r < 0)
                return error_prefix(err, r, "cell %s", c->cell_key);
        *ret_id = sqlite3_last_insert_rowid(db_handle(db));
        return 0;
}

static int cell_insert_metrics(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_metrics == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO metrics(cell_id, name, value, unit, note) VALUES (?1, ?2, ?3, ?4, ?5)", &s,
                       err);
        for (size_t i = 0; r >= 0 && i < c->n_metrics; i++) {
                const struct db_metric *m = &c->metrics[i];

                if (!m->name)
                        return error_setf(err, -EINVAL, "cell %s: metric without a name", c->cell_key);
                r = db_step_args(db, s, DB_ARGS(DB_INT(id), DB_TEXT(m->name), DB_REAL(m->has_value ? m->value : NAN),
                                                DB_TEXT(m->unit ? m->unit : ""), DB_TEXT(m->note)),
                                 "storing metric", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s: metric %s", c->cell_key, m->name);
        }
        return r;
}

/* The INSERT of a vmstat row: its column names come from the compile-time
 * list, never from data. */
static void vmstat_insert_sql(char *sql, size_t size) {
        size_t n = (size_t)snprintf(sql, size, "INSERT INTO vmstat(cell_id, seq, t_host, t_guest, first");

        for (size_t k = 0; k < DB_VM_NCOLS; k++)
                n += (size_t)snprintf(sql + n, size - n, ", \"%s\"", db_vmstat_column_names[k]);
        n += (size_t)snprintf(sql + n, size - n, ") VALUES (?, ?, ?, ?, ?");
        for (size_t k = 0; k < DB_VM_NCOLS; k++)
                n += (size_t)snprintf(sql + n, size - n, ", ?");
        snprintf(sql + n, size - n, ")");
}

static int cell_insert_vmstat(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct db_param p[5 + DB_VM_NCOLS];
        char sql[1024];
        int r;

        if (c->n_vmstat == 0)
                return 0;
        vmstat_insert_sql(sql, sizeof(sql));
        r = db_prepare(db, sql, &s, err);
        for (size_t i = 0; r >= 0 && i < c->n_vmstat; i++) {
                const struct db_vmstat_row *v = &c->vmstat[i];

                p[0] = (struct db_param)DB_INT(id);
                p[1] = (struct db_param)DB_INT(v->seq);
                p[2] = (struct db_param)DB_REAL(v->t_host);
                p[3] = (struct db_param)DB_REAL(v->t_guest);
                p[4] = (struct db_param)DB_INT(v->first ? 1 : 0);
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        p[5 + k] = (struct db_param)DB_REAL(v->v[k]);
                r = db_step_args(db, s, p, ELEMENTSOF(p), "storing vmstat row", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s: vmstat seq %lld", c->cell_key, (long long)v->seq);
        }
        return r;
}

static int cell_insert_points(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_points == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO timeline(cell_id, kind, t, value) VALUES (?1, ?2, ?3, ?4)", &s, err);
        for (size_t i = 0; r >= 0 && i < c->n_points; i++) {
                const struct db_point *p = &c->points[i];

                if (!p->kind || !isfinite(p->t))
                        return error_setf(err, -EINVAL, "cell %s: timeline point without kind or time",
                                          c->cell_key);
                r = db_step_args(db, s, DB_ARGS(DB_INT(id), DB_TEXT(p->kind), DB_REAL(p->t), DB_REAL(p->value)),
                                 "storing timeline point", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s", c->cell_key);
        }
        return r;
}

static int cell_insert_hostblk(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_hostblk == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO host_block(cell_id, seq, t_host, rd_bytes, wr_bytes, rd_reqs, wr_reqs) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &s, err);
        for (size_t i = 0; r >= 0 && i < c->n_hostblk; i++) {
                const struct db_hostblk_row *b = &c->hostblk[i];

                if (!isfinite(b->t_host))
                        return error_setf(err, -EINVAL, "cell %s: host block sample %zu without a time",
                                          c->cell_key, i);
                r = db_step_args(db, s, DB_ARGS(DB_INT(id), DB_INT((int64_t)i), DB_REAL(b->t_host),
                                                int_or_null(b->rd_bytes, 0), int_or_null(b->wr_bytes, 0),
                                                int_or_null(b->rd_reqs, 0), int_or_null(b->wr_reqs, 0)),
                                 "storing host block sample", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s", c->cell_key);
        }
        return r;
}

static int marks_prepare(struct db *db, sqlite3_stmt **ret, struct kb_error *err) {
        return db_prepare(db, "INSERT INTO marks(cell_id, seq, t_guest, t_host, name) VALUES (?1, ?2, ?3, ?4, ?5)",
                          ret, err);
}

/* One row of marks through s (marks_prepare). */
static int mark_insert(struct db *db, sqlite3_stmt *s, int64_t cell_id, int64_t seq, const struct db_mark *m,
                       struct kb_error *err) {
        size_t len = strlen(m->name);

        if (!isfinite(m->t_guest) || len > PROTO_PAYLOAD_MAX)
                return error_setf(err, -EINVAL, "%s: mark %lld of cell %lld without a guest time or too long",
                                  db_path(db), (long long)seq, (long long)cell_id);
        return db_step_args(db, s, DB_ARGS(DB_INT(cell_id), DB_INT(seq), DB_REAL(m->t_guest), DB_REAL(m->t_host),
                                           DB_TEXTN(m->name, len)),
                            "storing mark", err);
}

static int cell_insert_marks(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_marks == 0)
                return 0;
        r = marks_prepare(db, &s, err);
        for (size_t i = 0; r >= 0 && i < c->n_marks; i++) {
                if (!c->marks[i].name)
                        return error_setf(err, -EINVAL, "cell %s: mark without a name", c->cell_key);
                r = mark_insert(db, s, id, (int64_t)i, &c->marks[i], err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s", c->cell_key);
        }
        return r;
}

void db_marks_free(struct db_mark *m, size_t n) {
        for (size_t i = 0; m && i < n; i++)
                free((char *)m[i].name);
        free(m);
}

/* Backfilled by the migration, once, rather than by a fallback in every
 * reader: the readers then have one source of marks, and the raw log is
 * parsed by nothing but the cell and this. */
int db_marks_from_log(const char *text, size_t len, double boot_s, struct db_mark **ret, size_t *ret_n) {
        struct db_mark *v = NULL;
        size_t n = 0, cap = 0, i = 0;
        double offset = NAN;

        while (i < len) {
                const char *nl = memchr(text + i, '\n', len - i);
                size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
                struct proto_record rec;

                if (proto_parse(text + i, l, &rec) == PROTO_OK) {
                        double t = (double)rec.t_ms / 1000;

                        if (strcmp(rec.type, "ready") == 0 && isnan(offset) && isfinite(boot_s))
                                offset = boot_s - t;
                        if (strcmp(rec.type, "event") == 0) {
                                char *name = strdup(rec.payload);   /* cut at a NUL, as the cell cuts it */
                                struct db_mark *nv = n < cap ? v : realloc(v, (cap ? cap * 2 : 16) * sizeof(*nv));

                                if (!name || !nv) {
                                        free(name);
                                        db_marks_free(nv ? nv : v, n);
                                        return -ENOMEM;
                                }
                                if (n == cap)
                                        cap = cap ? cap * 2 : 16;
                                v = nv;
                                v[n++] = (struct db_mark){ name, t, t + offset };
                        }
                }
                i += l + 1;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

int dbwrite_fill_marks(struct db *db, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *q = NULL, *ins = NULL;
        int r, rc;

        r = db_prepare(db, "SELECT c.id, c.boot_s, l.text FROM cells c JOIN logs l ON l.cell_id = c.id "
                           "AND l.stream = 'data' ORDER BY c.id", &q, err);
        if (r >= 0)
                r = marks_prepare(db, &ins, err);
        if (r < 0)
                return r;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
                int64_t id = sqlite3_column_int64(q, 0);
                double boot_s;
                const char *text = sqlite3_column_blob(q, 2);
                int n = sqlite3_column_bytes(q, 2);
                struct db_mark *m = NULL;
                size_t nm = 0;

                /* Text or an infinity there is no boot time: NAN, as NULL. */
                (void)column_real(q, 1, COLUMN_OPTIONAL, &boot_s);
                if (!text || n <= 0)
                        continue;
                if (db_marks_from_log(text, (size_t)n, boot_s, &m, &nm) < 0)
                        return error_setf(err, -ENOMEM, "out of memory");
                for (size_t i = 0; i < nm && r >= 0; i++)
                        r = mark_insert(db, ins, id, (int64_t)i, &m[i], err);
                db_marks_free(m, nm);
                if (r < 0)
                        return r;
        }
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "reading the data logs");
        return 0;
}

static int cell_insert_logs(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_logs == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO logs(cell_id, stream, text) VALUES (?1, ?2, ?3)", &s, err);
        for (size_t i = 0; r >= 0 && i < c->n_logs; i++) {
                const struct db_log *l = &c->logs[i];

                if (!l->stream || (!l->text && l->len > 0) || l->len > (size_t)INT32_MAX)
                        return error_setf(err, -EINVAL, "cell %s: bad log", c->cell_key);
                /* A blob, not text: console logs can hold NUL and invalid UTF-8. */
                r = db_step_args(db, s, DB_ARGS(DB_INT(id), DB_TEXT(l->stream), DB_BLOB(l->text ? l->text : "", l->len)),
                                 "storing log", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s: log %s", c->cell_key, l->stream);
        }
        return r;
}

/* The parts of a cell, each a table, stored in this order after its row. */
static int (*const cell_parts[])(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) = {
        cell_insert_metrics, cell_insert_vmstat, cell_insert_points, cell_insert_hostblk,
        cell_insert_marks, cell_insert_logs, db_profile_insert,
};

int db_cell_insert(struct db *db, const struct db_cell *cell, int64_t *ret_cell_id, struct kb_error *err) {
        int64_t id = 0;
        int r;

        if (!cell->cell_key || !cell->kernel_id || !cell->workload || !cell->state)
                return error_setf(err, -EINVAL, "%s: cell without key, kernel, workload or state", db_path(db));
        r = db_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        r = cell_insert_row(db, cell, &id, err);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(cell_parts); i++)
                r = cell_parts[i](db, cell, id, err);
        if (r >= 0)
                r = db_exec(db, "COMMIT", err);
        if (r < 0) {
                sqlite3_exec(db_handle(db), "ROLLBACK", NULL, NULL, NULL);
                return r;
        }
        if (ret_cell_id)
                *ret_cell_id = id;
        return 0;
}

int db_run_done_keys(struct db *db, int64_t run_id, char ***ret_keys, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char **keys = NULL;
        size_t n = 0, cap = 0;
        int r, rc;

        r = db_prepare(db, "SELECT DISTINCT cell_key FROM cells WHERE run_id = ?1 AND state = ?2 ORDER BY cell_key",
                       &s, err);
        if (r >= 0)
                r = db_bind(db, s, DB_ARGS(DB_INT(run_id), DB_TEXT(cellstate_name(CELLSTATE_OK))), "reading done cells",
                            err);
        if (r < 0)
                return r;
        for (;;) {
                rc = sqlite3_step(s);
                if (rc == SQLITE_DONE)
                        break;
                if (rc != SQLITE_ROW) {
                        r = db_error(db, rc, err, "reading done cells");
                        goto fail;
                }
                if (n + 2 > cap) {
                        size_t ncap = cap ? cap * 2 : 16;
                        char **nk = realloc(keys, ncap * sizeof(*nk));
                        if (!nk) {
                                r = error_setf(err, -ENOMEM, "out of memory");
                                goto fail;
                        }
                        keys = nk;
                        cap = ncap;
                }
                r = column_text(s, 0, COLUMN_NEEDED, &keys[n]);
                if (r < 0) {
                        char where[40];

                        snprintf(where, sizeof(where), "an ok cell of run %lld", (long long)run_id);
                        r = column_error(db, r, "cells.cell_key", where, err);
                        goto fail;
                }
                n++;
        }
        if (!keys) {
                keys = calloc(1, sizeof(*keys));
                if (!keys)
                        return error_setf(err, -ENOMEM, "out of memory");
        }
        keys[n] = NULL;
        *ret_keys = keys;
        return 0;
fail:
        for (size_t i = 0; i < n; i++)
                free(keys[i]);
        free(keys);
        return r;
}

int db_cell_next_attempt(struct db *db, int64_t run_id, const char *cell_key, int *ret_attempt,
                         struct kb_error *err) {
        char what[300];
        int64_t v;
        int r;

        snprintf(what, sizeof(what), "reading attempts of %s", cell_key);
        r = db_one_int64(db, "SELECT coalesce(max(attempt), 0) + 1 FROM cells WHERE run_id = ?1 AND cell_key = ?2",
                         DB_ARGS(DB_INT(run_id), DB_TEXT(cell_key)), what, &v, err);
        if (r < 0)
                return r;
        *ret_attempt = (int)v;
        return 0;
}
