/* cellrows.c: a finished cell as database rows, and pending cells on disk
 * (see cellrows.h). */
#include <errno.h>
#include <fnmatch.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/fileio.h"
#include "common/util.h"
#include "cell/cellprof.h"
#include "cell/cellrows.h"
#include "report/hostdisk.h"
#include "workloads/vmstat.h"
#include "workloads/vmstat_metrics.h"

/* The [first, last] time of the timeline series kind, or NANs. */
static void series_span(const struct cell_result *res, const char *kind, double *ret_from, double *ret_to) {
        double from = NAN, to = NAN;

        for (guint i = 0; kind && i < res->points->len; i++) {
                const struct cell_point *p = &g_array_index(res->points, struct cell_point, i);
                if (strcmp(p->kind, kind) != 0)
                        continue;
                from = isnan(from) || p->t < from ? p->t : from;
                to = isnan(to) || p->t > to ? p->t : to;
        }
        *ret_from = from;
        *ret_to = to;
}

/* ops' row for the phase named name, or NULL: not stored on its own. */
static const struct workload_phase *phase_wanted(const struct workload_ops *ops, const char *name) {
        for (size_t i = 0; ops->vmstat_phases && ops->vmstat_phases[i].pattern; i++)
                if (fnmatch(ops->vmstat_phases[i].pattern, name, 0) == 0)
                        return &ops->vmstat_phases[i];
        return NULL;
}

/* The job's phases on the host clock of the vmstat rows: its fd-3 events
 * and the window series. OUT: ret (up to VMSTAT_PHASES_MAX); returns the
 * number. */
static size_t cell_phases(const struct workload_ops *ops, const struct cell_result *res, struct vmstat_phase *ret) {
        size_t n_ev = res->events ? res->events->len : 0, n;
        g_autofree const char **names = g_new0(const char *, n_ev + 1);
        g_autofree double *t = g_new0(double, n_ev + 1);

        for (size_t i = 0; i < n_ev; i++) {
                const struct cell_event *e = &g_array_index(res->events, struct cell_event, i);
                names[i] = e->name;
                t[i] = e->t_host;
        }
        n = vmstat_phases_from_events(names, t, n_ev, ret, VMSTAT_PHASES_MAX);
        if (ops->vmstat_window && ops->vmstat_window_phase && n < VMSTAT_PHASES_MAX) {
                double from, to;
                series_span(res, ops->vmstat_window, &from, &to);
                if (!isnan(from)) {
                        ret[n] = (struct vmstat_phase){ .from = from, .to = to };
                        g_strlcpy(ret[n].name, ops->vmstat_window_phase, sizeof(ret[n].name));
                        n++;
                }
        }
        return n;
}

/* The cell's vmstat.* metrics: the plain names over the main phase (or the
 * whole capture), then vmstat.<phase>.* for each phase the workload keeps. */
static void phase_metrics(const struct workload_ops *ops, const struct vmstat_phase *ph, size_t n,
                          const struct vmstat_table *t, double interval, struct metric_list *metrics) {
        const struct vmstat_phase *main_ph = NULL;

        for (size_t i = 0; ops->vmstat_main && i < n; i++)
                if (strcmp(ph[i].name, ops->vmstat_main) == 0)
                        main_ph = &ph[i];
        vmstat_phase_metrics(t, NULL, 1, VMSTAT_BO_THRESHOLD, interval, main_ph ? main_ph->from : NAN,
                             main_ph ? main_ph->to : NAN, metrics);
        for (size_t i = 0; i < n; i++) {
                const struct workload_phase *w = phase_wanted(ops, ph[i].name);
                if (w)
                        vmstat_phase_metrics(t, ph[i].name, w->writes, VMSTAT_BO_THRESHOLD, interval, ph[i].from,
                                             ph[i].to, metrics);
        }
}

/* The phases the workload keeps (and its main one) as timeline points
 * "phase.<name>" at their start (value 0) and end (value 1), so that a
 * reader of the store (the site's charts) sees the windows the figures
 * describe. A phase still open at the end ends at the last vmstat row. */
