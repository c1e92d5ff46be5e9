/* web/indexpage: the site's front page: first the verdicts of the latest
 * comparison of each kernel pair, in the workloads' own terms (the answer
 * kbench compare prints before its tables); then the regressions across
 * nights with their states (new, still there, fixed; the same as the Atom feed it
 * announces), the runs (newest first, with their state counts), the
 * comparisons with their worse/better counts, the bisections, the kernels,
 * and the failed cells, each a link to its page. */
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/text.h"
#include "results/cellstate.h"
#include "web/history.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

#define FAILED_SHOWN_MAX 200         /* newest failed cells listed */
#define COMPARES_SHOWN_MAX 50        /* newest comparisons listed */
#define EVENTS_SHOWN_MAX 100         /* newest regression states listed */
#define PAIRS_SHOWN_MAX 24           /* kernel pairs in the latest verdicts */

static void runs_table(struct html *h, const struct model *s) {
        static const char *const head[] = { "run", "tag", "started", "status", "kernels", "workloads", "cells" };

        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
        for (size_t i = s->n_runs; i-- > 0;) {
                const struct model_run *r = &s->runs[i];
                const struct query_run *run = r->v->run;
                char started[40];
                GString *kernels = g_string_new(NULL), *workloads = g_string_new(NULL);

                for (size_t k = 0; k < r->n_kernels; k++)
                        g_string_append_printf(kernels, "%s%s", k ? ", " : "", r->kernels[k]);
                for (size_t k = 0; k < r->n_workloads; k++)
                        g_string_append_printf(workloads, "%s%s", k ? ", " : "", r->workloads[k]);
                html_start(h, "tr");
                html_start(h, "td");
                sitehtml_run_link(h, r);
                html_end(h);
                page_td_wrap(h, run->tag);
                page_format_time(run->started_at, started, sizeof(started));
                page_td_text(h, started);
                page_td_text(h, run->status);
                html_start(h, "td");
                html_attr(h, "class", "wrap");
                html_text(h, kernels->str);
                html_end(h);
                page_td_text(h, workloads->str);
                html_start(h, "td");
                sitehtml_state_counts(h, r, NULL, NULL);
                html_end(h);
                html_end(h);
                g_string_free(kernels, TRUE);
                g_string_free(workloads, TRUE);
        }
        sitehtml_table_end(h);
}

static void kernels_list(struct html *h, const struct model *s) {
        html_start(h, "ul");
        for (size_t i = 0; i < s->n_kernels; i++) {
                size_t runs = 0;

                for (size_t r = 0; r < s->n_runs; r++)
                        for (size_t k = 0; k < s->runs[r].n_kernels; k++)
                                runs += strcmp(s->runs[r].kernels[k], s->kernels[i].name) == 0;
                html_start(h, "li");
                html_link(h, s->kernels[i].file, s->kernels[i].name);
                html_textf(h, " (%zu run%s)", runs, runs == 1 ? "" : "s");
                html_end(h);
        }
        html_end(h);
}

static void failed_table(struct html *h, const struct model *s, size_t total) {
        static const char *const head[] = { "run", "cell", "kernel", "workload", "state", "detail" };
        size_t shown = 0;

        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
        for (size_t i = s->n_runs; i-- > 0 && shown < FAILED_SHOWN_MAX;) {
                const struct model_run *r = &s->runs[i];

                for (size_t k = 0; k < r->n_latest && shown < FAILED_SHOWN_MAX; k++) {
                        const struct query_cell *c = &r->v->cells[r->latest[k]];

                        if (cellstate_is(c->state, CELLSTATE_OK))
                                continue;
                        shown++;
                        html_start(h, "tr");
                        html_start(h, "td");
                        sitehtml_run_link(h, r);
                        html_end(h);
                        sitehtml_cell_tds(h, s, c);
                        page_td_state(h, c->state);
                        page_td_wrap(h, c->detail);
                        html_end(h);
                }
        }
        sitehtml_table_end(h);
        if (total > shown)
                html_elemf(h, "p", "The newest %zu of %zu failed cells are listed; each run's page lists all of its own.",
                           shown, total);
}

/* "dd.write_MBps (dd:size=64M)" */
static void event_metric(struct html *h, const struct model_event *e) {
        html_start(h, "td");
        html_text(h, e->metric);
        html_start(h, "span");
        html_attr(h, "class", "muted");
        html_textf(h, " %s", e->spec);
        html_end(h);
        html_end(h);
}

