/* render.c: kbench's rendering of the pumps' events (see render.h). */
#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/render.h"
#include "common/utf8.h"
#include "common/util.h"
#include "report/show.h"
#include "report/textcompare.h"

void render_init(struct render *r, int json, int all) {
        *r = (struct render){ .json = json, .all = all, .width = cli_width(TEXTCOMPARE_WIDTH) };
        progress_init(&r->progress, 0);
        r->image_lines = !json || r->progress.tty;
}

/* The text of a bisection's answer: its steps, a caution, where a change
 * of the kernel's instructions went, and the answer as the last line. */
static void render_bisect_text(const struct render *r, const struct run_event *ev) {
        const json_t *j = ev->result, *steps = json_object_get(j, "steps");
        const json_t *first = json_object_get(j, "first_bad");
        const char *outcome = json_string_value(json_object_get(j, "outcome"));
        long long id = (long long)json_integer_value(json_object_get(j, "bisection"));

        printf("bisection %lld: %s over %zu candidates, %zu steps (kbench show --bisect %lld)\n", id,
               json_string_value(json_object_get(j, "metric")), ev->total, json_array_size(steps), id);
        for (size_t i = 0; i < json_array_size(steps); i++) {
                json_t *s = json_array_get(steps, i);
                const char *note = json_string_value(json_object_get(s, "note"));
                const char *k = json_string_value(json_object_get(s, "kernel"));

                printf("  %-7s %-28.28s %-9s rounds %-3lld%s%s\n", json_string_value(json_object_get(s, "role")),
                       k ? k : json_string_value(json_object_get(s, "candidate")),
                       json_string_value(json_object_get(s, "decision")),
                       (long long)json_integer_value(json_object_get(s, "rounds")), note ? "  " : "", note ? note : "");
        }
        if (ev->text)
                printf("%s\n", ev->text);
        if (json_is_string(first) && json_is_false(json_object_get(j, "confirmed")))
                printf("the first bad did not reproduce against the last good: treat it with care\n");
        if (json_is_string(first) && ev->explain) {
                printf("last good -> first bad:\n");
                textcompare_explain(ev->explain, 0, 2, r->width, stdout);
        }
        if (json_is_string(first))
                printf("first bad: %s\n", json_string_value(first));
        else
                printf("%s\n", outcome && strcmp(outcome, "no-change") == 0 ? "no change between the ends"
                                                                              : "cannot tell");
}

static void render_bisect_result(struct render *r, const struct run_event *ev) {
        if (!r->json) {
                render_bisect_text(r, ev);
                return;
        }
        /* A failed write stays in stdout's error flag: the verb's one check
         * of its output (cli_stdout_done) says it. */
        if (json_dumpf(ev->result, stdout, JSON_INDENT(2) | KB_JSON_OUT) == 0)
                putchar('\n');
}

/* A run's lines, on the progress display. */
static void render_run_event(struct render *r, const struct run_event *ev) {
        struct progress *p = &r->progress;

        switch (ev->kind) {
        case RUN_EVENT_IMAGE:
                if (r->image_lines)
                        progress_note(p, "guest image for %s: %s (%.1f s)", ev->label, ev->cached ? "cached" : "built",
                                      ev->seconds);
                break;
        case RUN_EVENT_CELLS:
                progress_init(p, ev->total);
                break;
        case RUN_EVENT_CELL_BEGIN:
                progress_begin(p, p->finished, ev->label);
                break;
        case RUN_EVENT_CELL_STAGE:
                progress_stage(p, ev->stage);
                break;
        case RUN_EVENT_CELL_RETRY: {
                _cleanup_free_ char *label = utf8_mask(ev->label), *detail = utf8_mask(ev->detail);

                progress_note(p, "%s: %s (%s), retrying", label, ev->state, detail);
                break;
        }
        case RUN_EVENT_CELL_END:
                if (ev->own_line)
                        progress_end_line(p, ev->label, ev->seconds, ev->state, ev->detail);
                else
                        progress_end(p, ev->state, ev->detail);
                break;
        case RUN_EVENT_RESULT:
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

static void render_event(void *ctx, const struct run_event *ev) {
        struct render *r = ctx;
        const char *who = ev->origin == RUN_ORIGIN_BISECT ? "bisect: " : "";

        switch (ev->kind) {
        case RUN_EVENT_NOTE:
                progress_note(&r->progress, "%s%s", who, ev->text);
                break;
        case RUN_EVENT_BUILD:
                progress_note(&r->progress, "%s  %s", who, ev->text);
                break;
        case RUN_EVENT_BISECT_RESULT:
                render_bisect_result(r, ev);
                break;
        default:
                render_run_event(r, ev);
        }
}

struct run_events render_sink(struct render *r) {
        return (struct run_events){ .on_event = render_event, .ctx = r };
}
