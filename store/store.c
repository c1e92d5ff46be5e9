/* store/store: the store context (see store.h). */
#include <errno.h>
#include <glib.h>
#include <sys/stat.h>

#include "store/store.h"

int store_prepare(const struct store_ctx *s, int create, struct kb_error *err) {
        struct stat st;

        if (stat(s->home, &st) == 0) {
                if (!S_ISDIR(st.st_mode))
                        return error_setf(err, -ENOTDIR, "store %s is not a directory", s->home);
                return 0;
        }
        if (errno != ENOENT)
                return error_setf(err, -errno, "store %s: %s", s->home, g_strerror(errno));
        if (!create)
                return error_setf(err, -ENOENT, "no kbench store at %s (kbench kernel add creates one; check "
                                  "--store and $KBENCH_HOME)", s->home);
        if (g_mkdir_with_parents(s->home, 0755) < 0)
                return error_setf(err, -errno, "store %s: cannot create it: %s", s->home, g_strerror(errno));
        return 1;
}

char *store_kernels_dir(const struct store_ctx *s) {
        return g_build_filename(s->home, "kernels", NULL);
}

char *store_cache_dir(const struct store_ctx *s) {
        return g_build_filename(s->home, "cache", NULL);
}
