/* decide/pairing: a comparison as `kbench compare` loads it: the view
 * (view_compare_load) with the rules of which cells a verdict may rest on.
 *
 * Selected by kernel name (a selector that is a bare kernel name), a side
 * takes its cells from the latest run that holds both sides with identical
 * settings, so a verdict compares cells measured together, interleaved: a
 * side's mean across runs carries its run's offset, which widens the
 * interval by at least sqrt(1 + n) (report/compare.h). When no run holds
 * both with identical settings, the answer's first line says so, with the
 * runs each side's latest cells come from and the settings that keep them
 * apart, and no verdict is given (every judged metric withheld) unless
 * the caller asks for a comparison across runs (o->across_runs), whose
 * first line then states its power: the MDE with each run's offset
 * against what one run would give. Settings that differ are never paired
 * across for a kernel name; --ignore-setting names them on purpose.
 *
 * Selected by run or tag on both sides, the runs are the caller's choice,
 * and one rule more applies: when nothing pairs like with like but A and
 * B ran the same workloads under settings that differ (the same kernel
 * with a throttled disk, a kernel command line variant), that difference
 * is what was selected for comparison, so the cells are paired across
 * exactly those settings, which every output names ("paired across
 * differing settings"). kbench nightly and the site's comparison pages
 * load through the same function, so their verdicts are compare's. */
#pragma once

#include <glib.h>

#include "common/error.h"
#include "report/view.h"

/* Load the comparison of o->a and o->b. ignored holds the settings the
 * user asked to pair across, NULL-terminated; the settings found to differ
 * are appended to it (before its NULL), so o->ignore_settings points into
 * it and it must outlive *ret's use of o. OUT: *ret (compare_view_free;
 * its sel_a and sel_b are o's, its first line set as above). Returns 0 or
 * the view's error. */
int pairing_compare_load(struct db *db, struct compare_options *o, GPtrArray *ignored, struct compare_view **ret,
                         struct kb_error *err);
