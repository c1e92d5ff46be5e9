/* settings/runopts: what a run setting is, as one table. Each row names an
 * option of `kbench run`, its type, range and unit, the field of struct
 * run_settings it fills and the key it is saved under in the run's
 * settings JSON, and whether it is part of what a run measures (its
 * class). One row drives command-line parsing, the range check (through
 * parse_number), the saved settings, `--resume`, the `set` lines the guest
 * agent receives, each cell's params, nightly's configuration keys (a
 * mapping onto these rows, nightly/nightly_config.c), the read side's
 * typed view of stored settings, and what compare pairs cells by
 * (settings/pairkey.h). It sits below results/ and report/ so the read
 * side reads stored settings through it too. A new run option is one row
 * here plus its field in struct run_settings and its use. */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "settings/guest.h"

/* The settings of a run, as the option table fills them. Strings are
 * borrowed: from argv, the table's defaults or the caller's keep array. */
struct run_settings {
        char **kernels;                    /* names or id prefixes, NULL-terminated */
        char **workloads;                  /* "-w" texts, NULL-terminated */
        int repeats;
        struct guest_shape guest;          /* RAM, vCPUs, disks, filesystem, command line; guest.accel is
                                              no option: the runner resolves it from accel */
        const char *tag;                   /* may be NULL */
        const char *accel;                 /* requested: auto, kvm, tcg */
        char **sysctls;                    /* "key=value" the agent writes before the job, NULL-terminated,
                                              or NULL: none */
        const char *variant;               /* label of a variant of the kernels (a nightly source's name),
                                              shown before their names; NULL: none */
        double cell_timeout_s;
        double hang_timeout_s;             /* longest silence on ttyS1 while the job runs */
        double vmstat_interval_s;          /* the agent's vmstat sampling interval, seconds */
        int retries;                       /* extra attempts after an infra error (or contention) */
        int slots;                         /* cells each host runs at once (--connect given) */
        double max_contention_pct;         /* > 0: re-run cells whose host had more foreign CPU, %; 0 never */
        int warm;                          /* restore cells from snapshots (cell/warm.h) */
        int cold;                          /* boot every cell fresh, whatever else says */
        int no_profile;                    /* no profile of the kernel's instructions by function
                                              (cell/cellprof.h); under TCG every cell has one */
        int json;
        int all;                           /* end with the full run table, not the judged summary */
        int64_t resume_run;                /* > 0: continue this run */
        double until_mde_pct;              /* > 0: add rounds until every judged metric's MDE is at most
                                              this, % (decide/seqrule.h); repeats is then the pilot */
        int budget_cells;                  /* with until_mde_pct: cells in all, at most; 0: no such cap */
        double budget_time_s;              /* with until_mde_pct: no round starts later than this after
                                              the run (or its resumption) began, seconds; 0: none */
};

enum runopt_type {
        RUNOPT_INT,                        /* int field, decimal */
        RUNOPT_UINT,                       /* unsigned field, decimal */
        RUNOPT_MIB,                        /* unsigned field in MiB; bare numbers are MiB, units allowed */
        RUNOPT_U64,                        /* uint64_t field, decimal */
        RUNOPT_SIZE,                       /* uint64_t field in bytes, units allowed */
        RUNOPT_SECONDS,                    /* double field, finite */
        RUNOPT_PERCENT,                    /* double field, finite, percent */
        RUNOPT_I64,                        /* int64_t field, decimal */
        RUNOPT_STRING,                     /* const char * field */
        RUNOPT_STRV,                       /* char ** field, repeatable */
        RUNOPT_FLAG,                       /* int field, no argument; def "1": on by default */
};

/* Whether a setting is part of what a run measures. Two runs whose
 * MEASURED settings agree measured the same thing and are compared, paired
 * and counted as "measured already" together; HOW settings only say how
 * kbench went about it (retries, timeouts, warm or cold start). Every row
 * says which: 0 is no answer, and test-runopts.c refuses it. */
enum runopt_class {
        RUNOPT_UNCLASSIFIED = 0,
        RUNOPT_MEASURED,
        RUNOPT_HOW,
};

