/* report/svg: the charts of the site, written as inline SVG through the
 * escaping page writer (report/html.h), so a kernel name in a legend is as
 * safe as one in a table. Line charts over time (vmstat
 * columns, the FTP transfer) with shaded intervals (writeout stalls,
 * transfer halts) and vertical phase marks, horizontal bar charts of
 * means with 95 % confidence whiskers, strip charts of samples (every
 * value a dot, with the median and the mean's 95 % interval), and forest
 * plots of a comparison's changes with their intervals. Charts are drawn
 * in a fixed viewBox and scale to their container, never below the
 * viewBox's width, so their text reads at 12 px or more; no script, no
 * external resource. A chart that would not fit a phone at that size is
 * drawn a second time, narrow (SVG_NARROW): fewer ticks, a label that
 * does not fit beside its row above it, phase labels staggered or left
 * out; the page's style sheet shows one of the two.
 *
 * Long series are reduced for display to at most four points per pixel
 * column (first, min, max, last of the column, in time order): the drawn
 * line is the same as the full one's, and a one-sample dip is never
 * averaged away. The full data stays in the database. */
#pragma once

#include <stddef.h>

#include "report/html.h"

/* The viewBox widths of a chart, wide and narrow, and the smallest font
 * size in it. A chart struct's width 0 draws both: <svg class="chart
 * wide"> SVG_WIDTH units wide, then <svg class="chart narrow">
 * SVG_NARROW wide. The site's style sheet (web/page.c) shows the narrow
 * one on a phone and the wide one elsewhere, and never draws either
 * narrower than its viewBox, so a label is never smaller than
 * SVG_FONT_MIN px. A width > 0 draws one <svg class="chart"> that wide. */
#define SVG_WIDTH 560
#define SVG_NARROW 320
#define SVG_FONT_MIN 12

/* One line. t ascending; v NAN breaks the line (a sample the guest did
 * not report). Borrowed by the chart call. */
struct svg_series {
        const char *label;         /* legend text */
        const double *t;           /* x, in the chart's x unit */
        const double *v;           /* y, in the chart's y unit */
        size_t n;
        int color;                 /* palette index (wraps) */
        int dashed;                /* second side of an overlay */
};

struct svg_band {
        double t0, t1;             /* shaded interval, x unit */
};

struct svg_mark {
        double t;                  /* x unit */
        const char *label;         /* drawn at the top of the mark where it finds room (else only the
                                      mark's tooltip says it); may be NULL */
};

struct svg_line_chart {
        const char *title;
        const char *x_unit;        /* "s": the x axis reads "time (s)" */
        const char *x_label;       /* the x axis caption instead ("run"); NULL: time */
        int x_integer;             /* x is a count (run ids): ticks on integers only */
        int markers;               /* a dot on every point (few points: runs) */
        int y_fit;                 /* y over the data's range, not from zero: a level over runs, where
                                      a few per cent must show */
        const char *y_unit;        /* "KiB/s", "%" */
        const struct svg_series *series;
        size_t n_series;
        const struct svg_band *bands;
        size_t n_bands;
        const char *band_label;    /* legend text of the bands ("writeout stall"); NULL: none */
        const struct svg_mark *marks;
        size_t n_marks;
        int width, height;         /* viewBox; width 0: wide and narrow (above), height 0: 260 */
};

/* Draw a line chart into h (an <svg> element). Empty series, all-NAN
 * series and single points are drawn (a point as a dot; a chart without
 * data says so). */
void svg_line_chart(struct html *h, const struct svg_line_chart *c);

struct svg_bar {
        const char *label;         /* row label (a kernel name) */
        double mean;
        double lo, hi;             /* 95 % interval; NAN: no whisker */
        int color;
        const char *value;         /* the mean as text at the bar's end ("289 µs"); NULL: the mean with
                                      three significant digits */
};

struct svg_bar_chart {
        const char *title;
        const char *unit;
        const struct svg_bar *bars;
        size_t n_bars;
        int width;                 /* viewBox width; 0: wide and narrow (above) */
};

/* Draw a horizontal bar chart of means with whiskers into h. Labels sit
 * left of their bars, or above them when the widest would take more than
 * two fifths of the width. */
