/* web/feed: the site's Atom feed of regressions (RFC 4287), feed.xml at the
 * site's root: an entry for every state a regression took on a night (new,
 * still there, fixed; web/history.c), newest first, linking the night's
 * comparison page. Text reaches it only through the page writer in its
 * XML flavour (report/html.h: escaped, control characters removed).
 *
 * Nothing in it depends on when it was published while the store has a
 * run: the feed's updated is its newest entry's night (without entries,
 * the newest night, else the first run's start), an entry's updated is
 * its night, and every id
 * is a name-based UUID (RFC 4122 version 5) of what the entry is about
 * (subject, baseline, group, metric, state, the night's start), so a
 * reader sees the same entry as the same one on every publish, and an
 * unchanged store publishes the same bytes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "report/html.h"
#include "report/text.h"
#include "web/history.h"
#include "web/model.h"
#include "web/page.h"
#include "web/pages.h"

#define FEED_ENTRIES_MAX 200

/* kbench's namespace for its name-based UUIDs (a random version 4 UUID,
 * fixed once). */
static const unsigned char feed_namespace[16] = {
        0x6b, 0x9e, 0x2c, 0x41, 0x3d, 0x57, 0x4f, 0x8a, 0x9c, 0x12, 0xe0, 0x5d, 0x77, 0xa3, 0x1b, 0xc4,
};

/* "urn:uuid:" and the version 5 UUID of name in kbench's namespace. */
static char *feed_uuid(const char *name) {
        GChecksum *c = g_checksum_new(G_CHECKSUM_SHA1);
        guint8 d[20];
        gsize n = sizeof(d);
        char *out;

        g_checksum_update(c, feed_namespace, sizeof(feed_namespace));
        g_checksum_update(c, (const guchar *)name, (gssize)strlen(name));
        g_checksum_get_digest(c, d, &n);
        g_checksum_free(c);
        d[6] = (guint8)((d[6] & 0x0f) | 0x50);   /* version 5 */
        d[8] = (guint8)((d[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
        out = g_strdup_printf("urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                              d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12],
                              d[13], d[14], d[15]);
        return out;
}

static void elem_time(struct html *h, double t) {
        char b[40];

        page_format_rfc3339(t, b, sizeof(b));
        html_elem(h, "updated", b);
}

static void link_to(struct html *h, const char *rel, const char *type, const char *href) {
        html_start(h, "link");
        html_attr(h, "rel", rel);
        html_attr(h, "type", type);
        html_attr(h, "href", href);
        html_end_void(h);
}

/* One state of one regression on one night. */
static void entry(struct html *h, const struct model *s, const struct model_event *e) {
        const struct night_row *n = &s->nights[e->night];
        char change[64], since[40], p[32], q[32];
        g_autofree char *name = g_strdup_printf("kbench regression state\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%.6f",
                                                e->subject, e->baseline, e->spec, e->metric,
                                                regstate_name(e->state), n->started_at);
        g_autofree char *id = feed_uuid(name);

        history_event_change(e, change, sizeof(change));
        page_format_time(s->nights[e->since].started_at, since, sizeof(since));
        text_format_p(e->q, q, sizeof(q));
        snprintf(p, sizeof(p), "%zu+%zu", e->na, e->nb);
        html_start(h, "entry");
        html_elem(h, "id", id);
        if (e->state == REGSTATE_FIXED)
                html_elemf(h, "title", "fixed: %s %s vs %s (%s, %s)", e->subject, e->metric, e->baseline, change,
                           compare_verdict_name(e->verdict));
        else
                html_elemf(h, "title", "%s regression: %s %s %s vs %s", e->state == REGSTATE_NEW ? "new" : "still",
                           e->subject, e->metric, change, e->baseline);
        elem_time(h, n->started_at);
        link_to(h, "alternate", "text/html", s->compares[e->compare].file);
        html_start(h, "category");
        html_attr(h, "term", regstate_name(e->state));
        html_end_void(h);
        html_start(h, "summary");
        html_attr(h, "type", "text");
        html_textf(h, "%s, %s: %s %s against %s: change %s, verdict %s (q = %s, n = %s). Worse since the night of "
                      "%s. Compared as kbench compare %s %s.", e->subject, e->spec, e->metric,
                   regstate_name(e->state), e->baseline, change, compare_verdict_name(e->verdict), q, p, since,
                   s->compares[e->compare].sel_a, s->compares[e->compare].sel_b);
        html_end(h);
        html_end(h);
}

/* The feed's own id: the store's, after its first run (its start and
 * host), which no later run changes. */
static char *feed_id(const struct model *s) {
        const struct query_run *first = s->n_runs ? s->runs[0].v->run : NULL;
        g_autofree char *name = first ? g_strdup_printf("kbench feed\x1f%.6f\x1f%s", first->started_at,
                                                        first->host ? first->host : "")
                                      : g_strdup("kbench feed");

        return feed_uuid(name);
}

/* When the feed last changed: its newest entry's night; without entries
 * the newest night; without nights the store's first run's start, as the
 * feed's id is that run's: an empty feed has read the same since, and a
 * new run must not rewrite it. In a store without runs, the publishing
 * pass's own time, as RFC 4287 wants a real date. */
static double feed_updated(const struct model *s) {
        if (s->n_events)
                return s->nights[s->events[s->n_events - 1].night].started_at;
        if (s->n_nights)
                return s->nights[s->n_nights - 1].started_at;
        if (s->n_runs && s->runs[0].v->run->started_at > 0)
                return s->runs[0].v->run->started_at;
        return s->published_at;
}

void feed_render(struct html *h, const struct model *s) {
        g_autofree char *id = feed_id(s);
        size_t shown = 0;

        html_literal(h, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
        html_start(h, "feed");
        html_attr(h, "xmlns", "http://www.w3.org/2005/Atom");
        html_elem(h, "id", id);
        html_elem(h, "title", "kbench regressions");
        html_elem(h, "subtitle", "The state of each regression kbench nightly found, night by night: new, still "
                                 "there, fixed.");
        elem_time(h, feed_updated(s));
        html_start(h, "author");
        html_elem(h, "name", "kbench");
        html_end(h);
        html_elem(h, "generator", "kbench");
        link_to(h, "self", "application/atom+xml", PAGE_FEED_FILE);
        link_to(h, "alternate", "text/html", "index.html");
        for (size_t i = s->n_events; i-- > 0 && shown < FEED_ENTRIES_MAX; shown++)
                entry(h, s, &s->events[i]);
        html_end(h);
}
