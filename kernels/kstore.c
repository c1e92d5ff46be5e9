/* kernels/kstore.c: the content-addressed kernel store (layout in kstore.h).
 * Every import is assembled in <root>/.tmp-add-* on the same filesystem
 * (flock'ed while its import lives, so the next import removes the ones a
 * killed kbench left) and renamed into <root>/<sha256> in one step; names
 * are symlinks created with symlink(2), whose EEXIST makes name uniqueness
 * race-free. Metadata lives in kernel.json so listing the store never
 * re-inspects an image. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/nearest.h"
#include "common/util.h"
#include "kernels/deb.h"
#include "kernels/kimage.h"
#include "kernels/kstore.h"

#define ID_LEN 64                  /* sha256 hex digits */
#define NAME_MAX_LEN KSTORE_NAME_MAX
#define KNOWN_NAMES_MAX 8          /* names a "no kernel" error lists */
#define STAGING_PREFIX ".tmp-add-"
#define STAGING_GRACE_S 60         /* a staging directory younger than this is never reaped */
#define META_MAX (1u << 20)        /* bytes of a kernel.json; kbench writes about 1 KiB */

struct kstore {
        char *root;
        const struct kb_sink *events;      /* kstore_set_events */
};

static void kstore_kernel_freep(struct kstore_kernel **k) { kstore_kernel_free(*k); }

struct kstore_kernel *kstore_kernel_free(struct kstore_kernel *k) {
        if (!k)
                return NULL;
        g_free(k->id);
        g_free(k->name);
        g_free(k->release);
        g_free(k->image_path);
        g_free(k->vmlinux_path);
        g_free(k->modules_dir);
        g_free(k->config_path);
        g_free(k->build_path);
        g_free(k->source);
        g_free(k->dir);
        g_free(k->version);
        g_free(k->system_map_path);
        g_free(k);
        return NULL;
}

void kstore_kernel_list_free(struct kstore_kernel **v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                kstore_kernel_free(v[i]);
        g_free(v);
}

struct kstore *kstore_free(struct kstore *s) {
        if (!s)
                return NULL;
        g_free(s->root);
        g_free(s);
        return NULL;
}

void kstore_set_events(struct kstore *s, const struct kb_sink *events) {
        s->events = events;
}

/* One line of an import's progress for whoever watches it. */
#define progress(s, ...) kb_progress((s)->events, KB_ORIGIN_KERNEL, __VA_ARGS__)

static int valid_id(const char *s) {
        size_t n = strspn(s, "0123456789abcdef");
        return n == ID_LEN && s[n] == 0;
}

/* Names become file names under names/: no separators, no leading dot or
 * dash, only the characters kernel releases and simple labels use. */
static int valid_name(const char *s);

int kstore_name_valid(const char *s) {
        return valid_name(s);
}

/* What kstore_find reads as an id prefix rather than a name. */
static int looks_like_id(const char *s) {
        size_t n = strlen(s);

        return n >= KSTORE_ID_PREFIX_MIN && n <= ID_LEN && strspn(s, "0123456789abcdef") == n;
}

int kstore_name_new_valid(const char *s) {
        return valid_name(s) && !looks_like_id(s);
}

static int valid_name(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > NAME_MAX_LEN || s[0] == '.' || s[0] == '-')
                return 0;
        return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_~") == n;
}

int kstore_open(const char *root, struct kstore **ret, struct kb_error *err) {
        g_autofree char *names = g_build_filename(root, "names", NULL);
        struct kstore *s;

        if (g_mkdir_with_parents(names, 0755) < 0)
                return error_setf(err, -errno, "kernel store %s: %s", names, strerror(errno));
        s = g_new0(struct kstore, 1);
        s->root = g_canonicalize_filename(root, NULL);
        *ret = s;
        return 0;
}