void svg_bar_chart(struct html *h, const struct svg_bar_chart *c);

/* One row of a strip chart: a side's samples. */
struct svg_strip {
        const char *label;         /* row label ("A") */
        const double *v;           /* the samples; non-finite ones are left out */
        size_t n;
        double median;             /* NAN: not drawn */
        double mean, lo, hi;       /* the mean and its 95 % interval; NAN: not drawn */
        int color;
};

struct svg_strip_chart {
        const char *title;
        const char *unit;
        const struct svg_strip *rows;
        size_t n_rows;
        int width;                 /* viewBox width; 0: wide and narrow (above) */
};

/* Draw the samples of each row as dots along a value axis (spread across
 * the row by svg_strip_offset, so equal values stay apart), the median as
 * a tall tick and the mean's interval as a whisker below them: the
 * distribution, not only its mean. The axis is the samples' range, not
 * from zero. */
void svg_strip_chart(struct html *h, const struct svg_strip_chart *c);

/* How a forest plot row is coloured: by its verdict. */
enum svg_tone {
        SVG_TONE_NONE,             /* no verdict (~, n too small, ...): grey */
        SVG_TONE_WORSE,
        SVG_TONE_BETTER,
};

/* One row of a forest plot: one metric's change and its 95 % interval. */
struct svg_forest_row {
        const char *label;         /* the metric */
        const char *value;         /* the change as the tables print it ("+4.6%", "+1.05 s"), drawn at the
                                      right; NULL: none */
        double est, lo, hi;        /* the change and its interval in the panel's unit; NAN: not drawn */
        double band;               /* half-width of the band around 0 inside which no change is a verdict
                                      (the noise band, or an amount's floor), panel's unit; 0 or NAN: none */
        enum svg_tone tone;
};

/* Rows that share an axis: one unit. */
struct svg_forest_panel {
        const char *axis;          /* the axis caption: "change, % of A", "difference, s" */
        const struct svg_forest_row *rows;
        size_t n_rows;
};

struct svg_forest_chart {
        const char *title;
        const struct svg_forest_panel *panels;
        size_t n_panels;
        int width;                 /* viewBox width; 0: wide and narrow (above) */
};

/* Draw a forest plot: per panel, its caption, then a row per metric: the
 * label, the change as text, and on the panel's axis the change as a dot,
 * its interval as a whisker and its no-verdict band shaded around a
 * vertical line at 0, coloured by verdict; the axis's ticks below the
 * rows. Each row is a <g class="forest-row">. The labels take a column
 * left of the changes where it leaves the plot SVG_NARROW / 2 units;
 * otherwise (the narrow variant) each sits above its row. */
void svg_forest_chart(struct html *h, const struct svg_forest_chart *c);

/* The pieces, exported for the tests. */

/* Where sample i sits across its row, in -0.5 .. 0.5 of the row's height:
 * the fractional parts of i times the golden ratio, so neighbours are far
 * apart and the same samples always draw the same. */
double svg_strip_offset(size_t i);

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving about target
 * intervals over span. span <= 0 or not finite: 1. */
double svg_nice_step(double span, int target);

/* Widen [*lo, *hi] to multiples of a nice step and list the ticks.
 * lo == hi is widened first. Returns the number of ticks written to
 * ret_ticks (at most max). OUT: *ret_step. */
size_t svg_ticks(double *lo, double *hi, int target, double *ret_ticks, size_t max, double *ret_step);

/* Format a tick value with as many decimals as step needs, with a k/M/G
 * suffix for large values ("20k", "1.5M", "0.25"). */
void svg_format_tick(double v, double step, char *buf, size_t size);

struct svg_point {
        double t, v;               /* v NAN: a break in the line */
};

/* Reduce (t, v) to at most 4 points per column of [t0, t1] split into
 * `columns` columns: first, min, max, last of each column, in index order;
 * a NAN value becomes one break point. Returns the number of points;
 * OUT: *ret_points (g_free; NULL when 0). */
size_t svg_downsample(const double *t, const double *v, size_t n, double t0, double t1, size_t columns,
                      struct svg_point **ret_points);
