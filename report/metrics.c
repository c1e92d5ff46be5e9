/* report/metrics.c: the metric registry (see metrics.h). The rows kept here
 * are looked up first; a workload's own rows follow, and a row of those
 * that restates another metric (dd.*_s is the same measurement as
 * dd.*_MBps) is shown but not judged: counting it twice would give one
 * change two votes in the Benjamini-Hochberg family and in the geometric
 * mean. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "report/metrics.h"
#include "workloads/workload.h"

/* The floors of the guest kernel's counts (amounts near 0 without a
 * regression), each above what A/A pairs of separate runs showed
 * (docs/detection.md, "The floors"). */
#define GUEST_FLOOR_ALLOCSTALLS 10.0          /* direct-reclaim stalls in a phase */
#define GUEST_FLOOR_FLUSHES 4.0               /* flushes the disk completed in a phase */
#define GUEST_FLOOR_PGSCAN 1000.0             /* pages reclaim scanned in a phase (4 MiB) */
#define GUEST_FLOOR_DISK_WRITES 8.0           /* write requests the disk completed in a phase */
#define GUEST_FLOOR_DISK_WRITTEN_MIB 1.0      /* MiB they wrote */
#define GUEST_FLOOR_WAIT_US_PER_OP 50.0       /* vCPU-halt time per operation of a timed phase */
#define GUEST_FLOOR_SPIN_US_PER_OP 5.0        /* spinning per operation */
#define GUEST_FLOOR_SLEEP_US_PER_OP 100.0      /* the tasks' sleeping per operation */
#define GUEST_FLOOR_FLUSHES_PER_KOP 5.0       /* flushes per 1000 operations */
#define GUEST_FLOOR_ALLOCSTALLS_PER_KOP 2.0   /* direct-reclaim stalls per 1000 operations */
#define GUEST_FLOOR_PGSCAN_PER_OP 0.5         /* pages reclaim scanned per operation */
#define MEM_FLOOR_HELD_MIB 1.0                /* what the kernel kept after the job */
#define GUEST_TAIL_HALT_S 0.1                 /* a stall beyond A's median longest stall */

#define GUEST_WHY_SLEEP "the job's tasks' sleeping in a phase of fixed work follows the emulated disk and CPU; " \
        "per operation of a timed phase it is judged (sleep_us_per_op)"

/* A row as written below: a metrics_info but its tail, which tail_rows
 * gives the few metrics judged by the tail rule. */
struct report_row {
        const char *pattern, *unit;
        enum metrics_direction direction;
        int verdict;
        const char *why;
        int host_timed;
        double floor;
};

/* The last column: host_timed (see metrics.h). Only judged rows are
 * affected by it; the others are marked as what they are. */
