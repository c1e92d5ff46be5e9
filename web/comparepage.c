/* web/comparepage: one comparison, B against A, as `kbench compare` lays it
 * out (report/compare.h is the view; the numbers and verdicts are its
 * own): per paired group the table of every metric with n, mean, sd %,
 * change and its 95 % interval, Welch's and Mann-Whitney's p, the BH q,
 * the minimum detectable effect and the repeats a 2 % / 5 % change needs.
 * Only `better` and `worse` are coloured; `~` and the reasons for no
 * verdict are plain. Below each table: bar charts of the two sides' means
 * with 95 % whiskers, and vmstat and the transfer of one representative
 * cell per side (the median by the group's first judged metric) overlaid. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/util.h"
#include "report/compare.h"
#include "report/explain.h"
#include "report/html.h"
#include "report/stats.h"
#include "report/svg.h"
#include "report/text.h"
#include "web/charts.h"
#include "web/history.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

static void td(struct html *h, const char *cls, const char *text) {
        html_start(h, "td");
        html_attr(h, "class", cls);
        html_text(h, text);
        html_end(h);
}

static void td_n(struct html *h, const char *cls, size_t n, size_t max) {
        char b[32];

        if (n == 0)
                snprintf(b, sizeof(b), "n/a");
        else if (n > max)
                snprintf(b, sizeof(b), ">%zu", max);
        else
                snprintf(b, sizeof(b), "%zu", n);
        td(h, cls, b);
}

/* A metric row's first cells, judged or not: the name with its unit,
 * then each side's mean and coefficient of variation. */
static void sides_cells(struct html *h, const struct compare_metric *m) {
        char b[80];

        html_start(h, "td");
        sitehtml_metric_name(h, m->name);
        /* a time's figures carry their own unit (µs, ms, s) */
        if (m->unit && *m->unit && strcmp(m->unit, "s") != 0) {
                html_start(h, "span");
                html_attr(h, "class", "muted");
                html_textf(h, " %s", page_unit(m->unit));
                html_end(h);
        }
        html_end(h);
        page_format_value(m->sa.mean, m->unit, b, sizeof(b));
        td(h, "num", b);
        text_format_pct(m->sa.cov, 0, b, sizeof(b));
        td(h, "num muted opt", b);
        page_format_value(m->sb.mean, m->unit, b, sizeof(b));
        td(h, "num", b);
        text_format_pct(m->sb.cov, 0, b, sizeof(b));
        td(h, "num muted opt", b);
}

static void metric_row(struct html *h, const struct compare_metric *m) {
        char b[80], change[64], ci[64], mde[64];
        const char *cls;

        html_start(h, "tr");
        sides_cells(h, m);
        switch (m->verdict) {
        case COMPARE_WORSE: cls = "num worse"; break;
        case COMPARE_BETTER: cls = "num better"; break;
        default: cls = "num"; break;
        }
        text_format_change(m, change, ci, mde, sizeof(change));
        td(h, cls, change);
        td(h, "num ci", ci);
        switch (m->verdict) {
        case COMPARE_WORSE: td(h, "worse", "worse"); break;
        case COMPARE_BETTER: td(h, "better", "better"); break;
        case COMPARE_SAME: td(h, "none", "~"); break;
        case COMPARE_INFO: td(h, "none", ""); break;
        default: td(h, "none", compare_verdict_name(m->verdict)); break;
        }
        text_format_p(m->ttest.p, b, sizeof(b));
        td(h, "num opt", b);
        text_format_p(m->mw.p, b, sizeof(b));
        td(h, "num opt", b);
        text_format_p(m->q, b, sizeof(b));
        td(h, "num opt", b);
        snprintf(b, sizeof(b), "%zu+%zu", m->na, m->nb);
        td(h, "num opt", b);
        td(h, "num opt", mde);
        td_n(h, "num opt", m->n_for_2, 1000);
        td_n(h, "num opt", m->n_for_5, 1000);
        html_end(h);
}

/* The rows of g's table of judged (judged 1) or informational metrics,
 * at most PAGE_METRICS_MAX, then a note of the rest naming where. */
static void bounded_rows(struct html *h, const struct compare_group *g, int judged, const char *where,
                         void (*row)(struct html *h, const struct compare_metric *m)) {
        size_t rows = 0;

        for (size_t i = 0; i < g->n_m; i++)
                if (g->m[i].judged == judged && rows++ < PAGE_METRICS_MAX)
                        row(h, &g->m[i]);
        sitehtml_table_end(h);
        if (rows > PAGE_METRICS_MAX)
                page_left_out(h, rows - PAGE_METRICS_MAX, judged ? "judged metrics" : "informational metrics",
                              where);
}

