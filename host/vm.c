/* host/vm.c: the libvirt layer (see vm.h): the connection, its events and
 * a domain's life. One event-loop thread per connection runs libvirt's
 * default event implementation; ttyS1 data and domain lifecycle events are
 * delivered from it to the per-domain callback. A struct vm is
 * reference-counted because the event loop may still hold it while the
 * cell that owns it lets go. Its rooms (host/vm_internal.h): the serial
 * ports (vm_serial.c), the domain XML (vm_xml.c), the capabilities
 * document (vm_caps.c), who QEMU runs as (vm_qemu.c) and the embedded
 * driver (vm_embed.c). */
#include <errno.h>
#include <glib.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "host/hostload.h"
#include "host/vm.h"
#include "host/vm_internal.h"

struct vm *vm_ref(struct vm *vm) {
        g_atomic_int_inc(&vm->ref);
        return vm;
}

void vm_unref(void *p) {
        struct vm *vm = p;

        if (!vm || !g_atomic_int_dec_and_test(&vm->ref))
                return;
        if (vm->dom)
                virDomainFree(vm->dom);
        g_mutex_clear(&vm->lock);
        g_free(vm->name);
        g_free(vm);
}

const char *vm_last_error(void) {
        const char *m = virGetLastErrorMessage();
        return m && *m ? m : "unknown libvirt error";
}

static void silent_error(void *userdata, virErrorPtr e) {
        /* Errors are taken with virGetLastErrorMessage() where they matter;
         * libvirt's default handler would print each one a second time. */
}

/* libvirt's default event loop is one per process, and only one thread may
 * run it: every connection shares this one, started with the first and
 * ended with the last. */
static GMutex loop_lock;
static int loop_users;
static GThread *loop;
static volatile gint loop_quit;

static gpointer loop_thread(gpointer unused) {
        while (!g_atomic_int_get(&loop_quit))
                if (virEventRunDefaultImpl() < 0)
                        break;
        return NULL;
}

static void wake_noop(int timer, void *opaque) {
}

static void loop_acquire(void) {
        g_mutex_lock(&loop_lock);
        if (loop_users++ == 0) {
                g_atomic_int_set(&loop_quit, 0);
                loop = g_thread_new("kbench-virt-loop", loop_thread, NULL);
        }
        g_mutex_unlock(&loop_lock);
}

static void loop_release(void) {
        g_mutex_lock(&loop_lock);
        if (--loop_users == 0) {
                g_atomic_int_set(&loop_quit, 1);
                virEventAddTimeout(0, wake_noop, NULL, NULL);
                g_thread_join(loop);
                loop = NULL;
        }
        g_mutex_unlock(&loop_lock);
}

static const char *stopped_detail(int detail) {
        switch (detail) {
        case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN: return "shutdown";
        case VIR_DOMAIN_EVENT_STOPPED_DESTROYED: return "destroyed";
        case VIR_DOMAIN_EVENT_STOPPED_CRASHED: return "crashed";
        case VIR_DOMAIN_EVENT_STOPPED_FAILED: return "failed";
        case VIR_DOMAIN_EVENT_STOPPED_MIGRATED: return "migrated";
        default: return "stopped";
        }
}

/* Hand ev to the callback of the domain called name, if it is ours. */
static void deliver(struct vm_conn *c, const char *name, enum vm_event ev, const char *what) {
        struct vm *vm;

        if (!name || !what)
                return;
        g_mutex_lock(&c->lock);
        vm = g_hash_table_lookup(c->domains, name);
        if (vm)
                vm_ref(vm);
        g_mutex_unlock(&c->lock);
        if (!vm)
                return;
        g_mutex_lock(&vm->lock);
        if (!vm->closing)
                vm->fn(vm->userdata, ev, what, strlen(what));
        g_mutex_unlock(&vm->lock);
        vm_unref(vm);
}

