/* Reading whole files whose size we do not trust: regular files only, up
 * to a bound, with one clear error naming the file. Every file kbench is
 * given by name (a job file, a nightly configuration, a patch, a config
 * fragment, a kernel) is opened here: a FIFO is never waited on, a device
 * never read, and a file's size is checked before a byte of it is read. */
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

/* What fileio_read(path, max) checks before it reads, without reading:
 * for a verb that looks at the files it is given before it starts (kernel
 * build's --config). Returns 0 or fileio_read's -errno with err. */
int fileio_check(const char *path, size_t max, struct kb_error *err);

/* fileio_read of a file kbench wrote and trusts (a site's manifest): a
 * symbolic link there is -ELOOP "PATH: a symbolic link, not followed",
 * never read through. */
int fileio_read_nofollow(const char *path, size_t max, char **ret_buf, size_t *ret_len, struct kb_error *err);

/* Open (creating it when missing) a file kbench keeps in its store or
 * writes for itself, with flags (O_WRONLY or O_RDWR, and O_TRUNC as wanted)
 * plus O_CREAT. Anyone who can write the store's directory could put a
 * symbolic link where the file goes, so the open follows none (the link's
 * target is neither opened nor truncated), nor waits on a FIFO, and the
 * file must be a regular one. OUT: *ret_fd (blocking; caller closes).
 * Returns 0, or -errno with err naming the file: -ELOOP a symbolic link,
 * -EINVAL a FIFO, socket, device or directory. */
int fileio_create(const char *path, int flags, unsigned mode, int *ret_fd, struct kb_error *err);

/* Write all len bytes of buf to fd, through short writes and EINTR. On a
 * non-blocking fd (the agent's console) a full buffer is waited out, a
 * second at a time. Returns 0 or -errno. */
int fileio_write_all(int fd, const void *buf, size_t len);

/* Replace the file at path with len bytes of data, mode mode: written to a
 * new temporary file beside it (O_EXCL, a random name) and renamed over it,
 * so a reader sees the old file or the new one, and a symbolic link at path
 * is replaced, never followed. Returns 0 or -errno with err naming path. */
int fileio_write_atomic(const char *path, const void *data, size_t len, unsigned mode, struct kb_error *err);
