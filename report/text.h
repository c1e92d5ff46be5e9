/* report/text: the text renderer of the views (report/view.h,
 * report/compare.h): aligned tables for a terminal, and the same
 * comparison tables as markdown for a mailing-list post. Renderers never
 * compute: every number comes from the view. */
#pragma once

#include <stdio.h>

#include "report/view.h"

/* All runs: id, tag, started, status, kernels, cells ok/total. */
void text_runs(const struct view_runs *v, FILE *out);

/* One run: its cells (key, kernel, workload, iteration, state, accel,
 * timings, metrics; a failed cell shows its detail instead), the workload's
 * own layout for ok cells (print hooks), then per (kernel, workload,
 * metric) n and mean ± stddev over ok cells only. */
void text_run(const struct view_run *v, FILE *out);

/* One cell in full: fields, metrics, print hook, vmstat rows, timeline
 * summary, logs. */
void text_cell(const struct view_cell *v, FILE *out);

/* The comparison: per paired group (workload and settings) a benchstat-like
 * table, metric  A ± sd%  A median  B ± sd%  B median  change  CI  verdict
 * p(Welch)  p(MW)  n  mde  n@2%  n@5%, the geometric mean of the judged metrics, then the
 * groups found on one side only and the verdict count. markdown: the same
 * tables as GitHub-style markdown. */
void text_compare(const struct compare_view *v, int markdown, FILE *out);