static void event_row(struct html *h, const struct model *s, const struct model_event *e) {
        const struct model_compare *c = &s->compares[e->compare];
        char when[40], since[40], change[64];

        page_format_time(s->nights[e->night].started_at, when, sizeof(when));
        page_format_time(s->nights[e->since].started_at, since, sizeof(since));
        history_event_change(e, change, sizeof(change));
        html_start(h, "tr");
        page_td_text(h, when);
        html_start(h, "td");
        html_start(h, "span");
        html_attr(h, "class", e->state == REGSTATE_FIXED ? "state ok" : "state bad");
        html_text(h, regstate_name(e->state));
        html_end(h);
        html_end(h);
        page_td_text(h, e->subject);
        event_metric(h, e);
        html_start(h, "td");
        html_attr(h, "class", e->verdict == COMPARE_WORSE ? "num worse" : "num");
        html_text(h, change);
        html_end(h);
        page_td_text(h, compare_verdict_name(e->verdict));
        page_td_text(h, e->baseline);
        page_td_text(h, since);
        html_start(h, "td");
        html_link(h, c->file, "comparison");
        html_end(h);
        html_end(h);
}

/* The newest states first; above them, how many regressions are open (a
 * regression's latest state new or still). */
static void regressions(struct html *h, const struct model *s) {
        static const char *const head[] = { "night", "state", "subject", "metric", "change", "verdict", "baseline",
                                            "worse since", "page" };
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        size_t open = 0;

        for (size_t i = s->n_events; i-- > 0;) {
                const struct model_event *e = &s->events[i];
                char *key = g_strjoin("\x1f", e->subject, e->baseline, e->spec, e->metric, NULL);

                if (g_hash_table_contains(seen, key)) {
                        g_free(key);
                        continue;
                }
                open += e->state != REGSTATE_FIXED;
                g_hash_table_add(seen, key);
        }
        html_start(h, "p");
        html_attr(h, "class", "lead");
        html_textf(h, "%zu open (new or still there on the latest night that compared them). ", open);
        html_text(h, "From kbench nightly's comparisons of each kernel with its baseline, night by night: new the "
                     "first night a metric is worse, still while it stays worse, fixed the first night it is not. ");
        html_link(h, PAGE_FEED_FILE, "Atom feed");
        html_end(h);
        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
        for (size_t i = s->n_events, shown = 0; i-- > 0 && shown < EVENTS_SHOWN_MAX; shown++)
                event_row(h, s, &s->events[i]);
        sitehtml_table_end(h);
        if (s->n_events > EVENTS_SHOWN_MAX)
                html_elemf(h, "p", "The newest %d of %zu states are listed; the feed and index.json have them too.",
                           EVENTS_SHOWN_MAX, s->n_events);
}

static void bisections_table(struct html *h, const struct model *s) {
        static const char *const head[] = { "bisection", "metric", "workload", "good", "bad", "status", "outcome",
                                            "first bad" };

        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
        for (size_t i = 0; i < s->n_bisections; i++) {
                const struct bisect_row *b = &s->bisections[i];
                g_autofree char *file = page_bisect_file(b->id);
                g_autofree char *name = g_strdup_printf("bisection %lld", (long long)b->id);

                html_start(h, "tr");
                html_start(h, "td");
                html_link(h, file, name);
                html_end(h);
                page_td_text(h, b->metric);
                page_td_text(h, b->workload);
                page_td_text(h, b->good);
                page_td_text(h, b->bad);
                page_td_text(h, b->status);
                page_td_text(h, b->outcome);
                page_td_text(h, b->first_bad);
                html_end(h);
        }
        sitehtml_table_end(h);
}

/* ---- the latest verdicts ------------------------------------------------ */

/* A comparison as the overview orders it: regressions first, then
 * improvements, then the rest; newest first within each. */
struct pair {
        size_t compare;                /* index in s->compares */
        int64_t newest;                /* the newest run of either side */
        int rank;                      /* 0 worse, 1 better only, 2 no verdict */
};

static int newest_first(const void *x, const void *y) {
        const struct pair *a = x, *b = y;

        if (a->newest != b->newest)
                return a->newest > b->newest ? -1 : 1;
        return a->compare > b->compare ? -1 : a->compare < b->compare;
}