static void phase_points(const struct workload_ops *ops, const struct cell_result *res,
                         const struct vmstat_phase *ph, size_t n, GArray *points) {
        double last = NAN;

        for (guint i = 0; i < res->vmstat->len; i++)
                last = g_array_index(res->vmstat, struct cell_vmstat_line, i).t_host;
        for (size_t i = 0; i < n; i++) {
                g_autofree char *kind = NULL;
                const char *k;
                double to = isinf(ph[i].to) ? last : ph[i].to;

                if (!phase_wanted(ops, ph[i].name) && g_strcmp0(ops->vmstat_main, ph[i].name) != 0)
                        continue;
                kind = g_strconcat("phase.", ph[i].name, NULL);
                k = g_intern_string(kind);
                g_array_append_val(points, ((struct db_point){ k, ph[i].from, 0 }));
                if (isfinite(to) && to >= ph[i].from)
                        g_array_append_val(points, ((struct db_point){ k, to, 1 }));
        }
}

/* Turn the agent's vmstat records into rows and vmstat.* metrics. The
 * agent prints the columns of common/vmstat-columns.h, so the reader maps
 * them by index: column c of its table is DB_VM c of the row (a record
 * that is not what the agent writes is left out, as it always was). */
static void vmstat_rows(const struct cell_result *res, const struct workload_ops *ops, const struct vmstat_phase *ph,
                        size_t n_ph, double interval, GArray *rows, struct metric_list *metrics) {
        struct vmstat_agent *a = vmstat_agent_new();
        g_autoptr(GArray) used = g_array_new(FALSE, FALSE, sizeof(guint));
        struct vmstat_table *t;

        if (!a)
                return;
        for (guint i = 0; i < res->vmstat->len; i++) {
                const struct cell_vmstat_line *v = &g_array_index(res->vmstat, struct cell_vmstat_line, i);
                int header = strcmp(v->type, "vmstat-header") == 0;
                if (vmstat_agent_feed(a, v->type, v->text, strlen(v->text), header ? NAN : v->t_host) == 1)
                        g_array_append_val(used, i);
        }
        t = vmstat_agent_finish(a);
        if (!t)
                return;
        for (size_t s = 0; s < t->nsamples && s < used->len; s++) {
                const struct cell_vmstat_line *v = &g_array_index(res->vmstat, struct cell_vmstat_line,
                                                                  g_array_index(used, guint, s));
                struct db_vmstat_row row = { .seq = v->seq, .t_host = v->t_host, .t_guest = v->t_guest,
                                             .first = t->samples[s].first };
                for (int c = 0; c < DB_VM_NCOLS; c++)
                        row.v[c] = vmstat_table_value(t, s, c);   /* NAN past the agent's columns */
                g_array_append_val(rows, row);
        }
        if (metrics)
                phase_metrics(ops, ph, n_ph, t, interval, metrics);
        vmstat_table_free(t);
}

/* The host's block statistics as rows, and for an ok cell its host.disk_*
 * metrics over the window they cover (go -> done) beside the vmstat rows.
 * Unknown figures carry the reason: the statistics could not be read (a
 * remote host whose libvirt refuses, a hypervisor without them), or too
 * few readings for a rate. */
