/* harness/plan: the matrix kernels x workloads x repeats as an ordered list
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
