/* decide/changepoint: abrupt changes in a metric's history (nightly runs in
 * run order), by e-divisive means (Matteson and James, 2014) in the windowed
 * form of Hunter / Apache Otava, with a deterministic permutation test.
 * Pure computation over an array of doubles; same input, same output. The
 * method and every choice in it are written down at the top of
 * changepoint.c. */
#pragma once

#include <stddef.h>

struct changepoint_params {
        double p_threshold;        /* a split is significant when its p <= this, (0, 1] */
        double min_rel_change;     /* report only |rel_change| >= this (0.02 = 2 %), >= 0 */
        size_t window;             /* W: a candidate is judged on at most W/2 points each side, 2 min_size .. 1024 */
        size_t min_size;           /* points on each side of a split, >= 2 */
        size_t permutations;       /* R of the permutation test, 1 .. 100000; the smallest p is 1 / (R + 1) */
        size_t confirm;            /* a change with fewer points from it to the end is provisional */
};

/* Values the nightly configuration starts from. */
#define CHANGEPOINT_PARAMS_DEFAULT                                               \
        ((struct changepoint_params){ .p_threshold = 0.01, .min_rel_change = 0.02, \
                                      .window = 30, .min_size = 3, .permutations = 199, .confirm = 5 })

struct changepoint {
        size_t index;              /* first point of the new level (0-based, in the caller's order) */
        double mean_before;        /* mean of up to W/2 points before index, back to the previous split */
        double mean_after;         /* mean of up to W/2 points from index, up to the next split */
        double rel_change;         /* (mean_after - mean_before) / |mean_before|, a fraction */
        double p;                  /* permutation p-value of the split */
        int provisional;           /* 1 when fewer than confirm points are at index or after it */
};

/* The change points of v[0..n), in increasing index. *ret_points is
 * allocated (caller frees with free(); NULL when *ret_count is 0). Returns
 * 0, -EINVAL for parameters out of range or a non-finite value in v, or
 * -ENOMEM; the out-params are written only on success. */
int changepoint_detect(const double *v, size_t n, const struct changepoint_params *params,
                       struct changepoint **ret_points, size_t *ret_count);