struct runopt {
        const char *name;                  /* long option, without "--" */
        char short_name;                   /* 0: none */
        enum runopt_type type;
        size_t offset;                     /* of the field in struct run_settings */
        double min, max;                   /* inclusive; in the field's unit (MiB for RUNOPT_MIB) */
        const char *def;                   /* default as the user would type it; NULL: none */
        const char *key;                   /* settings JSON key; NULL: not saved, not resumed */
        int zero_ok;                       /* 0 is allowed below min ("--swap 0": none) */
        const char *agent;                 /* sent to the guest agent as "set <agent> <value>"; NULL: not */
        double agent_scale;                /* RUNOPT_SECONDS: sent times this, as a whole number
                                              (1000: milliseconds); 0: as it is */
        /* Extra check of a string value; returns 0 or -EINVAL with err. */
        int (*check)(const char *value, struct kb_error *err);
        int suffix;                        /* 1: RUNOPT_PERCENT takes a trailing '%' ("5%"), RUNOPT_SECONDS
                                              a unit s, m, h or d ("30m") */
        const char *unit;                  /* what a bare number means ("MiB", "bytes", "MB/s"), named
                                              in help; every size and rate row has one (test-runopts) */
        const char *help;
        const char *arg;                   /* metavariable in --help */
        enum runopt_class class;
        int cell;                          /* 1: also in every cell's params (runopts_cell_params) */
        int added_later;                   /* runs stored before the option existed saved no key and ran
                                              with its default: the default pairs with them (pairkey) */
        int apart;                         /* MEASURED, and cells that differ in it are never paired
                                              across it unasked (--ignore-setting KEY pairs them) */
};

/* A key the runner records in a run's settings (or a cell's params)
 * beside the options' own. */
struct runopt_extra_key {
        const char *key;
        enum runopt_class class;
        int apart;                         /* MEASURED, and cells that differ in it are never paired
                                              across it unasked (a workload's parameters) */
        int never_across;                  /* apart, and not on request either (--ignore-setting) */
};

/* The keys the runner records besides the table's (kernels, accel, ...),
 * terminated by a NULL key. */
extern const struct runopt_extra_key runopt_extra_keys[];

/* The settings key under which a run lists the keys of its settings (and
 * of its cells' params) that are HOW: the pairing key drops them. */
#define RUNOPTS_HOW_KEYS "how_keys"
/* The key of the accelerator a run's cells ran with (guest.accel): in the
 * run's settings and in each cell's params. */
#define RUNOPTS_ACCEL_KEY "accel"
/* The key of the host a cell ran on, in its params when the run named its
 * hosts (--connect): cells of two hosts are never compared. */
#define RUNOPTS_HOST_KEY "host"
/* The run's hosts, in its settings: [{"name", "uri", "slots"}]. */
#define RUNOPTS_HOSTS_KEY "hosts"
#define RUNOPTS_TAG_MAX 256       /* bytes of a --tag */

/* The settings key under which an --until-mde run records why it stopped:
 * {"answer": "enough"|"budget"|"time", "rounds": N, "cells": N, ...}
 * (run/runner_store.c writes it, `kbench show` prints it). */
#define RUNOPTS_UNTIL_MDE_OUTCOME "until_mde_outcome"

/* The table, terminated by a row with name == NULL. */
extern const struct runopt runopt_table[];

/* The kbench run command that measures kernels (NULL-terminated, at
 * least one) as a stored run did, interleaved in one run: "kbench run -k
 * KERNEL... -w SPEC... -n N --accel ACCEL" and every MEASURED option whose
 * saved value in settings differs from its default, each argument
 * shell-quoted, then " --tag TAG" when tag is not NULL. A kernel is its
 * name in the kernel store (a variant's label is its --variant). Caller
 * g_frees. */
char *runopts_command(const json_t *settings, const char *const *kernels, const char *tag);

/* A JSON array of every HOW key, of the table and of runopt_extra_keys,
 * and RUNOPTS_HOW_KEYS itself (new reference). */
json_t *runopts_how_keys(void);

/* The class of a settings key: its row's, its extra key's, or
 * RUNOPT_UNCLASSIFIED for a key kbench does not record. */
enum runopt_class runopts_key_class(const char *key);

/* Whether a key is a row or an extra key marked apart: cells that differ
 * in it are never paired across it unasked. */
int runopts_key_apart(const char *key);

/* Whether cells that differ in key are never compared, whatever is asked
 * (--ignore-setting KEY is refused): the host they ran on. */
int runopts_key_never_across(const char *key);

/* Check "key=value" as a --sysctl argument (proto_sysctl_check). Returns 0
 * or -EINVAL with err ("'vm dirty=1' is not KEY=VALUE: not a sysctl name"). */
int runopts_check_sysctl(const char *kv, struct kb_error *err);

/* Fill s with every option's default. */
void runopts_defaults(struct run_settings *s);

/* Set the option opt from text (range checked). Returns 0, or -EINVAL /
 * -ERANGE with err naming the option ("--timeout: 'inf' is not a number
 * of seconds in 10..604800"). s keeps a pointer to text for string
 * options: text must outlive s. */
int runopt_set(struct run_settings *s, const struct runopt *opt, const char *text, struct kb_error *err);

