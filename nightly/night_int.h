/* nightly/night_int.h: what the rooms of one night share, private to
 * nightly/ (no other folder includes it). A night is one struct night
 * that its steps fill in turn; nightly.c keeps their order and the
 * configuration, and each room holds the steps of one stage: fetching and
 * importing kernels (night_import.c), measuring them (night_measure.c),
 * judging what was measured (night_detect.c), and saying it
 * (night_notify.c). What the steps read from and write to the database
 * goes through night_history.h. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "kernels/kstore.h"
#include "nightly/nightly.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_report.h"
#include "nightly/nightly_sources.h"
#include "results/db.h"
#include "settings/runopts.h"
#include "store/store.h"

/* A kernel measured in a run of this night (or of the night it resumed),
 * to be compared with the baseline. */
struct subject {
        int64_t run;
        char *name;                        /* as reported: a variant's label + the store name */
        char *store_name;                  /* the kernel's name in the run, for compare's selector */
        char *kernel_id;
};

struct night {
        const struct nightly_opts *o;
        const struct nightly_ops *ops;     /* o->ops or the real table */
        struct store_ctx g;               /* the caller's, with the configuration's connect */
        struct nightly_config *cfg;
        struct store_session *s;           /* the caller's: the database, the kernel store, the lock held */
        struct db *db;                     /* s->db, once open */
        struct kstore *ks;                 /* s->ks, once open */
        const char *accel;                 /* what the runs use, and what "measured" is asked for */
        GPtrArray *hosts;                  /* the names the runs store in their cells (run/hosts.c: NAME,
                                              else the URI), one NULL when the night has no hosts */
        double started_at;                 /* unix time: the night's, as the store records it */
        double deadline_at;                /* unix time */
        struct nightly_found *found;
        size_t n_found;
        GArray *cands;                     /* struct nightly_candidate; strings in keep */
        ssize_t *found_cand;               /* per found file: its candidate, or -1 (import failed) */
        struct nightly_plan *plan;
        GArray *subjects;                  /* struct subject */
        GArray *runs;                      /* int64_t: runs of this night (resumed and new) */
        GPtrArray *keep;                   /* strings the candidates point to */
        GPtrArray *measured;               /* names of the kernels run tonight, each once */
        GPtrArray *night_compares;         /* each comparison made tonight: subject, selector A, B */
        GPtrArray *errors;
        struct nightly_report rep;
};

/* Hand ev to the night's sink. Returns the sink's answer. */
static inline int night_emit(const struct night *n, const struct kb_event *ev) {
        return kb_emit(n->o->events, ev);
}

/* fetch and import (night_import.c) */
int night_step_fetch(struct night *n, struct kb_error *err);
int night_step_import(struct night *n, struct kb_error *err);
/* The runner options of a run of the night measuring variant v. OUT: *o
 * (its strings borrowed from n's configuration). */
void night_opts(const struct night *n, const struct nightly_variant *v, struct run_settings *o);
/* The fingerprint of workload w measured as variant v on the night's
 * host h (an index into n->hosts). Caller g_frees. */
char *night_fingerprint(const struct night *n, size_t w, const struct nightly_variant *v, guint h);

/* measure (night_measure.c) */
void night_subject_clear(void *p);   /* a struct subject's strings, for n->subjects */
int night_step_resume(struct night *n, struct kb_error *err);
int night_step_run(struct night *n, struct kb_error *err);
/* A dry run's answer: the plan as an event. Returns the sink's answer. */
int night_emit_plan(const struct night *n);

/* detect (night_detect.c) */
int night_step_compare(struct night *n, struct kb_error *err);
int night_step_bisect(struct night *n, struct kb_error *err);
int night_step_changepoints(struct night *n, struct kb_error *err);

/* notify (night_notify.c) */
/* An error the night goes on after: kept for the report, and said now. */
void night_add_error(struct night *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
int night_step_publish(struct night *n, struct kb_error *err);
int night_step_report(struct night *n, struct kb_error *err);
void night_step_notify(struct night *n);
