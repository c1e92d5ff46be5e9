/* harness/nightly_plan: what a night measures, decided from facts alone.
 * The kernels a night looks at (the baseline and the kernels its sources
 * yielded) come with how many ok cells the results already hold for them
 * with the settings they would be measured with; the plan keeps those
 * below the configured repeats and puts them into groups, one run each, of
 * kernels that share their settings (a source's overrides change the
 * kernel command line or the disk throttle, which one run cannot vary per
 * kernel). Within a group the runner interleaves the kernels. The baseline
 * is measured, with the configuration's own settings, only when it lacks
 * results with them. Pure: tested from tables in test-nightly-plan.c. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "harness/nightly_config.h"

struct nightly_candidate {
        const char *name;                  /* kernel name in the store */
        const char *kernel_id;             /* store id */
        size_t source;                     /* index into the configuration's sources; ignored for the baseline */
        int is_baseline;                   /* the configuration's baseline (measured without overrides) */
        size_t n_ok;                       /* fewest ok cells stored, over the workloads, with its settings */
};

/* One run of the night: kernels sharing append and disk_mbps. */
struct nightly_group {
        const char *append;                /* extra kernel command line, NULL: none (borrowed from the config) */
        uint64_t disk_mbps;                /* 0: unthrottled */
        size_t *members;                   /* indexes into the candidates, baseline first */
        size_t n_members;
};

struct nightly_plan {
        struct nightly_group *groups;      /* base settings first, then in source order */
        size_t n_groups;
        size_t n_new;                      /* non-baseline kernels to measure */
        int baseline_stale;                /* the baseline is measured tonight */
};

/* The overrides a candidate is measured with (the baseline: none). */
void nightly_candidate_overrides(const struct nightly_config *cfg, const struct nightly_candidate *c,
                                 const char **ret_append, uint64_t *ret_disk_mbps);

/* The plan for candidates c[0..n) under cfg. A candidate is measured when
 * c->n_ok < cfg->repeats; the same kernel twice with the same settings
 * (two sources yielding one package) is measured once. OUT: *ret
 * (nightly_plan_free). */
void nightly_plan_build(const struct nightly_config *cfg, const struct nightly_candidate *c, size_t n,
                        struct nightly_plan **ret);

struct nightly_plan *nightly_plan_free(struct nightly_plan *p);   /* accepts NULL */