/* How a JSON integer given for a size row reads. */
enum runopt_ints {
        RUNOPT_INTS_IN_UNIT,               /* in the row's unit: MiB for RUNOPT_MIB (stored settings) */
        RUNOPT_INTS_BYTES,                 /* bytes, for RUNOPT_MIB too (nightly's configuration) */
};

/* Set opt from a typed JSON value, through the same checks as
 * runopt_set: a string as the option's text (a size or duration with its
 * unit), a number for a numeric row (an integer for a whole-number row,
 * read as ints says for a size row), a boolean for a flag, an array of
 * strings for a repeatable option. Strings are copied into keep (which
 * s then points into). Returns 0, or -EINVAL / -ERANGE with err saying
 * what is wrong without naming the option ("expected an integer", "'64M'
 * is not a size in 128..65536 MiB"): the caller names where the value came
 * from. */
int runopt_set_json(struct run_settings *s, const struct runopt *opt, const json_t *v, enum runopt_ints ints,
                    GPtrArray *keep, struct kb_error *err);

/* Set the repeatable opt to items (NULL-terminated; s points to it): each
 * passes the row's check, and "key=value" items name each key once.
 * Returns 0 or -EINVAL with err naming the option. */
int runopt_set_strv(struct run_settings *s, const struct runopt *opt, char **items, struct kb_error *err);

/* Whether opt's field holds the same value in a and b: numbers alike,
 * strings alike (an empty one is none), repeatable options item by item in
 * order (none and an empty list alike). */
int runopt_equal(const struct runopt *opt, const struct run_settings *a, const struct run_settings *b);

/* Copy opt's field from src into dst; strings stay borrowed from where src
 * borrowed them. */
void runopt_copy(const struct runopt *opt, struct run_settings *dst, const struct run_settings *src);

/* opt's value in s as one word for a listing: a number as runs save it, a
 * string as it is, a repeatable option's items joined by ',', "-" for
 * none. Caller g_frees. */
char *runopt_text(const struct runopt *opt, const struct run_settings *s);

/* The option called name, or NULL. */
const struct runopt *runopt_find(const char *name);

/* The row saved under key, or NULL. */
const struct runopt *runopt_find_key(const char *key);

/* What a value of the row is called where a file names it (nightly's key
 * reference): "size", "duration" (seconds, or with a unit s, m, h, d),
 * "seconds", "percentage", "integer", "string", "boolean" or "array of
 * strings". */
const char *runopt_kind(const struct runopt *opt);

/* What the option's values are, as error messages say it: "a size in
 * 128..65536 MiB", "a number of seconds in 10..604800". */
void runopt_describe(const struct runopt *opt, char *buf, size_t size);

/* GOption entries for the table, writing each option's text into texts[i]
 * (char * or, for RUNOPT_STRV, char **; RUNOPT_FLAG writes an int into
 * flags[i]). Caller g_frees the array; texts are freed by the caller. */
GOptionEntry *runopts_entries(char **texts, int *flags);

/* Free what GOption wrote into texts (one entry per table row). */
void runopts_texts_free(char **texts);

/* After GOption parsing: apply every given text (texts[i], flags[i]) to s.
 * Returns 0 or the first option's error. */
int runopts_apply(struct run_settings *s, char **texts, const int *flags, struct kb_error *err);

/* Add every saved option of s to the settings object j (a repeatable
 * option as a sorted array, omitted when empty, so that the order of
 * --sysctl does not split runs apart). */
void runopts_save(const struct run_settings *s, json_t *j);

/* Add to a cell's params object j the saved value of every row marked
 * cell, in table order, then the accelerator (guest.accel). */
void runopts_cell_params(const struct run_settings *s, json_t *j);

/* Fill s's saved options from stored settings j: a missing key keeps the
 * default (older runs saved fewer keys); a present one must pass the same
 * checks as on the command line. keep receives the strings s points to
 * (caller frees with g_ptr_array_unref after s is done). Returns 0 or
 * -EINVAL with err naming the key. */
int runopts_load(struct run_settings *s, const json_t *j, GPtrArray *keep, struct kb_error *err);

/* The read side's view of stored settings (or a cell's params over them;
 * j may be NULL): every option's default, then each saved one whose value
 * passes its checks, and guest.accel from RUNOPTS_ACCEL_KEY (NULL when
 * absent). The data is untrusted and old: a key that is missing, of
 * another type or out of range keeps the default, silently. Repeatable
 * options are left NULL. Strings point into j: s is valid while j lives. */
void runopts_read(struct run_settings *s, const json_t *j);

/* The "set NAME VALUE" lines (without newline) of every option the agent
 * takes, in table order, appended to lines (g_free each); a repeatable
 * option of "key=value" items is one "<agent> key value" line per item
 * ("sysctl vm.dirty_ratio 7"). */
void runopts_agent_lines(const struct run_settings *s, GPtrArray *lines);
