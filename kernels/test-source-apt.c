/* Unit tests for kernels/source_apt: the three parsers on output captured
 * from the host's APT (tests/nightly/apt/, see its README), malformed lines,
 * and source_apt_sync driven through stand-in apt-cache / apt-get scripts
 * that print the captured output and "download" files of known content, so
 * the missing versions, the scratch directory, the SHA256 check and the
 * second night's nothing-to-do are checked without the network. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "common/util.h"
#include "kernels/source_apt.h"
#include "common/test-scratch.h"
#include "common/test.h"

TEST_MAIN();

static char *tpath(const char *rel) {
        return g_build_filename(test_scratch("source-apt-XXXXXX"), rel, NULL);
}

static char *fixture_path(const char *name) {
        const char *src = getenv("KBENCH_SOURCE_ROOT");
        if (!src)
                TEST_FAIL("KBENCH_SOURCE_ROOT is not set (meson sets it)");
        return g_build_filename(src, "tests", "nightly", "apt", name, NULL);
}

static char *fixture(const char *name) {
        g_autofree char *p = fixture_path(name);
        char *text = NULL;
        if (!g_file_get_contents(p, &text, NULL, NULL))
                TEST_FAIL("cannot read %s", p);
        return text;
}

#define UNSIGNED_5X "linux-image-6.1.0-5?-amd64-unsigned"

TEST(pkgnames_filtered_by_the_glob) {
        g_autofree char *text = fixture("pkgnames-linux-image-6.1.0-5.txt");
        g_auto(GStrv) names = NULL;
        size_t n;
        static const char *const want[] = {
                "linux-image-6.1.0-50-amd64-unsigned", "linux-image-6.1.0-53-amd64-unsigned",
                "linux-image-6.1.0-54-amd64-unsigned", "linux-image-6.1.0-55-amd64-unsigned",
                "linux-image-6.1.0-56-amd64-unsigned", "linux-image-6.1.0-57-amd64-unsigned",
        };

        ASSERT_EQ(source_apt_parse_pkgnames(text, UNSIGNED_5X, &names, &n), 0);
        ASSERT_EQ(n, G_N_ELEMENTS(want));
        for (size_t i = 0; i < n; i++)
                ASSERT_STREQ(names[i], want[i]);
        g_strfreev(names);
        /* The signed images of the same ABIs: 50..57, and never the -dbg ones. */
        ASSERT_EQ(source_apt_parse_pkgnames(text, "linux-image-6.1.0-5[0-9]-amd64", &names, &n), 0);
        ASSERT_EQ(n, 8);
        ASSERT_STREQ(names[1], "linux-image-6.1.0-51-amd64");
}

