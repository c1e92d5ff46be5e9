/* runopts.c: the `kbench run` option table and what it drives (see runopts.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "common/proto.h"
#include "cell/cell.h"
#include "run/runopts.h"
#include "cell/warm.h"

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

static int check_variant(const char *v, struct kb_error *err) {
        if (!g_regex_match_simple("^[A-Za-z0-9._+~-]{1,64}$", v, 0, 0))
                return error_setf(err, -EINVAL, "'%s' is not 1-64 of A-Za-z0-9._+~-", v);
        return 0;
}

/* Control characters in a label or a command line would forge lines in
 * show's output and the kernel's parsing; the check names the first. */
static const char *first_control(const char *v) {
        for (const char *p = v; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return p;
        return NULL;
}

/* A tag is what tag:NAME selects: an empty one could never be named. */
static int check_tag(const char *v, struct kb_error *err) {
        const char *c = first_control(v);

        if (!*v)
                return error_setf(err, -EINVAL, "an empty tag cannot be selected with tag:NAME");
        if (c)
                return error_setf(err, -EINVAL, "a tag must not hold control characters (byte 0x%02x at %zu)",
                                  (unsigned char)*c, (size_t)(c - v));
        if (strlen(v) > RUNOPTS_TAG_MAX)
                return error_setf(err, -EINVAL, "a tag is at most %d bytes", RUNOPTS_TAG_MAX);
        return 0;
}

/* The kernel keeps COMMAND_LINE_SIZE bytes of its command line (2048 on
 * x86, with the NUL) and cuts the rest silently, kbench's own kbench.cell=
 * included; a newline would end it early in the bootloader protocol. */
static int check_append(const char *v, struct kb_error *err) {
        const char *c = first_control(v);
        /* cell_cmdline's: the base, the longest id (a 5-digit key or the
         * snapshot's), a blank, the user's arguments. */
        size_t n = strlen(CELL_CMDLINE_BASE) + MAX(strlen("c99999"), strlen(WARM_CELL_ID)) + 1 + strlen(v);

        if (c)
                return error_setf(err, -EINVAL, "the kernel command line must not hold control characters "
                                  "(byte 0x%02x at %zu)", (unsigned char)*c, (size_t)(c - v));
        if (n >= CELL_CMDLINE_SIZE)
                return error_setf(err, -E2BIG, "%zu bytes with kbench's own arguments; the kernel keeps %d",
                                  n, CELL_CMDLINE_SIZE - 1);
        return 0;
}

int runopts_check_sysctl(const char *kv, struct kb_error *err) {
        const char *eq = strchr(kv, '='), *why = "no '='";
        g_autofree char *key = eq ? g_strndup(kv, (size_t)(eq - kv)) : NULL;

        if (eq && proto_sysctl_check(key, eq + 1, &why) == 0)
                return 0;
        return error_setf(err, -EINVAL, "'%.300s' is not KEY=VALUE: %s", kv, why);
}

/* Kernels and workloads are the axes of a run's matrix, not settings: a
 * cell's kernel is what a comparison varies, and its workload enters the
 * pairing through the cell's params. */
const struct runopt runopt_table[] = {
        { "kernel", 'k', RUNOPT_STRV, OFF(kernels), .help = "Kernel to run (repeatable; see 'kbench kernel list')",
          .arg = "NAME", .class = RUNOPT_HOW },
        { "workload", 'w', RUNOPT_STRV, OFF(workloads), .help = "Workload to run (repeatable)",
          .arg = "NAME[:k=v,...]", .class = RUNOPT_HOW },
        { "repeat", 'n', RUNOPT_INT, OFF(repeats), 1, 10000, "1", "repeats",
          .help = "Repeats of every (kernel, workload) pair; with --until-mde the pilot's (default 1)", .arg = "N", .class = RUNOPT_HOW },
        { "mem", 0, RUNOPT_MIB, OFF(mem_mb), 128, 65536, "256", "mem_mb",
          .unit = "MiB", .help = "Guest RAM; a bare number is MiB, or with a unit: 160, 1G (default 256)",
          .arg = "SIZE", .class = RUNOPT_MEASURED },
        { "cpus", 0, RUNOPT_UINT, OFF(cpus), 1, 64, "1", "cpus", .help = "Guest vCPUs (default 1)", .arg = "N",
          .class = RUNOPT_MEASURED },
        { "disk-size", 0, RUNOPT_SIZE, OFF(disk_bytes), 64 * MiB, 16.0 * 1024 * 1024 * MiB, "2G", "disk_bytes",
          .unit = "bytes", .help = "Size of the disk under test, with a unit: 4G, 512M; a bare number is bytes "
          "(default 2G)", .arg = "SIZE", .class = RUNOPT_MEASURED },
        { "disk-mbps", 0, RUNOPT_U64, OFF(disk_mbps), 0, 100000, "0", "disk_mbps",
          .unit = "MB/s", .help = "Throttle the disk to N MB/s (10^6 bytes/s, a whole number without a unit), "
          "emulating a slower drive (default 0: unlimited)", .arg = "N", .class = RUNOPT_MEASURED },
        { "fs", 0, RUNOPT_STRING, OFF(fs), 0, 0, "ext4", "fs", .check = check_fs, .agent = "fs",
          .help = "Filesystem made on the host with mkfs.FS (default ext4)", .arg = "FS", .class = RUNOPT_MEASURED },
        { "mount-opts", 0, RUNOPT_STRING, OFF(mount_opts), 0, 0, "", "mount_opts", .check = check_mount_opts,
          .agent = "mount_opts",
          .help = "Mount options, e.g. data=ordered", .arg = "OPTS", .class = RUNOPT_MEASURED },
        { "swap", 0, RUNOPT_SIZE, OFF(swap_bytes), MiB, 1024 * 1024 * MiB, "0", "swap_bytes", .zero_ok = 1,
          .unit = "bytes", .help = "Swap disk of this size, with a unit: 256M; a bare number is bytes "
          "(default 0: none)", .arg = "SIZE", .class = RUNOPT_MEASURED },
        { "tag", 0, RUNOPT_STRING, OFF(tag), .check = check_tag,
          .help = "Label the run (not empty, no control characters, at most 256 bytes)", .arg = "NAME",
          .class = RUNOPT_HOW },
        { "accel", 0, RUNOPT_STRING, OFF(accel), 0, 0, "auto", "accel_requested", .check = check_accel,
          .help = "auto (probe KVM, fall back to TCG), kvm or tcg (default auto)", .arg = "ACCEL", .class = RUNOPT_HOW },
        { "sysctl", 0, RUNOPT_STRV, OFF(sysctls), 0, 0, NULL, "sysctls", .agent = "sysctl",
          .check = runopts_check_sysctl, .class = RUNOPT_MEASURED,
          .help = "Sysctl the guest agent writes (/proc/sys/KEY, '.' for '/') before the job, and reads back "
                  "into the cell (repeatable); a kernel without it fails the cell", .arg = "KEY=VALUE" },
        { "variant", 0, RUNOPT_STRING, OFF(variant), 0, 0, NULL, "variant", .check = check_variant,
          .class = RUNOPT_MEASURED,
          .help = "Label the kernels as a variant (shown as LABELkernel), kept apart from their other runs",
          .arg = "LABEL" },
        { "append", 0, RUNOPT_STRING, OFF(append), 0, 0, NULL, "append", .check = check_append,
          .help = "Extra kernel command line (one line; with kbench's own, under the kernel's 2048 bytes)",
          .arg = "ARGS", .class = RUNOPT_MEASURED },
        { "timeout", 0, RUNOPT_SECONDS, OFF(cell_timeout_s), 10, 7 * 86400, "1800", "cell_timeout_s",
          .help = "Whole-cell deadline in seconds (default 1800)", .arg = "S", .class = RUNOPT_HOW },
        { "hang-timeout", 0, RUNOPT_SECONDS, OFF(hang_timeout_s), 5, 86400, "60", "hang_timeout_s",
          .help = "A running job silent on ttyS1 this long is a hang (default 60; vmstat speaks every --vmstat-interval)",
          .arg = "S", .class = RUNOPT_HOW },
        { "vmstat-interval", 0, RUNOPT_SECONDS, OFF(vmstat_interval_s), 0.1, 10, "1", "vmstat_interval_s",
          .agent = "vmstat_interval_ms", .agent_scale = 1000,
          .help = "Seconds between the guest's vmstat samples; rates stay per second (default 1)", .arg = "S", .class = RUNOPT_MEASURED },
        { "retries", 0, RUNOPT_INT, OFF(retries), 0, 10, "2", "retries",
          .help = "Extra attempts after an infra error or contention (default 2)", .arg = "N", .class = RUNOPT_HOW },
        { "max-contention", 0, RUNOPT_PERCENT, OFF(max_contention_pct), 0, 100, "0", "max_contention_pct",
          .help = "Re-run (within --retries) a cell whose host spent over P % of its CPU on other processes "
                  "during the workload; such cells are marked contended (over 10 % when P is 0, the default)",
          .arg = "P", .class = RUNOPT_HOW },
        /* Repeats chosen by the tool (report/seqrule.h): how a run went about
         * its measurement, not what it measured, so HOW. */
        { "until-mde", 0, RUNOPT_PERCENT, OFF(until_mde_pct), 0, 100, "0", "until_mde_pct", .suffix = 1,
          .help = "Add interleaved rounds until every judged metric's minimum detectable effect (compare's "
                  "mde) is at most P % (5%), or the budget is spent; -n is then the pilot (default 0: off)",
          .arg = "P", .class = RUNOPT_HOW },
        { "budget-cells", 0, RUNOPT_INT, OFF(budget_cells), 0, 100000, "0", "budget_cells",
          .help = "With --until-mde: run at most N cells in all (default 0: no cell budget)", .arg = "N",
          .class = RUNOPT_HOW },
        { "budget-time", 0, RUNOPT_SECONDS, OFF(budget_time_s), 0, 30 * 86400, "0", "budget_time_s", .suffix = 1,
          .help = "With --until-mde: start no round after this long: seconds, or with a unit s, m, h, d (30m) "
                  "(default 0: no time budget)", .arg = "S", .class = RUNOPT_HOW },
        { "resume", 0, RUNOPT_I64, OFF(resume_run), 1, 9e15, NULL, NULL,
          .help = "Continue an interrupted run: rerun only its missing cells", .arg = "RUN", .class = RUNOPT_HOW },
        { "warm", 0, RUNOPT_FLAG, OFF(warm), 0, 0, NULL, "warm",
          .help = "Restore each cell from a snapshot of its booted guest, made once per guest shape (opt-in: "
                  "that warm and cold cells measure the same is shown only to +-10 %, docs/design.md)", .class = RUNOPT_HOW },
        { "cold", 0, RUNOPT_FLAG, OFF(cold), 0, 0, NULL, "cold",
          .help = "Boot every cell fresh (the default; wins over --warm)", .class = RUNOPT_HOW },
        { "json", 0, RUNOPT_FLAG, OFF(json), .help = "Print the results as JSON", .class = RUNOPT_HOW },
        { "all", 0, RUNOPT_FLAG, OFF(all), .help = "End with every cell and every metric's summary (as kbench "
          "show RUN), not only the judged metrics", .class = RUNOPT_HOW },
        { NULL },
};

const struct runopt_extra_key runopt_extra_keys[] = {
        { "kernels", RUNOPT_HOW },
        { "workloads", RUNOPT_HOW },
        { "planned_cells", RUNOPT_HOW },
        { "accel", RUNOPT_MEASURED },             /* the accelerator the cells ran with */
        { "accel_why", RUNOPT_HOW },
        /* A cell's params: what the guest read back of its sysctls is a
         * record of the cell, not a setting (the settings hold what was
         * asked for). */
        { "sysctls_applied", RUNOPT_HOW },
        /* Why an --until-mde run stopped, written when it does. */
        { RUNOPTS_UNTIL_MDE_OUTCOME, RUNOPT_HOW },
        { RUNOPTS_HOW_KEYS, RUNOPT_HOW },
        { NULL },
};

json_t *runopts_how_keys(void) {
        json_t *a = json_array();

        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (opt->key && opt->class == RUNOPT_HOW)
                        json_array_append_new(a, json_string(opt->key));
        for (const struct runopt_extra_key *x = runopt_extra_keys; x->key; x++)
                if (x->class == RUNOPT_HOW)
                        json_array_append_new(a, json_string(x->key));
        return a;
}

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

/* With the row's suffix flag, a percentage may end in '%' ("5%"), a
 * number of seconds in a unit s, m, h or d ("30m"). Returns the number's text (text itself, or num holding
 * it) and *ret_scale, what the number is multiplied by. */
static const char *unit_free(const struct runopt *opt, const char *text, char *num, size_t size, double *ret_scale) {
        static const struct { char c; double scale; } units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 },
                                                                 { 'd', 86400 } };
        size_t len = strlen(text);

        *ret_scale = 1;
        if (!opt->suffix || len < 2 || len >= size)
                return text;
        if (opt->type == RUNOPT_PERCENT && text[len - 1] == '%') {
                snprintf(num, size, "%.*s", (int)(len - 1), text);
                return num;
        }
        for (size_t i = 0; opt->type == RUNOPT_SECONDS && i < sizeof(units) / sizeof(units[0]); i++)
                if (text[len - 1] == units[i].c) {
                        snprintf(num, size, "%.*s", (int)(len - 1), text);
                        *ret_scale = units[i].scale;
                        return num;
                }
        return text;
}

