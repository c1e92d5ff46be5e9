/* report/textrun.c: runs as text for a terminal (see textrun.h): the list
 * of runs, one run's cells, and its summary side by side per kernel, each
 * fitted to the reader's width: a summary with more kernels than fit is
 * printed in blocks of kernels, a cell's own figures go under its row
 * when they do not fit beside it, and seconds read as µs, ms or s. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/util.h"
#include "report/text.h"
#include "report/textrun.h"
#include "results/cellstate.h"
#include "settings/runopts.h"
#include "workloads/workload.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

void textrun_runs(const struct view_runs *v, FILE *out) {
        const struct query_run *runs = v->runs;
        size_t n = v->n;
        int wtag = 3, wstatus = 6;

        if (n == 0) {
                fprintf(out, "no runs in %s\n", v->db_path);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                wtag = MAX(wtag, text_columns(runs[i].tag));
                wstatus = MAX(wstatus, text_columns(runs[i].status));
        }
        fprintf(out, "%5s  %-*s  %-23s  %-*s  %7s  %s\n", "ID", wtag, "TAG", "STARTED", wstatus, "STATUS",
                "KERNELS", "CELLS OK/TOTAL");
        for (size_t i = 0; i < n; i++) {
                char started[32];

                text_format_time(runs[i].started_at, started, sizeof(started));
                fprintf(out, "%5lld  ", (long long)runs[i].id);
                text_put(out, runs[i].tag, wtag);
                fprintf(out, "  %-23s  ", started);
                text_put(out, runs[i].status, wstatus);
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
                text_put(out, worst, 0);
                fprintf(out, " %.1f%%)", json_number_value(worst_mde) * 100);
        }
        fputc('\n', out);
out:
        json_decref(settings);
}

static void run_header(const struct query_run *r, FILE *out) {
        char started[32], finished[32];

        text_format_time(r->started_at, started, sizeof(started));
        text_format_time(r->finished_at, finished, sizeof(finished));
        fprintf(out, "run %lld", (long long)r->id);
        if (r->tag) {
                fputs("  tag ", out);
                text_put(out, r->tag, 0);
        }
        fputs("  ", out);
        text_put(out, r->status, 0);
        fprintf(out, "  cells ok %lld/%lld\nstarted %s  finished %s\n", (long long)r->n_ok, (long long)r->n_planned,
                started, finished);
        fputs("host ", out);
        text_put(out, r->host, 0);
        fputs("  qemu ", out);
        text_put(out, r->qemu_version, 0);
        fputs("  libvirt ", out);
        text_put(out, r->libvirt_version, 0);
        fputs("  kbench ", out);
        text_put(out, r->kbench_version, 0);
        fputc('\n', out);
        until_mde_line(r, out);
}

/* "kernels 6.1.0-47-amd64 (upstream 6.1.170), ...": each kernel of the
 * run once, when o->upstream knows its version; the release alone does
 * not say which stable update a distribution's kernel is. */
static void kernels_line(const struct view_run *v, const struct textrun_opts *o, FILE *out) {
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        g_autoptr(GString) line = g_string_new("kernels");
        int any = 0;

        for (size_t i = 0; o->upstream && i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];
                g_autofree char *up = NULL;

                if (!c->kernel_id || !c->kernel_name || !g_hash_table_add(seen, c->kernel_id))
                        continue;
                up = o->upstream(o->upstream_ctx, c->kernel_id);
                g_string_append_printf(line, "%s %s (upstream %s)", g_hash_table_size(seen) > 1 ? "," : "",
                                       c->kernel_name, up ? up : "?");
                any |= up != NULL;
        }
        if (any)
                text_wrap(out, "", "  ", line->str, 0, o->width);
}

/* ---- the summary, side by side ------------------------------------------ */

/* One row of the summary: a (workload, metric) and its series per kernel
 * (NULL: the kernel has no such metric). */
struct sum_row {
        const char *workload, *metric, *unit;
        const struct view_series **per_kernel;  /* n_kernels entries */
        int judged;
        int hidden;                             /* a repeat or zero everywhere */
};

