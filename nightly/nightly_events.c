/* nightly_events.c: handing a night's events to its sink (see
 * nightly_events.h). */
#include "nightly/nightly_events.h"

int nightly_events_emit(const struct nightly_sink *sink, const struct nightly_event *ev) {
        return sink && sink->event ? sink->event(ev, sink->userdata) : 0;
}
