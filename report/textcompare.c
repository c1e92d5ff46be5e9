/* report/textcompare.c: `kbench compare` for people (see textcompare.h).
 * The answer comes first, in the workload's terms; then per paired group a
 * table that fits the reader's width: by default the metric, both means,
 * the change, its interval and the verdict, in a kernel developer's units
 * (seconds as µs, ms or s); the statistics behind them with --wide. The
 * markdown form is the same text with its tables in code blocks, so that a
 * mail reads it as plain text and a forge renders it as it reads. Every
 * string from the store goes through text.h's masking writers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/util.h"
#include "report/explain.h"
#include "report/metrics.h"
#include "report/text.h"
#include "report/textcompare.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

#define CELL 64                    /* bytes of one table cell */
#define TEXTCOMPARE_CONFIG_LINES 4 /* differing config options the answer lists without -a */

/* The columns of a group's table; the compact ones are marked. */
enum col {
        C_METRIC, C_UNIT, C_A, C_ASD, C_AMED, C_B, C_BSD, C_BMED, C_CHANGE, C_CI, C_VERDICT, C_PT, C_PMW, C_N,
        C_MDE, C_NEED, C_COUNT
};

static const struct {
        const char *title;
        int left;                  /* text, left-aligned (else a number, right-aligned) */
        int compact;               /* in the default table */
} cols[C_COUNT] = {
        [C_METRIC] = { "metric", 1, 1 },   [C_UNIT] = { "unit", 1, 0 },      [C_A] = { "A", 0, 1 },
        [C_ASD] = { "±", 0, 0 },           [C_AMED] = { "A med", 0, 0 },     [C_B] = { "B", 0, 1 },
        [C_BSD] = { "±", 0, 0 },           [C_BMED] = { "B med", 0, 0 },     [C_CHANGE] = { "change", 0, 1 },
        [C_CI] = { "95% CI", 0, 1 },       [C_VERDICT] = { "verdict", 1, 1 }, [C_PT] = { "p(t)", 0, 0 },
        [C_PMW] = { "p(MW)", 0, 0 },       [C_N] = { "n", 0, 0 },             [C_MDE] = { "mde", 0, 0 },
        [C_NEED] = { "cells to see", 1, 0 },
};

/* The informational section's columns. */
enum icol { I_METRIC, I_A, I_B, I_CHANGE, I_N, I_WHY, I_COUNT };

static const struct {
        const char *title;
        int left;
} icols[I_COUNT] = {
        [I_METRIC] = { "metric", 1 }, [I_A] = { "A", 0 }, [I_B] = { "B", 0 }, [I_CHANGE] = { "change", 0 },
        [I_N] = { "n", 0 }, [I_WHY] = { "why no verdict", 1 },
};

/* A table being laid out: rows of cells, and which columns are shown. */
struct table {
        int ncols;
        const char *const *title;
        const int *left;
        const int *shown;          /* ncols flags */
        char (*cells)[C_COUNT][CELL];
        size_t rows;
};

/* ---- cells -------------------------------------------------------------- */

static void fmt_n(size_t n, size_t max, char *buf, size_t size) {
        if (n == 0)
                snprintf(buf, size, "n/a");
        else if (n > max)
                snprintf(buf, size, ">%zu", max);
        else
                snprintf(buf, size, "%zu", n);
}

/* How many cells a side needs for a verdict on a change: for a ratio 2 %
 * and 5 % (">1000" within the noise band: never), for an amount a
 * difference of twice its band, what --until-mde aims at (2 % of a mean
 * near 0 lies within the floor). */
static void need_cell(const struct compare_metric *m, char *buf, size_t size) {
        char n2[16], n5[16];

        fmt_n(m->n_for_2, 1000, n2, sizeof(n2));
        fmt_n(m->n_for_5, 1000, n5, sizeof(n5));
        if (m->info.floor > 0) {
                char twice[32];

                fmt_n(m->n_for_twice_band, 1000, n2, sizeof(n2));
                text_format_value(m->twice_band, m->unit, 1, twice, sizeof(twice));
                snprintf(buf, size, "%s for %s", n2, twice);
        } else
                snprintf(buf, size, "%s for 2%%, %s for 5%%", n2, n5);
}