static int lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque) {
        if (event == VIR_DOMAIN_EVENT_STOPPED)
                deliver(opaque, virDomainGetName(dom), VM_EVENT_STOPPED, stopped_detail(detail));
        else if (event == VIR_DOMAIN_EVENT_CRASHED)
                deliver(opaque, virDomainGetName(dom), VM_EVENT_STOPPED, "crashed");
        else if (event == VIR_DOMAIN_EVENT_SUSPENDED && detail == VIR_DOMAIN_EVENT_SUSPENDED_IOERROR)
                deliver(opaque, virDomainGetName(dom), VM_EVENT_IO_ERROR, "paused on an I/O error");
        return 0;
}

/* error_policy='stop' pauses the guest on a host I/O error; this event says
 * which file and why ("enospc" when the host filesystem is full). */
static void ioerror_cb(virConnectPtr conn, virDomainPtr dom, const char *src, const char *alias, int action,
                       const char *reason, void *opaque) {
        g_autofree char *what = g_strdup_printf("%s on %s (%s)", reason && *reason ? reason : "I/O error",
                                                src && *src ? src : "?", alias && *alias ? alias : "?");

        if (action == VIR_DOMAIN_EVENT_IO_ERROR_PAUSE)
                deliver(opaque, virDomainGetName(dom), VM_EVENT_IO_ERROR, what);
}

/* The connection closed under kbench: the daemon died, the network or
 * the keepalive gave up. Every domain of it ends for its cell as a host
 * failure (VM_EVENT_HOST_LOST), so no cell waits out its timeouts for a
 * guest it can no longer see. */
static void close_cb(virConnectPtr conn, int reason, void *opaque) {
        struct vm_conn *c = opaque;
        static const char *const why[] = { "connection error", "end of file", "keepalive timeout",
                                           "closed by the client" };
        GPtrArray *names;

        if (g_atomic_int_get(&c->lost))
                return;
        g_snprintf(c->lost_why, sizeof(c->lost_why), "libvirt host %s lost: %s", c->name ? c->name : c->uri,
                   reason >= 0 && reason < (int)G_N_ELEMENTS(why) ? why[reason] : "closed");
        g_atomic_int_set(&c->lost, 1);
        names = g_ptr_array_new_with_free_func(g_free);
        g_mutex_lock(&c->lock);
        {
                GHashTableIter it;
                gpointer key;

                g_hash_table_iter_init(&it, c->domains);
                while (g_hash_table_iter_next(&it, &key, NULL))
                        g_ptr_array_add(names, g_strdup(key));
        }
        g_mutex_unlock(&c->lock);
        for (guint i = 0; i < names->len; i++)
                deliver(c, names->pdata[i], VM_EVENT_HOST_LOST, c->lost_why);
        g_ptr_array_unref(names);
}

int vm_conn_lost(const struct vm_conn *c, const char **ret_why) {
        if (!g_atomic_int_get(&c->lost))
                return 0;
        if (ret_why)
                *ret_why = c->lost_why;
        return 1;
}

const char *vm_conn_uri(const struct vm_conn *c) {
        return c->uri;
}

void vm_conn_set_name(struct vm_conn *c, const char *name) {
        g_free(c->name);
        c->name = g_strdup(name);
}

struct _virConnect *vm_conn_virt(struct vm_conn *c) {
        return c->conn;
}

static void reap(gpointer data, gpointer user_data) {
        vm_stop(data, 0);
}

#define TEST_DRIVER_FILE_MAX (16u << 20)  /* bytes of a test driver's XML; its examples are a few KiB */

/* libvirt's test driver reads the file its URI names (test:///PATH, all
 * but test:///default) with libxml2, which waits on a FIFO and prints its
 * own "I/O warning" on stderr for a missing file: the file is checked as
 * every file kbench is given is, first. Returns 0 or -errno with err. */
static int check_test_uri(const char *uri, struct kb_error *err) {
        g_autofree char *path = NULL;
        int r;

        if (!g_str_has_prefix(uri, "test:///"))
                return 0;
        path = g_strndup(uri + strlen("test://"), strcspn(uri + strlen("test://"), "?#"));
        if (strcmp(path, "/default") == 0)
                return 0;
        r = fileio_check(path, TEST_DRIVER_FILE_MAX, err);
        return r < 0 ? error_prefix(err, r, "libvirt: cannot connect to %s", uri) : 0;
}

