/* Unit tests for plan.c: interleaving and stable keys. */
#include <glib.h>

#include "common/test.h"
#include "harness/plan.h"

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
