/* test-bonnie.c: the bonnie++ script and CSV parser, on output of Debian's
 * bonnie++ 2.00a (tests/data/bonnie/: `bonnie++ -q -u root -d DIR -s 256
 * -n 4 -r 128 -m test`, with and without -f; stdout is the CSV line, stderr
 * the human-readable table). full.* is a capture; fast.* is constructed
 * (its README says how), so only its CSV fields as written are checked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/testdata-ddtb.h"
#include "workloads/test-workloads.h"
#include "workloads/workload.h"

/* The workload under test (bonnie.c); the harness reaches it through the registry. */
extern const struct workload_ops bonnie_ops;

TEST_MAIN();

struct lines {
        char *text[2];
        const char *v[64];
        size_t n;
};

/* Append the lines of tests/data/bonnie/<name> to l. */
static void lines_add(struct lines *l, int slot, const char *name) {
        char path[1024];

        snprintf(path, sizeof(path), "%s/bonnie/%s", KB_TESTDATA_DIR, name);
        l->text[slot] = test_read_lines(path, l->v, &l->n, 64);
}

/* The run's stderr table, then its CSV line, as the guest delivers them. */
static int parse_run(const char *base, struct metric_list *m, struct kb_error *err) {
        struct lines l = { 0 };
        char a[64], b[64];
        int r;

        snprintf(a, sizeof(a), "%s.stderr", base);
        snprintf(b, sizeof(b), "%s.csv", base);
        lines_add(&l, 0, a);
        lines_add(&l, 1, b);
        r = test_parse(&bonnie_ops, l.v, l.n, m, err);
        free(l.text[0]);
        free(l.text[1]);
        return r;
}

static void too_fast(const struct metric_list *m, const char *name) {
        const struct metric *x = metric_find(m, name);

        if (!x)
                TEST_FAIL("no metric %s", name);
        ASSERT_TRUE(!x->has_value);
        ASSERT_NEAR(x->value, 0, 0);
        ASSERT_STREQ(x->note, "too fast to measure");
}

TEST(parse_full) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        /* 1.98,2.00a,test,1,1796065469,256M,,8192,5,1024,99,+++++,+++,+++++,+++,1699,99,
         * +++++,+++,+++++,+++,4,,,,,+++++,+++ x6, 12269us,127us,93us,5813us,396us,13623us,
         * 204us,419us,1121us,797us,57us,835us */
        ASSERT_EQ(parse_run("full", &m, &err), 0);
        ASSERT_EQ(m.n, 12 * 3);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_char_KBps"), 1024, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_char_cpu_pct"), 99, 0);
        ASSERT_STREQ(metric_find(&m, "bonnie.seq_out_char_KBps")->unit, "KiB/s");
        too_fast(&m, "bonnie.seq_out_block_KBps");
        too_fast(&m, "bonnie.seq_out_block_cpu_pct");
        too_fast(&m, "bonnie.rewrite_KBps");
        ASSERT_NEAR(test_value(&m, "bonnie.seq_in_char_KBps"), 1699, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_in_char_cpu_pct"), 99, 0);
        too_fast(&m, "bonnie.seq_in_block_KBps");
        too_fast(&m, "bonnie.seeks_per_s");
        too_fast(&m, "bonnie.seeks_cpu_pct");
        too_fast(&m, "bonnie.seq_create_per_s");
        too_fast(&m, "bonnie.rand_delete_per_s");
        too_fast(&m, "bonnie.rand_delete_cpu_pct");
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_char_lat_us"), 12269, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_block_lat_us"), 127, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rewrite_lat_us"), 93, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_in_char_lat_us"), 5813, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_in_block_lat_us"), 396, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seeks_lat_us"), 13623, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_create_lat_us"), 204, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_stat_lat_us"), 419, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_delete_lat_us"), 1121, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rand_create_lat_us"), 797, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rand_stat_lat_us"), 57, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rand_delete_lat_us"), 835, 0);
        ASSERT_STREQ(metric_find(&m, "bonnie.rand_delete_lat_us")->unit, "us");
        metric_list_clear(&m);
}

TEST(parse_fast_skips_per_char) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        /* -f: putc/getc fields and their latencies are empty -> no metric */
        ASSERT_EQ(parse_run("fast", &m, &err), 0);
        ASSERT_EQ(m.n, 10 * 3);
        ASSERT_TRUE(metric_find(&m, "bonnie.seq_out_char_KBps") == NULL);
        ASSERT_TRUE(metric_find(&m, "bonnie.seq_out_char_cpu_pct") == NULL);
        ASSERT_TRUE(metric_find(&m, "bonnie.seq_out_char_lat_us") == NULL);
        ASSERT_TRUE(metric_find(&m, "bonnie.seq_in_char_KBps") == NULL);
        ASSERT_TRUE(metric_find(&m, "bonnie.seq_in_char_lat_us") == NULL);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_create_per_s"), 1499, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_create_cpu_pct"), 98, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rand_create_per_s"), 1151, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rand_create_cpu_pct"), 99, 0);
        too_fast(&m, "bonnie.seq_stat_per_s");
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_block_lat_us"), 1799, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rand_delete_lat_us"), 3209, 0);
        metric_list_clear(&m);
}