int vm_conn_new(const char *uri, struct vm_conn **ret, struct kb_error *err) {
        static gsize once;
        struct vm_qemu_user u = { 0 };
        struct vm_conn *c;
        int r = check_test_uri(uri, err);

        if (r < 0)
                return r;

        if (strstr(uri, "/embed")) {
                r = vm_qemu_user_get(&u, err);
                if (r < 0)
                        return r;
                r = vm_embed_prepare_root(uri, &u, err);
                if (r < 0)
                        return r;
                vm_embed_reap_qemus();
        }
        if (g_once_init_enter(&once)) {
                virSetErrorFunc(NULL, silent_error);
                if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
                        return error_setf(err, -EIO, "libvirt: cannot initialize: %s", vm_last_error());
                g_once_init_leave(&once, 1);
        }
        c = g_new0(struct vm_conn, 1);
        c->qemu_user = u;
        c->uri = g_strdup(uri);
        c->local = hostload_uri_local(uri);
        g_mutex_init(&c->lock);
        c->domains = g_hash_table_new(g_str_hash, g_str_equal);
        c->lifecycle_id = c->ioerror_id = -1;
        loop_acquire();
        c->conn = virConnectOpen(uri);
        if (!c->conn) {
                const char *why = vm_last_error();
                r = error_setf(err, -EIO, "libvirt: cannot connect to %s: %s", uri, why);
                vm_conn_free(c);
                return r;
        }
        /* Over the remote driver a host that vanishes (power, network)
         * closes nothing: keepalives find it within about 20 s. The
         * embedded driver has no keepalive, and needs none. */
        if (!strstr(uri, "/embed"))
                virConnectSetKeepAlive(c->conn, 5, 3);
        virConnectRegisterCloseCallback(c->conn, close_cb, c, NULL);
        c->lifecycle_id = virConnectDomainEventRegisterAny(c->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
                                                           VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), c, NULL);
        if (c->lifecycle_id < 0) {
                r = error_setf(err, -EIO, "libvirt: cannot register for domain events: %s", vm_last_error());
                vm_conn_free(c);
                return r;
        }
        c->ioerror_id = virConnectDomainEventRegisterAny(c->conn, NULL, VIR_DOMAIN_EVENT_ID_IO_ERROR_REASON,
                                                         VIR_DOMAIN_EVENT_CALLBACK(ioerror_cb), c, NULL);
        if (c->ioerror_id < 0) {
                r = error_setf(err, -EIO, "libvirt: cannot register for I/O error events: %s", vm_last_error());
                vm_conn_free(c);
                return r;
        }
        c->reaper = g_thread_pool_new(reap, NULL, 1, FALSE, NULL);
        *ret = c;
        return 0;
}

struct vm_conn *vm_conn_free(struct vm_conn *c) {
        if (!c)
                return NULL;
        if (c->reaper)
                g_thread_pool_free(c->reaper, FALSE, TRUE);
        if (c->conn && c->lifecycle_id >= 0)
                virConnectDomainEventDeregisterAny(c->conn, c->lifecycle_id);
        if (c->conn && c->ioerror_id >= 0)
                virConnectDomainEventDeregisterAny(c->conn, c->ioerror_id);
        if (c->conn) {
                virConnectUnregisterCloseCallback(c->conn, close_cb);
                virConnectClose(c->conn);
        }
        loop_release();
        g_hash_table_destroy(c->domains);
        g_mutex_clear(&c->lock);
        g_free(c->uri);
        g_free(c->name);
        g_free(c);
        return NULL;
}

const struct vm_qemu_user *vm_conn_qemu_user(const struct vm_conn *c) {
        return &c->qemu_user;
}

