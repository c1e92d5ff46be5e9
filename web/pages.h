/* web/pages: the page renderers (web/indexpage.c, runpage.c, cellpage.c,
 * kernelpage.c, comparepage.c). Each appends a whole page to h from the
 * model (web/model.h) and the views it holds; the publishing pass
 * (web/site.c) calls them and writes what they made. */
#pragma once

#include "report/html.h"
#include "report/view.h"
#include "web/charts.h"
#include "web/model.h"

void indexpage_render(struct html *h, const struct model *s);
/* groups: c->v->n_groups entries. */
void comparepage_render(struct html *h, const struct model *s, const struct model_compare *c,
                        const struct model_group_cells *groups);
void runpage_render(struct html *h, const struct model *s, const struct model_run *r);
void cellpage_render(struct html *h, const struct model *s, const struct model_run *r, const struct view_cell *c,
                     const struct cell_charts *charts);
void kernelpage_render(struct html *h, const struct model *s, const struct model_kernel *k);
