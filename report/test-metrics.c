/* test-metrics.c: the metric registry (report/metrics.c) knows every metric
 * kbench can store. Each workload parser runs over its fixtures in
 * tests/data, the vmstat analysis over every vmstat fixture, and every
 * metric name written as a literal in a workloads/ source (the FTP host
 * phase's, which no fixture can drive) is read from the source itself;
 * each emitted name must resolve, with the unit the emitter used. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "report/metrics.h"
#include "testdata-report.h"
#include "workloads/ftp.h"
#include "workloads/vmstat.h"
#include "workloads/vmstat_metrics.h"
#include "workloads/workload.h"

TEST_MAIN();

static size_t checked;

/* Every metric of m must be in the registry with the unit it was stored with. */
static void check_list(const struct metric_list *m, const char *from) {
        for (size_t i = 0; i < m->n; i++) {
                struct metrics_info info;

                if (metrics_lookup(m->v[i].name, &info) < 0)
                        TEST_FAIL("%s emits %s, which report/metrics.c does not know", from, m->v[i].name);
                if (strcmp(info.unit, m->v[i].unit) != 0)
                        TEST_FAIL("%s emits %s in '%s', the registry says '%s'", from, m->v[i].name, m->v[i].unit,
                                  info.unit);
                if (info.direction == METRICS_NONE && info.verdict)
                        TEST_FAIL("%s: informational but enters verdicts", m->v[i].name);
                checked++;
        }
}

/* The names of the files in tests/data/<dir> that start with prefix. */
static size_t fixtures(const char *dir, const char *prefix, char names[][128], size_t max) {
        char path[1024];
        struct dirent *e;
        size_t n = 0;
        DIR *d;

        snprintf(path, sizeof(path), "%s/%s", KB_TESTDATA_DIR, dir);
        d = opendir(path);
        ASSERT_TRUE(d);
        while ((e = readdir(d)) && n < max)
                if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0)
                        snprintf(names[n++], 128, "%.100s", e->d_name);
        closedir(d);
        return n;
}

/* ops->parse over the lines of the given fixtures, in order; must succeed. */
static void parse_fixtures(const struct workload_ops *ops, const char *spec_text, const char *dir,
                           const char *const *files, size_t nfiles) {
        struct kb_error err = { { 0 } };
        struct workload_spec *spec = NULL;
        struct metric_list m = { 0 };
        const char *lines[512];
        char *text[4] = { 0 };
        size_t n = 0;
        struct workload_output out = { 0 };

        ASSERT_TRUE(nfiles <= ELEMENTSOF(text));
        ASSERT_EQ(workload_spec_parse(spec_text, &spec, &err), 0);
        for (size_t i = 0; i < nfiles; i++) {
                char path[1024];

                snprintf(path, sizeof(path), "%s/%s/%s", KB_TESTDATA_DIR, dir, files[i]);
                text[i] = test_read_lines(path, lines, &n, ELEMENTSOF(lines));
        }
        out = (struct workload_output){ .n_lines = n, .lines = lines };
        if (ops->parse(spec, &out, &m, &err) < 0)
                TEST_FAIL("%s over %s/%s: %s", ops->name, dir, files[0], err.msg);
        ASSERT_TRUE(m.n > 0);
        check_list(&m, files[0]);
        metric_list_clear(&m);
        for (size_t i = 0; i < nfiles; i++)
                free(text[i]);
        workload_spec_free(spec);
}

TEST(dd_fixtures) {
        char names[32][128];
        size_t n = fixtures("dd", "run-", names, 32);

        ASSERT_TRUE(n >= 3);
        for (size_t i = 0; i < n; i++) {
                const char *f[] = { names[i] };
                parse_fixtures(workload_find("dd"), "dd", "dd", f, 1);
        }
}

TEST(tiobench_fixtures) {
        char names[32][128];
        size_t n = fixtures("tiobench", "", names, 32), parsed = 0;

        for (size_t i = 0; i < n; i++) {
                const char *f[] = { names[i] };

                if (strncmp(names[i], "error-", 6) == 0)
                        continue;
                parse_fixtures(workload_find("tiobench"), "tiobench", "tiobench", f, 1);
                parsed++;
        }
        ASSERT_TRUE(parsed >= 3);
}

TEST(bonnie_fixtures) {
        const char *full[] = { "full.stderr", "full.csv" }, *fast[] = { "fast.stderr", "fast.csv" };

        parse_fixtures(workload_find("bonnie"), "bonnie", "bonnie", full, 2);
        parse_fixtures(workload_find("bonnie"), "bonnie", "bonnie", fast, 2);
}

