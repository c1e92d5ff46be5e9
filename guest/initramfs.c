/* guest/initramfs.c: builds the guest's initramfs on the host (see
 * initramfs.h). The build has two phases. First a plan: every entry of the
 * image (directories, device nodes, generated /etc files, /init, host
 * binaries with their library closure, "SRC=DST" files, the module closure
 * resolved with libkmod, busybox applet links) goes into one table keyed by
 * its path in the image, with file contents read into memory. The sha256 of
 * the sorted plan (a format version, every path, type, mode, link target and
 * content) names the image, so any change to an input rebuilds it and no
 * change reuses it. Then, only on a cache miss, the plan is written in path
 * order as newc cpio + gzip with fixed mtimes, owners and inode numbers, to
 * a temporary file renamed into place: the same inputs give the same bytes. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <libkmod.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "guest/elfdeps.h"
#include "guest/initramfs.h"
#include "common/guest-paths.h"

/* Bump when the layout of the image changes, so old cache entries are not reused. */
#define INITRAMFS_FORMAT "kbench-initramfs-1"
#define INITRAMFS_FILE_MAX (512UL * 1024 * 1024)  /* largest input file, bytes */
#define INITRAMFS_LIST_MAX (1024 * 1024)          /* busybox --list-full output, bytes */
#define INITRAMFS_LINK_DEPTH 16                   /* symlink chain of a library */
#define INITRAMFS_MTIME 0                         /* every entry's mtime, seconds */

enum initramfs_type {
        INITRAMFS_DIR,
        INITRAMFS_FILE,
        INITRAMFS_SYMLINK,
        INITRAMFS_CHR,
};

/* Who put an entry in the plan. A higher rank replaces a lower one (an
 * explicit "SRC=DST" file beats the generated /etc/passwd); equal ranks must
 * agree or the build fails with a conflict. */
enum initramfs_rank {
        RANK_DEFAULT,              /* directories, generated /etc files, device nodes */
        RANK_LIBRARY,              /* shared libraries and the loader */
        RANK_BINARY,               /* spec->binaries, busybox, modules */
        RANK_INIT,                 /* the agent as /init */
        RANK_FILE,                 /* spec->files: the caller's explicit word wins */
};

struct initramfs_entry {
        char *path;                /* in the image, no leading '/', normalised */
        enum initramfs_type type;
        enum initramfs_rank rank;
        unsigned mode;             /* permission bits */
        char *target;              /* INITRAMFS_SYMLINK */
        GBytes *data;              /* INITRAMFS_FILE contents */
        char *origin;              /* host path or "generated", for conflict messages */
        unsigned major, minor;     /* INITRAMFS_CHR */
};

static void initramfs_entry_free(gpointer p) {
        struct initramfs_entry *e = p;

        if (!e)
                return;
        g_free(e->path);
        g_free(e->target);
        g_free(e->origin);
        if (e->data)
                g_bytes_unref(e->data);
        g_free(e);
}

struct initramfs_plan {
        GHashTable *entries;       /* path -> struct initramfs_entry (owned) */
        char *release;             /* kernel release when modules were asked for */
};

static void initramfs_plan_clear(struct initramfs_plan *p) {
        if (p->entries)
                g_hash_table_unref(p->entries);
        g_free(p->release);
}

/* Normalise an image path: drop leading '/', empty and "." components,
 * resolve ".." lexically. -EINVAL for "" or ".." above the root. OUT:
 * *ret (g_free). */
static int initramfs_norm(const char *path, char **ret) {
        g_auto(GStrv) parts = g_strsplit(path, "/", -1);
        g_autoptr(GPtrArray) out = g_ptr_array_new();

        for (size_t i = 0; parts[i]; i++) {
                if (!parts[i][0] || strcmp(parts[i], ".") == 0)
                        continue;
                if (strcmp(parts[i], "..") == 0) {
                        if (out->len == 0)
                                return -EINVAL;
                        g_ptr_array_remove_index(out, out->len - 1);
                        continue;
                }
                g_ptr_array_add(out, parts[i]);
        }
        if (out->len == 0)
                return -EINVAL;
        g_ptr_array_add(out, NULL);
        *ret = g_strjoinv("/", (char **)out->pdata);
        return 0;
}

