/* guest/pmu: counting the guest's instructions with its virtual PMU (see
 * pmu.h). Each event reads its count with the times it was enabled and
 * running, so a multiplexed counter is refused rather than scaled. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest/pmu.h"

static int event_open(uint32_t type, uint64_t config, int cpu, int exclude_user) {
        struct perf_event_attr a;
        long fd;

        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = type;
        a.config = config;
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.exclude_user = exclude_user ? 1 : 0;
        a.exclude_kernel = exclude_user ? 0 : 1;
        a.exclude_hv = 1;
        fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
        return fd < 0 ? -errno : (int)fd;
}

int pmu_open(struct pmu *p, uint32_t type, uint64_t config) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);

        p->n_cpus = 0;
        if (online < 1)
                return -ENODEV;
        for (int cpu = 0; cpu < online && cpu < PMU_CPUS_MAX; cpu++) {
                for (int mode = PMU_USER; mode <= PMU_KERNEL; mode++) {
                        int fd = event_open(type, config, cpu, mode == PMU_KERNEL);

                        if (fd < 0) {
                                if (mode == PMU_KERNEL)
                                        close(p->fd[PMU_USER][cpu]);
                                pmu_close(p);
                                return fd;
                        }
                        p->fd[mode][cpu] = fd;
                }
                p->n_cpus = cpu + 1;
        }
        return p->n_cpus;
}

int pmu_read(const struct pmu *p, uint64_t ret[2]) {
        uint64_t sum[2] = { 0, 0 };

        for (int cpu = 0; cpu < p->n_cpus; cpu++)
                for (int mode = PMU_USER; mode <= PMU_KERNEL; mode++) {
                        uint64_t v[3]; /* value, time enabled, time running */

                        if (read(p->fd[mode][cpu], v, sizeof(v)) != (ssize_t)sizeof(v) || v[2] < v[1])
                                return -EIO;
                        sum[mode] += v[0];
                }
        ret[PMU_USER] = sum[PMU_USER];
        ret[PMU_KERNEL] = sum[PMU_KERNEL];
        return 0;
}

void pmu_close(struct pmu *p) {
        for (int cpu = 0; cpu < p->n_cpus; cpu++)
                for (int mode = PMU_USER; mode <= PMU_KERNEL; mode++)
                        close(p->fd[mode][cpu]);
        p->n_cpus = 0;
}
