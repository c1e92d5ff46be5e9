/* common/diskbus: the buses a guest's disks can sit on, as one table. Each
 * row says everything that differs between buses: the libvirt target bus
 * and device names, the controller the domain needs, how the guest agent
 * finds the disk under test and the swap disk, the kernel modules the guest
 * image carries for it and the drivers the guest kernel must have. The
 * option table (settings/runopts.c), the domain XML (host/vm_xml.c), the cell,
 * the runner's guest image and the static guest agent all read this one
 * table, so it lives in common/: plain data, no host library. */
#pragma once

#include <stddef.h>

#define DISKBUS_DEFAULT "ide"
#define DISKBUS_NAME_MAX 16                /* bytes of a bus name, without the NUL */

struct diskbus {
        const char *name;                  /* --disk-bus value: ide, ahci, virtio-blk, virtio-scsi */
        const char *target_bus;            /* libvirt <target bus=...> */
        char target_prefix[3];             /* libvirt <target dev=...> before its letter: hd, sd, vd */
        const char *controller;            /* libvirt <controller> element the disks need; NULL: the
                                              machine's own (PIIX IDE of 'pc') */
        const char *disk, *swap;           /* the agent's "set disk"/"set swap" address of each disk */
        const char *serial_disk, *serial_swap; /* libvirt <serial> of each disk, what "serial:" addresses
                                              name; NULL: none (IDE keeps QEMU's own) */
        const char *const *modules;        /* guest image modules (kmod resolves their dependencies),
                                              NULL-terminated */
        const char *const *drivers;        /* "BUS/DRIVER" under /sys/bus/.../drivers the guest kernel
                                              must have, built in or loaded; NULL-terminated */
};

/* The table, terminated by a row with name == NULL; the first row is the
 * default. */
extern const struct diskbus diskbus_table[];

/* The row called name, or NULL (name may be NULL). */
const struct diskbus *diskbus_find(const char *name);

/* name if it is a bus, else the default's: stored settings and old runs
 * without the key read as IDE. Never NULL. */
const struct diskbus *diskbus_get(const char *name);

/* The names of every bus joined by sep ("ide, ahci, ..."), into buf
 * (truncated to size). Returns buf. */
char *diskbus_names(const char *sep, char *buf, size_t size);
