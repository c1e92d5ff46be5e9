/* The error type every host module uses to carry one clear message up to the
 * CLI, which prints it once (systemd: log once, at the top). A function that
 * fails returns -errno and fills the message; callers add no second message. */
#pragma once

#include <stddef.h>
#include <string.h>

struct kb_error {
        char msg[1024];
};

/* A value someone else chose (a user's argument, a stored name), in a
 * message cut at 64 bytes: a file pasted as a value must not become a
 * 100 KB error line, nor push the reason out of it.
 * error_setf(err, -ENOENT, "no cell " ERROR_VAL, ERROR_VALARG(key)) */
#define ERROR_VAL "%.64s%s"
#define ERROR_VALARG(s) (s), (strlen(s) > 64 ? "..." : "")

/* Fill err (may be NULL) with a printf-style message and return r, so that a
 * failing path reads `return error_setf(err, -EINVAL, "%s: bad size", path);`.
 * A message longer than err->msg keeps its head and its tail (error_fit). */
int error_setf(struct kb_error *err, int r, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Prefix an existing message: "ctx: old message". Returns r. Fitted as
 * error_setf's. */
int error_prefix(struct kb_error *err, int r, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Copy src (len bytes) into dst (size bytes, NUL-terminated): whole when it
 * fits, else its head and its tail joined by " ... ". A message names the
 * file at fault before the reason ("PATH: File name too long"), so what is
 * cut is the middle (of a long path or value), never the reason. Cuts fall
 * between UTF-8 characters. */
void error_fit(char *dst, size_t size, const char *src, size_t len);