/* Read a host file of at most INITRAMFS_FILE_MAX bytes (following links).
 * OUT: *ret_data (unref), *ret_mode (permission bits). */
static int initramfs_read(const char *path, GBytes **ret_data, unsigned *ret_mode,
                          struct kb_error *err) {
        char *buf;
        size_t len;
        int r = fileio_read(path, INITRAMFS_FILE_MAX, &buf, &len, ret_mode, err);

        if (r < 0)
                return r;
        *ret_data = g_bytes_new_take(buf, len);
        return 0;
}

static int initramfs_same(const struct initramfs_entry *a, const struct initramfs_entry *b) {
        if (a->type != b->type || a->mode != b->mode)
                return 0;
        switch (a->type) {
        case INITRAMFS_DIR:
                return 1;
        case INITRAMFS_SYMLINK:
                return strcmp(a->target, b->target) == 0;
        case INITRAMFS_CHR:
                return a->major == b->major && a->minor == b->minor;
        case INITRAMFS_FILE:
                return g_bytes_equal(a->data, b->data);
        }
        return 0;
}

static int initramfs_add_dir(struct initramfs_plan *p, const char *path, struct kb_error *err);

/* Put e in the plan (taking ownership), creating its parent directories.
 * Returns 1 if added, 0 if an entry of higher rank (or an identical one)
 * kept the place, -EEXIST on a conflict of equal rank. */
static int initramfs_add(struct initramfs_plan *p, struct initramfs_entry *e, struct kb_error *err) {
        struct initramfs_entry *old;
        char *slash = strrchr(e->path, '/');
        int r;

        if (slash) {
                g_autofree char *parent = g_strndup(e->path, (gsize)(slash - e->path));
                r = initramfs_add_dir(p, parent, err);
                if (r < 0) {
                        initramfs_entry_free(e);
                        return r;
                }
        }
        old = g_hash_table_lookup(p->entries, e->path);
        if (old) {
                if (initramfs_same(old, e) || old->rank > e->rank) {
                        initramfs_entry_free(e);
                        return 0;
                }
                if (old->rank == e->rank || old->type == INITRAMFS_DIR || e->type == INITRAMFS_DIR) {
                        r = error_setf(err, -EEXIST, "/%s: conflict between %s and %s",
                                       e->path, old->origin, e->origin);
                        initramfs_entry_free(e);
                        return r;
                }
        }
        g_hash_table_replace(p->entries, e->path, e);
        return 1;
}

static int initramfs_add_dir(struct initramfs_plan *p, const char *path, struct kb_error *err) {
        struct initramfs_entry *old = g_hash_table_lookup(p->entries, path), *e;

        if (old && old->type == INITRAMFS_DIR)
                return 0;
        e = g_new0(struct initramfs_entry, 1);
        e->path = g_strdup(path);
        e->type = INITRAMFS_DIR;
        e->rank = RANK_DEFAULT;
        e->mode = strcmp(path, "tmp") == 0 ? 01777 : 0755;
        e->origin = g_strdup("directory");
        return initramfs_add(p, e, err);
}

static int initramfs_add_data(struct initramfs_plan *p, const char *path, GBytes *data,
                              unsigned mode, enum initramfs_rank rank, const char *origin,
                              struct kb_error *err) {
        struct initramfs_entry *e = g_new0(struct initramfs_entry, 1);

        if (initramfs_norm(path, &e->path) < 0) {
                initramfs_entry_free(e);
                return error_setf(err, -EINVAL, "%s: bad path in the image", path);
        }
        e->type = INITRAMFS_FILE;
        e->rank = rank;
        e->mode = mode;
        e->data = g_bytes_ref(data);
        e->origin = g_strdup(origin);
        return initramfs_add(p, e, err);
}

