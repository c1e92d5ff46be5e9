/* test-vmstat.c: the vmstat parser and stall analysis on captures of every
 * dialect (tests/data/vmstat/: procps-ng 4.0.2 on this machine, the seed
 * posts' tables, procps 2.x/3.x format excerpts, kbench's agent format) and
 * on constructed texts (garbage-mixed streams, procps4-1-5.txt; the
 * folder's README lists which are which). Expected figures were counted independently of the
 * parser (by hand and with a separate script over the fixture text). */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "common/test.h"
#include "common/util.h"
#include "workloads/vmstat.h"
#include "workloads/vmstat_metrics.h"

static char *fixture_read(const char *name, size_t *ret_len) {
        char path[4096], src[4096];
        const char *dir = getenv("KBENCH_TEST_DATA");
        FILE *f;
        char *buf;
        long n;

        if (!dir) {
                /* meson compiles with a path relative to the build root,
                 * where meson test runs us. */
                snprintf(src, sizeof(src), "%s", __FILE__);
                snprintf(path, sizeof(path), "%s/../tests/data/vmstat/%s", dirname(src), name);
        } else {
                snprintf(path, sizeof(path), "%s/vmstat/%s", dir, name);
        }
        f = fopen(path, "rb");
        if (!f)
                TEST_FAIL("cannot open fixture %s (set KBENCH_TEST_DATA to tests/data)", path);
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc((size_t)n + 1);
        ASSERT_TRUE(buf);
        ASSERT_EQ(fread(buf, 1, (size_t)n, f), n);
        fclose(f);
        buf[n] = '\0';
        *ret_len = (size_t)n;
        return buf;
}

static struct vmstat_table *parse_fixture(const char *name, int skip_first) {
        struct vmstat_table *t = NULL;
        size_t len;
        char *buf = fixture_read(name, &len);

        ASSERT_EQ(vmstat_parse_text(buf, len, skip_first, &t), 0);
        free(buf);
        return t;
}

static double col_sum(const struct vmstat_table *t, const char *name) {
        int c = vmstat_table_col(t, name);
        double s = 0;

        ASSERT_TRUE(c >= 0);
        for (size_t i = 0; i < t->nsamples; i++)
                s += vmstat_table_value(t, i, c);
        return s;
}

static void cols_are(const struct vmstat_table *t, const char *names) {
        char buf[512], *save = NULL;
        size_t i = 0;

        snprintf(buf, sizeof(buf), "%s", names);
        for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save), i++) {
                ASSERT_TRUE(i < t->ncols);
                ASSERT_STREQ(t->cols[i], w);
        }
        ASSERT_EQ(i, t->ncols);
}

/* runs: flat {start, length} pairs. */
static void stalls_are(const struct vmstat_table *t, double threshold, const size_t *runs, size_t n) {
        struct vmstat_stalls *s = NULL;

        ASSERT_EQ(vmstat_stalls(t, threshold, 1.0, NAN, NAN, &s), 0);
        ASSERT_EQ(s->count, n);
        for (size_t i = 0; i < n; i++) {
                ASSERT_EQ(s->runs[i].start, runs[2 * i]);
                ASSERT_EQ(s->runs[i].length, runs[2 * i + 1]);
                ASSERT_NEAR(s->runs[i].seconds, (double)runs[2 * i + 1], 1e-12);
        }
        vmstat_stalls_free(s);
}

TEST(procps4_default) {
        struct vmstat_table *t = parse_fixture("procps4-1-5.txt", 0);
        static const size_t runs[] = { 1, 1, 3, 2 };

        cols_are(t, "r b swpd free buff cache si so bi bo in cs us sy id wa st");
        ASSERT_EQ(t->nsamples, 5);
        ASSERT_EQ(t->rejected, 0);
        ASSERT_EQ(t->ncaptures, 1);
        ASSERT_NEAR(col_sum(t, "bo"), 74527, 1e-9);
        ASSERT_NEAR(vmstat_table_value(t, 2, vmstat_table_col(t, "cs")), 17848, 1e-9);
        ASSERT_TRUE(isnan(t->samples[0].t));
        stalls_are(t, 100, runs, 2);
        vmstat_table_free(t);

        /* --skip-first drops the since-boot row: the stall at index 1 moves to 0. */
        t = parse_fixture("procps4-1-5.txt", 1);
        ASSERT_EQ(t->nsamples, 4);
        ASSERT_EQ(t->skipped, 1);
        ASSERT_NEAR(col_sum(t, "bo"), 74527 - 2215, 1e-9);
        static const size_t runs2[] = { 0, 1, 2, 2 };
        stalls_are(t, 100, runs2, 2);
        vmstat_table_free(t);
}

TEST(procps4_dialects) {
        struct vmstat_table *t = parse_fixture("procps4-a.txt", 0);
        cols_are(t, "r b swpd free inact active si so bi bo in cs us sy id wa st");
        ASSERT_EQ(t->nsamples, 3);
        ASSERT_NEAR(col_sum(t, "bo"), 2374, 1e-9);
        ASSERT_EQ(vmstat_table_col(t, "buff"), -1);
        vmstat_table_free(t);

        t = parse_fixture("procps4-w.txt", 0);
        cols_are(t, "r b swpd free buff cache si so bi bo in cs us sy id wa st gu");
        ASSERT_EQ(t->nsamples, 3);
        ASSERT_EQ(t->rejected, 0);
        ASSERT_NEAR(col_sum(t, "bo"), 2286, 1e-9);
        vmstat_table_free(t);

        t = parse_fixture("procps4-SM.txt", 0);
        ASSERT_EQ(t->nsamples, 3);
        ASSERT_NEAR(col_sum(t, "bo"), 1132747, 1e-9);
        ASSERT_NEAR(col_sum(t, "free"), 3 * 20802, 1e-9);
        vmstat_table_free(t);

        /* -t: the zone is not a column; the timestamps give t. */
        t = parse_fixture("procps4-t.txt", 0);
        cols_are(t, "r b swpd free buff cache si so bi bo in cs us sy id wa st");
        ASSERT_STREQ(t->tz, "UTC");
        ASSERT_EQ(t->nsamples, 3);
        ASSERT_EQ(t->rejected, 0);
        ASSERT_NEAR(col_sum(t, "bo"), 2266, 1e-9);
        ASSERT_NEAR(t->samples[0].t, 1796068961, 1e-6); /* 2026-11-30 20:02:41 UTC */
        ASSERT_NEAR(t->samples[2].t - t->samples[0].t, 2.0, 1e-9);
        struct vmstat_stalls *s = NULL;
        ASSERT_EQ(vmstat_stalls(t, 100, 1, NAN, NAN, &s), 0);
        ASSERT_TRUE(s->have_times);
        ASSERT_EQ(s->pause_count, 0);
        vmstat_stalls_free(s);
        vmstat_table_free(t);

        t = parse_fixture("procps4-wta.txt", 0);
        cols_are(t, "r b swpd free inact active si so bi bo in cs us sy id wa st gu");
        ASSERT_EQ(t->nsamples, 2);
        ASSERT_NEAR(col_sum(t, "bo"), 970370, 1e-9);
        vmstat_table_free(t);
}

