/* cell/cell: one cell's life. A cell is one boot of one kernel running one
 * workload once: fresh disk, domain start, ready/go handshake on ttyS1, the
 * job with its vmstat stream, an optional host phase (FTP upload), staged
 * timeouts, and exactly one end state. The result carries everything that
 * goes into the database; cell.c never touches the database itself. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "common/error.h"
#include "common/event.h"
#include "cell/endstate.h"
#include "host/vm.h"
#include "kernels/ksyms.h"
#include "kernels/kstore.h"
#include "settings/guest.h"
#include "workloads/workload.h"

struct cell_spec {
        const char *key;                   /* stable id within the run, "c003" */
        const char *domain_prefix;         /* unique per kbench process */
        const struct kstore_kernel *kernel;
        const struct workload_spec *workload;
        int iteration;
        int attempt;                       /* 1-based; later attempts get their own domain name */
        const struct guest_shape *guest;   /* RAM, vCPUs, disks (mkfs.<fs> on the host), throttle, command
                                              line, accelerator */
        const char *initrd;
        const char *work_dir;              /* scratch directory for this cell's files */
        const struct vm_qemu_user *qemu_user; /* the cell's disks and console log are handed to it
                                              (vm_qemu_hand_over); NULL: QEMU runs as kbench */
        const char *const *agent_lines;    /* "set NAME VALUE" lines of the run options (runopts_agent_lines) */
        double deadline_s;                 /* whole-cell limit */
        double boot_timeout_s;             /* QEMU start -> agent ready */
        double silence_timeout_s;          /* longest gap between ttyS1 records while running */
        const char *hostload_root;         /* this host's /proc is under it ("" = /proc); NULL: QEMU
                                              runs elsewhere (remote URI), host load unknown */
        double contended_pct;              /* foreign CPU above this marks the cell contended, % */
        const char *insn_plugin;           /* under TCG, QEMU loads this plugin and the cell gets
                                              guest.*_Minsn counts (host/insncount.h); NULL: none */
        const char *prof_plugin;           /* with insn_plugin, QEMU loads this one too and the cell gets
                                              a profile of its kernel's instructions (cell/cellprof.h);
                                              NULL: none */
        const volatile int *stop;          /* set nonzero: the cell ends as infra-error "interrupted";
                                              NULL: cell_interrupted */
        /* Warm start (cell/warm.c): the guest is restored from this
         * snapshot instead of booted; NULL boots cold. */
        const char *snapshot;              /* libvirt save image */
        const char *snapshot_console;      /* its boot's ttyS0 log, the head of the cell's console */
        const char *snapshot_uuid;         /* the saved guest's UUID (a restored definition keeps it) */
        const char *snapshot_cmdline;      /* the saved guest's kernel command line */
        const char *snapshot_domain;       /* the saved guest's domain name (a restored one keeps it) */
};

struct cell_vmstat_line {
        char *type;                        /* "vmstat-header", "vmstat-boot", "vmstat" */
        char *text;
        int64_t seq;
        double t_host;                     /* s since QEMU start */
        double t_guest;                    /* guest monotonic s */
};

/* One fd-3 event of the job ("phase write", "sync-start"), on both clocks,
 * so the vmstat rows (host arrival times) can be cut at the job's phases. */
struct cell_event {
        char *name;
        double t_host;                     /* s since QEMU start, arrival of the record */
        double t_guest;                    /* guest monotonic s */
};

/* One reading of libvirt's block statistics of the disk under test. */
struct cell_hostblk {
        double t;                          /* s since QEMU start, when the call returned */
        struct vm_block_stats s;
};

/* How often the host reads the block statistics over the workload window. */
#define CELL_HOSTBLK_INTERVAL_S 1.0

struct cell_point {
        const char *kind;                  /* interned */
        double t;                          /* s since QEMU start */
        double value;
};

#define CELL_DISK_DRIVER_MAX 95           /* bytes of a disk-driver record kept */

