/* nightly/nightly_events: what a night tells its caller while it runs. A
 * night prints nothing (docs/architecture.md: below cli/ nothing prints):
 * each fact it used to print is one small struct handed to a sink, and
 * cli/cli_nightly.c renders them as text, the report as text or JSON, or
 * nothing. A unit test records them instead (nightly/test-nightly.c).
 * Everything an event points to is borrowed for the call only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nightly/nightly_config.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_report.h"

enum nightly_event_kind {
        NIGHTLY_EVENT_RESUME,              /* run: a run an earlier night left is resumed now */
        NIGHTLY_EVENT_WOULD_RESUME,        /* run: a dry run would resume it */
        NIGHTLY_EVENT_ERROR,               /* text: a source, an import or a comparison failed; the night
                                              goes on, its report lists it and it exits 1 */
        NIGHTLY_EVENT_PLAN,                /* plan: what a dry run would measure */
        NIGHTLY_EVENT_RUN_DONE,            /* group, n_groups, run, code: a run of the plan ended */
        NIGHTLY_EVENT_NOT_STARTED,         /* group, n_groups, interrupted: a run of the plan is left for
                                              the next night (a signal, else the deadline) */
        NIGHTLY_EVENT_BISECT,              /* bisect: a bisection of tonight's regression starts */
        NIGHTLY_EVENT_REPORT,              /* report: the night's report, once, before the mail */
        NIGHTLY_EVENT_NOTIFY_FAILED,       /* text: the notify command did not take the mail */
};

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

struct nightly_event {
        enum nightly_event_kind kind;
        int64_t run;                       /* RESUME, WOULD_RESUME, RUN_DONE: the run's id */
        size_t group, n_groups;            /* RUN_DONE, NOT_STARTED: which run of the plan (0-based), of how many */
        int code;                          /* RUN_DONE: the runner's exit code (0, or 3: failed or left cells) */
        int interrupted;                   /* NOT_STARTED: 1 a signal, 0 the deadline */
        const char *text;                  /* ERROR, NOTIFY_FAILED: one line */
        const struct nightly_plan_event *plan;       /* PLAN */
        const struct nightly_bisect_event *bisect;   /* BISECT */
        const struct nightly_report *report;         /* REPORT */
};

/* Where a night's events go. event returns 0, or -errno when it could not
 * render one that matters (the plan, the report): the night then ends
 * with an error, as when its report cannot be written. */
struct nightly_sink {
        int (*event)(const struct nightly_event *ev, void *userdata);
        void *userdata;
};

/* Hand ev to sink (NULL: report nothing). Returns the sink's answer, 0
 * without a sink. */
int nightly_events_emit(const struct nightly_sink *sink, const struct nightly_event *ev);
