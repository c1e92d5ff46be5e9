/* kernels/deb.c: Debian linux-image package import (see deb.h). The outer
 * ar archive is read with one libarchive reader; the data.tar member is fed,
 * block by block, into a second reader, so the package is never unpacked to a
 * temporary file and nothing outside boot/ and lib/modules/ is written. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/fileio.h"
#include "common/util.h"
#include "kernels/deb.h"
#include "kernels/kimage.h"

#define PATH_MAX_REL 1024          /* longest member path we accept */
#define NAME_MAX_REL 255           /* longest path component */

struct deb_result *deb_result_free(struct deb_result *r) {
        if (!r)
                return NULL;
        free(r->release);
        free(r->image_path);
        free(r->config_path);
        free(r->system_map_path);
        free(r->modules_dir);
        free(r);
        return NULL;
}

static void deb_result_freep(struct deb_result **p) { deb_result_free(*p); }
static void archive_read_freep(struct archive **a) { if (*a) archive_read_free(*a); }

int deb_sniff(const uint8_t *head, size_t n) {
        /* ar global header, then the first member's 16-byte name field */
        return n >= 8 + 13 && memcmp(head, "!<arch>\n", 8) == 0 && memcmp(head + 8, "debian-binary", 13) == 0;
}

static int valid_release(const char *s, size_t n) {
        if (n == 0 || n > 64 || s[0] == '.')
                return 0;
        for (size_t i = 0; i < n; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_~", s[i]))
                        return 0;
        return 1;
}

/* Normalise a member name to "a/b/c": leading "/" and "./", empty and "."
 * components go; ".." or an over-long name is rejected (returns -EINVAL). */
static int normalize_member(const char *name, char out[PATH_MAX_REL + 1]) {
        size_t o = 0;
        const char *p = name;

        while (*p) {
                size_t n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.')) {
                        p += n + (p[n] == '/');
                        continue;
                }
                if ((n == 2 && p[0] == '.' && p[1] == '.') || n > NAME_MAX_REL)
                        return -EINVAL;
                if (o + (o ? 1 : 0) + n > PATH_MAX_REL)
                        return -EINVAL;
                if (o)
                        out[o++] = '/';
                memcpy(out + o, p, n);
                o += n;
                p += n + (p[n] == '/');
        }
        out[o] = 0;
        return 0;
}