static int initramfs_add_text(struct initramfs_plan *p, const char *path, const char *text,
                              unsigned mode, struct kb_error *err) {
        g_autoptr(GBytes) b = g_bytes_new(text, strlen(text));
        return initramfs_add_data(p, path, b, mode, RANK_DEFAULT, "generated", err);
}

/* Copy host file src to dst in the image; mode < 0 keeps the host mode. */
static int initramfs_add_host(struct initramfs_plan *p, const char *src, const char *dst,
                              int mode, enum initramfs_rank rank, struct kb_error *err) {
        g_autoptr(GBytes) data = NULL;
        unsigned m = 0;
        int r;

        r = initramfs_read(src, &data, &m, err);
        if (r < 0)
                return r;
        return initramfs_add_data(p, dst, data, mode < 0 ? m : (unsigned)mode, rank, src, err);
}

static int initramfs_add_symlink(struct initramfs_plan *p, const char *path, const char *target,
                                 enum initramfs_rank rank, const char *origin, struct kb_error *err) {
        struct initramfs_entry *e = g_new0(struct initramfs_entry, 1);

        if (initramfs_norm(path, &e->path) < 0) {
                initramfs_entry_free(e);
                return error_setf(err, -EINVAL, "%s: bad path in the image", path);
        }
        e->type = INITRAMFS_SYMLINK;
        e->rank = rank;
        e->mode = 0777;
        e->target = g_strdup(target);
        e->origin = g_strdup(origin);
        return initramfs_add(p, e, err);
}

static int initramfs_add_chr(struct initramfs_plan *p, const char *path, unsigned mode,
                             unsigned major, unsigned minor, struct kb_error *err) {
        struct initramfs_entry *e = g_new0(struct initramfs_entry, 1);

        e->path = g_strdup(path);
        e->type = INITRAMFS_CHR;
        e->rank = RANK_DEFAULT;
        e->mode = mode;
        e->major = major;
        e->minor = minor;
        e->origin = g_strdup("device node");
        return initramfs_add(p, e, err);
}

/* A shared library (or the loader) at the same path as on the host. A
 * symlink becomes a symlink with the same text and its target is added too,
 * resolved inside the image namespace, so /lib64/ld-linux-x86-64.so.2 ->
 * /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 works in the guest whatever the
 * host's merged-/usr layout. */
static int initramfs_add_library(struct initramfs_plan *p, const char *path, struct kb_error *err) {
        g_autofree char *cur = g_strdup(path);

        for (int depth = 0; depth < INITRAMFS_LINK_DEPTH; depth++) {
                struct initramfs_entry *have;
                g_autofree char *key = NULL;
                struct stat st;
                char buf[PATH_MAX];
                ssize_t n;
                int r;

                /* Shared by an earlier binary: already resolved, not read twice. */
                if (initramfs_norm(cur, &key) == 0 && (have = g_hash_table_lookup(p->entries, key)) &&
                    have->rank == RANK_LIBRARY && have->type == INITRAMFS_FILE)
                        return 0;
                if (lstat(cur, &st) < 0)
                        return error_setf(err, -errno, "%s: %s", cur, strerror(errno));
                if (!S_ISLNK(st.st_mode))
                        return initramfs_add_host(p, cur, cur, -1, RANK_LIBRARY, err);
                n = readlink(cur, buf, sizeof(buf) - 1);
                if (n <= 0)
                        return error_setf(err, n < 0 ? -errno : -EINVAL, "%s: cannot read link", cur);
                buf[n] = 0;
                r = initramfs_add_symlink(p, cur, buf, RANK_LIBRARY, path, err);
                if (r < 0)
                        return r;

                g_autofree char *dir = g_path_get_dirname(cur);
                g_autofree char *joined = buf[0] == '/' ? g_strdup(buf) : g_build_filename(dir, buf, NULL);
                g_autofree char *norm = NULL;
                if (initramfs_norm(joined, &norm) < 0)
                        return error_setf(err, -EINVAL, "%s: link leaves the root", cur);
                g_free(cur);
                cur = g_strconcat("/", norm, NULL);
        }
        return error_setf(err, -ELOOP, "%s: too many levels of symbolic links", path);
}

