/* Unit tests for kernels/source_url against a loopback HTTP server the test
 * starts (tests/nightly/http_server.py, bound to 127.0.0.1 on a free port):
 * a verified download and a 304 the second time, an index page and its
 * links, a cut download resumed the next time with Range/If-Range, a
 * partial file of a version that changed meanwhile, retries of 503s, a 404,
 * a checksum mismatch, a TLS failure and a stall, each checked by the
 * result, the files left in the directory and the requests the server saw.
 * Every transfer is bounded by short timeouts. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/util.h"
#include "kernels/source_state.h"
#include "kernels/source_url.h"
#include "common/test-scratch.h"
#include "common/test.h"
#include "kernels/test-http.h"

TEST_MAIN();

static char *base;
static int port;

/* Deterministic content of n bytes. */
static GByteArray *content(size_t n, unsigned seed) {
        GByteArray *b = g_byte_array_sized_new((guint)n);
        uint32_t x = seed * 2654435761u + 1;

        for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                guint8 c = (guint8)(x >> 16);
                g_byte_array_append(b, &c, 1);
        }
        return b;
}

static void serve(const char *rel, const GByteArray *data) {
        g_autofree char *p = test_scratch_path(rel), *dir = g_path_get_dirname(p);

        g_mkdir_with_parents(dir, 0755);
        if (!g_file_set_contents(p, (const char *)data->data, data->len, NULL))
                TEST_FAIL("cannot write %s", p);
}

static char *sha256_hex(const GByteArray *b) {
        return g_compute_checksum_for_data(G_CHECKSUM_SHA256, b->data, b->len);
}

/* The server over www/ of the scratch directory, started by the first case
 * that needs it. */
static void start_server(void) {
        g_autofree char *root = NULL, *log = NULL;

        if (port > 0)
                return;
        test_scratch("source-url-XXXXXX");
        root = test_scratch_path("www");
        log = test_scratch_path("requests.log");
        g_mkdir_with_parents(root, 0755);
        port = test_http_start(root, log);
        base = g_strdup_printf("http://127.0.0.1:%d", port);
}

/* The requests the server saw for path, as JSON objects, in order. */
static json_t *requests(const char *path) {
        g_autofree char *log = test_scratch_path("requests.log");

        return test_http_requests(log, path);
}

static const struct source_url_opts quick = {
        .connect_timeout_s = 5, .stall_s = 5, .timeout_s = 20, .retries = 2, .backoff_s = 0.02,
};

static int sync_url(const char *url, const char *sha, const char *dest, const struct source_url_opts *o,
                    struct source_url_stats *st, struct kb_error *err) {
        g_autofree char *state_path = test_scratch_path("state.json");
        struct source_state *state = NULL;
        int r;

        *st = (struct source_url_stats){ 0 };
        if (source_state_open(state_path, &state, err) < 0)
                TEST_FAIL("%s", err->msg);
        r = source_url_sync(url, sha, dest, state, o, st, err);
        source_state_free(state);
        return r;
}

static void assert_file(const char *path, const GByteArray *want) {
        g_autofree char *got = NULL;
        gsize n;

        if (!g_file_get_contents(path, &got, &n, NULL))
                TEST_FAIL("%s is missing", path);
        ASSERT_EQ(n, want->len);
        ASSERT_TRUE(memcmp(got, want->data, n) == 0);
}

static int exists(const char *path) {
        return access(path, F_OK) == 0;
}

