/* nightly/nightly: `kbench nightly`, one unattended night, as a sequence of
 * steps each of its own function: read the configuration, open the
 * caller's session (the store lock, the database, the kernel store), resume a night that was cut short, fetch the sources and
 * import what they yield, decide what to measure (nightly_plan), run each
 * group of kernels through the runner of `kbench run`, compare every new
 * kernel with the baseline through compare's pairing (decide/pairing.h)
 * and look for change points in each judged metric's history, then report,
 * notify and publish. The night prints nothing: it reports what happens
 * as events (common/event.h) which the caller renders, and reaches the
 * runner and the bisection through a table (nightly_ops.h) that a test
 * replaces. */
#pragma once

#include "nightly/nightly_events.h"
#include "nightly/nightly_ops.h"
#include "common/event.h"
#include "store/store.h"

/* The tag of a night's runs: their comparisons are what mark a kernel
 * good or bad for a later night's bisection (nightly_bisect.c). */
#define NIGHTLY_TAG "nightly"

struct nightly_opts {
        const char *config_path;
        int dry_run;                       /* fetch, import and plan (a PLAN event); measure nothing */
        const struct kb_sink *events;      /* where the night's events go (common/event.h), its runs' and
                                              bisections' too; NULL: nowhere */
        const struct run_host_backend *hosts; /* how its runs reach their hosts (run/hosts.h); NULL:
                                              libvirt */
        const struct nightly_ops *ops;     /* NULL: nightly_ops_real */
};

/* Run one night. Returns the exit code: NIGHTLY_EXIT_* (nightly_report.h),
 * 1 on an error (also: the sink could not render the plan or the report)
 * and 2 on a configuration error, with err saying why for the caller to
 * print. Once the configuration is read, s is opened
 * (store_session_open): it must give the database and the kernel store,
 * the store lock held, and may create the store; the caller owns it. */
int nightly_run(const struct nightly_opts *o, const struct store_ctx *g, struct store_session *s,
                struct kb_error *err);
