/* cli_run.c: `kbench run` option parsing; the work is in run/ (runner.c and its rooms). */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/render.h"
#include "run/runner.h"
#include "settings/runopts.h"
#include "workloads/workload.h"

static char *workloads_help(void) {
        GString *s = g_string_new("Workloads (-w NAME[:key=value,...], list values with '/'):\n");

        for (size_t i = 0; workload_all[i]; i++) {
                const struct workload_ops *ops = workload_all[i];
                g_string_append_printf(s, "  %-9s %s\n", ops->name, ops->summary);
                for (const struct workload_key *k = ops->keys; k && k->name; k++)
                        g_string_append_printf(s, "      %-10s %s (default: %s)\n", k->name, k->help,
                                               k->def && *k->def ? k->def : "computed");
        }
        g_string_append(s, "\nExit status: 0 every cell ok, 3 some cells failed (see 'kbench show'), "
                           "1 error, 2 usage.");
        return g_string_free(s, FALSE);
}

/* --resume: the stored run's kernels, workloads and settings into o (its
 * strings kept in kern, work and keep), refusing any given again. Returns
 * 0, or the exit code after the error is said. */
static int resume_settings(struct run_settings *o, const char *const *texts, size_t n_opts, struct cli_ctx *c,
                           GPtrArray *kern, GPtrArray *work, GPtrArray *keep) {
        struct kb_error err = { { 0 } };

        if (o->kernels || o->workloads) {
                cli_errorf("run: --resume takes the kernels and workloads of the stored run; drop -k and -w");
                return 2;
        }
        /* The rest of a run is run as its start was: a saved setting given
         * again would make its cells incomparable. */
        for (size_t i = 0; i < n_opts; i++)
                if (texts[i] && runopt_table[i].key) {
                        cli_errorf("run: --%s: --resume runs with the stored run's settings", runopt_table[i].name);
                        return 2;
                }
        /* The stored run is read under the lock the run holds. */
        if (cli_setup(c, &err) < 0 || runner_load_resume(o, c->s.db, kern, work, keep, &err) < 0)
                return cli_error(&err);
        g_ptr_array_add(kern, NULL);
        g_ptr_array_add(work, NULL);
        o->kernels = (char **)kern->pdata;
        o->workloads = (char **)work->pdata;
        return 0;
}

/* A run without kernels or workloads, with where to find them (the
 * runner refuses it too, in the words of any driver). Returns 0 or 2
 * after the error line. */
static int check_axes(const struct run_settings *o) {
        char names[512];

        if (!o->kernels) {
                cli_errorf("run: no kernel given (-k NAME; see 'kbench kernel list')");
                return 2;
        }
        if (!o->workloads) {
                workload_names(names, sizeof(names));
                cli_errorf("run: no workload given (-w NAME; workloads: %s)", names);
                return 2;
        }
        return 0;
}

int cli_run(int argc, char **argv, struct cli_ctx *c) {
        size_t n_opts = 0;
        g_autofree char **texts = NULL;
        g_autofree int *flags = NULL;
        g_autofree GOptionEntry *entries = NULL;
        g_autofree char *help = NULL;
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        struct run_settings o;
        struct render rd;
        struct kb_sink sink;
        struct runner_drive drive;
        struct kb_error err = { { 0 } };
        int code = 2;

        while (runopt_table[n_opts].name)
                n_opts++;
        texts = g_new0(char *, n_opts);
        flags = g_new0(int, n_opts);
        entries = runopts_entries(texts, flags);
        help = workloads_help();
        runopts_defaults(&o);
        if (cli_options(&(struct cli_usage){ .verb = "run", .params = "- boot kernels under QEMU and run workloads",
                                             .description = help },
                        entries, &argc, &argv))
                goto out;
        if (argc > 1) {
                cli_errorf("run: unexpected argument '%.64s' (kernels go with -k, workloads with -w)", argv[1]);
                goto out;
        }
        if (runopts_apply(&o, texts, flags, &err) < 0) {
                cli_errorf("run: %s", err.msg);
                goto out;
        }
        /* --cold wins; the stored settings then say how the cells started. */
        if (o.cold)
                o.warm = 0;
        /* The vmstat rows are what keeps a running job from looking hung. */
        if (o.hang_timeout_s < 2 * o.vmstat_interval_s) {
                cli_errorf("run: --hang-timeout %g is less than twice --vmstat-interval %g: every job would look hung",
                           o.hang_timeout_s, o.vmstat_interval_s);
                goto out;
        }
        if (o.resume_run > 0) {
                code = resume_settings(&o, (const char *const *)texts, n_opts, c, kern, work, keep);
                if (code)
                        goto out;
        }
        if ((code = check_axes(&o)))
                goto out;
        render_init(&rd, o.json, o.all);
        sink = render_sink(&rd);
        drive = (struct runner_drive){ .events = &sink, .hosts = c->hosts, .option_name = cli_flag_name };
        code = runner_run(&o, &drive, c->g, &c->s, NULL, &err);
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
