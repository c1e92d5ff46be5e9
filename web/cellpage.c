/* web/cellpage: one cell in full, what a reader looks at first first: how
 * it ended, its vmstat and transfer charts (stall runs and halts shaded,
 * phase marks on the time axis), the metrics `kbench compare` judges of
 * it; then its settings and timings, every other metric (folded), and its
 * logs: the kernel console, the job's output, the job script, the raw
 * ttyS1 records. Logs are guest
 * output: they reach the page only as escaped text, and a very long one is
 * cut (the database keeps it whole; `kbench show RUN --cell KEY --log
 * STREAM` prints it). */
#include <math.h>
#include <string.h>

#include "report/html.h"
#include "results/cellstate.h"
#include "web/charts.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/sitehtml.h"

#define LOG_SHOWN_MAX (256 * 1024)   /* bytes of one log on the page */

static void fact_text(struct html *h, const char *name, const char *value) {
        html_elem(h, "dt", name);
        html_elem(h, "dd", value ? value : "-");
}

/* A time as every page prints one ("167 ms", "1.31 s"). */
static void fact_seconds(struct html *h, const char *name, double v) {
        char b[48];

        page_format_value(v, "s", b, sizeof(b));
        html_elem(h, "dt", name);
        html_elem(h, "dd", b);
}

/* A metric's value with its unit as the site prints it ("451.5 MB/s",
 * "289 µs", "32.06 MiB"). */
static void td_value(struct html *h, const struct query_metric *m) {
        const char *unit = page_unit(m->unit);
        char b[48];

        if (!m->has_value) {
                page_td_text(h, "n/a");
                return;
        }
        page_format_value(m->value, m->unit, b, sizeof(b));
        html_start(h, "td");
        html_attr(h, "class", "num");
        if (m->unit && strcmp(m->unit, "s") != 0 && *unit && isfinite(m->value))
                html_textf(h, "%s %s", b, unit);
        else
                html_text(h, b);
        html_end(h);
}

/* The cell's metrics that a comparison of it judges (judged 1), or the
 * others, at most PAGE_METRICS_MAX rows, then a note of the rest.
 * Returns how many there are. */
static size_t metrics_table(struct html *h, const struct view_cell *v, int paced, int judged) {
        static const char *const head[] = { "metric", "value", "better", "note" };
        size_t n = 0, rows = 0;

        for (size_t i = 0; i < v->n_metrics; i++)
                n += view_metric_judged(v->metrics[i].name, paced) == judged;
        if (n == 0)
                return 0;
        sitehtml_table_begin_opt(h, NULL, head, G_N_ELEMENTS(head), 1u << 2);
        for (size_t i = 0; i < v->n_metrics && rows < PAGE_METRICS_MAX; i++) {
                const struct query_metric *m = &v->metrics[i];

                if (view_metric_judged(m->name, paced) != judged)
                        continue;
                rows++;
                html_start(h, "tr");
                sitehtml_td_metric(h, m->name);
                td_value(h, m);
                sitehtml_td_direction(h, m->name);
                page_td_wrap(h, m->note);
                html_end(h);
        }
        sitehtml_table_end(h);
        if (n > rows) {
                g_autofree char *where = g_strdup_printf("kbench show %lld --cell %s", (long long)v->cell->run_id,
                                                         v->cell->cell_key);

                page_left_out(h, n - rows, "metrics", where);
        }
        return n;
}

/* The judged metrics, then the others folded. */
static void metrics(struct html *h, const struct model_run *r, const struct view_cell *v) {
        int paced = sitehtml_paced(r, v->cell);
        size_t others = 0;

        html_elem(h, "h2", "Judged metrics");
        if (v->n_metrics == 0) {
                html_elem(h, "p", cellstate_is(v->cell->state, CELLSTATE_OK) ? "No metrics stored."
                                  : "A failed cell has no metrics: failures never enter statistics.");
                return;
        }
        if (!metrics_table(h, v, paced, 1))
                html_elem(h, "p", "None: kbench compare judges none of this cell's metrics.");
        for (size_t i = 0; i < v->n_metrics; i++)
                others += !view_metric_judged(v->metrics[i].name, paced);
        if (others == 0)
                return;
        html_start(h, "details");
        html_start(h, "summary");
        html_textf(h, "Other metrics (%zu, no verdict: vmstat, host, timings, rates the emulator paced)", others);
        html_end(h);
        metrics_table(h, v, paced, 0);
        html_end(h);
}

