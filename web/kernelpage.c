/* web/kernelpage: one kernel across runs: per workload, first the measures
 * `kbench compare` judges of its cells (the registry's verdict, less what
 * the emulator paced: view_metric_judged) in run order (mean ± sd over the
 * run's ok cells, the same summaries as the run pages), so a drift over
 * nightly runs reads down a column, and their trends; every other metric
 * folded below. */
#include <jansson.h>
#include <string.h>

#include "common/util.h"
#include "report/compare.h"
#include "report/html.h"
#include "report/svg.h"
#include "settings/runopts.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

/* Metric names of (kernel, workload) over all runs, own metrics first,
 * vmstat.* (own = 0) in a second list. Borrowed strings. */
static GPtrArray *metric_names(const struct model *s, const char *kernel, const char *workload, int own) {
        GPtrArray *names = g_ptr_array_new();
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        size_t wl = strlen(workload);

        for (size_t i = 0; i < s->n_runs; i++) {
                const struct view_run *v = s->runs[i].v;

                for (size_t j = 0; j < v->n_series; j++) {
                        const struct query_series *q = v->summary[j].s;
                        int is_own = strncmp(q->metric, workload, wl) == 0 && q->metric[wl] == '.';

                        if (strcmp(q->kernel_name, kernel) != 0 || strcmp(q->workload, workload) != 0 ||
                            is_own != own)
                                continue;
                        if (g_hash_table_add(seen, q->metric))
                                g_ptr_array_add(names, q->metric);
                }
        }
        return names;
}

static int run_has(const struct model_run *r, const char *kernel, const char *workload) {
        return model_run_cell(r, kernel, workload) != NULL;
}

/* What a reader must see before reading a column down: runs with other
 * guest settings are not comparable ("dd:size=32M; 160 MiB, 2 CPUs, ext3
 * data=ordered"). The cell's parameters as the option table reads them,
 * in the units of its rows. */
static char *settings_text(const struct query_cell *c) {
        json_t *j = c && c->params_json ? json_loads(c->params_json, 0, NULL) : NULL;
        const char *workload = json_string_value(json_object_get(j, "workload"));
        GString *t = g_string_new(NULL);
        struct run_settings s;
        const struct guest_shape *g = &s.guest;

        if (json_is_object(j)) {
                runopts_read(&s, j);
                if (workload)
                        g_string_append_printf(t, "%s;", workload);
                g_string_append_printf(t, " %u %s, %u CPU%s, %s", g->mem_mb, runopt_find("mem")->unit, g->cpus,
                                       g->cpus == 1 ? "" : "s", g->fs);
                if (*g->mount_opts)
                        g_string_append_printf(t, " %s", g->mount_opts);
                if (g->disk_mbps > 0)
                        g_string_append_printf(t, ", disk %" G_GUINT64_FORMAT " %s", g->disk_mbps,
                                               runopt_find("disk-mbps")->unit);
        }
        json_decref(j);
        if (t->len == 0)
                g_string_append(t, "-");
        return g_string_free(t, FALSE);
}

/* The run a row is about, its figures stacked: the run linked with its
 * tag, when it started, its cells' states, its guest settings. */
static void td_run(struct html *h, const struct model_run *r, const char *kernel, const char *workload) {
        g_autofree char *t = settings_text(model_run_cell(r, kernel, workload));
        char started[40];

        page_format_time(r->v->run->started_at, started, sizeof(started));
        html_start(h, "td");
        html_attr(h, "class", "run");
        sitehtml_run_link(h, r);
        if (r->v->run->tag)
                html_textf(h, " %s", r->v->run->tag);
        html_start(h, "br");
        html_end_void(h);
        html_textf(h, "%s, ", started);
        sitehtml_state_counts(h, r, kernel, workload);
        html_start(h, "br");
        html_end_void(h);
        html_start(h, "span");
        html_attr(h, "class", "muted");
        html_text(h, t);
        html_end(h);
        html_end(h);
}

/* One line per set of guest settings (compare's pairing key, so only
 * comparable runs share a line): each of names' mean by run, in the unit
 * page_scale picks. Drawn when some line has two runs or more. */
