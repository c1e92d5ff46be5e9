/* report/show: what `kbench show` prints, and the summary `kbench run`
 * ends with: the list of runs, one run's cells with its per-kernel summary,
 * one cell in full, or one of its logs raw. Text for people, JSON (--json)
 * for scripts. The views and renderers live in report/; this is the glue
 * the two verbs share. Statistics use ok cells only. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "results/db.h"

/* All runs: id, tag, started, status, kernels, cells ok/total. */
int show_runs(struct db *db, int json, FILE *out, struct kb_error *err);

/* How show_run prints a run. */
struct show_opts {
        enum { SHOW_TEXT, SHOW_JSON, SHOW_CSV } format;
        int brief;                 /* the end of `kbench run`: failed cells and judged metrics only */
        int all;                   /* keep the summary rows that repeat another or are 0 everywhere */
        int width;                 /* columns the text fits in; 0: no limit */
        char *(*upstream)(void *ctx, const char *kernel_id);  /* textrun_opts.upstream, or NULL */
        void *upstream_ctx;
};

/* One run: its cells (key, kernel, workload, iteration, state, accel,
 * timings, metrics; a failed cell shows its detail instead), workload print
 * hooks for ok cells, then per (kernel, workload, metric) n and
 * mean ± stddev over ok cells only, side by side per kernel. o->brief (the
 * end of `kbench run`): the header, the cells that did not end ok and the
 * judged metrics' summary only; o->all: no summary row left out
 * (textrun_run). JSON is always complete; CSV is every stored metric of
 * every cell attempt (report/csv.h). Returns 0, -ENOENT ("no run N in
 * PATH"), or another -errno with err. */
int show_run(struct db *db, int64_t run_id, const struct show_opts *o, FILE *out, struct kb_error *err);

/* One cell (latest attempt of cell_key) in full: fields, metrics, print
 * hook, vmstat rows, timeline summary, logs. */
int show_cell(struct db *db, int64_t run_id, const char *cell_key, int json, FILE *out,
              struct kb_error *err);

/* The cell's vmstat seconds beside the host's block statistics of its
 * disk, as text or JSON (`kbench show RUN --cell KEY --log vmstat`). */
int show_cell_vmstat(struct db *db, int64_t run_id, const char *cell_key, int json, FILE *out,
                     struct kb_error *err);

/* Write one log of a cell to out: raw (bytes as stored, NULs included),
 * or with control characters masked when terminal is set (report/text.h,
 * text_log). */
int show_cell_log(struct db *db, int64_t run_id, const char *cell_key, const char *stream, int terminal,
                  FILE *out, struct kb_error *err);

/* Every distinct run tag, oldest first, one a line (for shell completion);
 * tags holding a control character or invalid UTF-8 are left out. */
int show_tags(struct db *db, FILE *out, struct kb_error *err);

/* Resolve "RUN" (a positive decimal id) or "last". The run must exist.
 * OUT: *ret_id. Errors: "bad run 'x' (a run id or 'last')", "no run N in PATH". */
int show_resolve_run(struct db *db, const char *text, int64_t *ret_id, struct kb_error *err);

/* `kbench show --bisect`: every bisection (newest first), or with an id
 * one with its steps; text or JSON. */
int show_bisections(struct db *db, int json, FILE *out, struct kb_error *err);
int show_bisection(struct db *db, int64_t id, int json, FILE *out, struct kb_error *err);
