/* report/json.c: the views as JSON for scripts (see json.h). Absent numbers
 * (a metric stored without a value, a stage not reached) are null, never 0;
 * settings and params stored as JSON text are embedded as objects. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "common/util.h"
#include "report/hostdisk.h"
#include "report/explain.h"
#include "report/json.h"
#include "report/textbisect.h"
#include "results/bisect.h"
#include "settings/runopts.h"

static json_t *json_num(double v) {
        return isfinite(v) ? json_real(v) : json_null();
}

/* s as valid UTF-8, each byte that starts no valid sequence replaced by
 * U+FFFD (caller frees), or NULL when out of memory. jansson refuses
 * invalid UTF-8: a string from the store must never make a field vanish. */
static char *utf8_clean(const char *s) {
        size_t len = strlen(s), o = 0;
        char *out = malloc(len * 3 + 1);

        if (!out)
                return NULL;
        for (size_t i = 0; i < len;) {
                uint32_t cp;
                size_t n = utf8_decode((const unsigned char *)s + i, len - i, &cp);

                if (n == 0) {
                        memcpy(out + o, "\xef\xbf\xbd", 3);
                        o += 3;
                        i++;
                } else {
                        memcpy(out + o, s + i, n);
                        o += n;
                        i += n;
                }
        }
        out[o] = '\0';
        return out;
}

static json_t *json_str(const char *s) {
        char *clean;
        json_t *j;

        if (!s)
                return json_null();
        j = json_string(s);
        if (j)
                return j;
        clean = utf8_clean(s);
        j = clean ? json_string(clean) : NULL;
        free(clean);
        return j;
}

json_t *json_view_string(const char *s) {
        return json_str(s);
}

json_t *json_view_number(double v) {
        return json_num(v);
}

/* o[key] = v (taking v), the key made valid UTF-8 as json_str does. */
static void json_set(json_t *o, const char *key, json_t *v) {
        char *clean = utf8_clean(key);

        /* json_object_set_new() takes v even when it fails. */
        if (clean)
                json_object_set_new(o, clean, v);
        else
                json_decref(v);
        free(clean);
}

char *json_view_dumps(const json_t *j) {
        return j ? json_dumps(j, JSON_COMPACT | KB_JSON_OUT) : NULL;
}

void json_view_set(json_t *o, const char *key, json_t *v) {
        json_set(o, key, v);
}

int json_view_print(json_t *j, FILE *out, struct kb_error *err) {
        if (!j)
                return error_setf(err, -ENOMEM, "out of memory building JSON");
        /* A failed write stays in out's error flag (json.h). */
        if (json_dumpf(j, out, JSON_INDENT(2) | KB_JSON_OUT) == 0)
                fputc('\n', out);
        return 0;
}

static json_t *metrics_json(const struct query_metric *m, size_t n) {
        json_t *o = json_object();

        for (size_t i = 0; o && i < n; i++) {
                json_t *e = json_pack("{s:o, s:o}", "value", m[i].has_value ? json_num(m[i].value) : json_null(),
                                      "unit", json_str(m[i].unit ? m[i].unit : ""));
                if (e && m[i].note)
                        json_object_set_new(e, "note", json_str(m[i].note));
                json_set(o, m[i].name ? m[i].name : "", e ? e : json_null());
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
        json_object_set_new(j, "cells_planned", json_integer(r->n_planned));
        json_object_set_new(j, "settings", settings ? settings : json_str(r->settings_json));
        return j;
}

static json_t *cell_json(const struct query_cell *c, int contended) {
        json_t *j = json_object();

        if (!j)
                return NULL;
        json_object_set_new(j, "key", json_str(c->cell_key));
        json_object_set_new(j, "kernel", json_str(c->kernel_name));
        json_object_set_new(j, "kernel_id", json_str(c->kernel_id));
        json_object_set_new(j, "workload", json_str(c->workload));
        /* 1-based, as every place a reader sees it (the store keeps 0-based) */
        json_object_set_new(j, "iteration", json_integer((json_int_t)c->iteration + 1));
        json_object_set_new(j, "attempt", json_integer(c->attempt));
        json_object_set_new(j, "state", json_str(c->state));
        json_object_set_new(j, "detail", json_str(c->detail));
        json_object_set_new(j, "contended", contended < 0 ? json_null() : json_boolean(contended));
        json_object_set_new(j, "accel", json_str(c->accel));
        /* The host a run named (--connect NAME=URI): its params say. */
        if (c->params_json) {
                json_t *p = json_loads(c->params_json, 0, NULL);
                const char *host = json_string_value(json_object_get(p, RUNOPTS_HOST_KEY));

                if (host)
                        json_object_set_new(j, "host", json_str(host));
                json_decref(p);
        }
        json_object_set_new(j, "started_at", json_num(c->started_at));
        json_object_set_new(j, "boot_s", json_num(c->boot_s));
        json_object_set_new(j, "workload_s", json_num(c->workload_s));
        json_object_set_new(j, "total_s", json_num(c->total_s));
        json_object_set_new(j, "exit_code", json_integer(c->exit_code));
        json_object_set_new(j, "rejected_records", json_integer(c->rejected_records));
        json_object_set_new(j, "vmstat_samples", json_integer(c->vmstat_samples));
        return j;
}

json_t *json_view_runs(const struct view_runs *v) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < v->n; i++)
                json_array_append_new(a, run_json(&v->runs[i]));
        return a;
}

