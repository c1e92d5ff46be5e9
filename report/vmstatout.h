/* report/vmstatout: `kbench vmstat`'s output (see vmstatout.c): what the
 * vmstat parser and analysis of workloads/vmstat.h found, as text or JSON. */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "workloads/vmstat.h"
#include "workloads/vmstat_metrics.h"

/* The `kbench vmstat --json` object described in docs/vmstat.md: columns,
 * samples, rejected, summary, stalls (with pauses when times are known).
 * Returns a new reference (caller json_decref) or NULL on -ENOMEM/-EINVAL. */
json_t *vmstatout_json(const struct vmstat_table *t, double threshold, double interval);

/* The same object as vmstatout_json() written to f with the samples streamed
 * one at a time, so memory does not grow with a JSON tree of every sample.
 * Returns 0, -ENOMEM, or -EIO on a write error. */
int vmstatout_json_dumpf(const struct vmstat_table *t, double threshold, double interval, FILE *f);

/* Human report (columns, per-column summary, stall and pause runs) on f.
 * Returns 0 or a negative errno from vmstat_stalls(). */
int vmstatout_print(const struct vmstat_table *t, double threshold, double interval, FILE *f);
