/* console.c: serial line framing and kernel-log scanning (see console.h). */
#include <stdio.h>
#include <string.h>

#include "host/console.h"

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

void console_stream_init(struct console_stream *s, const char *cell) {
        memset(s, 0, sizeof(*s));
        snprintf(s->cell, sizeof(s->cell), "%s", cell);
}

static void copy_line(char *dst, size_t size, const char *s, size_t n);

static void reject(struct console_stream *s, const char *why, const char *line, size_t len) {
        char shown[100];

        s->rejected++;
        if (s->first_reject[0])
                return;
        copy_line(shown, sizeof(shown), line, len);
        snprintf(s->first_reject, sizeof(s->first_reject), "%s: '%s'", why, shown);
}

int console_stream_line(struct console_stream *s, const char *line, size_t len, struct proto_record *ret) {
        char why[96];
        int r;

        if (len > 0 && line[len - 1] == '\r')
                len--;
        if (len == 0)
                return 0;
        r = proto_parse(line, len, ret);
        if (r != PROTO_OK) {
                reject(s, proto_status_str(r), line, len);
                return 0;
        }
        if (strcmp(ret->cell, s->cell) != 0) {
                snprintf(why, sizeof(why), "record for cell '%s', expected '%s'", ret->cell, s->cell);
                reject(s, why, line, len);
                return 0;
        }
        if (ret->seq < s->next_seq) {
                /* Replayed or backwards: never handed on, or the cell would
                 * count a sample twice (and its rows collide on seq). */
                snprintf(why, sizeof(why), "sequence %llu replayed or backwards (expected %llu)",
                         (unsigned long long)ret->seq, (unsigned long long)s->next_seq);
                reject(s, why, line, len);
                return 0;
        }
        if (ret->seq > s->next_seq) {
                snprintf(why, sizeof(why), "sequence gap: got %llu, expected %llu (records lost)",
                         (unsigned long long)ret->seq, (unsigned long long)s->next_seq);
                reject(s, why, line, len);
        }
        s->next_seq = ret->seq + 1;
        return 1;
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
                                v.crash_offset = (size_t)(p - log);
                                copy_line(v.crash_line, sizeof(v.crash_line), p, n);
                        }
                p += n + 1;
        }
        *ret = v;
}
