/* test-site.c: the site on a generated store (web/sitefixture.c): every
 * page is written once and never again while nothing changes; a new run
 * rewrites only the pages it touches; hostile text from the database (a
 * kernel name, a tag, a cell detail, console text, a metric note) is
 * escaped on every page; no page refers to anything outside itself; the
 * planted stall run, halt and phase marks are drawn. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/test.h"
#include "report/svg.h"
#include "web/page.h"
#include "web/site.h"
#include "web/sitefixture.h"

TEST_MAIN();

struct fx {
        char dir[64], db_path[128], site[128];
        struct db *db;
};

static void fx_init(struct fx *f, int runs, int cells, int hostile) {
        struct kb_error err = { { 0 } };

        snprintf(f->dir, sizeof(f->dir), "/tmp/kbench-test-site-XXXXXX");
        ASSERT_TRUE(mkdtemp(f->dir));
        snprintf(f->db_path, sizeof(f->db_path), "%s/results.db", f->dir);
        snprintf(f->site, sizeof(f->site), "%s/site", f->dir);
        ASSERT_EQ(db_open(f->db_path, &f->db, &err), 0);
        if (sitefixture_fill(f->db, runs, cells, hostile, &err) < 0)
                TEST_FAIL("fixture: %s", err.msg);
}

static void fx_free(struct fx *f) {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", f->dir);

        db_close(f->db);
        ASSERT_EQ(system(cmd), 0);
}

static struct site_result publish(struct fx *f) {
        struct kb_error err = { { 0 } };
        struct site_options o = { .dir = f->site };
        struct site_result res = { 0 };

        if (site_publish(f->db, &o, &res, &err) < 0)
                TEST_FAIL("publish: %s", err.msg);
        return res;
}

static char *read_page(struct fx *f, const char *name) {
        g_autofree char *path = g_build_filename(f->site, name, NULL);
        char *text = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                TEST_FAIL("cannot read %s", path);
        return text;
}

static GPtrArray *pages(struct fx *f) {
        GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
        DIR *d = opendir(f->site);
        struct dirent *e;

        ASSERT_TRUE(d != NULL);
        while ((e = readdir(d)))
                if (e->d_name[0] != '.')
                        g_ptr_array_add(v, g_strdup(e->d_name));
                else    /* no temporary file is left; the manifest is the site's mark */
                        ASSERT_TRUE(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                                    strcmp(e->d_name, ".kbench-site") == 0);
        closedir(d);
        return v;
}

TEST(incremental) {
        struct fx f;
        struct site_result r;
        struct kb_error err = { { 0 } };
        g_autoptr(GPtrArray) names = NULL;
        struct stat st1, st2;
        g_autofree char *idx = NULL;

        fx_init(&f, 2, 8, 0);
        r = publish(&f);
        /* 2 runs x (1 run page + 8 cells + 1 comparison) + 2 kernels + index,
         * each with its data file, and the feed */
        ASSERT_EQ(r.written, 2 * (2 * 10 + 2 + 1) + 1);
        ASSERT_EQ(r.unchanged, 0);
        names = pages(&f);
        ASSERT_EQ(names->len, r.written);   /* no temporary file left behind */
        idx = g_build_filename(f.site, "index.html", NULL);
        ASSERT_EQ(stat(idx, &st1), 0);

        /* two runs of the same settings: the kernel page draws their trend */
        {
                g_autofree char *k = read_page(&f, "kernel-6.1.0-47-amd64.html");

                ASSERT_TRUE(strstr(k, "<title>dd.write_MBps</title>") != NULL);
                ASSERT_TRUE(strstr(k, "<title>ftp.MBps</title>") != NULL);
                ASSERT_TRUE(strstr(k, ">run</text>") != NULL);
        }

        r = publish(&f);
        ASSERT_EQ(r.written, 0);
        ASSERT_EQ(r.unchanged, 2 * (2 * 10 + 2 + 1) + 1);
        ASSERT_EQ(stat(idx, &st2), 0);
        ASSERT_EQ(st1.st_ino, st2.st_ino);  /* not even replaced */

        /* A new run: its page, cells and comparison, both kernel pages, the
         * index, with their data; the other runs' pages and the feed (no
         * nights) stay. */
        ASSERT_EQ(sitefixture_fill(f.db, 1, 4, 0, &err), 0);
        r = publish(&f);
        ASSERT_EQ(r.written, 2 * (1 + 4 + 1 + 2 + 1));
        ASSERT_EQ(r.unchanged, 2 * 2 * 10 + 1);

        /* A damaged page is put back. */
        {
                g_autofree char *p = g_build_filename(f.site, "run-1.html", NULL);

                ASSERT_TRUE(g_file_set_contents(p, "x", 1, NULL));
                r = publish(&f);
                ASSERT_EQ(r.written, 1);
        }
        fx_free(&f);
}

/* The store's own site (adopt): without a manifest, a site written
 * before kbench kept one, taken over; with one, a file it does not name
 * (a foreign index.html, a link) is refused and left, as in any site. */
