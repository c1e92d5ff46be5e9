/* test-tiobench.c: the tiobench script, the parser of tiotest's lines
 * (fixtures captured by running tiotest on the development machine, see
 * tests/data/tiobench/), the four-section table, and a short live run of
 * the built tiotest checking its accounting. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/testdata-ddtb.h"
#include "workloads/test-workloads.h"
#include "workloads/workload.h"

/* The workload under test (tiobench.c); the harness reaches it through the registry. */
extern const struct workload_ops tiobench_ops;

TEST_MAIN();

struct lines {
        char *text;
        const char *v[128];
        size_t n;
};

static void lines_read(struct lines *l, const char *path) {
        l->n = 0;
        l->text = test_read_lines(path, l->v, &l->n, 128);
}

static int parse_file(const char *name, struct metric_list *m, struct kb_error *err) {
        char path[1024];
        struct lines l;
        int r;

        snprintf(path, sizeof(path), "%s/tiobench/%s", KB_TESTDATA_DIR, name);
        lines_read(&l, path);
        r = test_parse(&tiobench_ops, l.v, l.n, m, err);
        free(l.text);
        return r;
}

TEST(parse_buffered) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        double cpu;

        ASSERT_EQ(parse_file("buffered-t1-t2.txt", &m, &err), 0);
        ASSERT_EQ(m.n, 2 * 4 * 7 + 2);
        /* seq_write threads=1: bytes=33554432 wall_s=0.441277 cpu 0+0.111121 */
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.MBps"), 33554432 / 0.441277 / 1e6, 1e-9);
        cpu = 0.111121 / 0.441277 * 100;
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.cpu_pct"), cpu, 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.cpu_eff"), 33554432 / 0.441277 / 1e6 / (cpu / 100), 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.lat_avg_ms"), 0.047676, 1e-12);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.lat_max_ms"), 16.174840, 1e-12);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.lat_pct_gt2s"), 0, 0);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.lat_pct_gt10s"), 0, 0);
        /* random phases are credited with the 2000 operations done, not the file */
        ASSERT_NEAR(test_value(&m, "tiobench.rand_write.t2.MBps"), 2000 * 4096 / 0.075997 / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.rand_read.t2.lat_max_ms"), 1.497316, 1e-12);
        ASSERT_NEAR(test_value(&m, "tiobench.size_MiB"), 32, 0);
        ASSERT_NEAR(test_value(&m, "tiobench.block_bytes"), 4096, 0);
        ASSERT_STREQ(metric_find(&m, "tiobench.seq_read.t2.MBps")->unit, "MB/s");
        ASSERT_STREQ(metric_find(&m, "tiobench.seq_read.t2.cpu_pct")->unit, "%");
        metric_list_clear(&m);

        ASSERT_EQ(parse_file("direct-t1-t2.txt", &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_read.t2.MBps"), 33554432 / 1.300147 / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.rand_read.t1.cpu_pct"), 0.079342 / 0.425349 * 100, 1e-9);
        metric_list_clear(&m);

        ASSERT_EQ(parse_file("dropcaches-osync-t1-t2.txt", &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "tiobench.block_bytes"), 16384, 0);
        ASSERT_NEAR(test_value(&m, "tiobench.rand_write.t1.MBps"), 1000 * 16384 / 0.251101 / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_write.t1.lat_avg_ms"), 3.371969, 1e-12);
        metric_list_clear(&m);
}

/* Captured in a 6.1.0-47-amd64 guest (1 vCPU, 256 MiB, TCG, ext4 on IDE,
 * cache=none): threads=1/2, size=64M, random=4000, caches dropped before
 * both read phases. */
TEST(parse_guest) {
        static const char *const phases[] = { "seq_write", "rand_write", "seq_read", "rand_read" };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(parse_file("guest-tcg-t1-t2.txt", &m, &err), 0);
        ASSERT_EQ(m.n, 2 * 4 * 7 + 2);
        ASSERT_NEAR(test_value(&m, "tiobench.size_MiB"), 64, 0);
        /* rand_read threads=1: 4000 ops x 4096 B over 3.464048 s, CPU 0.050459 + 1.528766 s */
        ASSERT_NEAR(test_value(&m, "tiobench.rand_read.t1.MBps"), 16384000 / 3.464048 / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.rand_read.t1.cpu_pct"), (0.050459 + 1.528766) / 3.464048 * 100, 1e-9);
        ASSERT_NEAR(test_value(&m, "tiobench.rand_read.t2.lat_avg_ms"), 1.205679, 1e-12);
        /* Read from the disk, not the page cache the sequential read filled:
         * a millisecond per 4 KiB operation, slower than the sequential read. */
        ASSERT_TRUE(test_value(&m, "tiobench.rand_read.t1.lat_avg_ms") > 0.5);
        ASSERT_TRUE(test_value(&m, "tiobench.rand_read.t1.MBps") < test_value(&m, "tiobench.seq_read.t1.MBps"));
        /* One vCPU: every phase's CPU share stays within one CPU. */
        for (size_t p = 0; p < ELEMENTSOF(phases); p++)
                for (int t = 1; t <= 2; t++) {
                        char name[96];
                        double cpu;

                        snprintf(name, sizeof(name), "tiobench.%s.t%d.cpu_pct", phases[p], t);
                        cpu = test_value(&m, name);
                        ASSERT_TRUE(cpu > 0 && cpu <= 100);
                }
        metric_list_clear(&m);
}

TEST(latency_buckets_and_zero_cpu) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        const char *v[] = {
                "tiotest phase=seq_read threads=4 size=1048576 block=4096 ops=256 bytes=1048576 wall_s=40.0 "
                "lat_avg_ms=150.0 lat_max_ms=12000.5 lat_gt2s=8 lat_gt10s=2 cpu_user_s=0.000000 cpu_sys_s=0.000000",
        };

        ASSERT_EQ(test_parse(&tiobench_ops, v, 1, &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_read.t4.lat_pct_gt2s"), 8 / 256.0 * 100, 1e-12);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_read.t4.lat_pct_gt10s"), 2 / 256.0 * 100, 1e-12);
        ASSERT_NEAR(test_value(&m, "tiobench.seq_read.t4.cpu_pct"), 0, 0);
        ASSERT_TRUE(!metric_find(&m, "tiobench.seq_read.t4.cpu_eff")->has_value);
        ASSERT_STREQ(metric_find(&m, "tiobench.seq_read.t4.cpu_eff")->note, "no CPU time measured");
        metric_list_clear(&m);
}

TEST(errors_quote_the_line) {
        static const char *const files[][2] = {
                { "error-direct-unaligned.txt", "tiobench: unexpected output: \"tiotest: seq_write write thread 0: Invalid argument\"" },
                { "error-nodir.txt", "tiobench: unexpected output: \"tiotest: open /tmp/nonexistent/tiotest.1.0: No such file or directory\"" },
                { "error-usage.txt", "tiobench: unexpected output: \"tiotest: -r smaller than a thread count: a thread would do no operation\"" },
        };
        static const char *const bad[] = {
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0 extra=1",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0 ",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=8192 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=2 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=-1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=2 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=1 threads=1 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_rd threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=0 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=inf lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
        };
        const char *dup[] = {
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
                "tiotest phase=seq_read threads=1 size=4096 block=4096 ops=1 bytes=4096 wall_s=1 lat_avg_ms=1 lat_max_ms=1 lat_gt2s=0 lat_gt10s=0 cpu_user_s=0 cpu_sys_s=0",
        };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                ASSERT_EQ(parse_file(files[i][0], &m, &err), -EBADMSG);
                ASSERT_STREQ(err.msg, files[i][1]);
                metric_list_clear(&m);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ASSERT_EQ(test_parse(&tiobench_ops, &bad[i], 1, &m, &err), -EBADMSG);
                ASSERT_TRUE(strncmp(err.msg, "tiobench: malformed tiotest line: \"tiotest phase=", 48) == 0);
                metric_list_clear(&m);
        }
        ASSERT_EQ(test_parse(&tiobench_ops, dup, 2, &m, &err), -EBADMSG);
        ASSERT_TRUE(strncmp(err.msg, "tiobench: repeated result: ", 27) == 0);
        metric_list_clear(&m);
        ASSERT_EQ(test_parse(&tiobench_ops, dup, 0, &m, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "tiobench: tiotest printed no results");
        metric_list_clear(&m);
}

TEST(print_four_sections) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        const char *sr, *rr, *sw, *rw;

        ASSERT_EQ(parse_file("buffered-t1-t2.txt", &m, &err), 0);
        tiobench_ops.print(&m, f);
        fclose(f);
        sr = strstr(buf, "\nSequential Reads\n");
        rr = strstr(buf, "\nRandom Reads\n");
        sw = strstr(buf, "\nSequential Writes\n");
        rw = strstr(buf, "\nRandom Writes\n");
        ASSERT_TRUE(sr && rr && sw && rw && sr < rr && rr < sw && sw < rw);
        /* seq_write t2: 33554432 B / 0.156026 s = 215.06 MB/s, CPU 0.039737/0.156026 = 25.47% */
        ASSERT_TRUE(strstr(sw, "      32    4096    2    215.06  25.47%      0.025      28.070   0.00000   0.00000    844.4\n"));
        free(buf);
        metric_list_clear(&m);
}

