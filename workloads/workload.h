/* workloads/: what runs in the guest and how its output becomes metrics.
 * Each workload registers one struct workload_ops (fio's ioengine_ops): its
 * keys with defaults, the guest binaries it needs, the job script it hands
 * the agent, a pure parser from the job's output lines to metrics, and
 * optionally a host-side phase (the FTP upload). The harness knows nothing
 * workload-specific; adding a workload is one file plus a line in registry.c. */
#pragma once

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "common/error.h"

/* ---- metrics ---------------------------------------------------------- */

struct metric {
        char *name;                /* "dd.write_MBps" (owned) */
        double value;              /* valid when has_value */
        int has_value;             /* 0: measured, but no number (e.g. "+++++") */
        char *unit;                /* "MB/s" (owned) */
        char *note;                /* why no value, or NULL (owned) */
};

struct metric_list {
        struct metric *v;
        size_t n, cap;
};

/* Append a metric (strings copied). Returns 0 or -ENOMEM. */
int metric_add(struct metric_list *l, const char *name, double value, const char *unit);
/* Append a metric that has no number, with the reason. */
int metric_add_none(struct metric_list *l, const char *name, const char *unit, const char *note);
/* Append amount / seconds / scale (bytes, seconds, 1e6: MB/s); a time of 0
 * (a phase too short for its clock) gives a metric without a value, noted
 * "too fast to measure", never an infinity. Returns 0 or -ENOMEM. */
int metric_add_rate(struct metric_list *l, const char *name, double amount, double seconds, double scale,
                    const char *unit);
/* The metric named name, or NULL. */
const struct metric *metric_find(const struct metric_list *l, const char *name);
/* Free all entries; the list is empty and reusable afterwards. */
void metric_list_clear(struct metric_list *l);

/* ---- keys and specs --------------------------------------------------- */

/* One row per key (fio's fio_option): its type, where the parsed value goes
 * in the workload's params struct (offsetof), its default, the unit a bare
 * number means and its range. workload_spec_parse() fills a zeroed params
 * struct of ops->params_size bytes from these rows, so a workload reads
 * typed fields, never strings by name. */
enum workload_key_type {
        WKEY_SIZE,                 /* uint64_t bytes: "512M", or a bare number in .unit */
        WKEY_COUNT,                /* uint64_t: a plain number, no suffix */
        WKEY_BOOL,                 /* int 0/1: yes/no, on/off, 1/0, true/false */
        WKEY_LIST,                 /* struct workload_list: counts joined by '/', "1/2/4/8" */
        WKEY_ENUM,                 /* int: index of the value in .choices */
        WKEY_TEXT,                 /* char[WORKLOAD_TEXT_MAX]: printable ASCII without ','
                                      (fio's job: a preset's name or a job file's path) */
};

#define WORKLOAD_LIST_MAX 64       /* entries of a '/' list */
#define WORKLOAD_TEXT_MAX 256      /* bytes of a WKEY_TEXT field, its NUL included */

struct workload_list {
        size_t n;
        uint64_t v[WORKLOAD_LIST_MAX];
};

struct workload_key {
        const char *name;
        enum workload_key_type type;
        size_t off;                /* offsetof the value in the workload's params struct */
        const char *def;           /* default as text; "" = computed by the workload, which
                                      then finds 0 in the field (so min must be >= 1) */
        uint64_t unit;             /* WKEY_SIZE: bytes a bare number means (1, 1 << 20) */
        uint64_t min, max;         /* the value's range (bytes for a size, each entry of a
                                      list); max 0 = no upper bound */
        const char *const *choices;/* WKEY_ENUM: the values, NULL-terminated */
        const char *help;          /* one line for --help; names the unit of a size */
};

/* A parsed "-w NAME[:k=v,...]": the workload's params struct, every key
 * filled (the given value or the default), already checked against its row. */
struct workload_spec {
        const struct workload_ops *ops;
        void *params;              /* ops->params_size bytes (owned) */
        char *text;                /* canonical "name:k=v,..." of all keys, which parses to
                                      the same params (owned) */
};

