/* bench/bench.h: the clock and the sort order every benchmark of bench/
 * takes its medians with, written once instead of in each file. */
#pragma once

#include <time.h>

/* Monotonic seconds. */
static inline double bench_now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort() order of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}
