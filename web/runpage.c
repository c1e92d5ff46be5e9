/* web/runpage: one run's page: what was run and how it ended (state counts,
 * failed cells linking to their logs), the kernel x workload matrix of
 * mean ± sd over ok cells (the run view's summaries) of the metrics
 * `kbench compare` judges of these cells, the others folded below, bar
 * charts of the judged ones with 95 % confidence whiskers, every cell, and
 * the run's settings. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report/html.h"
#include "report/stats.h"
#include "report/svg.h"
#include "report/text.h"
#include "results/cellstate.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

/* The metric names of one workload in a run: the workload's own first
 * (dd.*), then the rest (vmstat.*), each in the view's order. Borrowed
 * strings; caller g_free()s the array. */
static const char **workload_metrics(const struct view_run *v, const char *workload, size_t *ret_n) {
        const char **names = g_new(const char *, v->n_series + 1);
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        size_t n = 0, wl = strlen(workload);

        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < v->n_series; i++) {
                        const struct query_series *q = v->summary[i].s;
                        int own = strncmp(q->metric, workload, wl) == 0 && q->metric[wl] == '.';

                        if (strcmp(q->workload, workload) != 0 || own != (pass == 0))
                                continue;
                        if (g_hash_table_add(seen, q->metric))
                                names[n++] = q->metric;
                }
        *ret_n = n;
        return names;
}

/* Whether the workload's cells in this run had their rates and times
 * paced by the emulator (sitehtml_paced of its first cell). */
static int workload_paced(const struct model_run *r, const char *workload) {
        const struct query_cell *c = NULL;

        for (size_t k = 0; k < r->n_kernels && !c; k++)
                c = model_run_cell(r, r->kernels[k], workload);
        return sitehtml_paced(r, c);
}

/* The matrix of one workload's judged metrics (judged set) or of its
 * informational ones: judged as `kbench compare` judges these cells (the
 * metric registry, less what the emulator paced: view_metric_judged). */
static void matrix(struct html *h, const struct model *s, const struct model_run *r, const char *workload,
                   int judged) {
        const struct view_run *v = r->v;
        size_t n_metrics, rows = 0;
        g_autofree const char **metrics = workload_metrics(v, workload, &n_metrics);
        int paced = workload_paced(r, workload);

        sitehtml_scroll_begin(h);
        html_start(h, "table");
        html_start(h, "thead");
        html_start(h, "tr");
        html_elem(h, "th", "metric");
        /* a phone keeps the metric and the kernels' columns */
        html_start(h, "th");
        html_attr(h, "class", "opt");
        html_text(h, "unit");
        html_end(h);
        html_start(h, "th");
        html_attr(h, "class", "opt");
        html_text(h, "better");
        html_end(h);
        for (size_t k = 0; k < r->n_kernels; k++) {
                html_start(h, "th");
                html_attr(h, "class", "num kernel");
                sitehtml_kernel_link(h, s, r->kernels[k]);
                html_end(h);
        }
        html_end(h);
        html_end(h);
        html_start(h, "tbody");
        /* state counts of the workload's cells per kernel */
        if (judged) {
                html_start(h, "tr");
                html_elem(h, "td", "cells (latest attempts)");
                html_start(h, "td");
                html_attr(h, "class", "opt");
                html_end(h);
                html_start(h, "td");
                html_attr(h, "class", "opt");
                html_end(h);
                for (size_t k = 0; k < r->n_kernels; k++) {
                        html_start(h, "td");
                        html_attr(h, "class", "num");
                        sitehtml_state_counts(h, r, r->kernels[k], workload);
                        html_end(h);
                }
                html_end(h);
        }
        for (size_t m = 0; m < n_metrics; m++) {
                const struct view_series *first = NULL;

                if (view_metric_judged(metrics[m], paced) != judged || rows++ >= PAGE_METRICS_MAX)
                        continue;
                for (size_t k = 0; k < r->n_kernels && !first; k++)
                        first = view_run_series(v, r->kernels[k], workload, metrics[m]);
                html_start(h, "tr");
                sitehtml_td_metric(h, metrics[m]);
                html_start(h, "td");
                html_attr(h, "class", "opt");
                html_text(h, first && first->s->unit ? page_unit(first->s->unit) : "-");
                html_end(h);
                sitehtml_td_direction(h, metrics[m]);
                for (size_t k = 0; k < r->n_kernels; k++)
                        sitehtml_td_summary(h, view_run_series(v, r->kernels[k], workload, metrics[m]));
                html_end(h);
        }
        sitehtml_table_end(h);
        if (rows > PAGE_METRICS_MAX) {
                g_autofree char *where = g_strdup_printf("kbench show %lld --all", (long long)v->run->id);

                page_left_out(h, rows - PAGE_METRICS_MAX, "metrics", where);
        }
}

/* One metric's bars (one per kernel that has it) in the unit page_scale
 * picks for the largest, each labelled as the tables print it. Returns
 * the bars, 0 when every mean is 0 (no halts, no waiting). OUT: *ret_unit. */
