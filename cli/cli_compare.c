/* cli_compare.c: `kbench compare A B`, the verdict on whether B is better
 * or worse than A. Option parsing and the exit status only; the comparison
 * view (report/view.c, report/compare.c) does the pairing and statistics,
 * report/text.c and report/json.c lay it out. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "cli/cli.h"
#include "cli/kfacts.h"
#include "decide/pairing.h"
#include "report/compare.h"
#include "report/csv.h"
#include "report/explain.h"
#include "report/json.h"
#include "report/textcompare.h"
#include "report/view.h"
#include "results/db.h"
#include "settings/runopts.h"

/* "2%", "2" (percent) or "0.5%": a noise band as a fraction. */
static int parse_noise(const char *text, double *ret) {
        char buf[32];
        size_t len = strlen(text);
        double v;

        if (len == 0 || len >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, text, len + 1);
        if (buf[len - 1] == '%')
                buf[len - 1] = '\0';
        if (parse_double(buf, &v) < 0 || !(v >= 0 && v < 100))
                return -EINVAL;
        *ret = v / 100;
        return 0;
}

/* --top N: the functions an explanation lists. Returns 0 or -1 after one line. */
static int check_top(const char *top_s, size_t *ret) {
        union parse_value v;

        *ret = 0;
        if (top_s && parse_number(top_s, PARSE_UINT, 1, EXPLAIN_TOP_MAX, &v) < 0) {
                cli_errorf("compare: --top " CLI_Q " is not a whole number from 1 to %d", CLI_QARG(top_s),
                           EXPLAIN_TOP_MAX);
                return -1;
        }
        if (top_s)
                *ret = (size_t)v.u;
        return 0;
}

/* The numbers, and which runs a kernel name takes: 0, or -1 once the
 * error is said. */
static int check_values(const char *alpha_s, const char *noise_s, struct compare_options *o) {
        if (o->all_runs && o->across_runs) {
                cli_errorf("compare: --all-runs and --across-runs exclude each other");
                return -1;
        }
        if (alpha_s && (parse_double(alpha_s, &o->alpha) < 0 || !(o->alpha > 0 && o->alpha <= 0.5))) {
                cli_errorf("compare: --alpha " CLI_Q " is not a number in (0, 0.5]", CLI_QARG(alpha_s));
                return -1;
        }
        if (noise_s && parse_noise(noise_s, &o->noise) < 0) {
                cli_errorf("compare: --noise " CLI_Q " is not a percentage in [0, 100) (e.g. 2%%)", CLI_QARG(noise_s));
                return -1;
        }
        return 0;
}

/* --ignore-setting a,b or repeated, into ignored (NULL-terminated). An
 * empty name (",,", "a,") is a typo, refused as an unknown setting is:
 * returns 2 after one line, else 0 with *ret_n, how many the user named. */
static int split_ignored(char **ignore, GPtrArray *ignored, guint *ret_n) {
        for (size_t i = 0; ignore && ignore[i]; i++) {
                g_auto(GStrv) parts = g_strsplit(ignore[i], ",", -1);

                for (size_t k = 0; parts[k]; k++) {
                        if (!parts[k][0])
                                return cli_errorf("compare: --ignore-setting " CLI_Q ": an empty setting name "
                                                  "(KEY[,KEY])", CLI_QARG(ignore[i])) + 1;
                        if (runopts_key_never_across(parts[k]))
                                return cli_errorf("compare: --ignore-setting " CLI_Q ": cells that differ in it "
                                                  "are never compared (another host is another machine)",
                                                  CLI_QARG(parts[k])) + 1;
                        g_ptr_array_add(ignored, g_strdup(parts[k]));
                }
        }
        *ret_n = ignored->len;
        g_ptr_array_add(ignored, NULL);
        return 0;
}

/* A typo must not read as "no regression": a setting no cell has would be
 * named as paired across, a glob that matches nothing would print empty
 * tables, both with exit status 0. Returns 0, or the exit status once the
 * error is said. */
