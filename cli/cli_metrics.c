/* cli_metrics.c: `kbench metrics [WORKLOAD]`: what a comparison judges and
 * how finely, from the metric registry itself (report/metrics.c), so the
 * list cannot drift from what compare does: each metric pattern with its
 * unit and better direction, and either how it is judged (a ratio beyond
 * the noise band, or a difference beyond its floor) or why it is not. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/json.h"
#include "report/metrics.h"
#include "report/text.h"
#include "report/textcompare.h"
#include "workloads/workload.h"

/* compare's default noise band (--noise), a fraction. */
#define DEFAULT_NOISE 0.02

struct listing {
        GPtrArray *judged, *shown;         /* struct row *, in registry order */
};

struct row {
        char *pattern;             /* "guest.<phase>.kernel_Minsn" */
        const char *workload;      /* static, or NULL for kbench's own rows */
        struct metrics_info info;  /* strings static */
};

static void row_free(gpointer p) {
        struct row *r = p;

        g_free(r->pattern);
        g_free(r);
}

/* A pattern as a reader reads it: the phase a guest.* or vmstat.* row
 * stands for named, "guest.<phase>.kernel_Minsn". */
static char *readable(const char *pattern) {
        if (g_str_has_prefix(pattern, "guest.*."))
                return g_strconcat("guest.<phase>.", pattern + 8, NULL);
        if (g_str_has_prefix(pattern, "vmstat.*."))
                return g_strconcat("vmstat.<phase>.", pattern + 9, NULL);
        if (g_str_has_prefix(pattern, "vmstat.*") && g_ascii_isalpha(pattern[8]))
                return g_strconcat("vmstat.[<phase>.]", pattern + 8, NULL);
        return g_strdup(pattern);
}

static void collect(const struct metrics_info *info, const char *workload, void *userdata) {
        struct listing *l = userdata;
        struct row *r = g_new0(struct row, 1);

        r->pattern = readable(info->pattern);
        r->workload = workload;
        r->info = *info;
        g_ptr_array_add(info->verdict && info->direction != METRICS_NONE ? l->judged : l->shown, r);
}

/* How a judged row is judged, in words. */
static char *how(const struct metrics_info *m) {
        if (m->floor > 0) {
                /* "50 ms", "0.5 MiB": a floor is a round figure. */
                int ms = strcmp(m->unit, "s") == 0 && m->floor < 1;

                return g_strdup_printf("difference of the means: the whole 95%% CI beyond %g %s (its floor) "
                                       "and beyond %g%% of A", ms ? m->floor * 1000 : m->floor, ms ? "ms" : m->unit,
                                       DEFAULT_NOISE * 100);
        }
        if (m->host_timed)
                return g_strdup_printf("ratio of the means: the whole 95%% CI beyond ±%g%%, where the host does "
                                       "not set the pace (KVM, or a throttled disk); under TCG shown only",
                                       DEFAULT_NOISE * 100);
        return g_strdup_printf("ratio of the means: the whole 95%% CI beyond ±%g%%", DEFAULT_NOISE * 100);
}

static void print_rows(GPtrArray *rows, int judged, int width) {
        int wp = 6, wu = 4;

        if (!rows->len)
                return;
        for (guint i = 0; i < rows->len; i++) {
                const struct row *r = g_ptr_array_index(rows, i);

                wp = MAX(wp, text_columns(r->pattern));
                wu = MAX(wu, text_columns(r->info.unit));
        }
        printf("\n%-*s  %-*s  %-6s  %s\n", wp, judged ? "judged" : "not judged", wu, "unit", "better",
               judged ? "how" : "why not");
        for (guint i = 0; i < rows->len; i++) {
                const struct row *r = g_ptr_array_index(rows, i);
                g_autofree char *text = judged ? how(&r->info) : g_strdup(r->info.why ? r->info.why : "");
                g_autofree char *indent = g_strnfill((gsize)(wp + wu + 12), ' ');

                text_put(stdout, r->pattern, wp);
                fputs("  ", stdout);
                text_put(stdout, r->info.unit && *r->info.unit ? r->info.unit : "-", wu);
                printf("  %-6s  ", metrics_direction_name(r->info.direction));
                text_wrap_from(stdout, wp + wu + 12, indent, text, 0, width);
        }
}