json_t *json_view_run(const struct view_run *v) {
        json_t *j = json_object();
        json_t *cells = json_array(), *summary = json_array();

        if (!j || !cells || !summary) {
                json_decref(j);
                json_decref(cells);
                json_decref(summary);
                return NULL;
        }
        json_object_set_new(j, "run", run_json(v->run));
        json_object_set_new(j, "cells", cells);
        json_object_set_new(j, "summary", summary);
        for (size_t i = 0; i < v->n_cells; i++) {
                json_t *c = cell_json(&v->cells[i], v->contended[i]);
                if (c) {
                        const char *start = view_cell_start(v->metrics[i], v->n_metrics[i]);
                        json_object_set_new(c, "start", start ? json_string(start) : json_null());
                        json_object_set_new(c, "metrics", metrics_json(v->metrics[i], v->n_metrics[i]));
                }
                json_array_append_new(cells, c);
        }
        for (size_t i = 0; i < v->n_series; i++) {
                const struct query_series *s = v->summary[i].s;
                json_t *e = json_object(), *vals = json_array();
                double mean = v->summary[i].sum.mean, sd = v->summary[i].sum.sd;

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
        return j;
}

/* A counter libvirt did not report is null. */
static json_t *json_counter(int64_t c) {
        return c < 0 ? json_null() : json_integer((json_int_t)c);
}

static json_t *hostblk_json(const struct db_hostblk_row *hb, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:o}", "t_host", json_num(hb[i].t_host),
                                                   "rd_bytes", json_counter(hb[i].rd_bytes), "wr_bytes",
                                                   json_counter(hb[i].wr_bytes), "rd_reqs",
                                                   json_counter(hb[i].rd_reqs), "wr_reqs",
                                                   json_counter(hb[i].wr_reqs)));
        return a ? a : json_null();
}

static const char *verdict_name(enum hostdisk_verdict d) {
        switch (d) {
        case HOSTDISK_AGREE: return "agree";
        case HOSTDISK_GUEST_ONLY: return "guest-only";
        case HOSTDISK_HOST_ONLY: return "host-only";
        default: return "unknown";
        }
}

