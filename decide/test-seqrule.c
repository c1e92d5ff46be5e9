/* test-seqrule.c: the stopping rule. The MDE it stops on is checked against
 * the SciPy values of report/test-stats-ref.h (samples built to have the
 * reference's mean and sd exactly), the next look against the SciPy n of
 * the same file; then the schedule itself: the pilot and the rank test's
 * floor, the budget's cap, failed rounds, undefined metrics, the replay
 * giving one answer whatever round it is asked at, and the three answers
 * bisect reads. Its error rates are bench/seqrule-sim.c's. */
#include <errno.h>
#include <math.h>

#include "common/test.h"
#include "common/util.h"
#include "report/metrics.h"
#include "decide/seqrule.h"
#include "report/stats.h"
#include "report/test-stats-ref.h"

TEST_MAIN();

/* n values with mean m and sample sd s exactly: m + s z, z standardized. */
static void exact_sample(double *v, size_t n, double m, double s) {
        double mean = 0, ss = 0;

        for (size_t i = 0; i < n; i++)
                v[i] = (double)((i * 7) % n) + 0.25 * (double)(i % 3);
        for (size_t i = 0; i < n; i++)
                mean += v[i] / (double)n;
        for (size_t i = 0; i < n; i++)
                ss += (v[i] - mean) * (v[i] - mean);
        for (size_t i = 0; i < n; i++)
                v[i] = m + s * (v[i] - mean) / sqrt(ss / (double)(n - 1));
}

TEST(mde_is_compare_s) {
        static const size_t rows[] = { 0, 1, 3, 6 };

        for (size_t k = 0; k < ELEMENTSOF(rows); k++) {
                const struct ref_mde *r = &ref_mde[rows[k]];
                double a[64], b[64];
                size_t n = r->na > r->nb ? r->na : r->nb;
                struct seqrule_metric m = { "x", a, b, 0 };
                struct seqrule_params p = { 0.05, r->alpha, r->power, 2, 64, 0 };
                double shown;

                ASSERT_TRUE(r->na == r->nb);
                exact_sample(a, r->na, r->ma, r->sa);
                exact_sample(b, r->nb, r->mb, r->sb);
                ASSERT_NEAR(seqrule_mde(&m, n, &p, &shown), r->mde, 1e-7 * r->mde);
                ASSERT_NEAR(shown, r->mde, 1e-7 * r->mde);
                /* With a noise band the verdict's criterion: the band beyond Welch's MDE. */
                p.noise = 0.02;
                ASSERT_NEAR(seqrule_mde(&m, n, &p, NULL), 0.02 + r->mde, 1e-7 * r->mde);
        }
}

TEST(next_look_from_the_spread) {
        /* cov 0.03 on both sides, target 5 %, alpha 0.01, power 0.9: SciPy's n is 13. */
        const struct ref_n *rn = &ref_n[4];
        struct seqrule_params p = { rn->effect, rn->alpha, rn->power, 5, 100, 0 };
        double a[13], b[13];
        struct seqrule_metric m = { "x", a, b, 0 };
        struct seqrule_decision d;

        ASSERT_EQ(rn->n, 13);
        exact_sample(a, 5, 100, 3);
        exact_sample(b, 5, 100, 3);
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 5, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(d.look, 5);
        ASSERT_EQ(d.next, 13);
        ASSERT_TRUE(d.worst_mde > 0.05);
        ASSERT_NEAR(d.worst_mde, seqrule_mde(&m, 5, &p, NULL), 1e-15);
        /* Between looks the answer stays: nothing is looked at. */
        for (size_t r = 6; r < 13; r++) {
                a[r - 1] = b[r - 1] = 100;
                ASSERT_EQ(seqrule_decide(&p, &m, 1, r, &d), 0);
                ASSERT_EQ(d.answer, SEQRULE_MORE);
                ASSERT_EQ(d.next, 13);
        }
        /* Quiet later rounds: at 13 the target holds. */
        for (size_t r = 5; r < 13; r++) {
                a[r] = 100 + (r % 2 ? 0.5 : -0.5);
                b[r] = 100 + (r % 2 ? -0.5 : 0.5);
        }
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 13, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
        ASSERT_EQ(d.look, 13);
        ASSERT_TRUE(d.worst_mde <= 0.05);
}

TEST(pilot_and_rank_floor) {
        /* At alpha 0.05 the exact rank test needs 4 + 4 (2 / C(8, 4) = 0.029). */
        struct seqrule_params p = { 0.3, 0.05, 0.8, 2, 50, 0 };
        double a[8] = { 10, 10, 10, 10 }, b[8] = { 10, 10, 10, 10 };
        struct seqrule_metric m = { "x", a, b, 0 };
        struct seqrule_decision d;

        ASSERT_EQ(seqrule_decide(&p, &m, 1, 2, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(d.next, 4);
        ASSERT_EQ(d.look, 0);
        ASSERT_TRUE(isnan(d.worst_mde));
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);   /* no spread: MDE 0 */
        ASSERT_EQ(d.look, 4);
        ASSERT_NEAR(d.worst_mde, 0, 0);
        p.pilot = 6;
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.next, 6);
        /* A budget below the floor: the one look is the budget's end. */
        p.pilot = 2;
        p.max_rounds = 3;
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 2, &d), 0);
        ASSERT_EQ(d.next, 3);
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 3, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
}

