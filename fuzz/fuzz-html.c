/* fuzz-html.c: the page writer's escaper on arbitrary bytes, with its
 * promises checked: the output is valid UTF-8, holds no NUL, no C0 control
 * but tab and newline (text) and none at all (attributes), and no raw
 * < > " ' (nor ` = in attributes); every & starts an entity the escaper
 * writes. The XML flavour (the Atom feed) keeps the same promises and
 * more: no C0 control at all but tab and newline in text, no C1 control,
 * no U+FFFE or U+FFFF (XML 1.0 forbids them), no bidirectional control. A
 * chart label of the same bytes must keep the SVG well nested. */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const GString *out, int attr) {
        static const char *const entities[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#96;", "&#61;",
                                                "&#9;", "&#10;", "&#13;" };

        if (!g_utf8_validate(out->str, (gssize)out->len, NULL))
                abort();
        for (size_t i = 0; i < out->len; i++) {
                unsigned char c = (unsigned char)out->str[i];
                int ok = 0;

                if (c == '<' || c == '>' || c == '"' || c == '\'' || c == 0 || c == 0x7f)
                        abort();
                if (attr && (c == '`' || c == '=' || c < 0x20))
                        abort();
                if (!attr && c < 0x20 && c != '\t' && c != '\n')
                        abort();
                if (c != '&')
                        continue;
                for (size_t k = 0; k < G_N_ELEMENTS(entities) && !ok; k++)
                        ok = strncmp(out->str + i, entities[k], strlen(entities[k])) == 0;
                if (!ok)
                        abort();
        }
}

/* What the XML flavour removes must be gone: C1 and bidirectional
 * controls, U+FFFE and U+FFFF (the output is valid UTF-8 already). */
static void check_xml_chars(const GString *out) {
        for (const char *p = out->str; *p; p = g_utf8_next_char(p)) {
                gunichar c = g_utf8_get_char(p);

                if ((c >= 0x80 && c < 0xa0) || c == 0xfffe || c == 0xffff || c == 0x061c || c == 0x200e ||
                    c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        GString *text = g_string_new(NULL), *attr = g_string_new(NULL);
        GString *xtext = g_string_new(NULL), *xattr = g_string_new(NULL);
        g_autofree char *label = g_strndup((const char *)data, size);
        double t[2] = { 0, 1 }, v[2] = { 1, 2 };
        struct svg_series s = { .label = label, .t = t, .v = v, .n = 2 };
        struct svg_mark m = { 0.5, label };
        struct svg_line_chart c = { .title = label, .x_unit = "s", .y_unit = label, .series = &s, .n_series = 1,
                                    .marks = &m, .n_marks = 1 };
        struct svg_bar bar = { label, 1, 0.5, 1.5, 0, NULL };
        struct svg_bar_chart bc = { .title = label, .unit = label, .bars = &bar, .n_bars = 1 };
        struct svg_strip strip = { label, v, 2, 1.5, 1.5, 1, 2, 0 };
        struct svg_strip_chart sc = { .title = label, .unit = label, .rows = &strip, .n_rows = 1 };
        struct html *h = html_new();
        char *page = NULL;
        size_t len;

        html_escape_text(text, (const char *)data, size);
        html_escape_attr(attr, (const char *)data, size);
        check(text, 0);
        check(attr, 1);
        html_escape_xml_text(xtext, (const char *)data, size);
        html_escape_xml_attr(xattr, (const char *)data, size);
        check(xtext, 0);
        check(xattr, 1);
        check_xml_chars(xtext);
        check_xml_chars(xattr);
        svg_line_chart(h, &c);
        svg_bar_chart(h, &bc);
        svg_strip_chart(h, &sc);
        if (html_finish(h, &page, &len) < 0 || !g_utf8_validate(page, (gssize)len, NULL))
                abort();
        g_free(page);
        g_string_free(text, TRUE);
        g_string_free(attr, TRUE);
        g_string_free(xtext, TRUE);
        g_string_free(xattr, TRUE);
        return 0;
}
