/* harness/runner: `kbench run` behind its options. Resolves kernels and
 * workloads, builds (or reuses) each kernel's guest image, resolves the
 * accelerator, plans the interleaved matrix, runs every cell (retrying infra
 * errors, and with --max-contention cells run beside a busy host, a bounded
 * number of times), stores each finished attempt in one
 * transaction, and prints the run's summary. */
#pragma once

#include <stdint.h>

#include "common/error.h"
#include "harness/cli.h"

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
        double cell_timeout_s;
        double hang_timeout_s;             /* longest silence on ttyS1 while the job runs */
        double vmstat_interval_s;          /* the agent's vmstat sampling interval, seconds */
        int retries;                       /* extra attempts after an infra error (or contention) */
        double max_contention_pct;         /* > 0: re-run cells whose host had more foreign CPU, %; 0 never */
        int json;
        int64_t resume_run;                /* > 0: continue this run */
};

/* Run it. Returns the exit code: 0 every cell ok, 3 the run finished with
 * failed cells, 1 on an error that stopped the run (printed once). */
int runner_run(const struct runner_opts *o, const struct cli_global *g);
