/* test-compare.c: the comparison view. The verdict rule's own table is
 * decide/test-verdict.c's; here it is applied to statistics (an amount's
 * band from A's mean, compare_decide) and to a Benjamini-Hochberg family
 * built by hand (compare_judge); selectors and the pairing key are pure;
 * then whole comparisons on a database the test fills: an A/A pair of runs
 * (no verdict, exit 0), a throttled run (dd.write_MBps worse, exit 4, the
 * JSON agreeing), 3+3 cells ("n too small"), a run whose disk speed differs
 * (listed, not mixed in, unless the settings are named to pair across), failed and
 * retried cells, a metric stored without a value, and the renderers. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "report/compare.h"
#include "report/json.h"
#include "report/text.h"
#include "report/textcompare.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#include "report/view.h"
#include "results/db.h"

TEST_MAIN();

/* ---- the verdict, applied ------------------------------------------------ */

/* When an informational row's change is printed: a near-zero level or a
 * metric without a direction gets none (the rows that read like findings:
 * vmstat.bi_mean -98.8 %). */
TEST(change_shown_table) {
        static const struct {
                int judged;
                enum metrics_direction dir;
                double ma, sda, mb, sdb, change;
                int want;
        } cases[] = {
                { 1, METRICS_HIGHER, 0.1, 0.5, 0.2, 0.5, 1.0, 1 },     /* judged: always */
                { 1, METRICS_HIGHER, 100, 1, 90, 1, NAN, 0 },          /* no change at all */
                { 0, METRICS_NONE, 100, 1, 90, 1, -0.1, 0 },           /* no direction */
                { 0, METRICS_LOWER, 4.2, 0.3, 4.9, 0.4, 0.167, 1 },    /* dd.read_s-like */
                { 0, METRICS_LOWER, 1.2, 2.0, 0.01, 0.02, -0.988, 0 }, /* noise around 0 */
                { 0, METRICS_LOWER, 5, 1, 0.2, 0.3, -0.96, 0 },        /* one side at 0 */
                { 0, METRICS_LOWER, 0, 0, 0, 0, NAN, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct compare_metric m = { .judged = cases[i].judged, .change = cases[i].change };

                m.info.direction = cases[i].dir;
                m.sa.mean = cases[i].ma;
                m.sa.sd = cases[i].sda;
                m.sb.mean = cases[i].mb;
                m.sb.sd = cases[i].sdb;
                if (text_change_shown(&m) != cases[i].want)
                        TEST_FAIL("case %zu: text_change_shown %d, want %d", i, text_change_shown(&m), cases[i].want);
        }
}

/* An amount with a floor (guest.*.wait_s: 0.05 s) is judged by the Welch
 * interval of its difference: beyond the floor, and beyond the noise band
 * of A's mean when that is wider; A's mean may be 0. */
TEST(decide_floor_table) {
        static const struct {
                const char *what;
                double mean_a, sd_a, sd_b, q, lo, hi;    /* lo, hi: the difference's CI */
                enum compare_verdict want;
        } cases[] = {
                { "waiting up 0.4 s", 0.12, 0.02, 0.03, 0.001, 0.35, 0.45, COMPARE_WORSE },
                { "waiting down 0.4 s", 0.52, 0.02, 0.03, 0.001, -0.45, -0.35, COMPARE_BETTER },
                { "spinning from exactly 0", 0, 0, 0.01, 0.001, 0.28, 0.33, COMPARE_WORSE },
                { "steady, but within the floor", 0.10, 0.001, 0.001, 1e-9, 0.01, 0.02, COMPARE_SAME },
                { "the interval reaches into the floor", 0.10, 0.02, 0.02, 0.001, 0.04, 0.2, COMPARE_SAME },
                { "beyond the floor, within 2 % of a large A", 10.0, 0.01, 0.01, 1e-6, 0.1, 0.15, COMPARE_SAME },
                { "beyond both", 10.0, 0.01, 0.01, 1e-6, 0.3, 0.35, COMPARE_WORSE },
                { "not significant", 0.1, 0.2, 0.2, 0.2, -0.1, 0.5, COMPARE_SAME },
                { "0 on both sides, no spread", 0, 0, 0, NAN, 0, 0, COMPARE_SAME },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const typeof(cases[0]) *c = &cases[i];
                struct compare_metric m = {
                        .judged = 1, .info = { .direction = METRICS_LOWER, .floor = 0.05 }, .na = 6, .nb = 6,
                        .ttest = { .p = c->q }, .ratio = { .lo = NAN, .hi = NAN },
                        .diff = { .estimate = (c->lo + c->hi) / 2, .lo = c->lo, .hi = c->hi },
                        .sa = { .mean = c->mean_a, .sd = c->sd_a }, .sb = { .sd = c->sd_b },
                        .mw_min_p = stats_mann_whitney_min_p(6, 6),
                };
                enum compare_verdict got = compare_decide(&m, c->q, 0.05, 0.02);

                if (got != c->want)
                        TEST_FAIL("%s: %s, want %s", c->what, compare_verdict_name(got), compare_verdict_name(c->want));
        }
}

/* Figures in a kernel developer's units: seconds scaled to µs, ms or s
 * with three significant digits, never "+0.0000315 s"; a count is a whole
 * number; an interval's ends share one scale. */
TEST(units_a_reader_reads) {
        static const struct {
                double v;
                const char *unit, *want;
        } cases[] = {
                { 0.0000315, "s", "31.5 µs" }, { 0.000336, "s", "336 µs" }, { 0.0236, "s", "23.6 ms" },
                { 0.5, "s", "500 ms" },        { 1.31, "s", "1.31 s" },     { 42.7, "s", "42.7 s" },
                { 0, "s", "0 s" },             { 150.26, "Minsn", "150.3 Minsn" }, { 2, "stalls", "2 stalls" },
                { 0, "MiB", "0 MiB" },         { NAN, "s", "n/a" },
        };
        struct compare_metric m = { .unit = (char *)"s", .info = { .floor = 0.05 },
                                    .diff = { .estimate = 0.0000315, .lo = -0.0000757, .hi = 0.000140 },
                                    .mde_abs = 0.0506 };
        char buf[64], change[64], ci[64], mde[64];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                text_format_value(cases[i].v, cases[i].unit, 1, buf, sizeof(buf));
                if (strcmp(buf, cases[i].want) != 0)
                        TEST_FAIL("%g %s: '%s', want '%s'", cases[i].v, cases[i].unit, buf, cases[i].want);
        }
        text_format_change(&m, change, ci, mde, sizeof(change));
        ASSERT_STREQ(change, "+31.5 µs");
        ASSERT_STREQ(ci, "[-76, +140 µs]");
        ASSERT_STREQ(mde, "50.6 ms");
        text_format_num(2.0, buf, sizeof(buf));
        ASSERT_STREQ(buf, "2");
        text_format_num(0.0412, buf, sizeof(buf));
        ASSERT_STREQ(buf, "0.0412");
}

/* Ten judged metrics, each with a CI far beyond the noise: p = 0.001 and
 * 0.04 look significant alone, but among ten tests only the first survives
 * BH at 0.05 (q = 0.01 and 0.2). The informational one never counts. */
/* An amount with a stray cell: waiting measured on an idle host, a plant
 * that sleeps 150 ms once per fsync, one of its six cells 0.34 s longer.
 * Welch's interval of the means reaches below the floor, Yuen's of the
 * trimmed means does not: worse, on the trimmed means. A steady plant of
 * widely scattered amounts keeps Welch's test. */
TEST(amount_with_a_stray_cell) {
        double base[] = { 0.014, 0.011, 0.014, 0.013, 0.011, 0.015 };
        double plant[] = { 0.169, 0.167, 0.219, 0.505, 0.164, 0.169 };
        double wide[] = { 0.30, 0.62, 0.45, 0.21, 0.80, 0.39 };
        struct compare_metric m = { .name = (char *)"guest.write.wait_s", .judged = 1, .a = base, .b = plant,
                                    .na = 6, .nb = 6 };
        struct stats_test welch;

        ASSERT_EQ(metrics_lookup(m.name, &m.info), 0);
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_TRUE(m.trimmed);
        ASSERT_NEAR(m.diff.estimate, 0.168, 1e-9);
        ASSERT_NEAR(m.trimmed_b - m.trimmed_a, 0.168, 1e-9);
        ASSERT_TRUE(m.diff.lo > m.info.floor);
        ASSERT_EQ(stats_welch(base, 6, plant, 6, &welch), 0);
        ASSERT_NEAR(m.ttest.p, 2 * 0.002159780404912903, 1e-9);   /* Yuen's (report/test-stats-ref.h), doubled */
        ASSERT_TRUE(welch.p > m.ttest.p / 2);
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_WORSE);

        m = (struct compare_metric){ .name = (char *)"guest.write.wait_s", .judged = 1, .a = base, .b = wide,
                                     .na = 6, .nb = 6 };
        ASSERT_EQ(metrics_lookup(m.name, &m.info), 0);
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_TRUE(!m.trimmed);
        ASSERT_EQ(stats_welch(base, 6, wide, 6, &welch), 0);
        ASSERT_NEAR(m.ttest.p, 2 * welch.p, 1e-12);
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_WORSE);

        /* four a side: nothing to trim, Welch's p as it is */
        m = (struct compare_metric){ .name = (char *)"guest.write.wait_s", .judged = 1, .a = base, .b = wide,
                                     .na = 4, .nb = 4 };
        ASSERT_EQ(metrics_lookup(m.name, &m.info), 0);
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_EQ(stats_welch(base, 4, wide, 4, &welch), 0);
        ASSERT_TRUE(!m.trimmed);
        ASSERT_NEAR(m.ttest.p, welch.p, 1e-12);
}

/* The tail rule (guest.*.halt_longest_s): a kernel that stalls 0.5 s in
 * three of six cells. Welch's and Yuen's tests of the means see no
 * change beyond the floor; the share of B's cells beyond A's median by
 * more than the tail does: P(X >= 3) for X ~ Binomial(6, 0.05). */
