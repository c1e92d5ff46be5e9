/* cli/kfacts: what the kernel store says of the kernels a reader's
 * output names (their upstream versions, how their .configs differ), for
 * the verbs that read the results database only (compare, show). The
 * store is opened when it is there; a --db outside any store, or a
 * kernel removed since its cells ran, leaves these facts out, never an
 * error. */
#pragma once

#include "cli/cli.h"
#include "report/compare.h"

/* The upstream version of the stored kernel with this id ("6.1.170"), or
 * NULL; ctx is the verb's struct cli_ctx. For textrun_opts.upstream. */
char *kfacts_upstream(void *ctx, const char *kernel_id);

/* v->kernels from the store: each side's upstream version and how B's
 * .config differs from A's. */
void kfacts_compare(struct cli_ctx *c, struct compare_view *v);
