/* test-copy.c: the copy workload's script and parser. The script is run for
 * real under this machine's busybox sh (the guest's shell) in a scratch
 * directory, with the cache drop pointed at a file, so the tree it makes is
 * checked against what it reports; the parser runs on the output and phase
 * marks of a guest run (tests/data/copy/, see its README). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/testdata-ddtb.h"
#include "workloads/test-workloads.h"
#include "workloads/workload.h"

TEST_MAIN();

/* The workload under test (copy.c); the harness reaches it through the registry. */
extern const struct workload_ops copy_ops;

#define BUSYBOX "/bin/busybox"

static uint64_t test_disk = 3ULL << 30;    /* the test disk script_for() offers, bytes */

/* The cell's own seed differs from cell to cell; the tree must not. */
static char *script_for(const char *spec_text, uint64_t cell_seed, int *ret_r, struct kb_error *err) {
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 1, .disk_bytes = test_disk,
                                    .mnt = "/mnt/test", .seed = cell_seed };
        struct workload_spec *s = NULL;
        char *script = NULL;

        ASSERT_EQ(workload_spec_parse(spec_text, &s, err), 0);
        *ret_r = copy_ops.script(s, &env, &script, err);
        workload_spec_free(s);
        return script;
}

TEST(script_tree_is_seeded) {
        struct kb_error err = { "" };
        int r;
        char *a = script_for("copy", 7, &r, &err), *b = script_for("copy", 8, &r, &err);
        char *c = script_for("copy:seed=2", 7, &r, &err);

        ASSERT_STREQ(a, b);
        ASSERT_TRUE(strcmp(a, c) != 0);
        /* Copy, sync, drop and read are marked in order, the tree reported before. */
        ASSERT_TRUE(strstr(a, "echo 'copy: files ") < strstr(a, "echo phase copy >&3\n"));
        ASSERT_TRUE(strstr(a, "echo phase copy >&3\ncp -a kbench-copy/src kbench-copy/dst\n"
                              "echo phase sync >&3\nsync\necho phase drop-caches >&3\n"
                              "echo 3 > /proc/sys/vm/drop_caches\necho phase read >&3\n"
                              "tar cf - -C kbench-copy dst | cat > /dev/null\necho phase end >&3\n"));
        ASSERT_TRUE(strlen(a) < 120 * 1024);
        free(a);
        free(b);
        free(c);

        /* The largest tree still fits the agent's script limit. */
        a = script_for("copy:size=1G", 1, &r, &err);
        ASSERT_EQ(r, 0);
        ASSERT_TRUE(strlen(a) < 120 * 1024);
        free(a);
}

TEST(script_refuses_what_does_not_fit) {
        struct kb_error err = { "" };
        struct workload_spec *s = NULL;
        int r;

        test_disk = 2ULL << 30;
        ASSERT_TRUE(script_for("copy:size=1G", 1, &r, &err) == NULL);
        test_disk = 3ULL << 30;
        ASSERT_EQ(r, -EINVAL);
        ASSERT_STREQ(err.msg, "workload copy: key 'size': twice 1024 MiB does not fit on the 2048 MiB test disk "
                              "(use a smaller size or a larger --disk-size)");
        ASSERT_EQ(workload_spec_parse("copy:size=2G", &s, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload copy: key 'size': '2G' is not between 1 MiB and 1 GiB");
}

/* Run the script as the agent would, but in a scratch directory and with
 * the cache drop going to a file. */
TEST(script_runs_under_busybox) {
        struct kb_error err = { "" };
        char dir[] = "/tmp/kbench-test-copy-XXXXXX", cmd[512], line[256];
        char *script, *p;
        uint64_t files = 0, bytes = 0, found = 0, total = 0;
        FILE *f;
        int r;

        if (access(BUSYBOX, X_OK) != 0)
                TEST_SKIP("no %s", BUSYBOX);
        script = script_for("copy:size=2M,seed=3", 1, &r, &err);
        ASSERT_EQ(r, 0);
        while ((p = strstr(script, "/proc/sys/vm/drop_caches")))
                memcpy(p, "drop_caches.txt         ", strlen("/proc/sys/vm/drop_caches"));
        /* Keep the tree for the count below. */
        p = strstr(script, "rm -rf kbench-copy\n");
        p = strstr(p + 1, "rm -rf kbench-copy\n");
        ASSERT_TRUE(p != NULL);
        memcpy(p, "#", 1);
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(cmd, sizeof(cmd), "%s/job.sh", dir);
        f = fopen(cmd, "w");
        ASSERT_TRUE(f != NULL);
        fputs(script, f);
        fclose(f);
        snprintf(cmd, sizeof(cmd), "cd %s && " BUSYBOX " sh job.sh 3>marks.txt >out.txt 2>&1 && "
                 "test \"$(cat marks.txt | tr '\\n' ,)\" = 'phase create,phase copy,phase sync,"
                 "phase drop-caches,phase read,phase end,' && "
                 "cd kbench-copy && find dst -type f | wc -l && find dst -type f | xargs cat | wc -c", dir);
        f = popen(cmd, "r");
        ASSERT_TRUE(f != NULL);
        while (fgets(line, sizeof(line), f)) {
                uint64_t v = strtoull(line, NULL, 10);
                if (found++ == 0)
                        files = v;
                else
                        total = v;
        }
        ASSERT_EQ(pclose(f), 0);
        snprintf(cmd, sizeof(cmd), "%s/out.txt", dir);
        f = fopen(cmd, "r");
        ASSERT_TRUE(f && fgets(line, sizeof(line), f));
        fclose(f);
        ASSERT_EQ(sscanf(line, "copy: files %" SCNu64 " bytes %" SCNu64, &found, &bytes), 2);
        ASSERT_EQ(found, files);
        ASSERT_EQ(bytes, 2 << 20);
        ASSERT_EQ(total, 2 << 20);
        ASSERT_TRUE(files > 10);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ASSERT_EQ(system(cmd), 0);
        free(script);
}

struct job {
        char *text;
        const char *v[64], *lines[64], *events[64];
        double t[64];
        size_t n;
        struct workload_output out;
};

static void job_read(struct job *j, const char *name) {
        char path[1024];

        snprintf(path, sizeof(path), "%s/copy/%s", KB_TESTDATA_DIR, name);
        j->text = test_read_lines(path, j->v, &j->n, 64);
        test_output_split(j->v, j->n, j->lines, j->events, j->t, &j->out);
}

/* A 16 MiB guest run: its seconds are the differences of the marks. */
TEST(parse_guest_run) {
        struct job j = { 0 };
        struct metric_list m = { 0 };
        struct kb_error err = { "" };

        job_read(&j, "guest-16M.txt");
        ASSERT_EQ(copy_ops.parse(NULL, &j.out, &m, &err), 0);
        ASSERT_NEAR(test_value(&m, "copy.copy_s"), 10.980 - 8.955, 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.sync_s"), 11.132 - 10.980, 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.read_s"), 12.045 - 11.234, 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.copy_MBps"), 16777216 / (10.980 - 8.955) / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.copy_files_per_s"), 166 / (10.980 - 8.955), 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.read_MBps"), 16777216 / (12.045 - 11.234) / 1e6, 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.read_files_per_s"), 166 / (12.045 - 11.234), 1e-9);
        ASSERT_NEAR(test_value(&m, "copy.files"), 166, 0);
        ASSERT_NEAR(test_value(&m, "copy.size_MiB"), 16, 0);
        ASSERT_EQ(m.n, 9);
        metric_list_clear(&m);
        free(j.text);
}