/* A mean as the table shows it: an amount (a metric with a floor) in its
 * unit, scaled; a ratio metric's bare figure (its change is a percentage). */
static void mean_cell(const struct compare_metric *m, double v, char *buf, size_t size) {
        if (m->info.floor > 0)
                text_format_value(v, m->unit, 1, buf, size);
        else
                text_format_num(v, buf, size);
}

static void metric_cells(const struct compare_metric *m, char cells[C_COUNT][CELL]) {
        char mde[CELL];

        snprintf(cells[C_METRIC], CELL, "%.63s", m->name);
        snprintf(cells[C_UNIT], CELL, "%.63s", m->unit ? m->unit : "");
        mean_cell(m, m->sa.mean, cells[C_A], CELL);
        text_format_pct(m->sa.cov, 0, cells[C_ASD], CELL);
        mean_cell(m, m->sa.median, cells[C_AMED], CELL);
        mean_cell(m, m->sb.mean, cells[C_B], CELL);
        text_format_pct(m->sb.cov, 0, cells[C_BSD], CELL);
        mean_cell(m, m->sb.median, cells[C_BMED], CELL);
        text_format_change(m, cells[C_CHANGE], cells[C_CI], mde, CELL);
        snprintf(cells[C_MDE], CELL, "%s", mde);
        snprintf(cells[C_VERDICT], CELL, "%s", m->verdict == COMPARE_INFO ? "" : compare_verdict_name(m->verdict));
        text_format_p(m->ttest.p, cells[C_PT], CELL);
        text_format_p(m->mw.p, cells[C_PMW], CELL);
        snprintf(cells[C_N], CELL, "%zu+%zu", m->na, m->nb);
        need_cell(m, cells[C_NEED], CELL);
}

/* Why a metric has no verdict, in one cell: a reason the group's note
 * gives in full (the TCG rule, which covers every rate) is pointed at, not
 * repeated; another too long for the cell ends at a word. */
static void why_cell(const struct compare_group *g, const char *why, char *out, size_t size) {
        size_t n = strlen(why);

        for (size_t i = 0; i < ELEMENTSOF(g->notes) && g->notes[i]; i++)
                if (n > 20 && strstr(g->notes[i], why)) {
                        snprintf(out, size, "as the note above says");
                        return;
                }
        if (n < size) {
                snprintf(out, size, "%s", why);
                return;
        }
        n = size - 4;
        while (n > 0 && why[n] != ' ')
                n--;
        snprintf(out, size, "%.*s...", (int)n, why);
}

static void info_cells(const struct compare_group *g, const struct compare_metric *m, char cells[C_COUNT][CELL]) {
        snprintf(cells[I_METRIC], CELL, "%.63s", m->name);
        text_format_value(m->sa.mean, m->unit, 1, cells[I_A], CELL);
        text_format_value(m->sb.mean, m->unit, 1, cells[I_B], CELL);
        if (text_change_shown(m))
                text_format_pct(m->change, 1, cells[I_CHANGE], CELL);
        else
                snprintf(cells[I_CHANGE], CELL, "%s",
                         isfinite(m->change) && m->info.direction != METRICS_NONE ? "near 0" : "");
        snprintf(cells[I_N], CELL, "%zu+%zu", m->na, m->nb);
        why_cell(g, m->info.why ? m->info.why : "not in this kbench's registry", cells[I_WHY], CELL);
}

/* ---- the table ---------------------------------------------------------- */

/* One cell; in markdown the table is a code block, whose text is literal
 * but for a backtick. */
static void put_cell(FILE *out, const char *s, int left, int width, int last, int md) {
        enum text_mode mode = md ? TEXT_MD_CODE : TEXT_PLAIN;
        int w = text_columns(s);

        if (left)
                text_put_as(out, s, last ? 0 : width, mode);
        else {
                for (; w < width; w++)
                        fputc(' ', out);
                text_put_as(out, s, 0, mode);
        }
}