TEST(budget_caps_the_look) {
        struct seqrule_params p = { 0.02, 0.05, 0.8, 4, 8, 0 };
        double a[8] = { 100, 110, 90, 105, 95, 108, 92, 100 }, b[8] = { 95, 105, 100, 90, 110, 99, 101, 93 };
        struct seqrule_metric m = { "x", a, b, 0 };
        struct seqrule_decision d;

        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(d.next, 8);
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 8, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_BUDGET);
        ASSERT_EQ(d.look, 8);
        ASSERT_TRUE(d.worst_mde > 0.02);
        /* Asked again later (a resumed run): the same answer. */
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 8, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_BUDGET);
}

TEST(worst_metric_decides) {
        struct seqrule_params p = { 0.1, 0.05, 0.8, 4, 40, 0 };
        double quiet[4] = { 100, 101, 99, 100 }, loud[4] = { 100, 130, 70, 100 };
        struct seqrule_metric m[2] = { { "quiet", quiet, quiet, 0 }, { "loud", loud, loud, 0 } };
        struct seqrule_decision d;

        ASSERT_EQ(seqrule_decide(&p, m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
        ASSERT_EQ(seqrule_decide(&p, m, 2, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(d.worst, 1);
        ASSERT_TRUE(d.next > 4);
}

TEST(failed_rounds_and_undefined_metrics) {
        struct seqrule_params p = { 0.3, 0.05, 0.8, 4, 40, 0 };
        double a[6] = { 10, NAN, NAN, NAN, 10.1, 9.9 }, b[6] = { 10, 10.2, 9.8, 10, 10.1, 9.9 };
        double zero[6] = { 0, 0, 0, 0, 0, 0 };
        struct seqrule_metric m[2] = { { "x", a, b, 0 }, { "zero", zero, zero, 0 } };
        struct seqrule_decision d;

        /* One value of a in 4 rounds: not enough values, one more round. */
        ASSERT_EQ(seqrule_decide(&p, m, 2, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_TRUE(isinf(d.worst_mde));
        ASSERT_EQ(d.next, 5);
        ASSERT_EQ(d.n_undefined, 1);
        ASSERT_EQ(seqrule_decide(&p, m, 2, 5, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
        ASSERT_EQ(d.look, 5);
        ASSERT_EQ(d.n_undefined, 1);
        ASSERT_TRUE(isinf(seqrule_mde(&m[0], 4, &p, NULL)));
        ASSERT_TRUE(isnan(seqrule_mde(&m[1], 6, &p, NULL)));
}

TEST(bad_parameters) {
        static const struct seqrule_params bad[] = {
                { 0, 0.05, 0.8, 3, 10, 0 }, { NAN, 0.05, 0.8, 3, 10, 0 }, { 0.05, 0, 0.8, 3, 10, 0 },
                { 0.05, 0.05, 1, 3, 10, 0 }, { 0.05, 0.05, 0.8, 1, 10, 0 }, { 0.05, 0.05, 0.8, 3, 0, 0 },
                { 0.05, 0.05, 0.8, 3, 10, -0.01 }, { 0.05, 0.05, 0.8, 3, 10, 1 },
        };
        double a[4] = { 1, 2, 3, 4 };
        struct seqrule_metric m = { "x", a, a, 0 };
        struct seqrule_decision d = { .look = 77 };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ASSERT_EQ(seqrule_decide(&bad[i], &m, 1, 4, &d), -EINVAL);
                ASSERT_EQ(d.look, 77);
        }
}

TEST(three_answers) {
        struct seqrule_params p = { 0.05, 0.05, 0.8, 4, 20, 0.02 };
        double a[6] = { 100, 101, 99, 100.5, 99.5, 100 }, same[6] = { 100.2, 99.8, 100.4, 99.6, 100, 100.1 };
        double worse[6] = { 80, 81, 79, 80.5, 79.5, 80 };
        int dirs[1] = { METRICS_HIGHER };
        struct seqrule_metric m = { "x", a, same, 0 };
        struct seqrule_decision d;
        enum seqrule_verdict v;

        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 3, &v, &d), 0);
        ASSERT_EQ(v, SEQRULE_NOT_YET);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, &v, &d), 0);
        ASSERT_EQ(v, SEQRULE_SAME);
        m.b = worse;
        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, &v, NULL), 0);
        ASSERT_EQ(v, SEQRULE_DIFFERENT);
        /* The budget spent with nothing found: undecided, not "same". */
        {
                double loud_a[4] = { 100, 130, 70, 100 }, loud_b[4] = { 110, 80, 120, 95 };
                struct seqrule_metric l = { "loud", loud_a, loud_b, 0 };
                struct seqrule_params q = { 0.02, 0.05, 0.8, 4, 4, 0.02 };

                ASSERT_EQ(seqrule_verdict(&q, &l, dirs, 1, 4, &v, &d), 0);
                ASSERT_EQ(d.answer, SEQRULE_BUDGET);
                ASSERT_EQ(v, SEQRULE_NOT_YET);
        }
        ASSERT_STREQ(seqrule_verdict_name(SEQRULE_DIFFERENT), "different");
        ASSERT_STREQ(seqrule_answer_name(SEQRULE_BUDGET), "budget");
}

/* An amount near 0 (seconds waited, floor 0.05 s): its target is two
 * bands (here two floors), not a fraction of a mean that is nearly 0. A
 * steady 0.02 s is enough at the pilot, its MDE the floor and a little
 * more; waiting twice as long, 0.02 s more, is within the floor and the
 * same (as a ratio it would be different); the plant's extra second is
 * different. */
TEST(amounts_target_two_bands) {
        struct seqrule_params p = { 0.05, 0.05, 0.8, 4, 20, 0.02 };
        double base[6] = { 0.021, 0.019, 0.020, 0.022, 0.018, 0.020 };
        double near[6] = { 0.040, 0.041, 0.039, 0.042, 0.038, 0.040 };
        double slept[6] = { 1.02, 1.00, 1.03, 1.01, 0.99, 1.02 };
        int dirs[1] = { METRICS_LOWER };
        struct seqrule_metric m = { "guest.write.wait_s", base, near, 0.05 };
        struct seqrule_decision d;
        enum seqrule_verdict v;
        double mde, shown;

        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, &v, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
        ASSERT_EQ(v, SEQRULE_SAME);
        /* The difference detectable beyond the floor, over two floors, on
         * the target's scale; shown in seconds. */
        mde = seqrule_mde(&m, 4, &p, &shown);
        ASSERT_TRUE(shown > 0.05 && shown < 0.06);
        ASSERT_NEAR(mde, shown / 0.1 * 0.05, 1e-12);
        m.b = slept;
        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, &v, &d), 0);
        ASSERT_EQ(v, SEQRULE_DIFFERENT);
        /* Without the floor the same data is a ratio of 0.02 s: the steady
         * base needs far more rounds than the pilot for 5 %. */
        m.b = near;
        m.floor = 0;
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
}