static void trends(struct html *h, const struct model *s, const char *kernel, const char *workload,
                   GPtrArray *names) {
        g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
        g_autofree int *group = g_new0(int, s->n_runs + 1);
        int drawn = 0, longest = 0;

        for (size_t i = 0; i < s->n_runs; i++) {
                const struct query_cell *c = model_run_cell(&s->runs[i], kernel, workload);
                struct pairkey *key = NULL;
                guint k;

                group[i] = -1;
                if (!c || pairkey_from_json(s->runs[i].v->run->settings_json, c->params_json, workload, NULL, &key,
                                            NULL) < 0)
                        continue;
                for (k = 0; k < keys->len; k++)
                        if (strcmp(g_ptr_array_index(keys, k), key->canon) == 0)
                                break;
                if (k == keys->len) {
                        g_ptr_array_add(keys, g_strdup(key->canon));
                        g_ptr_array_add(labels, settings_text(c));
                }
                pairkey_unref(key);
                group[i] = (int)k;
        }
        for (guint k = 0; k < keys->len; k++) {
                int n = 0;

                for (size_t i = 0; i < s->n_runs; i++)
                        n += group[i] == (int)k;
                longest = n > longest ? n : longest;
        }
        if (longest < 2)
                return;
        for (guint m = 0; m < names->len; m++) {
                const char *metric = g_ptr_array_index(names, m);
                g_autofree struct svg_series *series = g_new0(struct svg_series, keys->len + 1);
                g_autofree double *t = g_new(double, (s->n_runs + 1) * (keys->len + 1));
                g_autofree double *v = g_new(double, (s->n_runs + 1) * (keys->len + 1));
                const char *unit = NULL;
                size_t off = 0;
                int history = 0;

                if (drawn >= PAGE_CHARTS_MAX)
                        continue;
                for (guint k = 0; k < keys->len; k++) {
                        series[k] = (struct svg_series){ .label = g_ptr_array_index(labels, k), .t = t + off,
                                                         .v = v + off, .color = (int)k };
                        for (size_t i = 0; i < s->n_runs; i++) {
                                const struct view_series *vs = group[i] == (int)k ?
                                        view_run_series(s->runs[i].v, kernel, workload, metric) : NULL;

                                if (!vs || vs->sum.n == 0)
                                        continue;
                                t[off] = (double)s->runs[i].v->run->id;
                                v[off++] = vs->sum.mean;
                                series[k].n++;
                                unit = vs->s->unit;
                        }
                }
                /* A line of one run is no history: draw where a set of
                 * settings has the metric in two runs or more. */
                for (guint k = 0; k < keys->len && !history; k++)
                        history = series[k].n >= 2;
                if (!history)
                        continue;
                if (!drawn++) {
                        html_start(h, "div");
                        html_attr(h, "class", "charts");
                }
                unit = page_scale_values(v, off, unit);
                html_start(h, "figure");
                svg_line_chart(h, &(struct svg_line_chart){ .title = metric, .x_label = "run", .x_integer = 1, .markers = 1,
                                                            .y_unit = unit, .series = series,
                                                            .n_series = keys->len });
                html_elem(h, "figcaption", "mean over the run's ok cells; one line per set of guest settings");
                html_end(h);
        }
        if (drawn)
                html_end(h);
}

/* The metrics of names in every run that has the kernel's workload, a row
 * per run: on a phone a block per run, each figure labelled (class
 * "cards"), or at every width (class "flow": more metrics than a screen
 * has columns). */
static void history(struct html *h, const struct model *s, const char *kernel, const char *workload,
                    GPtrArray *names, const char *cls) {
        g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);

        g_ptr_array_add(labels, g_strdup("run"));
        for (guint k = 0; k < names->len; k++)
                g_ptr_array_add(labels, sitehtml_breakable(g_ptr_array_index(names, k)));
        sitehtml_scroll_begin(h);
        html_column_labels(h, (const char *const *)labels->pdata, labels->len);
        html_start(h, "table");
        html_attr(h, "class", cls);
        html_start(h, "thead");
        html_start(h, "tr");
        html_elem(h, "th", "run");
        for (guint k = 0; k < names->len; k++) {
                html_start(h, "th");
                html_attr(h, "class", "num metric");
                sitehtml_metric_name(h, g_ptr_array_index(names, k));
                html_end(h);
        }
        html_end(h);
        html_end(h);
        html_start(h, "tbody");
        for (size_t i = 0; i < s->n_runs; i++) {
                const struct model_run *r = &s->runs[i];

                if (!run_has(r, kernel, workload))
                        continue;
                html_start(h, "tr");
                td_run(h, r, kernel, workload);
                for (guint k = 0; k < names->len; k++)
                        sitehtml_td_summary(h, view_run_series(r->v, kernel, workload, g_ptr_array_index(names, k)));
                html_end(h);
        }
        sitehtml_table_end(h);
}

