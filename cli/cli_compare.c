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
#include "decide/judgeopts.h"
#include "decide/pairing.h"
#include "report/compare.h"
#include "report/csv.h"
#include "report/explain.h"
#include "report/json.h"
#include "report/textcompare.h"
#include "report/view.h"
#include "results/db.h"
#include "settings/runopts.h"

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

/* The judging options (decide/judgeopts.h) compare takes. */
static const char *const judging[] = { "alpha", "noise", NULL };

/* The numbers, and which runs a kernel name takes: 0, or -1 once the
 * error is said. */
static int check_values(char *const *judge_texts, const char *top_s, size_t *ret_top, struct compare_options *o) {
        struct judge_opts j;
        struct kb_error err = { { 0 } };

        if (o->all_runs && o->across_runs) {
                cli_errorf("compare: --all-runs and --across-runs exclude each other");
                return -1;
        }
        judgeopts_defaults(&j);
        if (judgeopts_apply(&j, judging, judge_texts, &err) < 0) {
                cli_errorf("compare: %s", err.msg);
                return -1;
        }
        o->alpha = j.alpha;
        o->noise = j.noise;
        return check_top(top_s, ret_top);
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

/* What compare's command line holds, as GOption fills it. */
struct compare_args {
        char *workload, *metric, *format_s, *top_s;
        char *judge[G_N_ELEMENTS(judging) - 1];   /* judging[i]'s text, or NULL */
        char **ignore;
        gboolean json, all_runs, across_runs, all, wide, explain;
        enum cli_format format;            /* from --format and --json */
};

static void compare_args_clear(struct compare_args *a) {
        g_free(a->workload);
        g_free(a->metric);
        g_free(a->format_s);
        g_free(a->top_s);
        for (size_t i = 0; i < G_N_ELEMENTS(a->judge); i++)
                g_free(a->judge[i]);
        g_strfreev(a->ignore);
}

/* Parse argv into a, o and t: 0, or 2 after one line. The judging options
 * come from decide/judgeopts.c's table, shown after --metric. */
static int parse_args(int *argc, char ***argv, struct compare_args *a, struct compare_options *o,
                      struct textcompare_opts *t, size_t *ret_top, struct kb_error *err) {
        const GOptionEntry head[] = {
                { "workload", 'w', 0, G_OPTION_ARG_STRING, &a->workload, "Compare this workload only (dd, ftp, ...)",
                  "NAME" },
                { "metric", 0, 0, G_OPTION_ARG_STRING, &a->metric, "Compare the metrics matching GLOB only (dd.*)",
                  "GLOB" },
                { NULL },
        }, tail[] = {
                { "all-runs", 0, 0, G_OPTION_ARG_NONE, &a->all_runs,
                  "A kernel name selects its cells in every run, not only the latest", NULL },
                { "across-runs", 0, 0, G_OPTION_ARG_NONE, &a->across_runs,
                  "A kernel name selects its latest run even when the other side's is another: a verdict across "
                  "runs, its power stated", NULL },
                { "ignore-setting", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->ignore,
                  "Pair cells even though these settings differ (disk_mbps,...); repeatable", "KEY[,KEY]" },
                { "all", 'a', 0, G_OPTION_ARG_NONE, &a->all,
                  "Show everything: the informational metrics too, and every column of --wide", NULL },
                { "wide", 0, 0, G_OPTION_ARG_NONE, &a->wide,
                  "Add the statistics' columns: spread, medians, both tests' p, n, the MDE, the cells needed",
                  NULL },
                { "explain", 0, 0, G_OPTION_ARG_NONE, &a->explain,
                  "Say where every change of the kernel's instructions went, judged or not (default: under each "
                  "judged change)", NULL },
                { "top", 0, 0, G_OPTION_ARG_STRING, &a->top_s,
                  "Functions each explanation of a change lists before the others' sum (default 8)", "N" },
                { "format", 0, 0, G_OPTION_ARG_STRING, &a->format_s,
                  "text (default), markdown (for a mail or a forge), json (every number) or csv", "FORMAT" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &a->json, "Short for --format=json", NULL },
                { NULL },
        };
        g_autofree GOptionEntry *judge = judgeopts_entries(judging, a->judge);
        static const struct cli_usage u = { .verb = "compare", .params = "A B", .summary = compare_summary };
        struct compare_selector sel;

        if (cli_options_of(&u, (const GOptionEntry *const[]){ head, judge, tail, NULL }, NULL, argc, argv))
                return 2;
        if (*argc != 3)
                return cli_errorf("compare: need two selectors, A and B (try 'kbench compare --help')") + 1;
        if (compare_selector_parse((*argv)[1], &sel, err) < 0 || compare_selector_parse((*argv)[2], &sel, err) < 0)
                return cli_errorf("compare: %s", err->msg) + 1;
        *o = (struct compare_options){ .a = (*argv)[1], .b = (*argv)[2], .workload = a->workload,
                                       .metric_glob = a->metric, .all_runs = a->all_runs,
                                       .across_runs = a->across_runs };
        if (check_values(a->judge, a->top_s, ret_top, o) < 0)
                return 2;
        if (cli_format("compare", a->format_s, a->json, CLI_FORMAT_BIT(CLI_FORMAT_TEXT) |
                       CLI_FORMAT_BIT(CLI_FORMAT_MARKDOWN) | CLI_FORMAT_BIT(CLI_FORMAT_JSON) |
                       CLI_FORMAT_BIT(CLI_FORMAT_CSV), &a->format))
                return 2;
        *t = (struct textcompare_opts){ .format = a->format == CLI_FORMAT_MARKDOWN ? TEXTCOMPARE_MARKDOWN :
                                                  TEXTCOMPARE_TEXT, .all = a->all, .wide = a->wide, .width = cli_width(TEXTCOMPARE_WIDTH) };
        return 0;
}

int cli_compare(int argc, char **argv, struct cli_ctx *c) {
        __attribute__((cleanup(compare_args_clear))) struct compare_args a = { 0 };
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        struct compare_options o;
        struct compare_view *v = NULL;
        struct kb_error err = { { 0 } };
        struct textcompare_opts t;
        size_t top = 0;
        guint n_user = 0;
        int r, rc;

        if (parse_args(&argc, &argv, &a, &o, &t, &top, &err) || split_ignored(a.ignore, ignored, &n_user))
                return 2;
        r = cli_setup(c, &err);
        if (r < 0)
                return cli_error(&err);
        r = pairing_compare_load(c->s.db, &o, ignored, &v, &err);
        if (r < 0)
                r = db_blame(c->s.db, r, &err);
        if (r < 0)
                return cli_error(&err);
        rc = check_view(v, ignored, n_user, a.metric);
        if (rc == 0)
                kfacts_compare(c, v);
        if (rc == 0 && explain_load(c->s.db, v, &(struct explain_options){ .all = a.explain, .top = top }, &err) < 0)
                rc = cli_error(&err);
        if (rc == 0)
                rc = print_view(v, a.format, &t);
        compare_view_free(v);
        return rc;
}
