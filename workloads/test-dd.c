/* test-dd.c: dd's script and its report parser, on dd output captured from
 * GNU coreutils 9.1 on the development machine (tests/data/dd/). */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/testdata-ddtb.h"
#include "workloads/test-workloads.h"
#include "workloads/workload.h"

/* The workload under test (dd.c); the harness reaches it through the registry. */
extern const struct workload_ops dd_ops;

TEST_MAIN();

struct lines {
        char *text;
        const char *v[64];
        size_t n;
};

/* Read tests/data/dd/<name> and split it into lines. */
static void lines_load(struct lines *l, const char *name) {
        char path[1024];

        snprintf(path, sizeof(path), "%s/dd/%s", KB_TESTDATA_DIR, name);
        l->n = 0;
        l->text = test_read_lines(path, l->v, &l->n, 64);
}

static int parse_file(const char *name, struct metric_list *m, struct kb_error *err) {
        struct lines l;
        int r;

        lines_load(&l, name);
        r = test_parse(&dd_ops, l.v, l.n, m, err);
        free(l.text);
        return r;
}

TEST(parse_64M) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(parse_file("run-64M-1M.txt", &m, &err), 0);
        ASSERT_EQ(m.n, 4);
        /* "67108864 bytes (67 MB, 64 MiB) copied, 0.413911 s, 162 MB/s" */
        ASSERT_NEAR(test_value(&m, "dd.write_s"), 0.413911, 1e-12);
        ASSERT_NEAR(test_value(&m, "dd.write_MBps"), 67108864 / 0.413911 / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "dd.write_MBps"), 162.13, 0.01);
        /* "... copied, 0.0495558 s, 1.4 GB/s": recomputed, not the rounded 1.4 GB/s */
        ASSERT_NEAR(test_value(&m, "dd.read_s"), 0.0495558, 1e-12);
        ASSERT_NEAR(test_value(&m, "dd.read_MBps"), 1354.2, 0.1);
        ASSERT_STREQ(metric_find(&m, "dd.read_MBps")->unit, "MB/s");
        ASSERT_STREQ(metric_find(&m, "dd.read_s")->unit, "s");
        metric_list_clear(&m);

        ASSERT_EQ(parse_file("run-2G-1M.txt", &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "dd.write_MBps"), 2147483648.0 / 3.25233 / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "dd.read_MBps"), 2147483648.0 / 0.269711 / 1e6, 1e-9);
        metric_list_clear(&m);

        ASSERT_EQ(parse_file("run-4000K-4k.txt", &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "dd.read_MBps"), 4096000 / 0.00182522 / 1e6, 1e-9);
        metric_list_clear(&m);
}

TEST(parse_small_and_empty) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        /* "1 byte copied, 0.000667452 s, 1.5 kB/s" and "4.6267e-05 s" */
        ASSERT_EQ(parse_file("run-1-byte.txt", &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "dd.write_MBps"), 1 / 0.000667452 / 1e6, 1e-12);
        ASSERT_NEAR(test_value(&m, "dd.read_s"), 4.6267e-05, 1e-15);
        metric_list_clear(&m);

        /* "0 bytes copied, 8.1502e-05 s, 0.0 kB/s" */
        ASSERT_EQ(parse_file("run-0-bytes.txt", &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "dd.read_MBps"), 0, 0);
        ASSERT_NEAR(test_value(&m, "dd.read_s"), 8.1502e-05, 1e-15);
        metric_list_clear(&m);
}