static int pair_order(const void *x, const void *y) {
        const struct pair *a = x, *b = y;

        return a->rank != b->rank ? a->rank - b->rank : newest_first(x, y);
}

static int64_t newest_run(const struct compare_view *v) {
        int64_t newest = 0;

        for (size_t g = 0; g < v->n_groups; g++) {
                const struct compare_group *gr = &v->groups[g];

                for (size_t i = 0; i < gr->a.n_runs; i++)
                        newest = MAX(newest, gr->a.runs[i]);
                for (size_t i = 0; i < gr->b.n_runs; i++)
                        newest = MAX(newest, gr->b.runs[i]);
        }
        return newest;
}

/* The newest comparison of each kernel pair (B's kernel against A's), in
 * the overview's order. OUT: *ret_n. Caller g_free()s. */
static struct pair *latest_pairs(const struct model *s, size_t *ret_n) {
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        struct pair *p = g_new0(struct pair, s->n_compares + 1);
        size_t n = 0, kept = 0;

        for (size_t i = 0; i < s->n_compares; i++) {
                const struct compare_view *v = s->compares[i].v;

                if (v && v->n_groups)
                        p[n++] = (struct pair){ i, newest_run(v),
                                                v->worse || v->failed_groups ? 0 : v->better ? 1 : 2 };
        }
        /* newest first, so the first of each pair met is its latest */
        qsort(p, n, sizeof(*p), newest_first);
        for (size_t i = 0; i < n; i++) {
                const struct compare_view *v = s->compares[p[i].compare].v;
                char *key = g_strjoin("\x1f", v->kernel_b ? v->kernel_b : "", v->kernel_a ? v->kernel_a : "", NULL);

                if (g_hash_table_contains(seen, key)) {
                        g_free(key);
                        continue;
                }
                g_hash_table_add(seen, key);
                p[kept++] = p[i];
        }
        qsort(p, kept, sizeof(*p), pair_order);
        *ret_n = kept;
        return p;
}

/* One judged change: the verdict, then what changed and by how much in
 * the workload's terms, as kbench compare's answer says it. */
static void answer_item(struct html *h, const struct compare_group *g, const struct compare_metric *m) {
        struct text_answer t;
        int worse = m->verdict == COMPARE_WORSE;

        text_answer_parts(g, m, &t);
        html_start(h, "li");
        html_start(h, "span");
        html_attr(h, "class", worse ? "state bad" : "state ok");
        html_text(h, compare_verdict_name(m->verdict));
        html_end(h);
        html_textf(h, " %s: ", t.what);
        html_start(h, "strong");
        html_text(h, t.change);
        html_end(h);
        html_textf(h, " (%s%s \u2192 %s; 95 %% CI %s to %s%s)", t.of, t.a, t.b, t.lo, t.hi, t.stalled);
        html_end(h);
}

/* One paired group of a comparison: its workload, its failed cells as
 * compare's answer says them (text_answer_cells), and its verdicts. */
static void answer_group(struct html *h, const struct compare_group *g) {
        g_autofree char *failing = text_answer_cells(g, 1), *failed = text_answer_cells(g, 0);
        size_t judged = 0;

        for (size_t j = 0; j < g->n_m; j++)
                judged += g->m[j].judged;
        html_start(h, "li");
        html_start(h, "strong");
        html_text(h, g->spec);
        html_end(h);
        html_text(h, ": ");
        if (failing) {
                html_start(h, "span");
                html_attr(h, "class", "state bad");
                html_text(h, failing);
                html_end(h);
        }
        if (g->failed == COMPARE_FAILED_NO_OK_A || g->failed == COMPARE_FAILED_NO_OK_B) {
                html_end(h);
                return;
        }
        if (failing)
                html_text(h, "; ");
        if (!g->worse && !g->better) {
                html_textf(h, "no judged change (%zu judged metric%s)", judged, judged == 1 ? "" : "s");
                if (failed)
                        html_textf(h, "; %s", failed);
                html_end(h);
                return;
        }
        html_textf(h, "%zu worse, %zu better of %zu judged metric%s", g->worse, g->better, judged,
                   judged == 1 ? "" : "s");
        if (failed)
                html_textf(h, "; %s", failed);
        html_start(h, "ul");
        for (int pass = 0; pass < 2; pass++)
                for (size_t j = 0; j < g->n_m; j++)
                        if (g->m[j].verdict == (pass ? COMPARE_BETTER : COMPARE_WORSE))
                                answer_item(h, g, &g->m[j]);
        html_end(h);
        html_end(h);
}

