/* bench/failed-sim.c: how often compare's rule for failed cells
 * (compare_failed_rule, report/compare.h: a side without an ok cell, or
 * B's share of failed cells over A's by more than
 * COMPARE_FAILED_MARGIN_PCT points) fails a comparison when both kernels
 * fail alike, and how often it catches a kernel whose cells fail more.
 *
 * Each cell of a side fails independently with probability p (a flaky
 * host's hang, a kernel that hangs one boot in four). The rates are exact,
 * not sampled: every outcome (fa failed of n on A, fb of n on B) is given
 * to the real compare_failed_rule and weighed by its binomial probability.
 * Usage:
 *
 *   failed-sim
 *
 * prints, per cells a side, the false-alarm rate when both sides fail with
 * the same p, then the detection rate when A fails at 1 % and B at a
 * higher p; docs/reference.md quotes it. */
#include <math.h>
#include <stdio.h>

#include "report/compare.h"

static const size_t sizes[] = { 3, 4, 6, 10, 20 };

/* The binomial probability of k failures in n cells at rate p. */
static double binom(size_t n, size_t k, double p) {
        if (p <= 0 || p >= 1)
                return k == (p <= 0 ? 0 : n);
        return exp(lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
                   (double)k * log(p) + (double)(n - k) * log1p(-p));
}

/* The probability that the rule fails a comparison of n cells a side
 * when A's cells fail at pa and B's at pb. */
static double fails(size_t n, double pa, double pb) {
        double sum = 0;

        for (size_t fa = 0; fa <= n; fa++)
                for (size_t fb = 0; fb <= n; fb++) {
                        struct compare_side a = { .ok = n - fa, .failed = fa }, b = { .ok = n - fb, .failed = fb };

                        if (compare_failed_rule(&a, &b) != COMPARE_FAILED_NONE)
                                sum += binom(n, fa, pa) * binom(n, fb, pb);
                }
        return sum;
}

static void row(const char *title, double pa, const double *pb, size_t npb) {
        printf("%s\n%-12s", title, "n a side");
        for (size_t j = 0; j < npb; j++)
                printf("  p=%5.1f%%", pb[j] * 100);
        putchar('\n');
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                printf("%-12zu", sizes[i]);
                for (size_t j = 0; j < npb; j++)
                        printf("  %7.2f%%", 100 * fails(sizes[i], pa < 0 ? pb[j] : pa, pb[j]));
                putchar('\n');
        }
}

int main(void) {
        static const double same[] = { 0.001, 0.005, 0.01, 0.02, 0.05 };
        static const double worse[] = { 0.05, 0.1, 0.25, 0.5, 1.0 };

        printf("compare_failed_rule: a side without an ok cell, or B's failed share over A's by more than %d "
               "points\n\n", COMPARE_FAILED_MARGIN_PCT);
        row("false alarms: both sides' cells fail at p", -1, same, sizeof(same) / sizeof(same[0]));
        putchar('\n');
        row("detection: A's cells fail at 1 %, B's at p", 0.01, worse, sizeof(worse) / sizeof(worse[0]));
        return 0;
}