TEST(errors_quote_the_line) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(parse_file("error-enospc.txt", &m, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "dd: unexpected output: \"dd: error writing '/dev/full': No space left on device\"");
        metric_list_clear(&m);
        ASSERT_EQ(parse_file("error-open.txt", &m, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "dd: unexpected output: \"dd: failed to open '/nonexistent': No such file or directory\"");
        metric_list_clear(&m);
}

TEST(malformed_reports) {
        static const char *const bad[] = {
                "67108864 bytes (67 MB, 64 MiB) copied, 0.41 s, 162 MiB/s",
                "67108864 bytes (67 MB, 64 MiB) copied, -0.41 s, 162 MB/s",
                "67108864 bytes (67 MB, 64 MiB copied, 0.41 s, 162 MB/s",
                "67108864 byte copied, 0.41 s, 162 MB/s",
                "1 bytes copied, 0.41 s, 162 MB/s",
                "67108864 bytes copied, 0.41 s,  162 MB/s",
                "67108864 bytes copied, 0.41 s, 162 MB/s ",
                "99999999999999999999999 bytes copied, 0.41 s, 162 MB/s",
                "67108864 bytes copied, nan s, 162 MB/s",
                "12+x records in",
        };
        const char *lines[3] = { "1+0 records in", "1 byte copied, 0.5 s, 2 B/s", NULL };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct metric_list m = { 0 };
                struct kb_error err = { "" };
                lines[2] = bad[i];
                ASSERT_EQ(test_parse(&dd_ops, lines, 3, &m, &err), -EBADMSG);
                ASSERT_TRUE(strstr(err.msg, bad[i]) != NULL);
                metric_list_clear(&m);
        }
}

TEST(counts_and_units) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        const char *one[] = { "1 byte copied, 0.5 s, 2 B/s" };
        const char *three[] = { "1 byte copied, 0.5 s, 2 B/s", "2 bytes copied, 0.5 s, 4 B/s",
                                "3 bytes copied, 0.5 s, 6 B/s" };
        const char *instant[] = { "1 byte copied, 0 s, Infinity B/s", "1048576 bytes (1.0 MB, 1.0 MiB) copied, 0.5 s, 2.1 TB/s" };

        ASSERT_EQ(test_parse(&dd_ops, one, 1, &m, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "dd: expected two report lines (write, read), found 1");
        metric_list_clear(&m);
        ASSERT_EQ(test_parse(&dd_ops, three, 3, &m, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "dd: more than two report lines: \"3 bytes copied, 0.5 s, 6 B/s\"");
        metric_list_clear(&m);
        ASSERT_EQ(test_parse(&dd_ops, instant, 2, &m, &err), 0);
        ASSERT_TRUE(!metric_find(&m, "dd.write_MBps")->has_value);
        ASSERT_STREQ(metric_find(&m, "dd.write_MBps")->note, "too fast to measure");
        ASSERT_NEAR(test_value(&m, "dd.read_MBps"), 1048576 / 0.5 / 1e6, 1e-12);
        metric_list_clear(&m);
}

TEST(script) {
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 1, .disk_bytes = 2ULL << 30, .mnt = "/mnt/test" };
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char *script = NULL;

        ASSERT_EQ(workload_spec_parse("dd", &s, &err), 0);
        ASSERT_EQ(dd_ops.script(s, &env, &script, &err), 0);
        /* default: 2x guest RAM in 1 MiB blocks */
        ASSERT_TRUE(strstr(script, "/usr/bin/dd if=/dev/zero of=kbench-dd.data bs=1048576 count=512 conv=fsync\n"));
        ASSERT_TRUE(strstr(script, "echo 3 > /proc/sys/vm/drop_caches\n"));
        ASSERT_TRUE(strstr(script, "/usr/bin/dd if=kbench-dd.data of=/dev/null bs=1048576\n"));
        ASSERT_TRUE(strstr(script, "echo phase write >&3\n") < strstr(script, "echo phase read >&3\n"));
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("dd:size=1G,bs=4k", &s, &err), 0);
        ASSERT_EQ(dd_ops.script(s, &env, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "bs=4096 count=262144 conv=fsync\n"));
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("dd:size=1000B,bs=4k", &s, &err), 0);
        ASSERT_EQ(dd_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload dd: key 'size': 1000 is not a multiple of bs (4096)");
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("dd:size=4G", &s, &err), 0);
        ASSERT_EQ(dd_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload dd: key 'size': 4096 MiB does not fit on the 2048 MiB test disk (use a smaller size or a larger --disk-size)");
        workload_spec_free(s);

        /* The block size's range is the key's: refused before any script. */
        ASSERT_EQ(workload_spec_parse("dd:bs=128M", &s, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "key 'bs'"));
}
