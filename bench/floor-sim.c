/* bench/floor-sim.c: how often compare's rules call a change where there is
 * none, and how often they see a planted one, simulated against the real
 * code: report/compare.c's compare_metric_stats, compare_decide and
 * compare_judge, with the floor the registry gives each metric
 * (report/metrics.c). Four tables, and a mode that reads measured cells:
 *
 *   floor-sim [REPS [SEED]]              the tables
 *   floor-sim resample FILE [REPS [SEED]]   false alarms of candidate floors on measured A/A cells
 *
 * 1. Amounts (a metric with a floor: seconds waited or spun, MiB swapped,
 *    judged by Welch's interval of the difference of the means or Yuen's
 *    of the trimmed means, whichever test has the smaller p). An amount
 *    scatters with a skewed spread (a gamma of the given CoV: waits are a
 *    sum of few wake-ups, never below 0); a run as a whole may sit higher
 *    (a busy host delays the guest's wake-ups): that run's cells are
 *    multiplied by a factor drawn up to 1 + host; a cell may be a stray
 *    that waits stray seconds more, with probability stray_p (measured on
 *    an idle host: 2 cells in 36 waited 0.3 s more than their kernel's
 *    others). Per row: the false-alarm rate of an A/A within one run and
 *    across two runs (n = 6 a side, with the run offset compare gives
 *    sides from different runs), the rate at which the plant is called
 *    worse within one run at n = 4, 6 and 8, and at n = 6 with one test
 *    alone (Welch's, Yuen's: compare_amount_test_alone).
 * 2. Ratio metrics (guest.*.kernel_Minsn: normal scatter of the given CoV):
 *    a change called worse within one run and across two runs (each side's
 *    mean carrying its run's offset), n = 6 a side.
 * 3. Across runs on a host that adds waiting to every cell of one run (a
 *    slower disk one night): an A/A pair of wait_s across the two runs, and
 *    the same pair within one run (both sides slowed alike).
 * 4. The Benjamini-Hochberg family: a planted count among 10 unchanged
 *    judged metrics of its group (the family, compare_judge's rule), and
 *    the same group judged in one family with two more groups' 22 metrics
 *    (the rule before: every group of the view).
 *
 * resample reads lines "METRIC RUN KERNEL VALUE" (bench/floors.py writes
 * them from A/A runs: two kernels that differ only in their release,
 * interleaved in each run) and, per metric and candidate floor, draws A/A
 * pairs of 6 cells a side from one run (within) and from two runs
 * (across, with the run offset), and says how often compare gives a
 * verdict with that floor; and how often a plant of 0.1 s (wait_s), 0.02 s
 * (spin_s) or 1 MiB (swap), scattering by 10 %, added to B's cells is
 * called worse within a run, the price of the floor. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simrand.h"
#include "report/compare.h"

#define NMAX 8
#define ALPHA 0.05
#define NOISE 0.02

/* Which test an amount is judged by: compare's pair, or one alone. */
enum tests { BOTH, WELCH_ALONE, YUEN_ALONE };

/* One metric as compare judges it, alone (a family of one: BH's q is its
 * p); floor > 0 overrides the registry's. An amount gets what
 * compare_decide reads and no more, as seqrule_judge computes it (its MDE
 * and n@x% cost a power search each and decide nothing); a ratio metric
 * compare_metric_stats in full. */
static enum compare_verdict decide(const char *name, double floor, enum tests t, double *a, size_t na, double *b,
                                   size_t nb, int run_offset) {
        struct compare_metric m = { .name = (char *)name, .judged = 1, .run_offset = run_offset,
                                    .a = a, .b = b, .na = na, .nb = nb };

        if (metrics_lookup(name, &m.info) < 0)
                abort();
        if (floor > 0)
                m.info.floor = floor;
        if (m.info.floor > 0) {
                stats_summarize(a, na, &m.sa);
                stats_summarize(b, nb, &m.sb);
                if (t == BOTH)
                        compare_amount_test(&m);
                else
                        compare_amount_test_alone(&m, t == YUEN_ALONE);
                m.mw_min_p = stats_mann_whitney_min_p(na, nb);
        } else
                compare_metric_stats(&m, ALPHA, NOISE);
        return compare_decide(&m, m.ttest.p, ALPHA, NOISE);
}