static const struct report_row report_rows[] = {
        /* One phase's figures (vmstat.write.stall_longest_s, vmstat.seq_read.t2.bo_mean): the
         * cell's plain vmstat.* already speak for its main phase. */
        /* The agent's vm and disk columns, per phase and over the main phase
         * (vmstat.write.util_pct_mean, vmstat.allocstall_total). */
        { "vmstat.*util_pct_mean", "%", METRICS_NONE, 0, "how busy the disk was follows the workload's own rate", 1, 0 },
        { "vmstat.*util_pct_max", "%", METRICS_NONE, 0, "how busy the disk was follows the workload's own rate", 1, 0 },
        { "vmstat.*disk_reads_per_s", "/s", METRICS_NONE, 0, "follows the workload's own rate", 1, 0 },
        { "vmstat.*disk_writes_per_s", "/s", METRICS_NONE, 0, "follows the workload's own rate", 1, 0 },
        { "vmstat.*disk_read_MiB", "MiB", METRICS_NONE, 0, "what reached the disk: follows the workload", 1, 0 },
        { "vmstat.*disk_written_MiB", "MiB", METRICS_NONE, 0, "what reached the disk: follows the workload", 1, 0 },
        { "vmstat.*inflight_max", "requests", METRICS_NONE, 0, "queue depth is context", 1, 0 },
        { "vmstat.*nr_dirty_max", "pages", METRICS_NONE, 0, "writeback state is context", 1, 0 },
        { "vmstat.*nr_writeback_max", "pages", METRICS_NONE, 0, "writeback state is context", 1, 0 },
        { "vmstat.*dirty_thresh_mean", "pages", METRICS_NONE, 0, "the kernel's limit follows free memory", 1, 0 },
        { "vmstat.*pgscan_per_s", "pages/s", METRICS_LOWER, 0, "reclaim is context", 1, 0 },
        { "vmstat.*pgsteal_per_s", "pages/s", METRICS_LOWER, 0, "reclaim is context", 1, 0 },
        /* Swap traffic over the main phase, an amount (the first seed's
         * swapping dd): judged by its difference beyond 0.5 MiB (128 pages);
         * A/A cells swap nothing at all on any load measured
         * (bench/floors.py), so every floor has no false alarm there, and
         * this one is the smallest swap worth a verdict.
         * A phase's own
         * figure is context, so one change does not vote twice. */
        { "vmstat.*.swap_*_MiB", "MiB", METRICS_LOWER, 0, "the main phase's swap (vmstat.swap_*_MiB) is judged", 0, 0 },
        { "vmstat.swap_in_MiB", "MiB", METRICS_LOWER, 1, NULL, 0, 0.5 },
        { "vmstat.swap_out_MiB", "MiB", METRICS_LOWER, 1, NULL, 0, 0.5 },
        { "vmstat.*pgscan_total", "pages", METRICS_LOWER, 0, "reclaim is context", 0, 0 },
        { "vmstat.*allocstall_total", "stalls", METRICS_LOWER, 0,
          "direct reclaim stalls are context: small counts, often all 0", 1, 0 },
        { "vmstat.*.samples", "samples", METRICS_NONE, 0, "how long the phase was", 1, 0 },
        { "vmstat.*.stall_count", "runs", METRICS_LOWER, 0, "one phase's stalls are context", 1, 0 },
        { "vmstat.*.stall_*_s", "s", METRICS_LOWER, 0, "one phase's stalls are context", 1, 0 },
        { "vmstat.*.stall_fraction", "ratio", METRICS_LOWER, 0, "one phase's stalls are context", 1, 0 },
        { "vmstat.*.pause_count", "pauses", METRICS_LOWER, 0, "output pauses measure the host as much as the guest", 1, 0 },
        { "vmstat.*.pause_*_s", "s", METRICS_LOWER, 0, "output pauses measure the host as much as the guest", 1, 0 },
        { "vmstat.*.b[io]_mean", "blocks/s", METRICS_NONE, 0, "follows the workload's own rate", 1, 0 },
        { "vmstat.*.s[io]_mean", "kB/s", METRICS_NONE, 0, "swap traffic is context", 1, 0 },
        { "vmstat.*.us_mean", "%", METRICS_NONE, 0, "CPU split is context", 1, 0 },
        { "vmstat.*.sy_mean", "%", METRICS_NONE, 0, "CPU split is context", 1, 0 },
        { "vmstat.*.wa_mean", "%", METRICS_NONE, 0, "CPU split is context", 1, 0 },
        { "vmstat.samples", "samples", METRICS_NONE, 0, "how long the capture was", 1, 0 },
        { "vmstat.stall_count", "runs", METRICS_LOWER, 0, "stalls are context: small counts, often all 0", 1, 0 },
        { "vmstat.stall_longest_s", "s", METRICS_LOWER, 0, "stalls are context: small counts, often all 0", 1, 0 },
        { "vmstat.stall_total_s", "s", METRICS_LOWER, 0, "stalls are context: small counts, often all 0", 1, 0 },
        { "vmstat.stall_fraction", "ratio", METRICS_LOWER, 0, "stalls are context: small counts, often all 0", 1, 0 },
        { "vmstat.pause_count", "pauses", METRICS_LOWER, 0, "output pauses measure the host as much as the guest", 1, 0 },
        { "vmstat.pause_longest_s", "s", METRICS_LOWER, 0, "output pauses measure the host as much as the guest", 1, 0 },
        { "vmstat.pause_total_s", "s", METRICS_LOWER, 0, "output pauses measure the host as much as the guest", 1, 0 },
        { "vmstat.b[io]_mean", "blocks/s", METRICS_NONE, 0, "follows the workload's own rate", 1, 0 },
        { "vmstat.s[io]_mean", "kB/s", METRICS_NONE, 0, "swap traffic is context", 1, 0 },
        { "vmstat.us_mean", "%", METRICS_NONE, 0, "CPU split is context", 1, 0 },
        { "vmstat.sy_mean", "%", METRICS_NONE, 0, "CPU split is context", 1, 0 },
        { "vmstat.wa_mean", "%", METRICS_NONE, 0, "CPU split is context", 1, 0 },
        { "vmstat.*_cov", "ratio", METRICS_NONE, 0, "a spread, not a level", 1, 0 },
        /* What the guest executed per phase (host/insncount.h): work
         * done, which the host's speed does not move. */
        { "guest.*.kernel_Minsn", "Minsn", METRICS_LOWER, 1, NULL, 0, 0 },
        { "guest.*.user_Minsn", "Minsn", METRICS_LOWER, 0,
          "user mode in a phase is mostly kbench's own sampler, whose work follows the wall time", 0, 0 },
        /* The guest's waiting and spinning (host/insncount.h): seconds the
         * guest asked for (a timer, the disk, a TSC deadline), which the
         * emulator's speed does not stretch. Amounts that are near 0
         * without a regression: judged by their difference, beyond a floor
         * (report/compare.h). The floors are the smallest whose A/A
         * false-alarm rate is at most 1 % on an idle host, beside two yes
         * loops and beside host disk load (bench/floors.py, the figures in
         * docs/detection.md), and in bench/floor-sim's rows of the scatter
         * measured before: waiting scatters most on a host whose disk is
         * busy; spinning, steady on every load, not at 0.001 s beside a
         * spin that scatters by 20 %. */
        { "guest.*.wait_s", "s", METRICS_LOWER, 1, NULL, 0, 0.05 },
        { "guest.*.spin_s", "s", METRICS_LOWER, 1, NULL, 0, 0.002 },
        /* The guest kernel's own counters per phase (host/guestcount.h):
         * counts of events and bytes, which the host's speed does not set. */
        { "guest.*.allocstalls", "stalls", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_ALLOCSTALLS },
        { "guest.*.pgscan", "pages", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_PGSCAN },
        { "guest.*.pgsteal", "pages", METRICS_LOWER, 0, "what reclaim freed follows what it scanned (pgscan is judged)",
          0, 0 },
        { "guest.*.cache_MiB", "MiB", METRICS_NONE, 0, "the page cache's change follows the workload", 0, 0 },
        { "guest.*.disk_reads", "requests", METRICS_LOWER, 0, "what is read from the disk follows what the cache "
          "held", 0, 0 },
        { "guest.*.disk_read_MiB", "MiB", METRICS_LOWER, 0, "what is read from the disk follows what the cache held",
          0, 0 },
        { "guest.*.disk_writes", "requests", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_DISK_WRITES },
        { "guest.*.disk_written_MiB", "MiB", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_DISK_WRITTEN_MIB },
        { "guest.*.disk_flushes", "flushes", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_FLUSHES },
        { "guest.*.tasks", "tasks", METRICS_NONE, 0, "how many tasks the job ran", 0, 0 },
        { "guest.*.sleep_s", "s", METRICS_LOWER, 0, GUEST_WHY_SLEEP, 0, 0 },
        { "guest.*.run_delay_s", "s", METRICS_LOWER, 0, "waiting for a CPU follows how many tasks ran at once", 0, 0 },
        { "guest.*.blkio_s", "s", METRICS_LOWER, 0, "waiting on the disk is the emulated disk's speed as much as "
          "the kernel's", 0, 0 },
        { "guest.*.reclaim_s", "s", METRICS_LOWER, 0, "time in reclaim is emulated CPU work: its stalls (allocstalls) "
          "are judged", 0, 0 },
        /* The same per operation, for a phase of fixed time
         * (workloads/phases.c): its totals follow the host's speed. */
        { "guest.*.kernel_insn_per_op", "insn/op", METRICS_LOWER, 1, NULL, 0, 0 },
        { "guest.*.wait_us_per_op", "us/op", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_WAIT_US_PER_OP },
        { "guest.*.spin_us_per_op", "us/op", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_SPIN_US_PER_OP },
        { "guest.*.sleep_us_per_op", "us/op", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_SLEEP_US_PER_OP },
        { "guest.*.disk_written_KiB_per_op", "KiB/op", METRICS_LOWER, 1, NULL, 0, 0 },
        { "guest.*.disk_writes_per_op", "requests/op", METRICS_LOWER, 1, NULL, 0, 0 },
        { "guest.*.disk_flushes_per_kop", "flushes/kop", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_FLUSHES_PER_KOP },
        { "guest.*.allocstalls_per_kop", "stalls/kop", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_ALLOCSTALLS_PER_KOP },
        { "guest.*.pgscan_per_op", "pages/op", METRICS_LOWER, 1, NULL, 0, GUEST_FLOOR_PGSCAN_PER_OP },
        /* What the kernel keeps after the job (host/guestcount.h): a leak. */
        { "mem.held_MiB", "MiB", METRICS_LOWER, 1, NULL, 0, MEM_FLOOR_HELD_MIB },
        { "mem.*", "MiB", METRICS_LOWER, 0, "a part of what the kernel holds: mem.held_MiB is judged", 0, 0 },
        { "guest.*.halt_longest_s", "s", METRICS_LOWER, 1, NULL, 0, GUEST_TAIL_HALT_S },
        { "guest.*.kernel_pauses", "pauses", METRICS_NONE, 0,
          "how many turns a spin loop takes follows the host's speed: its seconds (spin_s) are judged", 1, 0 },
        { "guest.*.wall_s", "s", METRICS_LOWER, 0, "a phase's length under TCG is the emulator's speed as much as "
          "the kernel's: its work and waiting are judged apart", 1, 0 },
        { "host.foreign_cpu_pct", "%", METRICS_NONE, 0, "how busy the host was beside the cell, not the kernel", 1, 0 },
        { "host.loadavg1", "", METRICS_NONE, 0, "how busy the host was beside the cell, not the kernel", 1, 0 },
        { "host.disk_write_MBps", "MB/s", METRICS_NONE, 0, "the host's view of the guest's writes: a cross-check", 1, 0 },
        { "host.disk_read_MBps", "MB/s", METRICS_NONE, 0, "the host's view of the guest's reads: a cross-check", 1, 0 },
        { "host.disk_written_MB", "MB", METRICS_NONE, 0, "follows the workload's own size", 1, 0 },
        { "host.write_disagree_s", "s", METRICS_LOWER, 0,
          "seconds guest and host disagree on writing: a check of the measurement, not the kernel", 1, 0 },
        { "boot_s", "s", METRICS_LOWER, 0, "cell timing, shown beside the workload", 1, 0 },
        { "boot_warm", "", METRICS_NONE, 0, "how the cell started: 1 restored from a snapshot, 0 booted", 1, 0 },
        { "workload_s", "s", METRICS_LOWER, 0, "cell timing, shown beside the workload", 1, 0 },
        { "total_s", "s", METRICS_LOWER, 0, "cell timing, shown beside the workload", 1, 0 },
};