int kstore_open_existing(const char *root, struct kstore **ret, struct kb_error *err) {
        struct kstore *s;

        (void)err;
        s = g_new0(struct kstore, 1);
        s->root = g_canonicalize_filename(root, NULL);
        *ret = s;
        return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* rm -rf; never follows symlinks (FTW_PHYS). */
static int rm_rf(const char *path) {
        if (nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}


/* id of the kernel a names/ link points at, or NULL (g_free). */
static char *name_target(struct kstore *s, const char *name) {
        g_autofree char *link = g_build_filename(s->root, "names", name, NULL);
        g_autofree char *target = g_file_read_link(link, NULL);
        const char *base;

        if (!target)
                return NULL;
        base = strrchr(target, '/');
        base = base ? base + 1 : target;
        return valid_id(base) ? g_strdup(base) : NULL;
}

static char *dup_or_null(const char *s) { return s ? g_strdup(s) : NULL; }

/* Absolute path of a kernel.json file member, or NULL. */
static char *member_path(const char *dir, json_t *o, const char *key) {
        const char *v = json_string_value(json_object_get(o, key));

        if (!v || !*v || v[0] == '/' || strstr(v, ".."))
                return NULL;
        return g_build_filename(dir, v, NULL);
}

/* A kernel.json: the store's file, but read as any file is (fileio_read):
 * one someone replaced with a FIFO must not hang kernel list. OUT: *ret
 * (a JSON object; json_decref). */
static int meta_load(const char *path, json_t **ret, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        json_error_t jerr;
        json_t *o;
        int r = fileio_read(path, META_MAX, &buf, &len, NULL, err);

        if (r < 0)
                return -EBADMSG;        /* a damaged kernel, as one whose JSON does not parse */
        o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(o)) {
                json_decref(o);
                return error_setf(err, -EBADMSG, "%s: %s", path, o ? "not a JSON object" : jerr.text);
        }
        *ret = o;
        return 0;
}

static int kstore_load(struct kstore *s, const char *id, const char *name, struct kstore_kernel **ret,
                       struct kb_error *err) {
        _cleanup_(kstore_kernel_freep) struct kstore_kernel *k = g_new0(struct kstore_kernel, 1);
        g_autofree char *meta = NULL;
        json_auto_t *o = NULL;
        int r;

        k->dir = g_build_filename(s->root, id, NULL);
        meta = g_build_filename(k->dir, "kernel.json", NULL);
        r = meta_load(meta, &o, err);
        if (r < 0)
                return r;
        k->id = g_strdup(id);
        k->name = g_strdup(name);
        k->release = dup_or_null(json_string_value(json_object_get(o, "release")));
        k->version = dup_or_null(json_string_value(json_object_get(o, "version")));
        k->source = dup_or_null(json_string_value(json_object_get(o, "source")));
        k->image_path = member_path(k->dir, o, "image");
        k->vmlinux_path = member_path(k->dir, o, "vmlinux");
        k->config_path = member_path(k->dir, o, "config");
        k->system_map_path = member_path(k->dir, o, "system_map");
        k->modules_dir = member_path(k->dir, o, "modules_dir");
        k->build_path = member_path(k->dir, o, "build");
        k->added_at = json_number_value(json_object_get(o, "added_at"));
        k->n_modules = (int)json_integer_value(json_object_get(o, "n_modules"));
        k->pvh = json_is_true(json_object_get(o, "pvh"));
        if (!k->image_path)
                return error_setf(err, -EBADMSG, "%s: no image recorded", meta);
        *ret = TAKE_PTR(k);
        return 0;
}

/* First name (sorted) pointing at id, or NULL. */
static char *first_name_of(struct kstore *s, const char *id) {
        g_autofree char *names = g_build_filename(s->root, "names", NULL);
        DIR *d = opendir(names);
        struct dirent *de;
        char *best = NULL;

        while (d && (de = readdir(d))) {
                g_autofree char *t = NULL;
                if (de->d_name[0] == '.')
                        continue;
                t = name_target(s, de->d_name);
                if (t && strcmp(t, id) == 0 && (!best || strcmp(de->d_name, best) < 0)) {
                        g_free(best);
                        best = g_strdup(de->d_name);
                }
        }
        if (d)
                closedir(d);
        return best;
}

static gint cmp_str(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Comma-separated list of known names for "not found" messages. */
static char *known_names(struct kstore *s, const char *want) {
        g_autofree char *names = g_build_filename(s->root, "names", NULL);
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func(g_free);
        DIR *d = opendir(names);
        struct dirent *de;
        GString *out = g_string_new(NULL);
        size_t near;

        while (d && (de = readdir(d)))
                if (de->d_name[0] != '.')
                        g_ptr_array_add(v, g_strdup(de->d_name));
        if (d)
                closedir(d);
        g_ptr_array_sort(v, cmp_str);
        near = nearest_sort(want, (const char **)v->pdata, v->len);
        /* The nearest names first, or a few names, each cut: a store of
         * hundreds must not make a screenful of one error line. */
        if (near)
                g_string_append(out, "did you mean ");
        for (guint i = 0; i < v->len && i < (near ? MIN(near, 3) : KNOWN_NAMES_MAX); i++)
                g_string_append_printf(out, "%s%.64s", i ? (near ? " or " : ", ") : "", *(char **)&v->pdata[i]);
        if (near)
                g_string_append_printf(out, "? %u in all: kbench kernel list", v->len);
        else if (v->len > KNOWN_NAMES_MAX)
                g_string_append_printf(out, ", ... (%u in all: kbench kernel list)", v->len);
        if (v->len == 0)
                g_string_append(out, "none; add one with 'kbench kernel add'");
        return g_string_free(out, FALSE);
}

/* The one stored id starting with prefix. OUT: *ret_id (g_free), NULL
 * when none; -EINVAL when several. */
static int id_by_prefix(struct kstore *s, const char *prefix, char **ret_id, struct kb_error *err) {
        DIR *d = opendir(s->root);
        struct dirent *de;
        size_t n = strlen(prefix);
        int matches = 0;

        *ret_id = NULL;
        while (d && (de = readdir(d)))
                if (valid_id(de->d_name) && strncmp(de->d_name, prefix, n) == 0 && matches++ == 0)
                        *ret_id = g_strdup(de->d_name);
        if (d)
                closedir(d);
        if (matches > 1) {
                g_clear_pointer(ret_id, g_free);
                return error_setf(err, -EINVAL, "kernel id prefix '%s' is ambiguous (%d kernels)", prefix, matches);
        }
        return 0;
}

int kstore_find(struct kstore *s, const char *name_or_id, struct kstore_kernel **ret, struct kb_error *err) {
        g_autofree char *id = NULL, *name = NULL, *by_prefix = NULL;
        int r;

        if (looks_like_id(name_or_id)) {
                r = id_by_prefix(s, name_or_id, &by_prefix, err);
                if (r < 0)
                        return r;
        }
        if (valid_name(name_or_id) && (id = name_target(s, name_or_id))) {
                /* A name from before names were kept apart from ids that is
                 * also another kernel's id prefix: say so, never guess. */
                if (by_prefix && strcmp(by_prefix, id) != 0)
                        return error_setf(err, -EINVAL, "'%s' is the name of kernel %.12s and the id prefix of "
                                          "kernel %.12s: give more of the id", name_or_id, id, by_prefix);
                name = g_strdup(name_or_id);
        } else if (by_prefix) {
                id = TAKE_PTR(by_prefix);
                name = first_name_of(s, id);
        }
        if (!id) {
                g_autofree char *known = known_names(s, name_or_id);
                return error_setf(err, -ENOENT, "no kernel '%.128s' in the store (%s%s)", name_or_id,
                                  g_str_has_prefix(known, "did you") ? "" : "known: ", known);
        }
        return kstore_load(s, id, name ? name : id, ret, err);
}

static void kernel_free_notify(gpointer k) {
        kstore_kernel_free(k);
}

static int cmp_kernel(const void *a, const void *b) {
        return strcmp((*(struct kstore_kernel *const *)a)->name, (*(struct kstore_kernel *const *)b)->name);
}

static void damaged_clear(struct kstore_damaged *d) {
        g_free(d->name);
        g_free(d->id);
        g_free(d->why);
}

void kstore_damaged_free(struct kstore_damaged *v, size_t n) {
        for (size_t i = 0; v && i < n; i++)
                damaged_clear(&v[i]);
        g_free(v);
}

/* Load the kernel names/<name> points at; when it cannot be, say why.
 * OUT: *ret_k, or *ret_id (the id it points at, NULL if none; g_free) and
 * *ret_why (g_free). Returns 1 loaded, 0 damaged. */
static int load_name(struct kstore *s, const char *name, struct kstore_kernel **ret_k, char **ret_id,
                     char **ret_why) {
        g_autofree char *link = g_build_filename(s->root, "names", name, NULL);
        g_autofree char *target = NULL, *id = name_target(s, name), *dir = NULL;
        struct kb_error err = { "" };
        struct stat st;

        *ret_id = NULL;
        if (lstat(link, &st) == 0 && !S_ISLNK(st.st_mode)) {
                *ret_why = g_strdup("not a link to a kernel");
                return 0;
        }
        if (!id) {
                target = g_file_read_link(link, NULL);
                *ret_why = g_strdup_printf("points at '%.64s', not a kernel", target ? target : "?");
                return 0;
        }
        dir = g_build_filename(s->root, id, NULL);
        if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
                *ret_why = g_strdup_printf("its image %.12s is not in the store", id);
                *ret_id = TAKE_PTR(id);
                return 0;
        }
        if (kstore_load(s, id, name, ret_k, &err) < 0) {
                const char *m = strstr(err.msg, "kernel.json: ");

                *ret_why = g_strdup_printf("kernel.json of %.12s: %s", id, m ? m + strlen("kernel.json: ") : err.msg);
                *ret_id = TAKE_PTR(id);
                return 0;
        }
        return 1;
}

int kstore_list_all(struct kstore *s, struct kstore_kernel ***ret, size_t *ret_n, struct kstore_damaged **ret_damaged,
                    size_t *ret_nd, struct kb_error *err) {
        g_autofree char *names = g_build_filename(s->root, "names", NULL);
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func(kernel_free_notify);
        g_autoptr(GArray) bad = g_array_new(FALSE, TRUE, sizeof(struct kstore_damaged));
        DIR *d = opendir(names);
        struct dirent *de;
        size_t n;

        if (!d && errno != ENOENT)
                return error_setf(err, -errno, "%s: %s", names, strerror(errno));
        /* Without names/, a store that has never held a kernel (opened with
         * kstore_open_existing): nothing to list. */
        while (d && (de = readdir(d))) {
                struct kstore_damaged dm = { 0 };
                struct kstore_kernel *k = NULL;

                if (de->d_name[0] == '.' || !valid_name(de->d_name))
                        continue;        /* not a name kbench could have made */
                if (load_name(s, de->d_name, &k, &dm.id, &dm.why)) {
                        g_ptr_array_add(v, k);
                        continue;
                }
                dm.name = g_strdup(de->d_name);
                g_array_append_val(bad, dm);
        }
        if (d)
                closedir(d);
        n = v->len;
        g_ptr_array_sort(v, cmp_kernel);
        g_ptr_array_set_free_func(v, NULL);
        *ret = (struct kstore_kernel **)g_ptr_array_free(g_steal_pointer(&v), FALSE);
        *ret_n = n;
        if (ret_damaged) {
                *ret_nd = bad->len;
                *ret_damaged = (struct kstore_damaged *)(void *)g_array_free(g_steal_pointer(&bad), FALSE);
        } else {
                for (guint i = 0; i < bad->len; i++)
                        damaged_clear(&g_array_index(bad, struct kstore_damaged, i));
        }
        return 0;
}

int kstore_unnamed(struct kstore *s, char ***ret, struct kb_error *err) {
        g_autofree char *names = g_build_filename(s->root, "names", NULL);
        g_autoptr(GHashTable) named = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
        DIR *d = opendir(names);
        struct dirent *de;

        /* Every id a name points at, then every image directory that is
         * none of them: one pass over each directory. */
        while (d && (de = readdir(d))) {
                char *id = de->d_name[0] == '.' ? NULL : name_target(s, de->d_name);

                if (id)
                        g_hash_table_add(named, id);
        }
        if (d)
                closedir(d);
        d = opendir(s->root);
        if (!d)
                return error_setf(err, -errno, "%s: %s", s->root, strerror(errno));
        while ((de = readdir(d))) {
                g_autofree char *dir = NULL;

                if (!valid_id(de->d_name) || g_hash_table_contains(named, de->d_name))
                        continue;
                dir = g_build_filename(s->root, de->d_name, NULL);
                if (g_file_test(dir, G_FILE_TEST_IS_DIR))
                        g_ptr_array_add(out, g_strdup(de->d_name));
        }
        closedir(d);
        g_ptr_array_sort(out, cmp_str);
        g_ptr_array_add(out, NULL);
        *ret = (char **)g_ptr_array_free(g_steal_pointer(&out), FALSE);
        return 0;
}

int kstore_list(struct kstore *s, struct kstore_kernel ***ret, size_t *ret_n, struct kb_error *err) {
        return kstore_list_all(s, ret, ret_n, NULL, NULL, err);
}

int kstore_remove(struct kstore *s, const char *name, char **ret_gone_id, struct kb_error *err) {
        g_autofree char *link = g_build_filename(s->root, "names", name, NULL);
        g_autofree char *id = valid_name(name) ? name_target(s, name) : NULL;
        g_autofree char *other = NULL, *dir = NULL, *grave = NULL;
        struct stat st;

        if (ret_gone_id)
                *ret_gone_id = NULL;
        /* A damaged entry (kernel list shows it) goes as a sound one does:
         * a dangling link, a link to no id, a file that is not a link. */
        if (!valid_name(name) || lstat(link, &st) < 0) {
                g_autofree char *known = known_names(s, name);
                return error_setf(err, -ENOENT, "no kernel named '%.128s' in the store (%s%s)", name,
                                  g_str_has_prefix(known, "did you") ? "" : "known: ", known);
        }
        if (S_ISDIR(st.st_mode) ? rmdir(link) < 0 : unlink(link) < 0)
                return error_setf(err, -errno, "%s: %s", link, strerror(errno));
        if (!id)
                return 0;
        other = first_name_of(s, id);
        if (other)
                return 0;        /* the image stays for its other names */
        dir = g_build_filename(s->root, id, NULL);
        grave = g_strdup_printf("%s/.tmp-rm-%s", s->root, id);
        /* Rename first so a half-removed tree is never visible as a kernel. */
        if (rename(dir, grave) < 0 && errno != ENOENT)
                return error_setf(err, -errno, "%s: %s", dir, strerror(errno));
        if (rm_rf(grave) < 0)
                return error_setf(err, -errno, "%s: %s", grave, strerror(errno));
        if (ret_gone_id)
                *ret_gone_id = TAKE_PTR(id);
        return 0;
}

/* A file given by name (a --config, a patch, a tarball) may be a FIFO or
 * /dev/zero: fileio_open_regular refuses those without waiting. */
static int sha256_file(const char *path, char **ret, struct kb_error *err) {
        g_autoptr(GChecksum) ck = g_checksum_new(G_CHECKSUM_SHA256);
        _cleanup_close_ int fd = -1;
        uint8_t buf[1 << 16];
        ssize_t n;
        int r = fileio_open_regular(path, &fd, err);

        if (r < 0)
                return r;
        while ((n = read(fd, buf, sizeof(buf))) != 0) {
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return error_setf(err, -errno, "%s: %s", path, strerror(errno));
                }
                g_checksum_update(ck, buf, (gsize)n);
        }
        *ret = g_strdup(g_checksum_get_string(ck));
        return 0;
}

