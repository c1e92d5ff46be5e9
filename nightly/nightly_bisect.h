/* nightly/nightly_bisect: a night that found a regression starts `kbench
 * bisect --kernels` over the kernels a source yielded between the last one
 * found good and tonight's (the configuration's "bisect" key). A source
 * lists its kernels in order (nightly_sources_history: its files, named by
 * version); each kernel before tonight's is marked from the comparison the
 * nights made with the baseline (its latest nightly run, at the source's
 * settings, the configured workload and metric): worse, not worse, or never
 * measured (a run without the baseline beside the kernel is no mark: a
 * verdict compares cells measured together). The good end is the nearest
 * measured kernel before tonight's
 * when it was not worse; when it was worse the regression is older than
 * tonight and was that night's to bisect. The bisection measures with the
 * night's settings for the source (its overrides too), under the night's
 * lock and deadline, and its answer is one line of the night's report. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "kernels/kstore.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_events.h"
#include "nightly/nightly_ops.h"
#include "nightly/nightly_report.h"
#include "results/db.h"
#include "run/runner.h"
#include "store/store.h"

/* What the nights' comparisons with the baseline said of a kernel. */
enum nightly_bisect_mark {
        NIGHTLY_BISECT_UNMEASURED,         /* no nightly run of it at these settings, or no value */
        NIGHTLY_BISECT_GOOD,               /* measured, the metric not worse (or the baseline itself) */
        NIGHTLY_BISECT_WORSE,              /* measured, the metric worse */
};

/* The "bisect" key beyond its syntax: the metric gets a verdict (its
 * direction is known), the workload is one of workloads. Errors name the
 * key: "bisect.metric: dd.write_s is not a metric that gets a verdict".
 * Returns 0 or -EINVAL. */
int nightly_bisect_check(const struct nightly_config *cfg, struct kb_error *err);

/* The good end for tonight's kernel at index bad of a source's history
 * whose marks[0..bad) are known: the nearest measured kernel before it
 * when it is GOOD. SIZE_MAX when there is none, with *ret_why (static)
 * saying why: no measured kernel before it, or the nearest was worse
 * already. Pure. */
size_t nightly_bisect_good_end(const enum nightly_bisect_mark *marks, size_t bad, const char **ret_why);

struct nightly_bisect_in {
        const struct nightly_config *cfg;
        const struct store_ctx *g;
        struct store_session *s;           /* the night's, open: its database and kernel store, in which the
                                              bisection runs too */
        const char *baseline_id;           /* the baseline's kernel id */
        size_t source;                     /* the source whose history is searched */
        const char *label;                 /* its variant label (nightly_source_variant), or NULL */
        const char *kernel_id;             /* tonight's kernel, found worse on the metric */
        const struct run_settings *run;    /* the night's settings for this source's kernels */
        double deadline_at;                /* the night's deadline (unix time); 0: none */
        const struct nightly_ops *ops;     /* the night's: the bisection and the clock; NULL: the real ones */
        const struct kb_sink *events;      /* the night's: a NIGHT_BISECT event when one starts, then the
                                              bisection's own and its runs'; NULL: nowhere */
        const struct run_host_backend *hosts; /* the night's: how the bisection's runs reach their hosts */
};

/* Bisect tonight's regression of in->kernel_id over in->source's history
 * (a NIGHT_BISECT event to in->events when a bisection starts).
 * Returns 0 when the source did not yield that kernel (ret untouched), 1
 * when ret says what happened (a bisection's answer, or why none was
 * started or why it failed), -errno when the results cannot be read.
 * OUT: *ret's fields (owned by it; nightly_report_clear frees them). */
int nightly_bisect_source(const struct nightly_bisect_in *in, struct nightly_bisection *ret, struct kb_error *err);
