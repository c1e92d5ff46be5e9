/* web/site: `kbench publish`, the static site of a result store. It loads
 * the views of report/ (runs, cells, comparisons), renders one page per
 * run, cell, kernel and comparison plus an index through report/html and
 * report/svg, and writes them incrementally (web/output). The page
 * renderers (web/indexpage.c, runpage.c, cellpage.c, kernelpage.c) share the site model below; they lay views out
 * (only the cell page reads from the database: its logs, one at a time,
 * so a store's logs are never all in memory). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "report/compare.h"
#include "report/view.h"
#include "results/db.h"

struct site_options {
        const char *dir;                   /* where the pages go */
        const char *const *compares;       /* "A:B" selections (kbench compare's syntax) */
        size_t n_compares;                 /* 0: each kernel against the one before it in each run */
        int force;                         /* write into a directory that is not a kbench site (web/output.h) */
        int with_defaults;                 /* those default ones besides the compares asked for */
};

struct site_result {
        size_t written;                    /* pages whose bytes changed */
        size_t unchanged;
        size_t removed;                    /* pages of an earlier pass no longer produced */
};

/* Publish the store behind db into opt->dir. OUT: *ret. Returns 0 or -errno
 * with err (a database error, a file that cannot be written, a --compare
 * that names nothing). */
int site_publish(struct db *db, const struct site_options *opt, struct site_result *ret, struct kb_error *err);

/* ---- the model the page renderers share ---- */

struct site_state_count {
        const char *state;                 /* borrowed from the run view */
        size_t n;
};

struct site_run {
        struct view_run *v;
        char *file;                        /* run-<id>.html */
        size_t *latest;                    /* per cell key, the index in v->cells of its latest attempt */
        size_t n_latest;
        struct site_state_count *states;   /* over the latest attempts, ok first */
        size_t n_states;
        size_t n_failed;                   /* latest attempts that are not ok */
        char **kernels;                    /* kernel names in the run's order (borrowed) */
        size_t n_kernels;
        char **workloads;                  /* workload names in the run's order (borrowed) */
        size_t n_workloads;
};

struct site_kernel {
        const char *name;                  /* borrowed from a run view */
        char *file;                        /* kernel-<slug>.html */
};

/* One comparison page: two selectors (kbench compare's syntax) and their
 * comparison view. */
struct site_compare {
        char *sel_a, *sel_b;               /* owned */
        int64_t run_id;                    /* the run of a default comparison; 0 for --compare */
        char *file;                        /* compare-<a>-vs-<b>.html */
        struct compare_view *v;            /* NULL when it could not be built (error says why) */
        char *error;                       /* owned, or NULL */
};

/* The representative cell of one side of a group: the ok cell whose value
 * of the group's first judged metric is nearest that side's median. */
struct site_rep {
        int64_t run_id;
        const char *cell_key;              /* borrowed from a run view; NULL when none */
        const char *kernel;                /* borrowed */
        double value;                      /* of metric */
        const char *metric;                /* borrowed from the view */
};

struct site {
        struct db *db;
        struct site_compare *compares;     /* --compare ones, or the default ones in run order */
        size_t n_compares;
        struct site_run *runs;             /* oldest first */
        size_t n_runs;
        struct site_kernel *kernels;       /* by first appearance */
        size_t n_kernels;
};

const struct site_kernel *site_kernel_find(const struct site *s, const char *name);
/* The summary of (kernel, workload, metric) in a run view, or NULL. */
const struct view_series *site_series(const struct view_run *v, const char *kernel, const char *workload,
                                      const char *metric);
struct html;
struct cell_charts;

/* The representative cells (A then B) of group g of comparison c.
 * OUT: ret[0], ret[1] (cell_key NULL when a side has none). */
void site_representatives(const struct site *s, const struct compare_group *g, struct site_rep ret[2]);

/* Page renderers: each appends a whole page to h. */
void indexpage_render(struct html *h, const struct site *s);
/* Per group of a comparison: the representative cells (A, B) and their
 * chart data (NULL when a side has none). */
struct site_group_cells {
        struct site_rep rep[2];
        struct cell_charts *charts[2];
};
/* groups: c->v->n_groups entries. */
void comparepage_render(struct html *h, const struct site *s, const struct site_compare *c,
                        const struct site_group_cells *groups);
void runpage_render(struct html *h, const struct site *s, const struct site_run *r);
void cellpage_render(struct html *h, const struct site *s, const struct site_run *r, const struct view_cell *c,
                     const struct cell_charts *charts);
void kernelpage_render(struct html *h, const struct site *s, const struct site_kernel *k);
