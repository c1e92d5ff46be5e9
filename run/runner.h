/* run/runner: `kbench run` behind its options. Resolves kernels and
 * workloads, builds (or reuses) each kernel's guest image, resolves the
 * accelerator, plans the interleaved matrix, runs every cell (retrying infra
 * errors, and with --max-contention cells run beside a busy host, a bounded
 * number of times), stores each finished attempt in one
 * transaction. It prints nothing: it reports through the events of
 * common/event.h, which cli/ renders (the progress lines, the summary). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "common/error.h"
#include "common/event.h"
#include "decide/judgeopts.h"
#include "settings/runopts.h"
#include "store/store.h"

/* How a caller that drives the runner (kbench nightly, kbench bisect) wants
 * it to behave beyond the run's settings; never set by an option. */
struct run_host_backend;

struct runner_drive {
        double deadline_at;                /* unix time after which no cell is started; 0: none */
        int quiet;                         /* no KB_EVENT_RESULT: the caller reports the run itself */
        const struct kb_sink *events;      /* where the run reports its progress and result (its cells
                                              their stages); NULL: nowhere */
        const volatile int *stop;          /* set nonzero (from a signal handler, say): the running cell
                                              ends as interrupted, no other starts, the run is left
                                              resumable (exit 3). NULL: cell_interrupted, which cli/'s
                                              SIGINT and SIGTERM handler sets */
        const struct run_host_backend *hosts; /* how the run reaches its hosts (run/hosts.h); NULL:
                                              libvirt. A fake one in the unit tests */
        /* How the driver's user writes a run option, named as the option
         * table names it ("fs", "disk-size", "until-mde", "budget-cells",
         * "repeat"; "connect" for the hosts), for the
         * errors of the request: kbench run's flag (--fs), a night's key
         * (vm.fs). NULL: that name. The string must outlive the run. */
        const char *(*option_name)(const char *option);
        enum judgeopts_spelling spelling;  /* and how --until-mde's check with the judging options names
                                              them (decide/judgeopts.h): flags, or a night's keys */
        double noise;                      /* --until-mde: the noise band (a fraction) the driver's
                                              comparison judges with, which the stopping rule's targets
                                              include; 0: compare's default, RUNNER_NOISE */
};

/* The noise band `kbench compare` judges with unless told (--noise 2%):
 * what --until-mde's targets include when the driver names none. */
#define RUNNER_NOISE 0.02

/* Run the run that settings s describe, driven as drive says (NULL: as
 * `kbench run`, reporting nothing). Returns the exit code: 0 every cell ok, 3 the run
 * finished with failed cells or was interrupted (a signal,
 * drive->deadline_at, a failed host), 1 on an error that stopped the run, 2 when the request itself was wrong;
 * on 1 and 2 err says why, for the caller to print. Once the request is
 * checked, session is opened (store_session_open): it must give the
 * kernel store and the database, the store lock held; the caller owns it.
 * OUT: *ret_run_id (may be NULL), the run's id once it exists (0 before). */
int runner_run(const struct run_settings *s, const struct runner_drive *drive, const struct store_ctx *g,
               struct store_session *session, int64_t *ret_run_id, struct kb_error *err);

/* The workloads of s (s->workloads) checked as runner_run checks them
 * before it opens the store: each parsed (a job file read), resolved
 * against s's guest and its job built once. For a driver that runs later
 * and must refuse a bad workload first (kbench bisect), whose errors name
 * options as drive's option_name does (drive may be NULL). Returns 0, or
 * -errno with err: a usage error. */
int runner_check_workloads(const struct run_settings *s, const struct runner_drive *drive, const struct store_ctx *g,
                           struct kb_error *err);

/* For resuming run s->resume_run, read from db: the kernels (store ids) and workloads it
 * was started with, appended to kern and work (g_free'd strings), and its
 * saved options loaded into s (strings s points to go into keep). Errors
 * name the run. */
int runner_load_resume(struct run_settings *s, struct db *db, GPtrArray *kern, GPtrArray *work, GPtrArray *keep,
                       struct kb_error *err);

/* A kbench-built helper (the guest agent, a workload's guest binary, the
 * TCG plugin): $ENV overrides, then build_rel in the build tree next to
 * this executable, then name in the install location. Caller g_frees. */
char *runner_helper_path(const char *env, const char *build_rel, const char *name);

/* runner_helper_path's arguments for the instruction-count plugin. */
#define RUNNER_INSN_PLUGIN "KBENCH_INSN_PLUGIN", "plugin/libkbinsn.so", "libkbinsn.so"
/* ... and for the profile plugin QEMU loads beside it (plugin/kbprof.c). */
#define RUNNER_PROF_PLUGIN "KBENCH_PROF_PLUGIN", "plugin/libkbprof.so", "libkbprof.so"
