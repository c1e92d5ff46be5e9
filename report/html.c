/* report/html: the escaping page writer (contract and escaping rules in
 * html.h). Kept free of the views so the SVG writer and the site share it,
 * and so the escaper can be tested byte by byte. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "report/html.h"

struct html *html_new(void) {
        struct html *h = g_new0(struct html, 1);

        h->buf = g_string_sized_new(16384);
        return h;
}

struct html *html_new_xml(void) {
        struct html *h = html_new();

        h->xml = 1;
        return h;
}

struct html *html_free(struct html *h) {
        if (!h)
                return NULL;
        g_string_free(h->buf, TRUE);
        g_free(h);
        return NULL;
}

static void append_cp(GString *out, uint32_t cp) {
        char b[4];

        if (cp < 0x800) {
                b[0] = (char)(0xc0 | (cp >> 6));
                b[1] = (char)(0x80 | (cp & 0x3f));
                g_string_append_len(out, b, 2);
        } else {
                b[0] = (char)(0xe0 | (cp >> 12));
                b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                b[2] = (char)(0x80 | (cp & 0x3f));
                g_string_append_len(out, b, 3);
        }
}

#define REPLACEMENT 0xfffd

/* What XML 1.0 allows at all and a reader should see: no C1 control, no
 * bidirectional control, not U+FFFE or U+FFFF. */
static int xml_char_ok(uint32_t cp) {
        return cp >= 0xa0 && !utf8_is_bidi_control(cp) && cp != 0xfffe && cp != 0xffff;
}

/* The entity of an ASCII byte that needs one in this context, or NULL. */
static inline const char *entity(unsigned char c, int attr) {
        switch (c) {
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '"': return "&quot;";
        case '\'': return "&#39;";
        case '`': return attr ? "&#96;" : NULL;
        case '=': return attr ? "&#61;" : NULL;
        case '\t': return attr ? "&#9;" : NULL;
        case '\n': return attr ? "&#10;" : NULL;
        default: return NULL;
        }
}

/* One byte (or sequence) at s[i] that is not copied as it is: its
 * replacement appended to out. Returns the bytes consumed. */
static size_t escape_one(GString *out, const unsigned char *s, size_t i, size_t len, int attr, int xml) {
        unsigned char c = s[i];
        const char *ent = entity(c, attr);
        uint32_t cp;
        size_t n;

        if (c >= 0x80) {
                /* invalid UTF-8 (n == 0), a C1 control (n == 2), a bidirectional
                 * control (n == 2 or 3), or in XML a non-character */
                n = utf8_decode(s + i, len - i, &cp);
                if (n == 0 || !xml)
                        append_cp(out, REPLACEMENT);
                return n ? n : 1;
        }
        if (ent)
                g_string_append(out, ent);
        else if (xml)
                ; /* XML: every other control is removed */
        else if (c == '\r' && attr)
                g_string_append(out, "&#13;");
        else if (c == '\r' && i + 1 < len && s[i + 1] == '\n')
                ; /* CRLF line ends read as LF */
        else
                append_cp(out, c == 0x7f ? 0x2421 : 0x2400 + c);
        return 1;
}

static void escape(GString *out, const char *str, size_t len, int attr, int xml) {
        const unsigned char *s = (const unsigned char *)str;
        size_t i = 0, run = 0;

        if (!s)
                return;
        if (len == (size_t)-1)
                len = strlen(str);
        /* Copy runs of plain bytes in one append: console logs are large. */
        while (i < len) {
                unsigned char c = s[i];
                uint32_t cp;
                size_t n;

                if (c >= 0x80) {
                        n = utf8_decode(s + i, len - i, &cp);
                        if (n > 0 && (xml ? xml_char_ok(cp) : cp >= 0xa0 && !utf8_is_bidi_control(cp))) {
                                i += n;
                                continue;
                        }
                } else if ((c >= 0x20 && c != 0x7f && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'' &&
                            !(attr && (c == '`' || c == '='))) ||
                           (!attr && (c == '\n' || c == '\t'))) {
                        i++;
                        continue;
                }
                g_string_append_len(out, str + run, (gssize)(i - run));
                i += escape_one(out, s, i, len, attr, xml);
                run = i;
        }
        g_string_append_len(out, str + run, (gssize)(len - run));
}

void html_escape_text(GString *out, const char *s, size_t len) {
        escape(out, s, len, 0, 0);
}

void html_escape_attr(GString *out, const char *s, size_t len) {
        escape(out, s, len, 1, 0);
}

void html_escape_xml_text(GString *out, const char *s, size_t len) {
        escape(out, s, len, 0, 1);
}

void html_escape_xml_attr(GString *out, const char *s, size_t len) {
        escape(out, s, len, 1, 1);
}

size_t html_prefix_chars(const char *str, size_t len, size_t max_chars) {
        const unsigned char *s = (const unsigned char *)str;
        size_t i = 0;
        uint32_t cp;

        if (len == (size_t)-1)
                len = strlen(str);
        for (size_t k = 0; k < max_chars && i < len; k++) {
                size_t n = utf8_decode(s + i, len - i, &cp);

                i += n ? n : 1;
        }
        return i;
}

/* Tag and attribute names come from literals, but a typo like "a href"
 * would still be markup: check the alphabet (a programming error). */
