/* report/svg: line, bar and strip charts as inline SVG (contract in svg.h). All
 * geometry is computed here; every piece of text goes through the page
 * writer's escaper. Colours are attributes, not CSS classes, so a chart
 * copied out of a page keeps them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/svg.h"

/* Colour-blind-safe palette (Okabe-Ito, with black moved last). */
static const char *const palette[] = {
        "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7a6a00", "#444444",
};
#define BAND_FILL "#e8433a"
#define GRID "#e4e4e4"
#define AXIS "#555555"
#define FONT 13                    /* viewBox units: titles and "no data" */
#define SMALL SVG_FONT_MIN         /* every other label; the page never shows a chart narrower than its
                                      viewBox (SVG_WIDTH, page.c's min-width), so 12 units are >= 12 px */
#define WORSE "#b3261e"
#define BETTER "#16794a"

static const char *colour(int i) {
        if (i < 0)
                i = -i;
        return palette[i % (int)G_N_ELEMENTS(palette)];
}

double svg_nice_step(double span, int target) {
        double raw, mag, f;

        if (!isfinite(span) || span <= 0 || target < 1)
                return 1;
        raw = span / target;
        mag = pow(10, floor(log10(raw)));
        f = raw / mag;
        if (f < 1.5)
                f = 1;
        else if (f < 3)
                f = 2;
        else if (f < 7)
                f = 5;
        else
                f = 10;
        return f * mag;
}

size_t svg_ticks(double *lo, double *hi, int target, double *ret_ticks, size_t max, double *ret_step) {
        double step, a, b;
        size_t n = 0;

        if (!isfinite(*lo) || !isfinite(*hi)) {
                *lo = 0;
                *hi = 1;
        }
        if (*hi < *lo) {
                double t = *lo;

                *lo = *hi;
                *hi = t;
        }
        if (*hi == *lo) {
                double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;

                *lo -= *lo >= 0 && *lo - d < 0 ? *lo : d;
                *hi += d;
        }
        step = svg_nice_step(*hi - *lo, target);
        a = floor(*lo / step + 1e-9) * step;
        b = ceil(*hi / step - 1e-9) * step;
        /* Rounding out from near DBL_MAX overflows: keep the data's ends. */
        if (!isfinite(a) || !isfinite(b)) {
                a = *lo;
                b = *hi;
        }
        *lo = a;
        *hi = b;
        for (double k = 0; n < max; k++) {
                double v = a + k * step;

                if (v > b + step * 1e-6)
                        break;
                ret_ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
        }
        *ret_step = step;
        return n;
}

void svg_format_tick(double v, double step, char *buf, size_t size) {
        static const struct { double scale; const char *suffix; } units[] = {
                { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
        };
        const char *suffix = "";
        int decimals;

        /* The suffix follows the step, so every label of one axis has the
         * same one ("0 50k 100k 150k", "0.5M 1M"). */
        for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
                if (step >= units[i].scale / 10 * (units[i].scale == 1e3 ? 10 : 1)) {
                        v /= units[i].scale;
                        step /= units[i].scale;
                        suffix = units[i].suffix;
                        break;
                }
        decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        if (decimals > 6)
                decimals = 6;
        if (fabs(v) < step * 1e-6) {
                v = 0;
                suffix = "";
        }
        if (fabs(v) >= 1e6)     /* beyond G: "%.0f" of 4e298 would be cut */
                snprintf(buf, size, "%.3g%s", v, suffix);
        else
                snprintf(buf, size, "%.*f%s", decimals, v, suffix);
}

/* One value for a bar label: three significant figures, never fewer than
 * the integer part, never in exponent form below 1e9 ("0.000289", not
 * "0.000"). */
static void format_value(double v, char *buf, size_t size) {
        double a = fabs(v);
        int decimals = a > 0 ? 2 - (int)floor(log10(a)) : 0;

        if (!isfinite(v))
                snprintf(buf, size, "n/a");
        else if (a >= 1e9)
                snprintf(buf, size, "%.4g", v);
        else
                snprintf(buf, size, "%.*f", decimals < 0 ? 0 : decimals > 9 ? 9 : decimals, v);
}

/* Where v falls between lo and hi, as a fraction in [0, 1]: the one
 * mapping every chart's coordinates come through (line, bar and strip
 * charts, and the columns svg_downsample buckets by). The values are a
 * store's, so anything arrives: a span too wide for a double (1.7e308
 * minus -1.7e308 is inf, and then a NaN), an infinite end, a value outside.
 * The answer is always finite, NaN placed at 0, so no drawing loop
 * compares a NaN (line_marks never advanced past one) and no coordinate
 * leaves its axis. Halves cannot overflow where the difference can. */
static double fraction(double v, double lo, double hi) {
        double r = (v / 2 - lo / 2) / (hi / 2 - lo / 2);

        if (!(r > 0))
                return 0;
        return r < 1 ? r : 1;
}

struct bucket {
        size_t first, last, min, max;
        int used;
};

static void emit(GArray *out, const double *t, const double *v, size_t i) {
        struct svg_point p = { t[i], v[i] };

        g_array_append_val(out, p);
}

static void flush(GArray *out, const double *t, const double *v, struct bucket *b) {
        size_t idx[4];
        size_t k = 0;

        if (!b->used)
                return;
        idx[k++] = b->first;
        idx[k++] = b->min < b->max ? b->min : b->max;
        idx[k++] = b->min < b->max ? b->max : b->min;
        idx[k++] = b->last;
        /* already in index order: first <= min,max <= last */
        for (size_t i = 0; i < k; i++)
                if (i == 0 || idx[i] != idx[i - 1])
                        emit(out, t, v, idx[i]);
        b->used = 0;
}

size_t svg_downsample(const double *t, const double *v, size_t n, double t0, double t1, size_t columns,
                      struct svg_point **ret_points) {
        GArray *out = g_array_new(FALSE, FALSE, sizeof(struct svg_point));
        struct bucket b = { 0 };
        long col = -1;
        size_t len;

        if (columns < 1)
                columns = 1;
        for (size_t i = 0; i < n; i++) {
                long c;

                if (!isfinite(t[i]))
                        continue;
                if (!isfinite(v[i])) {
                        flush(out, t, v, &b);
                        if (out->len > 0 && isfinite(g_array_index(out, struct svg_point, out->len - 1).v)) {
                                struct svg_point gap = { t[i], NAN };

                                g_array_append_val(out, gap);
                        }
                        continue;
                }
                c = t1 > t0 ? (long)floor(fraction(t[i], t0, t1) * (double)columns) : 0;
                if (c >= (long)columns)
                        c = (long)columns - 1;
                if (c != col || !b.used) {
                        flush(out, t, v, &b);
                        col = c;
                        b = (struct bucket){ i, i, i, i, 1 };
                        continue;
                }
                b.last = i;
                if (v[i] < v[b.min])
                        b.min = i;
                if (v[i] > v[b.max])
                        b.max = i;
        }
        flush(out, t, v, &b);
        len = out->len;
        *ret_points = len ? (struct svg_point *)(void *)g_array_free(out, FALSE) : NULL;
        if (!len)
                g_array_free(out, TRUE);
        return len;
}

/* --- drawing helpers --- */


static void text_at(struct html *h, double x, double y, const char *anchor, int size, const char *fill,
                    const char *s) {
        html_start(h, "text");
        html_attr_num(h, "x", x);
        html_attr_num(h, "y", y);
        if (anchor)
                html_attr(h, "text-anchor", anchor);
        html_attr_int(h, "font-size", size);
        if (fill)
                html_attr(h, "fill", fill);
        html_text(h, s);
        html_end(h);
}

static void line(struct html *h, double x1, double y1, double x2, double y2, const char *stroke,
                 double width, const char *dash) {
        html_start(h, "line");
        html_attr_num(h, "x1", x1);
        html_attr_num(h, "y1", y1);
        html_attr_num(h, "x2", x2);
        html_attr_num(h, "y2", y2);
        html_attr(h, "stroke", stroke);
        html_attr_num(h, "stroke-width", width);
        html_attr(h, "stroke-dasharray", dash);
        html_end_void(h);
}

static void rect(struct html *h, double x, double y, double w, double hh, const char *fill, double opacity) {
        html_start(h, "rect");
        html_attr_num(h, "x", x);
        html_attr_num(h, "y", y);
        html_attr_num(h, "width", w);
        html_attr_num(h, "height", hh);
        html_attr(h, "fill", fill);
        if (opacity < 1)
                html_attr_num(h, "fill-opacity", opacity);
        html_end_void(h);
}

static void svg_open(struct html *h, int w, int hh, const char *cls, const char *title) {
        html_start(h, "svg");
        html_attr(h, "xmlns", "http://www.w3.org/2000/svg");
        html_attrf(h, "viewBox", "0 0 %d %d", w, hh);
        html_attr(h, "class", cls);
        html_attr(h, "role", "img");
        html_attr(h, "aria-label", title ? title : "chart");
        html_attr(h, "font-family", "system-ui, sans-serif");
        if (title)
                html_elem(h, "title", title);
}

/* The drawings of a chart of the given width: that width once (class
 * "chart"), or with width 0 the wide and the narrow variant, which the
 * page's style sheet picks between by their classes. Returns how many. */
struct variant {
        int width;
        const char *cls;
};

static size_t variants(int width, struct variant ret[2]) {
        if (width > 0) {
                ret[0] = (struct variant){ width, "chart" };
                return 1;
        }
        ret[0] = (struct variant){ SVG_WIDTH, "chart wide" };
        ret[1] = (struct variant){ SVG_NARROW, "chart narrow" };
        return 2;
}

/* Approximate advance of a label in viewBox units (no font metrics here). */
static double text_width(const char *s, int size) {
        size_t chars = 0;

        /* Count lead bytes, not continuation bytes: the text may be invalid
         * UTF-8, which g_utf8_strlen must not be given. */
        for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
                chars += (*p & 0xc0) != 0x80;
        return (double)chars * size * 0.58;
}

/* A row label's text: at most max_chars characters, cut with "…".
 * Caller g_free()s. */
static char *row_label(const char *name, size_t max_chars) {
        size_t cut = html_prefix_chars(name ? name : "", (size_t)-1, max_chars);

        name = name ? name : "";
        return name[cut] ? g_strdup_printf("%.*s\u2026", (int)cut, name) : g_strdup(name);
}

/* s cut with "…" to what text_width puts within max_w units at SMALL.
 * Caller g_free()s. */
static char *fit_text(const char *s, double max_w) {
        size_t chars = max_w > 0 ? (size_t)(max_w / (SMALL * 0.58)) : 1;

        return row_label(s, chars > 1 ? chars - 1 : 1);
}

/* Legend items flow left to right, wrapping; returns the height used. */
struct legend_item {
        const char *label;
        const char *colour;
        int dashed;
        int band;
};

static double legend(struct html *h, const struct legend_item *items, size_t n, double x0, double y0,
                     double width, int draw) {
        double x = x0, y = y0;

        for (size_t i = 0; i < n; i++) {
                /* a label longer than a whole line is cut to it */
                g_autofree char *label = fit_text(items[i].label, width - 36);
                double w = 22 + text_width(label, SMALL) + 14;

                if (x > x0 && x + w > x0 + width) {
                        x = x0;
                        y += FONT + 5;
                }
                if (draw) {
                        if (items[i].band)
                                rect(h, x, y - 8, 16, 10, items[i].colour, 0.25);
                        else
                                line(h, x, y - 4, x + 16, y - 4, items[i].colour, 2.5,
                                     items[i].dashed ? "5 3" : NULL);
                        text_at(h, x + 21, y, NULL, SMALL, "#222", label);
                }
                x += w;
        }
        return n ? y - y0 + FONT + 5 : 0;
}

/* The plot area of a line chart and its axis ranges, in viewBox units:
 * every step of svg_line_chart draws through it. */
struct frame {
        int W;                     /* viewBox width */
        double H;                  /* viewBox height */
        double left, top, pw, ph;  /* the plot area */
        double legend_w;           /* the legend's width, wrapping there */
        double x0, x1, y0, y1;     /* axis ranges after the ticks widened them */
        double xt[32], yt[32];     /* tick values */
        size_t nxt, nyt;
        double xstep, ystep;
        GArray *labels;            /* the phase labels placed (struct mark_label) */
        int mark_rows;             /* rows of phase labels above the plot */
};

static double fx(const struct frame *f, double t) {
        return f->left + fraction(t, f->x0, f->x1) * f->pw;
}

static double fy(const struct frame *f, double v) {
        return f->top + f->ph - fraction(v, f->y0, f->y1) * f->ph;
}

/* The data's extent: every finite point, band and mark; [0, 1] where
 * there is none. y starts at zero or below, as rates, memory and CPU
 * shares are read against zero, unless the chart asks to fit the data. */
static void line_domain(const struct svg_line_chart *c, struct frame *f) {
        int any = 0;

        f->x0 = f->y0 = INFINITY;
        f->x1 = f->y1 = -INFINITY;
        for (size_t s = 0; s < c->n_series; s++)
                for (size_t i = 0; i < c->series[s].n; i++) {
                        double t = c->series[s].t[i], v = c->series[s].v[i];

                        if (!isfinite(t) || !isfinite(v))
                                continue;
                        any = 1;
                        f->x0 = fmin(f->x0, t);
                        f->x1 = fmax(f->x1, t);
                        f->y0 = fmin(f->y0, v);
                        f->y1 = fmax(f->y1, v);
                }
        for (size_t i = 0; i < c->n_bands; i++) {
                f->x0 = fmin(f->x0, c->bands[i].t0);
                f->x1 = fmax(f->x1, c->bands[i].t1);
        }
        for (size_t i = 0; i < c->n_marks; i++) {
                f->x0 = fmin(f->x0, c->marks[i].t);
                f->x1 = fmax(f->x1, c->marks[i].t);
        }
        if (!isfinite(f->x0)) {
                f->x0 = 0;
                f->x1 = 1;
        }
        if (!any) {
                f->y0 = 0;
                f->y1 = 1;
        }
        if (f->y0 > 0 && !c->y_fit)
                f->y0 = 0;
}

/* The legend's items: one per series, then the bands'. OUT: *ret_n.
 * Caller g_free()s. */
static struct legend_item *line_legend_items(const struct svg_line_chart *c, size_t *ret_n) {
        struct legend_item *items = g_new0(struct legend_item, c->n_series + 1);
        size_t n = 0;

        for (size_t s = 0; s < c->n_series; s++)
                items[n++] = (struct legend_item){ c->series[s].label, colour(c->series[s].color),
                                                   c->series[s].dashed, 0 };
        if (c->n_bands > 0 && c->band_label)
                items[n++] = (struct legend_item){ c->band_label, BAND_FILL, 0, 1 };
        *ret_n = n;
        return items;
}

/* A phase label placed above the plot: the labels of marks that share a
 * point joined, the mark's x, which side of it the text reads, its row. */
struct mark_label {
        char *text;
        double x;
        int leftwards;             /* near the right edge the label reads leftwards */
        int row;                   /* 0: nearest the plot */
};

#define MARK_ROWS 3                /* rows of phase labels at most */
#define MARK_JOIN 6                /* marks closer than this (units) share one label */
#define MARK_GAP 6                 /* the least room between two labels of a row */

static void mark_label_clear(void *p) {
        g_free(((struct mark_label *)p)->text);
}

/* Place the phase labels: each group of marks closer than MARK_JOIN gets
 * one label, in the lowest row where it clears the label before it (the
 * y axis' unit holds the lowest row's left end); a label that clears
 * nothing in MARK_ROWS rows is left out, its mark's tooltip still says
 * it. So close phases ("drop-caches", "read") are staggered and never
 * drawn over each other. */
static void mark_labels(const struct svg_line_chart *c, struct frame *f) {
        double ends[MARK_ROWS];

        f->labels = g_array_new(FALSE, FALSE, sizeof(struct mark_label));
        g_array_set_clear_func(f->labels, mark_label_clear);
        f->mark_rows = 0;
        for (int r = 0; r < MARK_ROWS; r++)
                ends[r] = -INFINITY;
        if (c->y_unit)
                ends[0] = 4 + text_width(c->y_unit, SMALL);
        for (size_t i = 0, j; i < c->n_marks; i = j) {
                struct mark_label l = { .x = fx(f, c->marks[i].t) };
                GString *t = g_string_new(NULL);
                double w, a;
                int r = 0;

                for (j = i; j < c->n_marks && fx(f, c->marks[j].t) - l.x < MARK_JOIN; j++)
                        if (c->marks[j].label)
                                g_string_append_printf(t, "%s%s", t->len ? ", " : "", c->marks[j].label);
                w = text_width(t->str, SMALL);
                l.leftwards = l.x + 3 + w > f->W - 2;
                a = l.leftwards ? l.x - 3 - w : l.x + 3;
                while (r < MARK_ROWS && ends[r] + MARK_GAP > a)
                        r++;
                if (t->len == 0 || r == MARK_ROWS) {
                        g_string_free(t, TRUE);
                        continue;
                }
                ends[r] = a + w;
                l.row = r;
                l.text = g_string_free(t, FALSE);
                g_array_append_val(f->labels, l);
                f->mark_rows = MAX(f->mark_rows, r + 1);
        }
}

/* The plot area below the title, the legend and the phase labels
 * (measured, not drawn), and the ticks of both axes. A narrow chart has
 * fewer ticks on x, about one per 62 units. */
static void line_layout(const struct svg_line_chart *c, int width, const struct legend_item *items,
                        size_t n_items, struct frame *f) {
        const double right = 14, bottom = 36;
        const int H0 = c->height > 0 ? c->height : 260;

        f->W = width;
        f->left = 58;
        f->legend_w = f->W - f->left - right;
        f->pw = f->W - f->left - right;
        f->nxt = svg_ticks(&f->x0, &f->x1, (int)fmax(3, f->pw / 62), f->xt, G_N_ELEMENTS(f->xt), &f->xstep);
        /* Counts (run ids) have no ticks between integers. */
        if (c->x_integer && f->xstep < 1) {
                f->xstep = 1;
                f->x0 = floor(f->x0);
                f->x1 = ceil(f->x1);
                f->nxt = 0;
                for (double v = f->x0; v <= f->x1 + 1e-9 && f->nxt < G_N_ELEMENTS(f->xt); v += 1)
                        f->xt[f->nxt++] = v;
        }
        mark_labels(c, f);
        f->top = 24 + legend(NULL, items, n_items, f->left, 0, f->legend_w, 0) + 4 +
                 (f->mark_rows ? f->mark_rows * (SMALL + 2) + 4 : 0);
        f->H = H0 + f->top - 40;
        f->ph = f->H - f->top - bottom;
        f->nyt = svg_ticks(&f->y0, &f->y1, 5, f->yt, G_N_ELEMENTS(f->yt), &f->ystep);
}

/* The baseline of a row of phase labels; the lowest, row 0, is the y
 * axis' unit's too, clear of the top tick's label. */
static double mark_row_y(const struct frame *f, int row) {
        return f->top - 6 - row * (SMALL + 2);
}

/* Grid lines, tick labels and the axis captions. */
static void line_grid(struct html *h, const struct svg_line_chart *c, const struct frame *f) {
        char b[64];

        for (size_t i = 0; i < f->nyt; i++) {
                double y = fy(f, f->yt[i]);

                line(h, f->left, y, f->left + f->pw, y, GRID, 1, NULL);
                svg_format_tick(f->yt[i], f->ystep, b, sizeof(b));
                text_at(h, f->left - 5, y + 4, "end", SMALL, AXIS, b);
        }
        for (size_t i = 0; i < f->nxt; i++) {
                double x = fx(f, f->xt[i]);

                line(h, x, f->top + f->ph, x, f->top + f->ph + 4, AXIS, 1, NULL);
                svg_format_tick(f->xt[i], f->xstep, b, sizeof(b));
                text_at(h, x, f->top + f->ph + 16, "middle", SMALL, AXIS, b);
        }
        if (c->y_unit)
                text_at(h, 4, mark_row_y(f, 0), NULL, SMALL, AXIS, c->y_unit);
        if (c->x_label)
                text_at(h, f->left + f->pw, f->top + f->ph + 31, "end", SMALL, AXIS, c->x_label);
        else if (c->x_unit) {
                g_autofree char *xl = g_strdup_printf("time (%s)", c->x_unit);

                text_at(h, f->left + f->pw, f->top + f->ph + 31, "end", SMALL, AXIS, xl);
        }
}

/* Bands under the lines; at least 2 units wide so a one-second stall in a
 * ten-minute chart is still seen. */
static void line_bands(struct html *h, const struct svg_line_chart *c, const struct frame *f) {
        for (size_t i = 0; i < c->n_bands; i++) {
                double a = fx(f, c->bands[i].t0), z = fx(f, c->bands[i].t1);

                if (z - a < 2) {
                        a = (a + z) / 2 - 1;
                        z = a + 2;
                }
                html_start(h, "g");
                rect(h, a, f->top, z - a, f->ph, BAND_FILL, 0.2);
                html_elemf(h, "title", "%s %.1f-%.1f %s", c->band_label ? c->band_label : "interval",
                           c->bands[i].t0, c->bands[i].t1, c->x_unit ? c->x_unit : "");
                html_end(h);
        }
}

static void dot(struct html *h, const struct frame *f, const struct svg_point *p, const char *fill) {
        html_start(h, "circle");
        html_attr_num(h, "cx", fx(f, p->t));
        html_attr_num(h, "cy", fy(f, p->v));
        html_attr(h, "r", "2.5");
        html_attr(h, "fill", fill);
        html_end_void(h);
}

/* One series, reduced to the plot's pixel columns: its path, a dot for a
 * lone point between breaks (a path of one vertex draws nothing), and with
 * markers a dot on every point. Returns the points drawn. */
static size_t line_series(struct html *h, const struct svg_line_chart *c, const struct svg_series *se,
                          const struct frame *f) {
        g_autofree struct svg_point *p = NULL;
        size_t np = svg_downsample(se->t, se->v, se->n, f->x0, f->x1, (size_t)f->pw, &p);
        GString *d = g_string_sized_new(np * 14 + 16);
        const char *fill = colour(se->color);
        size_t seg = 0;

        for (size_t i = 0; i <= np; i++) {
                if (i == np || !isfinite(p[i].v)) {
                        if (seg == 1)
                                dot(h, f, &p[i - 1], fill);
                        seg = 0;
                        continue;
                }
                g_string_append_printf(d, "%c%.1f %.1f", seg ? 'L' : 'M', fx(f, p[i].t), fy(f, p[i].v));
                seg++;
                if (c->markers && seg > 1)
                        dot(h, f, &p[i], fill);
                if (c->markers && seg == 2)
                        dot(h, f, &p[i - 1], fill);
        }
        if (d->len > 0) {
                html_start(h, "path");
                html_attr(h, "d", d->str);
                html_attr(h, "fill", "none");
                html_attr(h, "stroke", fill);
                html_attr(h, "stroke-width", "1.6");
                html_attr(h, "stroke-linejoin", "round");
                html_attr(h, "stroke-dasharray", se->dashed ? "5 3" : NULL);
                html_start(h, "title");
                html_text(h, se->label);
                html_end(h);
                html_end(h);
        }
        g_string_free(d, TRUE);
        return np;
}

/* Phase marks over the lines, each with its label as a tooltip, and the
 * labels mark_labels placed. */
static void line_marks(struct html *h, const struct svg_line_chart *c, const struct frame *f) {
        for (size_t i = 0; i < c->n_marks; i++) {
                double x = fx(f, c->marks[i].t);

                html_start(h, "g");
                if (c->marks[i].label)
                        html_elem(h, "title", c->marks[i].label);
                line(h, x, f->top, x, f->top + f->ph, "#333", 1, "3 3");
                html_end(h);
        }
        for (guint i = 0; i < f->labels->len; i++) {
                const struct mark_label *l = &g_array_index(f->labels, struct mark_label, i);
                double y = mark_row_y(f, l->row);

                text_at(h, l->leftwards ? l->x - 3 : l->x + 3, y, l->leftwards ? "end" : NULL, SMALL, "#333",
                        l->text);
        }
}

static void line_chart_at(struct html *h, const struct svg_line_chart *c, int width, const char *cls) {
        struct frame f;
        struct legend_item *items;
        size_t n_items, n_points = 0;

        line_domain(c, &f);
        items = line_legend_items(c, &n_items);
        line_layout(c, width, items, n_items, &f);
        svg_open(h, f.W, (int)ceil(f.H), cls, c->title);
        if (c->title)
                text_at(h, 4, 15, NULL, FONT + 1, "#111", c->title);
        legend(h, items, n_items, f.left, 34, f.legend_w, 1);
        g_free(items);
        line_grid(h, c, &f);
        line_bands(h, c, &f);
        for (size_t s = 0; s < c->n_series; s++)
                n_points += line_series(h, c, &c->series[s], &f);
        line_marks(h, c, &f);
        g_array_free(f.labels, TRUE);
        /* axes */
        line(h, f.left, f.top, f.left, f.top + f.ph, AXIS, 1, NULL);
        line(h, f.left, f.top + f.ph, f.left + f.pw, f.top + f.ph, AXIS, 1, NULL);
        if (n_points == 0)
                text_at(h, f.left + f.pw / 2, f.top + f.ph / 2, "middle", FONT, AXIS, "no data");
        html_end(h);
}

void svg_line_chart(struct html *h, const struct svg_line_chart *c) {
        struct variant v[2];
        size_t n = variants(c->width, v);

        for (size_t i = 0; i < n; i++)
                line_chart_at(h, c, v[i].width, v[i].cls);
}

/* The label column of a chart whose rows carry labels of at most widest
 * units: the widest and a margin, or 0 when that would take more than two
 * fifths of width W; the labels then sit above their rows. */
static double label_column(double widest, int W) {
        double w = widest + 12;

        return w <= W * 0.4 ? w : 0;
}

#define BAR_LABEL_CHARS 22         /* a bar's label is cut here */
#define ABOVE 14                   /* the height a label above its row adds */

/* The geometry of a bar chart: the label column (0: labels above the
 * bars), a row's height, the plot's left and width, the axis. */
struct bar_frame {
        int W;
        double label_w, row, top, bottom, left, pw, H, x0, x1;
};

static void bar_layout(const struct svg_bar_chart *c, int W, struct bar_frame *f) {
        const double right = 64;
        double widest = 0;

        f->x0 = 0;
        f->x1 = -INFINITY;
        for (size_t i = 0; i < c->n_bars; i++) {
                const struct svg_bar *r = &c->bars[i];
                g_autofree char *label = row_label(r->label, BAR_LABEL_CHARS);

                widest = fmax(widest, text_width(label, SMALL));
                if (isfinite(r->mean)) {
                        f->x0 = fmin(f->x0, r->mean);
                        f->x1 = fmax(f->x1, r->mean);
                }
                if (isfinite(r->lo) && isfinite(r->hi)) {
                        f->x0 = fmin(f->x0, r->lo);
                        f->x1 = fmax(f->x1, r->hi);
                }
        }
        if (!isfinite(f->x1))
                f->x1 = 1;
        f->W = W;
        f->label_w = label_column(fmax(widest, 60), W);
        f->row = f->label_w > 0 ? 24 : 24 + ABOVE;
        f->top = 30;
        f->bottom = 34;
        f->left = f->label_w > 0 ? f->label_w : 8;
        f->pw = W - f->left - right;
        f->H = f->top + f->bottom + f->row * (double)(c->n_bars ? c->n_bars : 1);
}

/* One bar: its label (left of it, or above), the bar, the whisker, the
 * value at its end. */
static void bar_row(struct html *h, const struct svg_bar_chart *c, const struct svg_bar *r, const struct bar_frame *f,
                    double y) {
        const char *name = r->label ? r->label : "";
        /* above its bar a label has the chart's width */
        g_autofree char *label = f->label_w > 0 ? row_label(name, BAR_LABEL_CHARS) : fit_text(name, f->W - 16);
        double by = f->label_w > 0 ? y : y + ABOVE, cy = by + 12;
        char b[64];

#define X(v) (f->left + fraction((v), f->x0, f->x1) * f->pw)
        html_start(h, "g");
        html_start(h, "title");
        if (!isfinite(r->mean))
                html_textf(h, "%s: n/a", name);
        else if (isfinite(r->lo) && isfinite(r->hi))
                html_textf(h, "%s: %g %s (95%% CI %g to %g)", name, r->mean, c->unit ? c->unit : "", r->lo, r->hi);
        else
                html_textf(h, "%s: %g %s", name, r->mean, c->unit ? c->unit : "");
        html_end(h);
        if (f->label_w > 0)
                text_at(h, f->label_w - 6, cy + 4, "end", SMALL, "#222", label);
        else
                text_at(h, f->left, y + 12, NULL, SMALL, "#222", label);
        if (isfinite(r->mean)) {
                double a = X(fmin(0, r->mean)), z = X(fmax(0, r->mean));

                rect(h, a, by + 4, fmax(z - a, 1), 16, colour(r->color), 0.85);
        }
        if (isfinite(r->lo) && isfinite(r->hi)) {
                double a = X(r->lo), z = X(r->hi);

                line(h, a, cy, z, cy, "#111", 1.4, NULL);
                line(h, a, cy - 6, a, cy + 6, "#111", 1.4, NULL);
                line(h, z, cy - 6, z, cy + 6, "#111", 1.4, NULL);
        }
        if (isfinite(r->mean)) {
                double end = isfinite(r->hi) ? fmax(X(r->hi), X(r->mean)) : X(r->mean);

                format_value(r->mean, b, sizeof(b));
                text_at(h, end + 5, cy + 4, NULL, SMALL, "#222", r->value ? r->value : b);
        }
        html_end(h);
#undef X
}

static void bar_chart_at(struct html *h, const struct svg_bar_chart *c, int W, const char *cls) {
        struct bar_frame f;
        double ticks[32], step;
        size_t nt;
        char b[64];

        bar_layout(c, W, &f);
        nt = svg_ticks(&f.x0, &f.x1, (int)fmax(3, f.pw / 70), ticks, G_N_ELEMENTS(ticks), &step);
        svg_open(h, W, (int)ceil(f.H), cls, c->title);
        if (c->title)
                text_at(h, 4, 15, NULL, FONT + 1, "#111", c->title);
        for (size_t i = 0; i < nt; i++) {
                double x = f.left + fraction(ticks[i], f.x0, f.x1) * f.pw;

                line(h, x, f.top - 4, x, f.H - f.bottom, GRID, 1, NULL);
                svg_format_tick(ticks[i], step, b, sizeof(b));
                text_at(h, x, f.H - f.bottom + 15, "middle", SMALL, AXIS, b);
        }
        if (c->unit)
                text_at(h, f.left + f.pw, f.H - 4, "end", SMALL, AXIS, c->unit);
        if (c->n_bars == 0)
                text_at(h, f.left + f.pw / 2, f.top + f.row / 2 + 4, "middle", FONT, AXIS, "no data");
        for (size_t i = 0; i < c->n_bars; i++)
                bar_row(h, c, &c->bars[i], &f, f.top + f.row * (double)i);
        line(h, f.left, f.top - 4, f.left, f.H - f.bottom, AXIS, 1, NULL);
        html_end(h);
}

void svg_bar_chart(struct html *h, const struct svg_bar_chart *c) {
        struct variant v[2];
        size_t n = variants(c->width, v);

        for (size_t i = 0; i < n; i++)
                bar_chart_at(h, c, v[i].width, v[i].cls);
}

double svg_strip_offset(size_t i) {
        double x = (double)i * 0.6180339887498949;

        return x - floor(x) - 0.5;
}

/* The value axis of a strip chart: every finite sample and interval end. */
static void strip_domain(const struct svg_strip_chart *c, double *lo, double *hi) {
        *lo = INFINITY;
        *hi = -INFINITY;
        for (size_t r = 0; r < c->n_rows; r++) {
                const struct svg_strip *s = &c->rows[r];

                for (size_t i = 0; i < s->n; i++)
                        if (isfinite(s->v[i])) {
                                *lo = fmin(*lo, s->v[i]);
                                *hi = fmax(*hi, s->v[i]);
                        }
                if (isfinite(s->lo) && isfinite(s->hi)) {
                        *lo = fmin(*lo, s->lo);
                        *hi = fmax(*hi, s->hi);
                }
        }
}

/* The geometry of a strip chart: the label column (0: labels above the
 * rows), a row's height, the plot's left and width, the axis. */
struct strip_frame {
        double label_w, row, left, pw, x0, x1;
};

/* One row: its label, the dots, the median tick, the mean's whisker. */
static void strip_row(struct html *h, const struct svg_strip *s, double y, const struct strip_frame *f,
                      const char *unit) {
        const double row = 44, cy = (f->label_w > 0 ? y : y + ABOVE) + row * 0.38;
        g_autofree char *name = row_label(s->label, 30);
        size_t shown = 0;
        char b[64];

#define SX(v) (f->left + fraction((v), f->x0, f->x1) * f->pw)
        html_start(h, "g");
        for (size_t i = 0; i < s->n; i++)
                shown += isfinite(s->v[i]);
        html_start(h, "title");
        html_textf(h, "%s: %zu samples", s->label ? s->label : "", shown);
        if (isfinite(s->median))
                html_textf(h, ", median %g %s", s->median, unit ? unit : "");
        if (isfinite(s->mean) && isfinite(s->lo) && isfinite(s->hi))
                html_textf(h, ", mean %g (95%% CI %g to %g)", s->mean, s->lo, s->hi);
        html_end(h);
        if (f->label_w > 0)
                text_at(h, f->label_w - 6, cy + 4, "end", SMALL, "#222", name);
        else
                text_at(h, f->left, y + 12, NULL, SMALL, "#222", name);
        for (size_t i = 0; i < s->n; i++) {
                if (!isfinite(s->v[i]))
                        continue;
                html_start(h, "circle");
                html_attr_num(h, "cx", SX(s->v[i]));
                html_attr_num(h, "cy", cy + svg_strip_offset(i) * row * 0.4);
                html_attr(h, "r", "3");
                html_attr(h, "fill", colour(s->color));
                html_attr(h, "fill-opacity", "0.6");
                html_end_void(h);
        }
        if (isfinite(s->median))
                line(h, SX(s->median), cy - row * 0.26, SX(s->median), cy + row * 0.26, "#111", 2.5, NULL);
        if (isfinite(s->mean) && isfinite(s->lo) && isfinite(s->hi)) {
                double wy = cy + row * 0.42, a = SX(s->lo), z = SX(s->hi);

                line(h, a, wy, z, wy, "#111", 1.2, NULL);
                line(h, a, wy - 3, a, wy + 3, "#111", 1.2, NULL);
                line(h, z, wy - 3, z, wy + 3, "#111", 1.2, NULL);
                line(h, SX(s->mean), wy - 4, SX(s->mean), wy + 4, "#111", 1.2, NULL);
        }
        snprintf(b, sizeof(b), "n=%zu", shown);
        text_at(h, f->left + f->pw + 6, cy + 4, NULL, SMALL, AXIS, b);
        html_end(h);
#undef SX
}

static void strip_chart_at(struct html *h, const struct svg_strip_chart *c, int W, const char *cls) {
        const double right = 52, top = 30, bottom = 34;
        struct strip_frame f = { 0 };
        double H, step, ticks[32], widest = 0;
        size_t nt;
        char b[64];

        for (size_t r = 0; r < c->n_rows; r++) {
                g_autofree char *name = row_label(c->rows[r].label, 30);

                widest = fmax(widest, text_width(name, SMALL));
        }
        f.label_w = label_column(fmax(widest, 24), W);
        f.row = f.label_w > 0 ? 44 : 44 + ABOVE;
        f.left = f.label_w > 0 ? f.label_w : 8;
        f.pw = W - f.left - right;
        H = top + bottom + f.row * (double)(c->n_rows ? c->n_rows : 1);
        strip_domain(c, &f.x0, &f.x1);
        nt = svg_ticks(&f.x0, &f.x1, (int)fmax(3, f.pw / 70), ticks, G_N_ELEMENTS(ticks), &step);
        svg_open(h, W, (int)ceil(H), cls, c->title);
        if (c->title)
                text_at(h, 4, 15, NULL, FONT + 1, "#111", c->title);
        for (size_t i = 0; i < nt; i++) {
                double x = f.left + fraction(ticks[i], f.x0, f.x1) * f.pw;

                line(h, x, top - 4, x, H - bottom, GRID, 1, NULL);
                svg_format_tick(ticks[i], step, b, sizeof(b));
                text_at(h, x, H - bottom + 15, "middle", SMALL, AXIS, b);
        }
        if (c->unit)
                text_at(h, f.left + f.pw, H - 4, "end", SMALL, AXIS, c->unit);
        if (c->n_rows == 0)
                text_at(h, f.left + f.pw / 2, top + f.row / 2 + 4, "middle", FONT, AXIS, "no data");
        for (size_t r = 0; r < c->n_rows; r++)
                strip_row(h, &c->rows[r], top + f.row * (double)r, &f, c->unit);
        line(h, f.left, top - 4, f.left, H - bottom, AXIS, 1, NULL);
        html_end(h);
}

void svg_strip_chart(struct html *h, const struct svg_strip_chart *c) {
        struct variant v[2];
        size_t n = variants(c->width, v);

        for (size_t i = 0; i < n; i++)
                strip_chart_at(h, c, v[i].width, v[i].cls);
}

/* --- forest plots --- */

#define FOREST_ROW 26              /* a row's height */
#define FOREST_LABEL_W 214         /* the metric column: 30 labels of SMALL */
#define FOREST_VALUE_W 92          /* the change column between the labels and the plot, so the numbers
                                      show first where a phone scrolls the chart ("-0.000205 s"); wider
                                      when a value needs it ("+0.000000981 s") */

static const char *tone_colour(enum svg_tone t) {
        return t == SVG_TONE_WORSE ? WORSE : t == SVG_TONE_BETTER ? BETTER : AXIS;
}

/* A panel's axis: 0, every finite change, interval end and band edge. */
static void forest_domain(const struct svg_forest_panel *p, double *lo, double *hi) {
        *lo = 0;
        *hi = 0;
        for (size_t i = 0; i < p->n_rows; i++) {
                const struct svg_forest_row *r = &p->rows[i];
                const double v[] = { r->est, r->lo, r->hi, r->band, -r->band };

                for (size_t k = 0; k < G_N_ELEMENTS(v); k++)
                        if (isfinite(v[k])) {
                                *lo = fmin(*lo, v[k]);
                                *hi = fmax(*hi, v[k]);
                        }
        }
}

/* The geometry shared by a forest plot's panels: the label column (0:
 * each label above its row), a row's height, where the plot starts and
 * how wide it is; and one panel's axis. */
struct forest_axis {
        double label_w, row, x0, x1, left, pw;
};

static double forest_panel_height(const struct svg_forest_panel *p, double row) {
        return 20 + row * (double)(p->n_rows ? p->n_rows : 1) + 34;
}

/* The change column: FOREST_VALUE_W, or the widest value and its margin. */
static double forest_value_w(const struct svg_forest_chart *c) {
        double w = FOREST_VALUE_W;

        for (size_t i = 0; i < c->n_panels; i++)
                for (size_t k = 0; k < c->panels[i].n_rows; k++)
                        w = fmax(w, text_width(c->panels[i].rows[k].value, SMALL) + 12);
        return w;
}

/* The label column where it leaves the plot SVG_NARROW / 2 units, else
 * labels above their rows; the change column; the plot after them. */
static void forest_layout(const struct svg_forest_chart *c, int W, struct forest_axis *a) {
        double value_w = forest_value_w(c);

        a->label_w = FOREST_LABEL_W + value_w + 14 + SVG_NARROW / 2 <= W ? FOREST_LABEL_W : 0;
        a->row = a->label_w > 0 ? FOREST_ROW : FOREST_ROW + ABOVE;
        a->left = a->label_w + value_w;
        a->pw = W - a->left - 14;
}

static double forest_x(const struct forest_axis *a, double v) {
        return a->left + fraction(v, a->x0, a->x1) * a->pw;
}

/* One row: its band, the whisker and the dot in the verdict's colour, the
 * label at the left (or above) and the change before the plot. */
static void forest_row(struct html *h, const struct svg_forest_row *r, const struct forest_axis *a, double y, int W) {
        const double top = a->label_w > 0 ? y : y + ABOVE, cy = top + FOREST_ROW / 2.0;
        const char *fill = tone_colour(r->tone);
        /* above its row a label has the chart's width */
        g_autofree char *label = a->label_w > 0 ? row_label(r->label, 30) : fit_text(r->label, W - 8);

        html_start(h, "g");
        html_attr(h, "class", "forest-row");
        html_start(h, "title");
        html_textf(h, "%s: %s", r->label ? r->label : "", r->value ? r->value : "n/a");
        if (isfinite(r->lo) && isfinite(r->hi))
                html_textf(h, " (95%% CI %g to %g)", r->lo, r->hi);
        html_end(h);
        if (isfinite(r->band) && r->band > 0) {
                double b0 = forest_x(a, -r->band), b1 = forest_x(a, r->band);

                rect(h, b0, top + 2, fmax(b1 - b0, 1), FOREST_ROW - 4, "#8a939c", 0.22);
        }
        if (a->label_w > 0)
                text_at(h, a->label_w - 8, cy + 4, "end", SMALL, "#222", label);
        else
                text_at(h, 4, y + 12, NULL, SMALL, "#222", label);
        text_at(h, a->left - 8, cy + 4, "end", SMALL, fill, r->value ? r->value : "n/a");
        if (isfinite(r->lo) && isfinite(r->hi)) {
                double x0 = forest_x(a, r->lo), x1 = forest_x(a, r->hi);

                line(h, x0, cy, x1, cy, fill, 2, NULL);
                line(h, x0, cy - 5, x0, cy + 5, fill, 2, NULL);
                line(h, x1, cy - 5, x1, cy + 5, fill, 2, NULL);
        }
        if (isfinite(r->est)) {
                html_start(h, "circle");
                html_attr_num(h, "cx", forest_x(a, r->est));
                html_attr_num(h, "cy", cy);
                html_attr(h, "r", "4.5");
                html_attr(h, "fill", fill);
                html_end_void(h);
        }
        html_end(h);
}

/* A vertical line at x over a panel's rows from rows_top: one line, or
 * where the labels sit above the rows, a piece per row below its label so
 * no line crosses a label. */
static void forest_vertical(struct html *h, const struct forest_axis *a, const struct svg_forest_panel *p, double x,
                            double rows_top, const char *stroke, double width) {
        const size_t n = p->n_rows ? p->n_rows : 1;

        if (a->label_w > 0) {
                line(h, x, rows_top, x, rows_top + a->row * (double)n, stroke, width, NULL);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                double y = rows_top + a->row * (double)i + ABOVE;

                line(h, x, y, x, y + FOREST_ROW, stroke, width, NULL);
        }
}

/* One panel from y: its rows over the grid, the line at 0, the ticks and
 * the axis caption below. Returns the height used. */
static double forest_panel(struct html *h, const struct svg_forest_panel *p, struct forest_axis a, int W, double y) {
        const double rows_top = y + 20, rows_h = a.row * (double)(p->n_rows ? p->n_rows : 1);
        double ticks[32], step;
        size_t nt;
        char b[64];

        forest_domain(p, &a.x0, &a.x1);
        nt = svg_ticks(&a.x0, &a.x1, (int)fmax(3, a.pw / 50), ticks, G_N_ELEMENTS(ticks), &step);
        if (p->axis)
                text_at(h, 4, y + 13, NULL, SMALL, AXIS, p->axis);
        for (size_t i = 0; i < nt; i++) {
                double x = forest_x(&a, ticks[i]);

                forest_vertical(h, &a, p, x, rows_top, GRID, 1);
                svg_format_tick(ticks[i], step, b, sizeof(b));
                text_at(h, x, rows_top + rows_h + 16, "middle", SMALL, AXIS, b);
        }
        if (p->n_rows == 0)
                text_at(h, a.left + a.pw / 2, rows_top + a.row / 2.0 + 4, "middle", FONT, AXIS, "no data");
        for (size_t i = 0; i < p->n_rows; i++)
                forest_row(h, &p->rows[i], &a, rows_top + a.row * (double)i, W);
        /* The line of no change, over the rows and their bands. */
        forest_vertical(h, &a, p, forest_x(&a, 0), rows_top, "#111", 1.4);
        line(h, a.left, rows_top + rows_h, a.left + a.pw, rows_top + rows_h, AXIS, 1, NULL);
        return forest_panel_height(p, a.row);
}

static void forest_chart_at(struct html *h, const struct svg_forest_chart *c, int W, const char *cls) {
        struct forest_axis a;
        double H = 26, y = 26;

        forest_layout(c, W, &a);
        for (size_t i = 0; i < c->n_panels; i++)
                H += forest_panel_height(&c->panels[i], a.row);
        svg_open(h, W, (int)ceil(H), cls, c->title);
        if (c->title)
                text_at(h, 4, 16, NULL, FONT + 1, "#111", c->title);
        for (size_t i = 0; i < c->n_panels; i++)
                y += forest_panel(h, &c->panels[i], a, W, y);
        html_end(h);
}

void svg_forest_chart(struct html *h, const struct svg_forest_chart *c) {
        struct variant v[2];
        size_t n = variants(c->width, v);

        for (size_t i = 0; i < n; i++)
                forest_chart_at(h, c, v[i].width, v[i].cls);
}
