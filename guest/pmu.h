/* guest/pmu: the guest kernel's and user space's instruction counts from
 * the guest's own performance-monitoring unit, for a guest run under KVM
 * with a virtual PMU (libvirt's host-passthrough CPU with <pmu
 * state='on'/>). Under TCG the plugin (plugin/kbinsn.c) counts from
 * outside; under KVM nothing outside sees the guest's instructions, so the
 * agent counts them inside, with one perf event per CPU and privilege
 * level, and sends the totals at each phase mark. The same metric,
 * guest.<phase>.kernel_Minsn, then exists under both accelerators. A
 * guest without a PMU (TCG emulates none) opens nothing and sends
 * nothing. Linked into the static agent: libc only. */
#pragma once

#include <stdint.h>

#define PMU_CPUS_MAX 64

enum { PMU_USER = 0, PMU_KERNEL = 1 };

struct pmu {
        int fd[2][PMU_CPUS_MAX];           /* [PMU_USER|PMU_KERNEL][cpu] */
        int n_cpus;                        /* CPUs with both events open; 0: none */
};

/* Open a counting event of (type, config) on every online CPU (at most
 * PMU_CPUS_MAX), once for user and once for kernel mode, counting from
 * now. The agent passes PERF_TYPE_HARDWARE/PERF_COUNT_HW_INSTRUCTIONS; a
 * test may pass a software event. Returns the number of CPUs counted, or
 * -errno of the first failure, with nothing left open. */
int pmu_open(struct pmu *p, uint32_t type, uint64_t config);

/* The totals over every CPU since pmu_open. Returns 0; -EIO when an
 * event was multiplexed (it did not count the whole time: its total would
 * be an estimate, and a guest's vPMU with too few counters is not a
 * measurement kbench judges) or a read failed. OUT: ret[PMU_USER],
 * ret[PMU_KERNEL], only on success. */
int pmu_read(const struct pmu *p, uint64_t ret[2]);

/* Close every event; p may be unopened (n_cpus 0). */
void pmu_close(struct pmu *p);
