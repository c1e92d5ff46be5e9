/* bench/tail-sim.c: compare's rules for the measures that judge memory,
 * reclaim and stalls in some cells only (the tail rule for the longest
 * stall of a phase, mem.held_MiB), each decision among a family of other
 * judged metrics as Benjamini-Hochberg has it in a real comparison; with
 * the amount rows floor-sim.c has too, for reference. It drives the real
 * compare_metric_stats and compare_decide, with the floor and tail the
 * registry gives each metric (report/metrics.c). An amount scatters with
 * a skewed spread (a gamma of the given CoV), a run as a whole may sit
 * higher by up to 1 + host, and a cell may be a stray that waits stray
 * seconds more with probability stray_p. Usage:
 *
 *   tail-sim [REPS [SEED [FAMILY [METRIC]]]]
 *
 * prints, per metric, baseline and spread, the false-alarm rate of an A/A
 * within one run and across two runs (n = 6 a side, with the run offset
 * compare gives sides from different runs), and the rate at which a plant
 * adding the given amount (scattering with the same CoV) is called worse
 * within one run at n = 4, 6, 8 and 12; the plant's amount scatters with its
 * own CoV (a sleep of fixed length on every write scatters little), and
 * acts in every cell of B or, for an intermittent stall, in a share of
 * them. A metric whose registry row sets a tail (the longest stall of a
 * phase) is judged by compare's tail rule, the others by the amount rule.
 *
 * A comparison judges some twenty metrics at once, and Benjamini-Hochberg
 * adjusts each p for them: FAMILY - 1 other metrics without a change
 * (uniform p values) join each decision, so a rule's power is shown as a
 * real comparison has it. FAMILY 1 is the metric alone (q = p). */
#include <fnmatch.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/simrand.h"
#include "report/compare.h"

#define NMAX 12

#define FAMILY_MAX 100

static enum compare_verdict decide(GRand *g, const char *name, double *a, size_t na, double *b, size_t nb,
                                   int run_offset, size_t family) {
        struct compare_metric m = { .name = (char *)name, .judged = 1, .run_offset = run_offset,
                                    .a = a, .b = b, .na = na, .nb = nb };
        double p[FAMILY_MAX], q[FAMILY_MAX];

        if (metrics_lookup(name, &m.info) < 0)
                abort();
        compare_metric_stats(&m, 0.05, 0.02);
        /* This metric's p among family - 1 others that did not change. */
        p[0] = m.ttest.p;
        for (size_t i = 1; i < family; i++)
                p[i] = g_rand_double_range(g, 1e-12, 1);
        stats_bh_adjust(p, family, q);
        return compare_decide(&m, isfinite(p[0]) ? q[0] : NAN, 0.05, 0.02);
}

struct amount {
        const char *name;
        double level, cov, host, plant, plant_cov, stray_p, stray;
        double plant_p;            /* the share of B's cells the plant acts in: 1 all */
        double sd;                 /* a symmetric scatter added to every cell (a figure that may
                                      be below 0, as what the kernel holds after the job) */
};

static void side(GRand *g, const struct amount *c, double host, double add, size_t n, double *v) {
        double run = 1 + host * g_rand_double(g);

        for (size_t i = 0; i < n; i++)
                v[i] = (c->cov > 0 ? c->level * run * sim_gamma1(g, c->cov) : c->level * run) + c->sd * sim_gauss(g) +
                       (add > 0 && g_rand_double(g) < c->plant_p ? add * sim_gamma1(g, c->plant_cov) : 0) +
                       (g_rand_double(g) < c->stray_p ? c->stray : 0);
}

