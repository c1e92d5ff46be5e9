/* decide/pairing: a comparison as `kbench compare` loads it: the view
 * (view_compare_load) with one rule on top: when nothing
 * pairs like with like but A and B ran the same workloads under settings
 * that differ (the same kernel with a throttled disk, a kernel command line
 * variant), that difference is what was selected for comparison, so the
 * cells are paired across exactly those settings, which every output names
 * ("paired across differing settings"). kbench nightly and the site's
 * comparison pages load through the same function, so their verdicts are
 * compare's. */
#pragma once

#include <glib.h>

#include "common/error.h"
#include "report/view.h"

/* Load the comparison of o->a and o->b. ignored holds the settings the
 * user asked to pair across, NULL-terminated; the settings found to differ
 * are appended to it (before its NULL), so o->ignore_settings points into
 * it and it must outlive *ret's use of o. OUT: *ret (compare_view_free).
 * Returns 0 or the view's error. */
int pairing_compare_load(struct db *db, struct compare_options *o, GPtrArray *ignored, struct compare_view **ret,
                         struct kb_error *err);
