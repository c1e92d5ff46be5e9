/* vm.c: the libvirt layer (see vm.h). One event-loop thread per connection
 * runs libvirt's default event implementation; ttyS1 data and domain
 * lifecycle events are delivered from it to the per-domain callback. A struct
 * vm is reference-counted because the event loop may still hold it while the
 * cell that owns it lets go.
 *
 * ttyS1 is a unix socket that libvirt creates and kbench connects to, on a
 * local connection; a pty opened with virDomainOpenConsole over a remote
 * one. The pty costs a restored guest most of a second: QEMU reads a pty
 * the host opened only after its once-a-second poll for the other end
 * (chardev/char-pty.c), and a restored guest's first input is the hello. A
 * socket is accepted at once. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/diskbus.h"
#include "common/fileio.h"
#include "host/hostload.h"
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

static struct vm *vm_ref(struct vm *vm) {
        g_atomic_int_inc(&vm->ref);
        return vm;
}

static void vm_unref(void *p) {
        struct vm *vm = p;

        if (!vm || !g_atomic_int_dec_and_test(&vm->ref))
                return;
        if (vm->dom)
                virDomainFree(vm->dom);
        g_mutex_clear(&vm->lock);
        g_free(vm->name);
        g_free(vm);
}

static const char *last_error(void) {
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

/* ---- who QEMU runs as ------------------------------------------------- */

/* A device node with no driver behind it (a container's /dev/kvm on a host
 * without the kvm module) opens with ENODEV or ENXIO even for root. libvirt's
 * probe then finds no KVM, so QEMU must run in a group that cannot open the
 * node either, or the cache check would disagree with the probe. */
static int kvm_dev_dead(const char *kvm_dev) {
        int fd;

        if (geteuid() != 0)
                return 0;
        fd = open(kvm_dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0) {
                close(fd);
                return 0;
        }
        return errno == ENODEV || errno == ENXIO;
}

int vm_qemu_user_lookup(const char *name, const char *kvm_dev, struct vm_qemu_user *ret, struct kb_error *err) {
        struct vm_qemu_user u = { 0 };
        struct passwd *pw;
        struct group *gr;
        struct stat st;

        pw = getpwnam(name);
        if (!pw)
                return error_setf(err, -ENOENT, "the user %s does not exist: kbench runs QEMU as it, never as "
                                  "root (run tools/setup.sh, or: useradd --system --no-create-home "
                                  "--shell /usr/sbin/nologin %s)", name, name);
        if (pw->pw_uid == 0)
                return error_setf(err, -EPERM, "the user %s has uid 0: QEMU would run as root (give it a "
                                  "uid of its own: tools/setup.sh)", name);
        u.set = 1;
        u.uid = pw->pw_uid;
        /* The group is /dev/kvm's own. libvirt probes QEMU with
         * CAP_DAC_OVERRIDE, so the probe always finds KVM; its cache check
         * (virQEMUCapsIsValid) then asks whether user:group may open
         * /dev/kvm and, when not, throws the cache away and probes again,
         * in every process and on every domain start (~4 s a probe). Taking
         * the device's group here makes the two agree whatever the host
         * calls that group and whether or not setup.sh added the user to
         * it (usermod -aG kvm would depend on both).
         * A /dev/kvm of group root (a host without udev leaves it
         * root:root 0600) is refused rather than worked around: QEMU in
         * its own group could not open it, and libvirt would then probe
         * again in every process (docs/design.md, "Who QEMU runs as"). */
        if (stat(kvm_dev, &st) == 0 && !kvm_dev_dead(kvm_dev)) {
                u.gid = st.st_gid;
                gr = getgrgid(st.st_gid);
                if (gr)
                        g_snprintf(u.gid_why, sizeof(u.gid_why), "%s's group %s", kvm_dev, gr->gr_name);
                else
                        g_snprintf(u.gid_why, sizeof(u.gid_why), "%s's group %u", kvm_dev, (unsigned)st.st_gid);
        } else {
                u.gid = pw->pw_gid;
                g_snprintf(u.gid_why, sizeof(u.gid_why), "%s's group", name);
        }
        if (u.gid == 0)
                return error_setf(err, -EPERM, "%s belongs to group root (mode %04o): QEMU would run in group "
                                  "root; give it the kvm group as Debian's udev rule does: bash tools/setup.sh "
                                  "(or: groupadd --system kvm; chgrp kvm %s; chmod 0660 %s)", kvm_dev,
                                  (unsigned)(st.st_mode & 07777), kvm_dev, kvm_dev);
        *ret = u;
        return 0;
}

int vm_qemu_user_get(struct vm_qemu_user *ret, struct kb_error *err) {
        if (geteuid() != 0) {
                *ret = (struct vm_qemu_user){ 0 };
                return 0;
        }
        return vm_qemu_user_lookup(VM_QEMU_USER, VM_KVM_DEV, ret, err);
}

