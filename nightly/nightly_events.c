/* nightly_events.c: handing a night's events to its sink (see
 * nightly_events.h). */
#include "nightly/nightly_events.h"

int nightly_events_emit(const struct nightly_sink *sink, const struct nightly_event *ev) {
        return sink && sink->event ? sink->event(ev, sink->userdata) : 0;
}

const char *nightly_events_kind_name(enum nightly_event_kind kind) {
        static const char *const names[] = {
                [NIGHTLY_EVENT_RESUME] = "resume",
                [NIGHTLY_EVENT_WOULD_RESUME] = "would-resume",
                [NIGHTLY_EVENT_ERROR] = "error",
                [NIGHTLY_EVENT_PLAN] = "plan",
                [NIGHTLY_EVENT_RUN_DONE] = "run-done",
                [NIGHTLY_EVENT_NOT_STARTED] = "not-started",
                [NIGHTLY_EVENT_BISECT] = "bisect",
                [NIGHTLY_EVENT_REPORT] = "report",
                [NIGHTLY_EVENT_NOTIFY_FAILED] = "notify-failed",
        };

        return (unsigned)kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "?";
}