/* The columns' widths; returns the width of a row on one line. */
static int table_widths(const struct table *t, int *w) {
        int total = 0, n = 0;

        for (int c = 0; c < t->ncols; c++) {
                if (!t->shown[c])
                        continue;
                w[c] = text_columns(t->title[c]);
                for (size_t r = 0; r < t->rows; r++)
                        w[c] = MAX(w[c], text_columns(t->cells[r][c]));
                total += w[c] + (n++ ? 2 : 0);
        }
        return total;
}

/* One row (the title row when cells is NULL). first: the first column
 * shown (the metric), which split puts on a line of its own, the others
 * indented under it, when a row on one line is wider than the reader's
 * terminal (long metric names of a wide table). */
static void table_row(FILE *out, const struct table *t, const int *w, const char (*cells)[CELL], int split,
                      int md) {
        int last = t->ncols - 1, n = 0;

        while (last > 0 && !t->shown[last])
                last--;
        for (int c = 0; c < t->ncols; c++) {
                const char *s = cells ? cells[c] : t->title[c];

                if (!t->shown[c])
                        continue;
                if (n++ && !(split && n == 2))
                        fputs("  ", out);
                if (split && n == 1) {
                        text_put_as(out, s, 0, md ? TEXT_MD_CODE : TEXT_PLAIN);
                        fputs("\n    ", out);
                        continue;
                }
                put_cell(out, s, t->left[c], w[c], c == last, md);
        }
        fputc('\n', out);
}

/* The table, aligned within width (0: no limit), in a code block for
 * markdown (whose text it then is, read as is by a mail client). */
static void table_print(FILE *out, const struct table *t, int md, int width) {
        int w[C_COUNT] = { 0 }, split = width > 0 && table_widths(t, w) > width;

        table_widths(t, w);
        if (md)
                fputs("```text\n", out);
        table_row(out, t, w, NULL, split, md);
        for (size_t r = 0; r < t->rows; r++)
                table_row(out, t, w, (const char (*)[CELL])t->cells[r], split, md);
        if (md)
                fputs("```\n", out);
}

/* ---- a group ------------------------------------------------------------ */

static void side_part(const char *label, const struct compare_side *s, GString *out) {
        g_string_append_printf(out, "%s %zu ok", label, s->ok);
        if (s->failed)
                g_string_append_printf(out, ", %zu failed (%s)", s->failed, s->failed_states);
        g_string_append(out, s->n_runs > 1 ? " in runs" : " in run");
        for (size_t i = 0; i < s->n_runs; i++)
                g_string_append_printf(out, "%s%lld", i ? ", " : " ", (long long)s->runs[i]);
}

static void group_head(const struct compare_group *g, const struct textcompare_opts *o, FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN;
        g_autoptr(GString) sides = g_string_new(NULL);
        g_autofree char *settings = pairkey_line(g->key);

        fputs(md ? "\n### " : "\n", out);
        text_put_md(out, g->spec, md);
        fputc('\n', out);
        if (md)
                fputc('\n', out);
        side_part("A:", &g->a, sides);
        g_string_append(sides, ";");
        side_part(" B:", &g->b, sides);
        /* In markdown a list, each item's lines under its text. */
        text_wrap(out, md ? "- " : "  ", md ? "  " : "    ", sides->str, md, o->width);
        text_wrap(out, md ? "- settings: " : "  settings: ", md ? "  " : "    ", settings, md, o->width);
        for (size_t i = 0; i < ELEMENTSOF(g->notes) && g->notes[i]; i++)
                text_wrap(out, md ? "- note: " : "  note: ", md ? "  " : "    ", g->notes[i], md, o->width);
        fputc('\n', out);
}

