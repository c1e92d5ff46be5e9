/* web/indexpage: the site's front page: the runs (newest first, with their
 * state counts), the kernels, the comparisons with their worse/better
 * counts, and the failed cells, each a link to its page. */
#include <string.h>

#include "report/html.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

#define FAILED_SHOWN_MAX 200         /* newest failed cells listed */
#define COMPARES_SHOWN_MAX 50        /* newest comparisons listed */

static void runs_table(struct html *h, const struct model *s) {
        static const char *const head[] = { "run", "tag", "started", "status", "kernels", "workloads", "cells" };

        sitehtml_table_begin(h, NULL, head, G_N_ELEMENTS(head));
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
                page_td_text(h, run->tag);
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

        sitehtml_table_begin(h, NULL, head, G_N_ELEMENTS(head));
        for (size_t i = s->n_runs; i-- > 0 && shown < FAILED_SHOWN_MAX;) {
                const struct model_run *r = &s->runs[i];

                for (size_t k = 0; k < r->n_latest && shown < FAILED_SHOWN_MAX; k++) {
                        const struct query_cell *c = &r->v->cells[r->latest[k]];

                        if (strcmp(c->state, "ok") == 0)
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

void indexpage_render(struct html *h, const struct model *s) {
        size_t failed = 0;

        for (size_t i = 0; i < s->n_runs; i++)
                failed += s->runs[i].n_failed;
        page_begin(h, "kbench results", NULL);
        html_start(h, "p");
        html_attr(h, "class", "lead");
        html_textf(h, "%zu run%s, %zu kernel%s. ", s->n_runs, s->n_runs == 1 ? "" : "s", s->n_kernels,
                   s->n_kernels == 1 ? "" : "s");
        html_text(h, "Every figure is a mean over ok cells; failed cells are listed, never averaged.");
        html_end(h);
        html_elem(h, "h2", "Runs");
        if (s->n_runs)
                runs_table(h, s);
        else
                html_elem(h, "p", "No runs in this store yet: kbench run stores them.");
        html_elem(h, "h2", "Comparisons");
        sitehtml_compare_table(h, s, 0, COMPARES_SHOWN_MAX);
        html_elem(h, "h2", "Kernels");
        kernels_list(h, s);
        html_elemf(h, "h2", "Failed cells (%zu)", failed);
        if (failed)
                failed_table(h, s, failed);
        else
                html_elem(h, "p", "None.");
        page_end(h);
}
