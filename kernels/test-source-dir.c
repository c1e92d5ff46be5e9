/* Unit tests for kernels/source_dir and kernels/source_state: a drop
 * directory holding a real (synthetic) .deb, a bzImage, an ELF vmlinux and
 * the things a scan must pass over (notes, dot files, partial downloads,
 * empty and fresh files, a file whose size keeps changing); the listed files
 * are imported with kstore_add and marked, and the next scan lists nothing
 * until one of them changes. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/util.h"
#include "kernels/kstore.h"
#include "kernels/source_dir.h"
#include "kernels/source_state.h"
#include "common/test-scratch.h"
#include "kernels/test-fixtures.h"

TEST_MAIN();

static char *path_in(const char *sub, const char *name) {
        return g_build_filename(test_scratch("source-dir-XXXXXX"), sub, name, NULL);
}

/* Write data to sub/name with an mtime age_s seconds in the past. */
static char *put(const char *sub, const char *name, const GByteArray *data, double age_s) {
        char *p = path_in(sub, name);
        g_autofree char *dir = g_path_get_dirname(p);
        struct timespec ts[2];

        g_mkdir_with_parents(dir, 0755);
        if (!g_file_set_contents(p, data ? (const char *)data->data : "", data ? (gssize)data->len : 0, NULL))
                TEST_FAIL("cannot write %s", p);
        clock_gettime(CLOCK_REALTIME, &ts[0]);
        ts[0].tv_sec -= (time_t)age_s;
        ts[1] = ts[0];
        ASSERT_EQ(utimensat(AT_FDCWD, p, ts, 0), 0);
        return p;
}

static GByteArray *text(const char *s) {
        GByteArray *b = g_byte_array_new();
        g_byte_array_append(b, (const guint8 *)s, (guint)strlen(s));
        return b;
}

static const struct source_dir_opts fast = { .settle_s = 5, .probe_ms = 50 };

/* The drop directory of the tests: three kernels and seven decoys. */
static const char *drop(void) {
        static char *dir;
        if (dir)
                return dir;
        GByteArray *img = fx_kernel("xz"), *elf = fx_elf(1, "Linux version " FX_VERSION "\n");
        struct fx_file files[] = { { "./boot/vmlinuz-" FX_RELEASE, img, NULL } };
        GByteArray *tar = fx_tar_xz(files, 1);
        g_autofree char *deb = path_in("drop", "linux-image-" FX_RELEASE "_amd64.deb");
        g_autofree char *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL, *p5 = NULL, *p6 = NULL, *p7 = NULL;
        g_autofree char *p8 = NULL, *p9 = NULL;
        struct timespec ts[2];

        dir = path_in("drop", "");
        g_mkdir_with_parents(dir, 0755);
        fx_write_deb(deb, tar);
        clock_gettime(CLOCK_REALTIME, &ts[0]);
        ts[0].tv_sec -= 60;
        ts[1] = ts[0];
        ASSERT_EQ(utimensat(AT_FDCWD, deb, ts, 0), 0);
        p1 = put("drop", "a-bzImage", img, 60);
        p2 = put("drop", "vmlinux", elf, 60);
        p3 = put("drop", "README", text("drop kernels here\n"), 60);
        p4 = put("drop", ".hidden.deb", img, 60);
        p5 = put("drop", "next.deb.part", img, 60);
        p6 = put("drop", "fresh-bzImage", img, 0);
        p7 = put("drop", "empty.deb", NULL, 60);
        p8 = put("drop", "sub/inner-bzImage", img, 60);
        p9 = put("drop", "backup-bzImage~", img, 60);
        g_byte_array_unref(img);
        g_byte_array_unref(elf);
        g_byte_array_unref(tar);
        return dir;
}

