/* report/text: the text renderer of the views (report/view.h,
 * report/compare.h): aligned tables for a terminal, and the same
 * comparison tables as markdown for a mailing-list post. Renderers never
 * compute: every number comes from the view. */
#pragma once

#include <stdio.h>

#include "report/view.h"

/* All runs: id, tag, started, status, kernels, cells ok/total. */
void text_runs(const struct view_runs *v, FILE *out);

/* The end of `kbench run`: the run's header, the cells that did not end
 * ok, and per (kernel, workload) the judged metrics only (metrics_verdict):
 * n and mean ± stddev over ok cells; text_run() is the full table. */
void text_run_brief(const struct view_run *v, FILE *out);

/* One run: its cells (key, kernel, workload, iteration, state, accel,
 * timings, metrics; a failed cell shows its detail instead), the workload's
 * own layout for ok cells (print hooks), then the summary side by side:
 * per workload one row per metric (judged metrics first, a unit on every
 * row) and per kernel n and mean ± stddev over ok cells only. Unless all,
 * rows that repeat another row value for value (vmstat.write.* of dd
 * repeats vmstat.*, the main phase) or are 0 in every cell are left out,
 * and a last line counts them. */
void text_run(const struct view_run *v, int all, FILE *out);

/* One cell in full: fields, metrics, print hook, vmstat rows, timeline
 * summary, logs. */
void text_cell(const struct view_cell *v, FILE *out);
/* The cell's vmstat seconds beside the host's block statistics of its disk
 * (report/hostdisk.h): guest bo, host write and read rates over the same
 * second, the seconds where one writes and the other is idle, and the
 * window's summary. */
void text_cell_vmstat(const struct view_cell *v, FILE *out);

/* The comparison: per paired group a benchstat-like table of the judged
 * metrics (compare_metric.judged, from the registry), metric  A ± sd%
 * A median  B ± sd%  B median  change  CI  verdict  p(Welch)  p(MW)  n  mde
 * n@2%  n@5%, and the geometric mean of the judged metrics; then the
 * informational metrics in their own section (A, B, their spread, n, why
 * they have no verdict, and a change only where text_change_shown()) when
 * all is set or the view has a --metric glob, else a line counting them;
 * then the groups found on one side only and the verdict count. markdown:
 * the same tables as GitHub-style markdown. */
void text_compare(const struct compare_view *v, int markdown, int all, FILE *out);

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
/* A judged metric's change, its 95 % interval and its minimum detectable
 * change, as compare's table and the site show them: percentages of A's
 * mean for a ratio ("+4.6%", "[+4.2%, +5.0%]", "0.4%"), a difference in the
 * metric's unit for an amount with a floor ("+1.05 s", "[+0.878, +1.21 s]",
 * "0.114 s"). Each buffer holds size >= 48 bytes. */
void text_format_change(const struct compare_metric *m, char *change, char *ci, char *mde, size_t size);
/* One judged change in the reader's terms, as the answer before
 * compare's tables says it and the site's front page repeats it: what the
 * metric measures (metrics_describe), the change (a difference in its unit
 * for an amount with a floor, else a percentage), both means and the 95 %
 * interval's ends. The strings are plain text (the caller escapes them);
 * unit is borrowed from m. */
struct text_answer {
        char what[160];            /* "waiting in dd's write phase" */
        char change[48];           /* "+1.05 s", "+4.6%" */
        char a[32], b[32];         /* the means, "0.31", "1.36"; an amount's trimmed means */
        const char *of;            /* what a and b are, before them: "" or "trimmed means " */
        const char *unit;          /* m's unit, "" when none */
        char lo[48], hi[48];       /* the interval's ends, "+0.878", "+1.21 s" ("n/a" when none) */
        char stalled[64];          /* the tail rule's cells, "; stalled in 3 of 6 cells, A 0 of 6"; ""
                                      for a metric it does not judge */
};
void text_answer_parts(const struct compare_group *g, const struct compare_metric *m, struct text_answer *ret);
/* A figure with 4 significant digits, in fixed notation ("32231",
 * "268.1", "0.1254"); "n/a" when not finite. buf >= 32. */
void text_format_sig(double v, char *buf, size_t size);
/* The digits after the point that give maxabs 4 significant digits
 * (0 from 1000 on, at most 6): one row's figures share them. */
int text_decimals(double maxabs);
/* A p-value, "0.0049", "<0.0001", "n/a". */
void text_format_p(double p, char *buf, size_t size);

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