static void hostblk_rows(const struct cell_result *res, const GArray *vmstat, double interval, GArray *rows,
                         struct metric_list *metrics) {
        struct hostdisk_summary sum;
        const char *note = res->hostblk_note[0] ? res->hostblk_note : NULL;

        for (guint i = 0; res->hostblk && i < res->hostblk->len; i++) {
                const struct cell_hostblk *b = &g_array_index(res->hostblk, struct cell_hostblk, i);
                struct db_hostblk_row row = { b->t, b->s.rd_bytes, b->s.wr_bytes, b->s.rd_reqs, b->s.wr_reqs };
                g_array_append_val(rows, row);
        }
        if (!metrics)
                return;
        if (!note && hostdisk_summarize((const struct db_vmstat_row *)(void *)vmstat->data, vmstat->len,
                                        (const struct db_hostblk_row *)(void *)rows->data, rows->len, interval,
                                        &sum) < 0)
                note = "fewer than two host block readings with a write counter";
        /* The names are literals so report/test-metrics.c finds them. */
        if (note) {
                metric_add_none(metrics, "host.disk_write_MBps", "MB/s", note);
                metric_add_none(metrics, "host.disk_read_MBps", "MB/s", note);
                metric_add_none(metrics, "host.disk_written_MB", "MB", note);
                metric_add_none(metrics, "host.write_disagree_s", "s", note);
                return;
        }
        metric_add(metrics, "host.disk_write_MBps", sum.write_MBps, "MB/s");
        if (isfinite(sum.read_MBps))
                metric_add(metrics, "host.disk_read_MBps", sum.read_MBps, "MB/s");
        else
                metric_add_none(metrics, "host.disk_read_MBps", "MB/s", "libvirt gave no read counter");
        metric_add(metrics, "host.disk_written_MB", sum.written_bytes / 1e6, "MB");
        metric_add(metrics, "host.write_disagree_s", sum.disagree_s, "s");
}

static int add_name(const char *name, void *userdata) {
        g_ptr_array_add(userdata, (gpointer)name);
        return 0;
}

/* An ok cell's profile, and the names of the table behind it (the
 * strings stay the result's). */
static void profile_rows(const struct cell_result *res, struct cellrows *r) {
        for (guint i = 0; res->profile && i < res->profile->len; i++) {
                const struct cell_profile_row *p = &g_array_index(res->profile, struct cell_profile_row, i);
                struct db_profile_row row = { p->phase, p->symbol, (int64_t)p->insns };

                if (p->insns > 0 && p->insns <= INT64_MAX)
                        g_array_append_val(r->profile, row);
        }
        if (res->ksyms && r->profile->len)
                ksyms_each_name(res->ksyms, add_name, r->kernel_symbols);
}

static void arrays_new(struct cellrows *r) {
        r->metrics = g_array_new(FALSE, FALSE, sizeof(struct db_metric));
        r->vmstat = g_array_new(FALSE, FALSE, sizeof(struct db_vmstat_row));
        r->points = g_array_new(FALSE, FALSE, sizeof(struct db_point));
        r->hostblk = g_array_new(FALSE, FALSE, sizeof(struct db_hostblk_row));
        r->marks = g_array_new(FALSE, FALSE, sizeof(struct db_mark));
        r->profile = g_array_new(FALSE, FALSE, sizeof(struct db_profile_row));
        r->kernel_symbols = g_ptr_array_new();
}

static void point_arrays(struct cellrows *r) {
        r->cell.n_metrics = r->metrics->len;
        r->cell.metrics = (const struct db_metric *)(void *)r->metrics->data;
        r->cell.n_vmstat = r->vmstat->len;
        r->cell.vmstat = (const struct db_vmstat_row *)(void *)r->vmstat->data;
        r->cell.n_points = r->points->len;
        r->cell.points = (const struct db_point *)(void *)r->points->data;
        r->cell.n_hostblk = r->hostblk->len;
        r->cell.hostblk = (const struct db_hostblk_row *)(void *)r->hostblk->data;
        r->cell.n_marks = r->marks->len;
        r->cell.marks = (const struct db_mark *)(void *)r->marks->data;
        r->cell.n_profile = r->profile->len;
        r->cell.profile = (const struct db_profile_row *)(void *)r->profile->data;
        r->cell.n_kernel_symbols = r->kernel_symbols->len;
        r->cell.kernel_symbols = (const char *const *)r->kernel_symbols->pdata;
        r->cell.logs = r->logs;
}