static const char why_step[] = "kbench's own step (sync, drop caches, laying a file out) between the "
        "workload's phases: what it does follows what they left behind, so a kernel that kept less cache would "
        "look faster at it";
static const char why_timed[] = "a phase of fixed time: its totals are the emulator's speed times the work per "
        "operation; the figures per operation (guest.<phase>.*_per_op) are judged";

/* A judged guest.<phase>.* row of a phase that is not of fixed work
 * (workloads/phases.c): a step's figures are shown only, and so are a
 * timed phase's totals, whose per-operation figures are judged instead. */
static void phase_kind_rule(const char *name, struct metrics_info *m) {
        const char *last = strrchr(name, '.');
        char phase[128];
        enum workload_phase_kind k;

        if (!m->verdict || strncmp(name, "guest.", 6) != 0 || !last || last <= name + 6 ||
            (size_t)(last - name - 6) >= sizeof(phase))
                return;
        snprintf(phase, sizeof(phase), "%.*s", (int)(last - name - 6), name + 6);
        k = workload_phase_kind(phase);
        if (k == WORKLOAD_PHASE_STEP) {
                m->verdict = 0;
                m->why = why_step;
        } else if (k == WORKLOAD_PHASE_TIMED && !strstr(last, "_per_op") && !strstr(last, "_per_kop")) {
                m->verdict = 0;
                m->why = why_timed;
        }
}