static size_t metric_bars(const struct model_run *r, const char *workload, const char *metric, struct svg_bar *b,
                          char (*values)[48], const char **ret_unit) {
        double maxabs = 0, k;
        size_t nb = 0;
        int nonzero = 0;

        for (size_t i = 0; i < r->n_kernels; i++) {
                const struct view_series *vs = view_run_series(r->v, r->kernels[i], workload, metric);

                if (!vs || vs->sum.n == 0)
                        continue;
                b[nb] = (struct svg_bar){ .label = r->kernels[i], .mean = vs->sum.mean, .color = (int)i,
                                          .value = values[nb] };
                nonzero |= vs->sum.mean != 0;
                stats_mean_ci(&vs->sum, 0.95, &b[nb].lo, &b[nb].hi);
                page_format_value(vs->sum.mean, vs->s->unit, values[nb], sizeof(values[nb]));
                maxabs = fmax(maxabs, page_maxabs((const double[]){ b[nb].mean, b[nb].lo, b[nb].hi }, 3));
                *ret_unit = vs->s->unit;
                nb++;
        }
        k = page_scale(maxabs, *ret_unit, ret_unit);
        for (size_t i = 0; i < nb; i++) {
                b[i].mean *= k;
                b[i].lo *= k;
                b[i].hi *= k;
        }
        return nonzero ? nb : 0;
}

/* One bar chart per metric a comparison of these cells judges (the
 * workload's own where not paced by the emulator, the kernel's
 * instructions per phase, waiting and spinning, swapping): the per-kernel
 * means with their 95 % intervals. A metric that is 0 for every kernel
 * (no halts, no waiting) is left out. */
static void bars(struct html *h, const struct model_run *r, const char *workload) {
        size_t n_metrics, drawn = 0;
        g_autofree const char **metrics = workload_metrics(r->v, workload, &n_metrics);
        g_autofree struct svg_bar *b = g_new0(struct svg_bar, r->n_kernels + 1);
        g_autofree char(*values)[48] = g_malloc0_n(r->n_kernels + 1, sizeof(*values));
        int paced = workload_paced(r, workload);

        for (size_t m = 0; m < n_metrics; m++) {
                struct svg_bar_chart c = { .title = metrics[m], .bars = b };

                if (!view_metric_judged(metrics[m], paced))
                        continue;
                if (drawn >= PAGE_CHARTS_MAX)
                        continue;
                c.n_bars = metric_bars(r, workload, metrics[m], b, values, &c.unit);
                if (c.n_bars == 0)
                        continue;
                if (drawn++ == 0) {
                        html_start(h, "div");
                        html_attr(h, "class", "charts");
                }
                html_start(h, "figure");
                svg_bar_chart(h, &c);
                html_elem(h, "figcaption", "mean of the ok cells; whiskers: 95 % confidence interval of the mean");
                html_end(h);
        }
        if (drawn)
                html_end(h);
}

/* A time as the pages print one: "167 ms", "1.31 s". */
static void td_seconds(struct html *h, double v) {
        char b[48];

        page_format_value(v, "s", b, sizeof(b));
        html_start(h, "td");
        html_attr(h, "class", "num");
        html_text(h, b);
        html_end(h);
}

static void cells_table(struct html *h, const struct model *s, const struct model_run *r, int failed_only) {
        static const char *const head[] = { "cell", "kernel", "workload", "iteration", "attempt", "state",
                                            "accel", "boot", "workload time", "total", "detail" };

        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
        for (size_t k = 0; k < r->n_latest; k++) {
                const struct query_cell *c = &r->v->cells[r->latest[k]];

                if (failed_only && cellstate_is(c->state, CELLSTATE_OK))
                        continue;
                html_start(h, "tr");
                sitehtml_cell_tds(h, s, c);
                page_td_int(h, c->iteration + 1);
                page_td_int(h, c->attempt);
                page_td_state(h, c->state);
                page_td_text(h, c->accel);
                td_seconds(h, c->boot_s);
                td_seconds(h, c->workload_s);
                td_seconds(h, c->total_s);
                page_td_wrap(h, c->detail);
                html_end(h);
        }
        sitehtml_table_end(h);
}

void runpage_render(struct html *h, const struct model *s, const struct model_run *r) {
        const struct query_run *run = r->v->run;
        g_autofree char *title = run->tag ? g_strdup_printf("Run %lld: %s", (long long)run->id, run->tag)
                                          : g_strdup_printf("Run %lld", (long long)run->id);
        g_autofree char *json = page_json_file(r->file);

        page_begin(h, &(struct page_head){ title, "run", json, NULL });
        sitehtml_run_facts(h, r);

        html_elem(h, "h2", "Results: mean ± sd (as % of the mean) over ok cells, (n) cells");
        if (r->n_workloads == 0)
                html_elem(h, "p", "No cells stored yet.");
        for (size_t w = 0; w < r->n_workloads; w++) {
                html_elemf(h, "h3", "%s", r->workloads[w]);
                matrix(h, s, r, r->workloads[w], 1);
                html_start(h, "details");
                html_elem(h, "summary", "Informational metrics (no verdict for these cells: vmstat, host, "
                                        "timings, rates the emulator paced)");
                matrix(h, s, r, r->workloads[w], 0);
                html_end(h);
                bars(h, r, r->workloads[w]);
        }

        html_elem(h, "h2", "Comparisons");
        sitehtml_compare_table(h, s, run->id, (size_t)-1);

        if (r->n_failed) {
                html_elemf(h, "h2", "Failed cells (%zu)", r->n_failed);
                html_elem(h, "p", "Failed cells never enter the statistics. Their pages hold the console log "
                                  "and the job's output.");
                cells_table(h, s, r, 1);
        }
        html_elemf(h, "h2", "All cells (%zu)", r->n_latest);
        cells_table(h, s, r, 0);

        html_elem(h, "h2", "Settings");
        sitehtml_run_settings(h, run->settings_json);
        html_elem(h, "h3", "Host");
        sitehtml_host_info(h, run->host_info_json);
        page_end(h);
}