/* Copy what is left to read of in (the file src) to the new file dst. */
static int copy_fd(int in, const char *src, const char *dst, struct kb_error *err) {
        _cleanup_close_ int out = -1;
        uint8_t buf[1 << 16];
        ssize_t n;

        out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (out < 0)
                return error_setf(err, -errno, "%s: %s", dst, strerror(errno));
        while ((n = read(in, buf, sizeof(buf))) != 0) {
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return error_setf(err, -errno, "%s: %s", src, strerror(errno));
                }
                for (ssize_t o = 0; o < n;) {
                        ssize_t w = write(out, buf + o, (size_t)(n - o));
                        if (w < 0 && errno != EINTR)
                                return error_setf(err, -errno, "%s: %s", dst, strerror(errno));
                        o += w > 0 ? w : 0;
                }
        }
        return 0;
}

static int copy_file(const char *src, const char *dst, struct kb_error *err) {
        _cleanup_close_ int in = -1;
        int r = fileio_open_regular(src, &in, err);

        return r < 0 ? r : copy_fd(in, src, dst, err);
}

static int write_file(const char *path, const void *data, size_t size, struct kb_error *err) {
        GError *gerr = NULL;

        if (!g_file_set_contents(path, data, (gssize)size, &gerr)) {
                int r = error_setf(err, -EIO, "%s", gerr->message);
                g_error_free(gerr);
                return r;
        }
        return 0;
}