/* The metrics judged by the tail rule (report/compare.h): a cell whose
 * longest stall lies beyond A's median by more than this stalled. */
static const struct {
        const char *pattern;
        double tail;
} tail_rows[] = {
        { "guest.*.halt_longest_s", GUEST_TAIL_HALT_S },
};

/* A workload's row as the registry's. */
static struct metrics_info from_workload(const struct metric_def *def) {
        int directed = def->higher_is_better == 0 || def->higher_is_better == 1;

        return (struct metrics_info){
                .pattern = def->pattern,
                .unit = def->unit,
                .direction = def->higher_is_better == 1 ? METRICS_HIGHER :
                             def->higher_is_better == 0 ? METRICS_LOWER : METRICS_NONE,
                .verdict = directed && !def->restates,
                .why = def->restates ? def->restates :
                       directed ? NULL : "no direction in the workload's metric table",
                /* Every workload measures rates, times and latencies. */
                .host_timed = 1,
                .tail = 0,
        };
}

/* A row of the table as the registry's, with its tail (tail_rows) when
 * name is judged by the tail rule. */
static struct metrics_info from_row(const struct report_row *r, const char *name) {
        struct metrics_info m = { r->pattern, r->unit, r->direction, r->verdict, r->why, r->host_timed, r->floor, 0 };

