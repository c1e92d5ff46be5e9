/* report/csv: the views as CSV (RFC 4180, one header row) for a
 * spreadsheet or a script: a comparison one row per metric of each paired
 * group, a run one row per metric of each stored cell attempt. Numbers in
 * full precision and unscaled (the unit column says what they are); text
 * from the store is quoted where it must be, and a text field that a
 * spreadsheet would take for a formula (= + - @ first) starts with a
 * quote mark, so no string of the store runs in the reader's sheet. */
#pragma once

#include <stdio.h>

#include "report/compare.h"
#include "report/view.h"

/* group, workload, metric, unit, judged, a_n, a_mean, a_sd, b_n, b_mean,
 * b_sd, change (a fraction for a ratio, a difference for an amount),
 * ci_lo, ci_hi (the same), p, q, verdict. */
void csv_compare(const struct compare_view *v, FILE *out);

/* run, cell, kernel, workload, iteration (1-based), attempt, state,
 * metric, value (empty when stored without one), unit. */
void csv_run(const struct view_run *v, FILE *out);
