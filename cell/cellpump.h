/* cell/cellpump: the state of one living cell and the pump that moves it,
 * shared by the rooms of cell/ that work on it (cell.c starts and ends
 * it, cellrecord.c applies the agent's records, cellhost.c adds what the
 * host observes); nothing outside cell/ includes it.
 *
 * Threads: the libvirt event loop delivers ttyS1 bytes and lifecycle events
 * to cellpump_on_vm_event(), which frames lines and queues them; the
 * cell's own thread (the caller of cell_run) pops the queue with a short
 * timeout and runs the state machine and the staged timeouts; a host
 * phase, if the workload has one, runs on a third thread and reports back
 * through the same queue. All cell state is owned by the caller's thread. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

#include "cell/cell.h"
#include "cell/cellprof.h"
#include "host/console.h"
#include "host/guestcount.h"
#include "host/hostload.h"
#include "host/insncount.h"

enum cellpump_msg_kind { MSG_LINE, MSG_EOF, MSG_STOPPED, MSG_IO_ERROR, MSG_HOST_DONE, MSG_HOST_LOST };

struct cellpump_msg {
        enum cellpump_msg_kind kind;
        double t;                          /* arrival, s since QEMU start */
        int status;                        /* MSG_HOST_DONE: r */
        size_t len;                        /* MSG_LINE: bytes in text */
        char *text;                        /* MSG_LINE: a ttyS1 line; STOPPED: detail; HOST_DONE: error */
};

enum cellpump_stage { STAGE_BOOT, STAGE_READY_WAIT, STAGE_RUN, STAGE_DONE };

struct cell {
        const struct cell_vm_ops *ops;
        void *ctx;                         /* what ops->start got */
        const struct cell_spec *spec;
        struct cell_result *res;
        struct vm *vm;
        GAsyncQueue *q;
        int64_t t0_us;                     /* monotonic at QEMU start */
        struct console_lines lines;        /* event-loop thread only */
        GMutex data_lock;                  /* guards res->data and res->points from other threads */

        enum cellpump_stage stage;
        enum endstate_stop stop;           /* why the pump stopped (set with stage DONE) */
        char *stop_detail;                 /* what came with it, or NULL */
        const char *console_path;          /* ttyS0 log */
        off_t ready_console_len;           /* ttyS0 bytes when ready arrived (crash before/after) */
        struct console_stream stream;      /* ttyS1 accounting */
        double last_record_t;
        double go_t, ready_t, done_t;
        double restored_t, hello_t;        /* a warm start: restore returned, hello sent (cell clock, s) */
        double ready_timeout_s;            /* boot timeout, or CELL_WARM_READY_S after a restore */
        off_t console_head;                /* bytes of the snapshot's boot log before this cell's console */
        uint32_t disk_head;                /* CRC-32 of the image's first 4 KiB (cellprep.c) */
        GPtrArray *out_lines;              /* char*: the job's stdout and stderr */
        GPtrArray *agent_logs;             /* char*: "log" records */
        GPtrArray *host_notes;             /* char*: what the host noted about the cell */
        GPtrArray *events;                 /* char* */
        GArray *event_t;                   /* double */

        /* host phase */
        GThread *host_thread;
        struct workload_host host;
        struct metric_list host_metrics;
        volatile int host_cancel;
        struct kb_error host_err;
        int host_done;

        /* host load over the workload window, go -> done (hostload.h) */
        int qemu_pid;                      /* 0: unknown, see load_note */
        int load_started, load_known;      /* start snapshot taken; figures computed */
        struct hostload_snap load_start;
        struct hostload_figures load;
        char load_note[256];               /* why the figures are unknown */

        /* guest instructions at the job's phase marks (insncount.h) */
        int insn_fd;                       /* the plugin's counter file, -1: no counts */
        int insn_loaded;                   /* a read found the plugin's magic */
        struct insncount_marks insn_marks;
        int insn_late_noted;               /* the note on phase marks without a marker is made */
        /* without the plugin (KVM): the guest PMU's totals for the next phase mark */
        struct insncount_totals pmu_at;
        int pmu_fresh;                     /* pmu_at awaits its phase mark */
        int pmu_lost;                      /* a mark came without its totals: keep no PMU counts */
        /* where the kernel's instructions went (cellprof.h) */
        struct cellprof prof;
        int syms_wait;                     /* the job is done; the guest's symbol table is still coming */

        /* the guest kernel's counters at the phase marks, its memory at the
         * job's start and end (guestcount.h) */
        struct guestcount_marks gc_marks;
        struct guestcount_totals gc_at;    /* the counters sent for the next phase mark */
        int gc_fresh;                      /* gc_at awaits its phase mark */
        struct guestcount_memory mem_start, mem_end;

        /* host block statistics of the disk under test over the same window */
        int blk_on;                        /* sampling: between go and done, until a read fails */
        double blk_next;                   /* s since QEMU start of the next reading */
};

/* Seconds since QEMU start, on the cell's monotonic clock. */
double cellpump_now(const struct cell *c);
/* Queue a message for the cell's thread (any thread). text, len bytes, is
 * copied; NULL: none. */
void cellpump_push(struct cell *c, enum cellpump_msg_kind kind, int status, const char *text, size_t len);
/* Free a queued message (the queue's free function). */
void cellpump_msg_free(gpointer p);
/* The vm_event_fn of the cell's domain; userdata is the struct cell. */
void cellpump_on_vm_event(void *userdata, enum vm_event ev, const char *data, size_t len);
/* Bytes in the cell's ttyS0 log now (0 when it cannot be read). */
off_t cellpump_console_size(const struct cell *c);
/* The pump stops at the first reason; the end state is decided from the
 * facts afterwards (endstate.c). Later reasons are ignored. detail is
 * copied; NULL: none. */
void cellpump_stop(struct cell *c, enum endstate_stop why, const char *detail);
/* The event pump: records from ttyS1, domain events, the host phase and
 * the staged timeouts, until the first reason to stop (cellpump_stop). */
void cellpump_run(struct cell *c, const struct workload_env *env, const struct kb_sink *events);