/* The guest the job runs in, and host ports forwarded to it. */
struct workload_env {
        uint64_t mem_bytes;        /* guest RAM */
        int cpus;
        uint64_t disk_bytes;       /* size of the disk under test */
        const char *mnt;           /* where the disk under test is mounted, "/mnt/test" */
        uint16_t ports[8];         /* host port i forwards to ops->guest_ports[i] in the
                                      guest, or to the same port when that is 0 */
        int nports;
        uint64_t seed;             /* per-cell seed for generated data */
};

/* What the job printed: stdout lines in order (from "out" records; the job's
 * stderr arrives as "err" records and is appended here too, in arrival
 * order, so `2>&1` is not needed), and the events the job wrote to fd 3
 * (`echo phase write >&3`). Lines are NUL-terminated, untrusted. */
struct workload_output {
        size_t n_lines;
        const char *const *lines;
        size_t n_events;
        const char *const *events;     /* what the job wrote to fd 3, one per line */
        const double *event_t;         /* guest monotonic seconds of each event */
};

/* Context for a host-side phase, called by the harness on its own thread
 * when the agent reports the event "host-start". */
struct workload_host {
        const struct workload_spec *spec;
        const struct workload_env *env;
        double (*now)(void *userdata);                    /* seconds since QEMU start */
        int (*say)(void *userdata, const char *line);     /* send "say <line>" to the agent */
        int (*point)(void *userdata, const char *kind, double t, double value); /* timeline */
        volatile int *cancel;                             /* set by the harness to abort */
        void *userdata;
        struct metric_list *metrics;                      /* host-measured metrics go here */
};

struct metric_def {
        const char *pattern;       /* fnmatch pattern over metric names, "dd.*_MBps" */
        const char *unit;
        int higher_is_better;      /* 1, 0 (lower is better), -1 (neither) */
        /* Set when the metric restates another one (dd.write_s is the same
         * measurement as dd.write_MBps): why it is shown but never judged,
         * so one change does not get two votes in a comparison. NULL: judged
         * when it has a direction. */
        const char *restates;
};

/* Phases of a job whose vmstat figures are kept on their own. */
struct workload_phase {
        const char *pattern;               /* fnmatch pattern over phase names */
        int writes;                        /* 1: writeout stalls mean something here; 0: the phase
                                              writes nothing by design (a read), so bo = 0 is no
                                              stall and no vmstat.<phase>.stall_* is stored */
};

/* What the guest's totals of a phase (guest.<phase>.*: its kernel
 * instructions, waiting, what reached the disk) measure, and so which of
 * them carry a verdict (report/metrics.c, docs/detection.md). */
enum workload_phase_kind {
        WORKLOAD_PHASE_WORK = 0,           /* a fixed amount of work (dd's write): its totals are judged */
        WORKLOAD_PHASE_TIMED,              /* a fixed time (fio's --time_based, dbench -t): its totals are
                                              the host's speed times the work per operation, so the
                                              figures per operation are judged instead */
        WORKLOAD_PHASE_STEP,               /* kbench's own step between the workload's phases (sync, drop
                                              caches, laying a file out): what it does follows what the
                                              phases before it left behind; shown, never judged */
};

/* A phase that is not one of fixed work. */
struct workload_phase_kind_row {
        const char *pattern;               /* fnmatch pattern over phase names */
        enum workload_phase_kind kind;
};

