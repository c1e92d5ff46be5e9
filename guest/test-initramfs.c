/* Tests for guest/initramfs.c on this machine's real inputs: static busybox,
 * the meson-built agent ($KBENCH_AGENT), GNU dd, bonnie++ and vsftpd with
 * their library closures; the image is read back with libarchive. With
 * KBENCH_INITRAMFS_TEST=integration the module closure is checked against a
 * real Debian kernel .deb from $KBENCH_DEBS (default /var/cache/kbench-debs),
 * extracted with dpkg-deb and indexed with depmod -b; skipped (77) only when
 * that directory is absent. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/test.h"
#include "guest/initramfs.h"

TEST_MAIN();

/* initramfs_build must succeed; show its message when it does not. */
#define BUILD_OK(spec, cache, path, cached, err) do {                           \
                if (initramfs_build(spec, cache, path, cached, err) < 0)        \
                        TEST_FAIL("initramfs_build: %s", (err)->msg);           \
        } while (0)

struct item {
        unsigned type;             /* AE_IFREG, AE_IFDIR, ... */
        unsigned mode;             /* permission bits */
        char *target;              /* symlink */
        GBytes *data;              /* regular file contents */
        unsigned major, minor;
        long long mtime, uid, gid;
        guint index;               /* position in the archive */
};

static void item_free(gpointer p) {
        struct item *it = p;
        g_free(it->target);
        if (it->data)
                g_bytes_unref(it->data);
        g_free(it);
}

/* Read the whole image: path -> struct item. Fails the test on any error or
 * on an entry that comes before its parent directory. */
static GHashTable *read_image(const char *path) {
        GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, item_free);
        struct archive *a = archive_read_new();
        struct archive_entry *ae;
        guint index = 0;

        archive_read_support_filter_gzip(a);
        archive_read_support_format_cpio(a);
        if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK)
                TEST_FAIL("%s: %s", path, archive_error_string(a));
        ASSERT_EQ(archive_filter_code(a, 0), ARCHIVE_FILTER_GZIP);
        while (archive_read_next_header(a, &ae) == ARCHIVE_OK) {
                struct item *it = g_new0(struct item, 1);
                const char *name = archive_entry_pathname(ae);
                char *slash = strrchr(name, '/');

                ASSERT_EQ(archive_format(a), ARCHIVE_FORMAT_CPIO_SVR4_NOCRC);
                if (slash) {
                        g_autofree char *parent = g_strndup(name, (gsize)(slash - name));
                        struct item *pi = g_hash_table_lookup(h, parent);
                        if (!pi || pi->type != AE_IFDIR)
                                TEST_FAIL("%s comes before its directory", name);
                }
                if (g_hash_table_contains(h, name))
                        TEST_FAIL("%s twice", name);
                it->type = archive_entry_filetype(ae);
                it->mode = archive_entry_perm(ae);
                it->mtime = archive_entry_mtime(ae);
                it->uid = archive_entry_uid(ae);
                it->gid = archive_entry_gid(ae);
                it->index = index++;
                if (it->type == AE_IFLNK)
                        it->target = g_strdup(archive_entry_symlink(ae));
                if (it->type == AE_IFCHR) {
                        it->major = archive_entry_rdevmajor(ae);
                        it->minor = archive_entry_rdevminor(ae);
                }
                if (it->type == AE_IFREG) {
                        la_int64_t n = archive_entry_size(ae);
                        char *buf = g_malloc(n > 0 ? (gsize)n : 1);
                        ASSERT_EQ(archive_read_data(a, buf, (size_t)n), n);
                        it->data = g_bytes_new_take(buf, (gsize)n);
                }
                g_hash_table_insert(h, g_strdup(name), it);
        }
        ASSERT_EQ(archive_read_free(a), ARCHIVE_OK);
        return h;
}

static struct item *get(GHashTable *h, const char *path, unsigned type) {
        struct item *it = g_hash_table_lookup(h, path);
        if (!it)
                TEST_FAIL("/%s missing from the image", path);
        if (it->type != type)
                TEST_FAIL("/%s: type %o, want %o", path, it->type, type);
        return it;
}

static GBytes *slurp(const char *path) {
        g_autofree char *data = NULL;
        gsize n;
        if (!g_file_get_contents(path, &data, &n, NULL))
                TEST_FAIL("cannot read %s", path);
        return g_bytes_new_take(g_steal_pointer(&data), n);
}

