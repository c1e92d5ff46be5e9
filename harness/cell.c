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
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/util.h"
#include "guest/proto.h"
#include "harness/cell.h"
#include "harness/console.h"

volatile int cell_interrupted;

enum msg_kind { MSG_LINE, MSG_EOF, MSG_STOPPED, MSG_HOST_DONE };

struct msg {
        enum msg_kind kind;
        double t;                          /* arrival, s since QEMU start */
        int status;                        /* MSG_HOST_DONE: r */
        size_t len;                        /* MSG_LINE: bytes in text */
        char *text;                        /* MSG_LINE: a ttyS1 line; STOPPED: detail; HOST_DONE: error */
};

enum stage { STAGE_BOOT, STAGE_READY_WAIT, STAGE_RUN, STAGE_DONE };

struct cell {
        const struct cell_spec *spec;
        struct cell_result *res;
        struct vm *vm;
        GAsyncQueue *q;
        int64_t t0_us;                     /* monotonic at QEMU start */
        struct console_lines lines;        /* event-loop thread only */
        GMutex data_lock;                  /* guards res->data and res->points from other threads */

        enum stage stage;
        struct console_stream stream;      /* ttyS1 accounting */
        double last_record_t;
        double go_t, ready_t, done_t;
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
        }
}

/* ---- host phase --------------------------------------------------------- */

static double host_now(void *userdata) {
        return now_s(userdata);
}

