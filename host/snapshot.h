/* host/snapshot: the store's saved guests for warm start. A snapshot is
 * a guest booted to the agent's `ready` and saved paused by libvirt; every
 * cell whose guest would boot identically may restore it instead of
 * booting. What "identically" means is the key: a SHA-256 over everything
 * that shapes the booted guest (snapshot_key). Snapshots live in
 * <store>/snapshots as <key>.save (libvirt's save image), <key>.json (the
 * manifest: kernel, shape, when and how fast it was made) and
 * <key>.console (the boot's ttyS0 log, the evidence of the boot every warm
 * cell skips). They are a cache: deleting one only costs the next cell a
 * cold boot. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "settings/guest.h"

/* Everything that shapes the booted guest. */
struct snapshot_shape {
        const char *kernel_id;             /* sha256 of the boot image (kstore id) */
        const char *initrd_sha256;         /* content hash of the initramfs */
        const struct guest_shape *guest;   /* RAM, vCPUs, disk and swap sizes and the accelerator take
                                              part; the rest of the guest's shape does not change the
                                              saved machine (the command line is below, whole) */
        const char *bus;                   /* disk bus, "ide" */
        int nic;                           /* 1: user-mode NIC present */
        const char *cmdline;               /* the whole kernel command line of the saved boot */
        const char *qemu_version;
        const char *libvirt_version;
};

#define SNAPSHOT_KEY_LEN 64                /* hex digits */

/* The key of shape: lower-case hex SHA-256 (pure). Every field takes part,
 * each as "name=value\n", so no two shapes share a key by concatenation.
 * NULL strings count as empty. ret must hold SNAPSHOT_KEY_LEN + 1 bytes. */
void snapshot_key(const struct snapshot_shape *shape, char *ret);

/* The UUID the saved guest was booted with (libvirt checks that a restored
 * definition keeps it): the key's first 32 hex digits in 8-4-4-4-12 form.
 * ret must hold 37 bytes. */
void snapshot_uuid(const char *key, char *ret);

/* Lower-case hex SHA-256 of a file's content. OUT: *ret (g_free). */
int snapshot_file_sha256(const char *path, char **ret, struct kb_error *err);

/* <store>/snapshots/<key><suffix>, suffix ".save", ".json" or ".console"
 * (caller frees with g_free). */
char *snapshot_path(const char *store, const char *key, const char *suffix);

/* Write the manifest of a just-saved snapshot (atomically: temporary file,
 * rename). boot_s is the cold boot the snapshot stands for. */
int snapshot_write_manifest(const char *store, const char *key, const struct snapshot_shape *shape,
                            const char *kernel_name, double boot_s, struct kb_error *err);

struct snapshot_info {
        char key[SNAPSHOT_KEY_LEN + 1];
        char *kernel_id;                   /* from the manifest; "" when unreadable */
        char *kernel_name;
        unsigned mem_mb, cpus;
        double created_at;                 /* unix time */
        double boot_s;                     /* the cold boot it replaces */
        uint64_t bytes;                    /* all of its files on disk (allocated blocks) */
        int complete;                      /* save image and manifest both present */
};

/* Every snapshot in the store (a missing directory is an empty list),
 * sorted by key. A manifest that does not parse is listed with an empty
 * kernel id, so it can still be seen and removed. OUT: *ret, *ret_n (free
 * with snapshot_info_free). */
int snapshot_list(const char *store, struct snapshot_info **ret, size_t *ret_n, struct kb_error *err);
void snapshot_info_free(struct snapshot_info *v, size_t n);

/* Delete the snapshot's files (missing ones are fine). */
int snapshot_remove(const char *store, const char *key, struct kb_error *err);

/* Delete every snapshot of the kernel (and any without a readable
 * manifest). OUT: *ret_removed, how many, and *ret_bytes, what they held. */
int snapshot_remove_kernel(const char *store, const char *kernel_id, int *ret_removed, uint64_t *ret_bytes,
                           struct kb_error *err);
