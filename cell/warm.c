/* warm.c: boot a guest to its ready and save it as a snapshot (see warm.h).
 * The boot is no cell: it has no job and no end state, only "it reached
 * ready and was saved" or an error, after which cells boot cold. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "common/proto.h"
#include "cell/cell.h"
#include "host/console.h"
#include "cell/warm.h"

/* How long the guest must stay quiet on ttyS1 after its ready before it
 * is saved: the agent drains its output before it waits (guest/agent.c),
 * so this only guards against a record in flight. */
#define WARM_QUIET_MS 200

enum { EV_READY = 1, EV_LINE, EV_END };

struct boot {
        GAsyncQueue *q;                    /* GINT_TO_POINTER(EV_*) */
        struct console_lines lines;        /* event-loop thread only */
};

static void on_line(void *userdata, const char *line, size_t len) {
        struct boot *b = userdata;
        struct proto_record rec;

        if (proto_parse(line, len, &rec) == PROTO_OK && strcmp(rec.cell, WARM_CELL_ID) == 0 &&
            strcmp(rec.type, "ready") == 0)
                g_async_queue_push(b->q, GINT_TO_POINTER(EV_READY));
        else
                g_async_queue_push(b->q, GINT_TO_POINTER(EV_LINE));
}

static void on_event(void *userdata, enum vm_event ev, const char *data, size_t len) {
        struct boot *b = userdata;

        if (ev == VM_EVENT_DATA)
                console_lines_feed(&b->lines, data, len, on_line, b);
        else
                g_async_queue_push(b->q, GINT_TO_POINTER(EV_END));
}

static int write_marker_disk(const char *path, uint64_t bytes, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        size_t n = strlen(WARM_MARKER);
        g_autofree char *buf = NULL;
        int r = fileio_create(path, O_TRUNC | O_WRONLY, 0600, &fd, err);

        if (r < 0)
                return r;
        buf = g_malloc(WARM_MARKER_BYTES);
        for (size_t i = 0; i < WARM_MARKER_BYTES; i++)
                buf[i] = WARM_MARKER[i % n];
        if (write(fd, buf, MIN((uint64_t)WARM_MARKER_BYTES, bytes)) < 0 || ftruncate(fd, (off_t)bytes) < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        return 0;
}

/* A free port on 127.0.0.1 for the snapshot's NIC: its forward is never
 * used, but the NIC must exist in the saved guest as in the cells'. */
static int free_port(uint16_t *ret, struct kb_error *err) {
        _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);

        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
            getsockname(fd, (struct sockaddr *)&a, &len) < 0)
                return error_setf(err, -errno, "no free port on 127.0.0.1: %s", g_strerror(errno));
        *ret = ntohs(a.sin_port);
        return 0;
}

/* Wait for the ready record, then for WARM_QUIET_MS of silence. */
static int wait_ready(struct boot *b, double timeout_s, double *ret_ready_s, int64_t t0, struct kb_error *err) {
        int64_t deadline = t0 + (int64_t)(timeout_s * G_USEC_PER_SEC);
        int ready = 0;

        for (;;) {
                int64_t now = g_get_monotonic_time();
                int64_t wait = ready ? WARM_QUIET_MS * 1000 : deadline - now;
                gpointer ev;

                if (wait <= 0)
                        return error_setf(err, -ETIMEDOUT, "no agent ready within %.0f s", timeout_s);
                ev = g_async_queue_timeout_pop(b->q, (guint64)wait);
                if (!ev && ready)
                        return 0;
                if (!ev)
                        continue;
                if (GPOINTER_TO_INT(ev) == EV_END)
                        return error_setf(err, -EIO, "the guest ended before it was saved");
                if (GPOINTER_TO_INT(ev) == EV_READY && !ready) {
                        ready = 1;
                        *ret_ready_s = (double)(g_get_monotonic_time() - t0) / 1e6;
                }
        }
}

/* The snapshot boot's files: marker disks of the guest's sizes and an
 * empty console log. QEMU runs as another user (vm.c): it gets these,
 * nothing else of the snapshots directory. */