static int check_view(const struct compare_view *v, GPtrArray *ignored, guint n_user, const char *metric) {
        size_t n_m = 0;

        for (guint k = 0; k < n_user; k++)
                if (!v->ignored_found[k]) {
                        cli_errorf("compare: --ignore-setting " CLI_Q ": no selected cell has that setting (the "
                                   "'settings:' line of kbench compare lists them)",
                                   CLI_QARG((const char *)g_ptr_array_index(ignored, k)));
                        return 2;
                }
        if (!metric || v->n_groups == 0)
                return 0;
        for (size_t i = 0; i < v->n_groups; i++)
                n_m += v->groups[i].n_m;
        if (n_m == 0) {
                cli_errorf("compare: --metric " CLI_Q " matches no metric of the paired cells", CLI_QARG(metric));
                return 1;
        }
        return 0;
}

/* The comparison on stdout; returns the exit status. */
static int print_view(const struct compare_view *v, enum cli_format format, const struct textcompare_opts *t) {
        struct kb_error err = { { 0 } };
        int r = 0;

        if (format == CLI_FORMAT_JSON) {
                json_t *j = json_view_compare(v);
                r = json_view_print(j, stdout, &err);
                json_decref(j);
        } else if (format == CLI_FORMAT_CSV)
                csv_compare(v, stdout);
        else
                textcompare_print(v, t, stdout);
        if (r < 0)
                return cli_error(&err);
        if (v->n_groups == 0)
                return cli_errorf("compare: nothing to compare: A and B have no workload in common with identical "
                                  "settings%s", v->n_lonely ? "" : " (no ok or failed cells selected)");
        if (v->no_verdict)
                return cli_errorf("compare: no verdict: A and B were not measured together with identical settings "
                                  "(the first line says where each comes from; --across-runs judges them across "
                                  "runs)");
        return v->exit_status;
}

