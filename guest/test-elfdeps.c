/* Unit tests for guest/elfdeps.c on this machine's real binaries (GNU dd,
 * bonnie++, vsftpd, static busybox) and on the small ELF files of the fuzz
 * corpus (built with gcc -nostdlib, some with DT_RUNPATH / DT_RPATH, plus
 * truncated and corrupted variants). */
#include <elf.h>
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "guest/elfdeps.h"

TEST_MAIN();

#define CORPUS ELFDEPS_CORPUS "/"

static int strv_has(char **v, const char *s) {
        for (size_t i = 0; v && v[i]; i++)
                if (strcmp(v[i], s) == 0)
                        return 1;
        return 0;
}

static int strv_has_suffix(char **v, const char *s) {
        for (size_t i = 0; v && v[i]; i++)
                if (g_str_has_suffix(v[i], s))
                        return 1;
        return 0;
}

static void need(const char *path) {
        if (access(path, R_OK) < 0)
                TEST_SKIP("%s not installed", path);
}

TEST(parse_gnu_dd) {
        struct elfdeps_info *info = NULL;
        struct kb_error err;

        need("/usr/bin/dd");
        ASSERT_EQ(elfdeps_parse_file("/usr/bin/dd", &info, &err), 0);
        ASSERT_EQ(info->machine, EM_X86_64);
        ASSERT_STREQ(info->interp, "/lib64/ld-linux-x86-64.so.2");
        ASSERT_TRUE(info->dynamic);
        ASSERT_TRUE(strv_has(info->needed, "libc.so.6"));
        ASSERT_TRUE(info->runpath == NULL);
        ASSERT_TRUE(info->rpath == NULL);
        elfdeps_info_free(info);
}

TEST(parse_static_busybox) {
        struct elfdeps_info *info = NULL;
        struct kb_error err;

        need("/bin/busybox");
        ASSERT_EQ(elfdeps_parse_file("/bin/busybox", &info, &err), 0);
        ASSERT_TRUE(info->interp == NULL);
        ASSERT_TRUE(info->needed[0] == NULL);
        elfdeps_info_free(info);
}

TEST(parse_runpath_and_rpath) {
        struct elfdeps_info *info = NULL;
        struct kb_error err;

        ASSERT_EQ(elfdeps_parse_file(CORPUS "runpath-lib.so", &info, &err), 0);
        ASSERT_EQ(info->type, ET_DYN);
        ASSERT_TRUE(info->interp == NULL);
        ASSERT_STREQ(info->needed[0], "libc.so.6");
        ASSERT_TRUE(info->needed[1] == NULL);
        ASSERT_STREQ(info->runpath[0], "$ORIGIN/../lib");
        ASSERT_STREQ(info->runpath[1], "/opt/x");
        ASSERT_TRUE(info->runpath[2] == NULL);
        ASSERT_TRUE(info->rpath == NULL);
        elfdeps_info_free(info);

        ASSERT_EQ(elfdeps_parse_file(CORPUS "rpath-lib.so", &info, &err), 0);
        ASSERT_TRUE(info->runpath == NULL);
        ASSERT_STREQ(info->rpath[0], "${ORIGIN}/sub");
        ASSERT_TRUE(info->rpath[1] == NULL);
        elfdeps_info_free(info);

        ASSERT_EQ(elfdeps_parse_file(CORPUS "static-exe", &info, &err), 0);
        ASSERT_TRUE(!info->dynamic && !info->interp && !info->needed[0]);
        elfdeps_info_free(info);
}