TEST(procps2_and_3) {
        struct vmstat_table *t = parse_fixture("procps2-2.2-era.txt", 0);
        static const size_t runs22[] = { 0, 3, 4, 2 };
        cols_are(t, "r b w swpd free buff cache si so bi bo in cs us sy id");
        ASSERT_EQ(t->nsamples, 7);
        ASSERT_EQ(t->rejected, 0);
        ASSERT_NEAR(col_sum(t, "bo"), 4072, 1e-9);
        stalls_are(t, 100, runs22, 2);
        vmstat_table_free(t);

        t = parse_fixture("procps2-2.4-swap.txt", 0);
        static const size_t runs24[] = { 1, 3 };
        ASSERT_EQ(t->nsamples, 6);
        ASSERT_NEAR(col_sum(t, "si"), 554, 1e-9);
        ASSERT_NEAR(col_sum(t, "so"), 613, 1e-9);
        ASSERT_NEAR(col_sum(t, "bo"), 511, 1e-9);
        stalls_are(t, 100, runs24, 1);
        vmstat_table_free(t);

        t = parse_fixture("procps3-2.6.txt", 0);
        static const size_t runs26[] = { 0, 1, 2, 2, 5, 1 };
        cols_are(t, "r b swpd free buff cache si so bi bo in cs us sy id wa");
        ASSERT_EQ(t->nsamples, 7);
        ASSERT_NEAR(col_sum(t, "bo"), 50606, 1e-9);
        stalls_are(t, 100, runs26, 3);
        vmstat_table_free(t);
}

/* The 2000 post: hand-cut columns, group line without dashes, prose around. */
TEST(seed_2000_swap) {
        struct vmstat_table *t = parse_fixture("seed-2000-swap.txt", 0);
        struct vmstat_summary s;

        cols_are(t, "buff cache si so bi bo in cs us sy id");
        ASSERT_EQ(t->nsamples, 26);
        ASSERT_EQ(t->ncaptures, 2);
        ASSERT_EQ(t->rejected, 27);
        ASSERT_NEAR(col_sum(t, "si"), 1229, 1e-9);
        ASSERT_NEAR(col_sum(t, "so"), 2419, 1e-9);
        ASSERT_NEAR(col_sum(t, "bo"), 1050, 1e-9);
        ASSERT_EQ(t->samples[13].capture, 1);
        ASSERT_EQ(vmstat_summary(t, vmstat_table_col(t, "bi"), NAN, NAN, &s), 0);
        ASSERT_EQ(s.n, 26);
        ASSERT_NEAR(s.min, 0, 1e-9);
        ASSERT_NEAR(s.max, 8810, 1e-9);
        vmstat_table_free(t);

        /* Each capture's since-boot row dropped. */
        t = parse_fixture("seed-2000-swap.txt", 1);
        ASSERT_EQ(t->nsamples, 24);
        ASSERT_EQ(t->skipped, 2);
        ASSERT_NEAR(col_sum(t, "si"), 1229 - 6 - 7, 1e-9);
        vmstat_table_free(t);
}

/* The 2002 post: stalls of 1-2 s on 2.4.19, ~3 s on 2.5.31-akpm. */
TEST(seed_2002_stalls) {
        struct vmstat_table *t = parse_fixture("seed-2002-stalls.txt", 0);
        struct vmstat_stalls *s = NULL;
        static const size_t runs[] = {
                3, 2, 7, 3, 12, 3, 17, 3,   /* 2.5.31-akpm, samples 0-19 */
                20, 4, 26, 3, 30, 3,        /* 2.5.31, samples 20-34 */
                35, 2, 41, 1, 46, 1, 50, 2, /* 2.4.19, samples 35-53 */
        };

        cols_are(t, "r b w swpd free buff cache si so bi bo in cs us sy id");
        ASSERT_EQ(t->nsamples, 54);
        ASSERT_EQ(t->ncaptures, 3);
        ASSERT_EQ(t->rejected, 50);
        ASSERT_NEAR(col_sum(t, "bo"), 75652 + 59024 + 76160, 1e-9);
        ASSERT_NEAR(col_sum(t, "si"), 0, 1e-9);
        stalls_are(t, 100, runs, 11);
        ASSERT_EQ(vmstat_stalls(t, 100, 1, NAN, NAN, &s), 0);
        ASSERT_NEAR(s->longest_s, 4, 1e-12);
        ASSERT_NEAR(s->total_s, 27, 1e-12);
        ASSERT_NEAR(s->fraction, 27.0 / 54.0, 1e-12);
        ASSERT_TRUE(!s->have_times);
        vmstat_stalls_free(s);
        /* A 2 s interval doubles the seconds, not the runs. */
        ASSERT_EQ(vmstat_stalls(t, 100, 2, NAN, NAN, &s), 0);
        ASSERT_EQ(s->count, 11);
        ASSERT_NEAR(s->longest_s, 8, 1e-12);
        vmstat_stalls_free(s);
        /* Threshold 0: only exact zeros. */
        static const size_t zeros[] = { 9, 1, 14, 1, 20, 4, 26, 1, 28, 1, 31, 2, 36, 1, 46, 1, 51, 1 };
        stalls_are(t, 0, zeros, 9);
        vmstat_table_free(t);
}

TEST(garbage_mixed) {
        struct vmstat_table *t = parse_fixture("garbage-mixed.txt", 0);
        static const size_t runs[] = { 1, 4, 6, 2 };

        cols_are(t, "r b swpd free buff cache si so bi bo in cs us sy id wa st inact active");
        ASSERT_EQ(t->nsamples, 8);
        ASSERT_EQ(t->rejected, 8);
        ASSERT_EQ(t->ncaptures, 2);
        ASSERT_NEAR(col_sum(t, "bo"), 10677, 1e-9);
        ASSERT_NEAR(col_sum(t, "si"), 16, 1e-9);
        ASSERT_NEAR(col_sum(t, "so"), 48, 1e-9);
        ASSERT_TRUE(isnan(vmstat_table_value(t, 0, vmstat_table_col(t, "inact"))));
        ASSERT_TRUE(isnan(vmstat_table_value(t, 7, vmstat_table_col(t, "buff"))));
        ASSERT_NEAR(vmstat_table_value(t, 7, vmstat_table_col(t, "inact")), 1613812, 1e-9);
        stalls_are(t, 100, runs, 2);
        vmstat_table_free(t);

        t = parse_fixture("garbage-mixed.txt", 1);
        static const size_t runs2[] = { 0, 4, 5, 1 };
        ASSERT_EQ(t->nsamples, 6);
        ASSERT_EQ(t->skipped, 2);
        ASSERT_EQ(t->rejected, 8);
        ASSERT_NEAR(col_sum(t, "bo"), 10677 - 2215 - 50, 1e-9);
        stalls_are(t, 100, runs2, 2);
        vmstat_table_free(t);
}

/* Split points must not matter: feed the garbage stream byte by byte. */
TEST(feed_bytes_chunking) {
        size_t len;
        char *buf = fixture_read("garbage-mixed.txt", &len);
        struct vmstat_parser *p = vmstat_parser_new();
        struct vmstat_table *t;

        for (size_t i = 0; i < len; i++)
                ASSERT_TRUE(vmstat_parser_feed_bytes(p, buf + i, 1) >= 0);
        t = vmstat_parser_finish(p);
        ASSERT_EQ(t->nsamples, 8);
        ASSERT_EQ(t->rejected, 8);
        ASSERT_NEAR(col_sum(t, "bo"), 10677, 1e-9);
        vmstat_table_free(t);
        free(buf);
}

/* kbench's agent format, fed line by line with host times and the since-boot
 * row marked, as the harness does. */
static struct vmstat_table *kbench_capture(void) {
        static const double times[] = { 10.0, 11.0, 12.0, 13.0, 16.2, 17.2, 18.2, 19.2 };
        size_t len, row = 0;
        char *buf = fixture_read("kbench-agent.txt", &len);
        struct vmstat_parser *p = vmstat_parser_new();
        char *save = NULL;

        for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                int r = vmstat_parser_feed(p, l, strlen(l), row < 8 ? times[row] : NAN, row == 0);
                ASSERT_TRUE(r >= 0);
                row += (size_t)r;
        }
        ASSERT_EQ(row, 8);
        free(buf);
        return vmstat_parser_finish(p);
}

