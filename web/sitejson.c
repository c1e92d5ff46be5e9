/* web/sitejson: the data file beside each page (run-3.json beside
 * run-3.html): the views the page lays out, as report/json.c renders them
 * for `kbench show --json` and `kbench compare --json`, with what the page
 * adds (its links, a comparison's history and night, the index's
 * regression states). Scripts read these instead of scraping pages; the
 * numbers are the pages' numbers unrounded. No publishing time, so the
 * files change only when the results do, like the pages. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report/json.h"
#include "web/history.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"

#define S json_view_string
#define N json_view_number

/* Which entries of a list of metrics a data file keeps: judged ones
 * first (an entry saying "judged": true), then the rest, PAGE_METRICS_MAX
 * in all; in a run's "summary", PAGE_METRICS_MAX per kernel and workload.
 * OUT: keep[i]. Returns how many are cut. */
static size_t pick(const json_t *a, int summary, unsigned char *keep) {
        g_autoptr(GHashTable) per = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        size_t n = json_array_size(a), kept = 0;

        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < n; i++) {
                        const json_t *e = json_array_get(a, i);
                        char *key;
                        size_t c;

                        if (keep[i] || (!summary && pass == 0 && !json_is_true(json_object_get(e, "judged"))))
                                continue;
                        if (!summary) {
                                keep[i] = kept < PAGE_METRICS_MAX;
                                kept += keep[i];
                                continue;
                        }
                        key = g_strjoin("\x1f", json_string_value(json_object_get(e, "kernel")) ?: "",
                                        json_string_value(json_object_get(e, "workload")) ?: "", NULL);
                        c = GPOINTER_TO_SIZE(g_hash_table_lookup(per, key));
                        keep[i] = c < PAGE_METRICS_MAX;
                        kept += keep[i];
                        g_hash_table_insert(per, key, GSIZE_TO_POINTER(c + 1));
                }
        return n - kept;
}

/* A list of metrics cut to what pick keeps, in its order. Returns how
 * many went. */
static size_t bound_list(json_t *a, int summary) {
        g_autofree unsigned char *keep = g_new0(unsigned char, json_array_size(a) + 1);
        size_t cut = pick(a, summary, keep), n = json_array_size(a);

        for (size_t i = n; cut && i-- > 0;)
                if (!keep[i])
                        json_array_remove(a, i);
        return cut;
}

/* A map of metrics (name: value) cut to its first PAGE_METRICS_MAX names.
 * Returns how many went. */
static size_t bound_map(json_t *o) {
        size_t n = json_object_size(o), i = 0, cut = n > PAGE_METRICS_MAX ? n - PAGE_METRICS_MAX : 0;
        const char *key;
        json_t *v;
        void *tmp;

        json_object_foreach_safe(o, tmp, key, v)
                if (i++ >= PAGE_METRICS_MAX)
                        json_object_del(o, key);
        return cut;
}

/* Every list or map of metrics in j, and a run's summary, bounded as the
 * pages are (PAGE_METRICS_MAX): a cell of 20 000 names must not make a
 * data file of 100 MB. What is cut is counted beside it, in
 * "metrics_left_out"; `kbench show --json` and `kbench compare --json`
 * print it all. */
static json_t *bounded(json_t *j) {
        size_t i, cut = 0;
        const char *key;
        json_t *v;

        if (json_is_array(j))
                json_array_foreach(j, i, v)
                        bounded(v);
        if (!json_is_object(j))
                return j;
        json_object_foreach(j, key, v) {
                int summary = strcmp(key, "summary") == 0;

                if ((summary || strcmp(key, "metrics") == 0) && json_is_array(v) &&
                    json_array_size(v) > PAGE_METRICS_MAX)
                        cut += bound_list(v, summary);
                else if (strcmp(key, "metrics") == 0 && json_is_object(v))
                        cut += bound_map(v);
                bounded(v);
        }
        if (cut)
                json_object_set_new(j, "metrics_left_out", json_integer((json_int_t)cut));
        return j;
}

