/* warm.c: warm start (see warm.h): which snapshot a cell restores, and
 * making one by booting a guest to its ready and saving it. That boot is
 * no cell: it has no job and no end state, only "it reached ready and was
 * saved" or an error, after which cells boot cold. */
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
#include "common/diskbus.h"
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
 * empty console log. QEMU runs as another user (host/vm_qemu.c): it gets these,
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

/* The snapshot boot's domain: the guest without its throttle, the marker
 * disks, and a NIC when the shape has one. */
static int boot_config(const struct warm_boot *wb, const struct guest_shape *guest, const char *uuid,
                       const char *disk, const char *swap, const char *console, const char *serial,
                       struct vm_config *ret, struct kb_error *err) {
        const struct snapshot_shape *sh = wb->shape;
        struct vm_config vc = {
                .name = wb->domain_name, .uuid = uuid, .guest = guest, .kernel = wb->kernel_path,
                .initrd = wb->initrd, .cmdline = sh->cmdline, .disk = disk,
                .swap_disk = guest->swap_bytes ? swap : NULL, .console_path = console, .serial_socket = serial,
        };

        if (sh->nic) {
                int r = free_port(&vc.forwards[0].host, err);

                if (r < 0)
                        return r;
                vc.forwards[0].guest = 21;
                vc.n_forwards = 1;
        }
        *ret = vc;
        return 0;
}

/* Save the ready guest to save (through tmp), and take its console log
 * back from QEMU's user. OUT: *ret_save_s, the save's seconds. */
static int save_ready(struct vm *vm, const struct vm_qemu_user *qu, const char *tmp, const char *save,
                      const char *console, double *ret_save_s, struct kb_error *err) {
        int64_t t1 = g_get_monotonic_time();
        int r;

        /* libvirt writes the save through whatever is at the path: a
         * link someone put there goes first, so it writes a new file. */
        g_unlink(tmp);
        r = vm_save(vm, tmp, err);
        if (r < 0)
                return r;
        /* The console log is kept as every warm cell's head: QEMU is done
         * with it, it goes back to kbench before later QEMUs run. */
        if (qu->set && chown(console, geteuid(), getegid()) < 0)
                return error_setf(err, -errno, "%s: cannot take it back from %s: %s", console, VM_QEMU_USER,
                                  g_strerror(errno));
        *ret_save_s = (double)(g_get_monotonic_time() - t1) / 1e6;
        if (g_rename(tmp, save) < 0)
                return error_setf(err, -errno, "%s: %s", save, g_strerror(errno));
        return 0;
}