static void metric_table(struct html *h, const struct compare_group *g, const char *where) {
        static const char *const head[] = { "metric", "A", "± sd", "B", "± sd", "change", "95% CI", "verdict",
                                            "p (t)", "p (MW)", "q (BH)", "n", "mde", "n for 2%", "n for 5%" };

        /* a phone keeps metric, A, B, change, interval and verdict, as compare's default table */
        sitehtml_table_begin_opt(h, "cmp", head, G_N_ELEMENTS(head), 1u << 2 | 1u << 4 | 15u << 8 | 15u << 11);
        bounded_rows(h, g, 1, where, metric_row);
}

/* One informational row: the two sides and why there is no verdict; the
 * change only where text_change_shown() (as kbench compare --all). */
static void info_row(struct html *h, const struct compare_metric *m) {
        char b[80];

        html_start(h, "tr");
        sides_cells(h, m);
        if (text_change_shown(m))
                text_format_pct(m->change, 1, b, sizeof(b));
        else
                snprintf(b, sizeof(b), "%s", isfinite(m->change) && m->info.direction != METRICS_NONE ? "near 0" : "");
        td(h, "num", b);
        snprintf(b, sizeof(b), "%zu+%zu", m->na, m->nb);
        td(h, "num opt", b);
        td(h, "muted wrap", m->info.why ? m->info.why : "not in this kbench's registry");
        html_end(h);
}

static void info_table(struct html *h, const struct compare_group *g, const char *where) {
        static const char *const head[] = { "metric", "A", "± sd", "B", "± sd", "change", "n", "why no verdict" };

        sitehtml_table_begin_opt(h, "info", head, G_N_ELEMENTS(head), 1u << 2 | 1u << 4 | 1u << 6);
        bounded_rows(h, g, 0, where, info_row);
}

static void side_line(struct html *h, const char *label, const struct compare_side *s) {
        html_start(h, "li");
        html_start(h, "strong");
        html_text(h, label);
        html_end(h);
        html_textf(h, " %zu ok", s->ok);
        if (s->failed)
                html_textf(h, ", %zu failed (%s)", s->failed, s->failed_states ? s->failed_states : "");
        html_text(h, s->n_runs > 1 ? " in runs " : " in run ");
        for (size_t i = 0; i < s->n_runs; i++) {
                g_autofree char *file = page_run_file(s->runs[i]);
                g_autofree char *id = g_strdup_printf("%lld", (long long)s->runs[i]);

                if (i)
                        html_text(h, ", ");
                html_link(h, file, id);
        }
        html_end(h);
}

/* The pairing key's settings line (pairkey_line; the workload spec is
 * the heading). */
static void settings_line(struct html *h, const struct pairkey *key) {
        g_autofree char *line = pairkey_line(key);

        html_start(h, "li");
        html_start(h, "strong");
        html_text(h, "settings:");
        html_end(h);
        html_start(h, "code");
        html_text(h, line);
        html_end(h);
        html_end(h);
}

/* Both sides' samples (v[0], v[1]: the rows' own copies), medians and
 * means in the unit page_scale picks for the largest; returns it. */
static const char *scale_strips(struct svg_strip rows[2], double *v[2], const char *unit) {
        const char *shown;
        double k = page_scale(fmax(page_maxabs(v[0], rows[0].n), page_maxabs(v[1], rows[1].n)), unit, &shown);

        for (int r = 0; r < 2; r++) {
                for (size_t i = 0; i < rows[r].n; i++)
                        v[r][i] *= k;
                rows[r].median *= k;
                rows[r].mean *= k;
                rows[r].lo *= k;
                rows[r].hi *= k;
        }
        return shown;
}

/* The distribution of one judged metric's samples on each side: a dot per
 * ok cell, the median, the mean's 95 % interval. */
static void distribution(struct html *h, const struct model_compare *c, const struct compare_metric *m) {
        g_autofree double *a = g_memdup2(m->a, m->na * sizeof(double));
        g_autofree double *b = g_memdup2(m->b, m->nb * sizeof(double));
        struct svg_strip rows[2] = {
                { .label = "A", .v = a, .n = m->na, .median = m->sa.median, .mean = m->sa.mean, .color = 0 },
                { .label = "B", .v = b, .n = m->nb, .median = m->sb.median, .mean = m->sb.mean, .color = 1 },
        };
        g_autofree char *title = g_strdup_printf("%s: samples", m->name);
        const char *unit;

        if (stats_mean_ci(&m->sa, 0.95, &rows[0].lo, &rows[0].hi) < 0)
                rows[0].lo = rows[0].hi = NAN;
        if (stats_mean_ci(&m->sb, 0.95, &rows[1].lo, &rows[1].hi) < 0)
                rows[1].lo = rows[1].hi = NAN;
        unit = scale_strips(rows, (double *[2]){ a, b }, m->unit);
        html_start(h, "figure");
        svg_strip_chart(h, &(struct svg_strip_chart){ .title = title, .unit = unit, .rows = rows, .n_rows = 2 });
        html_start(h, "figcaption");
        html_textf(h, "A = %s, B = %s; a dot per ok cell, tall tick: median, whisker: 95 %% confidence interval "
                      "of the mean", c->v->desc_a, c->v->desc_b);
        html_end(h);
        html_end(h);
}