struct summary {
        struct sum_row *rows;
        size_t n_rows;
        const struct view_series **slots;       /* n_rows x n_kernels */
        const char **kernels;                   /* names, in their first series' order */
        size_t n_kernels;
};

static void summary_clear(struct summary *s) {
        free(s->rows);
        free(s->slots);
        free(s->kernels);
}

/* The part of a metric name after its last dot: "bi_mean" of
 * "vmstat.write.bi_mean". */
static const char *leaf(const char *name) {
        const char *dot = strrchr(name, '.');

        return dot ? dot + 1 : name;
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

static size_t kernel_index(struct summary *s, const char *name) {
        for (size_t k = 0; k < s->n_kernels; k++)
                if (strcmp(s->kernels[k], name) == 0)
                        return k;
        s->kernels[s->n_kernels] = name;
        return s->n_kernels++;
}

/* The rows of the summary, one per (workload, metric), sorted with the
 * judged first in each workload. Returns 0 or -ENOMEM. */
static int summary_build(struct summary *s, const struct view_series *sum, size_t n, int judged_only, int paced) {
        g_autoptr(GHashTable) index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        *s = (struct summary){ .rows = calloc(n + 1, sizeof(*s->rows)), .kernels = calloc(n + 1, sizeof(char *)) };
        if (!s->rows || !s->kernels)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                kernel_index(s, sum[i].s->kernel_name);
        s->slots = calloc(n * s->n_kernels + 1, sizeof(*s->slots));
        if (!s->slots)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const struct query_series *q = sum[i].s;
                char *key = g_strconcat(q->workload, "\n", q->metric, NULL);
                gpointer at;
                struct sum_row *r;

                if (judged_only && !view_metric_judged(q->metric, paced)) {
                        g_free(key);
                        continue;
                }
                if (g_hash_table_lookup_extended(index, key, NULL, &at)) {
                        r = &s->rows[GPOINTER_TO_SIZE(at)];
                        g_free(key);
                } else {
                        g_hash_table_insert(index, key, GSIZE_TO_POINTER(s->n_rows));
                        r = &s->rows[s->n_rows];
                        *r = (struct sum_row){ .workload = q->workload, .metric = q->metric, .unit = q->unit,
                                               .per_kernel = s->slots + s->n_rows * s->n_kernels,
                                               .judged = view_metric_judged(q->metric, paced) };
                        s->n_rows++;
                }
                r->per_kernel[kernel_index(s, q->kernel_name)] = &sum[i];
        }
        qsort(s->rows, s->n_rows, sizeof(*s->rows), by_judged_then_name);
        return 0;
}

/* A row repeats another when it is the same measure (the same workload,
 * unit and last name part: "vmstat.bi_mean" and the main phase's
 * "vmstat.write.bi_mean") with equal values in every kernel's cell. Its
 * key holds exactly that, as bytes, so that rows that repeat each other
 * share a key; NULL for a row with a value no other can equal (NAN). -0
 * is +0, as == has it. */
static GBytes *repeat_key(const struct sum_row *r, size_t n_kernels) {
        GByteArray *b = g_byte_array_new();
        const char *l = leaf(r->metric), *unit = r->unit ? r->unit : "";

        g_byte_array_append(b, (const guint8 *)r->workload, (guint)strlen(r->workload) + 1);
        g_byte_array_append(b, (const guint8 *)l, (guint)strlen(l) + 1);
        g_byte_array_append(b, (const guint8 *)unit, (guint)strlen(unit) + 1);
        for (size_t k = 0; k < n_kernels; k++) {
                const struct view_series *s = r->per_kernel[k];
                size_t head[2] = { s ? s->s->n + 1 : 0, s ? s->s->n_missing : 0 };

                g_byte_array_append(b, (const guint8 *)head, sizeof(head));
                for (size_t i = 0; s && i < s->s->n; i++) {
                        double v = s->s->values[i] + 0.0;

                        if (isnan(v)) {
                                g_byte_array_unref(b);
                                return NULL;
                        }
                        g_byte_array_append(b, (const guint8 *)&v, sizeof(v));
                }
        }
        return g_byte_array_free_to_bytes(b);
}