void cellrows_build(const struct cellrows_ctx *ctx, struct cell_result *res, struct cellrows *ret) {
        struct cellrows r = { 0 };
        int ok = cellstate_is(res->state, CELLSTATE_OK);
        struct vmstat_phase ph[VMSTAT_PHASES_MAX];
        size_t n_logs = 0, n_ph;

        arrays_new(&r);
        r.params_json = g_strdup(ctx->params_json);
        /* vmstat is kept for every cell (a failed cell's samples are evidence
         * too); metrics only for ok cells, so failures never enter statistics. */
        n_ph = cell_phases(ctx->workload->ops, res, ph);
        vmstat_rows(res, ctx->workload->ops, ph, n_ph,
                    ctx->vmstat_interval_s > 0 ? ctx->vmstat_interval_s : VMSTAT_INTERVAL, r.vmstat,
                    ok ? &res->metrics : NULL);
        hostblk_rows(res, r.vmstat, ctx->vmstat_interval_s > 0 ? ctx->vmstat_interval_s : VMSTAT_INTERVAL,
                     r.hostblk, ok ? &res->metrics : NULL);
        if (ok)
                for (size_t i = 0; i < res->metrics.n; i++) {
                        const struct metric *m = &res->metrics.v[i];
                        struct db_metric dm = { m->name, m->value, m->has_value, m->unit, m->note };
                        g_array_append_val(r.metrics, dm);
                }
        for (guint i = 0; i < res->points->len; i++) {
                const struct cell_point *p = &g_array_index(res->points, struct cell_point, i);
                struct db_point dp = { p->kind, p->t, p->value };
                g_array_append_val(r.points, dp);
        }
        phase_points(ctx->workload->ops, res, ph, n_ph, r.points);
        /* Every event is kept as the cell saw it, so the charts place the
         * marks from rows; which of them a chart labels is the chart's
         * choice. */
        for (guint i = 0; res->events && i < res->events->len; i++) {
                const struct cell_event *e = &g_array_index(res->events, struct cell_event, i);
                struct db_mark m = { e->name, e->t_guest, e->t_host };
                g_array_append_val(r.marks, m);
        }
        if (ok)
                profile_rows(res, &r);
        r.logs[n_logs++] = (struct db_log){ "console", res->console->str, res->console->len };
        r.logs[n_logs++] = (struct db_log){ "data", res->data->str, res->data->len };
        if (res->output)
                r.logs[n_logs++] = (struct db_log){ "output", res->output->str, res->output->len };
        if (res->script)
                r.logs[n_logs++] = (struct db_log){ "script", res->script, strlen(res->script) };
        r.cell = (struct db_cell){
                .run_id = ctx->run_id, .cell_key = ctx->cell_key, .kernel_id = ctx->kernel_id,
                .workload = ctx->workload->ops->name, .params_json = r.params_json,
                .iteration = ctx->iteration, .attempt = ctx->attempt, .state = res->state, .detail = res->detail,
                .accel = ctx->accel, .started_at = res->started_at, .boot_s = res->boot_s,
                .workload_s = res->workload_s, .total_s = res->total_s, .exit_code = res->exit_code,
                .rejected_records = res->rejected, .n_logs = n_logs,
        };
        *ret = r;
        point_arrays(ret);             /* after the copy: cell.logs points into *ret */
}

void cellrows_clear(struct cellrows *r) {
        if (r->metrics)
                g_array_free(r->metrics, TRUE);
        if (r->vmstat)
                g_array_free(r->vmstat, TRUE);
        if (r->points)
                g_array_free(r->points, TRUE);
        if (r->hostblk)
                g_array_free(r->hostblk, TRUE);
        if (r->marks)
                g_array_free(r->marks, TRUE);
        if (r->profile)
                g_array_free(r->profile, TRUE);
        if (r->kernel_symbols)
                g_ptr_array_free(r->kernel_symbols, TRUE);
        db_marks_free(r->log_marks, r->n_log_marks);
        g_free(r->params_json);
        for (size_t i = 0; i < G_N_ELEMENTS(r->log_bufs); i++)
                g_free(r->log_bufs[i]);
        json_decref(r->json);
        *r = (struct cellrows){ 0 };
}

/* ---- pending cells ------------------------------------------------------ */

/* NAN and infinities have no JSON form: null. */
static json_t *num(double v) {
        return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s) {
        return s ? json_string(s) : json_null();
}