/* Both sides' means in one unit, the one page_scale picks for the
 * largest; returns it. */
static const char *scale_sides(double *v[2], const struct history_line lines[2], const char *unit) {
        const char *shown;
        double k = page_scale(fmax(page_maxabs(v[0], lines[0].n), page_maxabs(v[1], lines[1].n)), unit, &shown);

        for (int side = 0; side < 2; side++)
                for (size_t i = 0; i < lines[side].n; i++)
                        v[side][i] *= k;
        return shown;
}

/* The metric's history at each side's settings, the compared runs marked. */
static void history_chart(struct html *h, const struct compare_group *g, const struct compare_metric *m,
                          const struct history_line lines[2], int64_t last_run) {
        g_autofree char *title = g_strdup_printf("%s: history", m->name);
        g_autofree char *la = g_strdup_printf("A: %s", lines[0].kernel ? lines[0].kernel : "-");
        g_autofree char *lb = g_strdup_printf("B: %s", lines[1].kernel ? lines[1].kernel : "-");
        const struct compare_side *sides[2] = { &g->a, &g->b };
        g_autofree struct svg_mark *marks = g_new0(struct svg_mark, g->a.n_runs + g->b.n_runs + 1);
        double *t[2], *v[2];
        struct svg_series series[2];
        size_t n_marks = 0;
        const char *unit;

        for (int side = 0; side < 2; side++) {
                t[side] = g_new(double, lines[side].n + 1);
                v[side] = g_new(double, lines[side].n + 1);
                for (size_t i = 0; i < lines[side].n; i++) {
                        t[side][i] = (double)lines[side].p[i].run;
                        v[side][i] = lines[side].p[i].mean;
                }
                series[side] = (struct svg_series){ .label = side ? lb : la, .t = t[side], .v = v[side],
                                                    .n = lines[side].n, .color = side, .dashed = side };
                for (size_t i = 0; i < sides[side]->n_runs; i++)
                        marks[n_marks++] = (struct svg_mark){ (double)sides[side]->runs[i], side ? "B" : "A" };
        }
        unit = scale_sides(v, lines, m->unit);
        html_start(h, "figure");
        svg_line_chart(h, &(struct svg_line_chart){ .title = title, .x_label = "run", .x_integer = 1, .markers = 1,
                                                    .y_fit = 1, .y_unit = unit, .series = series, .n_series = 2,
                                                    .marks = marks, .n_marks = n_marks });
        html_start(h, "figcaption");
        html_textf(h, "history across runs, a trend and not this comparison: mean over each run's ok cells of the "
                      "side's kernel at the side's own settings, each carrying its run's offset, runs up to %lld; "
                      "dashed verticals: the runs compared", (long long)last_run);
        html_end(h);
        html_end(h);
        for (int side = 0; side < 2; side++) {
                g_free(t[side]);
                g_free(v[side]);
        }
}

/* Per judged metric with samples on both sides: its distribution and its
 * history, side by side. */
static void metric_charts(struct html *h, const struct model_compare *c, const struct compare_group *g,
                          const struct history_group *hist) {
        int drawn = 0;

        for (size_t i = 0; i < g->n_m; i++) {
                const struct compare_metric *m = &g->m[i];
                const struct history_line *lines = NULL;

                if (!m->judged || m->na == 0 || m->nb == 0 || drawn >= PAGE_CHARTS_MAX)
                        continue;
                if (hist)
                        lines = history_lines_of(hist, m->name);
                if (!drawn++) {
                        html_start(h, "div");
                        html_attr(h, "class", "charts");
                }
                distribution(h, c, m);
                /* A history is two runs or more of one side: a single run
                 * per side is the comparison itself, drawn above. */
                if (lines && (lines[0].n >= 2 || lines[1].n >= 2))
                        history_chart(h, g, m, lines, hist->last_run);
        }
        if (drawn)
                html_end(h);
}

static void rep_line(struct html *h, const char *side, const struct model_rep *r) {
        g_autofree char *file = NULL;
        char b[32];

        html_start(h, "li");
        html_start(h, "strong");
        html_text(h, side);
        html_end(h);
        if (!r->cell_key) {
                html_text(h, " no representative cell");
                html_end(h);
                return;
        }
        file = page_cell_file(r->run_id, r->cell_key);
        page_format_num(r->value, b, sizeof(b));
        html_textf(h, " %s, run %lld ", r->kernel, (long long)r->run_id);
        html_link(h, file, r->cell_key);
        html_textf(h, " (%s = %s, nearest the side's median)", r->metric, b);
        html_end(h);
}