static int judged(enum compare_verdict v) {
        return v == COMPARE_WORSE || v == COMPARE_BETTER;
}

static double pct(long k, long reps) {
        return 100.0 * (double)k / (double)reps;
}

/* ---- 1. amounts ---------------------------------------------------------- */

struct amount {
        const char *name;
        double level, cov, host, plant, plant_cov, stray_p, stray;
};

static void side(GRand *g, const struct amount *c, double host, double add, size_t n, double *v) {
        double run = 1 + host * g_rand_double(g);

        for (size_t i = 0; i < n; i++)
                v[i] = c->level * run * sim_gamma1(g, c->cov) + (add > 0 ? add * sim_gamma1(g, c->plant_cov) : 0) +
                       (g_rand_double(g) < c->stray_p ? c->stray : 0);
}

static void amounts(GRand *g, long reps) {
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

        printf("amounts (floors: the registry's), %ld pairs per cell\n", reps);
        printf("%-20s %7s %5s %5s %7s %11s  %9s %9s  %8s %8s %8s  %8s %8s\n", "metric", "level", "CoV", "host",
               "plant", "stray", "A/A 1 run", "A/A 2 run", "hit n=4", "hit n=6", "hit n=8", "Welch n=6", "Yuen n=6");
        for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
                const struct amount *am = &cases[c];
                long fa1 = 0, fa2 = 0, hit[3] = { 0 }, alone[2] = { 0 };

                for (long r = 0; r < reps; r++) {
                        double a[NMAX], b[NMAX];

                        /* A/A in one run: one host factor for both sides. */
                        side(g, am, 0, 0, 6, a);
                        side(g, am, 0, 0, 6, b);
                        fa1 += judged(decide(am->name, 0, BOTH, a, 6, b, 6, 0));
                        /* A/A across runs: each run its own host factor. */
                        side(g, am, am->host, 0, 6, a);
                        side(g, am, am->host, 0, 6, b);
                        fa2 += judged(decide(am->name, 0, BOTH, a, 6, b, 6, 1));
                        for (size_t k = 0; k < G_N_ELEMENTS(ns); k++) {
                                side(g, am, 0, 0, ns[k], a);
                                side(g, am, 0, am->plant, ns[k], b);
                                hit[k] += decide(am->name, 0, BOTH, a, ns[k], b, ns[k], 0) == COMPARE_WORSE;
                                if (ns[k] != 6)
                                        continue;
                                alone[0] += decide(am->name, 0, WELCH_ALONE, a, 6, b, 6, 0) == COMPARE_WORSE;
                                alone[1] += decide(am->name, 0, YUEN_ALONE, a, 6, b, 6, 0) == COMPARE_WORSE;
                        }
                }
                printf("%-20s %7.3g %4.0f%% %4.0f%% %7.3g %4.0f%% +%4.2g  %8.1f%% %8.1f%%  %7.1f%% %7.1f%% %7.1f%%  "
                       "%8.1f%% %7.1f%%\n", am->name, am->level, am->cov * 100, am->host * 100, am->plant,
                       am->stray_p * 100, am->stray, pct(fa1, reps), pct(fa2, reps), pct(hit[0], reps),
                       pct(hit[1], reps), pct(hit[2], reps), pct(alone[0], reps), pct(alone[1], reps));
        }
}

/* ---- 2. ratio metrics within and across runs ------------------------------ */

static void ratios(GRand *g, long reps) {
        static const struct { double cov, change; } cases[] = {
                { 0.005, 0 }, { 0.005, 0.03 }, { 0.005, 0.05 }, { 0.002, 0.03 }, { 0.01, 0.03 }, { 0.01, 0.05 },
        };

        printf("\nratio metrics (guest.write.kernel_Minsn, normal scatter, n = 6 a side), %ld pairs per row\n", reps);
        printf("%5s %7s  %13s %13s\n", "CoV", "change", "worse, 1 run", "worse, 2 runs");
        for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
                long in = 0, across = 0;

                for (long r = 0; r < reps; r++) {
                        double a[6], b[6];

                        for (size_t i = 0; i < 6; i++) {
                                a[i] = 100 * (1 + cases[c].cov * sim_gauss(g));
                                b[i] = 100 * (1 + cases[c].change) * (1 + cases[c].cov * sim_gauss(g));
                        }
                        /* The same cells, read as one run or as two. */
                        in += judged(decide("guest.write.kernel_Minsn", 0, BOTH, a, 6, b, 6, 0));
                        across += judged(decide("guest.write.kernel_Minsn", 0, BOTH, a, 6, b, 6, 1));
                }
                printf("%4.1f%% %+6.0f%%  %12.1f%% %12.1f%%\n", cases[c].cov * 100, cases[c].change * 100,
                       pct(in, reps), pct(across, reps));
        }
}

