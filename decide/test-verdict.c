/* test-verdict.c: the verdict of one metric, from a table of recorded
 * cases: informational, one side, sizes the rank test cannot judge, no
 * spread, BH, the interval against the noise band either way for either
 * direction, an amount's difference against its band, and the tail rule.
 * The same rule on statistics computed from values is report/test-
 * compare.c's (compare_decide). */
#include <math.h>

#include "common/test.h"
#include "common/util.h"
#include "decide/verdict.h"
#include "report/stats.h"

TEST_MAIN();

static const char *const names[] = { "info", "~", "better", "worse", "n too small", "undefined", "one side",
                                     "withheld" };

struct decide_case {
        const char *what;
        int judged;
        enum verdict_direction dir;
        size_t na, nb;
        double p, q, lo, hi;       /* the test's p, BH q, CI of the ratio */
        enum compare_verdict want;
};

TEST(ratio_table) {
        static const struct decide_case cases[] = {
                { "informational", 0, VERDICT_NONE, 5, 5, 0.001, 0.001, 0.5, 0.6, COMPARE_INFO },
                { "one side only", 1, VERDICT_HIGHER, 5, 0, NAN, NAN, NAN, NAN, COMPARE_ONE_SIDE },
                { "3+3 cannot reach 0.05", 1, VERDICT_HIGHER, 3, 3, 0.0001, 0.0001, 0.5, 0.6, COMPARE_N_SMALL },
                { "no spread", 1, VERDICT_HIGHER, 5, 5, NAN, NAN, NAN, NAN, COMPARE_UNDEFINED },
                { "not significant after BH", 1, VERDICT_HIGHER, 5, 5, 0.01, 0.06, 0.5, 0.6, COMPARE_SAME },
                { "higher is better, down beyond noise", 1, VERDICT_HIGHER, 5, 5, 0.001, 0.002, 0.65, 0.75,
                  COMPARE_WORSE },
                { "higher is better, up beyond noise", 1, VERDICT_HIGHER, 5, 5, 0.001, 0.002, 1.05, 1.10,
                  COMPARE_BETTER },
                { "lower is better, up beyond noise", 1, VERDICT_LOWER, 5, 5, 0.001, 0.002, 1.05, 1.10,
                  COMPARE_WORSE },
                { "lower is better, down beyond noise", 1, VERDICT_LOWER, 5, 5, 0.001, 0.002, 0.80, 0.90,
                  COMPARE_BETTER },
                { "significant, CI reaches into the band", 1, VERDICT_HIGHER, 5, 5, 0.001, 0.002, 0.90, 0.99,
                  COMPARE_SAME },
                { "significant, CI starts inside the band", 1, VERDICT_HIGHER, 5, 5, 0.001, 0.002, 1.015, 1.08,
                  COMPARE_SAME },
                { "significant, unbounded CI", 1, VERDICT_HIGHER, 5, 5, 0.001, 0.002, NAN, NAN, COMPARE_SAME },
                { "4+4 can reach 0.05", 1, VERDICT_HIGHER, 4, 4, 0.001, 0.002, 0.5, 0.6, COMPARE_WORSE },
                { "no direction, beyond noise", 1, VERDICT_NONE, 5, 5, 0.001, 0.002, 0.5, 0.6, COMPARE_INFO },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct decide_case *c = &cases[i];
                struct verdict_in m = {
                        .judged = c->judged, .direction = c->dir, .na = c->na, .nb = c->nb, .p = c->p,
                        .ratio_lo = c->lo, .ratio_hi = c->hi, .diff = NAN, .diff_lo = NAN, .diff_hi = NAN,
                        .mw_min_p = c->na && c->nb ? stats_mann_whitney_min_p(c->na, c->nb) : 1,
                };
                enum compare_verdict got = verdict_decide(&m, c->q, 0.05, 0.02);

                if (got != c->want)
                        TEST_FAIL("%s: %s, want %s", c->what, names[got], names[c->want]);
        }
        /* The exact rank test's floor: 2/C(6,3) = 0.1 at 3+3, 2/C(8,4) at 4+4. */
        ASSERT_NEAR(stats_mann_whitney_min_p(3, 3), 0.1, 1e-12);
        ASSERT_NEAR(stats_mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
}

/* Withheld wins over everything but "informational" and "one side". */
TEST(withheld) {
        struct verdict_in m = { .judged = 1, .direction = VERDICT_HIGHER, .na = 5, .nb = 5, .withheld = 1,
                                .mw_min_p = stats_mann_whitney_min_p(5, 5), .p = 1e-6, .ratio_lo = 0.5,
                                .ratio_hi = 0.6 };

        ASSERT_EQ(verdict_decide(&m, 1e-6, 0.05, 0.02), COMPARE_WITHHELD);
        m.nb = 0;
        ASSERT_EQ(verdict_decide(&m, 1e-6, 0.05, 0.02), COMPARE_ONE_SIDE);
}

/* An amount: the interval of its difference against its band (the floor,
 * or the noise band of A's mean, which report/compare.c computes). */
TEST(amount_table) {
        static const struct {
                const char *what;
                double band, q, lo, hi;
                enum compare_verdict want;
        } cases[] = {
                { "waiting up 0.4 s", 0.05, 0.001, 0.35, 0.45, COMPARE_WORSE },
                { "waiting down 0.4 s", 0.05, 0.001, -0.45, -0.35, COMPARE_BETTER },
                { "steady, but within the band", 0.05, 1e-9, 0.01, 0.01, COMPARE_SAME },
                { "steady beyond the band", 0.05, 1e-9, 0.2, 0.2, COMPARE_WORSE },
                { "the interval reaches into the band", 0.05, 0.001, 0.04, 0.2, COMPARE_SAME },
                { "beyond the floor, within a wider band", 0.2, 1e-6, 0.1, 0.15, COMPARE_SAME },
                { "not significant", 0.05, 0.2, 0.1, 0.5, COMPARE_SAME },
                { "no test", 0.05, NAN, 0.1, 0.5, COMPARE_UNDEFINED },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct verdict_in m = {
                        .judged = 1, .direction = VERDICT_LOWER, .na = 6, .nb = 6, .p = cases[i].q,
                        .mw_min_p = stats_mann_whitney_min_p(6, 6), .ratio_lo = NAN, .ratio_hi = NAN,
                        .floor = 0.05, .band = cases[i].band, .diff = (cases[i].lo + cases[i].hi) / 2,
                        .diff_lo = cases[i].lo, .diff_hi = cases[i].hi,
                };
                enum compare_verdict got = verdict_decide(&m, cases[i].q, 0.05, 0.02);

                if (got != cases[i].want)
                        TEST_FAIL("%s: %s, want %s", cases[i].what, names[got], names[cases[i].want]);
        }
}

/* The tail rule: B stalls in more cells than A does, at least two of
 * them, and significantly. */
TEST(tail_table) {
        static const struct {
                const char *what;
                size_t tail_a, tail_b;
                double q;
                enum compare_verdict want;
        } cases[] = {
                { "three of B's six stalled", 0, 3, 0.002, COMPARE_WORSE },
                { "one is a stray", 0, 1, 0.002, COMPARE_SAME },
                { "A stalls as often", 3, 3, 0.002, COMPARE_SAME },
                { "not significant", 0, 3, 0.2, COMPARE_SAME },
                { "no test", 0, 3, NAN, COMPARE_UNDEFINED },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct verdict_in m = {
                        .judged = 1, .direction = VERDICT_LOWER, .na = 6, .nb = 6, .p = cases[i].q,
                        .mw_min_p = stats_mann_whitney_min_p(6, 6), .ratio_lo = NAN, .ratio_hi = NAN,
                        .floor = 0.05, .band = 0.05, .tail = 0.1, .tail_a = cases[i].tail_a,
                        .tail_b = cases[i].tail_b,
                };
                enum compare_verdict got = verdict_decide(&m, cases[i].q, 0.05, 0.02);

                if (got != cases[i].want)
                        TEST_FAIL("%s: %s, want %s", cases[i].what, names[got], names[cases[i].want]);
        }
}
