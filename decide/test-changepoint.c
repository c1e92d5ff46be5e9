/* Unit tests for decide/changepoint.c on synthetic histories whose change
 * points are known by construction: levels plus Gaussian noise from a
 * fixed-seed generator (common/splitmix64.h and Box-Muller, below), so every run of
 * the test sees the same series. */
#include <errno.h>
#include <stdint.h>

#include "common/splitmix64.h"
#include "common/test.h"
#include "decide/changepoint.h"

TEST_MAIN();

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct noise {
        uint64_t state;
        int have_spare;
        double spare;
};

static double uniform01(struct noise *g) {
        uint64_t z = splitmix64(&g->state);

        return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double gauss(struct noise *g) {
        double r, a;

        if (g->have_spare) {
                g->have_spare = 0;
                return g->spare;
        }
        r = sqrt(-2.0 * log(uniform01(g)));
        a = 2.0 * M_PI * uniform01(g);
        g->spare = r * sin(a);
        g->have_spare = 1;
        return r * cos(a);
}

/* Fill v with levels[i] for lengths[i] points each, plus noise of sd. */
static size_t make_series(double *v, size_t max, const double *levels, const size_t *lengths, size_t k,
                          double sd, uint64_t seed) {
        struct noise g = { .state = seed };
        size_t n = 0;

        for (size_t i = 0; i < k; i++)
                for (size_t j = 0; j < lengths[i]; j++) {
                        if (n >= max)
                                TEST_FAIL("series longer than %zu", max);
                        v[n++] = levels[i] + sd * gauss(&g);
                }
        return n;
}

static size_t detect(const double *v, size_t n, const struct changepoint_params *p, struct changepoint **cp) {
        size_t count = 99;

        ASSERT_EQ(changepoint_detect(v, n, p, cp, &count), 0);
        for (size_t i = 0; i < count; i++)
                fprintf(stderr, "  cp %zu: %.4f -> %.4f (%+.4f) p %.4f%s\n", (*cp)[i].index,
                        (*cp)[i].mean_before, (*cp)[i].mean_after, (*cp)[i].rel_change, (*cp)[i].p,
                        (*cp)[i].provisional ? " provisional" : "");
        return count;
}

TEST(one_step) {
        const double levels[] = { 100, 110 };
        const size_t lengths[] = { 40, 40 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[80];
        size_t n = make_series(v, N_OF(v), levels, lengths, 2, 1.0, 1);

        ASSERT_EQ(detect(v, n, &p, &cp), 1);
        ASSERT_EQ(cp[0].index, 40);
        ASSERT_NEAR(cp[0].mean_before, 100.0, 1.0);
        ASSERT_NEAR(cp[0].mean_after, 110.0, 1.0);
        ASSERT_NEAR(cp[0].rel_change, 0.10, 0.01);
        ASSERT_TRUE(cp[0].p <= p.p_threshold);
        ASSERT_EQ(cp[0].provisional, 0);
        free(cp);
}

TEST(several_steps) {
        const double levels[] = { 100, 90, 95, 120, 119 };
        const size_t lengths[] = { 30, 25, 30, 20, 25 };
        const size_t expect[] = { 30, 55, 85 }; /* 120 -> 119 is under 2 % */
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[130];
        size_t n = make_series(v, N_OF(v), levels, lengths, N_OF(levels), 0.8, 2);

        ASSERT_EQ(detect(v, n, &p, &cp), N_OF(expect));
        for (size_t i = 0; i < N_OF(expect); i++) {
                ASSERT_EQ(cp[i].index, expect[i]);
                ASSERT_NEAR(cp[i].mean_before, levels[i], 1.0);
                ASSERT_NEAR(cp[i].mean_after, levels[i + 1], 1.0);
                ASSERT_EQ(cp[i].provisional, 0);
        }
        free(cp);
}

TEST(no_step) {
        const double levels[] = { 100 };
        const size_t lengths[] = { 200 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[200];
        size_t n = make_series(v, N_OF(v), levels, lengths, 1, 1.0, 3);

        ASSERT_EQ(detect(v, n, &p, &cp), 0);
        ASSERT_TRUE(cp == NULL);
        /* not even a split below the magnitude filter */
        p.min_rel_change = 0;
        ASSERT_EQ(detect(v, n, &p, &cp), 0);
}

TEST(constant) {
        double v[50];
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;

        for (size_t i = 0; i < N_OF(v); i++)
                v[i] = 42.0;
        p.min_rel_change = 0;
        ASSERT_EQ(detect(v, N_OF(v), &p, &cp), 0);
}

TEST(single_outlier_does_not_count) {
        const double levels[] = { 100 };
        const size_t lengths[] = { 80 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[80];
        size_t n = make_series(v, N_OF(v), levels, lengths, 1, 1.0, 4);
        const size_t at[] = { 0, 1, 2, 30, 77, 78, 79 };

        for (size_t i = 0; i < N_OF(at); i++) {
                double keep = v[at[i]];

                v[at[i]] = 300.0;
                p.min_rel_change = 0;
                if (detect(v, n, &p, &cp) != 0)
                        TEST_FAIL("an outlier at %zu made a change point at %zu", at[i], cp[0].index);
                v[at[i]] = keep;
        }
}

TEST(two_wild_points) {
        /* Two adjacent wild points inside the history are still outliers.
         * The same two as the last points look like the start of a new
         * level; a split needs min_size (3) points a side, so it is placed
         * at n - 3, one point early, and is provisional until the history
         * shows whether the level holds. */
        const double levels[] = { 100 };
        const size_t lengths[] = { 80 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[80];
        size_t n = make_series(v, N_OF(v), levels, lengths, 1, 1.0, 5);

        v[40] = v[41] = 300.0;
        ASSERT_EQ(detect(v, n, &p, &cp), 0);
        v[40] = v[41] = 100.0;
        v[78] = v[79] = 300.0;
        ASSERT_EQ(detect(v, n, &p, &cp), 1);
        ASSERT_EQ(cp[0].index, 77);
        ASSERT_EQ(cp[0].provisional, 1);
        free(cp);
}

/* A linear drift of total percent over 120 points, noise 0.5. */
static void drift(double *v, size_t n, double total) {
        struct noise g = { .state = 6 };

        for (size_t i = 0; i < n; i++)
                v[i] = 100.0 + total * (double)i / (double)n + 0.5 * gauss(&g);
}

TEST(slow_drift) {
        /* A drift has no abrupt change. The detector cuts it into a
         * staircase of small steps of one sign (each window sees the slope
         * times W/2 between its halves) and reports a step only when it
         * reaches min_rel_change: 5 % over 120 points moves about 0.6 %
         * per window, so nothing is reported. */
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[120];
        size_t n;

        drift(v, N_OF(v), 5.0);
        ASSERT_EQ(detect(v, N_OF(v), &p, &cp), 0);
        p.min_rel_change = 0;
        n = detect(v, N_OF(v), &p, &cp);
        ASSERT_TRUE(n >= 2);
        for (size_t i = 0; i < n; i++)
                ASSERT_TRUE(cp[i].rel_change > 0 && cp[i].rel_change < 0.02);
        free(cp);
        /* A steep drift (50 %) reaches 2 % per window: a staircase of
         * upward changes, none of them standing for the whole rise. */
        p = CHANGEPOINT_PARAMS_DEFAULT;
        drift(v, N_OF(v), 50.0);
        n = detect(v, N_OF(v), &p, &cp);
        ASSERT_TRUE(n >= 5);
        for (size_t i = 0; i < n; i++)
                ASSERT_TRUE(cp[i].rel_change >= 0.02 && cp[i].rel_change < 0.05);
        free(cp);
}

TEST(step_near_the_end_is_provisional) {
        const double levels[] = { 100, 120 };
        const size_t lengths[] = { 60, 4 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        double v[80];
        size_t n = make_series(v, N_OF(v), levels, lengths, 2, 1.0, 7);

        ASSERT_EQ(detect(v, n, &p, &cp), 1);
        ASSERT_EQ(cp[0].index, 60);
        ASSERT_EQ(cp[0].provisional, 1);
        ASSERT_NEAR(cp[0].rel_change, 0.2, 0.03);
        free(cp);
        /* four more points confirm it: same index, no longer provisional */
        {
                const size_t longer[] = { 60, 8 };

                n = make_series(v, N_OF(v), levels, longer, 2, 1.0, 7);
                ASSERT_EQ(detect(v, n, &p, &cp), 1);
                ASSERT_EQ(cp[0].index, 60);
                ASSERT_EQ(cp[0].provisional, 0);
                free(cp);
        }
}

TEST(long_history) {
        /* Scoring is windowed: a history of 4000 points costs 4000 W^2, not
         * 4000^3 (which would take minutes), and the step is found exactly. */
        static double v[4000];
        const double levels[] = { 100, 97 };
        const size_t lengths[] = { 2600, 1400 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *cp;
        size_t n = make_series(v, N_OF(v), levels, lengths, 2, 0.5, 9);

        ASSERT_EQ(detect(v, n, &p, &cp), 1);
        ASSERT_EQ(cp[0].index, 2600);
        ASSERT_NEAR(cp[0].rel_change, -0.03, 0.005);
        free(cp);
}

TEST(deterministic) {
        const double levels[] = { 100, 90, 95 };
        const size_t lengths[] = { 30, 25, 30 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        struct changepoint *a, *b;
        double v[85];
        size_t n = make_series(v, N_OF(v), levels, lengths, 3, 1.5, 8);
        size_t na = detect(v, n, &p, &a), nb = detect(v, n, &p, &b);

        ASSERT_EQ(na, nb);
        ASSERT_TRUE(na > 0);
        for (size_t i = 0; i < na; i++) {
                ASSERT_EQ(a[i].index, b[i].index);
                ASSERT_NEAR(a[i].p, b[i].p, 0);
                ASSERT_NEAR(a[i].rel_change, b[i].rel_change, 0);
        }
        free(a);
        free(b);
}

TEST(bad_input) {
        const double v[] = { 1, 2, NAN, 4, 5, 6 };
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT, q;
        struct changepoint *cp = (struct changepoint *)&q; /* must stay untouched */
        size_t count = 99;

        ASSERT_EQ(changepoint_detect(v, N_OF(v), &p, &cp, &count), -EINVAL);
        ASSERT_EQ(count, 99);
        ASSERT_TRUE(cp == (struct changepoint *)&q);
        q = p;
        q.min_size = 1;
        ASSERT_EQ(changepoint_detect(v, 2, &q, &cp, &count), -EINVAL);
        q = p;
        q.window = 5;
        ASSERT_EQ(changepoint_detect(v, 2, &q, &cp, &count), -EINVAL);
        q = p;
        q.p_threshold = 0;
        ASSERT_EQ(changepoint_detect(v, 2, &q, &cp, &count), -EINVAL);
        q = p;
        q.permutations = 0;
        ASSERT_EQ(changepoint_detect(v, 2, &q, &cp, &count), -EINVAL);
        q = p;
        q.min_rel_change = NAN;
        ASSERT_EQ(changepoint_detect(v, 2, &q, &cp, &count), -EINVAL);
        /* too short to split: no change points, not an error */
        ASSERT_EQ(changepoint_detect(v, 2, &p, &cp, &count), 0);
        ASSERT_EQ(count, 0);
        ASSERT_EQ(changepoint_detect(NULL, 0, &p, &cp, &count), 0);
        ASSERT_EQ(count, 0);
}