TEST(kbench_agent) {
        struct vmstat_table *t = kbench_capture();
        struct vmstat_stalls *s = NULL;
        struct vmstat_summary sm;

        cols_are(t, "r b swpd free buff cache si so bi bo in cs us sy id wa st gu dirty writeback");
        ASSERT_EQ(t->nsamples, 8);
        ASSERT_TRUE(t->samples[0].first);
        ASSERT_TRUE(!t->samples[1].first);
        ASSERT_NEAR(col_sum(t, "writeback"), 2048 + 4096 * 4 + 6144 * 2, 1e-9);
        ASSERT_EQ(vmstat_summary(t, vmstat_table_col(t, "bo"), NAN, NAN, &sm), 0);
        ASSERT_EQ(sm.n, 7); /* since-boot row excluded */
        ASSERT_NEAR(sm.mean, (46460.0 - 340.0) / 7.0, 1e-9);
        ASSERT_NEAR(sm.min, 0, 1e-9);
        ASSERT_NEAR(sm.max, 14336, 1e-9);

        ASSERT_EQ(vmstat_stalls(t, 100, 1, NAN, NAN, &s), 0);
        ASSERT_EQ(s->n, 7);
        ASSERT_EQ(s->count, 2);
        ASSERT_EQ(s->runs[0].start, 3);
        ASSERT_EQ(s->runs[0].length, 2);
        ASSERT_EQ(s->runs[1].start, 6);
        ASSERT_EQ(s->runs[1].length, 1);
        ASSERT_TRUE(s->have_times);
        ASSERT_EQ(s->pause_count, 1);
        ASSERT_EQ(s->pauses[0].start, 3);
        ASSERT_EQ(s->pauses[0].length, 2);
        ASSERT_NEAR(s->pauses[0].seconds, 3.2, 1e-9);
        ASSERT_NEAR(s->pause_fraction, 3.2 / (19.2 - 11.0), 1e-9);
        vmstat_stalls_free(s);

        /* A window keeps samples with t in [12, 16.2]: indexes 2, 3, 4. */
        ASSERT_EQ(vmstat_stalls(t, 100, 1, 12.0, 16.2, &s), 0);
        ASSERT_EQ(s->n, 3);
        ASSERT_EQ(s->count, 1);
        ASSERT_EQ(s->runs[0].start, 3);
        ASSERT_EQ(s->pause_count, 1);
        vmstat_stalls_free(s);
        vmstat_table_free(t);
}

TEST(metrics) {
        struct vmstat_table *t = kbench_capture();
        struct metric_list ml = { 0 };
        const struct metric *m;

        ASSERT_EQ(vmstat_metrics(t, 100, 1, NAN, NAN, &ml), 0);
        ASSERT_NEAR(metric_find(&ml, "vmstat.samples")->value, 7, 1e-9);
        ASSERT_NEAR(metric_find(&ml, "vmstat.stall_count")->value, 2, 1e-9);
        ASSERT_NEAR(metric_find(&ml, "vmstat.stall_longest_s")->value, 2, 1e-12);
        ASSERT_NEAR(metric_find(&ml, "vmstat.stall_total_s")->value, 3, 1e-12);
        ASSERT_NEAR(metric_find(&ml, "vmstat.stall_fraction")->value, 3.0 / 7.0, 1e-12);
        ASSERT_NEAR(metric_find(&ml, "vmstat.pause_count")->value, 1, 1e-9);
        ASSERT_NEAR(metric_find(&ml, "vmstat.pause_longest_s")->value, 3.2, 1e-9);
        m = metric_find(&ml, "vmstat.bo_mean");
        ASSERT_TRUE(m && m->has_value);
        ASSERT_NEAR(m->value, 46120.0 / 7.0, 1e-9);
        ASSERT_STREQ(m->unit, "blocks/s");
        ASSERT_STREQ(metric_find(&ml, "vmstat.wa_mean")->unit, "%");
        ASSERT_TRUE(metric_find(&ml, "vmstat.bo_cov")->has_value);
        /* si is 0 throughout: a cov without value, with the reason. */
        m = metric_find(&ml, "vmstat.si_cov");
        ASSERT_TRUE(m && !m->has_value && m->note);
        metric_list_clear(&ml);

        /* Text without times: no pause metrics. */
        vmstat_table_free(t);
        t = parse_fixture("procps4-1-5.txt", 0);
        ASSERT_EQ(vmstat_metrics(t, 100, 1, NAN, NAN, &ml), 0);
        ASSERT_NEAR(metric_find(&ml, "vmstat.samples")->value, 5, 1e-9);
        ASSERT_TRUE(metric_find(&ml, "vmstat.pause_count") == NULL);
        metric_list_clear(&ml);
        vmstat_table_free(t);
}

/* The agent's vm and disk columns (tests/data/vmstat/kbench-agent-vm-disk.txt,
 * first row the since-boot one): per-phase levels, peaks and totals. Rows
 * are rates per second, so at a 0.5 s interval the same rows are half the
 * sectors and stalls. */