TEST(dbench_fixtures) {
        char names[32][128];
        size_t n = fixtures("dbench", "", names, 32), parsed = 0;

        for (size_t i = 0; i < n; i++) {
                const char *f[] = { names[i] };

                if (strstr(names[i], ".txt") == NULL)
                        continue;
                parse_fixtures(workload_find("dbench"), "dbench", "dbench", f, 1);
                parsed++;
        }
        ASSERT_TRUE(parsed >= 4);
}

TEST(copy_parser) {
        static const char *const lines[] = { "copy: files 166 bytes 16777216" };
        static const char *const events[] = { "phase create", "phase copy", "phase sync", "phase drop-caches",
                                              "phase read", "phase end" };
        static const double t[] = { 4.7, 8.9, 10.9, 11.1, 11.2, 12.0 };
        struct kb_error err = { { 0 } };
        struct metric_list m = { 0 };
        struct workload_output out = { 1, lines, 6, events, t };

        if (workload_find("copy")->parse(NULL, &out, &m, &err) < 0)
                TEST_FAIL("copy parse: %s", err.msg);
        ASSERT_TRUE(m.n >= 9);
        check_list(&m, "copy parser");
        metric_list_clear(&m);
}

TEST(ftp_parser) {
        static const char *const lines[] = { "ftp-expected 67108864", "ftp-size 67108864",
                                             "ftp-upload-s 12.500000" };
        static const char *const events[] = { "host-start", "upload-seen", "sync-start", "sync-end" };
        static const double t[] = { 3.0, 15.75, 16.0, 19.5 };
        struct kb_error err = { { 0 } };
        struct workload_spec *spec = NULL;
        struct metric_list m = { 0 };
        struct workload_output out = { 3, lines, 4, events, t };

        ASSERT_EQ(workload_spec_parse("ftp:size=64M", &spec, &err), 0);
        if (ftp_ops.parse(spec, &out, &m, &err) < 0)
                TEST_FAIL("ftp parse: %s", err.msg);
        ASSERT_TRUE(m.n >= 2);
        check_list(&m, "ftp parser");
        metric_list_clear(&m);
        workload_spec_free(spec);
}

TEST(vmstat_fixtures) {
        char names[64][128];
        size_t n = fixtures("vmstat", "", names, 64), with_stalls = 0;

        ASSERT_TRUE(n >= 10);
        for (size_t i = 0; i < n; i++) {
                char path[1024];
                FILE *f;
                char *buf = NULL;
                size_t len = 0;
                struct vmstat_table *t = NULL;
                struct metric_list m = { 0 };
                int c;

                snprintf(path, sizeof(path), "%s/vmstat/%s", KB_TESTDATA_DIR, names[i]);
                f = fopen(path, "rb");
                ASSERT_TRUE(f);
                {
                        FILE *mem = open_memstream(&buf, &len);
                        ASSERT_TRUE(mem);
                        while ((c = fgetc(f)) != EOF)
                                fputc(c, mem);
                        fclose(mem);
                }
                fclose(f);
                ASSERT_EQ(vmstat_parse_text(buf, len, 1, &t), 0);
                ASSERT_EQ(vmstat_metrics(t, VMSTAT_BO_THRESHOLD, VMSTAT_INTERVAL, NAN, NAN, &m), 0);
                /* Per-phase names, as the cells of dd, tiobench and ftp store them. */
                ASSERT_EQ(vmstat_phase_metrics(t, "write", 1, VMSTAT_BO_THRESHOLD, VMSTAT_INTERVAL, NAN, NAN, &m), 0);
                ASSERT_EQ(vmstat_phase_metrics(t, "seq_read.t2", 0, VMSTAT_BO_THRESHOLD, 0.25, NAN, NAN, &m), 0);
                ASSERT_EQ(vmstat_phase_metrics(t, "upload", 1, VMSTAT_BO_THRESHOLD, VMSTAT_INTERVAL, 0, 1e9, &m), 0);
                check_list(&m, names[i]);
                with_stalls += metric_find(&m, "vmstat.bo_cov") != NULL;
                metric_list_clear(&m);
                vmstat_table_free(t);
                free(buf);
        }
        ASSERT_TRUE(with_stalls > 0);
}

/* Names written literally in the workloads' sources and in the harness'
 * (the cell's own host.* figures): the first string argument of
 * metric_add/metric_add_none, and "vmstat.x" table rows. */