static void same_content(GHashTable *h, const char *path, const char *host) {
        g_autoptr(GBytes) want = slurp(host);
        struct item *it = get(h, path, AE_IFREG);
        if (!g_bytes_equal(it->data, want))
                TEST_FAIL("/%s differs from %s", path, host);
}

static const char *agent_path(void) {
        const char *a = getenv("KBENCH_AGENT");
        if (a && access(a, R_OK) < 0)
                TEST_FAIL("KBENCH_AGENT=%s: not readable", a);
        return a ? a : "/bin/busybox"; /* run by hand: any static binary will do */
}

static void need(const char *path) {
        if (access(path, R_OK) < 0)
                TEST_SKIP("%s not installed", path);
}

static int part_is(const char *want) {
        const char *p = getenv("KBENCH_INITRAMFS_TEST");
        return strcmp(p ? p : "unit", want) == 0;
}

static void rm_rf(const char *dir) {
        const char *argv[] = { "rm", "-rf", "--", dir, NULL };
        int status;
        ASSERT_TRUE(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                                 NULL, NULL, &status, NULL));
}

/* ---- unit: no kernel modules ---- */

TEST(image_contents) {
        g_autofree char *tmp = NULL, *cache = NULL, *job = NULL, *jobspec = NULL;
        g_autofree char *path = NULL, *path2 = NULL, *path3 = NULL, *path4 = NULL;
        g_autofree char *cache2 = NULL, *list = NULL;
        g_autoptr(GHashTable) h = NULL;
        g_autoptr(GBytes) b1 = NULL, b3 = NULL;
        g_auto(GStrv) applets = NULL;
        const char *binaries[] = { "/usr/bin/dd", "/usr/sbin/bonnie++", NULL };
        const char *files[] = { NULL, NULL };
        const char *bb_argv[] = { "/bin/busybox", "--list-full", NULL };
        struct initramfs_spec spec = { 0 };
        struct kb_error err = { "" };
        int cached = -1, shadowed = 0;
        struct item *it;

        if (!part_is("unit"))
                return;
        need("/bin/busybox");
        need("/usr/bin/dd");
        need("/usr/sbin/bonnie++");
        tmp = g_dir_make_tmp("test-initramfs-XXXXXX", NULL);
        cache = g_build_filename(tmp, "cache", NULL);
        cache2 = g_build_filename(tmp, "cache2", NULL);
        job = g_build_filename(tmp, "job.sh", NULL);
        ASSERT_TRUE(g_file_set_contents(job, "#!/bin/sh\necho hi\n", -1, NULL));
        ASSERT_EQ(chmod(job, 0750), 0);
        jobspec = g_strconcat(job, "=/etc/kbench/job", NULL);
        files[0] = jobspec;
        spec = (struct initramfs_spec){
                .agent_path = agent_path(), .busybox_path = "/bin/busybox",
                .binaries = binaries, .files = files,
        };

        BUILD_OK(&spec, cache, &path, &cached, &err);
        ASSERT_EQ(cached, 0);
        ASSERT_TRUE(g_str_has_prefix(path, cache));
        ASSERT_TRUE(g_str_has_suffix(path, ".cpio.gz"));
        ASSERT_EQ(strlen(strrchr(path, '/')), strlen("/initramfs-.cpio.gz") + 64);

        h = read_image(path);
        static const char *const dirs[] = {
                "bin", "sbin", "usr/bin", "usr/sbin", "lib", "lib64", "etc", "etc/kbench",
                "dev", "proc", "sys", "run", "tmp", "mnt", "root", "var/run",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++)
                get(h, dirs[i], AE_IFDIR);
        ASSERT_EQ(get(h, "tmp", AE_IFDIR)->mode, 01777);
        it = get(h, "dev/console", AE_IFCHR);
        ASSERT_EQ(it->major, 5);
        ASSERT_EQ(it->minor, 1);
        it = get(h, "dev/null", AE_IFCHR);
        ASSERT_EQ(it->major, 1);
        ASSERT_EQ(it->minor, 3);
        ASSERT_EQ(it->mode, 0666);

        ASSERT_EQ(get(h, "init", AE_IFREG)->mode, 0755);
        same_content(h, "init", agent_path());
        ASSERT_EQ(get(h, "bin/busybox", AE_IFREG)->mode, 0755);
        same_content(h, "bin/busybox", "/bin/busybox");
        same_content(h, "usr/bin/dd", "/usr/bin/dd");
        ASSERT_EQ(get(h, "usr/bin/dd", AE_IFREG)->mode, 0755);
        same_content(h, "usr/sbin/bonnie++", "/usr/sbin/bonnie++");
        /* busybox's dd would shadow GNU dd on PATH: no applet link for it. */
        ASSERT_TRUE(!g_hash_table_contains(h, "bin/dd"));

        /* Every applet is linked, unless a real binary of that name is there. */
        ASSERT_TRUE(g_spawn_sync(NULL, (char **)bb_argv, NULL, 0, NULL, NULL, &list, NULL, NULL, NULL));
        applets = g_strsplit(list, "\n", -1);
        ASSERT_TRUE(g_strv_length(applets) > 100);
        for (size_t i = 0; applets[i]; i++) {
                if (!applets[i][0] || strcmp(applets[i], "bin/busybox") == 0)
                        continue;
                it = g_hash_table_lookup(h, applets[i]);
                if (it && it->type == AE_IFLNK) {
                        ASSERT_STREQ(it->target, "/bin/busybox");
                        continue;
                }
                const char *base = strrchr(applets[i], '/') ? strrchr(applets[i], '/') + 1 : applets[i];
                if (strcmp(base, "dd") != 0)
                        TEST_FAIL("applet %s is not linked", applets[i]);
                shadowed++;
        }
        ASSERT_EQ(shadowed, 1);
        ASSERT_STREQ(get(h, "bin/sh", AE_IFLNK)->target, "/bin/busybox");

        /* The loader under its PT_INTERP name, a link to the real file. */
        ASSERT_STREQ(get(h, "lib64/ld-linux-x86-64.so.2", AE_IFLNK)->target,
                     "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
        same_content(h, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                     "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
        same_content(h, "lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6");
        ASSERT_EQ(get(h, "lib/x86_64-linux-gnu/libc.so.6", AE_IFREG)->mode, 0755);
        /* libstdc++.so.6 is a relative link on Debian: link and target both. */
        it = get(h, "lib/x86_64-linux-gnu/libstdc++.so.6", AE_IFLNK);
        {
                g_autofree char *t = g_strconcat("lib/x86_64-linux-gnu/", it->target, NULL);
                g_autofree char *host = g_strconcat("/", t, NULL);
                same_content(h, t, host);
        }
        get(h, "lib/x86_64-linux-gnu/libm.so.6", AE_IFREG);
        get(h, "lib/x86_64-linux-gnu/libgcc_s.so.1", AE_IFREG);

        /* SRC=DST keeps the mode; generated /etc files. */
        it = get(h, "etc/kbench/job", AE_IFREG);
        ASSERT_EQ(it->mode, 0750);
        same_content(h, "etc/kbench/job", job);
        ASSERT_EQ(g_bytes_get_size(get(h, "etc/kbench/modules", AE_IFREG)->data), 0);
        {
                gsize n;
                const char *pw = g_bytes_get_data(get(h, "etc/passwd", AE_IFREG)->data, &n);
                g_autofree char *s = g_strndup(pw, n);
                ASSERT_TRUE(g_str_has_prefix(s, "root:x:0:0:"));
                ASSERT_TRUE(strstr(s, "\nftp:x:") != NULL);
                ASSERT_TRUE(strstr(s, "\nnobody:x:65534:") != NULL);
                const char *gr = g_bytes_get_data(get(h, "etc/group", AE_IFREG)->data, &n);
                g_autofree char *g = g_strndup(gr, n);
                ASSERT_TRUE(g_str_has_prefix(g, "root:x:0:"));
        }

        /* Deterministic metadata, entries in strcmp order of their paths. */
        {
                GHashTableIter iter;
                gpointer k, v;
                guint n = g_hash_table_size(h);
                g_autofree const char **by_index = g_new0(const char *, n);
                g_hash_table_iter_init(&iter, h);
                while (g_hash_table_iter_next(&iter, &k, &v)) {
                        struct item *x = v;
                        ASSERT_EQ(x->mtime, 0);
                        ASSERT_EQ(x->uid, 0);
                        ASSERT_EQ(x->gid, 0);
                        ASSERT_TRUE(x->index < n);
                        by_index[x->index] = k;
                }
                for (guint i = 1; i < n; i++)
                        if (strcmp(by_index[i - 1], by_index[i]) >= 0)
                                TEST_FAIL("%s before %s", by_index[i - 1], by_index[i]);
        }

        /* Same inputs: cached, same file. */
        BUILD_OK(&spec, cache, &path2, &cached, &err);
        ASSERT_EQ(cached, 1);
        ASSERT_STREQ(path2, path);

        /* Same inputs in a fresh cache a second later: the same bytes. */
        sleep(1);
        BUILD_OK(&spec, cache2, &path3, &cached, &err);
        ASSERT_EQ(cached, 0);
        b1 = slurp(path);
        b3 = slurp(path3);
        ASSERT_TRUE(g_bytes_equal(b1, b3));

        /* One byte of one input changes: a new image. */
        ASSERT_TRUE(g_file_set_contents(job, "#!/bin/sh\necho ho\n", -1, NULL));
        BUILD_OK(&spec, cache, &path4, &cached, &err);
        ASSERT_EQ(cached, 0);
        ASSERT_TRUE(strcmp(path4, path) != 0);

        rm_rf(tmp);
}

TEST(errors_name_the_culprit) {
        g_autofree char *tmp = NULL, *cache = NULL, *path = NULL, *f1 = NULL, *f2 = NULL;
        g_autofree char *s1 = NULL, *s2 = NULL;
        const char *missing_bin[] = { "/usr/bin/no-such-binary-kbench", NULL };
        const char *relative_bin[] = { "usr/bin/dd", NULL };
        const char *mods[] = { "ext4", NULL };
        const char *clash[] = { NULL, NULL, NULL };
        const char *bad_file[] = { "/etc/hostname", NULL };
        struct initramfs_spec spec;
        struct kb_error err = { "" };
        int cached = -1;

        if (!part_is("unit"))
                return;
        need("/bin/busybox");
        tmp = g_dir_make_tmp("test-initramfs-XXXXXX", NULL);
        cache = g_build_filename(tmp, "cache", NULL);

        spec = (struct initramfs_spec){ .agent_path = agent_path(), .binaries = missing_bin };
        ASSERT_EQ(initramfs_build(&spec, cache, &path, &cached, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "/usr/bin/no-such-binary-kbench") != NULL);

        spec = (struct initramfs_spec){ .agent_path = agent_path(), .binaries = relative_bin };
        ASSERT_EQ(initramfs_build(&spec, cache, &path, &cached, &err), -EINVAL);

        spec = (struct initramfs_spec){ .agent_path = "/nonexistent/agent" };
        ASSERT_EQ(initramfs_build(&spec, cache, &path, &cached, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "/nonexistent/agent") != NULL);

        spec = (struct initramfs_spec){ .agent_path = agent_path(), .modules = mods };
        ASSERT_EQ(initramfs_build(&spec, cache, &path, &cached, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "ext4") != NULL);

        spec = (struct initramfs_spec){ .agent_path = agent_path(), .files = bad_file };
        ASSERT_EQ(initramfs_build(&spec, cache, &path, &cached, &err), -EINVAL);

        /* Two different files for one destination. */
        f1 = g_build_filename(tmp, "a", NULL);
        f2 = g_build_filename(tmp, "b", NULL);
        ASSERT_TRUE(g_file_set_contents(f1, "a\n", -1, NULL));
        ASSERT_TRUE(g_file_set_contents(f2, "b\n", -1, NULL));
        s1 = g_strconcat(f1, "=/etc/x", NULL);
        s2 = g_strconcat(f2, "=/etc/x", NULL);
        clash[0] = s1;
        clash[1] = s2;
        spec = (struct initramfs_spec){ .agent_path = agent_path(), .files = clash };
        ASSERT_EQ(initramfs_build(&spec, cache, &path, &cached, &err), -EEXIST);
        ASSERT_TRUE(strstr(err.msg, "/etc/x") != NULL);

        /* Nothing was left behind by the failures. */
        {
                GDir *d = g_dir_open(cache, 0, NULL);
                if (d) {
                        ASSERT_TRUE(g_dir_read_name(d) == NULL);
                        g_dir_close(d);
                }
        }
        ASSERT_TRUE(path == NULL);
        rm_rf(tmp);
}

/* ---- integration: a real Debian kernel's modules ---- */

/* modules.dep as module path -> NULL-terminated dependency paths. */
static GHashTable *read_modules_dep(const char *dir) {
        g_autofree char *p = g_build_filename(dir, "modules.dep", NULL), *text = NULL;
        g_auto(GStrv) lines = NULL;
        GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_strfreev);

        ASSERT_TRUE(g_file_get_contents(p, &text, NULL, NULL));
        lines = g_strsplit(text, "\n", -1);
        for (size_t i = 0; lines[i]; i++) {
                char *colon = strchr(lines[i], ':');
                if (!colon)
                        continue;
                *colon = 0;
                g_hash_table_insert(h, g_strdup(lines[i]), g_strsplit_set(g_strstrip(colon + 1), " ", -1));
        }
        return h;
}

static ssize_t index_of(char **v, const char *suffix) {
        for (size_t i = 0; v[i]; i++)
                if (g_str_has_suffix(v[i], suffix))
                        return (ssize_t)i;
        return -1;
}

TEST(debian_kernel_modules) {
        const char *debs = getenv("KBENCH_DEBS") ? getenv("KBENCH_DEBS") : "/var/cache/kbench-debs";
        g_autofree char *deb = NULL, *tmp = NULL, *root = NULL, *release = NULL, *moddir = NULL;
        g_autofree char *cmd = NULL, *cache = NULL, *cache2 = NULL, *path = NULL, *path2 = NULL, *path3 = NULL;
        g_autofree char *cmdout = NULL;
        g_autoptr(GHashTable) h = NULL, dep = NULL;
        g_autoptr(GBytes) b1 = NULL, b3 = NULL;
        g_auto(GStrv) order = NULL;
        const char *mods[] = { "ata_piix", "sd_mod", "ext4", "e1000", NULL };
        const char *bad[] = { "ext4", "no_such_module_kbench", NULL };
        const char *binaries[] = { "/usr/bin/dd", "/usr/sbin/bonnie++", "/usr/sbin/vsftpd", NULL };
        struct initramfs_spec spec;
        struct kb_error err = { "" };
        int cached = -1, status;
        gint64 t0, t1;
        struct stat st;
        GDir *d;

        if (!part_is("integration"))
                return;
        if (!g_file_test(debs, G_FILE_TEST_IS_DIR))
                TEST_SKIP("%s absent", debs);
        need("/bin/busybox");
        need("/usr/sbin/vsftpd");
        d = g_dir_open(debs, 0, NULL);
        ASSERT_TRUE(d != NULL);
        for (const char *n; (n = g_dir_read_name(d));) {
                /* Prefer a 6.1 kernel (the reference), the lowest name. */
                if (!g_str_has_prefix(n, "linux-image-6.1.") || !g_str_has_suffix(n, ".deb"))
                        continue;
                if (!deb || strcmp(n, strrchr(deb, '/') + 1) < 0) {
                        g_free(deb);
                        deb = g_build_filename(debs, n, NULL);
                }
        }
        g_dir_close(d);
        if (!deb)
                TEST_FAIL("no linux-image-6.1.*.deb in %s", debs);

        tmp = g_dir_make_tmp("test-initramfs-XXXXXX", NULL);
        root = g_build_filename(tmp, "root", NULL);
        ASSERT_EQ(g_mkdir_with_parents(root, 0755), 0);
        cmd = g_strdup_printf("dpkg-deb --fsys-tarfile '%s' | tar -x -C '%s' --wildcards './lib/modules/*'",
                              deb, root);
        ASSERT_TRUE(g_spawn_sync(NULL, (char *[]){ "sh", "-c", cmd, NULL }, NULL, G_SPAWN_SEARCH_PATH,
                                 NULL, NULL, NULL, NULL, &status, NULL));
        ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
        {
                g_autofree char *md = g_build_filename(root, "lib", "modules", NULL);
                d = g_dir_open(md, 0, NULL);
                ASSERT_TRUE(d != NULL);
                release = g_strdup(g_dir_read_name(d));
                g_dir_close(d);
                ASSERT_TRUE(release != NULL);
                moddir = g_build_filename(md, release, NULL);
        }
        ASSERT_TRUE(g_spawn_sync(NULL, (char *[]){ "depmod", "-b", root, release, NULL }, NULL,
                                 G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, NULL));
        ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));

        cache = g_build_filename(tmp, "cache", NULL);
        cache2 = g_build_filename(tmp, "cache2", NULL);
        spec = (struct initramfs_spec){
                .agent_path = agent_path(), .busybox_path = "/bin/busybox",
                .modules_dir = moddir, .modules = mods, .binaries = binaries,
        };
        t0 = g_get_monotonic_time();
        if (initramfs_build(&spec, cache, &path, &cached, &err) < 0)
                TEST_FAIL("%s", err.msg);
        t1 = g_get_monotonic_time();
        ASSERT_EQ(cached, 0);
        ASSERT_EQ(stat(path, &st), 0);
        fprintf(stderr, "%s: %lld bytes, built in %.3f s\n", release, (long long)st.st_size,
                (double)(t1 - t0) / 1e6);

        h = read_image(path);
        {
                g_autofree char *p = g_strdup_printf("lib/modules/%s", release);
                get(h, p, AE_IFDIR);
        }
        {
                struct item *it = get(h, "etc/kbench/modules", AE_IFREG);
                gsize n;
                const char *s = g_bytes_get_data(it->data, &n);
                g_autofree char *text = g_strndup(s, n);
                cmdout = g_strdup(text);
                order = g_strsplit(g_strchomp(text), "\n", -1);
        }
        fprintf(stderr, "load order:\n%s", cmdout);
        static const char *const want[] = {
                "/ata_piix.ko", "/libata.ko", "/sd_mod.ko", "/scsi_mod.ko", "/ext4.ko", "/jbd2.ko",
                "/mbcache.ko", "/crc16.ko", "/crc32c_generic.ko", "/e1000.ko",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
                if (index_of(order, want[i]) < 0)
                        TEST_FAIL("%s missing from /etc/kbench/modules", want[i]);
        /* The softdep: crc32c before ext4 and jbd2. */
        ASSERT_TRUE(index_of(order, "/crc32c_generic.ko") < index_of(order, "/jbd2.ko"));
        ASSERT_TRUE(index_of(order, "/crc32c_generic.ko") < index_of(order, "/ext4.ko"));

        /* Every module's modules.dep dependencies come before it, once each,
         * and each listed module is in the image with the host's bytes. */
        dep = read_modules_dep(moddir);
        for (size_t i = 0; order[i]; i++) {
                char **deps = g_hash_table_lookup(dep, order[i]);
                g_autofree char *ip = g_strdup_printf("lib/modules/%s/%s", release, order[i]);
                g_autofree char *hp = g_build_filename(moddir, order[i], NULL);

                if (!deps)
                        TEST_FAIL("%s not in modules.dep", order[i]);
                for (size_t j = 0; j < i; j++)
                        ASSERT_TRUE(strcmp(order[i], order[j]) != 0);
                for (size_t k = 0; deps[k]; k++) {
                        if (!deps[k][0])
                                continue;
                        ssize_t at = index_of(order, deps[k]);
                        if (at < 0 || (size_t)at >= i)
                                TEST_FAIL("%s needs %s earlier", order[i], deps[k]);
                }
                same_content(h, ip, hp);
                ASSERT_EQ(get(h, ip, AE_IFREG)->mode, 0644);
        }
        same_content(h, "usr/sbin/vsftpd", "/usr/sbin/vsftpd");
        get(h, "lib/x86_64-linux-gnu/libkrb5support.so.0", AE_IFLNK);

        t0 = g_get_monotonic_time();
        BUILD_OK(&spec, cache, &path2, &cached, &err);
        t1 = g_get_monotonic_time();
        ASSERT_EQ(cached, 1);
        ASSERT_STREQ(path2, path);
        fprintf(stderr, "cached lookup in %.3f s\n", (double)(t1 - t0) / 1e6);
        BUILD_OK(&spec, cache2, &path3, &cached, &err);
        ASSERT_EQ(cached, 0);
        b1 = slurp(path);
        b3 = slurp(path3);
        ASSERT_TRUE(g_bytes_equal(b1, b3));

        /* A module built into this kernel is skipped without error. */
        {
                g_autofree char *bp = g_build_filename(moddir, "modules.builtin", NULL), *text = NULL;
                g_autofree char *name = NULL, *p4 = NULL;
                g_autoptr(GHashTable) h4 = NULL;
                const char *builtin[] = { NULL, NULL };
                struct item *it;
                ASSERT_TRUE(g_file_get_contents(bp, &text, NULL, NULL));
                *strchrnul(text, '\n') = 0;
                name = g_path_get_basename(text);
                ASSERT_TRUE(g_str_has_suffix(name, ".ko"));
                name[strlen(name) - 3] = 0;
                builtin[0] = name;
                spec.modules = builtin;
                BUILD_OK(&spec, cache, &p4, &cached, &err);
                h4 = read_image(p4);
                it = get(h4, "etc/kbench/modules", AE_IFREG);
                ASSERT_EQ(g_bytes_get_size(it->data), 0);
                fprintf(stderr, "builtin %s skipped\n", name);
        }

        g_free(path2);
        path2 = NULL;
        spec.modules = bad;
        ASSERT_EQ(initramfs_build(&spec, cache, &path2, &cached, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no_such_module_kbench") != NULL);
        ASSERT_TRUE(path2 == NULL);

        rm_rf(tmp);
}
