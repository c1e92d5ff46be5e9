/* report/metrics.c: the metric registry (see metrics.h). The rows kept here
 * are looked up first, so they also override a workload's table where the
 * read side knows better: dd.*_s is the same measurement as dd.*_MBps, and
 * counting it twice would give one change two votes in the Benjamini-
 * Hochberg family and in the geometric mean. */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "common/util.h"
#include "report/metrics.h"
#include "workloads/workload.h"

static const struct metrics_info report_rows[] = {
        { "dd.*_s", "s", METRICS_LOWER, 0, "the same measurement as dd.*_MBps" },
        { "ftp.upload_s", "s", METRICS_LOWER, 0, "the same measurement as ftp.MBps" },
        /* One phase's figures (vmstat.write.stall_longest_s, vmstat.seq_read.t2.bo_mean): the
         * cell's plain vmstat.* already speak for its main phase. */
        /* The agent's vm and disk columns, per phase and over the main phase
         * (vmstat.write.util_pct_mean, vmstat.allocstall_total). */
        { "vmstat.*util_pct_mean", "%", METRICS_NONE, 0, "how busy the disk was follows the workload's own rate" },
        { "vmstat.*util_pct_max", "%", METRICS_NONE, 0, "how busy the disk was follows the workload's own rate" },
        { "vmstat.*disk_reads_per_s", "/s", METRICS_NONE, 0, "follows the workload's own rate" },
        { "vmstat.*disk_writes_per_s", "/s", METRICS_NONE, 0, "follows the workload's own rate" },
        { "vmstat.*disk_read_MiB", "MiB", METRICS_NONE, 0, "what reached the disk: follows the workload" },
        { "vmstat.*disk_written_MiB", "MiB", METRICS_NONE, 0, "what reached the disk: follows the workload" },
        { "vmstat.*inflight_max", "requests", METRICS_NONE, 0, "queue depth is context" },
        { "vmstat.*nr_dirty_max", "pages", METRICS_NONE, 0, "writeback state is context" },
        { "vmstat.*nr_writeback_max", "pages", METRICS_NONE, 0, "writeback state is context" },
        { "vmstat.*dirty_thresh_mean", "pages", METRICS_NONE, 0, "the kernel's limit follows free memory" },
        { "vmstat.*pgscan_per_s", "pages/s", METRICS_LOWER, 0, "reclaim is context" },
        { "vmstat.*pgsteal_per_s", "pages/s", METRICS_LOWER, 0, "reclaim is context" },
        { "vmstat.*allocstall_total", "stalls", METRICS_LOWER, 0,
          "direct reclaim stalls are context: small counts, often all 0" },
        { "vmstat.*.samples", "samples", METRICS_NONE, 0, "how long the phase was" },
        { "vmstat.*.stall_count", "runs", METRICS_LOWER, 0, "one phase's stalls are context" },
        { "vmstat.*.stall_*_s", "s", METRICS_LOWER, 0, "one phase's stalls are context" },
        { "vmstat.*.stall_fraction", "ratio", METRICS_LOWER, 0, "one phase's stalls are context" },
        { "vmstat.*.pause_count", "pauses", METRICS_LOWER, 0, "output pauses measure the host as much as the guest" },
        { "vmstat.*.pause_*_s", "s", METRICS_LOWER, 0, "output pauses measure the host as much as the guest" },
        { "vmstat.*.b[io]_mean", "blocks/s", METRICS_NONE, 0, "follows the workload's own rate" },
        { "vmstat.*.s[io]_mean", "kB/s", METRICS_NONE, 0, "swap traffic is context" },
        { "vmstat.*.us_mean", "%", METRICS_NONE, 0, "CPU split is context" },
        { "vmstat.*.sy_mean", "%", METRICS_NONE, 0, "CPU split is context" },
        { "vmstat.*.wa_mean", "%", METRICS_NONE, 0, "CPU split is context" },
        { "vmstat.samples", "samples", METRICS_NONE, 0, "how long the capture was" },
        { "vmstat.stall_count", "runs", METRICS_LOWER, 0, "stalls are context: small counts, often all 0" },
        { "vmstat.stall_longest_s", "s", METRICS_LOWER, 0, "stalls are context: small counts, often all 0" },
        { "vmstat.stall_total_s", "s", METRICS_LOWER, 0, "stalls are context: small counts, often all 0" },
        { "vmstat.stall_fraction", "ratio", METRICS_LOWER, 0, "stalls are context: small counts, often all 0" },
        { "vmstat.pause_count", "pauses", METRICS_LOWER, 0, "output pauses measure the host as much as the guest" },
        { "vmstat.pause_longest_s", "s", METRICS_LOWER, 0, "output pauses measure the host as much as the guest" },
        { "vmstat.pause_total_s", "s", METRICS_LOWER, 0, "output pauses measure the host as much as the guest" },
        { "vmstat.b[io]_mean", "blocks/s", METRICS_NONE, 0, "follows the workload's own rate" },
        { "vmstat.s[io]_mean", "kB/s", METRICS_NONE, 0, "swap traffic is context" },
        { "vmstat.us_mean", "%", METRICS_NONE, 0, "CPU split is context" },
        { "vmstat.sy_mean", "%", METRICS_NONE, 0, "CPU split is context" },
        { "vmstat.wa_mean", "%", METRICS_NONE, 0, "CPU split is context" },
        { "vmstat.*_cov", "ratio", METRICS_NONE, 0, "a spread, not a level" },
        /* What the guest executed per phase (harness/insncount.h): work
         * done, which the host's speed does not move. */
        { "guest.*.kernel_Minsn", "Minsn", METRICS_LOWER, 1, NULL },
        { "guest.*.user_Minsn", "Minsn", METRICS_LOWER, 1, NULL },
        { "host.foreign_cpu_pct", "%", METRICS_NONE, 0, "how busy the host was beside the cell, not the kernel" },
        { "host.loadavg1", "", METRICS_NONE, 0, "how busy the host was beside the cell, not the kernel" },
        { "host.disk_write_MBps", "MB/s", METRICS_NONE, 0, "the host's view of the guest's writes: a cross-check" },
        { "host.disk_read_MBps", "MB/s", METRICS_NONE, 0, "the host's view of the guest's reads: a cross-check" },
        { "host.disk_written_MB", "MB", METRICS_NONE, 0, "follows the workload's own size" },
        { "host.write_disagree_s", "s", METRICS_LOWER, 0,
          "seconds guest and host disagree on writing: a check of the measurement, not the kernel" },
        { "boot_s", "s", METRICS_LOWER, 0, "cell timing, shown beside the workload" },
        { "boot_warm", "", METRICS_NONE, 0, "how the cell started: 1 restored from a snapshot, 0 booted" },
        { "workload_s", "s", METRICS_LOWER, 0, "cell timing, shown beside the workload" },
        { "total_s", "s", METRICS_LOWER, 0, "cell timing, shown beside the workload" },
};