/* Mark the rows that tell nothing new: of rows that repeat each other
 * (repeat_key) the one with the fewest dots in its name stays, the first
 * of those if several (vmstat.bi_mean, not the main phase's
 * vmstat.write.bi_mean), and rows 0 or without value everywhere go.
 * Judged rows always stay. One pass with a hash of each row's key, not a
 * scan of every other row: a run of 20 000 names must not cost 4 x 10^8
 * comparisons. Returns how many were marked. */
static size_t summary_hide(struct summary *s) {
        g_autoptr(GHashTable) best = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                                           (GDestroyNotify)g_bytes_unref, NULL);
        g_autofree GBytes **keys = g_new0(GBytes *, s->n_rows + 1);
        size_t hidden = 0;

        for (size_t i = 0; i < s->n_rows; i++) {
                struct sum_row *r = &s->rows[i];
                gpointer was;

                if (r->judged || (r->hidden = row_empty(r, s->n_kernels)))
                        continue;
                keys[i] = repeat_key(r, s->n_kernels);
                if (!keys[i])
                        continue;
                if (!g_hash_table_lookup_extended(best, keys[i], NULL, &was) ||
                    dots(r->metric) < dots(s->rows[GPOINTER_TO_SIZE(was) - 1].metric))
                        g_hash_table_insert(best, g_bytes_ref(keys[i]), GSIZE_TO_POINTER(i + 1));
        }
        for (size_t i = 0; i < s->n_rows; i++) {
                if (keys[i])
                        s->rows[i].hidden = GPOINTER_TO_SIZE(g_hash_table_lookup(best, keys[i])) != i + 1;
                g_clear_pointer(&keys[i], g_bytes_unref);
                hidden += s->rows[i].hidden;
        }
        return hidden;
}

/* One kernel's cell of a row: "n  mean ± sd", the figures multiplied by
 * k (a time's scale) with the row's decimals. */
static void sum_cell(const struct view_series *s, double k, int decimals, char *buf, size_t size) {
        char m[40], sd[40];

        if (!s) {
                snprintf(buf, size, "-");
                return;
        }
        text_format_fixed(s->sum.mean * k, decimals, m, sizeof(m));
        text_format_fixed(s->sum.sd * k, decimals, sd, sizeof(sd));
        if (s->s->n_missing)
                snprintf(buf, size, "%zu  %s ± %s (%zu without a value)", s->s->n, m, sd, s->s->n_missing);
        else
                snprintf(buf, size, "%zu  %s ± %s", s->s->n, m, sd);
}

/* A row's cells (n_kernels of them) and the unit its figures are in: a
 * time in the scale of its largest mean. */
static void row_cells(const struct sum_row *r, size_t n_kernels, char (*cells)[160], char *unit, size_t usize) {
        double maxabs = 0, k = 1;
        char probe[48];

        for (size_t i = 0; i < n_kernels; i++)
                if (r->per_kernel[i] && isfinite(r->per_kernel[i]->sum.mean))
                        maxabs = MAX(maxabs, fabs(r->per_kernel[i]->sum.mean));
        snprintf(unit, usize, "%s", r->unit && *r->unit ? r->unit : "-");
        if (r->unit && strcmp(r->unit, "s") == 0 && maxabs > 0) {
                /* The scale text_format_value picks for the largest mean. */
                text_format_value(maxabs, "s", 1, probe, sizeof(probe));
                snprintf(unit, usize, "%s", strchr(probe, ' ') + 1);
                k = strcmp(unit, "µs") == 0 ? 1e6 : strcmp(unit, "ms") == 0 ? 1e3 : 1;
        }
        for (size_t i = 0; i < n_kernels; i++)
                sum_cell(r->per_kernel[i], k, text_decimals(maxabs * k), cells[i], sizeof(cells[i]));
}

