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
#include "report/seqrule.h"
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

                ASSERT_TRUE(r->na == r->nb);
                exact_sample(a, r->na, r->ma, r->sa);
                exact_sample(b, r->nb, r->mb, r->sb);
                ASSERT_NEAR(seqrule_mde(&m, n, r->alpha, r->power, 0.05), r->mde, 1e-7 * r->mde);
        }
}

TEST(next_look_from_the_spread) {
        /* cov 0.03 on both sides, target 5 %, alpha 0.01, power 0.9: SciPy's n is 13. */
        const struct ref_n *rn = &ref_n[4];
        struct seqrule_params p = { rn->effect, rn->alpha, rn->power, 5, 100 };
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
        ASSERT_NEAR(d.worst_mde, seqrule_mde(&m, 5, rn->alpha, rn->power, 0.05), 1e-15);
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
        struct seqrule_params p = { 0.3, 0.05, 0.8, 2, 50 };
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
        struct seqrule_params p = { 0.02, 0.05, 0.8, 4, 8 };
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
        struct seqrule_params p = { 0.1, 0.05, 0.8, 4, 40 };
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
        struct seqrule_params p = { 0.3, 0.05, 0.8, 4, 40 };
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
        ASSERT_TRUE(isinf(seqrule_mde(&m[0], 4, 0.05, 0.8, 0.05)));
        ASSERT_TRUE(isnan(seqrule_mde(&m[1], 6, 0.05, 0.8, 0.05)));
}

TEST(bad_parameters) {
        static const struct seqrule_params bad[] = {
                { 0, 0.05, 0.8, 3, 10 }, { NAN, 0.05, 0.8, 3, 10 }, { 0.05, 0, 0.8, 3, 10 },
                { 0.05, 0.05, 1, 3, 10 }, { 0.05, 0.05, 0.8, 1, 10 }, { 0.05, 0.05, 0.8, 3, 0 },
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
        struct seqrule_params p = { 0.05, 0.05, 0.8, 4, 20 };
        double a[6] = { 100, 101, 99, 100.5, 99.5, 100 }, same[6] = { 100.2, 99.8, 100.4, 99.6, 100, 100.1 };
        double worse[6] = { 80, 81, 79, 80.5, 79.5, 80 };
        int dirs[1] = { METRICS_HIGHER };
        struct seqrule_metric m = { "x", a, same, 0 };
        struct seqrule_decision d;
        enum seqrule_verdict v;

        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 3, 0.02, &v, &d), 0);
        ASSERT_EQ(v, SEQRULE_NOT_YET);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, 0.02, &v, &d), 0);
        ASSERT_EQ(v, SEQRULE_SAME);
        m.b = worse;
        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, 0.02, &v, NULL), 0);
        ASSERT_EQ(v, SEQRULE_DIFFERENT);
        /* The budget spent with nothing found: undecided, not "same". */
        {
                double loud_a[4] = { 100, 130, 70, 100 }, loud_b[4] = { 110, 80, 120, 95 };
                struct seqrule_metric l = { "loud", loud_a, loud_b, 0 };
                struct seqrule_params q = { 0.02, 0.05, 0.8, 4, 4 };

                ASSERT_EQ(seqrule_verdict(&q, &l, dirs, 1, 4, 0.02, &v, &d), 0);
                ASSERT_EQ(d.answer, SEQRULE_BUDGET);
                ASSERT_EQ(v, SEQRULE_NOT_YET);
        }
        ASSERT_STREQ(seqrule_verdict_name(SEQRULE_DIFFERENT), "different");
        ASSERT_STREQ(seqrule_answer_name(SEQRULE_BUDGET), "budget");
}

/* An amount near 0 (seconds waited, floor 0.05 s): its target is the floor,
 * not a fraction of a mean that is nearly 0. A steady 0.02 s is enough at
 * the pilot; waiting twice as long, 0.02 s more, is within the floor and
 * the same (as a ratio it would be different); the plant's extra second
 * is different. */
TEST(amounts_target_their_floor) {
        struct seqrule_params p = { 0.05, 0.05, 0.8, 4, 20 };
        double base[6] = { 0.021, 0.019, 0.020, 0.022, 0.018, 0.020 };
        double near[6] = { 0.040, 0.041, 0.039, 0.042, 0.038, 0.040 };
        double slept[6] = { 1.02, 1.00, 1.03, 1.01, 0.99, 1.02 };
        int dirs[1] = { METRICS_LOWER };
        struct seqrule_metric m = { "guest.write.wait_s", base, near, 0.05 };
        struct seqrule_decision d;
        enum seqrule_verdict v;
        double mde;

        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, 0.02, &v, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_ENOUGH);
        ASSERT_EQ(v, SEQRULE_SAME);
        /* The detectable difference over the floor, on the target's scale. */
        mde = seqrule_mde(&m, 4, 0.05, 0.8, 0.05);
        ASSERT_TRUE(mde > 0 && mde <= 0.05);
        m.b = slept;
        ASSERT_EQ(seqrule_verdict(&p, &m, dirs, 1, 4, 0.02, &v, &d), 0);
        ASSERT_EQ(v, SEQRULE_DIFFERENT);
        /* Without the floor the same data is a ratio of 0.02 s: the steady
         * base needs far more rounds than the pilot for 5 %. */
        m.b = near;
        m.floor = 0;
        ASSERT_EQ(seqrule_decide(&p, &m, 1, 4, &d), 0);
        ASSERT_EQ(d.answer, SEQRULE_MORE);
}
