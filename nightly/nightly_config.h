/* nightly/nightly_config: the configuration of `kbench nightly`, a JSON file
 * read with jansson into one typed struct. Every key is one row of a single
 * table (path, type, offset, required, range, default, help), so parsing,
 * range checks, defaults and the key reference in docs/nightly.md come from
 * the same place (fio's fio_option, systemd's ConfigTableItem). The keys
 * that are run settings (repeats, until_mde and its budgets, vm.*, a
 * source's overrides) are rows that name their `kbench run` option and
 * nothing else: their type, range and checks are the option table's
 * (settings/runopts.h), so a night cannot hold a setting that the run, or
 * its --resume, would refuse; the judging keys (alpha, noise,
 * bisect.max_rounds) are rows of the judging options' table
 * (decide/judgeopts.h), so their ranges are compare's and bisect's, and
 * the parse ends with that table's check across fields. The file is
 * written by hand and read unattended every night, so it is strict: an
 * unknown key, a wrong type or a value out of range is one error naming the
 * key's path ("sources[1].url: expected a string"), never a silent default. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

#include "common/error.h"
#include "decide/judgeopts.h"
#include "settings/runopts.h"

/* Bound on the configuration file, bytes. */
#define NIGHTLY_CONFIG_MAX ((size_t)1 << 20)

enum nightly_source_type {
        NIGHTLY_SOURCE_DIR,                /* a directory watched for .deb packages and images */
        NIGHTLY_SOURCE_URL,                /* one URL, or an index page of links to .deb */
        NIGHTLY_SOURCE_APT,                /* a package name pattern resolved through APT */
};

struct nightly_source {
        enum nightly_source_type type;
        char *path;                        /* dir: the directory; NULL otherwise */
        char *url;                         /* url: the file or index page; NULL otherwise */
        char *pattern;                     /* apt: package name glob; NULL otherwise */
        char *sha256;                      /* url: expected digest (64 lowercase hex), or NULL */
        char *name;                        /* prefix of the kernel names it yields, or NULL */
        /* What the source changes about how its kernels are measured: the
         * run settings its overrides keys set, through the option table
         * (nightly_override_opts; the configuration sets none of these
         * elsewhere, so a value other than the default is an override).
         * A source with overrides should carry a name so its kernels are
         * tracked apart. */
        struct run_settings overrides;
};

/* "bisect": what a night bisects when it finds a regression (see
 * nightly/nightly_bisect.h). */
struct nightly_bisect_config {
        char *metric;                      /* a judged metric; NULL: the key is absent, never bisect */
        char *workload;                    /* one of workloads as written; NULL: the first */
        int max_rounds;                    /* per step; at least the pilot (the judging table's default) */
};

struct nightly_config {
        struct nightly_source *sources;
        size_t n_sources;                  /* >= 1 */
        char *baseline;                    /* kernel name in the store */
        char **workloads;                  /* "-w" texts as written, NULL-terminated, >= 1 */
        char **workload_specs;             /* the same, canonical ("dd:size=,bs=1M"), as stored in results */
        /* The settings of the night's runs that its keys set through the
         * option table: repeats (per kernel and workload), until_mde_pct
         * and its budgets, the guest (vm.*); the rest are the table's
         * defaults. */
        struct run_settings run;
        GPtrArray *keep;                   /* the strings run and the sources' overrides point to */
        double alpha;                      /* significance level of the comparison */
        double noise;                      /* relative noise band, 0.02 = 2 % */
        double cp_p_value;                 /* change points: largest p-value accepted */
        double cp_min_magnitude;           /* change points: smallest relative step */
        int cp_window;                     /* change points: points of history examined */
        int cp_confirm;                    /* change points: later points before one is confirmed */
        char *publish_dir;                 /* site directory, or NULL (no publishing) */
        char *base_url;                    /* where publish_dir is served, for links; or NULL */
        char *connect;                     /* libvirt URI, or NULL (the store's embedded driver) */
        char **hosts;                      /* "[NAME=]URI" each, NULL-terminated, or NULL: one host */
        double deadline_s;                 /* whole-run deadline, seconds */
        char *notify;                      /* sh command fed the report on regressions, or NULL */
        char *mail_from;                   /* the report's From, or NULL: kbench@<hostname> */
        char *mail_to;                     /* the report's To, or NULL: undisclosed-recipients:; */
        struct nightly_bisect_config bisect;
};

/* The night's judging parameters (decide/judgeopts.h): alpha, noise and
 * bisect.max_rounds as the file set them (the table's default without
 * a "bisect" key), the table's pilot, and a
 * target one point beyond the noise band (JUDGEOPTS_NIGHT_TARGET_OVER_NOISE).
 * nightly_config_parse has checked them across fields. OUT: *ret. */
void nightly_config_judge(const struct nightly_config *c, struct judge_opts *ret);

/* Parse a configuration from text (not NUL-terminated necessarily: len
 * bytes). Errors are one line naming the key's path, without a file name:
 * "sources[1].url: expected a string", "repeats: 0 is not a whole number in
 * 1..10000", "vm.memory: unknown key", "baseline: missing (required)",
 * "until_mde needs a budget: budget_cells or budget_time" (the judging
 * options' check across fields, decide/judgeopts.h); a JSON syntax
 * error is "line L, column C: <jansson's text>". Returns 0 or -EINVAL
 * (-ENOMEM). OUT: *ret (free with nightly_config_free). */
int nightly_config_parse(const char *text, size_t len, struct nightly_config **ret,
                         struct kb_error *err);

/* nightly_config_parse() on the file at path (a regular file of at most
 * NIGHTLY_CONFIG_MAX bytes); messages are prefixed "PATH: ". */
int nightly_config_load(const char *path, struct nightly_config **ret, struct kb_error *err);

struct nightly_config *nightly_config_free(struct nightly_config *c);   /* accepts NULL */

/* The key reference (path, type, default, range, help), one key a line,
 * each ending in a newline: for the verb's --keys; docs/nightly.md holds the
 * same keys (a test checks). Caller g_frees. */
char *nightly_config_keys_text(void);

/* The key of the file that sets a run option named as settings/runopts.h
 * names it ("fs" is vm.fs, "until-mde" until_mde, "connect" the hosts),
 * or a judging option as decide/judgeopts.h does ("max-rounds" is
 * bisect.max_rounds), or the option itself when no key sets it:
 * runner_drive.option_name for the night's runs and bisections. A static
 * string. */
const char *nightly_config_option_key(const char *option);

const char *nightly_source_type_name(enum nightly_source_type t);

/* The run options a source's overrides may set: those the table's
 * sources[].overrides.* keys name, in its order, NULL-terminated. Every
 * use of an override (whether a source has any, a night's variants, the
 * runs' settings, the plan's lines) goes through this list, so a new
 * override is one row of the table. */
const struct runopt *const *nightly_override_opts(void);

/* Whether any of src's overrides differs from the option's default. */
int nightly_source_has_overrides(const struct nightly_source *src);
