/* report/text.c: the views as text tables for people (see text.h). Strings
 * that came from a guest (cell details) or from the store are printed with
 * control characters masked, so a hostile console line cannot drive the
 * terminal. A metric stored without a value prints as "n/a". */
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
#include "settings/runopts.h"
#include "workloads/workload.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* How put_masked writes a string: for a terminal, as markdown text
 * (mail clients and forges render markdown as HTML), or inside a markdown
 * code span. */
enum put_mode { PUT_TEXT, PUT_MD, PUT_MD_CODE };

/* Print s (NULL as "-") padded to width characters in the one
 * terminal-safe form (common/utf8.h): C0, DEL and C1 (U+0080..U+009F, which
 * a terminal may take for CSI and friends) and the bidirectional controls
 * as '?', every byte that starts no valid UTF-8 sequence (a raw 0x9b is CSI
 * on an 8-bit terminal) as "\xNN". As markdown text, & < > " ' become the entities
 * report/html.c writes and \ ` * [ ] | get a backslash, so no string from
 * the store becomes a tag, a link, a code span or a table cell (an
 * intraword '_', as in every metric name, is left: CommonMark gives it no
 * emphasis); in a code span, where markup is literal
 * already, a backtick (which would end the span) is masked too. */
static void put_masked(FILE *out, const char *s, int width, enum put_mode mode) {
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
                if (safe[1] || cp == '?' || cp >= 0x80 || (mode == PUT_MD_CODE && cp == '`')) {
                        fputs(mode == PUT_MD_CODE && cp == '`' ? "?" : safe, out);
                        i += k;
                        continue;
                }
                if (mode == PUT_MD) {
                        switch (cp) {
                        case '&': ent = "&amp;"; break;
                        case '<': ent = "&lt;"; break;
                        case '>': ent = "&gt;"; break;
                        default: break; /* quotes are text outside a tag, and no tag can start */
                        }
                        if (!ent && cp < 0x80 && strchr("\\`*[]|", (int)cp))
                                fputc('\\', out);
                }
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
        put_masked(out, s, width, PUT_TEXT);
}

void text_put(FILE *out, const char *s, int width) {
        put_text(out, s, width);
}

