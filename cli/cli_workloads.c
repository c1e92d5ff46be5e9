/* cli_workloads.c: `kbench workloads [--packages]`: what the registry
 * (workloads/registry.c) holds, for people and for scripts. The list of
 * Debian packages the guests need is printed from the same rows the runner
 * builds guest images from, so tools/setup.sh installs exactly those and a
 * new workload brings its packages by itself. */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "cli/cli.h"
#include "workloads/workload.h"

static const char *direction_mark(const struct metric_def *d) {
        return d->higher_is_better == 1 ? "higher is better" :
               d->higher_is_better == 0 ? "lower is better" : "no direction";
}

/* Every package named by a workload, once, in registry order. */
static void print_packages(void) {
        g_autoptr(GPtrArray) seen = g_ptr_array_new();

        for (size_t i = 0; workload_all[i]; i++)
                for (const char *const *p = workload_all[i]->packages; p && *p; p++) {
                        if (g_ptr_array_find_with_equal_func(seen, *p, g_str_equal, NULL))
                                continue;
                        g_ptr_array_add(seen, (gpointer)*p);
                        printf("%s\n", *p);
                }
}

static void print_workloads(void) {
        for (size_t i = 0; workload_all[i]; i++) {
                const struct workload_ops *ops = workload_all[i];

                printf("%s: %s\n", ops->name, ops->summary);
                printf("  guest packages:");
                for (const char *const *p = ops->packages; p && *p; p++)
                        printf(" %s", *p);
                printf("%s\n", ops->packages && ops->packages[0] ? "" : " (none: kbench's own)");
                for (const struct metric_def *d = ops->metrics; d && d->pattern; d++)
                        printf("  %-32s %-12s %s%s%s\n", d->pattern, d->unit, direction_mark(d),
                               d->restates ? "; not judged: " : "", d->restates ? d->restates : "");
        }
}

int cli_workloads(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "workloads",
                .params = "- list the workloads and their metrics",
                .summary = "Each workload with its guest packages and its metrics (unit, direction).\n"
                           "Keys and defaults: kbench run --help. Details: docs/workloads.md.",
        };
        gboolean packages = FALSE;
        GOptionEntry entries[] = {
                { "packages", 0, 0, G_OPTION_ARG_NONE, &packages,
                  "Print the Debian packages the guests need, one per line", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };

        if (cli_options(&usage, entries, &argc, &argv))
                return 2;
        if (argc > 1) {
                cli_errorf("workloads: unexpected argument '%.64s'", argv[1]);
                return 2;
        }
        if (packages)
                print_packages();
        else
                print_workloads();
        return 0;
}