static json_t *with_page(json_t *j, const char *page) {
        g_autofree char *data = page ? page_json_file(page) : NULL;

        if (j && page) {
                json_object_set_new(j, "page", S(page));
                json_object_set_new(j, "data", S(data));
        }
        return j;
}

static json_t *state_counts(const struct model_run *r) {
        json_t *o = json_object();

        for (size_t i = 0; o && i < r->n_states; i++)
                json_view_set(o, r->states[i].state, json_integer((json_int_t)r->states[i].n));
        return o;
}

static json_t *strv(char **v, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, S(v[i]));
        return a;
}

static json_t *night_json(const struct night_row *n) {
        return n ? json_pack("{s:I, s:o, s:o, s:o, s:o}", "id", (json_int_t)n->id, "started_at", N(n->started_at),
                             "baseline", S(n->baseline), "alpha", N(n->alpha), "noise", N(n->noise))
                 : json_null();
}

static json_t *compare_entry(const struct model_compare *c) {
        json_t *j = json_pack("{s:o, s:o, s:o, s:o}", "a", S(c->sel_a), "b", S(c->sel_b), "night",
                              night_json(c->night), "subject", S(c->subject));

        if (j && c->v)
                json_object_update_new(j, json_pack("{s:I, s:I, s:I, s:I}", "worse", (json_int_t)c->v->worse,
                                                    "better", (json_int_t)c->v->better, "judged",
                                                    (json_int_t)c->v->judged, "groups", (json_int_t)c->v->n_groups));
        else if (j)
                json_object_set_new(j, "error", S(c->error));
        return with_page(j, c->v ? c->file : NULL);
}

static json_t *event_json(const struct model *s, const struct model_event *e) {
        return json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:I, s:I, s:o, s:o}",
                         "night", N(s->nights[e->night].started_at), "night_id", json_integer(s->nights[e->night].id),
                         "state", regstate_name(e->state), "subject", S(e->subject), "baseline", S(e->baseline),
                         "spec", S(e->spec), "metric", S(e->metric), "verdict", compare_verdict_name(e->verdict),
                         "change_pct", N(100 * e->change), "q", N(e->q), "n_a", (json_int_t)e->na,
                         "n_b", (json_int_t)e->nb, "since", N(s->nights[e->since].started_at),
                         "page", S(s->compares[e->compare].file));
}

static json_t *bisection_entry(const struct bisect_row *b) {
        g_autofree char *file = page_bisect_file(b->id);

        return with_page(json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", (json_int_t)b->id,
                                   "metric", S(b->metric), "workload", S(b->workload), "good", S(b->good),
                                   "bad", S(b->bad), "status", S(b->status), "outcome", S(b->outcome),
                                   "first_bad", S(b->first_bad)), file);
}

static json_t *index_runs(const struct model *s) {
        json_t *a = json_array();

        for (size_t i = s->n_runs; a && i-- > 0;) {
                const struct model_run *r = &s->runs[i];

                json_array_append_new(a, with_page(json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
                                                             (json_int_t)r->v->run->id, "tag", S(r->v->run->tag),
                                                             "started_at", N(r->v->run->started_at), "status",
                                                             S(r->v->run->status), "kernels",
                                                             strv(r->kernels, r->n_kernels), "workloads",
                                                             strv(r->workloads, r->n_workloads), "cells",
                                                             state_counts(r)), r->file));
        }
        return a;
}