json_t *cellrows_to_json(const struct db_cell *c) {
        json_t *j = json_object(), *a;

        json_object_set_new(j, "run_id", json_integer(c->run_id));
        json_object_set_new(j, "cell_key", str(c->cell_key));
        json_object_set_new(j, "kernel_id", str(c->kernel_id));
        json_object_set_new(j, "workload", str(c->workload));
        json_object_set_new(j, "params_json", str(c->params_json));
        json_object_set_new(j, "iteration", json_integer(c->iteration));
        json_object_set_new(j, "attempt", json_integer(c->attempt));
        json_object_set_new(j, "state", str(c->state));
        json_object_set_new(j, "detail", str(c->detail));
        json_object_set_new(j, "accel", str(c->accel));
        json_object_set_new(j, "started_at", num(c->started_at));
        json_object_set_new(j, "boot_s", num(c->boot_s));
        json_object_set_new(j, "workload_s", num(c->workload_s));
        json_object_set_new(j, "total_s", num(c->total_s));
        json_object_set_new(j, "exit_code", json_integer(c->exit_code));
        json_object_set_new(j, "rejected_records", json_integer(c->rejected_records));
        a = json_array();
        for (size_t i = 0; i < c->n_metrics; i++)
                json_array_append_new(a, json_pack("{s:s, s:o, s:b, s:s, s:o}", "name", c->metrics[i].name,
                                                   "value", num(c->metrics[i].value), "has_value",
                                                   c->metrics[i].has_value, "unit", c->metrics[i].unit,
                                                   "note", str(c->metrics[i].note)));
        json_object_set_new(j, "metrics", a);
        a = json_array();
        for (size_t i = 0; i < c->n_vmstat; i++) {
                const struct db_vmstat_row *v = &c->vmstat[i];
                json_t *vals = json_array();
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        json_array_append_new(vals, num(v->v[k]));
                json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:b, s:o}", "seq", (json_int_t)v->seq,
                                                   "t_host", num(v->t_host), "t_guest", num(v->t_guest),
                                                   "first", v->first, "v", vals));
        }
        json_object_set_new(j, "vmstat", a);
        a = json_array();
        for (size_t i = 0; i < c->n_points; i++)
                json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "kind", c->points[i].kind, "t",
                                                   num(c->points[i].t), "value", num(c->points[i].value)));
        json_object_set_new(j, "points", a);
        a = json_array();
        for (size_t i = 0; i < c->n_hostblk; i++) {
                const struct db_hostblk_row *b = &c->hostblk[i];
                json_array_append_new(a, json_pack("{s:o, s:I, s:I, s:I, s:I}", "t_host", num(b->t_host),
                                                   "rd_bytes", (json_int_t)b->rd_bytes, "wr_bytes",
                                                   (json_int_t)b->wr_bytes, "rd_reqs", (json_int_t)b->rd_reqs,
                                                   "wr_reqs", (json_int_t)b->wr_reqs));
        }
        json_object_set_new(j, "host_block", a);
        a = json_array();
        for (size_t i = 0; i < c->n_marks; i++)
                json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "name", c->marks[i].name, "t_guest",
                                                   num(c->marks[i].t_guest), "t_host", num(c->marks[i].t_host)));
        json_object_set_new(j, "marks", a);
        /* The profile's rows; the kernel's symbol names are left to a
         * later cell of the kernel. */
        a = json_array();
        for (size_t i = 0; i < c->n_profile; i++)
                json_array_append_new(a, json_pack("{s:s, s:s, s:I}", "phase", c->profile[i].phase, "symbol",
                                                   c->profile[i].symbol, "insns", (json_int_t)c->profile[i].insns));
        json_object_set_new(j, "profile", a);
        a = json_array();
        for (size_t i = 0; i < c->n_logs; i++)
        {
                /* Logs are raw bytes (a console may print anything): base64. */
                g_autofree char *b64 = g_base64_encode((const guchar *)(c->logs[i].text ? c->logs[i].text : ""),
                                                       c->logs[i].len);
                json_array_append_new(a, json_pack("{s:s, s:s}", "stream", c->logs[i].stream, "base64", b64));
        }
        json_object_set_new(j, "logs", a);
        return j;
}

