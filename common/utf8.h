/* common/utf8: one strict UTF-8 decoder, one classification of what must
 * not reach a terminal, and the one terminal-safe writer. Strings from the
 * database, a guest or a file are bytes someone else chose; the HTML
 * writer, the JSON renderer, the terminal tables and every line the
 * command prints decide with these what is a character, what is a stray
 * byte and what would drive a terminal, so they agree on what they
 * replace. In common/ so that every floor that prints (cli/, run/'s
 * progress lines, nightly/) reaches it; the inline pieces are here so that
 * report/html.c, in a library of its own, needs no object file. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Decode one UTF-8 sequence at s[0..len). Returns its length and sets *cp,
 * or returns 0 for an invalid or truncated sequence (the caller then
 * consumes one byte as U+FFFD). Strict RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF. */
static inline size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp) {
        uint32_t c;
        size_t n;

        if (s[0] < 0x80) {
                *cp = s[0];
                return 1;
        }
        if (s[0] >= 0xc2 && s[0] <= 0xdf) {
                n = 2;
                c = s[0] & 0x1f;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                c = s[0] & 0x0f;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                c = s[0] & 0x07;
        } else
                return 0;
        if (len < n)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = (c << 6) | (s[i] & 0x3f);
        }
        if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || c > 0x10ffff ||
            (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *cp = c;
        return n;
}

/* Unicode's bidirectional formatting characters (UAX #9): embeddings,
 * overrides, isolates and the marks. A kernel name holding U+202E reads
 * backwards in every line after it, so they are replaced wherever the other
 * format controls are (terminal tables, error lines, HTML). */
static inline int utf8_is_bidi_control(uint32_t cp) {
        return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
               (cp >= 0x2066 && cp <= 0x2069);
}

/* What must not reach a terminal as it is: the C0 controls (the newline
 * and ESC with them), DEL, C1 (a terminal may take U+009B for CSI) and the
 * bidirectional controls. */
static inline int utf8_is_terminal_control(uint32_t cp) {
        return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || utf8_is_bidi_control(cp);
}

/* Room for utf8_terminal_safe's answer: "\xNN" or one character, and NUL. */
#define UTF8_SAFE_MAX 5

/* The next character of s[0..len) (len >= 1) as a terminal may be given
 * it: the one terminal-safe form of text from a store, a guest or a file,
 * for every writer that prints such text (report/text.c). A printable
 * character stays as it is, a control (utf8_is_terminal_control) becomes
 * '?', and a byte that starts no valid sequence "\xNN", so that a path
 * that is not UTF-8 is shown by its real bytes. OUT: buf, NUL-terminated.
 * Returns the bytes of s it stands for (at least 1). */
static inline size_t utf8_terminal_safe(const unsigned char *s, size_t len, char buf[UTF8_SAFE_MAX]) {
        static const char hex[] = "0123456789abcdef";
        uint32_t cp;
        size_t k = utf8_decode(s, len, &cp);

        if (k == 0) {
                buf[0] = '\\';
                buf[1] = 'x';
                buf[2] = hex[s[0] >> 4];
                buf[3] = hex[s[0] & 0xf];
                buf[4] = '\0';
                return 1;
        }
        if (utf8_is_terminal_control(cp)) {
                buf[0] = '?';
                buf[1] = '\0';
                return k;
        }
        for (size_t i = 0; i < k; i++)
                buf[i] = (char)s[i];
        buf[k] = '\0';
        return k;
}

/* The columns utf8_terminal_safe's buf takes: 4 for "\xNN", else 1. */
static inline int utf8_safe_width(const char *buf) {
        return buf[0] == '\\' && buf[1] == 'x' ? 4 : 1;
}

/* s in the terminal-safe form (utf8_terminal_safe), as one string: for
 * text printed whole, an error line, a kernel's release, a path the user
 * gave (whose bytes that are not UTF-8 are shown as they are, not as
 * U+FFFD). NULL s is "-". Returns a string the caller frees with free(),
 * or NULL when out of memory. */
char *utf8_mask(const char *s);

/* utf8_mask of at most max_chars characters of s (a masked byte counts as
 * one), then "..." when s was longer: for text from a store or a guest
 * that a line quotes (a mail's facts, a .config's option). NULL s is "".
 * Returns a string the caller frees with free(), or NULL when out of
 * memory. */
char *utf8_mask_cut(const char *s, size_t max_chars);