/* One workload's rows [from, to) for the kernels [k0, k1). */
static void summary_block(const struct summary *s, size_t from, size_t to, size_t k0, size_t k1, const int *wk,
                          int wm, int wu, FILE *out) {
        char (*cells)[160] = calloc(s->n_kernels, sizeof(*cells));
        char unit[32];

        if (!cells)
                return;
        fprintf(out, "%-*s  %-*s", wm, "METRIC", wu, "UNIT");
        for (size_t k = k0; k < k1; k++) {
                fputs("  ", out);
                text_put(out, s->kernels[k], k + 1 < k1 ? wk[k] : 0);
        }
        fputc('\n', out);
        for (size_t i = from; i < to; i++) {
                const struct sum_row *r = &s->rows[i];

                if (i > from && s->rows[i - 1].judged && !r->judged)
                        fputc('\n', out);   /* the judged rows, then the others */
                if (r->hidden)
                        continue;
                row_cells(r, s->n_kernels, cells, unit, sizeof(unit));
                text_put(out, r->metric, wm);
                fputs("  ", out);
                text_put(out, unit, wu);
                for (size_t k = k0; k < k1; k++) {
                        fputs("  ", out);
                        text_put(out, cells[k], k + 1 < k1 ? wk[k] : 0);
                }
                fputc('\n', out);
        }
        free(cells);
}

/* One workload's rows [from, to): the widths of its columns, then as many
 * blocks of kernels as the width needs (one block when they fit). */
static void summary_workload(const struct summary *s, size_t from, size_t to, int width, FILE *out) {
        g_autofree int *wk = calloc(s->n_kernels + 1, sizeof(int));
        char (*cells)[160] = calloc(s->n_kernels + 1, sizeof(*cells));
        char unit[32];
        int wm = 6, wu = 4;

        if (!wk || !cells) {
                free(cells);
                return;
        }
        for (size_t k = 0; k < s->n_kernels; k++)
                wk[k] = text_columns(s->kernels[k]);
        for (size_t i = from; i < to; i++) {
                if (s->rows[i].hidden)
                        continue;
                row_cells(&s->rows[i], s->n_kernels, cells, unit, sizeof(unit));
                wm = MAX(wm, text_columns(s->rows[i].metric));
                wu = MAX(wu, text_columns(unit));
                for (size_t k = 0; k < s->n_kernels; k++)
                        wk[k] = MAX(wk[k], text_columns(cells[k]));
        }
        free(cells);
        fputs("\nWORKLOAD ", out);
        text_put(out, s->rows[from].workload, 0);
        fputc('\n', out);
        for (size_t k0 = 0; k0 < s->n_kernels;) {
                size_t k1 = k0 + 1;
                int used = wm + 2 + wu + 2 + wk[k0];

                while (k1 < s->n_kernels && (width <= 0 || used + 2 + wk[k1] <= width))
                        used += 2 + wk[k1++];
                if (k0)
                        fputc('\n', out);
                summary_block(s, from, to, k0, k1, wk, wm, wu, out);
                k0 = k1;
        }
}

/* The run summary, side by side: per workload one row per metric and a
 * column per kernel (n, mean ± stddev over its ok cells), the judged
 * metrics first (view_metric_judged: what a comparison of these cells
 * would judge; paced says whether the run's cells were cpu-paced).
 * judged_only keeps those rows only; unless all, rows that repeat another
 * row value for value, or are 0 or without value in every cell, are left
 * out and counted. */