/* vmstat and the transfer of the representative cell of each side,
 * overlaid. */
static void rep_charts(struct html *h, const struct model_group_cells *gc) {
        struct cell_charts *const *charts = gc->charts;
        const struct cell_charts *sides[2];
        const char *labels[2] = { "A", "B" };
        size_t n = 0;

        if (!charts[0] && !charts[1])
                return;
        html_elem(h, "h3", "vmstat of a representative cell per side (A solid, B dashed)");
        html_start(h, "ul");
        rep_line(h, "A:", &gc->rep[0]);
        rep_line(h, "B:", &gc->rep[1]);
        html_end(h);
        if (charts[0])
                sides[n++] = charts[0];
        if (charts[1]) {
                labels[n] = "B";
                sides[n++] = charts[1];
        }
        if (n == 1)
                labels[0] = charts[0] ? "A" : "B";
        html_start(h, "p");
        html_attr(h, "class", "lead");
        html_text(h, "Shaded: A's writeout stall runs; dashed verticals: A's phase marks.");
        html_end(h);
        charts_vmstat(h, sides, labels, n);
        charts_ftp(h, sides, labels, n);
}

static void group(struct html *h, const struct model *s, const struct model_compare *c, const struct compare_group *g,
                  const struct model_group_cells *gc, const struct history_group *hist) {
        g_autofree char *where = g_strdup_printf("kbench compare --all %s %s", c->sel_a, c->sel_b);
        size_t others = 0;

        html_elem(h, "h2", g->spec);
        html_start(h, "ul");
        side_line(h, "A:", &g->a);
        side_line(h, "B:", &g->b);
        settings_line(h, g->key);
        for (size_t i = 0; i < ELEMENTSOF(g->notes) && g->notes[i]; i++)
                html_elem(h, "li", g->notes[i]);
        if (g->failed) {
                g_autofree char *failing = text_answer_cells(g, 1);

                html_start(h, "li");
                html_start(h, "span");
                html_attr(h, "class", "state bad");
                html_text(h, failing);
                html_end(h);
                html_end(h);
        }
        html_start(h, "li");
        html_textf(h, "%zu worse, %zu better", g->worse, g->better);
        if (isfinite(g->geomean))
                html_textf(h, "; geometric mean of B vs A over %zu judged metrics (+ is better): %+.1f%%",
                           g->n_geomean, (g->geomean - 1) * 100);
        html_end(h);
        html_end(h);
        metric_table(h, g, where);
        metric_charts(h, c, g, hist);
        rep_charts(h, gc);
        for (size_t i = 0; i < g->n_m; i++)
                others += !g->m[i].judged;
        /* Folded, after the judged rows and the charts: context, not
         * findings, and a long table. */
        if (others) {
                html_start(h, "details");
                html_start(h, "summary");
                html_textf(h, "Informational metrics (%zu, no verdict)", others);
                html_end(h);
                info_table(h, g, where);
                html_end(h);
        }
        (void)s;
}

/* ---- the summary: a forest plot per group and the system table ---------- */

/* One judged metric as a forest plot row in its panel's unit: a ratio's
 * change in percent with Fieller's interval and the noise band, an
 * amount's difference in its unit with its test's interval and its band
 * (compare_band: the floor, or the noise band of A's mean when wider).
 * value holds the change as the table prints it (size >= 48). */
static struct svg_forest_row forest_row_of(const struct compare_metric *m, double noise, char *value, size_t size) {
        char ci[64], mde[64];
        enum svg_tone tone = m->verdict == COMPARE_WORSE ? SVG_TONE_WORSE
                             : m->verdict == COMPARE_BETTER ? SVG_TONE_BETTER : SVG_TONE_NONE;

        text_format_change(m, value, ci, mde, size);
        if (m->info.floor > 0)
                return (struct svg_forest_row){ .label = m->name, .value = value, .est = m->diff.estimate,
                                                .lo = m->diff.lo, .hi = m->diff.hi, .band = compare_band(m, noise),
                                                .tone = tone };
        return (struct svg_forest_row){ .label = m->name, .value = value, .est = m->change * 100,
                                        .lo = (m->ratio.lo - 1) * 100, .hi = (m->ratio.hi - 1) * 100,
                                        .band = noise * 100, .tone = tone };
}

/* Rows of the judged metrics of g that belong to a panel, appended to
 * rows from *nr: the ratios (amount 0), or the amounts of one unit.
 * Returns how many were added. */
