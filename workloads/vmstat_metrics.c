/* vmstat_metrics.c: statistics, stalls, totals and phases of a vmstat
 * table (see vmstat_metrics.h). Every sample is read through the table's
 * accessors: what the parser kept is all there is. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/util.h"
#include "common/vmstat-columns.h"
#include "workloads/vmstat_metrics.h"

int vmstat_sample_counted(int first, double t, double t_from, double t_to) {
        if (first)
                return 0;
        if (!isnan(t_from) && !(t >= t_from))
                return 0;
        if (!isnan(t_to) && !(t <= t_to))
                return 0;
        return 1;
}

static int vmstat_counted(const struct vmstat_table *t, size_t i, double t_from, double t_to) {
        return vmstat_sample_counted(t->samples[i].first, t->samples[i].t, t_from, t_to);
}

int vmstat_summary(const struct vmstat_table *t, int col, double t_from, double t_to,
                   struct vmstat_summary *ret) {
        struct vmstat_summary s = { .mean = NAN, .min = NAN, .max = NAN, .stddev = NAN, .cov = NAN };
        double sum = 0, m2 = 0, mean = 0;

        if (!t || col < 0 || (size_t)col >= t->ncols)
                return -EINVAL;
        for (size_t i = 0; i < t->nsamples; i++) {
                double v = vmstat_table_value(t, i, col);
                if (isnan(v) || !vmstat_counted(t, i, t_from, t_to))
                        continue;
                /* Welford: stable for long captures of large counters. */
                s.n++;
                double d = v - mean;
                mean += d / (double)s.n;
                m2 += d * (v - mean);
                sum += v;
                if (s.n == 1 || v < s.min)
                        s.min = v;
                if (s.n == 1 || v > s.max)
                        s.max = v;
        }
        if (s.n > 0) {
                s.mean = sum / (double)s.n;
                s.stddev = s.n > 1 ? sqrt(m2 / (double)(s.n - 1)) : 0;
                s.cov = s.mean != 0 ? s.stddev / s.mean : NAN;
        }
        *ret = s;
        return 0;
}

struct vmstat_stalls *vmstat_stalls_free(struct vmstat_stalls *s) {
        if (!s)
                return NULL;
        free(s->runs);
        free(s->pauses);
        free(s);
        return NULL;
}

static int run_push(struct vmstat_run **v, size_t *n, size_t *cap, struct vmstat_run r) {
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 16;
                struct vmstat_run *nv = realloc(*v, c * sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = c;
        }
        (*v)[(*n)++] = r;
        return 0;
}

int vmstat_stall_feed(struct vmstat_stall_scan *s, int end, size_t i, double bo, unsigned capture, double threshold,
                      struct vmstat_stall_run *ret_run) {
        int closed = 0;

        /* A run ends at a non-stall sample, a new capture, or the end. */
        if (s->len > 0 && (end || capture != s->capture || bo > threshold)) {
                *ret_run = (struct vmstat_stall_run){ s->first, s->last, s->len };
                s->len = 0;
                closed = 1;
        }
        if (end)
                return closed;
        if (bo <= threshold) {
                if (s->len++ == 0)
                        s->first = i;
                s->last = i;
        }
        s->capture = capture;
        return closed;
}

void vmstat_phase_window(double from, double to, double interval, double *ret_from, double *ret_to) {
        *ret_from = isnan(from) ? NAN : from + interval / 2;
        *ret_to = isnan(to) ? NAN : to + interval / 2;
}

