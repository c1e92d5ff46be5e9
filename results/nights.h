/* results/nights: the nights of kbench nightly as rows: when each ran, the
 * baseline its kernels were compared with, its alpha and noise band, and
 * the comparisons it made (kbench compare's selectors and the subject as
 * the night's report names it). Written once per night, after its
 * comparisons. Verdicts are not stored: a reader loads each comparison
 * again from the cells (decide/pairing.c) with the night's alpha and
 * noise, so the site's states of a regression across nights (new, still
 * there, fixed) come from stored cells. Everything read back is untrusted:
 * NULL columns stay NULL. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/db.h"

struct db_night {
        int64_t id;                /* set by db_night_add */
        double started_at;         /* unix s; <= 0: now */
        const char *baseline;      /* the kernel every subject was compared with */
        double alpha, noise;       /* the verdicts' level and noise band (a fraction) */
};

struct db_night_compare {
        const char *subject;       /* as the report names it: a variant's label + the kernel's name */
        const char *sel_a, *sel_b; /* kbench compare's selectors: the baseline's, the subject's */
};

/* Store a night and its n comparisons in one transaction; sets n->id.
 * Returns 0 or -errno with err. */
int db_night_add(struct db *db, struct db_night *n, const struct db_night_compare *c, size_t nc,
                 struct kb_error *err);

/* What is read back (owned strings). */
struct night_compare_row {
        char *subject, *sel_a, *sel_b;
};

struct night_row {
        int64_t id;
        double started_at;
        char *baseline;
        double alpha, noise;
        struct night_compare_row *compares;    /* in the order the night made them */
        size_t n_compares;
};

/* Every night, oldest first, with its comparisons. OUT: *ret, *ret_n
 * (night_rows_free). Returns 0 or -errno with err. */
int db_nights_list(struct db *db, struct night_row **ret, size_t *ret_n, struct kb_error *err);
void night_rows_free(struct night_row *rows, size_t n);    /* accepts NULL */
