/* settings/runopts.c: the run option table and what it drives (see runopts.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/diskbus.h"
#include "common/parse.h"
#include "common/proto.h"
#include "settings/runopts.h"

#define OFF(f) offsetof(struct run_settings, f)
#define MiB (1024.0 * 1024.0)

/* The whole string in charset, 1..max bytes. (Not a regex: "$" would let
 * a trailing newline through, and the read side checks every stored cell.) */
static int only_of(const char *v, const char *charset, size_t max) {
        size_t n = strspn(v, charset);

        return n >= 1 && n <= max && !v[n];
}

static int check_fs(const char *v, struct kb_error *err) {
        if (!only_of(v, "abcdefghijklmnopqrstuvwxyz0123456789", 16))
                return error_setf(err, -EINVAL, "'%s' is not a filesystem name", v);
        return 0;
}

static int check_disk_bus(const char *v, struct kb_error *err) {
        char names[128];

        if (!diskbus_find(v))
                return error_setf(err, -EINVAL, "'%.64s' is not a disk bus: %s", v,
                                  diskbus_names(", ", names, sizeof(names)));
        return 0;
}

/* The agent passes them to mount(2) as one word of a "set" line. */
static int check_mount_opts(const char *v, struct kb_error *err) {
        if (strpbrk(v, " \t\n\\"))
                return error_setf(err, -EINVAL, "'%s' must not contain blanks or backslashes", v);
        for (const char *p = v; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return error_setf(err, -EINVAL, "mount options must not hold control characters (byte "
                                          "0x%02x at %zu)", (unsigned char)*p, (size_t)(p - v));
        return 0;
}

static int check_accel(const char *v, struct kb_error *err) {
        if (strcmp(v, "auto") && strcmp(v, "kvm") && strcmp(v, "tcg"))
                return error_setf(err, -EINVAL, "'%s' is not auto, kvm or tcg", v);
        return 0;
}

static int check_variant(const char *v, struct kb_error *err) {
        if (!only_of(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+~-", 64))
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
        /* guest_cmdline's: the base, the longest id, a blank, the user's
         * arguments. */
        size_t n = strlen(GUEST_CMDLINE_BASE) + GUEST_CELL_ID_MAX + 1 + strlen(v);

        if (c)
                return error_setf(err, -EINVAL, "the kernel command line must not hold control characters "
                                  "(byte 0x%02x at %zu)", (unsigned char)*c, (size_t)(c - v));
        if (n >= GUEST_CMDLINE_SIZE)
                return error_setf(err, -E2BIG, "%zu bytes with kbench's own arguments; the kernel keeps %d",
                                  n, GUEST_CMDLINE_SIZE - 1);
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
        { "mem", 0, RUNOPT_MIB, OFF(guest.mem_mb), 128, 65536, "256", "mem_mb",
          .unit = "MiB", .help = "Guest RAM; a bare number is MiB, or with a unit: 160, 1G (default 256)",
          .arg = "SIZE", .class = RUNOPT_MEASURED, .cell = 1 },
        { "cpus", 0, RUNOPT_UINT, OFF(guest.cpus), 1, 64, "1", "cpus", .help = "Guest vCPUs (default 1)", .arg = "N",
          .class = RUNOPT_MEASURED, .cell = 1 },
        { "disk-size", 0, RUNOPT_SIZE, OFF(guest.disk_bytes), 64 * MiB, 16.0 * 1024 * 1024 * MiB, "2G", "disk_bytes",
          .unit = "MiB", .help = "Size of the disk under test; a bare number is MiB, or with a unit: 4G, 512M "
          "(default 2G)", .arg = "SIZE", .class = RUNOPT_MEASURED, .cell = 1 },
        { "disk-mbps", 0, RUNOPT_U64, OFF(guest.disk_mbps), 0, 100000, "0", "disk_mbps",
          .unit = "MB/s", .help = "Throttle the disk to N MB/s (10^6 bytes/s, a whole number without a unit), "
          "emulating a slower drive (default 0: unlimited)", .arg = "N", .class = RUNOPT_MEASURED, .cell = 1 },
        /* Another bus is another disk path (controller, driver, queueing),
         * not a setting to compare kernels across: apart, so compare never
         * pairs across it unasked. Runs from before the option ran on IDE.
         * The agent checks the bus's drivers. */
        { "disk-bus", 0, RUNOPT_STRING, OFF(guest.disk_bus), 0, 0, DISKBUS_DEFAULT, "disk_bus",
          .check = check_disk_bus, .agent = "disk_bus",
          .help = "Bus of the guest's disks: ide (PIIX), ahci (SATA), virtio-blk or virtio-scsi (default ide)",
          .arg = "BUS", .class = RUNOPT_MEASURED, .cell = 1, .added_later = 1, .apart = 1 },
        { "fs", 0, RUNOPT_STRING, OFF(guest.fs), 0, 0, "ext4", "fs", .check = check_fs, .agent = "fs",
          .help = "Filesystem made on the host with mkfs.FS (default ext4)", .arg = "FS", .class = RUNOPT_MEASURED, .cell = 1 },
        { "mount-opts", 0, RUNOPT_STRING, OFF(guest.mount_opts), 0, 0, "", "mount_opts", .check = check_mount_opts,
          .agent = "mount_opts",
          .help = "Mount options, e.g. data=ordered", .arg = "OPTS", .class = RUNOPT_MEASURED, .cell = 1 },
        { "swap", 0, RUNOPT_SIZE, OFF(guest.swap_bytes), MiB, 1024 * 1024 * MiB, "0", "swap_bytes", .zero_ok = 1,
          .unit = "MiB", .help = "Swap disk of this size; a bare number is MiB, or with a unit: 256M "
          "(default 0: none)", .arg = "SIZE", .class = RUNOPT_MEASURED, .cell = 1 },
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
        { "append", 0, RUNOPT_STRING, OFF(guest.append), 0, 0, NULL, "append", .check = check_append,
          .help = "Extra kernel command line (one line; with kbench's own, under the kernel's 2048 bytes)",
          .arg = "ARGS", .class = RUNOPT_MEASURED },
        { "timeout", 0, RUNOPT_SECONDS, OFF(cell_timeout_s), 10, 7 * 86400, "1800", "cell_timeout_s",
          .help = "Whole-cell deadline in seconds (default 1800)", .arg = "S", .class = RUNOPT_HOW },
        { "hang-timeout", 0, RUNOPT_SECONDS, OFF(hang_timeout_s), 5, 86400, "60", "hang_timeout_s",
          .help = "A running job silent on ttyS1 this long is a hang (default 60; vmstat speaks every --vmstat-interval)",
          .arg = "S", .class = RUNOPT_HOW },
        { "vmstat-interval", 0, RUNOPT_SECONDS, OFF(vmstat_interval_s), 0.1, 10, "1", "vmstat_interval_s",
          .agent = "vmstat_interval_ms", .agent_scale = 1000,
          .help = "Seconds between the guest's vmstat samples; rates stay per second (default 1)", .arg = "S", .class = RUNOPT_MEASURED, .added_later = 1 },
        { "retries", 0, RUNOPT_INT, OFF(retries), 0, 10, "2", "retries",
          .help = "Extra attempts after an infra error or contention (default 2)", .arg = "N", .class = RUNOPT_HOW },
        { "slots", 0, RUNOPT_INT, OFF(slots), 1, 64, "1", "slots",
          .help = "Cells each host of --connect runs at once (default 1: a host's cells never share it)",
          .arg = "N", .class = RUNOPT_HOW },
        { "max-contention", 0, RUNOPT_PERCENT, OFF(max_contention_pct), 0, 100, "0", "max_contention_pct",
          .help = "Re-run (within --retries) a cell whose host spent over P % of its CPU on other processes "
                  "during the workload; such cells are marked contended (over 10 % when P is 0, the default)",
          .arg = "P", .class = RUNOPT_HOW },
        /* Repeats chosen by the tool (decide/seqrule.h): how a run went about
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
        /* The profile counts what the counter counts: it shapes no figure
         * but the emulator's speed, which the host's drift moves more. */
        { "no-profile", 0, RUNOPT_FLAG, OFF(no_profile), 0, 0, NULL, "no_profile",
          .help = "Do not profile the kernel's instructions by function (under TCG every cell is profiled, "
                  "for compare to say where a change went)", .class = RUNOPT_HOW },
        { "json", 0, RUNOPT_FLAG, OFF(json), .help = "Print the results as JSON", .class = RUNOPT_HOW },
        { "all", 0, RUNOPT_FLAG, OFF(all), .help = "End with every cell and every metric's summary (as kbench "
          "show RUN), not only the judged metrics", .class = RUNOPT_HOW },
        { NULL },
};

const struct runopt_extra_key runopt_extra_keys[] = {
        { "kernels", .class = RUNOPT_HOW },
        { "workloads", .class = RUNOPT_HOW },
        { "planned_cells", .class = RUNOPT_HOW },
        { RUNOPTS_ACCEL_KEY, .class = RUNOPT_MEASURED },   /* the accelerator the cells ran with (guest.accel) */
        /* A cell's params: its canonical workload spec. Its parameters
         * (dd:size=512M against dd:size=1G) are another measurement, never
         * a setting to compare across. */
        { "workload", .class = RUNOPT_MEASURED, .apart = 1 },
        /* A cell's params: the host it ran on, named by --connect. Another
         * host is another machine (or another QEMU), never a setting to
         * compare across. */
        { RUNOPTS_HOST_KEY, .class = RUNOPT_MEASURED, .apart = 1, .never_across = 1 },
        /* How the run spread its cells: which hosts, how many at once. */
        { RUNOPTS_HOSTS_KEY, .class = RUNOPT_HOW },
        { "accel_why", .class = RUNOPT_HOW },
        /* A cell's params: what the guest read back of its sysctls is a
         * record of the cell, not a setting (the settings hold what was
         * asked for). */
        { "sysctls_applied", .class = RUNOPT_HOW },
        /* A cell's params: the drivers the guest bound the disk under test
         * to, from the disk up ("sd ahci"): a record, the bus is the setting. */
        { "disk_driver", .class = RUNOPT_HOW },
        /* Why an --until-mde run stopped, written when it does. */
        { RUNOPTS_UNTIL_MDE_OUTCOME, .class = RUNOPT_HOW },
        { RUNOPTS_HOW_KEYS, .class = RUNOPT_HOW },
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

static const struct runopt_extra_key *extra_key(const char *key) {
        for (const struct runopt_extra_key *x = runopt_extra_keys; x->key; x++)
                if (strcmp(x->key, key) == 0)
                        return x;
        return NULL;
}

enum runopt_class runopts_key_class(const char *key) {
        const struct runopt *opt = runopt_find_key(key);
        const struct runopt_extra_key *x = opt ? NULL : extra_key(key);

        return opt ? opt->class : x ? x->class : RUNOPT_UNCLASSIFIED;
}

int runopts_key_apart(const char *key) {
        const struct runopt *opt = runopt_find_key(key);
        const struct runopt_extra_key *x = opt ? NULL : extra_key(key);

        return opt ? opt->apart : x && x->apart;
}

int runopts_key_never_across(const char *key) {
        const struct runopt_extra_key *x = extra_key(key);

        return x && x->never_across;
}

#define FIELD(o, opt, type) ((type *)(void *)((char *)(o) + (opt)->offset))

const struct runopt *runopt_find(const char *name) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (strcmp(opt->name, name) == 0)
                        return opt;
        return NULL;
}

const struct runopt *runopt_find_key(const char *key) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (opt->key && strcmp(opt->key, key) == 0)
                        return opt;
        return NULL;
}

void runopt_describe(const struct runopt *opt, char *buf, size_t size) {
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

static int is_real(const struct runopt *opt) {
        return opt->type == RUNOPT_SECONDS || opt->type == RUNOPT_PERCENT;
}

/* The number text stands for, in the field's unit (bytes for RUNOPT_MIB),
 * not yet range checked. Returns 0, -EINVAL or -ERANGE (beyond 64 bits). */
static int parse_text(const struct runopt *opt, const char *text, union parse_value *ret) {
        static const enum parse_kind kinds[] = {
                [RUNOPT_INT] = PARSE_UINT, [RUNOPT_UINT] = PARSE_UINT, [RUNOPT_MIB] = PARSE_MIB,
                [RUNOPT_U64] = PARSE_UINT, [RUNOPT_SIZE] = PARSE_MIB, [RUNOPT_SECONDS] = PARSE_REAL,
                [RUNOPT_PERCENT] = PARSE_REAL,
                [RUNOPT_I64] = PARSE_UINT,
        };
        char num[64];
        double scale = 1;
        const char *t = unit_free(opt, text, num, sizeof(num), &scale);
        int r = parse_number(t, kinds[opt->type], is_real(opt) ? -HUGE_VAL : 0, HUGE_VAL, ret);

        if (r == 0 && scale != 1)
                ret->d *= scale;
        return r;
}

/* The row's range, in the field's unit (bytes for RUNOPT_MIB); with
 * zero_ok, 0 as well. Returns 0 or -ERANGE. */
static int check_number(const struct runopt *opt, union parse_value v) {
        double min = opt->min, max = opt->max, x = is_real(opt) ? v.d : (double)v.u;

        if (opt->type == RUNOPT_MIB) {
                min *= MiB;
                max *= MiB;
        }
        if (opt->zero_ok && x == 0)
                return 0;
        /* Written so that a NaN fails it too. */
        return x >= min && x <= max ? 0 : -ERANGE;
}

static void store_number(struct run_settings *s, const struct runopt *opt, union parse_value v) {
        switch (opt->type) {
        case RUNOPT_INT:
                *FIELD(s, opt, int) = (int)v.u;
                break;
        case RUNOPT_UINT:
                *FIELD(s, opt, unsigned) = (unsigned)v.u;
                break;
        case RUNOPT_MIB:
                *FIELD(s, opt, unsigned) = (unsigned)(v.u >> 20);
                break;
        case RUNOPT_U64:
        case RUNOPT_SIZE:
                *FIELD(s, opt, uint64_t) = v.u;
                break;
        case RUNOPT_SECONDS:
        case RUNOPT_PERCENT:
                *FIELD(s, opt, double) = v.d;
                break;
        case RUNOPT_I64:
                *FIELD(s, opt, int64_t) = (int64_t)v.u;
                break;
        default:
                break;
        }
}

int runopt_set(struct run_settings *s, const struct runopt *opt, const char *text, struct kb_error *err) {
        union parse_value v;
        char what[96];
        int r;

        switch (opt->type) {
        case RUNOPT_STRING:
                if (opt->check && (r = opt->check(text, err)) < 0)
                        return error_prefix(err, r, "--%s", opt->name);
                *FIELD(s, opt, const char *) = text;
                return 0;
        case RUNOPT_STRV:
        case RUNOPT_FLAG:
                return error_setf(err, -EINVAL, "--%s takes no single value", opt->name);
        default:
                break;
        }
        r = parse_text(opt, text, &v);
        if (r == 0)
                r = check_number(opt, v);
        if (r < 0) {
                runopt_describe(opt, what, sizeof(what));
                return error_setf(err, r, "--%s: '%s' is not %s", opt->name, text, what);
        }
        store_number(s, opt, v);
        return 0;
}

static void defaults_fill(struct run_settings *s) {
        *s = (struct run_settings){ 0 };
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (opt->def && opt->type == RUNOPT_FLAG)
                        *FIELD(s, opt, int) = strcmp(opt->def, "1") == 0;
                else if (opt->def) {
                        int r = runopt_set(s, opt, opt->def, NULL);
                        g_assert(r == 0);      /* the table's own defaults pass its checks */
                }
}

/* Computed once: the read side asks for them per stored cell. The strings
 * are the table's own, so a copy shares nothing mutable. */
void runopts_defaults(struct run_settings *s) {
        static struct run_settings cached;
        static gsize done;

        if (g_once_init_enter(&done)) {
                defaults_fill(&cached);
                g_once_init_leave(&done, 1);
        }
        *s = cached;
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
 * items name each key once (two values for one sysctl is no setting).
 * named: errors name the option ("--sysctl: ..."), as on the command line. */
static int check_items(const struct runopt *opt, char *const *v, int named, struct kb_error *err) {
        for (size_t i = 0; v && v[i]; i++) {
                int r = opt->check ? opt->check(v[i], err) : 0;
                if (r < 0)
                        return named ? error_prefix(err, r, "--%s", opt->name) : r;
                if (!opt->agent)
                        continue;
                for (size_t j = 0; j < i; j++) {
                        size_t k = strcspn(v[j], "=");
                        if (strncmp(v[i], v[j], k) == 0 && v[i][k] == '=')
                                return error_setf(err, -EINVAL, "%s%s%s%.*s is given twice", named ? "--" : "",
                                                  named ? opt->name : "", named ? ": " : "", (int)k, v[j]);
                }
        }
        return 0;
}

int runopt_set_strv(struct run_settings *s, const struct runopt *opt, char **items, struct kb_error *err) {
        int r = check_items(opt, items, 1, err);

        if (r < 0)
                return r;
        *FIELD(s, opt, char **) = items;
        return 0;
}

int runopts_apply(struct run_settings *s, char **texts, const int *flags, struct kb_error *err) {
        for (size_t i = 0; runopt_table[i].name; i++) {
                const struct runopt *opt = &runopt_table[i];
                int r;

                /* A flag given turns its setting on; one not given keeps
                 * its default. */
                if (opt->type == RUNOPT_FLAG && flags[i])
                        *FIELD(s, opt, int) = 1;
                else if (opt->type == RUNOPT_FLAG)
                        continue;
                else if (opt->type == RUNOPT_STRV) {
                        if ((r = runopt_set_strv(s, opt, (char **)(void *)texts[i], err)) < 0)
                                return r;
                }
                else if (texts[i] && (r = runopt_set(s, opt, texts[i], err)) < 0)
                        return r;
        }
        return 0;
}

/* ---- typed JSON values: stored settings, nightly's configuration -------- */

/* A JSON string with no NUL inside, as C text; NULL if v is anything else. */
static const char *plain_string(const json_t *v) {
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
                return NULL;
        return json_string_value(v);
}

/* The data is untrusted: what a message quotes of it stays one bounded line. */
static int clean_message(struct kb_error *err, int r) {
        for (char *p = err ? err->msg : NULL; p && *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
        return r;
}

const char *runopt_kind(const struct runopt *opt) {
        switch (opt->type) {
        case RUNOPT_MIB:
        case RUNOPT_SIZE:
                return "size";
        case RUNOPT_SECONDS:
                return opt->suffix ? "duration" : "seconds";
        case RUNOPT_PERCENT:
                return "percentage";
        case RUNOPT_STRING:
                return "string";
        case RUNOPT_FLAG:
                return "boolean";
        case RUNOPT_STRV:
                return "array of strings";
        default:
                return "integer";
        }
}

/* What a typed JSON value of a kind must be, for "expected ..." messages. */
static const char *json_kind(const struct runopt *opt) {
        static const struct { const char *kind, *expected; } expected[] = {
                { "size", "a size such as \"256M\"" },
                { "duration", "a duration such as \"6h\" or a number of seconds" },
                { "seconds", "a number of seconds" },
                { "percentage", "a percentage such as \"5%\" or a number" },
                { "string", "a string" },
                { "boolean", "true or false" },
                { "array of strings", "an array of strings" },
        };
        const char *kind = runopt_kind(opt);

        for (size_t i = 0; i < G_N_ELEMENTS(expected); i++)
                if (strcmp(expected[i].kind, kind) == 0)
                        return expected[i].expected;
        return "an integer";
}

/* Whether a string is a value of the row: where it can carry a unit. */
static int takes_text(const struct runopt *opt) {
        return opt->type == RUNOPT_MIB || opt->type == RUNOPT_SIZE || (is_real(opt) && opt->suffix);
}

/* A JSON number as the row's value, in the field's unit (bytes for
 * RUNOPT_MIB). Returns 0, -EINVAL (not a number the row takes) or -ERANGE. */
static int number_value(const struct runopt *opt, const json_t *v, enum runopt_ints ints, union parse_value *ret) {
        if (is_real(opt)) {
                if (!json_is_number(v))
                        return -EINVAL;
                ret->d = json_number_value(v);
                return 0;
        }
        if (!json_is_integer(v))
                return -EINVAL;
        if (json_integer_value(v) < 0)
                return -ERANGE;
        ret->u = (uint64_t)json_integer_value(v);
        if (opt->type == RUNOPT_MIB && ints == RUNOPT_INTS_IN_UNIT) {
                if (ret->u > (UINT64_MAX >> 20))
                        return -ERANGE;
                ret->u <<= 20;
        }
        return 0;
}

static const char *keep_string(GPtrArray *keep, const char *s) {
        char *copy;

        if (!keep)
                return s;
        copy = g_strdup(s);
        g_ptr_array_add(keep, copy);
        return copy;
}

static int set_strv_json(struct run_settings *s, const struct runopt *opt, const json_t *v, GPtrArray *keep,
                         struct kb_error *err) {
        char **items;
        size_t i;
        json_t *el;
        int r;

        if (!json_is_array(v) || !keep)
                return error_setf(err, -EINVAL, "expected %s", json_kind(opt));
        items = g_new0(char *, json_array_size(v) + 1);
        g_ptr_array_add(keep, items);
        json_array_foreach(v, i, el) {
                if (!plain_string(el))
                        return error_setf(err, -EINVAL, "[%zu]: expected a string", i);
                items[i] = (char *)keep_string(keep, plain_string(el));
        }
        r = check_items(opt, items, 0, err);
        if (r < 0)
                return clean_message(err, r);
        *FIELD(s, opt, char **) = items;
        return 0;
}

static int set_string_json(struct run_settings *s, const struct runopt *opt, const json_t *v, GPtrArray *keep,
                           struct kb_error *err) {
        const char *text = plain_string(v);
        int r;

        if (!text)
                return error_setf(err, -EINVAL, "expected a string");
        if (opt->check && (r = opt->check(text, err)) < 0)
                return clean_message(err, r);
        *FIELD(s, opt, const char *) = keep_string(keep, text);
        return 0;
}

int runopt_set_json(struct run_settings *s, const struct runopt *opt, const json_t *v, enum runopt_ints ints,
                    GPtrArray *keep, struct kb_error *err) {
        const char *text = plain_string(v);
        union parse_value n;
        char given[80], what[96];
        int r;

        switch (opt->type) {
        case RUNOPT_FLAG:
                if (!json_is_boolean(v))
                        return error_setf(err, -EINVAL, "expected %s", json_kind(opt));
                *FIELD(s, opt, int) = json_is_true(v);
                return 0;
        case RUNOPT_STRV:
                return set_strv_json(s, opt, v, keep, err);
        case RUNOPT_STRING:
                return set_string_json(s, opt, v, keep, err);
        default:
                break;
        }
        if (text && takes_text(opt)) {
                r = parse_text(opt, text, &n);
                snprintf(given, sizeof(given), "'%.64s'", text);
        } else {
                r = number_value(opt, v, ints, &n);
                if (json_is_integer(v))
                        snprintf(given, sizeof(given), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                else
                        snprintf(given, sizeof(given), "%g", json_number_value(v));
        }
        if (r == -EINVAL)
                return error_setf(err, r, "expected %s", json_kind(opt));
        if (r == 0)
                r = check_number(opt, n);
        if (r < 0) {
                runopt_describe(opt, what, sizeof(what));
                error_setf(err, r, "%s is not %s", given, what);
                return clean_message(err, r);
        }
        store_number(s, opt, n);
        return 0;
}

static void append_arg(GString *s, const char *arg) {
        g_autofree char *q = g_shell_quote(arg);

        g_string_append_c(s, ' ');
        /* A plain word needs no quotes: the command reads as typed. */
        g_string_append(s, strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:=/+%") ==
                                   strlen(arg) && *arg ? arg : q);
}

/* One saved option's value as " --NAME VALUE" (or " --NAME" for a flag
 * that is on, one " --NAME ITEM" per item of a repeatable one). */
static void append_option(GString *s, const struct runopt *opt, const json_t *v) {
        char num[64];
        json_t *el;
        size_t k;

        if (json_is_array(v)) {
                json_array_foreach(v, k, el)
                        if (json_is_string(el)) {
                                g_string_append_printf(s, " --%s", opt->name);
                                append_arg(s, json_string_value(el));
                        }
                return;
        }
        if (json_is_false(v))
                return;
        g_string_append_printf(s, " --%s", opt->name);
        if (json_is_true(v))
                return;
        if (json_is_string(v))
                append_arg(s, json_string_value(v));
        else if (opt->type == RUNOPT_SIZE && json_is_integer(v) && json_integer_value(v) >= 0) {
                /* A bare number is MiB on the command line: bytes get their unit. */
                parse_size_text((uint64_t)json_integer_value(v), num, sizeof(num));
                append_arg(s, num);
        } else if (json_is_integer(v)) {
                snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                append_arg(s, num);
        } else {
                snprintf(num, sizeof(num), "%.17g", json_number_value(v));
                append_arg(s, num);
        }
}

char *runopts_command(const json_t *settings, const char *kernel, const char *tag) {
        GString *s = g_string_new("kbench run -k");
        json_t *defaults = json_object(), *v;
        struct run_settings d;
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
        if (json_is_string(json_object_get(settings, RUNOPTS_ACCEL_KEY))) {
                g_string_append(s, " --accel");
                append_arg(s, json_string_value(json_object_get(settings, RUNOPTS_ACCEL_KEY)));
        }
        runopts_defaults(&d);
        runopts_save(&d, defaults);
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                if (!opt->key || opt->class != RUNOPT_MEASURED)
                        continue;
                v = json_object_get(settings, opt->key);
                if (v && !json_is_null(v) && !json_equal(v, json_object_get(defaults, opt->key)))
                        append_option(s, opt, v);
        }
        if (tag) {
                g_string_append(s, " --tag");
                append_arg(s, tag);
        }
        json_decref(defaults);
        return g_string_free(s, FALSE);
}

/* An option's value as runs save it (new reference), or NULL for a
 * repeatable option without items (not saved: see runopts_save). */
static json_t *saved_value(const struct run_settings *s, const struct runopt *opt) {
        switch (opt->type) {
        case RUNOPT_INT:
                return json_integer(*FIELD(s, opt, const int));
        case RUNOPT_UINT:
        case RUNOPT_MIB:
                return json_integer(*FIELD(s, opt, const unsigned));
        case RUNOPT_U64:
        case RUNOPT_SIZE:
                return json_integer((json_int_t)*FIELD(s, opt, const uint64_t));
        case RUNOPT_SECONDS:
        case RUNOPT_PERCENT:
                return json_real(*FIELD(s, opt, const double));
        case RUNOPT_I64:
                return json_integer((json_int_t)*FIELD(s, opt, const int64_t));
        case RUNOPT_STRING: {
                const char *v = *FIELD(s, opt, const char *const);
                return v ? json_string(v) : json_null();
        }
        case RUNOPT_FLAG:
                return json_boolean(*FIELD(s, opt, const int));
        case RUNOPT_STRV: {
                char *const *items = *FIELD(s, opt, char **const);
                g_autoptr(GPtrArray) sorted = g_ptr_array_new();
                json_t *a;

                for (size_t i = 0; items && items[i]; i++)
                        g_ptr_array_add(sorted, items[i]);
                if (sorted->len == 0)
                        return NULL;
                g_ptr_array_sort(sorted, strcmp_p);
                a = json_array();
                for (guint i = 0; i < sorted->len; i++)
                        json_array_append_new(a, json_string(sorted->pdata[i]));
                return a;
        }
        }
        return NULL;
}

/* The bytes of opt's field: what runopt_equal compares and runopt_copy
 * copies. */
static size_t field_size(const struct runopt *opt) {
        switch (opt->type) {
        case RUNOPT_INT:
        case RUNOPT_FLAG:
                return sizeof(int);
        case RUNOPT_UINT:
        case RUNOPT_MIB:
                return sizeof(unsigned);
        case RUNOPT_U64:
        case RUNOPT_SIZE:
                return sizeof(uint64_t);
        case RUNOPT_SECONDS:
        case RUNOPT_PERCENT:
                return sizeof(double);
        case RUNOPT_I64:
                return sizeof(int64_t);
        case RUNOPT_STRING:
                return sizeof(const char *);
        case RUNOPT_STRV:
                return sizeof(char **);
        }
        return 0;
}

static const char *string_or_none(const char *v) {
        return v && *v ? v : NULL;
}

int runopt_equal(const struct runopt *opt, const struct run_settings *a, const struct run_settings *b) {
        char *const *x, *const *y;
        size_t i = 0;

        if (opt->type == RUNOPT_STRING)
                return g_strcmp0(string_or_none(*FIELD(a, opt, const char *const)),
                                 string_or_none(*FIELD(b, opt, const char *const))) == 0;
        if (opt->type != RUNOPT_STRV)
                return memcmp(FIELD(a, opt, const char), FIELD(b, opt, const char), field_size(opt)) == 0;
        x = *FIELD(a, opt, char **const);
        y = *FIELD(b, opt, char **const);
        for (; x && y && x[i] && y[i]; i++)
                if (strcmp(x[i], y[i]) != 0)
                        return 0;
        return (!x || !x[i]) && (!y || !y[i]);
}

void runopt_copy(const struct runopt *opt, struct run_settings *dst, const struct run_settings *src) {
        memcpy(FIELD(dst, opt, char), FIELD(src, opt, const char), field_size(opt));
}

char *runopt_text(const struct runopt *opt, const struct run_settings *s) {
        json_t *v;
        char *text, *out;

        if (opt->type == RUNOPT_STRING)
                return g_strdup(string_or_none(*FIELD(s, opt, const char *const)) ?: "-");
        if (opt->type == RUNOPT_STRV) {
                char *const *items = *FIELD(s, opt, char **const);

                return items && items[0] ? g_strjoinv(",", (char **)items) : g_strdup("-");
        }
        v = saved_value(s, opt);
        text = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
        out = g_strdup(text ? text : "-");
        free(text);
        json_decref(v);
        return out;
}

void runopts_save(const struct run_settings *s, json_t *j) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v = opt->key ? saved_value(s, opt) : NULL;

                if (v)
                        json_object_set_new(j, opt->key, v);
        }
}

void runopts_cell_params(const struct run_settings *s, json_t *j) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v = opt->key && opt->cell ? saved_value(s, opt) : NULL;

                if (v)
                        json_object_set_new(j, opt->key, v);
        }
        json_object_set_new(j, RUNOPTS_ACCEL_KEY, s->guest.accel ? json_string(s->guest.accel) : json_null());
}

int runopts_load(struct run_settings *s, const json_t *j, GPtrArray *keep, struct kb_error *err) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v;
                int r;

                if (!opt->key || !(v = json_object_get(j, opt->key)) || json_is_null(v))
                        continue;
                r = runopt_set_json(s, opt, v, RUNOPT_INTS_IN_UNIT, keep, err);
                if (r < 0)
                        return error_prefix(err, r, "stored settings: %s", opt->key);
        }
        return 0;
}

