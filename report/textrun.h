/* report/textrun: runs as text for a terminal: the list of runs, one
 * run's cells and summary (`kbench show RUN`), and the end of `kbench
 * run`. Each fits the reader's width where it can: the summary's kernels
 * side by side in as many blocks as the width needs, a cell's own figures
 * under its row when they do not fit beside it. */
#pragma once

#include <stdio.h>

#include "report/view.h"

struct textrun_opts {
        int all;                   /* keep the summary rows that repeat another or are 0 everywhere */
        int width;                 /* columns to fit in; 0: no limit */
        /* The upstream version of the kernel with this id ("6.1.170"), a
         * new string or NULL, from whoever has the kernel store (NULL:
         * nobody has): a line of the header names each kernel's. */
        char *(*upstream)(void *ctx, const char *kernel_id);
        void *upstream_ctx;
};

/* All runs: id, tag, started, status, kernels, cells ok/total. */
void textrun_runs(const struct view_runs *v, FILE *out);

/* The end of `kbench run`: the run's header, the cells that did not end
 * ok, and per (kernel, workload) the judged metrics only (metrics_verdict):
 * n and mean ± stddev over ok cells; textrun_run() is the full table. */
void textrun_brief(const struct view_run *v, const struct textrun_opts *o, FILE *out);

/* One run: its cells (key, kernel, workload, iteration, state, accel,
 * timings; a failed cell its detail, an ok one its workload's own
 * figures), the workload's own layout for ok cells (print hooks), then the
 * summary side by side: per workload one row per metric (judged metrics
 * first, a unit on every row, seconds scaled) and per kernel n and
 * mean ± stddev over ok cells only. Unless o->all, rows that repeat
 * another row value for value (vmstat.write.* of dd repeats vmstat.*, the
 * main phase) or are 0 in every cell are left out, and a last line counts
 * them. */
void textrun_run(const struct view_run *v, const struct textrun_opts *o, FILE *out);
