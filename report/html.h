/* report/html: the one way text reaches an HTML page (and the SVG inside
 * it). Everything kbench publishes comes from the result store, and the
 * store holds what guests printed: kernel names, tags, workload parameters,
 * console logs, job output, agent notes. A page is built element by element
 * into a memory buffer (the site compares it with the file on disk before
 * writing); data enters only as escaped text or as escaped, double-quoted
 * attribute values. Tag names, attribute names and raw markup (the page's
 * CSS) must be string literals: the macros below refuse anything else at
 * compile time, so no value from the database can become markup.
 *
 * Escaping: & < > " ' become entities in both contexts; in attribute
 * values also ` and = (old parsers split unquoted values on them) and tab,
 * CR, LF. Bytes that are not valid UTF-8 (overlong forms, surrogates, code
 * points past U+10FFFF, truncated sequences) become U+FFFD; NUL and the
 * other C0 controls except tab and newline become their visible Control
 * Pictures (U+2400 + c, DEL as U+2421), so a console log's escape
 * sequences stay visible without being live; C1 controls become U+FFFD.
 *
 * The same writer makes XML documents (the site's Atom feed, html_new_xml):
 * the same element calls and escaping, except that control characters are
 * removed instead of pictured (a feed reader shows text, not a console),
 * as are the characters XML 1.0 does not allow at all (U+FFFE, U+FFFF)
 * and the bidirectional controls. */
#pragma once

#include <stdarg.h>
#include <stddef.h>

#include <glib.h>

struct html {
        GString *buf;              /* the page so far */
        const char *stack[64];     /* open elements (literal tag names) */
        int depth;
        int in_tag;                /* 1 between html_start() and its content: attributes allowed */
        int broken;                /* a nesting error happened (programming error) */
        int xml;                   /* an XML document: controls removed, not pictured */
        const char *const *labels; /* html_column_labels: the open table's column labels, or NULL */
        size_t n_labels, column;   /* how many; the column of the next <td> in its <tr> */
};

/* A new, empty page buffer. Never NULL (GLib aborts on OOM). Free with
 * html_free. */
struct html *html_new(void);
/* A new, empty XML document buffer (see above); the caller writes the
 * XML declaration with html_literal. Free with html_free. */
struct html *html_new_xml(void);
/* Accepts NULL; returns NULL. */
struct html *html_free(struct html *h);
/* Close every open element and hand out the bytes: *ret_len bytes,
 * NUL-terminated; caller g_free()s. Returns -EINVAL (and still frees h) if
 * the elements were misnested, which is a bug in the page code. */
int html_finish(struct html *h, char **ret_buf, size_t *ret_len);

/* Low-level escapers, appending to out. len may be (size_t)-1 for a
 * NUL-terminated s; s may be NULL (nothing is appended). */
void html_escape_text(GString *out, const char *s, size_t len);
void html_escape_attr(GString *out, const char *s, size_t len);
/* The same for XML text and attribute values: controls removed. */
void html_escape_xml_text(GString *out, const char *s, size_t len);
void html_escape_xml_attr(GString *out, const char *s, size_t len);

/* Byte length of the longest prefix of s (length len) that holds at most
 * max_chars characters, counting an invalid byte as one: for shortening
 * labels without cutting a UTF-8 sequence. */
size_t html_prefix_chars(const char *s, size_t len, size_t max_chars);

/* Elements. `tag`, attribute names and literal markup are string literals
 * (checked by the macros). html_start writes "<tag", attributes follow,
 * and the start tag is closed by the first content or child. html_end
 * closes the innermost open element; a void element (meta, br, rect, line)
 * ends with html_end_void, which writes "/>" (valid in HTML5 and SVG). */
#define html_start(h, tag)              html_start_((h), "" tag "")
#define html_attr(h, name, value)       html_attr_((h), "" name "", (value))
#define html_attr_int(h, name, v)       html_attr_int_((h), "" name "", (v))
#define html_attr_num(h, name, v)       html_attr_num_((h), "" name "", (v))
#define html_attrf(h, name, ...)        html_attrf_((h), "" name "", __VA_ARGS__)
#define html_literal(h, markup)         html_literal_((h), "" markup "")
/* <tag>text</tag> in one call. */
#define html_elem(h, tag, text)         html_elem_((h), "" tag "", (text))
#define html_elemf(h, tag, ...)         html_elemf_((h), "" tag "", __VA_ARGS__)

void html_start_(struct html *h, const char *tag);
/* value NULL: the attribute is left out. */
void html_attr_(struct html *h, const char *name, const char *value);
void html_attr_int_(struct html *h, const char *name, long long v);
/* Numbers for SVG geometry: up to 2 decimals, no trailing zeros. */
void html_attr_num_(struct html *h, const char *name, double v);
void html_attrf_(struct html *h, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void html_end(struct html *h);
void html_end_void(struct html *h);

/* Escaped text content. The formatted variant escapes the whole result,
 * so a %s argument from the database is as safe as plain text. */
void html_text(struct html *h, const char *s);
void html_text_len(struct html *h, const char *s, size_t len);
void html_textf(struct html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void html_elem_(struct html *h, const char *tag, const char *text);
void html_elemf_(struct html *h, const char *tag, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Markup that is part of the program (the style sheet, the doctype). */
void html_literal_(struct html *h, const char *markup);

/* The column labels of the table being written (borrowed; NULL or n 0:
 * none). While they are set, each <td> gets data-label="its column's
 * label" (the i-th cell of its <tr>, a colspan counted; an empty label
 * adds nothing), so a narrow screen's style sheet can lay a row out as
 * labelled lines (web/page.c's table.cards). */
void html_column_labels(struct html *h, const char *const *labels, size_t n);

/* A link: <a href="href">text</a>. href is a relative path the site built;
 * one that looks like it carries a scheme ("x:") or starts with '/' or
 * '\' (absolute, or "//host") is written as "./x:" so it can never become
 * javascript: or an external URL. */
void html_link(struct html *h, const char *href, const char *text);