TEST(literal_names_in_sources) {
        static const char *const files[] = { "workloads/dd.c", "workloads/tiobench.c", "workloads/bonnie.c",
                                             "workloads/ftp.c", "workloads/vmstat_metrics.c", "cell/cell.c",
                                             "cell/cellrows.c" };
        regex_t add, row, deep;
        size_t found = 0, deep_found = 0;

        ASSERT_EQ(regcomp(&add, "metric_add(_none)?\\([^,;]+,[[:space:]]*\"([^\"]+)\"", REG_EXTENDED), 0);
        ASSERT_EQ(regcomp(&row, "\\{ \"(vmstat\\.[a-z_]+)\", \"([^\"]*)\" \\}", REG_EXTENDED), 0);
        /* vmstat_metrics.c's deep_cols rows: { "col", "vmstat.name", "unit", DEEP_... } */
        ASSERT_EQ(regcomp(&deep, "\\{ \"[a-z_]+\", \"(vmstat\\.[A-Za-z_]+)\", \"([^\"]*)\", DEEP_",
                          REG_EXTENDED), 0);
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char path[1024];
                char *text;
                FILE *f;
                long size;

                snprintf(path, sizeof(path), "%s/%s", KB_SOURCE_ROOT, files[i]);
                f = fopen(path, "r");
                ASSERT_TRUE(f);
                fseek(f, 0, SEEK_END);
                size = ftell(f);
                fclose(f);
                f = fopen(path, "r");
                text = calloc(1, (size_t)size + 1);
                ASSERT_TRUE(text && fread(text, 1, (size_t)size, f) == (size_t)size);
                fclose(f);
                for (int pass = 0; pass < 3; pass++) {
                        regex_t *re = pass == 2 ? &deep : pass ? &row : &add;
                        regmatch_t mt[3];
                        int g = pass ? 1 : 2;

                        for (const char *p = text; regexec(re, p, 3, mt, 0) == 0; p += mt[0].rm_eo) {
                                char name[128];
                                struct metrics_info info;
                                int len = (int)(mt[g].rm_eo - mt[g].rm_so);

                                snprintf(name, sizeof(name), "%.*s", len, p + mt[g].rm_so);
                                if (metrics_lookup(name, &info) < 0)
                                        TEST_FAIL("%s stores %s, which report/metrics.c does not know",
                                                  files[i], name);
                                if (pass == 2) {
                                        char unit[64];
                                        snprintf(unit, sizeof(unit), "%.*s", (int)(mt[2].rm_eo - mt[2].rm_so),
                                                 p + mt[2].rm_so);
                                        if (strcmp(unit, info.unit) != 0)
                                                TEST_FAIL("%s stores %s in '%s', the registry says '%s'",
                                                          files[i], name, unit, info.unit);
                                        deep_found++;
                                }
                                found++;
                        }
                }
                free(text);
        }
        regfree(&add);
        regfree(&row);
        regfree(&deep);
        /* vmstat_metrics.c's sixteen figures of the vm, disk and swap columns. */
        ASSERT_EQ(deep_found, 16);
        /* ftp.c alone has seven literal names; cell.c and cellrows.c six. */
        ASSERT_TRUE(found >= 21);
}