TEST(kbench_vm_disk_columns) {
        size_t len, row = 0;
        char *buf = fixture_read("kbench-agent-vm-disk.txt", &len);
        struct vmstat_parser *p = vmstat_parser_new();
        struct metric_list m = { 0 }, half = { 0 };
        struct vmstat_table *t;
        const struct metric *x;
        char *save = NULL;

        for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                int r = vmstat_parser_feed(p, l, strlen(l), 10.0 + (double)row, row == 0);
                ASSERT_TRUE(r >= 0);
                row += (size_t)r;
        }
        free(buf);
        t = vmstat_parser_finish(p);
        ASSERT_EQ(t->nsamples, 5);
        ASSERT_EQ(t->rejected, 0);   /* the group line with vm and disk is a header */
        ASSERT_TRUE(vmstat_table_col(t, "util") >= 0);
        ASSERT_TRUE(vmstat_table_col(t, "allocstall") >= 0);
        ASSERT_EQ(vmstat_phase_metrics(t, "write", 1, 100, 1, NAN, NAN, &m), 0);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.disk_written_MiB")) && x->has_value);
        ASSERT_NEAR(x->value, 40, 1e-9);          /* 4 rows x 20480 sectors/s x 1 s x 512 B */
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.util_pct_mean")) && x->has_value);
        ASSERT_NEAR(x->value, 90, 1e-9);          /* (70 + 95 + 100 + 95) / 4, the first row left out */
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.util_pct_max")) && x->has_value);
        ASSERT_NEAR(x->value, 100, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.allocstall_total")) && x->has_value);
        ASSERT_NEAR(x->value, 4, 1e-9);           /* 2 + 1 + 0 + 1 */
        ASSERT_STREQ(x->unit, "stalls");
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.pgscan_per_s")) && x->has_value);
        ASSERT_NEAR(x->value, 200, 1e-9);         /* (300 + 500 + 0 + 0) / 4 */
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.pgsteal_per_s")) && x->has_value);
        ASSERT_NEAR(x->value, 162.5, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.nr_dirty_max")) && x->has_value);
        ASSERT_NEAR(x->value, 5120, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.nr_writeback_max")) && x->has_value);
        ASSERT_NEAR(x->value, 1024, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.inflight_max")) && x->has_value);
        ASSERT_NEAR(x->value, 31, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.disk_writes_per_s")) && x->has_value);
        ASSERT_NEAR(x->value, 80, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.disk_read_MiB")) && x->has_value);
        ASSERT_NEAR(x->value, 0, 1e-9);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.write.dirty_thresh_mean")) && x->has_value);
        ASSERT_NEAR(x->value, 19625, 1e-9);
        ASSERT_EQ(vmstat_phase_metrics(t, NULL, 1, 100, 0.5, NAN, NAN, &half), 0);
        ASSERT_TRUE((x = metric_find(&half, "vmstat.disk_written_MiB")) && x->has_value);
        ASSERT_NEAR(x->value, 20, 1e-9);
        ASSERT_TRUE((x = metric_find(&half, "vmstat.allocstall_total")) && x->has_value);
        ASSERT_NEAR(x->value, 2, 1e-9);
        metric_list_clear(&m);
        metric_list_clear(&half);
        vmstat_table_free(t);

        /* The agent's last row comes when the job ends, less than an
         * interval after the one before: it counts for that long. */
        {
                static const char *const lines[] = { " r  b  free wsect", " 1  0  5000  2048", " 1  0  5000  2048",
                                                     " 1  0  5000  2048" };
                static const double when[] = { 0, 1.0, 2.0, 2.5 };
                struct vmstat_parser *q = vmstat_parser_new();
                for (size_t i = 0; i < ELEMENTSOF(lines); i++)
                        ASSERT_TRUE(vmstat_parser_feed(q, lines[i], strlen(lines[i]), when[i], 0) >= 0);
                t = vmstat_parser_finish(q);
                memset(&m, 0, sizeof(m));
                ASSERT_EQ(vmstat_phase_metrics(t, NULL, 1, 100, 1, NAN, NAN, &m), 0);
                ASSERT_TRUE((x = metric_find(&m, "vmstat.disk_written_MiB")) && x->has_value);
                ASSERT_NEAR(x->value, 2.5, 1e-9);   /* 1 MiB/s for 1 + 1 + 0.5 s */
                metric_list_clear(&m);
                vmstat_table_free(t);
        }

        /* Absent with a note (no event counters): no number, the note instead;
         * a capture without the columns at all (older agent) has none of them. */
        {
                static const char *const lines[] = {
                        " r  b  free  bo nr_dirty pgscan pgsteal allocstall rsect wsect util",
                        "# absent pgscan pgsteal allocstall: /proc/vmstat has no pgscan_* pgsteal_* allocstall*",
                        " 1  0  5000 100      10      -       -          -     0    64   10",
                        " 1  0  5000 100      20      -       -          -     0    64   20",
                };
                struct vmstat_parser *q = vmstat_parser_new();
                for (size_t i = 0; i < ELEMENTSOF(lines); i++)
                        ASSERT_TRUE(vmstat_parser_feed(q, lines[i], strlen(lines[i]), 1.0 + (double)i, 0) >= 0);
                t = vmstat_parser_finish(q);
                ASSERT_EQ(t->nsamples, 2);
                memset(&m, 0, sizeof(m));
                ASSERT_EQ(vmstat_phase_metrics(t, "write", 1, 100, 1, NAN, NAN, &m), 0);
                ASSERT_TRUE((x = metric_find(&m, "vmstat.write.allocstall_total")) && !x->has_value);
                ASSERT_STREQ(x->note, t->note);
                ASSERT_TRUE((x = metric_find(&m, "vmstat.write.pgscan_per_s")) && !x->has_value);
                ASSERT_TRUE((x = metric_find(&m, "vmstat.write.util_pct_mean")) && x->has_value);
                ASSERT_NEAR(x->value, 15, 1e-9);
                ASSERT_TRUE(metric_find(&m, "vmstat.write.inflight_max") == NULL);
                metric_list_clear(&m);
                vmstat_table_free(t);
        }
}

/* A kernel without event counters: the agent prints "-" for bi bo si so and
 * says why in a "# absent" note. The columns stay NAN, the analysis skips
 * them and the metrics carry the note instead of a number. */
TEST(kbench_absent_columns) {
        static const char *const lines[] = {
                "procs -----------memory---------- ---swap-- -----io---- --system- -------cpu------- -----kbench-----",
                " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st gu  dirty writeback",
                "# absent si so bi bo: /proc/vmstat has no pgpgin pgpgout pswpin pswpout"
                " (a kernel without CONFIG_VM_EVENT_COUNTERS)",
                " 1  0      0 120000   2000  30000    -    -     -     -  250  400  2 30 60  8  0  0  10000         0",
                " 1  1      0 110000   2000  40000    -    -     -     -  260  380  1 40 40 19  0  0  20000      2048",
                " 0  1      0 100000   2000  50000    -    -     -     -  270  360  0 20 50 30  0  0   8000      4096",
        };
        struct vmstat_parser *p = vmstat_parser_new();
        struct metric_list m = { 0 };
        struct vmstat_table *t;
        const struct metric *x;
        struct vmstat_summary sm;

        for (size_t i = 0; i < ELEMENTSOF(lines); i++)
                ASSERT_TRUE(vmstat_parser_feed(p, lines[i], strlen(lines[i]), 10.0 + (double)i, 0) >= 0);
        t = vmstat_parser_finish(p);
        ASSERT_EQ(t->nsamples, 3);
        ASSERT_EQ(t->rejected, 0);
        /* A note that is not printable ASCII could not go into JSON: rejected. */
        {
                struct vmstat_parser *q = vmstat_parser_new();
                struct vmstat_table *u;
                ASSERT_EQ(vmstat_parser_feed(q, "# absent bo: caf\xc3", 17, NAN, 0), 0);
                u = vmstat_parser_finish(q);
                ASSERT_TRUE(u->note == NULL);
                ASSERT_EQ(u->rejected, 1);
                vmstat_table_free(u);
        }
        ASSERT_STREQ(t->note, "absent si so bi bo: /proc/vmstat has no pgpgin pgpgout pswpin pswpout"
                              " (a kernel without CONFIG_VM_EVENT_COUNTERS)");
        ASSERT_TRUE(vmstat_table_absent_note(t, "bo") == t->note);
        ASSERT_TRUE(vmstat_table_absent_note(t, "so") == t->note);
        ASSERT_TRUE(vmstat_table_absent_note(t, "b") == NULL);
        ASSERT_TRUE(vmstat_table_absent_note(t, "us") == NULL);
        ASSERT_TRUE(!vmstat_table_has_values(t, vmstat_table_col(t, "bo")));
        ASSERT_TRUE(vmstat_table_has_values(t, vmstat_table_col(t, "cs")));
        ASSERT_EQ(vmstat_summary(t, vmstat_table_col(t, "bo"), NAN, NAN, &sm), 0);
        ASSERT_EQ(sm.n, 0);

        ASSERT_EQ(vmstat_metrics(t, 100, 1, NAN, NAN, &m), 0);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.samples")) && x->has_value);
        ASSERT_NEAR(x->value, 3, 0);
        /* No "0 stalls": there is no bo to stall on. */
        ASSERT_TRUE((x = metric_find(&m, "vmstat.stall_count")) && !x->has_value);
        ASSERT_STREQ(x->note, t->note);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.stall_longest_s")) && !x->has_value);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.bo_mean")) && !x->has_value);
        ASSERT_STREQ(x->note, t->note);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.si_cov")) && !x->has_value);
        ASSERT_TRUE((x = metric_find(&m, "vmstat.wa_mean")) && x->has_value);
        ASSERT_NEAR(x->value, 19, 1e-12);
        metric_list_clear(&m);

        vmstat_table_free(t);
}

TEST(line_rules) {
        struct vmstat_parser *p = vmstat_parser_new();
        struct vmstat_table *t;
        char big[VMSTAT_LINE_MAX + 64];
        const char *hdr = "r b swpd free buff cache si so bi bo in cs us sy id wa st";
        const char *row = "1 0 0 10 20 30 0 0 5 7 100 200 1 2 97 0 0";

        /* A row before any header, prose made of column-like words, and a
         * line beyond the bound are rejected. */
        ASSERT_EQ(vmstat_parser_feed(p, row, strlen(row), NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "so in us", 8, NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, hdr, strlen(hdr), NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "   \r\n", 5, NAN, 0), 0); /* blank: not counted */
        ASSERT_EQ(vmstat_parser_feed(p, row, strlen(row), NAN, 0), 1);
        memset(big, ' ', sizeof(big));
        memcpy(big + sizeof(big) - strlen(row), row, strlen(row));
        ASSERT_EQ(vmstat_parser_feed(p, big, sizeof(big), NAN, 0), 0);
        /* "-" is a value the agent's kernel does not provide: the row is
         * kept with NAN there; "--" is nothing. */
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 7 100 200 1 2 97 0 -", 41, NAN, 0), 1);
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 7 100 200 1 2 97 0 --", 42, NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 7 100 200 1 2 97 0 1e3", 43, NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 7.5 100 200 1 2 97 0 0\r\n", 45, NAN, 0), 1);
        /* No counter is negative or beyond 2^53: such a row is rejected
         * whole (a negative bo would read as a stall). 2^53 itself is kept. */
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 -7 7 100 200 1 2 97 0 0", 42, NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 -8 100 200 1 2 97 0 0", 42, NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 100000000000000000000000 100 200 1 2 97 0 0", 64,
                                     NAN, 0), 0);
        ASSERT_EQ(vmstat_parser_feed(p, "1 0 0 10 20 30 0 0 5 9007199254740992 100 200 1 2 97 0 0", 56, NAN, 0),
                  1);
        t = vmstat_parser_finish(p);
        ASSERT_EQ(t->nsamples, 4);
        ASSERT_EQ(t->rejected, 8);
        ASSERT_NEAR(col_sum(t, "bo"), 21.5 + 9007199254740992.0, 4);
        ASSERT_TRUE(isnan(vmstat_table_value(t, 1, vmstat_table_col(t, "st"))));
        vmstat_table_free(t);

        /* Headers whose new names would take the table past VMSTAT_COLS_MAX
         * are rejected, and the rows after one are not read through the
         * previous header. */
        p = vmstat_parser_new();
        ASSERT_EQ(vmstat_parser_feed(p, hdr, strlen(hdr), NAN, 0), 0);
        for (char c = 'w'; c <= 'z'; c++) {
                char wide[1024];
                size_t n = (size_t)snprintf(wide, sizeof(wide), "%s", hdr);
                for (int i = 0; i < 17; i++)
                        n += (size_t)snprintf(wide + n, sizeof(wide) - n, " %c%d", c, i);
                ASSERT_EQ(vmstat_parser_feed(p, wide, n, NAN, 0), 0);
        }
        ASSERT_EQ(vmstat_parser_feed(p, row, strlen(row), NAN, 0), 0);
        t = vmstat_parser_finish(p);
        ASSERT_EQ(t->ncols, 17 + 17 * 2);
        ASSERT_EQ(t->nsamples, 0);
        ASSERT_EQ(t->rejected, 3); /* the 'y' and 'z' headers, then the row */
        vmstat_table_free(t);
}

