/* cell/cellpump.c: the queue between libvirt's event loop and the cell's
 * thread, and the pump that runs the cell's state machine from it (see
 * cellpump.h). */
#include <string.h>
#include <sys/stat.h>

#include "cell/cellhost.h"
#include "cell/cellpump.h"
#include "cell/cellrecord.h"

/* How long a guest listing its symbols after the job may fall silent
 * before the cell ends without them: the job is done, and a table that
 * does not come whole is not used (cellprof.h). Its records come in
 * bursts with pauses well under a second. */
#define CELL_SYMS_SILENCE_S 10.0

double cellpump_now(const struct cell *c) {
        return (double)(g_get_monotonic_time() - c->t0_us) / 1e6;
}

void cellpump_msg_free(gpointer p) {
        struct cellpump_msg *m = p;

        g_free(m->text);
        g_free(m);
}

void cellpump_push(struct cell *c, enum cellpump_msg_kind kind, int status, const char *text, size_t len) {
        struct cellpump_msg *m = g_new0(struct cellpump_msg, 1);

        m->kind = kind;
        m->t = cellpump_now(c);
        m->status = status;
        m->len = len;
        m->text = text ? g_strndup(text, len) : NULL;
        g_async_queue_push(c->q, m);
}

static void on_line(void *userdata, const char *line, size_t len) {
        cellpump_push(userdata, MSG_LINE, 0, line, len);
}

#define DATA_LOG_MAX (64u << 20)

void cellpump_on_vm_event(void *userdata, enum vm_event ev, const char *data, size_t len) {
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
                cellpump_push(c, MSG_EOF, 0, NULL, 0);
                break;
        case VM_EVENT_STOPPED:
                cellpump_push(c, MSG_STOPPED, 0, data, len);
                break;
        case VM_EVENT_IO_ERROR:
                cellpump_push(c, MSG_IO_ERROR, 0, data, len);
                break;
        case VM_EVENT_HOST_LOST:
                cellpump_push(c, MSG_HOST_LOST, 0, data, len);
                break;
        }
}

off_t cellpump_console_size(const struct cell *c) {
        struct stat st;

        return stat(c->console_path, &st) == 0 ? st.st_size : 0;
}

void cellpump_stop(struct cell *c, enum endstate_stop why, const char *detail) {
        if (c->stage == STAGE_DONE)
                return;
        c->stage = STAGE_DONE;
        c->stop = why;
        c->stop_detail = g_strdup(detail);
}

void cellpump_run(struct cell *c, const struct workload_env *env, const struct kb_sink *events) {
        const struct cell_spec *s = c->spec;
        struct proto_record rec;

        while (c->stage != STAGE_DONE) {
                struct cellpump_msg *m;
                double t;

                /* Before the queue: a guest that floods ttyS1 must not
                 * starve the host's readings. */
                if (c->blk_on && c->stage == STAGE_RUN && cellpump_now(c) >= c->blk_next)
                        cellhost_blk_sample(c);
                m = g_async_queue_timeout_pop(c->q, 100 * 1000);
                t = cellpump_now(c);

                if (m) {
                        switch (m->kind) {
                        case MSG_LINE:
                                if (console_stream_line(&c->stream, m->text, m->len, &rec) == 1) {
                                        enum cellpump_stage before = c->stage;
                                        cellrecord_handle(c, m, &rec, env);
                                        if (before != STAGE_RUN && c->stage == STAGE_RUN)
                                                kb_stage(events, "run");
                                }
                                break;
                        case MSG_EOF:
                        case MSG_STOPPED:
                        case MSG_HOST_LOST:
                                /* A job that was done stays done. */
                                cellpump_stop(c, c->syms_wait ? STOP_DONE : STOP_DOMAIN_ENDED, m->text);
                                break;
                        case MSG_IO_ERROR:
                                cellpump_stop(c, STOP_IO_ERROR, m->text);
                                break;
                        case MSG_HOST_DONE:
                                c->host_done = 1;
                                if (m->status < 0)
                                        cellpump_stop(c, STOP_HOST_PHASE_FAILED, m->text);
                                break;
                        }
                        cellpump_msg_free(m);
                        continue;
                }
                if (s->stop ? *s->stop : cell_interrupted)
                        cellpump_stop(c, STOP_INTERRUPTED, NULL);
                else if (t > s->deadline_s)
                        cellpump_stop(c, STOP_DEADLINE, NULL);
                else if (c->stage == STAGE_BOOT && cellpump_console_size(c) > 0)
                        c->stage = STAGE_READY_WAIT;
                else if (c->stage == STAGE_BOOT && t > s->boot_timeout_s / 3)
                        cellpump_stop(c, STOP_NO_CONSOLE, NULL);
                else if (c->stage == STAGE_READY_WAIT && t > c->ready_timeout_s)
                        cellpump_stop(c, STOP_NO_READY, NULL);
                else if (c->syms_wait && t - c->last_record_t > CELL_SYMS_SILENCE_S)
                        cellpump_stop(c, STOP_DONE, NULL);
                else if (c->stage == STAGE_RUN && t - c->last_record_t > s->silence_timeout_s)
                        cellpump_stop(c, STOP_SILENCE, NULL);
        }
}
