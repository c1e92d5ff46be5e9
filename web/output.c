/* web/output: compare-then-replace writes (see output.h). Comparing reads
 * the old file in one go: pages are a few hundred kilobytes at most, and a
 * size mismatch (the common case for a changed page) skips the read. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "web/output.h"

#define MANIFEST_HEADER "kbench site v1\n"
/* A manifest names every page of a store: 1 000 cells is about 50 KiB. */
#define MANIFEST_MAX (64u << 20)

/* A name the site may have written: no directory part, no hidden file (the
 * manifest and the temporary files are hidden), not empty. */
static int page_name_ok(const char *name) {
        return *name && !strchr(name, '/') && name[0] != '.' && strlen(name) < 256;
}

/* Why a manifest entry is not one kbench follows, or NULL when it is: a
 * name the site could have written, and if it exists, a regular file. */
static const char *manifest_entry_bad(const struct output *o, const char *name) {
        g_autofree char *path = NULL;
        struct stat st;

        if (!page_name_ok(name))
                return "not a page name";
        path = g_build_filename(o->dir, name, NULL);
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? NULL : "cannot be checked";
        if (S_ISDIR(st.st_mode))
                return "a directory";
        if (!S_ISREG(st.st_mode))
                return "not a regular file";
        return NULL;
}

static int manifest_write(struct output *o, GHashTable *names, struct kb_error *err);

/* Whether the manifest's bytes are kbench's: its header line, text
 * without a NUL, lines ended by '\n' alone. Each refusal says what is
 * wrong and how to get a site back. */
static int manifest_check(const struct output *o, const char *buf, size_t len, struct kb_error *err) {
        static const char *const redo = "remove it and publish with --force to take the site over again";
        const char *nul = memchr(buf, '\0', len), *cr = memchr(buf, '\r', len);

        if (nul)
                return error_setf(err, -EBADMSG, "%s: not a kbench site manifest: a NUL byte at byte %zu (kbench "
                                  "writes text); %s", o->manifest, (size_t)(nul - buf), redo);
        if (cr && cr + 1 < buf + len && cr[1] == '\n')
                return error_setf(err, -EBADMSG, "%s: not a kbench site manifest as kbench writes it: CRLF line ends "
                                  "(an editor's?); make them LF again (sed -i 's/\\r$//' FILE), or %s", o->manifest,
                                  redo);
        if (len < strlen(MANIFEST_HEADER) || memcmp(buf, MANIFEST_HEADER, strlen(MANIFEST_HEADER)) != 0)
                return error_setf(err, -EBADMSG, "%s: not a kbench site manifest (first line is not '%s'); %s",
                                  o->manifest, "kbench site v1", redo);
        return 0;
}

/* Read DIR/.kbench-site into o->owned. Returns 1 when the manifest exists,
 * 0 when it does not, -errno with err when it cannot be read or is not
 * kbench's (a symbolic link, a FIFO: anything but a regular file). */
static int manifest_load(struct output *o, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        g_auto(GStrv) lines = NULL;
        size_t len;
        int r;

        if (access(o->manifest, F_OK) < 0 && errno == ENOENT)
                return 0;
        /* The manifest says which files kbench may replace and remove: one
         * that is a link to a list elsewhere is no manifest of this site. */
        r = fileio_read_nofollow(o->manifest, MANIFEST_MAX, &buf, &len, err);
        if (r < 0)
                return error_prefix(err, r, "not a kbench site manifest");
        r = manifest_check(o, buf, len, err);
        if (r < 0)
                return r;
        {
                /* fileio_read's buffer holds len bytes, no terminator. */
                g_autofree char *text = g_strndup(buf + strlen(MANIFEST_HEADER), len - strlen(MANIFEST_HEADER));
                lines = g_strsplit(text, "\n", -1);
        }
        for (size_t i = 0; lines[i]; i++) {
                const char *why;

                if (!*lines[i])
                        continue;
                why = manifest_entry_bad(o, lines[i]);
                if (!why) {
                        g_hash_table_add(o->owned, g_strdup(lines[i]));
                        continue;
                }
                if (o->dropped++ == 0) {
                        g_autofree char *shown = g_strescape(lines[i], NULL);

                        snprintf(o->dropped_note, sizeof(o->dropped_note), "'" ERROR_VAL "' (%s)",
                                 ERROR_VALARG(shown), why);
                }
        }
        /* The entries kept are the manifest from now on: a bad one is never
         * read again, even if this publish stops before its end. */
        if (o->dropped) {
                r = manifest_write(o, o->owned, err);
                if (r < 0)
                        return r;
        }
        return 1;
}

/* Whether dir holds anything at all. Returns 1, 0, or -errno. */
static int dir_has_entries(const char *dir) {
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);

        if (!d)
                return -EACCES;
        return g_dir_read_name(d) != NULL;
}

/* Append one name to the manifest before the page it names appears, so a
 * publish killed between the two never leaves a page the next one would
 * not own. */