static void pair_block(struct html *h, const struct model *s, const struct pair *p) {
        const struct model_compare *c = &s->compares[p->compare];
        const char *b = sitehtml_side_kernel(s, c->v, 1), *a = sitehtml_side_kernel(s, c->v, 0);
        g_autofree char *title = g_strdup_printf("%s against %s", b ? b : c->sel_b, a ? a : c->sel_a);

        html_start(h, "div");
        html_attr(h, "class", p->rank == 0 ? "pair worse" : p->rank == 1 ? "pair better" : "pair");
        html_start(h, "h3");
        html_link(h, c->file, title);
        html_end(h);
        html_start(h, "p");
        html_attr(h, "class", "muted");
        html_text(h, c->v->desc_b);
        html_text(h, " against ");
        html_text(h, c->v->desc_a);
        html_end(h);
        html_start(h, "ul");
        for (size_t g = 0; g < c->v->n_groups; g++)
                answer_group(h, &c->v->groups[g]);
        html_end(h);
        html_end(h);
}

/* What the latest comparisons found, before anything else: per kernel
 * pair, each workload worse or better and by how much. */
static void latest_verdicts(struct html *h, const struct model *s) {
        size_t n = 0;
        g_autofree struct pair *pairs = latest_pairs(s, &n);

        html_elem(h, "h2", "Latest verdicts");
        if (n == 0) {
                html_elem(h, "p", "No comparisons yet: a comparison needs two kernels in a run (or kbench "
                                  "publish --compare A:B).");
                return;
        }
        html_start(h, "p");
        html_attr(h, "class", "lead");
        html_text(h, "The latest comparison of each kernel against the one it was measured with, regressions "
                     "first: what got worse or better, in the workload's own terms, with the 95 % confidence "
                     "interval. Each heading links to the comparison.");
        html_end(h);
        html_start(h, "div");
        html_attr(h, "class", "pairs");
        for (size_t i = 0; i < n && i < PAIRS_SHOWN_MAX; i++)
                pair_block(h, s, &pairs[i]);
        html_end(h);
        if (n > PAIRS_SHOWN_MAX)
                html_elemf(h, "p", "The first %d of %zu kernel pairs are shown; the comparisons below list "
                                   "every one.", PAIRS_SHOWN_MAX, n);
}

void indexpage_render(struct html *h, const struct model *s) {
        size_t failed = 0;

        for (size_t i = 0; i < s->n_runs; i++)
                failed += s->runs[i].n_failed;
        page_begin(h, &(struct page_head){ "kbench results", NULL, "index.json", PAGE_FEED_FILE });
        html_start(h, "p");
        html_attr(h, "class", "lead");
        html_textf(h, "%zu run%s, %zu kernel%s. ", s->n_runs, s->n_runs == 1 ? "" : "s", s->n_kernels,
                   s->n_kernels == 1 ? "" : "s");
        html_text(h, "Every figure is a mean over ok cells; failed cells are listed, never averaged.");
        html_end(h);
        latest_verdicts(h, s);
        html_elemf(h, "h2", "Regressions across nights (%zu state%s)", s->n_events, s->n_events == 1 ? "" : "s");
        if (s->n_events)
                regressions(h, s);
        else
                html_elem(h, "p", s->n_nights ? "None: no night has found a metric worse than its baseline."
                                              : "No nights: kbench nightly records its comparisons here.");
        html_elem(h, "h2", "Runs");
        if (s->n_runs)
                runs_table(h, s);
        else
                html_elem(h, "p", "No runs in this store yet: kbench run stores them.");
        html_elem(h, "h2", "Comparisons");
        sitehtml_compare_table(h, s, 0, COMPARES_SHOWN_MAX);
        if (s->n_bisections) {
                html_elem(h, "h2", "Bisections");
                bisections_table(h, s);
        }
        html_elem(h, "h2", "Kernels");
        kernels_list(h, s);
        html_elemf(h, "h2", "Failed cells (%zu)", failed);
        if (failed)
                failed_table(h, s, failed);
        else
                html_elem(h, "p", "None.");
        page_end(h);
}