struct workload_ops {
        const char *name;
        const char *summary;                     /* one line for --help */
        const struct workload_key *keys;         /* terminated by { NULL } */
        size_t params_size;                      /* sizeof the struct the keys fill */
        const char *const *guest_binaries;       /* host paths copied with their shared
                                                    libraries to the same path; NULL-terminated */
        const char *const *guest_files;          /* "kbench:tiotest" = a kbench-built helper
                                                    installed as /bin/tiotest; an absolute path =
                                                    a host data file copied to the same path
                                                    (dbench's load file); NULL-terminated */
        const char *const *guest_modules;        /* kernel modules beyond the base set */
        const char *const *packages;             /* the Debian packages guest_binaries and
                                                    guest data come from, NULL-terminated
                                                    (tools/setup.sh installs them) */
        int n_ports;                             /* host forwards needed (0: no network) */
        uint16_t guest_ports[8];                 /* guest port of forward i; 0: the same port as
                                                    on the host (passive FTP needs that) */
        /* Optional: what a key names outside the spec (fio's job file),
         * checked when the spec is parsed, so that kbench run, bisect and
         * nightly refuse it alike, before any store or guest. A file is
         * read through fileio_read (a regular file, opened without
         * waiting, its size checked before a byte is read). Returns 0 or
         * -errno with err naming the key. */
        int (*check)(const void *params, struct kb_error *err);
        /* The job as a busybox sh script. OUT: *ret_script (caller frees).
         * Errors (bad combinations of keys) name the key. */
        int (*script)(const struct workload_spec *spec, const struct workload_env *env,
                      char **ret_script, struct kb_error *err);
        /* Optional: fill the keys whose default the guest decides (a size
         * of twice its RAM) into params, as the script would resolve them,
         * so the canonical text names the value used (workload_spec_resolve).
         * Leaves a key 0 when env does not decide it (mem_bytes 0). */
        void (*resolve)(void *params, const struct workload_env *env);
        /* Pure: the job's output -> metrics appended to *metrics. A line that
         * does not parse is an error quoting it (the cell becomes
         * workload-failure). */
        int (*parse)(const struct workload_spec *spec, const struct workload_output *out,
                     struct metric_list *metrics, struct kb_error *err);
        /* Optional host-driven phase (FTP upload). Returns 0 or -errno with err. */
        int (*host)(struct workload_host *host, struct kb_error *err);
        const struct metric_def *metrics;        /* terminated by { NULL } */
        /* Optional: the timeline series (host->point kind) whose time span is
         * the window the cell's vmstat.* metrics describe, e.g. "ftp.bytes":
         * the stall report then covers the upload, not the boot before it.
         * NULL: the whole capture. */
        const char *vmstat_window;
        /* Optional: the phase name that window gets ("upload"). */
        const char *vmstat_window_phase;
        /* Optional, terminated by { NULL }: the phases (see
         * vmstat_phases_from_events() in workloads/vmstat_metrics.h, plus the
         * window above) whose vmstat figures are stored on their own, as
         * vmstat.<phase>.<metric>. */
        const struct workload_phase *vmstat_phases;
        /* Optional: the phase whose figures are the cell's plain vmstat.*
         * (where writeback matters: dd's write, ftp's upload). NULL, or a
         * job that never marked it: the whole capture. */
        const char *vmstat_main;
        /* Optional, terminated by { NULL }: the job's phases that are timed
         * or kbench's steps (enum workload_phase_kind); any other phase is
         * one of fixed work. A phase name means one kind in every workload
         * (workload_phase_kind() looks them up by name alone). */
        const struct workload_phase_kind_row *phase_kinds;
        /* For timed phases: the operations the job did in phase, from its
         * parsed metrics (fio's I/Os of that job, dbench's operations); NAN
         * when they are unknown. Pure. */
        double (*phase_ops)(const struct metric_list *metrics, const char *phase);
        /* Optional: print one cell's metrics in the workload's classic layout
         * (tiobench's four sections) for `kbench show`. */
        void (*print)(const struct metric_list *metrics, FILE *out);
};

/* ---- the stall and halt rules ------------------------------------------
 * What a cell's vmstat.stall_* and ftp.halt_* metrics count, as small pure
 * functions over plain values, so the site's charts (web/charts.c, which
 * may include only this header of workloads/) shade exactly those runs
 * instead of restating the rules. Defined in vmstat.c and ftp.c. */

