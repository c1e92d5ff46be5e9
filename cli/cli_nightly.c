/* cli_nightly.c: `kbench nightly CONFIG.json`: its options, and the
 * rendering of the night's events (common/event.h) on stdout and
 * stderr; the night's steps are in nightly/ (nightly.c and its rooms), which print nothing. */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/render.h"
#include "common/utf8.h"
#include "common/util.h"
#include "nightly/nightly.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_events.h"
#include "settings/runopts.h"

/* How the events of one `kbench nightly` are shown. */
struct cli_nightly_view {
        int json;                          /* the report as JSON (--json) */
        struct kb_sink runs;               /* the night's runs and bisections, rendered as kbench run and
                                              kbench bisect render theirs */
};

/* A dry run's plan on stdout: one line for the plan, one per run with its
 * settings and kernels, one per kernel measured already. */
static int cli_nightly_plan(const struct nightly_plan_event *p) {
        const struct nightly_plan *plan = p->plan;
        struct run_settings def;

        runopts_defaults(&def);
        printf("plan: %zu new kernel(s)%s, %zu run(s) of %zu workload(s) x %d repeat(s), accelerator %s\n",
               plan->n_new, plan->with_baseline ? " and the baseline beside them" : "", plan->n_groups,
               (size_t)g_strv_length(p->cfg->workloads), p->cfg->run.repeats, p->accel);
        for (size_t i = 0; i < plan->n_groups; i++) {
                const struct nightly_group *gr = &plan->groups[i];

                printf("run %zu:", i + 1);
                for (const struct runopt *const *opt = nightly_override_opts(); *opt; opt++) {
                        g_autofree char *v = runopt_text(*opt, gr->v.overrides ? gr->v.overrides : &def);

                        printf(" %s=%s", (*opt)->key, v);
                }
                printf(" variant=%s:", gr->v.label ? gr->v.label : "-");
                for (size_t m = 0; m < gr->n_members; m++)
                        if (p->cands[gr->members[m]].is_baseline)
                                printf(" %s (the baseline)", p->cands[gr->members[m]].name);
                        else
                                printf(" %s (%zu of %d stored)", p->cands[gr->members[m]].name,
                                       p->cands[gr->members[m]].n_ok, p->cfg->run.repeats);
                putchar('\n');
        }
        for (size_t i = 0; i < p->n_cands; i++)
                if (!p->cands[i].is_baseline && p->cands[i].n_ok >= (size_t)p->cfg->run.repeats)
                        printf("measured already: %s\n", p->cands[i].name);
        return fflush(stdout) == 0 ? 0 : -EIO;
}

/* The night's report on stdout, as text or JSON, flushed before the
 * notify command (which may write there too) starts. */
static int cli_nightly_report(const struct nightly_report *r, int json) {
        if (json) {
                json_t *j = nightly_report_json(r);
                int ret = json_dumpf(j, stdout, JSON_INDENT(2) | KB_JSON_OUT) < 0 ? -EIO : 0;

                json_decref(j);
                putchar('\n');
                if (ret < 0)
                        return ret;
        } else
                nightly_report_text(r, stdout);
        return fflush(stdout) == 0 ? 0 : -EIO;
}

/* The night's sink: progress on stderr, the plan and the report on stdout;
 * what its runs and bisections say goes to their renderer. */