struct cell_result {
        const char *state;                 /* one of CELL_* */
        char detail[512];                  /* one line: stage reached, quoted line, error */
        int retryable;                     /* infra-error worth another attempt */
        int host_failed;                   /* the host failed (disk full): stop the run */
        int contended;                     /* ok, but foreign CPU over spec->contended_pct in the window */
        int warm;                          /* 1: restored from spec->snapshot, 0: booted cold */
        int snapshot_failed;               /* the snapshot did not restore (the cell booted cold): delete it */
        double started_at;                 /* unix time of QEMU start */
        double boot_s;                     /* QEMU start -> agent ready (NAN if never) */
        double workload_s;                 /* go -> done (NAN if never) */
        double total_s;                    /* QEMU start -> end of the cell */
        int exit_code;                     /* job exit code, -1 if none */
        long rejected;                     /* ttyS1 lines rejected */
        char *release;                     /* from the ready record */
        struct metric_list metrics;        /* the workload's, and CELL_METRIC_WARM */
        GArray *vmstat;                    /* struct cell_vmstat_line */
        GArray *points;                    /* struct cell_point */
        GArray *events;                    /* struct cell_event, in arrival order */
        GArray *hostblk;                   /* struct cell_hostblk: go, every second, done */
        char hostblk_note[256];            /* why the host block figures are unknown, "" if known */
        char disk_driver[CELL_DISK_DRIVER_MAX + 1]; /* drivers the guest bound the disk under test to, the
                                              disk's first ("sd ahci", "virtio_blk virtio-pci"); "" unknown */
        GString *console;                  /* ttyS0, whole */
        GString *data;                     /* raw ttyS1 */
        char *script;                      /* the job script sent */
        GPtrArray *sysctls;                /* char*: "key=value" of each sysctl the agent was sent, as it
                                              read the value back after writing it */
        GString *output;                   /* the job's stdout/stderr lines and agent logs */
        GArray *profile;                   /* struct cell_profile_row (cell/cellprof.h): an ok cell's
                                              kernel instructions per phase and function; NULL or empty:
                                              no profile */
        struct ksyms *ksyms;               /* the symbol table the profile was resolved with, or NULL */
        int ksyms_fresh;                   /* the guest sent ksyms in this cell: the store should keep it */
};

/* How a cell reaches its VM: host/vm.h for real cells, a scripted fake
 * in the unit tests (test-cell.c), so the pump and the end-state rule run
 * without booting. Same contracts as vm_start, vm_restore, vm_send,
 * vm_taints, vm_block_stats, vm_stop. */
struct cell_vm_ops {
        int (*start)(void *ctx, const struct vm_config *config, vm_event_fn fn, void *userdata,
                     struct vm **ret, struct kb_error *err);
        int (*restore)(void *ctx, const char *path, const struct vm_config *config, vm_event_fn fn,
                       void *userdata, struct vm **ret, struct kb_error *err);
        int (*send)(struct vm *vm, const char *data, size_t len, struct kb_error *err);
        int (*taints)(struct vm *vm, char ***ret, struct kb_error *err);
        /* NULL: the host's block statistics are not read (host.disk_* unknown). */
        int (*block_stats)(struct vm *vm, const char *dev, struct vm_block_stats *ret, struct kb_error *err);
        void (*stop)(void *ctx, struct vm *vm, int background);
        void (*times)(const struct vm *vm, struct vm_times *ret);  /* optional: vm_get_times */
        /* Optional: whether ctx's host was lost, and why (vm_conn_lost). */
        int (*lost)(void *ctx, const char **ret_why);
};

/* The operations of a cell on a host whose files kbench reaches (the
 * embedded driver): host/vm.h's, with the vm_conn as their ctx. */
extern const struct cell_vm_ops cell_local_vm_ops;

/* cell_run through ops, ctx being what ops->start gets (the vm_conn for the
 * real ops). */
int cell_run_ops(const struct cell_vm_ops *ops, void *ctx, const struct cell_spec *spec, struct cell_result *ret,
                 const struct kb_sink *events, struct kb_error *err);

/* Run one cell to its end state. Returns 0 when the cell ran (whatever its
 * state; see ret->state), -errno only when the cell could not be attempted
 * (e.g. the scratch dir is unwritable), with err. OUT: *ret (clear with
 * cell_result_clear). events, if not NULL, hears each stage the cell
 * reaches (KB_EVENT_CELL_STAGE: "disk", "boot", "run", ...). */
int cell_run(struct vm_conn *conn, const struct cell_spec *spec, struct cell_result *ret,
             const struct kb_sink *events, struct kb_error *err);
void cell_result_clear(struct cell_result *r);

/* The part of a workload's environment that the guest's shape sets: its
 * RAM, vCPUs, the disk under test and where the guest mounts it (ports
 * and seed are the cell's). Writes those fields of *ret only. */
void cell_workload_env(const struct guest_shape *g, struct workload_env *ret);

/* The metric every cell carries: 1 restored from a snapshot, 0 booted. */
#define CELL_METRIC_WARM "boot_warm"

/* How long a restored guest may take to answer the hello with its ready
 * before the snapshot counts as broken and the cell boots cold. */
#define CELL_WARM_READY_S 15.0

/* The process's stop request: set by cli/'s SIGINT and SIGTERM handler
 * (the verb table's CLI_SIGNALS); the running cell of a spec without its
 * own stop flag ends as infra-error "interrupted", and the pumps start no
 * other. */
extern volatile int cell_interrupted;
