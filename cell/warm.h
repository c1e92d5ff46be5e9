/* cell/warm: warm start, the one home of it. Whether a cell restores a
 * snapshot instead of booting: its shape's key (host/snapshot.h, the
 * store's snapshot files), the snapshot made when the store has none, and
 * the snapshots that failed a run, whose later cells of that shape boot
 * cold. Warm start is an optimisation, never a reason for a cell to fail:
 * each outcome says why a cell boots cold, for the run to report.
 *
 * Making a snapshot: a guest of the given shape
 * boots cold with the snapshot's own disk under test, the agent says
 * `ready` and waits for the host (it has not opened the disk, and will not
 * before a cell's go), and libvirt saves it paused into the store
 * (host/snapshot.h says where). That disk is filled with a marker
 * pattern, WARM_MARKER, so that a cell which ever read a block of it
 * instead of its own would show it; every cell checks the disk head the
 * guest reads against its own image (cell.c, "disk-head"). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "cell/cell.h"
#include "common/error.h"
#include "host/snapshot.h"
#include "host/vm.h"
#include "kernels/kstore.h"
#include "settings/guest.h"

/* Written over the first WARM_MARKER_BYTES of the snapshot's disk. */
#define WARM_MARKER "KBENCH SNAPSHOT DISK: NO CELL MAY READ THIS BLOCK\n"
#define WARM_MARKER_BYTES (1u << 20)

/* The guest id the snapshot boots with (kbench.cell=): cells never use it.
 * The --append check leaves room for the longest id. */
#define WARM_CELL_ID "snapshot"
_Static_assert(sizeof(WARM_CELL_ID) - 1 <= GUEST_CELL_ID_MAX, "the --append check counts the snapshot's id");

struct warm_boot {
        const char *store;                 /* the store directory */
        const char *key;                   /* snapshot_key of shape */
        const struct snapshot_shape *shape;
        const char *domain_name;           /* the name every restored guest keeps (libvirt insists) */
        const char *kernel_path;           /* bzImage or PVH vmlinux */
        const char *kernel_name;           /* for the manifest */
        const char *initrd;
        double boot_timeout_s;             /* QEMU start -> ready */
};

struct warm_made {
        double boot_s;                     /* QEMU start -> ready */
        double save_s;                     /* virDomainSaveFlags */
        uint64_t bytes;                    /* the save image */
};

/* Boot, save, write the manifest. On success <key>.save, .json and
 * .console exist; on failure none of them does (nothing is left
 * running). Returns 0 or -errno with err naming the stage. OUT: *ret. */
int warm_make(struct vm_conn *conn, const struct warm_boot *b, struct warm_made *ret, struct kb_error *err);

/* A run's warm starts: what it learnt about its snapshots so far. */
struct warm_run {
        const char *store;                 /* the store directory */
        const char *domain_prefix;         /* snapshot domains' names start with it (the watchdog's) */
        GHashTable *failed;                /* snapshot keys that failed this run: their cells boot cold */
        GHashTable *initrd_sha;            /* a guest image's path -> its content's hash, once needed */
};

/* Empty; the strings are the caller's and must outlive w. Clear with warm_run_clear. */
void warm_run_init(struct warm_run *w, const char *store, const char *domain_prefix);
void warm_run_clear(struct warm_run *w);

/* What a cell's guest boots as, beside its guest's shape. */
struct warm_want {
        const struct kstore_kernel *kernel;
        const char *initrd;                /* the kernel's guest image */
        const struct guest_shape *guest;   /* the cell's (its accelerator resolved) */
        int nic;                           /* 1: the workload has ports, so the guest a NIC */
        const char *qemu_version;          /* the host's */
        const char *libvirt_version;
        double boot_timeout_s;             /* for a snapshot's boot: QEMU start -> ready */
};

/* A cell's warm start: the snapshot it restores, the strings a
 * cell_spec points to. Zero it first; clear with warm_cell_clear. */
struct warm_cell {
        char key[SNAPSHOT_KEY_LEN + 1];
        char uuid[37];
        char *save, *console, *cmdline, *domain;
};

void warm_cell_clear(struct warm_cell *w);

enum warm_start {
        WARM_START_RESTORE,                /* the cell restores the store's snapshot of its shape */
        WARM_START_MADE,                   /* ... the snapshot just made for it (*ret_made) */
        WARM_START_COLD,                   /* it boots cold: its shape's snapshot failed earlier in the run */
        WARM_START_NO_HASH,                /* it boots cold: its guest image could not be read (err) */
        WARM_START_NO_SNAPSHOT,            /* it boots cold, and so do the run's later cells of its shape: no
                                              snapshot could be made (err) */
};

/* Point spec at the snapshot of want's shape, making it first when the
 * store has none (the boot it costs is the one cold boot of that shape);
 * events, if not NULL, hears the stage "snapshot" before that boot. w
 * owns what spec then points to. Returns how the cell starts; err says
 * why for WARM_START_NO_HASH and WARM_START_NO_SNAPSHOT. OUT: *ret_made
 * for WARM_START_MADE. */
enum warm_start warm_cell_start(struct warm_run *wr, struct vm_conn *conn, const struct warm_want *want,
                                struct cell_spec *spec, struct warm_cell *w, const struct kb_sink *events,
                                struct warm_made *ret_made, struct kb_error *err);

/* After a cell that restored w (or none: w zeroed): a snapshot that failed
 * it is removed, and the run's later cells of its shape boot cold. Returns
 * 0, or -errno with err when its files could not be removed. */
int warm_cell_after(struct warm_run *wr, const struct warm_cell *w, const struct cell_result *res,
                    struct kb_error *err);
