/* host/vm_internal.h: what the rooms of host/vm share, behind vm.h's
 * public interface: the connection and domain records, their reference
 * counting, libvirt's last error, and each room's entry points. vm.c is
 * the connection, its events and a domain's life; vm_serial.c the serial
 * ports; vm_xml.c the domain's XML; vm_caps.c the host's capabilities
 * document; vm_qemu.c who QEMU runs as; vm_embed.c the embedded driver's
 * root and the QEMUs it leaves to kbench. Nothing outside host/vm*.c
 * includes this. */
#pragma once

#include <glib.h>
#include <libvirt/libvirt.h>

#include "common/error.h"
#include "host/vm.h"

struct vm_conn {
        virConnectPtr conn;
        char *uri;
        char *name;                /* how messages name the host (vm_conn_set_name), else the URI */
        int local;                 /* QEMU runs on this host: ttyS1 can be a socket */
        struct vm_qemu_user qemu_user;
        int lifecycle_id;
        int ioerror_id;
        GMutex lock;               /* guards domains */
        GHashTable *domains;       /* name -> struct vm * (borrowed; vm removes itself) */
        GThreadPool *reaper;       /* background destroys */
        volatile gint lost;        /* the connection closed under kbench (the host died) */
        char lost_why[256];        /* why, for the cells and the scheduler; written once before lost */
};

struct vm {
        gint ref;
        struct vm_conn *c;
        char *name;
        virDomainPtr dom;
        virStreamPtr st;           /* ttyS1 as a pty, or NULL */
        virStreamPtr con_st;       /* ttyS0 as a pty (vm_config.console_stream), or NULL */
        int con_fd;                /* what con_st delivers is appended here, or -1 */
        int sock;                  /* ttyS1 as a socket, or -1 */
        int sock_watch;            /* its event-loop handle, or -1 */
        GMutex lock;               /* guards st, con_st, con_fd, sock, sock_watch and closing */
        int closing;
        vm_event_fn fn;
        void *userdata;
        struct vm_times times;     /* written by vm_start/vm_restore before they return */
};

/* Take and drop a reference to vm; the last drop frees it. vm_unref takes
 * a void * so that libvirt can drop the references its callbacks hold. */
struct vm *vm_ref(struct vm *vm);
void vm_unref(void *p);

/* The calling thread's last libvirt error message, never NULL. */
const char *vm_last_error(void);

/* vm_serial.c: open ttyS1 for the paused domain (a socket at
 * cfg->serial_socket, else a pty stream) and, with cfg->console_stream,
 * ttyS0 into cfg->console_path, each watched on the event loop. Returns 0
 * or -errno with err. */
int vm_serial_open(struct vm *vm, const struct vm_config *cfg, struct kb_error *err);
/* Stop delivering the serial ports: no callback runs for vm once this
 * returns. */
void vm_serial_close(struct vm *vm);
/* Whether path fits a unix socket's address (108 bytes with its NUL). */
int vm_serial_socket_fits(const char *path);

/* vm_embed.c: write the embedded URI's root (etc/qemu.conf: QEMU runs as
 * u) and point libvirt's log there. Returns 0 or -errno with err. */
int vm_embed_prepare_root(const char *uri, const struct vm_qemu_user *u, struct kb_error *err);
/* Make kbench the subreaper of the QEMUs the embedded driver starts, and
 * reap them on a thread of its own; once per process. */
void vm_embed_reap_qemus(void);