/* A host binary at the same path, plus its interpreter and libraries. */
static int initramfs_add_binary(struct initramfs_plan *p, const char *path, struct kb_error *err) {
        g_auto(GStrv) libs = NULL;
        int r;

        if (path[0] != '/')
                return error_setf(err, -EINVAL, "%s: binaries must be absolute paths", path);
        r = initramfs_add_host(p, path, path, -1, RANK_BINARY, err);
        if (r < 0)
                return r;
        r = elfdeps_closure(path, &libs, err);
        if (r < 0)
                return r;
        for (size_t i = 0; libs[i]; i++) {
                r = initramfs_add_library(p, libs[i], err);
                if (r < 0)
                        return error_prefix(err, r, "%s", path);
        }
        return 0;
}

/* "SRC=DST": DST may hold '=' only if SRC does not. */
static int initramfs_add_file_spec(struct initramfs_plan *p, const char *spec, struct kb_error *err) {
        const char *eq = strchr(spec, '=');

        if (!eq || eq == spec || !eq[1] || eq[1] != '/')
                return error_setf(err, -EINVAL, "%s: expected SRC=/DST", spec);
        g_autofree char *src = g_strndup(spec, (gsize)(eq - spec));
        return initramfs_add_host(p, src, eq + 1, -1, RANK_FILE, err);
}

/* ---- modules ---- */

struct initramfs_mods {
        struct kmod_ctx *ctx;
        const char *dir;           /* kmod's absolute modules dir */
        GHashTable *seen;          /* module name -> NULL */
        GPtrArray *order;          /* relative paths, load order */
};

static int initramfs_visit(struct initramfs_mods *m, struct kmod_module *mod, int depth,
                           struct kb_error *err);

/* Visit every module of a lookup list (an alias can name several, e.g.
 * crypto-crc32c: crc32c_intel and crc32c_generic; modprobe loads them all). */