/* An amount whose cells scatter by 0.03 s: at 4 rounds Welch's detectable
 * difference is over 0.05 s, so band + MDE is over two floors and the rule
 * wants more. The next look is where the spread seen says Welch's MDE
 * comes down to one floor (compare's n for an effect of one floor); there
 * band + MDE is two floors at most, and the rule stops. */
TEST(amount_stops_where_two_bands_are_seen) {
        struct seqrule_params p = { 0.05, 0.05, 0.8, 4, 60, 0.02 };
        double a[60], b[60];
        struct seqrule_metric m = { "guest.write.wait_s", a, b, 0.05 };
        struct seqrule_decision d;
        double shown;

        for (size_t i = 0; i < 60; i++) {
                a[i] = 0.1 + (i % 2 ? 0.03 : -0.03);
                b[i] = 0.1 + (i % 2 ? -0.03 : 0.03);
        }
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        seqrule_mde(&m, 4, &p, &shown);
        ASSERT_TRUE(shown > 0.1);
        ASSERT_EQ(d.next, stats_n_for_effect(sqrt(0.03 * 0.03 * 4.0 / 3) / 0.05, 1, 0.05, 0.8, 60));
        ASSERT_EQ(seqrule_decide(&p, &m, 1, d.next, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
        seqrule_mde(&m, d.look, &p, &shown);
        ASSERT_TRUE(shown <= 0.1 + 1e-12 && shown > 0.08);
}

/* A ratio target within the noise band is never met (a verdict needs the
 * whole interval beyond the band), however steady the cells: the budget. */
TEST(target_within_the_band_spends_the_budget) {
        struct seqrule_params p = { 0.015, 0.05, 0.8, 4, 12, 0.02 };
        double a[12], b[12];
        struct seqrule_metric m = { "x", a, b, 0 };
        struct seqrule_decision d;

        for (size_t i = 0; i < 12; i++) {
                a[i] = 100 + (i % 2 ? 0.1 : -0.1);
                b[i] = 100 + (i % 2 ? -0.1 : 0.1);
        }
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(d.next, 12);
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 12, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_BUDGET);
        ASSERT_TRUE(d.worst_mde > 0.02);
}