/* May u (its uid, group and supplementary groups) do what mask asks of st,
 * by the mode bits (ACLs are not read: a refusal names the directory). */
static int mode_allows(const struct vm_qemu_user *u, const struct stat *st, mode_t mask) {
        struct passwd *pw = getpwuid(u->uid);
        gid_t groups[256];
        int n = G_N_ELEMENTS(groups), in_group = st->st_gid == u->gid;

        if (st->st_uid == u->uid)
                return (st->st_mode & (mask << 6)) == (mask << 6);
        if (!in_group && pw && getgrouplist(pw->pw_name, u->gid, groups, &n) >= 0)
                for (int i = 0; i < n && !in_group; i++)
                        in_group = groups[i] == st->st_gid;
        if (in_group)
                return (st->st_mode & (mask << 3)) == (mask << 3);
        return (st->st_mode & mask) == mask;
}

static int deny(const struct vm_qemu_user *u, const char *path, const char *what, const char *dir,
                const struct stat *st, struct kb_error *err) {
        struct passwd *pw = getpwuid(st->st_uid);

        return error_setf(err, -EACCES, "%s: QEMU runs as %s, which cannot %s %s (mode %04o, owner %s); "
                          "keep the store where %s can reach it (--store DIR or KBENCH_HOME; as root the "
                          "default is /var/lib/kbench)", path, VM_QEMU_USER, what, dir,
                          (unsigned)(st->st_mode & 07777), pw ? pw->pw_name : "?", VM_QEMU_USER);
}

int vm_qemu_can_reach(const struct vm_qemu_user *u, const char *path, int need_file, struct kb_error *err) {
        char real[PATH_MAX];
        struct stat st;
        char *p;

        if (!u || !u->set)
                return 0;
        if (!realpath(path, real))
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        /* Every directory from / down, the path itself when it is one. */
        for (p = real;; p++) {
                if (*p == '/' || *p == '\0') {
                        char c = *p;

                        *p = '\0';
                        if (stat(*real ? real : "/", &st) < 0)
                                return error_setf(err, -errno, "%s: %s", *real ? real : "/", g_strerror(errno));
                        if (S_ISDIR(st.st_mode) && !mode_allows(u, &st, S_IXOTH))
                                return deny(u, path, "enter", *real ? real : "/", &st, err);
                        if (!S_ISDIR(st.st_mode) && need_file && !mode_allows(u, &st, S_IROTH))
                                return deny(u, path, "read", real, &st, err);
                        *p = c;
                        if (c == '\0')
                                break;
                }
        }
        return 0;
}

int vm_qemu_hand_over(const struct vm_qemu_user *u, const char *path, struct kb_error *err) {
        if (!u || !u->set)
                return 0;
        if (chown(path, u->uid, u->gid) < 0)
                return error_setf(err, -errno, "%s: cannot hand it to %s: %s", path, VM_QEMU_USER, g_strerror(errno));
        return 0;
}

int vm_qemu_file_create(const char *path, size_t size, const struct vm_qemu_user *u, struct kb_error *err) {
        int fd, e;

        if (unlink(path) < 0 && errno != ENOENT)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        e = posix_fallocate(fd, 0, (off_t)size);
        close(fd);
        if (e != 0) {
                unlink(path);
                return error_setf(err, -e, "%s: %s", path, g_strerror(e));
        }
        return vm_qemu_hand_over(u, path, err);
}

int vm_qemu_kvm_usable(const struct vm_qemu_user *u, const char *kvm_dev) {
        struct stat st;

        if (stat(kvm_dev, &st) < 0 || kvm_dev_dead(kvm_dev))
                return -1;
        if (!u || !u->set)
                return access(kvm_dev, R_OK | W_OK) == 0;
        return mode_allows(u, &st, S_IROTH | S_IWOTH);
}

/* The embedded driver runs QEMU from this process. As root, QEMU runs as
 * VM_QEMU_USER in the group chosen by vm_qemu_user_get: the kernels it
 * boots come from the network, so they must not get a root QEMU.
 * dynamic_ownership = 0: libvirt would otherwise chown every file of the
 * domain to that user for the domain's life, the store's kernel and
 * initramfs too, handing a broken-out guest write access to what the next
 * cells boot. Instead kbench hands over only a cell's own files (its
 * directory, disks and console log; vm_qemu_hand_over), kernels and
 * initramfs stay root's and world-readable, and the store must be
 * reachable by the user (vm_qemu_can_reach; /root is not, so root's default
 * store is /var/lib/kbench). libvirt still gives its own per-domain
 * directory (the master key QEMU reads) to the user, and opens save
 * images itself, so warm-start snapshots stay root's. */
