/* report/json: the JSON renderer of the views (report/view.h,
 * report/compare.h), for scripts: every number the text shows, and
 * more (the samples, the tests' statistics). Absent values are null. */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "common/error.h"
#include "report/view.h"

struct bisect_ending;

/* Each returns a new reference (caller json_decref), NULL on -ENOMEM. */
json_t *json_view_runs(const struct view_runs *v);
json_t *json_view_run(const struct view_run *v);      /* {run, cells, summary} */
json_t *json_view_cell(const struct view_cell *v);
/* The side-by-side view of text_cell_vmstat as JSON: seconds (guest bo and
 * host rates in bytes/s, verdict), the raw host_block readings, summary
 * (null without enough readings). NULL when out of memory. */
json_t *json_view_cell_vmstat(const struct view_cell *v);
/* {a, b, alpha, noise_pct, verdict_test, groups[{workload, spec, settings,
 * a, b, metrics[{name, unit, direction, judged, a, b, change_pct,
 * ci95_change_pct, welch, mann_whitney, q_bh, mde_pct, n_for_2pct,
 * n_for_5pct, verdict}], geomean_change_pct}], unpaired, worse, better,
 * exit_status, first_line, no_verdict}: every number of the table, the
 * samples, the pairing. */
json_t *json_view_compare(const struct compare_view *v);
struct explain;
/* Where a change of the kernel's instructions went (report/explain.h), in
 * Minsn per profiled cell: {metric, phase, profiled_a, profiled_b, a_Minsn,
 * b_Minsn, change_Minsn, functions[{symbol, a_Minsn, b_Minsn, change_Minsn,
 * pct_of_phase_a, only_in}], others{n, change_Minsn}, why_none}. A
 * comparison's groups carry theirs as "explain" when it was loaded. */
json_t *json_view_explain(const struct explain *x);

/* A string from the store as JSON: null for NULL, bytes that are not
 * UTF-8 as U+FFFD (jansson refuses them). New reference. */
json_t *json_view_string(const char *s);
/* A number as JSON: null when not finite. New reference. */
json_t *json_view_number(double v);

/* o[key] = v, taking v; a key that is not UTF-8 cleaned as strings are. */
void json_view_set(json_t *o, const char *key, json_t *v);

struct bisect_row;
/* A bisection (results/bisect.h) with its steps when it has them loaded:
 * {id, started_at, finished_at, status, workload, metric, source, good,
 * bad, outcome, first_bad, steps[{step, role, candidate, kernel_id, runs,
 * rounds, vs_good, vs_bad, decision, mean_good, mean_candidate, mean_bad,
 * note, kernel}]} (kernel: the name, known only to the bisection that
 * just ended). Strings that are not valid UTF-8 are cleaned as everywhere. */
json_t *json_bisection(const struct bisect_row *b);
/* What `kbench bisect --json` prints as a bisection ends, and what it
 * stores as its summary: json_bisection's keys and the ending's
 * ("bisection", "first_bad_kernel", "confirmed", "change", "explain"). */
json_t *json_bisect_answer(const struct bisect_row *b, const struct bisect_ending *e);

/* j as one compact line, ASCII-only, numbers as json_view_print writes
 * them (caller free()s; NULL when j is NULL or out of memory): the site's
 * data files. */
char *json_view_dumps(const json_t *j);

/* Write j indented, ASCII-only, with a final newline; takes no reference.
 * j == NULL (a failed build) is -ENOMEM. A write that fails is left in
 * out's error flag, for the verb's one check of its output
 * (cli_stdout_done). Returns 0 or -ENOMEM. */
int json_view_print(json_t *j, FILE *out, struct kb_error *err);
