/* workloads/phases.c: which of a job's phases are of fixed work, which run
 * for a fixed time and which are kbench's own steps, and the guest's
 * figures per operation of the timed ones (see workload.h). A phase of
 * fixed time ends when its clock says so: under TCG the emulator's speed
 * sets how many operations fit in it, so its kernel instructions, its
 * waiting and its disk traffic follow the host as much as the kernel; per
 * operation they do not. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "workloads/workload.h"

static enum workload_phase_kind kind_in(const struct workload_ops *ops, const char *phase, int *ret_found) {
        for (size_t i = 0; ops->phase_kinds && ops->phase_kinds[i].pattern; i++)
                if (fnmatch(ops->phase_kinds[i].pattern, phase, 0) == 0) {
                        *ret_found = 1;
                        return ops->phase_kinds[i].kind;
                }
        *ret_found = 0;
        return WORKLOAD_PHASE_WORK;
}

enum workload_phase_kind workload_phase_kind(const char *phase) {
        for (size_t i = 0; workload_all[i]; i++) {
                int found;
                enum workload_phase_kind k = kind_in(workload_all[i], phase, &found);

                if (found)
                        return k;
        }
        return WORKLOAD_PHASE_WORK;
}

/* A total of a phase and its figure per operation: value / ops * scale. */
static const struct {
        const char *total, *per_op, *unit;
        double scale;
} per_op_rows[] = {
        { "kernel_Minsn", "kernel_insn_per_op", "insn/op", 1e6 },
        { "wait_s", "wait_us_per_op", "us/op", 1e6 },
        { "spin_s", "spin_us_per_op", "us/op", 1e6 },
        { "sleep_s", "sleep_us_per_op", "us/op", 1e6 },
        { "disk_written_MiB", "disk_written_KiB_per_op", "KiB/op", 1024 },
        { "disk_writes", "disk_writes_per_op", "requests/op", 1 },
        { "disk_flushes", "disk_flushes_per_kop", "flushes/kop", 1000 },
        { "allocstalls", "allocstalls_per_kop", "stalls/kop", 1000 },
        { "pgscan", "pgscan_per_op", "pages/op", 1 },
};

/* The per-operation figures of one timed phase with ops operations. */
static int phase_per_op(struct metric_list *metrics, size_t n_before, const char *phase, double ops) {
        for (size_t r = 0; r < ELEMENTSOF(per_op_rows); r++) {
                char name[192];
                const struct metric *m;

                snprintf(name, sizeof(name), "guest.%s.%s", phase, per_op_rows[r].total);
                m = metric_find(metrics, name);
                /* Only the totals the cell stored before this pass. */
                if (!m || !m->has_value || (size_t)(m - metrics->v) >= n_before)
                        continue;
                snprintf(name, sizeof(name), "guest.%s.%s", phase, per_op_rows[r].per_op);
                if (metric_add(metrics, name, m->value / ops * per_op_rows[r].scale, per_op_rows[r].unit) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int workload_per_op_metrics(const struct workload_ops *ops, struct metric_list *metrics) {
        size_t n = metrics->n;

        if (!ops->phase_ops)
                return 0;
        /* The phases are the middles of the guest.<phase>.kernel_Minsn
         * the cell stored, each once. */
        for (size_t i = 0; i < n; i++) {
                const char *name = metrics->v[i].name, *last = strrchr(name, '.');
                char phase[128];
                int found;
                double o;

                if (strncmp(name, "guest.", 6) != 0 || !last || strcmp(last, ".kernel_Minsn") != 0 ||
                    (size_t)(last - name - 6) >= sizeof(phase))
                        continue;
                snprintf(phase, sizeof(phase), "%.*s", (int)(last - name - 6), name + 6);
                if (kind_in(ops, phase, &found) != WORKLOAD_PHASE_TIMED)
                        continue;
                o = ops->phase_ops(metrics, phase);
                if (!(o > 0) || !isfinite(o))
                        continue;
                if (phase_per_op(metrics, n, phase, o) < 0)
                        return -ENOMEM;
        }
        return 0;
}
