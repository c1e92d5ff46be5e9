/* Reading whole files whose size we do not trust: regular files only, up
 * to a bound, with one clear error naming the file. */
#pragma once

#include <stddef.h>

#include "common/error.h"

/* Open the regular file at path (links followed) for reading, refusing a
 * FIFO, socket, device or directory without blocking on it. OUT: *ret_fd
 * (caller closes). Returns 0, or -errno with err naming the file and what
 * it is (-EINVAL: a directory, FIFO, socket or device). */
int fileio_open_regular(const char *path, int *ret_fd, struct kb_error *err);

/* Read the regular file at path (links followed), at most max bytes.
 * OUT: *ret_buf (malloc'd, caller frees; never NULL on success, even for an
 * empty file), *ret_len, *ret_mode (permission bits; may be NULL).
 * Returns 0, or -errno with err: -EINVAL not a regular file, -EFBIG larger
 * than max, -EIO the file shrank while being read. */
int fileio_read(const char *path, size_t max, char **ret_buf, size_t *ret_len, unsigned *ret_mode,
                struct kb_error *err);
