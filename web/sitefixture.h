/* web/sitefixture: a generated result store for the site's unit test and
 * its benchmark: runs of dd and ftp cells of two kernels (and, when asked,
 * a third whose name, tag and logs are hostile HTML), each cell with
 * vmstat rows, an FTP transfer timeline, ttyS1 event records (phase marks)
 * and logs holding NUL, ESC and invalid UTF-8. Planted in every dd cell:
 * one writeout stall run (3 rows with bo <= 100); in every ftp cell: one
 * transfer halt of 1.5 s. The last cell of each run failed. Not part of
 * kbench itself. */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "results/db.h"

#define SITEFIXTURE_HOSTILE "<img src=x onerror=alert(1)>"

/* Add n_runs runs of cells_per_run cells each to db (kernels are upserted).
 * hostile: the third kernel and hostile tags/details. Returns 0 or -errno. */
int sitefixture_fill(struct db *db, int n_runs, int cells_per_run, int hostile, struct kb_error *err);