TEST(tail_rule) {
        double base[] = { 0.013, 0.027, 0.013, 0.014, 0.012, 0.008 };
        double stalls[] = { 0.51, 0.012, 0.49, 0.014, 0.52, 0.011 };
        double stray[] = { 0.011, 0.012, 0.48, 0.014, 0.013, 0.011 };
        double hiccups[] = { 0.4, 0.012, 0.013, 0.014, 0.5, 0.011 };
        struct compare_metric m = { .name = (char *)"guest.write.halt_longest_s", .judged = 1, .a = base,
                                    .b = stalls, .na = 6, .nb = 6 };

        ASSERT_EQ(metrics_lookup(m.name, &m.info), 0);
        ASSERT_TRUE(m.info.tail > 0 && m.info.floor > 0);
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_EQ(m.tail_a, 0);
        ASSERT_EQ(m.tail_b, 3);
        ASSERT_NEAR(m.ttest.p, 0.00222984375, 1e-12);   /* SciPy's binom.sf(2, 6, 0.05) */
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_WORSE);
        /* One stalled cell is a stray, whatever the odds. */
        m.b = stray;
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_EQ(m.tail_b, 1);
        ASSERT_EQ(compare_decide(&m, 0.001, 0.05, 0.02), COMPARE_SAME);
        /* One stalled cell of A is a hiccup too: the host's rate stands,
         * not A's 1 in 6. */
        {
                double one[] = { 0.013, 0.45, 0.013, 0.014, 0.012, 0.008 };

                m.a = one;
                m.b = stalls;
                compare_metric_stats(&m, 0.05, 0.02);
                ASSERT_EQ(m.tail_a, 1);
                ASSERT_NEAR(m.ttest.p, 0.00222984375, 1e-12);   /* binom.sf(2, 6, 0.05) */
                ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_WORSE);
        }
        /* A stalls as often: a hiccuping host, not the kernel; and the rule
         * is one-sided, A stalling more is no verdict. */
        m.a = hiccups;
        m.b = stalls;
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_EQ(m.tail_a, 2);
        ASSERT_EQ(m.tail_b, 3);
        ASSERT_NEAR(m.ttest.p, 0.3196159122085048, 1e-12);   /* binom.sf(2, 6, 1/3) */
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_SAME);
        m.a = stalls;
        m.b = base;
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_EQ(m.tail_b, 0);
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_SAME);
        /* Halts that chain (fio at depth 1): twice A's median is the mark. */
        {
                double chains[] = { 0.25, 0.21, 0.27, 0.20, 0.26, 0.22 };
                double longer[] = { 0.40, 0.45, 0.30, 0.42, 0.24, 0.38 };

                m.a = chains;
                m.b = longer;
                compare_metric_stats(&m, 0.05, 0.02);
                ASSERT_EQ(m.tail_b, 0);
        }
}

/* Exact counts that never vary (write requests of a fixed dd): no t test
 * is defined; the rank test decides (all tied within a side: its normal
 * approximation, as SciPy's). Within the floor, a steady difference is no
 * change. */
TEST(exact_counts) {
        double a[] = { 227, 227, 227, 227, 227, 227 }, b[] = { 470, 470, 470, 470, 470, 470 };
        double near[] = { 229, 229, 229, 229, 229, 229 };
        struct compare_metric m = { .name = (char *)"guest.write.disk_writes", .judged = 1, .a = a, .b = b,
                                    .na = 6, .nb = 6 };

        ASSERT_EQ(metrics_lookup(m.name, &m.info), 0);
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_NEAR(m.ttest.p, m.mw.p, 0);
        ASSERT_TRUE(m.ttest.p < 0.002);
        ASSERT_NEAR(m.diff.lo, 243, 1e-9);
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_WORSE);
        m.b = near;
        compare_metric_stats(&m, 0.05, 0.02);
        ASSERT_EQ(compare_decide(&m, m.ttest.p, 0.05, 0.02), COMPARE_SAME);
}

TEST(bh_family) {
        struct compare_metric m[11] = { { 0 } };
        struct compare_group g = { .m = m, .n_m = 11, .a = { .ok = 6 }, .b = { .ok = 6 } };
        struct compare_view v = { .alpha = 0.05, .noise = 0.02, .groups = &g, .n_groups = 1 };

        for (size_t i = 0; i < 11; i++)
                m[i] = (struct compare_metric){
                        .judged = i < 10, .info = { .direction = i < 10 ? METRICS_HIGHER : METRICS_NONE },
                        .na = 6, .nb = 6, .mw_min_p = stats_mann_whitney_min_p(6, 6),
                        .ttest = { .p = i == 0 ? 0.001 : i == 1 ? 0.04 : i == 10 ? 0.0001 : 0.5 },
                        .ratio = { .estimate = 0.7, .lo = 0.6, .hi = 0.8 },
                        .sa = { .mean = 100 }, .sb = { .mean = 70 },
                };
        ASSERT_EQ(compare_judge(&v), 0);
        ASSERT_NEAR(m[0].q, 0.01, 1e-12);
        ASSERT_NEAR(m[1].q, 0.2, 1e-12);
        ASSERT_EQ(m[0].verdict, COMPARE_WORSE);
        ASSERT_EQ(m[1].verdict, COMPARE_SAME);
        ASSERT_EQ(m[5].verdict, COMPARE_SAME);
        ASSERT_EQ(m[10].verdict, COMPARE_INFO);
        ASSERT_TRUE(isnan(m[10].q));
        ASSERT_EQ(v.worse, 1);
        ASSERT_EQ(v.judged, 10);
        ASSERT_EQ(v.exit_status, COMPARE_EXIT_WORSE);
        /* Ten metrics all at 0.7 of A: the geometric mean is 0.7. */
        ASSERT_NEAR(g.geomean, 0.7, 1e-12);
        ASSERT_EQ(g.n_geomean, 10);
}

/* The family is the paired group: a group's verdicts are the same
 * whether or not another workload's group sits beside it. The metric at
 * p = 0.01 survives BH among the 3 tests of its group (q = 0.03); in one
 * family with the 20 of another group at p = 0.5 it would not (q = 0.23). */
TEST(bh_family_is_the_group) {
        struct compare_metric m[23] = { { 0 } };
        struct compare_group g[2] = { { .m = m, .n_m = 3 }, { .m = m + 3, .n_m = 20 } };
        struct compare_view one = { .alpha = 0.05, .noise = 0.02, .groups = g, .n_groups = 1 };
        struct compare_view both = { .alpha = 0.05, .noise = 0.02, .groups = g, .n_groups = 2 };

        for (size_t i = 0; i < 23; i++)
                m[i] = (struct compare_metric){
                        .judged = 1, .info = { .direction = METRICS_HIGHER }, .na = 6, .nb = 6,
                        .mw_min_p = stats_mann_whitney_min_p(6, 6), .ttest = { .p = i == 0 ? 0.01 : 0.5 },
                        .ratio = { .estimate = 0.7, .lo = 0.6, .hi = 0.8 }, .sa = { .mean = 100 },
                        .sb = { .mean = 70 },
                };
        ASSERT_EQ(compare_judge(&one), 0);
        ASSERT_NEAR(m[0].q, 0.03, 1e-12);
        ASSERT_EQ(m[0].verdict, COMPARE_WORSE);
        ASSERT_EQ(compare_judge(&both), 0);
        ASSERT_NEAR(m[0].q, 0.03, 1e-12);
        ASSERT_EQ(m[0].verdict, COMPARE_WORSE);
        ASSERT_NEAR(m[3].q, 0.5, 1e-12);
        ASSERT_EQ(both.judged, 23);
        ASSERT_EQ(both.worse, 1);
}

/* The MDE is the smallest change a verdict sees with 80 % power: Welch's
 * MDE beyond the band, the noise band for a ratio, an amount's floor for
 * an amount; a change within the band needs more repeats than any. */
TEST(mde_includes_the_band) {
        static const double a[] = { 99, 101, 100, 98, 102, 100 }, b[] = { 101, 99, 100, 102, 98, 100 };
        static const double wa[] = { 0.01, 0.012, 0.011, 0.009, 0.01, 0.013 };
        static const double wb[] = { 0.011, 0.01, 0.012, 0.01, 0.009, 0.011 };
        struct compare_metric r = { .judged = 1, .a = (double *)a, .b = (double *)b, .na = 6, .nb = 6 };
        struct compare_metric w = { .judged = 1, .a = (double *)wa, .b = (double *)wb, .na = 6, .nb = 6 };
        struct stats_summary sa, sb, unit;

        ASSERT_EQ(metrics_lookup("guest.write.kernel_Minsn", &r.info), 0);
        ASSERT_EQ(metrics_lookup("guest.write.wait_s", &w.info), 0);
        compare_metric_stats(&r, 0.05, 0.02);
        stats_summarize(a, 6, &sa);
        stats_summarize(b, 6, &sb);
        ASSERT_NEAR(r.mde, 0.02 + stats_mde(&sa, &sb, 0.05, 0.8), 1e-12);
        ASSERT_EQ(r.n_for_2, 1001);
        ASSERT_TRUE(r.n_for_5 >= 2 && r.n_for_5 < 10);
        compare_metric_stats(&w, 0.05, 0.02);
        stats_summarize(wa, 6, &unit);
        stats_summarize(wb, 6, &sb);
        unit.mean = 1;
        ASSERT_NEAR(w.mde_abs, w.info.floor + stats_mde(&unit, &sb, 0.05, 0.8), 1e-12);
        ASSERT_TRUE(w.mde_abs > w.info.floor);
        ASSERT_EQ(w.n_for_5, 1001);
}

/* An amount judged beyond a floor votes in the verdicts, not in the
 * geometric mean: 0.02 s of waiting against 1.05 s is no ratio to average
 * with instruction counts. */