static int initramfs_visit_list(struct initramfs_mods *m, struct kmod_list *list, int depth,
                                struct kb_error *err) {
        struct kmod_list *l;

        kmod_list_foreach(l, list) {
                struct kmod_module *mod = kmod_module_get_module(l);
                int r = initramfs_visit(m, mod, depth, err);
                kmod_module_unref(mod);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void initramfs_unref_listp(struct kmod_list **l) {
        if (*l)
                kmod_module_unref_list(*l);
}

/* Depth-first, post-order: soft pre-dependencies and hard dependencies are
 * appended before the module, soft post-dependencies after it. mod stays
 * owned by the caller. */
static int initramfs_visit(struct initramfs_mods *m, struct kmod_module *mod, int depth,
                           struct kb_error *err) {
        _cleanup_(initramfs_unref_listp) struct kmod_list *deps = NULL, *pre = NULL, *post = NULL;
        const char *name = kmod_module_get_name(mod);
        const char *path = kmod_module_get_path(mod);
        size_t dl = strlen(m->dir);
        int r;

        if (depth > 64)
                return error_setf(err, -ELOOP, "module %s: dependency chain too deep", name);
        if (g_hash_table_contains(m->seen, name))
                return 0;
        g_hash_table_add(m->seen, g_strdup(name));
        if (!path)
                return 0; /* built into the kernel (modules.builtin) */
        if (strncmp(path, m->dir, dl) != 0 || path[dl] != '/' || !path[dl + 1])
                return error_setf(err, -EINVAL, "module %s: %s is outside %s", name, path, m->dir);

        if (kmod_module_get_softdeps(mod, &pre, &post) < 0)
                pre = post = NULL;
        r = initramfs_visit_list(m, pre, depth + 1, err);
        if (r < 0)
                return r;
        deps = kmod_module_get_dependencies(mod);
        r = initramfs_visit_list(m, deps, depth + 1, err);
        if (r < 0)
                return r;
        g_ptr_array_add(m->order, g_strdup(path + dl + 1));
        return initramfs_visit_list(m, post, depth + 1, err);
}

static void initramfs_kmod_unrefp(struct kmod_ctx **c) {
        if (*c)
                kmod_unref(*c);
}

/* Resolve spec->modules against modules_dir and add each .ko plus
 * /etc/kbench/modules to the plan. */
static int initramfs_add_modules(struct initramfs_plan *p, const char *modules_dir,
                                 const char *const *names, struct kb_error *err) {
        static const char *const no_config[] = { NULL };
        _cleanup_(initramfs_kmod_unrefp) struct kmod_ctx *ctx = NULL;
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GString) list = g_string_new(NULL);
        g_autofree char *trimmed = g_strdup(modules_dir);
        struct initramfs_mods m;
        struct stat st;
        int r;

        while (strlen(trimmed) > 1 && g_str_has_suffix(trimmed, "/"))
                trimmed[strlen(trimmed) - 1] = 0;
        if (stat(trimmed, &st) < 0 || !S_ISDIR(st.st_mode))
                return error_setf(err, -ENOENT, "%s: no such modules directory", modules_dir);
        p->release = g_path_get_basename(trimmed);
        /* No modprobe.d: the host's configuration must not shape the guest. */
        ctx = kmod_new(trimmed, no_config);
        if (!ctx)
                return error_setf(err, -ENOMEM, "%s: kmod_new failed", modules_dir);
        m = (struct initramfs_mods){ ctx, kmod_get_dirname(ctx), seen, order };

        for (size_t i = 0; names && names[i]; i++) {
                _cleanup_(initramfs_unref_listp) struct kmod_list *l = NULL;
                r = kmod_module_new_from_lookup(ctx, names[i], &l);
                if (r < 0 || !l)
                        return error_setf(err, -ENOENT, "module %s not found in %s", names[i], modules_dir);
                r = initramfs_visit_list(&m, l, 0, err);
                if (r < 0)
                        return r;
        }
        for (guint i = 0; i < order->len; i++) {
                const char *rel = order->pdata[i];
                g_autofree char *src = g_build_filename(m.dir, rel, NULL);
                g_autofree char *dst = g_strdup_printf("/lib/modules/%s/%s", p->release, rel);
                r = initramfs_add_host(p, src, dst, 0644, RANK_BINARY, err);
                if (r < 0)
                        return r;
                g_string_append_printf(list, "%s\n", rel);
        }
        return initramfs_add_text(p, KB_GUEST_MODULES_LIST, list->str, 0644, err);
}

/* ---- busybox ---- */

/* An applet path from --list-full: relative, [A-Za-z0-9._+[-] components. */
static int initramfs_applet_ok(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > 255 || s[0] == '/' || strstr(s, "..") || strstr(s, "//"))
                return 0;
        for (const char *c = s; *c; c++)
                if (!g_ascii_isalnum(*c) && !strchr("._+-[]/", *c))
                        return 0;
        return 1;
}

/* A real binary named like the applet already sits in a PATH directory
 * (GNU dd at /usr/bin/dd): the applet link would shadow or duplicate it. */
static int initramfs_shadowed(struct initramfs_plan *p, const char *applet) {
        static const char *const bindirs[] = { "bin", "sbin", "usr/bin", "usr/sbin" };
        const char *base = strrchr(applet, '/');

        base = base ? base + 1 : applet;
        for (size_t i = 0; i < ELEMENTSOF(bindirs); i++) {
                g_autofree char *c = g_strdup_printf("%s/%s", bindirs[i], base);
                struct initramfs_entry *e = g_hash_table_lookup(p->entries, c);
                if (e && e->type == INITRAMFS_FILE)
                        return 1;
        }
        return 0;
}