int vmstat_stall_spans(const struct vmstat_stall_sample *s, size_t n, double threshold, double interval,
                       double t_from, double t_to, struct vmstat_stall_span **ret_spans, size_t *ret_n) {
        struct vmstat_stall_scan scan = { 0 };
        struct vmstat_stall_span *v = NULL;
        size_t nv = 0, cap = 0;

        if (!isfinite(threshold) || !isfinite(interval) || interval <= 0)
                return -EINVAL;
        for (size_t i = 0; i <= n; i++) {
                int end = i == n;
                struct vmstat_stall_run run;

                if (!end && (isnan(s[i].bo) || !vmstat_sample_counted(s[i].first, s[i].t, t_from, t_to)))
                        continue;
                if (!vmstat_stall_feed(&scan, end, i, end ? NAN : s[i].bo, end ? 0 : s[i].capture, threshold, &run))
                        continue;
                if (nv == cap) {
                        size_t c = cap ? cap * 2 : 16;
                        struct vmstat_stall_span *nvp = realloc(v, c * sizeof(*nvp));
                        if (!nvp) {
                                free(v);
                                return -ENOMEM;
                        }
                        v = nvp;
                        cap = c;
                }
                v[nv++] = (struct vmstat_stall_span){ run.first, run.last, run.len, (double)run.len * interval };
        }
        *ret_spans = v;
        *ret_n = nv;
        return 0;
}

/* The stall runs of t's bo column in [t_from, t_to] into s->runs. */
static int stalls_runs(const struct vmstat_table *t, int bo, double t_from, double t_to, struct vmstat_stalls *s) {
        struct vmstat_stall_sample *in = malloc((t->nsamples ? t->nsamples : 1) * sizeof(*in));
        struct vmstat_stall_span *spans = NULL;
        size_t n = 0;
        int r;

        if (!in)
                return -ENOMEM;
        for (size_t i = 0; i < t->nsamples; i++)
                in[i] = (struct vmstat_stall_sample){ t->samples[i].t, vmstat_table_value(t, i, bo),
                                                      t->samples[i].first, t->samples[i].capture };
        r = vmstat_stall_spans(in, t->nsamples, s->threshold, s->interval, t_from, t_to, &spans, &n);
        free(in);
        if (r < 0)
                return r;
        s->runs = n ? calloc(n, sizeof(*s->runs)) : NULL;
        if (n && !s->runs) {
                free(spans);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                s->runs[i] = (struct vmstat_run){ spans[i].first, spans[i].len, spans[i].seconds };
                s->total_s += spans[i].seconds;
                if (spans[i].seconds > s->longest_s)
                        s->longest_s = spans[i].seconds;
        }
        s->count = n;
        free(spans);
        return 0;
}

/* The output pauses of t's counted samples with a bo value in [t_from,
 * t_to], and the counts behind the fractions, into s. */
static int stalls_pauses(const struct vmstat_table *t, int bo, double t_from, double t_to, struct vmstat_stalls *s) {
        size_t pcap = 0, stalled = 0, ntimes = 0, prev_t = SIZE_MAX;
        double t_min = NAN, t_max = NAN;

        for (size_t i = 0; i < t->nsamples; i++) {
                double v = vmstat_table_value(t, i, bo), ti;

                if (isnan(v) || !vmstat_counted(t, i, t_from, t_to))
                        continue;
                s->n++;
                if (v <= s->threshold)
                        stalled++;
                ti = t->samples[i].t;
                if (isnan(ti))
                        continue;
                ntimes++;
                if (isnan(t_min) || ti < t_min)
                        t_min = ti;
                if (isnan(t_max) || ti > t_max)
                        t_max = ti;
                if (prev_t != SIZE_MAX && t->samples[prev_t].capture == t->samples[i].capture) {
                        double gap = ti - t->samples[prev_t].t;
                        if (gap > 1.5 * s->interval) {
                                double missing = floor(gap / s->interval + 0.5) - 1;
                                struct vmstat_run pr = { prev_t, missing >= 1 ? (size_t)missing : 1, gap };
                                if (run_push(&s->pauses, &s->pause_count, &pcap, pr) < 0)
                                        return -ENOMEM;
                        }
                }
                prev_t = i;
        }
        s->fraction = s->n ? (double)stalled / (double)s->n : 0;
        s->have_times = ntimes >= 2;
        for (size_t i = 0; i < s->pause_count; i++) {
                s->pause_total_s += s->pauses[i].seconds;
                if (s->pauses[i].seconds > s->pause_longest_s)
                        s->pause_longest_s = s->pauses[i].seconds;
        }
        s->pause_fraction = s->have_times && t_max > t_min ? s->pause_total_s / (t_max - t_min) : 0;
        return 0;
}