TEST(geomean_leaves_amounts_out) {
        struct compare_metric m[2] = { { 0 } };
        struct compare_group g = { .m = m, .n_m = 2, .a = { .ok = 6 }, .b = { .ok = 6 } };
        struct compare_view v = { .alpha = 0.05, .noise = 0.02, .groups = &g, .n_groups = 1 };

        for (size_t i = 0; i < 2; i++)
                m[i] = (struct compare_metric){
                        .judged = 1, .info = { .direction = METRICS_LOWER, .floor = i ? 0.05 : 0 },
                        .na = 6, .nb = 6, .mw_min_p = stats_mann_whitney_min_p(6, 6), .ttest = { .p = 0.001 },
                        .ratio = { .estimate = 1.1, .lo = 1.05, .hi = 1.15 },
                        .diff = { .estimate = 1.03, .lo = 0.9, .hi = 1.2 },
                        .sa = { .mean = i ? 0.02 : 100, .sd = 1 }, .sb = { .mean = i ? 1.05 : 110, .sd = 1 },
                };
        ASSERT_EQ(compare_judge(&v), 0);
        ASSERT_EQ(m[0].verdict, COMPARE_WORSE);
        ASSERT_EQ(m[1].verdict, COMPARE_WORSE);
        ASSERT_EQ(g.n_geomean, 1);
        ASSERT_NEAR(g.geomean, 100.0 / 110, 1e-12);
}

TEST(selectors) {
        struct kb_error err = { { 0 } };
        struct compare_selector s;

        ASSERT_EQ(compare_selector_parse("6.1.0-57-amd64", &s, &err), 0);
        ASSERT_EQ(s.kind, COMPARE_SEL_KERNEL);
        ASSERT_STREQ(s.kernel, "6.1.0-57-amd64");
        ASSERT_EQ(compare_selector_parse("run:12", &s, &err), 0);
        ASSERT_EQ(s.kind, COMPARE_SEL_RUN);
        ASSERT_EQ(s.run, 12);
        ASSERT_STREQ(s.kernel, "");
        ASSERT_EQ(compare_selector_parse("run:3:6.1.0-47-amd64", &s, &err), 0);
        ASSERT_EQ(s.run, 3);
        ASSERT_STREQ(s.kernel, "6.1.0-47-amd64");
        ASSERT_EQ(compare_selector_parse("tag:a1", &s, &err), 0);
        ASSERT_EQ(s.kind, COMPARE_SEL_TAG);
        ASSERT_STREQ(s.tag, "a1");
        ASSERT_EQ(compare_selector_parse("tag:mixed:6.1.0-47-amd64", &s, &err), 0);
        ASSERT_STREQ(s.tag, "mixed");
        ASSERT_STREQ(s.kernel, "6.1.0-47-amd64");
        {
                /* No kernel name holds ':', so "a:b" is no selector: only
                 * a tag may hold one. */
                static const char *const bad[] = { "", "run:", "run:x", "run:0", "run:-1", "run:3:", "tag:",
                                                   "tag::k", "b:c:d:e:f", "run:3:a:b", "tag:a:" };
                for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                        if (compare_selector_parse(bad[i], &s, &err) != -EINVAL)
                                TEST_FAIL("selector '%s' accepted", bad[i]);
        }
        ASSERT_TRUE(strstr(err.msg, "bad selector 'tag:a:'") != NULL);
}

/* ---- whole comparisons on a store ----------------------------------------- */

#define KID "5757575757575757575757575757575757575757575757575757575757575757"
#define KID2 "4747474747474747474747474747474747474747474747474747474747474747"
#define KID3 "3737373737373737373737373737373737373737373737373737373737373737"

struct store {
        char dir[64], path[128];
        struct db *db;
        int64_t base, again, thr, small, slowdisk, mixed;
};

/* KVM: under TCG an unthrottled dd's rates are not judged (see the tcg_*
 * tests), and most tests here are about how judged rates pair and decide. */
static const char settings_json[] =
        "{\"workloads\":[\"dd:size=,bs=1M\"],\"repeats\":6,\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648,"
        "\"disk_mbps\":0,\"fs\":\"ext4\",\"accel\":\"kvm\",\"append\":null}";

static int64_t add_run(struct store *s, const char *tag) {
        struct kb_error err = { { 0 } };
        struct db_run run = { .tag = tag, .settings_json = settings_json, .started_at = 1700000000 };

        ASSERT_EQ(db_run_create(s->db, &run, &err), 0);
        return run.id;
}

/* One dd cell: write rate w, read rate rd (NAN: stored without value). */
static void add_cell(struct store *s, int64_t run, const char *kid, const char *key, int attempt, const char *state,
                     double w, double rd, int disk_mbps) {
        struct kb_error err = { { 0 } };
        char params[256];
        struct db_metric m[] = {
                { .name = "dd.write_MBps", .value = w, .has_value = 1, .unit = "MB/s" },
                { .name = "dd.read_MBps", .value = rd, .has_value = isfinite(rd), .unit = "MB/s",
                  .note = isfinite(rd) ? NULL : "too fast to measure" },
                { .name = "dd.write_s", .value = 1000 / w, .has_value = 1, .unit = "s" },
                { .name = "vmstat.bo_mean", .value = w * 1000, .has_value = 1, .unit = "blocks/s" },
        };
        struct db_cell c = { .run_id = run, .cell_key = key, .kernel_id = kid, .workload = "dd",
                             .params_json = params, .attempt = attempt, .state = state, .accel = "kvm",
                             .started_at = 1700000100, .boot_s = 3.0 + w / 1000, .workload_s = 10,
                             .total_s = 14, .exit_code = 0, .n_metrics = 4, .metrics = m };

        snprintf(params, sizeof(params),
                 "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648,"
                 "\"disk_mbps\":%d,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"kvm\"}",
                 disk_mbps);
        ASSERT_EQ(db_cell_insert(s->db, &c, NULL, &err), 0);
}

static void store_init(struct store *s) {
        struct kb_error err = { { 0 } };
        struct db_kernel k = { .id = KID, .name = "6.1.0-57-amd64", .release = "6.1.0-57-amd64", .added_at = 1 };
        struct db_kernel k2 = { .id = KID2, .name = "6.1.0-47-amd64", .release = "6.1.0-47-amd64", .added_at = 1 };
        /* Write rates with about 2 % spread; read stays put. */
        static const double w[] = { 160, 164, 158, 162, 166, 161 };
        char key[8];

        snprintf(s->dir, sizeof(s->dir), "/tmp/kbench-test-compare-XXXXXX");
        ASSERT_TRUE(mkdtemp(s->dir));
        snprintf(s->path, sizeof(s->path), "%s/results.db", s->dir);
        ASSERT_EQ(db_open(s->path, &s->db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(s->db, &k, &err), 0);
        ASSERT_EQ(db_kernel_upsert(s->db, &k2, &err), 0);

        s->base = add_run(s, "base");
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(s, s->base, KID, key, 1, "ok", w[i], 400 + i, 0);
        }
        /* A failed cell: its huge rate must stay out. */
        add_cell(s, s->base, KID, "c006", 1, "hang", 9999, 9999, 0);

        s->again = add_run(s, "again");
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                /* The same spread, in another order, 0.5 % apart. */
                add_cell(s, s->again, KID, key, 1, "ok", w[(i + 3) % 6] * 1.005, 401 + (i % 3), 0);
        }
        /* Retried: the infra error's attempt is not counted, the ok one is. */
        add_cell(s, s->again, KID, "c006", 1, "infra-error", 1, 1, 0);
        add_cell(s, s->again, KID, "c006", 2, "ok", 161, NAN, 0);

        s->thr = add_run(s, "thr");
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(s, s->thr, KID, key, 1, "ok", 112 + (i % 3) * 0.5, 400 + i, 0);
        }

        s->small = add_run(s, "small");
        for (int i = 0; i < 3; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(s, s->small, KID, key, 1, "ok", 80 + i, 400, 0);
        }

        s->slowdisk = add_run(s, "slowdisk");
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(s, s->slowdisk, KID, key, 1, "ok", 92 + (i % 2), 400 + i, 93);
        }

        s->mixed = add_run(s, "mixed");
        add_cell(s, s->mixed, KID, "c000", 1, "ok", 160, 400, 0);
        add_cell(s, s->mixed, KID2, "c001", 1, "ok", 150, 400, 0);
}

static void store_done(struct store *s) {
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        char p[160];

        s->db = db_close(s->db);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", s->path, suffixes[i]);
                unlink(p);
        }
        ASSERT_EQ(rmdir(s->dir), 0);
}

static struct compare_view *load(struct store *s, const char *a, const char *b, const char *const *ignore,
                                 int expect) {
        struct kb_error err = { { 0 } };
        struct compare_options o = { .a = a, .b = b, .alpha = 0.05, .noise = 0.02, .ignore_settings = ignore };
        struct compare_view *v = NULL;
        int r = view_compare_load(s->db, &o, &v, &err);

        if (r != expect)
                TEST_FAIL("compare %s %s: %d (%s), want %d", a, b, r, err.msg, expect);
        return v;
}

static const struct compare_metric *metric(const struct compare_view *v, const char *name) {
        for (size_t i = 0; i < v->n_groups; i++)
                for (size_t k = 0; k < v->groups[i].n_m; k++)
                        if (strcmp(v->groups[i].m[k].name, name) == 0)
                                return &v->groups[i].m[k];
        TEST_FAIL("no metric %s in the view", name);
}

/* The line of text that starts with prefix (caller frees). */
static char *line_of(const char *text, const char *prefix) {
        const char *p = text;
        size_t n = strlen(prefix);

        while (p && strncmp(p, prefix, n) != 0)
                p = (p = strchr(p, '\n')) ? p + 1 : NULL;
        if (!p)
                TEST_FAIL("no line starting '%s'", prefix);
        return strndup(p, strcspn(p, "\n"));
}