/* Split the kernel's metrics of a workload (own first, then the rest) into
 * those a comparison judges in at least one of its runs and the others. */
static void split_judged(const struct model *s, const char *kernel, const char *workload, GPtrArray *judged,
                         GPtrArray *other) {
        g_autoptr(GPtrArray) own = metric_names(s, kernel, workload, 1);
        g_autoptr(GPtrArray) rest = metric_names(s, kernel, workload, 0);
        g_autofree int *paced = g_new(int, s->n_runs + 1);

        for (size_t i = 0; i < s->n_runs; i++)
                paced[i] = run_has(&s->runs[i], kernel, workload)
                                   ? sitehtml_paced(&s->runs[i], model_run_cell(&s->runs[i], kernel, workload))
                                   : -1;
        for (int pass = 0; pass < 2; pass++) {
                GPtrArray *names = pass ? rest : own;

                for (guint k = 0; k < names->len; k++) {
                        const char *metric = g_ptr_array_index(names, k);
                        int is_judged = 0;

                        for (size_t i = 0; i < s->n_runs && !is_judged; i++)
                                is_judged = paced[i] >= 0 && view_metric_judged(metric, paced[i]);
                        g_ptr_array_add(is_judged ? judged : other, (char *)metric);
                }
        }
}

void kernelpage_render(struct html *h, const struct model *s, const struct model_kernel *k) {
        g_autofree char *title = g_strdup_printf("Kernel %s", k->name);
        g_autoptr(GPtrArray) workloads = g_ptr_array_new();
        g_autofree char *json = page_json_file(k->file);

        for (size_t i = 0; i < s->n_runs; i++)
                for (size_t w = 0; w < s->runs[i].n_workloads; w++) {
                        const char *name = s->runs[i].workloads[w];
                        int seen = 0;

                        for (guint j = 0; j < workloads->len && !seen; j++)
                                seen = strcmp(g_ptr_array_index(workloads, j), name) == 0;
                        if (!seen && run_has(&s->runs[i], k->name, name))
                                g_ptr_array_add(workloads, (char *)name);
                }
        page_begin(h, &(struct page_head){ title, "kernel", json, NULL });
        html_elem(h, "p", "Per workload, the measures kbench compare judges of its cells, in every run that has "
                          "it, in run order: mean ± sd (as % of the mean) over the run's ok cells, (n) the number "
                          "of ok cells; their trends; then the other metrics. Read a column down only across "
                          "rows with the same settings.");
        for (guint w = 0; w < workloads->len; w++) {
                const char *workload = g_ptr_array_index(workloads, w);
                g_autoptr(GPtrArray) judged = g_ptr_array_new();
                g_autoptr(GPtrArray) other = g_ptr_array_new();
                size_t cut;

                split_judged(s, k->name, workload, judged, other);
                /* Each table's columns at most the page's bound. */
                cut = (judged->len > PAGE_METRICS_MAX ? judged->len - PAGE_METRICS_MAX : 0) +
                      (other->len > PAGE_METRICS_MAX ? other->len - PAGE_METRICS_MAX : 0);
                if (judged->len > PAGE_METRICS_MAX)
                        g_ptr_array_set_size(judged, PAGE_METRICS_MAX);
                if (other->len > PAGE_METRICS_MAX)
                        g_ptr_array_set_size(other, PAGE_METRICS_MAX);
                html_elem(h, "h2", workload);
                page_left_out(h, cut, "metrics", "kbench show --json RUN (the run pages' data files)");
                if (judged->len)
                        history(h, s, k->name, workload, judged, "cards");
                else
                        html_elem(h, "p", "kbench compare judges none of its metrics in these runs.");
                trends(h, s, k->name, workload, judged);
                if (other->len) {
                        html_start(h, "details");
                        html_start(h, "summary");
                        html_textf(h, "Other metrics (%u, no verdict: vmstat, host, timings, rates the emulator "
                                      "paced)", other->len);
                        html_end(h);
                        history(h, s, k->name, workload, other, "flow");
                        html_end(h);
                }
        }
        page_end(h);
}
