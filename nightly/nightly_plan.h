/* nightly/nightly_plan: what a night measures, decided from facts alone.
 * The kernels a night looks at (the baseline and the kernels its sources
 * yielded) come with how many ok cells the results already hold for them
 * with the settings they would be measured with; the plan keeps those
 * below the configured repeats and puts them into groups, one run each, of
 * kernels that share their settings (a source's overrides change the
 * kernel command line, the sysctls or the disk throttle, and a source's
 * name labels them as a variant, none of which one run varies per
 * kernel). Within a group the runner interleaves the kernels, and every
 * group measures the baseline too, first, with the group's settings, so a
 * night's verdict compares cells measured together in one run; a night
 * with nothing new measures nothing, the baseline included. Pure: tested
 * from tables in test-nightly-plan.c. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nightly/nightly_config.h"

struct nightly_candidate {
        const char *name;                  /* kernel name in the store */
        const char *kernel_id;             /* store id */
        size_t source;                     /* index into the configuration's sources; ignored for the baseline */
        int is_baseline;                   /* the configuration's baseline (measured without overrides) */
        size_t n_ok;                       /* fewest ok cells stored, over the workloads, with its settings */
        const char *store_name;            /* its name in the store when name is a variant's label + that;
                                              NULL: name */
};

/* How a candidate is measured: the base settings, or its source's
 * overrides; borrowed from the configuration. The overrides are read only
 * through the option rows nightly_override_opts lists. */
struct nightly_variant {
        const char *label;                 /* the source's name, when it has overrides (nightly_source_variant);
                                              NULL: none */
        const struct run_settings *overrides;  /* the source's, NULL: none (every option's default) */
};

/* One run of the night: kernels sharing a variant, and the baseline. */
struct nightly_group {
        struct nightly_variant v;          /* borrowed from the configuration */
        size_t *members;                   /* indexes into the candidates, the baseline first */
        size_t n_members;
};

struct nightly_plan {
        struct nightly_group *groups;      /* base settings first, then in source order */
        size_t n_groups;
        size_t n_new;                      /* non-baseline kernels to measure */
        int with_baseline;                 /* the baseline is measured tonight, beside them */
};

/* The label of a source's kernels as a variant: its name when it has
 * overrides (its kernels are images another source may yield too, so the
 * name labels the settings, not the image), else NULL (a name without
 * overrides names the kernels themselves). */
const char *nightly_source_variant(const struct nightly_source *src);

/* The variant a candidate is measured with (the baseline: none). */
void nightly_candidate_variant(const struct nightly_config *cfg, const struct nightly_candidate *c,
                               struct nightly_variant *ret);

/* Whether a and b measure alike: the same label, and every override
 * option alike (runopt_equal: sysctls in the same order). */
int nightly_variant_equal(const struct nightly_variant *a, const struct nightly_variant *b);

/* The plan for candidates c[0..n) under cfg. A kernel other than the
 * baseline is measured when c->n_ok < cfg->repeats; the same kernel twice
 * with the same settings (two sources yielding one package) is measured
 * once; each group leads with the baseline (the candidate with
 * is_baseline, whatever its n_ok), unless a source yielded the baseline's
 * own image with that group's settings. OUT: *ret (nightly_plan_free). */
void nightly_plan_build(const struct nightly_config *cfg, const struct nightly_candidate *c, size_t n,
                        struct nightly_plan **ret);

struct nightly_plan *nightly_plan_free(struct nightly_plan *p);   /* accepts NULL */