static char *render_all(const struct compare_view *v, int markdown, int all) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        ASSERT_TRUE(f);
        textcompare_print(v, &(struct textcompare_opts){ .format = markdown ? TEXTCOMPARE_MARKDOWN : TEXTCOMPARE_TEXT, .all = all, .width = 0 }, f);
        fclose(f);
        return text;
}

static char *render(const struct compare_view *v, int markdown) {
        return render_all(v, markdown, 0);
}

static json_t *render_json(const struct compare_view *v) {
        struct kb_error err = { { 0 } };
        json_t *j = json_view_compare(v), *back;
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        ASSERT_TRUE(f && j);
        ASSERT_EQ(json_view_print(j, f, &err), 0);
        fclose(f);
        json_decref(j);
        back = json_loads(text, 0, NULL);
        free(text);
        ASSERT_TRUE(back);
        return back;
}

/* The JSON entry of metric name in the first group. */
static json_t *json_metric(json_t *j, const char *name) {
        json_t *ms = json_object_get(json_array_get(json_object_get(j, "groups"), 0), "metrics"), *m;
        size_t i;

        json_array_foreach(ms, i, m)
                if (strcmp(json_string_value(json_object_get(m, "name")), name) == 0)
                        return m;
        TEST_FAIL("no metric %s in the JSON", name);
}

/* compare_failed_rule at its edges: a side without an ok cell, and B's
 * share of failed cells against A's, exactly at the margin and past it. */
TEST(failed_rule_table) {
        static const struct {
                size_t a_ok, a_failed, b_ok, b_failed;
                enum compare_failed want;
        } cases[] = {
                { 3, 0, 3, 0, COMPARE_FAILED_NONE },
                { 3, 0, 0, 4, COMPARE_FAILED_NO_OK_B },
                { 0, 4, 0, 4, COMPARE_FAILED_NO_OK_B },
                { 0, 4, 3, 0, COMPARE_FAILED_NO_OK_A },
                { 10, 0, 9, 1, COMPARE_FAILED_NONE },     /* 10 points: at the margin */
                { 10, 0, 8, 2, COMPARE_FAILED_MORE_B },   /* 20 points */
                { 3, 0, 2, 1, COMPARE_FAILED_MORE_B },    /* one in three */
                { 9, 1, 8, 2, COMPARE_FAILED_NONE },      /* 10 points over A's own */
                { 2, 1, 3, 0, COMPARE_FAILED_NONE },      /* A's failures never fail B */
                { 100, 0, 89, 11, COMPARE_FAILED_MORE_B },
                { 100, 0, 90, 10, COMPARE_FAILED_NONE },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct compare_side a = { .ok = cases[i].a_ok, .failed = cases[i].a_failed };
                struct compare_side b = { .ok = cases[i].b_ok, .failed = cases[i].b_failed };

                if (compare_failed_rule(&a, &b) != cases[i].want)
                        TEST_FAIL("case %zu: %d, want %d", i, compare_failed_rule(&a, &b), cases[i].want);
        }
}

/* A kernel whose cells hang: compare does not pass it. No ok cell on a
 * side, or B's cells failing more often than A's beyond the margin, is
 * said in the answer line and is exit 5, above a worse metric's 4. */
TEST(failed_cells_fail_the_comparison) {
        struct store s;
        struct compare_view *v;
        char *text;
        json_t *j;
        int64_t dead, flaky;
        char key[8];

        store_init(&s);
        dead = add_run(&s, "dead");
        for (int i = 0; i < 4; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(&s, dead, KID, key, 1, "hang", 160, 400, 0);
        }
        flaky = add_run(&s, "flaky");
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(&s, flaky, KID, key, 1, i < 2 ? "boot-timeout" : "ok", 160 + i, 400, 0);
        }
        v = load(&s, "tag:base", "tag:dead", NULL, 0);
        ASSERT_EQ(v->n_groups, 1);
        ASSERT_EQ(v->groups[0].failed, COMPARE_FAILED_NO_OK_B);
        ASSERT_EQ(v->failed_groups, 1);
        ASSERT_EQ(v->exit_status, COMPARE_EXIT_FAILED);
        text = render(v, 0);
        ASSERT_TRUE(strstr(text, "\ndd:size=,bs=1M: B has no ok cell (B: 0 of 4 cells ok: 4 hang)\n") != NULL);
        ASSERT_TRUE(strstr(text, "of 2 judged metrics in 1 paired group, 1 whose cells failed (exit status 5)\n") !=
                    NULL);
        free(text);
        j = render_json(v);
        ASSERT_EQ(json_integer_value(json_object_get(j, "exit_status")), COMPARE_EXIT_FAILED);
        ASSERT_EQ(json_integer_value(json_object_get(j, "failed_groups")), 1);
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(j, "groups"), 0),
                                                       "cells_failed")), "B has no ok cell");
        json_decref(j);
        compare_view_free(v);

        v = load(&s, "tag:dead", "tag:base", NULL, 0);
        ASSERT_EQ(v->groups[0].failed, COMPARE_FAILED_NO_OK_A);
        ASSERT_EQ(v->exit_status, COMPARE_EXIT_FAILED);
        compare_view_free(v);

        /* 2 of 6 against 1 of 7: 19 points more, past the margin. */
        v = load(&s, "tag:base", "tag:flaky", NULL, 0);
        ASSERT_EQ(v->groups[0].failed, COMPARE_FAILED_MORE_B);
        ASSERT_EQ(v->exit_status, COMPARE_EXIT_FAILED);
        text = render(v, 1);
        ASSERT_TRUE(strstr(text, "**dd:size=,bs=1M**: B's cells failed more often than A's (A: 6 of 7 cells ok: "
                                 "1 hang; B: 4 of 6 cells ok: 2 boot-timeout); ") != NULL);
        free(text);
        compare_view_free(v);
        store_done(&s);
}

TEST(a_a_no_verdict) {
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;
        json_t *j;
        char *text, *line;

        store_init(&s);
        v = load(&s, "tag:base", "tag:again", NULL, 0);
        ASSERT_EQ(v->n_groups, 1);
        ASSERT_EQ(v->n_lonely, 0);
        ASSERT_EQ(v->worse, 0);
        ASSERT_EQ(v->better, 0);
        ASSERT_EQ(v->exit_status, 0);
        ASSERT_EQ(v->groups[0].a.ok, 6);
        ASSERT_EQ(v->groups[0].a.failed, 1);
        ASSERT_STREQ(v->groups[0].a.failed_states, "1 hang");
        ASSERT_EQ(v->groups[0].failed, COMPARE_FAILED_NONE);
        /* The retried cell counts once, as ok; its read rate has no value. */
        ASSERT_EQ(v->groups[0].b.ok, 7);
        ASSERT_EQ(v->groups[0].b.failed, 0);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->na, 6);
        ASSERT_NEAR(m->sa.mean, 161.8333333333, 1e-6);      /* the hung cell's 9999 is out */
        ASSERT_EQ(m->verdict, COMPARE_SAME);
        m = metric(v, "dd.read_MBps");
        ASSERT_EQ(m->nb, 6);
        ASSERT_EQ(m->b_missing, 1);
        m = metric(v, "dd.write_s");
        ASSERT_EQ(m->judged, 0);
        ASSERT_EQ(m->verdict, COMPARE_INFO);
        ASSERT_EQ(metric(v, "vmstat.bo_mean")->verdict, COMPARE_INFO);
        ASSERT_EQ(metric(v, "boot_s")->verdict, COMPARE_INFO);

        text = render_all(v, 0, 1);
        fputs(text, stderr);
        free(text);
        text = render_all(v, 1, 1);
        fputs(text, stderr);
        free(text);
        /* --all: the informational rows in their own section, with no
         * verdict, and no change for a metric without a direction. */
        text = render_all(v, 0, 1);
        ASSERT_TRUE(strstr(text, "\ninformational (3 metrics, no verdict):\nmetric ") != NULL);
        ASSERT_TRUE(strstr(text, "informational") < strstr(text, "\nvmstat.bo_mean "));
        ASSERT_TRUE(strstr(text, "\ndd.write_MBps ") < strstr(text, "informational"));
        line = line_of(text, "vmstat.bo_mean ");
        ASSERT_TRUE(strchr(line, '+') == strrchr(line, '+'));   /* only n's "6+7" */
        ASSERT_TRUE(strstr(line, "162408 blocks/s") != NULL && strstr(line, "follows the workload's own rate") != NULL);
        free(line);
        line = line_of(text, "dd.write_s ");
        ASSERT_TRUE(strstr(line, "-0.4%") != NULL && strstr(line, "~") == NULL);
        free(line);
        free(text);
        text = render_all(v, 1, 1);
        ASSERT_TRUE(strstr(text, "\n#### Informational (3 metrics, no verdict)\n\n```text\nmetric ") != NULL);
        ASSERT_TRUE(strstr(text, "\nvmstat.bo_mean  161833 blocks/s  162408 blocks/s          6+7  follows") != NULL);
        free(text);
        /* By default the judged rows only, and a count of the others. */
        text = render(v, 0);
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "\nvmstat.bo_mean") == NULL && strstr(text, "\ndd.write_s") == NULL);
        ASSERT_TRUE(strstr(text, "\n3 informational metrics without a verdict: --all lists them\n") != NULL);
        ASSERT_TRUE(strstr(text, "A: tag:base = 6.1.0-57-amd64 in run 1") != NULL);
        ASSERT_TRUE(strstr(text, "A: 6 ok, 1 failed (1 hang) in run 1") != NULL);
        /* A's failed cell, within the margin, is said in the answer line. */
        ASSERT_TRUE(strstr(text, "\ndd:size=,bs=1M: no judged change (2 judged metrics); A: 6 of 7 cells ok: 1 hang\n") !=
                    NULL);
        ASSERT_TRUE(strstr(text, "0 worse, 0 better, of 2 judged metrics in 1 paired group\n") != NULL);
        ASSERT_TRUE(strstr(text, "worse") == strstr(text, "0 worse") + 2);  /* no metric row says worse */
        free(text);
        j = render_json(v);
        ASSERT_EQ(json_integer_value(json_object_get(j, "exit_status")), 0);
        ASSERT_EQ(json_integer_value(json_object_get(j, "worse")), 0);
        ASSERT_STREQ(json_string_value(json_object_get(json_metric(j, "dd.write_MBps"), "verdict")), "~");
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(json_metric(j, "dd.read_MBps"), "b"),
                                                     "n_missing")), 1);
        json_decref(j);
        v = compare_view_free(v);
        store_done(&s);
}

