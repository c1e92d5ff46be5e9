/* cli_nightly.c: `kbench nightly CONFIG.json`, option parsing only; the
 * night's steps are in nightly.c. */
#include <glib.h>
#include <stdio.h>

#include "cli/cli.h"
#include "nightly/nightly.h"
#include "nightly/nightly_config.h"

int cli_nightly(int argc, char **argv, const struct store_ctx *g) {
        g_autoptr(GOptionContext) ctx = NULL;
        gboolean dry_run = FALSE, json = FALSE, keys = FALSE;
        struct nightly_opts o = { 0 };
        struct kb_error err = { { 0 } };
        int code;
        GOptionEntry entries[] = {
                { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
                  "Fetch and import new kernels, print what would be measured, measure nothing", NULL },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the report as JSON", NULL },
                { "keys", 0, 0, G_OPTION_ARG_NONE, &keys, "List the configuration keys and exit", NULL },
                { NULL },
        };

        ctx = g_option_context_new("CONFIG.json");
        g_option_context_set_summary(ctx,
                "One unattended night: take the store's lock, resume a night that was cut\n"
                "short, fetch the configured sources and import new kernels, measure each new\n"
                "kernel not yet measured with these settings (and the baseline when it has no\n"
                "results with them) through the runner of 'kbench run', kernels interleaved,\n"
                "stopping at the configuration's deadline; compare each new kernel with the\n"
                "baseline as 'kbench compare' does (paired across a source's overrides), look\n"
                "for change points in each judged metric's history, print one line per\n"
                "regression, feed the report to 'notify' when something regressed, and\n"
                "publish the site into publish_dir. The configuration is described in\n"
                "docs/nightly.md ('--keys' lists its keys).");
        g_option_context_set_description(ctx,
                "Exit status: 0 nothing regressed; 4 a metric of a new kernel is worse than\n"
                "the baseline (compare's 4), or a new kernel's cells failed (boot, crash);\n"
                "3 nothing regressed but cells were left for the next night (deadline,\n"
                "signal); 1 error (also: a source or an import failed); 2 usage.");
        g_option_context_add_main_entries(ctx, entries, NULL);
        if (cli_parse(ctx, (const GOptionEntry *const[]){ entries, NULL }, "nightly", &argc, &argv))
                return 2;
        if (keys) {
                /* --keys is a question of its own: anything beside it would
                 * be ignored, and a script would take the 0 for its answer. */
                if (argc > 1 || dry_run || json) {
                        cli_errorf("nightly: --keys takes nothing else (%s)", argc > 1 ? "a configuration file or "
                                   "argument given" : dry_run ? "--dry-run given" : "--json given");
                        return 2;
                }
                nightly_config_print_keys(stdout);
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
        o.json = json;
        code = nightly_run(&o, g, &err);
        if ((code == 1 || code == 2) && err.msg[0])
                cli_error(&err);
        return code;
}
