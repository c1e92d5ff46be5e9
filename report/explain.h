/* report/explain: where a change of the kernel's instructions went. A
 * comparison (report/compare.h) says that guest.<phase>.kernel_Minsn
 * changed; the cells' profiles (results/profile.h, cell/cellprof.h) say in
 * which of the kernel's functions each cell's instructions of that phase
 * ran. The explanation of a change is, per function, the mean over each
 * side's profiled cells and the difference of the two means, the largest
 * differences (either sign) first; every other function's difference is
 * summed into one figure, so the list and the rest add up to the change of
 * the phase's mean exactly. A function that ran on one side only is shown
 * as existing in that kernel only when the other kernel's stored symbol
 * table lacks it. Plain data, as every view: renderers lay it out
 * (report/text.c, report/json.c, web/comparepage.c). */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "report/compare.h"
#include "results/db.h"

#define EXPLAIN_TOP_DEFAULT 8              /* functions listed by default */
#define EXPLAIN_TOP_MAX 100

/* One function's part in the change. */
struct explain_fn {
        char *symbol;              /* "vfs_write", "ext4_map_blocks [ext4]", "[unknown]" (owned) */
        double a, b;               /* instructions per profiled cell, mean of each side */
        double delta;              /* b - a */
        char only;                 /* 'A' or 'B': the function exists in that side's kernel only (the
                                      other's table lacks it); 0: in both, or not known */
};

/* The explanation of one metric of one paired group. */
struct explain {
        size_t group;              /* index of the group in the view */
        const struct compare_metric *m;    /* the metric explained (borrowed from the view) */
        char *phase;               /* "write" (owned) */
        size_t na, nb;             /* cells with a profile of the phase, each side */
        double total_a, total_b;   /* the phase's kernel instructions per profiled cell, each side */
        struct explain_fn *top;    /* the largest differences first (owned) */
        size_t n_top;
        double rest;               /* the other functions' differences, summed */
        size_t n_rest;             /* how many functions that is */
        const char *none;          /* why there is no explanation (static), or NULL */
};

struct explain_view {
        struct explain *v;
        size_t n;
};

struct explain_options {
        int all;                   /* every guest.<phase>.kernel_Minsn with values on both sides, not
                                      only those judged worse or better */
        const char *metric;        /* only this metric (whatever its verdict), or NULL */
        size_t top;                /* functions listed; 0: EXPLAIN_TOP_DEFAULT */
};

/* Explain the kernel-instruction changes of v (those judged worse or
 * better; see o) from the profiles in db, into v->explain (replacing one
 * there). Reads each side's profiled cells of each explained phase once.
 * Returns 0 or -errno with err (a damaged profile row names its cell). */
int explain_load(struct db *db, struct compare_view *v, const struct explain_options *o, struct kb_error *err);

/* The explanation of metric m of group g of v, or NULL. */
const struct explain *explain_find(const struct compare_view *v, size_t group, const struct compare_metric *m);

/* Whether name is guest.<phase>.kernel_Minsn: 1 with the phase in
 * phase (size bytes), else 0. */
int explain_metric_phase(const char *name, char *phase, size_t size);