static void group_judged(const struct compare_group *g, const struct textcompare_opts *o,
                         char (*cells)[C_COUNT][CELL], FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN, shown[C_COUNT];
        const char *titles[C_COUNT];
        int left[C_COUNT];
        struct table t = { .ncols = C_COUNT, .title = titles, .left = left, .shown = shown, .cells = cells };

        for (int c = 0; c < C_COUNT; c++) {
                titles[c] = cols[c].title;
                left[c] = cols[c].left;
                shown[c] = cols[c].compact || o->wide || o->all;
        }
        for (size_t i = 0; i < g->n_m; i++)
                if (g->m[i].judged)
                        metric_cells(&g->m[i], cells[t.rows++]);
        if (t.rows)
                table_print(out, &t, md, o->width);
        else
                fputs("no judged metric in this group\n", out);
        if (isfinite(g->geomean))
                fprintf(out, "geomean of B/A over %zu judged ratios (+ is better): %+.1f%%\n", g->n_geomean,
                        (g->geomean - 1) * 100);
}

static void group_info(const struct compare_view *v, const struct compare_group *g,
                       const struct textcompare_opts *o, char (*cells)[C_COUNT][CELL], FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN, shown[I_COUNT], left[I_COUNT];
        const char *titles[I_COUNT];
        struct table t = { .ncols = I_COUNT, .title = titles, .left = left, .shown = shown, .cells = cells };
        size_t n_info = 0;

        for (size_t i = 0; i < g->n_m; i++)
                n_info += !g->m[i].judged;
        if (!n_info)
                return;
        if (!o->all && !v->metric_glob) {
                fprintf(out, "%zu informational metric%s without a verdict: --all lists them\n", n_info,
                        n_info == 1 ? "" : "s");
                return;
        }
        for (int c = 0; c < I_COUNT; c++) {
                titles[c] = icols[c].title;
                left[c] = icols[c].left;
                shown[c] = 1;
        }
        for (size_t i = 0; i < g->n_m; i++)
                if (!g->m[i].judged)
                        info_cells(g, &g->m[i], cells[t.rows++]);
        fprintf(out, md ? "\n#### Informational (%zu metrics, no verdict)\n\n" : "\ninformational (%zu metrics, no "
                "verdict):\n", n_info);
        table_print(out, &t, md, o->width);
}

static void group_print(const struct compare_view *v, const struct compare_group *g,
                        const struct textcompare_opts *o, FILE *out) {
        char (*cells)[C_COUNT][CELL] = calloc(g->n_m + 1, sizeof(*cells));

        if (!cells)
                return;
        group_head(g, o, out);
        group_judged(g, o, cells, out);
        group_info(v, g, o, cells, out);
        free(cells);
}

/* ---- the answer --------------------------------------------------------- */

/* One judged change in the reader's terms: what it measures, by how much
 * (a difference in the metric's unit for an amount, else a percentage),
 * from what to what, and the 95 % interval. */
static void answer_line(const struct compare_group *g, const struct compare_metric *m,
                        const struct textcompare_opts *o, FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN;
        g_autofree char *line = NULL;
        struct text_answer t;

        text_answer_parts(g, m, &t);
        line = g_strdup_printf("%s: %s %s (%s%s -> %s; 95%% CI %s to %s%s)", t.what, compare_verdict_name(m->verdict),
                               t.change, t.of, t.a, t.b, t.lo, t.hi, t.stalled);
        text_wrap(out, md ? "- " : "  ", "    ", line, md, o->width);
}

/* ---- where a change of the kernel's instructions went ------------------ */

/* A count of instructions as Minsn with its sign: "+5.24", "-0.0210". */
static void format_minsn(double insns, char *buf, size_t size) {
        char num[32];

        text_format_num(insns / 1e6, num, sizeof(num));
        snprintf(buf, size, "%s%s", insns > 0 && num[0] != '-' ? "+" : "", num);
}

/* One function's figures after its name: " +5.24 (+4.8%)", with ", only in
 * B" when it exists in one kernel only. */
