/* vmstat_metrics.h: what a table of vmstat samples (vmstat.h) says:
 * per-column statistics, the writeout-stall report that the seed posts
 * read off `vmstat 1` by eye, totals, and a job's phases and their
 * metrics. */
#pragma once

#include <stddef.h>

#include "workloads/vmstat.h"
#include "workloads/workload.h"

/* ---- analysis ----------------------------------------------------------
 * All analyses use the "counted" samples: not flagged first, and, when a
 * window is given (t_from/t_to not NAN), with a known t inside [t_from, t_to]. */

struct vmstat_summary {
        size_t n;                  /* counted samples having the column */
        double mean, min, max;     /* NAN when n == 0 */
        double stddev;             /* sample standard deviation (n - 1); 0 when n == 1 */
        double cov;                /* stddev / mean; NAN when mean == 0 or n == 0 */
};

/* Statistics of column col. OUT: *ret. Returns 0, or -EINVAL for a bad col. */
int vmstat_summary(const struct vmstat_table *t, int col, double t_from, double t_to,
                   struct vmstat_summary *ret);

struct vmstat_run {
        size_t start;              /* index of the first sample (table order); for a pause,
                                      the sample printed before the gap */
        size_t length;             /* stall: samples in the run; pause: samples missing,
                                      round(gap / interval) - 1, at least 1 */
        double seconds;            /* stall: length x interval; pause: the gap itself */
};

struct vmstat_stalls {
        double threshold;          /* bo at or below this is a stall, blocks/s */
        double interval;           /* seconds per sample */
        size_t n;                  /* counted samples with a bo value */
        size_t count;
        struct vmstat_run *runs;   /* count entries (owned) */
        double longest_s, total_s;
        double fraction;           /* stalled samples / n; 0 when n == 0 */
        int have_times;            /* pauses below are valid: >= 2 counted samples with t */
        size_t pause_count;
        struct vmstat_run *pauses; /* gaps between consecutive counted samples of one
                                      capture longer than 1.5 x interval (owned) */
        double pause_longest_s, pause_total_s;
        double pause_fraction;     /* pause_total_s / (time span of the counted samples) */
};

/* Writeout stalls: maximal runs of consecutive counted samples of one capture
 * whose bo <= threshold (a new capture ends a run), and output pauses.
 * OUT: *ret (free with vmstat_stalls_free). Returns 0, -EINVAL (threshold or
 * interval not finite, interval <= 0), -ENOENT (no "bo" column), -ENOMEM. */
int vmstat_stalls(const struct vmstat_table *t, double threshold, double interval, double t_from,
                  double t_to, struct vmstat_stalls **ret);
struct vmstat_stalls *vmstat_stalls_free(struct vmstat_stalls *s);

/* Append a cell's vmstat metrics (vmstat.samples, vmstat.stall_*,
 * vmstat.pause_* when times are known, vmstat.<c>_mean and vmstat.<c>_cov for
 * c in bi bo si so us sy wa when present) to *out. Returns 0, -EINVAL, -ENOMEM
 * (metrics appended before a failure stay in *out). Without a "bo" column the
 * stall metrics are appended without values, with a note. */
int vmstat_metrics(const struct vmstat_table *t, double bo_threshold, double interval, double t_from,
                   double t_to, struct metric_list *out);

/* vmstat_metrics over one phase of a job, named "vmstat.<phase>.<metric>"
 * (phase NULL: the plain "vmstat.<metric>" names). [from, to] is the
 * phase on the rows' clock (NAN: open); a row arriving at t describes the
 * interval before it, so the rows counted are those whose interval lies
 * at least half inside: from + interval/2 <= t <= to + interval/2.
 * A phase gets the means, not the covs. writes 0: the phase writes nothing by design (a read phase), so its bo
 * of 0 is no writeout stall: no stall_* metrics (pause_* stay).
 * Returns 0, -EINVAL (a bad phase name or interval), -ENOMEM. */
int vmstat_phase_metrics(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double from, double to, struct metric_list *out);

/* ---- phases -------------------------------------------------------------
 * A job marks its phases on fd 3 (workloads/dd.c, tiotest.c, ftp.c). */

#define VMSTAT_PHASE_NAME_MAX 32      /* with the NUL */
#define VMSTAT_PHASES_MAX 64          /* phases kept from one job's events */

struct vmstat_phase {
        char name[VMSTAT_PHASE_NAME_MAX];  /* [a-z0-9_] words joined by '.' */
        double from, to;                   /* seconds on the events' clock; to INFINITY: the phase
                                              was still open when the events ended */
};

/* 1 if name can stand between "vmstat." and a metric: words of [a-z0-9_]
 * joined by single dots, shorter than VMSTAT_PHASE_NAME_MAX. */
int vmstat_phase_name_ok(const char *name);

/* The phases marked by a job's events (names[i] at time t[i], in order):
 *   "phase NAME" or "phase NAME ARG" opens NAME (or NAME.ARG: tiotest's
 *   "phase seq_write t2" is seq_write.t2) and ends the phase the previous
 *   such event opened; "phase end" only ends it;
 *   "NAME-start" opens NAME, "NAME-end" ends it (ftp's sync-start/-end).
 * '-' in a name becomes '_'. The events come from the guest: an event with
 * other bytes, a name too long, a repeated name, or phases past max are
 * ignored. Writes at most max phases to ret and returns their number. */
size_t vmstat_phases_from_events(const char *const *names, const double *t, size_t n, struct vmstat_phase *ret,
                                 size_t max);