static size_t panel_rows(const struct compare_group *g, int amount, const char *unit, double noise,
                         struct svg_forest_row *rows, char (*values)[48], size_t *nr) {
        size_t added = 0;

        for (size_t i = 0; i < g->n_m; i++) {
                const struct compare_metric *m = &g->m[i];

                if (!m->judged || (m->info.floor > 0) != amount ||
                    (amount && strcmp(m->unit ? m->unit : "", unit) != 0))
                        continue;
                rows[*nr] = forest_row_of(m, noise, values[*nr], sizeof(values[0]));
                (*nr)++;
                added++;
        }
        return added;
}

/* A panel's n rows of amounts in the unit page_scale picks for their
 * largest figure (ms for waits of milliseconds); returns it. */
static const char *scale_rows(struct svg_forest_row *rows, size_t n, const char *unit) {
        double maxabs = 0, k;
        const char *shown;

        for (size_t i = 0; i < n; i++) {
                const double v[] = { rows[i].est, rows[i].lo, rows[i].hi, rows[i].band };

                maxabs = fmax(maxabs, page_maxabs(v, G_N_ELEMENTS(v)));
        }
        k = page_scale(maxabs, unit, &shown);
        for (size_t i = 0; i < n; i++) {
                rows[i].est *= k;
                rows[i].lo *= k;
                rows[i].hi *= k;
                rows[i].band *= k;
        }
        return shown ? shown : "";
}

/* Every judged metric of the group, one row each: the ratios in one panel
 * (percent of A), the amounts in one panel per unit (their difference). */
static void summary_chart(struct html *h, const struct model_compare *c, const struct compare_group *g) {
        size_t n = g->n_m + 1, nr = 0, np = 0;
        g_autofree struct svg_forest_row *rows = g_new0(struct svg_forest_row, n);
        g_autofree struct svg_forest_panel *panels = g_new0(struct svg_forest_panel, n);
        g_autofree char(*values)[48] = g_malloc0_n(n, sizeof(*values));
        g_autoptr(GPtrArray) axes = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GHashTable) units = g_hash_table_new(g_str_hash, g_str_equal);

        panels[np] = (struct svg_forest_panel){ .rows = rows + nr, .axis = "change of the mean, % of A" };
        panels[np].n_rows = panel_rows(g, 0, NULL, c->v->noise, rows, values, &nr);
        np += panels[np].n_rows > 0;
        for (size_t i = 0; i < g->n_m; i++) {
                const char *unit = g->m[i].unit ? g->m[i].unit : "";
                char *axis;

                if (!g->m[i].judged || !(g->m[i].info.floor > 0) || g_hash_table_contains(units, unit))
                        continue;
                g_hash_table_add(units, (char *)unit);
                panels[np] = (struct svg_forest_panel){ .rows = rows + nr };
                panels[np].n_rows = panel_rows(g, 1, unit, c->v->noise, rows, values, &nr);
                unit = scale_rows(rows + nr - panels[np].n_rows, panels[np].n_rows, unit);
                axis = *unit ? g_strdup_printf("difference of the means, %s", unit)
                             : g_strdup("difference of the means");
                g_ptr_array_add(axes, axis);
                panels[np++].axis = axis;
        }
        if (nr == 0) {
                html_start(h, "p");
                html_start(h, "strong");
                html_text(h, g->spec);
                html_end(h);
                html_text(h, ": no judged metric (its metrics are informational here; the tables below show them)");
                html_end(h);
                return;
        }
        html_start(h, "figure");
        svg_forest_chart(h, &(struct svg_forest_chart){ .title = g->spec, .panels = panels, .n_panels = np });
        html_start(h, "figcaption");
        html_textf(h, "B against A, %zu judged metric%s: dot, the change; whisker, its 95 %% interval; shaded, the "
                      "band within which no change is a verdict (±%g %% noise, or an amount's floor); red worse, "
                      "green better, grey no verdict.", nr, nr == 1 ? "" : "s", c->v->noise * 100);
        html_end(h);
        html_end(h);
}

/* The facts of the system table, in the order shown. */
enum { F_KERNEL, F_HOST, F_CPU, F_RAM, F_HOST_KERNEL, F_ACCEL, F_QEMU, F_LIBVIRT, F_GUEST, F_COUNT };
static const char *const fact_names[F_COUNT] = {
        "kernel", "host", "CPU", "RAM", "host kernel", "accelerator", "QEMU", "libvirt", "guest",
};

/* Add v (not NULL or empty) to a fact's values unless it is there. */
static void fact_add(GPtrArray *values, char *v) {
        if (!v || !*v) {
                g_free(v);
                return;
        }
        for (guint i = 0; i < values->len; i++)
                if (strcmp(g_ptr_array_index(values, i), v) == 0) {
                        g_free(v);
                        return;
                }
        g_ptr_array_add(values, v);
}

static char *json_text(const json_t *o, const char *key) {
        const char *v = json_string_value(json_object_get(o, key));

        return v ? g_strdup(v) : NULL;
}