static void explain_figures(const struct explain *x, const struct explain_fn *f, char *buf, size_t size) {
        char d[40], pct[40];

        format_minsn(f->delta, d, sizeof(d));
        text_format_pct(x->total_a > 0 ? f->delta / x->total_a : NAN, 1, pct, sizeof(pct));
        if (f->only)
                snprintf(buf, size, " %s (%s, only in %c)", d, pct, f->only);
        else
                snprintf(buf, size, " %s (%s)", d, pct);
}

/* Before an item n columns wide: a blank, or a new line when the item
 * would pass width (0: no limit). A function and its figures stay on one
 * line. */
static void explain_wrap(int indent, int width, int n, int *col, FILE *out) {
        if (width > 0 && *col > indent + 2 && *col + 1 + n > width) {
                fprintf(out, "\n%*s", indent + 2, "");
                *col = indent + 2;
        } else {
                fputc(' ', out);
                (*col)++;
        }
        *col += n;
}

void textcompare_explain(const struct explain *x, int md, int indent, int width, FILE *out) {
        char d[40], a[40], b[40], head[200], fig[120], rest[80];
        int col;

        fprintf(out, "%*s%s", indent, "", md ? "- " : "");
        if (x->none) {
                fputs("where: not known (", out);
                text_put_md(out, x->none, md);
                fputs(")\n", out);
                return;
        }
        text_format_num(x->total_a / 1e6, a, sizeof(a));
        text_format_num(x->total_b / 1e6, b, sizeof(b));
        snprintf(head, sizeof(head), "where, Minsn a cell (%s -> %s, %zu + %zu cells profiled):", a, b, x->na, x->nb);
        fputs(head, out);
        col = indent + (md ? 2 : 0) + (int)strlen(head);
        for (size_t i = 0; i < x->n_top; i++) {
                const struct explain_fn *f = &x->top[i];
                int more = i + 1 < x->n_top || x->n_rest;

                explain_figures(x, f, fig, sizeof(fig));
                explain_wrap(indent, width, text_columns(f->symbol) + (int)strlen(fig) + more, &col, out);
                text_put_md(out, f->symbol, md);
                fprintf(out, "%s%s", fig, more ? "," : "");
        }
        format_minsn(x->rest, d, sizeof(d));
        snprintf(rest, sizeof(rest), "%zu other%s %s", x->n_rest, x->n_rest == 1 ? "" : "s", d);
        if (x->n_rest) {
                explain_wrap(indent, width, (int)strlen(rest), &col, out);
                fputs(rest, out);
        }
        fputc('\n', out);
}

/* The explanation of metric m of group gi, under its line of the answer. */
static void answer_explain(const struct compare_view *v, size_t gi, const struct compare_metric *m,
                           const struct textcompare_opts *o, FILE *out) {
        const struct explain *x = explain_find(v, gi, m);
        int md = o->format == TEXTCOMPARE_MARKDOWN;

        if (x)
                textcompare_explain(x, md, md ? 2 : 4, o->width, out);
}

