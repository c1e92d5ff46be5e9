/* report/text.c: the views as text tables for people (see text.h). Strings
 * that came from a guest (cell details) or from the store are printed with
 * control characters masked, so a hostile console line cannot drive the
 * terminal. A metric stored without a value prints as "n/a". */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/utf8.h"
#include "common/util.h"
#include "report/hostdisk.h"
#include "report/metrics.h"
#include "report/text.h"
#include "results/cellstate.h"
#include "settings/runopts.h"
#include "workloads/workload.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* The markdown escape of the ASCII character at s[i] in text (see
 * text_put_as), or NULL when it is text as it stands. Only what could
 * begin markup is escaped, so that a mail reads the rest as written: an
 * '&' before a letter, digit or '#' (an entity), a '<' before a letter,
 * '/', '!' or '?' (a tag, comment or autolink), a '>' that begins the
 * string (a quote, at a line's start), and \ ` * [ ] | (escapes, code,
 * emphasis, links, table cells). An intraword '_', as in every metric
 * name, is left: CommonMark gives it no emphasis. */
static const char *md_escape(const char *s, size_t i) {
        static const char *const backslashed[] = { ['\\'] = "\\\\", ['`'] = "\\`", ['*'] = "\\*", ['['] = "\\[",
                                                    [']'] = "\\]", ['|'] = "\\|" };
        unsigned char c = (unsigned char)s[i], next = (unsigned char)s[i + 1];

        if (c == '&' && (isalnum(next) || next == '#'))
                return "&amp;";
        if (c == '<' && (isalpha(next) || next == '/' || next == '!' || next == '?'))
                return "&lt;";
        if (c == '>' && i == 0)
                return "&gt;";
        return c < ELEMENTSOF(backslashed) ? backslashed[c] : NULL;
}

void text_put_as(FILE *out, const char *s, int width, enum text_mode mode) {
        size_t len;
        int n = 0;

        if (!s)
                s = "-";
        len = strlen(s);
        for (size_t i = 0; i < len;) {
                char safe[UTF8_SAFE_MAX];
                size_t k = utf8_terminal_safe((const unsigned char *)s + i, len - i, safe);
                uint32_t cp = (unsigned char)safe[0];
                const char *ent = NULL;

                n += utf8_safe_width(safe);
                if (safe[1] || cp == '?' || cp >= 0x80 || (mode == TEXT_MD_CODE && cp == '`')) {
                        fputs(mode == TEXT_MD_CODE && cp == '`' ? "?" : safe, out);
                        i += k;
                        continue;
                }
                if (mode == TEXT_MD)
                        ent = md_escape(s, i);
                if (ent)
                        fputs(ent, out);
                else
                        fputs(safe, out);
                i += k;
        }
        for (; n < width; n++)
                fputc(' ', out);
}

static void put_text(FILE *out, const char *s, int width) {
        text_put_as(out, s, width, TEXT_PLAIN);
}

void text_put(FILE *out, const char *s, int width) {
        put_text(out, s, width);
}

void text_put_md(FILE *out, const char *s, int md) {
        text_put_as(out, s, 0, md ? TEXT_MD : TEXT_PLAIN);
}

int text_log(const char *text, size_t len, int terminal, FILE *out) {
        if (!terminal)
                return len && fwrite(text, 1, len, out) != len ? -EIO : 0;
        for (size_t i = 0; i < len;) {
                char safe[UTF8_SAFE_MAX];
                size_t k = utf8_terminal_safe((const unsigned char *)text + i, len - i, safe);

                /* A log keeps its lines and tabs; nothing else that controls. */
                if (text[i] == '\n' || text[i] == '\t')
                        fputc(text[i], out);
                else
                        fputs(safe, out);
                i += k;
        }
        return ferror(out) ? -EIO : 0;
}