TEST(parse_rejects_malformed) {
        static const struct { const char *file; int r; } cases[] = {
                { "empty", -ENOEXEC },
                { "magic-only", -ENOEXEC },
                { "garbage-text", -ENOEXEC },
                { "trunc-header", -ENOEXEC },
                { "trunc-64", -ENOEXEC },      /* program headers cut off */
                { "class32", -EPROTONOSUPPORT },
                { "bigendian", -EPROTONOSUPPORT },
                { "phoff-huge", -ENOEXEC },
                { "phnum-xnum", -ENOEXEC },
                { "phentsize-small", -ENOEXEC },
                { "interp-unterminated", -ENOEXEC },
                { "needed-index-huge", -ENOEXEC },
                { "strtab-unmapped", -ENOEXEC },
                { "ph1-type3-filesz-huge", -ENOEXEC },
                { "ph4-type2-offset-end", -ENOEXEC },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                g_autofree char *p = g_strconcat(CORPUS, cases[i].file, NULL);
                struct elfdeps_info *info = NULL;
                struct kb_error err = { "" };
                int r = elfdeps_parse_file(p, &info, &err);
                if (r != cases[i].r)
                        TEST_FAIL("%s: got %d (%s), want %d", cases[i].file, r, err.msg, cases[i].r);
                ASSERT_TRUE(info == NULL);
                ASSERT_TRUE(strstr(err.msg, cases[i].file) != NULL);
        }
}

TEST(parse_strsz_clamped) {
        /* DT_STRSZ beyond the file is clamped to the segment: still parses. */
        struct elfdeps_info *info = NULL;
        struct kb_error err;

        ASSERT_EQ(elfdeps_parse_file(CORPUS "strsz-huge", &info, &err), 0);
        ASSERT_STREQ(info->needed[0], "libc.so.6");
        elfdeps_info_free(info);
}

TEST(closure_dd) {
        g_auto(GStrv) v = NULL;
        struct kb_error err;

        need("/usr/bin/dd");
        ASSERT_EQ(elfdeps_closure("/usr/bin/dd", &v, &err), 0);
        ASSERT_STREQ(v[0], "/lib64/ld-linux-x86-64.so.2");
        ASSERT_STREQ(v[1], "/lib/x86_64-linux-gnu/libc.so.6");
        ASSERT_TRUE(v[2] == NULL);
}

TEST(closure_bonnie_and_vsftpd) {
        g_auto(GStrv) b = NULL, f = NULL;
        struct kb_error err;

        need("/usr/sbin/bonnie++");
        ASSERT_EQ(elfdeps_closure("/usr/sbin/bonnie++", &b, &err), 0);
        ASSERT_STREQ(b[0], "/lib64/ld-linux-x86-64.so.2");
        ASSERT_TRUE(strv_has_suffix(b, "/libstdc++.so.6"));
        ASSERT_TRUE(strv_has_suffix(b, "/libgcc_s.so.1"));
        ASSERT_TRUE(strv_has_suffix(b, "/libm.so.6"));   /* needed by libstdc++, not bonnie++ */
        ASSERT_TRUE(strv_has(b, "/lib/x86_64-linux-gnu/libc.so.6"));
        ASSERT_EQ(g_strv_length(b), 5);

        need("/usr/sbin/vsftpd");
        ASSERT_EQ(elfdeps_closure("/usr/sbin/vsftpd", &f, &err), 0);
        /* indirect: vsftpd -> libkrb5 (via libgssapi_krb5 / libtirpc) -> libkrb5support */
        ASSERT_TRUE(strv_has_suffix(f, "/libkrb5support.so.0"));
        ASSERT_TRUE(strv_has_suffix(f, "/libssl.so.3"));
        ASSERT_TRUE(strv_has_suffix(f, "/libcrypto.so.3"));
        for (size_t i = 0; f[i]; i++)
                for (size_t j = i + 1; f[j]; j++)
                        ASSERT_TRUE(strcmp(f[i], f[j]) != 0);
}

TEST(closure_static_is_empty) {
        g_auto(GStrv) v = NULL;
        struct kb_error err;

        need("/bin/busybox");
        ASSERT_EQ(elfdeps_closure("/bin/busybox", &v, &err), 0);
        ASSERT_TRUE(v[0] == NULL);
}

