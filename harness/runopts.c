/* runopts.c: the `kbench run` option table and what it drives (see runopts.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "harness/runopts.h"

#define OFF(f) offsetof(struct runner_opts, f)
#define MiB (1024.0 * 1024.0)

static int check_fs(const char *v, struct kb_error *err) {
        if (!g_regex_match_simple("^[a-z0-9]{1,16}$", v, 0, 0))
                return error_setf(err, -EINVAL, "'%s' is not a filesystem name", v);
        return 0;
}

static int check_mount_opts(const char *v, struct kb_error *err) {
        if (strpbrk(v, " \t\n\\"))
                return error_setf(err, -EINVAL, "'%s' must not contain blanks or backslashes", v);
        return 0;
}

static int check_accel(const char *v, struct kb_error *err) {
        if (strcmp(v, "auto") && strcmp(v, "kvm") && strcmp(v, "tcg"))
                return error_setf(err, -EINVAL, "'%s' is not auto, kvm or tcg", v);
        return 0;
}

const struct runopt runopt_table[] = {
        { "kernel", 'k', RUNOPT_STRV, OFF(kernels), .help = "Kernel to run (repeatable; see 'kbench kernel list')",
          .arg = "NAME" },
        { "workload", 'w', RUNOPT_STRV, OFF(workloads), .help = "Workload to run (repeatable)",
          .arg = "NAME[:k=v,...]" },
        { "repeat", 'n', RUNOPT_INT, OFF(repeats), 1, 10000, "1", "repeats",
          .help = "Repeats of every (kernel, workload) pair (default 1)", .arg = "N" },
        { "mem", 0, RUNOPT_MIB, OFF(mem_mb), 128, 65536, "256", "mem_mb",
          .help = "Guest RAM in MiB, or with a unit: 160, 1G (default 256)", .arg = "SIZE" },
        { "cpus", 0, RUNOPT_UINT, OFF(cpus), 1, 64, "1", "cpus", .help = "Guest vCPUs (default 1)", .arg = "N" },
        { "disk-size", 0, RUNOPT_SIZE, OFF(disk_bytes), 64 * MiB, 16.0 * 1024 * 1024 * MiB, "2G", "disk_bytes",
          .help = "Size of the disk under test (default 2G)", .arg = "SIZE" },
        { "disk-mbps", 0, RUNOPT_U64, OFF(disk_mbps), 0, 100000, "0", "disk_mbps",
          .help = "Throttle the disk to MB/s, emulating a slower drive (default 0: unlimited)", .arg = "N" },
        { "fs", 0, RUNOPT_STRING, OFF(fs), 0, 0, "ext4", "fs", .check = check_fs, .agent = "fs",
          .help = "Filesystem made on the host with mkfs.FS (default ext4)", .arg = "FS" },
        { "mount-opts", 0, RUNOPT_STRING, OFF(mount_opts), 0, 0, "", "mount_opts", .check = check_mount_opts,
          .agent = "mount_opts",
          .help = "Mount options, e.g. data=ordered", .arg = "OPTS" },
        { "swap", 0, RUNOPT_SIZE, OFF(swap_bytes), MiB, 1024 * 1024 * MiB, "0", "swap_bytes", .zero_ok = 1,
          .help = "Swap disk of this size (default 0: none)", .arg = "SIZE" },
        { "tag", 0, RUNOPT_STRING, OFF(tag), .help = "Label the run", .arg = "NAME" },
        { "accel", 0, RUNOPT_STRING, OFF(accel), 0, 0, "auto", "accel_requested", .check = check_accel,
          .help = "auto (probe KVM, fall back to TCG), kvm or tcg (default auto)", .arg = "ACCEL" },
        { "append", 0, RUNOPT_STRING, OFF(append), 0, 0, NULL, "append", .help = "Extra kernel command line",
          .arg = "ARGS" },
        { "timeout", 0, RUNOPT_SECONDS, OFF(cell_timeout_s), 10, 7 * 86400, "1800", "cell_timeout_s",
          .help = "Whole-cell deadline in seconds (default 1800)", .arg = "S" },
        { "hang-timeout", 0, RUNOPT_SECONDS, OFF(hang_timeout_s), 5, 86400, "60", "hang_timeout_s",
          .help = "A running job silent on ttyS1 this long is a hang (default 60; vmstat speaks every --vmstat-interval)",
          .arg = "S" },
        { "vmstat-interval", 0, RUNOPT_SECONDS, OFF(vmstat_interval_s), 0.1, 10, "1", "vmstat_interval_s",
          .agent = "vmstat_interval_ms", .agent_scale = 1000,
          .help = "Seconds between the guest's vmstat samples; rates stay per second (default 1)", .arg = "S" },
        { "retries", 0, RUNOPT_INT, OFF(retries), 0, 10, "2", "retries",
          .help = "Extra attempts after an infra error or contention (default 2)", .arg = "N" },
        { "max-contention", 0, RUNOPT_PERCENT, OFF(max_contention_pct), 0, 100, "0", "max_contention_pct",
          .help = "Re-run (within --retries) a cell whose host spent over P % of its CPU on other processes "
                  "during the workload; such cells are marked contended (over 10 % when P is 0, the default)",
          .arg = "P" },
        { "resume", 0, RUNOPT_I64, OFF(resume_run), 1, 9e15, NULL, NULL,
          .help = "Continue an interrupted run: rerun only its missing cells", .arg = "RUN" },
        { "warm", 0, RUNOPT_FLAG, OFF(warm), 0, 0, NULL, "warm",
          .help = "Restore each cell from a snapshot of its booted guest, made once per guest shape (opt-in: "
                  "small TCG workloads measure differently warm, docs/design.md)" },
        { "cold", 0, RUNOPT_FLAG, OFF(cold), 0, 0, NULL, "cold",
          .help = "Boot every cell fresh (the default; wins over --warm)" },
        { "json", 0, RUNOPT_FLAG, OFF(json), .help = "Print the results as JSON" },
        { NULL },
};

#define FIELD(o, opt, type) ((type *)(void *)((char *)(o) + (opt)->offset))

const struct runopt *runopt_find(const char *name) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (strcmp(opt->name, name) == 0)
                        return opt;
        return NULL;
}

static const char *describe(const struct runopt *opt, char *buf, size_t size) {
        switch (opt->type) {
        case RUNOPT_MIB:
                snprintf(buf, size, "a size in %.0f..%.0f MiB", opt->min, opt->max);
                break;
        case RUNOPT_SIZE:
                snprintf(buf, size, "a size in %.0fM..%.0fG%s", opt->min / MiB, opt->max / MiB / 1024,
                         opt->zero_ok ? " (or 0)" : "");
                break;
        case RUNOPT_SECONDS:
                snprintf(buf, size, "a number of seconds in %g..%g", opt->min, opt->max);
                break;
        case RUNOPT_PERCENT:
                snprintf(buf, size, "a percentage in %g..%g", opt->min, opt->max);
                break;
        default:
                snprintf(buf, size, "a whole number in %.0f..%.0f", opt->min, opt->max);
                break;
        }
        return buf;
}

int runopt_set(struct runner_opts *o, const struct runopt *opt, const char *text, struct kb_error *err) {
        static const enum parse_kind kinds[] = {
                [RUNOPT_INT] = PARSE_UINT, [RUNOPT_UINT] = PARSE_UINT, [RUNOPT_MIB] = PARSE_MIB,
                [RUNOPT_U64] = PARSE_UINT, [RUNOPT_SIZE] = PARSE_SIZE, [RUNOPT_SECONDS] = PARSE_REAL,
                [RUNOPT_PERCENT] = PARSE_REAL,
                [RUNOPT_I64] = PARSE_UINT,
        };
        double min = opt->min, max = opt->max;
        union parse_value v;
        char what[96];
        int r;

        switch (opt->type) {
        case RUNOPT_STRING:
                if (opt->check && (r = opt->check(text, err)) < 0)
                        return error_prefix(err, r, "--%s", opt->name);
                *FIELD(o, opt, const char *) = text;
                return 0;
        case RUNOPT_STRV:
        case RUNOPT_FLAG:
                return error_setf(err, -EINVAL, "--%s takes no single value", opt->name);
        default:
                break;
        }
        if (opt->type == RUNOPT_MIB) {
                min *= MiB;
                max *= MiB;
        }
        if (opt->zero_ok)
                min = 0;
        r = parse_number(text, kinds[opt->type], min, max, &v);
        if (r == 0 && opt->zero_ok && opt->type != RUNOPT_SECONDS && v.u > 0 && (double)v.u < opt->min)
                r = -ERANGE;
        if (r < 0)
                return error_setf(err, r, "--%s: '%s' is not %s", opt->name, text, describe(opt, what, sizeof(what)));
        switch (opt->type) {
        case RUNOPT_INT:
                *FIELD(o, opt, int) = (int)v.u;
                break;
        case RUNOPT_UINT:
                *FIELD(o, opt, unsigned) = (unsigned)v.u;
                break;
        case RUNOPT_MIB:
                *FIELD(o, opt, unsigned) = (unsigned)(v.u >> 20);
                break;
        case RUNOPT_U64:
        case RUNOPT_SIZE:
                *FIELD(o, opt, uint64_t) = v.u;
                break;
        case RUNOPT_SECONDS:
        case RUNOPT_PERCENT:
                *FIELD(o, opt, double) = v.d;
                break;
        case RUNOPT_I64:
                *FIELD(o, opt, int64_t) = (int64_t)v.u;
                break;
        default:
                break;
        }
        return 0;
}

void runopts_defaults(struct runner_opts *o) {
        *o = (struct runner_opts){ 0 };
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (opt->def && opt->type == RUNOPT_FLAG)
                        *FIELD(o, opt, int) = strcmp(opt->def, "1") == 0;
                else if (opt->def) {
                        int r = runopt_set(o, opt, opt->def, NULL);
                        g_assert(r == 0);      /* the table's own defaults pass its checks */
                }
}