static int manifest_add(struct output *o, const char *name, struct kb_error *err) {
        _cleanup_close_ int fd = open(o->manifest, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        g_autofree char *line = g_strdup_printf("%s\n", name);
        size_t n = strlen(line);

        if (fd < 0 || write(fd, line, n) != (ssize_t)n)
                return error_setf(err, -errno, "%s: cannot record a page: %s", o->manifest, g_strerror(errno));
        g_hash_table_add(o->owned, g_strdup(name));
        return 0;
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Replace the manifest by one naming exactly the pages in names (a set). */
static int manifest_write(struct output *o, GHashTable *names, struct kb_error *err) {
        g_autoptr(GString) s = g_string_new(MANIFEST_HEADER);
        g_autoptr(GError) gerr = NULL;
        g_autofree const char **list = (const char **)g_hash_table_get_keys_as_array(names, NULL);
        guint n = g_hash_table_size(names);

        qsort(list, n, sizeof(*list), cmp_names);
        for (guint i = 0; i < n; i++)
                g_string_append_printf(s, "%s\n", list[i]);
        if (!g_file_set_contents(o->manifest, s->str, (gssize)s->len, &gerr))
                return error_setf(err, -EIO, "%s: cannot write the site manifest: %s", o->manifest, gerr->message);
        return 0;
}

int output_open(struct output *o, const char *dir, unsigned flags, struct kb_error *err) {
        struct stat st;
        int r, fresh = 0, lock_fd;

        if (!*dir)
                return error_setf(err, -EINVAL, "the site directory is an empty path");
        if (stat(dir, &st) < 0) {
                if (errno != ENOENT)
                        return error_setf(err, -errno, "%s: %s", dir, g_strerror(errno));
                if (g_mkdir_with_parents(dir, 0755) < 0)
                        return error_setf(err, -errno, "%s: cannot create the site directory: %s", dir,
                                          g_strerror(errno));
                fresh = 1;
        } else if (!S_ISDIR(st.st_mode)) {
                return error_setf(err, -ENOTDIR, "%s: not a directory", dir);
        }
        /* The directory itself is the lock: a lock file would be a file
         * written into a directory before it is known to be a site (one that
         * is refused must be left as it was). */
        lock_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lock_fd < 0)
                return error_setf(err, -errno, "%s: %s", dir, g_strerror(errno));
        while (flock(lock_fd, LOCK_EX) < 0)
                if (errno != EINTR) {
                        r = -errno;
                        close(lock_fd);
                        return error_setf(err, r, "%s: cannot lock the site directory: %s", dir, g_strerror(-r));
                }
        *o = (struct output){ .dir = g_strdup(dir), .force = !!(flags & OUTPUT_FORCE), .lock_fd = lock_fd,
                              .manifest = g_build_filename(dir, OUTPUT_MANIFEST, NULL),
                              .names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                              .owned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
        r = manifest_load(o, err);
        if (r > 0)
                return 0;
        /* Without a manifest the store's own site is one kbench wrote
         * before it kept one: its pages are kbench's, taken over once and
         * listed from then on. */
        if (r == 0 && (flags & OUTPUT_ADOPT))
                o->force = 1;
        if (r == 0 && !fresh && !o->force) {
                r = dir_has_entries(dir);
                if (r < 0)
                        r = error_setf(err, r, "%s: cannot list the site directory", dir);
                else if (r > 0)
                        r = error_setf(err, -EEXIST, "%s: not empty and not a kbench site (no %s); refusing to "
                                       "write into it (use an empty directory, or --force)", dir, OUTPUT_MANIFEST);
        }
        if (r == 0 && !g_file_set_contents(o->manifest, MANIFEST_HEADER, -1, NULL))
                r = error_setf(err, -errno, "%s: cannot create the site manifest: %s", o->manifest,
                               g_strerror(errno));
        if (r < 0)
                output_close(o);
        return r < 0 ? r : 0;
}

void output_close(struct output *o) {
        if (o->lock_fd >= 0)
                close(o->lock_fd);
        o->lock_fd = -1;
        g_free(o->dir);
        o->dir = NULL;
        g_free(o->manifest);
        o->manifest = NULL;
        if (o->names)
                g_hash_table_destroy(o->names);
        o->names = NULL;
        if (o->owned)
                g_hash_table_destroy(o->owned);
        o->owned = NULL;
}

int output_prune(struct output *o, struct kb_error *err) {
        GHashTableIter it;
        gpointer key;

        /* Only what the manifest says kbench wrote: a file someone else put
         * in the site, whatever its name, stays. */
        g_hash_table_iter_init(&it, o->owned);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                const char *name = key;
                g_autofree char *path = NULL;

                if (g_hash_table_contains(o->names, name))
                        continue;
                path = g_build_filename(o->dir, name, NULL);
                if (unlink(path) == 0)
                        o->removed++;
                else if (errno != ENOENT)
                        return error_setf(err, -errno, "%s: cannot remove a stale page: %s", path, g_strerror(errno));
        }
        return manifest_write(o, o->names, err);
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

int output_write(struct output *o, const char *name, const char *buf, size_t len, struct kb_error *err) {
        g_autofree char *path = NULL, *tmp = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (!page_name_ok(name))
                return error_setf(err, -EINVAL, "%s: bad page name '%s'", o->dir, name);
        path = g_build_filename(o->dir, name, NULL);
        if (!g_hash_table_contains(o->owned, name)) {
                struct stat st;

                if (lstat(path, &st) == 0 && !o->force)
                        return error_setf(err, -EEXIST, "%s: exists and kbench did not write it (not in %s); "
                                          "refusing to replace it (move it, or --force)", path, OUTPUT_MANIFEST);
                r = manifest_add(o, name, err);
                if (r < 0)
                        return r;
        }
        g_hash_table_add(o->names, g_strdup(name));
        if (same_bytes(path, buf, len)) {
                o->unchanged++;
                return 0;
        }
        tmp = g_strdup_printf("%s/.%s.XXXXXX", o->dir, name);
        fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0)
                return error_setf(err, -errno, "%s: cannot create a temporary file: %s", o->dir,
                                  g_strerror(errno));
        r = fileio_write_all(fd, buf, len);
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
