/* web/charts: chart data of a cell and the chart layout (see charts.h).
 * The stall runs and halts shaded are found by the functions the cell's
 * vmstat.stall_* and ftp.halt_* were computed with (vmstat_stall_spans(),
 * ftp_halt_next() of workloads/workload.h) with the same arguments, over
 * the stored rows; cell/test-cellrows.c checks that they agree.
 * Everything is read from stored rows (vmstat, timeline, marks), never from
 * the raw ttyS1 log: the record parser's reader of stored logs is the
 * store's (db_marks_from_log() of results/db.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/charts.h"
#include "workloads/workload.h"

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

/* Guest clock -> host clock: the median of t_host - t_guest over the rows
 * (each row is stamped by both), NAN when no row has both. */
static double clock_offset(const struct db_vmstat_row *rows, size_t n) {
        g_autofree double *d = g_new(double, n ? n : 1);
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (isfinite(rows[i].t_host) && isfinite(rows[i].t_guest))
                        d[k++] = rows[i].t_host - rows[i].t_guest;
        if (k == 0)
                return NAN;
        qsort(d, k, sizeof(*d), cmp_double);
        return k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
}

/* Phase marks: the guest's events as stored (results marks), moved to the
 * host clock by the vmstat rows' offset (the arrival of one record is
 * later than its making by the serial line's lag; the median over every
 * row cancels it), or at their own host time where no row ties the
 * clocks. "phase X" is labelled X; the agent's "mounted" is not a phase
 * of the workload. */
static void load_marks(const struct query_mark *m, size_t n, double offset, GArray *marks) {
        for (size_t i = 0; i < n; i++) {
                const char *label = m[i].name;
                double t = isfinite(offset) ? m[i].t_guest + offset : m[i].t_host;
                struct svg_mark mark;

                if (strcmp(label, "mounted") == 0 || !isfinite(t))
                        continue;
                if (strncmp(label, "phase ", 6) == 0 && label[6])
                        label += 6;
                mark.t = t;
                mark.label = g_strndup(label, 40);
                g_array_append_val(marks, mark);
        }
}

/* The window of the workload's main phase on the rows' clock: its stored
 * timeline points "phase.<main>", or for older cells the workload's
 * window series; NANs (the whole capture) when there is neither. */
static void main_window(const struct workload_ops *ops, const struct query_point *pts, size_t n_pts,
                        double *ret_from, double *ret_to) {
        g_autofree char *main_kind = ops && ops->vmstat_main ? g_strconcat("phase.", ops->vmstat_main, NULL) : NULL;
        const char *kind = ops ? ops->vmstat_window : NULL;
        double from = NAN, to = NAN;

        for (size_t i = 0; main_kind && i < n_pts; i++)
                if (strcmp(pts[i].kind, main_kind) == 0)
                        kind = main_kind;
        for (size_t i = 0; kind && i < n_pts; i++) {
                if (strcmp(pts[i].kind, kind) != 0)
                        continue;
                from = isnan(from) || pts[i].t < from ? pts[i].t : from;
                to = isnan(to) || pts[i].t > to ? pts[i].t : to;
        }
        *ret_from = from;
        *ret_to = to;
}

/* Writeout stall runs: the spans vmstat_stall_spans() finds, the function
 * behind the cell's vmstat.stall_* metrics, with the runner's arguments
 * (VMSTAT_BO_THRESHOLD, the run's own vmstat interval, the main phase's
 * window as vmstat_phase_window() counts it). A stored cell is one
 * capture. Each band ends at its last row (a row stamped t describes the
 * interval before t) and lasts the run's seconds, so its width is the
 * duration the metrics add up. */
static void load_stalls(const struct view_cell *v, GArray *out) {
        const struct db_vmstat_row *rows = v->vmstat;
        size_t n = v->n_vmstat, n_spans = 0;
        g_autofree struct vmstat_stall_sample *in = g_new(struct vmstat_stall_sample, n ? n : 1);
        struct vmstat_stall_span *spans = NULL;
        double from, to;

        main_window(workload_find(v->cell->workload), v->points, v->n_points, &from, &to);
        vmstat_phase_window(from, to, v->vmstat_interval_s, &from, &to);
        for (size_t i = 0; i < n; i++)
                in[i] = (struct vmstat_stall_sample){ rows[i].t_host, rows[i].v[DB_VM_bo], rows[i].first, 0 };
        if (vmstat_stall_spans(in, n, VMSTAT_BO_THRESHOLD, v->vmstat_interval_s, from, to, &spans, &n_spans) < 0)
                return;
        for (size_t i = 0; i < n_spans; i++) {
                double end = rows[spans[i].last].t_host;
                struct svg_band b = { end - spans[i].seconds, end };

                if (isfinite(b.t0) && isfinite(b.t1))
                        g_array_append_val(out, b);
        }
        free(spans);
}

