/* report/json: the JSON renderer of the views (report/view.h,
 * report/view-compare.h), for scripts: every number the text shows, and
 * more (the samples, the tests' statistics). Absent values are null. */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "common/error.h"
#include "report/view.h"

/* Each returns a new reference (caller json_decref), NULL on -ENOMEM. */
json_t *json_view_runs(const struct view_runs *v);
json_t *json_view_run(const struct view_run *v);      /* {run, cells, summary} */
json_t *json_view_cell(const struct view_cell *v);

/* Write j indented, ASCII-only, with a final newline; takes no reference.
 * j == NULL (a failed build) is -ENOMEM. Returns 0, -ENOMEM or -EIO. */
int json_view_print(json_t *j, FILE *out, struct kb_error *err);
