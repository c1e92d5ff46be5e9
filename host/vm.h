/* host/vm: everything that talks to libvirt. One connection per kbench
 * process with an event-loop thread (the embedded driver needs it); transient
 * domains built from struct vm_config; ttyS1 opened as a libvirt console
 * stream before the guest runs (VIR_DOMAIN_START_PAUSED, open, resume) so no
 * byte is lost; lifecycle events and stream data delivered to a callback on
 * the event-loop thread. Nothing here knows about cells or workloads. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "settings/guest.h"

struct vm_conn;
struct vm;

/* The user kbench's embedded driver runs QEMU as when kbench is root. */
#define VM_QEMU_USER "libvirt-qemu"
/* The NIC of a cell with port forwards. autonegotiation=off: QEMU's e1000
 * otherwise reports link 0.5 s after the driver opens it, and Linux's
 * driver looks again only at its next 2 s watchdog run. */
#define VM_NIC_DEVICE "e1000,netdev=kbnet,autonegotiation=off"

/* The KVM device whose group QEMU runs in (tests pass another path). */
#define VM_KVM_DEV "/dev/kvm"

/* Who QEMU runs as. set = 0: kbench is not root, so the embedded driver
 * runs QEMU as kbench's own user (or the URI is not embedded and the
 * daemon's qemu.conf decides); nothing is handed over then. */
struct vm_qemu_user {
        int set;
        uid_t uid;
        gid_t gid;                 /* the group owning /dev/kvm, else the user's own (vm_qemu.c) */
        char gid_why[64];          /* "/dev/kvm's group kvm", "libvirt-qemu's group" */
};

/* Who QEMU will run as under kbench's embedded driver: VM_QEMU_USER when
 * kbench runs as root, else no one else. Returns 0, or -ENOENT with a
 * one-line err naming the missing user and tools/setup.sh, or -EPERM when
 * VM_KVM_DEV belongs to group root (err names the commands that give it
 * its kvm group). OUT: *ret. */
int vm_qemu_user_get(struct vm_qemu_user *ret, struct kb_error *err);

/* The same for the user called name and the KVM device kvm_dev, whoever
 * kbench runs as (for tests). */
int vm_qemu_user_lookup(const char *name, const char *kvm_dev, struct vm_qemu_user *ret, struct kb_error *err);

/* Whether user u may search every directory on the way to path (symlinks
 * resolved) and, with need_file, read path itself. Returns 0, or -EACCES
 * with err naming the first directory in the way, its mode and owner, and
 * what the store needs. A no-op (0) when u is not set. */
int vm_qemu_can_reach(const struct vm_qemu_user *u, const char *path, int need_file, struct kb_error *err);

/* Hand path (a cell's own disk, swap image, console log or directory) to
 * the QEMU user: chown to u's uid and gid. A no-op (0) when u is not set.
 * Returns 0 or -errno with err naming path. */
int vm_qemu_hand_over(const struct vm_qemu_user *u, const char *path, struct kb_error *err);

/* Make path a zero-filled file of size bytes, mode 0600, that QEMU (a
 * plugin) writes through a shared mapping, handed to u (u may be NULL).
 * Allocated, not sparse: a page first touched on a full filesystem (a full
 * host disk, which a cell must survive paused) would kill QEMU with
 * SIGBUS. Replaces what was there. Returns 0 or -errno with err naming
 * path. */
int vm_qemu_file_create(const char *path, size_t size, const struct vm_qemu_user *u, struct kb_error *err);

/* Whether u can open kvm_dev (VM_KVM_DEV) read-write (1), cannot (0), or
 * there is no such device or no driver behind it (-1). libvirt throws its capability cache away
 * whenever this differs from what its probe saw (vm_qemu.c). */
int vm_qemu_kvm_usable(const struct vm_qemu_user *u, const char *kvm_dev);

struct vm_forward {
        uint16_t host;             /* host port, bound to 127.0.0.1 only */
        uint16_t guest;            /* guest port */
};