TEST(throttled_is_worse) {
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;
        json_t *j, *jm;
        char *text, *line;

        store_init(&s);
        v = load(&s, "tag:base", "tag:thr", NULL, 0);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->verdict, COMPARE_WORSE);
        ASSERT_TRUE(m->ttest.p < 0.001);
        ASSERT_TRUE(m->q <= 0.05);
        ASSERT_NEAR(m->change, 112.5 / 161.8333333333 - 1, 1e-3);
        ASSERT_TRUE(m->ratio.hi < 0.98);
        ASSERT_EQ(metric(v, "dd.read_MBps")->verdict, COMPARE_SAME);
        /* dd.write_s moved as much, but it is the same measurement: shown, not judged. */
        ASSERT_EQ(metric(v, "dd.write_s")->verdict, COMPARE_INFO);
        ASSERT_EQ(v->worse, 1);
        ASSERT_EQ(v->exit_status, COMPARE_EXIT_WORSE);
        ASSERT_TRUE(v->groups[0].geomean < 0.9);

        text = render(v, 0);
        fputs(text, stderr);
        line = strstr(text, "\ndd.write_MBps ");
        ASSERT_TRUE(line && strstr(line, "worse") && strstr(line, "worse") < strchr(line + 1, '\n'));
        ASSERT_TRUE(strstr(text, "1 worse, 0 better, of 2 judged metrics in 1 paired group (exit status 4)") != NULL);
        free(text);
        text = render(v, 1);
        /* The compact table in a code block: metric, A, B, change, CI, verdict. */
        ASSERT_TRUE(strstr(text, "```text\nmetric             A      B  change  ") != NULL);
        line = line_of(text, "dd.write_MBps ");
        ASSERT_TRUE(strstr(line, " 161.8  112.5  -30.5%  ") != NULL && strstr(line, "  worse") != NULL);
        free(line);
        free(text);
        /* Every column with --all: mean 161.83, 1.8 %, median 161.5 | mean 112.5, median 112.5 */
        text = render_all(v, 1, 1);
        line = line_of(text, "dd.write_MBps ");
        ASSERT_TRUE(strstr(line, "MB/s  161.8  1.8%  161.5  112.5  0.4%  112.5  -30.5%") != NULL);
        free(line);
        free(text);
        j = render_json(v);
        jm = json_metric(j, "dd.write_MBps");
        ASSERT_STREQ(json_string_value(json_object_get(jm, "verdict")), "worse");
        ASSERT_EQ(json_integer_value(json_object_get(j, "exit_status")), COMPARE_EXIT_WORSE);
        ASSERT_EQ(json_integer_value(json_object_get(j, "worse")), 1);
        ASSERT_NEAR(json_number_value(json_object_get(json_object_get(jm, "welch"), "p")), m->ttest.p, 1e-12);
        ASSERT_EQ(json_array_size(json_object_get(json_object_get(jm, "a"), "values")), 6);
        ASSERT_STREQ(json_string_value(json_object_get(j, "verdict_test")), "welch");
        json_decref(j);
        v = compare_view_free(v);

        /* The other way round it is better; but base's hung cell, one in
         * seven against none of thr's six, is past the failed cells'
         * margin: exit 5 all the same. */
        v = load(&s, "tag:thr", "tag:base", NULL, 0);
        ASSERT_EQ(metric(v, "dd.write_MBps")->verdict, COMPARE_BETTER);
        ASSERT_EQ(v->groups[0].failed, COMPARE_FAILED_MORE_B);
        ASSERT_EQ(v->exit_status, COMPARE_EXIT_FAILED);
        v = compare_view_free(v);
        store_done(&s);
}

/* The widest line of text, in columns. */
static int widest(const char *text) {
        int w = 0;

        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");
                char *line = strndup(p, n);

                w = MAX(w, text_columns(line));
                free(line);
                p += n + (p[n] == '\n');
        }
        return w;
}

/* The text fits the reader's width: notes and settings wrap under their
 * label, and a table wider than the width puts each metric on a line of
 * its own, its figures indented under it. */
TEST(fits_the_readers_width) {
        struct store s;
        struct compare_view *v;
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        store_init(&s);
        v = load(&s, "tag:base", "tag:thr", NULL, 0);
        for (int width = 100; width >= 60; width -= 40) {
                f = open_memstream(&text, &len);
                ASSERT_TRUE(f);
                textcompare_print(v, &(struct textcompare_opts){ .width = width }, f);
                fclose(f);
                fputs(text, stderr);
                ASSERT_TRUE(widest(text) <= width);
                ASSERT_TRUE(strstr(text, "\n  note: A and B come from different runs:") != NULL);
                if (width == 60)
                        ASSERT_TRUE(strstr(text, "\ndd.write_MBps\n    ") != NULL);
                free(text);
        }
        v = compare_view_free(v);
        store_done(&s);
}

/* text with each wrapped line joined to the one before, in place. */
static char *unwrapped(char *text) {
        char *w = text;

        for (const char *r = text; *r; r++) {
                if (r[0] == '\n' && r[1] == ' ' && r[2] == ' ') {
                        *w++ = ' ';
                        r += 2;
                        while (r[1] == ' ')
                                r++;
                } else
                        *w++ = *r;
        }
        *w = '\0';
        return text;
}

/* The kernels' facts, when the caller found them: the upstream versions,
 * and the config difference cut to a few options unless -a, in the
 * reader's width, in markdown each a line of its own. */
TEST(kernels_facts) {
        static const char *const diff[] = { "CONFIG_A: y -> (unset)", "CONFIG_B: m -> y", "CONFIG_C: 1 -> 2",
                                            "CONFIG_D: (unset) -> y", "CONFIG_E_WITH_A_LONG_NAME_THAT_GOES_ON: y -> m",
                                            "... and 2 more", NULL };
        struct store s;
        struct compare_view *v;
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        store_init(&s);
        v = load(&s, "tag:base", "tag:thr", NULL, 0);
        v->kernels.upstream_a = strdup("6.1.170");
        v->kernels.upstream_b = strdup("6.1.192");
        v->kernels.config_diff = g_strdupv((char **)diff);
        v->kernels.config_differ = 7;
        for (int md = 0; md <= 1; md++) {
                f = open_memstream(&text, &len);
                ASSERT_TRUE(f);
                textcompare_print(v, &(struct textcompare_opts){ .width = 60, .format = md ? TEXTCOMPARE_MARKDOWN
                                                                                          : TEXTCOMPARE_TEXT }, f);
                fclose(f);
                fputs(text, stderr);
                ASSERT_TRUE(md || widest(text) <= 60);
                ASSERT_TRUE(strstr(text, md ? "\nupstream: A 6.1.170, B 6.1.192  \nconfig: 7 options differ:"
                                            : "\nupstream: A 6.1.170, B 6.1.192\nconfig: 7 options differ:") != NULL);
                ASSERT_TRUE(strstr(unwrapped(text), "CONFIG_D: (unset) -> y; and 3 more (-a lists them)") != NULL);
                ASSERT_TRUE(strstr(text, "CONFIG_E_WITH") == NULL);
                free(text);
        }
        f = open_memstream(&text, &len);
        textcompare_print(v, &(struct textcompare_opts){ .all = 1 }, f);
        fclose(f);
        ASSERT_TRUE(strstr(text, "CONFIG_E_WITH_A_LONG_NAME_THAT_GOES_ON: y -> m; and 2 more\n") != NULL);
        free(text);
        v = compare_view_free(v);
        store_done(&s);
}

TEST(too_few_samples) {
        struct store s;
        struct compare_view *v;
        char *text;

        store_init(&s);
        /* 6 against 3: 2/C(9,3) = 0.024 can reach 0.05, so this is judged. */
        v = load(&s, "tag:base", "tag:small", NULL, 0);
        ASSERT_EQ(metric(v, "dd.write_MBps")->verdict, COMPARE_WORSE);
        v = compare_view_free(v);
        /* 3 against 3 cannot: no verdict, however large the change. */
        v = load(&s, "tag:small", "tag:small", NULL, 0);
        ASSERT_EQ(metric(v, "dd.write_MBps")->verdict, COMPARE_N_SMALL);
        text = render(v, 0);
        ASSERT_TRUE(strstr(text, "n too small") != NULL);
        ASSERT_TRUE(strstr(text, "note: A and B select the same cells") != NULL);
        free(text);
        ASSERT_EQ(v->same_cells, 1);
        {
                json_t *j = render_json(v);

                ASSERT_TRUE(json_is_true(json_object_get(j, "same_cells")));
                json_decref(j);
        }
        v = compare_view_free(v);
        v = load(&s, "tag:base", "tag:small", NULL, 0);
        ASSERT_EQ(v->same_cells, 0);
        v = compare_view_free(v);
        store_done(&s);
}