static int name_ok(const char *name) {
        if (!*name)
                return 0;
        for (const char *p = name; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      *p == '-' || *p == ':'))
                        return 0;
        return 1;
}

static void close_start_tag(struct html *h) {
        if (h->in_tag) {
                g_string_append_c(h->buf, '>');
                h->in_tag = 0;
        }
}

void html_start_(struct html *h, const char *tag) {
        assert(name_ok(tag));
        close_start_tag(h);
        if (h->depth >= (int)G_N_ELEMENTS(h->stack)) {
                h->broken = 1;
                return;
        }
        h->stack[h->depth++] = tag;
        g_string_append_c(h->buf, '<');
        g_string_append(h->buf, tag);
        h->in_tag = 1;
        if (h->labels && strcmp(tag, "tr") == 0)
                h->column = 0;
        else if (h->labels && strcmp(tag, "td") == 0) {
                if (h->column < h->n_labels && *h->labels[h->column])
                        html_attr_(h, "data-label", h->labels[h->column]);
                h->column++;
        }
}

void html_column_labels(struct html *h, const char *const *labels, size_t n) {
        h->labels = n ? labels : NULL;
        h->n_labels = n;
        h->column = 0;
}

void html_attr_(struct html *h, const char *name, const char *value) {
        assert(name_ok(name));
        if (!h->in_tag) {
                h->broken = 1;
                return;
        }
        if (!value)
                return;
        g_string_append_c(h->buf, ' ');
        g_string_append(h->buf, name);
        g_string_append(h->buf, "=\"");
        escape(h->buf, value, (size_t)-1, 1, h->xml);
        g_string_append_c(h->buf, '"');
        /* a cell spanning k columns: the next cell's label is k on */
        if (h->labels && strcmp(name, "colspan") == 0 && strcmp(h->stack[h->depth - 1], "td") == 0) {
                long k = strtol(value, NULL, 10);

                if (k > 1 && k < 1000)
                        h->column += (size_t)k - 1;
        }
}

void html_attr_int_(struct html *h, const char *name, long long v) {
        char b[32];

        snprintf(b, sizeof(b), "%lld", v);
        html_attr_(h, name, b);
}

void html_attr_num_(struct html *h, const char *name, double v) {
        char b[64];
        char *p;

        if (!isfinite(v))
                v = 0;
        /* A coordinate far off any canvas; "%.2f" of 1e308 would be cut. */
        if (fabs(v) > 1e9)
                v = copysign(1e9, v);
        snprintf(b, sizeof(b), "%.2f", v);
        p = b + strlen(b) - 1;
        while (*p == '0')
                *p-- = '\0';
        if (*p == '.')
                *p = '\0';
        if (strcmp(b, "-0") == 0)
                strcpy(b, "0");
        html_attr_(h, name, b);
}

void html_attrf_(struct html *h, const char *name, const char *fmt, ...) {
        g_autofree char *v = NULL;
        va_list ap;

        va_start(ap, fmt);
        v = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        html_attr_(h, name, v);
}

void html_end(struct html *h) {
        if (h->depth == 0) {
                h->broken = 1;
                return;
        }
        close_start_tag(h);
        g_string_append(h->buf, "</");
        g_string_append(h->buf, h->stack[--h->depth]);
        g_string_append_c(h->buf, '>');
}

void html_end_void(struct html *h) {
        if (!h->in_tag || h->depth == 0) {
                h->broken = 1;
                return;
        }
        g_string_append(h->buf, "/>");
        h->in_tag = 0;
        h->depth--;
}

void html_text_len(struct html *h, const char *s, size_t len) {
        close_start_tag(h);
        escape(h->buf, s, len, 0, h->xml);
}

void html_text(struct html *h, const char *s) {
        html_text_len(h, s, (size_t)-1);
}

void html_textf(struct html *h, const char *fmt, ...) {
        g_autofree char *v = NULL;
        va_list ap;

        va_start(ap, fmt);
        v = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        html_text(h, v);
}

void html_elem_(struct html *h, const char *tag, const char *text) {
        html_start_(h, tag);
        html_text(h, text);
        html_end(h);
}

void html_elemf_(struct html *h, const char *tag, const char *fmt, ...) {
        g_autofree char *v = NULL;
        va_list ap;

        va_start(ap, fmt);
        v = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        html_elem_(h, tag, v);
}

void html_literal_(struct html *h, const char *markup) {
        close_start_tag(h);
        g_string_append(h->buf, markup);
}

void html_link(struct html *h, const char *href, const char *text) {
        const char *colon = strchr(href, ':');
        const char *slash = strchr(href, '/');

        html_start(h, "a");
        /* "x:" (a scheme) and "//host" (protocol-relative) leave the site */
        if ((colon && (!slash || colon < slash)) || href[0] == '/' || href[0] == '\\') {
                g_autofree char *safe = g_strconcat("./", href, NULL);

                html_attr(h, "href", safe);
        } else
                html_attr(h, "href", href);
        html_text(h, text);
        html_end(h);
}

int html_finish(struct html *h, char **ret_buf, size_t *ret_len) {
        int broken;

        while (h->depth > 0 && !h->broken)
                html_end(h);
        broken = h->broken;
        if (broken) {
                html_free(h);
                return -EINVAL;
        }
        *ret_len = h->buf->len;
        *ret_buf = g_string_free(h->buf, FALSE);
        g_free(h);
        return 0;
}