        for (size_t t = 0; t < ELEMENTSOF(tail_rows); t++)
                if (fnmatch(tail_rows[t].pattern, name, 0) == 0)
                        m.tail = tail_rows[t].tail;
        return m;
}

int metrics_lookup(const char *name, struct metrics_info *ret) {
        const struct metric_def *def;

        for (size_t i = 0; i < ELEMENTSOF(report_rows); i++)
                if (fnmatch(report_rows[i].pattern, name, 0) == 0) {
                        *ret = from_row(&report_rows[i], name);
                        phase_kind_rule(name, ret);
                        return 0;
                }
        def = workload_metric_def(name);
        if (!def)
                return -ENOENT;
        *ret = from_workload(def);
        return 0;
}

void metrics_each(void (*fn)(const struct metrics_info *row, const char *workload, void *userdata),
                  const char *workload, void *userdata) {
        for (size_t i = 0; i < ELEMENTSOF(report_rows); i++) {
                struct metrics_info row = from_row(&report_rows[i], report_rows[i].pattern);

                fn(&row, NULL, userdata);
        }
        for (size_t i = 0; workload_all[i]; i++) {
                const struct workload_ops *ops = workload_all[i];

                if (workload && strcmp(ops->name, workload) != 0)
                        continue;
                for (size_t j = 0; ops->metrics && ops->metrics[j].pattern; j++) {
                        struct metrics_info row = from_workload(&ops->metrics[j]);

                        fn(&row, ops->name, userdata);
                }
        }
}