static void run_summary(const struct view_series *sum, size_t n, int judged_only, int paced,
                        const struct textrun_opts *o, FILE *out) {
        struct summary s;
        size_t hidden = 0;

        if (n == 0) {
                fputs("\nno ok cells: nothing to summarise\n", out);
                return;
        }
        if (summary_build(&s, sum, n, judged_only, paced) < 0 || s.n_rows == 0) {
                fputs(s.rows ? "\nno judged metric in the ok cells\n" : "", out);
                summary_clear(&s);
                return;
        }
        if (!o->all)
                hidden = summary_hide(&s);
        fputs(judged_only ? "\nJudged metrics over ok cells (n  mean ± stddev per kernel):\n"
                          : "\nSummary over ok cells (n  mean ± stddev per kernel; judged metrics first):\n", out);
        for (size_t i = 0, j; i < s.n_rows; i = j) {
                for (j = i; j < s.n_rows && strcmp(s.rows[j].workload, s.rows[i].workload) == 0;)
                        j++;
                summary_workload(&s, i, j, o->width, out);
        }
        if (hidden)
                fprintf(out, "\n%zu row%s left out (a repeat of another row, or 0 or no value in every cell): "
                             "--all shows them\n", hidden, hidden == 1 ? "" : "s");
        summary_clear(&s);
}

/* ---- a run ------------------------------------------------------------------ */

static int cell_ok(const struct query_cell *c) {
        return cellstate_is(c->state, CELLSTATE_OK);
}

void textrun_brief(const struct view_run *v, const struct textrun_opts *o, FILE *out) {
        int wkey = 3, wk = 6, ww = 8;
        size_t failed = 0;

        run_header(v->run, out);
        kernels_line(v, o, out);
        if (v->n_cells == 0) {
                fputs("\nno cells stored yet\n", out);
                return;
        }
        /* Only the cells that did not end ok: each one is a finding, and
         * an ok cell's figures are in the summary. */
        for (size_t i = 0; i < v->n_cells; i++) {
                if (cell_ok(&v->cells[i]))
                        continue;
                wkey = MAX(wkey, text_columns(v->cells[i].cell_key));
                wk = MAX(wk, text_columns(v->cells[i].kernel_name));
                ww = MAX(ww, text_columns(v->cells[i].workload));
                failed++;
        }
        if (failed)
                fprintf(out, "\n%zu cell attempt%s did not end ok:\n", failed, failed == 1 ? "" : "s");
        for (size_t i = 0; failed && i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];

                if (cell_ok(c))
                        continue;
                text_put(out, c->cell_key, wkey);
                fputs("  ", out);
                text_put(out, c->kernel_name, wk);
                fputs("  ", out);
                text_put(out, c->workload, ww);
                fprintf(out, "  try %d  ", c->attempt);
                text_put(out, c->detail ? c->detail : c->state, 0);
                fputc('\n', out);
        }
        run_summary(v->summary, v->n_series, 1, view_cpu_paced(v->run->settings_json, NULL),
                    &(struct textrun_opts){ .all = 1, .width = o->width }, out);
        fprintf(out, "(every cell and metric: kbench show %lld)\n", (long long)v->run->id);
}

/* The widths of the cells table's text columns. */
struct cell_widths {
        int key, kernel, workload, state;
};

/* A cell's own figures (the workload's, not vmstat's: those are in the
 * summary) as "name=value" words, or NULL when it has none. */
static char *cell_figures(const struct query_cell *c, const struct query_metric *m, size_t n) {
        g_autoptr(GString) s = g_string_new(NULL);
        size_t wl = strlen(c->workload);

        for (size_t k = 0; k < n; k++) {
                char num[48];

                if (strncmp(m[k].name, c->workload, wl) != 0 || m[k].name[wl] != '.')
                        continue;
                text_format_sig(m[k].has_value ? m[k].value : NAN, num, sizeof(num));
                g_string_append_printf(s, "%s%s=%s", s->len ? " " : "", m[k].name, num);
        }
        return s->len ? g_string_free(g_steal_pointer(&s), FALSE) : NULL;
}

/* The row's last words, beside it when they fit in width, else on the
 * lines under it. */
static void row_tail(const char *tail, int used, int width, FILE *out) {
        if (width <= 0 || used + 2 + text_columns(tail) <= width) {
                fputs("  ", out);
                text_put(out, tail, 0);
                fputc('\n', out);
                return;
        }
        fputc('\n', out);
        text_wrap(out, "      ", "      ", tail, 0, width);
}

