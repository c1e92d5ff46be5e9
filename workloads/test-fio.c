/* test-fio.c: the fio script and parser, on JSON that fio 3.33 (built by
 * tools/setup.sh) printed (tests/data/fio/, see its README): every preset
 * in turn on the host, a job file of two jobs, and a guest's cell. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/testdata-ddtb.h"
#include "workloads/test-workloads.h"
#include "workloads/workload.h"

TEST_MAIN();

/* The workload under test (fio.c); the harness reaches it through the registry. */
extern const struct workload_ops fio_ops;

#define LINES_MAX 8192

struct lines {
        char *text;
        const char *v[LINES_MAX];
        size_t n;
};

static struct lines fixture_lines;

static int parse_fixture(const char *name, struct metric_list *m, struct kb_error *err) {
        char path[1024];

        free(fixture_lines.text);
        fixture_lines.n = 0;
        snprintf(path, sizeof(path), "%s/fio/%s", KB_TESTDATA_DIR, name);
        fixture_lines.text = test_read_lines(path, fixture_lines.v, &fixture_lines.n, LINES_MAX);
        return test_parse(&fio_ops, fixture_lines.v, fixture_lines.n, m, err);
}

/* The metric's unit, and its direction and verdict from the registry. */
static void expect_metric(const struct metric_list *m, const char *name, double value, const char *unit,
                          int higher_is_better) {
        const struct metric *x = metric_find(m, name);
        const struct metric_def *def = workload_metric_def(name);

        if (!x || !x->has_value)
                TEST_FAIL("no value for %s", name);
        ASSERT_NEAR(x->value, value, 1e-9 * (value > 1 ? value : 1));
        ASSERT_STREQ(x->unit, unit);
        ASSERT_TRUE(def != NULL);
        ASSERT_STREQ(def->unit, unit);
        ASSERT_EQ(def->higher_is_better, higher_is_better);
}

/* Every preset once, in order (tools/setup.sh's fio, runtime 1 s, 16 MiB,
 * libaio, O_DIRECT): the values are those of the JSON's fields. */
TEST(parse_every_preset) {
        static const struct {
                const char *job, *dir;
                double mbps, iops, p50, p99, p999;     /* bw_bytes / 1e6, iops, clat percentiles in us */
        } want[] = {
                { "seqwrite", "write", 1228.391625, 1171.485543, 387.072, 6914.048, 11206.656 },
                { "seqread", "read", 915.539884, 873.126873, 913.408, 4882.432, 5865.472 },
                { "randread", "read", 34.983266, 8540.836653, 36.608, 2801.664, 7176.192 },
                { "randread-qd32", "read", 120.582642, 29439.121756, 464.896, 7700.48, 19791.872 },
                { "randwrite", "write", 21.355668, 5213.786214, 60.672, 3915.776, 10158.08 },
                { "randwrite-qd32", "write", 117.455238, 28675.595238, 350.208, 7962.624, 15138.816 },
                { "randrw", "read", 13.811339, 3371.909001, 56.576, 3719.168, 8093.696 },
                { "randrw", "write", 6.146025, 1500.49456, 68.096, 3948.544, 8454.144 },
        };
        static const char *const presets[] = { "seqwrite", "seqread", "randread", "randread-qd32", "randwrite",
                                                "randwrite-qd32", "randrw" };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        char name[128];

        ASSERT_EQ(parse_fixture("host-all.txt", &m, &err), 0);
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
#define NAME(what) (snprintf(name, sizeof(name), "fio.%s.%s_%s", want[i].job, want[i].dir, what), name)
                expect_metric(&m, NAME("MBps"), want[i].mbps, "MB/s", 1);
                expect_metric(&m, NAME("iops"), want[i].iops, "IO/s", 1);
                expect_metric(&m, NAME("clat_p50_us"), want[i].p50, "us", 0);
                expect_metric(&m, NAME("clat_p99_us"), want[i].p99, "us", 0);
                expect_metric(&m, NAME("clat_p99_9_us"), want[i].p999, "us", 0);
#undef NAME
        }
        /* Five metrics per direction a job used (each preset one, randrw
         * two), and per job its I/Os, which its phase's figures per
         * operation divide by. */
        ASSERT_EQ(m.n, 5 * (ELEMENTSOF(presets) + 1) + ELEMENTSOF(presets));
        expect_metric(&m, "fio.randwrite.ios", 5219, "ios", 1);
        expect_metric(&m, "fio.randrw.ios", 4926, "ios", 1);
        ASSERT_NEAR(fio_ops.phase_ops(&m, "randread-qd32"), 29498, 0);
        /* A job file's one phase holds all its jobs. */
        ASSERT_NEAR(fio_ops.phase_ops(&m, "fio"), 1175 + 874 + 8575 + 29498 + 5219 + 28905 + 4926, 0);
        ASSERT_TRUE(isnan(fio_ops.phase_ops(&m, "layout")));
        for (size_t i = 0; i < ELEMENTSOF(presets); i++) {
                snprintf(name, sizeof(name), "fio.%s.%s_MBps", presets[i], strstr(presets[i], "write") ? "write" : "read");
                ASSERT_TRUE(metric_find(&m, name) != NULL);
        }
        ASSERT_TRUE(metric_find(&m, "fio.randrw.write_MBps") != NULL);
        /* IOPS restate the bandwidth: shown, never a second vote. */
        ASSERT_TRUE(workload_metric_def("fio.randread.read_iops")->restates != NULL);
        ASSERT_TRUE(workload_metric_def("fio.randread.read_MBps")->restates == NULL);
        metric_list_clear(&m);
}

