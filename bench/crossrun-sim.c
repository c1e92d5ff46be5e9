/* bench/crossrun-sim.c: how often compare's verdict rule calls a change
 * where there is none, when the two sides come from separate runs on a
 * host whose speed drifts, with and without the run offset that
 * compare_metric_stats gives cross-run sides (report/compare.h); and how
 * often it sees a real change between two kernels interleaved in one run.
 * It drives the real compare_metric_stats and compare_decide.
 *
 * The host: its speed is a random walk in log space, one step per cell
 * (a default dd cell lasts about 20 s), reflected at +-20 %; each cell's
 * value is the speed times iid noise. Two runs follow each other with a
 * gap of as many steps as a run has cells. Usage:
 *
 *   crossrun-sim [REPS [SEED]]
 *
 * prints, per (iid CoV, drift per step), the false-alarm rate of an A/A
 * across two runs (n = 6 each) without and with the offset, and the rate
 * at which a -6 % change is called worse between kernels interleaved in
 * one run (n = 6 each, the same drift under both). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/simrand.h"
#include "report/compare.h"

#define N 6
#define BOUND 0.2

static double walk(GRand *g, double logspeed, double step) {
        double x = logspeed + step * g_rand_double_range(g, -1.7320508, 1.7320508);

        /* Reflect at log(1 +- BOUND). */
        if (x > log(1 + BOUND))
                x = 2 * log(1 + BOUND) - x;
        if (x < log(1 - BOUND))
                x = 2 * log(1 - BOUND) - x;
        return x;
}

static enum compare_verdict decide(double *a, double *b, int run_offset) {
        struct compare_metric m = { .name = "dd.write_MBps", .judged = 1, .run_offset = run_offset,
                                    .info = { .direction = METRICS_HIGHER, .verdict = 1 },
                                    .a = a, .b = b, .na = N, .nb = N };

        compare_metric_stats(&m, 0.05, 0.02);
        /* A family of one: BH's q is Welch's p. */
        return compare_decide(&m, m.ttest.p, 0.05, 0.02);
}

static int judged_change(enum compare_verdict v) {
        return v == COMPARE_WORSE || v == COMPARE_BETTER;
}

int main(int argc, char **argv) {
        static const double covs[] = { 0.002, 0.02, 0.05, 0.12 };
        static const double steps[] = { 0, 0.01, 0.02, 0.04 };
        long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 500;
        GRand *g = g_rand_new_with_seed(argc > 2 ? (guint32)strtoul(argv[2], NULL, 10) : 20261202);

        printf("%8s %8s  %14s %14s  %16s\n", "iid CoV", "drift", "A/A no offset", "A/A offset", "-6% in one run");
        for (size_t c = 0; c < G_N_ELEMENTS(covs); c++)
                for (size_t s = 0; s < G_N_ELEMENTS(steps); s++) {
                        long fa0 = 0, fa1 = 0, hit = 0;

                        for (long r = 0; r < reps; r++) {
                                double a[N], b[N], x = 0;

                                /* A/A: run A, a gap, run B. */
                                for (int i = 0; i < N; i++) {
                                        x = walk(g, x, steps[s]);
                                        a[i] = 100 * exp(x) * (1 + covs[c] * sim_gauss(g));
                                }
                                for (int i = 0; i < N; i++)
                                        x = walk(g, x, steps[s]);
                                for (int i = 0; i < N; i++) {
                                        x = walk(g, x, steps[s]);
                                        b[i] = 100 * exp(x) * (1 + covs[c] * sim_gauss(g));
                                }
                                fa0 += judged_change(decide(a, b, 0));
                                fa1 += judged_change(decide(a, b, 1));
                                /* A -6 % kernel, interleaved: A B A B ... */
                                for (int i = 0; i < N; i++) {
                                        x = walk(g, x, steps[s]);
                                        a[i] = 100 * exp(x) * (1 + covs[c] * sim_gauss(g));
                                        x = walk(g, x, steps[s]);
                                        b[i] = 94 * exp(x) * (1 + covs[c] * sim_gauss(g));
                                }
                                hit += decide(a, b, 0) == COMPARE_WORSE;
                        }
                        printf("%7.1f%% %7.1f%%  %13.1f%% %13.1f%%  %15.1f%%\n", covs[c] * 100, steps[s] * 100,
                               100.0 * (double)fa0 / (double)reps, 100.0 * (double)fa1 / (double)reps,
                               100.0 * (double)hit / (double)reps);
                }
        g_rand_free(g);
        return 0;
}