GOptionEntry *runopts_entries(char **texts, int *flags) {
        size_t n = 0;
        GOptionEntry *e;

        while (runopt_table[n].name)
                n++;
        e = g_new0(GOptionEntry, n + 1);
        for (size_t i = 0; i < n; i++) {
                const struct runopt *opt = &runopt_table[i];
                e[i] = (GOptionEntry){ .long_name = opt->name, .short_name = opt->short_name,
                                       .arg = G_OPTION_ARG_STRING, .arg_data = &texts[i],
                                       .description = opt->help, .arg_description = opt->arg };
                if (opt->type == RUNOPT_STRV)
                        e[i].arg = G_OPTION_ARG_STRING_ARRAY;
                else if (opt->type == RUNOPT_FLAG) {
                        e[i].arg = G_OPTION_ARG_NONE;
                        e[i].arg_data = &flags[i];
                }
        }
        return e;
}

int runopts_apply(struct runner_opts *o, char **texts, const int *flags, struct kb_error *err) {
        for (size_t i = 0; runopt_table[i].name; i++) {
                const struct runopt *opt = &runopt_table[i];
                int r;

                /* A flag given turns its setting on; one not given keeps
                 * its default. */
                if (opt->type == RUNOPT_FLAG && flags[i])
                        *FIELD(o, opt, int) = 1;
                else if (opt->type == RUNOPT_FLAG)
                        continue;
                else if (opt->type == RUNOPT_STRV)
                        *FIELD(o, opt, char **) = (char **)(void *)texts[i];
                else if (texts[i] && (r = runopt_set(o, opt, texts[i], err)) < 0)
                        return r;
        }
        return 0;
}

