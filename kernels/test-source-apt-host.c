/* The apt source against the host's real APT: resolve
 * linux-image-6.1.0-5?-amd64-unsigned through apt-cache and apt-get
 * --print-uris (local, no download), then sync into a cache directory that
 * already holds every resolved file, which must download nothing. Its own
 * binary because it skips (exit 77) where there is no APT or APT knows no
 * such packages (no `apt-get update`, not Debian), which must not skip the
 * fixture tests in test-source-apt.c. */
#include <fnmatch.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "kernels/source_apt.h"
#include "common/test.h"

TEST_MAIN();

#define PATTERN "linux-image-6.1.0-5?-amd64-unsigned"

TEST(resolve_through_the_host_apt) {
        g_autofree char *apt_cache = g_find_program_in_path("apt-cache"), *apt_get = g_find_program_in_path("apt-get");
        g_autofree char *out = NULL;
        g_autofree char *cache = NULL;
        struct kb_error err = { { 0 } };
        struct apt_version *v = NULL;
        size_t n;
        int downloaded = -1;

        if (!apt_cache || !apt_get)
                TEST_SKIP("no apt-cache / apt-get on this host");
        {
                char *argv[] = { apt_cache, "pkgnames", "linux-image-6.1.0-5", NULL };
                if (!g_spawn_sync(NULL, argv, NULL, 0, NULL, NULL, &out, NULL, NULL, NULL) || !out || !*out)
                        TEST_SKIP("APT knows no linux-image-6.1.0-5* packages (no apt-get update?)");
        }
        if (source_apt_resolve(PATTERN, NULL, &v, &n, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_TRUE(n >= 1);
        cache = g_dir_make_tmp("source-apt-host-XXXXXX", NULL);
        ASSERT_TRUE(cache != NULL);
        for (size_t i = 0; i < n; i++) {
                g_autofree char *p = NULL;
                fprintf(stderr, "  %s %s %s %llu\n", v[i].package, v[i].version, v[i].file,
                        (unsigned long long)v[i].size);
                ASSERT_EQ(fnmatch(PATTERN, v[i].package, 0), 0);
                ASSERT_TRUE(v[i].file && v[i].sha256 && strlen(v[i].sha256) == 64 && v[i].size > (1u << 20));
                p = g_build_filename(cache, v[i].file, NULL);
                ASSERT_TRUE(g_file_set_contents(p, "", 0, NULL));
        }
        /* Everything is "downloaded": nothing is fetched. */
        if (source_apt_sync(PATTERN, cache, NULL, &downloaded, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(downloaded, 0);
        for (size_t i = 0; i < n; i++) {
                g_autofree char *p = g_build_filename(cache, v[i].file, NULL);
                g_unlink(p);
        }
        g_rmdir(cache);
        apt_versions_free(v, n);
}
