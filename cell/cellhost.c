/* cell/cellhost.c: the host's own observations of a living cell and its
 * host phase (see cellhost.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cell/cellhost.h"

/* ---- host phase --------------------------------------------------------- */

static double host_now(void *userdata) {
        return cellpump_now(userdata);
}

static int host_say(void *userdata, const char *line) {
        struct cell *c = userdata;
        g_autofree char *msg = g_strdup_printf("say %s\n", line);

        return c->ops->send(c->vm, msg, strlen(msg), NULL);
}

static int host_point(void *userdata, const char *kind, double t, double value) {
        struct cell *c = userdata;
        struct cell_point p = { g_intern_string(kind), t, value };

        g_mutex_lock(&c->data_lock);
        g_array_append_val(c->res->points, p);
        g_mutex_unlock(&c->data_lock);
        return 0;
}

static gpointer host_thread(gpointer data) {
        struct cell *c = data;
        int r = c->spec->workload->ops->host(&c->host, &c->host_err);

        cellpump_push(c, MSG_HOST_DONE, r, r < 0 ? c->host_err.msg : NULL, r < 0 ? strlen(c->host_err.msg) : 0);
        return NULL;
}

void cellhost_phase_start(struct cell *c, const struct workload_env *env) {
        if (!c->spec->workload->ops->host || c->host_thread)
                return;
        c->host = (struct workload_host){
                .spec = c->spec->workload, .env = env, .now = host_now, .say = host_say,
                .point = host_point, .cancel = &c->host_cancel, .userdata = c,
                .metrics = &c->host_metrics,
        };
        c->host_thread = g_thread_new("kbench-host-phase", host_thread, c);
}

/* ---- host load ---------------------------------------------------------- */

/* Who the cell's QEMU runs as, read from the process itself: a guest's
 * kernel is untrusted code, so the cell's output says it was not root. */
static void note_qemu_uids(struct cell *c) {
        struct kb_error e = { { 0 } };
        uint64_t u[4];

        if (hostload_read_uids(c->spec->hostload_root, c->qemu_pid, u, &e) < 0)
                g_ptr_array_add(c->host_notes, g_strdup_printf("qemu uid unknown: %s", e.msg));
        else
                g_ptr_array_add(c->host_notes, g_strdup_printf("qemu pid %d uid %" PRIu64 " %" PRIu64 " %" PRIu64
                                                               " %" PRIu64 " (real effective saved fs)%s",
                                                               c->qemu_pid, u[0], u[1], u[2], u[3],
                                                               u[0] && u[1] && u[2] && u[3] ? "" : ": root"));
}

void cellhost_find_qemu(struct cell *c, const char *domain) {
        struct kb_error e = { { 0 } };

        if (!c->spec->hostload_root)
                g_strlcpy(c->load_note, "remote host: unknown", sizeof(c->load_note));
        else if (hostload_find_qemu(c->spec->hostload_root, domain, &c->qemu_pid, &e) < 0)
                g_strlcpy(c->load_note, e.msg, sizeof(c->load_note));
        else
                note_qemu_uids(c);
}

/* A snapshot of the host beside this cell's QEMU and kbench itself (whose
 * threads carry the cell: console stream, host phase). Returns 0 or -errno,
 * noting why in load_note. */
static int load_snapshot(struct cell *c, struct hostload_snap *ret) {
        const int pids[] = { c->qemu_pid, (int)getpid() };
        struct kb_error e = { { 0 } };
        int r;

        if (!c->qemu_pid)
                return -ESRCH;
        r = hostload_read(c->spec->hostload_root, pids, G_N_ELEMENTS(pids), cellpump_now(c), ret, &e);
        if (r < 0)
                g_strlcpy(c->load_note, e.msg, sizeof(c->load_note));
        return r;
}

static void load_window_start(struct cell *c) {
        c->load_started = load_snapshot(c, &c->load_start) == 0;
}

static void load_window_end(struct cell *c) {
        struct hostload_snap end;
        struct kb_error e = { { 0 } };
        long tck = sysconf(_SC_CLK_TCK);

        if (!c->load_started || load_snapshot(c, &end) < 0)
                return;
        /* A failed sysconf becomes 0, which hostload_compute refuses. */
        if (hostload_compute(&c->load_start, &end, tck > 0 && tck < 1000000 ? (unsigned)tck : 0, &c->load, &e) < 0)
                g_strlcpy(c->load_note, e.msg, sizeof(c->load_note));
        else
                c->load_known = 1;
}

void cellhost_load_metrics(struct cell *c) {
        struct cell_result *res = c->res;

        if (c->load_known)
                metric_add(&res->metrics, "host.foreign_cpu_pct", c->load.foreign_pct, "%");
        else
                metric_add_none(&res->metrics, "host.foreign_cpu_pct", "%", c->load_note);
        if (c->load_started)
                metric_add(&res->metrics, "host.loadavg1", c->load_start.loadavg1, "");
        else
                metric_add_none(&res->metrics, "host.loadavg1", "", c->load_note);
        if (c->load_known && c->load.foreign_pct > c->spec->contended_pct) {
                g_autofree char *d = g_strdup_printf("%s%scontended: %.1f %% foreign CPU (over %g %%)", res->detail,
                                                     res->detail[0] ? "; " : "", c->load.foreign_pct,
                                                     c->spec->contended_pct);
                g_strlcpy(res->detail, d, sizeof(res->detail));
                res->contended = 1;
        }
}

/* ---- host block statistics --------------------------------------------- */

void cellhost_blk_sample(struct cell *c) {
        struct kb_error e = { { 0 } };
        struct cell_hostblk b;
        char dev[VM_DISK_TARGET_MAX];

        if (!c->blk_on)
                return;
        vm_disk_target(c->spec->guest, 0, dev);
        if (c->ops->block_stats(c->vm, dev, &b.s, &e) < 0) {
                g_snprintf(c->res->hostblk_note, sizeof(c->res->hostblk_note), "%s", e.msg);
                c->blk_on = 0;
                return;
        }
        b.t = cellpump_now(c);
        g_array_append_val(c->res->hostblk, b);
        /* On a schedule, so the readings stay a second apart on average; a
         * pump that fell behind (a slow libvirt call) starts afresh. */
        c->blk_next += CELL_HOSTBLK_INTERVAL_S;
        if (c->blk_next < b.t)
                c->blk_next = b.t + CELL_HOSTBLK_INTERVAL_S;
}

static void blk_window_start(struct cell *c) {
        if (!c->ops->block_stats) {
                g_strlcpy(c->res->hostblk_note, "host block statistics not read", sizeof(c->res->hostblk_note));
                return;
        }
        c->res->hostblk_note[0] = '\0';
        c->blk_on = 1;
        c->blk_next = cellpump_now(c);
        cellhost_blk_sample(c);
}

/* The last reading, at the done, closes the window. */
static void blk_window_end(struct cell *c) {
        cellhost_blk_sample(c);
        c->blk_on = 0;
}

void cellhost_window_start(struct cell *c) {
        load_window_start(c);
        blk_window_start(c);
}

void cellhost_window_end(struct cell *c) {
        load_window_end(c);
        blk_window_end(c);
}