int warm_make(struct vm_conn *conn, const struct warm_boot *wb, struct warm_made *ret, struct kb_error *err) {
        /* A snapshot serves every throttle of its shape (not in its key):
         * its boot runs unthrottled, and each restore's domain sets the
         * cell's own. */
        struct guest_shape guest = *wb->shape->guest;
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
        int64_t t0;
        int r;

        if (g_mkdir_with_parents(dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", dir, g_strerror(errno));
        snapshot_uuid(wb->key, uuid);
        guest.disk_mbps = 0;
        r = boot_files(&guest, qu, disk, swap, console, err);
        if (r == 0)
                r = boot_config(wb, &guest, uuid, disk, swap, console, serial, &vc, err);
        if (r < 0)
                goto out;
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
        r = save_ready(vm, qu, tmp, save, console, &made.save_s, err);
        if (r < 0)
                goto out;
        made.bytes = stat(save, &st) == 0 ? (uint64_t)st.st_size : 0;
        r = snapshot_write_manifest(wb->store, wb->key, wb->shape, wb->kernel_name, made.boot_s, err);
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

void warm_run_init(struct warm_run *w, const char *store, const char *domain_prefix) {
        *w = (struct warm_run){ .store = store, .domain_prefix = domain_prefix,
                                .failed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                                .initrd_sha = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free) };
}

void warm_run_clear(struct warm_run *w) {
        if (w->failed)
                g_hash_table_destroy(w->failed);
        if (w->initrd_sha)
                g_hash_table_destroy(w->initrd_sha);
        *w = (struct warm_run){ 0 };
}

void warm_cell_clear(struct warm_cell *w) {
        g_free(w->save);
        g_free(w->console);
        g_free(w->cmdline);
        g_free(w->domain);
}

/* The hash of a guest image, computed once a run. NULL with err when it
 * cannot be read (tried again by the next cell). */
static const char *initrd_sha(struct warm_run *wr, const char *initrd, struct kb_error *err) {
        char *sha = g_hash_table_lookup(wr->initrd_sha, initrd);

        if (!sha && snapshot_file_sha256(initrd, &sha, err) == 0)
                g_hash_table_insert(wr->initrd_sha, g_strdup(initrd), sha);
        return sha;
}

/* Make the snapshot of shape, its key w->key. */
static int make_snapshot(struct warm_run *wr, struct vm_conn *conn, const struct warm_want *want,
                         const struct snapshot_shape *shape, const struct warm_cell *w, struct warm_made *ret_made,
                         struct kb_error *err) {
        const struct kstore_kernel *k = want->kernel;
        g_autofree char *name = g_strdup_printf("%s%.16s", wr->domain_prefix, w->key);
        struct warm_boot wb = {
                .store = wr->store, .key = w->key, .shape = shape, .domain_name = name,
                .kernel_path = k->vmlinux_path ? k->vmlinux_path : k->image_path, .kernel_name = k->name,
                .initrd = want->initrd, .boot_timeout_s = want->boot_timeout_s,
        };

        return warm_make(conn, &wb, ret_made, err);
}

enum warm_start warm_cell_start(struct warm_run *wr, struct vm_conn *conn, const struct warm_want *want,
                                struct cell_spec *spec, struct warm_cell *w, const struct kb_sink *events,
                                struct warm_made *ret_made, struct kb_error *err) {
        const char *sha = initrd_sha(wr, want->initrd, err);
        enum warm_start how = WARM_START_RESTORE;
        struct snapshot_shape shape;

        if (!sha)
                return WARM_START_NO_HASH;
        w->cmdline = guest_cmdline(WARM_CELL_ID, want->guest->append);
        shape = (struct snapshot_shape){
                .kernel_id = want->kernel->id, .initrd_sha256 = sha, .guest = want->guest,
                .bus = diskbus_get(want->guest->disk_bus)->name, .nic = want->nic, .cmdline = w->cmdline,
                .qemu_version = want->qemu_version, .libvirt_version = want->libvirt_version,
        };
        snapshot_key(&shape, w->key);
        snapshot_uuid(w->key, w->uuid);
        if (g_hash_table_contains(wr->failed, w->key))
                return WARM_START_COLD;
        w->save = snapshot_path(wr->store, w->key, ".save");
        w->console = snapshot_path(wr->store, w->key, ".console");
        if (!g_file_test(w->save, G_FILE_TEST_IS_REGULAR)) {
                kb_stage(events, "snapshot");
                if (make_snapshot(wr, conn, want, &shape, w, ret_made, err) < 0) {
                        g_hash_table_add(wr->failed, g_strdup(w->key));
                        return WARM_START_NO_SNAPSHOT;
                }
                how = WARM_START_MADE;
        }
        w->domain = g_strdup_printf("%s%.16s", wr->domain_prefix, w->key);
        spec->snapshot_domain = w->domain;
        spec->snapshot = w->save;
        spec->snapshot_console = w->console;
        spec->snapshot_uuid = w->uuid;
        spec->snapshot_cmdline = w->cmdline;
        return how;
}

int warm_cell_after(struct warm_run *wr, const struct warm_cell *w, const struct cell_result *res,
                    struct kb_error *err) {
        int r;

        if (!res->snapshot_failed)
                return 0;
        r = snapshot_remove(wr->store, w->key, err);
        g_hash_table_add(wr->failed, g_strdup(w->key));
        return r < 0 ? r : 0;
}