void runopts_save(const struct runner_opts *o, json_t *j) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v = NULL;

                if (!opt->key)
                        continue;
                switch (opt->type) {
                case RUNOPT_INT:
                        v = json_integer(*FIELD(o, opt, const int));
                        break;
                case RUNOPT_UINT:
                case RUNOPT_MIB:
                        v = json_integer(*FIELD(o, opt, const unsigned));
                        break;
                case RUNOPT_U64:
                case RUNOPT_SIZE:
                        v = json_integer((json_int_t)*FIELD(o, opt, const uint64_t));
                        break;
                case RUNOPT_SECONDS:
                case RUNOPT_PERCENT:
                        v = json_real(*FIELD(o, opt, const double));
                        break;
                case RUNOPT_I64:
                        v = json_integer((json_int_t)*FIELD(o, opt, const int64_t));
                        break;
                case RUNOPT_STRING: {
                        const char *s = *FIELD(o, opt, const char *const);
                        v = s ? json_string(s) : json_null();
                        break;
                }
                case RUNOPT_FLAG:
                        v = json_boolean(*FIELD(o, opt, const int));
                        break;
                default:
                        break;
                }
                if (v)
                        json_object_set_new(j, opt->key, v);
        }
}

int runopts_load(struct runner_opts *o, const json_t *j, GPtrArray *keep, struct kb_error *err) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v;
                char *text;
                int r;

                if (!opt->key || !(v = json_object_get(j, opt->key)) || json_is_null(v))
                        continue;
                if (opt->type == RUNOPT_FLAG) {
                        if (!json_is_boolean(v))
                                return error_setf(err, -EINVAL, "stored settings: %s has the wrong type", opt->key);
                        *FIELD(o, opt, int) = json_is_true(v);
                        continue;
                }
                if (json_is_string(v) && opt->type == RUNOPT_STRING)
                        text = g_strdup(json_string_value(v));
                else if (json_is_integer(v) && opt->type != RUNOPT_STRING && json_integer_value(v) >= 0)
                        text = g_strdup_printf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
                else if (json_is_real(v) && (opt->type == RUNOPT_SECONDS || opt->type == RUNOPT_PERCENT))
                        text = g_strdup_printf("%.17g", json_real_value(v));
                else
                        return error_setf(err, -EINVAL, "stored settings: %s has the wrong type", opt->key);
                g_ptr_array_add(keep, text);
                r = runopt_set(o, opt, text, err);
                if (r < 0)
                        return error_prefix(err, r, "stored settings: %s", opt->key);
        }
        return 0;
}

