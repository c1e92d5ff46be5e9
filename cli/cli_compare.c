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
#include "decide/pairing.h"
#include "report/compare.h"
#include "report/json.h"
#include "report/text.h"
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

/* The numbers and the format: 0, or -1 once the error is said. */
static int check_values(const char *alpha_s, const char *noise_s, const char *format, gboolean json,
                        struct compare_options *o, int *markdown) {
        if (alpha_s && (parse_double(alpha_s, &o->alpha) < 0 || !(o->alpha > 0 && o->alpha <= 0.5))) {
                cli_errorf("compare: --alpha " CLI_Q " is not a number in (0, 0.5]", CLI_QARG(alpha_s));
                return -1;
        }
        if (noise_s && parse_noise(noise_s, &o->noise) < 0) {
                cli_errorf("compare: --noise " CLI_Q " is not a percentage in [0, 100) (e.g. 2%%)", CLI_QARG(noise_s));
                return -1;
        }
        if (format && strcmp(format, "markdown") == 0)
                *markdown = 1;
        else if (format && strcmp(format, "text") != 0) {
                cli_errorf("compare: --format " CLI_Q " (text or markdown)", CLI_QARG(format));
                return -1;
        }
        if (format && json) {
                cli_errorf("compare: --json and --format exclude each other");
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
static int print_view(const struct compare_view *v, gboolean json, int markdown, gboolean all) {
        struct kb_error err = { { 0 } };
        int r = 0;

        if (json) {
                json_t *j = json_view_compare(v);
                r = json_view_print(j, stdout, &err);
                json_decref(j);
        } else
                text_compare(v, markdown, all, stdout);
        if (r >= 0 && fflush(stdout) != 0)
                r = error_setf(&err, -EIO, "compare: cannot write the output");
        if (r < 0)
                return cli_error(&err);
        if (v->n_groups == 0)
                return cli_errorf("compare: nothing to compare: A and B have no workload in common%s",
                                  v->n_lonely ? "" : " (no ok or failed cells selected)");
        return v->exit_status;
}

static const char compare_summary[] =
        "Is B better or worse than A? A and B each select cells: a kernel name (its cells\n"
        "in the latest run that has it; --all-runs: every run), run:ID, run:ID:KERNEL,\n"
        "tag:NAME or tag:NAME:KERNEL. Both may be the same kernel (an A/A comparison).\n"
        "A kernel is named as results show it: a run with a variant label (kbench run\n"
        "--variant, a nightly source's name) shows dirty7-6.1.0-57-amd64, and the bare\n"
        "6.1.0-57-amd64 means the runs without a label.\n\n"
        "Only cells with identical workload parameters and VM settings are paired (one\n"
        "table per workload and settings); groups on one side only are listed, never\n"
        "mixed in. When nothing pairs like with like but both sides ran the same\n"
        "workload under settings that differ (e.g. tag:base against tag:throttled),\n"
        "those settings are what A and B compare: the cells are paired across exactly\n"
        "them, and the output says so ('paired across differing settings: disk_mbps').\n"
        "The workload's own parameters (dd:size=512M against dd:size=1G) are never\n"
        "paired across unless named with --ignore-setting workload.\n"
        "Failed cells never enter statistics; their counts are shown.\n\n"
        "Per metric: n, mean, sd %, change %, its 95% CI (Fieller's interval of the ratio\n"
        "of means), Welch's t-test p and the Mann-Whitney U p, the minimum detectable\n"
        "change (80% power) and the repeats per side a 2% / 5% change needs.\n"
        "Welch's p drives the verdict (it tests the same means the CI and the MDE are\n"
        "built on); Mann-Whitney's p is shown beside it. A metric is 'better' or 'worse'\n"
        "only if its Welch p survives Benjamini-Hochberg at q = --alpha over all judged\n"
        "metrics of the comparison AND the whole CI lies beyond --noise; else '~'.\n"
        "An amount (seconds waited or spun, MiB swapped) is judged by its difference,\n"
        "whose CI must also lie beyond its floor: Welch's test of the means or Yuen's\n"
        "of the 20% trimmed means, whichever has the smaller p, that p doubled.\n"
        "The longest stall of a phase (guest.PHASE.halt_longest_s) is judged by the\n"
        "share of B's cells beyond A's median by 0.1 s, against a host's hiccups\n"
        "(5% of cells): the tail rule. kbench's own steps (dd's drop-caches, fio's\n"
        "layout) are shown, never judged; a phase of fixed time (fio, dbench) is\n"
        "judged per operation (guest.PHASE.*_per_op), its totals shown.\n"
        "'n too small': the exact Mann-Whitney test cannot reach alpha at these sizes\n"
        "(3+3 cannot reach 0.05), so no verdict is possible. Only metrics the registry\n"
        "judges get a verdict; the informational ones (dd.*_s, vmstat.*, boot_s, host.*)\n"
        "are counted below the table, and listed in their own section, without tests\n"
        "or verdict, with --all or --metric. Their change is shown only where the\n"
        "metric has a direction and both means stand clear of zero.\n\n"
        "Exit status: 0 no metric worse; 4 at least one metric worse; 1 error (also:\n"
        "no workload in common, or no metric matching --metric); 2 usage error (also:\n"
        "an --ignore-setting no selected cell has).";

int cli_compare(int argc, char **argv, struct cli_ctx *c) {
        g_autoptr(GOptionContext) ctx = NULL;
        g_autofree char *workload = NULL, *metric = NULL, *alpha_s = NULL, *noise_s = NULL, *format = NULL;
        g_auto(GStrv) ignore = NULL;
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        gboolean json = FALSE, all_runs = FALSE, all = FALSE;
        struct compare_options o = { .alpha = 0.05, .noise = 0.02 };
        struct compare_view *v = NULL;
        struct compare_selector sel;
        struct kb_error err = { { 0 } };
        int markdown = 0, r, rc;
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
                { "ignore-setting", 0, 0, G_OPTION_ARG_STRING_ARRAY, &ignore,
                  "Pair cells even though these settings differ (disk_mbps,...); repeatable", "KEY[,KEY]" },
                { "all", 0, 0, G_OPTION_ARG_NONE, &all,
                  "List the informational metrics too, in their own section (the text and markdown)", NULL },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON: every number, the pairing, the verdicts", NULL },
                { "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or markdown", "FORMAT" },
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
        if (check_values(alpha_s, noise_s, format, json, &o, &markdown) < 0)
                return 2;
        o.a = argv[1];
        o.b = argv[2];
        o.workload = workload;
        o.metric_glob = metric;
        o.all_runs = all_runs;
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
                rc = print_view(v, json, markdown, all);
        compare_view_free(v);
        return rc;
}