/* s as markdown text when md, else as put_text without padding. */
static void put_md(FILE *out, const char *s, int md) {
        put_masked(out, s, 0, md ? PUT_MD : PUT_TEXT);
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

/* The characters put_text prints for s. */
static int text_width(const char *s) {
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

/* Print v with prec digits ('f': after the point, 'g': significant), or
 * "n/a" when it is not finite (a metric stored without value); width as printf's (negative: left-aligned). */
static void put_num(FILE *out, double v, char style, int prec, int width) {
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

static void fmt_time(double t, char *buf, size_t size) {
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
static void print_hook(const char *workload, const struct query_metric *m, size_t n, FILE *out) {
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

void text_runs(const struct view_runs *v, FILE *out) {
        const struct query_run *runs = v->runs;
        size_t n = v->n;
        int wtag = 3, wstatus = 6;

        if (n == 0) {
                fprintf(out, "no runs in %s\n", v->db_path);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                wtag = MAX(wtag, text_width(runs[i].tag));
                wstatus = MAX(wstatus, text_width(runs[i].status));
        }
        fprintf(out, "%5s  %-*s  %-23s  %-*s  %7s  %s\n", "ID", wtag, "TAG", "STARTED", wstatus, "STATUS",
                "KERNELS", "CELLS OK/TOTAL");
        for (size_t i = 0; i < n; i++) {
                char started[32];

                fmt_time(runs[i].started_at, started, sizeof(started));
                fprintf(out, "%5lld  ", (long long)runs[i].id);
                put_text(out, runs[i].tag, wtag);
                fprintf(out, "  %-23s  ", started);
                put_text(out, runs[i].status, wstatus);
                fprintf(out, "  %7lld  %lld/%lld\n", (long long)runs[i].n_kernels, (long long)runs[i].n_ok,
                        (long long)runs[i].n_planned);
        }
}

/* Why a run that chose its repeats (kbench run --until-mde) stopped, from
 * the outcome the runner wrote into its settings
 * (RUNOPTS_UNTIL_MDE_OUTCOME). */
static void until_mde_line(const struct query_run *r, FILE *out) {
        json_t *settings = r->settings_json ? json_loads(r->settings_json, 0, NULL) : NULL;
        json_t *o = json_object_get(settings, RUNOPTS_UNTIL_MDE_OUTCOME);
        const char *answer = json_string_value(json_object_get(o, "answer"));
        const char *worst = json_string_value(json_object_get(o, "worst_metric"));
        json_t *worst_mde = json_object_get(o, "worst_mde");
        struct run_settings s;
        double target;

        runopts_read(&s, settings);
        target = s.until_mde_pct;
        if (target > 0 && !answer)
                fprintf(out, "repeats chosen by the tool: mde target %g%%, not stopped yet\n", target);
        if (!answer || !(target > 0))
                goto out;
        fprintf(out, "repeats chosen by the tool: %s after %lld round(s), %lld cell(s): ",
                strcmp(answer, "enough") == 0 ? "enough" : strcmp(answer, "time") == 0 ? "time budget spent" :
                "cell budget spent", (long long)json_integer_value(json_object_get(o, "rounds")),
                (long long)json_integer_value(json_object_get(o, "cells")));
        if (strcmp(answer, "enough") == 0)
                fprintf(out, "every judged metric's mde <= %g%%", target);
        else
                fprintf(out, "mde target %g%% not met", target);
        if (worst && json_is_number(worst_mde)) {
                fputs(" (worst ", out);
                put_text(out, worst, 0);
                fprintf(out, " %.1f%%)", json_number_value(worst_mde) * 100);
        }
        fputc('\n', out);
out:
        json_decref(settings);
}

static void run_header(const struct query_run *r, FILE *out) {
        char started[32], finished[32];

        fmt_time(r->started_at, started, sizeof(started));
        fmt_time(r->finished_at, finished, sizeof(finished));
        fprintf(out, "run %lld", (long long)r->id);
        if (r->tag) {
                fputs("  tag ", out);
                put_text(out, r->tag, 0);
        }
        fputs("  ", out);
        put_text(out, r->status, 0);
        fprintf(out, "  started %s  finished %s  cells ok %lld/%lld\n", started, finished,
                (long long)r->n_ok, (long long)r->n_planned);
        fputs("host ", out);
        put_text(out, r->host, 0);
        fputs("  qemu ", out);
        put_text(out, r->qemu_version, 0);
        fputs("  libvirt ", out);
        put_text(out, r->libvirt_version, 0);
        fputs("  kbench ", out);
        put_text(out, r->kbench_version, 0);
        fputc('\n', out);
        until_mde_line(r, out);
}

/* A figure of the run summary with decimals digits after the point:
 * one format for every row, never in exponent form ("32231", "0.1254"). */
static void fmt_fixed(double v, int decimals, char *buf, size_t size) {
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
        fmt_fixed(v, text_decimals(fabs(v)), buf, size);
}

/* One row of the side-by-side summary: a (workload, metric) and its
 * series per kernel (NULL: the kernel has no such metric). */
struct sum_row {
        const char *workload, *metric, *unit;
        const struct view_series **per_kernel;  /* n_kernels entries */
        int judged;
        int hidden;                             /* a repeat or zero everywhere */
};

/* Whether two series hold the same values, one by one. */
static int same_values(const struct view_series *a, const struct view_series *b) {
        if (!a || !b)
                return a == b;
        if (a->s->n != b->s->n || a->s->n_missing != b->s->n_missing)
                return 0;
        for (size_t i = 0; i < a->s->n; i++)
                if (a->s->values[i] != b->s->values[i])
                        return 0;
        return 1;
}

/* The part of a metric name after its last dot: "bi_mean" of
 * "vmstat.write.bi_mean". */
static const char *leaf(const char *name) {
        const char *dot = strrchr(name, '.');

        return dot ? dot + 1 : name;
}

/* Whether row b repeats row a: the same measure (the same unit and last
 * name part, "vmstat.bi_mean" and the main phase's "vmstat.write.bi_mean")
 * with equal values in every kernel's cell. */
static int row_repeats(const struct sum_row *a, const struct sum_row *b, size_t n_kernels) {
        if (strcmp(a->workload, b->workload) != 0 || strcmp(leaf(a->metric), leaf(b->metric)) != 0 ||
            g_strcmp0(a->unit, b->unit) != 0)
                return 0;
        for (size_t k = 0; k < n_kernels; k++)
                if (!same_values(a->per_kernel[k], b->per_kernel[k]))
                        return 0;
        return 1;
}

/* Whether the row tells nothing: every stored value 0 (a counter that
 * never moved), or no cell with a value at all. */
static int row_empty(const struct sum_row *r, size_t n_kernels) {
        for (size_t k = 0; k < n_kernels; k++) {
                const struct view_series *s = r->per_kernel[k];

                for (size_t i = 0; s && i < s->s->n; i++)
                        if (s->s->values[i] != 0)
                                return 0;
        }
        return 1;
}

static int dots(const char *name) {
        int n = 0;

        for (; *name; name++)
                n += *name == '.';
        return n;
}

static int by_judged_then_name(const void *pa, const void *pb) {
        const struct sum_row *a = pa, *b = pb;
        int c = strcmp(a->workload, b->workload);

        if (c)
                return c;
        if (a->judged != b->judged)
                return b->judged - a->judged;
        return strcmp(a->metric, b->metric);
}

/* One kernel's cell of a row: "n  mean ± sd" with the row's decimals. */
static void sum_cell(const struct view_series *s, int decimals, char *buf, size_t size) {
        char m[48], sd[48];

        if (!s) {
                snprintf(buf, size, "-");
                return;
        }
        fmt_fixed(s->sum.mean, decimals, m, sizeof(m));
        fmt_fixed(s->sum.sd, decimals, sd, sizeof(sd));
        snprintf(buf, size, "%zu  %s ± %s", s->s->n, m, sd);
}

/* The run summary, side by side: per workload one row per metric and a
 * column group per kernel (n, mean ± stddev over its ok cells), the judged
 * metrics first (view_metric_judged: what a comparison of these cells
 * would judge; paced says whether the run's cells were cpu-paced).
 * judged_only keeps those rows only; unless all, rows that repeat another
 * row value for value, or are 0 or without value in every cell, are left
 * out and counted. */
static void run_summary(const struct view_series *sum, size_t n, int judged_only, int paced, int all, FILE *out) {
        g_autoptr(GPtrArray) kernels = g_ptr_array_new();
        g_autofree struct sum_row *rows = NULL;
        g_autofree const struct view_series **slots = NULL;
        size_t n_rows = 0, hidden = 0;
        int wm = 6, wu = 4;

        if (n == 0) {
                fputs("\nno ok cells: nothing to summarise\n", out);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                guint k;

                if (!g_ptr_array_find_with_equal_func(kernels, sum[i].s->kernel_name, g_str_equal, &k))
                        g_ptr_array_add(kernels, sum[i].s->kernel_name);
        }
        rows = calloc(n, sizeof(*rows));
        slots = calloc(n * kernels->len, sizeof(*slots));
        if (!rows || !slots)
                return;
        for (size_t i = 0; i < n; i++) {
                const struct query_series *s = sum[i].s;
                struct sum_row *r = NULL;
                guint k = 0;

                if (judged_only && !view_metric_judged(s->metric, paced))
                        continue;
                for (size_t j = 0; j < n_rows && !r; j++)
                        if (strcmp(rows[j].workload, s->workload) == 0 && strcmp(rows[j].metric, s->metric) == 0)
                                r = &rows[j];
                if (!r) {
                        r = &rows[n_rows];
                        *r = (struct sum_row){ .workload = s->workload, .metric = s->metric, .unit = s->unit,
                                               .per_kernel = slots + n_rows * kernels->len,
                                               .judged = view_metric_judged(s->metric, paced) };
                        n_rows++;
                }
                g_ptr_array_find_with_equal_func(kernels, s->kernel_name, g_str_equal, &k);
                r->per_kernel[k] = &sum[i];
        }
        if (n_rows == 0) {
                fputs("\nno judged metric in the ok cells\n", out);
                return;
        }
        qsort(rows, n_rows, sizeof(*rows), by_judged_then_name);
        for (size_t i = 0; i < n_rows; i++) {
                /* Of rows that repeat each other the one with the
                 * shortest name stays: vmstat.bi_mean, not the main
                 * phase's vmstat.write.bi_mean. */
                if (!all && !rows[i].judged) {
                        rows[i].hidden = row_empty(&rows[i], kernels->len);
                        for (size_t j = 0; j < n_rows && !rows[i].hidden; j++)
                                rows[i].hidden = j != i && !rows[j].judged &&
                                                 (dots(rows[j].metric) < dots(rows[i].metric) ||
                                                  (dots(rows[j].metric) == dots(rows[i].metric) && j < i)) &&
                                                 row_repeats(&rows[j], &rows[i], kernels->len);
                }
                hidden += rows[i].hidden;
                if (rows[i].hidden)
                        continue;
                wm = MAX(wm, text_width(rows[i].metric));
                wu = MAX(wu, text_width(rows[i].unit));
        }
        fputs(judged_only ? "\nJudged metrics over ok cells (n  mean ± stddev per kernel):\n"
                          : "\nSummary over ok cells (n  mean ± stddev per kernel; judged metrics first):\n", out);
        for (size_t i = 0; i < n_rows; i++) {
                const struct sum_row *r = &rows[i];
                char cells[64][128];
                size_t nk = MIN(kernels->len, G_N_ELEMENTS(cells));
                int wc[64];
                double maxabs = 0;

                if (i == 0 || strcmp(rows[i - 1].workload, r->workload) != 0) {
                        fputc('\n', out);
                        fputs("WORKLOAD ", out);
                        put_text(out, r->workload, 0);
                        fputc('\n', out);
                        fprintf(out, "%-*s  %-*s", wm, "METRIC", wu, "UNIT");
                        for (size_t k = 0; k < nk; k++) {
                                fputs("  ", out);
                                put_text(out, g_ptr_array_index(kernels, k), 30);
                        }
                        fputc('\n', out);
                } else if (rows[i - 1].judged && !r->judged)
                        fputc('\n', out);   /* the judged rows, then the others */
                if (r->hidden)
                        continue;
                for (size_t k = 0; k < nk; k++)
                        if (r->per_kernel[k] && isfinite(r->per_kernel[k]->sum.mean))
                                maxabs = MAX(maxabs, fabs(r->per_kernel[k]->sum.mean));
                for (size_t k = 0; k < nk; k++) {
                        sum_cell(r->per_kernel[k], text_decimals(maxabs), cells[k], sizeof(cells[k]));
                        wc[k] = 30 + (int)(strlen(cells[k]) - (size_t)text_width(cells[k]));
                }
                put_text(out, r->metric, wm);
                fputs("  ", out);
                put_text(out, r->unit && *r->unit ? r->unit : "-", wu);
                for (size_t k = 0; k < nk; k++)
                        fprintf(out, "  %-*s", k + 1 < nk ? wc[k] : 0, cells[k]);
                for (size_t k = 0; k < nk; k++)
                        if (r->per_kernel[k] && r->per_kernel[k]->s->n_missing) {
                                fputs("  (cells without value:", out);
                                for (size_t j = 0; j < nk; j++)
                                        fprintf(out, " %zu", r->per_kernel[j] ? r->per_kernel[j]->s->n_missing : 0);
                                fputc(')', out);
                                break;
                        }
                fputc('\n', out);
        }
        if (hidden)
                fprintf(out, "\n%zu row%s left out (a repeat of another row, or 0 or no value in every cell): --all shows them\n",
                        hidden, hidden == 1 ? "" : "s");
}

void text_run_brief(const struct view_run *v, FILE *out) {
        int wkey = 3, wk = 6, ww = 8;
        size_t failed = 0;

        run_header(v->run, out);
        if (v->n_cells == 0) {
                fputs("\nno cells stored yet\n", out);
                return;
        }
        /* Only the cells that did not end ok: each one is a finding, and
         * an ok cell's figures are in the summary. */
        for (size_t i = 0; i < v->n_cells; i++) {
                if (strcmp(v->cells[i].state, "ok") == 0)
                        continue;
                wkey = MAX(wkey, text_width(v->cells[i].cell_key));
                wk = MAX(wk, text_width(v->cells[i].kernel_name));
                ww = MAX(ww, text_width(v->cells[i].workload));
                failed++;
        }
        if (failed) {
                fprintf(out, "\n%zu cell attempt%s did not end ok:\n", failed, failed == 1 ? "" : "s");
                for (size_t i = 0; i < v->n_cells; i++) {
                        const struct query_cell *c = &v->cells[i];

                        if (strcmp(c->state, "ok") == 0)
                                continue;
                        put_text(out, c->cell_key, wkey);
                        fputs("  ", out);
                        put_text(out, c->kernel_name, wk);
                        fputs("  ", out);
                        put_text(out, c->workload, ww);
                        fprintf(out, "  try %d  ", c->attempt);
                        put_text(out, c->detail ? c->detail : c->state, 0);
                        fputc('\n', out);
                }
        }
        run_summary(v->summary, v->n_series, 1, view_cpu_paced(v->run->settings_json, NULL), 1, out);
        fprintf(out, "(every cell and metric: kbench show %lld)\n", (long long)v->run->id);
}

void text_run(const struct view_run *v, int all, FILE *out) {
        int wkey = 3, wk = 6, ww = 8, wst = 5;
        int any_hook = 0;

        run_header(v->run, out);
        if (v->n_cells == 0) {
                fputs("\nno cells stored yet\n", out);
                return;
        }
        for (size_t i = 0; i < v->n_cells; i++) {
                wkey = MAX(wkey, text_width(v->cells[i].cell_key));
                wk = MAX(wk, text_width(v->cells[i].kernel_name));
                ww = MAX(ww, text_width(v->cells[i].workload));
                wst = MAX(wst, text_width(v->cells[i].state));
        }
        fprintf(out, "\n%-*s  %-*s  %-*s  %3s  %3s  %-*s  %-5s  %-5s  %7s  %8s  %8s  %s\n", wkey, "KEY", wk,
                "KERNEL", ww, "WORKLOAD", "IT", "TRY", wst, "STATE", "ACCEL", "START", "BOOT_S", "WORK_S", "TOTAL_S",
                "METRICS");
        for (size_t i = 0; i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];
                const struct workload_ops *ops;

                put_text(out, c->cell_key, wkey);
                fputs("  ", out);
                put_text(out, c->kernel_name, wk);
                fputs("  ", out);
                put_text(out, c->workload, ww);
                fprintf(out, "  %3d  %3d  ", c->iteration + 1, c->attempt);
                put_text(out, c->state, wst);
                fputs("  ", out);
                put_text(out, c->accel, 5);
                fputs("  ", out);
                put_text(out, view_cell_start(v->metrics[i], v->n_metrics[i]) ?: "-", 5);
                fputs("  ", out);
                put_num(out, c->boot_s, 'f', 2, 7);
                fputs("  ", out);
                put_num(out, c->workload_s, 'f', 2, 8);
                fputs("  ", out);
                put_num(out, c->total_s, 'f', 2, 8);
                fputs(" ", out);
                if (strcmp(c->state, "ok") != 0) {
                        fputs(" ", out);
                        put_text(out, c->detail ? c->detail : c->state, 0);
                } else if (v->contended[i] == 1) {
                        fputs(" contended", out);
                }
                /* The workload's own figures only (vmstat.* are in the
                 * summary), or a pointer to its table below. */
                ops = workload_find(c->workload);
                if (strcmp(c->state, "ok") == 0 && ops && ops->print) {
                        fputs(" (table below)\n", out);
                        any_hook = 1;
                        continue;
                }
                for (size_t k = 0; k < v->n_metrics[i]; k++) {
                        const struct query_metric *m = &v->metrics[i][k];
                        size_t wl = strlen(c->workload);
                        char num[48];

                        if (strncmp(m->name, c->workload, wl) != 0 || m->name[wl] != '.')
                                continue;
                        fputc(' ', out);
                        put_text(out, m->name, 0);
                        fputc('=', out);
                        text_format_sig(m->has_value ? m->value : NAN, num, sizeof(num));
                        fputs(num, out);
                }
                fputc('\n', out);
        }
        if (any_hook)
                for (size_t i = 0; i < v->n_cells; i++) {
                        const struct query_cell *c = &v->cells[i];

                        const struct workload_ops *ops = workload_find(c->workload);

                        if (strcmp(c->state, "ok") != 0 || !ops || !ops->print)
                                continue;
                        fputs("\n-- ", out);
                        put_text(out, c->cell_key, 0);
                        fputc(' ', out);
                        put_text(out, c->kernel_name, 0);
                        fputc(' ', out);
                        put_text(out, c->workload, 0);
                        fprintf(out, " iteration %d --\n", c->iteration + 1);
                        print_hook(c->workload, v->metrics[i], v->n_metrics[i], out);
                }
        run_summary(v->summary, v->n_series, 0, view_cpu_paced(v->run->settings_json, NULL), all, out);
}

/* The cell's row: what ran, how it ended, and its times. */
static void cell_header(const struct view_cell *v, FILE *out) {
        const struct query_cell *c = v->cell;
        char started[32];

        fmt_time(c->started_at, started, sizeof(started));
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
        put_num(out, c->boot_s, 'f', 3, 0);
        fputs(" s  workload ", out);
        put_num(out, c->workload_s, 'f', 3, 0);
        fputs(" s  total ", out);
        put_num(out, c->total_s, 'f', 3, 0);
        fprintf(out, " s\nexit code   %d  rejected records %lld\n", c->exit_code,
                (long long)c->rejected_records);
}

/* The metrics table, then the workload's own summary of an ok cell. */
static void cell_metrics(const struct view_cell *v, FILE *out) {
        int wm = 6, wu = 4;

        if (!v->n_metrics)
                return;
        for (size_t i = 0; i < v->n_metrics; i++) {
                wm = MAX(wm, text_width(v->metrics[i].name));
                wu = MAX(wu, text_width(v->metrics[i].unit));
        }
        fprintf(out, "\n%-*s  %12s  %-*s  %s\n", wm, "METRIC", "VALUE", wu, "UNIT", "NOTE");
        for (size_t i = 0; i < v->n_metrics; i++) {
                const struct query_metric *m = &v->metrics[i];

                put_text(out, m->name, wm);
                fputs("  ", out);
                put_num(out, m->has_value ? m->value : NAN, 'g', 6, 12);
                fputs("  ", out);
                put_text(out, m->unit, wu);
                fputs("  ", out);
                put_text(out, m->note ? m->note : "", 0);
                fputc('\n', out);
        }
        if (strcmp(v->cell->state, "ok") == 0) {
                fputc('\n', out);
                print_hook(v->cell->workload, v->metrics, v->n_metrics, out);
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
                put_num(out, row->t_host, 'f', 2, 8);
                fputc(' ', out);
                put_num(out, row->t_guest, 'f', 2, 8);
                for (int k = 0; k < DB_VM_NCOLS; k++) {
                        fputc(' ', out);
                        put_num(out, row->v[k], 'f', 0, vm_col_width(k));
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


/* ---- the comparison ----------------------------------------------------- */

void text_format_num(double v, char *buf, size_t size) {
        double a = fabs(v);

        if (!isfinite(v))
                snprintf(buf, size, "n/a");
        else if (a >= 1e9)
                snprintf(buf, size, "%.4g", v);     /* "%.0f" of 4e307 fills any cell */
        else if (a >= 1000)
                snprintf(buf, size, "%.0f", v);
        else if (a >= 100)
                snprintf(buf, size, "%.1f", v);
        else if (a >= 1 || a == 0)
                snprintf(buf, size, "%.2f", v);
        else {
                /* Three significant digits, never in scientific notation
                 * ("0.000000981", not "9.81e-07"): at most 9 decimals. */
                int decimals = 2 - (int)floor(log10(a));

                snprintf(buf, size, "%.*f", decimals < 9 ? decimals : 9, v);
        }
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

static void fmt_n(size_t n, size_t max, char *buf, size_t size) {
        if (n == 0)
                snprintf(buf, size, "n/a");
        else if (n > max)
                snprintf(buf, size, ">%zu", max);
        else
                snprintf(buf, size, "%zu", n);
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

enum { C_METRIC, C_UNIT, C_A, C_ASD, C_AMED, C_B, C_BSD, C_BMED, C_CHANGE, C_CI, C_VERDICT, C_PW, C_PMW, C_N, C_MDE, C_N2, C_N5, C_COUNT };

static const char *const col_title[C_COUNT] = {
        "metric", "unit", "A", "±", "A med", "B", "±", "B med", "change", "95% CI", "verdict", "p(t)", "p(MW)", "n", "mde", "n@2%",
        "n@5%",
};

/* A difference with its sign, "+1.31 s" ("+1.31" without a unit). */
static void format_diff(double d, const char *unit, char *buf, size_t size) {
        char v[32];

        text_format_num(fabs(d), v, sizeof(v));
        if (!isfinite(d))
                snprintf(buf, size, "n/a");
        else
                snprintf(buf, size, "%s%s%s%s", d < 0 ? "-" : "+", v, unit && *unit ? " " : "", unit ? unit : "");
}

void text_format_change(const struct compare_metric *m, char *change, char *ci, char *mde, size_t size) {
        char lo[32], hi[48], v[32];
        int amount = m->info.floor > 0;
        const struct stats_interval *in = amount ? &m->diff : &m->ratio;

        if (amount) {
                /* An amount: as a difference, in its unit. */
                format_diff(m->diff.estimate, m->unit, change, size);
                format_diff(m->diff.lo, NULL, lo, sizeof(lo));
                format_diff(m->diff.hi, m->unit, hi, sizeof(hi));
                text_format_num(m->mde_abs, v, sizeof(v));
                snprintf(mde, size, "%s%s%s", v, isfinite(m->mde_abs) && m->unit && *m->unit ? " " : "",
                         isfinite(m->mde_abs) && m->unit ? m->unit : "");
        } else {
                text_format_pct(m->change, 1, change, size);
                text_format_pct(m->ratio.lo - 1, 1, lo, sizeof(lo));
                text_format_pct(m->ratio.hi - 1, 1, hi, sizeof(hi));
                text_format_pct(m->mde, 0, mde, size);
        }
        if (isfinite(in->lo) && isfinite(in->hi))
                snprintf(ci, size, "[%s, %s]", lo, hi);
        else
                snprintf(ci, size, "n/a");
}

static void metric_cells(const struct compare_metric *m, char cells[C_COUNT][64]) {
        snprintf(cells[C_METRIC], 64, "%.63s", m->name);
        snprintf(cells[C_UNIT], 64, "%.63s", m->unit ? m->unit : "");
        text_format_num(m->sa.mean, cells[C_A], 64);
        text_format_pct(m->sa.cov, 0, cells[C_ASD], 64);
        text_format_num(m->sa.median, cells[C_AMED], 64);
        text_format_num(m->sb.mean, cells[C_B], 64);
        text_format_pct(m->sb.cov, 0, cells[C_BSD], 64);
        text_format_num(m->sb.median, cells[C_BMED], 64);
        text_format_change(m, cells[C_CHANGE], cells[C_CI], cells[C_MDE], 64);
        snprintf(cells[C_VERDICT], 64, "%s", m->verdict == COMPARE_INFO ? "" : compare_verdict_name(m->verdict));
        text_format_p(m->ttest.p, cells[C_PW], 64);
        text_format_p(m->mw.p, cells[C_PMW], 64);
        snprintf(cells[C_N], 64, "%zu+%zu", m->na, m->nb);
        fmt_n(m->n_for_2, 1000, cells[C_N2], 64);
        fmt_n(m->n_for_5, 1000, cells[C_N5], 64);
}

static void side_line(const char *label, const struct compare_side *s, int md, FILE *out) {
        fprintf(out, "%s %zu ok", label, s->ok);
        if (s->failed) {
                fprintf(out, ", %zu failed (", s->failed);
                put_md(out, s->failed_states, md);
                fputc(')', out);
        }
        fputs(s->n_runs > 1 ? " in runs" : " in run", out);
        for (size_t i = 0; i < s->n_runs; i++)
                fprintf(out, "%s%lld", i ? ", " : " ", (long long)s->runs[i]);
}

/* The pairing key's settings line (pairkey_line); in markdown, inside a
 * code span. */
static void settings_line(const struct pairkey *key, int md, FILE *out) {
        g_autofree char *line = pairkey_line(key);

        put_masked(out, line, 0, md ? PUT_MD_CODE : PUT_TEXT);
}

/* Rows of cells as an aligned text table or a markdown table; left[c]:
 * column c is text, left-aligned (the others are numbers). */
static void print_table(FILE *out, int md, int ncols, const char *const *title, const int *left,
                        char (*cells)[C_COUNT][64], size_t rows) {
        int w[C_COUNT];

        for (int c = 0; c < ncols; c++) {
                w[c] = text_width(title[c]);
                for (size_t r = 0; r < rows; r++)
                        w[c] = MAX(w[c], text_width(cells[r][c]));
        }
        for (int c = 0; c < ncols; c++) {
                int last = c == ncols - 1 && left[c];

                if (md) {
                        fprintf(out, "| %s ", title[c]);
                        continue;
                }
                if (c)
                        fputs("  ", out);
                if (left[c])
                        put_text(out, title[c], last ? 0 : w[c]);
                else
                        fprintf(out, "%*s", w[c] + (int)strlen(title[c]) - text_width(title[c]), title[c]);
        }
        fputs(md ? "|\n" : "\n", out);
        if (md) {
                for (int c = 0; c < ncols; c++)
                        fputs(left[c] ? "|:--" : "|--:", out);
                fputs("|\n", out);
        }
        for (size_t r = 0; r < rows; r++) {
                for (int c = 0; c < ncols; c++) {
                        int last = c == ncols - 1 && left[c];

                        if (md) {
                                fputs("| ", out);
                                put_masked(out, cells[r][c], 0, PUT_MD);
                                fputc(' ', out);
                                continue;
                        }
                        if (c)
                                fputs("  ", out);
                        if (left[c])
                                put_text(out, cells[r][c], last ? 0 : w[c]);
                        else
                                fprintf(out, "%*s", w[c] + (int)strlen(cells[r][c]) - text_width(cells[r][c]),
                                        cells[r][c]);
                }
                fputs(md ? "|\n" : "\n", out);
        }
}

/* The informational columns: no verdict, no tests, and a change only where
 * text_change_shown() says it means something. */
enum { I_METRIC, I_UNIT, I_A, I_ASD, I_B, I_BSD, I_CHANGE, I_N, I_WHY, I_COUNT };

static const char *const info_title[I_COUNT] = { "metric", "unit", "A", "±", "B", "±", "change", "n", "why no verdict" };

/* Why a metric has no verdict, in a cell of 63 bytes: a reason the
 * group's note gives in full (the TCG rule, which covers every rate) is
 * pointed at, not repeated; another too long for the cell ends at a word,
 * never inside one. */
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

static void info_cells(const struct compare_group *g, const struct compare_metric *m, char cells[C_COUNT][64]) {
        snprintf(cells[I_METRIC], 64, "%.63s", m->name);
        snprintf(cells[I_UNIT], 64, "%.63s", m->unit ? m->unit : "");
        text_format_num(m->sa.mean, cells[I_A], 64);
        text_format_pct(m->sa.cov, 0, cells[I_ASD], 64);
        text_format_num(m->sb.mean, cells[I_B], 64);
        text_format_pct(m->sb.cov, 0, cells[I_BSD], 64);
        if (text_change_shown(m))
                text_format_pct(m->change, 1, cells[I_CHANGE], 64);
        else
                snprintf(cells[I_CHANGE], 64, "%s",
                         isfinite(m->change) && m->info.direction != METRICS_NONE ? "near 0" : "");
        snprintf(cells[I_N], 64, "%zu+%zu", m->na, m->nb);
        why_cell(g, m->info.why ? m->info.why : "not in this kbench's registry", cells[I_WHY], 64);
}

static void group_table(const struct compare_view *v, const struct compare_group *g, int md, int all,
                        FILE *out) {
        static const int judged_left[C_COUNT] = { [C_METRIC] = 1, [C_UNIT] = 1, [C_VERDICT] = 1 };
        static const int info_left[I_COUNT] = { [I_METRIC] = 1, [I_UNIT] = 1, [I_WHY] = 1 };
        char (*cells)[C_COUNT][64] = calloc(g->n_m + 1, sizeof(*cells));
        size_t rows = 0, n_info = 0;

        if (!cells)
                return;
        fputs(md ? "\n### " : "\n", out);
        put_md(out, g->spec, md);
        fputs(md ? "\n\n" : "\n", out);
        fputs(md ? "- " : "  ", out);
        side_line("A:", &g->a, md, out);
        fputs(md ? "\n- " : ";  ", out);
        side_line("B:", &g->b, md, out);
        fputs(md ? "\n- settings: `" : "\n  settings: ", out);
        settings_line(g->key, md, out);
        fputs(md ? "`\n" : "\n", out);
        for (size_t i = 0; i < ELEMENTSOF(g->notes) && g->notes[i]; i++) {
                fputs(md ? "- note: " : "  note: ", out);
                put_md(out, g->notes[i], md);
                fputc('\n', out);
        }
        fputc('\n', out);
        for (size_t i = 0; i < g->n_m; i++) {
                if (!g->m[i].judged) {
                        n_info++;
                        continue;
                }
                metric_cells(&g->m[i], cells[rows++]);
        }
        if (rows)
                print_table(out, md, C_COUNT, col_title, judged_left, cells, rows);
        else
                fputs(md ? "No judged metric in this group.\n" : "no judged metric in this group\n", out);
        if (isfinite(g->geomean))
                fprintf(out, "%sgeomean of B vs A over %zu judged metrics (lower-is-better ones inverted, + is "
                             "better): %+.1f%%\n", md ? "\n" : "", g->n_geomean, (g->geomean - 1) * 100);
        /* Informational rows in their own section, without the tests and
         * verdict columns, so none reads like a finding. */
        if (n_info && (all || v->metric_glob)) {
                rows = 0;
                for (size_t i = 0; i < g->n_m; i++)
                        if (!g->m[i].judged)
                                info_cells(g, &g->m[i], cells[rows++]);
                fprintf(out, md ? "\n#### Informational (%zu metrics, no verdict)\n\n"
                                : "\ninformational (%zu metrics, no verdict):\n", n_info);
                print_table(out, md, I_COUNT, info_title, info_left, cells, rows);
        } else if (n_info)
                fprintf(out, "%s%zu informational metric%s without a verdict (kbench compare --all lists them)\n",
                        md ? "\n" : "", n_info, n_info == 1 ? "" : "s");
        free(cells);
}

/* One judged change in the reader's terms: what it measures, by how much
 * (a difference in the metric's unit for an amount, else a percentage),
 * from what to what, and the 95 % interval. */
void text_answer_parts(const struct compare_group *g, const struct compare_metric *m, struct text_answer *ret) {
        metrics_describe(m->name, g->workload, ret->what, sizeof(ret->what));
        text_format_num(m->sa.mean, ret->a, sizeof(ret->a));
        text_format_num(m->sb.mean, ret->b, sizeof(ret->b));
        ret->unit = m->unit ? m->unit : "";
        ret->of = "";
        ret->stalled[0] = '\0';
        if (m->info.tail > 0)
                snprintf(ret->stalled, sizeof(ret->stalled), "; stalled in %zu of %zu cells, A %zu of %zu", m->tail_b,
                         m->nb, m->tail_a, m->na);
        if (m->info.floor > 0 && m->trimmed) {
                /* The difference is of the trimmed means (Yuen's): show those. */
                text_format_num(m->trimmed_a, ret->a, sizeof(ret->a));
                text_format_num(m->trimmed_b, ret->b, sizeof(ret->b));
                ret->of = "trimmed means ";
        }
        if (m->info.floor > 0) {
                format_diff(m->diff.estimate, m->unit, ret->change, sizeof(ret->change));
                format_diff(m->diff.lo, NULL, ret->lo, sizeof(ret->lo));
                format_diff(m->diff.hi, m->unit, ret->hi, sizeof(ret->hi));
        } else {
                text_format_pct(m->change, 1, ret->change, sizeof(ret->change));
                text_format_pct(m->ratio.lo - 1, 1, ret->lo, sizeof(ret->lo));
                text_format_pct(m->ratio.hi - 1, 1, ret->hi, sizeof(ret->hi));
        }
}

/* One judged change in the reader's terms: what it measures, by how much
 * (a difference in the metric's unit for an amount, else a percentage),
 * from what to what, and the 95 % interval. */
static void answer_line(const struct compare_group *g, const struct compare_metric *m, int md, FILE *out) {
        struct text_answer t;

        text_answer_parts(g, m, &t);
        fputs("  ", out);
        fputs(md ? "- " : "", out);
        put_md(out, t.what, md);
        fprintf(out, ": %s %s (%s%s -> %s %s; 95%% CI %s to %s%s)\n", compare_verdict_name(m->verdict), t.change,
                t.of, t.a, t.b, t.unit, t.lo, t.hi, t.stalled);
}

/* The answer before the tables: per group, what got worse or better, in
 * the workload's terms, or that nothing judged moved. */
static void answer(const struct compare_view *v, int md, FILE *out) {
        if (v->n_groups)
                fputc('\n', out);
        for (size_t i = 0; i < v->n_groups; i++) {
                const struct compare_group *g = &v->groups[i];
                size_t judged = 0;

                for (size_t j = 0; j < g->n_m; j++)
                        judged += g->m[j].judged;
                fputs(md ? "- **" : "", out);
                put_md(out, g->spec, md);
                if (g->worse || g->better)
                        fprintf(out, "%s: B is %s (%zu worse, %zu better of %zu judged metrics)\n", md ? "**" : "",
                                g->worse && g->better ? "worse and better" : g->worse ? "worse" : "better", g->worse,
                                g->better, judged);
                else
                        fprintf(out, "%s: no judged change (%zu judged metrics)\n", md ? "**" : "", judged);
                for (int pass = 0; pass < 2; pass++)
                        for (size_t j = 0; j < g->n_m; j++)
                                if (g->m[j].verdict == (pass ? COMPARE_BETTER : COMPARE_WORSE))
                                        answer_line(g, &g->m[j], md, out);
        }
        if (v->n_groups)
                fputc('\n', out);
}

void text_compare(const struct compare_view *v, int markdown, int all, FILE *out) {
        enum put_mode code = markdown ? PUT_MD_CODE : PUT_TEXT;

        fputs(markdown ? "**A**: `" : "A: ", out);
        put_masked(out, v->sel_a, 0, code);
        fputs(markdown ? "` = " : " = ", out);
        put_md(out, v->desc_a, markdown);
        fputs(markdown ? "  \n**B**: `" : "\nB: ", out);
        put_masked(out, v->sel_b, 0, code);
        fputs(markdown ? "` = " : " = ", out);
        put_md(out, v->desc_b, markdown);
        fputs(markdown ? "  \n" : "\n", out);
        if (v->same_cells)
                fprintf(out, "note: A and B select the same cells; for an A/A comparison name two runs or tags%s\n",
                        markdown ? "  " : "");
        if (v->ignored && v->ignored[0]) {
                fputs("paired across differing settings:", out);
                for (size_t i = 0; v->ignored[i]; i++) {
                        fputc(' ', out);
                        put_md(out, v->ignored[i], markdown);
                }
                fputs(markdown ? "  \n" : "\n", out);
        }
        answer(v, markdown, out);
        for (size_t i = 0; i < v->n_groups; i++)
                group_table(v, &v->groups[i], markdown, all, out);
        if (v->n_lonely)
                fputs(markdown ? "\n**Not compared** (on one side only):\n\n" : "\nnot compared (on one side only):\n",
                      out);
        for (size_t i = 0; i < v->n_lonely; i++) {
                const struct compare_lonely *l = &v->lonely[i];

                fprintf(out, "%sonly %c: ", markdown ? "- " : "  ", l->side);
                put_md(out, l->spec, markdown);
                fputs(", ", out);
                side_line("", &l->s, markdown, out);
                if (l->differs) {
                        fprintf(out, "; differs from %c's ", l->side == 'A' ? 'B' : 'A');
                        put_md(out, l->workload, markdown);
                        fputs(" cells in: ", out);
                        put_md(out, l->differs, markdown);
                }
                fputc('\n', out);
        }
        fprintf(out, "\n%zu worse, %zu better, of %zu judged metrics in %zu paired group%s", v->worse, v->better,
                v->judged, v->n_groups, v->n_groups == 1 ? "" : "s");
        if (v->worse)
                fprintf(out, " (exit status %d)", v->exit_status);
        fprintf(out, "\n%sverdict: the t-test's p survives Benjamini-Hochberg at q = %g over the judged metrics, and\n"
                     "the whole 95%% CI of the change lies beyond ±%g%% (Welch's test and Fieller's CI of the\n"
                     "ratio; for an amount in seconds or MiB, Welch's or Yuen's on 20%% trimmed means, the\n"
                     "smaller p doubled, and its CI of the difference, beyond its floor as well; for the\n"
                     "longest stall of a phase, the share of B's cells that stall: the tail rule)%s\n",
                markdown ? "\n" : "", v->alpha, v->noise * 100, markdown ? "  " : "");
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
                put_num(out, sec[i].t_host, 'f', 2, 8);
                fputc(' ', out);
                put_num(out, sec[i].guest_bo_Bps / 1024, 'f', 0, 10);
                fputc(' ', out);
                put_num(out, sec[i].guest_bo_Bps / 1e6, 'f', 2, 11);
                fputc(' ', out);
                put_num(out, sec[i].host_wr_Bps / 1e6, 'f', 2, 12);
                fputc(' ', out);
                put_num(out, sec[i].host_rd_Bps / 1e6, 'f', 2, 12);
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
        put_num(out, sum.read_bytes / 1e6, 'f', 1, 0);
        fputs(" MB\n", out);
        fprintf(out, "%zu seconds compared, %zu disagree (%.0f s)\n", sum.compared, sum.disagree, sum.disagree_s);
}