/* A user's job file: two jobs in one result, one with its percentiles on
 * the total latency (lat_percentiles=1), one whose name has bytes no
 * metric name has. */
TEST(parse_job_file) {
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(parse_fixture("host-jobfile.txt", &m, &err), 0);
        /* "mixed read+write" as a metric's middle; its rates and clat. */
        expect_metric(&m, "fio.mixed_read_write.read_MBps", 36.000607, "MB/s", 1);
        expect_metric(&m, "fio.mixed_read_write.read_iops", 4394.605395, "IO/s", 1);
        expect_metric(&m, "fio.mixed_read_write.read_clat_p99_9_us", 6127.616, "us", 0);
        expect_metric(&m, "fio.mixed_read_write.write_MBps", 36.67168, "MB/s", 1);
        expect_metric(&m, "fio.mixed_read_write.write_clat_p50_us", 52.48, "us", 0);
        /* clat_percentiles=0, lat_percentiles=1: the total latency's. */
        expect_metric(&m, "fio.seq-read-lat.read_MBps", 532.209934, "MB/s", 1);
        expect_metric(&m, "fio.seq-read-lat.read_lat_p50_us", 333.824, "us", 0);
        expect_metric(&m, "fio.seq-read-lat.read_lat_p99_us", 4046.848, "us", 0);
        expect_metric(&m, "fio.seq-read-lat.read_lat_p99_9_us", 8454.144, "us", 0);
        ASSERT_TRUE(metric_find(&m, "fio.seq-read-lat.read_clat_p50_us") == NULL);
        /* Its one phase's operations: both jobs'. */
        ASSERT_NEAR(fio_ops.phase_ops(&m, "fio"), 8880 + 8129, 0);
        ASSERT_EQ(m.n, 17);
        metric_list_clear(&m);
}

/* A guest's cell (job=all under TCG): every preset's directions, the
 * percentiles in order. */
TEST(parse_guest_cell) {
        static const char *const dirs[] = { "seqwrite.write", "seqread.read", "randread.read", "randread-qd32.read",
                                            "randwrite.write", "randwrite-qd32.write", "randrw.read", "randrw.write" };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };
        char a[96], b[96], c[96];

        ASSERT_EQ(parse_fixture("guest-all.txt", &m, &err), 0);
        /* Five per direction, and the seven jobs' I/Os. */
        ASSERT_EQ(m.n, 5 * ELEMENTSOF(dirs) + 7);
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                snprintf(a, sizeof(a), "fio.%s_MBps", dirs[i]);
                ASSERT_TRUE(test_value(&m, a) > 0);
                snprintf(a, sizeof(a), "fio.%s_clat_p50_us", dirs[i]);
                snprintf(b, sizeof(b), "fio.%s_clat_p99_us", dirs[i]);
                snprintf(c, sizeof(c), "fio.%s_clat_p99_9_us", dirs[i]);
                ASSERT_TRUE(test_value(&m, a) > 0 && test_value(&m, a) <= test_value(&m, b));
                ASSERT_TRUE(test_value(&m, b) <= test_value(&m, c));
        }
        metric_list_clear(&m);
}

/* A small result with one job, its fields given. */
#define JOB(name, error, read) "{", "\"jobs\" : [ { \"jobname\" : " name ", \"error\" : " error ", " read " } ]", "}"
#define READ(ios, bw) "\"read\" : { \"total_ios\" : " ios ", \"bw_bytes\" : " bw ", \"iops\" : 2.5, " \
        "\"clat_ns\" : { \"percentile\" : { \"50.000000\" : 1000, \"99.000000\" : 2000, \"99.900000\" : 3000 } } }"