static void answer(const struct compare_view *v, const struct textcompare_opts *o, FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN;

        if (v->n_groups)
                fputc('\n', out);
        for (size_t i = 0; i < v->n_groups; i++) {
                const struct compare_group *g = &v->groups[i];
                /* Failed cells first when they fail the comparison: with no
                 * ok cell on a side there is no verdict to speak of. */
                g_autofree char *failing = text_answer_cells(g, 1), *failed = text_answer_cells(g, 0);
                int no_ok = g->failed == COMPARE_FAILED_NO_OK_A || g->failed == COMPARE_FAILED_NO_OK_B;
                g_autofree char *says = NULL, *verdicts = NULL;
                size_t judged = 0;

                for (size_t j = 0; j < g->n_m; j++)
                        judged += g->m[j].judged;
                fputs(md ? "**" : "", out);
                text_put_md(out, g->spec, md);
                fputs(md ? "**:" : ":", out);
                if (g->worse || g->better)
                        verdicts = g_strdup_printf("B is %s (%zu worse, %zu better of %zu judged metrics)",
                                                   g->worse && g->better ? "worse and better"
                                                   : g->worse ? "worse" : "better", g->worse, g->better, judged);
                else if (v->no_verdict)
                        verdicts = g_strdup_printf("no verdict (%zu judged metrics withheld: A and B were not "
                                                   "measured together)", judged);
                else
                        verdicts = g_strdup_printf("no judged change (%zu judged metrics)", judged);
                /* failing and failed are never both (text_answer_cells). */
                says = no_ok ? g_strdup(failing)
                             : g_strjoin("; ", failing ? failing : verdicts, failing ? verdicts : failed, NULL);
                fputc(' ', out);
                text_wrap_from(out, text_columns(g->spec) + 2, "  ", says, md, o->width);
                if (md && (g->worse || g->better))
                        fputc('\n', out);
                for (int pass = 0; pass < 2; pass++)
                        for (size_t j = 0; j < g->n_m; j++)
                                if (g->m[j].verdict == (pass ? COMPARE_BETTER : COMPARE_WORSE)) {
                                        answer_line(g, &g->m[j], o, out);
                                        answer_explain(v, i, &g->m[j], o, out);
                                }
                /* Explanations asked for beyond the verdicts (compare --explain). */
                for (size_t j = 0; j < g->n_m; j++)
                        if (g->m[j].verdict != COMPARE_WORSE && g->m[j].verdict != COMPARE_BETTER &&
                            explain_find(v, i, &g->m[j])) {
                                answer_line(g, &g->m[j], o, out);
                                answer_explain(v, i, &g->m[j], o, out);
                        }
                if (md && i + 1 < v->n_groups)
                        fputc('\n', out);
        }
}

/* ---- the whole ---------------------------------------------------------- */

static void selector_line(const char *label, const char *sel, const char *desc, int md, FILE *out) {
        fputs(md ? "**" : "", out);
        fputs(label, out);
        fputs(md ? "**: " : ": ", out);
        /* A bare kernel name is what the description starts with. */
        if (!desc || strncmp(desc, sel, strlen(sel)) != 0 || desc[strlen(sel)] != ' ') {
                fputs(md ? "`" : "", out);
                text_put_as(out, sel, 0, md ? TEXT_MD_CODE : TEXT_PLAIN);
                fputs(md ? "` = " : " = ", out);
        }
        text_put_md(out, desc, md);
        fputs(md ? "  \n" : "\n", out);
}

static void lonely_print(const struct compare_view *v, int md, FILE *out) {
        if (v->n_lonely)
                fputs(md ? "\n**Not compared** (on one side only):\n\n" : "\nnot compared (on one side only):\n", out);
        for (size_t i = 0; i < v->n_lonely; i++) {
                const struct compare_lonely *l = &v->lonely[i];
                g_autoptr(GString) side = g_string_new(NULL);

                fprintf(out, "%sonly %c: ", md ? "- " : "  ", l->side);
                text_put_md(out, l->spec, md);
                side_part(",", &l->s, side);
                text_put_md(out, side->str, md);
                if (l->differs) {
                        fprintf(out, "; differs from %c's ", l->side == 'A' ? 'B' : 'A');
                        text_put_md(out, l->workload, md);
                        fputs(" cells in: ", out);
                        text_put_md(out, l->differs, md);
                }
                fputc('\n', out);
        }
}

/* One line of facts: wrapped in text; in markdown a line of its own
 * (two blanks before its newline), as the selectors' lines are. */
static void fact_line(const char *line, const struct textcompare_opts *o, FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN;
        char *buf = NULL;
        size_t len = 0;
        FILE *m = md ? open_memstream(&buf, &len) : NULL;

        if (!m) {
                text_wrap(out, "", "  ", line, 0, o->width);
                return;
        }
        /* Wrapped two columns short, for the line break's blanks. */
        text_wrap(m, "", "  ", line, 1, o->width > 2 ? o->width - 2 : o->width);
        fclose(m);
        if (len && buf[len - 1] == '\n')
                len--;
        fwrite(buf, 1, len, out);
        fputs("  \n", out);
        free(buf);
}

