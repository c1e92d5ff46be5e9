/* bench/floor-sim.c: how often compare's rule for amounts (a metric with a
 * floor, judged by Welch's interval of the difference of the means or
 * Yuen's of the trimmed means, whichever test has the smaller p:
 * report/compare.h)
 * calls a change where there is none, and how often it sees a planted
 * one. It drives the real compare_metric_stats and compare_decide, with
 * the floor the registry gives each metric (report/metrics.c).
 *
 * An amount here is what a cell measured near 0 without a regression: the
 * seconds the guest waited or spun in dd's write phase, MiB swapped. Its
 * cells scatter with a skewed spread (a gamma of the given CoV: waits are
 * a sum of few wake-ups, never below 0), and a run as a whole may sit
 * higher (a busy host delays the guest's wake-ups): that run's cells are
 * multiplied by a factor drawn up to 1 + host. A cell may also be a stray:
 * with probability stray_p it waits stray seconds more (measured on an
 * idle host: 2 cells in 36 waited 0.3 s more than their kernel's others;
 * the first cell after a kernel build, 0.1-0.3 s more). Usage:
 *
 *   floor-sim [REPS [SEED]]
 *
 * prints, per metric, baseline and spread, the false-alarm rate of an A/A
 * within one run and across two runs (n = 6 a side, with the run offset
 * compare gives sides from different runs), and the rate at which a plant
 * adding the given amount (scattering with the same CoV) is called worse
 * within one run at n = 4, 6 and 8; the plant's amount scatters with its
 * own CoV (a sleep of fixed length on every write scatters little). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/compare.h"

#define NMAX 8

static double gauss(GRand *g) {
        double u = g_rand_double_range(g, 1e-12, 1), v = g_rand_double(g);

        return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A gamma variate of mean 1 and coefficient of variation cov (Marsaglia and
 * Tsang; shape k = 1 / cov^2, boosted below 1). */
static double gamma1(GRand *g, double cov) {
        double k = 1 / (cov * cov), boost = 1, d, c, x, v, u;

        if (k < 1) {
                boost = pow(g_rand_double_range(g, 1e-12, 1), 1 / k);
                k += 1;
        }
        d = k - 1.0 / 3;
        c = 1 / sqrt(9 * d);
        for (;;) {
                do {
                        x = gauss(g);
                        v = 1 + c * x;
                } while (v <= 0);
                v = v * v * v;
                u = g_rand_double_range(g, 1e-12, 1);
                if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
                        break;
        }
        return d * v * boost * cov * cov;
}

static enum compare_verdict decide(const char *name, double *a, size_t na, double *b, size_t nb, int run_offset) {
        struct compare_metric m = { .name = (char *)name, .judged = 1, .run_offset = run_offset,
                                    .a = a, .b = b, .na = na, .nb = nb };

        if (metrics_lookup(name, &m.info) < 0)
                abort();
        compare_metric_stats(&m, 0.05, 0.02);
        /* A family of one: BH's q is Welch's p. */
        return compare_decide(&m, m.ttest.p, 0.05, 0.02);
}

struct amount {
        const char *name;
        double level, cov, host, plant, plant_cov, stray_p, stray;
};

static void side(GRand *g, const struct amount *c, double host, double add, size_t n, double *v) {
        double run = 1 + host * g_rand_double(g);

        for (size_t i = 0; i < n; i++)
                v[i] = c->level * run * gamma1(g, c->cov) + (add > 0 ? add * gamma1(g, c->plant_cov) : 0) +
                       (g_rand_double(g) < c->stray_p ? c->stray : 0);
}