static void copy(const char *from, const char *to) {
        g_autofree char *data = NULL;
        gsize n;

        ASSERT_TRUE(g_file_get_contents(from, &data, &n, NULL));
        ASSERT_TRUE(g_file_set_contents(to, data, (gssize)n, NULL));
}

TEST(closure_origin_search) {
        g_autofree char *tmp = g_dir_make_tmp("elfdeps-XXXXXX", NULL);
        g_autofree char *bin = g_build_filename(tmp, "bin", NULL);
        g_autofree char *lib = g_build_filename(tmp, "lib", NULL);
        g_autofree char *sub = g_build_filename(tmp, "bin", "sub", NULL);
        g_autofree char *rp = g_build_filename(bin, "runpath-lib.so", NULL);
        g_autofree char *rr = g_build_filename(bin, "rpath-lib.so", NULL);
        g_autofree char *fake = g_build_filename(lib, "libc.so.6", NULL);
        g_autofree char *fake2 = g_build_filename(sub, "libc.so.6", NULL);
        g_autofree char *want = NULL, *want2 = NULL, *data = NULL;
        g_auto(GStrv) v = NULL, w = NULL, x = NULL;
        struct kb_error err;
        gsize n;

        ASSERT_TRUE(tmp != NULL);
        ASSERT_EQ(g_mkdir_with_parents(sub, 0755), 0);
        ASSERT_EQ(g_mkdir_with_parents(lib, 0755), 0);
        copy(CORPUS "runpath-lib.so", rp);
        copy(CORPUS "rpath-lib.so", rr);
        copy(CORPUS "static-exe", fake);
        copy(CORPUS "static-exe", fake2);

        /* $ORIGIN/../lib wins over the system directories. */
        ASSERT_EQ(elfdeps_closure(rp, &v, &err), 0);
        want = g_build_filename(bin, "..", "lib", "libc.so.6", NULL);
        ASSERT_STREQ(v[0], want);
        ASSERT_TRUE(v[1] == NULL);

        /* ${ORIGIN}/sub through DT_RPATH. */
        ASSERT_EQ(elfdeps_closure(rr, &w, &err), 0);
        want2 = g_build_filename(bin, "sub", "libc.so.6", NULL);
        ASSERT_STREQ(w[0], want2);

        /* A candidate for another machine is skipped: back to the system libc. */
        ASSERT_TRUE(g_file_get_contents(fake2, &data, &n, NULL));
        data[18] = (char)EM_AARCH64;
        ASSERT_TRUE(g_file_set_contents(fake2, data, (gssize)n, NULL));
        ASSERT_EQ(elfdeps_closure(rr, &x, &err), 0);
        ASSERT_STREQ(x[0], "/lib/x86_64-linux-gnu/libc.so.6");

        g_unlink(fake);
        g_unlink(fake2);
        g_unlink(rp);
        g_unlink(rr);
        g_rmdir(sub);
        g_rmdir(lib);
        g_rmdir(bin);
        g_rmdir(tmp);
}

TEST(closure_missing_library_is_named) {
        g_autofree char *tmp = g_dir_make_tmp("elfdeps-XXXXXX", NULL);
        g_autofree char *exe = g_build_filename(tmp, "exe", NULL);
        g_autofree char *data = NULL;
        g_auto(GStrv) v = NULL;
        struct kb_error err = { "" };
        char *hit;
        gsize n;

        ASSERT_TRUE(g_file_get_contents(CORPUS "dyn-exe", &data, &n, NULL));
        hit = memmem(data, n, "libc.so.6", 10);
        ASSERT_TRUE(hit != NULL);
        hit[3] = 'q'; /* libq.so.6 */
        ASSERT_TRUE(g_file_set_contents(exe, data, (gssize)n, NULL));
        ASSERT_EQ(elfdeps_closure(exe, &v, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "libq.so.6") != NULL);
        ASSERT_TRUE(v == NULL);
        g_unlink(exe);
        g_rmdir(tmp);
}