TEST(adopted_site_keeps_the_manifest_rule) {
        struct fx f;
        struct kb_error err = { { 0 } };
        struct site_options o = { 0 };
        struct site_result res;
        g_autofree char *index = NULL, *manifest = NULL, *text = NULL, *target = NULL;
        g_autoptr(GString) kept = g_string_new(NULL);
        g_auto(GStrv) lines = NULL;

        fx_init(&f, 1, 4, 0);
        index = g_build_filename(f.site, "index.html", NULL);
        manifest = g_build_filename(f.site, ".kbench-site", NULL);
        target = g_build_filename(f.dir, "theirs", NULL);
        ASSERT_EQ(mkdir(f.site, 0755), 0);
        ASSERT_TRUE(g_file_set_contents(index, "an index of before manifests\n", -1, NULL));
        o.dir = f.site;
        o.adopt = 1;
        if (site_publish(f.db, &o, &res, &err) < 0)
                TEST_FAIL("adopting: %s", err.msg);
        text = read_page(&f, "index.html");
        ASSERT_TRUE(strstr(text, "<html") != NULL);
        g_clear_pointer(&text, g_free);
        /* index.html taken out of the manifest; a foreign file, then a link. */
        ASSERT_TRUE(g_file_get_contents(manifest, &text, NULL, NULL));
        lines = g_strsplit(text, "\n", -1);
        for (size_t i = 0; lines[i]; i++)
                if (*lines[i] && strcmp(lines[i], "index.html") != 0)
                        g_string_append_printf(kept, "%s\n", lines[i]);
        ASSERT_TRUE(g_file_set_contents(manifest, kept->str, -1, NULL));
        ASSERT_TRUE(g_file_set_contents(index, "theirs\n", -1, NULL));
        ASSERT_EQ(site_publish(f.db, &o, &res, &err), -EEXIST);
        ASSERT_TRUE(strstr(err.msg, "index.html: exists and kbench did not write it") != NULL);
        g_clear_pointer(&text, g_free);
        text = read_page(&f, "index.html");
        ASSERT_STREQ(text, "theirs\n");
        ASSERT_EQ(unlink(index), 0);
        ASSERT_TRUE(g_file_set_contents(target, "theirs\n", -1, NULL));
        ASSERT_EQ(symlink(target, index), 0);
        ASSERT_EQ(site_publish(f.db, &o, &res, &err), -EEXIST);
        ASSERT_TRUE(g_file_test(index, G_FILE_TEST_IS_SYMLINK));
        fx_free(&f);
}

/* A cell with more metric names than a page lists: its page and the run's
 * list PAGE_METRICS_MAX and say how many more and where they are; the
 * data files hold as many, and count what they leave out. */
TEST(pages_are_bounded) {
        enum { N = PAGE_METRICS_MAX + 150 };
        struct fx f;
        struct kb_error err = { { 0 } };
        struct db_kernel k = { .id = "kkkk", .name = "kN", .added_at = 1 };
        struct db_run run = { .tag = "many", .settings_json = "{\"repeats\":1}", .started_at = 1700000000 };
        g_autofree struct db_metric *m = g_new0(struct db_metric, N);
        g_autofree char *names = g_malloc0((size_t)N * 32), *page = NULL, *json = NULL;
        struct db_cell c = { .cell_key = "c000", .kernel_id = "kkkk", .workload = "dd", .attempt = 1, .state = "ok",
                             .params_json = "{\"workload\":\"dd:size=,bs=1M\"}", .started_at = 1700000100,
                             .boot_s = 3, .workload_s = 10, .total_s = 14, .exit_code = 0, .n_metrics = N,
                             .metrics = m };
        g_autofree char *cell_html = NULL, *cell_json = NULL, *run_file = NULL;
        json_t *j;

        fx_init(&f, 0, 0, 0);
        ASSERT_EQ(db_kernel_upsert(f.db, &k, &err), 0);
        ASSERT_EQ(db_run_create(f.db, &run, &err), 0);
        c.run_id = run.id;
        for (int i = 0; i < N; i++) {
                snprintf(names + i * 32, 32, "vmstat.m%05d_mean", i);
                m[i] = (struct db_metric){ .name = names + i * 32, .value = i, .has_value = 1, .unit = "" };
        }
        ASSERT_EQ(db_cell_insert(f.db, &c, NULL, &err), 0);
        publish(&f);
        cell_html = g_strdup_printf("cell-%lld-c000.html", (long long)run.id);
        cell_json = g_strdup_printf("cell-%lld-c000.json", (long long)run.id);
        page = read_page(&f, cell_html);
        ASSERT_TRUE(strstr(page, ">m01999_") != NULL && strstr(page, ">m02000_") == NULL);
        ASSERT_TRUE(strstr(page, "150 more metrics are not shown on this page") != NULL);
        json = read_page(&f, cell_json);
        j = json_loads(json, 0, NULL);
        ASSERT_EQ(json_object_size(json_object_get(j, "metrics")), PAGE_METRICS_MAX);
        ASSERT_EQ(json_integer_value(json_object_get(j, "metrics_left_out")), 150);
        json_decref(j);
        g_clear_pointer(&page, g_free);
        run_file = g_strdup_printf("run-%lld.html", (long long)run.id);
        page = read_page(&f, run_file);
        ASSERT_TRUE(strstr(page, "more metrics are not shown on this page") != NULL);
        fx_free(&f);
}