/* The kernels' upstream versions and how their configurations differ,
 * when the kernel store had them: the first things a kernel developer
 * asks of two kernels. A few differing options, all with o->all. */
static void kernels_print(const struct compare_kernels *k, const struct textcompare_opts *o, FILE *out) {
        size_t n = 0, shown;
        g_autoptr(GString) line = g_string_new(NULL);

        if (k->upstream_a || k->upstream_b) {
                g_autofree char *l = g_strdup_printf("upstream: A %s, B %s", k->upstream_a ? k->upstream_a : "?",
                                                     k->upstream_b ? k->upstream_b : "?");
                fact_line(l, o, out);
        }
        if (!k->config_diff)
                return;
        if (k->config_differ == 0) {
                fact_line("config: the same options", o, out);
                return;
        }
        while (k->config_diff[n] && !g_str_has_prefix(k->config_diff[n], "... and "))
                n++;
        shown = o->all ? n : MIN(n, TEXTCOMPARE_CONFIG_LINES);
        g_string_append_printf(line, "config: %zu option%s differ%s:", k->config_differ,
                               k->config_differ == 1 ? "" : "s", k->config_differ == 1 ? "s" : "");
        for (size_t i = 0; i < shown; i++)
                g_string_append_printf(line, "%s %s", i ? ";" : "", k->config_diff[i]);
        if (shown < k->config_differ)
                g_string_append_printf(line, "; and %zu more%s", k->config_differ - shown,
                                       shown < n ? " (-a lists them)" : "");
        fact_line(line->str, o, out);
}

void textcompare_print(const struct compare_view *v, const struct textcompare_opts *o, FILE *out) {
        int md = o->format == TEXTCOMPARE_MARKDOWN;
        g_autofree char *rule = NULL, *total = NULL, *exit_note = g_strdup_printf(" (exit status %d)", v->exit_status);
        g_autofree char *failed_note = v->failed_groups ? g_strdup_printf(", %zu whose cells failed", v->failed_groups)
                                                        : g_strdup("");

        /* What the selection bounds comes first: the run chosen by kernel
         * name, why there is no verdict, what a verdict across runs costs. */
        if (v->first) {
                text_wrap(out, "", "  ", v->first, md, o->width);
                if (md)
                        fputc('\n', out);
        }
        selector_line("A", v->sel_a, v->desc_a, md, out);
        selector_line("B", v->sel_b, v->desc_b, md, out);
        kernels_print(&v->kernels, o, out);
        if (v->same_cells)
                fprintf(out, "note: A and B select the same cells; for an A/A comparison name two runs or tags%s\n",
                        md ? "  " : "");
        if (v->ignored && v->ignored[0]) {
                fputs("paired across differing settings:", out);
                for (size_t i = 0; v->ignored[i]; i++) {
                        fputc(' ', out);
                        text_put_md(out, v->ignored[i], md);
                }
                fputs(md ? "  \n" : "\n", out);
        }
        answer(v, o, out);
        for (size_t i = 0; i < v->n_groups; i++)
                group_print(v, &v->groups[i], o, out);
        lonely_print(v, md, out);
        total = g_strdup_printf("%zu worse, %zu better, of %zu judged metrics in %zu paired group%s%s%s", v->worse,
                                v->better, v->judged, v->n_groups, v->n_groups == 1 ? "" : "s", failed_note,
                                v->exit_status ? exit_note : "");
        fputc('\n', out);
        text_wrap(out, "", "  ", total, md, o->width);
        if (md)
                fputc('\n', out);
        /* The rule in one labelled line; --help and the guide say it in full. */
        rule = g_strdup_printf("rule: a verdict needs Benjamini-Hochberg q <= %g over its group's judged metrics "
                               "and the whole 95%% CI beyond ±%g%% (an amount: beyond its floor too; a phase's "
                               "longest stall: the tail rule)%s", v->alpha, v->noise * 100,
                               o->wide || o->all ? "; mde: the smallest change whose whole CI lies beyond the band "
                               "with 80% power" : "");
        text_wrap(out, "", "  ", rule, md, o->width);
}