TEST(index_links_are_resolved_and_filtered) {
        static const char html[] =
                "<html><body><a href=\"linux-image-1_amd64.deb\">1</a>\n"
                "<A HREF='sub/linux-image-2_amd64.deb'>2</A> <a href=../up/linux-image-3_amd64.deb>3</a>\n"
                "<a href=\"https://mirror.example.org/pool/linux-image-4_amd64.deb?x=1&amp;y=2\">4</a>\n"
                "<a href=\"linux-image-1_amd64.deb\">again</a> <a href=\"README.txt\">r</a>\n"
                "<a href=\"ftp://ftp.example.org/linux-image-5_amd64.deb\">ftp</a> <a href=\"mailto:x@y\">m</a>\n"
                "<a href=\"linux-image-6_amd64.deb.sig\">sig</a> <a href=\"/abs/linux-image-7_amd64.deb#frag\">7</a>\n"
                "<a href=\"unterminated.deb";
        static const char *const want[] = {
                "http://k.example.org/dir/linux-image-1_amd64.deb",
                "http://k.example.org/dir/sub/linux-image-2_amd64.deb",
                "http://k.example.org/up/linux-image-3_amd64.deb",
                "https://mirror.example.org/pool/linux-image-4_amd64.deb?x=1&y=2",
                "http://k.example.org/abs/linux-image-7_amd64.deb",
        };
        g_auto(GStrv) links = NULL;
        struct kb_error err = { { 0 } };
        size_t n;

        ASSERT_EQ(source_url_index_links(html, strlen(html), "http://k.example.org/dir/index.html", &links, &n, &err), 0);
        ASSERT_EQ(n, G_N_ELEMENTS(want));
        for (size_t i = 0; i < n; i++)
                ASSERT_STREQ(links[i], want[i]);
        ASSERT_TRUE(source_url_is_file("http://x/pool/linux-image-1_amd64.deb"));
        ASSERT_TRUE(source_url_is_file("http://x/boot/vmlinuz-6.1.0-57-amd64"));
        ASSERT_TRUE(source_url_is_file("http://x/builds/42/bzImage"));
        ASSERT_TRUE(!source_url_is_file("http://x/builds/42/"));
        ASSERT_TRUE(!source_url_is_file("http://x/builds/index.html"));
}