TEST(like_with_like) {
        const char *const ignore[] = { "disk_mbps", NULL };
        struct store s;
        struct compare_view *v;
        json_t *j;
        char *text;

        store_init(&s);
        v = load(&s, "tag:base", "tag:slowdisk", NULL, 0);
        ASSERT_EQ(v->n_groups, 0);
        ASSERT_EQ(v->n_lonely, 2);
        ASSERT_EQ(v->lonely[0].side, 'A');
        ASSERT_STREQ(v->lonely[0].differs, "disk_mbps 0 | 93");
        ASSERT_EQ(v->lonely[1].side, 'B');
        ASSERT_STREQ(v->lonely[1].differs, "disk_mbps 0 | 93");
        ASSERT_EQ(v->exit_status, 0);
        text = render(v, 0);
        ASSERT_TRUE(strstr(text, "only A: dd:size=,bs=1M, 6 ok, 1 failed (1 hang) in run 1; differs from B's dd "
                                 "cells in: disk_mbps 0 | 93") != NULL);
        free(text);
        j = render_json(v);
        ASSERT_EQ(json_array_size(json_object_get(j, "groups")), 0);
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(j, "unpaired"), 1), "differs")),
                     "disk_mbps 0 | 93");
        json_decref(j);
        v = compare_view_free(v);

        /* Named on purpose, the setting no longer separates them. */
        v = load(&s, "tag:base", "tag:slowdisk", ignore, 0);
        ASSERT_EQ(v->n_groups, 1);
        ASSERT_EQ(metric(v, "dd.write_MBps")->verdict, COMPARE_WORSE);
        text = render(v, 0);
        ASSERT_TRUE(strstr(text, "paired across differing settings: disk_mbps") != NULL);
        free(text);
        v = compare_view_free(v);
        store_done(&s);
}

TEST(selector_resolution) {
        struct store s;
        struct kb_error err = { { 0 } };
        struct compare_options o = { .a = "run:6", .b = "tag:base", .alpha = 0.05, .noise = 0.02 };
        struct compare_view *v = NULL;

        store_init(&s);
        /* A kernel name: its latest run (mixed, one cell of it). */
        v = load(&s, "6.1.0-57-amd64", "run:1", NULL, 0);
        ASSERT_EQ(v->groups[0].a.ok, 1);
        ASSERT_EQ(v->groups[0].a.runs[0], s.mixed);
        ASSERT_STREQ(v->desc_a, "6.1.0-57-amd64 in run 6");
        v = compare_view_free(v);
        /* Every run with --all-runs; the slow-disk run stays apart. */
        o = (struct compare_options){ .a = "6.1.0-57-amd64", .b = "run:1", .alpha = 0.05, .noise = 0.02,
                                      .all_runs = 1 };
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), 0);
        ASSERT_EQ(v->groups[0].a.ok, 6 + 7 + 6 + 3 + 1);
        ASSERT_EQ(v->groups[0].a.n_runs, 5);
        ASSERT_EQ(v->n_lonely, 1);
        v = compare_view_free(v);
        v = load(&s, "run:6:6.1.0-47-amd64", "run:6:6.1.0-57-amd64", NULL, 0);
        ASSERT_EQ(v->groups[0].a.ok, 1);
        v = compare_view_free(v);

        o = (struct compare_options){ .a = "run:6", .b = "tag:base", .alpha = 0.05, .noise = 0.02 };
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "A 'run:6': run:6 has several kernels (6.1.0-57-amd64, 6.1.0-47-amd64): name one, "
                              "as run:6:KERNEL");
        o.a = "tag:nope";
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_TRUE(strncmp(err.msg, "A 'tag:nope': no run tagged 'nope' in ", 38) == 0);
        o.a = "tag:base";
        o.b = "7.0.0";
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_TRUE(strncmp(err.msg, "B '7.0.0': no kernel '7.0.0' in ", 32) == 0);
        o.b = "run:99";
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_TRUE(strncmp(err.msg, "B 'run:99': no run 99 in ", 25) == 0);
        ASSERT_TRUE(v == NULL);

        /* --metric and -w narrow the view. */
        o = (struct compare_options){ .a = "tag:base", .b = "tag:thr", .alpha = 0.05, .noise = 0.02,
                                      .metric_glob = "dd.read*", .workload = "dd" };
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), 0);
        ASSERT_EQ(v->groups[0].n_m, 1);
        ASSERT_STREQ(v->groups[0].m[0].name, "dd.read_MBps");
        ASSERT_EQ(v->exit_status, 0);
        v = compare_view_free(v);
        o.workload = "ftp";
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_STREQ(err.msg, "A 'tag:base': 6.1.0-57-amd64 in run 1 has no cells of workload ftp");
        o = (struct compare_options){ .a = "run:6:6.1.0-47-amd64", .b = "run:1:6.1.0-47-amd64", .alpha = 0.05,
                                      .noise = 0.02 };
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_STREQ(err.msg, "B 'run:1:6.1.0-47-amd64': 6.1.0-47-amd64 in run 1 has no cells");
        store_done(&s);
}

/* A run with a variant label (kbench run --variant, a nightly source's
 * name) shows its kernel as label + name. Selectors take that name; a bare
 * name means the kernel's runs without a label; run:ID:K takes either the
 * shown or the stored name (nightly names the stored one). */
TEST(variant_label_selectors) {
        static const char *const across[] = { "variant", NULL };
        struct store s;
        struct kb_error err = { { 0 } };
        struct compare_options o;
        struct compare_view *v = NULL;
        char settings[512], key[8], sel[64], want[96];
        struct db_run run = { .tag = "dirty", .settings_json = settings, .started_at = 1700000000 };

        store_init(&s);
        snprintf(settings, sizeof(settings), "{\"variant\":\"dirty7-\",%s", settings_json + 1);
        ASSERT_EQ(db_run_create(s.db, &run, &err), 0);
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_cell(&s, run.id, KID, key, 1, "ok", 120 + i, 400 + i, 0);
        }
        snprintf(want, sizeof(want), "dirty7-6.1.0-57-amd64 in run %lld", (long long)run.id);

        /* The bare name skips the newer labelled run. */
        v = load(&s, "6.1.0-57-amd64", "dirty7-6.1.0-57-amd64", across, 0);
        ASSERT_EQ(v->n_groups, 1);
        ASSERT_EQ(v->groups[0].a.runs[0], s.mixed);
        ASSERT_EQ(v->groups[0].b.runs[0], run.id);
        ASSERT_EQ(v->groups[0].b.ok, 6);
        ASSERT_STREQ(v->desc_b, want);
        v = compare_view_free(v);
        snprintf(sel, sizeof(sel), "run:%lld:dirty7-6.1.0-57-amd64", (long long)run.id);
        v = load(&s, "tag:base", sel, across, 0);
        ASSERT_EQ(v->groups[0].b.ok, 6);
        ASSERT_STREQ(v->desc_b, want);
        v = compare_view_free(v);
        snprintf(sel, sizeof(sel), "run:%lld:6.1.0-57-amd64", (long long)run.id);
        v = load(&s, "tag:base", sel, across, 0);
        ASSERT_EQ(v->groups[0].b.ok, 6);
        ASSERT_STREQ(v->desc_b, want);
        v = compare_view_free(v);
        snprintf(sel, sizeof(sel), "run:%lld", (long long)run.id);
        v = load(&s, "tag:base", sel, across, 0);
        ASSERT_STREQ(v->desc_b, want);
        v = compare_view_free(v);
        v = load(&s, "tag:base", "tag:dirty:dirty7-6.1.0-57-amd64", across, 0);
        ASSERT_EQ(v->groups[0].b.ok, 6);
        v = compare_view_free(v);
        /* A tag over labelled and unlabelled runs: the name picks. */
        ASSERT_EQ(sqlite3_exec(db_handle(s.db), "UPDATE runs SET tag = 'dirty' WHERE tag = 'thr'", NULL, NULL, NULL),
                  SQLITE_OK);
        v = load(&s, "tag:base", "tag:dirty:6.1.0-57-amd64", across, 0);
        ASSERT_EQ(v->groups[0].b.n_runs, 1);
        ASSERT_EQ(v->groups[0].b.runs[0], s.thr);
        v = compare_view_free(v);
        v = load(&s, "tag:base", "tag:dirty:dirty7-6.1.0-57-amd64", across, 0);
        ASSERT_EQ(v->groups[0].b.n_runs, 1);
        ASSERT_EQ(v->groups[0].b.runs[0], run.id);
        v = compare_view_free(v);
        o = (struct compare_options){ .a = "tag:base", .b = "tag:dirty", .alpha = 0.05, .noise = 0.02 };
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "B 'tag:dirty': tag:dirty has several kernels (6.1.0-57-amd64, dirty7-6.1.0-57-amd64): "
                              "name one, as tag:dirty:KERNEL");

        /* A label the run does not carry names no kernel there. */
        o = (struct compare_options){ .a = "tag:base", .b = "run:1:dirty7-6.1.0-57-amd64", .alpha = 0.05,
                                      .noise = 0.02 };
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "B 'run:1:dirty7-6.1.0-57-amd64': no kernel 'dirty7-6.1.0-57-amd64' in ") ==
                    err.msg);
        /* Every run of 6.1.0-47 labelled: its bare name says so. */
        ASSERT_EQ(sqlite3_exec(db_handle(s.db), "UPDATE runs SET settings_json = json_set(settings_json, "
                               "'$.variant', 'x-') WHERE id IN (SELECT run_id FROM cells WHERE kernel_id = '" KID2 "')",
                               NULL, NULL, NULL), SQLITE_OK);
        o.b = "6.1.0-47-amd64";
        ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "B '6.1.0-47-amd64': kernel 6.1.0-47-amd64 has no runs of its own in ") == err.msg);
        ASSERT_TRUE(strstr(err.msg, "labels it as a variant"));
        v = load(&s, "tag:base", "x-6.1.0-47-amd64", across, 0);
        ASSERT_EQ(v->groups[0].b.runs[0], s.mixed);
        v = compare_view_free(v);
        /* A kernel stored under the name the label shows: two kernels
         * answer it, until a run says which. */
        {
                struct db_kernel k3 = { .id = KID3, .name = "dirty7-6.1.0-57-amd64", .release = "6.1.0-57-amd64",
                                        .added_at = 2 };
                int64_t own = add_run(&s, "own");

                ASSERT_EQ(db_kernel_upsert(s.db, &k3, &err), 0);
                add_cell(&s, own, KID3, "c000", 1, "ok", 150, 400, 0);
                o = (struct compare_options){ .a = "tag:base", .b = "dirty7-6.1.0-57-amd64", .alpha = 0.05,
                                              .noise = 0.02 };
                ASSERT_EQ(view_compare_load(s.db, &o, &v, &err), -EINVAL);
                ASSERT_STREQ(err.msg, "B 'dirty7-6.1.0-57-amd64': dirty7-6.1.0-57-amd64 names two kernels here (a "
                                      "variant label and a kernel name meet): select it by run, as "
                                      "run:ID:dirty7-6.1.0-57-amd64");
                snprintf(sel, sizeof(sel), "run:%lld:dirty7-6.1.0-57-amd64", (long long)own);
                v = load(&s, "tag:base", sel, across, 0);
                ASSERT_EQ(v->groups[0].b.ok, 1);
                v = compare_view_free(v);
                snprintf(sel, sizeof(sel), "run:%lld:dirty7-6.1.0-57-amd64", (long long)run.id);
                v = load(&s, "tag:base", sel, across, 0);
                ASSERT_EQ(v->groups[0].b.ok, 6);
                v = compare_view_free(v);
        }

        store_done(&s);
}

