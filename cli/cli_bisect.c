/* cli/cli_bisect.c: `kbench bisect` option parsing; the search is
 * bisect/bisect.c. The cells take kbench run's own options (the run option
 * table), so a bisection measures exactly as a run would. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "bisect/bisect.h"
#include "cli/cli.h"
#include "cli/render.h"
#include "report/metrics.h"
#include "settings/runopts.h"

/* run options a bisection sets itself, or that make no sense per step */
static const char *const not_here[] = { "kernel", "repeat", "tag", "until-mde", "budget-cells", "budget-time",
                                        "resume", "all", "variant" };

static int refuse_run_options(char **texts, const int *flags) {
        for (size_t i = 0; runopt_table[i].name; i++)
                for (size_t k = 0; k < G_N_ELEMENTS(not_here); k++)
                        if (strcmp(runopt_table[i].name, not_here[k]) == 0 && (texts[i] || flags[i])) {
                                if (strcmp(not_here[k], "repeat") == 0)
                                        return cli_errorf("bisect: -n: the rounds are the rule's; give --pilot "
                                                          "and --max-rounds") + 1;
                                return cli_errorf("bisect: --%s: a bisection sets its own (see --help)",
                                                  not_here[k]) + 1;
                        }
        return 0;
}

static int check_metric(const char *metric) {
        struct metrics_info info;

        if (!metric)
                return cli_errorf("bisect: --metric is required (a judged metric, e.g. guest.write.kernel_Minsn)") + 1;
        if (metrics_lookup(metric, &info) < 0 || !metrics_verdict(metric))
                return cli_errorf("bisect: --metric %s is not a metric that gets a verdict (kbench compare --all "
                                  "lists them)", metric) + 1;
        return 0;
}

static int check_source(char **kernels, const char *git, const char *good, const char *bad) {
        if (!!kernels == !!git)
                return cli_errorf("bisect: give either --kernels K1,K2,... or --git DIR --good REF --bad REF") + 1;
        if (git && (!good || !bad))
                return cli_errorf("bisect: --git needs --good REF and --bad REF") + 1;
        if (!git && (good || bad))
                return cli_errorf("bisect: --good and --bad go with --git; --kernels lists good first, bad last") + 1;
        if (kernels && (!strchr(*kernels, ',') || strstr(*kernels, ",,") || (*kernels)[0] == ',' ||
                        (*kernels)[strlen(*kernels) - 1] == ','))
                return cli_errorf("bisect: --kernels '%.128s': give two or more kernels, comma-separated, good "
                                  "first, bad last", *kernels) + 1;
        return 0;
}

/* The numbers of a bisection's own options, each in its range: the first
 * one out of it is named with its value and range. Returns 0, or 2 after
 * one line. */
static int check_ranges(int pilot, int max_rounds, double target, double alpha, double noise, int jobs) {
        if (pilot < 2 || pilot > 1000)
                return cli_errorf("bisect: --pilot %d is not in 2..1000 (rounds of a step before the rule first "
                                  "looks)", pilot) + 1;
        if (max_rounds < pilot || max_rounds > 1000)
                return cli_errorf("bisect: --max-rounds %d is not in --pilot (%d)..1000", max_rounds, pilot) + 1;
        if (!(target > 0 && target < 100))
                return cli_errorf("bisect: --target %g is not a percentage in (0, 100)", target) + 1;
        if (!(alpha > 0 && alpha < 1))
                return cli_errorf("bisect: --alpha %g is not in (0, 1)", alpha) + 1;
        if (!(noise >= 0 && noise < 100))
                return cli_errorf("bisect: --noise %g is not a percentage in [0, 100)", noise) + 1;
        if (jobs < 0)
                return cli_errorf("bisect: -j %d is not a number of jobs (0: the host's CPUs)", jobs) + 1;
        return 0;
}

/* --help's summary; the run options a bisection refuses are not_here's. */
static char *help_summary(void) {
        g_autoptr(GString) s = g_string_new("Each step measures one candidate interleaved with both ends and decides\n"
                                            "good, bad or cannot tell with a sequential rule (more rounds while\n"
                                            "unknown, up to --max-rounds). The last line is 'first bad: <commit or\n"
                                            "kernel>', 'no change between the ends' or 'cannot tell'.\n"
                                            "Exit status: 0 an answer, 3 cannot tell, 1 error, 2 usage.\n\n"
                                            "The cells take kbench run's options (--help-run lists them: -w, --mem,\n"
                                            "--cpus, --warm, --append, --sysctl, ...), except those a bisection\n"
                                            "sets itself:");

        size_t col = strlen(strrchr(s->str, '\n') + 1);

        for (size_t k = 0; k < G_N_ELEMENTS(not_here); k++) {
                size_t w = strlen(not_here[k]) + 4;

                if (col + w > 72) {
                        g_string_append_c(s, '\n');
                        col = 0;
                }
                g_string_append_printf(s, "%s--%s%s", col ? " " : "", not_here[k],
                                       k + 1 < G_N_ELEMENTS(not_here) ? "," : ".");
                col += w;
        }
        return g_string_free(g_steal_pointer(&s), FALSE);
}

