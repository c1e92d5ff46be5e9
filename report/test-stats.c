/* Unit tests for report/stats.c. The reference values in test-stats-ref.h
 * were computed by report/stats-oracle.py, independently of stats.c: SciPy
 * (ttest_ind, mannwhitneyu, t, t.interval, nct), R's p.adjust(p, "BH") and Fieller's
 * quadrature solved with numpy.roots. Regenerate them with
 *     /usr/bin/python3 report/stats-oracle.py > report/test-stats-ref.h
 * (python3-scipy and r-base-core installed).
 *
 * Tolerances are relative and set well above what the algorithms reach
 * (observed agreement is about 1e-14 for moments and the t distribution,
 * 1e-12 for tail probabilities) but far below anything a report prints:
 * a failure means a wrong formula, not rounding. The power quadrature is
 * accurate to 1e-11 absolute, so MDE (solved from it) is checked to 1e-9. */
#include <errno.h>
#include <float.h>

#include "common/test.h"
#include "report/stats.h"
#include "report/test-stats-ref.h"

TEST_MAIN();

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void assert_rel(double got, double want, double rel, const char *what, size_t i) {
        if (isnan(want) && isnan(got))
                return;
        if (!(fabs(got - want) <= rel * fmax(fabs(want), DBL_MIN)))
                TEST_FAIL("%s[%zu]: %.17g != %.17g (rel %.3g)", what, i, got, want,
                          fabs(got - want) / fabs(want));
}

TEST(summary_basic) {
        const double v[] = { 4, 1, 3, 2, 10 };
        struct stats_summary s;

        stats_summarize(v, 5, &s);
        ASSERT_EQ(s.n, 5);
        ASSERT_NEAR(s.mean, 4.0, 1e-15);
        ASSERT_NEAR(s.median, 3.0, 0);
        /* var = (0 + 9 + 1 + 4 + 36) / 4 = 12.5 */
        ASSERT_NEAR(s.sd, sqrt(12.5), 1e-15);
        ASSERT_NEAR(s.min, 1.0, 0);
        ASSERT_NEAR(s.max, 10.0, 0);
        ASSERT_NEAR(s.cov, sqrt(12.5) / 4.0, 1e-15);
}

TEST(summary_even_median_and_negative_mean) {
        const double v[] = { -3, -1, -2, -10 };
        struct stats_summary s;

        stats_summarize(v, 4, &s);
        ASSERT_NEAR(s.median, -2.5, 0);
        ASSERT_NEAR(s.mean, -4.0, 1e-15);
        /* cov is relative to |mean|: positive for negative means */
        ASSERT_TRUE(s.cov > 0);
        ASSERT_NEAR(s.cov, s.sd / 4.0, 1e-15);
}

TEST(summary_edges) {
        const double one = 7.5, same[] = { 2, 2, 2 }, zeros[] = { 0, 0 };
        struct stats_summary s;

        stats_summarize(NULL, 0, &s);
        ASSERT_EQ(s.n, 0);
        ASSERT_TRUE(isnan(s.mean) && isnan(s.median) && isnan(s.sd) && isnan(s.min) && isnan(s.max) &&
                    isnan(s.cov));
        stats_summarize(&one, 1, &s);
        ASSERT_EQ(s.n, 1);
        ASSERT_NEAR(s.mean, 7.5, 0);
        ASSERT_NEAR(s.median, 7.5, 0);
        ASSERT_NEAR(s.min, 7.5, 0);
        ASSERT_NEAR(s.max, 7.5, 0);
        ASSERT_TRUE(isnan(s.sd) && isnan(s.cov));
        stats_summarize(same, 3, &s);
        ASSERT_NEAR(s.sd, 0.0, 0);
        ASSERT_NEAR(s.cov, 0.0, 0);
        stats_summarize(zeros, 2, &s);
        ASSERT_NEAR(s.mean, 0.0, 0);
        ASSERT_NEAR(s.sd, 0.0, 0);
        ASSERT_TRUE(isnan(s.cov));
}

