/* nightly/nightly_events: the payloads of a night's events. A night
 * prints nothing (docs/architecture.md: below cli/ nothing prints): each
 * fact is a common/event.h event (KB_EVENT_NIGHT_*) handed to the sink its
 * caller gives, and cli/cli_nightly.c renders them as text, the report as
 * text or JSON, or nothing. A unit test records them instead
 * (nightly/test-nightly.c). The two payloads a night's events carry beyond
 * its report are here; everything they point to is borrowed for the call
 * only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_report.h"

/* A dry run's plan and what it was made from. */
struct nightly_plan_event {
        const struct nightly_plan *plan;
        const struct nightly_candidate *cands;   /* the plan's members index these */
        size_t n_cands;
        const struct nightly_config *cfg;  /* its workloads and repeats */
        const char *accel;                 /* "tcg" or "kvm" */
};

/* A bisection the night starts (nightly/nightly_bisect.h). */
struct nightly_bisect_event {
        const char *metric;                /* the configured metric */
        const char *workload;              /* the workload it is measured by */
        const char *good;                  /* the good end's store name (untrusted text: a file's) */
        const char *bad;                   /* tonight's kernel's store name (likewise) */
        size_t candidates;                 /* kernels from good to bad, both counted */
};
