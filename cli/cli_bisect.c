/* cli/cli_bisect.c: `kbench bisect` option parsing; the search is
 * bisect/bisect.c. The cells take kbench run's own options (the run option
 * table), so a bisection measures exactly as a run would. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "bisect/bisect.h"
#include "cli/cli.h"
#include "cli/render.h"
#include "decide/judgeopts.h"
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

/* The judging options (decide/judgeopts.h) a bisection takes. */
static const char *const judging[] = { "pilot", "max-rounds", "target", "alpha", "noise", NULL };

/* Each judging option in its range, the rules across them, and -j: 0, or
 * 2 after one line naming the first option at fault. */
static int check_numbers(char *const *texts, int jobs, struct judge_opts *ret) {
        struct kb_error err = { { 0 } };

        judgeopts_defaults(ret);
        if (judgeopts_apply(ret, judging, texts, &err) < 0 ||
            judgeopts_check(ret, NULL, JUDGEOPTS_CHECK_BISECT, JUDGEOPTS_FLAGS, &err) < 0)
                return cli_errorf("bisect: %s", err.msg) + 1;
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

/* What bisect's command line holds, as GOption fills it. */
struct bisect_args {
        char *metric, *kernels, *git, *good, *bad, *config;
        char **fragments, **kernel_list;
        int jobs;
        char *judge[G_N_ELEMENTS(judging) - 1];   /* judging[i]'s text, or NULL */
        char **texts;                      /* the run options' (runopts_entries) */
        int *flags;
};

static void bisect_args_clear(struct bisect_args *a) {
        g_free(a->metric);
        g_free(a->kernels);
        g_free(a->git);
        g_free(a->good);
        g_free(a->bad);
        g_free(a->config);
        g_strfreev(a->fragments);
        g_strfreev(a->kernel_list);
        for (size_t i = 0; i < G_N_ELEMENTS(a->judge); i++)
                g_free(a->judge[i]);
        runopts_texts_free(a->texts);
        g_free(a->texts);
        g_free(a->flags);
}

/* The bisection's options, then the run options its cells take, with
 * --help-run (the run group). Returns cli_parse's 0 or 2. */
static int parse_options(int *argc, char ***argv, struct bisect_args *a) {
        const GOptionEntry entries[] = {
                { "metric", 0, 0, G_OPTION_ARG_STRING, &a->metric, "The metric searched (judged: its direction is "
                  "known)", "NAME" },
                { "kernels", 0, 0, G_OPTION_ARG_STRING, &a->kernels,
                  "Ordered store kernels, good first, bad last", "K1,K2,..." },
                { "git", 0, 0, G_OPTION_ARG_FILENAME, &a->git, "A kernel git repository; with --good and --bad", "DIR" },
                { "good", 0, 0, G_OPTION_ARG_STRING, &a->good, "With --git: a commit that is good", "REF" },
                { "bad", 0, 0, G_OPTION_ARG_STRING, &a->bad, "With --git: a later commit that is bad", "REF" },
                { "config", 0, 0, G_OPTION_ARG_FILENAME, &a->config,
                  "With --git: the builds' base configuration (kbench kernel build --config)", "FILE|defconfig|tinyconfig" },
                { "fragment", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->fragments,
                  "With --git: a config fragment (repeatable)", "FILE" },
                { "jobs", 'j', 0, G_OPTION_ARG_INT, &a->jobs, "With --git: make -j N", "N" },
                { NULL },
        };
        g_autofree GOptionEntry *judge = judgeopts_entries(judging, a->judge);
        g_autofree GOptionEntry *run = NULL;
        g_autofree char *summary = help_summary();
        const struct cli_usage u = { .verb = "bisect", .params = "- find the kernel or commit that changed a metric",
                                     .summary = summary };
        size_t n_opts = 0;

        while (runopt_table[n_opts].name)
                n_opts++;
        a->texts = g_new0(char *, n_opts);
        a->flags = g_new0(int, n_opts);
        run = runopts_entries(a->texts, a->flags);
        return cli_options_of(&u, (const GOptionEntry *const[]){ entries, judge, NULL },
                              &(struct cli_group){ "run", "The cells' settings (kbench run's options):",
                                                   "Show the run options", run },
                              argc, argv);
}

/* argv into a and o (o->run from the run options): 0, or 2 after one line. */
static int parse_args(int *argc, char ***argv, struct bisect_args *a, struct bisect_opts *o) {
        struct judge_opts j;
        struct kb_error err = { { 0 } };

        runopts_defaults(&o->run);
        if (parse_options(argc, argv, a))
                return 2;
        if (*argc > 1)
                return cli_errorf("bisect: unexpected argument '%.64s' (try --help)", (*argv)[1]) + 1;
        if (refuse_run_options(a->texts, a->flags) || check_metric(a->metric) ||
            check_source(a->kernels ? &a->kernels : NULL, a->git, a->good, a->bad) ||
            check_numbers(a->judge, a->jobs, &j))
                return 2;
        if (runopts_apply(&o->run, a->texts, a->flags, &err) < 0)
                return cli_errorf("bisect: %s", err.msg) + 1;
        if (!o->run.workloads || !o->run.workloads[0] || o->run.workloads[1])
                return cli_errorf("bisect: give one -w WORKLOAD") + 1;
        if (o->run.cold)
                o->run.warm = 0;
        a->kernel_list = a->kernels ? g_strsplit(a->kernels, ",", -1) : NULL;
        *o = (struct bisect_opts){ .run = o->run, .workload = o->run.workloads[0], .metric = a->metric,
                                   .kernels = a->kernel_list, .git_dir = a->git, .good = a->good, .bad = a->bad,
                                   .config = a->config, .fragments = a->fragments, .jobs = a->jobs,
                                   .pilot = j.pilot, .max_rounds = j.max_rounds, .target = j.target,
                                   .alpha = j.alpha, .noise = j.noise, .json = o->run.json };
        return 0;
}

int cli_bisect(int argc, char **argv, struct cli_ctx *c) {
        __attribute__((cleanup(bisect_args_clear))) struct bisect_args a = { 0 };
        struct bisect_opts o = { 0 };
        struct kb_error err = { { 0 } };
        struct render rd;
        struct kb_sink sink;
        int code;

        if (parse_args(&argc, &argv, &a, &o))
                return 2;
        /* Only a bisection that builds puts kernels in, and so may create
         * a store; one over --kernels needs the store that holds them. */
        if (!a.git)
                c->needs &= ~CLI_CREATE;
        render_init(&rd, o.json, 0);
        /* A bisection's steps are its own runs: their images are always said. */
        rd.image_lines = 1;
        sink = render_sink(&rd);
        o.events = &sink;
        o.hosts = c->hosts;
        o.option_name = cli_flag_name;
        code = bisect_run(&o, c->g, &c->s, NULL, &err);
        if ((code == 1 || code == 2) && err.msg[0])
                cli_error(&err);
        else if (rd.failed) {
                code = 1;
                cli_error(&rd.err);
        }
        return code;
}