TEST(verified_download_then_304) {
        g_autoptr(GByteArray) data = content(300000, 1);
        g_autofree char *sha = sha256_hex(data), *url = NULL, *dest = NULL, *file = NULL, *part = NULL;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };
        json_auto_t *reqs = NULL;

        start_server();
        serve("www/pool/linux-image-1_amd64.deb", data);
        url = g_strdup_printf("%s/pool/linux-image-1_amd64.deb", base);
        dest = test_scratch_path("mirror1");
        file = test_scratch_path("mirror1/linux-image-1_amd64.deb");
        part = test_scratch_path("mirror1/linux-image-1_amd64.deb.part");
        if (sync_url(url, sha, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 1);
        ASSERT_EQ(st.not_modified, 0);
        assert_file(file, data);
        ASSERT_TRUE(!exists(part));
        /* The second night: one conditional request, answered 304. */
        if (sync_url(url, sha, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 0);
        ASSERT_EQ(st.not_modified, 1);
        reqs = requests("/pool/linux-image-1_amd64.deb");
        ASSERT_EQ(json_array_size(reqs), 2);
        ASSERT_EQ(test_http_status(reqs, 0), 200);
        ASSERT_TRUE(test_http_header(reqs, 0, "If-None-Match") == NULL);
        ASSERT_EQ(test_http_status(reqs, 1), 304);
        ASSERT_TRUE(test_http_header(reqs, 1, "If-None-Match") != NULL);
        assert_file(file, data);
        ASSERT_TRUE(!exists(part));
}

TEST(cut_download_resumes_the_next_time) {
        g_autoptr(GByteArray) data = content(1 << 20, 2);
        g_autofree char *sha = sha256_hex(data), *url = NULL, *dest = NULL, *file = NULL, *part = NULL;
        struct source_url_opts once = quick;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };
        json_auto_t *reqs = NULL;
        struct stat sb;
        g_autofree char *range = NULL;

        start_server();
        serve("www/pool/linux-image-2_amd64.deb", data);
        url = g_strdup_printf("%s/cut/pool/linux-image-2_amd64.deb", base);
        dest = test_scratch_path("mirror2");
        file = test_scratch_path("mirror2/linux-image-2_amd64.deb");
        part = test_scratch_path("mirror2/linux-image-2_amd64.deb.part");
        /* No retry: the night ends with half a file, kept only as .part. */
        once.retries = 0;
        ASSERT_EQ(sync_url(url, sha, dest, &once, &st, &err), -EIO);
        ASSERT_TRUE(g_str_has_prefix(err.msg, url));
        ASSERT_TRUE(!exists(file));
        ASSERT_EQ(stat(part, &sb), 0);
        ASSERT_EQ(sb.st_size, data->len / 2);
        /* The next night continues from there. */
        if (sync_url(url, sha, dest, &once, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 1);
        ASSERT_EQ(st.resumed, 1);
        assert_file(file, data);
        ASSERT_TRUE(!exists(part));
        reqs = requests("/cut/pool/linux-image-2_amd64.deb");
        ASSERT_EQ(json_array_size(reqs), 2);
        ASSERT_EQ(test_http_status(reqs, 1), 206);
        range = g_strdup_printf("bytes=%u-", data->len / 2);
        ASSERT_STREQ(test_http_header(reqs, 1, "Range"), range);
        ASSERT_TRUE(test_http_header(reqs, 1, "If-Range") != NULL);
}

TEST(cut_download_retried_within_one_sync) {
        g_autoptr(GByteArray) data = content(200000, 3);
        g_autofree char *sha = sha256_hex(data), *url = NULL, *dest = NULL, *file = NULL;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };

        start_server();
        serve("www/pool/linux-image-3_amd64.deb", data);
        url = g_strdup_printf("%s/cut/pool/linux-image-3_amd64.deb", base);
        dest = test_scratch_path("mirror3");
        file = test_scratch_path("mirror3/linux-image-3_amd64.deb");
        if (sync_url(url, sha, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 1);
        ASSERT_EQ(st.resumed, 1);
        assert_file(file, data);
}

/* A partial file of a version the server no longer has: If-Range fails,
 * the server sends the whole new file, and only that is kept. */
TEST(partial_file_of_an_old_version_restarts) {
        g_autoptr(GByteArray) old = content(400000, 4), now = content(350000, 5);
        g_autofree char *sha = sha256_hex(now), *url = NULL, *dest = NULL, *file = NULL;
        struct source_url_opts once = quick;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };
        json_auto_t *reqs = NULL;

        start_server();
        serve("www/pool/linux-image-4_amd64.deb", old);
        url = g_strdup_printf("%s/cut/pool/linux-image-4_amd64.deb", base);
        dest = test_scratch_path("mirror4");
        file = test_scratch_path("mirror4/linux-image-4_amd64.deb");
        once.retries = 0;
        ASSERT_EQ(sync_url(url, NULL, dest, &once, &st, &err), -EIO);
        serve("www/pool/linux-image-4_amd64.deb", now);
        if (sync_url(url, sha, dest, &once, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 1);
        ASSERT_EQ(st.resumed, 0);
        reqs = requests("/cut/pool/linux-image-4_amd64.deb");
        ASSERT_EQ(json_array_size(reqs), 2);
        ASSERT_TRUE(test_http_header(reqs, 1, "If-Range") != NULL);
        ASSERT_EQ(test_http_status(reqs, 1), 200);
}

/* A redirect's own body is not part of the file. */
TEST(redirect_is_followed) {
        g_autoptr(GByteArray) data = content(20000, 10);
        g_autofree char *url = NULL, *dest = NULL, *file = NULL, *sha = sha256_hex(data);
        struct source_url_stats st;
        struct kb_error err = { { 0 } };

        start_server();
        serve("www/pool/linux-image-10_amd64.deb", data);
        url = g_strdup_printf("%s/redirect/pool/linux-image-10_amd64.deb", base);
        dest = test_scratch_path("mirror8");
        file = test_scratch_path("mirror8/linux-image-10_amd64.deb");
        if (sync_url(url, sha, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 1);
        assert_file(file, data);
}

TEST(index_page_then_304s) {
        g_autoptr(GByteArray) a = content(50000, 6), b = content(60000, 7);
        g_autoptr(GByteArray) page = g_byte_array_new();
        static const char html[] = "<html><a href=\"linux-image-a_amd64.deb\">a</a> <a href=\"../pool/linux-image-b_amd64.deb\">b</a>"
                                   " <a href=\"notes.txt\">n</a></html>\n";
        g_autofree char *url = NULL, *dest = NULL, *fa = NULL, *fb = NULL;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };
        json_auto_t *reqs = NULL;

        start_server();
        g_byte_array_append(page, (const guint8 *)html, sizeof(html) - 1);
        serve("www/nightly/index.html", page);
        serve("www/nightly/linux-image-a_amd64.deb", a);
        serve("www/pool/linux-image-b_amd64.deb", b);
        url = g_strdup_printf("%s/nightly/", base);
        dest = test_scratch_path("mirror5");
        fa = test_scratch_path("mirror5/linux-image-a_amd64.deb");
        fb = test_scratch_path("mirror5/linux-image-b_amd64.deb");
        if (sync_url(url, NULL, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 2);
        assert_file(fa, a);
        assert_file(fb, b);
        if (sync_url(url, NULL, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 0);
        ASSERT_EQ(st.not_modified, 2);
        reqs = requests("/nightly/");
        ASSERT_EQ(json_array_size(reqs), 2);
        ASSERT_EQ(test_http_status(reqs, 1), 304);
        ASSERT_EQ(sync_url(url, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", dest, &quick,
                           &st, &err), -EINVAL);
}

TEST(transient_errors_are_retried) {
        g_autoptr(GByteArray) data = content(10000, 8);
        g_autofree char *url = NULL, *dest = NULL, *expect = NULL;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };
        json_auto_t *reqs = NULL, *reqs2 = NULL;

        start_server();
        serve("www/pool/linux-image-8_amd64.deb", data);
        dest = test_scratch_path("mirror6");
        url = g_strdup_printf("%s/flaky/2/pool/linux-image-8_amd64.deb", base);
        if (sync_url(url, NULL, dest, &quick, &st, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(st.fetched, 1);
        {
                /* The 503 pages were not written into the file. */
                g_autofree char *f = test_scratch_path("mirror6/linux-image-8_amd64.deb");
                assert_file(f, data);
        }
        reqs = requests("/flaky/2/pool/linux-image-8_amd64.deb");
        ASSERT_EQ(json_array_size(reqs), 3);
        ASSERT_EQ(test_http_status(reqs, 0), 503);
        ASSERT_EQ(test_http_status(reqs, 2), 200);
        /* More failures than retries: one line, with the count. */
        g_free(url);
        url = g_strdup_printf("%s/flaky/9/pool/linux-image-8_amd64.deb", base);
        ASSERT_EQ(sync_url(url, NULL, dest, &quick, &st, &err), -EIO);
        expect = g_strdup_printf("%s: HTTP 503 Service Unavailable (after 3 attempts)", url);
        ASSERT_STREQ(err.msg, expect);
        reqs2 = requests("/flaky/9/pool/linux-image-8_amd64.deb");
        ASSERT_EQ(json_array_size(reqs2), 3);
}

TEST(permanent_errors_are_one_line) {
        g_autoptr(GByteArray) data = content(10000, 9);
        g_autofree char *url = NULL, *dest = NULL, *expect = NULL, *sha = NULL;
        struct source_url_opts stall = quick;
        struct source_url_stats st;
        struct kb_error err = { { 0 } };
        json_auto_t *reqs = NULL;
        gint64 t0;

        start_server();
        serve("www/pool/linux-image-9_amd64.deb", data);
        dest = test_scratch_path("mirror7");

        url = g_strdup_printf("%s/missing/linux-image-9_amd64.deb", base);
        ASSERT_EQ(sync_url(url, NULL, dest, &quick, &st, &err), -ENOENT);
        expect = g_strdup_printf("%s: HTTP 404 Not Found", url);
        ASSERT_STREQ(err.msg, expect);
        reqs = requests("/missing/linux-image-9_amd64.deb");
        ASSERT_EQ(json_array_size(reqs), 1);   /* not retried */
        {
                g_autofree char *f = test_scratch_path("mirror7/linux-image-9_amd64.deb"), *p = g_strconcat(f, ".part", NULL);
                ASSERT_TRUE(!exists(f) && !exists(p));
        }

        g_free(url);
        g_free(expect);
        url = g_strdup_printf("%s/pool/linux-image-9_amd64.deb", base);
        sha = g_strnfill(64, 'a');
        ASSERT_EQ(sync_url(url, sha, dest, &quick, &st, &err), -EBADMSG);
        ASSERT_TRUE(g_str_has_prefix(err.msg, url));
        ASSERT_TRUE(strstr(err.msg, "does not match the expected aaaa") != NULL);
        {
                g_autofree char *f = test_scratch_path("mirror7/linux-image-9_amd64.deb"), *p = g_strconcat(f, ".part", NULL);
                ASSERT_TRUE(!exists(f) && !exists(p));
        }

        g_free(url);
        url = g_strdup_printf("https://127.0.0.1:%d/pool/linux-image-9_amd64.deb", port);
        ASSERT_EQ(sync_url(url, NULL, dest, &quick, &st, &err), -EPROTO);
        expect = g_strdup_printf("%s: TLS failure: ", url);
        ASSERT_TRUE(g_str_has_prefix(err.msg, expect));
        ASSERT_TRUE(!strchr(err.msg, '\n'));

        g_free(url);
        url = g_strdup_printf("%s/stall/pool/linux-image-9_amd64.deb", base);
        stall.stall_s = 1;
        stall.timeout_s = 3;
        stall.retries = 0;
        t0 = g_get_monotonic_time();
        ASSERT_EQ(sync_url(url, NULL, dest, &stall, &st, &err), -ETIMEDOUT);
        ASSERT_TRUE(g_get_monotonic_time() - t0 < 10 * G_USEC_PER_SEC);
        g_free(expect);
        expect = g_strdup_printf("%s: timed out: ", url);
        ASSERT_TRUE(g_str_has_prefix(err.msg, expect));
}