static int get_str(json_t *j, const char *key, int nullable, const char **ret, struct kb_error *err) {
        json_t *v = json_object_get(j, key);

        if (nullable && (!v || json_is_null(v))) {
                *ret = NULL;
                return 0;
        }
        if (!json_is_string(v))
                return error_setf(err, -EINVAL, "%s: not a string", key);
        *ret = json_string_value(v);
        return 0;
}

static int get_int(json_t *j, const char *key, int64_t min, int64_t max, int64_t *ret, struct kb_error *err) {
        json_t *v = json_object_get(j, key);

        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
                return error_setf(err, -EINVAL, "%s: not an integer in %lld..%lld", key, (long long)min,
                                  (long long)max);
        *ret = json_integer_value(v);
        return 0;
}

static double get_num(json_t *j, const char *key) {
        json_t *v = json_object_get(j, key);

        return json_is_number(v) ? json_number_value(v) : NAN;
}

/* One element of a row array of a pending cell (entry i of its array)
 * appended to r. Strings stay borrowed from e. Returns 0, or -EINVAL with
 * err naming the field. */
typedef int (*row_from_json_fn)(json_t *e, size_t i, struct cellrows *r, struct kb_error *err);

static int metric_from_json(json_t *e, size_t i, struct cellrows *r, struct kb_error *err) {
        struct db_metric m = { .value = get_num(e, "value"),
                               .has_value = json_is_true(json_object_get(e, "has_value")) };

        (void)i;
        if (get_str(e, "name", 0, &m.name, err) < 0 || get_str(e, "unit", 0, &m.unit, err) < 0 ||
            get_str(e, "note", 1, &m.note, err) < 0)
                return -EINVAL;
        g_array_append_val(r->metrics, m);
        return 0;
}

static int vmstat_from_json(json_t *e, size_t i, struct cellrows *r, struct kb_error *err) {
        struct db_vmstat_row row = { .t_host = get_num(e, "t_host"), .t_guest = get_num(e, "t_guest"),
                                     .first = json_is_true(json_object_get(e, "first")) };
        json_t *a = json_object_get(e, "v");

        if (get_int(e, "seq", 0, INT64_MAX, &row.seq, err) < 0)
                return -EINVAL;
        /* A pending file from before the vm and disk columns holds the
         * first DB_VM_writeback + 1; the rest were not measured. */
        if (json_array_size(a) > DB_VM_NCOLS || json_array_size(a) < DB_VM_writeback + 1)
                return error_setf(err, -EINVAL, "vmstat[%zu]: not %d to %d values", i, DB_VM_writeback + 1,
                                  DB_VM_NCOLS);
        for (int k = 0; k < DB_VM_NCOLS; k++) {
                json_t *x = json_array_get(a, (size_t)k);
                row.v[k] = json_is_number(x) ? json_number_value(x) : NAN;
        }
        g_array_append_val(r->vmstat, row);
        return 0;
}

static int point_from_json(json_t *e, size_t i, struct cellrows *r, struct kb_error *err) {
        struct db_point p = { .t = get_num(e, "t"), .value = get_num(e, "value") };

        (void)i;
        if (get_str(e, "kind", 0, &p.kind, err) < 0)
                return -EINVAL;
        g_array_append_val(r->points, p);
        return 0;
}

static int hostblk_from_json(json_t *e, size_t i, struct cellrows *r, struct kb_error *err) {
        struct db_hostblk_row b = { .t_host = get_num(e, "t_host") };

        if (get_int(e, "rd_bytes", -1, INT64_MAX, &b.rd_bytes, err) < 0 ||
            get_int(e, "wr_bytes", -1, INT64_MAX, &b.wr_bytes, err) < 0 ||
            get_int(e, "rd_reqs", -1, INT64_MAX, &b.rd_reqs, err) < 0 ||
            get_int(e, "wr_reqs", -1, INT64_MAX, &b.wr_reqs, err) < 0)
                return error_prefix(err, -EINVAL, "host_block[%zu]", i);
        g_array_append_val(r->hostblk, b);
        return 0;
}

