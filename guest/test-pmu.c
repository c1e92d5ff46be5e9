/* Tests for guest/pmu. The hardware instruction event exists only where
 * the (virtual) CPU has a PMU: this host may have none, and TCG guests
 * have none, so that case checks only that pmu_open either counts or
 * leaves nothing open. The arithmetic over CPUs and modes is checked on a
 * software event every Linux kernel has, when this process may open
 * system-wide events (root, or perf_event_paranoid <= 0). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include "common/test.h"
#include "guest/pmu.h"

TEST_MAIN();

static int fds_open(void) {
        int n = 0;

        for (int fd = 0; fd < 1024; fd++)
                n += fcntl(fd, F_GETFD) >= 0;
        return n;
}

/* Keep a CPU busy, partly in the kernel, for about ms milliseconds. */
static void busy(int ms) {
        struct timespec t0, t;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
                getppid();
                clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

TEST(software_event_counts_on_every_cpu) {
        struct pmu p;
        uint64_t a[2], b[2];
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        int r = pmu_open(&p, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);

        if (r == -EACCES || r == -EPERM)
                TEST_SKIP("system-wide perf events need root here");
        ASSERT_EQ(r, online < PMU_CPUS_MAX ? online : PMU_CPUS_MAX);
        ASSERT_EQ(p.n_cpus, r);
        ASSERT_EQ(pmu_read(&p, a), 0);
        for (int i = 0; i < 20; i++)
                usleep(1000); /* each sleep is a context switch */
        ASSERT_EQ(pmu_read(&p, b), 0);
        ASSERT_TRUE(b[PMU_KERNEL] >= a[PMU_KERNEL] && b[PMU_USER] >= a[PMU_USER]);
        ASSERT_TRUE(b[PMU_KERNEL] + b[PMU_USER] - a[PMU_KERNEL] - a[PMU_USER] >= 20);
        pmu_close(&p);
        ASSERT_EQ(p.n_cpus, 0);
}

TEST(instructions_count_or_nothing_is_left_open) {
        struct pmu p;
        uint64_t a[2], b[2];
        int before = fds_open(), r = pmu_open(&p, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

        if (r < 0) {
                /* No PMU (a TCG guest, a VM without a vPMU): nothing open. */
                ASSERT_EQ(p.n_cpus, 0);
                ASSERT_EQ(fds_open(), before);
                TEST_SKIP("no hardware instruction event here (%d)", r);
        }
        ASSERT_EQ(pmu_read(&p, a), 0);
        busy(20);
        ASSERT_EQ(pmu_read(&p, b), 0);
        ASSERT_TRUE(b[PMU_USER] - a[PMU_USER] > 1000000);
        ASSERT_TRUE(b[PMU_KERNEL] > a[PMU_KERNEL]);
        pmu_close(&p);
        ASSERT_EQ(fds_open(), before);
}

TEST(a_failed_open_leaves_nothing_open) {
        struct pmu p;
        int before = fds_open();

        /* No such event type: the kernel refuses it on the first CPU. */
        ASSERT_TRUE(pmu_open(&p, 0x7fffffff, 0) < 0);
        ASSERT_EQ(p.n_cpus, 0);
        ASSERT_EQ(fds_open(), before);
}
