/* runevent.c: handing a pump's events to its sink (see runevent.h). */
#include <glib.h>
#include <stdarg.h>

#include "run/runevent.h"

void runevent_emit(const struct run_events *sink, const struct run_event *ev) {
        if (sink && sink->on_event)
                sink->on_event(sink->ctx, ev);
}

void runevent_note(const struct run_events *sink, enum run_event_origin origin, const char *fmt, ...) {
        g_autofree char *text = NULL;
        va_list ap;

        /* Formatting costs nothing when nobody listens (a night's runs). */
        if (!sink || !sink->on_event)
                return;
        va_start(ap, fmt);
        text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        runevent_emit(sink, &(struct run_event){ .kind = RUN_EVENT_NOTE, .origin = origin, .text = text });
}
