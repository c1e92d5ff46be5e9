/* web/bisectpage: one bisection (kbench bisect, results/bisect.h): what was
 * searched, the answer, the evidence for it (the first bad candidate
 * measured once more against the last good one: its means, its verdicts,
 * and the comparisons of its runs), every step in order with the runs it
 * measured linked to their pages, and the means of each step drawn, so a
 * reader sees where the metric moved. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report/html.h"
#include "report/svg.h"
#include "report/text.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

static void fact(struct html *h, const char *name, const char *value) {
        html_elem(h, "dt", name);
        html_elem(h, "dd", value ? value : "-");
}

/* The step's runs as links to their pages ("-" when none). */
static void runs_td(struct html *h, const struct model *s, const struct bisect_step_row *st) {
        json_t *runs = st->run_ids_json ? json_loads(st->run_ids_json, 0, NULL) : NULL;
        size_t i, shown = 0;
        json_t *e;

        html_start(h, "td");
        json_array_foreach(runs, i, e) {
                const struct model_run *r = json_is_integer(e) ? model_run_find(s, json_integer_value(e)) : NULL;

                if (!r)
                        continue;
                if (shown++)
                        html_text(h, ", ");
                sitehtml_run_link(h, r);
        }
        if (!shown)
                html_text(h, "-");
        html_end(h);
        json_decref(runs);
}

static void steps_table(struct html *h, const struct model *s, const struct bisect_row *b) {
        static const char *const head[] = { "step", "role", "candidate", "decision", "rounds", "vs good", "vs bad",
                                            "mean good", "mean candidate", "mean bad", "runs", "note" };

        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
        for (size_t i = 0; i < b->n_steps; i++) {
                const struct bisect_step_row *st = &b->steps[i];

                html_start(h, "tr");
                page_td_int(h, st->step);
                page_td_text(h, st->role);
                page_td_text(h, st->candidate);
                html_start(h, "td");
                html_attr(h, "class", st->decision && strcmp(st->decision, "bad") == 0 ? "worse" : NULL);
                html_text(h, st->decision ? st->decision : "-");
                html_end(h);
                page_td_int(h, st->rounds);
                page_td_text(h, st->vs_good);
                page_td_text(h, st->vs_bad);
                page_td_num(h, st->mean_good);
                page_td_num(h, st->mean_cand);
                page_td_num(h, st->mean_bad);
                runs_td(h, s, st);
                page_td_wrap(h, st->note);
                html_end(h);
        }
        sitehtml_table_end(h);
}

/* The three means of every measured step, by step: where the candidate
 * sits between the ends. */
static void means_chart(struct html *h, const struct bisect_row *b) {
        g_autofree double *t = g_new(double, 3 * (b->n_steps + 1));
        g_autofree double *v = g_new(double, 3 * (b->n_steps + 1));
        struct svg_series series[3] = {
                { .label = "good end", .color = 2, .dashed = 1 },
                { .label = "candidate", .color = 0 },
                { .label = "bad end", .color = 1, .dashed = 1 },
        };
        size_t n = 0;

        for (int k = 0; k < 3; k++) {
                series[k].t = t + n;
                series[k].v = v + n;
                for (size_t i = 0; i < b->n_steps; i++) {
                        const struct bisect_step_row *st = &b->steps[i];
                        double m = k == 0 ? st->mean_good : k == 1 ? st->mean_cand : st->mean_bad;

                        if (!isfinite(m))
                                continue;
                        t[n] = st->step;
                        v[n++] = m;
                        series[k].n++;
                }
        }
        if (n == 0)
                return;
        html_start(h, "div");
        html_attr(h, "class", "charts");
        html_start(h, "figure");
        svg_line_chart(h, &(struct svg_line_chart){ .title = b->metric, .x_label = "step", .x_integer = 1,
                                                    .markers = 1, .series = series, .n_series = 3 });
        html_elem(h, "figcaption", "the means each step measured: the candidate between the good and the bad end");
        html_end(h);
        html_end(h);
}

/* The answer and what it rests on: the confirmation step(s) and the
 * comparisons of their runs. */
static void evidence(struct html *h, const struct model *s, const struct bisect_row *b) {
        json_t *sum = b->summary_json ? json_loads(b->summary_json, 0, NULL) : NULL;
        json_t *change = json_object_get(sum, "change"), *confirmed = json_object_get(sum, "confirmed");
        int shown = 0;

        html_start(h, "p");
        html_attr(h, "class", "lead");
        if (b->first_bad) {
                html_text(h, "First bad: ");
                html_start(h, "strong");
                html_text(h, b->first_bad);
                html_end(h);
                if (json_is_number(change)) {
                        char pct[32];

                        text_format_pct(json_number_value(change), 1, pct, sizeof(pct));
                        html_textf(h, "; the ends differ by %s", pct);
                }
                if (json_is_boolean(confirmed))
                        html_text(h, json_is_true(confirmed) ? "; measured again against the last good: confirmed"
                                                             : "; measured again against the last good: NOT "
                                                               "confirmed");
        } else
                html_text(h, b->outcome ? (strcmp(b->outcome, "no-change") == 0 ? "No change between the ends."
                                                                                 : b->outcome)
                                        : "No answer yet.");
        html_end(h);
        json_decref(sum);
        for (size_t i = 0; i < b->n_steps; i++) {
                const struct bisect_step_row *st = &b->steps[i];
                json_t *runs = st->role && strcmp(st->role, "confirm") == 0 && st->run_ids_json
                                       ? json_loads(st->run_ids_json, 0, NULL) : NULL;
                size_t k;
                json_t *e;

                json_array_foreach(runs, k, e) {
                        if (!json_is_integer(e) || !model_run_find(s, json_integer_value(e)))
                                continue;
                        if (!shown++)
                                html_elem(h, "h3", "The first bad against the last good, measured once more");
                        sitehtml_compare_table(h, s, json_integer_value(e), 10);
                }
                json_decref(runs);
        }
}

void bisectpage_render(struct html *h, const struct model *s, const struct bisect_row *b) {
        g_autofree char *file = page_bisect_file(b->id);
        g_autofree char *json = page_json_file(file);
        g_autofree char *title = g_strdup_printf("Bisection %lld: %s", (long long)b->id, b->metric ? b->metric : "?");
        char started[40], finished[40];

        page_format_time(b->started_at, started, sizeof(started));
        page_format_time(b->finished_at, finished, sizeof(finished));
        page_begin(h, &(struct page_head){ title, "bisection", json, NULL });
        evidence(h, s, b);
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        fact(h, "metric", b->metric);
        fact(h, "workload", b->workload);
        fact(h, "source", b->source);
        fact(h, "good", b->good);
        fact(h, "bad", b->bad);
        fact(h, "status", b->status);
        fact(h, "outcome", b->outcome);
        fact(h, "started", started);
        fact(h, "finished", finished);
        html_end(h);
        html_elemf(h, "h2", "Steps (%zu)", b->n_steps);
        html_elem(h, "p", "Each step measures a candidate interleaved with both ends and asks the stopping rule "
                          "whether it is like the good end or the bad one (vs good, vs bad); means over the step's "
                          "ok cells.");
        steps_table(h, s, b);
        means_chart(h, b);
        html_elem(h, "h2", "Settings");
        sitehtml_json_kv(h, b->settings_json);
        page_end(h);
}