int text_columns(const char *s) {
        size_t len, n = 0;

        if (!s)
                return 1;
        len = strlen(s);
        for (size_t i = 0; i < len;) {
                char safe[UTF8_SAFE_MAX];

                i += utf8_terminal_safe((const unsigned char *)s + i, len - i, safe);
                n += (size_t)utf8_safe_width(safe);
        }
        return (int)n;
}

void text_wrap_from(FILE *out, int col, const char *indent, const char *s, int md, int width) {
        g_auto(GStrv) words = g_strsplit(s ? s : "-", " ", -1);
        int lead = text_columns(indent), start = col;

        for (size_t i = 0; words[i]; i++) {
                int w = text_columns(words[i]);

                /* A word wider than the line stays whole, on a line of its own. */
                if (width > 0 && col > start && col + 1 + w > width) {
                        fputc('\n', out);
                        fputs(indent, out);
                        col = start = lead;
                } else if (col > start) {
                        fputc(' ', out);
                        col++;
                }
                text_put_md(out, words[i], md);
                col += w;
        }
        fputc('\n', out);
}

void text_wrap(FILE *out, const char *first, const char *indent, const char *s, int md, int width) {
        fputs(first, out);
        text_wrap_from(out, text_columns(first), indent, s, md, width);
}

/* Print v with prec digits ('f': after the point, 'g': significant), or
 * "n/a" when it is not finite (a metric stored without value); width as printf's (negative: left-aligned). */
void text_put_num(FILE *out, double v, char style, int prec, int width) {
        char buf[64];

        if (!isfinite(v))
                snprintf(buf, sizeof(buf), "n/a");
        else if (style == 'g' || fabs(v) >= 1e15)   /* "%.3f" of 1e308 would be cut */
                snprintf(buf, sizeof(buf), "%.*g", prec, v);
        else
                snprintf(buf, sizeof(buf), "%.*f", prec, v);
        fprintf(out, "%*s", width, buf);
}

static int vm_col_width(int k) {
        size_t n = strlen(db_vmstat_column_names[k]);

        return n > 7 ? (int)n : 7;
}

