/* run/hosts: the libvirt hosts a run's cells run on. By default one: the
 * embedded driver in the store, on this machine. `--connect [NAME=]URI`,
 * given once or more, names others: each is opened, asked what it is (its
 * name, CPU, QEMU and libvirt, a row of the store's hosts table) and, when
 * kbench cannot reach its files (any URI but the embedded driver's), gets
 * its storage pool, through which its cells' files travel (cell/remote.h).
 * A host is part of what a cell measured: a named host's cells carry its
 * name in their params, so compare never pairs cells of two hosts. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cell/cell.h"
#include "cell/remote.h"
#include "common/error.h"
#include "host/pool.h"
#include "host/vm.h"
#include "settings/guest.h"

struct run_host {
        char *name;                        /* NAME of --connect NAME=URI, else the URI; NULL: the run's
                                              one host (the embedded driver, or the one URI given without
                                              a name), which cells do not name */
        char *uri;
        unsigned slots;                    /* cells it runs at once */
        struct vm_conn *conn;
        struct vm_host_info info;
        struct pool *pool;                 /* NULL: kbench reaches its files (the embedded driver) */
        struct remote_host *remote;        /* with pool: the cell ops' context */
        int64_t db_id;                     /* hosts.id */
        const struct vm_qemu_user *qemu_user; /* who QEMU runs as, whom the cells' files are handed to;
                                              NULL: QEMU reaches them as kbench (a pool's host, a fake) */
        char *hostload_root;               /* where this host's /proc is read (cell_spec.hostload_root:
                                              "" the real one); NULL: QEMU runs elsewhere, load unknown */
        const char *accel;                 /* "kvm" or "tcg", resolved on this host */
        char *accel_why;
        struct guest_shape guest;          /* the run's guest, with this host's accelerator */
};

/* Split "NAME=URI" or "URI" (a URI's scheme comes before any '='). NAME
 * is 1-64 of [A-Za-z0-9._-]. OUT: *ret_name (NULL when none given) and
 * *ret_uri, g_free'd. Returns 0 or -EINVAL with err quoting the text (its
 * caller names where it came from: --connect, a night's hosts[i]). */
int run_host_spec_parse(const char *text, char **ret_name, char **ret_uri, struct kb_error *err);

/* Whether uri is kbench's own embedded driver (files reachable, no pool). */
int run_host_uri_embedded(const char *uri);

/* Open the host of spec ("[NAME=]URI"; NULL: the run's own, at
 * default_uri), learn what it is, and prepare its pool when it needs one
 * (pool_dir: where to make one, NULL the default). OUT: *ret. Returns 0 or
 * -errno with err naming the host. */
int run_host_open(const char *spec, const char *default_uri, unsigned slots, const char *pool_dir,
                  struct run_host *ret, struct kb_error *err);
void run_host_clear(struct run_host *h);

/* How messages name h: its name, or its URI. */
const char *run_host_label(const struct run_host *h);

/* The cell operations for h and their context. */
const struct cell_vm_ops *run_host_ops(const struct run_host *h, void **ret_ctx);

/* How a run reaches its hosts: libvirt (run_host_open, run_host_ops) for
 * every real run; a scripted fake in the unit tests (run/fakehost.h), so
 * that the runner's loop goes through boots, crashes, hangs, lost hosts
 * and contended cells without a guest. The narrowest seam that covers
 * both ends of a cell: opening its host, and the VM operations a cell
 * starts its guest and learns its end through (cell/cell.h). */
struct run_host_backend {
        /* As run_host_open; ctx is the backend's. */
        int (*open)(void *ctx, const char *spec, const char *default_uri, unsigned slots, const char *pool_dir,
                    struct run_host *ret, struct kb_error *err);
        /* As run_host_ops: the cell operations of h opened by open. */
        const struct cell_vm_ops *(*vm_ops)(void *ctx, const struct run_host *h, void **ret_ctx);
        void *ctx;
};

/* The real backend: libvirt, through host/vm.c and cell/remote.c. */
extern const struct run_host_backend run_host_libvirt;
