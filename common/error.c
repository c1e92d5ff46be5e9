/* error.c: the message-carrying error type (see error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define ERROR_CUT " ... "

static int utf8_continuation(char c) {
        return ((unsigned char)c & 0xc0) == 0x80;
}

void error_fit(char *dst, size_t size, const char *src, size_t len) {
        size_t head, tail;

        if (size == 0)
                return;
        if (len < size || size < sizeof(ERROR_CUT) + 2) {
                size_t n = len < size ? len : size - 1;

                memcpy(dst, src, n);
                dst[n] = '\0';
                return;
        }
        /* The tail is the larger half: it holds the reason. */
        tail = (size - sizeof(ERROR_CUT)) / 2 + 1;
        head = size - sizeof(ERROR_CUT) - tail;
        while (head > 0 && utf8_continuation(src[head]))
                head--;
        while (tail > 0 && utf8_continuation(src[len - tail]))
                tail--;
        memcpy(dst, src, head);
        memcpy(dst + head, ERROR_CUT, sizeof(ERROR_CUT) - 1);
        memcpy(dst + head + sizeof(ERROR_CUT) - 1, src + len - tail, tail);
        dst[head + sizeof(ERROR_CUT) - 1 + tail] = '\0';
}

int error_setf(struct kb_error *err, int r, const char *fmt, ...) {
        va_list ap, again;
        char *whole = NULL;
        int n;

        if (!err)
                return r;
        va_start(ap, fmt);
        va_copy(again, ap);
        n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
        /* Too long (a path of thousands of bytes): format it whole, then
         * keep its head and its reason. Out of memory, the head stays. */
        if (n >= (int)sizeof(err->msg) && vasprintf(&whole, fmt, again) >= 0) {
                error_fit(err->msg, sizeof(err->msg), whole, strlen(whole));
                free(whole);
        }
        va_end(again);
        return r;
}

int error_prefix(struct kb_error *err, int r, const char *fmt, ...) {
        char *prefix = NULL, *whole = NULL;
        va_list ap;
        int n;

        if (!err)
                return r;
        va_start(ap, fmt);
        n = vasprintf(&prefix, fmt, ap);
        va_end(ap);
        if (n < 0)
                return r;      /* out of memory: the message stays as it was */
        if (asprintf(&whole, "%s: %s", prefix, err->msg) >= 0) {
                error_fit(err->msg, sizeof(err->msg), whole, strlen(whole));
                free(whole);
        }
        free(prefix);
        return r;
}