#define VMSTAT_BO_THRESHOLD 100.0     /* default stall threshold, blocks/s */
#define VMSTAT_INTERVAL 1.0           /* default sampling interval, seconds */
#define VMSTAT_INTERVAL_MIN 0.001     /* kbench vmstat --interval range, seconds */
#define VMSTAT_INTERVAL_MAX 86400.0
#define FTP_HALT_MIN_S 1.0            /* "intervals >= 1 s with no bytes accepted" */

/* 1 if a sample counts in the vmstat figures of the window [t_from, t_to]
 * (NAN: open): not the since-boot row (first), and t inside the window. */
int vmstat_sample_counted(int first, double t, double t_from, double t_to);

/* The writeout stall rule: a stall run is a maximal run of consecutive
 * counted samples of one capture whose bo <= threshold. Zero the scan,
 * then feed it every counted sample that has a bo value, in order, and
 * once more with end = 1. */
struct vmstat_stall_scan {
        size_t len;                /* samples in the open run; 0: none open */
        size_t first, last;        /* indexes of its first and last sample */
        unsigned capture;          /* capture of the previous sample fed */
};
struct vmstat_stall_run {
        size_t first, last;        /* indexes of its first and last sample, as fed */
        size_t len;                /* samples in it */
};
/* Feed sample i (bo in blocks/s, its capture), or end the scan (end = 1;
 * the other arguments unused). Returns 1 when this closes a run, written
 * to *ret_run, else 0. */
int vmstat_stall_feed(struct vmstat_stall_scan *s, int end, size_t i, double bo, unsigned capture, double threshold,
                      struct vmstat_stall_run *ret_run);

/* The rows a phase's vmstat figures count: a row arriving at t describes
 * the interval before it, so the rows counted are those whose interval
 * lies at least half inside the phase [from, to]: from + interval/2 <= t
 * <= to + interval/2 (an open end, NAN, stays open). OUT: *ret_from,
 * *ret_to: the window for vmstat_sample_counted(). */
void vmstat_phase_window(double from, double to, double interval, double *ret_from, double *ret_to);

/* One sample as the stall rule sees it. */
struct vmstat_stall_sample {
        double t;                  /* s on the window's clock; NAN: unknown */
        double bo;                 /* blocks/s; NAN: no value (the sample is skipped) */
        int first;                 /* the since-boot row (never counted) */
        unsigned capture;          /* runs never span two captures */
};
/* A stall run with its length in time. */
struct vmstat_stall_span {
        size_t first, last;        /* indexes into the samples given */
        size_t len;                /* samples in the run */
        double seconds;            /* len x interval: what vmstat.stall_longest_s and _total_s add up */
};
/* The writeout stall runs behind a cell's vmstat.stall_* metrics: the
 * samples counted in [t_from, t_to] (vmstat_sample_counted) that have a bo
 * value, scanned by vmstat_stall_feed(). The metrics (vmstat_stalls()) and
 * the site's shading (web/charts.c) both call this, so they cannot
 * disagree. OUT: *ret_spans (caller free()s; NULL when none), *ret_n.
 * Returns 0, -EINVAL (threshold or interval not finite, interval <= 0),
 * -ENOMEM. */
int vmstat_stall_spans(const struct vmstat_stall_sample *s, size_t n, double threshold, double interval,
                       double t_from, double t_to, struct vmstat_stall_span **ret_spans, size_t *ret_n);

/* The halt rule over a transfer timeline (t[i] seconds, bytes[i] accepted
 * so far, both non-decreasing; ftp_halts() checks that): a halt is a run of
 * samples with one byte count that begins with an increase and ends before
 * one, lasting t[last] - t[first] >= min_s. Start with *pos = 0; each call
 * returns 1 with the next halt's first and last sample, or 0 when there is
 * none left. */
int ftp_halt_next(const double *t, const double *bytes, size_t n, double min_s, size_t *pos,
                  size_t *ret_first, size_t *ret_last);