/* bonnie++ writes latencies as "%dus", "%dms" or "%ds" by magnitude. */
TEST(latency_units) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        const char *v[] = { "1.98,2.00a,kbench,1,1796065469,256M,,8192,5,1024,99,52000,12,30000,8,1699,99,"
                            "90000,9,210.5,3,4,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,"
                            "12269us,127ms,93ms,5813us,396us,2s,204us,419us,1121us,797us,57us,835us" };

        ASSERT_EQ(test_parse(&bonnie_ops, v, 1, &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_block_lat_us"), 127000, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.rewrite_lat_us"), 93000, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seeks_lat_us"), 2000000, 0);
        ASSERT_NEAR(test_value(&m, "bonnie.seeks_per_s"), 210.5, 1e-12);
        ASSERT_NEAR(test_value(&m, "bonnie.seq_out_block_KBps"), 52000, 0);
        metric_list_clear(&m);
}

TEST(malformed) {
        static const char *const good = "1.98,2.00a,test,1,1796065469,256M,,8192,5,1024,99,+++++,+++,+++++,+++,1699,99,"
                "+++++,+++,+++++,+++,4,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,"
                "12269us,127us,93us,5813us,396us,13623us,204us,419us,1121us,797us,57us,835us";
        static const struct { const char *from, *to, *msg; } cases[] = {
                { "1.98,", "1.97,", "bonnie: CSV format '1.97' is not 1.98 (bonnie++ 2.00a): \"" },
                { ",835us", "", "bonnie: 49 CSV fields, expected 50: \"" },
                { ",835us", ",835us,1", "bonnie: more than 50 CSV fields: \"" },
                { "1024,99", "10x24,99", "bonnie: bad seq_out_char field: \"" },
                { "1699,99", "-1699,99", "bonnie: bad seq_in_char field: \"" },
                { "13623us", "13623ks", "bonnie: bad seeks field: \"" },
                { "13623us", "us", "bonnie: bad seeks field: \"" },
                { "835us", "835", "bonnie: bad rand_delete field: \"" },
        };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char line[1024];
                const char *at = strstr(good, cases[i].from), *v[1] = { line };

                ASSERT_TRUE(at);
                snprintf(line, sizeof(line), "%.*s%s%s", (int)(at - good), good, cases[i].to,
                         at + strlen(cases[i].from));
                ASSERT_EQ(test_parse(&bonnie_ops, v, 1, &m, &err), -EBADMSG);
                ASSERT_TRUE(strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) == 0);
                /* the offending line is quoted, cut at 200 characters */
                ASSERT_TRUE(strstr(err.msg, "...\"") != NULL);
                metric_list_clear(&m);
        }
        {
                const char *v[] = { "Version 2.00a ------Sequential Output------",
                                    "Can't open file ./Bonnie.1234" };
                ASSERT_EQ(test_parse(&bonnie_ops, v, 2, &m, &err), -EBADMSG);
                ASSERT_STREQ(err.msg, "bonnie: no CSV result line; last output: \"Can't open file ./Bonnie.1234\"");
                metric_list_clear(&m);
                v[0] = good;
                v[1] = good;
                ASSERT_EQ(test_parse(&bonnie_ops, v, 2, &m, &err), -EBADMSG);
                ASSERT_TRUE(strncmp(err.msg, "bonnie: more than one CSV line: \"1.98,2.00a", 43) == 0);
                metric_list_clear(&m);
        }
}

TEST(print) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        ASSERT_EQ(parse_run("full", &m, &err), 0);
        bonnie_ops.print(&m, f);
        fclose(f);
        ASSERT_TRUE(strstr(buf, "seq_out_char           1024     99        12269 KiB/s\n"));
        ASSERT_TRUE(strstr(buf, "seeks                 +++++    +++        13623 /s\n"));
        free(buf);
        metric_list_clear(&m);
}

TEST(script) {
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 1, .disk_bytes = 2ULL << 30, .mnt = "/mnt/test" };
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char *script = NULL;

        ASSERT_EQ(workload_spec_parse("bonnie", &s, &err), 0);
        ASSERT_EQ(bonnie_ops.script(s, &env, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "\n/usr/sbin/bonnie++ -q -u root -d kbench-bonnie -s 512 -n 16 -r 256 -m kbench\n"));
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("bonnie:size=256M,files=4,ram=128M,fast=yes", &s, &err), 0);
        ASSERT_EQ(bonnie_ops.script(s, &env, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "\n/usr/sbin/bonnie++ -q -u root -d kbench-bonnie -s 256 -n 4 -r 128 -m kbench -f\n"));
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("bonnie:size=256M", &s, &err), 0);
        ASSERT_EQ(bonnie_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload bonnie: key 'size': 256 MiB is less than twice ram (256 MiB)");
        workload_spec_free(s);

        /* A bare number is MiB, as --help says: 64 is 64 MiB, not 64 bytes. */
        ASSERT_EQ(workload_spec_parse("bonnie:size=512,ram=64", &s, &err), 0);
        ASSERT_EQ(bonnie_ops.script(s, &env, &script, &err), 0);
        ASSERT_TRUE(strstr(script, " -s 512 -n 16 -r 64 -m kbench\n"));
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("bonnie:size=600000k", &s, &err), 0);
        ASSERT_EQ(bonnie_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload bonnie: key 'size': 614400000 bytes is not a whole number of MiB");
        workload_spec_free(s);
}