json_t *json_view_cell_vmstat(const struct view_cell *v) {
        struct hostdisk_second *sec = calloc(v->n_vmstat ? v->n_vmstat : 1, sizeof(*sec));
        struct hostdisk_summary sum;
        json_t *j, *a;
        size_t n;

        if (!sec)
                return NULL;
        n = hostdisk_align(v->vmstat, v->n_vmstat, v->hostblk, v->n_hostblk, v->vmstat_interval_s, sec);
        j = json_pack("{s:o, s:f, s:f, s:f}", "cell", json_str(v->cell->cell_key), "interval_s",
                      v->vmstat_interval_s, "writing_Bps", HOSTDISK_WRITING_BPS, "idle_Bps", HOSTDISK_IDLE_BPS);
        a = json_array();
        if (!j || !a) {
                free(sec);
                json_decref(j);
                json_decref(a);
                return NULL;
        }
        for (size_t i = 0; i < n; i++)
                json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:s}", "t_host", json_num(sec[i].t_host),
                                                   "guest_bo_Bps", json_num(sec[i].guest_bo_Bps), "host_wr_Bps",
                                                   json_num(sec[i].host_wr_Bps), "host_rd_Bps",
                                                   json_num(sec[i].host_rd_Bps), "verdict",
                                                   verdict_name(sec[i].verdict)));
        free(sec);
        json_object_set_new(j, "seconds", a);
        json_object_set_new(j, "host_block", hostblk_json(v->hostblk, v->n_hostblk));
        if (hostdisk_summarize(v->vmstat, v->n_vmstat, v->hostblk, v->n_hostblk, v->vmstat_interval_s, &sum) == 0)
                json_object_set_new(j, "summary",
                                    json_pack("{s:f, s:f, s:o, s:o, s:o, s:o, s:I, s:I, s:f}", "from", sum.from,
                                              "to", sum.to, "written_bytes", json_num(sum.written_bytes),
                                              "read_bytes", json_num(sum.read_bytes), "write_MBps",
                                              json_num(sum.write_MBps), "read_MBps", json_num(sum.read_MBps),
                                              "compared", (json_int_t)sum.compared, "disagree",
                                              (json_int_t)sum.disagree, "disagree_s", sum.disagree_s));
        else
                json_object_set_new(j, "summary", json_null());
        return j;
}

json_t *json_view_cell(const struct view_cell *v) {
        json_t *j = cell_json(v->cell, v->contended);
        json_t *vm = json_array(), *pts = json_array(), *logs = json_object(), *params = NULL;

        if (!j || !vm || !pts || !logs) {
                json_decref(j);
                json_decref(vm);
                json_decref(pts);
                json_decref(logs);
                return NULL;
        }
        if (v->cell->params_json)
                params = json_loads(v->cell->params_json, JSON_DECODE_ANY, NULL);
        json_object_set_new(j, "run", json_integer(v->cell->run_id));
        json_object_set_new(j, "params", params ? params : json_str(v->cell->params_json));
        json_object_set_new(j, "start", view_cell_start(v->metrics, v->n_metrics) ?
                            json_string(view_cell_start(v->metrics, v->n_metrics)) : json_null());
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
                json_array_append_new(pts, json_pack("{s:o, s:o, s:o}", "kind", json_str(v->points[i].kind),
                                                     "t", json_num(v->points[i].t),
                                                     "value", json_num(v->points[i].value)));
        json_object_set_new(j, "timeline", pts);
        json_object_set_new(j, "host_block", hostblk_json(v->hostblk, v->n_hostblk));
        for (size_t i = 0; i < v->n_logs; i++)
                json_set(logs, v->logs[i].stream ? v->logs[i].stream : "", json_integer(v->logs[i].bytes));
        json_object_set_new(j, "log_bytes", logs);
        return j;
}


/* ---- the comparison ----------------------------------------------------- */

static json_t *values_json(const double *v, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_num(v[i]));
        return a;
}

static json_t *summary_json(const struct stats_summary *s, const double *v, size_t missing) {
        return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)s->n, "n_missing",
                         (json_int_t)missing, "mean", json_num(s->mean), "median", json_num(s->median), "sd",
                         json_num(s->sd), "sd_pct", json_num(s->cov * 100), "min", json_num(s->min), "max",
                         json_num(s->max), "cov", json_num(s->cov), "values", values_json(v, s->n));
}

static json_t *side_json(const struct compare_side *s) {
        json_t *runs = json_array();

        for (size_t i = 0; runs && i < s->n_runs; i++)
                json_array_append_new(runs, json_integer(s->runs[i]));
        return json_pack("{s:I, s:I, s:o, s:o}", "ok", (json_int_t)s->ok, "failed", (json_int_t)s->failed,
                         "failed_states", json_str(s->failed_states), "runs", runs ? runs : json_null());
}

static json_t *nfor_json(size_t n) {
        return n ? json_integer((json_int_t)n) : json_null();
}

