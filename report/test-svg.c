/* Tests of the chart writer: nice tick steps and ranges, tick labels,
 * min/max downsampling that keeps a one-sample dip, charts of empty,
 * all-NAN and single-point series, escaped text in every label, and
 * forest plots. */
#include <math.h>
#include <stdlib.h>

#include "common/test.h"
#include "report/svg.h"

TEST_MAIN();

TEST(nice_step) {
        ASSERT_NEAR(svg_nice_step(10, 5), 2, 1e-12);
        ASSERT_NEAR(svg_nice_step(100, 5), 20, 1e-12);
        ASSERT_NEAR(svg_nice_step(1, 4), 0.2, 1e-12);
        ASSERT_NEAR(svg_nice_step(7, 8), 1, 1e-12);
        ASSERT_NEAR(svg_nice_step(163000, 5), 50000, 1e-9);
        ASSERT_NEAR(svg_nice_step(0.03, 5), 0.005, 1e-15);
        ASSERT_NEAR(svg_nice_step(0, 5), 1, 1e-12);
        ASSERT_NEAR(svg_nice_step(NAN, 5), 1, 1e-12);
}

TEST(ticks) {
        double t[32], step, lo = 0, hi = 97;
        size_t n = svg_ticks(&lo, &hi, 5, t, 32, &step);

        ASSERT_NEAR(step, 20, 1e-12);
        ASSERT_NEAR(lo, 0, 1e-12);
        ASSERT_NEAR(hi, 100, 1e-12);
        ASSERT_EQ(n, 6);
        for (size_t i = 0; i < n; i++)
                ASSERT_NEAR(t[i], 20.0 * (double)i, 1e-9);

        /* not starting at zero, fractional step */
        lo = 1.23;
        hi = 1.87;
        n = svg_ticks(&lo, &hi, 5, t, 32, &step);
        ASSERT_NEAR(step, 0.1, 1e-12);
        ASSERT_NEAR(lo, 1.2, 1e-9);
        ASSERT_NEAR(hi, 1.9, 1e-9);
        ASSERT_EQ(n, 8);
        ASSERT_NEAR(t[7], 1.9, 1e-9);

        /* a flat series still gets a range */
        lo = hi = 42;
        n = svg_ticks(&lo, &hi, 5, t, 32, &step);
        ASSERT_TRUE(lo < 42 && hi > 42);
        ASSERT_TRUE(n >= 2);
        lo = hi = 0;
        n = svg_ticks(&lo, &hi, 5, t, 32, &step);
        ASSERT_NEAR(lo, 0, 1e-12);
        ASSERT_TRUE(hi > 0);

        /* negative values: zero is a tick */
        lo = -3;
        hi = 7;
        n = svg_ticks(&lo, &hi, 5, t, 32, &step);
        ASSERT_NEAR(step, 2, 1e-12);
        ASSERT_NEAR(lo, -4, 1e-12);
        ASSERT_NEAR(t[2], 0, 1e-12);
        ASSERT_TRUE(signbit(t[2]) == 0);
        (void)n;

        /* the output bound is respected */
        lo = 0;
        hi = 100;
        ASSERT_EQ(svg_ticks(&lo, &hi, 50, t, 4, &step), 4);
}

TEST(tick_labels) {
        char b[32];

        svg_format_tick(40, 20, b, sizeof(b));
        ASSERT_STREQ(b, "40");
        svg_format_tick(0.25, 0.05, b, sizeof(b));
        ASSERT_STREQ(b, "0.25");
        svg_format_tick(1.5, 0.5, b, sizeof(b));
        ASSERT_STREQ(b, "1.5");
        svg_format_tick(150000, 50000, b, sizeof(b));
        ASSERT_STREQ(b, "150k");
        svg_format_tick(2500000, 500000, b, sizeof(b));
        ASSERT_STREQ(b, "2.5M");
        svg_format_tick(0, 50000, b, sizeof(b));
        ASSERT_STREQ(b, "0");
        svg_format_tick(-1e-17, 0.1, b, sizeof(b));
        ASSERT_STREQ(b, "0.0");
        svg_format_tick(800, 200, b, sizeof(b));
        ASSERT_STREQ(b, "800");
}