TEST(summary_huge_and_tiny_values) {
        const double big[] = { 1e300, 2e300, 3e300, 4e300 }, tiny[] = { 1e-300, 2e-300, 3e-300, 4e-300 };
        const double near_max[] = { DBL_MAX, DBL_MAX / 2 };
        struct stats_summary s;
        double sd = sqrt(5.0 / 3.0); /* of 1, 2, 3, 4 */

        stats_summarize(big, 4, &s);
        ASSERT_NEAR(s.mean / 1e300, 2.5, 1e-15);
        ASSERT_NEAR(s.median / 1e300, 2.5, 1e-15);
        ASSERT_NEAR(s.sd / 1e300, sd, 1e-15);
        ASSERT_NEAR(s.cov, sd / 2.5, 1e-15);
        stats_summarize(tiny, 4, &s);
        ASSERT_NEAR(s.mean / 1e-300, 2.5, 1e-15);
        ASSERT_NEAR(s.sd / 1e-300, sd, 1e-15);
        stats_summarize(near_max, 2, &s);
        ASSERT_TRUE(isfinite(s.mean) && isfinite(s.median) && isfinite(s.sd));
        ASSERT_NEAR(s.mean / DBL_MAX, 0.75, 1e-15);
        ASSERT_NEAR(s.median / DBL_MAX, 0.75, 1e-15);
}