static int mark_from_json(json_t *e, size_t i, struct cellrows *r, struct kb_error *err) {
        struct db_mark m = { .t_guest = get_num(e, "t_guest"), .t_host = get_num(e, "t_host") };

        if (get_str(e, "name", 0, &m.name, err) < 0 || !isfinite(m.t_guest))
                return error_setf(err, -EINVAL, "marks[%zu]: no name or guest time", i);
        g_array_append_val(r->marks, m);
        return 0;
}

static int profile_from_json(json_t *e, size_t i, struct cellrows *r, struct kb_error *err) {
        struct db_profile_row p;

        if (get_str(e, "phase", 0, &p.phase, err) < 0 || get_str(e, "symbol", 0, &p.symbol, err) < 0 ||
            get_int(e, "insns", 1, INT64_MAX, &p.insns, err) < 0)
                return error_prefix(err, -EINVAL, "profile[%zu]", i);
        g_array_append_val(r->profile, p);
        return 0;
}

/* The row arrays of a pending cell and how each element is read. An array
 * that is absent is empty: host_block, marks and profile are absent in a
 * file written before each existed. */
static const struct {
        const char *key;
        row_from_json_fn fn;
} row_arrays[] = {
        { "metrics", metric_from_json },
        { "vmstat", vmstat_from_json },
        { "points", point_from_json },
        { "host_block", hostblk_from_json },
        { "marks", mark_from_json },
        { "profile", profile_from_json },
};

/* The logs of a pending cell, decoded into r (owned by r). */
static int logs_from_json(json_t *a, struct cellrows *r, struct kb_error *err) {
        json_t *e;
        size_t i;

        if (json_array_size(a) > G_N_ELEMENTS(r->logs))
                return error_setf(err, -EINVAL, "logs: more than %zu", G_N_ELEMENTS(r->logs));
        json_array_foreach(a, i, e) {
                json_t *t = json_object_get(e, "base64");
                gsize len = 0;

                if (get_str(e, "stream", 0, &r->logs[i].stream, err) < 0 || !json_is_string(t))
                        return error_setf(err, -EINVAL, "logs[%zu]: no stream or base64 text", i);
                r->log_bufs[i] = (char *)g_base64_decode(json_string_value(t), &len);
                r->logs[i].text = r->log_bufs[i] ? r->log_bufs[i] : "";
                r->logs[i].len = r->log_bufs[i] ? len : 0;
                r->cell.n_logs = i + 1;
        }
        return 0;
}

/* A file written before marks were rows: its marks from its data log, as
 * the store's migration fills those of a cell stored then. */
static int marks_from_data_log(struct cellrows *r, struct kb_error *err) {
        for (size_t i = 0; i < r->cell.n_logs && !r->log_marks; i++)
                if (strcmp(r->logs[i].stream, "data") == 0) {
                        if (db_marks_from_log(r->logs[i].text, r->logs[i].len, r->cell.boot_s, &r->log_marks,
                                              &r->n_log_marks) < 0)
                                return error_setf(err, -ENOMEM, "out of memory");
                        g_array_append_vals(r->marks, r->log_marks, (guint)r->n_log_marks);
                }
        return 0;
}

/* The row arrays of a pending cell (row_arrays, then the logs) into r,
 * whose arrays are new. Strings stay borrowed from j; decoded logs are
 * owned by r. Returns 0, or -EINVAL with err naming the field. */
static int arrays_from_json(json_t *j, struct cellrows *r, struct kb_error *err) {
        json_t *e;
        size_t i;

        for (size_t k = 0; k < G_N_ELEMENTS(row_arrays); k++)
                json_array_foreach(json_object_get(j, row_arrays[k].key), i, e)
                        if (row_arrays[k].fn(e, i, r, err) < 0)
                                return -EINVAL;
        if (logs_from_json(json_object_get(j, "logs"), r, err) < 0)
                return -EINVAL;
        return json_object_get(j, "marks") ? 0 : marks_from_data_log(r, err);
}