TEST(script) {
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 2, .disk_bytes = 2ULL << 30,
                                    .mnt = "/mnt/test", .seed = 99 };
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char *script = NULL;

        ASSERT_EQ(workload_spec_parse("tiobench", &s, &err), 0);
        ASSERT_EQ(tiobench_ops.script(s, &env, &script, &err), 0);
        ASSERT_STREQ(script, "set -e\n/bin/tiotest -d . -s 536870912 -b 4096 -t 1/2/4/8 -r 4000 -c -x 99 -e 3\n"
                              "echo phase end >&3\n");
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("tiobench:threads=1/2,size=64M,block=16k,direct=yes,sync=yes,drop_caches=no,random=100",
                                      &s, &err), 0);
        ASSERT_EQ(tiobench_ops.script(s, &env, &script, &err), 0);
        ASSERT_STREQ(script, "set -e\n/bin/tiotest -d . -s 67108864 -b 16384 -t 1/2 -r 100 -D -S -x 99 -e 3\n"
                              "echo phase end >&3\n");
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("tiobench:block=1000B,direct=yes", &s, &err), 0);
        ASSERT_EQ(tiobench_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload tiobench: key 'block': 1000 is not a multiple of 512, which direct=yes needs");
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("tiobench:threads=8,random=4", &s, &err), 0);
        ASSERT_EQ(tiobench_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "key 'random'"));
        workload_spec_free(s);

        /* Thread counts' range is the key's: refused when the spec is parsed. */
        ASSERT_EQ(workload_spec_parse("tiobench:threads=1/300", &s, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload tiobench: key 'threads': '300' is not between 1 and 256");
}

/* Run the built tiotest on a temporary directory: random phases count the
 * operations done (random / T per thread), every phase reports, the files
 * are removed, and the phase events go to the given fd. */
TEST(live_tiotest) {
        char dir[] = "/tmp/kbench-tiotest-XXXXXX", out[1100], ev[1100], cmd[4096];
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        struct lines l, e;
        int r;

        if (access(KB_TIOTEST_PATH, X_OK) != 0)
                TEST_SKIP("%s not built", KB_TIOTEST_PATH);
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(out, sizeof(out), "%s.out", dir);
        snprintf(ev, sizeof(ev), "%s.ev", dir);
        snprintf(cmd, sizeof(cmd), "%s -d %s -s 2M -b 4k -t 1/2/3 -r 301 -x 5 -e 3 >%s 3>%s",
                 KB_TIOTEST_PATH, dir, out, ev);
        r = system(cmd);
        ASSERT_TRUE(WIFEXITED(r) && WEXITSTATUS(r) == 0);
        ASSERT_EQ(rmdir(dir), 0);  /* empty: tiotest removed its files */
        lines_read(&l, out);
        lines_read(&e, ev);
        ASSERT_EQ(l.n, 12);
        ASSERT_EQ(e.n, 12);
        ASSERT_STREQ(e.v[0], "phase seq_write t1");
        ASSERT_STREQ(e.v[11], "phase rand_read t3");
        /* 2 MiB over 3 threads: 170 blocks each; random: 301 / 3 = 100 per thread */
        ASSERT_TRUE(strstr(l.v[8], "phase=seq_write threads=3 size=2088960 block=4096 ops=510 bytes=2088960 "));
        ASSERT_TRUE(strstr(l.v[9], "phase=rand_write threads=3 size=2088960 block=4096 ops=300 bytes=1228800 "));
        ASSERT_TRUE(strstr(l.v[5], "phase=rand_write threads=2 size=2097152 block=4096 ops=300 bytes=1228800 "));
        ASSERT_TRUE(strstr(l.v[1], "phase=rand_write threads=1 size=2097152 block=4096 ops=301 bytes=1232896 "));
        ASSERT_EQ(test_parse(&tiobench_ops, l.v, l.n, &m, &err), 0);
        ASSERT_EQ(m.n, 3 * 4 * 7 + 2);
        ASSERT_TRUE(test_value(&m, "tiobench.rand_read.t3.MBps") > 0);
        metric_list_clear(&m);
        free(l.text);
        free(e.text);
        unlink(out);
        unlink(ev);
}