TEST(errors) {
        struct vmstat_table *t = parse_fixture("seed-2000-swap.txt", 0);
        struct vmstat_stalls *s = NULL;
        struct vmstat_summary sm;

        ASSERT_EQ(vmstat_stalls(t, 100, 0, NAN, NAN, &s), -EINVAL);
        ASSERT_EQ(vmstat_stalls(t, NAN, 1, NAN, NAN, &s), -EINVAL);
        ASSERT_EQ(vmstat_summary(t, 99, NAN, NAN, &sm), -EINVAL);
        ASSERT_EQ(vmstat_table_col(t, "wa"), -1);
        vmstat_table_free(t);

        /* No bo column: stalls cannot be told. */
        ASSERT_EQ(vmstat_parse_text("r b swpd free buff cache\n1 0 0 1 2 3\n", 37, 0, &t), 0);
        ASSERT_EQ(t->nsamples, 1);
        ASSERT_EQ(vmstat_stalls(t, 100, 1, NAN, NAN, &s), -ENOENT);
        vmstat_table_free(t);
}

/* ---- blind check -------------------------------------------------------
 * blind-*.txt were written for an independent check of issue 3 without
 * looking at the fixtures above: one per dialect (procps 2.x with w,
 * procps-ng 3.3, 4.x -w with gu, -a -w -t with a zone name, -S units with a
 * header of other names, kbench's columns, hand-cut excerpts with and without
 * group line, a real tty capture with CRLF and screenful repeats), each with
 * garbage mixed in (kernel lines, NULs, CR-only and CR CR LF ends, short/long
 * rows, non-numeric, '+5', '5.', a 400-digit number, 3000-byte lines, a row
 * padded past the line bound, bad -t dates, a truncated last line). The
 * expected figures come from how each line was built (row, header, junk),
 * by a generator that never parses the text, not from this parser. */
struct blind_run {
        size_t start, length;
        double seconds;
};

struct blind_case {
        const char *file;
        int skip_first;
        double threshold, interval;
        const char *cols;
        size_t nsamples, rejected;
        double sum_bo, sum_si, sum_so, fraction;
        size_t nruns;
        struct blind_run runs[6];
        int have_times;
        size_t npauses;
        struct blind_run pauses[3];
};