/* What the run recorded of its host: name, CPU, memory, host kernel,
 * QEMU and libvirt (runs.host, host_info_json, the versions). */
static void host_facts(const struct query_run *run, GPtrArray **f) {
        json_t *info = run->host_info_json ? json_loads(run->host_info_json, 0, NULL) : NULL;

        fact_add(f[F_HOST], g_strdup(run->host));
        fact_add(f[F_CPU], sitehtml_host_cpu(info));
        fact_add(f[F_RAM], sitehtml_host_ram(info));
        fact_add(f[F_HOST_KERNEL], json_text(info, "kernel"));
        fact_add(f[F_QEMU], g_strdup(run->qemu_version));
        fact_add(f[F_LIBVIRT], g_strdup(run->libvirt_version));
        json_decref(info);
}

/* The side's kernel with its release and upstream version and the
 * guest's shape, from the run's settings (its kernels list: name, id,
 * release, upstream). */
static void settings_facts(const struct query_run *run, const char *kernel_id, const char *shown, GPtrArray **f) {
        json_t *set = run->settings_json ? json_loads(run->settings_json, 0, NULL) : NULL;
        const char *release = NULL, *up = NULL;
        const json_t *mem_v = json_object_get(set, "mem_mb"), *cpus_v = json_object_get(set, "cpus");
        long long mem = json_is_integer(mem_v) ? (long long)json_integer_value(mem_v) : 0;
        long long cpus = json_is_integer(cpus_v) ? (long long)json_integer_value(cpus_v) : 0;
        size_t i;
        json_t *k;

        json_array_foreach(json_object_get(set, "kernels"), i, k) {
                const char *id = json_string_value(json_object_get(k, "id"));

                if (id && strcmp(id, kernel_id) == 0) {
                        release = json_string_value(json_object_get(k, "release"));
                        up = json_string_value(json_object_get(k, "upstream"));
                }
        }
        if (release && shown && strcmp(release, shown) == 0)
                release = NULL;
        if (shown)
                fact_add(f[F_KERNEL], release || up ? g_strdup_printf("%s (%s%s%s%s)", shown, release ? release : "",
                                                                      release && up ? ", " : "", up ? "upstream " : "",
                                                                      up ? up : "")
                                                    : g_strdup(shown));
        if (mem > 0 && cpus > 0)
                fact_add(f[F_GUEST], g_strdup_printf("%lld MiB RAM, %lld vCPU%s", mem, cpus, cpus == 1 ? "" : "s"));
        json_decref(set);
}

/* Every fact of one side, over the runs its groups' cells come from. */
static void side_facts(const struct model *s, const struct compare_view *v, int side, GPtrArray **f) {
        const char *kernel_id = side ? v->kernel_b : v->kernel_a;

        for (size_t g = 0; g < v->n_groups; g++) {
                const struct compare_side *cs = side ? &v->groups[g].b : &v->groups[g].a;

                for (size_t i = 0; i < cs->n_runs; i++) {
                        const struct model_run *r = model_run_find(s, cs->runs[i]);
                        const char *shown = NULL;

                        if (!r || !kernel_id)
                                continue;
                        for (size_t k = 0; k < r->n_latest; k++) {
                                const struct query_cell *c = &r->v->cells[r->latest[k]];

                                if (strcmp(c->kernel_id, kernel_id) != 0)
                                        continue;
                                shown = c->kernel_name;
                                if (c->accel)
                                        fact_add(f[F_ACCEL], g_ascii_strup(c->accel, -1));
                        }
                        host_facts(r->v->run, f);
                        settings_facts(r->v->run, kernel_id, shown, f);
                }
        }
}

static void facts_td(struct html *h, GPtrArray *values, int both) {
        html_start(h, "td");
        html_attr(h, "class", "wrap");
        if (both)
                html_attr(h, "colspan", "2");
        for (guint i = 0; i < values->len; i++)
                html_textf(h, "%s%s", i ? ", " : "", (const char *)g_ptr_array_index(values, i));
        html_end(h);
}

static int facts_equal(GPtrArray *a, GPtrArray *b) {
        if (a->len != b->len)
                return 0;
        for (guint i = 0; i < a->len; i++)
                if (strcmp(g_ptr_array_index(a, i), g_ptr_array_index(b, i)) != 0)
                        return 0;
        return 1;
}

/* The machines and kernels behind both sides, as the store recorded them:
 * a row per fact either side has, one cell when both sides agree. Nothing
 * the store did not record is shown. */