TEST(downsample_keeps_dip) {
        enum { N = 100000, DIP = 61234 };
        double *t = g_new(double, N), *v = g_new(double, N);
        struct svg_point *p = NULL;
        size_t n, found = 0;

        for (size_t i = 0; i < N; i++) {
                t[i] = (double)i * 0.01;
                v[i] = 150.0 + 5.0 * sin((double)i / 300.0);
        }
        v[DIP] = 3.0;          /* one sample of a stall */
        n = svg_downsample(t, v, N, t[0], t[N - 1], 600, &p);
        ASSERT_TRUE(n <= 4 * 600);
        ASSERT_TRUE(n >= 600);
        for (size_t i = 0; i < n; i++) {
                if (p[i].v == 3.0 && p[i].t == t[DIP])
                        found++;
                if (i > 0)
                        ASSERT_TRUE(p[i].t >= p[i - 1].t);
        }
        ASSERT_EQ(found, 1);
        /* and the spike the other way */
        v[DIP] = 1e6;
        g_free(p);
        n = svg_downsample(t, v, N, t[0], t[N - 1], 600, &p);
        found = 0;
        for (size_t i = 0; i < n; i++)
                found += p[i].v == 1e6;
        ASSERT_EQ(found, 1);
        g_free(p);
        g_free(t);
        g_free(v);
}

TEST(downsample_small_and_gaps) {
        double t[] = { 0, 1, 2, 3, 4, 5 };
        double v[] = { 1, 2, NAN, NAN, 5, 6 };
        struct svg_point *p = NULL;
        size_t n = svg_downsample(t, v, 6, 0, 5, 600, &p);

        /* short series pass whole; the two NANs make one break */
        ASSERT_EQ(n, 5);
        ASSERT_NEAR(p[1].v, 2, 1e-12);
        ASSERT_TRUE(isnan(p[2].v));
        ASSERT_NEAR(p[3].v, 5, 1e-12);
        g_free(p);

        ASSERT_EQ(svg_downsample(t, v, 0, 0, 1, 600, &p), 0);
        ASSERT_TRUE(p == NULL);
        n = svg_downsample(t, v, 1, 0, 0, 600, &p);
        ASSERT_EQ(n, 1);
        g_free(p);
}

static char *render_line(const struct svg_series *s, size_t ns) {
        struct html *h = html_new();
        struct svg_band band = { 2, 3 };
        struct svg_mark mark[] = { { 1, "write" }, { 4, "read" } };
        struct svg_line_chart c = {
                .title = "bo <blocks>", .x_unit = "s", .y_unit = "KiB/s",
                .series = s, .n_series = ns, .bands = &band, .n_bands = 1, .band_label = "stall",
                .marks = mark, .n_marks = 2, .width = SVG_WIDTH,
        };
        char *buf;
        size_t len;

        svg_line_chart(h, &c);
        ASSERT_EQ(html_finish(h, &buf, &len), 0);
        return buf;
}

TEST(empty_series) {
        struct svg_series s = { .label = "bo", .n = 0 };
        g_autofree char *svg = render_line(&s, 1);
        g_autofree char *none = render_line(NULL, 0);

        ASSERT_TRUE(strncmp(svg, "<svg ", 5) == 0);
        ASSERT_TRUE(strstr(svg, "no data") != NULL);
        ASSERT_EQ(test_occurrences(svg, "<path"), 0);
        ASSERT_TRUE(strstr(svg, "nan") == NULL && strstr(svg, "inf") == NULL);
        ASSERT_TRUE(strstr(none, "no data") != NULL);
        ASSERT_TRUE(strstr(none, "</svg>") != NULL);
}

