/* results/names: the names the store holds, for the shell completion of
 * `--metric` (cli/kbench.bash through `kbench --complete metrics`): what
 * was measured, not what a registry knows, so a workload's metrics appear
 * once a run stored them. */
#pragma once

#include "common/error.h"
#include "results/db.h"

/* The distinct metric names stored, sorted. OUT: *ret (NULL-terminated,
 * g_strfreev; an empty array when none). Returns 0 or -errno with err. */
int names_metrics(struct db *db, char ***ret, struct kb_error *err);
