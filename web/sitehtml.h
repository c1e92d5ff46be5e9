/* web/sitehtml: page pieces that know the site model: links to kernel and
 * cell pages, state counts, a summary cell "mean ± sd (n)", the direction
 * of a metric from the registry, a JSON settings object as a definition
 * list. Shared by the page renderers so a piece reads the same on every
 * page. */
#pragma once

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
/* <td> "163.4 ± 2.1 % (5)"; "-" when vs is NULL or has no values. */
void sitehtml_td_summary(struct html *h, const struct view_series *vs);
/* <td> "higher" / "lower" / "-" from the metric registry. */
void sitehtml_td_direction(struct html *h, const char *metric);
/* The facts line of a run: status, times, cells, versions, host. */
void sitehtml_run_facts(struct html *h, const struct model_run *r);
/* The comparisons of run_id (0: all), newest first, at most max, as a
 * table: B vs A, worse and better counts, judged metrics, a link to each
 * page. */
void sitehtml_compare_table(struct html *h, const struct model *s, int64_t run_id, size_t max);
/* A JSON object (settings, host info, cell parameters) as <dl>; text that
 * is not a JSON object is shown as it is. NULL: nothing. */
void sitehtml_json_kv(struct html *h, const char *json);