/* Does <root>/<id> exist already? */
static int have_id(struct kstore *s, const char *id) {
        g_autofree char *dir = g_build_filename(s->root, id, NULL);
        return g_file_test(dir, G_FILE_TEST_IS_DIR);
}

/* One import in progress: what kstore_add's steps share. */
struct add_ctx {
        struct kstore *s;
        char *id;                  /* sha256 of the image, once known (owned) */
        const char *path;          /* the file the user gave */
        const char *name;          /* --name, or NULL */
        int fd;                    /* the file the user gave, open (owned; -1 once closed) */
        int staging_fd;            /* the staging directory, flock'ed while the import lives (owned) */
        int is_deb;
        char *source;              /* path, canonical (owned) */
        char *staging;             /* <root>/.tmp-add-XXXXXX, removed unless renamed (owned) */
        char *image;               /* <staging>/image (owned) */
        struct deb_result *deb;    /* a .deb's files, else NULL (owned) */
        struct kimage_info *info;  /* the inspected image (owned) */
        char *rel;                 /* the kernel release, or NULL (owned) */
        json_t *meta;              /* kernel.json being written (owned) */
};

static void add_ctx_done(struct add_ctx *c) {
        if (c->staging)
                rm_rf(c->staging);
        if (c->fd >= 0)
                close(c->fd);
        if (c->staging_fd >= 0)
                close(c->staging_fd);
        g_free(c->staging);
        g_free(c->id);
        g_free(c->source);
        g_free(c->image);
        g_free(c->rel);
        deb_result_free(c->deb);
        kimage_info_free(c->info);
        json_decref(c->meta);
}

