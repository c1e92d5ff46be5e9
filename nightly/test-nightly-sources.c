/* Unit tests for nightly/nightly_sources: one configuration with every kind
 * of source (a drop directory, the same directory under a name prefix, an
 * index page on a loopback HTTP server, an APT pattern through stand-in APT
 * programs, and a URL that is 404), collected, marked as imported, and
 * collected again: the second night finds nothing new, the broken source is
 * reported both times and never stops the others. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "common/test-scratch.h"
#include "common/test.h"
#include "nightly/nightly_sources.h"
#include "kernels/test-http.h"

TEST_MAIN();

static int port;

static void put(const char *rel, const char *data, size_t len, int old) {
        g_autofree char *p = test_scratch_path(rel), *dir = g_path_get_dirname(p);
        struct timespec ts[2];

        g_mkdir_with_parents(dir, 0755);
        ASSERT_TRUE(g_file_set_contents(p, data, (gssize)len, NULL));
        if (old) {
                clock_gettime(CLOCK_REALTIME, &ts[0]);
                ts[0].tv_sec -= 60;
                ts[1] = ts[0];
                ASSERT_EQ(utimensat(AT_FDCWD, p, ts, 0), 0);
        }
}

/* What the scan recognises as a package: the ar header, then debian-binary. */
static char *fake_deb(const char *tag) {
        return g_strdup_printf("!<arch>\ndebian-binary   %s\n", tag);
}

/* Stand-in APT: two kernel packages, each "downloaded" as a fake deb. */
static void write_fake_apt(char **ret_cache, char **ret_get) {
        static const char cache[] =
                "#!/bin/sh\n"
                "case \"$1\" in\n"
                "pkgnames) printf 'linux-image-6.1.0-58-amd64-unsigned\\nlinux-image-6.1.0-58-amd64-dbg\\n"
                "linux-image-6.1.0-59-amd64-unsigned\\n' ;;\n"
                "madison) shift; for p; do echo \"$p |  6.1.200-1 | http://deb.example.org/debian bookworm/main amd64 Packages\"; done ;;\n"
                "esac\n";
        static const char get[] =
                "#!/bin/sh\n"
                "shift\n"
                "if [ \"$1\" = --print-uris ]; then shift; for a; do p=${a%%=*}; v=${a#*=}\n"
                "  s=$(printf '!<arch>\\ndebian-binary   %s\\n' \"$a\" | sha256sum | cut -d' ' -f1)\n"
                "  echo \"'http://deb.example.org/${p}_${v}_amd64.deb' ${p}_${v}_amd64.deb 42 SHA256:$s\"; done; exit 0; fi\n"
                "p=${1%%=*}; v=${1#*=}\n"
                "printf '!<arch>\\ndebian-binary   %s\\n' \"$1\" > \"${p}_${v}_amd64.deb\"\n";
        *ret_cache = test_scratch_path("bin/apt-cache");
        *ret_get = test_scratch_path("bin/apt-get");
        put("bin/apt-cache", cache, sizeof(cache) - 1, 0);
        put("bin/apt-get", get, sizeof(get) - 1, 0);
        ASSERT_EQ(chmod(*ret_cache, 0755), 0);
        ASSERT_EQ(chmod(*ret_get, 0755), 0);
}

static struct nightly_found *collect(const struct nightly_config *c, const char *store,
                                     const struct nightly_sources_opts *o, size_t *n, char ***errors) {
        struct nightly_found *f = NULL;
        struct kb_error err = { { 0 } };

        if (nightly_sources_collect(c, store, o, &f, n, errors, &err) < 0)
                TEST_FAIL("%s", err.msg);
        return f;
}

static const char *base(const char *path) {
        return strrchr(path, '/') + 1;
}

/* A stand-in kernel id for a file: the sha256 of its name. Borrowed from
 * a small ring, enough for one assertion's operands. */
static const char *fake_id(const char *path) {
        static char ring[4][65];
        static unsigned next;
        const char *name = strrchr(path, '/') ? base(path) : path;
        g_autofree char *d = g_compute_checksum_for_string(G_CHECKSUM_SHA256, name, -1);
        char *slot = ring[next++ % 4];

        g_strlcpy(slot, d, 65);
        return slot;
}