struct vm_config {
        const char *name;          /* unique domain name */
        const char *uuid;          /* "8-4-4-4-12" hex; NULL lets libvirt pick one (a
                                      restored definition must keep the saved guest's) */
        const struct guest_shape *guest;   /* accel, RAM, vCPUs and the throttle of hda; the disks
                                              themselves are the paths below */
        const char *kernel;        /* bzImage or PVH vmlinux */
        const char *initrd;
        const char *cmdline;
        const char *disk;          /* raw image on guest->disk_bus (hda, sda or vda), cache=none, a
                                      host I/O error pauses the guest; NULL = none */
        const char *swap_disk;     /* second disk on the same bus (hdb, ...), NULL = none */
        const char *console_path;  /* ttyS0 is written to this file */
        int console_stream;        /* 1: ttyS0 is a pty read through libvirt and appended to
                                      console_path here (a host whose files kbench cannot read);
                                      0: QEMU writes console_path itself */
        const char *serial_socket; /* ttyS1 as a unix socket at this path (libvirt makes it),
                                      kbench's channel to the agent; on a remote connection,
                                      or when NULL, ttyS1 is a pty opened through libvirt */
        size_t n_forwards;         /* > 0 adds user-mode networking with an e1000 NIC */
        struct vm_forward forwards[8];
        const char *plugin;        /* TCG only: QEMU loads this plugin (plugin/kbinsn.c) with
                                      out=plugin_out; NULL = none */
        const char *plugin_out;    /* the plugin's counter file (host/insncount.h) */
        const char *prof_plugin;   /* TCG only, with plugin: QEMU loads this profile plugin too
                                      (plugin/kbprof.c) with out=prof_out; NULL = none */
        const char *prof_out;      /* its file (host/kprof.h) */
};

/* Whether path can be handed to QEMU's -plugin option: absolute, and
 * without the comma that QEMU splits its value at. */
int vm_plugin_path_ok(const char *path);

/* What the event loop reports for a running domain. */
enum vm_event {
        VM_EVENT_DATA,             /* bytes from ttyS1 (data, len) */
        VM_EVENT_EOF,              /* ttyS1 stream closed or failed */
        VM_EVENT_STOPPED,          /* domain stopped; detail: "shutdown", "crashed", "destroyed", ... */
        VM_EVENT_HOST_LOST,        /* the connection to the domain's host closed (vm_conn_lost) */
        VM_EVENT_IO_ERROR,         /* paused on a host I/O error (disks have error_policy='stop');
                                      detail: "enospc on PATH (ALIAS)", or "paused on an I/O error" */
};
typedef void (*vm_event_fn)(void *userdata, enum vm_event ev, const char *data, size_t len);

/* Connect to uri; for an embedded URI (qemu:///embed?root=DIR) the root is
 * prepared first (etc/qemu.conf: as root, QEMU runs as VM_QEMU_USER, see
 * vm_embed.c; the root must be reachable by that user). Starts the event-loop
 * thread. OUT: *ret, free with vm_conn_free. */
int vm_conn_new(const char *uri, struct vm_conn **ret, struct kb_error *err);
struct vm_conn *vm_conn_free(struct vm_conn *c);

/* Whether the connection closed under kbench (its host died or became
 * unreachable); *ret_why, valid as long as c, says so in one line. */
int vm_conn_lost(const struct vm_conn *c, const char **ret_why);

/* The URI c was opened with; valid as long as c. */
const char *vm_conn_uri(const struct vm_conn *c);

/* Name c's host in its messages (a lost host) as name, not its URI. Call
 * before its domains start. */
void vm_conn_set_name(struct vm_conn *c, const char *name);

/* c's libvirt connection, for the other modules of host/ that speak
 * libvirt (pool.c); valid as long as c. */
struct _virConnect *vm_conn_virt(struct vm_conn *c);

/* What a host is, as far as a measurement depends on it. */
struct vm_host_info {
        char *hostname;            /* the host's own name (virConnectGetHostname) */
        char *cpu_model;           /* "Intel Skylake-Client-IBRS" from the capabilities, or "unknown" */
        char *qemu_version;        /* "7.2.0" */
        char *libvirt_version;     /* the daemon's */
        unsigned cpus;             /* host CPUs online */
        uint64_t mem_kib;          /* host memory */
        long qemu_uid, qemu_gid;   /* who the daemon runs QEMU as (its DAC base label); -1: unknown */
};

/* Ask c's host what it is. OUT: *ret (vm_host_info_clear). Returns 0 or
 * -EIO with err quoting libvirt. */
int vm_conn_host_info(struct vm_conn *c, struct vm_host_info *ret, struct kb_error *err);
void vm_host_info_clear(struct vm_host_info *h);

/* The parts of a libvirt capabilities document kbench uses. */
struct vm_caps {
        char cpu_vendor[64];       /* host/cpu/vendor, "" when absent */
        char cpu_model[128];       /* host/cpu/model, "" when absent */
        long qemu_uid, qemu_gid;   /* secmodel dac, baselabel type='qemu' "+UID:+GID"; -1 absent */
};