static void system_table(struct html *h, const struct model *s, const struct compare_view *v) {
        static const char *const head[] = { "", "A", "B" };
        GPtrArray *f[2][F_COUNT];
        int any = 0;

        for (int side = 0; side < 2; side++) {
                for (int i = 0; i < F_COUNT; i++)
                        f[side][i] = g_ptr_array_new_with_free_func(g_free);
                side_facts(s, v, side, f[side]);
        }
        for (int i = 0; i < F_COUNT; i++)
                any |= f[0][i]->len || f[1][i]->len;
        if (any) {
                html_elem(h, "h2", "System");
                sitehtml_table_begin(h, "facts", head, G_N_ELEMENTS(head));
                for (int i = 0; i < F_COUNT; i++) {
                        if (!f[0][i]->len && !f[1][i]->len)
                                continue;
                        html_start(h, "tr");
                        html_elem(h, "th", fact_names[i]);
                        if (facts_equal(f[0][i], f[1][i]))
                                facts_td(h, f[0][i], 1);
                        else {
                                facts_td(h, f[0][i], 0);
                                facts_td(h, f[1][i], 0);
                        }
                        html_end(h);
                }
                sitehtml_table_end(h);
        }
        for (int side = 0; side < 2; side++)
                for (int i = 0; i < F_COUNT; i++)
                        g_ptr_array_free(f[side][i], TRUE);
}

/* A count of instructions per cell as Minsn, signed when sign. */
static void minsn(double insns, int sign, char *buf, size_t size) {
        char num[40];

        text_format_num(insns / 1e6, num, sizeof(num));
        snprintf(buf, size, "%s%s", sign && insns > 0 && num[0] != '-' ? "+" : "", num);
}

/* One function of an explanation: its name, both sides, the difference
 * and its share of A's phase, and "only in B" for one the other lacks. */
static void explain_row(struct html *h, const struct explain *x, const struct explain_fn *f) {
        char b[64];

        html_start(h, "tr");
        html_start(h, "td");
        html_elem(h, "code", f->symbol);
        if (f->only) {
                html_start(h, "span");
                html_attr(h, "class", "muted");
                html_textf(h, " only in %c", f->only);
                html_end(h);
        }
        html_end(h);
        minsn(f->a, 0, b, sizeof(b));
        td(h, "num", b);
        minsn(f->b, 0, b, sizeof(b));
        td(h, "num", b);
        minsn(f->delta, 1, b, sizeof(b));
        td(h, f->delta > 0 ? "num worse" : "num", b);
        text_format_pct(x->total_a > 0 ? f->delta / x->total_a : NAN, 1, b, sizeof(b));
        td(h, "num", b);
        html_end(h);
}

/* The functions not listed, their differences summed. */
static void rest_row(struct html *h, const struct explain *x) {
        char b[64];

        html_start(h, "tr");
        snprintf(b, sizeof(b), "%zu other%s", x->n_rest, x->n_rest == 1 ? "" : "s");
        td(h, "muted", b);
        td(h, "num", "");
        td(h, "num", "");
        minsn(x->rest, 1, b, sizeof(b));
        td(h, "num", b);
        text_format_pct(x->total_a > 0 ? x->rest / x->total_a : NAN, 1, b, sizeof(b));
        td(h, "num", b);
        html_end(h);
}

/* Where each explained change of the group's kernel instructions went
 * (report/explain.h): a small table per phase beside the forest plot, as
 * kbench compare prints it under the change. */
static void explain_tables(struct html *h, const struct compare_view *v, size_t gi) {
        static const char *const head[] = { "function", "A Minsn", "B Minsn", "change", "% of A's phase" };

        for (size_t i = 0; v->explain && i < v->explain->n; i++) {
                const struct explain *x = &v->explain->v[i];
                char d[64], a[64], b[64];

                if (x->group != gi)
                        continue;
                html_start(h, "p");
                html_textf(h, "Where the kernel's instructions of the %s phase went", x->phase);
                if (x->none) {
                        html_textf(h, ": not known (%s).", x->none);
                        html_end(h);
                        continue;
                }
                minsn(x->total_b - x->total_a, 1, d, sizeof(d));
                minsn(x->total_a, 0, a, sizeof(a));
                minsn(x->total_b, 0, b, sizeof(b));
                html_textf(h, ", Minsn a cell: %s (%s -> %s; %zu + %zu cells profiled).", d, a, b, x->na, x->nb);
                html_end(h);
                sitehtml_table_begin(h, "cmp explain", head, G_N_ELEMENTS(head));
                for (size_t k = 0; k < x->n_top; k++)
                        explain_row(h, x, &x->top[k]);
                if (x->n_rest)
                        rest_row(h, x);
                sitehtml_table_end(h);
        }
}

/* The night that made the comparison: when, what it called the subject. */
static void night_line(struct html *h, const struct model_compare *c) {
        char when[40];

        if (!c->night)
                return;
        page_format_time(c->night->started_at, when, sizeof(when));
        html_elem(h, "dt", "night");
        html_start(h, "dd");
        html_textf(h, "kbench nightly of %s: %s against the baseline %s", when, c->subject ? c->subject : "-",
                   c->night->baseline ? c->night->baseline : "-");
        html_end(h);
}

