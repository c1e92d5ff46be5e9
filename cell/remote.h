/* cell/remote: a cell on a libvirt host that kbench reaches only through
 * libvirt (another machine, or a daemon of its own: one of several hosts
 * of a run). Its cell_vm_ops stage what the domain needs into the host's
 * storage pool (host/pool.h) before the start, the kernel, the guest image
 * and the TCG plugin once per content and the cell's fresh disks every
 * time, read ttyS0 and ttyS1 as console streams, and bring the counter
 * file back when the domain ends. The cell itself (cell.c) is the same as
 * on the local host; only these operations differ. */
#pragma once

#include "cell/cell.h"
#include "host/pool.h"
#include "host/vm.h"

struct remote_host;

/* The cell ops for a remote host; their ctx is a struct remote_host. */
extern const struct cell_vm_ops remote_vm_ops;

/* A remote host over conn and its pool (both borrowed: they must outlive
 * it). Thread-safe: cells on several slots of one host share it. */
struct remote_host *remote_host_new(struct vm_conn *conn, struct pool *pool);
struct remote_host *remote_host_free(struct remote_host *h);

/* Stage the file local (a kernel, a guest image, the plugin) on the host
 * ahead of its cells, so the first cell's time holds no upload. kind names
 * the volume's kind ([a-z0-9-]). OUT: *ret_uploaded (may be NULL): 1 when
 * it was sent now. Starting a cell stages what was not staged before. */
int remote_host_stage(struct remote_host *h, const char *local, const char *kind, int *ret_uploaded,
                      struct kb_error *err);
