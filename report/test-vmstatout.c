/* test-vmstatout.c: `kbench vmstat`'s output (report/vmstatout.c) over
 * tables the parser made of real captures (tests/data/vmstat/): the JSON
 * object, the text report, and the streamed JSON against the tree. */
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "report/vmstatout.h"
#include "workloads/vmstat.h"

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

TEST(json) {
        struct vmstat_table *t = kbench_capture();
        json_t *j = vmstatout_json(t, 100, 1), *st, *p;

        ASSERT_TRUE(j);
        ASSERT_EQ(json_array_size(json_object_get(j, "columns")), 20);
        ASSERT_STREQ(json_string_value(json_array_get(json_object_get(j, "columns"), 18)), "dirty");
        ASSERT_EQ(json_array_size(json_object_get(j, "samples")), 8);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(json_object_get(j, "samples"), 2), "bo")),
                  12288);
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(json_object_get(j, "samples"), 4), "t")), 16.2,
                    1e-12);
        ASSERT_EQ(json_integer_value(json_object_get(j, "rejected")), 0);
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(json_object_get(j, "summary"), "bo"), "n")), 7);
        ASSERT_TRUE(json_is_null(json_object_get(json_object_get(json_object_get(j, "summary"), "si"), "cov")));
        st = json_object_get(j, "stalls");
        ASSERT_EQ(json_integer_value(json_object_get(st, "count")), 2);
        ASSERT_NEAR(json_number_value(json_object_get(st, "threshold")), 100, 1e-9);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(json_object_get(st, "runs"), 0), "start")), 3);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(json_object_get(st, "runs"), 0), "length")), 2);
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(json_object_get(st, "runs"), 0), "seconds")), 2,
                    0);
        p = json_object_get(st, "pauses");
        ASSERT_EQ(json_integer_value(json_object_get(p, "count")), 1);
        json_decref(j);
        vmstat_table_free(t);

        /* Text without times has no "pauses", and no "t" per sample. */
        t = parse_fixture("seed-2002-stalls.txt", 0);
        j = vmstatout_json(t, 100, 1);
        ASSERT_TRUE(json_object_get(json_object_get(j, "stalls"), "pauses") == NULL);
        ASSERT_TRUE(json_object_get(json_array_get(json_object_get(j, "samples"), 0), "t") == NULL);
        ASSERT_EQ(json_integer_value(json_object_get(j, "rejected")), 50);
        json_decref(j);
        vmstat_table_free(t);
}

/* A capture whose kernel lacks the io and swap counters: the report says
 * n/a for what is absent, and why; the JSON carries the note. */
TEST(absent_columns) {
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
        struct vmstat_table *t;

        for (size_t i = 0; i < ELEMENTSOF(lines); i++)
                ASSERT_TRUE(vmstat_parser_feed(p, lines[i], strlen(lines[i]), 10.0 + (double)i, 0) >= 0);
        t = vmstat_parser_finish(p);
        /* The report says n/a for what is absent, and why. */
        {
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                ASSERT_EQ(vmstatout_print(t, 100, 1, f), 0);
                fclose(f);
                ASSERT_TRUE(strstr(buf, "\nbo                0          n/a          n/a") != NULL);
                ASSERT_TRUE(strstr(buf, "\nnote: absent si so bi bo: ") != NULL);
                ASSERT_TRUE(strstr(buf, "\nstalls: no bo values\n") != NULL);
                ASSERT_TRUE(strstr(buf, "nan") == NULL);
                free(buf);
        }

        /* The note reaches the JSON; the stalls are null, not zero. */
        {
                json_t *j = vmstatout_json(t, 100, 1);
                ASSERT_TRUE(j);
                ASSERT_STREQ(json_string_value(json_object_get(j, "note")), t->note);
                ASSERT_TRUE(json_is_null(json_object_get(j, "stalls")));
                ASSERT_EQ(json_integer_value(json_object_get(json_object_get(json_object_get(j, "summary"), "bo"), "n")), 0);
                json_decref(j);
        }
        vmstat_table_free(t);
}

/* The streamed JSON of `kbench vmstat --json` is the object vmstatout_json()
 * builds, on text with times, missing columns and no samples at all. */
TEST(json_dumpf_equals_tree) {
        static const char *const files[] = { "blind-awt-tz.txt", "blind-units.txt", "blind-excerpt.txt" };

        for (size_t k = 0; k <= ELEMENTSOF(files); k++) {
                struct vmstat_table *t = NULL;
                json_t *tree, *streamed;
                json_error_t jerr;
                char *out = NULL;
                size_t outlen = 0;
                FILE *f = open_memstream(&out, &outlen);

                ASSERT_TRUE(f);
                if (k < ELEMENTSOF(files))
                        t = parse_fixture(files[k], 0);
                else
                        ASSERT_EQ(vmstat_parse_text("prose only\n", 11, 0, &t), 0);
                tree = vmstatout_json(t, 50, 2);
                ASSERT_TRUE(tree);
                {
                        /* Both at the precision kbench prints JSON with. */
                        char *text = json_dumps(tree, KB_JSON_OUT);

                        json_decref(tree);
                        tree = json_loads(text, 0, &jerr);
                        free(text);
                        ASSERT_TRUE(tree);
                }
                ASSERT_EQ(vmstatout_json_dumpf(t, 50, 2, f), 0);
                fclose(f);
                streamed = json_loads(out, 0, &jerr);
                if (!streamed)
                        TEST_FAIL("streamed JSON does not parse: %s", jerr.text);
                ASSERT_TRUE(json_equal(tree, streamed));
                json_decref(tree);
                json_decref(streamed);
                free(out);
                vmstat_table_free(t);
        }
}

TEST_MAIN();