TEST(all_nan_series) {
        double t[] = { 0, 1, 2 }, v[] = { NAN, NAN, NAN };
        struct svg_series s = { .label = "si", .t = t, .v = v, .n = 3 };
        g_autofree char *svg = render_line(&s, 1);

        ASSERT_TRUE(strstr(svg, "no data") != NULL);
        ASSERT_TRUE(strstr(svg, "nan") == NULL);
}

TEST(single_point) {
        double t[] = { 7 }, v[] = { 120 };
        struct svg_series s = { .label = "bo", .t = t, .v = v, .n = 1 };
        g_autofree char *svg = render_line(&s, 1);

        /* a single point is a dot, not an invisible one-vertex path */
        ASSERT_EQ(test_occurrences(svg, "<circle"), 1);
        ASSERT_TRUE(strstr(svg, "no data") == NULL);
        ASSERT_TRUE(strstr(svg, "nan") == NULL && strstr(svg, "inf") == NULL);
}

TEST(line_chart_parts) {
        double t[] = { 0, 1, 2, 3, 4, 5 }, v[] = { 10, 20, 0, 0, 30, 25 };
        struct svg_series s[] = {
                { .label = "<img src=x onerror=alert(1)>", .t = t, .v = v, .n = 6, .color = 0 },
                { .label = "B", .t = t, .v = v, .n = 6, .color = 1, .dashed = 1 },
        };
        g_autofree char *svg = render_line(s, 2);

        ASSERT_EQ(test_occurrences(svg, "<path"), 2);
        ASSERT_EQ(test_occurrences(svg, "stroke-dasharray=\"5 3\""), 2);     /* one path, one legend line */
        ASSERT_TRUE(strstr(svg, "<img") == NULL);
        ASSERT_TRUE(strstr(svg, "&lt;img src&#61;x") == NULL);   /* text context: = kept */
        ASSERT_TRUE(strstr(svg, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
        ASSERT_TRUE(strstr(svg, "bo &lt;blocks&gt;") != NULL);
        ASSERT_TRUE(strstr(svg, ">write<") != NULL && strstr(svg, ">read<") != NULL);
        ASSERT_TRUE(strstr(svg, ">stall<") != NULL);
        ASSERT_TRUE(strstr(svg, ">KiB/s<") != NULL);
        ASSERT_TRUE(strstr(svg, ">time (s)<") != NULL);
        ASSERT_TRUE(strstr(svg, "fill-opacity=\"0.2\"") != NULL);   /* the band */
        ASSERT_TRUE(strstr(svg, "no data") == NULL);
}

TEST(bar_chart) {
        struct svg_bar bars[] = {
                { "6.1.0-47-amd64", 160.5, 150.0, 171.0, 0, NULL },
                { "\"><script>alert(1)</script>", 140.0, NAN, NAN, 1, NULL },
                { "a-very-long-kernel-name-that-does-not-fit", 10, 9, 11, 2, NULL },
        };
        struct svg_bar_chart c = { .title = "dd.write_MBps", .unit = "MB/s", .bars = bars, .n_bars = 3,
                                   .width = SVG_WIDTH };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        size_t len;

        svg_bar_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_EQ(test_occurrences(svg, "<rect"), 3);
        /* whiskers: 3 lines each for the two bars with an interval */
        ASSERT_EQ(test_occurrences(svg, "stroke=\"#111\""), 6);
        ASSERT_TRUE(strstr(svg, "<script") == NULL);
        ASSERT_TRUE(strstr(svg, "a-very-long-kernel-nam\xe2\x80\xa6") != NULL);
        ASSERT_TRUE(strstr(svg, ">160<") != NULL || strstr(svg, ">161<") != NULL);

        h = html_new();
        c.n_bars = 0;
        g_free(svg);
        svg_bar_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_TRUE(strstr(svg, "no data") != NULL);
}

/* A level over runs fits its data: 100 to 102 does not start at 0. */
TEST(y_fit) {
        double t[] = { 3, 4 }, v[] = { 100, 102 };
        struct svg_series s = { .label = "a", .t = t, .v = v, .n = 2 };
        struct svg_line_chart c = { .title = "x", .x_label = "run", .x_integer = 1, .series = &s, .n_series = 1 };
        struct html *h = html_new();
        g_autofree char *zero = NULL, *fit = NULL;
        size_t len;

        svg_line_chart(h, &c);
        ASSERT_EQ(html_finish(h, &zero, &len), 0);
        h = html_new();
        c.y_fit = 1;
        svg_line_chart(h, &c);
        ASSERT_EQ(html_finish(h, &fit, &len), 0);
        ASSERT_TRUE(strstr(zero, ">0</text>") != NULL);
        ASSERT_TRUE(strstr(fit, ">0</text>") == NULL && strstr(fit, ">100") != NULL);
}

TEST(integer_x_axis) {
        double t[] = { 3, 4 }, v[] = { 100, 102 };
        struct svg_series s = { .label = "6.1.0-57-amd64", .t = t, .v = v, .n = 2 };
        struct svg_line_chart c = { .title = "dd.write_MBps", .x_label = "run", .x_integer = 1, .markers = 1,
                                    .y_unit = "MB/s", .series = &s, .n_series = 1, .width = SVG_WIDTH };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        size_t len;

        svg_line_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_TRUE(strstr(svg, ">run<") != NULL);
        ASSERT_TRUE(strstr(svg, "time (") == NULL);
        /* runs 3 and 4: no tick at 3.2 or 3.5 */
        ASSERT_TRUE(strstr(svg, ">3.") == NULL);
        ASSERT_TRUE(strstr(svg, ">3<") != NULL && strstr(svg, ">4<") != NULL);
        ASSERT_EQ(test_occurrences(svg, "<circle"), 2);      /* a dot per run */
}

/* A bar without a mean (every value n/a) and bars near DBL_MAX: labels and
 * titles say n/a or a number of its own size, never "nan" or a number cut
 * to a buffer. */
/* Times and values no run gives, from a hand-edited store: near DBL_MAX of
 * both signs, so the axis spans more than a double holds. Every chart
 * ends (marks' labels were grouped by an x that was NaN, and the loop
 * never advanced) and says no "nan" or "inf" anywhere. */
TEST(line_chart_span_beyond_double) {
        double t[] = { 0, 1.7e308, 2 }, v[] = { -1.7e308, 5, 1.7e308 };
        struct svg_series s = { .label = "bo", .t = t, .v = v, .n = 3 };
        struct svg_mark marks[] = { { 1.7e308, "far" }, { -1.7e308, "before" }, { 1, "write" }, { NAN, "nan" } };
        struct svg_band band = { -1.7e308, 1.7e308 };
        struct svg_line_chart c = { .title = "t", .x_unit = "s", .series = &s, .n_series = 1,
                                    .marks = marks, .n_marks = 4, .bands = &band, .n_bands = 1 };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        size_t len;

        svg_line_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_TRUE(strstr(svg, "nan\"") == NULL && strstr(svg, "\"nan") == NULL);
        ASSERT_TRUE(strstr(svg, "inf") == NULL);
        ASSERT_TRUE(strstr(svg, ">far<") != NULL || strstr(svg, "far,") != NULL || strstr(svg, ", far") != NULL);
}

TEST(bar_chart_odd_values) {
        struct svg_bar bars[] = {
                { "none", NAN, NAN, NAN, 0, NULL },
                { "huge", 4e307, 3e307, 5e307, 1, NULL },
        };
        struct svg_bar_chart c = { .title = "dd.write_MBps", .unit = "MB/s", .bars = bars, .n_bars = 2 };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        size_t len;
        int digits = 0;

        svg_bar_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_TRUE(strstr(svg, "nan") == NULL);
        ASSERT_TRUE(strstr(svg, "none: n/a") != NULL);
        for (const char *p = svg; *p; p++) {
                digits = *p >= '0' && *p <= '9' ? digits + 1 : 0;
                ASSERT_TRUE(digits < 20);
        }
}

/* The distribution of a comparison's sides: a dot per finite sample (equal
 * values spread across the row, not drawn on top of each other), the
 * median, the mean's whisker, the labels escaped; an empty chart says so. */
TEST(strip_chart) {
        double a[] = { 100, 100, 100, 104, NAN }, b[] = { 60, 61 };
        struct svg_strip rows[] = {
                { .label = "A", .v = a, .n = 5, .median = 100, .mean = 101, .lo = 98, .hi = 104, .color = 0 },
                { .label = "<img src=x onerror=alert(1)>", .v = b, .n = 2, .median = 60.5, .mean = NAN, .lo = NAN,
                  .hi = NAN, .color = 1 },
        };
        struct svg_strip_chart c = { .title = "dd.write_MBps", .unit = "MB/s", .rows = rows, .n_rows = 2,
                                     .width = SVG_WIDTH };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        size_t len;
        const char *p;
        int cy[3], k = 0;

        svg_strip_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_EQ(test_occurrences(svg, "<circle"), 6);                 /* the NAN sample is left out */
        ASSERT_TRUE(strstr(svg, ">n=4<") != NULL && strstr(svg, ">n=2<") != NULL);
        /* the three equal samples of A sit at three heights */
        for (p = svg; k < 3 && (p = strstr(p, "<circle ")); p++, k++) {
                const char *y = strstr(p, "cy=\"");

                ASSERT_TRUE(y != NULL);
                cy[k] = (int)(100 * strtod(y + 4, NULL));
        }
        ASSERT_TRUE(cy[0] != cy[1] && cy[1] != cy[2] && cy[0] != cy[2]);
        /* medians: two thick ticks; one whisker of four lines (B has no interval) */
        ASSERT_EQ(test_occurrences(svg, "stroke-width=\"2.5\""), 2);
        ASSERT_EQ(test_occurrences(svg, "stroke-width=\"1.2\""), 4);
        ASSERT_TRUE(strstr(svg, "<img") == NULL && strstr(svg, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
        ASSERT_TRUE(strstr(svg, "nan") == NULL && strstr(svg, "inf") == NULL);
        /* the axis is the samples' range, not from zero: 60 to 104 */
        ASSERT_TRUE(strstr(svg, ">0<") == NULL);

        h = html_new();
        c.n_rows = 0;
        g_free(svg);
        svg_strip_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_TRUE(strstr(svg, "no data") != NULL);
}

TEST(strip_offsets) {
        for (size_t i = 0; i < 1000; i++) {
                double o = svg_strip_offset(i);

                ASSERT_TRUE(o >= -0.5 && o < 0.5);
                ASSERT_TRUE(i == 0 || fabs(o - svg_strip_offset(i - 1)) > 0.05);
        }
}

/* A forest plot: a row per metric in each panel, coloured by verdict, the
 * band shaded, a row without an interval still a row ("n/a"), hostile
 * labels as text, no label below SVG_FONT_MIN, the line at 0 drawn where
 * 0 falls on the axis. */
TEST(forest_chart) {
        struct svg_forest_row ratios[] = {
                { "guest.write.kernel_Minsn", "+4.6%", 4.6, 4.2, 5.0, 2, SVG_TONE_WORSE },
                { "\"><script>alert(1)</script>", NULL, NAN, NAN, NAN, 2, SVG_TONE_NONE },
        };
        struct svg_forest_row amounts[] = {
                { "guest.write.wait_s", "-1.05 s", -1.05, -1.21, -0.88, 0.05, SVG_TONE_BETTER },
        };
        struct svg_forest_panel panels[] = {
                { "change of the mean, % of A", ratios, 2 },
                { "difference of the means, s", amounts, 1 },
        };
        struct svg_forest_chart c = { .title = "dd", .panels = panels, .n_panels = 2, .width = SVG_WIDTH };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        size_t len;

        svg_forest_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_EQ(test_occurrences(svg, "<g class=\"forest-row\">"), 3);
        ASSERT_TRUE(strstr(svg, "<script") == NULL && strstr(svg, "&lt;script&gt;") != NULL);
        ASSERT_TRUE(strstr(svg, ">n/a</text>") != NULL);
        ASSERT_TRUE(strstr(svg, "fill=\"#b3261e\">+4.6%</text>") != NULL);
        ASSERT_TRUE(strstr(svg, "fill=\"#16794a\">-1.05 s</text>") != NULL);
        /* a band per row that has one, a dot per finite change */
        ASSERT_EQ(test_occurrences(svg, "fill-opacity=\"0.22\""), 3);
        ASSERT_EQ(test_occurrences(svg, "<circle"), 2);
        ASSERT_TRUE(strstr(svg, ">change of the mean, % of A</text>") != NULL);
        for (const char *p = svg; (p = strstr(p, "font-size=\"")); p++)
                ASSERT_TRUE(strtol(p + 11, NULL, 10) >= SVG_FONT_MIN);
        ASSERT_TRUE(strstr(svg, "viewBox=\"0 0 560 ") != NULL);
}

/* A long change ("+0.000000981 s") widens the change column rather than
 * running into the metric's label: its text, right-aligned before the
 * plot, starts right of the label column (214 units). */
TEST(forest_chart_long_value) {
        struct svg_forest_row rows[] = {
                { "guest.write.spin_s", "+0.000000981 s", 9.81e-7, 1e-7, 2e-6, 0.005, SVG_TONE_NONE },
        };
        struct svg_forest_panel panels[] = { { "difference of the means, s", rows, 1 } };
        struct svg_forest_chart c = { .title = "dd", .panels = panels, .n_panels = 1, .width = SVG_WIDTH };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        const char *t, *x;
        size_t len;

        svg_forest_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        t = strstr(svg, ">+0.000000981 s</text>");
        ASSERT_TRUE(t != NULL);
        x = g_strrstr_len(svg, t - svg, "<text x=\"");
        ASSERT_TRUE(x != NULL);
        /* the end of the text at x, 14 characters of SVG_FONT_MIN before it */
        ASSERT_TRUE(strtod(x + 9, NULL) - 14 * SVG_FONT_MIN * 0.58 >= 214);
}

/* The viewBox width of the svg element at p. */
static long viewbox_width(const char *p) {
        const char *vb = strstr(p, "viewBox=\"0 0 ");

        ASSERT_TRUE(vb != NULL);
        return strtol(vb + 13, NULL, 10);
}

/* Width 0 draws every kind of chart twice: wide, then narrow, each with
 * the class the page's style sheet picks by. */
TEST(wide_and_narrow) {
        double t[] = { 0, 1 }, v[] = { 1, 2 };
        struct svg_series s = { .label = "bo", .t = t, .v = v, .n = 2 };
        struct svg_bar bar = { "6.1.0-47-amd64", 1, 0.5, 1.5, 0, NULL };
        struct svg_strip strip = { .label = "A", .v = v, .n = 2, .median = 1.5, .mean = NAN, .lo = NAN, .hi = NAN };
        struct svg_forest_row row = { "guest.write.kernel_Minsn", "+4.6%", 4.6, 4.2, 5.0, 2, SVG_TONE_WORSE };
        struct svg_forest_panel panel = { "change of the mean, % of A", &row, 1 };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        const char *p;
        size_t len;

        svg_line_chart(h, &(struct svg_line_chart){ .title = "l", .series = &s, .n_series = 1 });
        svg_bar_chart(h, &(struct svg_bar_chart){ .title = "b", .bars = &bar, .n_bars = 1 });
        svg_strip_chart(h, &(struct svg_strip_chart){ .title = "s", .rows = &strip, .n_rows = 1 });
        svg_forest_chart(h, &(struct svg_forest_chart){ .title = "f", .panels = &panel, .n_panels = 1 });
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_EQ(test_occurrences(svg, "<svg "), 8);
        ASSERT_EQ(test_occurrences(svg, "class=\"chart wide\""), 4);
        ASSERT_EQ(test_occurrences(svg, "class=\"chart narrow\""), 4);
        p = svg;
        for (int i = 0; i < 8; i++) {
                p = strstr(p, "<svg ");
                ASSERT_TRUE(p != NULL);
                ASSERT_EQ(viewbox_width(p), i % 2 ? SVG_NARROW : SVG_WIDTH);
                ASSERT_TRUE(strncmp(strstr(p, "class=\""), i % 2 ? "class=\"chart narrow\"" : "class=\"chart wide\"",
                                    i % 2 ? 20 : 18) == 0);
                p++;
        }
}

/* The x of the <text> element before the one that shows label, and its y
 * (OUT). */
static double text_x(const char *svg, const char *label, double *ret_y) {
        const char *t = strstr(svg, label), *x;

        ASSERT_TRUE(t != NULL);
        x = g_strrstr_len(svg, t - svg, "<text x=\"");
        ASSERT_TRUE(x != NULL);
        *ret_y = strtod(strstr(x, " y=\"") + 4, NULL);
        return strtod(x + 9, NULL);
}

/* A narrow forest plot puts each label above its row, from the left edge,
 * so neither the label nor the change is cut and no text is below 12 px:
 * the label's baseline is above its dot, the change right of the label's
 * start, the plot inside the viewBox. */
TEST(forest_chart_narrow) {
        struct svg_forest_row rows[] = {
                { "guest.drop-caches.kernel_Minsn", "-0.3%", -0.3, -1.1, 0.5, 2, SVG_TONE_NONE },
                { "guest.write.wait_s", "+330 µs", 0.33, 0.1, 0.5, 0.05, SVG_TONE_WORSE },
        };
        struct svg_forest_panel panels[] = { { "change, % of A", rows, 1 }, { "difference, ms", rows + 1, 1 } };
        struct svg_forest_chart c = { .title = "dd", .panels = panels, .n_panels = 2, .width = SVG_NARROW };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        double lx, ly, vx, vy;
        const char *dot;
        size_t len;

        svg_forest_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_EQ(viewbox_width(svg), SVG_NARROW);
        ASSERT_EQ(test_occurrences(svg, "<g class=\"forest-row\">"), 2);
        lx = text_x(svg, ">guest.drop-caches.kernel_Minsn</text>", &ly);
        vx = text_x(svg, ">-0.3%</text>", &vy);
        ASSERT_NEAR(lx, 4, 1e-9);
        ASSERT_TRUE(vy > ly + SVG_FONT_MIN);                    /* the change is on the row below its label */
        ASSERT_TRUE(vx - 5 * SVG_FONT_MIN * 0.58 >= 0);          /* right-aligned at vx, inside the chart */
        dot = strstr(svg, "<circle ");
        ASSERT_TRUE(dot != NULL);
        ASSERT_TRUE(strtod(strstr(dot, "cy=\"") + 4, NULL) > ly);
        ASSERT_TRUE(strtod(strstr(dot, "cx=\"") + 4, NULL) < SVG_NARROW);
        for (const char *p = svg; (p = strstr(p, "font-size=\"")); p++)
                ASSERT_TRUE(strtol(p + 11, NULL, 10) >= SVG_FONT_MIN);
        /* at the wide width the same labels take a column left of the changes */
        h = html_new();
        g_free(svg);
        c.width = SVG_WIDTH;
        svg_forest_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        lx = text_x(svg, ">guest.drop-caches.kernel_Minsn</text>", &ly);
        vx = text_x(svg, ">-0.3%</text>", &vy);
        ASSERT_NEAR(ly, vy, 1e-9);
        ASSERT_TRUE(lx < vx);
}

/* The labels of phase marks close together ("drop-caches", "read", "end"
 * within a few pixels of each other, and one at the left edge under the y
 * axis' unit) never overlap: each label's span, estimated as the writer
 * estimates it, is clear of every other in its row; a label with no room
 * in any row is left to its mark's tooltip. */
TEST(marks_staggered) {
        double t[] = { 0, 10 }, v[] = { 1, 2 };
        struct svg_series s = { .label = "bo", .t = t, .v = v, .n = 2 };
        struct svg_mark marks[] = { { 0.1, "write" }, { 7.8, "drop-caches" }, { 8.1, "read" }, { 8.4, "sync" },
                                    { 8.7, "end" }, { 9.0, "umount" }, { 9.3, "last" } };
        struct svg_line_chart c = { .title = "t", .x_unit = "s", .y_unit = "blocks/s (1 KiB)", .series = &s,
                                    .n_series = 1, .marks = marks, .n_marks = 7, .width = SVG_NARROW };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        double x0[16], x1[16], y[16];
        size_t len, n = 0;

        svg_line_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
                g_autofree char *needle = g_strdup_printf(">%s</text>", marks[i].label);
                const char *at = strstr(svg, needle), *x;

                /* every mark names itself in its tooltip */
                g_autofree char *tip = g_strdup_printf("<title>%s</title>", marks[i].label);
                ASSERT_TRUE(strstr(svg, tip) != NULL);
                if (!at)
                        continue;
                x = g_strrstr_len(svg, at - svg, "<text x=\"");
                x0[n] = strtod(x + 9, NULL);
                y[n] = strtod(strstr(x, " y=\"") + 4, NULL);
                x1[n] = x0[n] + strlen(marks[i].label) * SVG_FONT_MIN * 0.58;
                if (strstr(x, "text-anchor=\"end\"") && strstr(x, "text-anchor=\"end\"") < at) {
                        x1[n] = x0[n];
                        x0[n] -= strlen(marks[i].label) * SVG_FONT_MIN * 0.58;
                }
                ASSERT_TRUE(x0[n] >= 0 && x1[n] <= SVG_NARROW);
                n++;
        }
        ASSERT_TRUE(n >= 4);   /* write and at least three of the close ones */
        for (size_t i = 0; i < n; i++)
                for (size_t k = i + 1; k < n; k++)
                        if (y[i] == y[k])
                                ASSERT_TRUE(x1[i] <= x0[k] || x1[k] <= x0[i]);
        /* the unit at the left and "write" just right of the axis do not share a row */
        {
                double wy, uy, wx = text_x(svg, ">write</text>", &wy), ux = text_x(svg, ">blocks/s (1 KiB)</text>", &uy);

                ASSERT_TRUE(fabs(wy - uy) >= SVG_FONT_MIN || wx > ux + 16 * SVG_FONT_MIN * 0.58);
        }
}

/* A bar's value label has three significant digits, never "0.000"; the
 * caller's text when it gives one; on a narrow chart a long label sits
 * above its bar, whole. */
TEST(bar_values_and_narrow_labels) {
        struct svg_bar bars[] = {
                { "6.1.0-47-amd64", 0.000289, 0.00025, 0.00033, 0, NULL },
                { "6.1.0-57-amd64+a-long-variant", 0.000313, NAN, NAN, 1, "313 \xc2\xb5s" },
        };
        struct svg_bar_chart c = { .title = "guest.drop-caches.spin_s", .unit = "s", .bars = bars, .n_bars = 2,
                                   .width = SVG_NARROW };
        struct html *h = html_new();
        g_autofree char *svg = NULL;
        double y, x;
        size_t len;

        svg_bar_chart(h, &c);
        ASSERT_EQ(html_finish(h, &svg, &len), 0);
        ASSERT_TRUE(strstr(svg, ">0.000<") == NULL && strstr(svg, ">0.000289<") != NULL);
        ASSERT_TRUE(strstr(svg, ">313 \xc2\xb5s<") != NULL);
        x = text_x(svg, ">6.1.0-57-amd64+a-long-variant</text>", &y);
        ASSERT_TRUE(x < 20);                                /* above the bar, from the left */
        ASSERT_EQ(viewbox_width(svg), SVG_NARROW);
}