/* One cell's row, then its last words: a failed cell's detail, or an ok
 * cell's own figures. Returns 1 when the workload prints its own table of
 * the cell (below the rows). */
static int cell_row(const struct view_run *v, size_t i, const struct cell_widths *w, int width, FILE *out) {
        const struct query_cell *c = &v->cells[i];
        const struct workload_ops *ops = workload_find(c->workload);
        g_autofree char *figures = NULL;
        int used = w->key + w->kernel + w->workload + w->state + 2 + 3 + 5 + 5 + 6 + 7 + 7 + 2 * 10;

        text_put(out, c->cell_key, w->key);
        fputs("  ", out);
        text_put(out, c->kernel_name, w->kernel);
        fputs("  ", out);
        text_put(out, c->workload, w->workload);
        fprintf(out, "  %2d  %3d  ", c->iteration + 1, c->attempt);
        text_put(out, c->state, w->state);
        fputs("  ", out);
        text_put(out, c->accel, 5);
        fputs("  ", out);
        text_put(out, view_cell_start(v->metrics[i], v->n_metrics[i]) ?: "-", 5);
        fputs("  ", out);
        text_put_num(out, c->boot_s, 'f', 2, 6);
        fputs("  ", out);
        text_put_num(out, c->workload_s, 'f', 2, 7);
        fputs("  ", out);
        text_put_num(out, c->total_s, 'f', 2, 7);
        if (!cell_ok(c)) {
                row_tail(c->detail ? c->detail : c->state, used, width, out);
                return 0;
        }
        if (v->contended[i] == 1) {
                fputs("  contended", out);
                used += 11;
        }
        if (ops && ops->print) {
                row_tail("(table below)", used, width, out);
                return 1;
        }
        figures = cell_figures(c, v->metrics[i], v->n_metrics[i]);
        if (figures)
                row_tail(figures, used, width, out);
        else
                fputc('\n', out);
        return 0;
}

void textrun_run(const struct view_run *v, const struct textrun_opts *o, FILE *out) {
        struct cell_widths w = { 3, 6, 8, 5 };
        int any_hook = 0;

        run_header(v->run, out);
        kernels_line(v, o, out);
        if (v->n_cells == 0) {
                fputs("\nno cells stored yet\n", out);
                return;
        }
        for (size_t i = 0; i < v->n_cells; i++) {
                w.key = MAX(w.key, text_columns(v->cells[i].cell_key));
                w.kernel = MAX(w.kernel, text_columns(v->cells[i].kernel_name));
                w.workload = MAX(w.workload, text_columns(v->cells[i].workload));
                w.state = MAX(w.state, text_columns(v->cells[i].state));
        }
        fprintf(out, "\n%-*s  %-*s  %-*s  %2s  %3s  %-*s  %-5s  %-5s  %6s  %7s  %7s\n", w.key, "KEY", w.kernel,
                "KERNEL", w.workload, "WORKLOAD", "IT", "TRY", w.state, "STATE", "ACCEL", "START", "BOOT_S", "WORK_S",
                "TOTAL_S");
        for (size_t i = 0; i < v->n_cells; i++)
                any_hook |= cell_row(v, i, &w, o->width, out);
        for (size_t i = 0; any_hook && i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];
                const struct workload_ops *ops = workload_find(c->workload);

                if (!cell_ok(c) || !ops || !ops->print)
                        continue;
                fputs("\n-- ", out);
                text_put(out, c->cell_key, 0);
                fputc(' ', out);
                text_put(out, c->kernel_name, 0);
                fputc(' ', out);
                text_put(out, c->workload, 0);
                fprintf(out, " iteration %d --\n", c->iteration + 1);
                text_print_hook(c->workload, v->metrics[i], v->n_metrics[i], out);
        }
        run_summary(v->summary, v->n_series, 0, view_cpu_paced(v->run->settings_json, NULL), o, out);
}
