/* kernels/treepatch.c: patching kbench's own copy of a kernel source in
 * place, and undoing it (see treepatch.h). */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "kernels/treepatch.h"

/* The text of a file kbench reads line by line (a patch, the manifest): a
 * NUL-terminated copy, and a NUL byte inside refused, since everything
 * after one would go unread here while patch(1) reads on. */
static int read_text(const char *path, size_t max, int nofollow, char **ret, struct kb_error *err) {
        g_autofree char *buf = NULL;
        size_t len = 0;
        int r = nofollow ? fileio_read_nofollow(path, max, &buf, &len, err)
                         : fileio_read(path, max, &buf, &len, NULL, err);

        if (r < 0)
                return r;
        if (memchr(buf, '\0', len))
                return error_setf(err, -EINVAL, "%s: a NUL byte: not a text file", path);
        *ret = g_strndup(buf, len);
        return 0;
}

/* The files a unified diff names, as patch -p1 reads them: each "--- " and
 * "+++ " line's path less its first component, /dev/null left out. The
 * patch is the user's file: a path that leaves the tree is refused.
 * Adds to files (a set). */
static int patch_files(const char *patch_path, GHashTable *files, struct kb_error *err) {
        g_autofree char *text = NULL;
        int r = read_text(patch_path, TREEPATCH_MAX, 0, &text, err);

        if (r < 0)
                return error_prefix(err, r, "--patch");
        for (char *line = text; line && *line;) {
                char *nl = strchr(line, '\n');

                if (nl)
                        *nl = '\0';
                if (strncmp(line, "--- ", 4) == 0 || strncmp(line, "+++ ", 4) == 0) {
                        char *path = line + 4, *slash;

                        path[strcspn(path, "\t")] = '\0';
                        slash = strchr(path, '/');
                        if (strcmp(path, "/dev/null") != 0 && slash && slash[1]) {
                                const char *rel = slash + 1;

                                if (rel[0] == '/' || strstr(rel, "..") || strchr(rel, '\n'))
                                        return error_setf(err, -EINVAL, "--patch %s: the path %.64s leaves the tree",
                                                          patch_path, rel);
                                g_hash_table_add(files, g_strdup(rel));
                        }
                }
                line = nl ? nl + 1 : NULL;
        }
        return 0;
}

/* What kbench keeps in a tree it patches: the manifest (the files the last
 * patch set touched, one a line) and the pristine copy of each of them
 * that existed before (a file a patch created has none). */
#define PATCHED_MANIFEST ".kbench-patched"
#define PATCHED_ORIG ".kbench-orig"

static int manifest_write(const char *dir, GHashTable *files, struct kb_error *err) {
        g_autofree char *path = g_build_filename(dir, PATCHED_MANIFEST, NULL);
        g_autoptr(GString) text = g_string_new(NULL);
        GHashTableIter it;
        gpointer key;

        g_hash_table_iter_init(&it, files);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_string_append_printf(text, "%s\n", (const char *)key);
        return fileio_write_atomic(path, text->str, text->len, 0644, err);
}

/* A copy of from at to, as a new file (its mtime now, so make recompiles
 * what used the file it replaces). */
static int copy_file(const char *from, const char *to, struct kb_error *err) {
        g_autofree char *data = NULL, *parent = g_path_get_dirname(to);
        size_t n = 0;
        int r;

        if (g_mkdir_with_parents(parent, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", parent, strerror(errno));
        r = fileio_read(from, 64u << 20, &data, &n, NULL, err);
        return r < 0 ? r : fileio_write_atomic(to, data, n, 0644, err);
}

int treepatch_restore(const char *dir, struct kb_error *err) {
        g_autofree char *path = g_build_filename(dir, PATCHED_MANIFEST, NULL);
        g_autofree char *text = NULL;
        int r;

        if (!g_file_test(path, G_FILE_TEST_EXISTS))
                return 0;
        r = read_text(path, 16u << 20, 1, &text, err);
        for (char *line = text, *nl; r >= 0 && line && *line; line = nl ? nl + 1 : NULL) {
                g_autofree char *orig = NULL, *to = NULL;

                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (!*line || line[0] == '/' || strstr(line, ".."))
                        continue;
                orig = g_build_filename(dir, PATCHED_ORIG, line, NULL);
                to = g_build_filename(dir, line, NULL);
                if (g_file_test(orig, G_FILE_TEST_IS_REGULAR))
                        r = copy_file(orig, to, err);
                else if (unlink(to) < 0 && errno != ENOENT)
                        r = error_setf(err, -errno, "%s: %s", to, strerror(errno));
        }
        return r < 0 ? error_prefix(err, r, "undoing the last patches in %s", dir) : 0;
}

int treepatch_apply(const char *dir, char *const *patches, treepatch_run_fn run, void *userdata,
                    struct kb_error *err) {
        g_autoptr(GHashTable) files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        GHashTableIter it;
        gpointer key;
        int r = treepatch_restore(dir, err);

        for (size_t i = 0; r >= 0 && patches && patches[i]; i++)
                r = patch_files(patches[i], files, err);
        g_hash_table_iter_init(&it, files);
        while (r >= 0 && g_hash_table_iter_next(&it, &key, NULL)) {
                g_autofree char *orig = g_build_filename(dir, PATCHED_ORIG, key, NULL);
                g_autofree char *cur = g_build_filename(dir, key, NULL);

                if (g_file_test(cur, G_FILE_TEST_IS_REGULAR) && !g_file_test(orig, G_FILE_TEST_EXISTS))
                        r = copy_file(cur, orig, err);
        }
        if (r >= 0)
                r = manifest_write(dir, files, err);
        for (size_t i = 0; r >= 0 && patches && patches[i]; i++) {
                g_autofree char *abs = g_canonicalize_filename(patches[i], NULL);
                char *patch[] = { "patch", "-p1", "--batch", "--forward", "-i", abs, NULL };
                g_autofree char *what = g_strdup_printf("patch %s", patches[i]);

                r = run(patch, dir, what, userdata, err);
        }
        return r;
}
