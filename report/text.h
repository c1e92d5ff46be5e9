/* report/text: the text renderer of the views (report/view.h,
 * report/compare.h): aligned tables for a terminal, and the same
 * comparison tables as markdown for a mailing-list post. Renderers never
 * compute: every number comes from the view. */
#pragma once

#include <stdio.h>

#include "report/view.h"

/* One cell in full: fields, metrics, print hook, vmstat rows, timeline
 * summary, logs. */
void text_cell(const struct view_cell *v, FILE *out);
/* The cell's vmstat seconds beside the host's block statistics of its disk
 * (report/hostdisk.h): guest bo, host write and read rates over the same
 * second, the seconds where one writes and the other is idle, and the
 * window's summary. */
void text_cell_vmstat(const struct view_cell *v, FILE *out);

/* Whether a row's change means something: always for a judged metric;
 * for an informational one only when the metric has a direction and both
 * means lie beyond their own standard deviation from zero (-98.8 % of a
 * rate that is noise around 0 is no finding). Shared with the site. */
int text_change_shown(const struct compare_metric *m);

/* The number formats of the comparison tables, shared with the site so a
 * figure reads the same in `kbench compare` and on a page. buf >= 32.
 * A value with as many digits as a benchmark figure carries: 84389, 352.2,
 * 3.31, 0.0273; "n/a" when not finite. */
void text_format_num(double v, char *buf, size_t size);
/* A fraction as a percentage, "8.2%", or "+8.2%" with sign; "n/a" when not
 * finite. */
void text_format_pct(double frac, int sign, char *buf, size_t size);
/* A value in its unit as a kernel developer reads it: seconds scaled to
 * "µs", "ms" or "s" with three significant digits ("336 µs", "23.6 ms",
 * "1.31 s"); any other unit as text_format_num prints the figure. With
 * show_unit the unit follows ("150.3 Minsn"); without, a scaled time still
 * carries its own ("336 µs") and the others none. "n/a" when not finite.
 * buf >= 48. */
void text_format_value(double v, const char *unit, int show_unit, char *buf, size_t size);
/* The unit figures up to maxabs of a stored unit are printed in by
 * text_format_value, and the factor from the stored one: for seconds
 * 1e6 ("µs"), 1e3 ("ms") or 1 ("s"); any other unit 1 and itself ("" for
 * NULL). For a chart's axis, whose ticks must share the unit its figures
 * are printed in. OUT: *ret_unit (static, or unit). */
double text_unit_scale(double maxabs, const char *unit, const char **ret_unit);
/* A judged metric's change, its 95 % interval and its minimum detectable
 * change, as compare's table and the site show them: percentages of A's
 * mean for a ratio ("+4.6%", "[+4.2%, +5.0%]", "0.4%"), a difference in the
 * metric's unit, scaled, for an amount with a floor ("+1.05 s",
 * "[+878, +1210 ms]", "114 ms"). Each buffer holds size >= 48 bytes. */
void text_format_change(const struct compare_metric *m, char *change, char *ci, char *mde, size_t size);
/* One judged change in the reader's terms, as the answer before
 * compare's tables says it and the site's front page repeats it: what the
 * metric measures (metrics_describe), the change (a difference in its unit
 * for an amount with a floor, else a percentage), both means and the 95 %
 * interval's ends. The strings are plain text (the caller escapes them). */
struct text_answer {
        char what[160];            /* "waiting in dd's write phase" */
        char change[48];           /* "+1.05 s", "+4.6%" */
        char a[48], b[48];         /* the means, "1963", "2128 Minsn"; an amount's (its trimmed
                                      means) each with its unit, "310 ms", "1.36 s" */
        const char *of;            /* what a and b are, before them: "" or "trimmed means " */
        char lo[48], hi[48];       /* the interval's ends, "+7.5%", "+878 ms" ("n/a" when none) */
        char stalled[64];          /* the tail rule's cells, "; stalled in 3 of 6 cells, A 0 of 6"; ""
                                      for a metric it does not judge */
};
void text_answer_parts(const struct compare_group *g, const struct compare_metric *m, struct text_answer *ret);
/* What a group's failed cells say in its answer line, plain text for any
 * renderer: with failing, why they fail the comparison and the sides it
 * looked at ("B has no ok cell (B: 0 of 4 cells ok: 4 hang)"); without,
 * each side that has failed cells when they do not ("B: 9 of 10 cells ok:
 * 1 hang"). NULL when there is nothing of that kind to say; else g_free. */