TEST(parse_refuses) {
        static const char *const marks[] = { "phase copy", "phase sync", "phase drop-caches", "phase read",
                                              "phase end" };
        static const struct {
                const char *line;
                double t[5];
                const char *msg;
        } cases[] = {
                { "copy: files 1 bytes 10", { 1, 2, 3, 4, 5 }, NULL },
                { "copy: files 0 bytes 10", { 1, 2, 3, 4, 5 }, "copy: bad tree line: \"copy: files 0 bytes 10\"" },
                { "copy: files 1 bytes 10 x", { 1, 2, 3, 4, 5 },
                  "copy: bad tree line: \"copy: files 1 bytes 10 x\"" },
                { "copy: files 99999999999999999999 bytes 1", { 1, 2, 3, 4, 5 },
                  "copy: bad tree line: \"copy: files 99999999999999999999 bytes 1\"" },
                { "cp: can't create directory", { 1, 2, 3, 4, 5 },
                  "copy: unexpected output: \"cp: can't create directory\"" },
                { "copy: files 1 bytes 10", { 1, 2, 1.5, 4, 5 }, "copy: 'phase drop-caches' not after 'phase sync'" },
                { "copy: files 1 bytes 10", { 1, 1, 1, 4, 4 }, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *lines[] = { cases[i].line };
                struct workload_output out = { 1, lines, 5, marks, cases[i].t };
                struct metric_list m = { 0 };
                struct kb_error err = { "" };
                int r = copy_ops.parse(NULL, &out, &m, &err);

                if (!cases[i].msg) {
                        ASSERT_EQ(r, 0);
                } else {
                        ASSERT_EQ(r, -EBADMSG);
                        ASSERT_STREQ(err.msg, cases[i].msg);
                }
                metric_list_clear(&m);
        }
        {
                /* A copy in no measurable time: its rates have no value. */
                const char *lines[] = { "copy: files 1 bytes 10" };
                struct workload_output out = { 1, lines, 5, marks, (const double[]){ 1, 1, 1, 4, 4 } };
                struct metric_list m = { 0 };
                struct kb_error err = { "" };

                ASSERT_EQ(copy_ops.parse(NULL, &out, &m, &err), 0);
                ASSERT_TRUE(!metric_find(&m, "copy.copy_MBps")->has_value);
                ASSERT_STREQ(metric_find(&m, "copy.read_files_per_s")->note, "too fast to measure");
                metric_list_clear(&m);
                /* No tree line, and a missing mark. */
                out.n_lines = 0;
                ASSERT_EQ(copy_ops.parse(NULL, &out, &m, &err), -EBADMSG);
                ASSERT_STREQ(err.msg, "copy: the job never reported its tree");
                out.n_lines = 1;
                out.n_events = 4;
                ASSERT_EQ(copy_ops.parse(NULL, &out, &m, &err), -EINVAL);
                ASSERT_STREQ(err.msg, "copy: the job never reported 'phase end'");
                metric_list_clear(&m);
        }
}