static int on_deb_image(const char *image_path, void *userdata, struct kb_error *err) {
        struct add_ctx *c = userdata;
        int r = sha256_file(image_path, &c->id, err);

        if (r < 0)
                return r;
        return have_id(c->s, c->id) ? 1 : 0;        /* known image: skip the modules */
}

/* Point names/<name> at id. 0 if done or already so; -EEXIST if taken. */
static int link_name(struct kstore *s, const char *name, const char *id, struct kb_error *err) {
        g_autofree char *link = g_build_filename(s->root, "names", name, NULL);
        g_autofree char *target = g_strdup_printf("../%s", id);
        g_autofree char *cur = NULL;

        if (symlink(target, link) == 0)
                return 0;
        if (errno != EEXIST)
                return error_setf(err, -errno, "%s: %s", link, strerror(errno));
        cur = name_target(s, name);
        if (cur && strcmp(cur, id) == 0)
                return 0;
        return error_setf(err, -EEXIST, "kernel name '%s' is already taken by %.12s (choose another with --name)",
                          name, cur ? cur : "a damaged entry");
}

/* Move staging/boot/<base> to staging/<dst>, returning the relative name. */
static int adopt(const char *staging, const char *src, const char *dst, json_t *meta, const char *key,
                 struct kb_error *err) {
        g_autofree char *to = g_build_filename(staging, dst, NULL);

        if (!src) {
                json_object_set_new(meta, key, json_null());
                return 0;
        }
        if (rename(src, to) < 0)
                return error_setf(err, -errno, "%s: %s", to, strerror(errno));
        json_object_set_new(meta, key, json_string(dst));
        return 0;
}

/* Open the file the user gave (a regular file only) and tell a .deb from
 * an image by its first bytes, before anything is copied: a file that is
 * neither, or an image larger than any kernel, is refused here, not after
 * gigabytes were written into the store. */
static int add_sniff(struct add_ctx *c, struct kb_error *err) {
        uint8_t head[KIMAGE_SNIFF_BYTES] = { 0 };
        struct stat st;
        ssize_t hn;
        int r;

        r = fileio_open_regular(c->path, &c->fd, err);
        if (r < 0)
                return r;
        if (fstat(c->fd, &st) < 0)
                return error_setf(err, -errno, "%s: %s", c->path, strerror(errno));
        hn = pread(c->fd, head, sizeof(head), 0);
        if (hn < 0)
                return error_setf(err, -errno, "%s: %s", c->path, strerror(errno));
        c->is_deb = deb_sniff(head, (size_t)hn);
        if (!c->is_deb && !kimage_sniff(head, (size_t)hn))
                return error_setf(err, -EINVAL, "%s: not a kernel image (not a Debian package, no bzImage setup "
                                  "header, not an ELF vmlinux)", c->path);
        if (!c->is_deb && (uint64_t)st.st_size > KIMAGE_MAX_VMLINUX)
                return error_setf(err, -EFBIG, "%s: %llu MiB, larger than any kernel image (%zu MiB at most)",
                                  c->path, (unsigned long long)st.st_size >> 20, KIMAGE_MAX_VMLINUX >> 20);
        c->source = g_canonicalize_filename(c->path, NULL);
        return 0;
}

/* The staging directory name of s opened and flock'ed when it is stale:
 * no live import holds its flock, and it is not the first moment of one
 * (an import flocks its directory right after mkdtemp, before it writes
 * anything: an empty directory younger than the grace may be that
 * moment). Returns the fd, or -1 when it is not stale or not there. */
static int staging_take(struct kstore *s, const char *name, time_t now) {
        g_autofree char *path = NULL;
        _cleanup_close_ int fd = -1;
        g_autoptr(GDir) d = NULL;
        struct stat st;

        if (strncmp(name, STAGING_PREFIX, strlen(STAGING_PREFIX)) != 0 || strchr(name, '/'))
                return -1;
        path = g_build_filename(s->root, name, NULL);
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
                return -1;
        d = g_dir_open(path, 0, NULL);
        if (now - st.st_mtime < STAGING_GRACE_S && d && !g_dir_read_name(d))
                return -1;
        return TAKE_FD(fd);
}

