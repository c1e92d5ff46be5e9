/* web/history: the site over time, derived from the model on each
 * publishing pass and never stored: the states of regressions across
 * nights (web/regstate.h's rule over every night's comparisons, in night
 * order, for the index and the feed), and the history of a comparison's
 * judged metrics: for each side, the mean of its kernel's ok cells in
 * every run up to the comparison's newest, at that side's own settings
 * (the pairing key of the side's cells, nothing ignored), so only
 * comparable runs share a line. Runs after the comparison are left out,
 * so the page of an old comparison does not change when new runs come. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "report/compare.h"
#include "web/model.h"

/* Fill s->events (replacing what was there). */
void history_regressions(struct model *s);

/* An event's change as the comparison's page prints it (text_format_change):
 * "+4.6%" for a ratio, "+1.05 s" for an amount. buf holds size >= 48. */
void history_event_change(const struct model_event *e, char *buf, size_t size);

struct history_point {
        int64_t run;
        double mean;               /* over the run's ok cells (latest attempts) with a value */
        size_t n;                  /* those cells */
};

struct history_line {
        const char *kernel;        /* the side's kernel as the runs show it (borrowed); NULL: no cell */
        struct history_point *p;   /* run order (owned) */
        size_t n;
};

/* The judged metrics of one paired group, each with a line per side. */
struct history_group {
        const char **metrics;      /* borrowed from the comparison view */
        struct history_line (*lines)[2];   /* per metric: A, B (owned) */
        size_t n_metrics;
        GHashTable *of;            /* metric name -> 1 + its place in metrics (owned; keys borrowed) */
        int64_t last_run;          /* the newest run of either side: the history ends there */
};

/* The history of group g of comparison c (c->v set). OUT: *ret
 * (history_group_free). */
void history_group_load(const struct model *s, const struct model_compare *c, const struct compare_group *g,
                        struct history_group *ret);
void history_group_free(struct history_group *h);     /* accepts a zeroed struct */
/* The lines (A, B) of metric name in h, or NULL when h has none. */
const struct history_line *history_lines_of(const struct history_group *h, const char *name);