static char *version_str(unsigned long v) {
        return g_strdup_printf("%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

int vm_conn_versions(struct vm_conn *c, char **ret_qemu, char **ret_libvirt, struct kb_error *err) {
        unsigned long hv = 0, lv = 0;

        if (virConnectGetVersion(c->conn, &hv) < 0 || virConnectGetLibVersion(c->conn, &lv) < 0)
                return error_setf(err, -EIO, "libvirt: cannot read versions: %s", vm_last_error());
        *ret_qemu = version_str(hv);
        *ret_libvirt = version_str(lv);
        return 0;
}

int vm_conn_host_info(struct vm_conn *c, struct vm_host_info *ret, struct kb_error *err) {
        struct vm_host_info h = { .qemu_uid = -1, .qemu_gid = -1 };
        char *caps_xml = virConnectGetCapabilities(c->conn), *name = virConnectGetHostname(c->conn);
        virNodeInfo node;
        struct vm_caps caps;
        int r;

        if (!caps_xml || !name) {
                r = error_setf(err, -EIO, "libvirt: cannot read what host %s is: %s", c->uri, vm_last_error());
                free(caps_xml);
                free(name);
                return r;
        }
        r = vm_conn_versions(c, &h.qemu_version, &h.libvirt_version, err);
        if (r < 0) {
                free(caps_xml);
                free(name);
                return r;
        }
        /* The host's own word, printed in one-line messages and stored:
         * bounded, and printable only. */
        h.hostname = g_strndup(name, 255);
        for (char *q = h.hostname; *q; q++)
                if (!g_ascii_isgraph(*q))
                        *q = '?';
        if (vm_caps_parse(caps_xml, strlen(caps_xml), &caps) == 0 && caps.cpu_model[0]) {
                h.cpu_model = caps.cpu_vendor[0] ? g_strdup_printf("%s %s", caps.cpu_vendor, caps.cpu_model)
                                                 : g_strdup(caps.cpu_model);
                h.qemu_uid = caps.qemu_uid;
                h.qemu_gid = caps.qemu_gid;
        } else
                h.cpu_model = g_strdup("unknown");
        if (virNodeGetInfo(c->conn, &node) == 0) {
                h.cpus = node.cpus;
                h.mem_kib = node.memory;
        }
        free(caps_xml);
        free(name);
        *ret = h;
        return 0;
}

void vm_host_info_clear(struct vm_host_info *h) {
        g_free(h->hostname);
        g_free(h->cpu_model);
        g_free(h->qemu_version);
        g_free(h->libvirt_version);
        memset(h, 0, sizeof(*h));
}

/* A struct vm for config, registered so events reach fn. */
static struct vm *vm_new(struct vm_conn *c, const struct vm_config *cfg, vm_event_fn fn, void *userdata) {
        struct vm *vm = g_new0(struct vm, 1);

        vm->ref = 1;
        vm->sock = vm->sock_watch = vm->con_fd = -1;
        vm->c = c;
        vm->name = g_strdup(cfg->name);
        vm->fn = fn;
        vm->userdata = userdata;
        g_mutex_init(&vm->lock);
        g_mutex_lock(&c->lock);
        g_hash_table_insert(c->domains, vm->name, vm);
        g_mutex_unlock(&c->lock);
        return vm;
}

/* The paused domain exists: open serial1, then let it run. */
static int vm_attach_and_resume(struct vm *vm, const struct vm_config *cfg, int64_t t0, struct kb_error *err) {
        int64_t t1 = g_get_monotonic_time();
        int r;

        vm->times.create_s = (double)(t1 - t0) / 1e6;
        vm->times.serial_socket = cfg->serial_socket != NULL;
        r = vm_serial_open(vm, cfg, err);
        if (r < 0)
                return r;
        vm->times.serial_s = (double)(g_get_monotonic_time() - t1) / 1e6;
        t1 = g_get_monotonic_time();
        if (virDomainResume(vm->dom) < 0)
                return error_setf(err, -EIO, "libvirt: cannot resume %s: %s", vm->name, vm_last_error());
        vm->times.resume_s = (double)(g_get_monotonic_time() - t1) / 1e6;
        return 0;
}

void vm_get_times(const struct vm *vm, struct vm_times *ret) {
        *ret = vm->times;
}

/* cfg as this connection runs it: ttyS1 is a socket only where kbench can
 * reach one, on this host, and where its path fits a unix socket's (a
 * deep store: then a pty, slower to answer a restored guest, see
 * vm_serial.c). */
static struct vm_config conn_config(const struct vm_conn *c, const struct vm_config *cfg) {
        struct vm_config r = *cfg;

        if (!c->local || (r.serial_socket && !vm_serial_socket_fits(r.serial_socket)))
                r.serial_socket = NULL;
        return r;
}

/* The paused domain of vm from xml: created, or (path not NULL) restored
 * from the save image at path. */
static int vm_define_paused(struct vm *vm, const char *path, const char *xml, struct kb_error *err) {
        if (!path) {
                /* A daemon outlives kbench: its domains go when kbench's
                 * connection closes, however kbench ended (the embedded
                 * driver's go with kbench's watchdog, store/watchdog.c). */
                vm->dom = virDomainCreateXML(vm->c->conn, xml, VIR_DOMAIN_START_PAUSED |
                                             (strstr(vm->c->uri, "/embed") ? 0 : VIR_DOMAIN_START_AUTODESTROY));
                if (!vm->dom)
                        return error_setf(err, -EIO, "libvirt: cannot create domain %s: %s", vm->name, vm_last_error());
                return 0;
        }
        if (virDomainRestoreFlags(vm->c->conn, path, xml, VIR_DOMAIN_SAVE_PAUSED) < 0)
                return error_setf(err, -EIO, "libvirt: cannot restore %s as %s: %s", path, vm->name, vm_last_error());
        vm->dom = virDomainLookupByName(vm->c->conn, vm->name);
        if (!vm->dom)
                return error_setf(err, -EIO, "libvirt: restored %s but cannot find it: %s", vm->name, vm_last_error());
        return 0;
}

/* vm_start (path NULL) and vm_restore: the domain, paused, then serial1
 * open, then running. */
static int vm_bring_up(struct vm_conn *c, const char *path, const struct vm_config *config, vm_event_fn fn,
                       void *userdata, struct vm **ret, struct kb_error *err) {
        const struct vm_config conf = conn_config(c, config), *cfg = &conf;
        g_autofree char *xml = vm_domain_xml(cfg);
        struct vm *vm = vm_new(c, cfg, fn, userdata);
        int64_t t0 = g_get_monotonic_time();
        int r = vm_define_paused(vm, path, xml, err);

        if (r >= 0)
                r = vm_attach_and_resume(vm, cfg, t0, err);
        if (r < 0) {
                vm_stop(vm, 0);
                return r;
        }
        *ret = vm;
        return 0;
}

int vm_start(struct vm_conn *c, const struct vm_config *config, vm_event_fn fn, void *userdata,
             struct vm **ret, struct kb_error *err) {
        return vm_bring_up(c, NULL, config, fn, userdata, ret, err);
}

int vm_restore(struct vm_conn *c, const char *path, const struct vm_config *config, vm_event_fn fn,
               void *userdata, struct vm **ret, struct kb_error *err) {
        return vm_bring_up(c, path, config, fn, userdata, ret, err);
}

int vm_save(struct vm *vm, const char *path, struct kb_error *err) {
        int r = 0;

        /* The save ends the domain: the owner must not take that for the
         * guest's death, so events stop before it. */
        vm_serial_close(vm);
        if (virDomainSaveFlags(vm->dom, path, NULL, VIR_DOMAIN_SAVE_PAUSED) < 0)
                r = error_setf(err, -EIO, "libvirt: cannot save %s to %s: %s", vm->name, path, vm_last_error());
        vm_stop(vm, 0);
        return r;
}

int vm_taints(struct vm *vm, char ***ret, struct kb_error *err) {
        char **msgs = NULL;
        int n = virDomainGetMessages(vm->dom, &msgs, VIR_DOMAIN_MESSAGE_TAINTING);
        char **v;

        if (n < 0)
                return error_setf(err, -EIO, "%s: cannot read domain messages: %s", vm->name, vm_last_error());
        v = g_new0(char *, (size_t)n + 1);
        for (int i = 0; i < n; i++) {
                v[i] = g_strdup(msgs[i]);
                free(msgs[i]);
        }
        free(msgs);
        *ret = v;
        return 0;
}

/* One virDomainBlockStats call, made on a thread of its own. The call waits
 * for QEMU's monitor, and a frozen QEMU (SIGSTOP, a wedged device model)
 * never answers: the caller's thread is the cell's event pump, whose hang
 * watchdog is what ends such a cell, so the caller gives up after
 * VM_BLOCK_STATS_WAIT_S and leaves the call behind. The call holds a
 * reference to the vm and returns (failing) once the cell stops QEMU; the
 * last of caller and call frees the record. */
#define VM_BLOCK_STATS_WAIT_S 5

struct blk_call {
        struct vm *vm; /* a reference */
        char *dev;
        GMutex lock;
        GCond cond;
        int refs, done, rc;
        virDomainBlockStatsStruct st;
        char why[256];
};

static void blk_call_unref(struct blk_call *bc) {
        int last;

        g_mutex_lock(&bc->lock);
        last = --bc->refs == 0;
        g_mutex_unlock(&bc->lock);
        if (!last)
                return;
        vm_unref(bc->vm);
        g_free(bc->dev);
        g_mutex_clear(&bc->lock);
        g_cond_clear(&bc->cond);
        g_free(bc);
}

static gpointer blk_call_main(gpointer data) {
        struct blk_call *bc = data;
        int rc = virDomainBlockStats(bc->vm->dom, bc->dev, &bc->st, sizeof(bc->st));

        g_mutex_lock(&bc->lock);
        bc->rc = rc;
        if (rc < 0)
                g_strlcpy(bc->why, vm_last_error(), sizeof(bc->why)); /* libvirt's errors are per thread */
        bc->done = 1;
        g_cond_signal(&bc->cond);
        g_mutex_unlock(&bc->lock);
        blk_call_unref(bc);
        return NULL;
}

int vm_block_stats(struct vm *vm, const char *dev, struct vm_block_stats *ret, struct kb_error *err) {
        int64_t deadline = g_get_monotonic_time() + VM_BLOCK_STATS_WAIT_S * G_USEC_PER_SEC;
        struct blk_call *bc;
        GThread *t;
        int r = 0;

        if (!vm || !vm->dom)
                return error_setf(err, -EIO, "no domain to read block statistics of");
        bc = g_new0(struct blk_call, 1);
        bc->vm = vm_ref(vm);
        bc->dev = g_strdup(dev);
        bc->refs = 2;
        g_mutex_init(&bc->lock);
        g_cond_init(&bc->cond);
        t = g_thread_try_new("vm-blockstats", blk_call_main, bc, NULL);
        if (!t) {
                bc->refs = 1;
                blk_call_unref(bc);
                return error_setf(err, -EAGAIN, "%s: cannot start a thread to read block statistics", vm->name);
        }
        g_thread_unref(t);
        g_mutex_lock(&bc->lock);
        while (!bc->done)
                if (!g_cond_wait_until(&bc->cond, &bc->lock, deadline))
                        break;
        if (!bc->done)
                r = error_setf(err, -ETIMEDOUT, "%s: QEMU did not answer for the block statistics of %s within %d s",
                               vm->name, dev, VM_BLOCK_STATS_WAIT_S);
        else if (bc->rc < 0)
                r = error_setf(err, -EIO, "%s: cannot read block statistics of %s: %s", vm->name, dev, bc->why);
        else
                /* libvirt says -1 for a field the hypervisor does not report. */
                *ret = (struct vm_block_stats){
                        .rd_bytes = bc->st.rd_bytes < 0 ? -1 : bc->st.rd_bytes,
                        .wr_bytes = bc->st.wr_bytes < 0 ? -1 : bc->st.wr_bytes,
                        .rd_reqs = bc->st.rd_req < 0 ? -1 : bc->st.rd_req,
                        .wr_reqs = bc->st.wr_req < 0 ? -1 : bc->st.wr_req,
                };
        g_mutex_unlock(&bc->lock);
        blk_call_unref(bc);
        return r;
}

void vm_stop(struct vm *vm, int background) {
        if (!vm)
                return;
        vm_serial_close(vm);
        g_mutex_lock(&vm->c->lock);
        if (g_hash_table_lookup(vm->c->domains, vm->name) == vm)
                g_hash_table_remove(vm->c->domains, vm->name);
        g_mutex_unlock(&vm->c->lock);

        if (background && vm->c->reaper) {
                g_thread_pool_push(vm->c->reaper, vm, NULL);
                return;
        }
        if (vm->dom && virDomainIsActive(vm->dom) == 1)
                virDomainDestroy(vm->dom);
        vm_unref(vm);
}