json_t *sitejson_index(const struct model *s) {
        json_t *j = json_object(), *cmp = json_array(), *kernels = json_array(), *nights = json_array();
        json_t *events = json_array(), *bis = json_array();

        if (!j || !cmp || !kernels || !nights || !events || !bis) {
                json_decref(j), json_decref(cmp), json_decref(kernels), json_decref(nights);
                json_decref(events), json_decref(bis);
                return NULL;
        }
        json_object_set_new(j, "page", S("index.html"));
        json_object_set_new(j, "feed", S(PAGE_FEED_FILE));
        json_object_set_new(j, "regressions", events);
        for (size_t i = s->n_events; i-- > 0;)
                json_array_append_new(events, event_json(s, &s->events[i]));
        json_object_set_new(j, "runs", index_runs(s));
        json_object_set_new(j, "comparisons", cmp);
        for (size_t i = s->n_compares; i-- > 0;)
                json_array_append_new(cmp, compare_entry(&s->compares[i]));
        json_object_set_new(j, "nights", nights);
        for (size_t i = s->n_nights; i-- > 0;)
                json_array_append_new(nights, night_json(&s->nights[i]));
        json_object_set_new(j, "bisections", bis);
        for (size_t i = 0; i < s->n_bisections; i++)
                json_array_append_new(bis, bisection_entry(&s->bisections[i]));
        json_object_set_new(j, "kernels", kernels);
        for (size_t i = 0; i < s->n_kernels; i++)
                json_array_append_new(kernels, with_page(json_pack("{s:o}", "name", S(s->kernels[i].name)),
                                                         s->kernels[i].file));
        return j;
}

json_t *sitejson_run(const struct model *s, const struct model_run *r) {
        json_t *j = json_view_run(r->v), *cmp = json_array();

        if (!j || !cmp) {
                json_decref(j);
                json_decref(cmp);
                return NULL;
        }
        for (size_t i = 0; i < s->n_compares; i++)
                if (s->compares[i].run_id == r->v->run->id)
                        json_array_append_new(cmp, compare_entry(&s->compares[i]));
        json_object_set_new(j, "comparisons", cmp);
        return bounded(with_page(j, r->file));
}

json_t *sitejson_cell(const struct view_cell *c) {
        g_autofree char *file = page_cell_file(c->cell->run_id, c->cell->cell_key);

        return bounded(with_page(json_view_cell(c), file));
}

/* The summaries of (kernel, workload) in one run: {metric: {mean, stddev, n, unit}}. */
static json_t *run_summaries(const struct model_run *r, const char *kernel, const char *workload) {
        json_t *o = json_object();

        for (size_t i = 0; o && i < r->v->n_series; i++) {
                const struct view_series *vs = &r->v->summary[i];

                if (strcmp(vs->s->kernel_name, kernel) != 0 || strcmp(vs->s->workload, workload) != 0)
                        continue;
                json_view_set(o, vs->s->metric, json_pack("{s:o, s:o, s:I, s:o}", "mean", N(vs->sum.mean),
                                                                "stddev", N(vs->sum.sd), "n", (json_int_t)vs->sum.n,
                                                                "unit", S(vs->s->unit)));
        }
        return o;
}

/* One workload of the kernel: every run that has it, in run order, with
 * the parameters of its cells and their summaries. */
static json_t *kernel_workload(const struct model *s, const char *kernel, const char *workload) {
        json_t *runs = json_array();

        for (size_t i = 0; runs && i < s->n_runs; i++) {
                const struct query_cell *c = model_run_cell(&s->runs[i], kernel, workload);
                json_t *params;

                if (!c)
                        continue;
                params = c->params_json ? json_loads(c->params_json, 0, NULL) : NULL;
                json_array_append_new(runs, json_pack("{s:I, s:o, s:o, s:o, s:o}", "run",
                                                      (json_int_t)s->runs[i].v->run->id, "tag",
                                                      S(s->runs[i].v->run->tag), "started_at",
                                                      N(s->runs[i].v->run->started_at), "params",
                                                      params ? params : json_null(), "metrics",
                                                      run_summaries(&s->runs[i], kernel, workload)));
        }
        return json_pack("{s:o, s:o}", "workload", S(workload), "runs", runs ? runs : json_array());
}

