/* web/site: `kbench publish`, the static site of a result store: the
 * publishing pass. It loads the model (web/model.h: run views, kernels,
 * nights, comparisons, bisections), derives the regressions across nights
 * (web/history.h), has the page renderers (web/pages.h) draw one page per
 * run, cell, kernel, comparison and bisection plus an index through
 * report/html and report/svg, each with its data as JSON beside it, and
 * the Atom feed of regressions, and writes them incrementally (web/output). Cell views and
 * their chart data are loaded one at a time for their page and dropped
 * (only the cell page reads from the database: its logs, one at a time,
 * so a store's logs are never all in memory). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/db.h"

struct site_options {
        const char *dir;                   /* where the pages go */
        const char *const *compares;       /* "A:B" selections (kbench compare's syntax) */
        size_t n_compares;                 /* 0: each kernel against the one before it in each run */
        int force;                         /* write into a directory that is not a kbench site, replace
                                              files not in its manifest (web/output.h) */
        int adopt;                         /* the store's own site: one without a manifest (written
                                              before kbench kept one) is taken over (web/output.h) */
        int with_defaults;                 /* those default ones besides the compares asked for */
};

struct site_result {
        size_t written;                    /* files (pages, their data, the feed) whose bytes changed */
        size_t unchanged;
        size_t removed;                    /* pages of an earlier pass no longer produced */
        size_t dropped;                    /* manifest entries dropped: not pages kbench writes */
        char dropped_note[256];            /* the first of them and why; "" when none */
};

/* Publish the store behind db into opt->dir. OUT: *ret. Returns 0 or -errno
 * with err (a database error, a file that cannot be written, a --compare
 * that names nothing). */
int site_publish(struct db *db, const struct site_options *opt, struct site_result *ret, struct kb_error *err);