void comparepage_render(struct html *h, const struct model *s, const struct model_compare *c,
                        const struct model_group_cells *groups, const struct history_group *hist) {
        const struct compare_view *v = c->v;
        g_autofree char *title = g_strdup_printf("%s vs %s", c->sel_b, c->sel_a);
        g_autofree char *json = page_json_file(c->file);
        /* The command that prints the same view, options only where they are not compare's defaults. */
        g_autofree char *opts = fabs(v->alpha - 0.05) > 1e-12 || fabs(v->noise - 0.02) > 1e-12
                                        ? g_strdup_printf("--alpha %g --noise %g%% ", v->alpha, v->noise * 100)
                                        : g_strdup("");

        page_begin(h, &(struct page_head){ title, "comparison", json, NULL });
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        night_line(h, c);
        html_elem(h, "dt", "A");
        html_elem(h, "dd", v->desc_a);
        html_elem(h, "dt", "B");
        html_elem(h, "dd", v->desc_b);
        html_elem(h, "dt", "verdicts");
        html_start(h, "dd");
        html_start(h, "strong");
        html_textf(h, "%zu worse, %zu better", v->worse, v->better);
        html_end(h);
        html_textf(h, " of %zu judged metrics in %zu paired group%s", v->judged, v->n_groups,
                   v->n_groups == 1 ? "" : "s");
        if (v->failed_groups)
                html_textf(h, ", %zu whose cells failed", v->failed_groups);
        html_end(h);
        html_end(h);
        /* the summary and the system side by side where the screen is wide */
        html_start(h, "div");
        html_attr(h, "class", "overview");
        if (v->n_groups) {
                html_start(h, "section");
                html_attr(h, "class", "summary");
                html_elem(h, "h2", "Summary");
                for (size_t g = 0; g < v->n_groups; g++) {
                        summary_chart(h, c, &v->groups[g]);
                        explain_tables(h, v, g);
                }
                html_end(h);
        }
        html_start(h, "section");
        system_table(h, s, v);
        html_end(h);
        html_end(h);
        html_elem(h, "h2", "How the verdicts are made");
        html_start(h, "p");
        html_attr(h, "class", "lead");
        html_textf(h, "A metric is better or worse only when its t-test p survives Benjamini-Hochberg at "
                      "q = %g over the judged metrics and the whole 95 %% interval of the change lies "
                      "beyond the noise band of ±%g %% (Welch's test and Fieller's interval of the ratio; for an "
                      "amount in seconds or MiB, Welch's test of the means or Yuen's of the 20 %% trimmed means, "
                      "the smaller p doubled, and its interval of the difference, beyond its floor as well; for "
                      "the longest stall of a phase, the share of B's cells that stall beyond A's median: the "
                      "tail rule); "
                      "otherwise ~. \"n too small\": the exact Mann-Whitney test "
                      "cannot reach %g at these sizes. mde: the smallest change this comparison could detect "
                      "(80 %% power); n for 2 %% / 5 %%: repeats per side such a change needs. The same view as "
                      "kbench compare %s%s %s.",
                   v->alpha, v->noise * 100, v->alpha, opts, c->sel_a, c->sel_b);
        html_end(h);
        if (v->same_cells)
                html_elem(h, "p", "Note: A and B select the same cells, so every sample is compared with "
                                  "itself; for an A/A comparison name two runs or tags.");
        if (v->ignored && v->ignored[0]) {
                html_start(h, "p");
                html_text(h, "Paired across differing settings:");
                for (size_t i = 0; v->ignored[i]; i++)
                        html_textf(h, " %s", v->ignored[i]);
                html_end(h);
        }
        if (v->n_groups == 0)
                html_elem(h, "p", "Nothing pairs: no workload ran with the same settings on both sides.");
        for (size_t g = 0; g < v->n_groups; g++)
                group(h, s, c, &v->groups[g], &groups[g], hist ? &hist[g] : NULL);
        if (v->n_lonely) {
                html_elem(h, "h2", "Not compared (on one side only)");
                html_start(h, "ul");
                for (size_t i = 0; i < v->n_lonely; i++) {
                        const struct compare_lonely *l = &v->lonely[i];

                        html_start(h, "li");
                        html_textf(h, "only %c: %s, %zu ok", l->side, l->spec, l->s.ok);
                        if (l->s.failed)
                                html_textf(h, ", %zu failed", l->s.failed);
                        if (l->differs)
                                html_textf(h, "; differs from %c's %s cells in: %s", l->side == 'A' ? 'B' : 'A',
                                           l->workload, l->differs);
                        html_end(h);
                }
                html_end(h);
        }
        page_end(h);
}
