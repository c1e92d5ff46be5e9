/* Tests of the page writer's escaper: every character that means something
 * in HTML, in text and in attribute context, invalid UTF-8 of each kind,
 * NUL and the other controls, and the element helpers' nesting checks. */
#include <errno.h>

#include "common/test.h"
#include "report/html.h"

TEST_MAIN();

static char *esc(const char *s, size_t len, int attr) {
        GString *out = g_string_new(NULL);

        if (attr)
                html_escape_attr(out, s, len);
        else
                html_escape_text(out, s, len);
        return g_string_free(out, FALSE);
}

#define CHECK_TEXT(in, want) do { g_autofree char *_o = esc((in), sizeof(in) - 1, 0); ASSERT_STREQ(_o, (want)); } while (0)
#define CHECK_ATTR(in, want) do { g_autofree char *_o = esc((in), sizeof(in) - 1, 1); ASSERT_STREQ(_o, (want)); } while (0)

TEST(text_specials) {
        CHECK_TEXT("plain 6.1.0-57-amd64", "plain 6.1.0-57-amd64");
        CHECK_TEXT("&", "&amp;");
        CHECK_TEXT("<", "&lt;");
        CHECK_TEXT(">", "&gt;");
        CHECK_TEXT("\"", "&quot;");
        CHECK_TEXT("'", "&#39;");
        CHECK_TEXT("a&b<c>d\"e'f", "a&amp;b&lt;c&gt;d&quot;e&#39;f");
        /* ` and = are harmless in text and kept readable there */
        CHECK_TEXT("a=`b`", "a=`b`");
        CHECK_TEXT("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;");
        CHECK_TEXT("&amp;", "&amp;amp;");
        CHECK_TEXT("line1\nline2\tcol", "line1\nline2\tcol");
        CHECK_TEXT("", "");
}

TEST(attr_specials) {
        CHECK_ATTR("&", "&amp;");
        CHECK_ATTR("<", "&lt;");
        CHECK_ATTR(">", "&gt;");
        CHECK_ATTR("\"", "&quot;");
        CHECK_ATTR("'", "&#39;");
        CHECK_ATTR("`", "&#96;");
        CHECK_ATTR("=", "&#61;");
        CHECK_ATTR("\" onmouseover=\"alert(1)", "&quot; onmouseover&#61;&quot;alert(1)");
        CHECK_ATTR("a\tb\nc\rd", "a&#9;b&#10;c&#13;d");
        CHECK_ATTR("run-3.html", "run-3.html");
}