enum metrics_direction metrics_direction(const char *name) {
        struct metrics_info m;

        return metrics_lookup(name, &m) < 0 ? METRICS_NONE : m.direction;
}

int metrics_verdict(const char *name) {
        struct metrics_info m;

        return metrics_lookup(name, &m) == 0 && m.verdict && m.direction != METRICS_NONE;
}

double metrics_floor(const char *name) {
        struct metrics_info m;

        return metrics_lookup(name, &m) < 0 ? 0 : m.floor;
}

const char *metrics_direction_name(enum metrics_direction d) {
        return d == METRICS_HIGHER ? "higher" : d == METRICS_LOWER ? "lower" : "none";
}

/* Per-phase figures (guest.<phase>.<what>) and whole-cell ones: the words
 * for each. A phase name is [a-z0-9_-] words joined by '.' (insncount.h). */
static const struct {
        const char *what;          /* the name's last part, or the whole name */
        const char *words;         /* a per-phase figure's are followed by "dd's write phase" */
} describe_rows[] = {
        { "kernel_Minsn", "kernel instructions in" },
        { "user_Minsn", "user-mode instructions in" },
        { "wait_s", "waiting in" },
        { "spin_s", "busy-waiting (spinning) in" },
        { "kernel_pauses", "spin-loop turns in" },
        { "wall_s", "the length of" },
        { "vmstat.swap_in_MiB", "swapped in" },
        { "vmstat.swap_out_MiB", "swapped out" },
        { "vmstat.stall_total_s", "writeout stalls in all" },
        { "vmstat.stall_longest_s", "the longest writeout stall" },
        { "halt_longest_s", "the longest stall in" },
        { "allocstalls", "direct-reclaim stalls in" },
        { "pgscan", "pages reclaim scanned in" },
        { "disk_writes", "write requests to the disk in" },
        { "disk_written_MiB", "MiB written to the disk in" },
        { "disk_flushes", "disk flushes in" },
        { "sleep_s", "the job's tasks' sleeping in" },
        { "kernel_insn_per_op", "kernel instructions per operation in" },
        { "wait_us_per_op", "waiting per operation in" },
        { "spin_us_per_op", "busy-waiting per operation in" },
        { "sleep_us_per_op", "the job's tasks' sleeping per operation in" },
        { "disk_written_KiB_per_op", "KiB written to the disk per operation in" },
        { "disk_writes_per_op", "write requests to the disk per operation in" },
        { "disk_flushes_per_kop", "disk flushes per 1000 operations in" },
        { "allocstalls_per_kop", "direct-reclaim stalls per 1000 operations in" },
        { "pgscan_per_op", "pages reclaim scanned per operation in" },
        { "mem.held_MiB", "memory the kernel kept after the job" },
};

void metrics_describe(const char *name, const char *workload, char *buf, size_t size) {
        const char *last = strrchr(name, '.');

        for (size_t i = 0; i < ELEMENTSOF(describe_rows); i++) {
                const char *what = describe_rows[i].what;

                if (strcmp(name, what) == 0) {
                        snprintf(buf, size, "%s", describe_rows[i].words);
                        return;
                }
                if (strncmp(name, "guest.", 6) == 0 && last && last > name + 6 && strcmp(last + 1, what) == 0) {
                        snprintf(buf, size, "%s %s%s%.*s phase", describe_rows[i].words, workload ? workload : "",
                                 workload ? "'s " : "the ", (int)(last - name - 6), name + 6);
                        return;
                }
        }
        snprintf(buf, size, "%s", name);
}