int cli_bisect(int argc, char **argv, struct cli_ctx *c) {
        size_t n_opts = 0;
        g_autofree char **texts = NULL;
        g_autofree int *flags = NULL;
        g_autofree GOptionEntry *run_entries = NULL;
        g_autofree char *summary = NULL;
        g_autofree char *metric = NULL, *kernels = NULL, *git = NULL, *good = NULL, *bad = NULL, *config = NULL;
        g_auto(GStrv) fragments = NULL, kernel_list = NULL;
        gint pilot = 4, max_rounds = 12, jobs = 0;
        gdouble target = 1, alpha = 0.05, noise = 2;
        struct render rd;
        struct run_events sink;
        GOptionEntry entries[] = {
                { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "The metric searched (judged: its direction is known)",
                  "NAME" },
                { "kernels", 0, 0, G_OPTION_ARG_STRING, &kernels,
                  "Ordered store kernels, good first, bad last", "K1,K2,..." },
                { "git", 0, 0, G_OPTION_ARG_FILENAME, &git, "A kernel git repository; with --good and --bad", "DIR" },
                { "good", 0, 0, G_OPTION_ARG_STRING, &good, "With --git: a commit that is good", "REF" },
                { "bad", 0, 0, G_OPTION_ARG_STRING, &bad, "With --git: a later commit that is bad", "REF" },
                { "config", 0, 0, G_OPTION_ARG_FILENAME, &config,
                  "With --git: the builds' base configuration (kbench kernel build --config)", "FILE|defconfig|tinyconfig" },
                { "fragment", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &fragments, "With --git: a config fragment (repeatable)",
                  "FILE" },
                { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "With --git: make -j N", "N" },
                { "pilot", 0, 0, G_OPTION_ARG_INT, &pilot, "Rounds of a step before the rule first looks (default 4)", "N" },
                { "max-rounds", 0, 0, G_OPTION_ARG_INT, &max_rounds,
                  "Rounds a step may take before it is 'cannot tell' (default 12)", "N" },
                { "target", 0, 0, G_OPTION_ARG_DOUBLE, &target,
                  "Minimum detectable change at the ends, % (default 1); a step's is half the ends' change", "PCT" },
                { "alpha", 0, 0, G_OPTION_ARG_DOUBLE, &alpha, "Test level (default 0.05)", "Q" },
                { "noise", 0, 0, G_OPTION_ARG_DOUBLE, &noise, "Noise band, % (default 2), as kbench compare's", "PCT" },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };
        g_autoptr(GOptionContext) ctx = g_option_context_new("- find the kernel or commit that changed a metric");
        g_autoptr(GOptionGroup) run_group = NULL;
        struct bisect_opts o = { 0 };
        struct kb_error err = { { 0 } };
        int code = 2;

        while (runopt_table[n_opts].name)
                n_opts++;
        texts = g_new0(char *, n_opts);
        flags = g_new0(int, n_opts);
        run_entries = runopts_entries(texts, flags);
        g_option_context_add_main_entries(ctx, entries, NULL);
        run_group = g_option_group_new("run", "The cells' settings (kbench run's options):", "Show the run options",
                                       NULL, NULL);
        g_option_group_add_entries(run_group, run_entries);
        g_option_context_add_group(ctx, g_steal_pointer(&run_group));
        summary = help_summary();
        g_option_context_set_summary(ctx, summary);
        runopts_defaults(&o.run);
        if (cli_parse(ctx, (const GOptionEntry *const[]){ entries, run_entries, NULL }, "bisect", &argc, &argv))
                goto out;
        if (argc > 1) {
                cli_errorf("bisect: unexpected argument '%.64s' (try --help)", argv[1]);
                goto out;
        }
        if (refuse_run_options(texts, flags) || check_metric(metric) || check_source(kernels ? &kernels : NULL, git,
                                                                                      good, bad))
                goto out;
        if (check_ranges(pilot, max_rounds, target, alpha, noise, jobs))
                goto out;
        if (runopts_apply(&o.run, texts, flags, &err) < 0) {
                cli_errorf("bisect: %s", err.msg);
                goto out;
        }
        if (!o.run.workloads || !o.run.workloads[0] || o.run.workloads[1]) {
                cli_errorf("bisect: give one -w WORKLOAD");
                goto out;
        }
        if (o.run.cold)
                o.run.warm = 0;
        kernel_list = kernels ? g_strsplit(kernels, ",", -1) : NULL;
        o = (struct bisect_opts){ .run = o.run, .workload = o.run.workloads[0], .metric = metric,
                                  .kernels = kernel_list, .git_dir = git, .good = good, .bad = bad, .config = config,
                                  .fragments = fragments, .jobs = jobs, .pilot = pilot, .max_rounds = max_rounds,
                                  .target = target / 100, .alpha = alpha, .noise = noise / 100, .json = o.run.json };
        /* Only a bisection that builds puts kernels in, and so may create
         * a store; one over --kernels needs the store that holds them. */
        if (!git)
                c->needs &= ~CLI_CREATE;
        render_init(&rd, o.json, 0);
        /* A bisection's steps are its own runs: their images are always said. */
        rd.image_lines = 1;
        sink = render_sink(&rd);
        o.events = &sink;
        o.hosts = c->hosts;
        code = bisect_run(&o, c->g, &c->s, NULL, &err);
        if ((code == 1 || code == 2) && err.msg[0])
                cli_error(&err);
        else if (rd.failed) {
                code = 1;
                cli_error(&rd.err);
        }
out:
        runopts_texts_free(texts);
        return code;
}