void runopts_read(struct run_settings *s, const json_t *j) {
        runopts_defaults(s);
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                json_t *v = opt->key && opt->type != RUNOPT_STRV ? json_object_get(j, opt->key) : NULL;

                if (v)
                        (void)runopt_set_json(s, opt, v, RUNOPT_INTS_IN_UNIT, NULL, NULL);
        }
        s->guest.accel = plain_string(json_object_get(j, RUNOPTS_ACCEL_KEY));
}

void runopts_agent_lines(const struct run_settings *s, GPtrArray *lines) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                if (!opt->agent)
                        continue;
                switch (opt->type) {
                case RUNOPT_STRING: {
                        const char *v = *FIELD(s, opt, const char *const);
                        g_ptr_array_add(lines, g_strdup_printf("set %s %s", opt->agent, v ? v : ""));
                        break;
                }
                case RUNOPT_STRV: {
                        char *const *items = *FIELD(s, opt, char **const);
                        for (size_t i = 0; items && items[i]; i++) {
                                size_t k = strcspn(items[i], "=");
                                g_ptr_array_add(lines, g_strdup_printf("%s %.*s %s", opt->agent, (int)k, items[i],
                                                                       items[i][k] ? items[i] + k + 1 : ""));
                        }
                        break;
                }
                case RUNOPT_INT:
                        g_ptr_array_add(lines, g_strdup_printf("set %s %d", opt->agent, *FIELD(s, opt, const int)));
                        break;
                case RUNOPT_UINT:
                case RUNOPT_MIB:
                        g_ptr_array_add(lines, g_strdup_printf("set %s %u", opt->agent,
                                                               *FIELD(s, opt, const unsigned)));
                        break;
                case RUNOPT_U64:
                case RUNOPT_SIZE:
                        g_ptr_array_add(lines, g_strdup_printf("set %s %" G_GUINT64_FORMAT, opt->agent,
                                                               *FIELD(s, opt, const uint64_t)));
                        break;
                case RUNOPT_SECONDS:
                        if (opt->agent_scale > 0)
                                g_ptr_array_add(lines, g_strdup_printf("set %s %.0f", opt->agent,
                                                                       round(*FIELD(s, opt, const double) *
                                                                             opt->agent_scale)));
                        else
                                g_ptr_array_add(lines, g_strdup_printf("set %s %.17g", opt->agent,
                                                                       *FIELD(s, opt, const double)));
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
