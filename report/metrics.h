/* report/metrics: the one metric registry of kbench. Every metric the store
 * holds (each workload's own <name>.* metrics, the vmstat
 * analysis' vmstat.*, and the cell timings boot_s, workload_s, total_s) has
 * a unit, the direction that is better, and whether it enters verdicts.
 * The workloads' rows come from their public tables (workload_ops.metrics in
 * workloads/workload.h, the only workloads/ header report/ includes), with
 * their verdict policy (a row that restates another metric is not judged);
 * the vmstat and cell rows and their policy are kept here, because the read
 * side decides what those mean. report/test-metrics.c runs every
 * parser and the vmstat analysis over tests/data and fails on a name this
 * registry does not know. */
#pragma once

enum metrics_direction {
        METRICS_NONE = 0,          /* informational: no direction, never a verdict */
        METRICS_HIGHER = 1,        /* higher is better (rates) */
        METRICS_LOWER = -1,        /* lower is better (times, latencies, CPU) */
};

struct metrics_info {
        const char *pattern;       /* fnmatch pattern over metric names */
        const char *unit;          /* as stored ("MB/s"); "" for counts */
        enum metrics_direction direction;
        int verdict;               /* 1: enters better/worse verdicts; 0: shown only */
        const char *why;           /* for informational rows: why no verdict, else NULL */
        int host_timed;            /* 1: a time or rate, which the host's CPU speed moves (under
                                      TCG, the emulator's speed); 0: a count of work done, or a
                                      time the guest set (waiting, spinning) */
        double floor;              /* > 0: an amount judged by its difference, in unit, which
                                      must lie beyond this (and the noise band of A's mean) to
                                      be a verdict; its A side may be 0. 0: judged by the ratio */
        double tail;               /* > 0 (an amount whose floor is set too): judged by the tail
                                      rule instead: a cell of B beyond A's median by more than
                                      this stalled, and the share of B's cells that stalled is
                                      tested (report/compare.h); 0: not */
};

/* Foreign CPU (host.foreign_cpu_pct) above which a cell is contended
 * unless its run set --max-contention (the run's max_contention_pct). */
#define METRICS_CONTENDED_PCT 10.0

/* The registry entry for a metric name. Returns 0, or -ENOENT when kbench
 * does not know the name (a store written by a newer kbench); callers treat
 * an unknown metric as informational. OUT: *ret (strings are static). */
int metrics_lookup(const char *name, struct metrics_info *ret);

/* Every row of the registry, in lookup order: kbench's own (the guest's
 * counts, vmstat, the host, the cell's timings; workload NULL), then each
 * workload's as metrics_lookup converts them, or only workload's when it
 * is not NULL. fn's row lives for the call only. */
void metrics_each(void (*fn)(const struct metrics_info *row, const char *workload, void *userdata),
                  const char *workload, void *userdata);

/* The direction and verdict flag of name, unknown names being
 * informational. */
enum metrics_direction metrics_direction(const char *name);
int metrics_verdict(const char *name);

/* The floor of name (metrics_info.floor): > 0 for an amount judged by its
 * difference, 0 otherwise and for unknown names. */
double metrics_floor(const char *name);

/* "higher", "lower" or "none". */
const char *metrics_direction_name(enum metrics_direction d);

/* What name measures, in words a reader of a verdict knows, for the
 * workload (may be NULL): "waiting in dd's write phase", "kernel
 * instructions in tiobench's seq_read.t2 phase", "MiB swapped out"; the
 * name itself where the registry has no words for it. Writes at most size
 * bytes to buf, always terminated. */
void metrics_describe(const char *name, const char *workload, char *buf, size_t size);