static int prepare_embed_root(const char *uri, const struct vm_qemu_user *u, struct kb_error *err) {
        g_autofree char *root = NULL, *etc = NULL, *conf = NULL;
        const char *q = strstr(uri, "root="), *end;
        GString *s;
        int r = 0;

        if (!q)
                return error_setf(err, -EINVAL, "--connect %s: embedded URI without root=", uri);
        q += 5;
        end = q + strcspn(q, "&");
        root = g_strndup(q, (gsize)(end - q));
        etc = g_build_filename(root, "etc", NULL);
        if (g_mkdir_with_parents(etc, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", etc, g_strerror(errno));
        /* QEMU reads its master key under <root>/lib and the capability
         * probe's QEMU makes its socket there. */
        r = vm_qemu_can_reach(u, root, 0, err);
        if (r < 0)
                return r;
        s = g_string_new("# written by kbench for its embedded libvirt QEMU driver\n"
                         "stdio_handler = \"file\"\n"
                         "security_driver = \"none\"\n"
                         "namespaces = [ ]\n"
                         "cgroup_controllers = [ ]\n");
        if (u->set)
                g_string_append_printf(s, "user = \"+%u\"\ngroup = \"+%u\"\ndynamic_ownership = 0\n",
                                       (unsigned)u->uid, (unsigned)u->gid);
        conf = g_build_filename(etc, "qemu.conf", NULL);
        if (!g_file_set_contents(conf, s->str, (gssize)s->len, NULL))
                r = error_setf(err, -EIO, "%s: cannot write", conf);
        g_string_free(s, TRUE);
        if (r == 0 && !getenv("LIBVIRT_LOG_OUTPUTS")) {
                g_autofree char *log = g_strdup_printf("3:file:%s/libvirt.log", root);
                setenv("LIBVIRT_LOG_OUTPUTS", log, 0);
        }
        return r;
}

static void reap(gpointer data, gpointer user_data) {
        vm_stop(data, 0);
}

/* The embedded driver daemonizes QEMU from this process, so QEMU's parent
 * becomes init, and a destroy returns only once init has reaped it:
 * libvirt polls kill(pid, 0) every 200 ms, and a zombie still answers.
 * Some inits reap late (1-2 s on a Firecracker guest's), which a warm
 * cell pays every time, since the next restore must wait for the domain to
 * be gone. So kbench is the subreaper of the QEMUs it starts and reaps
 * them itself. Not every QEMU zombie is an orphan: libvirt waits for the
 * QEMUs it runs in the foreground (the capability probe's, which
 * daemonizes itself), and reaping one of those first would fail libvirt's
 * wait. Those are reaped at once by a waiting thread, so a QEMU zombie is
 * taken only after QEMU_REAP_GRACE_US unreaped; WNOWAIT only looks. */
#define QEMU_REAP_GRACE_US 50000

static int is_qemu(pid_t pid) {
        char path[64], comm[32] = "";
        FILE *f;

        g_snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return 0;
        if (!fgets(comm, sizeof(comm), f))
                comm[0] = '\0';
        fclose(f);
        return g_str_has_prefix(comm, "qemu-system-");
}

static gpointer qemu_reaper(gpointer unused) {
        pid_t seen = 0;
        int64_t since = 0;

        for (;;) {
                siginfo_t si = { 0 };

                if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
                        g_usleep(errno == ECHILD ? 50000 : 1000);
                        continue;
                }
                if (si.si_pid != seen) {
                        seen = si.si_pid;
                        since = g_get_monotonic_time();
                }
                if (g_get_monotonic_time() - since >= QEMU_REAP_GRACE_US && is_qemu(si.si_pid)) {
                        waitpid(si.si_pid, NULL, WNOHANG);
                        seen = 0;
                } else
                        g_usleep(5000); /* its spawner's wait, or the grace */
        }
        return NULL;
}

static void reap_own_qemus(void) {
        static gsize once;

        if (g_once_init_enter(&once)) {
                if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
                        g_thread_unref(g_thread_new("kbench-qemu-reaper", qemu_reaper, NULL));
                g_once_init_leave(&once, 1);
        }
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
                r = prepare_embed_root(uri, &u, err);
                if (r < 0)
                        return r;
                reap_own_qemus();
        }
        if (g_once_init_enter(&once)) {
                virSetErrorFunc(NULL, silent_error);
                if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
                        return error_setf(err, -EIO, "libvirt: cannot initialize: %s", last_error());
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
                const char *why = last_error();
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
                r = error_setf(err, -EIO, "libvirt: cannot register for domain events: %s", last_error());
                vm_conn_free(c);
                return r;
        }
        c->ioerror_id = virConnectDomainEventRegisterAny(c->conn, NULL, VIR_DOMAIN_EVENT_ID_IO_ERROR_REASON,
                                                         VIR_DOMAIN_EVENT_CALLBACK(ioerror_cb), c, NULL);
        if (c->ioerror_id < 0) {
                r = error_setf(err, -EIO, "libvirt: cannot register for I/O error events: %s", last_error());
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
                return error_setf(err, -EIO, "libvirt: cannot read versions: %s", last_error());
        *ret_qemu = version_str(hv);
        *ret_libvirt = version_str(lv);
        return 0;
}

/* ---- what a host is ---------------------------------------------------- */

struct caps_parse {
        struct vm_caps *caps;
        char path[256];            /* element names from the root, '/'-joined, cut when deeper */
        int dac;                   /* inside a <secmodel> whose <model> was dac */
        int in_qemu_label;         /* inside <baselabel type='qemu'> of such a secmodel */
        char model[16];            /* the current secmodel's <model> text */
        GString *text;             /* the current element's text, bounded */
};

static void caps_start(GMarkupParseContext *ctx, const char *name, const char **attr_names,
                       const char **attr_values, gpointer data, GError **error) {
        struct caps_parse *p = data;
        size_t len = strlen(p->path);

        if (len + 1 + strlen(name) < sizeof(p->path))
                g_snprintf(p->path + len, sizeof(p->path) - len, "/%s", name);
        else
                g_strlcat(p->path, "/-", sizeof(p->path));  /* too deep to matter: matches nothing */
        if (strcmp(p->path, "/capabilities/host/secmodel") == 0) {
                p->dac = 0;
                p->model[0] = '\0';
        }
        if (strcmp(p->path, "/capabilities/host/secmodel/baselabel") == 0)
                for (int i = 0; attr_names[i]; i++)
                        if (strcmp(attr_names[i], "type") == 0 && strcmp(attr_values[i], "qemu") == 0)
                                p->in_qemu_label = 1;
        g_string_truncate(p->text, 0);
}

/* "+64055:+994" -> 64055, 994; anything else leaves them unknown. */
static void caps_label(const char *t, struct vm_caps *caps) {
        char *end;
        long uid, gid;

        if (*t != '+')
                return;
        uid = strtol(t + 1, &end, 10);
        if (end == t + 1 || *end != ':' || end[1] != '+')
                return;
        t = end + 2;
        gid = strtol(t, &end, 10);
        if (end == t || *end || uid < 0 || gid < 0 || uid > INT_MAX || gid > INT_MAX)
                return;
        caps->qemu_uid = uid;
        caps->qemu_gid = gid;
}

static void caps_end(GMarkupParseContext *ctx, const char *name, gpointer data, GError **error) {
        struct caps_parse *p = data;
        const char *t = g_strstrip(p->text->str);
        char *slash;

        if (strcmp(p->path, "/capabilities/host/cpu/model") == 0)
                g_strlcpy(p->caps->cpu_model, t, sizeof(p->caps->cpu_model));
        else if (strcmp(p->path, "/capabilities/host/cpu/vendor") == 0)
                g_strlcpy(p->caps->cpu_vendor, t, sizeof(p->caps->cpu_vendor));
        else if (strcmp(p->path, "/capabilities/host/secmodel/model") == 0)
                p->dac = strcmp(t, "dac") == 0;
        else if (strcmp(p->path, "/capabilities/host/secmodel/baselabel") == 0) {
                if (p->in_qemu_label && p->dac)
                        caps_label(t, p->caps);
                p->in_qemu_label = 0;
        }
        g_string_truncate(p->text, 0);
        slash = strrchr(p->path, '/');
        if (slash)
                *slash = '\0';
}

static void caps_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer data, GError **error) {
        struct caps_parse *p = data;

        /* Only short leaf texts matter; a huge one is cut, never grown. */
        if (p->text->len < 256)
                g_string_append_len(p->text, text, (gssize)MIN(len, 256 - p->text->len));
}