static const struct blind_case blind_cases[] = {
        { "blind-procps2-w.txt", 0, 100, 1,
          "r b w swpd free buff cache si so bi bo in cs us sy id",
          12, 10, 17462, 23, 19, 0.66666666666666663,
          5, { { 0, 1, 1 }, { 2, 2, 2 }, { 5, 2, 2 }, { 8, 1, 1 }, { 9, 2, 2 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-procps2-w.txt", 1, 100, 1,
          "r b w swpd free buff cache si so bi bo in cs us sy id",
          10, 10, 17398, 16, 8, 0.59999999999999998,
          4, { { 1, 2, 2 }, { 4, 2, 2 }, { 7, 1, 1 }, { 8, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-procps2-w.txt", 0, 50, 2,
          "r b w swpd free buff cache si so bi bo in cs us sy id",
          12, 10, 17462, 23, 19, 0.41666666666666669,
          4, { { 0, 1, 2 }, { 5, 2, 4 }, { 8, 1, 2 }, { 10, 1, 2 } },
          0, 0, { { 0, 0, 0 } } },
        /* Two of its rows, bo 10^20 and si -3 bo -5 cs -300, are no
         * counter's values (VMSTAT_VALUE_MAX): rejected since, so the
         * figures are the generator's without those two rows (8 left:
         * bo 380 12 50.5 6000 80 0 7 12000). */
        { "blind-ng33.txt", 0, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st",
          8, 8, 18529.5, 0.5, 1.25, 0.625,
          2, { { 1, 2, 2 }, { 4, 3, 3 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-ng33.txt", 1, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st",
          7, 8, 18149.5, 0.5, 1.25, 5.0 / 7.0,
          2, { { 0, 2, 2 }, { 3, 3, 3 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-ng33.txt", 0, 50, 2,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st",
          8, 8, 18529.5, 0.5, 1.25, 0.375,
          2, { { 1, 1, 2 }, { 5, 2, 4 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-ng4-wide.txt", 0, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st gu",
          6, 2, 6865, 96, 384, 0.66666666666666663,
          2, { { 1, 3, 3 }, { 5, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-ng4-wide.txt", 1, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st gu",
          5, 2, 3190, 96, 384, 0.80000000000000004,
          2, { { 0, 3, 3 }, { 4, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-ng4-wide.txt", 0, 50, 2,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st gu",
          6, 2, 6865, 96, 384, 0.33333333333333331,
          2, { { 1, 1, 2 }, { 5, 1, 2 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-awt-tz.txt", 0, 100, 1,
          "r b swpd free inact active si so bi bo in cs us sy id wa st gu",
          8, 4, 21200, 0, 0, 0.5,
          2, { { 1, 2, 2 }, { 5, 2, 2 } },
          1, 2, { { 2, 3, 4 }, { 5, 2, 3 } } },
        { "blind-awt-tz.txt", 1, 100, 1,
          "r b swpd free inact active si so bi bo in cs us sy id wa st gu",
          7, 4, 17520, 0, 0, 0.5714285714285714,
          2, { { 0, 2, 2 }, { 4, 2, 2 } },
          1, 2, { { 1, 3, 4 }, { 4, 2, 3 } } },
        { "blind-awt-tz.txt", 0, 50, 2,
          "r b swpd free inact active si so bi bo in cs us sy id wa st gu",
          8, 4, 21200, 0, 0, 0.5,
          2, { { 1, 2, 4 }, { 5, 2, 4 } },
          1, 1, { { 2, 1, 4 } } },
        { "blind-units.txt", 0, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st inact active",
          7, 3, 11108, 0, 0, 0.42857142857142855,
          3, { { 1, 1, 1 }, { 4, 1, 1 }, { 6, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-units.txt", 1, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st inact active",
          4, 3, 101, 0, 0, 0.75,
          3, { { 0, 1, 1 }, { 2, 1, 1 }, { 3, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-units.txt", 0, 50, 2,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st inact active",
          7, 3, 11108, 0, 0, 0.42857142857142855,
          3, { { 1, 1, 2 }, { 4, 1, 2 }, { 6, 1, 2 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-kbench.txt", 0, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st gu dirty writeback",
          6, 2, 55200, 0, 0, 0.5,
          1, { { 2, 3, 3 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-kbench.txt", 1, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st gu dirty writeback",
          5, 2, 54000, 0, 0, 0.59999999999999998,
          1, { { 1, 3, 3 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-kbench.txt", 0, 50, 2,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st gu dirty writeback",
          6, 2, 55200, 0, 0, 0.5,
          1, { { 2, 3, 6 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-excerpt.txt", 0, 100, 1,
          "buff cache si so bi bo in cs us sy id",
          11, 3, 5844, 640, 835, 0.54545454545454541,
          4, { { 2, 2, 2 }, { 6, 2, 2 }, { 8, 1, 1 }, { 10, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-excerpt.txt", 1, 100, 1,
          "buff cache si so bi bo in cs us sy id",
          8, 3, 5533, 627, 816, 0.625,
          3, { { 1, 2, 2 }, { 4, 2, 2 }, { 7, 1, 1 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-excerpt.txt", 0, 50, 2,
          "buff cache si so bi bo in cs us sy id",
          11, 3, 5844, 640, 835, 0.54545454545454541,
          4, { { 2, 2, 4 }, { 6, 2, 4 }, { 8, 1, 2 }, { 10, 1, 2 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-tty-crlf.txt", 0, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st",
          7, 1, 7612, 0, 0, 0.5714285714285714,
          1, { { 3, 4, 4 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-tty-crlf.txt", 1, 100, 1,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st",
          6, 1, 3948, 0, 0, 0.66666666666666663,
          1, { { 2, 4, 4 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-tty-crlf.txt", 0, 50, 2,
          "r b swpd free buff cache si so bi bo in cs us sy id wa st",
          7, 1, 7612, 0, 0, 0.5714285714285714,
          1, { { 3, 4, 8 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-nul-cr.txt", 0, 100, 1,
          "r b w swpd free buff cache si so bi bo in cs us sy id",
          4, 3, 664, 3, 2, 0.75,
          2, { { 0, 1, 1 }, { 2, 2, 2 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-nul-cr.txt", 1, 100, 1,
          "r b w swpd free buff cache si so bi bo in cs us sy id",
          3, 3, 660, 3, 2, 0.66666666666666663,
          1, { { 1, 2, 2 } },
          0, 0, { { 0, 0, 0 } } },
        { "blind-nul-cr.txt", 0, 50, 2,
          "r b w swpd free buff cache si so bi bo in cs us sy id",
          4, 3, 664, 3, 2, 0.5,
          2, { { 0, 1, 2 }, { 3, 1, 2 } },
          0, 0, { { 0, 0, 0 } } },
};

static void blind_runs_are(const struct vmstat_run *got, size_t ngot, const struct blind_run *want, size_t n) {
        ASSERT_EQ(ngot, n);
        for (size_t i = 0; i < n; i++) {
                ASSERT_EQ(got[i].start, want[i].start);
                ASSERT_EQ(got[i].length, want[i].length);
                ASSERT_NEAR(got[i].seconds, want[i].seconds, 1e-9);
        }
}

TEST(blind_dialects_with_garbage) {
        for (size_t k = 0; k < ELEMENTSOF(blind_cases); k++) {
                const struct blind_case *c = &blind_cases[k];
                struct vmstat_table *t = parse_fixture(c->file, c->skip_first);
                struct vmstat_stalls *s = NULL;
                double longest = 0, total = 0;

                fprintf(stderr, "blind case %s skip_first=%d threshold=%g interval=%g\n", c->file, c->skip_first,
                        c->threshold, c->interval);
                cols_are(t, c->cols);
                ASSERT_EQ(t->nsamples, c->nsamples);
                ASSERT_EQ(t->rejected, c->rejected);
                ASSERT_NEAR(col_sum(t, "bo"), c->sum_bo, 1e-9 * fmax(1, fabs(c->sum_bo)));
                ASSERT_NEAR(col_sum(t, "si"), c->sum_si, 1e-9);
                ASSERT_NEAR(col_sum(t, "so"), c->sum_so, 1e-9);
                ASSERT_EQ(vmstat_stalls(t, c->threshold, c->interval, NAN, NAN, &s), 0);
                blind_runs_are(s->runs, s->count, c->runs, c->nruns);
                for (size_t i = 0; i < c->nruns; i++) {
                        total += c->runs[i].seconds;
                        longest = fmax(longest, c->runs[i].seconds);
                }
                ASSERT_NEAR(s->longest_s, longest, 1e-9);
                ASSERT_NEAR(s->total_s, total, 1e-9);
                ASSERT_NEAR(s->fraction, c->fraction, 1e-12);
                ASSERT_EQ(s->have_times, c->have_times);
                if (c->have_times)
                        blind_runs_are(s->pauses, s->pause_count, c->pauses, c->npauses);
                vmstat_stalls_free(s);
                vmstat_table_free(t);
        }
}

TEST_MAIN();

/* ---- phases ------------------------------------------------------------ */

/* A cell's raw ttyS1 log (tests/data/cells/, `kbench show RUN --cell KEY
 * --log data`) as the cell gives it to the analysis: vmstat lines into a
 * table at their guest times (t_ms / 1000), each as expand rows (1: as
 * recorded), rows after until (NAN: none) left out; events into
 * names/times. Returns the table. */
struct cell_log {
        char *names[64];
        double t[64];
        size_t n;
};

static struct vmstat_table *cell_log_read(const char *name, int expand, double until, struct cell_log *ret) {
        char path[4096], src[4096];
        struct vmstat_parser *p = vmstat_parser_new();
        char line[2048];
        FILE *f;

        snprintf(src, sizeof(src), "%s", __FILE__);
        snprintf(path, sizeof(path), "%s/../tests/data/cells/%s", dirname(src), name);
        f = fopen(path, "r");
        if (!f)
                TEST_FAIL("cannot open %s", path);
        *ret = (struct cell_log){ .n = 0 };
        while (fgets(line, sizeof(line), f)) {
                char *save = NULL, *at = strtok_r(line, " ", &save), *cell = strtok_r(NULL, " ", &save);
                char *seq = strtok_r(NULL, " ", &save), *ms = strtok_r(NULL, " ", &save);
                char *type = strtok_r(NULL, " ", &save), *payload = strtok_r(NULL, "\n", &save), *crc;
                double t;

                if (!at || strcmp(at, "@kb") != 0 || !cell || !seq || !ms || !type || !payload)
                        continue;
                crc = strrchr(payload, '*');
                if (crc && crc > payload)
                        crc[-1] = '\0';
                t = strtod(ms, NULL) / 1000.0;
                if (strcmp(type, "event") == 0 && ret->n < 64) {
                        ret->names[ret->n] = strdup(payload);
                        ret->t[ret->n++] = t;
                } else if (strcmp(type, "vmstat-header") == 0) {
                        ASSERT_EQ(vmstat_parser_feed(p, payload, strlen(payload), NAN, 0), 0);
                } else if (strcmp(type, "vmstat-boot") == 0) {
                        ASSERT_EQ(vmstat_parser_feed(p, payload, strlen(payload), t, 1), 1);
                } else if (strcmp(type, "vmstat") == 0 && !(t > until)) {
                        /* expand > 1: the row as that many samples of 1/expand s each
                         * (what the agent at --vmstat-interval 1/expand reports for a
                         * second of even rates: the same rates per second). */
                        for (int k = expand - 1; k >= 0; k--)
                                ASSERT_EQ(vmstat_parser_feed(p, payload, strlen(payload), t - (double)k / expand, 0),
                                          1);
                }
        }
        fclose(f);
        return vmstat_parser_finish(p);
}

static void cell_log_clear(struct cell_log *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->names[i]);
}

static double value_of(const struct metric_list *m, const char *name) {
        const struct metric *x = metric_find(m, name);

        if (!x)
                TEST_FAIL("no metric %s", name);
        return x->has_value ? x->value : NAN;
}

TEST(phases_from_events) {
        static const char *const ev[] = {
                "mounted", "phase write", "phase drop-caches", "phase read", "phase end",
        };
        static const double t[] = { 1, 2, 10, 11, 20 };
        struct vmstat_phase ph[8];

        ASSERT_EQ(vmstat_phases_from_events(ev, t, 5, ph, 8), 3);
        ASSERT_STREQ(ph[0].name, "write");
        ASSERT_NEAR(ph[0].from, 2, 1e-12);
        ASSERT_NEAR(ph[0].to, 10, 1e-12);
        ASSERT_STREQ(ph[1].name, "drop_caches");
        ASSERT_STREQ(ph[2].name, "read");
        ASSERT_NEAR(ph[2].to, 20, 1e-12);
        /* Without "phase end" the last phase runs to the end of the capture. */
        ASSERT_EQ(vmstat_phases_from_events(ev, t, 4, ph, 8), 3);
        ASSERT_TRUE(isinf(ph[2].to));
}

TEST(phases_tiotest_and_ftp) {
        static const char *const tio[] = { "phase seq_write t1", "phase rand_write t1", "phase seq_read t1",
                                           "phase rand_read t1", "phase seq_write t2", "phase rand_write t2",
                                           "phase seq_read t2", "phase rand_read t2", "phase end" };
        static const double tt[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        static const char *const ftp[] = { "mounted", "host-start", "upload-seen", "sync-start", "sync-end" };
        static const double ft[] = { 3.0, 3.1, 15.75, 16.0, 19.5 };
        struct vmstat_phase ph[16];

        ASSERT_EQ(vmstat_phases_from_events(tio, tt, 9, ph, 16), 8);
        ASSERT_STREQ(ph[0].name, "seq_write.t1");
        ASSERT_STREQ(ph[7].name, "rand_read.t2");
        ASSERT_NEAR(ph[7].from, 8, 1e-12);
        ASSERT_NEAR(ph[7].to, 9, 1e-12);
        ASSERT_NEAR(ph[4].to, 6, 1e-12);
        /* host-start opens "host" (never ended: to the end); sync-start..sync-end is "sync". */
        ASSERT_EQ(vmstat_phases_from_events(ftp, ft, 5, ph, 16), 2);
        ASSERT_STREQ(ph[0].name, "host");
        ASSERT_STREQ(ph[1].name, "sync");
        ASSERT_NEAR(ph[1].from, 16.0, 1e-12);
        ASSERT_NEAR(ph[1].to, 19.5, 1e-12);
}

TEST(phases_refuse_hostile_events) {
        static const char *const ev[] = {
                "phase Write", "phase a/b", "phase write", "phase write", "phase x y z",
                "phase aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "phase a t1", "-start", "x\x01-start",
        };
        static const double t[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        struct vmstat_phase ph[2];

        /* Upper case, a slash, a repeat, three words, too long, "-start": ignored;
         * then only max = 2 phases are kept. */
        ASSERT_EQ(vmstat_phases_from_events(ev, t, 9, ph, 2), 2);
        ASSERT_STREQ(ph[0].name, "write");
        ASSERT_NEAR(ph[0].from, 3, 1e-12);
        ASSERT_STREQ(ph[1].name, "a.t1");
        ASSERT_EQ(vmstat_phase_name_ok("a.t1"), 1);
        ASSERT_EQ(vmstat_phase_name_ok("a..b"), 0);
        ASSERT_EQ(vmstat_phase_name_ok(".a"), 0);
        ASSERT_EQ(vmstat_phase_name_ok("A"), 0);
}

/* A real dd cell with --disk-mbps 40 (6.1.0-57, TCG): over the whole
 * capture the read phase (bo 0 by design) is a 14 s "stall"; per phase
 * the write phase has none and the read phase reports none at all. */
TEST(dd_throttled_read_phase_is_no_stall) {
        struct cell_log log;
        struct vmstat_table *t = cell_log_read("dd-disk40.facts", 1, NAN, &log);
        struct vmstat_phase ph[8];
        struct metric_list m = { 0 };
        size_t n = vmstat_phases_from_events((const char *const *)log.names, log.t, log.n, ph, 8);

        ASSERT_EQ(n, 3);
        ASSERT_EQ(vmstat_phase_metrics(t, NULL, 1, 100, 1, NAN, NAN, &m), 0);
        ASSERT_NEAR(value_of(&m, "vmstat.stall_longest_s"), 14, 1e-9);
        metric_list_clear(&m);

        ASSERT_STREQ(ph[0].name, "write");
        ASSERT_EQ(vmstat_phase_metrics(t, NULL, 1, 100, 1, ph[0].from, ph[0].to, &m), 0);
        ASSERT_EQ(vmstat_phase_metrics(t, "write", 1, 100, 1, ph[0].from, ph[0].to, &m), 0);
        ASSERT_STREQ(ph[2].name, "read");
        ASSERT_EQ(vmstat_phase_metrics(t, "read", 0, 100, 1, ph[2].from, ph[2].to, &m), 0);
        ASSERT_NEAR(value_of(&m, "vmstat.stall_longest_s"), 0, 1e-9);
        ASSERT_NEAR(value_of(&m, "vmstat.stall_count"), 0, 1e-9);
        ASSERT_NEAR(value_of(&m, "vmstat.write.stall_longest_s"), 0, 1e-9);
        /* 4.997 .. 17.997: the row at 17.997 describes 16.997..17.997, 0.68 s of it writing. */
        ASSERT_NEAR(value_of(&m, "vmstat.write.samples"), 14, 1e-9);
        ASSERT_NEAR(value_of(&m, "vmstat.write.bo_mean"), 524383.0 / 14, 1e-6);
        ASSERT_NEAR(value_of(&m, "vmstat.read.samples"), 14, 1e-9);
        ASSERT_NEAR(value_of(&m, "vmstat.read.bi_mean"), 528756.0 / 14, 1e-6);
        ASSERT_TRUE(metric_find(&m, "vmstat.read.stall_longest_s") == NULL);
        ASSERT_TRUE(metric_find(&m, "vmstat.read.stall_count") == NULL);
        ASSERT_TRUE(metric_find(&m, "vmstat.read.pause_count") != NULL);
        metric_list_clear(&m);
        vmstat_table_free(t);
        cell_log_clear(&log);
}

/* The same cell sampled every 0.25 s (each real row as four quarter-second
 * rows with its rates per second): stalls are the same seconds, four
 * times the rows. The last row (0.44 s after the one before) is left out
 * of both, since a quarter-second agent would report it as two rows. */
TEST(quarter_second_stalls_are_the_same_seconds) {
        struct cell_log l1, l4;
        struct vmstat_table *t1 = cell_log_read("dd-disk40.facts", 1, 31.0, &l1);
        struct vmstat_table *t4 = cell_log_read("dd-disk40.facts", 4, 31.0, &l4);
        struct vmstat_stalls *s1 = NULL, *s4 = NULL;

        ASSERT_EQ(vmstat_stalls(t1, 100, 1, NAN, NAN, &s1), 0);
        ASSERT_EQ(vmstat_stalls(t4, 100, 0.25, NAN, NAN, &s4), 0);
        ASSERT_EQ(s1->count, 1);
        ASSERT_EQ(s4->count, 1);
        ASSERT_EQ(s4->runs[0].length, 4 * s1->runs[0].length);
        ASSERT_NEAR(s1->longest_s, 13, 1e-9);
        ASSERT_NEAR(s4->longest_s, s1->longest_s, 1e-9);
        ASSERT_NEAR(s4->total_s, s1->total_s, 1e-9);
        ASSERT_NEAR(s4->fraction, s1->fraction, 1e-9);
        /* Quarter-second rows 0.25 s apart are no pauses. */
        ASSERT_EQ(s4->pause_count, 0);
        vmstat_stalls_free(s1);
        vmstat_stalls_free(s4);
        vmstat_table_free(t1);
        vmstat_table_free(t4);
        cell_log_clear(&l1);
        cell_log_clear(&l4);
}

/* The agent's records of real cells (the .facts files of tests/data/cells: 20
 * columns from an older agent, 33 from the current one at 0.5 s) read by
 * index give the table the text parser gives matching the header by
 * name: the same columns in the same order, samples, captures, values
 * and note. */
static void agent_equals_text_parser(const char *facts) {
        size_t len;
        char *buf = fixture_read(facts, &len);
        struct vmstat_parser *p = vmstat_parser_new();
        struct vmstat_agent *a = vmstat_agent_new();
        struct vmstat_table *tp, *ta;
        size_t rows = 0;

        ASSERT_TRUE(p && a);
        for (char *line = buf, *nl; line < buf + len; line = nl + 1) {
                struct proto_record rec;
                int header, first;
                double t;

                nl = memchr(line, '\n', (size_t)(buf + len - line));
                if (!nl)
                        nl = buf + len;
                if (proto_parse(line, (size_t)(nl - line), &rec) != PROTO_OK || strncmp(rec.type, "vmstat", 6) != 0)
                        continue;
                header = strcmp(rec.type, "vmstat-header") == 0;
                first = strcmp(rec.type, "vmstat-boot") == 0;
                t = header ? NAN : (double)rec.t_ms / 1000;
                ASSERT_TRUE(vmstat_parser_feed(p, rec.payload, rec.payload_len, t, first) >= 0);
                ASSERT_EQ(vmstat_agent_feed(a, rec.type, rec.payload, rec.payload_len, t) >= 0, 1);
        }
        ASSERT_TRUE(vmstat_agent_why(a) == NULL);
        tp = vmstat_parser_finish(p);
        ta = vmstat_agent_finish(a);
        ASSERT_EQ(ta->ncols, tp->ncols);
        for (size_t c = 0; c < ta->ncols; c++)
                ASSERT_STREQ(ta->cols[c], tp->cols[c]);
        ASSERT_EQ(ta->nsamples, tp->nsamples);
        ASSERT_EQ(ta->ncaptures, tp->ncaptures);
        ASSERT_EQ(ta->rejected, 0);
        ASSERT_EQ(tp->rejected, 0);
        ASSERT_EQ(!ta->note, !tp->note);
        if (ta->note)
                ASSERT_STREQ(ta->note, tp->note);
        for (size_t i = 0; i < ta->nsamples; i++) {
                ASSERT_EQ(ta->samples[i].first, tp->samples[i].first);
                ASSERT_EQ(ta->samples[i].capture, tp->samples[i].capture);
                ASSERT_NEAR(ta->samples[i].t, tp->samples[i].t, 0);
                for (size_t c = 0; c < ta->ncols; c++) {
                        double x = vmstat_table_value(ta, i, (int)c), y = vmstat_table_value(tp, i, (int)c);
                        ASSERT_TRUE(isnan(x) ? isnan(y) : x == y);
                        rows += !isnan(x);
                }
        }
        ASSERT_TRUE(ta->nsamples > 5 && rows > 0);
        vmstat_table_free(ta);
        vmstat_table_free(tp);
        free(buf);
}

TEST(agent_reads_by_index_as_the_text_parser_by_name) {
        agent_equals_text_parser("../cells/dd-disk40.facts");
        agent_equals_text_parser("../cells/ftp-64M.facts");
        agent_equals_text_parser("../cells/dd-half-planted.facts");
}

/* What the agent never writes is rejected whole with the reason, and the
 * rows around it are read as before. */
TEST(agent_rejects_what_it_does_not_write) {
        static const char names[] = " r  b   swpd   free   buff  cache   si   so    bi    bo";
        struct vmstat_agent *a = vmstat_agent_new();
        struct vmstat_table *t;

        ASSERT_TRUE(a != NULL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat", "1 2 3", 5, 1.0), -EINVAL);
        ASSERT_TRUE(strstr(vmstat_agent_why(a), "before any header") != NULL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-header", "procs -----memory---------- ---swap-- -----io----", 48, NAN),
                  0);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-header", names, strlen(names), NAN), 0);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat", "1 0 0 5 6 7 0 0 10 20", 21, 1.0), 1);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat", "1 0 0 5 6 7 0 0 10", 18, 2.0), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat", "1 0 0 5 6 7 0 0 10 2x", 21, 2.0), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat", "1 0 0 5 6 7 0 0 10 \x01", 21, 2.0), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-boot", "1 0 0 5 6 7 - 0 10 20", 21, 3.0), 1);
        /* names out of the shared list's order: a header of some other vmstat */
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-header", " r  b  swpd  buff free", 22, NAN), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-header", " r  b", 5, NAN), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-note", "absent bi", 9, NAN), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat-cat", "1", 1, NAN), -EINVAL);
        ASSERT_EQ(vmstat_agent_feed(a, "vmstat", "1 0 0 5 6 7 0 0 11 21", 21, 4.0), 1);
        ASSERT_TRUE(strstr(vmstat_agent_why(a), "before any header") != NULL);  /* the first reason */
        t = vmstat_agent_finish(a);
        ASSERT_EQ(t->ncols, 10);
        ASSERT_EQ(t->nsamples, 3);
        ASSERT_EQ(t->rejected, 8);
        ASSERT_EQ(t->ncaptures, 1);
        ASSERT_TRUE(t->samples[1].first);
        ASSERT_TRUE(isnan(vmstat_table_value(t, 1, 6)));
        ASSERT_NEAR(vmstat_table_value(t, 2, 9), 21, 0);
        vmstat_table_free(t);
}