static const char *log_title(const char *stream) {
        static const struct { const char *stream, *title; } names[] = {
                { "console", "Kernel console (ttyS0)" },
                { "output", "Job output and agent notes" },
                { "script", "Job script" },
                { "data", "Raw ttyS1 records" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
                if (strcmp(names[i].stream, stream) == 0)
                        return names[i].title;
        return NULL;
}

static void logs(struct html *h, const struct model *s, const struct view_cell *v) {
        if (v->n_logs == 0) {
                html_elem(h, "p", "No logs stored.");
                return;
        }
        for (size_t i = 0; i < v->n_logs; i++) {
                const struct query_log_info *l = &v->logs[i];
                const char *title = log_title(l->stream);
                g_autofree char *text = NULL;
                size_t len = 0;
                struct kb_error err = { { 0 } };

                html_start(h, "details");
                /* The console and the job's output are what one reads first. */
                if (strcmp(l->stream, "console") == 0 || strcmp(l->stream, "output") == 0)
                        html_attr(h, "open", "open");
                html_start(h, "summary");
                html_textf(h, "%s: %s, %lld bytes", title ? title : "log", l->stream, (long long)l->bytes);
                html_end(h);
                if (query_cell_log(s->db, v->cell->id, l->stream, &text, &len, &err) < 0) {
                        html_elemf(h, "p", "cannot read the log: %s", err.msg);
                        html_end(h);
                        continue;
                }
                html_start(h, "pre");
                html_attr(h, "class", "log");
                html_text_len(h, text, len < LOG_SHOWN_MAX ? len : LOG_SHOWN_MAX);
                html_end(h);
                if (len > LOG_SHOWN_MAX)
                        html_elemf(h, "p", "Cut at %d KiB of %zu bytes: kbench show %lld --cell %s --log %s prints it whole.",
                                   LOG_SHOWN_MAX / 1024, len, (long long)v->cell->run_id, v->cell->cell_key,
                                   l->stream);
                html_end(h);
        }
}

/* Where the cell belongs, first: its run and kernel, linked. */
static void cell_lead(struct html *h, const struct model *s, const struct model_run *r, const struct query_cell *c,
                      const char *run_title) {
        html_start(h, "p");
        html_attr(h, "class", "lead");
        page_state(h, c->state);
        if (c->detail) {
                html_text(h, " ");
                html_text(h, c->detail);
        }
        html_end(h);
        html_start(h, "p");
        html_link(h, r->file, run_title);
        html_text(h, " \u00b7 ");
        sitehtml_kernel_link(h, s, c->kernel_name);
        html_textf(h, " \u00b7 %s, iteration %d", c->workload, c->iteration + 1);
        html_end(h);
}

static void cell_charts(struct html *h, const struct cell_charts *charts) {
        const struct cell_charts *sides[1] = { charts };

        html_elem(h, "h2", "vmstat");
        html_start(h, "p");
        html_attr(h, "class", "lead");
        if (charts->interval_s == 1)
                html_textf(h, "%zu samples, one a second, on the host clock (seconds since QEMU start). ", charts->n);
        else
                html_textf(h, "%zu samples, one every %g s, on the host clock (seconds since QEMU start). ", charts->n,
                           charts->interval_s);
        html_textf(h, "%zu writeout stall run%s shaded (bo <= 100 blocks/s over the workload's window); ",
                   charts->n_stalls, charts->n_stalls == 1 ? "" : "s");
        html_text(h, "dashed lines: the job's phase marks.");
        html_end(h);
        charts_vmstat(h, sides, NULL, 1);
        if (charts->n_ftp) {
                html_elem(h, "h2", "FTP transfer");
                html_start(h, "p");
                html_attr(h, "class", "lead");
                html_textf(h, "%zu samples of the bytes the server accepted; %zu halt%s of at least 1 s shaded.",
                           charts->n_ftp, charts->n_halts, charts->n_halts == 1 ? "" : "s");
                html_end(h);
                charts_ftp(h, sides, NULL, 1);
        }
}

/* The cell's facts and timings beside its parameters. */
static void cell_facts(struct html *h, const struct model *s, const struct model_run *r, const struct query_cell *c,
                       const char *run_title) {
        char started[40];

        html_elem(h, "h2", "Cell");
        html_start(h, "div");
        html_attr(h, "class", "cols");
        html_start(h, "div");
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        html_elem(h, "dt", "run");
        html_start(h, "dd");
        html_link(h, r->file, run_title);
        html_end(h);
        html_elem(h, "dt", "kernel");
        html_start(h, "dd");
        sitehtml_kernel_link(h, s, c->kernel_name);
        html_end(h);
        fact_text(h, "workload", c->workload);
        html_elem(h, "dt", "iteration, attempt");
        html_elemf(h, "dd", "%d, %d", c->iteration + 1, c->attempt);
        fact_text(h, "accelerator", c->accel);
        page_format_time(c->started_at, started, sizeof(started));
        fact_text(h, "started", started);
        fact_seconds(h, "boot (QEMU start to agent ready)", c->boot_s);
        fact_seconds(h, "workload (go to done)", c->workload_s);
        fact_seconds(h, "total", c->total_s);
        html_elem(h, "dt", "job exit code");
        html_elemf(h, "dd", "%d", c->exit_code);
        html_elem(h, "dt", "ttyS1 records rejected");
        html_elemf(h, "dd", "%lld", (long long)c->rejected_records);
        html_elem(h, "dt", "vmstat samples");
        html_elemf(h, "dd", "%lld", (long long)c->vmstat_samples);
        html_end(h);
        html_end(h);
        html_start(h, "div");
        html_elem(h, "h3", "Parameters");
        sitehtml_run_settings(h, c->params_json);
        html_end(h);
        html_end(h);
}

void cellpage_render(struct html *h, const struct model *s, const struct model_run *r, const struct view_cell *v,
                     const struct cell_charts *charts) {
        const struct query_cell *c = v->cell;
        g_autofree char *title = g_strdup_printf("Cell %s: %s %s #%d", c->cell_key, c->kernel_name, c->workload,
                                                 c->iteration + 1);
        g_autofree char *run_title = r->v->run->tag ? g_strdup_printf("run %lld (%s)", (long long)c->run_id,
                                                                      r->v->run->tag)
                                                    : g_strdup_printf("run %lld", (long long)c->run_id);
        g_autofree char *file = page_cell_file(c->run_id, c->cell_key);
        g_autofree char *json = page_json_file(file);

        page_begin(h, &(struct page_head){ title, "cell", json, NULL });
        cell_lead(h, s, r, c, run_title);
        cell_charts(h, charts);
        metrics(h, r, v);
        cell_facts(h, s, r, c, run_title);
        html_elem(h, "h2", "Logs");
        logs(h, s, v);
        page_end(h);
}