/* Parse a capabilities document (untrusted: it comes from the host).
 * Returns 0, or -EINVAL when it is not well-formed XML. OUT: *ret. Pure. */
int vm_caps_parse(const char *xml, size_t len, struct vm_caps *ret);

/* Who the connection's QEMU runs as (set only for an embedded URI with
 * kbench as root); valid as long as c. */
const struct vm_qemu_user *vm_conn_qemu_user(const struct vm_conn *c);

/* Hypervisor versions as "9.0.0" strings (caller frees with g_free). */
int vm_conn_versions(struct vm_conn *c, char **ret_qemu, char **ret_libvirt, struct kb_error *err);

/* The domain XML for config (pure; caller frees with g_free). */
char *vm_domain_xml(const struct vm_config *config);

/* Create the transient domain paused, open serial1 (config->serial_socket,
 * or a libvirt stream) delivering to fn on the event-loop thread, then
 * resume. OUT: *ret. On failure nothing is left running. */
int vm_start(struct vm_conn *c, const struct vm_config *config, vm_event_fn fn, void *userdata,
             struct vm **ret, struct kb_error *err);

/* Where vm_start or vm_restore spent its time, for the cell's log: a warm
 * cell's boot_s is mostly these. */
struct vm_times {
        double create_s;                   /* virDomainCreateXML or virDomainRestoreFlags (+ lookup), seconds */
        double serial_s;                   /* opening and watching serial1, seconds */
        int serial_socket;                 /* serial1 was a socket (else a pty) */
        double resume_s;                   /* virDomainResume, seconds */
};

/* OUT: *ret, the times of the call that made vm. */
void vm_get_times(const struct vm *vm, struct vm_times *ret);

/* Save the running guest to path (libvirt's save image; with the embedded
 * driver path must be inside its root's reach, the store) and end the
 * domain: events stop first, so the cell sees no EOF or stop. The image
 * resumes paused (VIR_DOMAIN_SAVE_PAUSED). vm is freed whatever the
 * result. Returns 0 or -EIO with err. */
int vm_save(struct vm *vm, const char *path, struct kb_error *err);

/* Restore the save image at path as a new domain defined by config (its
 * name, uuid, disks, console path and forwards; the rest must match the
 * saved guest, libvirt checks), paused, open serial1, resume: the same
 * contract as vm_start. The image is left in place. */
int vm_restore(struct vm_conn *c, const char *path, const struct vm_config *config, vm_event_fn fn,
               void *userdata, struct vm **ret, struct kb_error *err);

/* libvirt's tainting messages for the running domain ("custom-argv", ...).
 * OUT: *ret, a NULL-terminated string vector (g_strfreev), possibly empty. */
int vm_taints(struct vm *vm, char ***ret, struct kb_error *err);

/* libvirt's block statistics of one disk of the running domain. */
struct vm_block_stats {
        int64_t rd_bytes;          /* cumulative since the domain started; -1: not reported */
        int64_t wr_bytes;
        int64_t rd_reqs;
        int64_t wr_reqs;
};

/* Room for a disk's target name in the domain ("hda", "vdb"), with the NUL. */
#define VM_DISK_TARGET_MAX 8

/* The target name libvirt gives disk index (0: vm_config.disk, the disk
 * under test; 1: swap_disk) on g's bus: what vm_block_stats takes. OUT: ret. */
void vm_disk_target(const struct guest_shape *g, int index, char ret[VM_DISK_TARGET_MAX]);

/* Read the block statistics of disk target dev (virDomainBlockStats: the
 * hypervisor's counters, so it works over a remote URI too). Returns 0,
 * -EIO with err quoting libvirt, or -ETIMEDOUT when QEMU does not answer
 * within a few seconds (a frozen QEMU: the call is left to fail when the
 * domain stops, it never blocks the caller longer). Thread-safe. OUT: *ret. */
int vm_block_stats(struct vm *vm, const char *dev, struct vm_block_stats *ret, struct kb_error *err);

/* Send bytes to ttyS1. Returns 0 or -errno. Thread-safe. */
int vm_send(struct vm *vm, const char *data, size_t len, struct kb_error *err);

/* Stop delivering events, destroy the domain if it still runs, free vm.
 * With background = 1 the destroy runs on a worker thread (it can take ~2 s
 * under the embedded driver) and vm_conn_free waits for it. Accepts NULL. */
void vm_stop(struct vm *vm, int background);
