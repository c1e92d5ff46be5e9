/* kernels/source_state.c: the sources' memory between nights (see
 * source_state.h). The whole file is one JSON object of objects, small
 * enough to read and rewrite whole. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fileio.h"
#include "common/util.h"
#include "kernels/source_state.h"

struct source_state {
        char *path;
        json_t *root;              /* object of objects */
};

struct source_state *source_state_free(struct source_state *s) {
        if (!s)
                return NULL;
        json_decref(s->root);
        g_free(s->path);
        g_free(s);
        return NULL;
}

int source_state_open(const char *path, struct source_state **ret, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        json_t *root;
        json_error_t jerr;
        size_t len;
        struct source_state *s;
        int r;

        if (access(path, F_OK) < 0 && errno == ENOENT)
                root = json_object();
        else {
                r = fileio_read(path, SOURCE_STATE_MAX, &buf, &len, NULL, err);
                if (r < 0)
                        return r;
                root = json_loadb(buf, len, 0, &jerr);
                if (!root)
                        return error_setf(err, -EINVAL, "%s: line %d: %s", path, jerr.line, jerr.text);
                if (!json_is_object(root)) {
                        json_decref(root);
                        return error_setf(err, -EINVAL, "%s: not a JSON object", path);
                }
        }
        s = g_new0(struct source_state, 1);
        s->path = g_strdup(path);
        s->root = root;
        *ret = s;
        return 0;
}

json_t *source_state_get(struct source_state *s, const char *key) {
        json_t *v = json_object_get(s->root, key);
        return json_is_object(v) ? v : NULL;
}

void source_state_set(struct source_state *s, const char *key, json_t *value) {
        json_object_set_new(s->root, key, value);
}

int source_state_save(struct source_state *s, struct kb_error *err) {
        g_autofree char *dir = g_path_get_dirname(s->path);
        g_autofree char *tmp = g_strdup_printf("%s.tmp-%d", s->path, (int)getpid());
        _cleanup_free_ char *text = json_dumps(s->root, JSON_INDENT(1) | JSON_SORT_KEYS);
        _cleanup_close_ int fd = -1;
        size_t len, off = 0;
        int r;

        if (!text)
                return error_setf(err, -ENOMEM, "%s: cannot serialise the state", s->path);
        if (g_mkdir_with_parents(dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", dir, strerror(errno));
        r = fileio_create(tmp, O_WRONLY | O_TRUNC, 0644, &fd, err);
        if (r < 0)
                return r;
        len = strlen(text);
        while (off < len) {
                ssize_t n = write(fd, text + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int e = errno;
                        unlink(tmp);
                        return error_setf(err, -e, "%s: %s", tmp, strerror(e));
                }
                off += (size_t)n;
        }
        if (fsync(fd) < 0 || rename(tmp, s->path) < 0) {
                int e = errno;
                unlink(tmp);
                return error_setf(err, -e, "%s: %s", s->path, strerror(e));
        }
        return 0;
}
