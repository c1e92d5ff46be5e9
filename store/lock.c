/* lock.c: the store lock (see lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "store/lock.h"

struct store_lock {
        int fd;
};

/* "pid verb unix-time" as the holder wrote it; anything else is shown as unknown. */
static void describe_holder(int fd, char *buf, size_t size) {
        char text[128] = "";
        ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
        g_auto(GStrv) f = NULL;
        uint64_t pid, since;
        char when[32];
        time_t t;

        snprintf(buf, size, "another kbench (pid unknown)");
        if (n <= 0)
                return;
        text[n] = '\0';
        f = g_strsplit(g_strchomp(text), " ", 3);
        if (g_strv_length(f) != 3 || parse_u64(f[0], &pid) < 0 || parse_u64(f[2], &since) < 0 ||
            !g_regex_match_simple("^[a-z]{1,16}$", f[1], 0, 0))
                return;
        t = (time_t)since;
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
        snprintf(buf, size, "kbench %s, pid %llu, since %s", f[1], (unsigned long long)pid, when);
}

int lock_store(const char *home, const char *verb, struct store_lock **ret, struct kb_error *err) {
        g_autofree char *path = g_build_filename(home, "lock", NULL);
        char line[128], holder[160];
        int fd = -1, n, r;

        /* The store exists (store_prepare made it, or refused): a lock
         * must never create one. A link planted as the lock file would
         * have its target truncated below: fileio_create follows none. */
        r = fileio_create(path, O_RDWR, 0644, &fd, err);
        if (r < 0)
                return r;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int e = errno;
                if (e == EWOULDBLOCK) {
                        describe_holder(fd, holder, sizeof(holder));
                        close(fd);
                        return error_setf(err, -EBUSY, "store %s is in use by %s (%s)", home, holder, path);
                }
                close(fd);
                return error_setf(err, -e, "%s: %s", path, g_strerror(e));
        }
        n = snprintf(line, sizeof(line), "%ld %s %lld\n", (long)getpid(), verb, (long long)time(NULL));
        if (ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)n, 0) != n) {
                int e = errno;
                close(fd);
                return error_setf(err, -e, "%s: %s", path, g_strerror(e));
        }
        *ret = g_new0(struct store_lock, 1);
        (*ret)->fd = fd;
        return 0;
}

struct store_lock *lock_release(struct store_lock *l) {
        if (!l)
                return NULL;
        /* Leave the file: removing it would race with a waiter that has it open. */
        if (ftruncate(l->fd, 0) < 0) {
                /* Nothing to do: the next holder rewrites it. */
        }
        close(l->fd);
        g_free(l);
        return NULL;
}
