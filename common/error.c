/* error.c: the message-carrying error type (see error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

int error_setf(struct kb_error *err, int r, const char *fmt, ...) {
        va_list ap;

        if (!err)
                return r;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
        return r;
}

int error_prefix(struct kb_error *err, int r, const char *fmt, ...) {
        char prefix[sizeof(err->msg)], old[sizeof(err->msg)];
        va_list ap;

        if (!err)
                return r;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof(old));
        /* Truncating an over-long message is fine: it is for people. */
        size_t n = strlen(prefix);
        if (n > sizeof(err->msg) - 3)
                n = sizeof(err->msg) - 3;
        memcpy(err->msg, prefix, n);
        memcpy(err->msg + n, ": ", 2);
        n += 2;
        size_t m = strlen(old);
        if (m > sizeof(err->msg) - 1 - n)
                m = sizeof(err->msg) - 1 - n;
        memcpy(err->msg + n, old, m);
        err->msg[n + m] = '\0';
        return r;
}
