/* console.c: serial line framing and kernel-log scanning (see console.h). */
#include <string.h>

#include "harness/console.h"

void console_lines_feed(struct console_lines *l, const char *data, size_t len,
                        void (*fn)(void *userdata, const char *line, size_t len), void *userdata) {
        for (size_t i = 0; i < len; i++) {
                char c = data[i];

                if (c == '\n') {
                        if (l->overflow)
                                l->dropped++;
                        else
                                fn(userdata, l->buf, l->len);
                        l->len = 0;
                        l->overflow = 0;
                        continue;
                }
                if (l->len >= PROTO_LINE_MAX + 1) {
                        l->overflow = 1;
                        continue;
                }
                l->buf[l->len++] = c;
        }
}

static const char *const crash_patterns[] = {
        "Kernel panic", "BUG:", "Oops", "general protection fault",
};

static void copy_line(char *dst, size_t size, const char *s, size_t n) {
        size_t o = 0;

        for (size_t i = 0; i < n && o + 1 < size; i++)
                dst[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
        dst[o] = '\0';
}

void console_scan(const char *log, size_t len, struct console_verdict *ret) {
        struct console_verdict v = { 0 };
        const char *p = log, *end = log + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

                if (!v.kernel_started && memmem(p, n, "Linux version", 13))
                        v.kernel_started = 1;
                if (memmem(p, n, "WARNING:", 8))
                        v.warnings++;
                for (size_t i = 0; !v.crashed && i < sizeof(crash_patterns) / sizeof(crash_patterns[0]); i++)
                        if (memmem(p, n, crash_patterns[i], strlen(crash_patterns[i]))) {
                                v.crashed = 1;
                                copy_line(v.crash_line, sizeof(v.crash_line), p, n);
                        }
                p += n + 1;
        }
        *ret = v;
}
