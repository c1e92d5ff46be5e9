/* test-workloads.h: what the workload parser tests share: running a
 * workload's parser over fixture lines, and reading one metric's value. */
#pragma once

#include "common/test.h"
#include "workloads/workload.h"

/* ops->parse over lines, as the harness hands a job's output over. */
static inline int test_parse(const struct workload_ops *ops, const char *const *lines, size_t n,
                             struct metric_list *m, struct kb_error *err) {
        struct workload_output out = { .n_lines = n, .lines = lines };

        return ops->parse(NULL, &out, m, err);
}

/* The value of metric name; fails the test if it is absent or has none. */
static inline double test_value(const struct metric_list *m, const char *name) {
        const struct metric *x = metric_find(m, name);

        if (!x || !x->has_value)
                TEST_FAIL("no value for %s", name);
        return x->value;
}