json_t *sitejson_kernel(const struct model *s, const struct model_kernel *k) {
        json_t *j = json_pack("{s:o}", "kernel", S(k->name)), *wl = json_array();
        g_autoptr(GPtrArray) seen = g_ptr_array_new();

        if (!j || !wl) {
                json_decref(j);
                json_decref(wl);
                return NULL;
        }
        for (size_t i = 0; i < s->n_runs; i++)
                for (size_t w = 0; w < s->runs[i].n_workloads; w++) {
                        const char *workload = s->runs[i].workloads[w];
                        int dup = 0;

                        for (guint x = 0; x < seen->len && !dup; x++)
                                dup = strcmp(g_ptr_array_index(seen, x), workload) == 0;
                        if (dup || !model_run_cell(&s->runs[i], k->name, workload))
                                continue;
                        g_ptr_array_add(seen, (char *)workload);
                        json_array_append_new(wl, kernel_workload(s, k->name, workload));
                }
        json_object_set_new(j, "workloads", wl);
        return bounded(with_page(j, k->file));
}

static json_t *line_json(const struct history_line *l) {
        json_t *pts = json_array();

        for (size_t i = 0; pts && i < l->n; i++)
                json_array_append_new(pts, json_pack("{s:I, s:o, s:I}", "run", (json_int_t)l->p[i].run, "mean",
                                                     N(l->p[i].mean), "n", (json_int_t)l->p[i].n));
        return json_pack("{s:o, s:o}", "kernel", S(l->kernel), "points", pts ? pts : json_array());
}

static json_t *history_json(const struct compare_group *g, const struct history_group *h) {
        json_t *metrics = json_array();

        for (size_t m = 0; metrics && h && m < h->n_metrics; m++)
                json_array_append_new(metrics, json_pack("{s:o, s:o, s:o}", "metric", S(h->metrics[m]), "a",
                                                         line_json(&h->lines[m][0]), "b", line_json(&h->lines[m][1])));
        return json_pack("{s:o, s:o, s:o}", "spec", S(g->spec), "last_run", h ? json_integer(h->last_run) : json_null(),
                         "metrics", metrics ? metrics : json_array());
}

static json_t *rep_json(const struct model_rep *r) {
        return r->cell_key ? json_pack("{s:I, s:o, s:o, s:o, s:o}", "run", (json_int_t)r->run_id, "cell",
                                       S(r->cell_key), "kernel", S(r->kernel), "metric", S(r->metric), "value",
                                       N(r->value))
                           : json_null();
}

json_t *sitejson_compare(const struct model_compare *c, const struct model_group_cells *groups,
                         const struct history_group *hist) {
        json_t *j = json_pack("{s:o, s:o, s:o, s:o}", "night", night_json(c->night), "subject", S(c->subject),
                              "compare", json_view_compare(c->v), "history", json_array());
        json_t *reps = json_array();

        if (!j || !reps) {
                json_decref(j);
                json_decref(reps);
                return NULL;
        }
        for (size_t g = 0; g < c->v->n_groups; g++) {
                json_array_append_new(json_object_get(j, "history"),
                                      history_json(&c->v->groups[g], hist ? &hist[g] : NULL));
                json_array_append_new(reps, json_pack("{s:o, s:o, s:o}", "spec", S(c->v->groups[g].spec), "a",
                                                      rep_json(&groups[g].rep[0]), "b", rep_json(&groups[g].rep[1])));
        }
        json_object_set_new(j, "representatives", reps);
        return bounded(with_page(j, c->file));
}

json_t *sitejson_bisect(const struct bisect_row *b) {
        g_autofree char *file = page_bisect_file(b->id);
        json_t *j = json_bisection(b);
        json_t *sum = b->summary_json ? json_loads(b->summary_json, 0, NULL) : NULL;

        if (j)
                json_object_set_new(j, "summary", sum ? sum : json_null());
        else
                json_decref(sum);
        return with_page(j, file);
}