/* ---- 3. a host that adds waiting to one run ------------------------------- */

static void slower_run(GRand *g, long reps) {
        static const double adds[] = { 0.05, 0.1, 0.2, 0.3 };
        const struct amount base = { "guest.write.wait_s", 0.03, 0.3, 0, 0, 0.3, 0, 0 };

        printf("\nA/A of guest.write.wait_s (0.03 s, CoV 30 %%, n = 6) when one run's host adds waiting to each "
               "cell (CoV 30 %%), %ld pairs per row\n", reps);
        printf("%9s  %14s %14s\n", "added", "verdict, 1 run", "verdict, 2 runs");
        for (size_t k = 0; k < G_N_ELEMENTS(adds); k++) {
                long in = 0, across = 0;

                for (long r = 0; r < reps; r++) {
                        double a[6], b[6];

                        /* Across: only B's run is slower. */
                        side(g, &base, 0, 0, 6, a);
                        side(g, &base, 0, adds[k], 6, b);
                        across += judged(decide(base.name, 0, BOTH, a, 6, b, 6, 1));
                        /* Within: both sides in the slow run. */
                        side(g, &base, 0, adds[k], 6, a);
                        side(g, &base, 0, adds[k], 6, b);
                        in += judged(decide(base.name, 0, BOTH, a, 6, b, 6, 0));
                }
                printf("%+8.2fs  %13.1f%% %13.1f%%\n", adds[k], pct(in, reps), pct(across, reps));
        }
}

/* ---- 4. the family ------------------------------------------------------ */

/* A group of n judged counts (CoV 0.5 %, n = 6 a side), the first changed
 * by change; its statistics computed, its verdicts left to compare_judge. */
static void count_group(GRand *g, struct compare_group *grp, struct compare_metric *m, size_t n, double change,
                        double noise, double *vals) {
        *grp = (struct compare_group){ .m = m, .n_m = n };
        for (size_t k = 0; k < n; k++) {
                double *a = vals + 12 * k, *b = a + 6;

                for (size_t i = 0; i < 6; i++) {
                        a[i] = 100 * (1 + 0.005 * sim_gauss(g));
                        b[i] = 100 * (1 + (k ? 0 : change)) * (1 + 0.005 * sim_gauss(g));
                }
                m[k] = (struct compare_metric){ .name = (char *)"guest.write.kernel_Minsn", .judged = 1, .a = a,
                                                .b = b, .na = 6, .nb = 6 };
                if (metrics_lookup(m[k].name, &m[k].info) < 0)
                        abort();
                compare_metric_stats(&m[k], ALPHA, noise);
        }
}

/* At compare's noise band a change that clears it has a p far below any
 * BH threshold, so the family's size moves little; with --noise 0 (the
 * test alone) it decides. Both are shown. */