int runopt_set(struct runner_opts *o, const struct runopt *opt, const char *text, struct kb_error *err) {
        static const enum parse_kind kinds[] = {
                [RUNOPT_INT] = PARSE_UINT, [RUNOPT_UINT] = PARSE_UINT, [RUNOPT_MIB] = PARSE_MIB,
                [RUNOPT_U64] = PARSE_UINT, [RUNOPT_SIZE] = PARSE_SIZE, [RUNOPT_SECONDS] = PARSE_REAL,
                [RUNOPT_PERCENT] = PARSE_REAL,
                [RUNOPT_I64] = PARSE_UINT,
        };
        double min = opt->min, max = opt->max, scale = 1;
        union parse_value v;
        char what[96], num[64];
        const char *text_num;
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
        text_num = unit_free(opt, text, num, sizeof(num), &scale);
        r = parse_number(text_num, kinds[opt->type], min / scale, max / scale, &v);
        if (r == 0 && scale != 1)
                v.d *= scale;
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

static int strcmp_p(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every item of a repeatable option passes its check, and "key=value"
 * items name each key once (two values for one sysctl is no setting). */
static int check_strv(const struct runopt *opt, char *const *v, struct kb_error *err) {
        for (size_t i = 0; v && v[i]; i++) {
                int r = opt->check ? opt->check(v[i], err) : 0;
                if (r < 0)
                        return error_prefix(err, r, "--%s", opt->name);
                if (!opt->agent)
                        continue;
                for (size_t j = 0; j < i; j++) {
                        size_t k = strcspn(v[j], "=");
                        if (strncmp(v[i], v[j], k) == 0 && v[i][k] == '=')
                                return error_setf(err, -EINVAL, "--%s: %.*s is given twice", opt->name, (int)k,
                                                  v[j]);
                }
        }
        return 0;
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
                else if (opt->type == RUNOPT_STRV) {
                        char **v = (char **)(void *)texts[i];
                        if ((r = check_strv(opt, v, err)) < 0)
                                return r;
                        *FIELD(o, opt, char **) = v;
                }
                else if (texts[i] && (r = runopt_set(o, opt, texts[i], err)) < 0)
                        return r;
        }
        return 0;
}

static void append_arg(GString *s, const char *arg) {
        g_autofree char *q = g_shell_quote(arg);

        g_string_append_c(s, ' ');
        /* A plain word needs no quotes: the command reads as typed. */
        g_string_append(s, strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:=/+%") ==
                                   strlen(arg) && *arg ? arg : q);
}

char *runopts_command(const json_t *settings, const char *kernel, const char *tag) {
        GString *s = g_string_new("kbench run -k");
        json_t *defaults = json_object(), *v;
        struct runner_opts d;
        size_t i;

        append_arg(s, kernel);
        json_array_foreach(json_object_get(settings, "workloads"), i, v)
                if (json_is_string(v)) {
                        g_string_append(s, " -w");
                        append_arg(s, json_string_value(v));
                }
        if (json_is_integer(json_object_get(settings, "repeats")))
                g_string_append_printf(s, " -n %" JSON_INTEGER_FORMAT,
                                       json_integer_value(json_object_get(settings, "repeats")));
        if (json_is_string(json_object_get(settings, "accel"))) {
                g_string_append(s, " --accel");
                append_arg(s, json_string_value(json_object_get(settings, "accel")));
        }
        runopts_defaults(&d);
        runopts_save(&d, defaults);
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                char num[64];

                if (!opt->key || opt->class != RUNOPT_MEASURED)
                        continue;
                v = json_object_get(settings, opt->key);
                if (!v || json_is_null(v) || json_equal(v, json_object_get(defaults, opt->key)))
                        continue;
                if (json_is_array(v)) {
                        json_t *el;
                        size_t k;

                        json_array_foreach(v, k, el)
                                if (json_is_string(el)) {
                                        g_string_append_printf(s, " --%s", opt->name);
                                        append_arg(s, json_string_value(el));
                                }
                        continue;
                }
                if (json_is_true(v)) {
                        g_string_append_printf(s, " --%s", opt->name);
                        continue;
                }
                if (json_is_false(v))
                        continue;
                g_string_append_printf(s, " --%s", opt->name);
                if (json_is_string(v))
                        append_arg(s, json_string_value(v));
                else if (json_is_integer(v)) {
                        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                        append_arg(s, num);
                } else {
                        snprintf(num, sizeof(num), "%.17g", json_number_value(v));
                        append_arg(s, num);
                }
        }
        if (tag) {
                g_string_append(s, " --tag");
                append_arg(s, tag);
        }
        json_decref(defaults);
        return g_string_free(s, FALSE);
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
                case RUNOPT_STRV: {
                        char *const *items = *FIELD(o, opt, char **const);
                        g_autoptr(GPtrArray) sorted = g_ptr_array_new();
                        for (size_t i = 0; items && items[i]; i++)
                                g_ptr_array_add(sorted, items[i]);
                        if (sorted->len == 0)
                                break;
                        g_ptr_array_sort(sorted, strcmp_p);
                        v = json_array();
                        for (guint i = 0; i < sorted->len; i++)
                                json_array_append_new(v, json_string(sorted->pdata[i]));
                        break;
                }
                default:
                        break;
                }
                if (v)
                        json_object_set_new(j, opt->key, v);
        }
}