static const char compare_summary[] =
        "Is B better or worse than A? A and B each select cells: a kernel name, run:ID,\n"
        "run:ID:KERNEL, tag:NAME or tag:NAME:KERNEL. Both may be the same kernel (an A/A\n"
        "comparison). A kernel name takes its cells from the latest run that holds A and\n"
        "B with identical settings, so the verdict rests on cells measured together; when\n"
        "no run does, the first line says so, names each side's latest run, and no\n"
        "verdict is given (exit 1) unless --across-runs asks to judge those runs, whose\n"
        "first line then says what that costs (each run's offset widens the MDE).\n"
        "--all-runs: a kernel name takes every run that has it.\n"
        "A kernel is named as results show it: a run with a variant label (kbench run\n"
        "--variant, a nightly source's name) shows dirty7-6.1.0-57-amd64, and the bare\n"
        "6.1.0-57-amd64 means the runs without a label.\n\n"
        "Only cells with identical workload parameters and VM settings are paired (one\n"
        "table per workload and settings); groups on one side only are listed, never\n"
        "mixed in. When nothing pairs like with like but both sides, selected by run or\n"
        "tag, ran the same workload under settings that differ (e.g. tag:base against\n"
        "tag:throttled), those settings are what A and B compare: the cells are paired\n"
        "across exactly them, and the output says so ('paired across differing\n"
        "settings: disk_mbps'); a kernel name is never paired across settings.\n"
        "The workload's own parameters (dd:size=512M against dd:size=1G) are never\n"
        "paired across unless named with --ignore-setting workload.\n"
        "Failed cells never enter statistics; their counts are shown, and the answer\n"
        "line names a side's failed cells ('B: 0 of 4 cells ok: 4 hang'). A group whose\n"
        "B (or A) has no ok cell, or whose B's share of failed cells exceeds A's by more\n"
        "than 10 percentage points, fails the comparison: exit 5.\n\n"
        "The answer comes first: per paired group, what got worse or better, in the\n"
        "workload's terms. Then a table per group: metric, A and B (means), change, its\n"
        "95% CI, verdict. --wide adds the spread, medians, Welch's and Mann-Whitney's p,\n"
        "n, the minimum detectable change and the cells a side needs for a verdict;\n"
        "--all adds the informational metrics (no verdict) in their own section.\n"
        "Seconds read as µs, ms or s.\n\n"
        "The rule: a metric is 'better' or 'worse' only if its p survives\n"
        "Benjamini-Hochberg at q = --alpha over the judged metrics of its group (one\n"
        "workload at one set of settings) AND the whole 95% CI lies beyond --noise;\n"
        "else '~'. A ratio (kernel instructions) is tested by Welch's test, its CI\n"
        "Fieller's interval of the ratio of means. An amount (seconds waited or spun,\n"
        "MiB swapped) is judged by its difference, whose CI must also lie beyond its\n"
        "floor: Welch's test of the means or Yuen's of the 20% trimmed means,\n"
        "whichever has the smaller p, that p doubled. The longest stall of a phase\n"
        "(guest.PHASE.halt_longest_s) is judged by the share of B's cells beyond A's\n"
        "median by 0.1 s, against a host's hiccups (5% of cells): the tail rule.\n"
        "kbench's own steps (dd's drop-caches, fio's layout) are shown, never judged;\n"
        "a phase of fixed time (fio, dbench) is judged per operation\n"
        "(guest.PHASE.*_per_op), its totals shown. The MDE and the cells needed are\n"
        "what such a verdict sees: the change whose whole CI clears the band (or the\n"
        "floor) with 80% power. 'n too small': the exact Mann-Whitney test cannot\n"
        "reach alpha at these sizes (3+3 cannot reach 0.05).\n"
        "Which metrics are judged, and how finely: kbench metrics [WORKLOAD]. Under TCG\n"
        "with an unthrottled disk, rates and times are shown but not judged (they are\n"
        "the emulator's speed as much as the kernel's); what the guest did is judged.\n\n"
        "Under each judged change of a phase's kernel instructions, compare says where\n"
        "it went: from the cells' profiles (under TCG), the kernel functions whose\n"
        "instructions per cell changed most, each with its share of A's phase, and the\n"
        "others summed, so the list adds up to the change; 'only in B' marks a function\n"
        "the other kernel lacks. --explain does so for every such count.\n\n"
        "Exit status: 0 no metric worse; 4 at least one metric worse; 5 a group's cells\n"
        "failed (no ok cell on a side, or B's failing more often than A's; wins over 4);\n"
        "1 error (also: no workload in common, no verdict for kernel names not measured\n"
        "together, or no metric matching --metric); 2 usage error (also: an\n"
        "--ignore-setting no selected cell has).";

