/* cell/warm: making a warm-start snapshot. A guest of the given shape
 * boots cold with the snapshot's own disk under test, the agent says
 * `ready` and waits for the host (it has not opened the disk, and will not
 * before a cell's go), and libvirt saves it paused into the store
 * (host/snapshot.h says where). That disk is filled with a marker
 * pattern, WARM_MARKER, so that a cell which ever read a block of it
 * instead of its own would show it; every cell checks the disk head the
 * guest reads against its own image (cell.c, "disk-head"). */
#pragma once

#include <stdint.h>

#include "common/error.h"
#include "host/snapshot.h"
#include "host/vm.h"
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
