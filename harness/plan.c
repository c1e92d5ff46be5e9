/* plan.c: matrix expansion (see plan.h). */
#include <glib.h>

#include "harness/plan.h"

void plan_build(size_t n_kernels, size_t n_workloads, int repeats, struct plan_cell **ret, size_t *ret_n) {
        size_t n = n_kernels * n_workloads * (size_t)repeats, i = 0;
        struct plan_cell *v = g_new0(struct plan_cell, n ? n : 1);

        for (int it = 0; it < repeats; it++)
                for (size_t w = 0; w < n_workloads; w++)
                        for (size_t k = 0; k < n_kernels; k++, i++) {
                                g_snprintf(v[i].key, sizeof(v[i].key), "c%03zu", i);
                                v[i].kernel = k;
                                v[i].workload = w;
                                v[i].iteration = it;
                        }
        *ret = v;
        *ret_n = n;
}