/* Create dir/rel (parents as needed) exclusively; never follows a link. */
static int create_file(const char *dir, const char *rel, char **ret_path, struct kb_error *err) {
        g_autofree char *path = g_build_filename(dir, rel, NULL);
        g_autofree char *parent = g_path_get_dirname(path);
        int fd;

        if (g_mkdir_with_parents(parent, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", parent, strerror(errno));
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        if (ret_path)
                *ret_path = g_steal_pointer(&path);
        return fd;
}

struct extract {
        const char *deb_path;
        const char *boot_dir, *modules_root;
        const struct deb_options *opts;
        struct deb_result *res;
        uint8_t buf[1 << 17];
};

/* One line of the extraction's progress for whoever watches it. */
#define progress(x, ...) kb_progress((x)->opts ? (x)->opts->events : NULL, KB_ORIGIN_KERNEL, __VA_ARGS__)

/* Stream the current entry of a into dir/rel. OUT: *ret_path (g_free) if asked. */
static int copy_entry(struct extract *x, struct archive *a, const char *dir, const char *rel,
                      char **ret_path, struct kb_error *err) {
        g_autofree char *path = NULL;
        _cleanup_close_ int fd = create_file(dir, rel, &path, err);
        int r;

        if (fd < 0)
                return fd;
        for (;;) {
                la_ssize_t n = archive_read_data(a, x->buf, sizeof(x->buf));
                if (n < 0)
                        return error_setf(err, -EBADMSG, "%s: %s: %s", x->deb_path, rel,
                                          archive_error_string(a) ?: "read error");
                if (n == 0)
                        break;
                r = fileio_write_all(fd, x->buf, (size_t)n);
                if (r < 0)
                        return error_setf(err, r, "%s: %s", path, strerror(-r));
                x->res->bytes_written += (uint64_t)n;
        }
        if (ret_path)
                *ret_path = g_steal_pointer(&path);
        return 0;
}

/* Read a compressed module whole (bounded), inflate it, write it as .ko. */
static int inflate_entry(struct extract *x, struct archive *a, struct archive_entry *e,
                         const char *dir, const char *rel, size_t suffix_len, struct kb_error *err) {
        _cleanup_free_ uint8_t *in = NULL, *out = NULL;
        g_autofree char *orel = g_strndup(rel, strlen(rel) - suffix_len);
        _cleanup_close_ int fd = -1;
        size_t len = 0, cap, olen;
        int r;

        if (archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)DEB_MAX_MODULE)
                return error_setf(err, -EFBIG, "%s: %s: module larger than %zu bytes", x->deb_path, rel, DEB_MAX_MODULE);
        cap = archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ? (size_t)archive_entry_size(e) : 65536;
        in = malloc(cap);
        if (!in)
                return error_setf(err, -ENOMEM, "out of memory");
        for (;;) {
                la_ssize_t n;
                if (len == cap) {
                        uint8_t *nb;
                        if (cap >= DEB_MAX_MODULE)
                                return error_setf(err, -EFBIG, "%s: %s: module larger than %zu bytes", x->deb_path, rel, DEB_MAX_MODULE);
                        cap = cap * 2 > DEB_MAX_MODULE ? DEB_MAX_MODULE : cap * 2;
                        nb = realloc(in, cap);
                        if (!nb)
                                return error_setf(err, -ENOMEM, "out of memory");
                        in = nb;
                }
                n = archive_read_data(a, in + len, cap - len);
                if (n < 0)
                        return error_setf(err, -EBADMSG, "%s: %s: %s", x->deb_path, rel,
                                          archive_error_string(a) ?: "read error");
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        r = kimage_decompress(in, len, DEB_MAX_MODULE, &out, &olen, NULL, err);
        if (r < 0)
                return error_prefix(err, r, "%s: %s", x->deb_path, rel);
        fd = create_file(dir, orel, NULL, err);
        if (fd < 0)
                return fd;
        r = fileio_write_all(fd, out, olen);
        if (r < 0)
                return error_setf(err, r, "%s/%s: %s", dir, orel, strerror(-r));
        x->res->bytes_written += olen;
        x->res->n_decompressed++;
        return 0;
}

static int has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n > m && strcmp(s + n - m, suffix) == 0;
}

/* The boot/ files kbench keeps, by name prefix, and where their paths go. */
static const struct boot_file {
        const char *prefix;
        size_t slot;               /* offset of the char * in struct deb_result */
        int is_image;
} boot_files[] = {
        { "vmlinuz-", offsetof(struct deb_result, image_path), 1 },
        { "vmlinux-", offsetof(struct deb_result, image_path), 1 },
        { "config-", offsetof(struct deb_result, config_path), 0 },
        { "System.map-", offsetof(struct deb_result, system_map_path), 0 },
};

/* The kernel image is written: its name gives the release, and the
 * caller's on_image may stop the import here (returns 1 then). */
static int extract_image_seen(struct extract *x, struct archive_entry *e, const char *base, const char *path,
                              struct kb_error *err) {
        struct deb_result *res = x->res;
        const char *rel_s = strchr(base, '-') + 1;
        int r;

        if (!res->release && valid_release(rel_s, strlen(rel_s)))
                res->release = strdup(rel_s);
        progress(x, "kernel image %s (%.1f MiB)", base, (double)archive_entry_size(e) / 1048576.0);
        if (!x->opts || !x->opts->on_image)
                return 0;
        r = x->opts->on_image(path, x->opts->userdata, err);
        if (r < 0)
                return r;
        if (r > 0) {
                res->stopped = 1;
                return 1;
        }
        return 0;
}

/* A file directly in boot/: the image, its config or System.map (one of
 * each); anything else is not ours. */
static int extract_boot(struct extract *x, struct archive *a, struct archive_entry *e, const char *base,
                        struct kb_error *err) {
        const struct boot_file *f = NULL;
        g_autofree char *path = NULL;
        char **slot;
        int r;

        if (archive_entry_filetype(e) != AE_IFREG)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(boot_files) && !f; i++)
                if (g_str_has_prefix(base, boot_files[i].prefix))
                        f = &boot_files[i];
        if (!f)
                return 0;
        slot = (char **)((char *)x->res + f->slot);
        if (*slot)
                return error_setf(err, -EINVAL, "%s: more than one boot/%.*s* member", x->deb_path,
                                  (int)(strchr(base, '-') - base + 1), base);
        r = copy_entry(x, a, x->boot_dir, base, &path, err);
        if (r < 0)
                return r;
        *slot = strdup(path);
        if (!*slot)
                return error_setf(err, -ENOMEM, "out of memory");
        return f->is_image ? extract_image_seen(x, e, base, path, err) : 0;
}

/* The first module sets the package's module release (and its directory);
 * every later one must be of the same release. mod is the path under
 * lib/modules/, rl the length of its release part. */