TEST(small_results) {
        static const char *const one[] = { "fio: note", JOB("\"a b.c\"", "0", READ("5", "4000000")), "after" };
        static const char *const nopct[] = {
                "{", "\"jobs\" : [ { \"jobname\" : \"j\", \"error\" : 0, \"read\" : { \"total_ios\" : 1, "
                "\"bw_bytes\" : 1, \"iops\" : 1, \"clat_ns\" : { \"N\" : 1 } } } ]", "}" };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(test_parse(&fio_ops, one, ELEMENTSOF(one), &m, &err), 0);
        /* Bytes that cannot be in a metric's name become '_'. */
        ASSERT_NEAR(test_value(&m, "fio.a_b_c.read_MBps"), 4.0, 1e-12);
        ASSERT_NEAR(test_value(&m, "fio.a_b_c.read_iops"), 2.5, 1e-12);
        ASSERT_NEAR(test_value(&m, "fio.a_b_c.read_clat_p50_us"), 1.0, 1e-12);
        ASSERT_NEAR(test_value(&m, "fio.a_b_c.read_clat_p99_us"), 2.0, 1e-12);
        ASSERT_NEAR(test_value(&m, "fio.a_b_c.read_clat_p99_9_us"), 3.0, 1e-12);
        ASSERT_EQ(m.n, 6);
        metric_list_clear(&m);
        /* No percentiles reported (a job file turned them off): rates and
         * the I/Os only. */
        ASSERT_EQ(test_parse(&fio_ops, nopct, ELEMENTSOF(nopct), &m, &err), 0);
        ASSERT_EQ(m.n, 3);
        metric_list_clear(&m);
}

TEST(bad_output) {
        static const struct {
                const char *lines[8];
                const char *msg;
        } cases[] = {
                { { "fio: io_setup: Function not implemented" },
                  "fio: no JSON result; last output: \"fio: io_setup: Function not implemented\"" },
                { { "{", "\"jobs\" : [" }, "fio: a result that never ends; last output: \"\"jobs\" : [\"" },
                { { "{", "\"jobs\" : [ 1 ]", "}" }, "fio: a job is not an object" },
                { { "{", "\"jobs\" : []", "}" }, "fio: a result without jobs" },
                { { "{", "\"jobs\" : ", "}" }, "fio: result 1 is not JSON: unexpected token near '}' (its line 3)" },
                { { JOB("\"j\"", "5", READ("5", "1")) }, "fio: job j failed with error 5" },
                { { JOB("\"j\"", "0", READ("0", "1")) }, "fio: job j did no I/O" },
                { { JOB("\"j\"", "0", READ("5", "-1")) }, "fio: job j: read.bw_bytes is out of range" },
                { { JOB("\"j\"", "0", READ("5", "\"1\"")) }, "fio: job j: read.bw_bytes is not a number" },
                { { JOB("\"j\"", "0", READ("5", "1e300")) }, "fio: job j: read.bw_bytes is out of range" },
                { { JOB("\"\"", "0", READ("5", "1")) }, "fio: a job without a jobname" },
                { { JOB("\"a23456789012345678901234567890123\"", "0", READ("5", "1")) },
                  "fio: a jobname longer than 31 bytes" },
                { { JOB("\"j\"", "0", READ("5", "1")), JOB("\"j\"", "0", READ("5", "1")) },
                  "fio: job j twice (jobs of one cell need names of their own)" },
                { { "{", "\"jobs\" : [ { \"jobname\" : \"j\", \"error\" : 0, \"read\" : 3 } ]", "}" },
                  "fio: job j: read is not an object" },
                { { "{", "\"jobs\" : [ { \"jobname\" : \"j\", \"error\" : 0, \"read\" : { \"total_ios\" : 1, "
                    "\"bw_bytes\" : 1, \"iops\" : 1, \"clat_ns\" : { \"percentile\" : { \"99.000000\" : -3 } } } } ]",
                    "}" },
                  "fio: job j: percentile.99.000000 is out of range" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct metric_list m = { 0 };
                struct kb_error err = { "" };
                size_t n = 0;

                while (n < ELEMENTSOF(cases[i].lines) && cases[i].lines[n])
                        n++;
                ASSERT_EQ(test_parse(&fio_ops, cases[i].lines, n, &m, &err), -EBADMSG);
                ASSERT_STREQ(err.msg, cases[i].msg);
                metric_list_clear(&m);
        }
}

static char *script_of(const char *text, uint64_t disk_bytes, struct kb_error *err, int *ret) {
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 1, .disk_bytes = disk_bytes, .mnt = "/mnt/test" };
        struct workload_spec *s = NULL;
        char *script = NULL;

        ASSERT_EQ(workload_spec_parse(text, &s, err), 0);
        ASSERT_EQ(workload_spec_resolve(s, &env), 0);
        *ret = fio_ops.script(s, &env, &script, err);
        workload_spec_free(s);
        return script;
}

