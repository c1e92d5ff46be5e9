/* host/vm_embed.c: libvirt's embedded QEMU driver (qemu:///embed?root=DIR),
 * which runs QEMU from this process: its root, whose etc/qemu.conf says
 * whom QEMU runs as (vm_qemu.c) and how little the driver may change on
 * the host, and the QEMUs it daemonizes, which kbench reaps itself. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "host/vm.h"
#include "host/vm_internal.h"

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
int vm_embed_prepare_root(const char *uri, const struct vm_qemu_user *u, struct kb_error *err) {
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

void vm_embed_reap_qemus(void) {
        static gsize once;

        if (g_once_init_enter(&once)) {
                if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
                        g_thread_unref(g_thread_new("kbench-qemu-reaper", qemu_reaper, NULL));
                g_once_init_leave(&once, 1);
        }
}
