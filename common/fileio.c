/* fileio.c: bounded whole-file reads (see fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"

int fileio_read(const char *path, size_t max, char **ret_buf, size_t *ret_len, unsigned *ret_mode,
                struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t got = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        if (fstat(fd, &st) < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        if (!S_ISREG(st.st_mode))
                return error_setf(err, -EINVAL, "%s: not a regular file", path);
        if ((unsigned long long)st.st_size > max)
                return error_setf(err, -EFBIG, "%s: larger than %zu bytes", path, max);
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