/* ---- phases of fixed time and kbench's steps (workload.c) ---------------- */

/* The kind a phase name has in the workloads' phase_kinds rows (the first
 * that matches), WORKLOAD_PHASE_WORK when none names it. */
enum workload_phase_kind workload_phase_kind(const char *phase);

/* For each timed phase of ops (phase_kinds, phase_ops) whose operations
 * are known, the guest's figures per operation, from its totals in
 * metrics: guest.<phase>.kernel_insn_per_op (from kernel_Minsn),
 * wait_us_per_op, spin_us_per_op, sleep_us_per_op, disk_written_KiB_per_op,
 * disk_writes_per_op, disk_flushes_per_kop, allocstalls_per_kop and
 * pgscan_per_op, each where its total is there with a value. Appended to
 * metrics. Returns 0 or -ENOMEM. */
int workload_per_op_metrics(const struct workload_ops *ops, struct metric_list *metrics);

/* ---- registry (registry.c) -------------------------------------------- */

/* All workloads, NULL-terminated, in --help order. Each is defined in its
 * own file as <name>_ops and reached through this table; a test of one
 * workload declares that one symbol itself. */
extern const struct workload_ops *const workload_all[];
/* The workload named name, or NULL. */
const struct workload_ops *workload_find(const char *name);
/* "dd, tiobench, ..." for messages, cut to fit size (>= 1). */
void workload_names(char *buf, size_t size);

/* Parse "-w NAME[:key=value[,key=value...]]" (list values use '/'), and
 * check what its keys name (ops->check: a job file).
 * OUT: *ret (free with workload_spec_free). Errors name the key and value:
 * "workload dd: unknown key 'sz' (keys: size, bs)". */
int workload_spec_parse(const char *text, struct workload_spec **ret, struct kb_error *err);
/* Spell out in s the defaults the guest env decides (ops->resolve) and
 * remake s->text, so "dd" run in 256 MiB reads "dd:size=512M,bs=1M", not
 * "dd:size=,bs=1M". Keys left computed (ftp's per-cell seed) stay "".
 * Returns 0 or -ENOMEM/-ENOSPC; s is unchanged on error. */
int workload_spec_resolve(struct workload_spec *s, const struct workload_env *env);
struct workload_spec *workload_spec_free(struct workload_spec *s);

/* The unit a bare number of key k means, for help and messages: "bytes",
 * "KiB", "MiB", "GiB"; NULL for keys that are not sizes. */
const char *workload_key_unit(const struct workload_key *k);

/* Parse value for key k of ops into params (a params struct of ops), with
 * the checks workload_spec_parse() makes. "" stores 0 where the default is
 * computed. Returns 0 or -EINVAL with err naming the workload, key and
 * value. */
int workload_key_parse(const struct workload_ops *ops, const struct workload_key *k, const char *value,
                       void *params, struct kb_error *err);
/* The canonical text of key k's value in params ("" for a computed default
 * left at 0): sizes with a suffix, so the text never depends on the unit.
 * Returns the length or -ENOSPC. */
int workload_key_format(const struct workload_key *k, const void *params, char *buf, size_t size);

/* Copy an untrusted output line into buf for an error message: at most 200
 * characters, bytes outside printable ASCII shown as '?', "..." appended
 * when cut. Returns buf. size must be >= 204. (workload.c) */
char *workload_quote(const char *line, char *buf, size_t size);

/* The guest time of the job's one event name ("phase copy", what it wrote
 * to fd 3), for a parser that times phases by their marks. Returns 0, or
 * -EINVAL with err "<who>: ..." when the event is missing, repeated or has
 * no finite time. OUT: *ret_t, seconds. (workload.c) */
int workload_event_time(const struct workload_output *out, const char *name, const char *who, double *ret_t,
                        struct kb_error *err);

/* Unit and direction of a metric from the registry of the workload that
 * produced it (matched by prefix before the first '.'); NULL if unknown. */
const struct metric_def *workload_metric_def(const char *metric_name);
