/* guest/agent_measure.c: what the agent measures beside the job, in the
 * guest: vmstat rows once per interval (guest/sampler.h), paced by a
 * timerfd or, on a kernel without one, by poll()'s timeouts; at each phase
 * mark the PMU's instruction totals (under KVM) and the kernel's counters
 * (guest/counters.h), with the job's exited tasks (guest/taskstats.h); and
 * the kernel's memory at the job's start and end. What it cannot measure
 * on a kernel it says once, and the cell goes on without it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "guest/agent.h"
#include "guest/counters.h"
#include "guest/pmu.h"
#include "guest/taskstats.h"

/* What is measured, from agent_measure_start to agent_measure_end: this
 * room's own, the rest of the agent sees only the descriptors poll() needs. */
static struct {
        int timer;                      /* timerfd driving the sampler; -1: paced by poll (sampler_pace) */
        uint64_t tick_ms;               /* the sampling interval */
        uint64_t next_tick_ms;          /* without a timerfd: CLOCK_MONOTONIC of the next sample */
        struct sampler_snapshot last;   /* previous vmstat reading */
        uint64_t last_ms;               /* CLOCK_MONOTONIC of that reading */
        unsigned page_kb;
        struct pmu pmu;                 /* the guest's own instruction counts (KVM with a vPMU) */
        struct taskstats_listener ts;   /* the job's exiting tasks; fd -1: not listening */
        struct taskstats_sums ts_sums;  /* summed since the job started */
} M = { .timer = -1, .ts = { .fd = -1 } };

static void agent_measure_sample(bool first) {
        struct sampler_snapshot s;
        struct sampler_row row;
        char line[SAMPLER_ROW_MAX];
        uint64_t now;
        int r, n;

        r = sampler_read("", A.disk_name, &s);
        now = agent_now_ms();
        if (r < 0) {
                agent_recordf("log", "vmstat: reading /proc: %s", strerror(-r));
                return;
        }
        if (first)
                sampler_boot_row(&s, (unsigned)sysconf(_SC_CLK_TCK), M.page_kb, &row);
        else
                sampler_delta_row(&M.last, &s, now - M.last_ms, M.page_kb, &row);
        n = sampler_format_row(line, sizeof(line), &row);
        if (n > 0)
                agent_record(first ? "vmstat-boot" : "vmstat", line, (size_t)n);
        M.last = s;
        M.last_ms = now;
}

/* The header lines, then what this kernel cannot give: its columns are "-"
 * in every row, and the note tells the host (and a reader of the raw log)
 * why. The cell stays ok; vmstat analysis skips what is absent. */
static void agent_measure_vmstat_header(void) {
        struct sampler_snapshot s;
        char line[SAMPLER_NOTE_MAX];
        int n;

        if ((n = sampler_format_groups(line, sizeof(line))) > 0)
                agent_record("vmstat-header", line, (size_t)n);
        if ((n = sampler_format_names(line, sizeof(line))) > 0)
                agent_record("vmstat-header", line, (size_t)n);
        if (sampler_read("", A.disk_name, &s) == 0 && (n = sampler_absent_note(&s, line, sizeof(line))) > 0)
                agent_record("vmstat-note", line, (size_t)n);
}

static void agent_measure_sampler_start(void) {
        uint64_t ms;
        struct itimerspec its;

        if (parse_u64(A.set.vmstat_interval_ms, &ms) < 0 || ms < 10 || ms > 3600000)
                agent_fail("set vmstat_interval_ms: '%s' is not 10..3600000", A.set.vmstat_interval_ms);
        M.tick_ms = ms;
        M.timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        /* A kernel without CONFIG_TIMERFD (a tinyconfig without EXPERT)
         * answers ENOSYS: poll()'s own timeout paces the samples instead,
         * and the cell says so. */
        if (M.timer < 0 && errno != ENOSYS)
                agent_fail("timerfd_create: %s", strerror(errno));
        if (M.timer < 0)
                agent_recordf("log", "timerfd_create: %s: this kernel lacks CONFIG_TIMERFD; vmstat is paced by "
                              "poll() timeouts instead", strerror(ENOSYS));
        agent_measure_vmstat_header();
        agent_measure_sample(true);
        its.it_interval.tv_sec = (time_t)(ms / 1000);
        its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000;
        its.it_value = its.it_interval;
        if (M.timer >= 0 && timerfd_settime(M.timer, 0, &its, NULL) < 0)
                agent_fail("timerfd_settime: %s", strerror(errno));
        M.next_tick_ms = agent_now_ms() + ms;
}

/* Under KVM with a vPMU: count the guest's instructions from the go on. A
 * guest without a PMU (TCG emulates none: ENOENT) sends nothing, and the
 * host's plugin counts instead; any other failure is said once. */