TEST(hostile_text_is_text) {
        struct fx f;
        g_autoptr(GPtrArray) names = NULL;
        int saw_kernel = 0, saw_tag = 0, saw_detail = 0, saw_console = 0, saw_json_kernel = 0;

        fx_init(&f, 1, 7, 1);
        publish(&f);
        names = pages(&f);
        for (guint i = 0; i < names->len; i++) {
                const char *name = g_ptr_array_index(names, i);
                g_autofree char *page = read_page(&f, name);

                if (!g_str_has_suffix(name, ".html")) {
                        json_t *j = g_str_has_suffix(name, ".json") ? json_loads(page, 0, NULL) : NULL;

                        /* the data files are JSON (ASCII, the hostile text \u-escaped where needed), the feed XML */
                        ASSERT_TRUE(g_str_has_suffix(name, ".json") ? j != NULL : strcmp(name, "feed.xml") == 0);
                        ASSERT_TRUE(strstr(page, "\x1b") == NULL && strstr(page, "\xff") == NULL);
                        saw_json_kernel |= strstr(page, "\"<img src=x onerror=alert(1)>\"") != NULL;
                        json_decref(j);
                        continue;
                }
                /* The only markup is the page's own. */
                ASSERT_TRUE(strstr(page, "<img") == NULL);
                ASSERT_TRUE(strstr(page, "<script") == NULL);
                ASSERT_TRUE(strstr(page, "<b>") == NULL);
                ASSERT_TRUE(strstr(page, "\x1b") == NULL);
                ASSERT_TRUE(strstr(page, "\xff") == NULL);
                ASSERT_TRUE(strstr(page, "onerror=alert") == NULL ||
                            strstr(page, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
                /* Nothing outside the page: no URL with a scheme but SVG's namespace. */
                ASSERT_EQ(test_occurrences(page, "http://") + test_occurrences(page, "https://"),
                          test_occurrences(page, "xmlns=\"http://www.w3.org/2000/svg\""));
                ASSERT_TRUE(strstr(page, "src=\"") == NULL);
                ASSERT_TRUE(strncmp(page, "<!DOCTYPE html>", 15) == 0);
                ASSERT_TRUE(strstr(page, "name=\"viewport\"") != NULL);
                saw_kernel |= strstr(page, "&lt;img src=x onerror=alert(1)&gt;") != NULL;
                saw_tag |= strstr(page, "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;") != NULL;
                saw_detail |= strstr(page, "no record for 60 s: &lt;img") != NULL;
                saw_console |= strstr(page, "&lt;/pre&gt;&lt;script&gt;alert(2)") != NULL;
        }
        ASSERT_TRUE(saw_kernel && saw_tag && saw_detail && saw_console && saw_json_kernel);
        /* the kernel's page exists under a name that is safe */
        {
                g_autofree char *file = page_kernel_file(SITEFIXTURE_HOSTILE);
                g_autofree char *page = read_page(&f, file);

                ASSERT_TRUE(strspn(file, "abcdefghijklmnopqrstuvwxyz0123456789_-.") == strlen(file));
                ASSERT_TRUE(strstr(page, "<h1>Kernel &lt;img src=x onerror=alert(1)&gt;</h1>") != NULL);
        }
        fx_free(&f);
}

TEST(cell_charts) {
        struct fx f;
        g_autofree char *dd = NULL, *ftp = NULL, *failed = NULL;

        fx_init(&f, 1, 6, 0);
        publish(&f);
        /* c000 is dd (kernel A), c002 ftp (kernel A); c005 failed */
        dd = read_page(&f, "cell-1-c000.html");
        ftp = read_page(&f, "cell-1-c002.html");
        failed = read_page(&f, "cell-1-c005.html");
        /* each chart wide and narrow (report/svg.h) */
        ASSERT_EQ(test_occurrences(dd, "<svg "), 2 * 4);
        ASSERT_TRUE(strstr(dd, "1 writeout stall run shaded") != NULL);
        {
                g_autofree char *dd4 = read_page(&f, "cell-1-c004.html");
                ASSERT_TRUE(strstr(dd4, "0 writeout stall runs shaded") != NULL);
        }
        /* the stall band is drawn on each of the four charts */
        ASSERT_EQ(test_occurrences(dd, "fill-opacity=\"0.2\""), 2 * 4);
        ASSERT_TRUE(strstr(dd, ">write</text>") != NULL && strstr(dd, ">read</text>") != NULL);
        ASSERT_TRUE(strstr(dd, ">bogus</text>") == NULL); /* only in the log (bad CRC) */
        ASSERT_TRUE(strstr(dd, ">mounted<") == NULL);    /* the agent's, not the workload's */
        ASSERT_TRUE(strstr(dd, "NUL:\xe2\x90\x80:after") != NULL);
        ASSERT_TRUE(strstr(dd, "\xe2\x90\x9b[31mcolour") != NULL);

        ASSERT_EQ(test_occurrences(ftp, "<svg "), 2 * 5);
        /* what a reader looks at first comes first: the charts, the judged metrics, then the rest folded */
        {
                const char *chart = strstr(dd, "<svg "), *judged = strstr(dd, "<h2>Judged metrics</h2>");
                const char *other = strstr(dd, "<details><summary>Other metrics ("), *facts = strstr(dd, "<h2>Cell</h2>");

                ASSERT_TRUE(chart && judged && other && facts && chart < judged && judged < other && other < facts);
                ASSERT_TRUE(strstr(judged, ">guest.<wbr>write.<wbr>kernel_<wbr>Minsn<") < other);
                ASSERT_TRUE(strstr(other, ">vmstat.<wbr>bo_<wbr>mean<") != NULL);
        }
        ASSERT_TRUE(strstr(ftp, "1 halt of at least 1 s shaded") != NULL);
        ASSERT_TRUE(strstr(ftp, "0 writeout stall runs shaded") != NULL);
        ASSERT_TRUE(strstr(ftp, ">sync-start") != NULL);

        ASSERT_TRUE(strstr(failed, "state bad\">hang<") != NULL);
        ASSERT_TRUE(strstr(failed, "failures never enter statistics") != NULL);
        ASSERT_TRUE(strstr(failed, "Kernel console (ttyS0)") != NULL);
        fx_free(&f);
}

TEST(run_page) {
        struct fx f;
        g_autofree char *run = NULL, *index = NULL;

        fx_init(&f, 1, 9, 0);
        publish(&f);
        run = read_page(&f, "run-1.html");
        index = read_page(&f, "index.html");
        /* kernel x workload matrix, with bar charts for dd and ftp metrics */
        ASSERT_TRUE(strstr(run, "<h3>dd</h3>") != NULL && strstr(run, "<h3>ftp</h3>") != NULL);
        ASSERT_TRUE(strstr(run, ">dd.write_MBps<") != NULL);
        ASSERT_TRUE(test_occurrences(run, "<svg ") >= 3);
        ASSERT_TRUE(strstr(run, "Failed cells (1)") != NULL);
        ASSERT_TRUE(strstr(run, "href=\"cell-1-c008.html\"") != NULL);
        ASSERT_TRUE(strstr(index, "href=\"run-1.html\"") != NULL);
        ASSERT_TRUE(strstr(index, "href=\"kernel-6.1.0-57-amd64.html\"") != NULL);
        ASSERT_TRUE(strstr(index, "Failed cells (1)") != NULL);
        fx_free(&f);
}

TEST(compare_page) {
        struct fx f;
        g_autofree char *file = page_compare_file("run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64");
        g_autofree char *page = NULL, *index = NULL, *run = NULL;
        struct kb_error err = { { 0 } };
        struct site_options o = { 0 };
        struct site_result res;
        const char *bad[] = { "nothing:here" };
        const char *pairs[] = { "6.1.0-47-amd64:6.1.0-57-amd64", "run:1:6.1.0-47-amd64:run:1:6.1.0-57-amd64" };

        fx_init(&f, 1, 12, 0);
        publish(&f);
        page = read_page(&f, file);
        index = read_page(&f, "index.html");
        run = read_page(&f, "run-1.html");
        /* one table per paired workload, with the statistics columns */
        /* judged rows and informational ones in tables of their own, dd and ftp */
        ASSERT_EQ(test_occurrences(page, "<table class=\"cmp\">"), 2);
        ASSERT_EQ(test_occurrences(page, "<table class=\"info\">"), 2);
        /* the informational ones folded, after the judged rows and the charts */
        ASSERT_EQ(test_occurrences(page, "<details><summary>Informational metrics ("), 2);
        ASSERT_TRUE(strstr(page, "<summary>Informational metrics (") > strstr(page, "nearest the side&#39;s median"));
        {
                const char *t = page;

                while ((t = strstr(t, "<table class=\"cmp\">"))) {
                        g_autofree char *table = g_strndup(t, (gsize)(strstr(t, "</table>") - t));

                        ASSERT_TRUE(strstr(table, ">vmstat.") == NULL &&
                                    strstr(table, ">dd.<wbr>write_<wbr>s<") == NULL);
                        ASSERT_TRUE(strstr(table, ">ftp.<wbr>upload_<wbr>s<") == NULL);
                        t++;
                }
                t = strstr(page, "<table class=\"info\">");
                ASSERT_TRUE(t && strstr(t, ">dd.<wbr>write_<wbr>s<") && strstr(t, "the same measurement as dd.*_MBps"));
        }
        ASSERT_TRUE(strstr(page, "<th class=\"opt\">p (t)</th>") != NULL &&
                    strstr(page, "<th class=\"opt\">mde</th>") != NULL);
        ASSERT_TRUE(strstr(page, "<th class=\"opt\">n for 2%</th>") != NULL);
        ASSERT_TRUE(strstr(page, ">dd.write_MBps<") != NULL && strstr(page, ">ftp.MBps<") != NULL);
        /* overlaid vmstat of one representative cell per side, and bars */
        ASSERT_TRUE(strstr(page, "nearest the side&#39;s median") != NULL);
        ASSERT_TRUE(test_occurrences(page, "<svg ") >= 2 * 4 + 1 + 2);
        ASSERT_TRUE(strstr(page, "stroke-dasharray=\"5 3\"") != NULL);
        /* no verdict colours without a verdict */
        ASSERT_TRUE(strstr(page, "class=\"worse\">worse<") == NULL || strstr(page, " worse,") != NULL);
        ASSERT_TRUE(strstr(index, file) != NULL && strstr(run, file) != NULL);

        /* --compare: a selector pair the store answers, split at the right ':' */
        o.dir = f.site;
        o.compares = pairs;
        o.n_compares = 2;
        if (site_publish(f.db, &o, &res, &err) < 0)
                TEST_FAIL("--compare: %s", err.msg);
        {
                g_autofree char *k = page_compare_file("6.1.0-47-amd64", "6.1.0-57-amd64");
                g_autofree char *p = read_page(&f, k);

                ASSERT_TRUE(strstr(p, "<table class=\"cmp\">") != NULL);
        }
        ASSERT_EQ(res.removed, 0);   /* the second pair is the default comparison's page */
        /* with only the first pair, the run:1 comparison's page is stale */
        o.n_compares = 1;
        ASSERT_EQ(site_publish(f.db, &o, &res, &err), 0);
        ASSERT_EQ(res.removed, 2);           /* the page and its data */
        {
                g_autofree char *p = g_build_filename(f.site, file, NULL);

                ASSERT_TRUE(access(p, F_OK) < 0);
        }
        o.compares = bad;
        o.n_compares = 1;
        ASSERT_EQ(site_publish(f.db, &o, &res, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "nothing:here") != NULL);
        fx_free(&f);
}

TEST(slugs) {
        g_autofree char *a = page_slug("6.1.0-57-amd64");
        g_autofree char *b = page_slug("6.1.0/57");
        g_autofree char *c = page_slug("6.1.0_57");
        g_autofree char *d = page_slug("..");
        g_autofree char *e = page_slug("");

        ASSERT_STREQ(a, "6.1.0-57-amd64");
        ASSERT_TRUE(strchr(b, '/') == NULL);
        ASSERT_TRUE(strcmp(b, c) != 0);      /* '/' -> '_' but the hash keeps them apart */
        ASSERT_TRUE(d[0] != '.');
        ASSERT_TRUE(e[0] != '\0');
}

/* Values no measurement gives, from a broken writer or a hand edit: near
 * DBL_MAX on one kernel, an infinity on one cell. Every page shows them as
 * numbers of their own size or as n/a, never cut to a shorter number
 * ("%.0f" of 4e307 in a 32-byte buffer reads as 4e30), "inf %" or "nan". */
TEST(huge_and_infinite_values) {
        struct fx f;
        g_autoptr(GPtrArray) names = NULL;

        fx_init(&f, 2, 4, 0);
        ASSERT_EQ(sqlite3_exec(db_handle(f.db),
                               "UPDATE metrics SET value = 4e307 * (1 + cell_id % 3) WHERE name = 'dd.write_MBps';"
                               "UPDATE metrics SET value = -3e306 WHERE name = 'guest.write.wait_s';"
                               "UPDATE metrics SET value = 9e999 WHERE name = 'dd.read_MBps' AND "
                               "cell_id = (SELECT min(cell_id) FROM metrics WHERE name = 'dd.read_MBps');",
                               NULL, NULL, NULL), SQLITE_OK);
        publish(&f);
        names = pages(&f);
        for (guint i = 0; i < names->len; i++) {
                g_autofree char *page = read_page(&f, g_ptr_array_index(names, i));
                int digits = 0;

                /* the data files hold numbers as numbers (null when not finite) */
                if (!g_str_has_suffix(g_ptr_array_index(names, i), ".html"))
                        continue;

                for (const char *p = page; *p; p++) {
                        digits = *p >= '0' && *p <= '9' ? digits + 1 : 0;
                        if (digits >= 20)
                                TEST_FAIL("%s: a %d-digit number", (char *)g_ptr_array_index(names, i), digits);
                }
                ASSERT_TRUE(strstr(page, "inf") == NULL || strstr(page, "inf %") == NULL);
                ASSERT_TRUE(strstr(page, "nan") == NULL);
                ASSERT_TRUE(strstr(page, ">inf") == NULL && strstr(page, " inf") == NULL);
        }
        fx_free(&f);
}

/* A and B that select the same cells: the page says so, as kbench compare
 * does, instead of showing a perfect A/A agreement as if it were one. */
TEST(same_cells_page) {
        struct fx f;
        struct kb_error err = { { 0 } };
        struct site_options o = { 0 };
        struct site_result res;
        const char *pairs[] = { "run:1:6.1.0-57-amd64:run:1:6.1.0-57-amd64" };
        g_autofree char *file = page_compare_file("run:1:6.1.0-57-amd64", "run:1:6.1.0-57-amd64");
        g_autofree char *page = NULL;

        fx_init(&f, 1, 12, 0);
        o.dir = f.site;
        o.compares = pairs;
        o.n_compares = 1;
        if (site_publish(f.db, &o, &res, &err) < 0)
                TEST_FAIL("--compare: %s", err.msg);
        page = read_page(&f, file);
        ASSERT_TRUE(strstr(page, "A and B select the same cells") != NULL);
        fx_free(&f);
}

/* The metric of group spec in a comparison's data file, or NULL. */
static json_t *cmp_metric(json_t *cmp, const char *workload, const char *metric) {
        size_t i, k;
        json_t *g, *m;

        json_array_foreach(json_object_get(json_object_get(cmp, "compare"), "groups"), i, g) {
                if (strcmp(json_string_value(json_object_get(g, "workload")), workload) != 0)
                        continue;
                json_array_foreach(json_object_get(g, "metrics"), k, m)
                        if (strcmp(json_string_value(json_object_get(m, "name")), metric) == 0)
                                return m;
        }
        return NULL;
}

/* Three nights (the second kernel slow on the second): the index shows the
 * regression new, then fixed, linked to the nights' comparison pages and
 * announcing the feed; the night's comparison page shows each judged
 * metric's samples and history with the compared runs marked; index.json
 * and the comparison's data file carry the same numbers as the pages. */
TEST(nights) {
        struct fx f;
        struct kb_error err = { { 0 } };
        g_autofree char *file2 = page_compare_file("run:1:6.1.0-47-amd64", "run:2:6.1.0-57-amd64");
        g_autofree char *json2 = page_json_file(file2);
        g_autofree char *index = NULL, *page = NULL, *itext = NULL, *ctext = NULL;
        json_t *ij, *cj, *ev, *m, *hist;
        char change[32];

        fx_init(&f, 3, 16, 0);
        if (sitefixture_nights(f.db, "6.1.0-57-amd64", &err) < 0)
                TEST_FAIL("nights: %s", err.msg);
        publish(&f);
        index = read_page(&f, "index.html");
        page = read_page(&f, file2);
        ASSERT_TRUE(strstr(index, "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"kbench regressions\" "
                                  "href=\"feed.xml\"/>") != NULL);
        ASSERT_TRUE(strstr(index, "Regressions across nights (2 states)") != NULL);
        ASSERT_TRUE(strstr(index, "0 open (") != NULL);
        ASSERT_TRUE(strstr(index, "state ok\">fixed<") != NULL && strstr(index, "state bad\">new<") != NULL);
        ASSERT_TRUE(strstr(index, "state bad\">still<") == NULL);
        ASSERT_TRUE(strstr(index, file2) != NULL);
        /* the night's page: its alpha, the samples and the history of each judged metric */
        ASSERT_TRUE(strstr(page, "kbench nightly of 2025-12-03") != NULL);
        ASSERT_TRUE(strstr(page, "<title>dd.write_MBps: samples</title>") != NULL);
        ASSERT_TRUE(strstr(page, "<title>dd.write_MBps: history</title>") != NULL);
        ASSERT_TRUE(strstr(page, "runs up to 2;") != NULL);
        ASSERT_TRUE(strstr(page, ">A</text>") != NULL && strstr(page, ">B</text>") != NULL);
        ASSERT_TRUE(strstr(page, "<title>A: 6.1.0-47-amd64</title>") != NULL);

        itext = read_page(&f, "index.json");
        ctext = read_page(&f, json2);
        ij = json_loads(itext, 0, NULL);
        cj = json_loads(ctext, 0, NULL);
        ASSERT_TRUE(ij != NULL && cj != NULL);
        ASSERT_EQ(json_array_size(json_object_get(ij, "regressions")), 2);
        ev = json_array_get(json_object_get(ij, "regressions"), 1);
        ASSERT_STREQ(json_string_value(json_object_get(ev, "state")), "new");
        ASSERT_STREQ(json_string_value(json_object_get(ev, "metric")), "dd.write_MBps");
        ASSERT_STREQ(json_string_value(json_object_get(ev, "page")), file2);
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(ij, "regressions"), 0), "state")),
                     "fixed");
        /* the change the index shows is the comparison's, and the page's */
        m = cmp_metric(cj, "dd", "dd.write_MBps");
        ASSERT_TRUE(m != NULL);
        ASSERT_STREQ(json_string_value(json_object_get(m, "verdict")), "worse");
        ASSERT_NEAR(json_real_value(json_object_get(ev, "change_pct")), json_real_value(json_object_get(m, "change_pct")),
                    1e-9);
        snprintf(change, sizeof(change), "%+.1f%%", json_real_value(json_object_get(m, "change_pct")));
        ASSERT_TRUE(strstr(index, change) != NULL && strstr(page, change) != NULL);
        /* the history: both kernels in runs 1 and 2 (run 3 comes after the
         * comparison), B's write rate halved in run 2 */
        hist = json_array_get(json_object_get(json_array_get(json_object_get(cj, "history"), 0), "metrics"), 0);
        ASSERT_TRUE(hist != NULL);
        ASSERT_STREQ(json_string_value(json_object_get(hist, "metric")), "dd.read_MBps");
        hist = json_array_get(json_object_get(json_array_get(json_object_get(cj, "history"), 0), "metrics"), 1);
        ASSERT_STREQ(json_string_value(json_object_get(hist, "metric")), "dd.write_MBps");
        ASSERT_EQ(json_array_size(json_object_get(json_object_get(hist, "a"), "points")), 2);
        {
                json_t *b = json_object_get(json_object_get(hist, "b"), "points");
                double m1 = json_real_value(json_object_get(json_array_get(b, 0), "mean"));
                double m2 = json_real_value(json_object_get(json_array_get(b, 1), "mean"));

                ASSERT_EQ(json_array_size(b), 2);
                ASSERT_EQ(json_integer_value(json_object_get(json_array_get(b, 1), "run")), 2);
                ASSERT_NEAR(m2 / m1, 0.5, 0.03);
        }
        ASSERT_STREQ(json_string_value(json_object_get(cj, "page")), file2);
        json_decref(ij);
        json_decref(cj);
        fx_free(&f);
}

