/* test-dbench.c: the dbench script and parser, on output of Debian's dbench
 * 4.0 (tests/data/dbench/, see its README): host runs with 1, 2 and 4
 * clients, one of which printed a warm-up line, and a guest run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/testdata-ddtb.h"
#include "workloads/test-workloads.h"
#include "workloads/workload.h"

TEST_MAIN();

/* The workload under test (dbench.c); the harness reaches it through the registry. */
extern const struct workload_ops dbench_ops;

#define LINES_MAX 256

struct lines {
        char *text;
        const char *v[LINES_MAX];
        size_t n;
};

static int parse_fixture(const char *name, struct lines *l, struct metric_list *m, struct kb_error *err) {
        char path[1024];

        snprintf(path, sizeof(path), "%s/dbench/%s", KB_TESTDATA_DIR, name);
        l->text = test_read_lines(path, l->v, &l->n, LINES_MAX);
        return test_parse(&dbench_ops, l->v, l->n, m, err);
}

TEST(parse_host_runs) {
        static const struct {
                const char *file;
                double mbps, max_latency, flush_avg, flush_max;
                size_t rows;       /* Deltree and Mkdir, done once, appear only in some runs */
                double ops;
        } runs[] = {
                { "host-1c-3s.txt", 83.7049, 20.821, 2.911, 39.085, 16, 42061 },
                { "host-2c-5s.txt", 111.809, 52.900, 3.227, 52.890, 14, 127767 },
                { "host-4c-12s.txt", 333.234, 55.200, -1, -1, 14, 724215 },
                { "guest-2c-10s.txt", 16.8941, 230.987, 15.873, 230.865, 14, 30080 },
        };

        for (size_t i = 0; i < ELEMENTSOF(runs); i++) {
                struct metric_list m = { 0 };
                struct kb_error err = { "" };
                struct lines l = { 0 };

                ASSERT_EQ(parse_fixture(runs[i].file, &l, &m, &err), 0);
                ASSERT_NEAR(test_value(&m, "dbench.MBps"), runs[i].mbps, 1e-9);
                ASSERT_NEAR(test_value(&m, "dbench.max_latency_ms"), runs[i].max_latency, 1e-9);
                if (runs[i].flush_avg >= 0) {
                        ASSERT_NEAR(test_value(&m, "dbench.Flush.avg_ms"), runs[i].flush_avg, 1e-9);
                        ASSERT_NEAR(test_value(&m, "dbench.Flush.max_ms"), runs[i].flush_max, 1e-9);
                }
                /* The rows' counts summed: what the phase's figures per
                 * operation divide by. */
                ASSERT_NEAR(test_value(&m, "dbench.ops"), runs[i].ops, 0);
                ASSERT_NEAR(dbench_ops.phase_ops(&m, "dbench"), runs[i].ops, 0);
                ASSERT_TRUE(isnan(dbench_ops.phase_ops(&m, "other")));
                /* An average and a maximum per row, then the throughput
                 * line's two and the operations. */
                ASSERT_EQ(m.n, runs[i].rows * 2 + 3);
                ASSERT_STREQ(metric_find(&m, "dbench.NTCreateX.max_ms")->unit, "ms");
                ASSERT_STREQ(metric_find(&m, "dbench.MBps")->unit, "MB/s");
                metric_list_clear(&m);
                free(l.text);
        }
}

/* Progress lines carry rates and latencies too, warm-up ones included:
 * none of them may become a metric. */
TEST(warmup_is_not_measured) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        struct lines l = { 0 };
        int warmup = 0;

        ASSERT_EQ(parse_fixture("host-4c-12s.txt", &l, &m, &err), 0);
        for (size_t i = 0; i < l.n; i++)
                warmup += strstr(l.v[i], "MB/sec  warmup") != NULL;
        ASSERT_TRUE(warmup > 0);
        /* The first warm-up line's 362.60 MB/s is not the result. */
        ASSERT_NEAR(test_value(&m, "dbench.MBps"), 333.234, 1e-9);
        metric_list_clear(&m);
        free(l.text);
}

TEST(bad_output) {
        static const char *const header[] = { " Operation      Count    AvgLat    MaxLat",
                                              " ----------------------------------------" };
        static const struct {
                const char *lines[6];
                const char *msg;
        } cases[] = {
                { { "dbench version 4.00 - Copyright Andrew Tridgell 1999-2004", "[1] open ./clients failed" },
                  "dbench: no result table; last output: \"[1] open ./clients failed\"" },
                { { header[0], "NTCreateX 1 0.1 0.2" }, "dbench: expected the table's rule: \"NTCreateX 1 0.1 0.2\"" },
                { { header[0], header[1], " NTCreateX 10 0.5" }, "dbench: bad result row: \" NTCreateX 10 0.5\"" },
                { { header[0], header[1], " NTCreateX 10 0.5 0.2" },
                  "dbench: bad result row: \" NTCreateX 10 0.5 0.2\"" },
                { { header[0], header[1], " Close 1 0.1 0.2", " Close 1 0.1 0.2" },
                  "dbench: operation Close twice: \" Close 1 0.1 0.2\"" },
                { { header[0], header[1], " Close 1 0.1 0.2", "", "Throughput x MB/sec 1 clients" },
                  "dbench: expected the Throughput line: \"Throughput x MB/sec 1 clients\"" },
                { { header[0], header[1], " Close 1 0.1 0.2" },
                  "dbench: no Throughput line; last output: \" Close 1 0.1 0.2\"" },
                { { header[0], header[1], "", "Throughput 1 MB/sec  1 clients  1 procs  max_latency=2 ms" },
                  "dbench: the result table has no rows" },
                { { header[0], header[1], " Close 1 0.1 0.2", "",
                    "Throughput 1 MB/sec  1 clients  1 procs  max_latency=2 ms", header[0] },
                  "dbench: a second result: \" Operation      Count    AvgLat    MaxLat\"" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct metric_list m = { 0 };
                struct kb_error err = { "" };
                size_t n = 0;

                while (n < ELEMENTSOF(cases[i].lines) && cases[i].lines[n])
                        n++;
                ASSERT_EQ(test_parse(&dbench_ops, cases[i].lines, n, &m, &err), -EBADMSG);
                ASSERT_STREQ(err.msg, cases[i].msg);
                metric_list_clear(&m);
        }
}

TEST(script) {
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 1, .disk_bytes = 2ULL << 30, .mnt = "/mnt/test" };
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char *script = NULL;

        ASSERT_EQ(workload_spec_parse("dbench", &s, &err), 0);
        ASSERT_STREQ(s->text, "dbench:clients=2,duration=20,loadfile=client.txt");
        ASSERT_EQ(dbench_ops.script(s, &env, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "echo phase dbench >&3\n"
                                   "/usr/bin/dbench -t 20 -c /usr/share/dbench/client.txt -D kbench-dbench 2\n"
                                   "echo phase end >&3\n"));
        free(script);
        workload_spec_free(s);

        ASSERT_EQ(workload_spec_parse("dbench:clients=0", &s, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload dbench: key 'clients': '0' is not between 1 and 128");
        ASSERT_EQ(workload_spec_parse("dbench:loadfile=x.txt", &s, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload dbench: key 'loadfile': 'x.txt' is not one of client.txt");
}
