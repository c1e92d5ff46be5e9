/* cli_run.c: `kbench run` option parsing; the work is in runner.c. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "common/parse.h"
#include "harness/cli.h"
#include "harness/runner.h"
#include "results/db.h"
#include "results/query.h"
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

/* Fill o from a stored run's settings (for --resume): the plan must be the
 * one that run was started with. */
static int load_resume(struct runner_opts *o, const struct cli_global *g, GPtrArray *kern, GPtrArray *work,
                       char **strings, struct kb_error *err) {
        struct db *db = NULL;
        struct query_run *run = NULL;
        json_t *j = NULL, *v;
        size_t i;
        int r;

        r = db_open(g->db_path, &db, err);
        if (r < 0)
                return r;
        r = query_run(db, o->resume_run, &run, err);
        if (r < 0)
                goto out;
        j = json_loads(run->settings_json ? run->settings_json : "", 0, NULL);
        if (!j || !json_is_array(json_object_get(j, "kernels"))) {
                r = error_setf(err, -EINVAL, "run %" G_GINT64_FORMAT ": stored settings are unreadable", o->resume_run);
                goto out;
        }
        json_array_foreach(json_object_get(j, "kernels"), i, v)
                g_ptr_array_add(kern, g_strdup(json_string_value(json_object_get(v, "id"))));
        json_array_foreach(json_object_get(j, "workloads"), i, v)
                g_ptr_array_add(work, g_strdup(json_string_value(v)));
        o->repeats = (int)json_integer_value(json_object_get(j, "repeats"));
        o->mem_mb = (unsigned)json_integer_value(json_object_get(j, "mem_mb"));
        o->cpus = (unsigned)json_integer_value(json_object_get(j, "cpus"));
        o->disk_bytes = (uint64_t)json_integer_value(json_object_get(j, "disk_bytes"));
        o->disk_mbps = (uint64_t)json_integer_value(json_object_get(j, "disk_mbps"));
        o->swap_bytes = (uint64_t)json_integer_value(json_object_get(j, "swap_bytes"));
        strings[0] = g_strdup(json_string_value(json_object_get(j, "fs")));
        strings[1] = g_strdup(json_string_value(json_object_get(j, "mount_opts")));
        strings[2] = g_strdup(json_string_value(json_object_get(j, "accel_requested")));
        strings[3] = g_strdup(json_string_value(json_object_get(j, "append")));
        o->fs = strings[0] ? strings[0] : "ext4";
        o->mount_opts = strings[1] ? strings[1] : "";
        o->accel = strings[2] ? strings[2] : "auto";
        o->append = strings[3];
        o->cell_timeout_s = json_number_value(json_object_get(j, "cell_timeout_s"));
        o->hang_timeout_s = json_number_value(json_object_get(j, "hang_timeout_s"));
        if (!(o->hang_timeout_s > 0))
                o->hang_timeout_s = 60;
        r = 0;
out:
        json_decref(j);
        query_runs_free(run, run ? 1 : 0);
        db_close(db);
        return r;
}

