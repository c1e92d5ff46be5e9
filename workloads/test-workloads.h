/* test-workloads.h: what the workload parser tests share: running a
 * workload's parser over fixture lines, and reading one metric's value. */
#pragma once

#include <stdlib.h>
#include <string.h>

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

/* A captured job in one file: its output lines, and its fd-3 events as
 * lines "E <guest seconds> <event>" (tests/data/copy/). Splits the n lines
 * into *out; events and t must hold n entries. */
static inline void test_output_split(const char *const *lines, size_t n, const char **out_lines,
                                     const char **events, double *t, struct workload_output *out) {
        *out = (struct workload_output){ .lines = out_lines, .events = events, .event_t = t };
        for (size_t i = 0; i < n; i++) {
                char *end;

                if (strncmp(lines[i], "E ", 2) != 0) {
                        out_lines[out->n_lines++] = lines[i];
                        continue;
                }
                t[out->n_events] = strtod(lines[i] + 2, &end);
                if (*end != ' ')
                        TEST_FAIL("bad event line: %s", lines[i]);
                events[out->n_events++] = end + 1;
        }
}
