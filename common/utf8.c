/* common/utf8.c: the terminal-safe writer's allocation (see utf8.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

char *utf8_mask(const char *s) {
        return utf8_mask_cut(s ? s : "-", SIZE_MAX);
}

char *utf8_mask_cut(const char *s, size_t max_chars) {
        size_t len, n = 0, chars = 0, i = 0;
        char *out;

        if (!s)
                s = "";
        len = strlen(s);
        /* As utf8_mask, and room for the "..." of a cut. */
        out = malloc(len * 4 + 4);
        if (!out)
                return NULL;
        for (; i < len && chars < max_chars; chars++) {
                char safe[UTF8_SAFE_MAX];
                size_t k = utf8_terminal_safe((const unsigned char *)s + i, len - i, safe);
                size_t w = strlen(safe);

                memcpy(out + n, safe, w);
                n += w;
                i += k;
        }
        if (i < len) {
                memcpy(out + n, "...", 3);
                n += 3;
        }
        out[n] = '\0';
        return out;
}