int metrics_lookup(const char *name, struct metrics_info *ret) {
        const struct metric_def *def;
        int directed;

        for (size_t i = 0; i < ELEMENTSOF(report_rows); i++)
                if (fnmatch(report_rows[i].pattern, name, 0) == 0) {
                        *ret = report_rows[i];
                        return 0;
                }
        def = workload_metric_def(name);
        if (!def)
                return -ENOENT;
        directed = def->higher_is_better == 0 || def->higher_is_better == 1;
        *ret = (struct metrics_info){
                .pattern = def->pattern,
                .unit = def->unit,
                .direction = def->higher_is_better == 1 ? METRICS_HIGHER :
                             def->higher_is_better == 0 ? METRICS_LOWER : METRICS_NONE,
                .verdict = directed,
                .why = directed ? NULL : "no direction in the workload's metric table",
        };
        return 0;
}

enum metrics_direction metrics_direction(const char *name) {
        struct metrics_info m;

        return metrics_lookup(name, &m) < 0 ? METRICS_NONE : m.direction;
}

int metrics_verdict(const char *name) {
        struct metrics_info m;

        return metrics_lookup(name, &m) == 0 && m.verdict && m.direction != METRICS_NONE;
}

const char *metrics_direction_name(enum metrics_direction d) {
        return d == METRICS_HIGHER ? "higher" : d == METRICS_LOWER ? "lower" : "none";
}
