/* web/model: what the pages of the site read, loaded once per publishing
 * pass: every run view with the index the pages need (latest attempt per
 * cell, state counts, kernels and workloads in the run's order, each
 * cell's pairing key), the kernels of the store, the nights of kbench
 * nightly, the comparisons (every night's, as asked, or each kernel
 * against the one before it in each run), the bisections with their
 * steps, and the lookups the pages call (a kernel by name, a summary
 * series, the representative cells of a comparison group). The states of
 * regressions across nights are derived from it by web/history.c. It is its own module, below the pages and the
 * publishing pass (web/site.c), so that the pages call down into it and
 * never back into the pass that calls them (tools/check-includes.py
 * checks the order). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "report/compare.h"
#include "report/view.h"
#include "results/bisect.h"
#include "results/db.h"
#include "results/nights.h"
#include "web/regstate.h"

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
        char **keys;                       /* per latest attempt (as latest): its pairing key at its own
                                              settings (compare_pairing_key, nothing ignored); NULL when
                                              its settings are unreadable (owned) */
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
        const struct night_row *night;     /* the night that made it (borrowed), or NULL */
        const char *subject;               /* that night's subject (borrowed), or NULL */
        double alpha, noise;               /* of its verdicts: the night's, else compare's defaults */
};

/* A regression's state on one night (web/regstate.h), for the index and
 * the feed. */
struct model_event {
        size_t night;                      /* index in model.nights */
        size_t compare;                    /* index in model.compares: that night's comparison */
        const char *subject, *baseline;    /* borrowed from the night */
        const char *spec, *metric;         /* the paired group's workload spec, the metric (borrowed) */
        enum regstate state;
        size_t since;                      /* the night it became new (index in model.nights) */
        enum compare_verdict verdict;      /* that night's */
        double change;                     /* mean(B) / mean(A) - 1 that night; NAN when unknown */
        const struct compare_metric *m;    /* that night's statistics (borrowed from the comparison):
                                              what the pages print as its change */
        double q;                          /* its BH q; NAN when none */
        size_t na, nb;
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
        struct night_row *nights;          /* the nights of kbench nightly, oldest first */
        size_t n_nights;
        struct model_event *events;        /* regression states, night order (web/history.c fills it) */
        size_t n_events;
        struct bisect_row *bisections;     /* newest first, with their steps */
        size_t n_bisections;
        double published_at;               /* the publishing pass's start, unix time (the feed's updated
                                              when the store has nothing newer to say) */
};

/* Load the model of the store behind db: every run view, the kernels,
 * the nights, the bisections, and the comparisons: every night's (at the
 * night's alpha and noise), compares[0..n_compares) ("A:B" in kbench
 * compare's syntax) and, when n_compares is 0 or with_defaults, each
 * kernel against the one before it in each run; two that would share a
 * page are one, the first of that order. A night's or a default
 * comparison that cannot be built keeps its reason in ->error; an
 * asked-for one is an error. OUT: *ret (model_free, also after a
 * failure). Returns 0 or -errno with err (a database error, a --compare
 * that names nothing). */
int model_load(struct db *db, const char *const *compares, size_t n_compares, int with_defaults, struct model *ret,
               struct kb_error *err);
/* Free what model_load made; accepts a zeroed struct. */
void model_free(struct model *m);

/* The comparison whose page is file, or NULL. Borrowed from s. */
const struct model_compare *model_compare_find(const struct model *s, const char *file);
/* The run called id, or NULL. Borrowed from s. */
const struct model_run *model_run_find(const struct model *s, int64_t id);
/* The kernel of the store called name, or NULL. Borrowed from s. */
const struct model_kernel *model_kernel_find(const struct model *s, const char *name);
/* The first latest attempt of (kernel, workload) in a run, or NULL. */
const struct query_cell *model_run_cell(const struct model_run *r, const char *kernel, const char *workload);
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