static void family(GRand *g, long reps) {
        static const struct { double noise, change; } cases[] = {
                { NOISE, 0 }, { NOISE, 0.025 }, { NOISE, 0.03 }, { 0, 0 }, { 0, 0.005 }, { 0, 0.01 },
        };

        printf("\nthe Benjamini-Hochberg family: a count changed among 10 unchanged ones of its group (CoV 0.5 %%, "
               "n = 6), %ld views per row; at 0 the share of views with any verdict in the group\n", reps);
        printf("%6s %7s  %16s %22s\n", "noise", "change", "family of 11", "family of 33 (before)");
        for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
                double noise = cases[c].noise, change = cases[c].change;
                long own = 0, wide = 0;

                for (long r = 0; r < reps; r++) {
                        struct compare_metric m[33];
                        struct compare_group grp[3], one;
                        double vals[33 * 12];
                        struct compare_view per_group = { .alpha = ALPHA, .noise = noise, .groups = grp,
                                                          .n_groups = 3 };
                        struct compare_view as_one = { .alpha = ALPHA, .noise = noise, .groups = &one,
                                                       .n_groups = 1 };

                        for (size_t k = 0; k < 3; k++)
                                count_group(g, &grp[k], m + 11 * k, 11, k ? 0 : change, noise, vals + 11 * 12 * k);
                        /* The rule: a family per group. */
                        if (compare_judge(&per_group) < 0)
                                abort();
                        own += change > 0 ? m[0].verdict == COMPARE_WORSE : grp[0].worse + grp[0].better > 0;
                        /* The rule before: the 33 metrics in one family. */
                        one = (struct compare_group){ .m = m, .n_m = 33 };
                        if (compare_judge(&as_one) < 0)
                                abort();
                        if (change > 0)
                                wide += m[0].verdict == COMPARE_WORSE;
                        else
                                for (size_t k = 0; k < 11; k++)
                                        if (judged(m[k].verdict)) {
                                                wide++;
                                                break;
                                        }
                }
                printf("%5.0f%% %+6.1f%%  %15.1f%% %21.1f%%\n", noise * 100, change * 100, pct(own, reps),
                       pct(wide, reps));
        }
}

/* ---- resample: measured A/A cells ---------------------------------------- */

struct cell {
        char *metric;
        long run;
        double v;
};

/* The measured cells of metric, grouped by run: runs[i] the values of the
 * i-th run, with at least min cells. */
static GPtrArray *by_run(GArray *cells, const char *metric, size_t min) {
        GPtrArray *runs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
        GHashTable *idx = g_hash_table_new(g_direct_hash, g_direct_equal);

        for (guint i = 0; i < cells->len; i++) {
                const struct cell *c = &g_array_index(cells, struct cell, i);
                gpointer k = GSIZE_TO_POINTER((gsize)c->run);
                GArray *v;

                if (strcmp(c->metric, metric) != 0)
                        continue;
                v = g_hash_table_lookup(idx, k);
                if (!v) {
                        v = g_array_new(FALSE, FALSE, sizeof(double));
                        g_hash_table_insert(idx, k, v);
                        g_ptr_array_add(runs, v);
                }
                g_array_append_val(v, c->v);
        }
        for (guint i = runs->len; i-- > 0;)
                if (((GArray *)runs->pdata[i])->len < min)
                        g_ptr_array_remove_index(runs, i);
        g_hash_table_destroy(idx);
        return runs;
}

/* n distinct values of v, drawn at random, into out; skip those in used. */
static void draw(GRand *g, const GArray *v, size_t n, double *out, unsigned char *used) {
        for (size_t k = 0; k < n; k++) {
                guint i;

                do
                        i = (guint)g_rand_int_range(g, 0, (gint32)v->len);
                while (used[i]);
                used[i] = 1;
                out[k] = g_array_index(v, double, i);
        }
}

/* The floors tried, and the plant whose price they show, per metric kind. */
static const double *candidates(const char *metric, double *ret_plant) {
        static const double wait[] = { 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0 };
        static const double spin[] = { 0.001, 0.002, 0.005, 0.01, 0.02, 0 };
        static const double swap[] = { 0.1, 0.25, 0.5, 1, 0 };

        if (g_str_has_suffix(metric, ".wait_s")) {
                *ret_plant = 0.1;
                return wait;
        }
        if (g_str_has_suffix(metric, ".spin_s")) {
                *ret_plant = 0.02;
                return spin;
        }
        *ret_plant = 1;
        return swap;
}

