/* web/model: what the pages of the site read, loaded once per publishing
 * pass: every run view with the index the pages need (latest attempt per
 * cell, state counts, kernels and workloads in the run's order), the
 * kernels of the store, the comparisons (as asked, or each kernel against
 * the one before it in each run), and the lookups the pages call (a
 * kernel by name, a summary series, the representative cells of a
 * comparison group). It is its own module, below the pages and the
 * publishing pass (web/site.c), so that the pages call down into it and
 * never back into the pass that calls them (report/check-includes.py
 * checks the order). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "report/compare.h"
#include "report/view.h"
#include "results/db.h"

struct model_state_count {
        const char *state;                 /* borrowed from the run view */
        size_t n;
};

struct model_run {
        struct view_run *v;
        char *file;                        /* run-<id>.html */
        size_t *latest;                    /* per cell key, the index in v->cells of its latest attempt */
        size_t n_latest;
        struct model_state_count *states;  /* over the latest attempts, ok first */
        size_t n_states;
        size_t n_failed;                   /* latest attempts that are not ok */
        char **kernels;                    /* kernel names in the run's order (borrowed) */
        size_t n_kernels;
        char **workloads;                  /* workload names in the run's order (borrowed) */
        size_t n_workloads;
};

struct model_kernel {
        const char *name;                  /* borrowed from a run view */
        char *file;                        /* kernel-<slug>.html */
};

/* One comparison page: two selectors (kbench compare's syntax) and their
 * comparison view. */
struct model_compare {
        char *sel_a, *sel_b;               /* owned */
        int64_t run_id;                    /* the run of a default comparison; 0 for --compare */
        char *file;                        /* compare-<a>-vs-<b>.html */
        struct compare_view *v;            /* NULL when it could not be built (error says why) */
        char *error;                       /* owned, or NULL */
};

/* The representative cell of one side of a group: the ok cell whose value
 * of the group's first judged metric is nearest that side's median. */
struct model_rep {
        int64_t run_id;
        const char *cell_key;              /* borrowed from a run view; NULL when none */
        const char *kernel;                /* borrowed */
        double value;                      /* of metric */
        const char *metric;                /* borrowed from the view */
};

struct model {
        struct db *db;
        struct model_compare *compares;    /* --compare ones, or the default ones in run order */
        size_t n_compares;
        struct model_run *runs;            /* oldest first */
        size_t n_runs;
        struct model_kernel *kernels;      /* by first appearance */
        size_t n_kernels;
};

/* Load the model of the store behind db: every run view, the kernels,
 * and the comparisons: compares[0..n_compares) ("A:B" in kbench compare's
 * syntax) or, when n_compares is 0 or with_defaults, each kernel against
 * the one before it in each run. A default comparison that cannot be built
 * keeps its reason in ->error; an asked-for one is an error. OUT: *ret
 * (model_free, also after a failure). Returns 0 or -errno with err (a
 * database error, a --compare that names nothing). */
int model_load(struct db *db, const char *const *compares, size_t n_compares, int with_defaults, struct model *ret,
               struct kb_error *err);
/* Free what model_load made; accepts a zeroed struct. */
void model_free(struct model *m);

/* The kernel of the store called name, or NULL. Borrowed from s. */
const struct model_kernel *model_kernel_find(const struct model *s, const char *name);
/* The summary of (kernel, workload, metric) in a run view, or NULL. */
const struct view_series *model_series(const struct view_run *v, const char *kernel, const char *workload,
                                       const char *metric);
/* The representative cells (A then B) of group g of comparison c.
 * OUT: ret[0], ret[1] (cell_key NULL when a side has none). */
void model_representatives(const struct model *s, const struct compare_group *g, struct model_rep ret[2]);

struct cell_charts;
/* Per group of a comparison: the representative cells (A, B) and their
 * chart data (NULL when a side has none), gathered by the publishing pass
 * for the comparison page. */
struct model_group_cells {
        struct model_rep rep[2];
        struct cell_charts *charts[2];
};
