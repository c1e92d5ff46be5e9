/* report/utf8: one strict UTF-8 decoder for every renderer of the read
 * side. Strings from the database are bytes a guest or a hand edit chose;
 * the HTML writer, the JSON renderer and the terminal tables all decide
 * with it what is a character and what is a stray byte, so they agree on
 * what they replace. Header-only: html.c lives in a library of its own. */
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