int cellrows_from_json(json_t *j, struct cellrows *ret, struct kb_error *err) {
        struct cellrows r = { 0 };
        struct db_cell *c = &r.cell;
        int64_t v;
        int rc = -EINVAL;

        if (!json_is_object(j))
                return error_setf(err, -EINVAL, "not a JSON object");
        arrays_new(&r);
        r.json = json_incref(j);
        if (get_int(j, "run_id", 1, INT64_MAX, &c->run_id, err) < 0 ||
            get_str(j, "cell_key", 0, &c->cell_key, err) < 0 || get_str(j, "kernel_id", 0, &c->kernel_id, err) < 0 ||
            get_str(j, "workload", 0, &c->workload, err) < 0 ||
            get_str(j, "params_json", 1, &c->params_json, err) < 0 || get_str(j, "state", 0, &c->state, err) < 0 ||
            get_str(j, "detail", 1, &c->detail, err) < 0 || get_str(j, "accel", 1, &c->accel, err) < 0)
                goto fail;
        if (get_int(j, "iteration", 0, INT32_MAX, &v, err) < 0)
                goto fail;
        c->iteration = (int)v;
        if (get_int(j, "attempt", 1, INT32_MAX, &v, err) < 0)
                goto fail;
        c->attempt = (int)v;
        if (get_int(j, "exit_code", -1, 255, &v, err) < 0)
                goto fail;
        c->exit_code = (int)v;
        if (get_int(j, "rejected_records", 0, INT32_MAX, &v, err) < 0)
                goto fail;
        c->rejected_records = (long)v;
        c->started_at = get_num(j, "started_at");
        c->boot_s = get_num(j, "boot_s");
        c->workload_s = get_num(j, "workload_s");
        c->total_s = get_num(j, "total_s");
        if (arrays_from_json(j, &r, err) < 0)
                goto fail;
        *ret = r;
        point_arrays(ret);
        return 0;
fail:
        cellrows_clear(&r);
        return rc;
}

int cellrows_save_pending(const char *dir, const struct db_cell *c, char **ret_path, struct kb_error *err) {
        g_autofree char *name = g_strdup_printf("run%lld-%s-%d.json", (long long)c->run_id, c->cell_key, c->attempt);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        _cleanup_free_ char *text = NULL;
        json_t *j;
        int r;

        if (g_mkdir_with_parents(dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", dir, g_strerror(errno));
        j = cellrows_to_json(c);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text)
                return error_setf(err, -ENOMEM, "%s: cannot serialise the cell", path);
        r = fileio_write_atomic(path, text, strlen(text), 0644, err);
        if (r < 0)
                return r;
        *ret_path = g_steal_pointer(&path);
        return 0;
}

int cellrows_store_pending(struct db *db, const char *dir, int64_t run_id, int *ret_n, struct kb_error *err) {
        g_autofree char *prefix = g_strdup_printf("run%lld-", (long long)run_id);
        GDir *d = g_dir_open(dir, 0, NULL);
        const char *name;
        int n = 0, r = 0;

        while (d && (name = g_dir_read_name(d))) {
                g_autofree char *path = NULL;
                struct cellrows rows;
                json_error_t jerr;
                json_t *j;

                if (!g_str_has_prefix(name, prefix) || !g_str_has_suffix(name, ".json"))
                        continue;
                path = g_build_filename(dir, name, NULL);
                j = json_load_file(path, 0, &jerr);
                if (!j) {
                        r = error_setf(err, -EINVAL, "%s: %s", path, jerr.text);
                        break;
                }
                r = cellrows_from_json(j, &rows, err);
                json_decref(j);
                if (r < 0) {
                        error_prefix(err, r, "%s", path);
                        break;
                }
                if (rows.cell.run_id != run_id) {
                        cellrows_clear(&rows);
                        r = error_setf(err, -EINVAL, "%s: run_id is not %lld", path, (long long)run_id);
                        break;
                }
                r = db_cell_insert(db, &rows.cell, NULL, err);
                cellrows_clear(&rows);
                /* Already stored (a crash between commit and unlink): done. */
                if (r == -EEXIST)
                        r = 0;
                if (r < 0)
                        break;
                g_unlink(path);
                n++;
        }
        if (d)
                g_dir_close(d);
        if (r < 0)
                return r;
        *ret_n = n;
        return 0;
}
