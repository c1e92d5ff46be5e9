/* render.c: kbench's rendering of the pumps' events (see render.h). */
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/render.h"
#include "common/utf8.h"
#include "common/util.h"
#include "report/json.h"
#include "report/show.h"
#include "report/textbisect.h"
#include "report/textcompare.h"

void render_init(struct render *r, int json, int all) {
        *r = (struct render){ .json = json, .all = all, .width = cli_width(TEXTCOMPARE_WIDTH) };
        progress_init(&r->progress, 0);
        r->image_lines = !json || r->progress.tty;
}

/* A bisection's answer in the layout `kbench show --bisect` prints too. */
static void render_bisect_result(struct render *r, const struct kb_event *ev) {
        json_t *j;

        if (!r->json) {
                text_bisection(ev->bisection, ev->ending, r->width, stdout);
                return;
        }
        j = json_bisect_answer(ev->bisection, ev->ending);
        /* A failed write stays in stdout's error flag: the verb's one check
         * of its output (cli_stdout_done) says it. */
        if (j && json_dumpf(j, stdout, JSON_INDENT(2) | KB_JSON_OUT) == 0)
                putchar('\n');
        json_decref(j);
}

/* Why a run stopped early, and how to go on with it. */
static void render_stopped(struct render *r, const struct kb_event *ev) {
        struct progress *p = &r->progress;

        switch (ev->stop) {
        case RUN_STOP_NO_HOST:
                progress_note(p, "stopped: no host is left for %zu cell(s); resume with 'kbench run --resume %" PRId64
                              "' once a host is back", ev->total, ev->run_id);
                break;
        case RUN_STOP_HOST_FAILED:
                progress_note(p, "stopped: the host failed (see the last cell); make room and resume with 'kbench "
                              "run --resume %" PRId64 "'", ev->run_id);
                break;
        case RUN_STOP_INTERRUPTED:
                progress_note(p, "interrupted: resume with 'kbench run --resume %" PRId64 "'", ev->run_id);
                break;
        }
}

/* A run's lines, on the progress display. */
static void render_run_event(struct render *r, const struct kb_event *ev) {
        struct progress *p = &r->progress;

        switch (ev->kind) {
        case KB_EVENT_IMAGE:
                if (r->image_lines)
                        progress_note(p, "guest image for %s: %s (%.1f s)", ev->label, ev->cached ? "cached" : "built",
                                      ev->seconds);
                break;
        case KB_EVENT_CELLS:
                progress_init(p, ev->total);
                break;
        case KB_EVENT_CELL_BEGIN:
                progress_begin(p, p->finished, ev->label);
                break;
        case KB_EVENT_CELL_STAGE:
                progress_stage(p, ev->stage);
                break;
        case KB_EVENT_CELL_RETRY: {
                _cleanup_free_ char *label = utf8_mask(ev->label), *detail = utf8_mask(ev->detail);

                progress_note(p, "%s: %s (%s), retrying", label, ev->state, detail);
                break;
        }
        case KB_EVENT_CELL_END:
                if (ev->own_line)
                        progress_end_line(p, ev->label, ev->seconds, ev->state, ev->detail);
                else
                        progress_end(p, ev->state, ev->detail);
                break;
        case KB_EVENT_STOPPED:
                render_stopped(r, ev);
                break;
        case KB_EVENT_CELL_KEPT: {
                _cleanup_free_ char *label = utf8_mask(ev->label), *detail = utf8_mask(ev->detail),
                                    *file = utf8_mask(ev->text);

                progress_note(p, "kbench: cell %s (run %" PRId64 ", %s) not stored: %s; kept in %s for 'kbench run "
                              "--resume %" PRId64 "'", label, ev->run_id, ev->state, detail, file, ev->run_id);
                break;
        }
        case KB_EVENT_RESULT:
                if (!r->failed && show_run(ev->db, ev->run_id,
                                           &(struct show_opts){ .format = r->json ? SHOW_JSON : SHOW_TEXT,
                                                                .brief = !r->all, .all = r->all,
                                                                .width = r->width },
                                           stdout, &r->err) < 0)
                        r->failed = 1;
                break;
        default:
                break;
        }
}

static int render_event(void *ctx, const struct kb_event *ev) {
        struct render *r = ctx;
        const char *who = ev->origin == KB_ORIGIN_BISECT ? "bisect: " : "";

        switch (ev->kind) {
        case KB_EVENT_NOTE:
                progress_note(&r->progress, "%s%s", who, ev->text);
                break;
        case KB_EVENT_PROGRESS:
                progress_note(&r->progress, "%s  %s", who, ev->text);
                break;
        case KB_EVENT_BISECT_RESULT:
                render_bisect_result(r, ev);
                break;
        default:
                render_run_event(r, ev);
        }
        return 0;
}

struct kb_sink render_sink(struct render *r) {
        return (struct kb_sink){ .on_event = render_event, .ctx = r };
}
