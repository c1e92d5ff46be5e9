/* Unit tests for plan.c: interleaving and stable keys. */
#include <glib.h>

#include "common/test.h"
#include "run/plan.h"

TEST_MAIN();

TEST(interleaved_kernels) {
        struct plan_cell *v;
        size_t n;

        plan_build(2, 2, 3, &v, &n);
        ASSERT_EQ(n, 12);
        /* A B A B within a workload, the workloads within an iteration. */
        ASSERT_EQ(v[0].kernel, 0);
        ASSERT_EQ(v[1].kernel, 1);
        ASSERT_EQ(v[0].workload, 0);
        ASSERT_EQ(v[2].workload, 1);
        ASSERT_EQ(v[3].kernel, 1);
        ASSERT_EQ(v[4].iteration, 1);
        ASSERT_STREQ(v[11].key, "c011");
        ASSERT_EQ(v[11].iteration, 2);
        g_free(v);
}

TEST(empty) {
        struct plan_cell *v;
        size_t n;

        plan_build(0, 1, 3, &v, &n);
        ASSERT_EQ(n, 0);
        g_free(v);
}

TEST(resume_replans_and_skips_done) {
        static const char *const done[] = { "c001", "c003", "c999", NULL };
        struct plan_cell *a, *b;
        size_t n, m, left = 0;

        plan_build(2, 1, 2, &a, &n);
        plan_build(2, 1, 2, &b, &m);
        /* The same inputs give the same plan, key for key. */
        ASSERT_EQ(n, m);
        for (size_t i = 0; i < n; i++) {
                ASSERT_STREQ(a[i].key, b[i].key);
                ASSERT_EQ(a[i].kernel, b[i].kernel);
                ASSERT_EQ(a[i].iteration, b[i].iteration);
        }
        ASSERT_EQ(plan_todo(a, n, done), 2);
        ASSERT_EQ(plan_todo(a, n, NULL), 4);
        for (size_t i = 0; i < n; i++)
                if (!plan_is_done(&a[i], done)) {
                        ASSERT_STREQ(a[i].key, left == 0 ? "c000" : "c002");
                        left++;
                }
        ASSERT_EQ(left, 2);
        g_free(a);
        g_free(b);
}

TEST(retry_rules) {
        /* retries = 2: attempts 1, 2, 3, then no more. */
        ASSERT_EQ(plan_retry(1, 1, 1, 2, 0), 1);
        ASSERT_EQ(plan_retry(1, 2, 1, 2, 0), 1);
        ASSERT_EQ(plan_retry(1, 3, 1, 2, 0), 0);
        /* Only infra errors are retried, and not while the run ends. */
        ASSERT_EQ(plan_retry(0, 1, 1, 2, 0), 0);
        ASSERT_EQ(plan_retry(1, 1, 1, 2, 1), 0);
        ASSERT_EQ(plan_retry(1, 1, 1, 0, 0), 0);
        /* A resumed cell continues its attempt numbers: 4 and 5 after 1..3. */
        ASSERT_EQ(plan_retry(1, 4, 4, 2, 0), 1);
        ASSERT_EQ(plan_retry(1, 5, 4, 2, 0), 1);
        ASSERT_EQ(plan_retry(1, 6, 4, 2, 0), 0);
}