/* A bisection gets a page linked from the index: its answer, its steps
 * with their runs linked, the hostile candidate name as text. */
TEST(bisection_page) {
        struct fx f;
        struct kb_error err = { { 0 } };
        g_autofree char *index = NULL, *page = NULL, *data = NULL;
        json_t *j;

        fx_init(&f, 3, 4, 0);
        if (sitefixture_bisection(f.db, SITEFIXTURE_HOSTILE, &err) < 0)
                TEST_FAIL("bisection: %s", err.msg);
        publish(&f);
        index = read_page(&f, "index.html");
        page = read_page(&f, "bisect-1.html");
        data = read_page(&f, "bisect-1.json");
        ASSERT_TRUE(strstr(index, "href=\"bisect-1.html\"") != NULL);
        ASSERT_TRUE(strstr(page, "First bad: <strong>&lt;img src=x onerror=alert(1)&gt;</strong>") != NULL);
        ASSERT_TRUE(strstr(page, "the ends differ by -50.0%") != NULL && strstr(page, "confirmed") != NULL);
        ASSERT_TRUE(strstr(page, "<img") == NULL);
        ASSERT_TRUE(strstr(page, "Steps (3)") != NULL);
        ASSERT_TRUE(strstr(page, "href=\"run-1.html\"") && strstr(page, "href=\"run-3.html\""));
        ASSERT_TRUE(strstr(page, "The first bad against the last good, measured once more") != NULL);
        ASSERT_TRUE(strstr(page, "<title>dd.write_MBps</title>") != NULL);
        j = json_loads(data, 0, NULL);
        ASSERT_TRUE(j != NULL);
        ASSERT_EQ(json_array_size(json_object_get(j, "steps")), 3);
        ASSERT_STREQ(json_string_value(json_object_get(j, "first_bad")), SITEFIXTURE_HOSTILE);
        json_decref(j);
        fx_free(&f);
}

