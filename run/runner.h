/* run/runner: `kbench run` behind its options. Resolves kernels and
 * workloads, builds (or reuses) each kernel's guest image, resolves the
 * accelerator, plans the interleaved matrix, runs every cell (retrying infra
 * errors, and with --max-contention cells run beside a busy host, a bounded
 * number of times), stores each finished attempt in one
 * transaction, and prints the run's summary. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "common/error.h"
#include "store/store.h"

struct runner_opts {
        char **kernels;                    /* names or id prefixes, NULL-terminated */
        char **workloads;                  /* "-w" texts, NULL-terminated */
        int repeats;
        unsigned mem_mb;
        unsigned cpus;
        uint64_t disk_bytes;
        uint64_t disk_mbps;                /* MB/s (1e6 bytes) iotune; 0 = unlimited */
        const char *fs;
        const char *mount_opts;
        uint64_t swap_bytes;
        const char *tag;                   /* may be NULL */
        const char *accel;                 /* auto, kvm, tcg */
        const char *append;                /* extra kernel command line, may be NULL */
        char **sysctls;                    /* "key=value" the agent writes before the job, NULL-terminated,
                                              or NULL: none */
        const char *variant;               /* label of a variant of the kernels (a nightly source's name),
                                              shown before their names; NULL: none */
        double cell_timeout_s;
        double hang_timeout_s;             /* longest silence on ttyS1 while the job runs */
        double vmstat_interval_s;          /* the agent's vmstat sampling interval, seconds */
        int retries;                       /* extra attempts after an infra error (or contention) */
        double max_contention_pct;         /* > 0: re-run cells whose host had more foreign CPU, %; 0 never */
        int warm;                          /* restore cells from snapshots (cell/warm.h) */
        int cold;                          /* boot every cell fresh, whatever else says */
        int json;
        int all;                           /* end with the full run table, not the judged summary */
        int64_t resume_run;                /* > 0: continue this run */
        double until_mde_pct;              /* > 0: add rounds until every judged metric's MDE is at most
                                              this, % (report/seqrule.h); repeats is then the pilot */
        int budget_cells;                  /* with until_mde_pct: cells in all, at most; 0: no such cap */
        double budget_time_s;              /* with until_mde_pct: no round starts later than this after
                                              the run (or its resumption) began, seconds; 0: none */
        /* Set by callers that drive the runner (kbench nightly), never by an option: */
        int lock_held;                     /* the caller holds the store lock (lock_store) */
        double deadline_at;                /* unix time after which no cell is started; 0: none */
        int quiet;                         /* no run summary on stdout */
};

/* Run it. Returns the exit code: 0 every cell ok, 3 the run finished with
 * failed cells or was interrupted (a signal, o->deadline_at, a failed host),
 * 1 on an error that stopped the run, 2 when the request itself was wrong;
 * on 1 and 2 err says why, for the caller to print. OUT: *ret_run_id (may
 * be NULL), the run's id once it exists (0 before). */
int runner_run(const struct runner_opts *o, const struct store_ctx *g, int64_t *ret_run_id,
               struct kb_error *err);

/* For resuming run o->resume_run: the kernels (store ids) and workloads it
 * was started with, appended to kern and work (g_free'd strings), and its
 * saved options loaded into o (strings o points to go into keep). Errors
 * name the run. */
int runner_load_resume(struct runner_opts *o, const struct store_ctx *g, GPtrArray *kern, GPtrArray *work,
                       GPtrArray *keep, struct kb_error *err);

/* A kbench-built helper (the guest agent, a workload's guest binary, the
 * TCG plugin): $ENV overrides, then build_rel in the build tree next to
 * this executable, then name in the install location. Caller g_frees. */
char *runner_helper_path(const char *env, const char *build_rel, const char *name);

/* runner_helper_path's arguments for the instruction-count plugin. */
#define RUNNER_INSN_PLUGIN "KBENCH_INSN_PLUGIN", "plugin/libkbinsn.so", "libkbinsn.so"