void text_format_time(double t, char *buf, size_t size) {
        struct tm tm;
        time_t s;

        if (!isfinite(t) || t <= 0) {
                snprintf(buf, size, "-");
                return;
        }
        s = (time_t)t;
        /* UTC, said so: the site's zone, and one a reader elsewhere can
         * read without knowing the host's. */
        gmtime_r(&s, &tm);
        strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* Call the workload's print hook with a cell's metrics. The list only
 * borrows the query's strings: it is never freed as a metric_list. */
void text_print_hook(const char *workload, const struct query_metric *m, size_t n, FILE *out) {
        const struct workload_ops *ops = workload_find(workload);
        struct metric *v;

        if (!ops || !ops->print || n == 0)
                return;
        v = calloc(n, sizeof(*v));
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                v[i] = (struct metric){ .name = m[i].name, .value = m[i].has_value ? m[i].value : 0,
                                        .has_value = m[i].has_value, .unit = m[i].unit,
                                        .note = m[i].note };
        ops->print(&(struct metric_list){ .v = v, .n = n, .cap = n }, out);
        free(v);
}

/* A figure of the run summary with decimals digits after the point:
 * one format for every row, never in exponent form ("32231", "0.1254"). */
void text_format_fixed(double v, int decimals, char *buf, size_t size) {
        if (!isfinite(v))
                snprintf(buf, size, "n/a");
        else if (fabs(v) >= 1e15)   /* "%.0f" of 1e308 fills any cell */
                snprintf(buf, size, "%.4g", v);
        else
                snprintf(buf, size, "%.*f", decimals, v);
}

int text_decimals(double maxabs) {
        int d;

        if (!isfinite(maxabs) || maxabs == 0)
                return 0;
        /* 4 significant digits of the largest figure, none past the point
         * from 1000 on, at most 6 (a mean of 2e-7 reads as 0.000000). */
        d = 3 - (int)floor(log10(maxabs));
        return d < 0 ? 0 : d > 6 ? 6 : d;
}

void text_format_sig(double v, char *buf, size_t size) {
        /* A count is a whole number: "2", not "2.000". */
        text_format_fixed(v, v == floor(v) ? 0 : text_decimals(fabs(v)), buf, size);
}

/* The cell's row: what ran, how it ended, and its times. */
static void cell_header(const struct view_cell *v, FILE *out) {
        const struct query_cell *c = v->cell;
        char started[32];

        text_format_time(c->started_at, started, sizeof(started));
        fputs("cell ", out);
        put_text(out, c->cell_key, 0);
        fprintf(out, "  run %lld  attempt %d\n", (long long)c->run_id, c->attempt);
        fputs("kernel      ", out);
        put_text(out, c->kernel_name, 0);
        fputs(" (", out);
        put_text(out, c->kernel_id, 0);
        fputs(")\nworkload    ", out);
        put_text(out, c->workload, 0);
        fprintf(out, "  iteration %d\nparams      ", c->iteration + 1);
        put_text(out, c->params_json, 0);
        fputs("\nstate       ", out);
        put_text(out, c->state, 0);
        if (v->contended == 1)
                fputs(" (contended)", out);
        fputs("\ndetail      ", out);
        put_text(out, c->detail, 0);
        fputs("\naccel       ", out);
        put_text(out, c->accel, 0);
        fprintf(out, "\nstarted     %s (%s)\ntimes       boot ", started,
                view_cell_start(v->metrics, v->n_metrics) ?: "start not recorded");
        text_put_num(out, c->boot_s, 'f', 3, 0);
        fputs(" s  workload ", out);
        text_put_num(out, c->workload_s, 'f', 3, 0);
        fputs(" s  total ", out);
        text_put_num(out, c->total_s, 'f', 3, 0);
        fprintf(out, " s\nexit code   %d  rejected records %lld\n", c->exit_code,
                (long long)c->rejected_records);
}

/* The metrics table, then the workload's own summary of an ok cell. */
static void cell_metrics(const struct view_cell *v, FILE *out) {
        int wm = 6, wu = 4;

        if (!v->n_metrics)
                return;
        for (size_t i = 0; i < v->n_metrics; i++) {
                wm = MAX(wm, text_columns(v->metrics[i].name));
                wu = MAX(wu, text_columns(v->metrics[i].unit));
        }
        fprintf(out, "\n%-*s  %12s  %-*s  %s\n", wm, "METRIC", "VALUE", wu, "UNIT", "NOTE");
        for (size_t i = 0; i < v->n_metrics; i++) {
                const struct query_metric *m = &v->metrics[i];
                char num[48];

                put_text(out, m->name, wm);
                fputs("  ", out);
                text_format_sig(m->has_value ? m->value : NAN, num, sizeof(num));
                fprintf(out, "%12s", num);
                fputs("  ", out);
                put_text(out, m->unit, wu);
                fputs("  ", out);
                put_text(out, m->note ? m->note : "", 0);
                fputc('\n', out);
        }
        if (cellstate_is(v->cell->state, CELLSTATE_OK)) {
                fputc('\n', out);
                text_print_hook(v->cell->workload, v->metrics, v->n_metrics, out);
        }
}

static void cell_vmstat(const struct view_cell *v, FILE *out) {
        fprintf(out, "\nvmstat: %zu rows\n", v->n_vmstat);
        if (!v->n_vmstat)
                return;
        fprintf(out, "%6s %8s %8s", "SEQ", "T_HOST", "T_GUEST");
        /* A column is as wide as its name (nr_writeback), at least 7. */
        for (int k = 0; k < DB_VM_NCOLS; k++)
                fprintf(out, " %*s", vm_col_width(k), db_vmstat_column_names[k]);
        fputc('\n', out);
        for (size_t i = 0; i < v->n_vmstat; i++) {
                const struct db_vmstat_row *row = &v->vmstat[i];

                fprintf(out, "%6lld ", (long long)row->seq);
                text_put_num(out, row->t_host, 'f', 2, 8);
                fputc(' ', out);
                text_put_num(out, row->t_guest, 'f', 2, 8);
                for (int k = 0; k < DB_VM_NCOLS; k++) {
                        fputc(' ', out);
                        text_put_num(out, row->v[k], 'f', 0, vm_col_width(k));
                }
                fputs(row->first ? "  (since boot)\n" : "\n", out);
        }
}

/* One line per timeline kind: its points' count, time span and range. */
static void cell_timeline(const struct view_cell *v, FILE *out) {
        fprintf(out, "\ntimeline: %zu points\n", v->n_points);
        for (size_t i = 0; i < v->n_points;) {
                size_t j = i;
                double lo = v->points[i].value, hi = lo;

                while (j < v->n_points && strcmp(v->points[j].kind, v->points[i].kind) == 0) {
                        lo = fmin(lo, v->points[j].value);
                        hi = fmax(hi, v->points[j].value);
                        j++;
                }
                fputs("  ", out);
                put_text(out, v->points[i].kind, 0);
                fprintf(out, ": %zu points, t %.2f..%.2f s, value %.6g..%.6g\n", j - i, v->points[i].t,
                        v->points[j - 1].t, lo, hi);
                i = j;
        }
}

static void cell_logs(const struct view_cell *v, FILE *out) {
        fputs("\nlogs:", out);
        if (v->n_logs == 0)
                fputs(" none", out);
        for (size_t i = 0; i < v->n_logs; i++) {
                fputc(' ', out);
                put_text(out, v->logs[i].stream, 0);
                fprintf(out, " (%lld bytes)", (long long)v->logs[i].bytes);
        }
        fprintf(out, "\n");
        if (v->n_logs) {
                fprintf(out, "  (kbench show %lld --cell ", (long long)v->cell->run_id);
                put_text(out, v->cell->cell_key, 0);
                fputs(" --log STREAM prints one)\n", out);
        }
}

void text_cell(const struct view_cell *v, FILE *out) {
        cell_header(v, out);
        cell_metrics(v, out);
        cell_vmstat(v, out);
        fprintf(out, "\nhost block statistics of the disk: %zu readings (kbench show --cell KEY --log vmstat)\n",
                v->n_hostblk);
        cell_timeline(v, out);
        cell_logs(v, out);
}


/* ---- figures, shared with the comparison and the site ------------------ */

void text_format_num(double v, char *buf, size_t size) {
        double a = fabs(v);

        if (!isfinite(v))
                snprintf(buf, size, "n/a");
        else if (a >= 1e9)
                snprintf(buf, size, "%.4g", v);     /* "%.0f" of 4e307 fills any cell */
        else if (a >= 1000 || v == floor(v))
                snprintf(buf, size, "%.0f", v);     /* a count is a whole number: "2", not "2.00" */
        else if (a >= 100)
                snprintf(buf, size, "%.1f", v);
        else if (a >= 1)
                snprintf(buf, size, "%.2f", v);
        else {
                /* Three significant digits, never in scientific notation
                 * ("0.000000981", not "9.81e-07"): at most 9 decimals. */
                int decimals = 2 - (int)floor(log10(a));

                snprintf(buf, size, "%.*f", decimals < 9 ? decimals : 9, v);
        }
}

/* The unit a figure of maxabs seconds reads best in, as a kernel
 * developer writes it: "µs" below a millisecond, "ms" below a second.
 * OUT: *ret_unit; returns the factor from seconds. */
static double seconds_scale(double maxabs, const char **ret_unit) {
        if (maxabs > 0 && maxabs < 0.001) {
                *ret_unit = "µs";
                return 1e6;
        }
        if (maxabs > 0 && maxabs < 1) {
                *ret_unit = "ms";
                return 1e3;
        }
        *ret_unit = "s";
        return 1;
}

/* The decimals that give a figure of maxabs three significant digits (none
 * from 100 on, at most 9). */
static int sig3_decimals(double maxabs) {
        int d = maxabs > 0 ? 2 - (int)floor(log10(maxabs)) : 0;

        return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* The unit figures up to maxabs are printed in, and the factor from the
 * stored unit: seconds scaled, any other unit as stored. */
static double unit_scale(double maxabs, const char *unit, const char **ret_unit) {
        if (unit && strcmp(unit, "s") == 0)
                return seconds_scale(maxabs, ret_unit);
        *ret_unit = unit ? unit : "";
        return 1;
}

double text_unit_scale(double maxabs, const char *unit, const char **ret_unit) {
        return unit_scale(maxabs, unit, ret_unit);
}

void text_format_value(double v, const char *unit, int show_unit, char *buf, size_t size) {
        const char *u;
        double k = unit_scale(fabs(v), unit, &u);
        char num[48];

        if (!isfinite(v)) {
                snprintf(buf, size, "n/a");
                return;
        }
        if (k != 1 || (unit && strcmp(unit, "s") == 0))
                snprintf(num, sizeof(num), "%.*f", v == 0 ? 0 : sig3_decimals(fabs(v * k)), v * k);
        else
                text_format_num(v, num, sizeof(num));
        snprintf(buf, size, "%s%s%s", num, show_unit && *u ? " " : "", show_unit ? u : "");
}

void text_format_pct(double frac, int sign, char *buf, size_t size) {
        if (!isfinite(frac))
                snprintf(buf, size, "n/a");
        else
                snprintf(buf, size, sign ? "%+.1f%%" : "%.1f%%", frac * 100);
}

void text_format_p(double p, char *buf, size_t size) {
        if (!isfinite(p))
                snprintf(buf, size, "n/a");
        else if (p < 0.0001)
                snprintf(buf, size, "<0.0001");
        else
                snprintf(buf, size, "%.4f", p);
}

int text_change_shown(const struct compare_metric *m) {
        if (!isfinite(m->change))
                return 0;
        if (m->judged)
                return 1;
        if (m->info.direction == METRICS_NONE)
                return 0;
        /* A level within its own spread of zero (a read rate of a write
         * job, a stall count that is mostly 0): its ratio is noise over
         * noise, and "-98.8%" would read like a finding. */
        return fabs(m->sa.mean) > m->sa.sd && fabs(m->sb.mean) > m->sb.sd;
}

/* A difference with its sign, "+1.31 s", "+18.1 µs" ("+1.31" without a
 * unit). */
static void format_diff(double d, const char *unit, char *buf, size_t size) {
        char v[48];

        text_format_value(fabs(d), unit, unit != NULL, v, sizeof(v));
        if (!isfinite(d))
                snprintf(buf, size, "n/a");
        else
                snprintf(buf, size, "%s%s", d < 0 ? "-" : "+", v);
}

/* An interval of differences in one scale, "[-75.7, +39.4 µs]"; "n/a"
 * when an end is not finite. */
static void format_interval(double lo, double hi, const char *unit, char *buf, size_t size) {
        const char *u;
        double k = unit_scale(fmax(fabs(lo), fabs(hi)), unit, &u);
        int d = k != 1 || (unit && strcmp(unit, "s") == 0) ? sig3_decimals(fmax(fabs(lo), fabs(hi)) * k) : -1;
        char a[48], b[48];

        if (!isfinite(lo) || !isfinite(hi)) {
                snprintf(buf, size, "n/a");
                return;
        }
        if (d >= 0) {
                snprintf(a, sizeof(a), "%+.*f", d, lo * k);
                snprintf(b, sizeof(b), "%+.*f", d, hi * k);
        } else {
                format_diff(lo, NULL, a, sizeof(a));
                format_diff(hi, NULL, b, sizeof(b));
        }
        snprintf(buf, size, "[%s, %s%s%s]", a, b, *u ? " " : "", u);
}

void text_format_change(const struct compare_metric *m, char *change, char *ci, char *mde, size_t size) {
        char lo[32], hi[48];

        if (m->info.floor > 0) {
                /* An amount: as a difference, in its unit. */
                format_diff(m->diff.estimate, m->unit, change, size);
                format_interval(m->diff.lo, m->diff.hi, m->unit, ci, size);
                text_format_value(m->mde_abs, m->unit, 1, mde, size);
                return;
        }
        text_format_pct(m->change, 1, change, size);
        text_format_pct(m->ratio.lo - 1, 1, lo, sizeof(lo));
        text_format_pct(m->ratio.hi - 1, 1, hi, sizeof(hi));
        text_format_pct(m->mde, 0, mde, size);
        if (isfinite(m->ratio.lo) && isfinite(m->ratio.hi))
                snprintf(ci, size, "[%s, %s]", lo, hi);
        else
                snprintf(ci, size, "n/a");
}

void text_answer_parts(const struct compare_group *g, const struct compare_metric *m, struct text_answer *ret) {
        int amount = m->info.floor > 0;
        double a = amount && m->trimmed ? m->trimmed_a : m->sa.mean;
        double b = amount && m->trimmed ? m->trimmed_b : m->sb.mean;

        metrics_describe(m->name, g->workload, ret->what, sizeof(ret->what));
        /* An amount's figures each carry their unit, which may scale
         * apart ("820 µs -> 1.31 s"); a ratio's, once, after B's. */
        text_format_value(a, m->unit, amount, ret->a, sizeof(ret->a));
        text_format_value(b, m->unit, 1, ret->b, sizeof(ret->b));
        /* The difference is of the trimmed means (Yuen's): show those. */
        ret->of = amount && m->trimmed ? "trimmed means " : "";
        ret->stalled[0] = '\0';
        if (m->info.tail > 0)
                snprintf(ret->stalled, sizeof(ret->stalled), "; stalled in %zu of %zu cells, A %zu of %zu", m->tail_b,
                         m->nb, m->tail_a, m->na);
        if (amount) {
                format_diff(m->diff.estimate, m->unit, ret->change, sizeof(ret->change));
                format_diff(m->diff.lo, m->unit, ret->lo, sizeof(ret->lo));
                format_diff(m->diff.hi, m->unit, ret->hi, sizeof(ret->hi));
        } else {
                text_format_pct(m->change, 1, ret->change, sizeof(ret->change));
                text_format_pct(m->ratio.lo - 1, 1, ret->lo, sizeof(ret->lo));
                text_format_pct(m->ratio.hi - 1, 1, ret->hi, sizeof(ret->hi));
        }
}

/* "B: 7 of 10 cells ok: 3 hang": a side's cells, and how the failed ones
 * ended. */
static void side_cells(GString *s, const char *label, const struct compare_side *side) {
        g_string_append_printf(s, "%s: %zu of %zu cells ok", label, side->ok, side->ok + side->failed);
        if (side->failed && side->failed_states)
                g_string_append_printf(s, ": %s", side->failed_states);
}

char *text_answer_cells(const struct compare_group *g, int failing) {
        GString *s = g_string_new(NULL);

        if (failing && g->failed) {
                g_string_append_printf(s, "%s (", compare_failed_name(g->failed));
                if (g->failed != COMPARE_FAILED_NO_OK_B)
                        side_cells(s, "A", &g->a);
                if (g->failed == COMPARE_FAILED_MORE_B)
                        g_string_append(s, "; ");
                if (g->failed != COMPARE_FAILED_NO_OK_A)
                        side_cells(s, "B", &g->b);
                g_string_append_c(s, ')');
        } else if (!failing && !g->failed) {
                if (g->a.failed)
                        side_cells(s, "A", &g->a);
                if (g->a.failed && g->b.failed)
                        g_string_append(s, "; ");
                if (g->b.failed)
                        side_cells(s, "B", &g->b);
        }
        if (s->len == 0) {
                g_string_free(s, TRUE);
                return NULL;
        }
        return g_string_free(s, FALSE);
}

static const char *verdict_word(enum hostdisk_verdict d) {
        switch (d) {
        case HOSTDISK_GUEST_ONLY: return "guest writes, host idle";
        case HOSTDISK_HOST_ONLY: return "host writes, guest idle";
        default: return "";
        }
}

void text_cell_vmstat(const struct view_cell *v, FILE *out) {
        struct hostdisk_second *sec = calloc(v->n_vmstat ? v->n_vmstat : 1, sizeof(*sec));
        struct hostdisk_summary sum;
        size_t n, gaps = 0;
        double gap_max = 0;

        if (!sec) {
                fputs("out of memory\n", out);
                return;
        }
        n = hostdisk_align(v->vmstat, v->n_vmstat, v->hostblk, v->n_hostblk, v->vmstat_interval_s, sec);
        fputs("cell ", out);
        put_text(out, v->cell->cell_key, 0);
        fprintf(out, ": %zu vmstat seconds beside %zu host block readings, on the host's clock (s since QEMU "
                "start)\n", n, v->n_hostblk);
        fprintf(out, "guest bo in KiB/s; host rates over the same second [t - %g, t]; writing >= %.0f KiB/s, "
                "idle < %.0f KiB/s\n", v->vmstat_interval_s, HOSTDISK_WRITING_BPS / 1024, HOSTDISK_IDLE_BPS / 1024);
        fprintf(out, "%8s %10s %11s %12s %12s  %s\n", "T_HOST", "GUEST_BO", "GUEST_MB/s", "HOST_WR_MB/s",
                "HOST_RD_MB/s", "DISAGREE");
        for (size_t i = 0; i < n; i++) {
                text_put_num(out, sec[i].t_host, 'f', 2, 8);
                fputc(' ', out);
                text_put_num(out, sec[i].guest_bo_Bps / 1024, 'f', 0, 10);
                fputc(' ', out);
                text_put_num(out, sec[i].guest_bo_Bps / 1e6, 'f', 2, 11);
                fputc(' ', out);
                text_put_num(out, sec[i].host_wr_Bps / 1e6, 'f', 2, 12);
                fputc(' ', out);
                text_put_num(out, sec[i].host_rd_Bps / 1e6, 'f', 2, 12);
                fprintf(out, "  %s\n", verdict_word(sec[i].verdict));
        }
        free(sec);
        for (size_t i = 1; i < v->n_hostblk; i++) {
                double g = v->hostblk[i].t_host - v->hostblk[i - 1].t_host;
                gap_max = g > gap_max ? g : gap_max;
                gaps++;
        }
        if (hostdisk_summarize(v->vmstat, v->n_vmstat, v->hostblk, v->n_hostblk, v->vmstat_interval_s, &sum) < 0) {
                fputs("host: no figures (fewer than two readings with a write counter)\n", out);
                return;
        }
        fprintf(out, "host: %zu readings over %.2f..%.2f s (largest gap %.2f s); wrote %.1f MB (%.2f MB/s), read ",
                v->n_hostblk, sum.from, sum.to, gaps ? gap_max : 0, sum.written_bytes / 1e6, sum.write_MBps);
        text_put_num(out, sum.read_bytes / 1e6, 'f', 1, 0);
        fputs(" MB\n", out);
        fprintf(out, "%zu seconds compared, %zu disagree (%.0f s)\n", sum.compared, sum.disagree, sum.disagree_s);
}
