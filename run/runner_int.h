/* run/runner_int: the runner's rooms, private to run/runner*.c. A run is
 * one `struct run`, which runner.c sets up (the store, the hosts, the run's
 * row), closes and frees; around it sit the request (runner_request.c:
 * the request checked, the kernels and workloads resolved, and for
 * --resume what the stored run says), the guest images and plugins
 * (runner_images.c), what the run stores (runner_store.c: its row's
 * settings, each attempt, the reserve, the kernels' symbol tables) and the
 * loop over the cells (runner_loop.c: one host or several, --until-mde's
 * rounds, each cell's attempts and warm start). Nothing outside run/
 * includes this header: runner.h is the runner's interface. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "cell/cell.h"
#include "cell/warm.h"
#include "common/error.h"
#include "kernels/kstore.h"
#include "results/db.h"
#include "run/hosts.h"
#include "run/plan.h"
#include "common/event.h"
#include "run/runner.h"
#include "settings/runopts.h"
#include "store/store.h"
#include "workloads/workload.h"

struct run {
        struct run_settings set;           /* as given, and guest.accel once resolved */
        const struct runner_drive *d;
        const struct store_ctx *g;
        struct store_session *s;           /* the caller's: the kernel store, the lock held, the database */
        struct kstore *ks;                 /* s->ks, once open */
        struct kstore_kernel **kernels;
        size_t n_kernels;
        struct workload_spec **specs;
        size_t n_specs;
        char **initrds;                    /* per kernel */
        struct db *db;                     /* s->db, once open */
        struct run_host *hosts;            /* where the cells run: the store's own driver, or --connect's */
        size_t n_hosts;
        GMutex lock;                       /* with several hosts: the database, the events, counters */
        struct vm_conn *conn;              /* the first host's (the one of a single-host run) */
        const char *accel;                 /* the first host's accelerator, the run's settings' */
        char *accel_why;
        struct db_run row;
        char *qemu_version, *libvirt_version;
        const struct kb_sink *ev;          /* d->events: where the run reports */
        const volatile int *stop;          /* d->stop, or cell_interrupted */
        const struct run_host_backend *backend; /* d->hosts, or libvirt */
        int usage;                         /* the error was in the request: exit 2 */
        int stopped;                       /* end the run, resumable: the host's disk is full, a commit
                                              failed, or no host is left for the cells (held); with
                                              several hosts, under lock */
        size_t held;                       /* cells no live host was left to run (several hosts) */
        int past_deadline;                 /* d->deadline_at passed: no more cells, resumable */
        char *reserve;                     /* <store>/reserve, released when a commit fails */
        struct warm_run warm;              /* the snapshots this run restores or found failed */
        char *insn_plugin;                 /* the instruction counter in the store's cache, or NULL */
        char *prof_plugin;                 /* the profile plugin there, or NULL (cell/cellprof.h) */
        char *settings_text, *host_info;   /* the run row's (row points to them) */
        char hostname[256];
};

/* What every room asks of the run, written here so that no room goes
 * back to another for it. */

/* One line for whoever watches the run (common/event.h), as the run's. */
#define run_note(r, ...) kb_note((r)->ev, KB_ORIGIN_RUN, __VA_ARGS__)

/* A run option as the driver's user writes it (runner_drive.option_name). */
static inline const char *run_option(const struct run *r, const char *option) {
        return r->d->option_name ? r->d->option_name(option) : option;
}

/* Whether whoever drives the run asked it to stop (a signal, in kbench). */
static inline int run_stop_requested(const struct run *r) {
        return *r->stop != 0;
}

/* With --until-mde no round starts without a time budget beyond this. */
#define UNTIL_MDE_MAX_ROUNDS 1000

/* The rounds the plan holds: -n, or with --until-mde as many as the budget
 * allows (the rule decides how many of them run). */
static inline int run_rounds(const struct run *r) {
        size_t per = r->n_kernels * r->n_specs;

        if (r->set.until_mde_pct <= 0)
                return r->set.repeats;
        if (r->set.budget_cells > 0)
                return (int)MIN((size_t)r->set.budget_cells / MAX(per, 1), UNTIL_MDE_MAX_ROUNDS);
        return UNTIL_MDE_MAX_ROUNDS;
}

/* The noise band --until-mde's targets include (a fraction): the
 * driver's, or compare's default. */
static inline double run_noise(const struct run *r) {
        return r->d->noise > 0 ? r->d->noise : RUNNER_NOISE;
}

/* runner_request.c: the request, checked before any run row exists;
 * each sets r->usage when the error is the user's (exit 2). */

/* The matrix's axes given, the hosts named once. */
int runner_request_axes(struct run *r, struct kb_error *err);
/* The workloads parsed, resolved and built once (r->specs); --until-mde's budget. */
int runner_request_workloads(struct run *r, struct kb_error *err);
/* The kernels from the kernel store (r->kernels), then what this host can do. */
int runner_request_kernels(struct run *r, struct kb_error *err);
/* Every file QEMU opens is one it can reach as its user (a local host). */
int runner_request_qemu_reach(struct run *r, struct kb_error *err);
/* For --resume: the run's pending cells stored, then the planned cells not
 * yet stored ok counted. OUT: *ret_todo. */
int runner_request_resume_todo(struct run *r, int *ret_todo, struct kb_error *err);
/* A resumed run with nothing left: finished unless it already is. */
int runner_request_resume_idle(struct run *r, struct kb_error *err);
/* The hosts a resumed run spread its cells over, as --connect specs
 * (g_strfreev), or NULL when it named none. */
char **runner_request_resume_hosts(struct run *r);

/* runner_images.c: what the guests boot and QEMU loads. */

/* Each kernel's guest image (r->initrds), built or found in the cache. */
int runner_images_build(struct run *r, struct kb_error *err);
/* The TCG plugins copied into the store's cache (r->insn_plugin,
 * r->prof_plugin); one missing is said, not fatal. */
void runner_images_stage_plugins(struct run *r);
/* The kernels, guest images and plugins sent to a host reached only
 * through libvirt. */
int runner_images_stage_on_host(struct run *r, struct run_host *h, struct kb_error *err);

/* runner_store.c: what the run writes. */

/* The run row's settings and the host's description, as JSON (free()). */
char *runner_store_settings(const struct run *r);
char *runner_store_host_info(void);
/* Keep the reserve that lets a commit on a full disk be retried. */
void runner_store_reserve(struct run *r);
/* A kernel's symbol table a cell's guest sent, into the kernel store. */
void runner_store_ksyms(struct run *r, const struct kstore_kernel *k, const struct cell_result *res);
/* One finished attempt, stored or kept pending. OUT: *ret_pending. */
int runner_store_cell(struct run *r, const struct run_host *h, const struct plan_cell *pc, int attempt,
                      struct cell_result *res, int *ret_pending, struct kb_error *err);

/* runner_loop.c: the cells. */

/* Every cell of the plan not stored yet, on one host or spread over
 * several. OUT: *ret_failed, the cells whose last attempt is not ok. */
int runner_loop_cells(struct run *r, int *ret_failed, struct kb_error *err);
