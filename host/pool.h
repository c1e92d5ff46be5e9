/* host/pool: what a cell needs on a libvirt host whose files kbench cannot
 * read or write, staged through libvirt's storage API. kbench keeps one
 * directory storage pool on such a host (named KBENCH_POOL, at a path the
 * host list names); the kernel, the guest image and the TCG plugin are
 * uploaded into it once and kept under names made from their content, a
 * cell's disks are uploaded as sparse streams and removed with the cell,
 * and the instruction counts come back by download. No ssh and no copy
 * of kbench's own: libvirt is the only channel to the host. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "host/vm.h"

#define KBENCH_POOL "kbench"
/* Where kbench makes its pool on a host that has none. */
#define POOL_DEFAULT_DIR "/var/lib/libvirt/kbench"

struct pool;

/* The pool KBENCH_POOL of c's host, made (a directory pool at dir, or
 * POOL_DEFAULT_DIR when dir is NULL) and started when the host has none.
 * qemu_uid and qemu_gid (-1: unknown) own what QEMU must write outside a
 * disk (the counts file). OUT: *ret, freed with pool_free. */
int pool_open(struct vm_conn *c, const char *dir, long qemu_uid, long qemu_gid, struct pool **ret,
              struct kb_error *err);
struct pool *pool_free(struct pool *p);

/* The pool's directory on the host. */
const char *pool_dir(const struct pool *p);

/* The file local on the host, uploaded once: the volume is named
 * "<kind>-<sha256 prefix>" and counts as there only when its upload
 * finished (a marker volume says so), so a cut upload is made again.
 * kind is [a-z0-9-]. OUT: *ret_path, the file on the host (g_free).
 * *ret_uploaded (may be NULL): 1 when it was sent now, 0 when it was there. */
int pool_stage_file(struct pool *p, const char *local, const char *kind, char **ret_path, int *ret_uploaded,
                    struct kb_error *err);

/* A cell's own file: local uploaded as the volume name, holes kept as
 * holes (a fresh filesystem image is mostly holes). Replaces a volume of
 * that name. OUT: *ret_path (g_free). */
int pool_put_sparse(struct pool *p, const char *local, const char *name, char **ret_path, struct kb_error *err);

/* A volume of bytes zero bytes, allocated (not sparse: QEMU may write it
 * through a shared mapping, where a page the host's filesystem cannot back
 * kills QEMU), owned by the QEMU user, for QEMU to write. OUT: *ret_path. */
int pool_put_blank(struct pool *p, const char *name, uint64_t bytes, char **ret_path, struct kb_error *err);

/* Download the volume name into buf (at most cap bytes). OUT: *ret_len. */
int pool_get(struct pool *p, const char *name, void *buf, size_t cap, size_t *ret_len, struct kb_error *err);

/* Remove the volume name; a missing one is no error. */
int pool_remove(struct pool *p, const char *name, struct kb_error *err);

/* Remove the cell volumes (cell/remote.c's names) whose domain is gone and
 * which are over POOL_REAP_AGE_S old: a kbench killed mid-cell left them;
 * its domains went with its connection (they are started to be destroyed
 * when it closes). The age spares the volumes of a cell another kbench is
 * staging now, before its domain exists. Returns how many, or -EIO with
 * err. */
#define POOL_REAP_AGE_S 3600
int pool_reap(struct pool *p, struct kb_error *err);

/* The modification time (whole seconds) in a volume's XML description
 * (libvirt's <timestamps><mtime>). Returns 0, or -EINVAL when it has none. */
int pool_vol_mtime(const char *xml, int64_t *ret_s);

/* Whether name is fit for a volume: 1-200 bytes of [A-Za-z0-9._-], not
 * starting with a dot. Pure. */
int pool_name_ok(const char *name);