static int host_say(void *userdata, const char *line) {
        struct cell *c = userdata;
        g_autofree char *msg = g_strdup_printf("say %s\n", line);

        return vm_send(c->vm, msg, strlen(msg), NULL);
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
        _cleanup_close_ int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        if (ftruncate(fd, (off_t)bytes) < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        return 0;
}

static int format_disk(const struct cell_spec *s, const char *path, struct kb_error *err) {
        g_autofree char *tool = g_strdup_printf("mkfs.%s", s->fs);
        int is_ext = g_str_has_prefix(s->fs, "ext");
        /* Zero inode tables and journal now: lazy init would leave the guest
         * kernel a background writer (ext4lazyinit) that pollutes the I/O
         * being measured. */
        char *argv_ext[] = { tool, "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", (char *)path, NULL };
        char *argv_other[] = { tool, "-f", (char *)path, NULL };

        return run_tool(is_ext ? argv_ext : argv_other, err);
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

static void finish(struct cell *c, const char *state, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void finish(struct cell *c, const char *state, const char *fmt, ...) {
        va_list ap;

        if (c->stage == STAGE_DONE)
                return;
        c->stage = STAGE_DONE;
        c->res->state = state;
        va_start(ap, fmt);
        g_vsnprintf(c->res->detail, sizeof(c->res->detail), fmt, ap);
        va_end(ap);
}

static int send_line(struct cell *c, const char *a, const char *b) {
        g_autofree char *line = g_strdup_printf("%s%s\n", a, b);
        return vm_send(c->vm, line, strlen(line), NULL);
}

static int send_job(struct cell *c, const struct workload_env *env) {
        const struct cell_spec *s = c->spec;
        g_auto(GStrv) lines = g_strsplit(c->res->script, "\n", -1);
        int r = 0;

        /* IDE primary master and slave by SCSI address: sd names are handed out
         * asynchronously, so with two disks "sda" may be either. */
        r |= send_line(c, "set disk ", "scsi:0:0:0:0");
        r |= send_line(c, "set mnt ", env->mnt);
        r |= send_line(c, "set fs ", s->fs);
        r |= send_line(c, "set mount_opts ", s->mount_opts ? s->mount_opts : "");
        r |= send_line(c, "set swap ", s->swap_bytes ? "scsi:0:0:1:0" : "");
        r |= send_line(c, "set net ", env->nports > 0 ? "1" : "0");
        r |= send_line(c, "set vmstat_interval_ms ", "1000");
        for (size_t i = 0; lines[i] && r == 0; i++) {
                char esc[PROTO_LINE_MAX];
                if (proto_escape(esc, sizeof(esc), lines[i], strlen(lines[i])) < 0)
                        return -E2BIG;
                r |= send_line(c, "script ", esc);
        }
        r |= send_line(c, "go", "");
        return r < 0 ? -EIO : 0;
}

static void handle_record(struct cell *c, const struct msg *m, const struct proto_record *rec,
                          const struct workload_env *env) {
        const char *type = rec->type;

        c->last_record_t = m->t;

        if (strcmp(type, "ready") == 0) {
                if (c->stage != STAGE_BOOT && c->stage != STAGE_READY_WAIT)
                        return;
                c->ready_t = m->t;
                c->res->boot_s = m->t;
                {
                        const char *rel = strstr(rec->payload, "release=");
                        if (rel)
                                c->res->release = g_strndup(rel + 8, strcspn(rel + 8, " "));
                }
                /* The store knows which kernel it handed over; a guest that
                 * says otherwise booted something else. */
                if (c->spec->kernel->release && g_strcmp0(c->res->release, c->spec->kernel->release) != 0) {
                        finish(c, CELL_INFRA_ERROR, "the guest runs release '%s', expected '%s'",
                               c->res->release ? c->res->release : "(none)", c->spec->kernel->release);
                        return;
                }
                if (send_job(c, env) < 0) {
                        finish(c, CELL_INFRA_ERROR, "cannot send the job to the agent on ttyS1");
                        c->res->retryable = 1;
                        return;
                }
                c->go_t = now_s(c);
                c->stage = STAGE_RUN;
        } else if (g_str_has_prefix(type, "vmstat")) {
                struct cell_vmstat_line v = { g_strdup(type), g_strndup(rec->payload, rec->payload_len),
                                              (int64_t)rec->seq, m->t, (double)rec->t_ms / 1000.0 };
                g_array_append_val(c->res->vmstat, v);
        } else if (strcmp(type, "out") == 0 || strcmp(type, "err") == 0) {
                g_ptr_array_add(c->out_lines, g_strndup(rec->payload, rec->payload_len));
        } else if (strcmp(type, "event") == 0) {
                double t = (double)rec->t_ms / 1000.0;
                g_ptr_array_add(c->events, g_strndup(rec->payload, rec->payload_len));
                g_array_append_val(c->event_t, t);
                if (strcmp(rec->payload, "host-start") == 0 && c->spec->workload->ops->host && !c->host_thread) {
                        c->host = (struct workload_host){
                                .spec = c->spec->workload, .env = env, .now = host_now, .say = host_say,
                                .point = host_point, .cancel = &c->host_cancel, .userdata = c,
                                .metrics = &c->host_metrics,
                        };
                        c->host_thread = g_thread_new("kbench-host-phase", host_thread, c);
                }
        } else if (strcmp(type, "log") == 0) {
                /* The agent's own notes are evidence, not workload output. */
                g_ptr_array_add(c->agent_logs, g_strndup(rec->payload, rec->payload_len));
        } else if (strcmp(type, "done") == 0) {
                int64_t code = -1;
                if (parse_i64(rec->payload, &code) < 0 || code < -1 || code > 255)
                        code = -1;
                c->res->exit_code = (int)code;
                c->done_t = m->t;
                c->res->workload_s = m->t - c->go_t;
                c->stage = STAGE_DONE;
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
}

static void read_console(const char *path, GString *into) {
        g_autofree char *buf = NULL;
        gsize len = 0;

        if (g_file_get_contents(path, &buf, &len, NULL))
                g_string_append_len(into, buf, (gssize)len);
}

static off_t file_size(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 ? st.st_size : 0;
}

int cell_run(struct vm_conn *conn, const struct cell_spec *s, struct cell_result *res,
             void (*progress)(void *userdata, const char *stage), void *userdata, struct kb_error *err) {
        g_autofree char *disk = g_build_filename(s->work_dir, "disk.img", NULL);
        g_autofree char *swap = g_build_filename(s->work_dir, "swap.img", NULL);
        g_autofree char *console = g_build_filename(s->work_dir, "console.log", NULL);
        g_autofree char *name = g_strdup_printf("%s-%s", s->domain_prefix, s->key);
        g_autofree char *cmdline = NULL;
        const struct workload_ops *ops = s->workload->ops;
        struct workload_env env = { 0 };
        struct vm_config vc = { 0 };
        struct console_verdict cv = { 0 };
        struct proto_record rec;
        struct kb_error verr = { { 0 } };
        struct cell c = { 0 };
        int r;

        *res = (struct cell_result){ .state = CELL_INFRA_ERROR, .exit_code = -1, .boot_s = NAN,
                                     .workload_s = NAN, .total_s = NAN };
        res->vmstat = g_array_new(FALSE, TRUE, sizeof(struct cell_vmstat_line));
        res->points = g_array_new(FALSE, TRUE, sizeof(struct cell_point));
        res->console = g_string_new(NULL);
        res->data = g_string_new(NULL);

        if (g_mkdir_with_parents(s->work_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", s->work_dir, g_strerror(errno));

        env.mem_bytes = (uint64_t)s->mem_mb << 20;
        env.cpus = (int)s->cpus;
        env.disk_bytes = s->disk_bytes;
        env.mnt = "/mnt/test";
        env.seed = g_str_hash(s->key) ^ ((uint64_t)s->iteration << 32) ^ (uint64_t)g_get_real_time();
        if (ops->n_ports > 0) {
                env.nports = MIN(ops->n_ports, (int)G_N_ELEMENTS(env.ports));
                if (pick_ports(env.ports, env.nports, &verr) < 0) {
                        g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                        res->retryable = 1;
                        return 0;
                }
        }
        r = ops->script(s->workload, &env, &res->script, &verr);
        if (r < 0) {
                res->state = CELL_WORKLOAD_FAILURE;
                g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                return 0;
        }

        if (progress)
                progress(userdata, "disk");
        if (make_disk(disk, s->disk_bytes, &verr) < 0 || format_disk(s, disk, &verr) < 0 ||
            (s->swap_bytes && make_disk(swap, s->swap_bytes, &verr) < 0) ||
            (s->swap_bytes && run_tool((char *[]){ "mkswap", "-q", swap, NULL }, &verr) < 0)) {
                /* Not retried: the same settings would fail the same way. */
                g_snprintf(res->detail, sizeof(res->detail), "disk: %s", verr.msg);
                g_unlink(disk);
                g_unlink(swap);
                return 0;
        }
        g_unlink(console);

        cmdline = g_strdup_printf("console=ttyS0,115200 panic=-1 rdinit=/init kbench.cell=%s%s%s", s->key,
                                  s->append ? " " : "", s->append ? s->append : "");
        vc = (struct vm_config){
                .name = name, .accel = s->accel, .mem_mb = s->mem_mb, .cpus = s->cpus,
                .kernel = s->kernel->vmlinux_path ? s->kernel->vmlinux_path : s->kernel->image_path,
                .initrd = s->initrd, .cmdline = cmdline, .disk = disk,
                .swap_disk = s->swap_bytes ? swap : NULL, .disk_bytes_per_s = s->disk_bytes_per_s,
                .console_path = console,
        };
        if (env.nports > 0) {
                vc.forwards[0] = (struct vm_forward){ env.ports[0], 21 };
                for (int i = 1; i < env.nports; i++)
                        vc.forwards[i] = (struct vm_forward){ env.ports[i], env.ports[i] };
                vc.n_forwards = (size_t)env.nports;
        }

        c.spec = s;
        c.res = res;
        c.q = g_async_queue_new_full(msg_free);
        c.out_lines = g_ptr_array_new_with_free_func(g_free);
        c.agent_logs = g_ptr_array_new_with_free_func(g_free);
        c.host_notes = g_ptr_array_new_with_free_func(g_free);
        c.events = g_ptr_array_new_with_free_func(g_free);
        c.event_t = g_array_new(FALSE, FALSE, sizeof(double));
        g_mutex_init(&c.data_lock);
        c.stage = STAGE_BOOT;
        console_stream_init(&c.stream, s->key);

        if (progress)
                progress(userdata, "boot");
        res->started_at = (double)g_get_real_time() / 1e6;
        c.t0_us = g_get_monotonic_time();
        r = vm_start(conn, &vc, on_vm_event, &c, &c.vm, &verr);
        if (r < 0) {
                g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                res->retryable = 1;
                goto out;
        }
        {
                /* Record libvirt's taint flags; custom-argv is expected when
                 * the user-mode NIC and its forwards go in as QEMU arguments. */
                g_auto(GStrv) taints = NULL;
                if (vm_taints(c.vm, &taints, NULL) == 0)
                        for (size_t i = 0; taints[i]; i++)
                                g_ptr_array_add(c.host_notes, g_strdup_printf("libvirt: %s", taints[i]));
        }

        while (c.stage != STAGE_DONE) {
                struct msg *m = g_async_queue_timeout_pop(c.q, 100 * 1000);
                double t = now_s(&c);

                if (m) {
                        switch (m->kind) {
                        case MSG_LINE:
                                if (console_stream_line(&c.stream, m->text, m->len, &rec) == 1) {
                                        enum stage before = c.stage;
                                        handle_record(&c, m, &rec, &env);
                                        if (before != STAGE_RUN && c.stage == STAGE_RUN && progress)
                                                progress(userdata, "run");
                                }
                                break;
                        case MSG_EOF:
                        case MSG_STOPPED:
                                read_console(console, res->console);
                                console_scan(res->console->str, res->console->len, &cv);
                                if (cv.crashed)
                                        finish(&c, c.ready_t > 0 ? CELL_RUNTIME_CRASH : CELL_BOOT_CRASH,
                                               "%s", cv.crash_line);
                                else if (c.ready_t > 0)
                                        finish(&c, CELL_RUNTIME_CRASH, "domain %s before the job finished",
                                               m->text ? m->text : "closed ttyS1");
                                else
                                        finish(&c, CELL_BOOT_CRASH, "domain %s before the agent was ready (%s)",
                                               m->text ? m->text : "closed ttyS1",
                                               cv.kernel_started ? "kernel started" : "no kernel output");
                                break;
                        case MSG_HOST_DONE:
                                c.host_done = 1;
                                if (m->status < 0)
                                        finish(&c, CELL_WORKLOAD_FAILURE, "host phase: %s", m->text);
                                break;
                        }
                        msg_free(m);
                        continue;
                }
                if (cell_interrupted) {
                        finish(&c, CELL_INFRA_ERROR, "interrupted");
                        break;
                }
                if (t > s->deadline_s) {
                        finish(&c, CELL_HANG, "cell deadline of %.0f s passed (stage: %s)", s->deadline_s,
                               c.stage == STAGE_RUN ? "workload" : "boot");
                } else if (c.stage == STAGE_BOOT) {
                        if (file_size(console) > 0)
                                c.stage = STAGE_READY_WAIT;
                        else if (t > s->boot_timeout_s / 3)
                                finish(&c, CELL_BOOT_TIMEOUT, "no console output within %.0f s",
                                       s->boot_timeout_s / 3);
                } else if (c.stage == STAGE_READY_WAIT && t > s->boot_timeout_s) {
                        read_console(console, res->console);
                        console_scan(res->console->str, res->console->len, &cv);
                        if (cv.crashed)
                                finish(&c, CELL_BOOT_CRASH, "%s", cv.crash_line);
                        else
                                finish(&c, CELL_BOOT_TIMEOUT, "%s within %.0f s",
                                       cv.kernel_started ? "kernel started but no agent ready"
                                                         : "console output but no kernel start",
                                       s->boot_timeout_s);
                } else if (c.stage == STAGE_RUN && t - c.last_record_t > s->silence_timeout_s) {
                        finish(&c, CELL_HANG, "no ttyS1 record for %.0f s during the workload", s->silence_timeout_s);
                }
        }
        res->total_s = now_s(&c);

out:
        c.host_cancel = 1;
        if (c.host_thread)
                g_thread_join(c.host_thread);
        vm_stop(c.vm, 1);
        /* The event loop no longer touches c.lines: count what it dropped. */
        res->rejected = c.stream.rejected + (long)c.lines.dropped;
        if (c.lines.dropped && !c.stream.first_reject[0])
                g_snprintf(c.stream.first_reject, sizeof(c.stream.first_reject),
                           "a line longer than %d bytes", PROTO_LINE_MAX);
        if (res->console->len == 0)
                read_console(console, res->console);
        console_scan(res->console->str, res->console->len, &cv);

        if (c.done_t > 0 && !res->detail[0]) {
                /* The job finished; what it left decides the state. */
                if (cv.crashed) {
                        res->state = CELL_RUNTIME_CRASH;
                        g_snprintf(res->detail, sizeof(res->detail), "%s", cv.crash_line);
                } else if (res->rejected > 0) {
                        res->state = CELL_CORRUPT_OUTPUT;
                        g_snprintf(res->detail, sizeof(res->detail), "%ld ttyS1 line(s) rejected, first: %s",
                                   res->rejected, c.stream.first_reject);
                } else if (res->exit_code != 0) {
                        /* 255 is the agent giving up on its own setup (a mount
                         * that failed, say): its last note says why. */
                        GPtrArray *why = res->exit_code == 255 && c.agent_logs->len ? c.agent_logs : c.out_lines;
                        res->state = CELL_WORKLOAD_FAILURE;
                        g_snprintf(res->detail, sizeof(res->detail), "job exited with %d; last %s: %.300s",
                                   res->exit_code, why == c.agent_logs ? "agent note" : "output",
                                   why->len ? (char *)why->pdata[why->len - 1] : "(none)");
                } else {
                        res->state = CELL_OK;
                        parse_outputs(&c);
                        if (strcmp(res->state, CELL_OK) == 0 && cv.warnings > 0)
                                g_snprintf(res->detail, sizeof(res->detail),
                                           "%d kernel WARNING(s) on the console", cv.warnings);
                }
        }
        /* Keep what the job printed with the cell: it is the evidence for the metrics. */
        res->output = g_string_new(NULL);
        for (guint i = 0; c.host_notes && i < c.host_notes->len; i++)
                g_string_append_printf(res->output, "[host] %s\n", (char *)c.host_notes->pdata[i]);
        for (guint i = 0; c.agent_logs && i < c.agent_logs->len; i++)
                g_string_append_printf(res->output, "[agent] %s\n", (char *)c.agent_logs->pdata[i]);
        for (guint i = 0; c.out_lines && i < c.out_lines->len; i++)
                g_string_append_printf(res->output, "%s\n", (char *)c.out_lines->pdata[i]);
        g_unlink(disk);
        g_unlink(swap);
        /* The console is in res->console now; the scratch directory must be
         * empty for the runner to remove it. */
        g_unlink(console);
        if (c.q)
                g_async_queue_unref(c.q);
        if (c.out_lines)
                g_ptr_array_free(c.out_lines, TRUE);
        if (c.agent_logs)
                g_ptr_array_free(c.agent_logs, TRUE);
        if (c.host_notes)
                g_ptr_array_free(c.host_notes, TRUE);
        if (c.events)
                g_ptr_array_free(c.events, TRUE);
        if (c.event_t)
                g_array_free(c.event_t, TRUE);
        metric_list_clear(&c.host_metrics);
        g_mutex_clear(&c.data_lock);
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
        if (r->console)
                g_string_free(r->console, TRUE);
        if (r->data)
                g_string_free(r->data, TRUE);
        if (r->output)
                g_string_free(r->output, TRUE);
        g_free(r->release);
        g_free(r->script);
        metric_list_clear(&r->metrics);
        *r = (struct cell_result){ 0 };
}
