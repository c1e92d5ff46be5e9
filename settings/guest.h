/* settings/guest: the shape of a cell's guest as one struct. A run's
 * settings hold it (settings/runopts.c fills it from the options), the
 * runner completes it with the accelerator it resolved, and cell/, the
 * warm-start snapshots and host/vm_xml.c take it whole, so a guest setting is
 * one field read where it is used, never a copy made field by field at
 * every layer it passes. Also the kernel command line every guest boots
 * with, since the extra arguments of the shape must fit beside kbench's
 * own (the option check and the cell compose it from the same constants). */
#pragma once

#include <stdint.h>

struct guest_shape {
        const char *accel;                 /* "kvm" or "tcg" as resolved by the runner (a run's settings
                                              record it as "accel"); never "auto" */
        unsigned mem_mb;                   /* RAM, MiB */
        unsigned cpus;                     /* vCPUs */
        uint64_t disk_bytes;               /* the disk under test, bytes */
        uint64_t disk_mbps;                /* the disk's throttle, MB/s (10^6 bytes/s); 0: unthrottled */
        const char *disk_bus;              /* a row of common/diskbus.h: ide, ahci, virtio-blk, virtio-scsi */
        const char *fs;                    /* made on the host with mkfs.<fs> */
        const char *mount_opts;            /* "" for none */
        uint64_t swap_bytes;               /* the swap disk, bytes; 0: none */
        const char *append;                /* extra kernel command line, or NULL */
};

/* The throttle in the unit of libvirt's iotune. */
static inline uint64_t guest_disk_bytes_per_s(const struct guest_shape *g) {
        return g->disk_mbps * 1000000;
}

/* x86's COMMAND_LINE_SIZE: the kernel keeps this many bytes of its command
 * line, the NUL included, and drops the rest without a word. */
#define GUEST_CMDLINE_SIZE 2048
/* What every command line starts with; the cell id follows. */
#define GUEST_CMDLINE_BASE "console=ttyS0,115200 panic=-1 rdinit=/init kbench.cell="
/* The longest cell id a command line carries: a plan's key ("c99999") or
 * the warm-start snapshot's ("snapshot", cell/warm.h checks it fits). */
#define GUEST_CELL_ID_MAX 8

/* The kernel command line of a guest that names itself cell_id, with the
 * extra arguments append (may be NULL). Caller frees with g_free. */
char *guest_cmdline(const char *cell_id, const char *append);