TEST(preset_script) {
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char *script;
        int r;

        ASSERT_EQ(workload_spec_parse("fio", &s, &err), 0);
        ASSERT_STREQ(s->text, "fio:job=all,size=256M,runtime=10,ioengine=libaio,direct=yes");
        workload_spec_free(s);

        script = script_of("fio:job=randread-qd32,size=16,runtime=2", 2ULL << 30, &err, &r);
        ASSERT_EQ(r, 0);
        ASSERT_TRUE(strstr(script, "--name=layout --filename=kbench-fio/data --size=16777216 --create_only=1\n"));
        ASSERT_TRUE(strstr(script, "echo phase randread-qd32 >&3\n"
                                   "/var/cache/kbench/fio/fio --eta=never --output-format=json "
                                   "--output=kbench-fio/randread-qd32.json --name=randread-qd32 "
                                   "--filename=kbench-fio/data --size=16777216 --rw=randread --bs=4k --iodepth=32 "
                                   "--ioengine=libaio --direct=1 --time_based --runtime=2\n"
                                   "echo phase end >&3\n"
                                   "cat kbench-fio/randread-qd32.json\n"));
        ASSERT_EQ(test_occurrences(script, "echo phase "), 3);
        free(script);

        /* all: every preset between its own marks, writes flushed. */
        script = script_of("fio:ioengine=psync,direct=no", 2ULL << 30, &err, &r);
        ASSERT_EQ(r, 0);
        ASSERT_EQ(test_occurrences(script, "echo phase "), 9);
        ASSERT_EQ(test_occurrences(script, "--ioengine=psync --direct=0 "), 7);
        ASSERT_EQ(test_occurrences(script, "--end_fsync=1"), 4);
        ASSERT_TRUE(strstr(script, "--rw=randrw --bs=4k --iodepth=1 --ioengine=psync --direct=0 --time_based "
                                   "--runtime=10 --end_fsync=1 --rwmixread=70\n"));
        free(script);

        ASSERT_TRUE(script_of("fio:job=randomread", 2ULL << 30, &err, &r) == NULL);
        ASSERT_EQ(r, -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "workload fio: key 'job': 'randomread' is neither a preset (all, seqwrite,"));
        ASSERT_TRUE(script_of("fio:size=2G", 2ULL << 30, &err, &r) == NULL);
        ASSERT_EQ(r, -EINVAL);
        ASSERT_STREQ(err.msg, "workload fio: key 'size': 2048 MiB does not fit on the 2048 MiB test disk (use a "
                              "smaller size or a larger --disk-size)");
}

/* Every preset's phase has its vmstat row, reads marked as writing nothing. */
TEST(preset_phases) {
        static const struct { const char *phase; int writes; } want[] = {
                { "seqwrite", 1 }, { "seqread", 0 }, { "randread", 0 }, { "randread-qd32", 0 },
                { "randwrite", 1 }, { "randwrite-qd32", 1 }, { "randrw", 1 }, { "fio", 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                const struct workload_phase *p = fio_ops.vmstat_phases;
                while (p->pattern && fnmatch(p->pattern, want[i].phase, 0) != 0)
                        p++;
                ASSERT_TRUE(p->pattern != NULL);
                ASSERT_EQ(p->writes, want[i].writes);
        }
}

static char *write_temp(const char *text, size_t len) {
        char *path = strdup("/tmp/test-fio-XXXXXX");
        int fd = mkstemp(path);

        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, text, len), (ssize_t)len);
        close(fd);
        return path;
}