static int cli_nightly_event(void *ctx, const struct kb_event *ev) {
        const struct cli_nightly_view *view = ctx;

        switch (ev->kind) {
        case KB_EVENT_NIGHT_RESUME:
                fprintf(stderr, "nightly: resuming run %" PRId64 ", cut short on an earlier night\n", ev->run_id);
                return 0;
        case KB_EVENT_NIGHT_WOULD_RESUME:
                printf("would resume run %" PRId64 "\n", ev->run_id);
                return 0;
        case KB_EVENT_NIGHT_ERROR:
        case KB_EVENT_NIGHT_NOTIFY_FAILED:
                fprintf(stderr, "kbench: nightly: %s\n", ev->text);
                return 0;
        case KB_EVENT_NIGHT_PLAN:
                return cli_nightly_plan(ev->plan);
        case KB_EVENT_NIGHT_RUN_DONE:
                return 0;          /* the report says what the runs measured */
        case KB_EVENT_NIGHT_NOT_STARTED:
                fprintf(stderr, "nightly: %s: run %zu of %zu is not started\n",
                        ev->interrupted ? "interrupted" : "deadline reached", ev->group + 1, ev->n_groups);
                return 0;
        case KB_EVENT_NIGHT_BISECT: {
                /* Kernel names come from the files a source yielded. */
                const struct nightly_bisect_event *b = ev->night_bisect;
                _cleanup_free_ char *good = utf8_mask(b->good), *bad = utf8_mask(b->bad);

                fprintf(stderr, "nightly: bisecting %s of %s between %s and %s (%zu kernels)\n", b->metric,
                        b->workload, good, bad, b->candidates);
                return 0;
        }
        case KB_EVENT_NIGHT_REPORT:
                return cli_nightly_report(ev->report, view->json);
        case KB_EVENT_NOTE:
        case KB_EVENT_PROGRESS:
        case KB_EVENT_IMAGE:
        case KB_EVENT_CELLS:
        case KB_EVENT_CELL_BEGIN:
        case KB_EVENT_CELL_STAGE:
        case KB_EVENT_CELL_RETRY:
        case KB_EVENT_CELL_END:
        case KB_EVENT_STOPPED:
        case KB_EVENT_CELL_KEPT:
        case KB_EVENT_RESULT:
        case KB_EVENT_BISECT_RESULT:
                return kb_emit(&view->runs, ev);
        }
        return 0;
}

int cli_nightly(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "nightly",
                .params = "CONFIG.json",
                .summary = "One unattended night: take the store's lock, resume a night that was cut\n"
                           "short, fetch the configured sources and import new kernels, measure each new\n"
                           "kernel not yet measured with these settings and the baseline beside it, in\n"
                           "one run, interleaved, through the runner of 'kbench run', stopping at the\n"
                           "configuration's deadline; compare each new kernel with the baseline of its\n"
                           "run as 'kbench compare' does (a verdict from cells measured together), look\n"
                           "for change points in each judged metric's history across nights, print one\n"
                           "line per regression, feed the report to 'notify' when something regressed,\n"
                           "and publish the site into publish_dir. The configuration is described in\n"
                           "docs/nightly.md ('--keys' lists its keys).",
                .description = "Exit status: 0 nothing regressed; 4 a metric of a new kernel is worse than\n"
                               "the baseline (compare's 4), or a new kernel's cells failed (boot, crash);\n"
                               "3 nothing regressed but cells were left for the next night (deadline,\n"
                               "signal); 1 error (also: a source or an import failed); 2 usage.",
        };
        gboolean dry_run = FALSE, json = FALSE, keys = FALSE;
        struct cli_nightly_view view = { 0 };
        const struct kb_sink sink = { cli_nightly_event, &view };
        struct nightly_opts o = { .events = &sink };
        struct render rd;
        struct kb_error err = { { 0 } };
        int code;
        GOptionEntry entries[] = {
                { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
                  "Fetch and import new kernels, print what would be measured, measure nothing", NULL },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the report as JSON", NULL },
                { "keys", 0, 0, G_OPTION_ARG_NONE, &keys, "List the configuration keys and exit", NULL },
                { NULL },
        };

        if (cli_options(&usage, entries, &argc, &argv))
                return 2;
        if (keys) {
                /* --keys is a question of its own: anything beside it would
                 * be ignored, and a script would take the 0 for its answer. */
                if (argc > 1 || dry_run || json) {
                        cli_errorf("nightly: --keys takes nothing else (%s)", argc > 1 ? "a configuration file or "
                                   "argument given" : dry_run ? "--dry-run given" : "--json given");
                        return 2;
                }
                g_autofree char *text = nightly_config_keys_text();

                fputs(text, stdout);
                return 0;
        }
        if (argc != 2) {
                cli_errorf("nightly: need one configuration file (try 'kbench nightly --help')");
                return 2;
        }
        if (dry_run && json) {
                cli_errorf("nightly: --dry-run prints a plan, not a report: drop --json");
                return 2;
        }
        o.config_path = argv[1];
        o.dry_run = dry_run;
        view.json = json;
        /* The night's runs and bisections show their progress as kbench run
         * and kbench bisect do; the night reports their results itself. */
        render_init(&rd, json, 0);
        rd.image_lines = 1;
        view.runs = render_sink(&rd);
        o.hosts = c->hosts;
        code = nightly_run(&o, c->g, &c->s, &err);
        if ((code == 1 || code == 2) && err.msg[0])
                cli_error(&err);
        return code;
}
