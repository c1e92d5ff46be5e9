/* kernels/source_dir.c: the `dir` source (see source_dir.h). One pass reads
 * the directory and stats each candidate, one pause lets a writer show
 * itself, a second stat keeps only files whose size and mtime held still. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/util.h"
#include "kernels/deb.h"
#include "kernels/source_dir.h"

static const char *const partial_suffixes[] = { ".part", ".tmp", ".partial", ".crdownload", "~", ".swp" };

static int name_is_partial(const char *name) {
        if (name[0] == '.')
                return 1;
        for (size_t i = 0; i < ELEMENTSOF(partial_suffixes); i++)
                if (g_str_has_suffix(name, partial_suffixes[i]))
                        return 1;
        return 0;
}

/* Does the file start like something kstore_add imports: a Debian package,
 * a bzImage (boot protocol "HdrS" at 0x202) or an ELF executable? */
static int is_kernel_file(const char *path) {
        uint8_t head[0x208] = { 0 };
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        ssize_t n;

        if (fd < 0)
                return 0;
        n = read(fd, head, sizeof(head));
        if (n < 0)
                return 0;
        if (deb_sniff(head, (size_t)n))
                return 1;
        if (n >= 0x206 && memcmp(head + 0x202, "HdrS", 4) == 0)
                return 1;
        return n >= 18 && memcmp(head, "\177ELF", 4) == 0 && head[16] == 2 && head[17] == 0;   /* ET_EXEC */
}

static int64_t mtime_ns(const struct stat *st) {
        return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Already imported with this size and mtime? */
static int seen(struct source_state *state, const char *path, const struct stat *st) {
        g_autofree char *key = g_strconcat("dir:", path, NULL);
        json_t *o = state ? source_state_get(state, key) : NULL;

        return o && json_integer_value(json_object_get(o, "size")) == (json_int_t)st->st_size &&
               json_integer_value(json_object_get(o, "mtime_ns")) == (json_int_t)mtime_ns(st);
}

struct candidate {
        char *path;
        struct stat st;
};

static int candidate_cmp(const void *a, const void *b) {
        return strcmp(((const struct candidate *)a)->path, ((const struct candidate *)b)->path);
}

int source_dir_scan(const char *dir, struct source_state *state, const struct source_dir_opts *opts,
                    char ***ret_paths, size_t *ret_n, struct kb_error *err) {
        struct source_dir_opts o = opts ? *opts : (struct source_dir_opts)SOURCE_DIR_OPTS_DEFAULT;
        g_autoptr(GArray) cands = g_array_new(FALSE, FALSE, sizeof(struct candidate));
        g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *abs = g_canonicalize_filename(dir, NULL);
        struct timespec now;
        struct dirent *de;
        DIR *d;

        d = opendir(abs);
        if (!d)
                return error_setf(err, -errno, "%s: %s", dir, strerror(errno));
        clock_gettime(CLOCK_REALTIME, &now);
        while ((errno = 0, de = readdir(d))) {
                struct candidate c;
                double age;

                if (name_is_partial(de->d_name))
                        continue;
                c.path = g_build_filename(abs, de->d_name, NULL);
                if (stat(c.path, &c.st) < 0 || !S_ISREG(c.st.st_mode) || c.st.st_size == 0 ||
                    seen(state, c.path, &c.st)) {
                        g_free(c.path);
                        continue;
                }
                age = (double)(now.tv_sec - c.st.st_mtim.tv_sec) + (now.tv_nsec - c.st.st_mtim.tv_nsec) / 1e9;
                if (age < o.settle_s || !is_kernel_file(c.path)) {
                        g_free(c.path);
                        continue;
                }
                g_array_append_val(cands, c);
        }
        if (errno) {
                int e = errno;
                closedir(d);
                for (guint i = 0; i < cands->len; i++)
                        g_free(g_array_index(cands, struct candidate, i).path);
                return error_setf(err, -e, "%s: %s", dir, strerror(e));
        }
        closedir(d);

        if (cands->len && o.probe_ms)
                g_usleep((gulong)o.probe_ms * 1000);
        g_array_sort(cands, candidate_cmp);
        for (guint i = 0; i < cands->len; i++) {
                struct candidate *c = &g_array_index(cands, struct candidate, i);
                struct stat st;

                if (stat(c->path, &st) == 0 && st.st_size == c->st.st_size && mtime_ns(&st) == mtime_ns(&c->st))
                        g_ptr_array_add(out, TAKE_PTR(c->path));
                g_free(c->path);
        }
        *ret_n = out->len;
        g_ptr_array_add(out, NULL);
        *ret_paths = (char **)g_ptr_array_free(TAKE_PTR(out), FALSE);
        return 0;
}

int source_dir_mark(struct source_state *state, const char *path, struct kb_error *err) {
        g_autofree char *key = g_strconcat("dir:", path, NULL);
        struct stat st;

        if (stat(path, &st) < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        source_state_set(state, key, json_pack("{s:I, s:I}", "size", (json_int_t)st.st_size, "mtime_ns",
                                               (json_int_t)mtime_ns(&st)));
        return 0;
}