TEST(registry_rows) {
        struct metrics_info info;

        ASSERT_EQ(metrics_lookup("dd.write_MBps", &info), 0);
        ASSERT_EQ(info.direction, METRICS_HIGHER);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_STREQ(info.unit, "MB/s");
        /* The same measurement twice would vote twice. */
        ASSERT_EQ(metrics_lookup("dd.write_s", &info), 0);
        ASSERT_EQ(info.direction, METRICS_LOWER);
        ASSERT_EQ(info.verdict, 0);
        ASSERT_EQ(metrics_verdict("tiobench.seq_read.t2.lat_avg_ms"), 1);
        ASSERT_EQ(metrics_direction("tiobench.seq_read.t2.lat_avg_ms"), METRICS_LOWER);
        ASSERT_EQ(metrics_verdict("tiobench.size_MiB"), 0);
        ASSERT_EQ(metrics_direction("tiobench.size_MiB"), METRICS_NONE);
        ASSERT_EQ(metrics_verdict("ftp.MBps"), 1);
        ASSERT_EQ(metrics_verdict("vmstat.stall_longest_s"), 0);
        ASSERT_EQ(metrics_direction("vmstat.stall_longest_s"), METRICS_LOWER);
        ASSERT_EQ(metrics_direction("vmstat.bo_mean"), METRICS_NONE);
        /* One phase's figures are informational; its stalls still say which way is better. */
        ASSERT_EQ(metrics_direction("vmstat.write.stall_longest_s"), METRICS_LOWER);
        ASSERT_EQ(metrics_verdict("vmstat.write.stall_longest_s"), 0);
        ASSERT_EQ(metrics_verdict("vmstat.seq_write.t2.stall_count"), 0);
        ASSERT_EQ(metrics_direction("vmstat.read.bi_mean"), METRICS_NONE);
        ASSERT_EQ(metrics_lookup("boot_s", &info), 0);
        ASSERT_STREQ(info.unit, "s");
        ASSERT_EQ(metrics_lookup("workload_s", &info), 0);
        ASSERT_EQ(metrics_lookup("total_s", &info), 0);
        ASSERT_EQ(metrics_lookup("frobnicate.rate", &info), -ENOENT);
        ASSERT_EQ(metrics_lookup("dd", &info), -ENOENT);
        ASSERT_EQ(metrics_verdict("frobnicate.rate"), 0);
        ASSERT_STREQ(metrics_direction_name(METRICS_LOWER), "lower");
        /* Rates are timed; what the guest executed is a count of work. */
        ASSERT_EQ(metrics_lookup("dd.write_MBps", &info), 0);
        ASSERT_EQ(info.host_timed, 1);
        ASSERT_EQ(metrics_lookup("guest.write.kernel_Minsn", &info), 0);
        ASSERT_EQ(info.host_timed, 0);
        ASSERT_EQ(info.direction, METRICS_LOWER);
        ASSERT_EQ(metrics_verdict("guest.seq_read.t2.kernel_Minsn"), 1);
        ASSERT_EQ(metrics_verdict("guest.write.user_Minsn"), 0);
        ASSERT_EQ(metrics_lookup("guest.write.user_Minsn", &info), 0);
        ASSERT_TRUE(strstr(info.why, "sampler") != NULL);
        ASSERT_NEAR(info.floor, 0, 0);
        /* Waiting, spinning and swapping are amounts, judged beyond a floor,
         * and kept in contended cells: the host's speed does not set them. */
        ASSERT_EQ(metrics_lookup("guest.write.wait_s", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_EQ(info.host_timed, 0);
        ASSERT_TRUE(info.floor > 0);
        ASSERT_EQ(metrics_lookup("guest.seq_read.t2.spin_s", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_TRUE(info.floor > 0);
        ASSERT_EQ(metrics_verdict("guest.write.kernel_pauses"), 0);
        ASSERT_EQ(metrics_verdict("guest.write.wall_s"), 0);
        ASSERT_EQ(metrics_lookup("vmstat.swap_out_MiB", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_NEAR(info.floor, 0.5, 0);
        ASSERT_EQ(metrics_verdict("vmstat.read.swap_out_MiB"), 0);
}

/* Which phases carry a verdict: kbench's own steps never, a phase of fixed
 * time per operation only, every other phase by its totals; the new
 * amounts, their floors and the tail rule's metric. */
TEST(phase_kinds_and_new_amounts) {
        struct metrics_info info;

        ASSERT_EQ(metrics_verdict("guest.write.kernel_Minsn"), 1);
        ASSERT_EQ(metrics_lookup("guest.drop-caches.kernel_Minsn", &info), 0);
        ASSERT_EQ(info.verdict, 0);
        ASSERT_TRUE(strstr(info.why, "kbench's own step") != NULL);
        ASSERT_EQ(metrics_verdict("guest.drop-caches.wait_s"), 0);
        ASSERT_EQ(metrics_verdict("guest.layout.disk_written_MiB"), 0);
        ASSERT_EQ(metrics_verdict("guest.drop-caches.t4.kernel_Minsn"), 0);
        ASSERT_EQ(metrics_verdict("guest.create.kernel_Minsn"), 0);
        /* copy's sync is its own cost. */
        ASSERT_EQ(metrics_verdict("guest.sync.kernel_Minsn"), 1);
        ASSERT_EQ(metrics_lookup("guest.randwrite.kernel_Minsn", &info), 0);
        ASSERT_EQ(info.verdict, 0);
        ASSERT_TRUE(strstr(info.why, "fixed time") != NULL);
        ASSERT_EQ(metrics_verdict("guest.randwrite.kernel_insn_per_op"), 1);
        ASSERT_EQ(metrics_verdict("guest.dbench.wait_s"), 0);
        ASSERT_EQ(metrics_lookup("guest.dbench.sleep_us_per_op", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_TRUE(info.floor > 0);
        ASSERT_EQ(metrics_verdict("guest.randrw.disk_flushes_per_kop"), 1);
        /* A phase of fixed work: its totals, never a figure per operation
         * (none is made for it). */
        ASSERT_EQ(metrics_lookup("mem.held_MiB", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_NEAR(info.floor, 1.0, 0);
        ASSERT_EQ(metrics_verdict("mem.sunreclaim_MiB"), 0);
        ASSERT_EQ(metrics_lookup("guest.read.allocstalls", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_TRUE(info.floor > 0 && info.tail == 0);
        ASSERT_EQ(metrics_verdict("guest.write.disk_flushes"), 1);
        ASSERT_EQ(metrics_verdict("guest.write.disk_read_MiB"), 0);
        ASSERT_EQ(metrics_verdict("guest.write.sleep_s"), 0);
        ASSERT_EQ(metrics_lookup("guest.write.halt_longest_s", &info), 0);
        ASSERT_EQ(info.verdict, 1);
        ASSERT_TRUE(info.tail > 0 && info.floor > 0);
}