int kstore_staging_stale(struct kstore *s, char ***ret, struct kb_error *err) {
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        DIR *d = opendir(s->root);
        struct dirent *de;
        time_t now = time(NULL);

        if (!d) {
                if (errno == ENOENT) {
                        *ret = NULL;
                        return 0;
                }
                return error_setf(err, -errno, "%s: %s", s->root, strerror(errno));
        }
        while ((de = readdir(d))) {
                int fd = staging_take(s, de->d_name, now);

                if (fd >= 0) {
                        close(fd);
                        g_ptr_array_add(names, g_strdup(de->d_name));
                }
        }
        closedir(d);
        g_ptr_array_sort(names, cmp_str);
        if (names->len)
                g_ptr_array_add(names, NULL);
        *ret = names->len ? (char **)g_ptr_array_free(g_steal_pointer(&names), FALSE) : NULL;
        return 0;
}

int kstore_staging_remove(struct kstore *s, const char *name, struct kb_error *err) {
        g_autofree char *path = g_build_filename(s->root, name, NULL);
        _cleanup_close_ int fd = staging_take(s, name, time(NULL));
        int r;

        if (fd < 0)
                return error_setf(err, -EBUSY, "%s: not a staging directory left by a killed import (an import "
                                  "holds it, or it is gone)", path);
        /* Removed while its flock is held: no import can take it meanwhile. */
        r = rm_rf(path);
        if (r < 0)
                return error_setf(err, r, "%s: %s", path, strerror(-r));
        return 0;
}

/* Remove the staging directories of imports whose process is gone (a
 * killed kernel add), before an import makes its own. */
static void reap_staging(struct kstore *s) {
        g_auto(GStrv) stale = NULL;
        struct kb_error err = { { 0 } };

        if (kstore_staging_stale(s, &stale, &err) < 0)
                return;
        for (size_t i = 0; stale && stale[i]; i++)
                if (kstore_staging_remove(s, stale[i], &err) == 0)
                        progress(s, "removed %s, left by an import that was killed", stale[i]);
}

