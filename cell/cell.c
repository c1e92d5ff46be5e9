/* cell.c: one cell from fresh disk to end state (see cell.h).
 *
 * Threads: the libvirt event loop delivers ttyS1 bytes and lifecycle events
 * to on_vm_event(), which frames lines, parses records and queues them; the
 * cell's own thread (the caller) pops the queue with a short timeout and
 * runs the state machine and the staged timeouts; a host phase, if the
 * workload has one, runs on a third thread and reports back through the
 * same queue. All cell state is owned by the caller's thread. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "common/diskbus.h"
#include "common/crc32.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "common/guest-paths.h"
#include "common/proto.h"
#include "cell/cell.h"
#include "cell/cellprof.h"
#include "host/console.h"
#include "host/guestcount.h"
#include "host/hostload.h"
#include "host/insncount.h"
#include "host/kprof.h"

volatile int cell_interrupted;

/* How long a guest listing its symbols after the job may fall silent
 * before the cell ends without them: the job is done, and a table that
 * does not come whole is not used (cellprof.h). Its records come in
 * bursts with pauses well under a second. */
#define CELL_SYMS_SILENCE_S 10.0

enum msg_kind { MSG_LINE, MSG_EOF, MSG_STOPPED, MSG_IO_ERROR, MSG_HOST_DONE, MSG_HOST_LOST };

struct msg {
        enum msg_kind kind;
        double t;                          /* arrival, s since QEMU start */
        int status;                        /* MSG_HOST_DONE: r */
        size_t len;                        /* MSG_LINE: bytes in text */
        char *text;                        /* MSG_LINE: a ttyS1 line; STOPPED: detail; HOST_DONE: error */
};

enum stage { STAGE_BOOT, STAGE_READY_WAIT, STAGE_RUN, STAGE_DONE };

struct cell {
        const struct cell_vm_ops *ops;
        void *ctx;                         /* what ops->start got */
        const struct cell_spec *spec;
        struct cell_result *res;
        struct vm *vm;
        GAsyncQueue *q;
        int64_t t0_us;                     /* monotonic at QEMU start */
        struct console_lines lines;        /* event-loop thread only */
        GMutex data_lock;                  /* guards res->data and res->points from other threads */

        enum stage stage;
        enum endstate_stop stop;           /* why the pump stopped (set with stage DONE) */
        char *stop_detail;                 /* what came with it, or NULL */
        const char *console_path;          /* ttyS0 log */
        off_t ready_console_len;           /* ttyS0 bytes when ready arrived (crash before/after) */
        struct console_stream stream;      /* ttyS1 accounting */
        double last_record_t;
        double go_t, ready_t, done_t;
        double restored_t, hello_t;        /* a warm start: restore returned, hello sent (cell clock, s) */
        double ready_timeout_s;            /* boot timeout, or CELL_WARM_READY_S after a restore */
        off_t console_head;                /* bytes of the snapshot's boot log before this cell's console */
        uint32_t disk_head;                /* CRC-32 of the first DISK_HEAD_BYTES of the cell's image */
        GPtrArray *out_lines;              /* char*: the job's stdout and stderr */
        GPtrArray *agent_logs;             /* char*: "log" records */
        GPtrArray *host_notes;             /* char*: what the host noted about the cell */
        GPtrArray *events;                 /* char* */
        GArray *event_t;                   /* double */

        /* host phase */
        GThread *host_thread;
        struct workload_host host;
        struct metric_list host_metrics;
        volatile int host_cancel;
        struct kb_error host_err;
        int host_done;

        /* host load over the workload window, go -> done (hostload.h) */
        int qemu_pid;                      /* 0: unknown, see load_note */
        int load_started, load_known;      /* start snapshot taken; figures computed */
        struct hostload_snap load_start;
        struct hostload_figures load;
        char load_note[256];               /* why the figures are unknown */

        /* guest instructions at the job's phase marks (insncount.h) */
        int insn_fd;                       /* the plugin's counter file, -1: no counts */
        int insn_loaded;                   /* a read found the plugin's magic */
        struct insncount_marks insn_marks;
        int insn_late_noted;               /* the note on phase marks without a marker is made */
        /* without the plugin (KVM): the guest PMU's totals for the next phase mark */
        struct insncount_totals pmu_at;
        int pmu_fresh;                     /* pmu_at awaits its phase mark */
        int pmu_lost;                      /* a mark came without its totals: keep no PMU counts */
        /* where the kernel's instructions went (cellprof.h) */
        struct cellprof prof;
        int syms_wait;                     /* the job is done; the guest's symbol table is still coming */

        /* the guest kernel's counters at the phase marks, its memory at the
         * job's start and end (guestcount.h) */
        struct guestcount_marks gc_marks;
        struct guestcount_totals gc_at;    /* the counters sent for the next phase mark */
        int gc_fresh;                      /* gc_at awaits its phase mark */
        struct guestcount_memory mem_start, mem_end;

        /* host block statistics of the disk under test over the same window */
        int blk_on;                        /* sampling: between go and done, until a read fails */
        double blk_next;                   /* s since QEMU start of the next reading */
};

static double now_s(const struct cell *c) {
        return (double)(g_get_monotonic_time() - c->t0_us) / 1e6;
}

static void msg_free(gpointer p) {
        struct msg *m = p;

        g_free(m->text);
        g_free(m);
}

static void push(struct cell *c, enum msg_kind kind, int status, const char *text, size_t len) {
        struct msg *m = g_new0(struct msg, 1);

        m->kind = kind;
        m->t = now_s(c);
        m->status = status;
        m->len = len;
        m->text = text ? g_strndup(text, len) : NULL;
        g_async_queue_push(c->q, m);
}

static void on_line(void *userdata, const char *line, size_t len) {
        push(userdata, MSG_LINE, 0, line, len);
}

#define DATA_LOG_MAX (64u << 20)

static void on_vm_event(void *userdata, enum vm_event ev, const char *data, size_t len) {
        struct cell *c = userdata;

        switch (ev) {
        case VM_EVENT_DATA:
                g_mutex_lock(&c->data_lock);
                if (c->res->data->len + len <= DATA_LOG_MAX)
                        g_string_append_len(c->res->data, data, (gssize)len);
                g_mutex_unlock(&c->data_lock);
                console_lines_feed(&c->lines, data, len, on_line, c);
                break;
        case VM_EVENT_EOF:
                push(c, MSG_EOF, 0, NULL, 0);
                break;
        case VM_EVENT_STOPPED:
                push(c, MSG_STOPPED, 0, data, len);
                break;
        case VM_EVENT_IO_ERROR:
                push(c, MSG_IO_ERROR, 0, data, len);
                break;
        case VM_EVENT_HOST_LOST:
                push(c, MSG_HOST_LOST, 0, data, len);
                break;
        }
}

/* ---- host phase --------------------------------------------------------- */

