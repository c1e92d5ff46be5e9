/* run/seqrun: the runner's side of `kbench run --until-mde`. After each
 * round the runner asks "enough yet?": this module reads the run's stored
 * ok cells back from the database (so a resumed run asks about the same
 * values as the one it continues), lays every judged metric out per round
 * (judged as report/metrics.c's registry says, never by name), and puts
 * the question to decide/seqrule.c, the pure rule. A run of one kernel is
 * judged against itself (the MDE a later comparison with a like kernel
 * would have); a run of several compares each with the first, as nightly
 * compares new kernels with the baseline. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "run/plan.h"
#include "decide/seqrule.h"
#include "results/db.h"

struct seqrun_ctx {
        struct db *db;
        int64_t run_id;
        const struct plan_cell *plan;      /* the run's plan, max_rounds rounds of it */
        size_t n_plan;
        size_t n_kernels, n_specs;
        const char *const *kernel_ids;     /* store ids, per kernel index of the plan */
        const char *const *kernel_names;   /* as results show them, for messages */
        const char *const *spec_names;     /* workload texts, per workload index, for messages */
        struct seqrule_params params;      /* params.max_rounds = n_plan / (n_kernels * n_specs) */
};

struct seqrun_answer {
        struct seqrule_decision d;
        size_t n_metrics;                  /* judged (metric, comparison) pairs asked about */
        char *worst;                       /* the metric behind d.worst_mde, or NULL (g_free) */
        char *mdes;                        /* "dd.read_MBps 3.1%, dd.write_MBps 4.2%": each MDE over
                                              the rounds so far (g_free) */
        char *mdes_json;                   /* {"dd.read_MBps": 0.031, ...} as JSON text; null for an
                                              MDE that is unknown (g_free) */
};

/* Ask the rule after `rounds` complete rounds. Returns 0, or a database
 * error, -EINVAL when the rule refuses c->params. OUT: *ret (clear with
 * seqrun_answer_clear). */
int seqrun_ask(const struct seqrun_ctx *c, size_t rounds, struct seqrun_answer *ret, struct kb_error *err);
void seqrun_answer_clear(struct seqrun_answer *a);

/* The outcome the run records under RUNOPTS_UNTIL_MDE_OUTCOME: why it
 * stopped ("enough", "budget", or "time" for a --budget-time), the rounds
 * and cells it ran, the target and the MDEs at the stop, as JSON text
 * (g_free). */
char *seqrun_outcome_json(const struct seqrun_ctx *c, const struct seqrun_answer *a, const char *why,
                          size_t rounds);