int cli_run(int argc, char **argv, const struct cli_global *g) {
        g_auto(GStrv) kernels = NULL, workloads = NULL;
        g_autofree char *mem = NULL, *disk = NULL, *mbps = NULL, *swap = NULL, *fs = NULL, *mopts = NULL;
        g_autofree char *tag = NULL, *accel = NULL, *append = NULL, *help = NULL;
        char *resume_strings[4] = { NULL };
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        int repeats = 1, cpus = 1, json = 0, retries = 2;
        gint64 resume = 0;
        double timeout = 1800, hang_timeout = 60;
        struct runner_opts o = { 0 };
        struct kb_error err = { { 0 } };
        uint64_t v;
        int code;
        GOptionEntry entries[] = {
                { "kernel", 'k', 0, G_OPTION_ARG_STRING_ARRAY, &kernels, "Kernel to run (repeatable; see 'kbench kernel list')", "NAME" },
                { "workload", 'w', 0, G_OPTION_ARG_STRING_ARRAY, &workloads, "Workload to run (repeatable)", "NAME[:k=v,...]" },
                { "repeat", 'n', 0, G_OPTION_ARG_INT, &repeats, "Repeats of every (kernel, workload) pair (default 1)", "N" },
                { "mem", 0, 0, G_OPTION_ARG_STRING, &mem, "Guest RAM in MiB, or with a unit: 160, 1G (default 256)", "SIZE" },
                { "cpus", 0, 0, G_OPTION_ARG_INT, &cpus, "Guest vCPUs (default 1)", "N" },
                { "disk-size", 0, 0, G_OPTION_ARG_STRING, &disk, "Size of the disk under test (default 2G)", "SIZE" },
                { "disk-mbps", 0, 0, G_OPTION_ARG_STRING, &mbps, "Throttle the disk to MB/s, emulating a slower drive (default: unlimited)", "N" },
                { "fs", 0, 0, G_OPTION_ARG_STRING, &fs, "Filesystem made on the host with mkfs.FS (default ext4)", "FS" },
                { "mount-opts", 0, 0, G_OPTION_ARG_STRING, &mopts, "Mount options, e.g. data=ordered", "OPTS" },
                { "swap", 0, 0, G_OPTION_ARG_STRING, &swap, "Swap disk of this size (default none)", "SIZE" },
                { "tag", 0, 0, G_OPTION_ARG_STRING, &tag, "Label the run", "NAME" },
                { "accel", 0, 0, G_OPTION_ARG_STRING, &accel, "auto (probe KVM, fall back to TCG), kvm or tcg (default auto)", "ACCEL" },
                { "append", 0, 0, G_OPTION_ARG_STRING, &append, "Extra kernel command line", "ARGS" },
                { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Whole-cell deadline in seconds (default 1800)", "S" },
                { "hang-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &hang_timeout, "A running job silent on ttyS1 this long is a hang (default 60; vmstat speaks every second)", "S" },
                { "retries", 0, 0, G_OPTION_ARG_INT, &retries, "Extra attempts after an infra error (default 2)", "N" },
                { "resume", 0, 0, G_OPTION_ARG_INT64, &resume, "Continue an interrupted run: rerun only its missing cells", "RUN" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the results as JSON", NULL },
                { NULL },
        };
        g_autoptr(GOptionContext) ctx = g_option_context_new("- boot kernels under QEMU and run workloads");
        g_autoptr(GError) gerr = NULL;

        help = workloads_help();
        g_option_context_add_main_entries(ctx, entries, NULL);
        g_option_context_set_description(ctx, help);
        if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
                cli_errorf("run: %s", gerr->message);
                return 2;
        }
        if (argc > 1) {
                cli_errorf("run: unexpected argument '%s' (kernels go with -k, workloads with -w)", argv[1]);
                return 2;
        }

        o = (struct runner_opts){ .kernels = kernels, .workloads = workloads, .repeats = repeats,
                                  .mem_mb = 256, .cpus = (unsigned)cpus, .disk_bytes = 2ull << 30,
                                  .fs = fs ? fs : "ext4", .mount_opts = mopts ? mopts : "", .tag = tag,
                                  .accel = accel ? accel : "auto", .append = append, .cell_timeout_s = timeout,
                                  .hang_timeout_s = hang_timeout,
                                  .retries = retries, .json = json, .resume_run = resume };
        if (mem) {
                if (parse_u64(mem, &v) == 0)
                        o.mem_mb = (unsigned)v;
                else if (parse_size(mem, &v) == 0)
                        o.mem_mb = (unsigned)(v >> 20);
                else
                        return cli_errorf("run: --mem: '%s' is not a size", mem), 2;
                if (o.mem_mb < 128 || o.mem_mb > 65536)
                        return cli_errorf("run: --mem: %u MiB is outside 128..65536", o.mem_mb), 2;
        }
        if (disk && (parse_size(disk, &o.disk_bytes) < 0 || o.disk_bytes < (64u << 20)))
                return cli_errorf("run: --disk-size: '%s' is not a size of at least 64M", disk), 2;
        if (swap && parse_size(swap, &o.swap_bytes) < 0)
                return cli_errorf("run: --swap: '%s' is not a size", swap), 2;
        if (swap && o.swap_bytes > 0 && o.swap_bytes < (1u << 20))
                return cli_errorf("run: --swap: '%s' is below 1M", swap), 2;
        if (mbps && parse_u64(mbps, &o.disk_mbps) < 0)
                return cli_errorf("run: --disk-mbps: '%s' is not a whole number of MB/s", mbps), 2;
        if (repeats < 1 || repeats > 10000)
                return cli_errorf("run: -n: %d is outside 1..10000", repeats), 2;
        if (cpus < 1 || cpus > 64)
                return cli_errorf("run: --cpus: %d is outside 1..64", cpus), 2;
        if (timeout < 10)
                return cli_errorf("run: --timeout: %.0f s is too short (at least 10)", timeout), 2;
        if (hang_timeout < 5)
                return cli_errorf("run: --hang-timeout: %.0f s is too short (at least 5)", hang_timeout), 2;
        if (retries < 0 || retries > 10)
                return cli_errorf("run: --retries: %d is outside 0..10", retries), 2;
        if (!g_regex_match_simple("^[a-z0-9]+$", o.fs, 0, 0))
                return cli_errorf("run: --fs: '%s' is not a filesystem name", o.fs), 2;
        if (strpbrk(o.mount_opts, " \t\n\\"))
                return cli_errorf("run: --mount-opts: '%s' must not contain blanks or backslashes", o.mount_opts), 2;
        if (strcmp(o.accel, "auto") && strcmp(o.accel, "kvm") && strcmp(o.accel, "tcg"))
                return cli_errorf("run: --accel: '%s' is not auto, kvm or tcg", o.accel), 2;
        if (resume > 0) {
                if (kernels || workloads)
                        return cli_errorf("run: --resume takes the kernels and workloads of the stored run; "
                                          "drop -k and -w"), 2;
                if (load_resume(&o, g, kern, work, resume_strings, &err) < 0)
                        return cli_error(&err);
                g_ptr_array_add(kern, NULL);
                g_ptr_array_add(work, NULL);
                o.kernels = (char **)kern->pdata;
                o.workloads = (char **)work->pdata;
        }
        code = runner_run(&o, g);
        for (size_t i = 0; i < G_N_ELEMENTS(resume_strings); i++)
                g_free(resume_strings[i]);
        return code;
}
