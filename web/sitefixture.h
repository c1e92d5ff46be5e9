/* web/sitefixture: a generated result store for the site's unit test and
 * its benchmark: runs of dd and ftp cells of two kernels (and, when asked,
 * a third whose name, tag and logs are hostile HTML), each cell with
 * vmstat rows, an FTP transfer timeline, ttyS1 event records (phase marks)
 * and logs holding NUL, ESC and invalid UTF-8. Planted in every dd cell:
 * one writeout stall run (3 rows with bo <= 100); in every ftp cell: one
 * transfer halt of 1.5 s. The last cell of each run failed. The runs'
 * settings and host facts are shaped as the runner saves them (how_keys,
 * accel_why with a probe's error, warm and cold; TCG behind a throttled
 * disk, so rates are judged beside the instruction counts). Not part of
 * kbench itself. */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "results/db.h"

#define SITEFIXTURE_HOSTILE "<img src=x onerror=alert(1)>"
/* The raw libvirt error in the runs' accel_why, which a run page must not
 * show. */
#define SITEFIXTURE_ACCEL_ERROR "internal error: process exited while connecting to monitor"

/* Add n_runs runs of cells_per_run cells each to db (kernels are upserted).
 * hostile: the third kernel and hostile tags/details. Returns 0 or -errno. */
int sitefixture_fill(struct db *db, int n_runs, int cells_per_run, int hostile, struct kb_error *err);

/* Three nights of kbench nightly over runs 1 to 3 (sitefixture_fill with
 * at least 3 runs of at least 16 cells): each compares the second kernel
 * of run N with the first kernel of run 1, and the second kernel writes at
 * half the rate in run 2, so its dd.write_MBps regression is new on the
 * second night and fixed on the third. subject: what the nights call the
 * second kernel. Returns 0 or -errno. */
int sitefixture_nights(struct db *db, const char *subject, struct kb_error *err);

/* A finished bisection over runs 1 to 3 (ends, a probe, the confirmation),
 * its candidates named name. Returns 0 or -errno. */
int sitefixture_bisection(struct db *db, const char *name, struct kb_error *err);