/* Halts of the transfer, by the rule of ftp_halts(). */
static void load_halts(const double *t, const double *b, size_t n, GArray *out) {
        for (size_t pos = 0, first, last; ftp_halt_next(t, b, n, FTP_HALT_MIN_S, &pos, &first, &last);) {
                struct svg_band h = { t[first], t[last] };

                g_array_append_val(out, h);
        }
}

void charts_load(const struct view_cell *v, struct cell_charts *ret) {
        const struct db_vmstat_row *rows = v->vmstat;
        const struct query_point *pts = v->points;
        size_t n_rows = v->n_vmstat, n_pts = v->n_points, k = 0;
        struct cell_charts c = { 0 };
        GArray *stalls, *marks, *halts;

        c.t = g_new(double, n_rows ? n_rows : 1);
        for (int j = 0; j < DB_VM_NCOLS; j++)
                c.col[j] = g_new(double, n_rows ? n_rows : 1);
        for (size_t i = 0; i < n_rows; i++) {
                if (rows[i].first || !isfinite(rows[i].t_host))
                        continue;
                c.t[k] = rows[i].t_host;
                for (int j = 0; j < DB_VM_NCOLS; j++)
                        c.col[j][k] = rows[i].v[j];
                k++;
        }
        c.n = k;
        c.interval_s = v->vmstat_interval_s;

        stalls = g_array_new(FALSE, FALSE, sizeof(struct svg_band));
        load_stalls(v, stalls);
        marks = g_array_new(FALSE, FALSE, sizeof(struct svg_mark));
        load_marks(v->marks, v->n_marks, clock_offset(rows, n_rows), marks);

        c.ftp_t = g_new(double, n_pts ? n_pts : 1);
        c.ftp_mib = g_new(double, n_pts ? n_pts : 1);
        for (size_t i = 0; i < n_pts; i++)
                if (strcmp(pts[i].kind, "ftp.bytes") == 0 && isfinite(pts[i].t) && isfinite(pts[i].value)) {
                        c.ftp_t[c.n_ftp] = pts[i].t;
                        c.ftp_mib[c.n_ftp++] = pts[i].value / (1024.0 * 1024.0);
                }
        halts = g_array_new(FALSE, FALSE, sizeof(struct svg_band));
        load_halts(c.ftp_t, c.ftp_mib, c.n_ftp, halts);

        c.n_stalls = stalls->len;
        c.stalls = (struct svg_band *)(void *)g_array_free(stalls, FALSE);
        c.n_marks = marks->len;
        c.marks = (struct svg_mark *)(void *)g_array_free(marks, FALSE);
        c.n_halts = halts->len;
        c.halts = (struct svg_band *)(void *)g_array_free(halts, FALSE);
        *ret = c;
}

void charts_free(struct cell_charts *c) {
        g_free(c->t);
        for (int j = 0; j < DB_VM_NCOLS; j++)
                g_free(c->col[j]);
        g_free(c->stalls);
        for (size_t i = 0; i < c->n_marks; i++)
                g_free((char *)c->marks[i].label);
        g_free(c->marks);
        g_free(c->ftp_t);
        g_free(c->ftp_mib);
        g_free(c->halts);
        memset(c, 0, sizeof(*c));
}

/* One chart of vmstat columns. scale divides the stored values (KiB ->
 * MiB for the memory chart). */
struct chart_def {
        const char *title;
        const char *unit;
        int cols[4];
        const char *names[4];
        double scale;
};