/* An amount judged by its difference (a floor in the registry): the
 * difference of the means (Welch's) or of the trimmed means (Yuen's),
 * whichever decided, its interval and the difference detectable, in its
 * unit; for one the tail rule judges, the cells of each side that
 * stalled (its test's "t" is B's). */
static json_t *with_diff(json_t *j, const struct compare_metric *m) {
        if (!j || !(m->info.floor > 0))
                return j;
        if (json_object_set_new(j, "floor", json_real(m->info.floor)) < 0 ||
            json_object_set_new(j, "trimmed_means", json_pack("[o, o]", json_num(m->trimmed_a),
                                                              json_num(m->trimmed_b))) < 0 ||
            json_object_set_new(j, "diff_of", json_string(m->trimmed ? "trimmed means" : "means")) < 0 ||
            json_object_set_new(j, "diff", json_num(m->diff.estimate)) < 0 ||
            json_object_set_new(j, "ci95_diff", isfinite(m->diff.lo) && isfinite(m->diff.hi)
                                                        ? json_pack("[f, f]", m->diff.lo, m->diff.hi)
                                                        : json_null()) < 0 ||
            json_object_set_new(j, "mde_abs", json_num(m->mde_abs)) < 0 ||
            json_object_set_new(j, "twice_band", json_num(m->twice_band)) < 0 ||
            json_object_set_new(j, "n_for_twice_band", nfor_json(m->n_for_twice_band)) < 0 ||
            (m->info.tail > 0 &&
             json_object_set_new(j, "tail", json_pack("{s:f, s:I, s:I}", "beyond_median_of_a_by", m->info.tail,
                                                      "stalled_a", (json_int_t)m->tail_a, "stalled_b",
                                                      (json_int_t)m->tail_b)) < 0)) {
                json_decref(j);
                return NULL;
        }
        return j;
}

/* Across runs: what one run would have given (report/compare.h). */
static json_t *with_one_run(json_t *j, const struct compare_metric *m) {
        if (!j || !isfinite(m->mde_one_run))
                return j;
        if (json_object_set_new(j, "mde_one_run_pct", json_real(m->mde_one_run * 100)) < 0) {
                json_decref(j);
                return NULL;
        }
        return j;
}

static json_t *metric_cmp_json(const struct compare_metric *m) {
        return with_one_run(with_diff(json_pack("{s:o, s:o, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:b}, "
                         "s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:b}",
                         "name", json_str(m->name), "unit", json_str(m->unit ? m->unit : ""), "direction",
                         metrics_direction_name(m->info.direction), "judged", m->judged, "why_not_judged",
                         m->judged ? json_null() : json_str(m->info.why), "a",
                         summary_json(&m->sa, m->a, m->a_missing), "b", summary_json(&m->sb, m->b, m->b_missing),
                         "change_pct", json_num(m->change * 100), "ci95_change_pct",
                         isfinite(m->ratio.lo) && isfinite(m->ratio.hi)
                                 ? json_pack("[f, f]", (m->ratio.lo - 1) * 100, (m->ratio.hi - 1) * 100)
                                 : json_null(),
                         m->info.tail > 0 ? "tail" : m->trimmed ? "yuen" : "welch", "t", json_num(m->ttest.statistic), "df",
                         json_num(m->ttest.df), "p", json_num(m->ttest.p), "mann_whitney", "u", json_num(m->mw.statistic), "p",
                         json_num(m->mw.p), "exact", m->mw.exact, "mann_whitney_min_p", json_num(m->mw_min_p),
                         "q_bh", json_num(m->q), "mde_pct", json_num(m->mde * 100), "n_for_2pct",
                         nfor_json(m->n_for_2), "n_for_5pct", nfor_json(m->n_for_5), "verdict",
                         compare_verdict_name(m->verdict), "withheld_why", json_str(m->withheld), "run_offset",
                         m->run_offset), m), m);
}

