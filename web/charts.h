/* web/charts: what a cell's charts are drawn from, and the drawing. From
 * the stored vmstat rows, timeline points and marks it gathers
 * the series (on the host clock: seconds since the cell's QEMU start), the
 * writeout stall runs (the same vmstat analysis, threshold, interval and
 * window that produced the cell's vmstat.stall_* metrics), the FTP
 * transfer's halts (the rule behind ftp.halt_*) and the job's phase marks
 * (its fd-3 events, moved from the guest clock to the host clock). */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/view.h"

struct cell_charts {
        size_t n;                  /* counted vmstat rows (the since-boot row left out) */
        double interval_s;         /* the run's vmstat interval, s: what a row covers */
        double *t;                 /* n host times, s */
        double *col[DB_VM_NCOLS];  /* n values per column, NAN where not reported */
        struct svg_band *stalls;   /* writeout stall runs, s */
        size_t n_stalls;
        struct svg_mark *marks;    /* phase marks (labels owned) */
        size_t n_marks;
        double *ftp_t, *ftp_mib;   /* the transfer timeline: s, MiB accepted */
        size_t n_ftp;
        struct svg_band *halts;    /* transfer halts of >= 1 s */
        size_t n_halts;
};

/* Gather the chart data of the cell view v (its vmstat rows, timeline and
 * marks; nothing else is read). OUT: *ret (charts_free). */
void charts_load(const struct view_cell *v, struct cell_charts *ret);
void charts_free(struct cell_charts *c);   /* accepts a zeroed struct */

/* The four vmstat charts (bi/bo; si/so; us/sy/id/wa; free/cache/dirty/
 * writeback) in a .charts grid. With two sides (labels[0], labels[1]) the
 * same series of both are overlaid, the second dashed; stall runs and
 * phase marks are those of the first side. */
void charts_vmstat(struct html *h, const struct cell_charts *const *sides, const char *const *labels,
                   size_t n_sides);
/* The FTP transfer timeline with halts shaded (nothing when no side has
 * one). */
void charts_ftp(struct html *h, const struct cell_charts *const *sides, const char *const *labels,
                size_t n_sides);