TEST(madison_versions) {
        g_autofree char *text = fixture("madison-linux-image-6.1.0-5x-amd64-unsigned.txt");
        g_autofree char *two = fixture("madison-linux-image-amd64.txt"), *vim = fixture("madison-vim.txt");
        char *names[] = { "linux-image-6.1.0-55-amd64-unsigned", "linux-image-6.1.0-57-amd64-unsigned", NULL };
        char *image[] = { "linux-image-amd64", NULL };
        struct kb_error err = { { 0 } };
        struct apt_version *v = NULL;
        size_t n;

        ASSERT_EQ(source_apt_parse_madison(text, NULL, &v, &n, &err), 0);
        ASSERT_EQ(n, 6);
        ASSERT_STREQ(v[0].package, "linux-image-6.1.0-50-amd64-unsigned");
        ASSERT_STREQ(v[0].version, "6.1.176-1");
        ASSERT_STREQ(v[0].arch, "amd64");
        ASSERT_STREQ(v[5].package, "linux-image-6.1.0-57-amd64-unsigned");
        ASSERT_STREQ(v[5].version, "6.1.192-3");
        ASSERT_TRUE(!v[5].file && !v[5].sha256);
        apt_versions_free(v, n);

        ASSERT_EQ(source_apt_parse_madison(text, names, &v, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(v[0].version, "6.1.192-1");
        ASSERT_STREQ(v[1].version, "6.1.192-3");
        apt_versions_free(v, n);

        /* Two versions of one name; the other name is not asked for. */
        ASSERT_EQ(source_apt_parse_madison(two, image, &v, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(v[0].version, "6.1.192-3");
        ASSERT_STREQ(v[1].version, "6.1.176-1");
        apt_versions_free(v, n);

        /* A padded name and an epoch. */
        ASSERT_EQ(source_apt_parse_madison(vim, NULL, &v, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(v[0].package, "vim");
        ASSERT_STREQ(v[0].version, "2:9.0.1378-2+deb12u2");
        apt_versions_free(v, n);
}

TEST(madison_skips_sources_and_rejects_garbage) {
        /* Not a capture: this host has no deb-src lines, so the Sources line
         * (what madison prints for a source package of that name) is
         * written by hand in the same layout as the captured lines. */
        static const char with_src[] =
                "     linux | 6.1.192-3 | http://deb.debian.org/debian-security bookworm-security/main Sources\n"
                "linux-image-amd64 |  6.1.192-3 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages\n"
                "linux-image-amd64 |  6.1.192-3 | http://mirror.example.org/debian-security bookworm-security/main amd64 Packages\n";
        static const struct { const char *text, *msg; } bad[] = {
                { "linux-image-amd64 6.1.192-3\n", "apt-cache madison: unexpected line 'linux-image-amd64 6.1.192-3'" },
                { "a | b | c | d\n", "apt-cache madison: unexpected line 'a | b | c | d'" },
                { "../../etc | 1.0 | http://x main amd64 Packages\n",
                  "apt-cache madison: unexpected line '../../etc | 1.0 | http://x main amd64 Packages'" },
                { "pkg | 1.0;rm | http://x main amd64 Packages\n",
                  "apt-cache madison: unexpected line 'pkg | 1.0;rm | http://x main amd64 Packages'" },
                { "pkg | 1.0 | http://x main amd64 Packagez\n",
                  "apt-cache madison: unexpected line 'pkg | 1.0 | http://x main amd64 Packagez'" },
        };
        struct kb_error err = { { 0 } };
        struct apt_version *v = NULL;
        size_t n;

        ASSERT_EQ(source_apt_parse_madison(with_src, NULL, &v, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(v[0].package, "linux-image-amd64");
        apt_versions_free(v, n);
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                v = NULL;
                ASSERT_EQ(source_apt_parse_madison(bad[i].text, NULL, &v, &n, &err), -EBADMSG);
                ASSERT_TRUE(v == NULL);
                ASSERT_STREQ(err.msg, bad[i].msg);
        }
}

TEST(print_uris_fill_file_and_hash) {
        g_autofree char *madison = fixture("madison-linux-image-6.1.0-5x-amd64-unsigned.txt");
        g_autofree char *vim = fixture("madison-vim.txt");
        g_autofree char *uris = fixture("print-uris-linux-image-6.1.0-5x-amd64-unsigned.txt");
        g_autofree char *both = g_strconcat(madison, vim, NULL);
        struct kb_error err = { { 0 } };
        struct apt_version *v = NULL;
        size_t n;

        ASSERT_EQ(source_apt_parse_madison(both, NULL, &v, &n, &err), 0);
        ASSERT_EQ(n, 7);
        if (source_apt_parse_print_uris(uris, v, n, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_STREQ(v[5].file, "linux-image-6.1.0-57-amd64-unsigned_6.1.192-3_amd64.deb");
        ASSERT_STREQ(v[5].sha256, "f43a8dbe0b318a5491880233bb20982dc9cc8ef103dd361cd56499eea15c5191");
        ASSERT_EQ(v[5].size, 70584724);
        ASSERT_STREQ(v[6].package, "vim");
        ASSERT_STREQ(v[6].file, "vim_2%3a9.0.1378-2+deb12u2_amd64.deb");
        for (size_t i = 0; i < n; i++)
                ASSERT_TRUE(v[i].file && v[i].sha256 && v[i].size > 1000000);
        apt_versions_free(v, n);

        ASSERT_EQ(source_apt_parse_print_uris("'http://x/a.deb' ../a_1_amd64.deb 10 SHA256:00\n", NULL, 0, &err),
                  -EBADMSG);
        ASSERT_STREQ(err.msg, "apt-get download --print-uris: unexpected line "
                              "''http://x/a.deb' ../a_1_amd64.deb 10 SHA256:00'");
}

/* ---- sync through stand-in APT programs ------------------------------------ */

/* apt-cache: pkgnames and madison print the captures. apt-get: download
 * --print-uris prints one line per NAME=VERSION with the SHA256 of the
 * content the stand-in "downloads" ("content of NAME=VERSION\n"), except
 * for the -55 package, whose download is corrupted; download NAME=VERSION
 * writes the file in the current directory and logs the call. */
static void write_fakes(char **ret_cache, char **ret_get) {
        g_autofree char *names = fixture_path("pkgnames-linux-image-6.1.0-5.txt");
        g_autofree char *madison = fixture_path("madison-linux-image-6.1.0-5x-amd64-unsigned.txt");
        g_autofree char *log = tpath("apt-get.log");
        g_autofree char *cache_text = g_strdup_printf(
                "#!/bin/sh\n"
                "case \"$1\" in\n"
                "pkgnames) grep \"^$2\" '%s' || true ;;\n"
                "madison) shift; for p; do grep \"^$p \" '%s'; done ;;\n"
                "*) echo \"E: unexpected $1\" >&2; exit 100 ;;\n"
                "esac\n", names, madison);
        g_autofree char *get_text = g_strdup_printf(
                "#!/bin/sh\n"
                "[ \"$1\" = download ] || exit 100\n"
                "shift\n"
                "if [ \"$1\" = --print-uris ]; then\n"
                "  shift\n"
                "  for a; do p=${a%%%%=*}; v=${a#*=}\n"
                "    s=$(printf 'content of %%s\\n' \"$a\" | sha256sum | cut -d' ' -f1)\n"
                "    echo \"'http://deb.example.org/pool/${p}_${v}_amd64.deb' ${p}_${v}_amd64.deb 100 SHA256:$s\"\n"
                "  done\n"
                "  exit 0\n"
                "fi\n"
                "echo \"$1\" >> '%s'\n"
                "p=${1%%%%=*}; v=${1#*=}\n"
                "case \"$p\" in *-55-*) printf 'tampered\\n' ;; *) printf 'content of %%s\\n' \"$1\" ;; esac > \"${p}_${v}_amd64.deb\"\n",
                log);
        *ret_cache = tpath("apt-cache");
        *ret_get = tpath("apt-get");
        ASSERT_TRUE(g_file_set_contents(*ret_cache, cache_text, -1, NULL));
        ASSERT_TRUE(g_file_set_contents(*ret_get, get_text, -1, NULL));
        ASSERT_EQ(chmod(*ret_cache, 0755), 0);
        ASSERT_EQ(chmod(*ret_get, 0755), 0);
}

static int count_lines(const char *path) {
        g_autofree char *text = NULL;
        int n = 0;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return 0;
        for (char *p = text; *p; p++)
                n += *p == '\n';
        return n;
}

TEST(sync_downloads_what_is_missing) {
        g_autofree char *apt_cache = NULL, *apt_get = NULL, *cache = tpath("cache"), *log = tpath("apt-get.log");
        g_autofree char *have = NULL, *p57 = NULL, *p55 = NULL, *body = NULL;
        struct source_apt_opts o;
        struct kb_error err = { { 0 } };
        g_autoptr(GDir) d = NULL;
        const char *e;
        int downloaded = -1, hidden = 0;

        write_fakes(&apt_cache, &apt_get);
        o = (struct source_apt_opts){ .apt_cache = apt_cache, .apt_get = apt_get };
        g_mkdir_with_parents(cache, 0755);
        /* -56 is there already (an earlier night). */
        have = g_build_filename(cache, "linux-image-6.1.0-56-amd64-unsigned_6.1.192-2_amd64.deb", NULL);
        ASSERT_TRUE(g_file_set_contents(have, "content of linux-image-6.1.0-56-amd64-unsigned=6.1.192-2\n", -1, NULL));

        ASSERT_EQ(source_apt_sync(UNSIGNED_5X, cache, &o, &downloaded, &err), -EBADMSG);
        ASSERT_TRUE(g_str_has_prefix(err.msg, "apt-get download linux-image-6.1.0-55-amd64-unsigned=6.1.192-1: sha256 "));
        /* Five downloads tried (50 53 54 55 57), four kept; 55 is nowhere. */
        ASSERT_EQ(count_lines(log), 5);
        p57 = g_build_filename(cache, "linux-image-6.1.0-57-amd64-unsigned_6.1.192-3_amd64.deb", NULL);
        p55 = g_build_filename(cache, "linux-image-6.1.0-55-amd64-unsigned_6.1.192-1_amd64.deb", NULL);
        ASSERT_TRUE(g_file_get_contents(p57, &body, NULL, NULL));
        ASSERT_STREQ(body, "content of linux-image-6.1.0-57-amd64-unsigned=6.1.192-3\n");
        ASSERT_TRUE(!g_file_test(p55, G_FILE_TEST_EXISTS));
        d = g_dir_open(cache, 0, NULL);
        while ((e = g_dir_read_name(d)))
                hidden += e[0] == '.';
        ASSERT_EQ(hidden, 0);   /* scratch directories are gone */

        /* The next night: only the one that failed is tried again. */
        ASSERT_EQ(source_apt_sync(UNSIGNED_5X, cache, &o, &downloaded, &err), -EBADMSG);
        ASSERT_EQ(count_lines(log), 6);
        /* A pattern nothing matches is a quiet night. */
        ASSERT_EQ(source_apt_sync("linux-image-9.9.9-*", cache, &o, &downloaded, &err), 0);
        ASSERT_EQ(downloaded, 0);
}

TEST(failing_apt_is_one_line) {
        g_autofree char *bad = tpath("apt-cache-broken");
        struct source_apt_opts o = { .apt_cache = bad, .apt_get = "/bin/false" };
        struct kb_error err = { { 0 } };
        struct apt_version *v = NULL;
        size_t n;
        g_autofree char *expect = NULL;

        ASSERT_TRUE(g_file_set_contents(bad, "#!/bin/sh\necho 'W: something' >&2\n"
                                             "echo 'E: Could not open lock file' >&2\nexit 100\n", -1, NULL));
        ASSERT_EQ(chmod(bad, 0755), 0);
        ASSERT_EQ(source_apt_resolve(UNSIGNED_5X, &o, &v, &n, &err), -EIO);
        expect = g_strdup_printf("%s pkgnames: Could not open lock file", bad);
        ASSERT_STREQ(err.msg, expect);
}