TEST(invalid_utf8) {
        /* valid multi-byte characters pass unchanged */
        CHECK_TEXT("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
        /* a lone continuation byte, a bare lead byte, a truncated sequence */
        CHECK_TEXT("a\x80z", "a\xef\xbf\xbdz");
        CHECK_TEXT("a\xc3z", "a\xef\xbf\xbdz");
        CHECK_TEXT("a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd");
        /* overlong '<' (C0 BC) must not become a '<' */
        CHECK_TEXT("\xc0\xbc", "\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_TEXT("\xe0\x80\xbc", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        /* UTF-16 surrogate encoded in UTF-8, past U+10FFFF, 0xff */
        CHECK_TEXT("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_TEXT("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_TEXT("\xff", "\xef\xbf\xbd");
        CHECK_ATTR("\xff\"", "\xef\xbf\xbd&quot;");
        /* C1 control U+0085 (NEL) */
        CHECK_TEXT("\xc2\x85", "\xef\xbf\xbd");
        /* the escaper replaces, the rest of the string continues */
        CHECK_TEXT("\xc3<", "\xef\xbf\xbd&lt;");
        /* bidirectional controls: U+202E (RLO) would reverse what follows,
         * U+2066 (LRI), U+200F (RLM), U+061C (ALM); U+2070 next to them stays */
        CHECK_TEXT("a\xe2\x80\xaegnp.exe", "a\xef\xbf\xbdgnp.exe");
        CHECK_ATTR("\xe2\x81\xa6x\xe2\x80\x8f", "\xef\xbf\xbdx\xef\xbf\xbd");
        CHECK_TEXT("\xd8\x9c", "\xef\xbf\xbd");
        CHECK_TEXT("\xe2\x81\xb0", "\xe2\x81\xb0");
}

TEST(nul_and_controls) {
        /* NUL inside the given length is shown, never cuts the text */
        CHECK_TEXT("a\0b", "a\xe2\x90\x80" "b");
        CHECK_ATTR("a\0b", "a\xe2\x90\x80" "b");
        /* ESC of an ANSI colour sequence becomes a visible U+241B */
        CHECK_TEXT("\x1b[31mred", "\xe2\x90\x9b[31mred");
        CHECK_TEXT("\x7f", "\xe2\x90\xa1");
        CHECK_TEXT("\x01\x1f", "\xe2\x90\x81\xe2\x90\x9f");
        /* CRLF reads as a newline; a lone CR is shown */
        CHECK_TEXT("a\r\nb", "a\nb");
        CHECK_TEXT("a\rb", "a\xe2\x90\x8d" "b");
        /* (size_t)-1: up to the NUL */
        {
                g_autofree char *o = esc("x<y", (size_t)-1, 0);

                ASSERT_STREQ(o, "x&lt;y");
        }
        {
                g_autofree char *o = esc(NULL, 3, 0);

                ASSERT_STREQ(o, "");
        }
}

TEST(prefix_chars) {
        ASSERT_EQ(html_prefix_chars("abcdef", (size_t)-1, 3), 3);
        ASSERT_EQ(html_prefix_chars("\xc3\xa9\xc3\xa9x", (size_t)-1, 2), 4);
        ASSERT_EQ(html_prefix_chars("\xff\xffx", (size_t)-1, 2), 2);
        ASSERT_EQ(html_prefix_chars("ab", (size_t)-1, 10), 2);
}

static char *finish(struct html *h) {
        char *buf;
        size_t len;

        ASSERT_EQ(html_finish(h, &buf, &len), 0);
        ASSERT_EQ(len, strlen(buf));
        return buf;
}

TEST(elements) {
        struct html *h = html_new();
        g_autofree char *page = NULL;

        html_literal(h, "<!doctype html>");
        html_start(h, "p");
        html_attr(h, "class", "k\"x");
        html_attr(h, "title", NULL);
        html_text(h, "<b>");
        html_elem(h, "code", "a&b");
        html_textf(h, " %s=%d", "<i>", 3);
        html_start(h, "br");
        html_end_void(h);
        html_link(h, "run-3.html", "run <3>");
        html_link(h, "javascript:alert(1)", "x");
        html_link(h, "//evil.example/", "y");
        html_end(h);
        html_start(h, "div");
        html_attr_num(h, "x", 1.50);
        html_attr_num(h, "y", -0.001);
        html_attr_int(h, "n", -7);
        /* left open: html_finish closes it */
        page = finish(h);
        ASSERT_STREQ(page, "<!doctype html><p class=\"k&quot;x\">&lt;b&gt;<code>a&amp;b</code> &lt;i&gt;=3<br/>"
                           "<a href=\"run-3.html\">run &lt;3&gt;</a><a href=\"./javascript:alert(1)\">x</a>"
                           "<a href=\".///evil.example/\">y</a></p>"
                           "<div x=\"1.5\" y=\"0\" n=\"-7\"></div>");
}

TEST(misnesting) {
        struct html *h = html_new();
        char *buf = NULL;
        size_t len = 0;

        html_start(h, "p");
        html_end(h);
        html_end(h);            /* one too many */
        ASSERT_EQ(html_finish(h, &buf, &len), -EINVAL);
        ASSERT_TRUE(buf == NULL);

        h = html_new();
        html_start(h, "p");
        html_text(h, "x");
        html_attr(h, "class", "late");   /* attribute after content */
        ASSERT_EQ(html_finish(h, &buf, &len), -EINVAL);
}

TEST(large_text) {
        /* a console log of megabytes goes through in runs; spot-check the seams */
        GString *in = g_string_new(NULL);
        g_autofree char *out = NULL;

        for (int i = 0; i < 100000; i++)
                g_string_append(in, "[    1.234] ata1: <x> & y\n");
        out = esc(in->str, in->len, 0);
        ASSERT_EQ(strlen(out), (size_t)100000 * strlen("[    1.234] ata1: &lt;x&gt; &amp; y\n"));
        ASSERT_TRUE(strstr(out, "<") == NULL);
        g_string_free(in, TRUE);
}

static char *xesc(const char *s, size_t len, int attr) {
        GString *out = g_string_new(NULL);

        if (attr)
                html_escape_xml_attr(out, s, len);
        else
                html_escape_xml_text(out, s, len);
        return g_string_free(out, FALSE);
}

#define CHECK_XML(in, want) do { g_autofree char *_o = xesc((in), sizeof(in) - 1, 0); ASSERT_STREQ(_o, (want)); } while (0)
#define CHECK_XML_ATTR(in, want) do { g_autofree char *_o = xesc((in), sizeof(in) - 1, 1); ASSERT_STREQ(_o, (want)); } while (0)

/* XML (the Atom feed): the same entities, but a control character is
 * removed, not pictured, and so are the characters XML 1.0 forbids
 * (U+FFFE, U+FFFF: a parser must refuse a document holding them) and the
 * bidirectional controls; invalid UTF-8 still reads as U+FFFD. */
TEST(xml_text) {
        CHECK_XML("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;");
        CHECK_XML("a&b\"c'd]]>e", "a&amp;b&quot;c&#39;d]]&gt;e");
        CHECK_XML("NUL:\0:ESC:\x1b[31m:BEL\a:DEL\x7f:end", "NUL::ESC:[31m:BEL:DEL:end");
        CHECK_XML("line1\r\nline2\tcol\rx", "line1\nline2\tcolx");
        CHECK_XML("C1:\xc2\x85:FFFE:\xef\xbf\xbe:FFFF:\xef\xbf\xbf:RLO:\xe2\x80\xae:.", "C1::FFFE::FFFF::RLO::.");
        CHECK_XML("bad:\xff:overlong:\xc0\xbc:surrogate:\xed\xa0\x80", "bad:\xef\xbf\xbd:overlong:\xef\xbf\xbd\xef\xbf\xbd"
                                                                      ":surrogate:\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_XML("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 \xef\xbf\xbd", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 "
                                                                      "\xef\xbf\xbd");
        CHECK_XML_ATTR("a\tb\nc\rd\x01=`", "a&#9;b&#10;cd&#61;&#96;");
}

TEST(xml_document) {
        struct html *h = html_new_xml();
        char *buf = NULL;
        size_t len = 0;

        html_literal(h, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
        html_start(h, "feed");
        html_attr(h, "xmlns", "http://www.w3.org/2005/Atom");
        html_elem(h, "title", "x\x1by<z>");
        html_start(h, "link");
        html_attr(h, "href", "compare-a.html");
        html_end_void(h);
        ASSERT_EQ(html_finish(h, &buf, &len), 0);
        ASSERT_STREQ(buf, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
                          "<title>xy&lt;z&gt;</title><link href=\"compare-a.html\"/></feed>");
        g_free(buf);
}

/* Column labels: each <td> of a row gets its column's label (escaped), a
 * colspan moves the next cell's label on, an empty label adds nothing, a
 * new row starts again, and none are added once they are cleared. */
TEST(column_labels) {
        static const char *const labels[] = { "run", "", "a\"b", "d" };
        struct html *h = html_new();
        char *buf = NULL;
        size_t len = 0;

        html_column_labels(h, labels, G_N_ELEMENTS(labels));
        html_start(h, "tr");
        html_elem(h, "td", "1");
        html_elem(h, "td", "2");
        html_elem(h, "td", "3");
        html_end(h);
        html_start(h, "tr");
        html_start(h, "td");
        html_attr(h, "colspan", "3");
        html_text(h, "x");
        html_end(h);
        html_elem(h, "td", "y");
        html_elem(h, "td", "past the labels");
        html_end(h);
        html_column_labels(h, NULL, 0);
        html_start(h, "tr");
        html_elem(h, "td", "z");
        html_end(h);
        ASSERT_EQ(html_finish(h, &buf, &len), 0);
        ASSERT_STREQ(buf, "<tr><td data-label=\"run\">1</td><td>2</td><td data-label=\"a&quot;b\">3</td></tr>"
                          "<tr><td data-label=\"run\" colspan=\"3\">x</td><td data-label=\"d\">y</td>"
                          "<td>past the labels</td></tr><tr><td>z</td></tr>");
        g_free(buf);
}