TEST(job_file_script) {
        static const char job[] = "[global]\nioengine=psync\n\n[r]\nrw=randread\nsize=8m";
        static const char bad[][64] = { "[r]\nKBENCH_FIO_JOB_END\n", "[r]\nrw=read\x1b[2J\n" };
        struct kb_error err = { "" };
        char text[600], *path = write_temp(job, strlen(job)), *script;
        int r;

        snprintf(text, sizeof(text), "fio:job=%s", path);
        script = script_of(text, 2ULL << 30, &err, &r);
        ASSERT_EQ(r, 0);
        /* The file as given, a newline added, ended, run as the phase "fio". */
        ASSERT_TRUE(strstr(script, "cd kbench-fio\n"
                                   "cat > job.fio <<'KBENCH_FIO_JOB_END'\n"
                                   "[global]\nioengine=psync\n\n[r]\nrw=randread\nsize=8m\n"
                                   "KBENCH_FIO_JOB_END\n"
                                   "echo phase fio >&3\n"
                                   "/var/cache/kbench/fio/fio --eta=never --output-format=json --output=result.json "
                                   "job.fio\n"
                                   "echo phase end >&3\n"
                                   "cat result.json\n"));
        free(script);
        unlink(path);
        free(path);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct workload_spec *s = NULL;

                path = write_temp(bad[i], strlen(bad[i]));
                snprintf(text, sizeof(text), "fio:job=%s", path);
                ASSERT_EQ(workload_spec_parse(text, &s, &err), -EINVAL);
                ASSERT_TRUE(strstr(err.msg, path) != NULL);
                unlink(path);
                free(path);
        }
}

static double mono_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A job file's path made absolute: the label says which file ran. */
TEST(job_file_relative) {
        struct workload_env env = { .disk_bytes = 2ULL << 30 };
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char old[512], dir[] = "/tmp/test-fio-dir-XXXXXX", want[700];
        FILE *f;

        ASSERT_TRUE(getcwd(old, sizeof(old)) != NULL);
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        ASSERT_EQ(chdir(dir), 0);
        ASSERT_EQ(mkdir("x", 0755), 0);
        f = fopen("job.fio", "w");
        ASSERT_TRUE(f != NULL);
        fputs("[r]\nrw=read\n", f);
        fclose(f);
        ASSERT_EQ(workload_spec_parse("fio:job=./x/../job.fio", &s, &err), 0);
        ASSERT_EQ(workload_spec_resolve(s, &env), 0);
        snprintf(want, sizeof(want), "fio:job=%s/job.fio,size=256M,runtime=10,ioengine=libaio,direct=yes", dir);
        ASSERT_STREQ(s->text, want);
        workload_spec_free(s);
        ASSERT_EQ(unlink("job.fio"), 0);
        ASSERT_EQ(rmdir("x"), 0);
        ASSERT_EQ(chdir(old), 0);
        ASSERT_EQ(rmdir(dir), 0);
}

/* What is no job file is refused when the spec is parsed, in one line
 * naming it, without waiting on it or reading it: a missing file, a
 * FIFO (a read would wait for a writer forever), a device (/dev/zero
 * never ends), a file of 1 GiB (sparse: refused by its size, so reading
 * it whole would show as time), a directory. */
TEST(job_file_refused) {
        char dir[] = "/tmp/test-fio-dir-XXXXXX", fifo[64], huge[64], text[128];
        static const struct { const char *path; int r; const char *says; } cases[] = {
                { "/nonexistent/x.fio", -ENOENT, "/nonexistent/x.fio: No such file or directory" },
                { "/dev/zero", -EINVAL, "/dev/zero: a character device, not a regular file" },
                { "/tmp/", -EINVAL, "/tmp/: a directory, not a regular file" },
                { NULL, -EINVAL, ": a FIFO, not a regular file" },
                { NULL, -EFBIG, ": larger than 64 KiB" },
        };
        int fd;

        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        snprintf(huge, sizeof(huge), "%s/huge.fio", dir);
        ASSERT_EQ(mkfifo(fifo, 0600), 0);
        fd = open(huge, O_WRONLY | O_CREAT, 0600);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(ftruncate(fd, 1LL << 30), 0);
        close(fd);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *path = cases[i].path ? cases[i].path : i == 3 ? fifo : huge;
                struct workload_spec *s = NULL;
                struct kb_error err = { "" };
                double t0 = mono_s();

                snprintf(text, sizeof(text), "fio:job=%s", path);
                ASSERT_EQ(workload_spec_parse(text, &s, &err), cases[i].r);
                ASSERT_TRUE(s == NULL);
                ASSERT_TRUE(strncmp(err.msg, "workload fio: key 'job': ", 25) == 0);
                ASSERT_TRUE(strstr(err.msg, cases[i].says) != NULL);
                ASSERT_TRUE(strstr(err.msg, path) != NULL);
                ASSERT_TRUE(mono_s() - t0 < 1.0);
        }
        ASSERT_EQ(unlink(fifo), 0);
        ASSERT_EQ(unlink(huge), 0);
        ASSERT_EQ(rmdir(dir), 0);
}
