/* The error type every host module uses to carry one clear message up to the
 * CLI, which prints it once (systemd: log once, at the top). A function that
 * fails returns -errno and fills the message; callers add no second message. */
#pragma once

#include <stddef.h>

struct kb_error {
        char msg[1024];
};

/* Fill err (may be NULL) with a printf-style message and return r, so that a
 * failing path reads `return error_setf(err, -EINVAL, "%s: bad size", path);`. */
int error_setf(struct kb_error *err, int r, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Prefix an existing message: "ctx: old message". Returns r. */
int error_prefix(struct kb_error *err, int r, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
