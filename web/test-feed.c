/* test-feed.c: the Atom feed of regressions on a generated store with
 * three nights (web/sitefixture.c: a regression new on the second night,
 * fixed on the third) whose subject and baseline are hostile text from the
 * database (markup, ESC and other controls, "]]>", U+FFFE, a
 * right-to-left override, invalid UTF-8). The feed must parse as XML
 * (GLib's GMarkup), carry RFC 4287's required elements, show the text
 * with the controls removed and nothing else changed, and keep its bytes,
 * ids included, from one publish to the next. */
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "common/test.h"
#include "web/site.h"
#include "web/sitefixture.h"

TEST_MAIN();

#define SUBJECT "<img src=x onerror=alert(1)>\x1b[31m\x01 ]]> & \xef\xbf\xbe\xe2\x80\xae\xff end"
/* what a reader must see: controls and U+FFFE and the override removed, the stray byte U+FFFD */
#define SUBJECT_SHOWN "<img src=x onerror=alert(1)>[31m ]]> & \xef\xbf\xbd end"
#define BASELINE "base\"line'<b>\x7f"
#define BASELINE_SHOWN "base\"line'<b>"

/* What the parser saw: every element's path, attributes and text. */
struct doc {
        GPtrArray *path;               /* the open elements */
        GString *text;
        int feed_ns;                   /* <feed xmlns="http://www.w3.org/2005/Atom"> */
        int feed_id, feed_title, feed_updated, feed_author_name, feed_self;
        int entries, entry_ok;         /* entries, and those with every required element */
        int cur_id, cur_title, cur_updated, cur_link;
        GPtrArray *ids, *titles, *terms;
};

static const char *parent(struct doc *d, int up) {
        return d->path->len > (guint)up ? g_ptr_array_index(d->path, d->path->len - 1 - up) : "";
}

static void start(GMarkupParseContext *ctx, const char *name, const char **an, const char **av, gpointer ud,
                  GError **error) {
        struct doc *d = ud;
        const char *rel = NULL, *href = NULL, *term = NULL;

        (void)ctx, (void)error;
        for (size_t i = 0; an[i]; i++) {
                if (strcmp(an[i], "rel") == 0)
                        rel = av[i];
                if (strcmp(an[i], "href") == 0)
                        href = av[i];
                if (strcmp(an[i], "term") == 0)
                        term = av[i];
                if (strcmp(name, "feed") == 0 && strcmp(an[i], "xmlns") == 0)
                        d->feed_ns = strcmp(av[i], "http://www.w3.org/2005/Atom") == 0;
        }
        if (strcmp(name, "link") == 0 && strcmp(parent(d, 0), "feed") == 0 && rel && strcmp(rel, "self") == 0)
                d->feed_self = href && strcmp(href, "feed.xml") == 0;
        if (strcmp(name, "link") == 0 && strcmp(parent(d, 0), "entry") == 0 && href && strncmp(href, "compare-", 8) == 0 &&
            rel && strcmp(rel, "alternate") == 0)
                d->cur_link = 1;
        if (strcmp(name, "category") == 0 && term)
                g_ptr_array_add(d->terms, g_strdup(term));
        if (strcmp(name, "entry") == 0)
                d->cur_id = d->cur_title = d->cur_updated = d->cur_link = 0;
        g_ptr_array_add(d->path, g_strdup(name));
        g_string_truncate(d->text, 0);
}

static void end(GMarkupParseContext *ctx, const char *name, gpointer ud, GError **error) {
        struct doc *d = ud;
        const char *in = parent(d, 1);
        int rfc3339 = g_regex_match_simple("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$", d->text->str, 0, 0);

        (void)ctx, (void)error;
        if (strcmp(in, "feed") == 0) {
                d->feed_id |= strcmp(name, "id") == 0 && g_str_has_prefix(d->text->str, "urn:uuid:");
                d->feed_title |= strcmp(name, "title") == 0 && d->text->len > 0;
                d->feed_updated |= strcmp(name, "updated") == 0 && rfc3339;
        }
        if (strcmp(in, "author") == 0 && strcmp(name, "name") == 0)
                d->feed_author_name = d->text->len > 0;
        if (strcmp(in, "entry") == 0) {
                if (strcmp(name, "id") == 0 && g_regex_match_simple("^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-"
                                                                    "[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
                                                                    d->text->str, 0, 0)) {
                        d->cur_id = 1;
                        g_ptr_array_add(d->ids, g_strdup(d->text->str));
                }
                if (strcmp(name, "title") == 0) {
                        d->cur_title = 1;
                        g_ptr_array_add(d->titles, g_strdup(d->text->str));
                }
                d->cur_updated |= strcmp(name, "updated") == 0 && rfc3339;
        }
        if (strcmp(name, "entry") == 0) {
                d->entries++;
                d->entry_ok += d->cur_id && d->cur_title && d->cur_updated && d->cur_link;
        }
        g_ptr_array_remove_index(d->path, d->path->len - 1);
}

static void text(GMarkupParseContext *ctx, const char *t, gsize len, gpointer ud, GError **error) {
        (void)ctx, (void)error;
        g_string_append_len(((struct doc *)ud)->text, t, (gssize)len);
}

