/* cell/cell.c: one cell from fresh disk to end state (see cell.h): its
 * preparation (cellprep.c), a cold boot or a warm start with the fall back
 * to a cold boot when the snapshot fails, the pump (cellpump.c, which
 * applies the agent's records through cellrecord.c and the host's
 * observations through cellhost.c), and the conclusion: the end state
 * decided from the recorded facts (endstate.c), the metrics, the profile
 * and the evidence kept with them. */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cell/cellhost.h"
#include "cell/cellprep.h"
#include "cell/cellpump.h"
#include "cell/cellrecord.h"
#include "common/guest-paths.h"
#include "common/proto.h"

volatile int cell_interrupted;

/* The metrics of a cell whose job finished: the workload parser's from the
 * job's output (a parse failure demotes the cell), the host phase's, and
 * the counters of the guest and of QEMU's plugin at the phase marks. */
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

void cell_workload_env(const struct guest_shape *g, struct workload_env *ret) {
        ret->mem_bytes = (uint64_t)g->mem_mb << 20;
        ret->cpus = (int)g->cpus;
        ret->disk_bytes = g->disk_bytes;
        ret->mnt = KB_GUEST_MNT;
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
             const struct kb_sink *events, struct kb_error *err) {
        return cell_run_ops(&cell_local_vm_ops, conn, s, res, events, err);
}

/* libvirt's taint flags. Expected: custom-argv when the user-mode NIC and
 * its forwards go in as QEMU arguments, and under TCG "hypervisor feature
 * autodetection override" (host/vm_xml.c, the guest CPU read). */
static void note_taints(struct cell *c) {
        g_auto(GStrv) taints = NULL;

        if (c->ops->taints(c->vm, &taints, NULL) == 0)
                for (size_t i = 0; taints[i]; i++)
                        g_ptr_array_add(c->host_notes, g_strdup_printf("libvirt: %s", taints[i]));
}

static void cell_start_cold(struct cell *c, struct cellprep *f, void *ctx, const struct kb_sink *events) {
        struct kb_error verr = { { 0 } };

        kb_stage(events, "boot");
        c->res->started_at = (double)g_get_real_time() / 1e6;
        c->t0_us = g_get_monotonic_time();
        if (c->ops->start(ctx, &f->vc, cellpump_on_vm_event, c, &c->vm, &verr) < 0) {
                cellpump_stop(c, STOP_VM_START_FAILED, verr.msg);
                return;
        }
        cellhost_find_qemu(c, f->vc.name);
        note_taints(c);
        cellpump_run(c, &f->env, events);
        c->res->total_s = cellpump_now(c);
}

/* Restore the snapshot, give the guest the cell's identity, run the pump.
 * Returns 0 when the cell ran warm (whatever its end), -1 when the
 * snapshot failed before the guest's ready (the cell is to boot cold;
 * c->stop_detail says why). */
static int cell_start_warm(struct cell *c, struct cellprep *f, void *ctx, const struct kb_sink *events) {
        const struct cell_spec *s = c->spec;
        struct kb_error verr = { { 0 } };
        int64_t now_ms;

        kb_stage(events, "restore");
        c->console_head = console_head(s, c->res->console);
        /* The restored guest is past its boot: it answers the hello. */
        c->stage = STAGE_READY_WAIT;
        c->ready_timeout_s = CELL_WARM_READY_S;
        c->res->started_at = (double)g_get_real_time() / 1e6;
        c->t0_us = g_get_monotonic_time();
        if (!c->ops->restore || c->ops->restore(ctx, s->snapshot, &f->vc, cellpump_on_vm_event, c, &c->vm, &verr) < 0) {
                cellpump_stop(c, STOP_VM_START_FAILED, c->ops->restore ? verr.msg : "no restore operation");
                return -1;
        }
        c->restored_t = cellpump_now(c);
        now_ms = g_get_real_time() / 1000;
        {
                g_autofree char *hello = g_strdup_printf("hello %s %" G_GINT64_FORMAT "\n", s->key, now_ms);
                if (c->ops->send(c->vm, hello, strlen(hello), &verr) < 0) {
                        cellpump_stop(c, STOP_SEND_FAILED, verr.msg);
                        return -1;
                }
                c->hello_t = cellpump_now(c);
        }
        cellhost_find_qemu(c, f->vc.name);
        note_taints(c);
        cellpump_run(c, &f->env, events);
        c->res->total_s = cellpump_now(c);
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
static void cell_fall_back_cold(struct cell *c, struct cellprep *f) {
        const struct cell_spec *s = c->spec;
        struct cell_result *res = c->res;
        struct cellpump_msg *m;

        g_ptr_array_add(c->host_notes, g_strdup_printf("warm start failed after %.2f s (%s%s%s); the snapshot "
                                                       "is removed and the cell boots cold", cellpump_now(c),
                                                       stop_name(c->stop), c->stop_detail ? ": " : "",
                                                       c->stop_detail ? c->stop_detail : ""));
        c->ops->stop(c->ctx, c->vm, 0);
        c->vm = NULL;
        while ((m = g_async_queue_try_pop(c->q)))
                cellpump_msg_free(m);
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
                      struct cell_result *res, const struct cellprep *f) {
        *c = (struct cell){ .ops = ops, .spec = s, .res = res, .console_path = f->console };
        c->q = g_async_queue_new_full(cellpump_msg_free);
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
static void conclude_profile(struct cell *c, const struct cellprep *f) {
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
static void cell_conclude(struct cell *c, const struct cellprep *f) {
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
                cellhost_load_metrics(c);
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
static void cell_clear(struct cell *c, struct cellprep *f) {
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
        cellprep_clear(f);
}

int cell_run_ops(const struct cell_vm_ops *ops, void *ctx, const struct cell_spec *s, struct cell_result *res,
                 const struct kb_sink *events, struct kb_error *err) {
        struct cellprep f = { 0 };
        struct cell c;
        int r;

        result_init(res);
        r = cellprep_make(s, res, &f, events, err);
        if (r <= 0) {
                if (f.console)
                        g_unlink(f.console);
                if (f.insns)
                        g_unlink(f.insns);
                if (f.prof)
                        g_unlink(f.prof);
                cellprep_clear(&f);
                return r;
        }
        cell_init(&c, ops, s, res, &f);
        c.ctx = ctx;
        if (s->snapshot && cell_start_warm(&c, &f, ctx, events) < 0)
                cell_fall_back_cold(&c, &f);
        if (!res->warm)
                cell_start_cold(&c, &f, ctx, events);

        c.host_cancel = 1;
        if (c.host_thread)
                g_thread_join(c.host_thread);
        /* The next warm cell restores under the same name and UUID: this
         * domain must be gone before it. */
        ops->stop(ctx, c.vm, !res->warm);
        cellrecord_marks_late(&c);
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