static json_t *row_json(const struct row *r) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:b}", "pattern", r->info.pattern, "unit", r->info.unit,
                              "better", metrics_direction_name(r->info.direction), "judged",
                              r->info.verdict && r->info.direction != METRICS_NONE, "host_timed", r->info.host_timed);

        json_object_set_new(j, "workload", r->workload ? json_string(r->workload) : json_null());
        if (r->info.verdict && r->info.direction != METRICS_NONE) {
                json_object_set_new(j, "by", json_string(r->info.floor > 0 ? "difference" : "ratio"));
                json_object_set_new(j, "floor", r->info.floor > 0 ? json_real(r->info.floor) : json_null());
                json_object_set_new(j, "noise_band", json_real(DEFAULT_NOISE));
        } else
                json_object_set_new(j, "why", json_string(r->info.why ? r->info.why : ""));
        return j;
}

static int print_json(const struct listing *l, const char *workload) {
        json_t *rows = json_array(), *j;
        struct kb_error err = { { 0 } };
        int r;

        for (int pass = 0; pass < 2; pass++) {
                GPtrArray *a = pass ? l->shown : l->judged;

                for (guint i = 0; i < a->len; i++)
                        json_array_append_new(rows, row_json(g_ptr_array_index(a, i)));
        }
        j = json_pack("{s:o, s:o}", "workload", workload ? json_string(workload) : json_null(), "metrics", rows);
        r = json_view_print(j, stdout, &err);
        json_decref(j);
        return r < 0 ? cli_error(&err) : 0;
}

int cli_metrics(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "metrics",
                .params = "[WORKLOAD]",
                .summary = "Every metric kbench stores (of one workload's cells with WORKLOAD), with its unit,\n"
                           "the direction that is better, and how kbench compare judges it: a ratio whose\n"
                           "whole 95% CI must lie beyond the noise band (--noise, 2%), or an amount's\n"
                           "difference, beyond its floor as well. The others are shown without a verdict,\n"
                           "each with why. docs/detection.md says what each judged metric can detect.",
        };
        g_autofree char *format_s = NULL;
        g_autoptr(GPtrArray) judged = g_ptr_array_new_with_free_func(row_free);
        g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func(row_free);
        struct listing l = { judged, shown };
        gboolean json = FALSE;
        enum cli_format format;
        const char *workload;
        int rc = 0;
        GOptionEntry entries[] = {
                { "format", 0, 0, G_OPTION_ARG_STRING, &format_s, "text (default) or json", "FORMAT" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Short for --format=json", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };

        (void)c;
        if (cli_options(&usage, entries, &argc, &argv))
                return 2;
        if (cli_format("metrics", format_s, json, CLI_FORMAT_BIT(CLI_FORMAT_TEXT) | CLI_FORMAT_BIT(CLI_FORMAT_JSON),
                       &format))
                return 2;
        if (argc > 2)
                return cli_errorf("metrics: unexpected argument " CLI_Q, CLI_QARG(argv[2])) + 1;
        workload = argc == 2 ? argv[1] : NULL;
        if (workload && !workload_find(workload))
                return cli_errorf("metrics: unknown workload " CLI_Q " (kbench workloads lists them)",
                                  CLI_QARG(workload)) + 1;
        metrics_each(collect, workload, &l);
        if (format == CLI_FORMAT_JSON)
                rc = print_json(&l, workload);
        else {
                int width = cli_width(TEXTCOMPARE_WIDTH);

                printf("%s%s: what kbench compare judges, and how\n", workload ? "the metrics of " : "every metric",
                       workload ? workload : "");
                print_rows(judged, 1, width);
                print_rows(shown, 0, width);
        }
        return rc;
}
