/* decide/bisectrule: the search of a bisection as a pure algorithm over an
 * ordered list of candidates (index 0 good, n - 1 bad), with the world
 * behind callbacks: building a candidate, telling whether two are the
 * same image, measuring candidates interleaved. bisect/bisect.c gives it
 * real builds and runs; bench/bisect-sim.c gives it simulated values, so
 * the rates it reports are those of this very code.
 *
 * The ends are measured against each other with decide/seqrule.h's
 * sequential verdict at the caller's target: "same" ends the search (no
 * change), "not yet" at the budget too (cannot tell). Each step measures
 * one candidate interleaved with both ends, more rounds while the rule
 * says "not yet", and asks it twice: like good and unlike bad is good,
 * the reverse bad, unlike both bad (the change has begun there); anything
 * else when the budget is spent is "cannot tell". A step's target is the
 * noise band plus half the change seen at the ends (the rule's targets
 * include the band), so a candidate at either end is told apart from the
 * other. A candidate that cannot be built or measured is skipped
 * and its neighbour nearest the middle is taken; one whose image equals a
 * decided one takes that decision unmeasured. The first bad is measured
 * once more against the last good (its parent when nothing between was
 * skipped). */
#pragma once

#include <stddef.h>

#include "decide/seqrule.h"

enum bisect_state { BISECT_UNTESTED, BISECT_GOOD, BISECT_BAD, BISECT_SKIPPED };

enum bisect_outcome { BISECT_FIRST_BAD, BISECT_NO_CHANGE, BISECT_CANNOT_TELL };

/* One candidate's values in a step, appended to by the measure callback. */
struct bisect_series {
        double *v;                 /* NAN: a cell without a value */
        size_t n, cap;
};

/* Append v to s; -ENOMEM. */
int bisect_series_add(struct bisect_series *s, double v);

/* What a step found, for the caller to store and print. */
struct bisect_step {
        const char *role;          /* "ends", "probe", "confirm" */
        size_t cand;               /* the candidate (the bad end for "ends") */
        size_t rounds;             /* rounds measured; 0: decided without measuring */
        enum seqrule_verdict vs_good, vs_bad;
        int has_vs_good, has_vs_bad;
        const char *decision;      /* good, bad, skipped, same, different, unknown */
        const char *note;          /* static, or NULL */
        size_t like;               /* with note "the same image": the candidate it equals */
        double mean_good, mean_cand, mean_bad;  /* NAN: not measured */
};

struct bisect_ops {
        /* Make candidate i measurable (build it). Returns 0, 1 when it
         * cannot be (it is skipped), or -errno to stop the search. */
        int (*prepare)(void *ud, size_t i);
        /* 1 when candidates i and j are the same image. */
        int (*same_image)(void *ud, size_t i, size_t j);
        /* `more` rounds of idx[0..n) interleaved; each candidate's values
         * appended to v[k]. role: "ends", "probe", "confirm". Returns 0 or
         * -errno. */
        int (*measure)(void *ud, const size_t *idx, size_t n, size_t more, const char *role,
                       struct bisect_series *v);
        /* Called once per step, in order. */
        void (*step)(void *ud, const struct bisect_step *s);
};

struct bisect_params {
        struct seqrule_params rule;    /* target: the ends' (noise band included); pilot, max_rounds per
                                          step; alpha, power; its noise is set from noise */
        double noise;              /* compare's noise band, a fraction */
        int dir;                   /* the metric's direction (METRICS_HIGHER or METRICS_LOWER) */
        double floor;              /* the metric's floor (report/metrics.h): > 0 an amount, judged
                                      by its difference */
};

struct bisect_result {
        enum bisect_outcome outcome;
        size_t first_bad;          /* BISECT_FIRST_BAD: its index */
        size_t last_good;
        int confirmed;             /* 1 reproduced against the last good, 0 not, -1 not asked */
        size_t skipped_between;    /* candidates between last good and first bad that were skipped */
        double change;             /* mean(bad) / mean(good) - 1 at the ends; NAN unknown */
        size_t steps, cells_rounds;    /* steps taken; rounds measured, summed over steps */
};

/* Search candidates 0..n-1 (n >= 2). state[] (n entries, BISECT_UNTESTED
 * on entry) ends with what was decided of each. Returns 0, -EINVAL for
 * bad parameters, or a callback's -errno. OUT: *ret. */
int bisect_search(const struct bisect_params *p, size_t n, const struct bisect_ops *ops, void *ud,
                  enum bisect_state *state, struct bisect_result *ret);

/* A step's decision from its two verdicts (candidate against the good
 * end, and the bad end against the candidate). */
enum bisect_state bisect_classify(enum seqrule_verdict vs_good, enum seqrule_verdict vs_bad);

const char *bisect_state_name(enum bisect_state s);
const char *bisect_outcome_name(enum bisect_outcome o);