int main(int argc, char **argv) {
        /* The measured baselines: dd 256M on the tiny kernel under TCG. */
        static const struct amount cases[] = {
                /* Measured: base 0.01-0.04 s, a 2 ms sleep per write +1.1 s
                 * (CoV 15 %), per 8th write +0.09 s (CoV 8 %); a stalled
                 * flusher +0.2-0.8 s (CoV 50 %). */
                { "guest.write.wait_s", 0.03, 0.3, 1.0, 0.10, 0.15, 0, 0, 1, 0 },
                { "guest.write.wait_s", 0.03, 0.6, 2.0, 0.10, 0.15, 0, 0, 1, 0 },
                { "guest.write.wait_s", 0.03, 0.3, 1.0, 0.40, 0.50, 0, 0, 1, 0 },
                { "guest.write.wait_s", 0.015, 0.2, 1.0, 0.09, 0.08, 0.06, 0.3, 1, 0 },
                { "guest.write.wait_s", 0.015, 0.2, 1.0, 0.15, 0.08, 0.06, 0.3, 1, 0 },
                { "guest.write.wait_s", 0.03, 0.6, 2.0, 0.10, 0.15, 0.10, 0.5, 1, 0 },
                /* Measured: base 0.013 s (CoV 5-20 %); udelay(150) a bio +0.04 s. */
                { "guest.write.spin_s", 0.013, 0.2, 0.5, 0.01, 0.1, 0, 0, 1, 0 },
                { "guest.write.spin_s", 0.013, 0.2, 0.5, 0.04, 0.1, 0, 0, 1, 0 },
                /* Measured: base 0 MiB; anon scanned as file +1.3 MiB (CoV 5-30 %). */
                { "vmstat.swap_out_MiB", 0.01, 2.0, 1.0, 1.0, 0.3, 0, 0, 1, 0 },
                /* What the kernel kept after the job, measured: -1.75..+0.55
                 * MiB a cell of the base, sd 0.26-0.67 MiB within a run (idle
                 * or busy), the runs' means 0.55 MiB apart; a leak of 16 KiB
                 * a write +3.9 MiB, of two pages a read +2.2-3.0 MiB. */
                { "mem.held_MiB", 0.3, 0, 2.0, 4.0, 0.05, 0, 0, 1, 0.5 },
                { "mem.held_MiB", 0.3, 0, 2.0, 2.0, 0.05, 0, 0, 1, 0.5 },
                { "mem.held_MiB", 0.3, 0, 2.0, 1.5, 0.05, 0, 0, 1, 0.5 },
                /* Direct-reclaim stalls in dd's read, measured: 4-15 (CoV
                 * 16-48 % in a run); kswapd never woken +178, napping 50 ms
                 * +122 to +148. */
                { "guest.read.allocstalls", 10, 0.45, 1.0, 120, 0.3, 0, 0, 1, 0 },
                { "guest.read.allocstalls", 10, 0.45, 1.0, 30, 0.3, 0, 0, 1, 0 },
                /* Flushes in dd's write: 2 in every cell; FUA on every write +133. */
                { "guest.write.disk_flushes", 2, 0, 0, 133, 0.05, 0, 0, 1, 0 },
                { "guest.write.disk_flushes", 2, 0, 0, 8, 0.05, 0, 0, 1, 0 },
                /* The longest stall of dd's write, measured: 0.004-0.007 s
                 * on an idle host, 0.007-0.013 s on a loaded one (the rows
                 * take more), the strays of waiting on top; a 500 ms sleep
                 * in half the boots +0.27 to +0.41 s, 1 s in a third +0.22
                 * to +0.64 s; the tail rule. Beside it the amount rule on
                 * the waiting the same stalls add. */
                { "guest.write.halt_longest_s", 0.014, 0.4, 1.0, 0.5, 0.05, 0.06, 0.3, 0.5, 0 },
                { "guest.write.halt_longest_s", 0.014, 0.4, 1.0, 0.5, 0.05, 0.06, 0.3, 0.33, 0 },
                { "guest.write.halt_longest_s", 0.014, 0.4, 1.0, 0.25, 0.2, 0.06, 0.3, 1, 0 },
                { "guest.write.halt_longest_s", 0.03, 0.6, 2.0, 0.5, 0.05, 0.10, 0.5, 0.5, 0 },
                { "guest.write.wait_s", 0.015, 0.2, 1.0, 0.5, 0.05, 0.06, 0.3, 0.5, 0 },
                { "guest.write.wait_s", 0.015, 0.2, 1.0, 0.5, 0.05, 0.06, 0.3, 0.33, 0 },
                /* Per operation of fio's randwrite, measured idle: waiting
                 * 145-160 us (213-282 on a loaded host), spinning 37-39 us;
                 * a 1 ms sleep on every 8th write +523 us. */
                { "guest.randwrite.wait_us_per_op", 155, 0.03, 0.6, 520, 0.03, 0, 0, 1, 0 },
                { "guest.randwrite.wait_us_per_op", 155, 0.03, 0.6, 80, 0.1, 0, 0, 1, 0 },
                { "guest.randwrite.spin_us_per_op", 39, 0.02, 0.1, 50, 0.05, 0, 0, 1, 0 },
                /* Per operation of dbench's four clients: the workers'
                 * sleeping, 46 us/op idle to 268 on a busy host (its total
                 * follows the time, not the operations); a 2 ms sleep a
                 * write +487, 0.5 ms an open +404; flushes 19.5-23.8 per
                 * 1000. */
                { "guest.dbench.sleep_us_per_op", 60, 0.25, 3.0, 400, 0.3, 0, 0, 1, 0 },
                { "guest.dbench.sleep_us_per_op", 60, 0.25, 3.0, 150, 0.3, 0, 0, 1, 0 },
                { "guest.dbench.disk_flushes_per_kop", 21, 0.06, 0.15, 35, 0.1, 0, 0, 1, 0 },
        };
        static const size_t ns[] = { 4, 6, 8, 12 };
        long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
        GRand *g = g_rand_new_with_seed(argc > 2 ? (guint32)strtoul(argv[2], NULL, 10) : 20261203);
        size_t family = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : 1;

        if (family < 1 || family > FAMILY_MAX) {
                fprintf(stderr, "tail-sim: FAMILY must be 1..%d\n", FAMILY_MAX);
                return 2;
        }
        printf("family of %zu judged metrics\n", family);
        printf("%-26s %7s %5s %5s %7s %5s %11s  %9s %9s  %8s %8s %8s %8s\n", "metric", "level", "CoV", "host",
               "plant", "cells", "stray", "A/A 1 run", "A/A 2 run", "hit n=4", "hit n=6", "hit n=8", "hit n=12");
        for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
                long fa1 = 0, fa2 = 0, hit[4] = { 0 };

                /* METRIC, an fnmatch pattern: only its rows. */
                if (argc > 4 && fnmatch(argv[4], cases[c].name, 0) != 0)
                        continue;

                for (long r = 0; r < reps; r++) {
                        double a[NMAX], b[NMAX];
                        enum compare_verdict v;

                        /* A/A in one run: one host factor for both sides. */
                        side(g, &cases[c], 0, 0, 6, a);
                        side(g, &cases[c], 0, 0, 6, b);
                        v = decide(g, cases[c].name, a, 6, b, 6, 0, family);
                        fa1 += v == COMPARE_WORSE || v == COMPARE_BETTER;
                        /* A/A across runs: each run its own host factor. */
                        side(g, &cases[c], cases[c].host, 0, 6, a);
                        side(g, &cases[c], cases[c].host, 0, 6, b);
                        v = decide(g, cases[c].name, a, 6, b, 6, 1, family);
                        fa2 += v == COMPARE_WORSE || v == COMPARE_BETTER;
                        for (size_t k = 0; k < G_N_ELEMENTS(ns); k++) {
                                side(g, &cases[c], 0, 0, ns[k], a);
                                side(g, &cases[c], 0, cases[c].plant, ns[k], b);
                                hit[k] += decide(g, cases[c].name, a, ns[k], b, ns[k], 0, family) == COMPARE_WORSE;
                        }
                }
                printf("%-26s %7.3g %4.0f%% %4.0f%% %7.3g %4.0f%% %4.0f%% +%4.2g  %8.1f%% %8.1f%%  %7.1f%% %7.1f%% "
                       "%7.1f%% %7.1f%%\n",
                       cases[c].name, cases[c].level, cases[c].cov * 100, cases[c].host * 100, cases[c].plant,
                       cases[c].plant_p * 100, cases[c].stray_p * 100, cases[c].stray,
                       100.0 * (double)fa1 / (double)reps, 100.0 * (double)fa2 / (double)reps,
                       100.0 * (double)hit[0] / (double)reps, 100.0 * (double)hit[1] / (double)reps,
                       100.0 * (double)hit[2] / (double)reps, 100.0 * (double)hit[3] / (double)reps);
        }
        g_rand_free(g);
        return 0;
}