static int initramfs_add_busybox(struct initramfs_plan *p, const char *busybox, struct kb_error *err) {
        const char *argv[] = { busybox, "--list-full", NULL };
        g_autofree char *out = NULL;
        g_autoptr(GError) gerr = NULL;
        g_auto(GStrv) lines = NULL;
        int status, r;

        r = initramfs_add_host(p, busybox, "/bin/busybox", 0755, RANK_BINARY, err);
        if (r < 0)
                return r;
        if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                          &out, NULL, &status, &gerr))
                return error_setf(err, -EIO, "%s --list-full: %s", busybox, gerr->message);
        if (!g_spawn_check_wait_status(status, NULL))
                return error_setf(err, -EIO, "%s --list-full failed", busybox);
        if (strlen(out) > INITRAMFS_LIST_MAX)
                return error_setf(err, -EFBIG, "%s --list-full: output too long", busybox);
        lines = g_strsplit(out, "\n", -1);
        for (size_t i = 0; lines[i]; i++) {
                const char *a = lines[i];
                if (!a[0])
                        continue;
                if (!initramfs_applet_ok(a))
                        return error_setf(err, -EINVAL, "%s --list-full: bad applet path", busybox);
                if (g_hash_table_contains(p->entries, a) || initramfs_shadowed(p, a))
                        continue;
                g_autofree char *abs = g_strconcat("/", a, NULL);
                r = initramfs_add_symlink(p, abs, "/bin/busybox", RANK_DEFAULT, busybox, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- plan, hash, write ---- */

static const char initramfs_passwd[] =
        "root:x:0:0:root:/root:/bin/sh\n"
        "ftp:x:100:101:ftp daemon:/srv/ftp:/bin/false\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n";
static const char initramfs_group[] =
        "root:x:0:\n"
        "ftp:x:101:\n"
        "nogroup:x:65534:\n";
static const char initramfs_nsswitch[] =
        "passwd: files\n"
        "group: files\n"
        "shadow: files\n"
        "hosts: files\n";
static const char initramfs_hosts[] = "127.0.0.1 localhost\n";

static int initramfs_plan_build(struct initramfs_plan *p, const struct initramfs_spec *spec,
                                struct kb_error *err) {
        static const char *const dirs[] = {
                "bin", "sbin", "usr/bin", "usr/sbin", "lib", "lib64", "etc", "etc/kbench",
                "dev", "proc", "sys", "run", "tmp", "mnt", "root", "var/run", "srv/ftp",
        };
        int r;

        p->entries = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, initramfs_entry_free);
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                r = initramfs_add_dir(p, dirs[i], err);
                if (r < 0)
                        return r;
        }
        /* The kernel opens /dev/console for init before devtmpfs is mounted. */
        r = initramfs_add_chr(p, "dev/console", 0600, 5, 1, err);
        if (r >= 0)
                r = initramfs_add_chr(p, "dev/null", 0666, 1, 3, err);
        if (r >= 0)
                r = initramfs_add_text(p, "/etc/passwd", initramfs_passwd, 0644, err);
        if (r >= 0)
                r = initramfs_add_text(p, "/etc/group", initramfs_group, 0644, err);
        if (r >= 0)
                r = initramfs_add_text(p, "/etc/nsswitch.conf", initramfs_nsswitch, 0644, err);
        if (r >= 0)
                r = initramfs_add_text(p, "/etc/hosts", initramfs_hosts, 0644, err);
        if (r < 0)
                return r;

        if (!spec->agent_path)
                return error_setf(err, -EINVAL, "no agent given");
        r = initramfs_add_host(p, spec->agent_path, "/init", 0755, RANK_INIT, err);
        if (r < 0)
                return r;
        for (size_t i = 0; spec->binaries && spec->binaries[i]; i++) {
                r = initramfs_add_binary(p, spec->binaries[i], err);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; spec->files && spec->files[i]; i++) {
                r = initramfs_add_file_spec(p, spec->files[i], err);
                if (r < 0)
                        return r;
        }
        if (spec->modules_dir) {
                r = initramfs_add_modules(p, spec->modules_dir, spec->modules, err);
                if (r < 0)
                        return r;
        } else if (spec->modules && spec->modules[0])
                return error_setf(err, -EINVAL, "module %s asked for but the kernel has no modules directory",
                                  spec->modules[0]);
        else {
                r = initramfs_add_text(p, KB_GUEST_MODULES_LIST, "", 0644, err);
                if (r < 0)
                        return r;
        }
        /* Last, so that real binaries keep their places. */
        if (spec->busybox_path) {
                r = initramfs_add_busybox(p, spec->busybox_path, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static gint initramfs_cmp(gconstpointer a, gconstpointer b) {
        const struct initramfs_entry *x = *(struct initramfs_entry *const *)a;
        const struct initramfs_entry *y = *(struct initramfs_entry *const *)b;
        return strcmp(x->path, y->path);
}

/* Entries in path order: a parent sorts before its children because it is
 * their prefix. The array borrows the plan's entries. */
static GPtrArray *initramfs_sorted(struct initramfs_plan *p) {
        GPtrArray *v = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, p->entries);
        while (g_hash_table_iter_next(&it, NULL, &value))
                g_ptr_array_add(v, value);
        g_ptr_array_sort(v, initramfs_cmp);
        return v;
}

static char *initramfs_hash(GPtrArray *v) {
        g_autoptr(GChecksum) c = g_checksum_new(G_CHECKSUM_SHA256);

        g_checksum_update(c, (const guchar *)INITRAMFS_FORMAT, sizeof(INITRAMFS_FORMAT));
        for (guint i = 0; i < v->len; i++) {
                const struct initramfs_entry *e = v->pdata[i];
                char head[128];
                gsize n = 0;
                const void *d = e->data ? g_bytes_get_data(e->data, &n) : NULL;

                g_checksum_update(c, (const guchar *)e->path, (gssize)strlen(e->path) + 1);
                snprintf(head, sizeof(head), "%d %o %u %u %zu", (int)e->type, e->mode,
                         e->major, e->minor, (size_t)n);
                g_checksum_update(c, (const guchar *)head, (gssize)strlen(head) + 1);
                if (e->target)
                        g_checksum_update(c, (const guchar *)e->target, (gssize)strlen(e->target) + 1);
                if (n > 0)
                        g_checksum_update(c, d, (gssize)n);
        }
        return g_strdup(g_checksum_get_string(c));
}

static void initramfs_archive_freep(struct archive **a) {
        if (*a)
                archive_write_free(*a);
}

static void initramfs_entry_freep(struct archive_entry **e) {
        if (*e)
                archive_entry_free(*e);
}

static int initramfs_write(GPtrArray *v, int fd, struct kb_error *err) {
        _cleanup_(initramfs_archive_freep) struct archive *a = archive_write_new();
        _cleanup_(initramfs_entry_freep) struct archive_entry *ae = archive_entry_new();

        if (!a || !ae)
                return error_setf(err, -ENOMEM, "out of memory");
        if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
            archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
            /* No time stamp in the gzip header: same inputs, same bytes. */
            archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
            archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
            archive_write_open_fd(a, fd) != ARCHIVE_OK)
                return error_setf(err, -EIO, "libarchive: %s", archive_error_string(a));

        for (guint i = 0; i < v->len; i++) {
                const struct initramfs_entry *e = v->pdata[i];
                gsize n = 0;
                const void *d = e->data ? g_bytes_get_data(e->data, &n) : NULL;

                archive_entry_clear(ae);
                archive_entry_set_pathname(ae, e->path);
                archive_entry_set_uid(ae, 0);
                archive_entry_set_gid(ae, 0);
                archive_entry_set_mtime(ae, INITRAMFS_MTIME, 0);
                archive_entry_set_ino(ae, (la_int64_t)i + 1);
                archive_entry_set_dev(ae, 0);
                archive_entry_set_perm(ae, e->mode);
                archive_entry_set_size(ae, 0); /* the writer requires one; links add their text */
                switch (e->type) {
                case INITRAMFS_DIR:
                        archive_entry_set_filetype(ae, AE_IFDIR);
                        archive_entry_set_nlink(ae, 2);
                        break;
                case INITRAMFS_FILE:
                        archive_entry_set_filetype(ae, AE_IFREG);
                        archive_entry_set_nlink(ae, 1);
                        archive_entry_set_size(ae, (la_int64_t)n);
                        break;
                case INITRAMFS_SYMLINK:
                        archive_entry_set_filetype(ae, AE_IFLNK);
                        archive_entry_set_nlink(ae, 1);
                        archive_entry_set_symlink(ae, e->target);
                        break;
                case INITRAMFS_CHR:
                        archive_entry_set_filetype(ae, AE_IFCHR);
                        archive_entry_set_nlink(ae, 1);
                        archive_entry_set_rdevmajor(ae, e->major);
                        archive_entry_set_rdevminor(ae, e->minor);
                        break;
                }
                if (archive_write_header(a, ae) != ARCHIVE_OK)
                        return error_setf(err, -EIO, "/%s: %s", e->path, archive_error_string(a));
                if (n > 0 && archive_write_data(a, d, n) != (la_ssize_t)n)
                        return error_setf(err, -EIO, "/%s: %s", e->path, archive_error_string(a));
        }
        if (archive_write_close(a) != ARCHIVE_OK)
                return error_setf(err, -EIO, "libarchive: %s", archive_error_string(a));
        return 0;
}

int initramfs_build(const struct initramfs_spec *spec, const char *cache_dir,
                    char **ret_path, int *ret_cached, struct kb_error *err) {
        struct initramfs_plan plan = { 0 };
        g_autoptr(GPtrArray) sorted = NULL;
        g_autofree char *hash = NULL, *final = NULL, *tmp = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        r = initramfs_plan_build(&plan, spec, err);
        if (r < 0)
                goto out;
        sorted = initramfs_sorted(&plan);
        hash = initramfs_hash(sorted);
        final = g_strdup_printf("%s/initramfs-%s.cpio.gz", cache_dir, hash);
        if (stat(final, &st) == 0 && S_ISREG(st.st_mode)) {
                *ret_path = strdup(final);
                if (!*ret_path) {
                        r = error_setf(err, -ENOMEM, "out of memory");
                        goto out;
                }
                *ret_cached = 1;
                r = 0;
                goto out;
        }

        if (g_mkdir_with_parents(cache_dir, 0755) < 0) {
                r = error_setf(err, -errno, "%s: %s", cache_dir, strerror(errno));
                goto out;
        }
        tmp = g_strdup_printf("%s/.initramfs-%s.XXXXXX", cache_dir, hash);
        fd = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, 0644);
        if (fd < 0) {
                r = error_setf(err, -errno, "%s: %s", tmp, strerror(errno));
                goto out;
        }
        r = initramfs_write(sorted, fd, err);
        if (r >= 0 && fsync(fd) < 0)
                r = error_setf(err, -errno, "%s: %s", tmp, strerror(errno));
        if (r >= 0 && rename(tmp, final) < 0)
                r = error_setf(err, -errno, "%s: %s", final, strerror(errno));
        if (r < 0) {
                unlink(tmp);
                r = error_prefix(err, r, "%s", final);
                goto out;
        }
        *ret_path = strdup(final);
        if (!*ret_path) {
                r = error_setf(err, -ENOMEM, "out of memory");
                goto out;
        }
        *ret_cached = 0;
        r = 0;
out:
        initramfs_plan_clear(&plan);
        return r;
}