int main(int argc, char **argv) {
        /* The measured baselines: dd 256M on the tiny kernel under TCG. */
        static const struct amount cases[] = {
                /* Measured: base 0.01-0.04 s, a 2 ms sleep per write +1.1 s
                 * (CoV 15 %), per 8th write +0.09 s (CoV 8 %); a stalled
                 * flusher +0.2-0.8 s (CoV 50 %). */
                { "guest.write.wait_s", 0.03, 0.3, 1.0, 0.10, 0.15, 0, 0 },
                { "guest.write.wait_s", 0.03, 0.6, 2.0, 0.10, 0.15, 0, 0 },
                { "guest.write.wait_s", 0.03, 0.3, 1.0, 0.40, 0.50, 0, 0 },
                { "guest.write.wait_s", 0.015, 0.2, 1.0, 0.09, 0.08, 0.06, 0.3 },
                { "guest.write.wait_s", 0.015, 0.2, 1.0, 0.15, 0.08, 0.06, 0.3 },
                { "guest.write.wait_s", 0.03, 0.6, 2.0, 0.10, 0.15, 0.10, 0.5 },
                /* Measured: base 0.013 s (CoV 5-20 %); udelay(150) a bio +0.04 s. */
                { "guest.write.spin_s", 0.013, 0.2, 0.5, 0.01, 0.1, 0, 0 },
                { "guest.write.spin_s", 0.013, 0.2, 0.5, 0.04, 0.1, 0, 0 },
                /* Measured: base 0 MiB; anon scanned as file +1.3 MiB (CoV 5-30 %). */
                { "vmstat.swap_out_MiB", 0.01, 2.0, 1.0, 1.0, 0.3, 0, 0 },
        };
        static const size_t ns[] = { 4, 6, 8 };
        long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
        GRand *g = g_rand_new_with_seed(argc > 2 ? (guint32)strtoul(argv[2], NULL, 10) : 20261203);

        printf("%-20s %7s %5s %5s %7s %11s  %9s %9s  %8s %8s %8s\n", "metric", "level", "CoV", "host", "plant",
               "stray", "A/A 1 run", "A/A 2 run", "hit n=4", "hit n=6", "hit n=8");
        for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
                long fa1 = 0, fa2 = 0, hit[3] = { 0 };

                for (long r = 0; r < reps; r++) {
                        double a[NMAX], b[NMAX];
                        enum compare_verdict v;

                        /* A/A in one run: one host factor for both sides. */
                        side(g, &cases[c], 0, 0, 6, a);
                        side(g, &cases[c], 0, 0, 6, b);
                        v = decide(cases[c].name, a, 6, b, 6, 0);
                        fa1 += v == COMPARE_WORSE || v == COMPARE_BETTER;
                        /* A/A across runs: each run its own host factor. */
                        side(g, &cases[c], cases[c].host, 0, 6, a);
                        side(g, &cases[c], cases[c].host, 0, 6, b);
                        v = decide(cases[c].name, a, 6, b, 6, 1);
                        fa2 += v == COMPARE_WORSE || v == COMPARE_BETTER;
                        for (size_t k = 0; k < G_N_ELEMENTS(ns); k++) {
                                side(g, &cases[c], 0, 0, ns[k], a);
                                side(g, &cases[c], 0, cases[c].plant, ns[k], b);
                                hit[k] += decide(cases[c].name, a, ns[k], b, ns[k], 0) == COMPARE_WORSE;
                        }
                }
                printf("%-20s %7.3g %4.0f%% %4.0f%% %7.3g %4.0f%% +%4.2g  %8.1f%% %8.1f%%  %7.1f%% %7.1f%% %7.1f%%\n",
                       cases[c].name, cases[c].level, cases[c].cov * 100, cases[c].host * 100, cases[c].plant,
                       cases[c].stray_p * 100, cases[c].stray,
                       100.0 * (double)fa1 / (double)reps, 100.0 * (double)fa2 / (double)reps,
                       100.0 * (double)hit[0] / (double)reps, 100.0 * (double)hit[1] / (double)reps,
                       100.0 * (double)hit[2] / (double)reps);
        }
        g_rand_free(g);
        return 0;
}
