/* report/svg: the charts of the site, written as inline SVG through the
 * escaping page writer (report/html.h), so a kernel name in a legend is as
 * safe as one in a table. Two kinds: line charts over time (vmstat
 * columns, the FTP transfer) with shaded intervals (writeout stalls,
 * transfer halts) and vertical phase marks, horizontal bar charts of
 * means with 95 % confidence whiskers, and strip charts of samples (every
 * value a dot, with the median and the mean's 95 % interval). Charts are drawn in a fixed
 * viewBox and scale to their container, so they read at 1280 px and on a
 * phone; no script, no external resource.
 *
 * Long series are reduced for display to at most four points per pixel
 * column (first, min, max, last of the column, in time order): the drawn
 * line is the same as the full one's, and a one-sample dip is never
 * averaged away. The full data stays in the database. */
#pragma once

#include <stddef.h>

#include "report/html.h"

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
        const char *label;         /* drawn at the top of the mark; may be NULL */
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
        int width, height;         /* viewBox; 0 for the default 640 x 260 */
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
};

struct svg_bar_chart {
        const char *title;
        const char *unit;
        const struct svg_bar *bars;
        size_t n_bars;
        int width;                 /* viewBox width; 0 for 640 */
};

/* Draw a horizontal bar chart of means with whiskers into h. */
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
        int width;                 /* viewBox width; 0 for 640 */
};

/* Draw the samples of each row as dots along a value axis (spread across
 * the row by svg_strip_offset, so equal values stay apart), the median as
 * a tall tick and the mean's interval as a whisker below them: the
 * distribution, not only its mean. The axis is the samples' range, not
 * from zero. */
void svg_strip_chart(struct html *h, const struct svg_strip_chart *c);

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