/* Every chart of a page: no font below SVG_FONT_MIN viewBox units; each
 * chart wide and narrow, the wide no wider than SVG_WIDTH and the narrow
 * no wider than SVG_NARROW, the style sheet's smallest drawn widths of
 * each, so no label is drawn below 12 px. Returns the number of charts. */
static size_t check_chart_text(const char *page, const char *name) {
        size_t charts = 0, narrow = 0;

        for (const char *p = page; (p = strstr(p, "<svg ")); p++) {
                const char *vb = strstr(p, "viewBox=\"0 0 "), *cls = strstr(p, "class=\"chart ");
                int is_narrow;
                long w;

                ASSERT_TRUE(vb != NULL && cls != NULL && cls < strchr(p, '>'));
                is_narrow = strncmp(cls, "class=\"chart narrow\"", 20) == 0;
                ASSERT_TRUE(is_narrow || strncmp(cls, "class=\"chart wide\"", 18) == 0);
                w = strtol(vb + 13, NULL, 10);
                if (w > (is_narrow ? SVG_NARROW : SVG_WIDTH))
                        TEST_FAIL("%s: a %s chart %ld wide, wider than the %d it is never drawn below", name,
                                  is_narrow ? "narrow" : "wide", w, is_narrow ? SVG_NARROW : SVG_WIDTH);
                narrow += is_narrow;
                charts++;
        }
        ASSERT_EQ(narrow * 2, charts);
        for (const char *p = page; (p = strstr(p, "font-size=\"")); p++) {
                long size = strtol(p + 11, NULL, 10);

                if (size < SVG_FONT_MIN)
                        TEST_FAIL("%s: chart text of font-size %ld", name, size);
        }
        if (charts) {
                ASSERT_TRUE(strstr(page, "svg.wide{min-width:" G_STRINGIFY(SVG_WIDTH) "px}") != NULL);
                ASSERT_TRUE(strstr(page, "svg.narrow{display:none;min-width:" G_STRINGIFY(SVG_NARROW) "px;") != NULL);
                ASSERT_TRUE(strstr(page, "@media (max-width:600px){svg.wide{display:none}svg.narrow{display:block}") !=
                            NULL);
        }
        return charts;
}