static void resample_metric(GRand *g, GArray *cells, const char *metric, long reps) {
        g_autoptr(GPtrArray) runs = by_run(cells, metric, 12);
        double plant;
        const double *floors = candidates(metric, &plant);

        if (runs->len == 0)
                return;
        for (const double *f = floors; *f > 0; f++) {
                long in = 0, across = 0, hit = 0;

                for (long r = 0; r < reps; r++) {
                        const GArray *x = runs->pdata[g_rand_int_range(g, 0, (gint32)runs->len)];
                        const GArray *y = runs->pdata[g_rand_int_range(g, 0, (gint32)runs->len)];
                        g_autofree unsigned char *ux = g_malloc0(x->len), *uy = g_malloc0(y->len);
                        double a[6], b[6];

                        /* Within one run: 6 + 6 distinct cells of it. */
                        draw(g, x, 6, a, ux);
                        draw(g, x, 6, b, ux);
                        in += judged(decide(metric, *f, BOTH, a, 6, b, 6, 0));
                        /* The plant scatters a little itself (CoV 10 %). */
                        for (size_t i = 0; i < 6; i++)
                                b[i] += plant * sim_gamma1(g, 0.1);
                        hit += decide(metric, *f, BOTH, a, 6, b, 6, 0) == COMPARE_WORSE;
                        /* Across two runs (another, when there is one). */
                        if (runs->len > 1)
                                while (y == x)
                                        y = runs->pdata[g_rand_int_range(g, 0, (gint32)runs->len)];
                        memset(ux, 0, x->len);
                        draw(g, x, 6, a, ux);
                        if (y == x)
                                draw(g, x, 6, b, ux);
                        else
                                draw(g, y, 6, b, uy);
                        across += judged(decide(metric, *f, BOTH, a, 6, b, 6, y != x));
                }
                printf("%-28s %7.3g %3u  %9.2f%% %9.2f%%  %9.1f%%\n", metric, *f, runs->len, pct(in, reps),
                       pct(across, reps), pct(hit, reps));
        }
}

static int resample(const char *path, long reps, GRand *g) {
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        g_autoptr(GArray) cells = g_array_new(FALSE, FALSE, sizeof(struct cell));
        g_autoptr(GPtrArray) metrics = g_ptr_array_new_with_free_func(g_free);

        if (!g_file_get_contents(path, &text, NULL, NULL)) {
                fprintf(stderr, "floor-sim: cannot read %s\n", path);
                return 2;
        }
        lines = g_strsplit(text, "\n", -1);
        for (size_t i = 0; lines[i]; i++) {
                g_auto(GStrv) f = g_strsplit(lines[i], " ", -1);
                struct cell c;
                char *end;

                if (!lines[i][0] || lines[i][0] == '#')
                        continue;
                if (g_strv_length(f) != 4) {
                        fprintf(stderr, "floor-sim: %s:%zu: not METRIC RUN KERNEL VALUE\n", path, i + 1);
                        return 2;
                }
                c.run = strtol(f[1], &end, 10);
                c.v = strtod(f[3], &end);
                if (*end || !isfinite(c.v)) {
                        fprintf(stderr, "floor-sim: %s:%zu: bad value '%.32s'\n", path, i + 1, f[3]);
                        return 2;
                }
                c.metric = g_strdup(f[0]);
                if (!g_ptr_array_find_with_equal_func(metrics, c.metric, g_str_equal, NULL))
                        g_ptr_array_add(metrics, g_strdup(c.metric));
                g_array_append_val(cells, c);
        }
        printf("A/A cells of %s resampled, %ld pairs per row, n = 6 a side\n", path, reps);
        printf("%-28s %7s %3s  %10s %10s  %10s\n", "metric", "floor", "runs", "A/A 1 run", "A/A 2 runs",
               "plant hit");
        for (guint m = 0; m < metrics->len; m++)
                resample_metric(g, cells, metrics->pdata[m], reps);
        for (guint i = 0; i < cells->len; i++)
                g_free(g_array_index(cells, struct cell, i).metric);
        return 0;
}

int main(int argc, char **argv) {
        int rs = argc > 1 && strcmp(argv[1], "resample") == 0;
        int at = rs ? 3 : 1;
        long reps = argc > at ? strtol(argv[at], NULL, 10) : 2000;
        GRand *g = g_rand_new_with_seed(argc > at + 1 ? (guint32)strtoul(argv[at + 1], NULL, 10) : 20261203);
        int r = 0;

        if (reps <= 0 || (rs && argc < 3)) {
                fprintf(stderr, "usage: floor-sim [REPS [SEED]] | floor-sim resample FILE [REPS [SEED]]\n");
                return 2;
        }
        if (rs)
                r = resample(argv[2], reps, g);
        else {
                amounts(g, reps);
                ratios(g, reps);
                slower_run(g, reps);
                family(g, reps);
        }
        g_rand_free(g);
        return r;
}