static void agent_measure_pmu_start(void) {
        int r = pmu_open(&M.pmu, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

        if (r < 0 && r != -ENOENT && r != -EOPNOTSUPP)
                agent_recordf("log", "no instruction counts from the guest's PMU: perf_event_open: %s", strerror(-r));
}

/* The PMU's totals at a phase mark, as the record just before the mark's
 * own: the host pairs the two (cell/cell.c). */
static void agent_measure_pmu_mark(void) {
        uint64_t v[2];

        if (M.pmu.n_cpus == 0)
                return;
        if (pmu_read(&M.pmu, v) < 0) {
                agent_recordf("pmu", "lost");
                return;
        }
        agent_recordf("pmu", "user=%llu kernel=%llu", (unsigned long long)v[PMU_USER],
                      (unsigned long long)v[PMU_KERNEL]);
}

/* The kernel's counters at a phase mark (guest/counters.h), as the record
 * just before the mark's own, like the PMU's: the job's exited tasks as
 * the socket holds them now, reclaim, the page cache and the disk. */
static void agent_measure_counters_mark(void) {
        struct sampler_snapshot s;
        char payload[COUNTERS_PAYLOAD_MAX];
        int n = M.ts.fd >= 0 ? taskstats_drain(&M.ts, &M.ts_sums) : 0;

        if (n < 0)
                agent_recordf("log", "taskstats: %s", strerror(-n));
        taskstats_mark(&M.ts, &M.ts_sums);
        if (sampler_read("", A.disk_name, &s) < 0)
                return;
        n = counters_phase(&s, M.ts.fd >= 0 ? &M.ts_sums : NULL, payload, sizeof(payload));
        if (n > 0)
                agent_record("counters", payload, (size_t)n);
}

/* What the kernel holds, as the `memory` record of when ("start", "end"):
 * written back and its clean caches dropped first, so page cache and
 * dentries the job left behind do not count, and a kernel that keeps what
 * it should have freed does (host/guestcount.h). */
static void agent_measure_memory(const char *when) {
        static char meminfo[16384];
        char payload[COUNTERS_PAYLOAD_MAX];
        int fd, n;
        ssize_t len;

        sync();
        fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || fileio_write_all(fd, "3\n", 2) < 0)
                agent_recordf("log", "memory %s: /proc/sys/vm/drop_caches: %s", when, strerror(errno));
        if (fd >= 0)
                close(fd);
        if ((len = agent_read_small("/proc/meminfo", meminfo, sizeof(meminfo))) < 0)
                return;
        n = counters_memory(when, meminfo, (size_t)len, payload, sizeof(payload));
        if (n > 0)
                agent_record("memory", payload, (size_t)n);
}

/* From the job's start: the kernel's memory, and its tasks as they exit
 * (with delay accounting, which 5.14+ leaves off until asked, their
 * waiting on I/O and in reclaim). A kernel without taskstats sends no task
 * sums; the cell says nothing of its tasks then. */
static void agent_measure_counters_start(void) {
        int fd = open("/proc/sys/kernel/task_delayacct", O_WRONLY | O_CLOEXEC), r;

        if (fd >= 0) {
                (void)fileio_write_all(fd, "1\n", 2);
                close(fd);
        }
        agent_measure_memory("start");
        r = taskstats_open(&M.ts);
        if (r < 0 && r != -ENOENT && r != -EPROTONOSUPPORT && r != -EAFNOSUPPORT)
                agent_recordf("log", "no task figures: taskstats: %s", strerror(-r));
}

void agent_measure_start(void) {
        M.page_kb = (unsigned)(sysconf(_SC_PAGESIZE) / 1024);
        agent_measure_counters_start();
        agent_measure_pmu_start();
        agent_measure_sampler_start();
}

void agent_measure_mark(void) {
        agent_measure_pmu_mark();
        agent_measure_counters_mark();
}

void agent_measure_end(void) {
        agent_measure_sample(false);
        taskstats_close(&M.ts);
        agent_measure_memory("end");
}

int agent_measure_timer_fd(void) {
        return M.timer;
}

int agent_measure_tasks_fd(void) {
        return M.ts.fd;
}

int agent_measure_pace(int timeout) {
        int until_tick;

        if (M.timer >= 0)
                return timeout;
        if (sampler_pace(agent_now_ms(), M.tick_ms, &M.next_tick_ms, &until_tick))
                agent_measure_sample(false);
        return timeout < 0 || until_tick < timeout ? until_tick : timeout;
}

void agent_measure_tick(void) {
        uint64_t ticks;

        if (read(M.timer, &ticks, sizeof(ticks)) == sizeof(ticks))
                agent_measure_sample(false);
}

void agent_measure_tasks(void) {
        /* Keep the socket from overflowing between two marks. */
        int r = taskstats_drain(&M.ts, &M.ts_sums);

        if (r < 0)
                agent_recordf("log", "taskstats: %s", strerror(-r));
}