TEST(every_kind_of_source_then_a_quiet_night) {
        g_autofree char *d1 = fake_deb("drop"), *d2 = fake_deb("a"), *d3 = fake_deb("b"), *www = NULL, *log = NULL;
        g_autofree char *drop = NULL, *store = NULL, *text = NULL, *apt_cache = NULL, *apt_get = NULL;
        static const char page[] = "<a href=\"linux-image-a_amd64.deb\">a</a> <a href=\"linux-image-b_amd64.deb\">b</a>";
        struct source_url_opts url_opts = { .connect_timeout_s = 5, .stall_s = 5, .timeout_s = 20, .retries = 0 };
        struct source_dir_opts dir_opts = { .settle_s = 5, .probe_ms = 20 };
        struct source_apt_opts apt_opts;
        struct nightly_sources_opts o;
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };
        struct nightly_found *f;
        char **errors = NULL;
        size_t n;
        static const char *const want[] = {
                "linux-image-drop_amd64.deb", "linux-image-drop_amd64.deb",
                "linux-image-a_amd64.deb", "linux-image-b_amd64.deb",
                "linux-image-6.1.0-58-amd64-unsigned_6.1.200-1_amd64.deb",
                "linux-image-6.1.0-59-amd64-unsigned_6.1.200-1_amd64.deb",
        };
        static const size_t want_source[] = { 0, 1, 2, 2, 3, 3 };

        test_scratch("nightly-sources-XXXXXX");
        put("drop/linux-image-drop_amd64.deb", d1, strlen(d1), 1);
        put("drop/notes.txt", "hello\n", 6, 1);
        put("www/nightly/index.html", page, sizeof(page) - 1, 0);
        put("www/nightly/linux-image-a_amd64.deb", d2, strlen(d2), 0);
        put("www/nightly/linux-image-b_amd64.deb", d3, strlen(d3), 0);
        www = test_scratch_path("www");
        log = test_scratch_path("requests.log");
        port = test_http_start(www, log);
        write_fake_apt(&apt_cache, &apt_get);
        apt_opts = (struct source_apt_opts){ .apt_cache = apt_cache, .apt_get = apt_get };
        o = (struct nightly_sources_opts){ .url = &url_opts, .apt = &apt_opts, .dir = &dir_opts };
        drop = test_scratch_path("drop");
        store = test_scratch_path("store");
        text = g_strdup_printf(
                "{\"sources\": [{\"type\": \"dir\", \"path\": \"%s\"},"
                " {\"type\": \"dir\", \"path\": \"%s\", \"name\": \"noop-\", \"overrides\": {\"append\": \"elevator=none\"}},"
                " {\"type\": \"url\", \"url\": \"http://127.0.0.1:%d/nightly/\"},"
                " {\"type\": \"apt\", \"pattern\": \"linux-image-6.1.0-5?-amd64-unsigned\"},"
                " {\"type\": \"url\", \"url\": \"http://127.0.0.1:%d/missing/linux-image-c_amd64.deb\"}],"
                " \"baseline\": \"6.1.0-57-amd64\", \"workloads\": [\"dd\"]}", drop, drop, port, port);
        if (nightly_config_parse(text, strlen(text), &c, &err) < 0)
                TEST_FAIL("%s", err.msg);

        f = collect(c, store, &o, &n, &errors);
        ASSERT_EQ(n, G_N_ELEMENTS(want));
        for (size_t i = 0; i < n; i++) {
                ASSERT_STREQ(base(f[i].path), want[i]);
                ASSERT_EQ(f[i].source, want_source[i]);
                ASSERT_TRUE(g_file_test(f[i].path, G_FILE_TEST_IS_REGULAR));
        }
        ASSERT_EQ(g_strv_length(errors), 1);
        {
                g_autofree char *expect = g_strdup_printf(
                        "sources[4] (url http://127.0.0.1:%d/missing/linux-image-c_amd64.deb): "
                        "http://127.0.0.1:%d/missing/linux-image-c_amd64.deb: HTTP 404 Not Found", port, port);
                ASSERT_STREQ(errors[0], expect);
        }
        g_strfreev(errors);

        /* Import all but the prefixed source's file: that one is found again. */
        for (size_t i = 0; i < n; i++)
                if (f[i].source != 1 && nightly_sources_mark(c, store, &f[i], fake_id(f[i].path), &err) < 0)
                        TEST_FAIL("%s", err.msg);
        nightly_found_free(f, n);
        /* The apt source's history: its two kernels, in version order. */
        {
                struct nightly_history *h = NULL;
                size_t nh = 0;

                ASSERT_EQ(nightly_sources_history(c, store, 3, &h, &nh, &err), 0);
                ASSERT_EQ(nh, 2);
                ASSERT_STREQ(h[0].file, "linux-image-6.1.0-58-amd64-unsigned_6.1.200-1_amd64.deb");
                ASSERT_STREQ(h[0].kernel_id, fake_id(h[0].file));
                ASSERT_STREQ(h[1].file, "linux-image-6.1.0-59-amd64-unsigned_6.1.200-1_amd64.deb");
                nightly_history_free(h, nh);
                /* Nothing of the prefixed source was imported yet. */
                ASSERT_EQ(nightly_sources_history(c, store, 1, &h, &nh, &err), 0);
                ASSERT_EQ(nh, 0);
                nightly_history_free(h, nh);
        }

        f = collect(c, store, &o, &n, &errors);
        ASSERT_EQ(n, 1);
        ASSERT_EQ(f[0].source, 1);
        ASSERT_EQ(g_strv_length(errors), 1);
        ASSERT_EQ(nightly_sources_mark(c, store, &f[0], NULL, &err), 0);
        nightly_found_free(f, n);
        g_strfreev(errors);

        f = collect(c, store, &o, &n, &errors);
        ASSERT_EQ(n, 0);
        nightly_found_free(f, n);
        g_strfreev(errors);
        nightly_config_free(c);
}