/* The comparison's narrow forest plot: as wide as SVG_NARROW, each
 * metric's label on a line above its row, starting at the left edge. */
static void check_narrow_forest(const char *page) {
        const char *p = strstr(page, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ");
        const char *narrow = NULL;

        for (; p; p = strstr(p + 1, "<svg "))
                if (strstr(p, "class=\"chart narrow\"") < strchr(p, '>') && strstr(p, "forest-row") &&
                    strstr(p, "forest-row") < strstr(p, "</svg>")) {
                        narrow = p;
                        break;
                }
        ASSERT_TRUE(narrow != NULL);
        ASSERT_EQ(strtol(strstr(narrow, "viewBox=\"0 0 ") + 13, NULL, 10), SVG_NARROW);
        /* a row's label: the first text of the row, at x = 4 */
        p = strstr(strstr(narrow, "<g class=\"forest-row\">"), "<text x=\"");
        ASSERT_TRUE(p != NULL && strncmp(p, "<text x=\"4\" ", 12) == 0);
}

/* What a reader takes in at a glance: the index opens with the latest
 * verdicts; a comparison opens with its forest plot (a row per judged
 * metric) and the system table; histories only where there are two runs;
 * the run page charts every judged measure and names its settings as a
 * reader would; chart text is never below 12 px; the feed of a store
 * without nights is dated. */
TEST(layout) {
        struct fx f;
        g_autofree char *file = page_compare_file("run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64");
        g_autofree char *json = page_json_file(file);
        g_autofree char *index = NULL, *page = NULL, *data = NULL, *run = NULL, *feed = NULL, *kernel = NULL;
        g_autoptr(GPtrArray) names = NULL;
        const char *h2, *forest, *table;
        json_t *j, *g;
        size_t gi, judged = 0, charts = 0;

        fx_init(&f, 1, 12, 0);
        publish(&f);
        index = read_page(&f, "index.html");
        page = read_page(&f, file);
        data = read_page(&f, json);
        run = read_page(&f, "run-1.html");
        feed = read_page(&f, "feed.xml");
        kernel = read_page(&f, "kernel-6.1.0-57-amd64.html");

        /* the index: the verdicts first, in the workload's terms */
        h2 = strstr(index, "<h2");
        ASSERT_TRUE(h2 != NULL && g_str_has_prefix(h2, "<h2>Latest verdicts</h2>"));
        ASSERT_TRUE(strstr(index, "6.1.0-57-amd64 against 6.1.0-47-amd64</a></h3>") != NULL);
        ASSERT_TRUE(strstr(index, "<strong>dd:") != NULL && strstr(index, "judged metric") != NULL);
        ASSERT_TRUE(strstr(index, "<th>kernel</th><th>against</th>") != NULL);
        ASSERT_TRUE(strstr(index, "vs A") == NULL);

        /* the comparison: the forest plot before the tables, a row per judged metric */
        j = json_loads(data, 0, NULL);
        ASSERT_TRUE(j != NULL);
        json_array_foreach(json_object_get(json_object_get(j, "compare"), "groups"), gi, g) {
                size_t mi;
                json_t *m;

                json_array_foreach(json_object_get(g, "metrics"), mi, m)
                        judged += json_is_true(json_object_get(m, "judged"));
        }
        json_decref(j);
        ASSERT_TRUE(judged >= 6);           /* dd's rates, instructions and waiting; ftp's rate */
        /* a row per judged metric in the wide plot and again in the narrow one */
        ASSERT_EQ(test_occurrences(page, "<g class=\"forest-row\">"), 2 * judged);
        forest = strstr(page, "<g class=\"forest-row\">");
        table = strstr(page, "<table class=\"cmp\">");
        ASSERT_TRUE(forest && table && forest < table);
        ASSERT_TRUE(strstr(page, ">change of the mean, % of A</text>") != NULL);
        /* waiting and spinning in the unit their figures are printed in */
        ASSERT_TRUE(strstr(page, ">difference of the means, s</text>") != NULL ||
                    strstr(page, ">difference of the means, ms</text>") != NULL ||
                    strstr(page, ">difference of the means, \xc2\xb5s</text>") != NULL);
        check_narrow_forest(page);
        /* the system table, from what the run stored, and nothing it did not */
        ASSERT_TRUE(strstr(page, "<h2>System</h2>") != NULL && strstr(page, "<th>QEMU</th>") != NULL);
        ASSERT_TRUE(strstr(page, "AMD EPYC, 2 cores") != NULL && strstr(page, "23.5 GiB") != NULL);
        ASSERT_TRUE(strstr(page, "<th>accelerator</th><td class=\"wrap\" colspan=\"2\">TCG</td>") != NULL);
        /* one run: the comparison is the only point, no history drawn */
        ASSERT_TRUE(strstr(page, ": history</title>") == NULL);
        ASSERT_TRUE(strstr(kernel, "<title>dd.write_MBps</title>") == NULL);

        /* no bar labelled 0.000: small times in µs or ms, other small values to three digits */
        ASSERT_TRUE(strstr(run, ">0.000<") == NULL && strstr(page, ">0.000<") == NULL);
        /* the kernel page headlines the judged measures, the rest folded below */
        {
                const char *other = strstr(kernel, "<details><summary>Other metrics (");
                const char *minsn = strstr(kernel, ">guest.<wbr>write.<wbr>kernel_<wbr>Minsn</th>");

                ASSERT_TRUE(other && minsn && minsn < other);
                ASSERT_TRUE(strstr(other, ">vmstat.<wbr>bo_<wbr>mean</th>") != NULL);
                ASSERT_TRUE(strstr(kernel, ">vmstat.<wbr>bo_<wbr>mean</th>") > other);
        }
        /* the run page: the judged measures beyond dd's rates; settings in words */
        ASSERT_TRUE(strstr(run, "<title>guest.write.kernel_Minsn</title>") != NULL);
        ASSERT_TRUE(strstr(run, "<title>guest.write.wait_s</title>") != NULL);
        ASSERT_TRUE(strstr(run, "how_keys") == NULL && strstr(run, "accel_why") == NULL);
        ASSERT_TRUE(strstr(run, SITEFIXTURE_ACCEL_ERROR) == NULL);
        ASSERT_TRUE(strstr(run, "<dd>TCG (KVM probe guest failed to start)</dd>") != NULL);
        ASSERT_TRUE(strstr(run, "<dd>cold, each cell boots its guest</dd>") != NULL);
        ASSERT_TRUE(strstr(run, "<dt>warm</dt>") == NULL && strstr(run, "<dt>cold</dt>") == NULL);
        ASSERT_TRUE(strstr(run, "<dt>mem</dt><dd>160 MiB</dd>") != NULL);

        /* every page's chart text */
        names = pages(&f);
        for (guint i = 0; i < names->len; i++) {
                const char *name = g_ptr_array_index(names, i);
                g_autofree char *text = NULL;

                if (!g_str_has_suffix(name, ".html"))
                        continue;
                text = read_page(&f, name);
                charts += check_chart_text(text, name);
        }
        ASSERT_TRUE(charts > 20);

        /* no nights: the feed is dated by the newest run, not 1970 */
        ASSERT_TRUE(strstr(feed, "<updated>1970-") == NULL);
        ASSERT_TRUE(strstr(feed, "<updated>2025-12-01T") != NULL);
        fx_free(&f);
}

/* A store without runs still dates its feed: the time of publishing. */
TEST(empty_feed_dated) {
        struct fx f;
        g_autofree char *feed = NULL;
        char year[16];
        time_t now = time(NULL);
        struct tm tm;

        fx_init(&f, 0, 0, 0);
        publish(&f);
        feed = read_page(&f, "feed.xml");
        gmtime_r(&now, &tm);
        strftime(year, sizeof(year), "<updated>%Y-", &tm);
        ASSERT_TRUE(strstr(feed, year) != NULL);
        fx_free(&f);
}