/* A value near DBL_MAX (a broken writer, a hand edit) must print as a
 * number of its own size: "%.0f" into a 64-byte cell cut 4e307 to 63
 * digits, which reads as 4e62. */
TEST(huge_values_print_whole) {
        struct store s;
        struct compare_view *v;
        char *text, *row;
        int digits = 0, most = 0;

        store_init(&s);
        ASSERT_EQ(sqlite3_exec(db_handle(s.db),
                               "UPDATE metrics SET value = 4e307 WHERE name = 'vmstat.bo_mean' AND cell_id IN "
                               "(SELECT id FROM cells WHERE run_id = 1)", NULL, NULL, NULL), SQLITE_OK);
        v = load(&s, "tag:base", "tag:again", NULL, 0);
        text = render_all(v, 0, 1);
        row = strstr(text, "\nvmstat.bo_mean");
        ASSERT_TRUE(row != NULL);
        for (const char *p = row + 1; *p && *p != '\n'; p++) {
                digits = *p >= '0' && *p <= '9' ? digits + 1 : 0;
                most = digits > most ? digits : most;
        }
        ASSERT_TRUE(most < 16);
        ASSERT_TRUE(strstr(row, "4e+307") != NULL);
        free(text);
        v = compare_view_free(v);
        store_done(&s);
}

/* kbench run takes any tag, and a timestamp is a natural one: a tag may
 * hold ':' and is still selectable, alone or with a kernel (kernel names
 * hold no ':', so the kernel is what follows the last one). */
TEST(tag_with_colons) {
        struct store s;
        struct kb_error err = { { 0 } };
        struct compare_selector sel;
        struct compare_view *v;

        ASSERT_EQ(compare_selector_parse("tag:nightly 2026-12-01T08:00:6.1.0-57-amd64", &sel, &err), 0);
        ASSERT_STREQ(sel.tag, "nightly 2026-12-01T08:00");
        ASSERT_STREQ(sel.kernel, "6.1.0-57-amd64");

        store_init(&s);
        ASSERT_EQ(sqlite3_exec(db_handle(s.db), "UPDATE runs SET tag = 'nightly 2026-12-01T08:00' WHERE tag = 'again'",
                               NULL, NULL, NULL), SQLITE_OK);
        v = load(&s, "tag:base", "tag:nightly 2026-12-01T08:00", NULL, 0);
        ASSERT_EQ(v->groups[0].b.ok, 7);
        ASSERT_EQ(v->groups[0].b.runs[0], s.again);
        v = compare_view_free(v);
        v = load(&s, "tag:base", "tag:nightly 2026-12-01T08:00:6.1.0-57-amd64", NULL, 0);
        ASSERT_EQ(v->groups[0].b.ok, 7);
        v = compare_view_free(v);
        store_done(&s);
}

/* A metric name from the store with a C1 control (U+009B, CSI), a raw 0x9b
 * and a '|': the markdown table (a code block) masks the controls as the
 * text table does. */
TEST(markdown_masks_controls) {
        struct store s;
        struct compare_view *v;
        char *text;

        store_init(&s);
        ASSERT_EQ(sqlite3_exec(db_handle(s.db),
                               "UPDATE metrics SET name = 'dd.x' || x'c29b' || '31m' || x'9b' || '|y' "
                               "WHERE name = 'dd.read_MBps'", NULL, NULL, NULL), SQLITE_OK);
        v = load(&s, "tag:base", "tag:again", NULL, 0);
        text = render_all(v, 1, 1);
        ASSERT_TRUE(strstr(text, "\ndd.x?31m\\x9b|y ") != NULL);
        ASSERT_TRUE(strstr(text, "\x9b") == NULL);
        free(text);
        text = render_all(v, 0, 1);
        ASSERT_TRUE(strstr(text, "\ndd.x?31m\\x9b|y ") != NULL);
        free(text);
        v = compare_view_free(v);
        store_done(&s);
}

/* ---- what the host allows a verdict on ------------------------------------ */

/* A run under TCG, disk throttled to disk_mbps (0: not). */
static int64_t add_tcg_run(struct store *s, const char *tag, int disk_mbps) {
        struct kb_error err = { { 0 } };
        char settings[256];
        struct db_run run = { .tag = tag, .settings_json = settings, .started_at = 1700000000 };

        snprintf(settings, sizeof(settings),
                 "{\"workloads\":[\"dd:size=,bs=1M\"],\"repeats\":6,\"mem_mb\":256,\"cpus\":1,"
                 "\"disk_bytes\":2147483648,\"disk_mbps\":%d,\"fs\":\"ext4\",\"accel\":\"tcg\"}", disk_mbps);
        ASSERT_EQ(db_run_create(s->db, &run, &err), 0);
        return run.id;
}

/* text with its fenced code blocks left out (caller frees). */
static char *outside_code(const char *text) {
        char *out = strdup(text), *o = out;
        int in = 0;

        ASSERT_TRUE(out);
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');

                if (strncmp(p, "```", 3) == 0)
                        in = !in;
                else if (!in) {
                        memcpy(o, p, n);
                        o += n;
                }
                p += n;
        }
        *o = '\0';
        return out;
}

/* One TCG dd cell: its write rate, the kernel instructions of its write
 * phase (millions), and the foreign CPU beside it. */
static void add_tcg_cell(struct store *s, int64_t run, const char *kid, const char *key, double w, double kinsn,
                         double foreign, int disk_mbps) {
        struct kb_error err = { { 0 } };
        char params[256];
        struct db_metric m[] = {
                { .name = "dd.write_MBps", .value = w, .has_value = 1, .unit = "MB/s" },
                { .name = "guest.write.kernel_Minsn", .value = kinsn, .has_value = 1, .unit = "Minsn" },
                { .name = "host.foreign_cpu_pct", .value = foreign, .has_value = 1, .unit = "%" },
        };
        struct db_cell c = { .run_id = run, .cell_key = key, .kernel_id = kid, .workload = "dd",
                             .params_json = params, .attempt = 1, .state = "ok", .accel = "tcg",
                             .started_at = 1700000100, .boot_s = 3.0, .workload_s = 10,
                             .total_s = 14, .exit_code = 0, .n_metrics = 3, .metrics = m };

        snprintf(params, sizeof(params),
                 "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648,"
                 "\"disk_mbps\":%d,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"tcg\"}",
                 disk_mbps);
        ASSERT_EQ(db_cell_insert(s->db, &c, NULL, &err), 0);
}

static int has_note(const struct compare_group *g, const char *what) {
        for (size_t i = 0; i < ELEMENTSOF(g->notes) && g->notes[i]; i++)
                if (strstr(g->notes[i], what))
                        return 1;
        return 0;
}

/* Under TCG with an unthrottled disk, dd's rate is the emulator's speed:
 * shown, not judged, and the instruction count decides. A 20 % faster
 * write rate with 10 % more kernel instructions is "worse", not "better". */
TEST(tcg_rates_not_judged) {
        static const double jitter[] = { 0, 0.4, -0.3, 0.2, -0.2, 0.1 };
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;
        int64_t run;
        char key[8], sa[48], sb[48], *text;
        json_t *j;

        store_init(&s);
        run = add_tcg_run(&s, "tcg", 0);
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", 2 * i);
                add_tcg_cell(&s, run, KID2, key, 100 + 10 * jitter[i], 2000 * (1 + jitter[i] / 100), 1, 0);
                snprintf(key, sizeof(key), "c%03d", 2 * i + 1);
                add_tcg_cell(&s, run, KID, key, 120 + 10 * jitter[i], 2200 * (1 + jitter[i] / 100), 1, 0);
        }
        snprintf(sa, sizeof(sa), "run:%lld:6.1.0-47-amd64", (long long)run);
        snprintf(sb, sizeof(sb), "run:%lld:6.1.0-57-amd64", (long long)run);
        v = load(&s, sa, sb, NULL, 0);
        ASSERT_EQ(v->groups[0].b.runs[0], run);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->judged, 0);
        ASSERT_EQ(m->verdict, COMPARE_INFO);
        ASSERT_TRUE(strstr(m->info.why, "emulator") != NULL);
        m = metric(v, "guest.write.kernel_Minsn");
        ASSERT_EQ(m->judged, 1);
        ASSERT_EQ(m->run_offset, 0);
        ASSERT_EQ(m->verdict, COMPARE_WORSE);
        ASSERT_EQ(v->worse, 1);
        ASSERT_EQ(v->better, 0);
        ASSERT_TRUE(has_note(&v->groups[0], "rates and times are shown, not judged"));
        ASSERT_TRUE(!has_note(&v->groups[0], "different runs"));
        text = render(v, 0);
        ASSERT_TRUE(strstr(text, "  note: rates and times are shown, not judged: under TCG") != NULL);
        free(text);
        /* The same rule, asked by a driver that chooses repeats. */
        ASSERT_EQ(view_cpu_paced("{\"accel\":\"tcg\",\"disk_mbps\":0}", NULL), 1);
        ASSERT_EQ(view_cpu_paced("{\"accel\":\"tcg\",\"disk_mbps\":0}", "{\"disk_mbps\":40}"), 0);
        ASSERT_EQ(view_cpu_paced("{\"accel\":\"kvm\"}", NULL), 0);
        ASSERT_EQ(view_metric_judged("dd.write_MBps", 1), 0);
        ASSERT_EQ(view_metric_judged("dd.write_MBps", 0), 1);
        ASSERT_EQ(view_metric_judged("guest.write.kernel_Minsn", 1), 1);
        ASSERT_EQ(view_metric_judged("dd.write_s", 0), 0);
        j = render_json(v);
        ASSERT_TRUE(json_is_array(json_object_get(json_array_get(json_object_get(j, "groups"), 0), "notes")));
        json_decref(j);
        v = compare_view_free(v);
        store_done(&s);
}