static double host_now(void *userdata) {
        return now_s(userdata);
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

        push(c, MSG_HOST_DONE, r, r < 0 ? c->host_err.msg : NULL, r < 0 ? strlen(c->host_err.msg) : 0);
        return NULL;
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

/* Once, right after QEMU started: which process is this cell's QEMU. */
static void load_find_qemu(struct cell *c, const char *domain) {
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
        r = hostload_read(c->spec->hostload_root, pids, G_N_ELEMENTS(pids), now_s(c), ret, &e);
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

/* The figures as metrics of an ok cell (a failed one keeps no metrics);
 * unknown ones carry the reason instead of a number. Marks the cell
 * contended. */
static void load_metrics(struct cell *c) {
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

/* Read libvirt's block statistics of the disk under test once. A failure
 * ends the sampling: the figures become unknown with libvirt's message,
 * and the cell carries on (the statistics describe the cell, they are not
 * part of it). */
static void blk_sample(struct cell *c) {
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
        b.t = now_s(c);
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
        c->blk_next = now_s(c);
        blk_sample(c);
}

/* The last reading, at the done, closes the window. */
static void blk_window_end(struct cell *c) {
        blk_sample(c);
        c->blk_on = 0;
}

/* ---- preparation -------------------------------------------------------- */

static int run_tool(char **argv, struct kb_error *err) {
        g_autofree char *out = NULL, *errout = NULL;
        g_autoptr(GError) gerr = NULL;
        int status;

        if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &errout, &status, &gerr))
                return error_setf(err, -ENOENT, "%s: %s", argv[0], gerr->message);
        if (!g_spawn_check_wait_status(status, NULL)) {
                g_strchomp(errout);
                return error_setf(err, -EIO, "%s failed: %s", argv[0], errout && *errout ? errout : "(no message)");
        }
        return 0;
}

static int make_disk(const char *path, uint64_t bytes, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        int r = fileio_create(path, O_TRUNC | O_WRONLY, 0600, &fd, err);

        if (r < 0)
                return r;
        if (ftruncate(fd, (off_t)bytes) < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        return 0;
}

static int format_disk(const struct guest_shape *g, const char *path, struct kb_error *err) {
        g_autofree char *tool = g_strdup_printf("mkfs.%s", g->fs);
        int is_ext = g_str_has_prefix(g->fs, "ext");
        /* Zero inode tables and journal now: lazy init would leave the guest
         * kernel a background writer (ext4lazyinit) that pollutes the I/O
         * being measured. */
        char *argv_ext[] = { tool, "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", (char *)path, NULL };
        char *argv_other[] = { tool, "-f", (char *)path, NULL };

        return run_tool(is_ext ? argv_ext : argv_other, err);
}

/* The agent reports the CRC-32 of the disk's first DISK_HEAD_BYTES as it
 * sees them just before mounting (guest/agent.c); they hold the
 * filesystem's superblock, unique per mkfs, so a match says the guest
 * reads this cell's image and no block cached from another. */
#define DISK_HEAD_BYTES 4096

static int disk_head_crc(const char *path, uint32_t *ret, struct kb_error *err) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        char buf[DISK_HEAD_BYTES];
        size_t got = 0;

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        while (got < sizeof(buf)) {
                ssize_t n = pread(fd, buf + got, sizeof(buf) - got, (off_t)got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        /* A short image reads as zeros beyond its end, as in the guest. */
        memset(buf + got, 0, sizeof(buf) - got);
        *ret = crc32_update(0, buf, sizeof(buf));
        return 0;
}

/* Pick count consecutive free TCP ports on 127.0.0.1 starting with a random base. */
static int pick_ports(uint16_t *ports, int count, struct kb_error *err) {
        for (int attempt = 0; attempt < 200; attempt++) {
                uint16_t base = (uint16_t)g_random_int_range(20000, 60000 - count);
                int ok = 1;

                for (int i = 0; i < count && ok; i++) {
                        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + i)),
                                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
                        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
                                ok = 0;
                        if (fd >= 0)
                                close(fd);
                }
                if (ok) {
                        for (int i = 0; i < count; i++)
                                ports[i] = (uint16_t)(base + i);
                        return 0;
                }
        }
        return error_setf(err, -EADDRINUSE, "no %d consecutive free ports on 127.0.0.1", count);
}

/* ---- the state machine -------------------------------------------------- */

static off_t file_size(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 ? st.st_size : 0;
}

/* The pump stops at the first reason; the end state is decided from the
 * facts afterwards (endstate.c). */
static void stop(struct cell *c, enum endstate_stop why, const char *detail) {
        if (c->stage == STAGE_DONE)
                return;
        c->stage = STAGE_DONE;
        c->stop = why;
        c->stop_detail = g_strdup(detail);
}

static int send_line(struct cell *c, const char *a, const char *b) {
        g_autofree char *line = g_strdup_printf("%s%s\n", a, b);
        return c->ops->send(c->vm, line, strlen(line), NULL);
}

static int send_job(struct cell *c, const struct workload_env *env) {
        const struct cell_spec *s = c->spec;
        const struct diskbus *bus = diskbus_get(s->guest->disk_bus);
        g_auto(GStrv) lines = g_strsplit(c->res->script, "\n", -1);
        int r = 0;

        /* Each disk by an address that does not depend on probe order. */
        r |= send_line(c, "set disk ", bus->disk);
        r |= send_line(c, "set mnt ", env->mnt);
        /* The run options the agent takes, from the option table. */
        for (size_t i = 0; s->agent_lines && s->agent_lines[i]; i++)
                r |= send_line(c, s->agent_lines[i], "");
        r |= send_line(c, "set swap ", s->guest->swap_bytes ? bus->swap : "");
        r |= send_line(c, "set net ", env->nports > 0 ? "1" : "0");
        if (c->prof.asked)
                r |= send_line(c, "set ksyms ", "1");
        for (size_t i = 0; lines[i] && r == 0; i++) {
                char esc[PROTO_LINE_MAX];
                if (proto_escape(esc, sizeof(esc), lines[i], strlen(lines[i])) < 0)
                        return -E2BIG;
                r |= send_line(c, "script ", esc);
        }
        r |= send_line(c, "go", "");
        return r < 0 ? -EIO : 0;
}

/* Eight lower-case hex digits, as the agent prints a CRC-32. */
static int parse_crc(const char *p, size_t len, uint32_t *ret) {
        uint32_t v = 0;

        if (len != 8)
                return -EINVAL;
        for (size_t i = 0; i < 8; i++) {
                int d = g_ascii_xdigit_value(p[i]);
                if (d < 0 || g_ascii_isupper(p[i]))
                        return -EINVAL;
                v = v << 4 | (uint32_t)d;
        }
        *ret = v;
        return 0;
}

/* A "sysctl" record (proto_sysctl_record_parse): kept when it names a
 * sysctl the cell sent and has not reported yet. */
static void record_sysctl(struct cell *c, const struct proto_record *rec) {
        char key[PROTO_SYSCTL_KEY_MAX + 1], value[PROTO_SYSCTL_READBACK_MAX + 1];
        g_autofree char *sent = NULL;
        size_t klen;
        int asked = 0;

        if (c->res->sysctls->len >= PROTO_SYSCTL_MAX ||
            proto_sysctl_record_parse(rec->payload, rec->payload_len, key, value) < 0)
                return;
        klen = strlen(key);
        sent = g_strdup_printf("sysctl %s ", key);
        for (size_t i = 0; c->spec->agent_lines && c->spec->agent_lines[i] && !asked; i++)
                asked = g_str_has_prefix(c->spec->agent_lines[i], sent);
        for (guint i = 0; i < c->res->sysctls->len && asked; i++)
                if (strncmp(c->res->sysctls->pdata[i], key, klen) == 0 &&
                    ((char *)c->res->sysctls->pdata[i])[klen] == '=')
                        asked = 0;
        if (asked)
                g_ptr_array_add(c->res->sysctls, g_strdup_printf("%s=%s", key, value));
}

/* Where a warm cell's boot_s went, in its log: restore -> resume ->
 * hello -> ready, each step's end on the cell's clock. */
static void note_warm_times(struct cell *c, double ready_t) {
        struct vm_times vt = { 0 };

        if (c->ops->times && c->vm)
                c->ops->times(c->vm, &vt);
        g_ptr_array_add(c->host_notes,
                        g_strdup_printf("warm start: libvirt restore %.3f s, serial1 (%s) open %.3f s, resume %.3f s "
                                        "(restore returned at %.3f s), hello sent at %.3f s, ready at %.3f s",
                                        vt.create_s, vt.serial_socket ? "socket" : "pty", vt.serial_s, vt.resume_s,
                                        c->restored_t, c->hello_t, ready_t));
}

/* Without the plugin, a phase mark takes the totals the guest's PMU sent
 * just before it (guest/pmu.h). Once the guest has sent some, a mark
 * without its totals would make the phase before it span two: the cell
 * then keeps no PMU counts at all. */
static void pmu_mark(struct cell *c, const char *payload, size_t len) {
        if (c->pmu_fresh) {
                c->pmu_fresh = 0;
                c->insn_marks.insns_only = 1;
                insncount_mark(&c->insn_marks, payload, len, &c->pmu_at);
        } else if (c->insn_marks.insns_only) {
                c->pmu_lost = 1;
        }
}

static void on_pmu(struct cell *c, const struct msg *m, const struct proto_record *rec,
                   const struct workload_env *env) {
        (void)m;
        (void)env;
        if (c->insn_fd >= 0)
                return; /* the plugin counts from outside */
        if (insncount_parse_pmu(rec->payload, rec->payload_len, &c->pmu_at) == 0)
                c->pmu_fresh = 1;
        else if (c->insn_marks.insns_only || c->pmu_fresh)
                c->pmu_lost = 1;
}

/* The instruction totals at a phase mark of the job: those the plugin
 * took when the agent executed the marker for it (the k-th phase record,
 * the k-th marker), so a host slow to read the record moves no count; the
 * running totals as the record arrives only from a guest that executed no
 * marker, and then the cell says so. */
static void insn_mark(struct cell *c, const char *payload, size_t len) {
        struct insncount_totals t;
        int at_marker = 0;

        if (c->insn_fd < 0 && len >= 7 && memcmp(payload, "phase ", 6) == 0) {
                pmu_mark(c, payload, len);
                return;
        }
        if (c->insn_fd < 0 || len < 7 || memcmp(payload, "phase ", 6) != 0 ||
            insncount_read(c->insn_fd, c->insn_marks.n, &t, &at_marker) < 0)
                return;
        c->insn_loaded = 1;
        if (!at_marker && !c->insn_late_noted) {
                c->insn_late_noted = 1;
                g_ptr_array_add(c->host_notes, g_strdup("instruction counts: the guest executed no marker; the "
                                                        "totals are those when the host read each phase mark"));
        }
        insncount_mark(&c->insn_marks, payload, len, &t);
}

/* The agent is ready (or, restored, ready again): check it booted the
 * kernel the store handed over, send the job, open the measured window. */
static void on_ready(struct cell *c, const struct msg *m, const struct proto_record *rec,
                     const struct workload_env *env) {
        const char *rel = strstr(rec->payload, "release=");

        if (c->stage != STAGE_BOOT && c->stage != STAGE_READY_WAIT)
                return;
        c->ready_t = m->t;
        c->res->boot_s = m->t;
        if (c->hello_t > 0)
                note_warm_times(c, m->t);
        if (rel)
                c->res->release = g_strndup(rel + 8, strcspn(rel + 8, " "));
        /* The store knows which kernel it handed over; a guest that
         * says otherwise booted something else. */
        c->ready_console_len = c->console_head + file_size(c->console_path);
        if (c->spec->kernel->release && g_strcmp0(c->res->release, c->spec->kernel->release) != 0) {
                stop(c, STOP_RELEASE_MISMATCH, NULL);
                return;
        }
        cellprof_ask(&c->prof);
        if (send_job(c, env) < 0) {
                stop(c, STOP_SEND_FAILED, NULL);
                return;
        }
        c->go_t = now_s(c);
        load_window_start(c);
        blk_window_start(c);
        c->stage = STAGE_RUN;
}

static void on_vmstat(struct cell *c, const struct msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        struct cell_vmstat_line v = { g_strdup(rec->type), g_strndup(rec->payload, rec->payload_len),
                                      (int64_t)rec->seq, m->t, (double)rec->t_ms / 1000.0 };

        g_array_append_val(c->res->vmstat, v);
}

/* The job's stdout and stderr, in arrival order. */
static void on_output(struct cell *c, const struct msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        g_ptr_array_add(c->out_lines, g_strndup(rec->payload, rec->payload_len));
}

/* One of the job's fd-3 events; "host-start" starts the workload's host
 * phase (FTP's upload). */
static void on_event(struct cell *c, const struct msg *m, const struct proto_record *rec,
                     const struct workload_env *env) {
        double t = (double)rec->t_ms / 1000.0;
        struct cell_event ev = { g_strndup(rec->payload, rec->payload_len), m->t, t };

        g_ptr_array_add(c->events, g_strndup(rec->payload, rec->payload_len));
        g_array_append_val(c->event_t, t);
        insn_mark(c, rec->payload, rec->payload_len);
        guestcount_mark(&c->gc_marks, rec->payload, rec->payload_len, c->gc_fresh ? &c->gc_at : NULL);
        c->gc_fresh = 0;
        g_array_append_val(c->res->events, ev);
        if (strcmp(rec->payload, "host-start") == 0 && c->spec->workload->ops->host && !c->host_thread) {
                c->host = (struct workload_host){
                        .spec = c->spec->workload, .env = env, .now = host_now, .say = host_say,
                        .point = host_point, .cancel = &c->host_cancel, .userdata = c,
                        .metrics = &c->host_metrics,
                };
                c->host_thread = g_thread_new("kbench-host-phase", host_thread, c);
        }
}

/* The kernel's counters for the phase mark that follows (guestcount.h). A
 * record that does not parse leaves that mark without them. */
static void on_counters(struct cell *c, const struct msg *m, const struct proto_record *rec,
                        const struct workload_env *env) {
        (void)m;
        (void)env;
        c->gc_fresh = guestcount_parse(rec->payload, rec->payload_len, &c->gc_at) == 0;
}

/* The kernel's memory at the job's start or end; the first of each counts. */
static void on_memory(struct cell *c, const struct msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        struct guestcount_memory mem;
        int end;

        (void)m;
        (void)env;
        if (guestcount_memory_parse(rec->payload, rec->payload_len, &end, &mem) < 0)
                return;
        if (!(end ? &c->mem_end : &c->mem_start)->have)
                *(end ? &c->mem_end : &c->mem_start) = mem;
}

/* The disk head as the guest reads it must be this cell's image. */
static void on_disk_head(struct cell *c, const struct msg *m, const struct proto_record *rec,
                         const struct workload_env *env) {
        uint32_t crc = 0;

        if (c->stage != STAGE_RUN)
                return;
        if (parse_crc(rec->payload, rec->payload_len, &crc) < 0 || crc != c->disk_head) {
                g_autofree char *what = g_strdup_printf("guest head crc32 %.8s, image %08x", rec->payload,
                                                        c->disk_head);
                stop(c, STOP_STALE_DISK, what);
                return;
        }
        g_ptr_array_add(c->host_notes, g_strdup_printf("disk head as the guest reads it matches the "
                                                       "image (crc32 %08x)", c->disk_head));
}

/* Driver names, blank-separated: anything else from the guest is dropped. */
static void on_disk_driver(struct cell *c, const struct msg *m, const struct proto_record *rec,
                           const struct workload_env *env) {
        static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- ";
        size_t n = rec->payload_len;

        if (n == 0 || n > CELL_DISK_DRIVER_MAX || c->res->disk_driver[0])
                return;
        for (size_t i = 0; i < n; i++)
                if (!strchr(ok, rec->payload[i]) || rec->payload[i] == '\0')
                        return;
        memcpy(c->res->disk_driver, rec->payload, n);
        c->res->disk_driver[n] = '\0';
}

static void on_sysctl(struct cell *c, const struct msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        if (c->stage == STAGE_RUN)
                record_sysctl(c, rec);
}

/* The agent's own notes are evidence, not workload output. */
static void on_log(struct cell *c, const struct msg *m, const struct proto_record *rec,
                   const struct workload_env *env) {
        g_ptr_array_add(c->agent_logs, g_strndup(rec->payload, rec->payload_len));
}

static void on_done(struct cell *c, const struct msg *m, const struct proto_record *rec,
                    const struct workload_env *env) {
        int64_t code = -1;

        if (parse_i64(rec->payload, &code) < 0 || code < -1 || code > 255)
                code = -1;
        c->res->exit_code = (int)code;
        c->done_t = m->t;
        c->res->workload_s = m->t - c->go_t;
        load_window_end(c);
        blk_window_end(c);
        /* The guest lists its symbols after done when asked: the cell ends
         * with their last record (or the guest's end, or its silence). */
        if (c->prof.asked && !c->prof.ended) {
                c->syms_wait = 1;
                return;
        }
        stop(c, STOP_DONE, NULL);
}

static void on_kbase(struct cell *c, const struct msg *m, const struct proto_record *rec,
                     const struct workload_env *env) {
        cellprof_on_base(&c->prof, rec->payload, rec->payload_len);
}

static void on_ksym(struct cell *c, const struct msg *m, const struct proto_record *rec,
                    const struct workload_env *env) {
        cellprof_on_sym(&c->prof, rec->payload, rec->payload_len);
}

static void on_ksyms_end(struct cell *c, const struct msg *m, const struct proto_record *rec,
                         const struct workload_env *env) {
        cellprof_on_end(&c->prof, rec->payload, rec->payload_len);
        if (c->syms_wait)
                stop(c, STOP_DONE, NULL);
}

/* What each record type of the agent (common/proto.h) does to the cell; a
 * type not listed is ignored. */
static const struct {
        const char *type;
        int prefix;                        /* 1: every type starting so ("vmstat-header", "vmstat-boot") */
        void (*fn)(struct cell *c, const struct msg *m, const struct proto_record *rec,
                   const struct workload_env *env);
} record_handlers[] = {
        { "ready", 0, on_ready },
        { "vmstat", 1, on_vmstat },
        { "out", 0, on_output },
        { "err", 0, on_output },
        { "event", 0, on_event },
        { "disk-head", 0, on_disk_head },
        { "sysctl", 0, on_sysctl },
        { "disk-driver", 0, on_disk_driver },
        { "log", 0, on_log },
        { "pmu", 0, on_pmu },
        { "counters", 0, on_counters },
        { "memory", 0, on_memory },
        { "done", 0, on_done },
        { "kbase", 0, on_kbase },
        { "ksym", 0, on_ksym },
        { "ksyms-end", 0, on_ksyms_end },
};

/* Marks the host could not read while the job ran (the counter file came
 * back only when the domain ended: a host reached through libvirt): the
 * k-th phase event takes the plugin's k-th mark, which the marker made
 * when the guest reached it, so the late read changes no count. */
static void insn_marks_late(struct cell *c) {
        size_t k = 0;

        if (c->insn_fd < 0 || c->insn_loaded)
                return;
        for (guint i = 0; i < c->res->events->len; i++) {
                const char *name = g_array_index(c->res->events, struct cell_event, i).name;
                struct insncount_totals t;
                int at_marker = 0;

                if (!g_str_has_prefix(name, "phase ") ||
                    insncount_read(c->insn_fd, k, &t, &at_marker) < 0 || !at_marker)
                        continue;
                c->insn_loaded = 1;
                insncount_mark(&c->insn_marks, name, strlen(name), &t);
                k++;
        }
}

static void handle_record(struct cell *c, const struct msg *m, const struct proto_record *rec,
                          const struct workload_env *env) {
        c->last_record_t = m->t;
        for (size_t i = 0; i < G_N_ELEMENTS(record_handlers); i++)
                if (record_handlers[i].prefix ? g_str_has_prefix(rec->type, record_handlers[i].type)
                                              : strcmp(rec->type, record_handlers[i].type) == 0) {
                        record_handlers[i].fn(c, m, rec, env);
                        return;
                }
}

static void parse_outputs(struct cell *c) {
        const struct workload_ops *ops = c->spec->workload->ops;
        struct workload_output out = {
                .n_lines = c->out_lines->len, .lines = (const char *const *)c->out_lines->pdata,
                .n_events = c->events->len, .events = (const char *const *)c->events->pdata,
                .event_t = (const double *)(void *)c->event_t->data,
        };
        struct kb_error perr = { { 0 } };

        if (ops->parse(c->spec->workload, &out, &c->res->metrics, &perr) < 0) {
                c->res->state = CELL_WORKLOAD_FAILURE;
                g_snprintf(c->res->detail, sizeof(c->res->detail), "%s", perr.msg);
                metric_list_clear(&c->res->metrics);
                return;
        }
        for (size_t i = 0; i < c->host_metrics.n; i++) {
                const struct metric *m = &c->host_metrics.v[i];
                if (m->has_value)
                        metric_add(&c->res->metrics, m->name, m->value, m->unit);
                else
                        metric_add_none(&c->res->metrics, m->name, m->unit, m->note);
        }
        if (c->pmu_lost && c->insn_marks.insns_only) {
                c->insn_marks.n = 0;
                g_ptr_array_add(c->host_notes, g_strdup("instruction counts: the guest's PMU missed a phase mark; "
                                                        "none kept"));
        }
        insncount_metrics(&c->insn_marks, &c->res->metrics);
        guestcount_metrics(&c->gc_marks, &c->res->metrics);
        guestcount_memory_metrics(&c->mem_start, &c->mem_end, &c->res->metrics);
        workload_per_op_metrics(ops, &c->res->metrics);
}

static void read_console(const char *path, GString *into) {
        g_autofree char *buf = NULL;
        gsize len = 0;

        if (g_file_get_contents(path, &buf, &len, NULL))
                g_string_append_len(into, buf, (gssize)len);
}

/* Before a restored guest's console: the boot it skipped, the snapshot's
 * (its kernel messages and warnings are this guest's too), then a line
 * saying where the restore happened. Returns the bytes added. */
static off_t console_head(const struct cell_spec *s, GString *into) {
        gsize before = into->len;

        if (s->snapshot_console)
                read_console(s->snapshot_console, into);
        if (into->len > before && into->str[into->len - 1] != '\n')
                g_string_append_c(into, '\n');
        g_string_append(into, "[kbench: restored from snapshot; this cell's console follows]\n");
        return (off_t)(into->len - before);
}


/* ---- the cell's three parts ---------------------------------------------- */

/* Paths and the domain's configuration, owned by one cell_run. */
struct cell_files {
        char *disk, *swap, *console, *serial, *name, *cmdline;
        char *insns;                       /* the plugin's counter file, NULL: no counts */
        char *prof;                        /* the profile plugin's file, NULL: no profile */
        char prof_why[300];                /* why there is none though the run asked, or "" */
        uint32_t disk_head;                /* see disk_head_crc */
        struct workload_env env;
        struct vm_config vc;
};

static void cell_files_clear(struct cell_files *f) {
        g_free(f->disk);
        g_free(f->swap);
        g_free(f->console);
        g_free(f->serial);
        g_free(f->name);
        g_free(f->cmdline);
        g_free(f->insns);
        g_free(f->prof);
}

void cell_workload_env(const struct guest_shape *g, struct workload_env *ret) {
        ret->mem_bytes = (uint64_t)g->mem_mb << 20;
        ret->cpus = (int)g->cpus;
        ret->disk_bytes = g->disk_bytes;
        ret->mnt = KB_GUEST_MNT;
}

/* Preparation: the guest's environment and ports, the job script, fresh
 * disks, the domain configuration. Returns 1 when the cell can start, 0
 * when it already has its end state in res (a preparation failure is a
 * result, not an error), -errno with err when it cannot be attempted. */
static int cell_prepare(const struct cell_spec *s, struct cell_result *res, struct cell_files *f,
                        void (*progress)(void *userdata, const char *stage), void *userdata, struct kb_error *err) {
        const struct workload_ops *ops = s->workload->ops;
        struct kb_error verr = { { 0 } };

        f->disk = g_build_filename(s->work_dir, "disk.img", NULL);
        f->swap = g_build_filename(s->work_dir, "swap.img", NULL);
        f->console = g_build_filename(s->work_dir, "console.log", NULL);
        /* One per attempt: libvirt removes a domain's socket when it ends,
         * and the previous attempt's may end in the background (vm_stop)
         * after this one's listens. */
        f->serial = g_strdup_printf("%s/ttyS1-a%d.sock", s->work_dir, s->attempt);
        /* The previous attempt's domain may still be being destroyed in the
         * background (vm_stop): a retry must not ask for the same name. */
        f->name = s->attempt > 1 ? g_strdup_printf("%s-%s-a%d", s->domain_prefix, s->key, s->attempt)
                                 : g_strdup_printf("%s-%s", s->domain_prefix, s->key);
        if (g_mkdir_with_parents(s->work_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", s->work_dir, g_strerror(errno));

        cell_workload_env(s->guest, &f->env);
        f->env.seed = g_str_hash(s->key) ^ ((uint64_t)s->iteration << 32) ^ (uint64_t)g_get_real_time();
        if (ops->n_ports > 0) {
                f->env.nports = MIN(ops->n_ports, (int)G_N_ELEMENTS(f->env.ports));
                if (pick_ports(f->env.ports, f->env.nports, &verr) < 0) {
                        g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                        res->retryable = 1;
                        return 0;
                }
        }
        if (ops->script(s->workload, &f->env, &res->script, &verr) < 0) {
                res->state = CELL_WORKLOAD_FAILURE;
                g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                return 0;
        }

        if (progress)
                progress(userdata, "disk");
        if (make_disk(f->disk, s->guest->disk_bytes, &verr) < 0 || format_disk(s->guest, f->disk, &verr) < 0 ||
            disk_head_crc(f->disk, &f->disk_head, &verr) < 0 ||
            (s->guest->swap_bytes && make_disk(f->swap, s->guest->swap_bytes, &verr) < 0) ||
            (s->guest->swap_bytes && run_tool((char *[]){ "mkswap", "-q", f->swap, NULL }, &verr) < 0) ||
            vm_qemu_hand_over(s->qemu_user, f->disk, &verr) < 0 ||
            (s->guest->swap_bytes && vm_qemu_hand_over(s->qemu_user, f->swap, &verr) < 0)) {
                /* Not retried: the same settings would fail the same way. */
                g_snprintf(res->detail, sizeof(res->detail), "disk: %s", verr.msg);
                g_unlink(f->disk);
                g_unlink(f->swap);
                return 0;
        }
        /* An empty console log of QEMU's, in a directory that stays
         * kbench's: QEMU may write the file but cannot swap it for a link
         * to something kbench would then read as root. */
        g_unlink(f->console);
        if (!g_file_set_contents(f->console, "", 0, NULL) || vm_qemu_hand_over(s->qemu_user, f->console, &verr) < 0) {
                g_snprintf(res->detail, sizeof(res->detail), "console: %s", verr.msg[0] ? verr.msg : f->console);
                res->retryable = 1;
                g_unlink(f->disk);
                g_unlink(f->swap);
                return 0;
        }

        /* The instruction counter: without it the cell still measures
         * everything else, and says why it has no counts. */
        if (s->insn_plugin && strcmp(s->guest->accel, "kvm") != 0) {
                f->insns = g_build_filename(s->work_dir, "insns.bin", NULL);
                if (!vm_plugin_path_ok(s->insn_plugin) || !vm_plugin_path_ok(f->insns) ||
                    insncount_file_create(f->insns, s->qemu_user, &verr) < 0) {
                        g_snprintf(res->detail, sizeof(res->detail), "instruction counter: %s",
                                   verr.msg[0] ? verr.msg : "a path holds a comma");
                        g_unlink(f->disk);
                        g_unlink(f->swap);
                        g_unlink(f->console);
                        return 0;
                }
        }

        /* The profile rides with the counter; without it the cell still
         * measures everything, and says why it has no profile. */
        if (f->insns && s->prof_plugin) {
                f->prof = g_build_filename(s->work_dir, "kprof.bin", NULL);
                if (!vm_plugin_path_ok(s->prof_plugin) || !vm_plugin_path_ok(f->prof) ||
                    kprof_file_create(f->prof, s->qemu_user, &verr) < 0) {
                        g_snprintf(f->prof_why, sizeof(f->prof_why), "%s",
                                   verr.msg[0] ? verr.msg : "a path holds a comma");
                        g_clear_pointer(&f->prof, g_free);
                }
        }

        /* A restored guest keeps the command line it booted with; the
         * cell's id reaches it in the hello. */
        f->cmdline = s->snapshot ? g_strdup(s->snapshot_cmdline) : guest_cmdline(s->key, s->guest->append);
        f->vc = (struct vm_config){
                .name = s->snapshot ? s->snapshot_domain : f->name, .uuid = s->snapshot ? s->snapshot_uuid : NULL,
                .guest = s->guest, .kernel = s->kernel->vmlinux_path ? s->kernel->vmlinux_path : s->kernel->image_path,
                .initrd = s->initrd, .cmdline = f->cmdline, .disk = f->disk,
                .swap_disk = s->guest->swap_bytes ? f->swap : NULL,
                .console_path = f->console, .serial_socket = f->serial,
                .plugin = f->insns ? s->insn_plugin : NULL, .plugin_out = f->insns,
                .prof_plugin = f->prof ? s->prof_plugin : NULL, .prof_out = f->prof,
        };
        for (int i = 0; i < f->env.nports; i++)
                f->vc.forwards[i] = (struct vm_forward){ f->env.ports[i],
                                                         ops->guest_ports[i] ? ops->guest_ports[i] : f->env.ports[i] };
        f->vc.n_forwards = (size_t)f->env.nports;
        return 1;
}

/* The event pump: records from ttyS1, domain events, the host phase and the
 * staged timeouts, until the first reason to stop (see stop()). */
static void cell_pump(struct cell *c, const struct workload_env *env,
                      void (*progress)(void *userdata, const char *stage), void *userdata) {
        const struct cell_spec *s = c->spec;
        struct proto_record rec;

        while (c->stage != STAGE_DONE) {
                struct msg *m;
                double t;

                /* Before the queue: a guest that floods ttyS1 must not
                 * starve the host's readings. */
                if (c->blk_on && c->stage == STAGE_RUN && now_s(c) >= c->blk_next)
                        blk_sample(c);
                m = g_async_queue_timeout_pop(c->q, 100 * 1000);
                t = now_s(c);

                if (m) {
                        switch (m->kind) {
                        case MSG_LINE:
                                if (console_stream_line(&c->stream, m->text, m->len, &rec) == 1) {
                                        enum stage before = c->stage;
                                        handle_record(c, m, &rec, env);
                                        if (before != STAGE_RUN && c->stage == STAGE_RUN && progress)
                                                progress(userdata, "run");
                                }
                                break;
                        case MSG_EOF:
                        case MSG_STOPPED:
                        case MSG_HOST_LOST:
                                /* A job that was done stays done. */
                                stop(c, c->syms_wait ? STOP_DONE : STOP_DOMAIN_ENDED, m->text);
                                break;
                        case MSG_IO_ERROR:
                                stop(c, STOP_IO_ERROR, m->text);
                                break;
                        case MSG_HOST_DONE:
                                c->host_done = 1;
                                if (m->status < 0)
                                        stop(c, STOP_HOST_PHASE_FAILED, m->text);
                                break;
                        }
                        msg_free(m);
                        continue;
                }
                if (s->stop ? *s->stop : cell_interrupted)
                        stop(c, STOP_INTERRUPTED, NULL);
                else if (t > s->deadline_s)
                        stop(c, STOP_DEADLINE, NULL);
                else if (c->stage == STAGE_BOOT && file_size(c->console_path) > 0)
                        c->stage = STAGE_READY_WAIT;
                else if (c->stage == STAGE_BOOT && t > s->boot_timeout_s / 3)
                        stop(c, STOP_NO_CONSOLE, NULL);
                else if (c->stage == STAGE_READY_WAIT && t > c->ready_timeout_s)
                        stop(c, STOP_NO_READY, NULL);
                else if (c->syms_wait && t - c->last_record_t > CELL_SYMS_SILENCE_S)
                        stop(c, STOP_DONE, NULL);
                else if (c->stage == STAGE_RUN && t - c->last_record_t > s->silence_timeout_s)
                        stop(c, STOP_SILENCE, NULL);
        }
}

/* The facts the pump recorded, for endstate_decide. Strings point into c,
 * cv and space. */
static void cell_facts(const struct cell *c, const struct console_verdict *cv, const char *space,
                       struct endstate_facts *ret) {
        const struct cell_spec *s = c->spec;

        *ret = (struct endstate_facts){
                .stop = c->stop, .stop_detail = c->stop_detail, .ready = c->ready_t > 0,
                .release = c->res->release, .expected_release = s->kernel->release,
                .exit_code = c->res->exit_code, .rejected = c->res->rejected,
                .first_reject = c->stream.first_reject,
                .last_agent_note = c->agent_logs->len ? c->agent_logs->pdata[c->agent_logs->len - 1] : NULL,
                .last_output = c->out_lines->len ? c->out_lines->pdata[c->out_lines->len - 1] : NULL,
                .kernel_started = cv->kernel_started, .crashed = cv->crashed, .crash_line = cv->crash_line,
                /* Without a ready the whole console came before it. */
                .crash_before_ready = cv->crashed && (c->ready_t <= 0 ||
                                                      (off_t)cv->crash_offset < c->ready_console_len),
                .warnings = cv->warnings, .deadline_s = s->deadline_s, .boot_timeout_s = s->boot_timeout_s,
                .silence_timeout_s = s->silence_timeout_s, .host_space = space,
        };
        /* A job that finished is the cell's, whatever became of its host
         * afterwards; one that did not may have lost its host, which
         * explains the stream's end better than the guest can. */
        if (c->stop != STOP_DONE && c->ops->lost)
                c->ops->lost(c->ctx, &ret->host_lost);
}

static int real_start(void *ctx, const struct vm_config *config, vm_event_fn fn, void *userdata, struct vm **ret,
                      struct kb_error *err) {
        return vm_start(ctx, config, fn, userdata, ret, err);
}

static int real_restore(void *ctx, const char *path, const struct vm_config *config, vm_event_fn fn,
                        void *userdata, struct vm **ret, struct kb_error *err) {
        return vm_restore(ctx, path, config, fn, userdata, ret, err);
}

static void real_stop(void *ctx, struct vm *vm, int background) {
        vm_stop(vm, background);
}

static int real_lost(void *ctx, const char **ret_why) {
        return vm_conn_lost(ctx, ret_why);
}

const struct cell_vm_ops cell_local_vm_ops = {
        .start = real_start, .restore = real_restore, .send = vm_send, .taints = vm_taints,
        .block_stats = vm_block_stats, .stop = real_stop, .times = vm_get_times, .lost = real_lost,
};

int cell_run(struct vm_conn *conn, const struct cell_spec *s, struct cell_result *res,
             void (*progress)(void *userdata, const char *stage), void *userdata, struct kb_error *err) {
        return cell_run_ops(&cell_local_vm_ops, conn, s, res, progress, userdata, err);
}

/* libvirt's taint flags. Expected: custom-argv when the user-mode NIC and
 * its forwards go in as QEMU arguments, and under TCG "hypervisor feature
 * autodetection override" (host/vm.c, the guest CPU read). */
static void note_taints(struct cell *c) {
        g_auto(GStrv) taints = NULL;

        if (c->ops->taints(c->vm, &taints, NULL) == 0)
                for (size_t i = 0; taints[i]; i++)
                        g_ptr_array_add(c->host_notes, g_strdup_printf("libvirt: %s", taints[i]));
}

static void cell_start_cold(struct cell *c, struct cell_files *f, void *ctx,
                            void (*progress)(void *userdata, const char *stage), void *userdata) {
        struct kb_error verr = { { 0 } };

        if (progress)
                progress(userdata, "boot");
        c->res->started_at = (double)g_get_real_time() / 1e6;
        c->t0_us = g_get_monotonic_time();
        if (c->ops->start(ctx, &f->vc, on_vm_event, c, &c->vm, &verr) < 0) {
                stop(c, STOP_VM_START_FAILED, verr.msg);
                return;
        }
        load_find_qemu(c, f->vc.name);
        note_taints(c);
        cell_pump(c, &f->env, progress, userdata);
        c->res->total_s = now_s(c);
}

/* Restore the snapshot, give the guest the cell's identity, run the pump.
 * Returns 0 when the cell ran warm (whatever its end), -1 when the
 * snapshot failed before the guest's ready (the cell is to boot cold;
 * c->stop_detail says why). */
static int cell_start_warm(struct cell *c, struct cell_files *f, void *ctx,
                           void (*progress)(void *userdata, const char *stage), void *userdata) {
        const struct cell_spec *s = c->spec;
        struct kb_error verr = { { 0 } };
        int64_t now_ms;

        if (progress)
                progress(userdata, "restore");
        c->console_head = console_head(s, c->res->console);
        /* The restored guest is past its boot: it answers the hello. */
        c->stage = STAGE_READY_WAIT;
        c->ready_timeout_s = CELL_WARM_READY_S;
        c->res->started_at = (double)g_get_real_time() / 1e6;
        c->t0_us = g_get_monotonic_time();
        if (!c->ops->restore || c->ops->restore(ctx, s->snapshot, &f->vc, on_vm_event, c, &c->vm, &verr) < 0) {
                stop(c, STOP_VM_START_FAILED, c->ops->restore ? verr.msg : "no restore operation");
                return -1;
        }
        c->restored_t = now_s(c);
        now_ms = g_get_real_time() / 1000;
        {
                g_autofree char *hello = g_strdup_printf("hello %s %" G_GINT64_FORMAT "\n", s->key, now_ms);
                if (c->ops->send(c->vm, hello, strlen(hello), &verr) < 0) {
                        stop(c, STOP_SEND_FAILED, verr.msg);
                        return -1;
                }
                c->hello_t = now_s(c);
        }
        load_find_qemu(c, f->vc.name);
        note_taints(c);
        cell_pump(c, &f->env, progress, userdata);
        c->res->total_s = now_s(c);
        /* What the host did (an interrupt, the deadline, a full disk) is
         * the cell's end; what the restored guest failed to do before its
         * ready is the snapshot's. */
        if (c->stop == STOP_INTERRUPTED || c->stop == STOP_DEADLINE || c->stop == STOP_IO_ERROR ||
            (c->ready_t > 0 && c->stop != STOP_RELEASE_MISMATCH)) {
                c->res->warm = 1;
                return 0;
        }
        return -1;
}

static const char *stop_name(enum endstate_stop why) {
        switch (why) {
        case STOP_VM_START_FAILED: return "restore failed";
        case STOP_SEND_FAILED: return "hello not sent";
        case STOP_RELEASE_MISMATCH: return "another release";
        case STOP_DOMAIN_ENDED: return "domain ended";
        case STOP_NO_READY: return "no ready";
        default: return "stopped";
        }
}

/* The snapshot failed: forget everything the restored guest did, so the
 * cold boot that follows is a cell like any other. The cell's disk is
 * unchanged (the guest never had its go). */
static void cell_fall_back_cold(struct cell *c, struct cell_files *f) {
        const struct cell_spec *s = c->spec;
        struct cell_result *res = c->res;
        struct msg *m;

        g_ptr_array_add(c->host_notes, g_strdup_printf("warm start failed after %.2f s (%s%s%s); the snapshot "
                                                       "is removed and the cell boots cold", now_s(c),
                                                       stop_name(c->stop), c->stop_detail ? ": " : "",
                                                       c->stop_detail ? c->stop_detail : ""));
        c->ops->stop(c->ctx, c->vm, 0);
        c->vm = NULL;
        while ((m = g_async_queue_try_pop(c->q)))
                msg_free(m);
        res->snapshot_failed = 1;
        res->boot_s = res->total_s = NAN;
        g_clear_pointer(&res->release, g_free);
        g_string_truncate(res->console, 0);
        g_string_truncate(res->data, 0);
        for (guint i = 0; i < res->vmstat->len; i++) {
                struct cell_vmstat_line *v = &g_array_index(res->vmstat, struct cell_vmstat_line, i);
                g_free(v->type);
                g_free(v->text);
        }
        g_array_set_size(res->vmstat, 0);
        /* The restored guest's events would be stored as the cold boot's
         * phase marks, as its raw log would have been before it is cut. */
        for (guint i = 0; i < res->events->len; i++)
                g_free(g_array_index(res->events, struct cell_event, i).name);
        g_array_set_size(res->events, 0);
        g_array_set_size(res->points, 0);
        g_array_set_size(res->hostblk, 0);
        c->blk_on = 0;
        g_ptr_array_set_size(c->out_lines, 0);
        g_ptr_array_set_size(c->events, 0);
        g_array_set_size(c->event_t, 0);
        /* The restored guest's notes are kept as evidence of the failure. */
        for (guint i = 0; i < c->agent_logs->len; i++)
                g_ptr_array_add(c->host_notes, g_strdup_printf("restored guest said: %s",
                                                               (char *)c->agent_logs->pdata[i]));
        g_ptr_array_set_size(c->agent_logs, 0);
        g_clear_pointer(&c->stop_detail, g_free);
        cellprof_reset(&c->prof);
        c->syms_wait = 0;
        c->stop = STOP_DONE;
        c->stage = STAGE_BOOT;
        c->ready_t = c->go_t = c->done_t = c->last_record_t = 0;
        c->restored_t = c->hello_t = 0;
        c->ready_console_len = 0;
        c->console_head = 0;
        c->ready_timeout_s = s->boot_timeout_s;
        memset(&c->lines, 0, sizeof(c->lines));
        console_stream_init(&c->stream, s->key);
        g_unlink(f->console);
        g_unlink(f->serial);
        g_free(f->cmdline);
        f->cmdline = guest_cmdline(s->key, s->guest->append);
        f->vc.cmdline = f->cmdline;
        f->vc.uuid = NULL;
        f->vc.name = f->name;
}

static void result_init(struct cell_result *res) {
        *res = (struct cell_result){ .state = CELL_INFRA_ERROR, .exit_code = -1, .boot_s = NAN,
                                     .workload_s = NAN, .total_s = NAN };
        res->vmstat = g_array_new(FALSE, TRUE, sizeof(struct cell_vmstat_line));
        res->points = g_array_new(FALSE, TRUE, sizeof(struct cell_point));
        res->events = g_array_new(FALSE, TRUE, sizeof(struct cell_event));
        res->sysctls = g_ptr_array_new_with_free_func(g_free);
        res->hostblk = g_array_new(FALSE, TRUE, sizeof(struct cell_hostblk));
        g_strlcpy(res->hostblk_note, "the workload never started", sizeof(res->hostblk_note));
        res->console = g_string_new(NULL);
        res->data = g_string_new(NULL);
}

/* The cell's state before the guest starts; cell_clear undoes it. */
static void cell_init(struct cell *c, const struct cell_vm_ops *ops, const struct cell_spec *s,
                      struct cell_result *res, const struct cell_files *f) {
        *c = (struct cell){ .ops = ops, .spec = s, .res = res, .console_path = f->console };
        c->q = g_async_queue_new_full(msg_free);
        c->out_lines = g_ptr_array_new_with_free_func(g_free);
        c->agent_logs = g_ptr_array_new_with_free_func(g_free);
        c->host_notes = g_ptr_array_new_with_free_func(g_free);
        c->events = g_ptr_array_new_with_free_func(g_free);
        c->event_t = g_array_new(FALSE, FALSE, sizeof(double));
        g_mutex_init(&c->data_lock);
        c->stage = STAGE_BOOT;
        c->ready_timeout_s = s->boot_timeout_s;
        c->disk_head = f->disk_head;
        c->insn_fd = f->insns ? open(f->insns, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
        cellprof_init(&c->prof, f->prof, s->kernel);
        if (f->prof_why[0])
                g_ptr_array_add(c->host_notes, g_strdup_printf("no profile: its file: %s", f->prof_why));
        console_stream_init(&c->stream, s->key);
}

/* An ok cell's profile, resolved now the plugin's file is complete. */
static void conclude_profile(struct cell *c, const struct cell_files *f) {
        const struct kstore_kernel *k = c->spec->kernel;
        struct cellprof_result pr;

        cellprof_conclude(&c->prof, &c->insn_marks, f->cmdline, k->vmlinux_path && f->vc.kernel == k->vmlinux_path,
                          c->host_notes, &pr);
        c->res->profile = pr.rows;
        c->res->ksyms = pr.ksyms;
        c->res->ksyms_fresh = pr.ksyms_fresh;
}

/* After the guest is gone: the end state from what was seen, the metrics
 * and the evidence kept with them. */
static void cell_conclude(struct cell *c, const struct cell_files *f) {
        const struct cell_spec *s = c->spec;
        struct cell_result *res = c->res;
        struct console_verdict cv = { 0 };
        struct endstate_facts facts;
        struct endstate es;
        struct statvfs st;
        char space[160] = "";

        /* The event loop no longer touches c->lines: count what it dropped. */
        res->rejected = c->stream.rejected + (long)c->lines.dropped;
        if (c->lines.dropped && !c->stream.first_reject[0])
                g_snprintf(c->stream.first_reject, sizeof(c->stream.first_reject),
                           "a line longer than %d bytes", PROTO_LINE_MAX);
        read_console(f->console, res->console);
        console_scan(res->console->str, res->console->len, &cv);
        if (statvfs(s->work_dir, &st) == 0)
                g_snprintf(space, sizeof(space), "; %llu MiB free in %s",
                           (unsigned long long)((uint64_t)st.f_bavail * st.f_frsize >> 20), s->work_dir);

        cell_facts(c, &cv, space, &facts);
        endstate_decide(&facts, &es);
        res->state = es.state;
        g_strlcpy(res->detail, es.detail, sizeof(res->detail));
        res->retryable = es.retryable;
        res->host_failed = es.host_failed;
        /* A restored guest that read a block of another disk: the snapshot
         * is not to be trusted again. */
        if (res->warm && c->stop == STOP_STALE_DISK)
                res->snapshot_failed = 1;
        if (es.parse) {
                char warn[sizeof(res->detail)];
                g_strlcpy(warn, res->detail, sizeof(warn));
                parse_outputs(c);
                if (cellstate_is(res->state, CELLSTATE_OK))
                        g_strlcpy(res->detail, warn, sizeof(res->detail));
        }
        if (c->done_t > 0 && cellstate_is(res->state, CELLSTATE_OK)) {
                load_metrics(c);
                conclude_profile(c, f);
        }
        if (c->insn_fd >= 0 && !c->insn_loaded && c->done_t > 0)
                g_ptr_array_add(c->host_notes, g_strdup("no instruction counts: QEMU ran without kbench's "
                                                        "plugin (its counter file stayed empty)"));

        /* How the guest started, for every cell (show's START column):
         * warm and cold cells are told apart by this alone. */
        metric_add(&res->metrics, CELL_METRIC_WARM, res->warm ? 1 : 0, "");

        /* Keep what the job printed with the cell: it is the evidence for the metrics. */
        res->output = g_string_new(NULL);
        for (guint i = 0; i < c->host_notes->len; i++)
                g_string_append_printf(res->output, "[host] %s\n", (char *)c->host_notes->pdata[i]);
        for (guint i = 0; i < c->agent_logs->len; i++)
                g_string_append_printf(res->output, "[agent] %s\n", (char *)c->agent_logs->pdata[i]);
        for (guint i = 0; i < c->out_lines->len; i++)
                g_string_append_printf(res->output, "%s\n", (char *)c->out_lines->pdata[i]);
}

/* The cell's files (the console is in res->console now; the scratch
 * directory must be empty for the runner to remove it) and state. */
static void cell_clear(struct cell *c, struct cell_files *f) {
        g_unlink(f->disk);
        g_unlink(f->swap);
        g_unlink(f->console);
        g_unlink(f->serial);
        if (c->insn_fd >= 0)
                close(c->insn_fd);
        if (f->insns)
                g_unlink(f->insns);
        if (f->prof)
                g_unlink(f->prof);
        cellprof_clear(&c->prof);
        g_async_queue_unref(c->q);
        g_ptr_array_free(c->out_lines, TRUE);
        g_ptr_array_free(c->agent_logs, TRUE);
        g_ptr_array_free(c->host_notes, TRUE);
        g_ptr_array_free(c->events, TRUE);
        g_array_free(c->event_t, TRUE);
        g_free(c->stop_detail);
        metric_list_clear(&c->host_metrics);
        g_mutex_clear(&c->data_lock);
        cell_files_clear(f);
}

int cell_run_ops(const struct cell_vm_ops *ops, void *ctx, const struct cell_spec *s, struct cell_result *res,
                 void (*progress)(void *userdata, const char *stage), void *userdata, struct kb_error *err) {
        struct cell_files f = { 0 };
        struct cell c;
        int r;

        result_init(res);
        r = cell_prepare(s, res, &f, progress, userdata, err);
        if (r <= 0) {
                if (f.console)
                        g_unlink(f.console);
                if (f.insns)
                        g_unlink(f.insns);
                if (f.prof)
                        g_unlink(f.prof);
                cell_files_clear(&f);
                return r;
        }
        cell_init(&c, ops, s, res, &f);
        c.ctx = ctx;
        if (s->snapshot && cell_start_warm(&c, &f, ctx, progress, userdata) < 0)
                cell_fall_back_cold(&c, &f);
        if (!res->warm)
                cell_start_cold(&c, &f, ctx, progress, userdata);

        c.host_cancel = 1;
        if (c.host_thread)
                g_thread_join(c.host_thread);
        /* The next warm cell restores under the same name and UUID: this
         * domain must be gone before it. */
        ops->stop(ctx, c.vm, !res->warm);
        insn_marks_late(&c);
        cell_conclude(&c, &f);
        cell_clear(&c, &f);
        return 0;
}

void cell_result_clear(struct cell_result *r) {
        if (r->vmstat) {
                for (guint i = 0; i < r->vmstat->len; i++) {
                        struct cell_vmstat_line *v = &g_array_index(r->vmstat, struct cell_vmstat_line, i);
                        g_free(v->type);
                        g_free(v->text);
                }
                g_array_free(r->vmstat, TRUE);
        }
        if (r->points)
                g_array_free(r->points, TRUE);
        if (r->hostblk)
                g_array_free(r->hostblk, TRUE);
        if (r->events) {
                for (guint i = 0; i < r->events->len; i++)
                        g_free(g_array_index(r->events, struct cell_event, i).name);
                g_array_free(r->events, TRUE);
        }
        if (r->console)
                g_string_free(r->console, TRUE);
        if (r->data)
                g_string_free(r->data, TRUE);
        if (r->output)
                g_string_free(r->output, TRUE);
        if (r->sysctls)
                g_ptr_array_unref(r->sysctls);
        g_free(r->release);
        g_free(r->script);
        metric_list_clear(&r->metrics);
        cellprof_result_clear(&(struct cellprof_result){ r->profile, r->ksyms, 0 });
        *r = (struct cell_result){ 0 };
}