TEST(summary_precision_with_offset) {
        /* A large common offset must not eat the spread (naive sum of
         * squares loses every digit here). */
        const double v[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
        struct stats_summary s;

        stats_summarize(v, 4, &s);
        ASSERT_NEAR(s.sd, sqrt(30.0), 1e-7);
}

TEST(t_distribution) {
        for (size_t i = 0; i < N_OF(ref_t_cdf); i++) {
                const struct ref_t *r = &ref_t_cdf[i];

                assert_rel(stats_t_cdf(r->x, r->df), r->cdf, 1e-11, "t_cdf", i);
                /* the upper tail, computed directly, keeps its precision */
                assert_rel(stats_t_cdf(-r->x, r->df), 1.0 - r->cdf, r->cdf > 0.999 ? 1e-6 : 1e-11,
                           "t_cdf(-x)", i);
        }
        for (size_t i = 0; i < N_OF(ref_t_quantile); i++) {
                const struct ref_t *r = &ref_t_quantile[i];

                assert_rel(stats_t_quantile(r->cdf, r->df), r->x, 1e-10, "t_quantile", i);
        }
        ASSERT_TRUE(stats_t_quantile(0.0, 3) == -INFINITY);
        ASSERT_TRUE(stats_t_quantile(1.0, 3) == INFINITY);
        ASSERT_TRUE(isnan(stats_t_quantile(1.5, 3)));
        ASSERT_TRUE(isnan(stats_t_cdf(1.0, 0)));
        ASSERT_NEAR(stats_t_cdf(INFINITY, 2), 1.0, 0);
        ASSERT_NEAR(stats_t_cdf(1e200, 2), 1.0, 0);
}

TEST(welch_against_scipy) {
        for (size_t i = 0; i < N_OF(ref_welch); i++) {
                const struct ref_two *r = &ref_welch[i];
                struct stats_test t;

                ASSERT_EQ(stats_welch(r->a, r->na, r->b, r->nb, &t), 0);
                assert_rel(t.statistic, r->stat, 1e-12, "welch t", i);
                assert_rel(t.df, r->df, 1e-12, "welch df", i);
                assert_rel(t.p, r->p, 1e-10, "welch p", i);
        }
}

TEST(yuen_against_scipy) {
        for (size_t i = 0; i < N_OF(ref_yuen); i++) {
                const struct ref_yuen *r = &ref_yuen[i];
                struct stats_test t;
                struct stats_interval d;

                ASSERT_EQ(stats_yuen(r->a, r->na, r->b, r->nb, r->trim, r->level, &t, &d), 0);
                assert_rel(t.statistic, r->stat, 1e-12, "yuen t", i);
                assert_rel(t.df, r->df, 1e-9, "yuen df", i);
                assert_rel(t.p, r->p, 1e-10, "yuen p", i);
                assert_rel(d.estimate, r->estimate, 1e-12, "yuen estimate", i);
                assert_rel(d.lo, r->lo, 1e-9, "yuen lo", i);
                assert_rel(d.hi, r->hi, 1e-9, "yuen hi", i);
        }
}

/* Below five values nothing is trimmed at 0.2: Yuen's test is Welch's. A
 * side that keeps fewer than 2 values, or no spread on either side, is
 * undefined. */
TEST(yuen_is_welch_untrimmed_and_undefined_when_flat) {
        const struct ref_two *w = &ref_welch[3];
        const double flat[] = { 2, 2, 2, 2, 2, 9 }, flat2[] = { 3, 3, 3, 3, 3, -1 };
        struct stats_test t, u;
        struct stats_interval d;

        ASSERT_EQ(stats_yuen(w->a, w->na, w->b, w->nb, 0.2, 0.95, &t, &d), 0);
        ASSERT_EQ(stats_welch(w->a, w->na, w->b, w->nb, &u), 0);
        assert_rel(t.statistic, u.statistic, 1e-12, "yuen = welch t", 0);
        assert_rel(t.p, u.p, 1e-12, "yuen = welch p", 0);
        ASSERT_EQ(stats_yuen(w->a, 1, w->b, w->nb, 0.2, 0.95, &t, &d), -EDOM);
        ASSERT_TRUE(isnan(t.p) && isnan(d.lo));
        /* winsorized, both sides are flat: a difference, no interval width */
        ASSERT_EQ(stats_yuen(flat, 6, flat2, 6, 0.2, 0.95, &t, &d), -EDOM);
        ASSERT_TRUE(isnan(t.p));
        assert_rel(d.estimate, 1, 1e-15, "flat estimate", 0);
        ASSERT_TRUE(d.lo == d.hi);
}

TEST(welch_is_antisymmetric_and_scale_free) {
        const struct ref_two *r = &ref_welch[1];
        double a[16], b[16];
        struct stats_test t, u;

        ASSERT_EQ(stats_welch(r->b, r->nb, r->a, r->na, &t), 0);
        assert_rel(t.statistic, -r->stat, 1e-12, "welch b-a t", 0);
        assert_rel(t.p, r->p, 1e-10, "welch b-a p", 0);
        for (size_t i = 0; i < r->na; i++)
                a[i] = r->a[i] * 1e300;
        for (size_t i = 0; i < r->nb; i++)
                b[i] = r->b[i] * 1e300;
        ASSERT_EQ(stats_welch(a, r->na, b, r->nb, &u), 0);
        assert_rel(u.statistic, r->stat, 1e-12, "welch huge t", 0);
        assert_rel(u.df, r->df, 1e-12, "welch huge df", 0);
        assert_rel(u.p, r->p, 1e-10, "welch huge p", 0);
}

TEST(welch_undefined) {
        const double a[] = { 1, 2, 3 }, one = 5, same[] = { 4, 4, 4 }, other[] = { 6, 6 };
        struct stats_test t;

        ASSERT_EQ(stats_welch(a, 3, &one, 1, &t), -EDOM);
        ASSERT_TRUE(isnan(t.p) && isnan(t.statistic));
        ASSERT_EQ(stats_welch(a, 0, a, 3, &t), -EDOM);
        ASSERT_EQ(stats_welch(same, 3, other, 2, &t), -EDOM);
        ASSERT_TRUE(isnan(t.p));
        /* identical samples: t = 0, p = 1 */
        ASSERT_EQ(stats_welch(a, 3, a, 3, &t), 0);
        ASSERT_NEAR(t.statistic, 0.0, 0);
        ASSERT_NEAR(t.p, 1.0, 1e-15);
}

TEST(mann_whitney_against_scipy) {
        for (size_t i = 0; i < N_OF(ref_mwu); i++) {
                const struct ref_two *r = &ref_mwu[i];
                struct stats_test t;

                ASSERT_EQ(stats_mann_whitney(r->a, r->na, r->b, r->nb, &t), 0);
                if (t.exact != r->exact)
                        TEST_FAIL("mwu[%zu]: exact %d, the oracle used %d", i, t.exact, r->exact);
                assert_rel(t.statistic, r->stat, 1e-15, "mwu U1", i);
                ASSERT_TRUE(isnan(t.df));
                assert_rel(t.p, r->p, 1e-11, "mwu p", i);
        }
}

TEST(mann_whitney_exact_extremes) {
        /* 3 + 3 fully separated: U1 = 0, p = 2 / C(6, 3) = 0.1 = the minimum */
        const double lo[] = { 1, 2, 3 }, hi[] = { 4, 5, 6 };
        struct stats_test t;

        ASSERT_EQ(stats_mann_whitney(lo, 3, hi, 3, &t), 0);
        ASSERT_EQ(t.exact, 1);
        ASSERT_NEAR(t.statistic, 0.0, 0);
        ASSERT_NEAR(t.p, 0.1, 1e-15);
        ASSERT_NEAR(t.p, stats_mann_whitney_min_p(3, 3), 1e-15);
        ASSERT_EQ(stats_mann_whitney(hi, 3, lo, 3, &t), 0);
        ASSERT_NEAR(t.statistic, 9.0, 0);
        ASSERT_NEAR(t.p, 0.1, 1e-15);
        ASSERT_EQ(stats_mann_whitney(lo, 0, hi, 3, &t), -EDOM);
        ASSERT_TRUE(isnan(t.p));
}

TEST(mann_whitney_identical_samples) {
        const double a[] = { 3, 1, 2 };
        struct stats_test t;

        /* every value tied across the samples: asymptotic, U = mn / 2 */
        ASSERT_EQ(stats_mann_whitney(a, 3, a, 3, &t), 0);
        ASSERT_EQ(t.exact, 0);
        ASSERT_NEAR(t.statistic, 4.5, 0);
        ASSERT_NEAR(t.p, 1.0, 1e-15);
}

TEST(mann_whitney_min_p) {
        for (size_t i = 0; i < N_OF(ref_mwu_min_p); i++) {
                const struct ref_min_p *r = &ref_mwu_min_p[i];

                assert_rel(stats_mann_whitney_min_p(r->na, r->nb), r->p, 1e-13, "mwu min p", i);
                assert_rel(stats_mann_whitney_min_p(r->nb, r->na), r->p, 1e-13, "mwu min p swapped", i);
        }
}

TEST(bh_against_r) {
        for (size_t i = 0; i < N_OF(ref_bh); i++) {
                const struct ref_bh *r = &ref_bh[i];
                double q[32], inplace[32];

                ASSERT_TRUE(r->n <= 32);
                stats_bh_adjust(r->p, r->n, q);
                for (size_t j = 0; j < r->n; j++) {
                        if (isnan(r->q[j]) != isnan(q[j]))
                                TEST_FAIL("bh[%zu][%zu]: %g, R says %g", i, j, q[j], r->q[j]);
                        assert_rel(q[j], r->q[j], 1e-14, "bh q", i * 100 + j);
                }
                /* ret_q may alias p */
                memcpy(inplace, r->p, r->n * sizeof(double));
                stats_bh_adjust(inplace, r->n, inplace);
                for (size_t j = 0; j < r->n; j++)
                        assert_rel(inplace[j], r->q[j], 1e-14, "bh in place", i * 100 + j);
        }
        stats_bh_adjust(NULL, 0, NULL);
}

TEST(fieller_against_oracle) {
        for (size_t i = 0; i < N_OF(ref_ratio); i++) {
                const struct ref_ratio *r = &ref_ratio[i];
                struct stats_interval ci;
                int rc = stats_ratio_ci(r->a, r->na, r->b, r->nb, r->level, &ci);

                assert_rel(ci.estimate, r->estimate, 1e-14, "ratio estimate", i);
                if (!r->bounded) {
                        ASSERT_EQ(rc, -EDOM);
                        ASSERT_TRUE(isnan(ci.lo) && isnan(ci.hi));
                        continue;
                }
                ASSERT_EQ(rc, 0);
                assert_rel(ci.lo, r->lo, 1e-10, "ratio lo", i);
                assert_rel(ci.hi, r->hi, 1e-10, "ratio hi", i);
        }
}

TEST(diff_ci_against_oracle) {
        for (size_t i = 0; i < N_OF(ref_diff); i++) {
                const struct ref_diff *r = &ref_diff[i];
                struct stats_interval ci;

                ASSERT_EQ(stats_diff_ci(r->a, r->na, r->b, r->nb, r->level, &ci), 0);
                assert_rel(ci.estimate, r->estimate, 1e-12, "diff estimate", i);
                assert_rel(ci.lo, r->lo, 1e-10, "diff lo", i);
                assert_rel(ci.hi, r->hi, 1e-10, "diff hi", i);
        }
}

TEST(diff_ci_edges) {
        const double a[] = { 2, 2, 2 }, b[] = { 3, 3 }, one = 1;
        struct stats_interval ci;

        /* no spread anywhere: the interval is the point */
        ASSERT_EQ(stats_diff_ci(a, 3, b, 2, 0.95, &ci), 0);
        ASSERT_NEAR(ci.lo, 1.0, 1e-15);
        ASSERT_NEAR(ci.hi, 1.0, 1e-15);
        ASSERT_EQ(stats_diff_ci(a, 3, &one, 1, 0.95, &ci), -EDOM);
        ASSERT_TRUE(isnan(ci.lo) && isnan(ci.hi));
        ASSERT_EQ(stats_diff_ci(a, 3, b, 2, 1.0, &ci), -EDOM);
}

TEST(fieller_scales) {
        /* Rescaling b alone rescales the interval and nothing else (the df
         * is that of the ratio's pivot, not of b - a). */
        const struct ref_ratio *r = &ref_ratio[0];
        double b[16], a[16];
        struct stats_interval ci;

        for (size_t i = 0; i < r->nb; i++)
                b[i] = r->b[i] * 1e6;
        ASSERT_EQ(stats_ratio_ci(r->a, r->na, b, r->nb, r->level, &ci), 0);
        assert_rel(ci.lo, r->lo * 1e6, 1e-10, "ratio scaled lo", 0);
        assert_rel(ci.hi, r->hi * 1e6, 1e-10, "ratio scaled hi", 0);
        for (size_t i = 0; i < r->na; i++)
                a[i] = r->a[i] * 1e300;
        for (size_t i = 0; i < r->nb; i++)
                b[i] = r->b[i] * 1e300;
        ASSERT_EQ(stats_ratio_ci(a, r->na, b, r->nb, r->level, &ci), 0);
        assert_rel(ci.estimate, r->estimate, 1e-14, "ratio huge estimate", 0);
        assert_rel(ci.lo, r->lo, 1e-10, "ratio huge lo", 0);
        assert_rel(ci.hi, r->hi, 1e-10, "ratio huge hi", 0);
}

TEST(fieller_edges) {
        const double a[] = { 2, 2, 2 }, b[] = { 3, 3 }, one = 1, zeros[] = { 0, 0, 0 };
        struct stats_interval ci;

        /* no spread anywhere: the interval is the point */
        ASSERT_EQ(stats_ratio_ci(a, 3, b, 2, 0.95, &ci), 0);
        ASSERT_NEAR(ci.estimate, 1.5, 1e-15);
        ASSERT_NEAR(ci.lo, 1.5, 1e-15);
        ASSERT_NEAR(ci.hi, 1.5, 1e-15);
        ASSERT_EQ(stats_ratio_ci(a, 3, &one, 1, 0.95, &ci), -EDOM);
        ASSERT_TRUE(isnan(ci.lo));
        ASSERT_EQ(stats_ratio_ci(zeros, 3, b, 2, 0.95, &ci), -EDOM);
        ASSERT_EQ(stats_ratio_ci(a, 3, b, 2, 1.0, &ci), -EDOM);
}

TEST(mean_ci_against_scipy) {
        for (size_t i = 0; i < N_OF(ref_mean_ci); i++) {
                const struct ref_mean_ci *r = &ref_mean_ci[i];
                struct stats_summary sum;
                double lo, hi;

                stats_summarize(r->v, r->n, &sum);
                ASSERT_EQ(stats_mean_ci(&sum, r->level, &lo, &hi), 0);
                assert_rel(lo, r->lo, 1e-12, "mean ci lo", i);
                assert_rel(hi, r->hi, 1e-12, "mean ci hi", i);
                /* the half-width on its own, so a wide interval cannot hide
                 * a wrong t quantile behind a large mean */
                assert_rel((hi - lo) / 2, (r->hi - r->lo) / 2, 1e-10, "mean ci half-width", i);
        }
}

TEST(mean_ci_edges) {
        const double same[] = { 3, 3, 3 }, one = 7;
        struct stats_summary sum;
        double lo = 0, hi = 0;

        /* no spread: the interval is the point */
        stats_summarize(same, 3, &sum);
        ASSERT_EQ(stats_mean_ci(&sum, 0.95, &lo, &hi), 0);
        ASSERT_NEAR(lo, 3.0, 1e-15);
        ASSERT_NEAR(hi, 3.0, 1e-15);
        ASSERT_EQ(stats_mean_ci(&sum, 1.0, &lo, &hi), -EDOM);
        ASSERT_TRUE(isnan(lo) && isnan(hi));
        ASSERT_EQ(stats_mean_ci(&sum, 0.0, &lo, &hi), -EDOM);
        stats_summarize(&one, 1, &sum);
        ASSERT_EQ(stats_mean_ci(&sum, 0.95, &lo, &hi), -EDOM);
        ASSERT_TRUE(isnan(lo) && isnan(hi));
        stats_summarize(&one, 0, &sum);
        ASSERT_EQ(stats_mean_ci(&sum, 0.95, &lo, &hi), -EDOM);
}

TEST(power_against_nct) {
        for (size_t i = 0; i < N_OF(ref_power); i++) {
                const struct ref_power *r = &ref_power[i];

                assert_rel(stats_t_power(r->df, r->nc, r->alpha), r->power, 1e-10, "power", i);
        }
        ASSERT_TRUE(isnan(stats_t_power(0.5, 1.0, 0.05)));
        ASSERT_NEAR(stats_t_power(10, 1e6, 0.05), 1.0, 1e-12);
}

TEST(mde_against_nct) {
        for (size_t i = 0; i < N_OF(ref_mde); i++) {
                const struct ref_mde *r = &ref_mde[i];
                struct stats_summary a = { .n = r->na, .mean = r->ma, .sd = r->sa };
                struct stats_summary b = { .n = r->nb, .mean = r->mb, .sd = r->sb };

                assert_rel(stats_mde(&a, &b, r->alpha, r->power), r->mde, 1e-9, "mde", i);
        }
}

TEST(mde_undefined) {
        struct stats_summary a = { .n = 5, .mean = 10, .sd = 1 }, b = { .n = 5, .mean = 10, .sd = 1 };
        struct stats_summary one = { .n = 1, .mean = 10, .sd = NAN }, zero = { .n = 5, .mean = 0, .sd = 1 };
        struct stats_summary flat = { .n = 5, .mean = 10, .sd = 0 };

        ASSERT_TRUE(isnan(stats_mde(&one, &b, 0.05, 0.8)));
        ASSERT_TRUE(isnan(stats_mde(&zero, &b, 0.05, 0.8)));
        ASSERT_TRUE(isnan(stats_mde(&flat, &flat, 0.05, 0.8)));
        ASSERT_TRUE(isnan(stats_mde(&a, &b, 0.05, 0.01)));
        ASSERT_TRUE(stats_mde(&a, &b, 0.05, 0.8) > 0);
}

TEST(n_for_effect_against_nct) {
        for (size_t i = 0; i < N_OF(ref_n); i++) {
                const struct ref_n *r = &ref_n[i];
                size_t n = stats_n_for_effect(r->cov, r->effect, r->alpha, r->power, r->max_n);

                if (n != r->n)
                        TEST_FAIL("n_for_effect[%zu]: %zu, the oracle says %zu (power there %.6f, at n-1 %.6f)",
                                  i, n, r->n, r->power_n, r->power_n1);
                /* the oracle's own power confirms n is the first that is enough */
                ASSERT_TRUE(r->n > r->max_n || r->power_n >= r->power);
                ASSERT_TRUE(r->n == 2 || r->power_n1 < r->power);
                /* and a negative change needs the same n */
                ASSERT_EQ(stats_n_for_effect(r->cov, -r->effect, r->alpha, r->power, r->max_n), r->n);
        }
}

TEST(n_for_effect_edges) {
        ASSERT_EQ(stats_n_for_effect(NAN, 0.02, 0.05, 0.8, 100), 0);
        ASSERT_EQ(stats_n_for_effect(INFINITY, 0.02, 0.05, 0.8, 100), 0);
        ASSERT_EQ(stats_n_for_effect(0.0, 0.02, 0.05, 0.8, 100), 2);
        ASSERT_EQ(stats_n_for_effect(0.01, 0.0, 0.05, 0.8, 100), 101);
        ASSERT_EQ(stats_n_for_effect(0.01, 0.02, 0.05, 0.8, 1), 2);
}

TEST(binom_sf_against_scipy) {
        for (size_t i = 0; i < N_OF(ref_binom); i++) {
                const struct ref_binom *r = &ref_binom[i];
                double sf = stats_binom_sf(r->k, r->n, r->p);

                if (r->sf == 0)
                        ASSERT_TRUE(sf == 0);
                else
                        assert_rel(sf, r->sf, 1e-10, "binom_sf", i);
        }
        ASSERT_TRUE(isnan(stats_binom_sf(1, 6, -0.1)));
        ASSERT_TRUE(isnan(stats_binom_sf(1, 6, NAN)));
        ASSERT_TRUE(stats_binom_sf(3, 6, 0) == 0);
        ASSERT_TRUE(stats_binom_sf(3, 6, 1) == 1);
}