json_t *json_view_explain(const struct explain *x) {
        json_t *fns = json_array();

        for (size_t i = 0; fns && i < x->n_top; i++) {
                const struct explain_fn *f = &x->top[i];
                char only[2] = { f->only, 0 };

                json_array_append_new(fns, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "symbol", json_str(f->symbol),
                                                     "a_Minsn", json_num(f->a / 1e6), "b_Minsn", json_num(f->b / 1e6),
                                                     "change_Minsn", json_num(f->delta / 1e6), "pct_of_phase_a",
                                                     json_num(x->total_a > 0 ? 100 * f->delta / x->total_a : NAN),
                                                     "only_in", f->only ? json_string(only) : json_null()));
        }
        return json_pack("{s:o, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:{s:I, s:o}, s:o}", "metric", json_str(x->m->name),
                         "phase", x->phase, "profiled_a", (json_int_t)x->na, "profiled_b", (json_int_t)x->nb,
                         "a_Minsn", x->none ? json_null() : json_num(x->total_a / 1e6),
                         "b_Minsn", x->none ? json_null() : json_num(x->total_b / 1e6),
                         "change_Minsn", x->none ? json_null() : json_num((x->total_b - x->total_a) / 1e6),
                         "functions", fns ? fns : json_null(), "others", "n", (json_int_t)x->n_rest, "change_Minsn",
                         json_num(x->rest / 1e6), "why_none", json_str(x->none));
}

/* The explanations of group gi, or NULL when it has none. */
static json_t *group_explain_json(const struct compare_view *v, size_t gi) {
        json_t *a = NULL;

        for (size_t i = 0; v->explain && i < v->explain->n; i++)
                if (v->explain->v[i].group == gi) {
                        if (!a)
                                a = json_array();
                        json_array_append_new(a, json_view_explain(&v->explain->v[i]));
                }
        return a;
}

/* How the kernels' configurations differ: {differ, lines}, or null when
 * a side has no .config in the store. */
static json_t *config_diff_json(const struct compare_kernels *k) {
        json_t *lines;

        if (!k->config_diff)
                return json_null();
        lines = json_array();
        for (size_t i = 0; k->config_diff[i]; i++)
                json_array_append_new(lines, json_str(k->config_diff[i]));
        return json_pack("{s:I, s:o}", "differ", (json_int_t)k->config_differ, "lines", lines);
}

json_t *json_view_compare(const struct compare_view *v) {
        json_t *j, *groups = json_array(), *lonely = json_array(), *ignored = json_array();

        if (!groups || !lonely || !ignored) {
                json_decref(groups);
                json_decref(lonely);
                json_decref(ignored);
                return NULL;
        }
        for (size_t i = 0; v->ignored && v->ignored[i]; i++)
                json_array_append_new(ignored, json_str(v->ignored[i]));
        for (size_t i = 0; i < v->n_groups; i++) {
                const struct compare_group *g = &v->groups[i];
                json_t *ms = json_array(), *notes = json_array(), *ex = group_explain_json(v, i), *gj;

                for (size_t k = 0; ms && k < g->n_m; k++)
                        json_array_append_new(ms, metric_cmp_json(&g->m[k]));
                for (size_t k = 0; notes && k < ELEMENTSOF(g->notes) && g->notes[k]; k++)
                        json_array_append_new(notes, json_str(g->notes[k]));
                gj = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "workload",
                               json_str(g->workload), "spec", json_str(g->spec), "settings", pairkey_json(g->key),
                               "a", side_json(&g->a), "b", side_json(&g->b), "metrics", ms ? ms : json_null(),
                               "geomean_change_pct", json_num((g->geomean - 1) * 100), "geomean_metrics",
                               (json_int_t)g->n_geomean, "worse", (json_int_t)g->worse, "better",
                               (json_int_t)g->better, "cells_failed",
                               g->failed ? json_string(compare_failed_name(g->failed)) : json_null(),
                               "notes", notes ? notes : json_null());
                /* Only when asked for: the comparisons of stores without
                 * profiles read as before. */
                if (gj && ex)
                        json_object_set_new(gj, "explain", ex);
                else
                        json_decref(ex);
                json_array_append_new(groups, gj);
        }
        for (size_t i = 0; i < v->n_lonely; i++) {
                const struct compare_lonely *l = &v->lonely[i];
                char side[2] = { l->side, 0 };

                json_array_append_new(lonely, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "side", side, "workload",
                                                        json_str(l->workload), "spec", json_str(l->spec), "settings",
                                                        pairkey_json(l->key), "cells", side_json(&l->s),
                                                        "differs", json_str(l->differs)));
        }
        j = json_pack("{s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:o, s:f, s:f, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, "
                      "s:o, s:I, s:I, s:I, s:I, s:i, s:i, s:b}",
                      "a", "selector", json_str(v->sel_a), "resolved", json_str(v->desc_a), "upstream",
                      json_str(v->kernels.upstream_a), "b", "selector", json_str(v->sel_b), "resolved",
                      json_str(v->desc_b), "upstream", json_str(v->kernels.upstream_b), "config_diff",
                      config_diff_json(&v->kernels), "alpha", v->alpha, "noise_pct", v->noise * 100,
                      "verdict_test", "welch", "amount_test", "welch or yuen-trim-0.2, the smaller p doubled",
                      "correction", "benjamini-hochberg", "ci", "fieller-95",
                      "workload", json_str(v->workload), "metric_glob", json_str(v->metric_glob),
                      "ignore_settings", ignored, "groups", groups, "unpaired", lonely, "judged",
                      (json_int_t)v->judged, "worse", (json_int_t)v->worse, "better", (json_int_t)v->better,
                      "failed_groups", (json_int_t)v->failed_groups, "failed_margin_pct", COMPARE_FAILED_MARGIN_PCT,
                      "exit_status", v->exit_status, "same_cells", v->same_cells);
        /* What the selection bounds: the answer's first line, and whether
         * verdicts were withheld for sides not measured together. */
        if (j && (json_object_set_new(j, "first_line", json_str(v->first)) < 0 ||
                  json_object_set_new(j, "no_verdict", json_boolean(v->no_verdict)) < 0 ||
                  json_object_set_new(j, "correction_family", json_string("paired group")) < 0)) {
                json_decref(j);
                return NULL;
        }
        return j;
}