int vm_caps_parse(const char *xml, size_t len, struct vm_caps *ret) {
        static const GMarkupParser parser = { caps_start, caps_end, caps_text, NULL, NULL };
        struct vm_caps caps = { .qemu_uid = -1, .qemu_gid = -1 };
        struct caps_parse p = { .caps = &caps, .text = g_string_new(NULL) };
        GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &p, NULL);
        int ok = len <= G_MAXSSIZE && g_markup_parse_context_parse(ctx, xml, (gssize)len, NULL) &&
                 g_markup_parse_context_end_parse(ctx, NULL);

        g_markup_parse_context_free(ctx);
        g_string_free(p.text, TRUE);
        if (!ok)
                return -EINVAL;
        *ret = caps;
        return 0;
}

int vm_conn_host_info(struct vm_conn *c, struct vm_host_info *ret, struct kb_error *err) {
        struct vm_host_info h = { .qemu_uid = -1, .qemu_gid = -1 };
        char *caps_xml = virConnectGetCapabilities(c->conn), *name = virConnectGetHostname(c->conn);
        virNodeInfo node;
        struct vm_caps caps;
        int r;

        if (!caps_xml || !name) {
                r = error_setf(err, -EIO, "libvirt: cannot read what host %s is: %s", c->uri, last_error());
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

static void xml_text(GString *s, const char *text) {
        g_autofree char *e = g_markup_escape_text(text, -1);
        g_string_append(s, e);
}

int vm_plugin_path_ok(const char *path) {
        return path && *path == '/' && !strchr(path, ',');
}

/* Plugins are a TCG feature: under KVM the guest runs on the host's CPU. */
static int plugin_on(const struct vm_config *cfg) {
        return cfg->plugin && cfg->plugin_out && strcmp(cfg->guest->accel, "kvm") != 0 &&
               vm_plugin_path_ok(cfg->plugin) && vm_plugin_path_ok(cfg->plugin_out);
}

/* ttyS0, the kernel console: a file QEMU writes, or a pty read through
 * libvirt; ttyS1, kbench's channel to the agent: a socket libvirt makes,
 * or a pty. */
static void xml_serials(GString *s, const struct vm_config *cfg) {
        if (cfg->console_stream)
                g_string_append(s, "    <serial type='pty'>\n      <target port='0'/>\n    </serial>\n");
        else {
                g_string_append(s, "    <serial type='file'>\n      <source path='");
                xml_text(s, cfg->console_path);
                g_string_append(s, "'/>\n      <target port='0'/>\n    </serial>\n");
        }
        if (cfg->serial_socket) {
                g_string_append(s, "    <serial type='unix'>\n      <source mode='bind' path='");
                xml_text(s, cfg->serial_socket);
                g_string_append(s, "'/>\n      <target port='1'/>\n    </serial>\n");
        } else
                g_string_append(s, "    <serial type='pty'>\n      <target port='1'/>\n    </serial>\n");
}

void vm_disk_target(const struct guest_shape *g, int index, char ret[VM_DISK_TARGET_MAX]) {
        const struct diskbus *bus = diskbus_get(g->disk_bus);

        snprintf(ret, VM_DISK_TARGET_MAX, "%s%c", bus->target_prefix, 'a' + index);
}

/* <os>, then <features> and <cpu>: the kernel booted directly, with its
 * command line. */
static void xml_os(GString *s, const struct vm_config *cfg) {
        g_string_append(s, "  <os>\n    <type arch='x86_64' machine='pc'>hvm</type>\n    <kernel>");
        xml_text(s, cfg->kernel);
        g_string_append(s, "</kernel>\n");
        if (cfg->initrd) {
                g_string_append(s, "    <initrd>");
                xml_text(s, cfg->initrd);
                g_string_append(s, "</initrd>\n");
        }
        g_string_append(s, "    <cmdline>");
        xml_text(s, cfg->cmdline);
        g_string_append(s, "</cmdline>\n  </os>\n");
        /* Under KVM the guest counts its own instructions with a virtual
         * PMU (guest/pmu.h), as the plugin does under TCG. */
        if (strcmp(cfg->guest->accel, "kvm") == 0)
                g_string_append(s, "  <features><acpi/><pmu state='on'/></features>\n"
                                   "  <cpu mode='host-passthrough'/>\n");
        else
                g_string_append(s, "  <features><acpi/></features>\n");
}

/* The work disk and the swap disk, on the guest's bus, with the bus's
 * controller. */
static void xml_disks(GString *s, const struct vm_config *cfg) {
        const struct diskbus *bus = diskbus_get(cfg->guest->disk_bus);

        for (int i = 0; i < 2; i++) {
                const char *path = i == 0 ? cfg->disk : cfg->swap_disk;
                const char *serial = i == 0 ? bus->serial_disk : bus->serial_swap;
                char dev[VM_DISK_TARGET_MAX];
                if (!path)
                        continue;
                vm_disk_target(cfg->guest, i, dev);
                g_string_append(s, "    <disk type='file' device='disk'>\n"
                                   "      <driver name='qemu' type='raw' cache='none' error_policy='stop' rerror_policy='stop'/>\n      <source file='");
                xml_text(s, path);
                g_string_append_printf(s, "'/>\n      <target dev='%s' bus='%s'/>\n", dev, bus->target_bus);
                if (serial)
                        g_string_append_printf(s, "      <serial>%s</serial>\n", serial);
                if (i == 0 && guest_disk_bytes_per_s(cfg->guest))
                        g_string_append_printf(s, "      <iotune><total_bytes_sec>%llu</total_bytes_sec></iotune>\n",
                                               (unsigned long long)guest_disk_bytes_per_s(cfg->guest));
                g_string_append(s, "    </disk>\n");
        }
        if (bus->controller && (cfg->disk || cfg->swap_disk))
                g_string_append_printf(s, "    %s\n", bus->controller);
}

/* What goes to QEMU beside libvirt: the loopback NIC's forwards and the
 * plugins. */
static void xml_commandline(GString *s, const struct vm_config *cfg) {
        if (cfg->n_forwards > 0 || plugin_on(cfg))
                g_string_append(s, "  <qemu:commandline>\n");
        if (cfg->n_forwards > 0) {
                /* Debian's libvirt ignores <portForward> on user interfaces, so
                 * the NIC goes in as QEMU arguments (the domain is tainted
                 * custom-argv, as expected). Forwards bind to 127.0.0.1 only. */
                g_string_append(s, "    <qemu:arg value='-netdev'/>\n"
                                   "    <qemu:arg value='user,id=kbnet");
                for (size_t i = 0; i < cfg->n_forwards && i < G_N_ELEMENTS(cfg->forwards); i++)
                        g_string_append_printf(s, ",hostfwd=tcp:127.0.0.1:%u-:%u",
                                               cfg->forwards[i].host, cfg->forwards[i].guest);
                g_string_append(s, "'/>\n    <qemu:arg value='-device'/>\n"
                                   "    <qemu:arg value='" VM_NIC_DEVICE "'/>\n");
        }
        /* The instruction counter (plugin/kbinsn.c). QEMU splits -plugin's
         * value at commas, so neither path may hold one (vm_plugin_path_ok). */
        if (plugin_on(cfg)) {
                g_string_append(s, "    <qemu:arg value='-plugin'/>\n    <qemu:arg value='file=");
                xml_text(s, cfg->plugin);
                g_string_append(s, ",out=");
                xml_text(s, cfg->plugin_out);
                g_string_append(s, "'/>\n");
        }
        /* The profile (plugin/kbprof.c) rides with the counter: its
         * segments end at the counter's marks. */
        if (plugin_on(cfg) && vm_plugin_path_ok(cfg->prof_plugin) && vm_plugin_path_ok(cfg->prof_out)) {
                g_string_append(s, "    <qemu:arg value='-plugin'/>\n    <qemu:arg value='file=");
                xml_text(s, cfg->prof_plugin);
                g_string_append(s, ",out=");
                xml_text(s, cfg->prof_out);
                g_string_append(s, "'/>\n");
        }
        if (cfg->n_forwards > 0 || plugin_on(cfg))
                g_string_append(s, "  </qemu:commandline>\n");
}

char *vm_domain_xml(const struct vm_config *cfg) {
        GString *s = g_string_new(NULL);

        g_string_append_printf(s, "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n",
                               strcmp(cfg->guest->accel, "kvm") == 0 ? "kvm" : "qemu");
        g_string_append(s, "  <name>");
        xml_text(s, cfg->name);
        g_string_append(s, "</name>\n");
        if (cfg->uuid) {
                g_string_append(s, "  <uuid>");
                xml_text(s, cfg->uuid);
                g_string_append(s, "</uuid>\n");
        }
        g_string_append_printf(s, "  <memory unit='MiB'>%u</memory>\n  <vcpu>%u</vcpu>\n",
                               cfg->guest->mem_mb, cfg->guest->cpus);
        xml_os(s, cfg);
        g_string_append(s, "  <clock offset='utc'/>\n"
                           "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
                           "  <on_crash>destroy</on_crash>\n  <devices>\n");
        xml_disks(s, cfg);
        xml_serials(s, cfg);
        g_string_append(s, "    <controller type='usb' model='none'/>\n"
                           "    <memballoon model='none'/>\n  </devices>\n");
        /* Once QEMU is up, libvirt 9.0 reads the guest CPU back one QOM
         * property per QMP command (qom-get, about 400 of them), and QEMU 7.2
         * reads QMP one byte per poll: 0.23 s of every start and every
         * restore on this project's host, most of a restore. Without this
         * capability libvirt reads the two CPUID word lists instead (three
         * commands). Under TCG the domain asks for no CPU model or feature
         * (libvirt fills in qemu64), so the read has nothing to find missing,
         * and QEMU's -cpu and the CPU a save records come out the same either
         * way (docs/design.md, "Where a restore's time goes"). libvirt taints
         * the domain "hypervisor feature autodetection override". KVM keeps
         * the full read: its host-passthrough CPU is what that read updates. */
        if (strcmp(cfg->guest->accel, "kvm") != 0)
                g_string_append(s, "  <qemu:capabilities>\n"
                                   "    <qemu:del capability='cpu-unavailable-features'/>\n"
                                   "  </qemu:capabilities>\n");
        xml_commandline(s, cfg);
        g_string_append(s, "</domain>\n");
        return g_string_free(s, FALSE);
}

static void stream_cb(virStreamPtr st, int events, void *opaque) {
        struct vm *vm = opaque;
        char buf[16384];

        g_mutex_lock(&vm->lock);
        while (!vm->closing && vm->st) {
                int n = virStreamRecv(vm->st, buf, sizeof(buf));
                if (n == -2)
                        break;
                if (n <= 0) {
                        /* EOF or error: stop watching, tell the owner once. */
                        virStreamEventRemoveCallback(vm->st);
                        vm->fn(vm->userdata, VM_EVENT_EOF, NULL, 0);
                        break;
                }
                vm->fn(vm->userdata, VM_EVENT_DATA, buf, (size_t)n);
        }
        g_mutex_unlock(&vm->lock);
}

/* ttyS1's socket is readable (or hung up): hand what it holds to the owner. */
static void sock_cb(int watch, int fd, int events, void *opaque) {
        struct vm *vm = opaque;
        char buf[16384];

        g_mutex_lock(&vm->lock);
        while (!vm->closing && vm->sock >= 0) {
                ssize_t n = read(vm->sock, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        break;
                if (n <= 0) {
                        /* EOF or error: stop watching, tell the owner once. */
                        virEventRemoveHandle(watch);
                        vm->sock_watch = -1;
                        vm->fn(vm->userdata, VM_EVENT_EOF, NULL, 0);
                        break;
                }
                vm->fn(vm->userdata, VM_EVENT_DATA, buf, (size_t)n);
        }
        g_mutex_unlock(&vm->lock);
}

/* Whether path fits a unix socket's address (108 bytes with its NUL). */
static int sock_path_fits(const char *path) {
        return strlen(path) < sizeof(((struct sockaddr_un *)0)->sun_path);
}

/* Connect to the socket libvirt made for ttyS1 (it listens before QEMU
 * runs) and watch it on the event loop. */
static int sock_open(struct vm *vm, const char *path, struct kb_error *err) {
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        int fd;

        if (!sock_path_fits(path))
                return error_setf(err, -ENAMETOOLONG, "%s: longer than a unix socket's path may be", path);
        g_strlcpy(a.sun_path, path, sizeof(a.sun_path));
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
                int e = errno;
                if (fd >= 0)
                        close(fd);
                return error_setf(err, -e, "cannot connect to ttyS1 of %s at %s: %s", vm->name, path, g_strerror(e));
        }
        g_mutex_lock(&vm->lock);
        vm->sock = fd;
        vm->sock_watch = virEventAddHandle(fd, VIR_EVENT_HANDLE_READABLE | VIR_EVENT_HANDLE_ERROR |
                                           VIR_EVENT_HANDLE_HANGUP, sock_cb, vm_ref(vm), vm_unref);
        g_mutex_unlock(&vm->lock);
        if (vm->sock_watch < 0) {
                vm_unref(vm);
                return error_setf(err, -EIO, "libvirt: cannot watch ttyS1 of %s: %s", vm->name, last_error());
        }
        return 0;
}

/* Open ttyS1 of the pty domain as a libvirt stream watched on the event loop. */
static int pty_open(struct vm *vm, struct kb_error *err) {
        vm->st = virStreamNew(vm->c->conn, VIR_STREAM_NONBLOCK);
        if (!vm->st || virDomainOpenConsole(vm->dom, "serial1", vm->st, VIR_DOMAIN_CONSOLE_FORCE) < 0)
                return error_setf(err, -EIO, "libvirt: cannot open serial1 of %s: %s", vm->name, last_error());
        if (virStreamEventAddCallback(vm->st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
                                      VIR_STREAM_EVENT_HANGUP, stream_cb, vm_ref(vm), vm_unref) < 0) {
                vm_unref(vm);
                return error_setf(err, -EIO, "libvirt: cannot watch serial1 of %s: %s", vm->name, last_error());
        }
        return 0;
}

/* ttyS0's bytes, read through libvirt from a host whose files kbench
 * cannot read, go to the console log the cell reads as it would QEMU's. */
static void con_stream_cb(virStreamPtr st, int events, void *opaque) {
        struct vm *vm = opaque;
        char buf[16384];

        g_mutex_lock(&vm->lock);
        while (!vm->closing && vm->con_st) {
                int n = virStreamRecv(vm->con_st, buf, sizeof(buf));
                if (n == -2)
                        break;
                if (n <= 0) {
                        virStreamEventRemoveCallback(vm->con_st);
                        break;
                }
                /* A console log that cannot be written loses console text,
                 * not the cell: ttyS1 carries the measurement. */
                if (vm->con_fd >= 0 && write(vm->con_fd, buf, (size_t)n) < 0) {
                        close(vm->con_fd);
                        vm->con_fd = -1;
                }
        }
        g_mutex_unlock(&vm->lock);
}

static int console_open(struct vm *vm, const char *path, struct kb_error *err) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        g_mutex_lock(&vm->lock);
        vm->con_fd = fd;
        vm->con_st = virStreamNew(vm->c->conn, VIR_STREAM_NONBLOCK);
        g_mutex_unlock(&vm->lock);
        if (!vm->con_st || virDomainOpenConsole(vm->dom, "serial0", vm->con_st, VIR_DOMAIN_CONSOLE_FORCE) < 0)
                return error_setf(err, -EIO, "libvirt: cannot open serial0 of %s: %s", vm->name, last_error());
        if (virStreamEventAddCallback(vm->con_st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
                                      VIR_STREAM_EVENT_HANGUP, con_stream_cb, vm_ref(vm), vm_unref) < 0) {
                vm_unref(vm);
                return error_setf(err, -EIO, "libvirt: cannot watch serial0 of %s: %s", vm->name, last_error());
        }
        return 0;
}

/* Stop delivering ttyS1: no callback runs for vm once this returns. */
static void serial_close(struct vm *vm) {
        virStreamPtr st, con_st;
        int fd, watch, con_fd;

        g_mutex_lock(&vm->lock);
        vm->closing = 1;
        st = vm->st;
        vm->st = NULL;
        con_st = vm->con_st;
        vm->con_st = NULL;
        con_fd = vm->con_fd;
        vm->con_fd = -1;
        fd = vm->sock;
        watch = vm->sock_watch;
        vm->sock = vm->sock_watch = -1;
        g_mutex_unlock(&vm->lock);
        if (st) {
                virStreamEventRemoveCallback(st);
                virStreamAbort(st);
                virStreamFree(st);
        }
        if (con_st) {
                virStreamEventRemoveCallback(con_st);
                virStreamAbort(con_st);
                virStreamFree(con_st);
        }
        if (con_fd >= 0)
                close(con_fd);
        if (watch >= 0)
                virEventRemoveHandle(watch);
        if (fd >= 0)
                close(fd);
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
        r = cfg->serial_socket ? sock_open(vm, cfg->serial_socket, err) : pty_open(vm, err);
        if (r < 0)
                return r;
        if (cfg->console_stream) {
                r = console_open(vm, cfg->console_path, err);
                if (r < 0)
                        return r;
        }
        vm->times.serial_s = (double)(g_get_monotonic_time() - t1) / 1e6;
        t1 = g_get_monotonic_time();
        if (virDomainResume(vm->dom) < 0)
                return error_setf(err, -EIO, "libvirt: cannot resume %s: %s", vm->name, last_error());
        vm->times.resume_s = (double)(g_get_monotonic_time() - t1) / 1e6;
        return 0;
}

void vm_get_times(const struct vm *vm, struct vm_times *ret) {
        *ret = vm->times;
}

/* cfg as this connection runs it: ttyS1 is a socket only where kbench can
 * reach one, on this host, and where its path fits a unix socket's (a
 * deep store: then a pty, slower to answer a restored guest, see above). */
static struct vm_config conn_config(const struct vm_conn *c, const struct vm_config *cfg) {
        struct vm_config r = *cfg;

        if (!c->local || (r.serial_socket && !sock_path_fits(r.serial_socket)))
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
                        return error_setf(err, -EIO, "libvirt: cannot create domain %s: %s", vm->name, last_error());
                return 0;
        }
        if (virDomainRestoreFlags(vm->c->conn, path, xml, VIR_DOMAIN_SAVE_PAUSED) < 0)
                return error_setf(err, -EIO, "libvirt: cannot restore %s as %s: %s", path, vm->name, last_error());
        vm->dom = virDomainLookupByName(vm->c->conn, vm->name);
        if (!vm->dom)
                return error_setf(err, -EIO, "libvirt: restored %s but cannot find it: %s", vm->name, last_error());
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
        serial_close(vm);
        if (virDomainSaveFlags(vm->dom, path, NULL, VIR_DOMAIN_SAVE_PAUSED) < 0)
                r = error_setf(err, -EIO, "libvirt: cannot save %s to %s: %s", vm->name, path, last_error());
        vm_stop(vm, 0);
        return r;
}

