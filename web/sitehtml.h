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

/* A table that scrolls sideways on a narrow screen. sitehtml_scroll_begin
 * opens the scrolling div only, for a table that writes its own <table>,
 * header row and <tbody>; sitehtml_table_begin opens the div, <table> (of
 * class cls, may be NULL), the header row of n names in <thead>, and
 * <tbody>. */
void sitehtml_scroll_begin(struct html *h);
void sitehtml_table_begin(struct html *h, const char *cls, const char *const *head, size_t n);
/* The same, the columns whose bit is set in opt (bit i: column i) marked
 * as a phone leaves them out (the style sheet's .opt); their cells must
 * carry the class too. */
void sitehtml_table_begin_opt(struct html *h, const char *cls, const char *const *head, size_t n, unsigned opt);
/* Close <tbody>, <table> and the scrolling div. */
void sitehtml_table_end(struct html *h);

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
/* <td> "163.4 ± 2.1 % (5)"; "-" when vs is NULL or has no values. A
 * narrow table wraps it before "±" and "(5)" only. */
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
