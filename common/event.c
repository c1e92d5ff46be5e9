/* event.c: handing a pump's events to its sink (see event.h). Free of
 * host libraries, as all of common/ is: kernels/ and the pumps above it
 * link it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/event.h"

int kb_emit(const struct kb_sink *sink, const struct kb_event *ev) {
        return sink && sink->on_event ? sink->on_event(sink->ctx, ev) : 0;
}

void kb_stage(const struct kb_sink *sink, const char *stage) {
        kb_emit(sink, &(struct kb_event){ .kind = KB_EVENT_CELL_STAGE, .stage = stage });
}

/* A line of kind, formatted. Formatting costs nothing when nobody listens
 * (a pump given no sink); a line that cannot be formatted (no memory) is
 * not said, as a line nobody listens to. */
static void emit_line(const struct kb_sink *sink, enum kb_event_kind kind, enum kb_event_origin origin,
                      const char *fmt, va_list ap) {
        char *text = NULL;

        if (!sink || !sink->on_event)
                return;
        if (vasprintf(&text, fmt, ap) < 0)
                return;
        kb_emit(sink, &(struct kb_event){ .kind = kind, .origin = origin, .text = text });
        free(text);
}

void kb_note(const struct kb_sink *sink, enum kb_event_origin origin, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        emit_line(sink, KB_EVENT_NOTE, origin, fmt, ap);
        va_end(ap);
}

void kb_progress(const struct kb_sink *sink, enum kb_event_origin origin, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        emit_line(sink, KB_EVENT_PROGRESS, origin, fmt, ap);
        va_end(ap);
}