static const struct chart_def vmstat_charts[] = {
        { "Block I/O: bi (read), bo (written)", "blocks/s (1 KiB)", { DB_VM_bi, DB_VM_bo, -1, -1 },
          { "bi", "bo" }, 1 },
        { "Swap: si (in), so (out)", "KiB/s", { DB_VM_si, DB_VM_so, -1, -1 }, { "si", "so" }, 1 },
        { "CPU: us, sy, id, wa", "%", { DB_VM_us, DB_VM_sy, DB_VM_id, DB_VM_wa }, { "us", "sy", "id", "wa" }, 1 },
        { "Memory: free, cache, Dirty, Writeback", "MiB",
          { DB_VM_free, DB_VM_cache, DB_VM_dirty, DB_VM_writeback }, { "free", "cache", "Dirty", "Writeback" },
          1024 },
};

static void figure(struct html *h, const struct svg_line_chart *lc, const char *caption) {
        html_start(h, "figure");
        svg_line_chart(h, lc);
        if (caption)
                html_elem(h, "figcaption", caption);
        html_end(h);
}

void charts_vmstat(struct html *h, const struct cell_charts *const *sides, const char *const *labels,
                   size_t n_sides) {
        html_start(h, "div");
        html_attr(h, "class", "charts");
        for (size_t k = 0; k < G_N_ELEMENTS(vmstat_charts); k++) {
                const struct chart_def *d = &vmstat_charts[k];
                struct svg_series series[8];
                char *names[8] = { 0 };
                double *scaled[8] = { 0 };
                size_t ns = 0;
                struct svg_line_chart lc = {
                        .title = d->title, .x_unit = "s", .y_unit = d->unit,
                        .bands = n_sides ? sides[0]->stalls : NULL, .n_bands = n_sides ? sides[0]->n_stalls : 0,
                        .band_label = "writeout stall (bo <= 100)",
                        .marks = n_sides ? sides[0]->marks : NULL, .n_marks = n_sides ? sides[0]->n_marks : 0,
                };

                for (size_t s = 0; s < n_sides && s < 2; s++)
                        for (int j = 0; j < 4 && d->cols[j] >= 0; j++) {
                                const struct cell_charts *c = sides[s];
                                double *v = c->col[d->cols[j]];

                                if (d->scale != 1) {
                                        scaled[ns] = g_new(double, c->n ? c->n : 1);
                                        for (size_t i = 0; i < c->n; i++)
                                                scaled[ns][i] = v[i] / d->scale;
                                        v = scaled[ns];
                                }
                                names[ns] = n_sides > 1 ? g_strdup_printf("%s %s", d->names[j], labels[s])
                                                        : g_strdup(d->names[j]);
                                series[ns] = (struct svg_series){ .label = names[ns], .t = c->t, .v = v,
                                                                  .n = c->n, .color = j, .dashed = s == 1 };
                                ns++;
                        }
                lc.series = series;
                lc.n_series = ns;
                figure(h, &lc, NULL);
                for (size_t i = 0; i < ns; i++) {
                        g_free(names[i]);
                        g_free(scaled[i]);
                }
        }
        html_end(h);
}

void charts_ftp(struct html *h, const struct cell_charts *const *sides, const char *const *labels,
                size_t n_sides) {
        struct svg_series series[2];
        size_t ns = 0;
        struct svg_line_chart lc = { .title = "FTP transfer: data accepted by the server", .x_unit = "s",
                                     .y_unit = "MiB", .band_label = "halt (no bytes for >= 1 s)" };

        for (size_t s = 0; s < n_sides && s < 2; s++) {
                if (sides[s]->n_ftp == 0)
                        continue;
                series[ns] = (struct svg_series){ .label = n_sides > 1 ? labels[s] : "bytes accepted",
                                                  .t = sides[s]->ftp_t, .v = sides[s]->ftp_mib,
                                                  .n = sides[s]->n_ftp, .color = (int)s, .dashed = s == 1 };
                ns++;
        }
        if (ns == 0)
                return;
        lc.series = series;
        lc.n_series = ns;
        /* halts of the first side that has a transfer */
        for (size_t s = 0; s < n_sides; s++)
                if (sides[s]->n_ftp) {
                        lc.bands = sides[s]->halts;
                        lc.n_bands = sides[s]->n_halts;
                        lc.marks = sides[s]->marks;
                        lc.n_marks = sides[s]->n_marks;
                        break;
                }
        html_start(h, "div");
        html_attr(h, "class", "charts");
        figure(h, &lc, NULL);
        html_end(h);
}
