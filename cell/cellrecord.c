/* cell/cellrecord.c: the agent's records applied to a living cell (see
 * cellrecord.h). The handlers run on the cell's thread, from the pump. */
#include <string.h>

#include "cell/cellhost.h"
#include "cell/cellrecord.h"
#include "common/diskbus.h"
#include "common/parse.h"

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

static void on_pmu(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
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
static void on_ready(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
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
        c->ready_console_len = c->console_head + cellpump_console_size(c);
        if (c->spec->kernel->release && g_strcmp0(c->res->release, c->spec->kernel->release) != 0) {
                cellpump_stop(c, STOP_RELEASE_MISMATCH, NULL);
                return;
        }
        cellprof_ask(&c->prof);
        if (send_job(c, env) < 0) {
                cellpump_stop(c, STOP_SEND_FAILED, NULL);
                return;
        }
        c->go_t = cellpump_now(c);
        cellhost_window_start(c);
        c->stage = STAGE_RUN;
}

static void on_vmstat(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        struct cell_vmstat_line v = { g_strdup(rec->type), g_strndup(rec->payload, rec->payload_len),
                                      (int64_t)rec->seq, m->t, (double)rec->t_ms / 1000.0 };

        g_array_append_val(c->res->vmstat, v);
}

/* The job's stdout and stderr, in arrival order. */
static void on_output(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        g_ptr_array_add(c->out_lines, g_strndup(rec->payload, rec->payload_len));
}

/* One of the job's fd-3 events; "host-start" starts the workload's host
 * phase (FTP's upload). */
static void on_event(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                     const struct workload_env *env) {
        double t = (double)rec->t_ms / 1000.0;
        struct cell_event ev = { g_strndup(rec->payload, rec->payload_len), m->t, t };

        g_ptr_array_add(c->events, g_strndup(rec->payload, rec->payload_len));
        g_array_append_val(c->event_t, t);
        insn_mark(c, rec->payload, rec->payload_len);
        guestcount_mark(&c->gc_marks, rec->payload, rec->payload_len, c->gc_fresh ? &c->gc_at : NULL);
        c->gc_fresh = 0;
        g_array_append_val(c->res->events, ev);
        if (strcmp(rec->payload, "host-start") == 0)
                cellhost_phase_start(c, env);
}

/* The kernel's counters for the phase mark that follows (guestcount.h). A
 * record that does not parse leaves that mark without them. */
static void on_counters(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                        const struct workload_env *env) {
        (void)m;
        (void)env;
        c->gc_fresh = guestcount_parse(rec->payload, rec->payload_len, &c->gc_at) == 0;
}

/* The kernel's memory at the job's start or end; the first of each counts. */
static void on_memory(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
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
static void on_disk_head(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                         const struct workload_env *env) {
        uint32_t crc = 0;

        if (c->stage != STAGE_RUN)
                return;
        if (parse_crc(rec->payload, rec->payload_len, &crc) < 0 || crc != c->disk_head) {
                g_autofree char *what = g_strdup_printf("guest head crc32 %.8s, image %08x", rec->payload,
                                                        c->disk_head);
                cellpump_stop(c, STOP_STALE_DISK, what);
                return;
        }
        g_ptr_array_add(c->host_notes, g_strdup_printf("disk head as the guest reads it matches the "
                                                       "image (crc32 %08x)", c->disk_head));
}

/* Driver names, blank-separated: anything else from the guest is dropped. */
static void on_disk_driver(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
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

static void on_sysctl(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                      const struct workload_env *env) {
        if (c->stage == STAGE_RUN)
                record_sysctl(c, rec);
}

/* The agent's own notes are evidence, not workload output. */
static void on_log(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                   const struct workload_env *env) {
        g_ptr_array_add(c->agent_logs, g_strndup(rec->payload, rec->payload_len));
}

static void on_done(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                    const struct workload_env *env) {
        int64_t code = -1;

        if (parse_i64(rec->payload, &code) < 0 || code < -1 || code > 255)
                code = -1;
        c->res->exit_code = (int)code;
        c->done_t = m->t;
        c->res->workload_s = m->t - c->go_t;
        cellhost_window_end(c);
        /* The guest lists its symbols after done when asked: the cell ends
         * with their last record (or the guest's end, or its silence). */
        if (c->prof.asked && !c->prof.ended) {
                c->syms_wait = 1;
                return;
        }
        cellpump_stop(c, STOP_DONE, NULL);
}

static void on_kbase(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                     const struct workload_env *env) {
        cellprof_on_base(&c->prof, rec->payload, rec->payload_len);
}

static void on_ksym(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                    const struct workload_env *env) {
        cellprof_on_sym(&c->prof, rec->payload, rec->payload_len);
}

static void on_ksyms_end(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                         const struct workload_env *env) {
        cellprof_on_end(&c->prof, rec->payload, rec->payload_len);
        if (c->syms_wait)
                cellpump_stop(c, STOP_DONE, NULL);
}

/* What each record type of the agent (common/proto.h) does to the cell; a
 * type not listed is ignored. */
static const struct {
        const char *type;
        int prefix;                        /* 1: every type starting so ("vmstat-header", "vmstat-boot") */
        void (*fn)(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
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

void cellrecord_marks_late(struct cell *c) {
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

void cellrecord_handle(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                          const struct workload_env *env) {
        c->last_record_t = m->t;
        for (size_t i = 0; i < G_N_ELEMENTS(record_handlers); i++)
                if (record_handlers[i].prefix ? g_str_has_prefix(rec->type, record_handlers[i].type)
                                              : strcmp(rec->type, record_handlers[i].type) == 0) {
                        record_handlers[i].fn(c, m, rec, env);
                        return;
                }
}
