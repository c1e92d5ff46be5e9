/* web/output: compare-then-replace writes (see output.h). Comparing reads
 * the old file in one go: pages are a few hundred kilobytes at most, and a
 * size mismatch (the common case for a changed page) skips the read. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "web/output.h"

int output_open(struct output *o, const char *dir, struct kb_error *err) {
        if (g_mkdir_with_parents(dir, 0755) < 0)
                return error_setf(err, -errno, "%s: cannot create the site directory: %s", dir,
                                  g_strerror(errno));
        *o = (struct output){ .dir = g_strdup(dir), .names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
        return 0;
}

void output_close(struct output *o) {
        g_free(o->dir);
        o->dir = NULL;
        if (o->names)
                g_hash_table_destroy(o->names);
        o->names = NULL;
}

int output_prune(struct output *o, int (*is_page)(const char *name), struct kb_error *err) {
        g_autoptr(GDir) d = g_dir_open(o->dir, 0, NULL);
        const char *name;

        if (!d)
                return error_setf(err, -errno, "%s: cannot list the site directory", o->dir);
        while ((name = g_dir_read_name(d))) {
                g_autofree char *path = NULL;

                if (!is_page(name) || g_hash_table_contains(o->names, name))
                        continue;
                path = g_build_filename(o->dir, name, NULL);
                if (unlink(path) < 0 && errno != ENOENT)
                        return error_setf(err, -errno, "%s: cannot remove a stale page: %s", path, g_strerror(errno));
                o->removed++;
        }
        return 0;
}

/* 1 when path holds exactly buf[0..len), 0 otherwise (missing, other size,
 * other bytes, unreadable: all mean "write it"). */
static int same_bytes(const char *path, const char *buf, size_t len) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        char chunk[65536];
        struct stat st;
        size_t off = 0;

        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
                return 0;
        while (off < len) {
                ssize_t n = read(fd, chunk, sizeof(chunk));

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0 || (size_t)n > len - off || memcmp(chunk, buf + off, (size_t)n) != 0)
                        return 0;
                off += (size_t)n;
        }
        return read(fd, chunk, 1) == 0;
}

static int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                buf += n;
                len -= (size_t)n;
        }
        return 0;
}

int output_write(struct output *o, const char *name, const char *buf, size_t len, struct kb_error *err) {
        g_autofree char *path = NULL, *tmp = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (!*name || strchr(name, '/') || name[0] == '.')
                return error_setf(err, -EINVAL, "%s: bad page name '%s'", o->dir, name);
        g_hash_table_add(o->names, g_strdup(name));
        path = g_build_filename(o->dir, name, NULL);
        if (same_bytes(path, buf, len)) {
                o->unchanged++;
                return 0;
        }
        tmp = g_strdup_printf("%s/.%s.XXXXXX", o->dir, name);
        fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0)
                return error_setf(err, -errno, "%s: cannot create a temporary file: %s", o->dir,
                                  g_strerror(errno));
        r = write_all(fd, buf, len);
        if (r >= 0 && close(TAKE_FD(fd)) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return error_setf(err, r, "%s: cannot write: %s", path, g_strerror(-r));
        }
        o->written++;
        return 0;
}