int cli_compare(int argc, char **argv, struct cli_ctx *c) {
        g_autoptr(GOptionContext) ctx = NULL;
        g_autofree char *workload = NULL, *metric = NULL, *alpha_s = NULL, *noise_s = NULL, *format_s = NULL;
        g_autofree char *top_s = NULL;
        size_t top = 0;
        g_auto(GStrv) ignore = NULL;
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        gboolean json = FALSE, all_runs = FALSE, across_runs = FALSE, all = FALSE, wide = FALSE, explain = FALSE;
        struct compare_options o = { .alpha = 0.05, .noise = 0.02 };
        struct compare_view *v = NULL;
        struct compare_selector sel;
        struct kb_error err = { { 0 } };
        struct textcompare_opts t = { .format = TEXTCOMPARE_TEXT };
        enum cli_format format;
        int r, rc;
        guint n_user = 0;
        GOptionEntry entries[] = {
                { "workload", 'w', 0, G_OPTION_ARG_STRING, &workload, "Compare this workload only (dd, ftp, ...)",
                  "NAME" },
                { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "Compare the metrics matching GLOB only (dd.*)",
                  "GLOB" },
                { "alpha", 0, 0, G_OPTION_ARG_STRING, &alpha_s,
                  "False discovery rate (Benjamini-Hochberg q) and test level (default 0.05)", "Q" },
                { "noise", 0, 0, G_OPTION_ARG_STRING, &noise_s,
                  "Noise band: a verdict needs the whole 95% CI of the change beyond it (default 2%)", "PCT" },
                { "all-runs", 0, 0, G_OPTION_ARG_NONE, &all_runs,
                  "A kernel name selects its cells in every run, not only the latest", NULL },
                { "across-runs", 0, 0, G_OPTION_ARG_NONE, &across_runs,
                  "A kernel name selects its latest run even when the other side's is another: a verdict across "
                  "runs, its power stated", NULL },
                { "ignore-setting", 0, 0, G_OPTION_ARG_STRING_ARRAY, &ignore,
                  "Pair cells even though these settings differ (disk_mbps,...); repeatable", "KEY[,KEY]" },
                { "all", 'a', 0, G_OPTION_ARG_NONE, &all,
                  "Show everything: the informational metrics too, and every column of --wide", NULL },
                { "wide", 0, 0, G_OPTION_ARG_NONE, &wide,
                  "Add the statistics' columns: spread, medians, both tests' p, n, the MDE, the cells needed",
                  NULL },
                { "explain", 0, 0, G_OPTION_ARG_NONE, &explain,
                  "Say where every change of the kernel's instructions went, judged or not (default: under each "
                  "judged change)", NULL },
                { "top", 0, 0, G_OPTION_ARG_STRING, &top_s,
                  "Functions each explanation of a change lists before the others' sum (default 8)", "N" },
                { "format", 0, 0, G_OPTION_ARG_STRING, &format_s,
                  "text (default), markdown (for a mail or a forge), json (every number) or csv", "FORMAT" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Short for --format=json", NULL },
                { NULL },
        };

        ctx = g_option_context_new("A B");
        g_option_context_set_summary(ctx, compare_summary);
        g_option_context_add_main_entries(ctx, entries, NULL);
        if (cli_parse(ctx, (const GOptionEntry *const[]){ entries, NULL }, "compare", &argc, &argv))
                return 2;
        if (argc != 3) {
                cli_errorf("compare: need two selectors, A and B (try 'kbench compare --help')");
                return 2;
        }
        if (compare_selector_parse(argv[1], &sel, &err) < 0 || compare_selector_parse(argv[2], &sel, &err) < 0) {
                cli_errorf("compare: %s", err.msg);
                return 2;
        }
        o.all_runs = all_runs;
        o.across_runs = across_runs;
        if (check_values(alpha_s, noise_s, &o) < 0 || check_top(top_s, &top) < 0)
                return 2;
        if (cli_format("compare", format_s, json, CLI_FORMAT_BIT(CLI_FORMAT_TEXT) |
                       CLI_FORMAT_BIT(CLI_FORMAT_MARKDOWN) | CLI_FORMAT_BIT(CLI_FORMAT_JSON) |
                       CLI_FORMAT_BIT(CLI_FORMAT_CSV), &format))
                return 2;
        t = (struct textcompare_opts){ .format = format == CLI_FORMAT_MARKDOWN ? TEXTCOMPARE_MARKDOWN : TEXTCOMPARE_TEXT,
                                       .all = all, .wide = wide, .width = cli_width(TEXTCOMPARE_WIDTH) };
        o.a = argv[1];
        o.b = argv[2];
        o.workload = workload;
        o.metric_glob = metric;
        if (split_ignored(ignore, ignored, &n_user))
                return 2;

        r = cli_setup(c, &err);
        if (r < 0)
                return cli_error(&err);
        r = pairing_compare_load(c->s.db, &o, ignored, &v, &err);
        if (r < 0)
                r = db_blame(c->s.db, r, &err);
        if (r < 0)
                return cli_error(&err);
        rc = check_view(v, ignored, n_user, metric);
        if (rc == 0)
                kfacts_compare(c, v);
        if (rc == 0 && explain_load(c->s.db, v, &(struct explain_options){ .all = explain, .top = top }, &err) < 0)
                rc = cli_error(&err);
        if (rc == 0)
                rc = print_view(v, format, &t);
        compare_view_free(v);
        return rc;
}