static char **scan(struct source_state *state, size_t *n) {
        char **paths = NULL;
        struct kb_error err = { { 0 } };

        if (source_dir_scan(drop(), state, &fast, &paths, n, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(g_strv_length(paths), *n);
        return paths;
}

static void assert_names(char **paths, size_t n, const char *const *names, size_t m) {
        ASSERT_EQ(n, m);
        for (size_t i = 0; i < m; i++) {
                g_autofree char *base = g_path_get_basename(paths[i]);
                ASSERT_TRUE(g_path_is_absolute(paths[i]));
                ASSERT_STREQ(base, names[i]);
        }
}

TEST(lists_settled_kernel_files_in_name_order) {
        static const char *const want[] = { "a-bzImage", "linux-image-" FX_RELEASE "_amd64.deb", "vmlinux" };
        size_t n;
        g_auto(GStrv) paths = scan(NULL, &n);

        assert_names(paths, n, want, 3);
}

TEST(import_mark_and_rescan) {
        g_autofree char *store_dir = path_in("store", ""), *state_path = path_in("store", "sources/state.json");
        struct kstore *store = NULL;
        struct source_state *state = NULL;
        struct kb_error err = { { 0 } };
        size_t n;
        char **paths;

        ASSERT_EQ(kstore_open(store_dir, &store, &err), 0);
        ASSERT_EQ(source_state_open(state_path, &state, &err), 0);
        paths = scan(state, &n);
        ASSERT_EQ(n, 3);
        /* The deb and the bzImage hold the same image: the second is a no-op
         * in the store, but both are imported files and are marked. */
        for (size_t i = 0; i < n; i++) {
                struct kstore_kernel *k = NULL;
                int existed = 0;
                g_autofree char *name = g_strdup_printf("k%zu", i);
                if (kstore_add(store, paths[i], name, &k, &existed, &err) < 0)
                        TEST_FAIL("%s", err.msg);
                kstore_kernel_free(k);
                ASSERT_EQ(source_dir_mark(state, paths[i], &err), 0);
        }
        g_strfreev(paths);
        ASSERT_EQ(source_state_save(state, &err), 0);
        source_state_free(state);

        /* A new process (a new night) reads the state back: nothing is new. */
        ASSERT_EQ(source_state_open(state_path, &state, &err), 0);
        paths = scan(state, &n);
        ASSERT_EQ(n, 0);
        g_strfreev(paths);

        /* A replaced file (new mtime, settled) is new again. */
        {
                g_autofree char *p = path_in("drop", "vmlinux");
                struct timespec ts[2];
                static const char *const want[] = { "vmlinux" };
                clock_gettime(CLOCK_REALTIME, &ts[0]);
                ts[0].tv_sec -= 30;
                ts[1] = ts[0];
                ASSERT_EQ(utimensat(AT_FDCWD, p, ts, 0), 0);
                paths = scan(state, &n);
                assert_names(paths, n, want, 1);
                g_strfreev(paths);
        }
        source_state_free(state);
        kstore_free(store);
}

/* A writer that appends to a file and puts back the same old mtime after
 * every write (as a copy preserving times might): only the size betrays it. */
TEST(a_file_still_growing_is_left) {
        GByteArray *img = fx_kernel("xz");
        g_autofree char *p = put("grow", "growing-bzImage", img, 60);
        g_autofree char *dir = path_in("grow", "");
        struct source_dir_opts slow = { .settle_s = 5, .probe_ms = 300 };
        struct kb_error err = { { 0 } };
        char **paths = NULL;
        size_t n;
        struct timespec ts[2];
        pid_t pid;

        clock_gettime(CLOCK_REALTIME, &ts[0]);
        ts[0].tv_sec -= 60;
        ts[1] = ts[0];
        pid = fork();

        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                for (int i = 0; i < 200; i++) {
                        FILE *f = fopen(p, "a");
                        if (!f)
                                _exit(1);
                        fputc('x', f);
                        fclose(f);
                        utimensat(AT_FDCWD, p, ts, 0);
                        usleep(10000);
                }
                _exit(0);
        }
        usleep(50000);
        ASSERT_EQ(source_dir_scan(dir, NULL, &slow, &paths, &n, &err), 0);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        ASSERT_EQ(n, 0);
        g_strfreev(paths);
        /* Once the writer is gone the same file is listed. */
        ASSERT_EQ(source_dir_scan(dir, NULL, &slow, &paths, &n, &err), 0);
        ASSERT_EQ(n, 1);
        g_strfreev(paths);
        g_byte_array_unref(img);
}

TEST(errors_name_the_directory_or_file) {
        g_autofree char *missing = path_in("no-such-dir", ""), *expect = NULL, *bad = NULL;
        struct source_state *state = NULL;
        struct kb_error err = { { 0 } };
        char **paths = NULL;
        size_t n;

        ASSERT_EQ(source_dir_scan(missing, NULL, &fast, &paths, &n, &err), -ENOENT);
        expect = g_strdup_printf("%s: No such file or directory", missing);
        ASSERT_STREQ(err.msg, expect);
        g_free(expect);
        bad = put("state", "state.json", text("[1, 2]"), 0);
        ASSERT_EQ(source_state_open(bad, &state, &err), -EINVAL);
        expect = g_strdup_printf("%s: not a JSON object", bad);
        ASSERT_STREQ(err.msg, expect);
}
