/* Integration test (suite 'integration', no guest): the nightly sources on
 * real Debian kernel packages from $KBENCH_DEBS (default
 * /var/cache/kbench-debs). One package is served by a loopback HTTP server
 * (tests/nightly/http_server.py on 127.0.0.1) as a url source with its
 * sha256, another sits in a drop directory; both are collected, imported
 * with kstore_add (the release must come out right) and marked, and the
 * second night finds nothing, the url source costing one 304. Fails when
 * KBENCH_DEBS is set but holds fewer than two packages; skips only when it
 * is unset and the default directory does not exist. */
#include <errno.h>
#include <glib.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/test-scratch.h"
#include "common/test.h"
#include "nightly/nightly_sources.h"
#include "kernels/kstore.h"
#include "kernels/test-http.h"

TEST_MAIN();

/* dst as a copy of src (a hard link when on one filesystem), old mtime kept. */
static void place(const char *src, const char *dst) {
        g_autofree char *dir = g_path_get_dirname(dst);
        g_autoptr(GFile) a = g_file_new_for_path(src), b = g_file_new_for_path(dst);

        g_mkdir_with_parents(dir, 0755);
        if (link(src, dst) == 0)
                return;
        if (!g_file_copy(a, b, G_FILE_COPY_ALL_METADATA, NULL, NULL, NULL, NULL))
                TEST_FAIL("cannot copy %s to %s", src, dst);
}

static char *sha256_file(const char *path) {
        g_autoptr(GMappedFile) m = g_mapped_file_new(path, FALSE, NULL);
        if (!m)
                TEST_FAIL("cannot read %s", path);
        return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)g_mapped_file_get_contents(m),
                                           g_mapped_file_get_length(m));
}

/* The 304s the server sent for path. */
static size_t count_304(const char *log, const char *path) {
        json_auto_t *reqs = test_http_requests(log, path);
        size_t n = 0;

        for (size_t i = 0; i < json_array_size(reqs); i++)
                n += test_http_status(reqs, i) == 304;
        return n;
}

TEST(real_packages_through_url_and_dir_sources) {
        const char *env = getenv("KBENCH_DEBS");
        const char *debs_dir = env && *env ? env : "/var/cache/kbench-debs";
        g_autoptr(GPtrArray) debs = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *www = NULL, *drop = NULL, *store = NULL, *kernels = NULL, *log = NULL, *text = NULL;
        g_autofree char *served = NULL, *url_base = NULL, *url_path = NULL, *sha = NULL, *dropped = NULL;
        g_autofree char *rel_a = NULL, *rel_b = NULL;
        struct source_url_opts url_opts = { .connect_timeout_s = 10, .stall_s = 30, .timeout_s = 600, .retries = 1,
                                            .backoff_s = 0.5 };
        struct nightly_sources_opts o = { .url = &url_opts };
        struct nightly_config *c = NULL;
        struct kstore *ks = NULL;
        struct kb_error err = { { 0 } };
        struct nightly_found *f = NULL;
        char **errors = NULL;
        size_t n;
        int port;
        GDir *d = g_dir_open(debs_dir, 0, NULL);
        const char *e;

        if (!d) {
                if (env && *env)
                        TEST_FAIL("KBENCH_DEBS=%s cannot be read", debs_dir);
                TEST_SKIP("%s does not exist and KBENCH_DEBS is unset", debs_dir);
        }
        while ((e = g_dir_read_name(d)))
                if (g_str_has_prefix(e, "linux-image-") && g_str_has_suffix(e, ".deb"))
                        g_ptr_array_add(debs, g_strdup(e));
        g_dir_close(d);
        if (debs->len < 2)
                TEST_FAIL("fewer than two linux-image-*.deb in %s", debs_dir);
        g_ptr_array_sort(debs, (GCompareFunc)g_strcmp0);

        test_scratch_keep_if("KBENCH_KEEP_STORE");
        test_scratch("nightly-sources-real-XXXXXX");
        www = test_scratch_path("www");
        drop = test_scratch_path("drop");
        store = test_scratch_path("store");
        kernels = g_build_filename(store, "kernels", NULL);
        log = test_scratch_path("requests.log");
        {
                g_autofree char *src_a = g_build_filename(debs_dir, debs->pdata[0], NULL);
                g_autofree char *src_b = g_build_filename(debs_dir, debs->pdata[1], NULL);
                served = g_build_filename(www, "pool", debs->pdata[0], NULL);
                dropped = g_build_filename(drop, debs->pdata[1], NULL);
                place(src_a, served);
                place(src_b, dropped);
                sha = sha256_file(src_a);
        }
        port = test_http_start(www, log);
        url_path = g_strdup_printf("/pool/%s", (char *)debs->pdata[0]);
        url_base = g_strdup_printf("http://127.0.0.1:%d%s", port, url_path);
        text = g_strdup_printf("{\"sources\": [{\"type\": \"url\", \"url\": \"%s\", \"sha256\": \"%s\"},"
                               " {\"type\": \"dir\", \"path\": \"%s\"}],"
                               " \"baseline\": \"6.1.0-57-amd64\", \"workloads\": [\"dd\"]}", url_base, sha, drop);
        if (nightly_config_parse(text, strlen(text), &c, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(kstore_open(kernels, &ks, &err), 0);

        f = NULL;
        if (nightly_sources_collect(c, store, &o, &f, &n, &errors, &err) < 0)
                TEST_FAIL("%s", err.msg);
        if (errors[0])
                TEST_FAIL("%s", errors[0]);
        ASSERT_EQ(n, 2);
        for (size_t i = 0; i < n; i++) {
                struct kstore_kernel *k = NULL;
                int existed = -1;
                fprintf(stderr, "  importing %s\n", f[i].path);
                if (kstore_add(ks, f[i].path, NULL, &k, &existed, &err) < 0)
                        TEST_FAIL("%s", err.msg);
                ASSERT_EQ(existed, 0);
                ASSERT_TRUE(k->release && g_str_has_suffix(k->release, "-amd64"));
                /* linux-image-6.1.0-57-amd64-unsigned_... holds 6.1.0-57-amd64. */
                ASSERT_TRUE(strstr(f[i].path, k->release) != NULL);
                if (i == 0)
                        rel_a = g_strdup(k->release);
                else
                        rel_b = g_strdup(k->release);
                kstore_kernel_free(k);
                ASSERT_EQ(nightly_sources_mark(c, store, &f[i], NULL, &err), 0);
        }
        ASSERT_TRUE(strcmp(rel_a, rel_b) != 0);
        nightly_found_free(f, n);
        g_strfreev(errors);

        /* The second night: nothing new, one 304 for the served package. */
        if (nightly_sources_collect(c, store, &o, &f, &n, &errors, &err) < 0)
                TEST_FAIL("%s", err.msg);
        if (errors[0])
                TEST_FAIL("%s", errors[0]);
        ASSERT_EQ(n, 0);
        ASSERT_EQ(count_304(log, url_path), 1);
        nightly_found_free(f, n);
        g_strfreev(errors);
        nightly_config_free(c);
        kstore_free(ks);
}