void runopts_agent_lines(const struct runner_opts *o, GPtrArray *lines) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                if (!opt->agent)
                        continue;
                switch (opt->type) {
                case RUNOPT_STRING: {
                        const char *v = *FIELD(o, opt, const char *const);
                        g_ptr_array_add(lines, g_strdup_printf("set %s %s", opt->agent, v ? v : ""));
                        break;
                }
                case RUNOPT_INT:
                        g_ptr_array_add(lines, g_strdup_printf("set %s %d", opt->agent, *FIELD(o, opt, const int)));
                        break;
                case RUNOPT_UINT:
                case RUNOPT_MIB:
                        g_ptr_array_add(lines, g_strdup_printf("set %s %u", opt->agent,
                                                               *FIELD(o, opt, const unsigned)));
                        break;
                case RUNOPT_U64:
                case RUNOPT_SIZE:
                        g_ptr_array_add(lines, g_strdup_printf("set %s %" G_GUINT64_FORMAT, opt->agent,
                                                               *FIELD(o, opt, const uint64_t)));
                        break;
                case RUNOPT_SECONDS:
                        if (opt->agent_scale > 0)
                                g_ptr_array_add(lines, g_strdup_printf("set %s %.0f", opt->agent,
                                                                       round(*FIELD(o, opt, const double) *
                                                                             opt->agent_scale)));
                        else
                                g_ptr_array_add(lines, g_strdup_printf("set %s %.17g", opt->agent,
                                                                       *FIELD(o, opt, const double)));
                        break;
                default:
                        break;
                }
        }
}