/* A source's history is its files in version order (9 before 10 before
 * 100, as strcmp would not have it), each with the kernel it became; a
 * file imported again keeps its latest kernel. */
TEST(history_in_version_order) {
        static const char *const names[] = { "linux-image-6.1.0-10-amd64_6.1.10-1_amd64.deb",
                                             "linux-image-6.1.0-100-amd64_6.1.100-1_amd64.deb",
                                             "linux-image-6.1.0-9-amd64_6.1.9-1_amd64.deb" };
        struct source_dir_opts dir_opts = { .settle_s = 0.5, .probe_ms = 10 };
        struct nightly_sources_opts o = { .dir = &dir_opts };
        struct nightly_config *c = NULL;
        struct nightly_history *h = NULL;
        struct nightly_found *f;
        struct kb_error err = { { 0 } };
        g_autofree char *text = NULL, *drop = NULL, *store = NULL;
        g_auto(GStrv) errors = NULL;
        size_t n = 0, nh = 0;

        test_scratch("nightly-history-XXXXXX");
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                g_autofree char *rel = g_strconcat("history/drop/", names[i], NULL), *deb = fake_deb(names[i]);

                put(rel, deb, strlen(deb), 1);
        }
        drop = test_scratch_path("history/drop");
        store = test_scratch_path("history/store");
        text = g_strdup_printf("{\"sources\": [{\"type\": \"dir\", \"path\": \"%s\"}], \"baseline\": \"b\", "
                               "\"workloads\": [\"dd\"]}", drop);
        if (nightly_config_parse(text, strlen(text), &c, &err) < 0)
                TEST_FAIL("%s", err.msg);
        f = collect(c, store, &o, &n, &errors);
        ASSERT_EQ(n, 3);
        for (size_t i = 0; i < n; i++)
                ASSERT_EQ(nightly_sources_mark(c, store, &f[i], fake_id(f[i].path), &err), 0);
        /* The 100 file again, as another image. */
        ASSERT_EQ(nightly_sources_mark(c, store, &f[1], fake_id("another"), &err), 0);
        ASSERT_EQ(nightly_sources_history(c, store, 0, &h, &nh, &err), 0);
        ASSERT_EQ(nh, 3);
        ASSERT_STREQ(h[0].file, names[2]);
        ASSERT_STREQ(h[1].file, names[0]);
        ASSERT_STREQ(h[2].file, names[1]);
        ASSERT_STREQ(h[0].kernel_id, fake_id(names[2]));
        ASSERT_STREQ(h[2].kernel_id, fake_id("another"));
        nightly_history_free(h, nh);
        ASSERT_EQ(nightly_sources_history(c, store, 1, &h, &nh, &err), -EINVAL);
        nightly_found_free(f, n);
        nightly_config_free(c);
}
