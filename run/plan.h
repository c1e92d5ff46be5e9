/* run/plan: the matrix kernels x workloads x repeats as an ordered list
 * of cells. Kernels alternate innermost (A B A B ...) so slow drift on the
 * host (thermal, page cache, neighbours) does not bias one kernel. The
 * order and keys depend only on the inputs, so --resume rebuilds the same
 * plan and reruns just the missing cells. */
#pragma once

#include <stddef.h>

struct plan_cell {
        char key[16];              /* "c000", "c001", ... in run order */
        size_t kernel;             /* index into the run's kernels */
        size_t workload;           /* index into the run's workloads */
        int iteration;             /* 0-based repeat */
};

/* OUT: *ret (g_free), *ret_n = n_kernels * n_workloads * repeats. */
void plan_build(size_t n_kernels, size_t n_workloads, int repeats, struct plan_cell **ret, size_t *ret_n);

/* Whether c's key is among done (NULL-terminated; NULL = none): --resume
 * skips it. */
int plan_is_done(const struct plan_cell *c, const char *const *done);

/* The cells of plan not yet done. */
size_t plan_todo(const struct plan_cell *plan, size_t n, const char *const *done);

/* Whether an attempt that just ended is tried again: only a retryable
 * one (an infra failure, or with --max-contention a contended cell), only while the run goes on (not interrupted, not stopped
 * by a host failure), and at most retries more attempts than the first of
 * this invocation (a resumed run continues its cells' attempt numbers). */
int plan_retry(int retryable, int attempt, int first_attempt, int retries, int run_ending);
