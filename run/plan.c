/* plan.c: matrix expansion (see plan.h). */
#include <glib.h>

#include "run/plan.h"

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

int plan_is_done(const struct plan_cell *c, const char *const *done) {
        return done && g_strv_contains(done, c->key);
}

size_t plan_todo(const struct plan_cell *plan, size_t n, const char *const *done) {
        size_t todo = 0;

        for (size_t i = 0; i < n; i++)
                todo += !plan_is_done(&plan[i], done);
        return todo;
}

int plan_retry(int retryable, int attempt, int first_attempt, int retries, int run_ending) {
        return retryable && !run_ending && attempt < first_attempt + retries;
}