/* With the disk throttled the disk sets the pace and rates are judged on
 * the quiet cells: a contended cell's rate is left out (here one far off,
 * as a busy host makes it), and the -6 % stays "worse". With fewer than
 * three quiet cells on a side only the counts get a verdict. */
TEST(contended_rates_left_out) {
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;
        int64_t run;
        char key[8], sa[48], sb[48];

        store_init(&s);
        run = add_tcg_run(&s, "thr", 40);
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", 2 * i);
                add_tcg_cell(&s, run, KID2, key, 40 + 0.01 * i, 2000 + i, 1, 40);
                snprintf(key, sizeof(key), "c%03d", 2 * i + 1);
                add_tcg_cell(&s, run, KID, key, i == 4 ? 20 : 37.6 + 0.01 * i, 2000 + i, i == 4 ? 35 : 1, 40);
        }
        snprintf(sa, sizeof(sa), "run:%lld:6.1.0-47-amd64", (long long)run);
        snprintf(sb, sizeof(sb), "run:%lld:6.1.0-57-amd64", (long long)run);
        v = load(&s, sa, sb, NULL, 0);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->judged, 1);
        ASSERT_EQ(m->na, 6);
        ASSERT_EQ(m->nb, 5);
        ASSERT_EQ(m->verdict, COMPARE_WORSE);
        ASSERT_TRUE(m->withheld == NULL);
        m = metric(v, "guest.write.kernel_Minsn");
        ASSERT_EQ(m->nb, 6);
        ASSERT_EQ(m->verdict, COMPARE_SAME);
        ASSERT_TRUE(has_note(&v->groups[0], "contended cells are left out of rates and times: A 0 of 6, B 1 of 6"));
        v = compare_view_free(v);
        /* Four of B's six contended: two quiet cells say nothing. */
        ASSERT_EQ(sqlite3_exec(db_handle(s.db), "UPDATE metrics SET value = 35 WHERE name = 'host.foreign_cpu_pct' "
                               "AND cell_id IN (SELECT id FROM cells WHERE kernel_id = '" KID "' AND cell_key "
                               "IN ('c001', 'c003', 'c005'))", NULL, NULL, NULL), SQLITE_OK);
        v = load(&s, sa, sb, NULL, 0);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->nb, 6);
        ASSERT_EQ(m->verdict, COMPARE_WITHHELD);
        ASSERT_TRUE(isnan(m->q));
        ASSERT_TRUE(strstr(m->withheld, "contended") != NULL);
        ASSERT_STREQ(compare_verdict_name(m->verdict), "withheld");
        ASSERT_EQ(metric(v, "guest.write.kernel_Minsn")->verdict, COMPARE_SAME);
        ASSERT_EQ(v->worse, 0);
        ASSERT_TRUE(has_note(&v->groups[0], "contended cells, A 0 of 6, B 4 of 6"));
        v = compare_view_free(v);
        store_done(&s);
}

/* Two runs of one kernel whose means differ by 4 % while the cells inside
 * each scatter by 1 %: the host's drift between runs, not a change. Taken
 * as cells of one population the difference is "worse"; with each run
 * carrying an offset as wide as its scatter it is "~". The same 4 % between
 * two kernels interleaved in one run stays "worse". */
TEST(runs_carry_an_offset) {
        static const double d[] = { -1, 1, -0.5, 0.5, 0, 0.2 };
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;
        int64_t r3;
        char key[8], sa[48], sb[48];

        store_init(&s);
        int64_t r1 = add_tcg_run(&s, "aa1", 40), r2 = add_tcg_run(&s, "aa2", 40);

        r3 = add_tcg_run(&s, "ab", 40);
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_tcg_cell(&s, r1, KID2, key, 40 * (1 + d[i] / 100), 2000 * (1 + d[i] / 100), 1, 40);
                add_tcg_cell(&s, r2, KID2, key, 38.4 * (1 + d[(i + 2) % 6] / 100), 2080 * (1 + d[i] / 100), 1,
                             40);
                snprintf(key, sizeof(key), "c%03d", 2 * i);
                add_tcg_cell(&s, r3, KID2, key, 40 * (1 + d[i] / 100), 2000 * (1 + d[i] / 100), 1, 40);
                snprintf(key, sizeof(key), "c%03d", 2 * i + 1);
                add_tcg_cell(&s, r3, KID, key, 38.4 * (1 + d[(i + 2) % 6] / 100), 2080 * (1 + d[i] / 100), 1, 40);
        }
        v = load(&s, "tag:aa1", "tag:aa2", NULL, 0);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->run_offset, 1);
        ASSERT_NEAR(m->change, -0.04, 0.001);
        ASSERT_EQ(m->verdict, COMPARE_SAME);
        ASSERT_EQ(metric(v, "guest.write.kernel_Minsn")->verdict, COMPARE_SAME);
        /* The shown spread is the cells' own, the MDE the offset's. */
        ASSERT_TRUE(m->sa.cov < 0.01);
        ASSERT_TRUE(m->mde > 0.03);
        ASSERT_TRUE(has_note(&v->groups[0], "different runs"));
        v = compare_view_free(v);
        snprintf(sa, sizeof(sa), "run:%lld:6.1.0-47-amd64", (long long)r3);
        snprintf(sb, sizeof(sb), "run:%lld:6.1.0-57-amd64", (long long)r3);
        v = load(&s, sa, sb, NULL, 0);
        ASSERT_EQ(v->groups[0].a.runs[0], r3);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->run_offset, 0);
        ASSERT_EQ(m->verdict, COMPARE_WORSE);
        ASSERT_EQ(metric(v, "guest.write.kernel_Minsn")->verdict, COMPARE_WORSE);
        /* Within the run: the noise band and a little more. */
        ASSERT_TRUE(m->mde > 0.02 && m->mde < 0.035);
        v = compare_view_free(v);
        store_done(&s);
}

/* An unthrottled TCG side against a throttled one compares the throttle:
 * the rate is judged, and -60 % is worse even with the unthrottled side's
 * run offset. */
TEST(tcg_against_throttle_judged) {
        static const double d[] = { -4, 3, -1, 2, 0, 1 };
        const char *const ignore[] = { "disk_mbps", NULL };
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;
        char key[8];

        store_init(&s);
        int64_t free_run = add_tcg_run(&s, "free", 0), thr = add_tcg_run(&s, "throttled", 40);
        for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof(key), "c%03d", i);
                add_tcg_cell(&s, free_run, KID, key, 100 * (1 + d[i] / 100), 2000 + i, 1, 0);
                add_tcg_cell(&s, thr, KID, key, 40 + 0.01 * i, 2000 + i, 1, 40);
        }
        v = load(&s, "tag:free", "tag:throttled", ignore, 0);
        m = metric(v, "dd.write_MBps");
        ASSERT_EQ(m->judged, 1);
        ASSERT_EQ(m->run_offset, 1);
        ASSERT_EQ(m->verdict, COMPARE_WORSE);
        ASSERT_TRUE(!has_note(&v->groups[0], "not judged"));
        v = compare_view_free(v);
        store_done(&s);
}

/* Markup from the store: a kernel name, a metric name and a workload spec
 * holding HTML, and a right-to-left override (U+202E). Markdown is read as
 * HTML by mail clients and forges: outside code spans the text is escaped
 * as report/html.c escapes it, a backtick cannot end a code span, and the
 * override is masked in markdown and text alike. */
TEST(markdown_escapes_markup_and_bidi) {
        struct store s;
        struct compare_view *v;
        char *text;

        store_init(&s);
        ASSERT_EQ(sqlite3_exec(db_handle(s.db),
                               "UPDATE metrics SET name = 'dd.<script>alert(1)</script>*x*' "
                               "WHERE name = 'dd.read_MBps';"
                               "UPDATE metrics SET name = 'dd.' || x'e280ae' || 'w' WHERE name = 'dd.write_MBps';",
                               NULL, NULL, NULL), SQLITE_OK);
        v = load(&s, "tag:base", "tag:again", NULL, 0);
        text = render_all(v, 1, 1);
        /* A table is a code block, whose text no renderer reads as markup:
         * only a backtick could end it, and the names hold none. */
        ASSERT_TRUE(strstr(text, "\ndd.<script>alert(1)</script>*x* ") != NULL);
        {
                char *prose = outside_code(text);

                ASSERT_TRUE(strstr(prose, "<script") == NULL);
                free(prose);
        }
        ASSERT_TRUE(strstr(text, "\xe2\x80\xae") == NULL);
        ASSERT_TRUE(strstr(text, "\ndd.?w ") != NULL);
        free(text);
        text = render_all(v, 0, 1);
        ASSERT_TRUE(strstr(text, "\xe2\x80\xae") == NULL);
        ASSERT_TRUE(strstr(text, "\ndd.?w ") != NULL);
        free(text);
        v = compare_view_free(v);
        store_done(&s);
}
