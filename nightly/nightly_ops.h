/* nightly/nightly_ops: where a night reaches past nightly/ to measure,
 * as one table: the runner of `kbench run` (a run of the plan, the
 * resumption of a run an earlier night left), the bisection, the clock its
 * deadline is read against and the signal flag. The real table drives
 * guests over libvirt (the hosts the configuration names reach the runner
 * through the store context). nightly/test-nightly.c keeps the real
 * runner and bisection, behind wrappers that keep what they were asked,
 * on the scripted host of run/test-fakehost.h (nightly_opts.hosts), so
 * nights with crashes, hangs, lost hosts and contended cells run without
 * a guest; the night whose deadline it tests reads a clock that says the
 * night began earlier. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "bisect/bisect.h"
#include "common/error.h"
#include "results/db.h"
#include "run/runner.h"
#include "settings/runopts.h"
#include "store/store.h"

struct nightly_ops {
        /* runner_run's contract (run/runner.h). */
        int (*run)(const struct run_settings *s, const struct runner_drive *drive, const struct store_ctx *g,
                   struct store_session *session, int64_t *ret_run_id, struct kb_error *err);
        /* runner_load_resume's contract. */
        int (*load_resume)(struct run_settings *s, struct db *db, GPtrArray *kern, GPtrArray *work,
                           GPtrArray *keep, struct kb_error *err);
        /* bisect_run's contract (bisect/bisect.h). */
        int (*bisect)(const struct bisect_opts *o, const struct store_ctx *g, struct store_session *s,
                      struct bisect_answer *ret, struct kb_error *err);
        /* The time, unix seconds: the night's start and its deadline are read on it. The
         * runner reads the deadline on the wall clock: this one must agree with it. */
        double (*now)(void);
        /* Non-zero once a signal asked the night to stop (the runner's
         * handler sets it; the night starts no further run). */
        int (*interrupted)(void);
};

/* The real table: runner_run, runner_load_resume, bisect_run, the wall
 * clock and cell_interrupted. */
extern const struct nightly_ops nightly_ops_real;

/* ops, or the real table when ops is NULL. */
const struct nightly_ops *nightly_ops_or_real(const struct nightly_ops *ops);
