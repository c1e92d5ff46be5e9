/* web/pages: the page renderers (web/indexpage.c, runpage.c, cellpage.c,
 * kernelpage.c, comparepage.c, bisectpage.c), the Atom feed (feed.c) and
 * the data files beside the pages (sitejson.c). Each appends a whole page
 * to h, or builds its JSON, from the model (web/model.h) and the views it
 * holds; the publishing pass (web/site.c) calls them and writes what they
 * made. */
#pragma once

#include "report/html.h"
#include "report/view.h"
#include <jansson.h>

#include "web/charts.h"
#include "web/history.h"
#include "web/model.h"

void indexpage_render(struct html *h, const struct model *s);
/* groups, hist: c->v->n_groups entries each (hist may be NULL). */
void comparepage_render(struct html *h, const struct model *s, const struct model_compare *c,
                        const struct model_group_cells *groups, const struct history_group *hist);
void bisectpage_render(struct html *h, const struct model *s, const struct bisect_row *b);
/* The Atom feed of s->events (h from html_new_xml). */
void feed_render(struct html *h, const struct model *s);

/* The data of each page, the numbers it shows and more (new references;
 * NULL when out of memory). */
json_t *sitejson_index(const struct model *s);
json_t *sitejson_run(const struct model *s, const struct model_run *r);
json_t *sitejson_cell(const struct view_cell *c);
json_t *sitejson_kernel(const struct model *s, const struct model_kernel *k);
json_t *sitejson_compare(const struct model_compare *c, const struct model_group_cells *groups,
                         const struct history_group *hist);
json_t *sitejson_bisect(const struct bisect_row *b);
void runpage_render(struct html *h, const struct model *s, const struct model_run *r);
void cellpage_render(struct html *h, const struct model *s, const struct model_run *r, const struct view_cell *c,
                     const struct cell_charts *charts);
void kernelpage_render(struct html *h, const struct model *s, const struct model_kernel *k);