static int extract_module_release(struct extract *x, const char *mod, size_t rl, struct kb_error *err) {
        struct deb_result *res = x->res;

        if (res->modules_dir) {
                if (strncmp(res->release, mod, rl) != 0 || res->release[rl])
                        return error_setf(err, -EINVAL, "%s: modules for two releases (%s, %.*s)", x->deb_path,
                                          res->release, (int)rl, mod);
                return 0;
        }
        g_autofree char *d = g_strdup_printf("%s/lib/modules/%.*s", x->modules_root, (int)rl, mod);
        res->modules_dir = strdup(d);
        if (!res->modules_dir)
                return error_setf(err, -ENOMEM, "out of memory");
        if (!res->release || strncmp(res->release, mod, rl) != 0 || res->release[rl]) {
                free(res->release);
                res->release = strndup(mod, rl);
        }
        if (g_mkdir_with_parents(res->modules_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", res->modules_dir, strerror(errno));
        progress(x, "extracting modules for %s", res->release);
        return 0;
}

/* A member under lib/modules/ (mod: the path below it): compressed modules
 * are stored inflated, other files copied, links skipped. */
static int extract_module(struct extract *x, struct archive *a, struct archive_entry *e, const char *mod,
                          struct kb_error *err) {
        static const char *const suffixes[] = { ".ko.xz", ".ko.zst", ".ko.gz" };
        struct deb_result *res = x->res;
        mode_t type = archive_entry_filetype(e);
        size_t rl = strcspn(mod, "/");
        const char *sub;
        int r;

        if (!valid_release(mod, rl))
                return error_setf(err, -EINVAL, "%s: bad module release directory '%.*s'", x->deb_path, (int)(rl > 64 ? 64 : rl), mod);
        r = extract_module_release(x, mod, rl, err);
        if (r < 0)
                return r;
        if (mod[rl] == 0 || type == AE_IFDIR)
                return 0;
        if (type != AE_IFREG) {
                res->n_skipped++;        /* build/source links point outside the package */
                return 0;
        }
        sub = mod + rl + 1;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (has_suffix(sub, suffixes[i])) {
                        r = inflate_entry(x, a, e, res->modules_dir, sub, strlen(suffixes[i]) - 3, err);
                        if (r < 0)
                                return r;
                        res->n_modules++;
                        return 0;
                }
        r = copy_entry(x, a, res->modules_dir, sub, NULL, err);
        if (r < 0)
                return r;
        if (has_suffix(sub, ".ko"))
                res->n_modules++;
        return 0;
}

/* One member of data.tar. Returns 1 when on_image stopped the import. */
static int extract_member(struct extract *x, struct archive *a, struct archive_entry *e,
                          struct kb_error *err) {
        char rel[PATH_MAX_REL + 1];
        const char *name = archive_entry_pathname(e);

        if (!name || normalize_member(name, rel) < 0)
                return error_setf(err, -EINVAL, "%s: unsafe member name '%.200s'", x->deb_path, name ? name : "");
        if (rel[0] == 0)
                return 0;
        if (strncmp(rel, "boot/", 5) == 0 && !strchr(rel + 5, '/'))
                return extract_boot(x, a, e, rel + 5, err);
        if (strncmp(rel, "lib/modules/", 12) == 0)
                return extract_module(x, a, e, rel + 12, err);
        if (strncmp(rel, "usr/lib/modules/", 16) == 0)
                return extract_module(x, a, e, rel + 16, err);
        return 0;
}

/* Feeds the inner (tar) reader from the outer (ar) reader's current member. */
struct member_source {
        struct archive *outer;
};

static la_ssize_t member_read(struct archive *inner, void *userdata, const void **buf) {
        struct member_source *src = userdata;
        size_t size;
        la_int64_t offset;
        int r = archive_read_data_block(src->outer, buf, &size, &offset);

        if (r == ARCHIVE_EOF)
                return 0;
        if (r < ARCHIVE_WARN) {
                archive_set_error(inner, EIO, "%s", archive_error_string(src->outer) ?: "ar read error");
                return -1;
        }
        return (la_ssize_t)size;
}

static int extract_data_tar(struct extract *x, struct archive *outer, const char *member,
                            struct kb_error *err) {
        _cleanup_(archive_read_freep) struct archive *in = archive_read_new();
        struct member_source src = { outer };
        struct archive_entry *e;
        int r;

        if (!in)
                return error_setf(err, -ENOMEM, "out of memory");
        archive_read_support_filter_all(in);
        archive_read_support_format_tar(in);
        archive_read_support_format_gnutar(in);
        if (archive_read_open(in, &src, NULL, member_read, NULL) != ARCHIVE_OK)
                return error_setf(err, -EBADMSG, "%s: %s: %s", x->deb_path, member,
                                  archive_error_string(in) ?: "cannot open");
        progress(x, "reading %s from %s", member, x->deb_path);
        for (;;) {
                r = archive_read_next_header(in, &e);
                if (r == ARCHIVE_EOF)
                        break;
                if (r < ARCHIVE_WARN)
                        return error_setf(err, -EBADMSG, "%s: %s: %s", x->deb_path, member,
                                          archive_error_string(in) ?: "bad tar header");
                r = extract_member(x, in, e, err);
                if (r != 0)
                        return r;        /* < 0 error, 1 = stopped by on_image */
        }
        return 0;
}

int deb_extract(const char *deb_path, const char *boot_dir, const char *modules_root,
                const struct deb_options *opts, struct deb_result **ret, struct kb_error *err) {
        _cleanup_(archive_read_freep) struct archive *a = archive_read_new();
        _cleanup_(deb_result_freep) struct deb_result *res = calloc(1, sizeof(*res));
        g_autofree struct extract *x = g_new0(struct extract, 1);
        struct archive_entry *e;
        struct timespec t0, t1;
        int r, have_data = 0, have_magic = 0;

        if (!a || !res)
                return error_setf(err, -ENOMEM, "out of memory");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        x->deb_path = deb_path;
        x->boot_dir = boot_dir;
        x->modules_root = modules_root;
        x->opts = opts;
        x->res = res;
        if (g_mkdir_with_parents(boot_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", boot_dir, strerror(errno));
        if (g_mkdir_with_parents(modules_root, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", modules_root, strerror(errno));

        archive_read_support_format_ar(a);
        if (archive_read_open_filename(a, deb_path, 1 << 16) != ARCHIVE_OK)
                return error_setf(err, -EINVAL, "%s: not a Debian package (%s)", deb_path,
                                  archive_error_string(a) ?: "cannot open");
        for (;;) {
                const char *name;

                r = archive_read_next_header(a, &e);
                if (r == ARCHIVE_EOF)
                        break;
                if (r < ARCHIVE_WARN)
                        return error_setf(err, have_magic ? -EBADMSG : -EINVAL, "%s: %s (%s)", deb_path,
                                          have_magic ? "damaged Debian package" : "not a Debian package",
                                          archive_error_string(a) ?: "bad ar header");
                name = archive_entry_pathname(e);
                if (!name)
                        continue;
                if (strcmp(name, "debian-binary") == 0) {
                        char v[8] = { 0 };
                        la_ssize_t n = archive_read_data(a, v, sizeof(v) - 1);
                        if (n < 2 || v[0] != '2' || v[1] != '.')
                                return error_setf(err, -EINVAL, "%s: not a Debian 2.x binary package", deb_path);
                        have_magic = 1;
                } else if (g_str_has_prefix(name, "data.tar")) {
                        if (!have_magic)
                                return error_setf(err, -EINVAL, "%s: not a Debian package (no debian-binary before %s)",
                                                  deb_path, name);
                        r = extract_data_tar(x, a, name, err);
                        if (r < 0)
                                return r;
                        have_data = 1;
                        break;
                }
        }
        if (!have_data)
                return error_setf(err, -EINVAL, "%s: not a Debian package (no data.tar member)", deb_path);
        if (!res->image_path)
                return error_setf(err, -EINVAL, "%s: no boot/vmlinuz-* in this package (not a linux-image .deb?)", deb_path);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (!res->stopped)
                progress(x, "extracted %d modules (%d inflated), %.1f MiB in %.1f s", res->n_modules,
                         res->n_decompressed, (double)res->bytes_written / 1048576.0,
                         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        *ret = TAKE_PTR(res);
        return 0;
}

int deb_depmod(const char *modules_root, const char *release, struct kb_error *err) {
        static const char *const candidates[] = { "/sbin/depmod", "/usr/sbin/depmod" };
        g_autofree char *depmod = NULL, *errout = NULL;
        g_autoptr(GError) gerr = NULL;
        int status;

        for (size_t i = 0; i < ELEMENTSOF(candidates) && !depmod; i++)
                if (access(candidates[i], X_OK) == 0)
                        depmod = g_strdup(candidates[i]);
        if (!depmod)
                depmod = g_find_program_in_path("depmod");
        if (!depmod)
                return error_setf(err, -ENOENT, "depmod not found (install kmod)");

        const char *argv[] = { depmod, "-b", modules_root, release, NULL };
        if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                          NULL, &errout, &status, &gerr))
                return error_setf(err, -EIO, "%s: %s", depmod, gerr->message);
        if (!g_spawn_check_wait_status(status, NULL)) {
                g_strchomp(errout);
                char *nl = strchr(errout, '\n');
                if (nl)
                        *nl = 0;
                return error_setf(err, -EIO, "depmod -b %s %s failed: %.300s", modules_root, release,
                                  errout[0] ? errout : "no message");
        }
        return 0;
}
