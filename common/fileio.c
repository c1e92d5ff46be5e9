/* fileio.c: bounded whole-file reads and the store's own writes (see
 * fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"

static const char *file_kind(mode_t m) {
        return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
               : S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory" : "a special file";
}

/* The end of every open here: what was opened without waiting (O_NONBLOCK)
 * must be a regular file, and is then handed over in blocking mode, since
 * its readers and writers expect whole reads and writes. */
static int keep_regular(const char *path, int *fd, int *ret_fd, struct kb_error *err) {
        struct stat st;
        int fl;

        if (fstat(*fd, &st) < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        if (!S_ISREG(st.st_mode))
                return error_setf(err, -EINVAL, "%s: %s, not a regular file", path, file_kind(st.st_mode));
        fl = fcntl(*fd, F_GETFL);
        if (fl < 0 || fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        *ret_fd = TAKE_FD(*fd);
        return 0;
}

/* fileio_open_regular, with extra open flags (O_NOFOLLOW). */
static int open_regular(const char *path, int extra, int *ret_fd, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        /* O_NONBLOCK: opening a FIFO for reading waits for a writer, a tty
         * or a device may wait for its carrier; the check comes after the
         * open (no race with a rename), so the open itself must not wait. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra);
        if (fd < 0) {
                int e = errno;

                if (e == ELOOP && (extra & O_NOFOLLOW))
                        return error_setf(err, -ELOOP, "%s: a symbolic link, not followed", path);

                /* A socket cannot be opened at all (ENXIO): say what it is. */
                if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
                        return error_setf(err, -EINVAL, "%s: %s, not a regular file", path, file_kind(st.st_mode));
                return error_setf(err, -e, "%s: %s", path, strerror(e));
        }
        return keep_regular(path, &fd, ret_fd, err);
}

int fileio_open_regular(const char *path, int *ret_fd, struct kb_error *err) {
        return open_regular(path, 0, ret_fd, err);
}

/* open_regular, then the size, before a byte is read: /dev/zero is no
 * regular file, and a file of a GiB is refused by its size, not read to
 * find out. OUT: *ret_fd, *ret_st. */
static int open_bounded(const char *path, int extra, size_t max, int *ret_fd, struct stat *ret_st,
                        struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        int r = open_regular(path, extra, &fd, err);

        if (r < 0)
                return r;
        if (fstat(fd, ret_st) < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        if ((unsigned long long)ret_st->st_size > max)
                return error_setf(err, -EFBIG, "%s: larger than %zu bytes", path, max);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int fileio_check(const char *path, size_t max, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        return open_bounded(path, 0, max, &fd, &st, err);
}

static int read_whole(const char *path, int extra, size_t max, char **ret_buf, size_t *ret_len, unsigned *ret_mode,
                      struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t got = 0;
        int r;

        r = open_bounded(path, extra, max, &fd, &st, err);
        if (r < 0)
                return r;
        buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
        if (!buf)
                return error_setf(err, -ENOMEM, "%s: out of memory", path);
        while (got < (size_t)st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return error_setf(err, -errno, "%s: %s", path, strerror(errno));
                if (n == 0)
                        return error_setf(err, -EIO, "%s: file shrank while reading", path);
                got += (size_t)n;
        }
        *ret_buf = TAKE_PTR(buf);
        *ret_len = got;
        if (ret_mode)
                *ret_mode = st.st_mode & 07777;
        return 0;
}

int fileio_read(const char *path, size_t max, char **ret_buf, size_t *ret_len, unsigned *ret_mode,
                struct kb_error *err) {
        return read_whole(path, 0, max, ret_buf, ret_len, ret_mode, err);
}

int fileio_read_nofollow(const char *path, size_t max, char **ret_buf, size_t *ret_len, struct kb_error *err) {
        return read_whole(path, O_NOFOLLOW, max, ret_buf, ret_len, NULL, err);
}

int fileio_create(const char *path, int flags, unsigned mode, int *ret_fd, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, (mode_t)mode);
        if (fd < 0 && errno == ELOOP)
                return error_setf(err, -ELOOP, "%s: a symbolic link, not a file kbench made (not followed)", path);
        if (fd < 0) {
                int e = errno;

                /* A FIFO without a reader (ENXIO for O_WRONLY): say what it is. */
                if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
                        return error_setf(err, -EINVAL, "%s: %s, not a regular file", path, file_kind(st.st_mode));
                return error_setf(err, -e, "%s: %s", path, strerror(e));
        }
        return keep_regular(path, &fd, ret_fd, err);
}

int fileio_write_all(int fd, const void *buf, size_t len) {
        const char *p = buf;

        while (len > 0) {
                ssize_t n = write(fd, p, len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        struct pollfd pfd = { .fd = fd, .events = POLLOUT };

                        poll(&pfd, 1, 1000);
                        continue;
                }
                if (n < 0)
                        return -errno;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int fileio_write_atomic(const char *path, const void *data, size_t len, unsigned mode, struct kb_error *err) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -1;
        int e;

        if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
                tmp = NULL;
                return error_setf(err, -ENOMEM, "%s: out of memory", path);
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", tmp, strerror(errno));
        e = fileio_write_all(fd, data, len);
        if (e < 0) {
                errno = -e;
                goto fail;
        }
        if (fchmod(fd, (mode_t)mode) < 0 || close(TAKE_FD(fd)) < 0 || rename(tmp, path) < 0)
                goto fail;
        return 0;
fail:
        e = errno;
        unlink(tmp);
        return error_setf(err, -e, "%s: %s", path, strerror(e));
}
