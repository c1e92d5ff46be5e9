/* report/metrics.c: the metric registry (see metrics.h). The rows kept here
 * are looked up first; a workload's own rows follow, and a row of those
 * that restates another metric (dd.*_s is the same measurement as
 * dd.*_MBps) is shown but not judged: counting it twice would give one
 * change two votes in the Benjamini-Hochberg family and in the geometric
 * mean. */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "common/util.h"
#include "report/metrics.h"
#include "workloads/workload.h"

/* The last column: host_timed (see metrics.h). Only judged rows are
 * affected by it; the others are marked as what they are. */
static const struct metrics_info report_rows[] = {
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
        };
}

int metrics_lookup(const char *name, struct metrics_info *ret) {
        const struct metric_def *def;

        for (size_t i = 0; i < ELEMENTSOF(report_rows); i++)
                if (fnmatch(report_rows[i].pattern, name, 0) == 0) {
                        *ret = report_rows[i];
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
        for (size_t i = 0; i < ELEMENTSOF(report_rows); i++)
                fn(&report_rows[i], NULL, userdata);
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
