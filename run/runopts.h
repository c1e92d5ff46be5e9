/* run/runopts: the options of `kbench run` as one table. Each row names
 * the option, its type and range, the runner_opts field it fills and the
 * key it is saved under in the run's settings JSON, so that one row drives
 * command-line parsing, the range check (through parse_number), the saved
 * settings, `--resume` and the `set` lines the guest agent receives alike,
 * and declares whether the option is part of what a run measures (its
 * class), which is what compare pairs cells by and what nightly's "measured
 * already" fingerprint covers. A new run option is one row here plus its
 * field in struct runner_opts. */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stddef.h>

#include "common/error.h"
#include "run/runner.h"

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

/* Whether an option is part of what a run measures. Two runs whose
 * MEASURED settings agree measured the same thing and are compared, paired
 * and counted as "measured already" together; HOW options only say how
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
        size_t offset;                     /* of the field in struct runner_opts */
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
};

/* A key the runner saves in a run's settings beside the options' own. */
struct runopt_extra_key {
        const char *key;
        enum runopt_class class;
};

/* The keys the runner saves besides the table's (kernels, accel, ...),
 * terminated by a NULL key. */
extern const struct runopt_extra_key runopt_extra_keys[];

/* The settings key under which a run lists the keys of its settings (and
 * of its cells' params) that are HOW: compare_pairing_key drops them. */
#define RUNOPTS_HOW_KEYS "how_keys"
#define RUNOPTS_TAG_MAX 256       /* bytes of a --tag */

/* The settings key under which an --until-mde run records why it stopped:
 * {"answer": "enough"|"budget"|"time", "rounds": N, "cells": N, ...}
 * (run/runner.c writes it, `kbench show` prints it). */
#define RUNOPTS_UNTIL_MDE_OUTCOME "until_mde_outcome"

/* The kbench run command that measures kernel as a stored run did:
 * "kbench run -k KERNEL -w SPEC... -n N --accel ACCEL" and every MEASURED
 * option whose saved value in settings differs from its default, each
 * argument shell-quoted, then " --tag TAG" when tag is not NULL. kernel is
 * the name in the kernel store (a variant's label is its --variant). Caller
 * g_frees. */
char *runopts_command(const json_t *settings, const char *kernel, const char *tag);

/* A JSON array of every HOW key, of the table and of runopt_extra_keys,
 * and RUNOPTS_HOW_KEYS itself (new reference). */
json_t *runopts_how_keys(void);

/* Check "key=value" as a --sysctl argument (proto_sysctl_check). Returns 0
 * or -EINVAL with err ("'vm dirty=1' is not KEY=VALUE: not a sysctl name"). */
int runopts_check_sysctl(const char *kv, struct kb_error *err);

/* The table, terminated by a row with name == NULL. */
extern const struct runopt runopt_table[];

/* Fill o with every option's default. */
void runopts_defaults(struct runner_opts *o);

/* Set the option opt from text (range checked). Returns 0, or -EINVAL /
 * -ERANGE with err naming the option ("--timeout: 'inf' is not a number
 * of seconds in 10..604800"). o keeps a pointer to text for string
 * options: text must outlive o. */
int runopt_set(struct runner_opts *o, const struct runopt *opt, const char *text, struct kb_error *err);

/* The option called name, or NULL. */
const struct runopt *runopt_find(const char *name);

/* GOption entries for the table, writing each option's text into texts[i]
 * (char * or, for RUNOPT_STRV, char **; RUNOPT_FLAG writes an int into
 * flags[i]). Caller g_frees the array; texts are freed by the caller. */
GOptionEntry *runopts_entries(char **texts, int *flags);

/* Free what GOption wrote into texts (one entry per table row). */
void runopts_texts_free(char **texts);

/* After GOption parsing: apply every given text (texts[i], flags[i]) to o.
 * Returns 0 or the first option's error. */
int runopts_apply(struct runner_opts *o, char **texts, const int *flags, struct kb_error *err);

/* Add every saved option of o to the settings object j (a repeatable
 * option as a sorted array, omitted when empty, so that the order of
 * --sysctl does not split runs apart). */
void runopts_save(const struct runner_opts *o, json_t *j);

/* Fill o's saved options from stored settings j: a missing key keeps the
 * default (older runs saved fewer keys); a present one must pass the same
 * checks as on the command line. keep receives the strings o points to
 * (caller frees with g_ptr_array_unref after o is done). Returns 0 or
 * -EINVAL with err naming the key. */
int runopts_load(struct runner_opts *o, const json_t *j, GPtrArray *keep, struct kb_error *err);

/* The "set NAME VALUE" lines (without newline) of every option the agent
 * takes, in table order, appended to lines (g_free each); a repeatable
 * option of "key=value" items is one "<agent> key value" line per item
 * ("sysctl vm.dirty_ratio 7"). */
void runopts_agent_lines(const struct runner_opts *o, GPtrArray *lines);