static int boot_files(const struct guest_shape *guest, const struct vm_qemu_user *qu, const char *disk,
                      const char *swap, const char *console, struct kb_error *err) {
        int r = write_marker_disk(disk, guest->disk_bytes, err);

        if (r == 0 && guest->swap_bytes)
                r = write_marker_disk(swap, guest->swap_bytes, err);
        if (r == 0)
                r = vm_qemu_hand_over(qu, disk, err);
        if (r == 0 && guest->swap_bytes)
                r = vm_qemu_hand_over(qu, swap, err);
        g_unlink(console);
        if (r == 0 && !g_file_set_contents(console, "", 0, NULL))
                r = error_setf(err, -EIO, "%s: cannot create", console);
        if (r == 0)
                r = vm_qemu_hand_over(qu, console, err);
        return r;
}

int warm_make(struct vm_conn *conn, const struct warm_boot *wb, struct warm_made *ret, struct kb_error *err) {
        const struct snapshot_shape *sh = wb->shape;
        /* A snapshot serves every throttle of its shape (not in its key):
         * its boot runs unthrottled, and each restore's domain sets the
         * cell's own. */
        struct guest_shape guest = *sh->guest;
        const struct vm_qemu_user *qu = vm_conn_qemu_user(conn);
        g_autofree char *dir = g_build_filename(wb->store, "snapshots", NULL);
        g_autofree char *save = snapshot_path(wb->store, wb->key, ".save");
        g_autofree char *tmp = g_strconcat(save, ".tmp", NULL);
        g_autofree char *console = snapshot_path(wb->store, wb->key, ".console");
        g_autofree char *disk = snapshot_path(wb->store, wb->key, ".disk");
        g_autofree char *swap = snapshot_path(wb->store, wb->key, ".swap");
        /* A short name: a unix socket's path must fit in 108 bytes. */
        g_autofree char *serial = g_strdup_printf("%s/%s.sock", dir, wb->domain_name);
        char uuid[37];
        struct boot b = { 0 };
        struct vm_config vc;
        struct vm *vm = NULL;
        struct warm_made made = { 0 };
        struct stat st;
        int64_t t0, t1;
        int r;

        if (g_mkdir_with_parents(dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", dir, g_strerror(errno));
        snapshot_uuid(wb->key, uuid);
        guest.disk_mbps = 0;
        r = boot_files(&guest, qu, disk, swap, console, err);
        if (r < 0)
                goto out;
        vc = (struct vm_config){
                .name = wb->domain_name, .uuid = uuid, .guest = &guest, .kernel = wb->kernel_path,
                .initrd = wb->initrd, .cmdline = sh->cmdline, .disk = disk,
                .swap_disk = guest.swap_bytes ? swap : NULL, .console_path = console, .serial_socket = serial,
        };
        if (sh->nic) {
                r = free_port(&vc.forwards[0].host, err);
                if (r < 0)
                        goto out;
                vc.forwards[0].guest = 21;
                vc.n_forwards = 1;
        }

        b.q = g_async_queue_new();
        t0 = g_get_monotonic_time();
        r = vm_start(conn, &vc, on_event, &b, &vm, err);
        if (r < 0)
                goto out;
        r = wait_ready(&b, wb->boot_timeout_s, &made.boot_s, t0, err);
        if (r < 0) {
                error_prefix(err, r, "snapshot boot");
                vm_stop(vm, 0);
                goto out;
        }
        t1 = g_get_monotonic_time();
        /* libvirt writes the save through whatever is at the path: a
         * link someone put there goes first, so it writes a new file. */
        g_unlink(tmp);
        r = vm_save(vm, tmp, err);
        if (r < 0)
                goto out;
        /* The console log is kept as every warm cell's head: QEMU is done
         * with it, it goes back to kbench before later QEMUs run. */
        if (qu->set && chown(console, geteuid(), getegid()) < 0) {
                r = error_setf(err, -errno, "%s: cannot take it back from %s: %s", console, VM_QEMU_USER,
                               g_strerror(errno));
                goto out;
        }
        made.save_s = (double)(g_get_monotonic_time() - t1) / 1e6;
        if (g_rename(tmp, save) < 0) {
                r = error_setf(err, -errno, "%s: %s", save, g_strerror(errno));
                goto out;
        }
        made.bytes = stat(save, &st) == 0 ? (uint64_t)st.st_size : 0;
        r = snapshot_write_manifest(wb->store, wb->key, sh, wb->kernel_name, made.boot_s, err);
out:
        if (b.q)
                g_async_queue_unref(b.q);
        g_unlink(disk);
        g_unlink(swap);
        g_unlink(serial);
        g_unlink(tmp);
        if (r < 0) {
                snapshot_remove(wb->store, wb->key, NULL);
                return r;
        }
        *ret = made;
        return 0;
}