int vm_taints(struct vm *vm, char ***ret, struct kb_error *err) {
        char **msgs = NULL;
        int n = virDomainGetMessages(vm->dom, &msgs, VIR_DOMAIN_MESSAGE_TAINTING);
        char **v;

        if (n < 0)
                return error_setf(err, -EIO, "%s: cannot read domain messages: %s", vm->name, last_error());
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
                g_strlcpy(bc->why, last_error(), sizeof(bc->why)); /* libvirt's errors are per thread */
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

/* One write to ttyS1's socket, with virStreamSend's results: bytes taken,
 * -2 when it would block, -1 on an error (errno). */
static int sock_send(int fd, const char *data, size_t len) {
        ssize_t n = send(fd, data, MIN(len, (size_t)INT_MAX), MSG_NOSIGNAL);

        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? -2 : -1;
        return (int)n;
}

int vm_send(struct vm *vm, const char *data, size_t len, struct kb_error *err) {
        int64_t deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

        while (len > 0) {
                int n, e = 0;

                g_mutex_lock(&vm->lock);
                if (vm->closing)
                        n = -1;
                else if (vm->sock >= 0) {
                        n = sock_send(vm->sock, data, len);
                        e = n == -1 ? errno : 0;
                } else
                        n = vm->st ? virStreamSend(vm->st, data, len) : -1;
                g_mutex_unlock(&vm->lock);
                if (n == -2) {
                        if (g_get_monotonic_time() > deadline)
                                return error_setf(err, -ETIMEDOUT, "%s: ttyS1 does not take input", vm->name);
                        g_usleep(1000);
                        continue;
                }
                if (n < 0)
                        return error_setf(err, -EIO, "%s: cannot write to ttyS1: %s", vm->name,
                                          e ? g_strerror(e) : last_error());
                data += n;
                len -= (size_t)n;
        }
        return 0;
}

void vm_stop(struct vm *vm, int background) {
        if (!vm)
                return;
        serial_close(vm);
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