/* A staging directory inside the store, so the final rename is atomic. */
static int add_stage(struct add_ctx *c, struct kb_error *err) {
        reap_staging(c->s);
        c->staging = g_build_filename(c->s->root, STAGING_PREFIX "XXXXXX", NULL);
        if (!g_mkdtemp(c->staging)) {
                int r = -errno;

                g_clear_pointer(&c->staging, g_free);
                return error_setf(err, r, "%s: cannot create a staging directory: %s", c->s->root, strerror(-r));
        }
        c->staging_fd = open(c->staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (c->staging_fd < 0 || flock(c->staging_fd, LOCK_EX | LOCK_NB) < 0)
                return error_setf(err, -errno, "%s: %s", c->staging, strerror(errno));
        c->image = g_build_filename(c->staging, "image", NULL);
        return 0;
}

/* Put the image at c->image and learn its id: a .deb is unpacked (only up
 * to the image when that is known already), anything else copied.
 * OUT: *ret_existed, 1 when the store has the image. */
static int add_unpack(struct add_ctx *c, int *ret_existed, struct kb_error *err) {
        int r;

        if (c->is_deb) {
                g_autofree char *boot = g_build_filename(c->staging, "boot", NULL);
                g_autofree char *mods = g_build_filename(c->staging, "modules", NULL);
                struct deb_options opts = { .on_image = on_deb_image, .userdata = c, .events = c->s->events };

                r = deb_extract(c->path, boot, mods, &opts, &c->deb, err);
                if (r < 0)
                        return r;
                if (rename(c->deb->image_path, c->image) < 0)
                        return error_setf(err, -errno, "%s: %s", c->image, strerror(errno));
                *ret_existed = c->deb->stopped;
                return 0;
        }
        /* From the file sniffed, not its name again. */
        r = copy_fd(c->fd, c->path, c->image, err);
        if (r >= 0)
                r = sha256_file(c->image, &c->id, err);
        if (r < 0)
                return r;
        *ret_existed = have_id(c->s, c->id);
        return 0;
}

/* The image is in the store already: give it the new name, if any, and
 * load it. */
static int add_existing(struct add_ctx *c, struct kstore_kernel **ret, struct kb_error *err) {
        g_autofree char *before = first_name_of(c->s, c->id);
        g_autofree char *had = c->name ? name_target(c->s, c->name) : NULL;
        const char *nm = c->name ? c->name : before;
        int r;

        if (c->name) {
                r = link_name(c->s, c->name, c->id, err);
                if (r < 0)
                        return r;
        }
        /* Say what the store held, and the name this import made. */
        if (c->name && !had && before)
                progress(c->s, "already in the store as %s (%.12s); named it %s too", before, c->id, c->name);
        else if (c->name && !had)
                progress(c->s, "already in the store without a name (%.12s); named it %s", c->id, c->name);
        else
                progress(c->s, "already in the store as %s (%.12s)", nm ? nm : c->id, c->id);
        return kstore_load(c->s, c->id, nm ? nm : c->id, ret, err);
}

/* Inspect the image and settle its release (the image's own, else the
 * .deb's), which names the kernel unless --name does. */
static int add_inspect(struct add_ctx *c, struct kb_error *err) {
        struct kb_error ierr = { "" };
        size_t il = strlen(c->image);
        int r;

        progress(c->s, "inspecting the kernel image");
        r = kimage_inspect(c->image, &c->info, &ierr);
        if (r < 0) {
                /* name the file the user gave, not our staging copy */
                const char *m = strncmp(ierr.msg, c->image, il) == 0 && ierr.msg[il] == ':' ? ierr.msg + il + 2
                                                                                           : ierr.msg;
                return error_setf(err, r, "%s: %s", c->path, m);
        }
        /* QEMU's -kernel boots an ELF through its PVH entry only; without
         * one the image would be stored and fail at every boot. */
        if (c->info->is_elf && !c->info->pvh)
                return error_setf(err, -EINVAL, "%s: an ELF vmlinux without a PVH note (XEN_ELFNOTE_PHYS32_ENTRY, "
                                  "CONFIG_PVH): QEMU cannot boot it; give its bzImage (arch/x86/boot/bzImage), or "
                                  "build it with CONFIG_PVH=y", c->path);
        c->rel = g_strdup(c->info->release ? c->info->release : c->deb ? c->deb->release : NULL);
        if (!c->name && !c->rel)
                return error_setf(err, -EINVAL, "%s: cannot tell the kernel release; give --name", c->path);
        if (!c->name && !kstore_name_new_valid(c->rel))
                return error_setf(err, -EINVAL, "%s: its release '%.64s' would read as a kernel id; give --name",
                                  c->path, c->rel);
        if (c->deb && c->deb->release && c->rel && strcmp(c->deb->release, c->rel) != 0 && c->deb->modules_dir)
                progress(c->s, "warning: image says %s, modules are for %s", c->rel, c->deb->release);
        return 0;
}

/* A PVH-bootable kernel is booted from its ELF vmlinux: the one a bzImage
 * inflated to, or the image itself when it is one. */
static int add_vmlinux(struct add_ctx *c, struct kb_error *err) {
        g_autofree char *vml = NULL;
        int r;

        if (!c->info->pvh) {
                json_object_set_new(c->meta, "vmlinux", json_null());
                return 0;
        }
        vml = g_build_filename(c->staging, "vmlinux", NULL);
        if (c->info->vmlinux)
                r = write_file(vml, c->info->vmlinux, c->info->vmlinux_size, err);
        else
                r = link(c->image, vml) < 0 ? error_setf(err, -errno, "%s: %s", vml, strerror(errno)) : 0;
        if (r < 0)
                return r;
        json_object_set_new(c->meta, "vmlinux", json_string("vmlinux"));
        return 0;
}

/* A .deb's config, System.map and modules (depmod run on them); a bare
 * image has none. */
static int add_deb_files(struct add_ctx *c, struct kb_error *err) {
        g_autofree char *bootdir = NULL, *mods = NULL, *md = NULL;
        int r;

        if (!c->deb) {
                json_object_set_new(c->meta, "config", json_null());
                json_object_set_new(c->meta, "system_map", json_null());
                json_object_set_new(c->meta, "modules_dir", json_null());
                return 0;
        }
        r = adopt(c->staging, c->deb->config_path, "config", c->meta, "config", err);
        if (r >= 0)
                r = adopt(c->staging, c->deb->system_map_path, "System.map", c->meta, "system_map", err);
        if (r < 0)
                return r;
        bootdir = g_build_filename(c->staging, "boot", NULL);
        rmdir(bootdir);
        if (!c->deb->modules_dir) {
                json_object_set_new(c->meta, "modules_dir", json_null());
                return 0;
        }
        mods = g_build_filename(c->staging, "modules", NULL);
        progress(c->s, "running depmod for %s", c->deb->release);
        r = deb_depmod(mods, c->deb->release, err);
        if (r < 0)
                return r;
        md = g_build_filename("modules", "lib", "modules", c->deb->release, NULL);
        json_object_set_new(c->meta, "modules_dir", json_string(md));
        return 0;
}

#define STR_OR_NULL(v) ((v) ? json_string(v) : json_null())

/* The rest of kernel.json, written into the staging directory. */
static int add_write_meta(struct add_ctx *c, struct kb_error *err) {
        const struct kimage_info *info = c->info;
        g_autofree char *mp = g_build_filename(c->staging, "kernel.json", NULL);
        _cleanup_free_ char *text = NULL;

        json_object_set_new(c->meta, "id", json_string(c->id));
        json_object_set_new(c->meta, "release", STR_OR_NULL(c->rel));
        json_object_set_new(c->meta, "version", STR_OR_NULL(info->version));
        json_object_set_new(c->meta, "source", json_string(c->source));
        json_object_set_new(c->meta, "format", json_string(c->is_deb ? "deb" : info->is_elf ? "elf" : "bzImage"));
        json_object_set_new(c->meta, "compression", STR_OR_NULL(info->compression));
        json_object_set_new(c->meta, "pvh", json_boolean(info->pvh));
        json_object_set_new(c->meta, "pvh_entry", json_integer((json_int_t)info->pvh_entry));
        json_object_set_new(c->meta, "n_modules", json_integer(c->deb ? c->deb->n_modules : 0));
        json_object_set_new(c->meta, "added_at", json_real((double)g_get_real_time() / 1e6));
        text = json_dumps(c->meta, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (!text)
                return error_setf(err, -ENOMEM, "%s: out of memory", mp);
        /* A full disk says so: "kernel.json: No space left on device". */
        return fileio_write_atomic(mp, text, strlen(text), 0644, err);
}

/* Rename the staging directory to <root>/<id>, name it and load it. A
 * concurrent import of the same image may have won the rename: then the
 * entry is theirs, and only the name is added.
 * OUT: *ret, *ret_existed (1 when that import won). */
static int add_commit(struct add_ctx *c, struct kstore_kernel **ret, int *ret_existed, struct kb_error *err) {
        g_autofree char *final = NULL;
        const char *nm = c->name ? c->name : c->rel;
        int r, existed = 0;

        /* mkdtemp made it 0700; QEMU may run as another user */
        if (chmod(c->staging, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", c->staging, strerror(errno));
        final = g_build_filename(c->s->root, c->id, NULL);
        if (rename(c->staging, final) < 0) {
                if (errno != EEXIST && errno != ENOTEMPTY)
                        return error_setf(err, -errno, "%s: %s", final, strerror(errno));
                existed = 1;
        } else
                g_clear_pointer(&c->staging, g_free);

        r = link_name(c->s, nm, c->id, err);
        if (r < 0) {
                g_autofree char *other = existed ? NULL : first_name_of(c->s, c->id);
                if (!existed && !other)
                        rm_rf(final);        /* nothing changes on a name clash */
                return r;
        }
        r = kstore_load(c->s, c->id, nm, ret, err);
        if (r < 0)
                return r;
        *ret_existed = existed;
        return 0;
}

static int add_steps(struct add_ctx *c, struct kstore_kernel **ret, int *ret_existed, struct kb_error *err) {
        int r, existed = 0;

        r = add_sniff(c, err);
        if (r >= 0)
                r = add_stage(c, err);
        if (r >= 0)
                r = add_unpack(c, &existed, err);
        if (r < 0)
                return r;
        if (existed) {
                r = add_existing(c, ret, err);
                if (r >= 0)
                        *ret_existed = 1;
                return r;
        }
        r = add_inspect(c, err);
        if (r >= 0)
                r = add_vmlinux(c, err);
        if (r >= 0) {
                json_object_set_new(c->meta, "image", json_string("image"));
                r = add_deb_files(c, err);
        }
        if (r >= 0)
                r = add_write_meta(c, err);
        if (r >= 0)
                r = add_commit(c, ret, ret_existed, err);
        return r;
}

int kstore_add(struct kstore *s, const char *path, const char *name,
               struct kstore_kernel **ret, int *ret_existed, struct kb_error *err) {
        struct add_ctx c = { .s = s, .path = path, .name = name, .fd = -1, .staging_fd = -1 };
        int existed = 0, r;

        if (name && !kstore_name_new_valid(name))
                return error_setf(err, -EINVAL, "bad kernel name '%.128s' (" KSTORE_NAME_RULE ")", name);
        c.meta = json_object();
        if (!c.meta)
                return error_setf(err, -ENOMEM, "out of memory");
        r = add_steps(&c, ret, &existed, err);
        add_ctx_done(&c);
        if (r >= 0 && ret_existed)
                *ret_existed = existed;
        return r;
}

json_t *kstore_kernel_to_json(const struct kstore_kernel *k) {
        return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:i, s:f}",
                         "id", STR_OR_NULL(k->id),
                         "name", STR_OR_NULL(k->name),
                         "release", STR_OR_NULL(k->release),
                         "version", STR_OR_NULL(k->version),
                         "image", STR_OR_NULL(k->image_path),
                         "vmlinux", STR_OR_NULL(k->vmlinux_path),
                         "modules_dir", STR_OR_NULL(k->modules_dir),
                         "config", STR_OR_NULL(k->config_path),
                         "system_map", STR_OR_NULL(k->system_map_path),
                         "source", STR_OR_NULL(k->source),
                         "build", STR_OR_NULL(k->build_path),
                         "pvh", k->pvh,
                         "n_modules", k->n_modules,
                         "added_at", k->added_at);
}

int kstore_file_sha256(const char *path, char **ret, struct kb_error *err) {
        return sha256_file(path, ret, err);
}

int kstore_attach(struct kstore *s, const struct kstore_kernel *k, const char *key, const char *src,
                  const char *dst, struct kb_error *err) {
        g_autofree char *dir = g_build_filename(s->root, k->id, NULL);
        g_autofree char *meta_path = g_build_filename(dir, "kernel.json", NULL);
        g_autofree char *file = g_build_filename(dir, dst, NULL);
        g_autofree char *file_tmp = g_strconcat(file, ".tmp", NULL);
        _cleanup_free_ char *text = NULL;
        json_auto_t *meta = NULL;
        int r;

        if (!valid_id(k->id) || strchr(dst, '/') || dst[0] == '.' || strcmp(dst, "kernel.json") == 0)
                return error_setf(err, -EINVAL, "kernel store: cannot attach %s as %s", src, dst);
        r = meta_load(meta_path, &meta, err);
        if (r < 0)
                return r;
        unlink(file_tmp);
        r = copy_file(src, file_tmp, err);
        if (r >= 0 && (chmod(file_tmp, 0644) < 0 || rename(file_tmp, file) < 0))
                r = error_setf(err, -errno, "%s: %s", file, strerror(errno));
        if (r < 0) {
                unlink(file_tmp);
                return r;
        }
        json_object_set_new(meta, key, json_string(dst));
        text = json_dumps(meta, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (!text)
                return error_setf(err, -ENOMEM, "%s: cannot write", meta_path);
        return fileio_write_atomic(meta_path, text, strlen(text), 0644, err);
}
