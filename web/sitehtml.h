/* web/sitehtml: page pieces that know the site model: links to kernel and
 * cell pages, state counts, a summary cell "mean ± sd (n)", the direction
 * of a metric from the registry, a JSON settings object as a definition
 * list. Shared by the page renderers so a piece reads the same on every
 * page. */
#pragma once

#include <jansson.h>

#include "report/html.h"
#include "report/view.h"
#include "web/model.h"

/* A table in a box that scrolls sideways should it still be too wide.
 * sitehtml_scroll_begin opens the box only, for a table that writes its
 * own <table>, header row and <tbody>; sitehtml_table_begin opens the box,
 * <table> (of class cls, may be NULL), the header row of n names in
 * <thead>, and <tbody>, and labels each cell with its column's name
 * (html_column_labels): a table of class "cards" is laid out on a phone
 * as one block of labelled lines per row (web/page.c). */
void sitehtml_scroll_begin(struct html *h);
void sitehtml_table_begin(struct html *h, const char *cls, const char *const *head, size_t n);
/* The same, the columns whose bit is set in opt (bit i: column i) marked
 * as a phone leaves them out (the style sheet's .opt); their cells must
 * carry the class too. */
void sitehtml_table_begin_opt(struct html *h, const char *cls, const char *const *head, size_t n, unsigned opt);
/* Close <tbody>, <table> and the scrolling div; no more column labels. */
void sitehtml_table_end(struct html *h);

/* A metric's name that may break after each '.' and '_' (<wbr>), where a
 * narrow table wraps it ("guest.drop-caches." / "kernel_Minsn"), never
 * inside a word; <td class="metric"> (sitehtml_td_metric) wraps there. */
void sitehtml_metric_name(struct html *h, const char *name);
void sitehtml_td_metric(struct html *h, const char *name);
/* The same breaks for text that cannot hold markup (a column's label, which
 * the style sheet shows as generated content): name with a zero-width
 * space after each '.' and '_'. Caller g_free()s. */
char *sitehtml_breakable(const char *name);
/* Whether cells like c (its run's settings, its own parameters; c NULL:
 * none known) had their rates and times paced by the emulator
 * (view_cpu_paced): what view_metric_judged asks to say whether
 * `kbench compare` judges a metric of them. */
int sitehtml_paced(const struct model_run *r, const struct query_cell *c);

/* A link to the run's page, "run 3". */
void sitehtml_run_link(struct html *h, const struct model_run *r);
/* A link to the kernel's page (plain text when it has none). */
void sitehtml_kernel_link(struct html *h, const struct model *s, const char *kernel);
/* The <td>s that name a cell in a table row: its key linked to its page,
 * its kernel (sitehtml_kernel_link) and its workload. */
void sitehtml_cell_tds(struct html *h, const struct model *s, const struct query_cell *c);
/* "3 ok" / "2 ok, 1 hang" over the run's latest attempts of (kernel,
 * workload); either may be NULL for all. */
void sitehtml_state_counts(struct html *h, const struct model_run *r, const char *kernel, const char *workload);
/* <td> "163.4 ± 2.1 % (5)", a time scaled ("289 µs ± 0.9 % (3)") and a
 * value in page_format_value's unit; "-" when vs is NULL or has no
 * values. A narrow table stacks its figures: it wraps before "±" and
 * "(5)" only. */
void sitehtml_td_summary(struct html *h, const struct view_series *vs);
/* <td> "higher" / "lower" / "-" from the metric registry (left out on a
 * phone: the style sheet's .opt). */
void sitehtml_td_direction(struct html *h, const char *metric);
/* The facts line of a run: status, times, cells, versions, host. */
void sitehtml_run_facts(struct html *h, const struct model_run *r);
/* The comparisons of run_id (0: all), newest first, at most max, as a
 * table: the kernel, the one it is compared against, worse and better
 * counts, judged metrics, a link to each page. */
void sitehtml_compare_table(struct html *h, const struct model *s, int64_t run_id, size_t max);
/* The kernel of one side of a comparison (0: A, 1: B) as its runs show
 * it (a variant's label included), found among the side's cells; NULL
 * when none is loaded. Borrowed from s. */
const char *sitehtml_side_kernel(const struct model *s, const struct compare_view *v, int side);
/* A run's settings (its settings_json), or a cell's params, as a reader
 * names them: the kernels with their releases, the workloads, the
 * accelerator with the reason in a few words (no probe's raw error), a
 * warm or cold start, then each option by its kbench run name with its
 * unit; options that only say how kbench went about the run are left out
 * at their defaults, and the runner's own bookkeeping (how_keys, the
 * plan's size) always. Text that is not a JSON object is shown as it is. */
void sitehtml_run_settings(struct html *h, const char *settings_json);
/* A run's host_info_json as a reader names it: the CPU with its cores,
 * the RAM in GiB, the host kernel, then any other key as it is; text that
 * is not a JSON object is shown as it is. */
void sitehtml_host_info(struct html *h, const char *host_info_json);
/* "AMD EPYC, 2 cores" and "23.5 GiB" from a host_info object; NULL when
 * not recorded. Caller g_free()s. */
char *sitehtml_host_cpu(const json_t *info);
char *sitehtml_host_ram(const json_t *info);
/* A JSON object (settings, host info, cell parameters) as <dl>; text that
 * is not a JSON object is shown as it is. NULL: nothing. */
void sitehtml_json_kv(struct html *h, const char *json);