/* ---- bisections ------------------------------------------------------- */

/* One step of a bisection; its runs as the array the step stored, [] when
 * that is not an array. */
static json_t *bisect_step_json(const struct bisect_step_row *s) {
        json_t *runs = s->run_ids_json ? json_loads(s->run_ids_json, 0, NULL) : NULL;

        if (!json_is_array(runs)) {
                json_decref(runs);
                runs = json_array();
        }
        return json_pack("{s:i, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "step", s->step,
                         "role", json_str(s->role), "candidate", json_str(s->candidate),
                         "kernel_id", json_str(s->kernel_id), "runs", runs, "rounds", s->rounds,
                         "vs_good", json_str(s->vs_good), "vs_bad", json_str(s->vs_bad),
                         "decision", json_str(s->decision), "mean_good", json_num(s->mean_good),
                         "mean_candidate", json_num(s->mean_cand), "mean_bad", json_num(s->mean_bad),
                         "note", json_str(s->note), "kernel", json_str(s->kernel));
}

json_t *json_bisection(const struct bisect_row *b) {
        json_t *j = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", (json_int_t)b->id,
                              "started_at", json_num(b->started_at), "finished_at", json_num(b->finished_at),
                              "status", json_str(b->status), "workload", json_str(b->workload),
                              "metric", json_str(b->metric), "source", json_str(b->source), "good", json_str(b->good),
                              "bad", json_str(b->bad), "outcome", json_str(b->outcome),
                              "first_bad", json_str(b->first_bad));
        json_t *steps = json_array();

        if (!j || !steps) {
                json_decref(j);
                json_decref(steps);
                return NULL;
        }
        for (size_t i = 0; i < b->n_steps; i++)
                json_array_append_new(steps, bisect_step_json(&b->steps[i]));
        json_object_set_new(j, "steps", steps);
        return j;
}

json_t *json_bisect_answer(const struct bisect_row *b, const struct bisect_ending *e) {
        json_t *j = json_bisection(b);

        if (!j)
                return NULL;
        /* "bisection" is the id as `kbench bisect --json` named it first. */
        json_object_set_new(j, "bisection", json_integer(b->id));
        json_object_set_new(j, "first_bad_kernel", json_str(e->first_bad_kernel));
        json_object_set_new(j, "confirmed", e->confirmed < 0 ? json_null() : json_boolean(e->confirmed));
        json_object_set_new(j, "change", json_num(e->change));
        if (e->explain)
                json_object_set_new(j, "explain", json_view_explain(e->explain));
        return j;
}