char *text_answer_cells(const struct compare_group *g, int failing);
/* A figure with 4 significant digits, in fixed notation ("32231",
 * "268.1", "0.1254"); "n/a" when not finite. buf >= 32. */
void text_format_sig(double v, char *buf, size_t size);
/* The digits after the point that give maxabs 4 significant digits
 * (0 from 1000 on, at most 6): one row's figures share them. */
int text_decimals(double maxabs);
/* v with decimals digits after the point, never in exponent form below
 * 1e15 ("32231", "0.1254"); "n/a" when not finite. */
void text_format_fixed(double v, int decimals, char *buf, size_t size);
/* A unix time as "2026-12-06 06:03:21 UTC"; "-" when unknown. */
void text_format_time(double t, char *buf, size_t size);
/* v padded to width (printf's: negative left-aligns) with prec digits,
 * 'f' after the point or 'g' significant; "n/a" when not finite. */
void text_put_num(FILE *out, double v, char style, int prec, int width);
/* A cell's metrics in its workload's own layout (workload_ops.print: the
 * tiobench table), when the workload has one. */
void text_print_hook(const char *workload, const struct query_metric *m, size_t n, FILE *out);
/* A p-value, "0.0049", "<0.0001", "n/a". */
void text_format_p(double p, char *buf, size_t size);

/* How text_put_as writes a string: for a terminal; as markdown text (mail
 * clients and forges render markdown as HTML); or inside a markdown code
 * span or code block. */
enum text_mode { TEXT_PLAIN, TEXT_MD, TEXT_MD_CODE };

/* s (NULL: "-") padded to width characters in the one terminal-safe form
 * (common/utf8.h): C0, DEL and C1 (U+0080..U+009F, which a terminal may
 * take for CSI and friends) and the bidirectional controls as '?', every
 * byte that starts no valid UTF-8 sequence (a raw 0x9b is CSI on an 8-bit
 * terminal) as "\xNN". As markdown text, what could begin markup is
 * escaped (an & or < that could begin an entity or a tag becomes the
 * entity report/html.c writes; \ ` * [ ] | get a backslash) and nothing
 * else, so no string from the store becomes a tag, a link, a code span or
 * a table cell, and a mail reads the rest as written ("->", "<= 0.05"); in
 * a code span or block, where markup is literal already, a backtick (which
 * could end it) is masked too. */
void text_put_as(FILE *out, const char *s, int width, enum text_mode mode);
/* text_put_as as markdown text when md, else as plain text; no padding. */
void text_put_md(FILE *out, const char *s, int md);
/* The columns text_put prints for s. */
int text_columns(const char *s);
/* s broken at blanks into lines of at most width columns (0: no limit),
 * the first after first, the others after indent, each word through
 * text_put_md; ends with a newline. A word wider than a line stays whole. */
void text_wrap(FILE *out, const char *first, const char *indent, const char *s, int md, int width);
/* text_wrap on a line whose first col columns are printed already. */
void text_wrap_from(FILE *out, int col, const char *indent, const char *s, int md, int width);

/* s (NULL: "-") on a terminal, padded to width characters, in the one
 * terminal-safe form (common/utf8.h utf8_terminal_safe): every control
 * character and bidirectional control as '?', every invalid byte as
 * "\xNN", so no string of the store can drive the terminal or forge a
 * line. */
void text_put(FILE *out, const char *s, int width);

/* A log as kbench show --log prints it: the bytes as stored (NULs
 * included) when terminal is 0; for a terminal, newlines and tabs kept and
 * the rest in text_put's form (controls '?', invalid bytes "\xNN").
 * Returns 0 or -EIO. */
int text_log(const char *text, size_t len, int terminal, FILE *out);