int vmstat_stalls(const struct vmstat_table *t, double threshold, double interval, double t_from,
                  double t_to, struct vmstat_stalls **ret) {
        struct vmstat_stalls *s;
        int bo, r;

        if (!t || !isfinite(threshold) || !isfinite(interval) || interval <= 0)
                return -EINVAL;
        bo = vmstat_table_col(t, "bo");
        if (bo < 0)
                return -ENOENT;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->threshold = threshold;
        s->interval = interval;
        r = stalls_runs(t, bo, t_from, t_to, s);
        if (r >= 0)
                r = stalls_pauses(t, bo, t_from, t_to, s);
        if (r < 0) {
                vmstat_stalls_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

static const struct {
        const char *col, *unit;
} metric_cols[] = {
        { "bi", "blocks/s" }, { "bo", "blocks/s" }, { "si", "kB/s" }, { "so", "kB/s" },
        { "us", "%" },        { "sy", "%" },        { "wa", "%" },
};

/* The figures of the agent's vm and disk columns (common/vmstat-columns.h):
 * a level (the mean of the rows), a peak (their max), or a total: rows hold
 * rates per second over their interval, so the count over the window is
 * the sum of rate x the row's interval (vmstat_total), times scale (sectors
 * to MiB). */
enum deep_kind { DEEP_MEAN, DEEP_MAX, DEEP_TOTAL };
static const struct {
        const char *col, *metric, *unit;
        enum deep_kind kind;
        double scale;
} deep_cols[] = {
        { "util", "vmstat.util_pct_mean", "%", DEEP_MEAN, 1 },
        { "util", "vmstat.util_pct_max", "%", DEEP_MAX, 1 },
        { "rd", "vmstat.disk_reads_per_s", "/s", DEEP_MEAN, 1 },
        { "wr", "vmstat.disk_writes_per_s", "/s", DEEP_MEAN, 1 },
        { "rsect", "vmstat.disk_read_MiB", "MiB", DEEP_TOTAL, 512.0 / (1024 * 1024) },
        { "wsect", "vmstat.disk_written_MiB", "MiB", DEEP_TOTAL, 512.0 / (1024 * 1024) },
        { "inflight", "vmstat.inflight_max", "requests", DEEP_MAX, 1 },
        { "nr_dirty", "vmstat.nr_dirty_max", "pages", DEEP_MAX, 1 },
        { "nr_writeback", "vmstat.nr_writeback_max", "pages", DEEP_MAX, 1 },
        { "dirty_thresh", "vmstat.dirty_thresh_mean", "pages", DEEP_MEAN, 1 },
        { "pgscan", "vmstat.pgscan_per_s", "pages/s", DEEP_MEAN, 1 },
        { "pgsteal", "vmstat.pgsteal_per_s", "pages/s", DEEP_MEAN, 1 },
        { "allocstall", "vmstat.allocstall_total", "stalls", DEEP_TOTAL, 1 },
        /* What reclaim did, as amounts (the seeds' swapping during a dd). */
        { "pgscan", "vmstat.pgscan_total", "pages", DEEP_TOTAL, 1 },
        { "si", "vmstat.swap_in_MiB", "MiB", DEEP_TOTAL, 1.0 / 1024 },
        { "so", "vmstat.swap_out_MiB", "MiB", DEEP_TOTAL, 1.0 / 1024 },
};

/* Sum over the counted rows of col of value x the row's interval: the time
 * since the previous row of its capture when both times are known and the
 * gap is within 1.5 x interval (the agent's last row, sent when the job
 * ends, covers less than an interval), else interval (a pause, or no
 * times). */
static double vmstat_total(const struct vmstat_table *t, int col, double interval, double t_from, double t_to) {
        double sum = 0;

        for (size_t i = 0; i < t->nsamples; i++) {
                double v = vmstat_table_value(t, i, col), dt = interval;

                if (isnan(v) || !vmstat_counted(t, i, t_from, t_to))
                        continue;
                if (i > 0 && t->samples[i - 1].capture == t->samples[i].capture) {
                        double gap = t->samples[i].t - t->samples[i - 1].t;
                        if (isfinite(gap) && gap > 0 && gap <= 1.5 * interval)
                                dt = gap;
                }
                sum += v * dt;
        }
        return sum;
}

/* metric_add/metric_add_none under the phase's name: "vmstat.stall_count"
 * becomes "vmstat.<phase>.stall_count"; phase NULL keeps the name. */
static int phase_metric_add(struct metric_list *out, const char *name, const char *phase, int has_value,
                            double value, const char *unit, const char *note) {
        char buf[128];

        if (phase) {
                const char *rest = name + strlen("vmstat.");
                if (snprintf(buf, sizeof(buf), "vmstat.%s.%s", phase, rest) >= (int)sizeof(buf))
                        return -EINVAL;
                name = buf;
        }
        return has_value ? metric_add(out, name, value, unit) : metric_add_none(out, name, unit, note);
}

/* A metric with a number, for a table of them. */
struct named_value {
        const char *name;
        double value;
        const char *unit;
};

static int phase_metrics_add(struct metric_list *out, const char *phase, const struct named_value *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = phase_metric_add(out, v[i].name, phase, 1, v[i].value, v[i].unit, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The stall metrics of a window the samples cannot judge, each without a
 * number and with why. */
static int stall_metrics_none(const struct vmstat_table *t, const char *phase, const char *why_none,
                              struct metric_list *out) {
        static const char *const names[][2] = {
                { "vmstat.stall_count", "runs" }, { "vmstat.stall_longest_s", "s" },
                { "vmstat.stall_total_s", "s" }, { "vmstat.stall_fraction", "ratio" },
        };
        const char *why = why_none ? why_none : vmstat_table_absent_note(t, "bo");

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                int r = phase_metric_add(out, names[i][0], phase, 0, NAN, names[i][1],
                                         why ? why : "no bo column in the vmstat capture");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The stall metrics (for a workload that writes) and the pauses (when the
 * samples carry times). */
static int stall_metrics(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double t_from, double t_to, struct metric_list *out) {
        struct vmstat_stalls *s = NULL;
        const char *why_none = NULL;
        int r;

        r = vmstat_stalls(t, bo_threshold, interval, t_from, t_to, &s);
        if (r == 0 && (!vmstat_table_has_values(t, vmstat_table_col(t, "bo")) || s->n == 0)) {
                /* A bo column the kernel never filled is no column, and a
                 * window no row falls in (a phase shorter than half an
                 * interval) has no samples: "no stall" would be a claim
                 * the samples cannot make. */
                why_none = s->n == 0 && vmstat_table_has_values(t, vmstat_table_col(t, "bo"))
                                   ? "no vmstat sample with a bo value in the window"
                                   : NULL;
                s = vmstat_stalls_free(s);
                r = -ENOENT;
        }
        if (r == -ENOENT)
                return writes ? stall_metrics_none(t, phase, why_none, out) : 0;
        if (r < 0)
                return r;
        {
                const struct named_value stalls[] = {
                        { "vmstat.stall_count", (double)s->count, "runs" },
                        { "vmstat.stall_longest_s", s->longest_s, "s" },
                        { "vmstat.stall_total_s", s->total_s, "s" },
                        { "vmstat.stall_fraction", s->fraction, "ratio" },
                };
                const struct named_value pauses[] = {
                        { "vmstat.pause_count", (double)s->pause_count, "pauses" },
                        { "vmstat.pause_longest_s", s->pause_longest_s, "s" },
                        { "vmstat.pause_total_s", s->pause_total_s, "s" },
                };

                if (writes)
                        r = phase_metrics_add(out, phase, stalls, ELEMENTSOF(stalls));
                if (r >= 0 && s->have_times)
                        r = phase_metrics_add(out, phase, pauses, ELEMENTSOF(pauses));
        }
        vmstat_stalls_free(s);
        return r;
}

/* The levels of metric_cols: a mean, and outside a phase its cov. */
static int level_metrics(const struct vmstat_table *t, const char *phase, double t_from, double t_to,
                         struct metric_list *out) {
        int r;

        for (size_t i = 0; i < ELEMENTSOF(metric_cols); i++) {
                struct vmstat_summary sm;
                char name[64];
                int col = vmstat_table_col(t, metric_cols[i].col);
                const char *why = vmstat_table_absent_note(t, metric_cols[i].col);

                if (why && !vmstat_table_has_values(t, col)) {
                        /* Absent, and the agent said why: say so, with no number. */
                        snprintf(name, sizeof(name), "vmstat.%s_mean", metric_cols[i].col);
                        if ((r = phase_metric_add(out, name, phase, 0, NAN, metric_cols[i].unit, why)) < 0)
                                return r;
                        if (phase)
                                continue;
                        snprintf(name, sizeof(name), "vmstat.%s_cov", metric_cols[i].col);
                        if ((r = phase_metric_add(out, name, phase, 0, NAN, "ratio", why)) < 0)
                                return r;
                        continue;
                }
                if (col < 0 || vmstat_summary(t, col, t_from, t_to, &sm) < 0 || sm.n == 0)
                        continue;
                snprintf(name, sizeof(name), "vmstat.%s_mean", metric_cols[i].col);
                if ((r = phase_metric_add(out, name, phase, 1, sm.mean, metric_cols[i].unit, NULL)) < 0)
                        return r;
                /* A phase keeps levels, not spreads: seven covs per phase
                 * would bury a tiobench cell's figures. */
                if (phase)
                        continue;
                snprintf(name, sizeof(name), "vmstat.%s_cov", metric_cols[i].col);
                r = phase_metric_add(out, name, phase, !isnan(sm.cov), sm.cov, "ratio", "mean is 0");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The writeback, reclaim and disk columns of deep_cols: a mean, a peak or
 * a total each. */
static int deep_metrics(const struct vmstat_table *t, const char *phase, double interval, double t_from,
                        double t_to, struct metric_list *out) {
        int r;

        for (size_t i = 0; i < ELEMENTSOF(deep_cols); i++) {
                struct vmstat_summary sm;
                int col = vmstat_table_col(t, deep_cols[i].col);
                const char *why = vmstat_table_absent_note(t, deep_cols[i].col);
                double v;

                if (why && !vmstat_table_has_values(t, col)) {
                        if ((r = phase_metric_add(out, deep_cols[i].metric, phase, 0, NAN, deep_cols[i].unit,
                                                  why)) < 0)
                                return r;
                        continue;
                }
                /* A capture from before these columns has none: no claim. */
                if (col < 0 || vmstat_summary(t, col, t_from, t_to, &sm) < 0 || sm.n == 0)
                        continue;
                v = deep_cols[i].kind == DEEP_MEAN ? sm.mean
                    : deep_cols[i].kind == DEEP_MAX ? sm.max
                    : vmstat_total(t, col, interval, t_from, t_to) * deep_cols[i].scale;
                if ((r = phase_metric_add(out, deep_cols[i].metric, phase, 1, v, deep_cols[i].unit, NULL)) < 0)
                        return r;
        }
        return 0;
}

static int metrics_named(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double t_from, double t_to, struct metric_list *out) {
        size_t n = 0;
        int r;

        if (!t || !out)
                return -EINVAL;
        for (size_t i = 0; i < t->nsamples; i++)
                n += vmstat_counted(t, i, t_from, t_to);
        r = phase_metric_add(out, "vmstat.samples", phase, 1, (double)n, "samples", NULL);
        if (r >= 0)
                r = stall_metrics(t, phase, writes, bo_threshold, interval, t_from, t_to, out);
        if (r >= 0)
                r = level_metrics(t, phase, t_from, t_to, out);
        if (r >= 0)
                r = deep_metrics(t, phase, interval, t_from, t_to, out);
        return r < 0 ? r : 0;
}

int vmstat_metrics(const struct vmstat_table *t, double bo_threshold, double interval, double t_from,
                   double t_to, struct metric_list *out) {
        return metrics_named(t, NULL, 1, bo_threshold, interval, t_from, t_to, out);
}

int vmstat_phase_metrics(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double from, double to, struct metric_list *out) {
        if (!isfinite(interval) || interval <= 0 || (phase && !vmstat_phase_name_ok(phase)))
                return -EINVAL;
        vmstat_phase_window(from, to, interval, &from, &to);
        return metrics_named(t, phase, writes, bo_threshold, interval, from, to, out);
}

/* ---- phases ----------------------------------------------------------- */

int vmstat_phase_name_ok(const char *name) {
        size_t len = strlen(name);

        if (len == 0 || len >= VMSTAT_PHASE_NAME_MAX || name[0] == '.' || name[len - 1] == '.')
                return 0;
        for (size_t i = 0; i < len; i++)
                if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
                      (name[i] == '.' && name[i + 1] != '.')))
                        return 0;
        return 1;
}

/* Copy a word of an event into buf as a phase name part ('-' becomes '_').
 * Returns 0, or -EINVAL when it is empty, too long or holds other bytes. */
static int phase_word(const char *p, size_t len, char *buf, size_t size) {
        if (len == 0 || len >= size)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                char c = p[i] == '-' ? '_' : p[i];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                        return -EINVAL;
                buf[i] = c;
        }
        buf[len] = '\0';
        return 0;
}

static struct vmstat_phase *phase_find(struct vmstat_phase *v, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i].name, name) == 0)
                        return &v[i];
        return NULL;
}

size_t vmstat_phases_from_events(const char *const *events, const double *t, size_t n, struct vmstat_phase *ret,
                                 size_t max) {
        size_t np = 0;
        struct vmstat_phase *open = NULL;      /* the phase a "phase NAME" event opened */

        for (size_t i = 0; i < n; i++) {
                const char *e = events[i];
                char name[VMSTAT_PHASE_NAME_MAX], arg[VMSTAT_PHASE_NAME_MAX];
                size_t len = strnlen(e, VMSTAT_PHASE_NAME_MAX * 2);

                if (!isfinite(t[i]) || len >= VMSTAT_PHASE_NAME_MAX * 2)
                        continue;
                if (strncmp(e, "phase ", 6) == 0) {
                        const char *w = e + 6, *sp = strchr(w, ' ');
                        size_t wl = sp ? (size_t)(sp - w) : strlen(w);
                        if (phase_word(w, wl, name, sizeof(name)) < 0 ||
                            (sp && (strchr(sp + 1, ' ') || phase_word(sp + 1, strlen(sp + 1), arg, sizeof(arg)) < 0)))
                                continue;
                        if (open && open->to > t[i])
                                open->to = t[i];
                        open = NULL;
                        if (strcmp(name, "end") == 0)
                                continue;
                        if (sp) {
                                size_t nl = strlen(name);
                                if (nl + 1 + strlen(arg) >= sizeof(name))
                                        continue;
                                name[nl] = '.';
                                strcpy(name + nl + 1, arg);
                        }
                        if (np == max || phase_find(ret, np, name))
                                continue;
                        ret[np] = (struct vmstat_phase){ .from = t[i], .to = INFINITY };
                        strcpy(ret[np].name, name);
                        open = &ret[np++];
                        continue;
                }
                /* "NAME-start" ... "NAME-end" */
                const char *dash = strrchr(e, '-');
                if (!dash || dash == e || strchr(e, ' '))
                        continue;
                if (phase_word(e, (size_t)(dash - e), name, sizeof(name)) < 0)
                        continue;
                if (strcmp(dash + 1, "start") == 0) {
                        if (np == max || phase_find(ret, np, name))
                                continue;
                        ret[np] = (struct vmstat_phase){ .from = t[i], .to = INFINITY };
                        strcpy(ret[np].name, name);
                        np++;
                } else if (strcmp(dash + 1, "end") == 0) {
                        struct vmstat_phase *ph = phase_find(ret, np, name);
                        if (ph && ph != open && isinf(ph->to) && t[i] >= ph->from)
                                ph->to = t[i];
                }
        }
        return np;
}