static void parse(const char *xml, struct doc *d) {
        static const GMarkupParser parser = { start, end, text, NULL, NULL };
        GMarkupParseContext *ctx;
        GError *e = NULL;

        *d = (struct doc){ .path = g_ptr_array_new_with_free_func(g_free), .text = g_string_new(NULL),
                           .ids = g_ptr_array_new_with_free_func(g_free),
                           .titles = g_ptr_array_new_with_free_func(g_free),
                           .terms = g_ptr_array_new_with_free_func(g_free) };
        ctx = g_markup_parse_context_new(&parser, 0, d, NULL);
        if (!g_markup_parse_context_parse(ctx, xml, -1, &e) || !g_markup_parse_context_end_parse(ctx, &e))
                TEST_FAIL("feed.xml does not parse: %s", e->message);
        g_markup_parse_context_free(ctx);
}

static void doc_free(struct doc *d) {
        g_ptr_array_unref(d->path);
        g_string_free(d->text, TRUE);
        g_ptr_array_unref(d->ids);
        g_ptr_array_unref(d->titles);
        g_ptr_array_unref(d->terms);
}

static char *publish_feed(struct db *db, const char *site, struct site_result *res) {
        struct kb_error err = { { 0 } };
        struct site_options o = { .dir = site };
        g_autofree char *path = g_build_filename(site, "feed.xml", NULL);
        char *xml = NULL;

        if (site_publish(db, &o, res, &err) < 0)
                TEST_FAIL("publish: %s", err.msg);
        if (!g_file_get_contents(path, &xml, NULL, NULL))
                TEST_FAIL("no %s", path);
        return xml;
}

TEST(feed) {
        char dir[] = "/tmp/kbench-test-feed-XXXXXX";
        struct kb_error err = { { 0 } };
        struct site_result res;
        struct db *db = NULL;
        struct doc d;
        g_autofree char *db_path = NULL, *site = NULL, *other = NULL, *xml = NULL, *again = NULL, *fresh = NULL;
        g_autofree char *cmd = NULL;

        ASSERT_TRUE(mkdtemp(dir) != NULL);
        db_path = g_build_filename(dir, "results.db", NULL);
        site = g_build_filename(dir, "site", NULL);
        other = g_build_filename(dir, "other", NULL);
        ASSERT_EQ(db_open(db_path, &db, &err), 0);
        if (sitefixture_fill(db, 3, 16, 0, &err) < 0 || sitefixture_nights(db, SUBJECT, &err) < 0)
                TEST_FAIL("fixture: %s", err.msg);
        {
                sqlite3_stmt *st = NULL;

                ASSERT_EQ(sqlite3_prepare_v2(db_handle(db), "UPDATE nights SET baseline = ?1", -1, &st, NULL),
                          SQLITE_OK);
                ASSERT_EQ(sqlite3_bind_text(st, 1, BASELINE, -1, SQLITE_STATIC), SQLITE_OK);
                ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
                sqlite3_finalize(st);
        }
        xml = publish_feed(db, site, &res);

        /* the escaping writer: nothing raw from the database */
        ASSERT_TRUE(strncmp(xml, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed ", 44) == 0);
        ASSERT_TRUE(g_utf8_validate(xml, -1, NULL));
        ASSERT_TRUE(strstr(xml, "<img") == NULL && strstr(xml, "<b>") == NULL);
        ASSERT_TRUE(strstr(xml, "\x1b") == NULL && strstr(xml, "\x01") == NULL && strstr(xml, "\x7f") == NULL);
        ASSERT_TRUE(strstr(xml, "\xef\xbf\xbe") == NULL && strstr(xml, "\xe2\x80\xae") == NULL);
        for (const char *p = xml; *p; p++)
                ASSERT_TRUE((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t');

        /* RFC 4287: the feed's and each entry's required elements */
        parse(xml, &d);
        ASSERT_TRUE(d.feed_ns && d.feed_id && d.feed_title && d.feed_updated && d.feed_author_name && d.feed_self);
        ASSERT_EQ(d.entries, 2);
        ASSERT_EQ(d.entry_ok, 2);
        /* newest first: fixed on the third night, new on the second */
        ASSERT_STREQ(g_ptr_array_index(d.terms, 0), "fixed");
        ASSERT_STREQ(g_ptr_array_index(d.terms, 1), "new");
        ASSERT_TRUE(strcmp(g_ptr_array_index(d.ids, 0), g_ptr_array_index(d.ids, 1)) != 0);
        ASSERT_TRUE(strstr(g_ptr_array_index(d.titles, 1), "new regression: " SUBJECT_SHOWN " dd.write_MBps -") != NULL);
        ASSERT_TRUE(strstr(g_ptr_array_index(d.titles, 1), "vs " BASELINE_SHOWN) != NULL);
        ASSERT_TRUE(g_str_has_prefix(g_ptr_array_index(d.titles, 0), "fixed: " SUBJECT_SHOWN " dd.write_MBps"));
        /* the feed's updated is its newest night's, not the time of publishing */
        ASSERT_TRUE(strstr(xml, "<updated>2025-12-04T") != NULL);

        /* the same bytes again, and in a fresh site of the same store */
        again = publish_feed(db, site, &res);
        ASSERT_EQ(res.written, 0);
        fresh = publish_feed(db, other, &res);
        ASSERT_STREQ(again, xml);
        ASSERT_STREQ(fresh, xml);
        doc_free(&d);
        db_close(db);
        cmd = g_strdup_printf("rm -rf '%s'", dir);
        ASSERT_EQ(system(cmd), 0);
}