static int load_strv(struct runner_opts *o, const struct runopt *opt, const json_t *v, GPtrArray *keep,
                     struct kb_error *err) {
        char **items;
        size_t i;
        json_t *el;
        int r;

        if (!json_is_array(v))
                return error_setf(err, -EINVAL, "stored settings: %s has the wrong type", opt->key);
        items = g_new0(char *, json_array_size(v) + 1);
        g_ptr_array_add(keep, items);
        json_array_foreach(v, i, el) {
                if (!json_is_string(el))
                        return error_setf(err, -EINVAL, "stored settings: %s[%zu] has the wrong type", opt->key, i);
                items[i] = g_strdup(json_string_value(el));
                g_ptr_array_add(keep, items[i]);
        }
        r = check_strv(opt, items, err);
        if (r < 0)
                return error_prefix(err, r, "stored settings: %s", opt->key);
        *FIELD(o, opt, char **) = items;
        return 0;
}

int runopts_load(struct runner_opts *o, const json_t *j, GPtrArray *keep, struct kb_error *err) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v;
                char *text;
                int r;

                if (!opt->key || !(v = json_object_get(j, opt->key)) || json_is_null(v))
                        continue;
                if (opt->type == RUNOPT_STRV) {
                        r = load_strv(o, opt, v, keep, err);
                        if (r < 0)
                                return r;
                        continue;
                }
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
                case RUNOPT_STRV: {
                        char *const *items = *FIELD(o, opt, char **const);
                        for (size_t i = 0; items && items[i]; i++) {
                                size_t k = strcspn(items[i], "=");
                                g_ptr_array_add(lines, g_strdup_printf("%s %.*s %s", opt->agent, (int)k, items[i],
                                                                       items[i][k] ? items[i] + k + 1 : ""));
                        }
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

void runopts_texts_free(char **texts) {
        for (size_t i = 0; texts && runopt_table[i].name; i++)
                if (runopt_table[i].type == RUNOPT_STRV)
                        g_strfreev((char **)(void *)texts[i]);
                else
                        g_free(texts[i]);
}
