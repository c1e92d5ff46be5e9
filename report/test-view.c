/* test-view.c: the run and cell views (report/view.c) and their text and
 * JSON renderers (report/text.c, report/json.c), through the glue `kbench
 * show` uses, on the fixture database (results/test-fixture.h): two
 * kernels, dd repeats, a failed cell whose partial metric must stay out of
 * the summary, a retried cell, a metric stored without a value, and a
 * tiobench cell whose workload prints its own layout. JSON is parsed back with jansson. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "report/json.h"
#include "report/text.h"
#include "report/textrun.h"

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#include "report/view.h"
#include "results/db.h"
#include "results/query.h"
#include "results/test-fixture.h"

TEST_MAIN();

/* Run a renderer into a memory buffer. OUT: ret (caller frees). */
#define CAPTURE(ret, call) do {                                                 \
                size_t _len = 0;                                                \
                FILE *_f = open_memstream(&(ret), &_len);                       \
                ASSERT_TRUE(_f);                                                \
                FILE *out = _f;                                                 \
                call;                                                           \
                fclose(_f);                                                     \
        } while (0)

/* A JSON view printed and parsed back, as a script would read it. */
static json_t *roundtrip(json_t *j) {
        struct kb_error err = { { 0 } };
        json_error_t jerr;
        char *text = NULL;
        json_t *back;

        CAPTURE(text, ASSERT_EQ(json_view_print(j, out, &err), 0));
        json_decref(j);
        back = json_loads(text, 0, &jerr);
        free(text);
        ASSERT_TRUE(back);
        return back;
}

TEST(run_text) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_run *v = NULL;
        char *text = NULL;

        fixture_init(&f);
        ASSERT_EQ(view_run_load(f.db, f.run, &v, &err), 0);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 0 }, out));
        v = view_run_free(v);
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "run 1  tag nightly  complete") != NULL);
        /* No saved plan size: the stored cell keys count. */
        ASSERT_TRUE(strstr(text, "cells ok 8/9\n") != NULL);
        ASSERT_TRUE(strstr(text, "qemu 7.2.19") != NULL);
        ASSERT_TRUE(strstr(text, "c000  6.1.0-47-amd64  dd") != NULL);
        ASSERT_TRUE(strstr(text, "dd.write_MBps=40\n") != NULL);
        /* A metric stored without a value. */
        ASSERT_TRUE(strstr(text, "dd.write_MBps=n/a\n") != NULL);
        /* The failed cell shows its detail with the escape byte masked. */
        ASSERT_TRUE(strstr(text, "dd exited 1: ?[31mNo space left on device") != NULL);
        ASSERT_TRUE(strchr(text, '\x1b') == NULL);
        /* The ok tiobench cell in tiobench's own layout (its print hook). */
        ASSERT_TRUE(strstr(text, "c008  6.1.0-47-amd64  tiobench") != NULL);
        ASSERT_TRUE(strstr(text, "(table below)") != NULL);
        ASSERT_TRUE(strstr(text, "Sequential Writes") != NULL);
        ASSERT_TRUE(strstr(text, "    33.50") != NULL);
        ASSERT_TRUE(strstr(text, "Summary over ok cells") != NULL);
        /* Kernels side by side, a unit on every row; 40 42 44: the
         * failed cell's 1000 stays out. */
        ASSERT_TRUE(strstr(text, "\nWORKLOAD dd\nMETRIC  ") != NULL);
        ASSERT_TRUE(strstr(text, "  6.1.0-47-amd64  ") != NULL && strstr(text, "  6.1.0-57-amd64  ") != NULL);
        ASSERT_TRUE(strstr(text, "\ndd.write_MBps  MB/s  3  42.00 ± 2.00  3  51.00 ± 1.73 (1 without a value)\n") !=
                    NULL);
        ASSERT_TRUE(strstr(text, "left out") == NULL);
        free(text);

        ASSERT_EQ(view_run_load(f.db, f.empty_run, &v, &err), 0);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 0 }, out));
        v = view_run_free(v);
        ASSERT_TRUE(strstr(text, "no cells stored yet") != NULL);
        ASSERT_TRUE(strstr(text, "cells ok 0/4\n") != NULL);
        free(text);

        ASSERT_EQ(view_run_load(f.db, 7, &v, &err), -ENOENT);
        ASSERT_TRUE(v == NULL);
        ASSERT_TRUE(strncmp(err.msg, "no run 7 in ", 12) == 0);
        ASSERT_STREQ(err.msg + 12, f.path);
        fixture_done(&f);
}

/* The end of kbench run: the judged metrics only (the registry's
 * verdict metrics), the cells that did not end ok, and where the rest is. */
/* The widest line of text, in columns. */
static int widest(const char *text) {
        int w = 0;

        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");
                char *line = strndup(p, n);

                w = MAX(w, text_columns(line));
                free(line);
                p += n + (p[n] == '\n');
        }
        return w;
}

/* Within the reader's width: a cell's figures go under its row, and
 * kernels that do not fit side by side come in blocks. */
TEST(run_text_fits_width) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_run *v = NULL;
        char *text = NULL;

        fixture_init(&f);
        ASSERT_EQ(view_run_load(f.db, f.run, &v, &err), 0);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 100 }, out));
        fputs(text, stderr);
        ASSERT_TRUE(widest(text) <= 100);
        ASSERT_TRUE(strstr(text, "24.00\n      dd.read_MBps=100 dd.write_MBps=40\n") != NULL);
        free(text);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 40 }, out));
        fputs(text, stderr);
        /* One kernel a block: the second kernel's header opens its own. */
        ASSERT_TRUE(strstr(text, "\nMETRIC         UNIT  6.1.0-57-amd64\n") != NULL);
        ASSERT_TRUE(strstr(text, "\nMETRIC         UNIT  6.1.0-47-amd64\n") != NULL);
        free(text);
        v = view_run_free(v);
        fixture_done(&f);
}

TEST(run_text_brief) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_run *v = NULL;
        char *text = NULL;

        fixture_init(&f);
        /* Informational metrics beside the judged ones, as every dd cell has. */
        ASSERT_EQ(sqlite3_exec(db_handle(f.db),
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'vmstat.bo_mean', 4000, "
                               "'blocks/s' FROM cells WHERE workload = 'dd';"
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'dd.write_s', 12, 's' "
                               "FROM cells WHERE workload = 'dd';",
                               NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(view_run_load(f.db, f.run, &v, &err), 0);
        CAPTURE(text, textrun_brief(v, &(struct textrun_opts){ .width = 0 }, out));
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "run 1  tag nightly  complete") != NULL);
        ASSERT_TRUE(strstr(text, "\nJudged metrics over ok cells (n  mean ± stddev per kernel):\n") != NULL);
        ASSERT_TRUE(strstr(text, "\ndd.write_MBps ") != NULL);
        ASSERT_TRUE(strstr(text, "tiobench.seq_write.t1.lat_avg_ms") != NULL);
        ASSERT_TRUE(strstr(text, "vmstat.bo_mean") == NULL && strstr(text, "dd.write_s") == NULL);
        /* The failed attempts only, with their detail masked; no ok cell row. */
        ASSERT_TRUE(strstr(text, "2 cell attempts did not end ok:\n") != NULL);
        ASSERT_TRUE(strstr(text, "c006  6.1.0-47-amd64  dd        try 1  dd exited 1: ?[31mNo space") != NULL);
        ASSERT_TRUE(strstr(text, "c000  ") == NULL && strchr(text, '\x1b') == NULL);
        ASSERT_TRUE(strstr(text, "\n(every cell and metric: kbench show 1)\n") != NULL);
        free(text);
        /* The full table still has them all. */
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 0 }, out));
        ASSERT_TRUE(strstr(text, "vmstat.bo_mean") != NULL && strstr(text, "c000  ") != NULL);
        free(text);
        v = view_run_free(v);
        fixture_done(&f);
}

/* The summary leaves out what tells nothing new: a row equal value for
 * value to another of the same measure (the main phase's vmstat.write.*
 * beside vmstat.*), and a row that is 0 in every cell; --all keeps them. */
TEST(run_text_repeats) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_run *v = NULL;
        char *text = NULL;

        fixture_init(&f);
        ASSERT_EQ(sqlite3_exec(db_handle(f.db),
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'vmstat.bo_mean', "
                               "4000 + id, 'blocks/s' FROM cells WHERE workload = 'dd';"
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'vmstat.write.bo_mean', "
                               "4000 + id, 'blocks/s' FROM cells WHERE workload = 'dd';"
                               /* The same values under another measure: no repeat. */
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'vmstat.write.bi_mean', "
                               "4000 + id, 'blocks/s' FROM cells WHERE workload = 'dd';"
                               /* Equal on one kernel only: no repeat. */
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'vmstat.read.bo_mean', "
                               "CASE WHEN cell_key IN ('c000', 'c002', 'c004') THEN 4000 + id ELSE 1 END, 'blocks/s' FROM cells "
                               "WHERE workload = 'dd';"
                               "INSERT INTO metrics (cell_id, name, value, unit) SELECT id, 'vmstat.pgscan_per_s', 0, "
                               "'pages/s' FROM cells WHERE workload = 'dd';",
                               NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(view_run_load(f.db, f.run, &v, &err), 0);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 0 }, out));
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "\nvmstat.bo_mean ") != NULL);
        ASSERT_TRUE(strstr(text, "\nvmstat.write.bi_mean ") != NULL);
        ASSERT_TRUE(strstr(text, "\nvmstat.read.bo_mean ") != NULL);
        ASSERT_TRUE(strstr(text, "vmstat.write.bo_mean") == NULL);
        ASSERT_TRUE(strstr(text, "vmstat.pgscan_per_s") == NULL);
        ASSERT_TRUE(strstr(text, "\n2 rows left out (a repeat of another row, or 0 or no value in every cell): "
                                 "--all shows them\n") != NULL);
        free(text);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .all = 1 }, out));
        ASSERT_TRUE(strstr(text, "\nvmstat.write.bo_mean ") != NULL && strstr(text, "\nvmstat.pgscan_per_s ") != NULL);
        ASSERT_TRUE(strstr(text, "left out") == NULL);
        free(text);
        v = view_run_free(v);
        fixture_done(&f);
}

TEST(run_json) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_run *v = NULL;
        struct view_runs *runs = NULL;
        json_t *j, *cells, *c, *summary;
        size_t i, found = 0;

        fixture_init(&f);
        ASSERT_EQ(view_run_load(f.db, f.run, &v, &err), 0);
        j = roundtrip(json_view_run(v));
        v = view_run_free(v);
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "run"), "id")), f.run);
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(j, "run"), "tag")), "nightly");
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(json_object_get(j, "run"), "settings"),
                                                     "repeats")), 3);
        cells = json_object_get(j, "cells");
        ASSERT_EQ(json_array_size(cells), 10);
        c = json_array_get(cells, 6);
        ASSERT_STREQ(json_string_value(json_object_get(c, "state")), "workload-failure");
        ASSERT_STREQ(json_string_value(json_object_get(c, "key")), "c006");
        c = json_array_get(cells, 5);
        ASSERT_STREQ(json_string_value(json_object_get(c, "kernel")), "6.1.0-57-amd64");
        /* A metric stored without a value is null, with its note. */
        ASSERT_TRUE(json_is_null(json_object_get(json_object_get(json_object_get(c, "metrics"), "dd.write_MBps"),
                                                 "value")));
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(json_object_get(c, "metrics"),
                                                                       "dd.write_MBps"), "note")),
                     "dd printed no rate");
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(cells, 0), "boot_s")), 2.5, 1e-12);

        summary = json_object_get(j, "summary");
        ASSERT_EQ(json_array_size(summary), 5);
        json_array_foreach(summary, i, c) {
                if (strcmp(json_string_value(json_object_get(c, "kernel")), "6.1.0-47-amd64") == 0 &&
                    strcmp(json_string_value(json_object_get(c, "metric")), "dd.write_MBps") == 0) {
                        ASSERT_EQ(json_integer_value(json_object_get(c, "n")), 3);
                        ASSERT_NEAR(json_number_value(json_object_get(c, "mean")), 42, 1e-9);
                        ASSERT_NEAR(json_number_value(json_object_get(c, "stddev")), 2, 1e-9);
                        found++;
                }
                if (strcmp(json_string_value(json_object_get(c, "metric")), "tiobench.seq_write.t1.MBps") == 0) {
                        /* One sample: no stddev. */
                        ASSERT_TRUE(json_is_null(json_object_get(c, "stddev")));
                        found++;
                }
        }
        ASSERT_EQ(found, 2);
        json_decref(j);

        ASSERT_EQ(view_runs_load(f.db, &runs, &err), 0);
        j = roundtrip(json_view_runs(runs));
        runs = view_runs_free(runs);
        ASSERT_TRUE(json_array_size(j) == 2);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(j, 0), "cells_ok")), 8);
        ASSERT_EQ(json_integer_value(json_object_get(json_array_get(j, 0), "cells")), 9);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(j, 1), "finished_at")));
        json_decref(j);
        fixture_done(&f);
}

TEST(runs_text_and_resolve) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_runs *runs = NULL;
        char *text = NULL;
        int64_t id = 0;

        fixture_init(&f);
        ASSERT_EQ(view_runs_load(f.db, &runs, &err), 0);
        CAPTURE(text, textrun_runs(runs, out));
        runs = view_runs_free(runs);
        ASSERT_TRUE(strstr(text, "CELLS OK/TOTAL") != NULL);
        ASSERT_TRUE(strstr(text, "    1  nightly  ") != NULL);
        ASSERT_TRUE(strstr(text, "complete        2  8/9\n") != NULL);
        ASSERT_TRUE(strstr(text, "running         0  0/4\n") != NULL);
        free(text);

        ASSERT_EQ(view_resolve_run(f.db, "last", &id, &err), 0);
        ASSERT_EQ(id, f.empty_run);
        ASSERT_EQ(view_resolve_run(f.db, "1", &id, &err), 0);
        ASSERT_EQ(id, 1);
        ASSERT_EQ(view_resolve_run(f.db, "7", &id, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no run 7 in ") != NULL);
        ASSERT_EQ(view_resolve_run(f.db, "1x", &id, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "bad run '1x' (a run id or 'last')");
        ASSERT_EQ(view_resolve_run(f.db, "-3", &id, &err), -EINVAL);
        fixture_done(&f);
}

TEST(cell_views) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_cell *v = NULL;
        json_t *j;
        char *text = NULL;

        fixture_init(&f);
        ASSERT_EQ(view_cell_load(f.db, f.run, "c008", &v, &err), 0);
        CAPTURE(text, text_cell(v, out));
        v = view_cell_free(v);
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "cell c008  run 1  attempt 1") != NULL);
        ASSERT_TRUE(strstr(text, "tiobench.seq_write.t1.lat_avg_ms") != NULL);
        ASSERT_TRUE(strstr(text, "Sequential Writes") != NULL);
        ASSERT_TRUE(strstr(text, "vmstat: 3 rows") != NULL);
        ASSERT_TRUE(strstr(text, "(since boot)") != NULL);
        ASSERT_TRUE(strstr(text, "phase: 2 points, t 2.00..9.00 s") != NULL);
        ASSERT_TRUE(strstr(text, "console (") != NULL);
        free(text);

        /* A failed cell: no workload layout; a NULL vmstat column is n/a. */
        ASSERT_EQ(view_cell_load(f.db, f.run, "c006", &v, &err), 0);
        CAPTURE(text, text_cell(v, out));
        v = view_cell_free(v);
        ASSERT_TRUE(strstr(text, "Sequential Writes") == NULL);
        ASSERT_TRUE(strstr(text, "     n/a       2") != NULL);
        free(text);

        /* The stored NULL metric value of c005, in the cell view. */
        ASSERT_EQ(view_cell_load(f.db, f.run, "c005", &v, &err), 0);
        CAPTURE(text, text_cell(v, out));
        ASSERT_TRUE(strstr(text, "dd.write_MBps           n/a  MB/s  dd printed no rate") != NULL);
        free(text);
        j = roundtrip(json_view_cell(v));
        v = view_cell_free(v);
        ASSERT_TRUE(json_is_null(json_object_get(json_object_get(json_object_get(j, "metrics"), "dd.write_MBps"),
                                                 "value")));
        json_decref(j);

        ASSERT_EQ(view_cell_load(f.db, f.run, "c007", &v, &err), 0);
        j = roundtrip(json_view_cell(v));
        v = view_cell_free(v);
        ASSERT_EQ(json_integer_value(json_object_get(j, "attempt")), 2);
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(j, "params"), "bs")), "1M");
        ASSERT_EQ(json_array_size(json_object_get(j, "vmstat")), 3);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(json_object_get(j, "vmstat"), 2), "gu")));
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(json_object_get(j, "vmstat"), 2), "bo")),
                    2000, 0);
        ASSERT_EQ(json_is_true(json_object_get(json_array_get(json_object_get(j, "vmstat"), 0), "first")), 1);
        ASSERT_EQ(json_array_size(json_object_get(j, "timeline")), 2);
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "log_bytes"), "console")),
                  sizeof(console_log) - 1);
        json_decref(j);

        /* The raw log, NULs included. */
        {
                size_t len = 0;

                ASSERT_EQ(view_cell_log(f.db, f.run, "c006", "console", &text, &len, &err), 0);
                ASSERT_EQ(len, sizeof(console_log) - 1);
                ASSERT_TRUE(memcmp(text, console_log, len) == 0);
                free(text);
                ASSERT_EQ(view_cell_log(f.db, f.run, "c006", "script", &text, &len, &err), -ENOENT);
                ASSERT_STREQ(err.msg, "run 1 cell c006: cell has no script log");
        }
        ASSERT_EQ(view_cell_load(f.db, f.run, "nope", &v, &err), -ENOENT);
        ASSERT_TRUE(v == NULL);
        ASSERT_STREQ(err.msg, "no cell nope in run 1");
        fixture_done(&f);
}

/* `show --cell KEY --log vmstat`: the fixture's vmstat seconds (bo 1000 at
 * t 4, 2000 at t 5) beside host readings at t 3, 4, 5 that wrote 1 024 000
 * bytes in the first second and nothing in the second: the second ending at
 * 5 is the guest writing alone. */
TEST(cell_vmstat_beside_host) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_cell *v = NULL;
        json_t *j, *sec;
        char *text = NULL;

        fixture_init(&f);
        ASSERT_EQ(sqlite3_exec(db_handle(f.db),
                               "INSERT INTO host_block(cell_id, seq, t_host, rd_bytes, wr_bytes, rd_reqs, wr_reqs) "
                               "SELECT id, 0, 3.0, 0, 0, 0, 0 FROM cells WHERE cell_key = 'c008';"
                               "INSERT INTO host_block SELECT id, 1, 4.0, 4096, 1024000, 1, 250 FROM cells "
                               "WHERE cell_key = 'c008';"
                               "INSERT INTO host_block SELECT id, 2, 5.0, NULL, 1024000, NULL, 250 FROM cells "
                               "WHERE cell_key = 'c008'", NULL, NULL, NULL), SQLITE_OK);
        ASSERT_EQ(view_cell_load(f.db, f.run, "c008", &v, &err), 0);
        ASSERT_EQ(v->n_hostblk, 3);
        CAPTURE(text, text_cell_vmstat(v, out));
        fputs(text, stderr);
        ASSERT_TRUE(strstr(text, "2 vmstat seconds beside 3 host block readings") != NULL);
        ASSERT_TRUE(strstr(text, "    4.00       1000        1.02         1.02         0.00  \n") != NULL);
        ASSERT_TRUE(strstr(text, "    5.00       2000        2.05         0.00          n/a  guest writes, host idle\n") != NULL);
        ASSERT_TRUE(strstr(text, "wrote 1.0 MB (0.51 MB/s), read n/a MB") != NULL);
        ASSERT_TRUE(strstr(text, "2 seconds compared, 1 disagree (1 s)") != NULL);
        free(text);

        j = roundtrip(json_view_cell_vmstat(v));
        sec = json_object_get(j, "seconds");
        ASSERT_EQ(json_array_size(sec), 2);
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(sec, 0), "verdict")), "agree");
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(sec, 1), "verdict")), "guest-only");
        ASSERT_NEAR(json_number_value(json_object_get(json_array_get(sec, 1), "guest_bo_Bps")), 2048000, 1e-6);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(sec, 1), "host_rd_Bps")));
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "summary"), "disagree")), 1);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(json_object_get(j, "host_block"), 2), "rd_bytes")));
        json_decref(j);
        j = roundtrip(json_view_cell(v));
        ASSERT_EQ(json_array_size(json_object_get(j, "host_block")), 3);
        json_decref(j);
        v = view_cell_free(v);

        /* A cell without readings: the seconds are there, the host's unknown. */
        ASSERT_EQ(view_cell_load(f.db, f.run, "c007", &v, &err), 0);
        CAPTURE(text, text_cell_vmstat(v, out));
        v = view_cell_free(v);
        ASSERT_TRUE(strstr(text, "host: no figures") != NULL);
        free(text);
        fixture_done(&f);
}

/* Text a terminal can print without being driven: valid UTF-8 (a stray
 * 0x9b is CSI on an 8-bit terminal) with no C0 control but the newline, no
 * DEL and no C1 control. */
static int has_control(const char *text) {
        if (!g_utf8_validate(text, -1, NULL))
                return 1;
        for (const char *p = text; *p; p = g_utf8_next_char(p)) {
                gunichar c = g_utf8_get_char(p);

                if ((c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f))
                        return 1;
        }
        return 0;
}

/* Strings from a hand-edited or hostile database: escape sequences reach
 * no terminal, and invalid UTF-8 neither drops a field from the JSON nor
 * makes it unprintable. */
TEST(hostile_strings) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct view_runs *runs = NULL;
        struct view_run *v = NULL;
        struct view_cell *c = NULL;
        json_t *j, *cell;
        char *text = NULL;

        fixture_init(&f);
        ASSERT_EQ(sqlite3_exec(db_handle(f.db),
                               "UPDATE runs SET tag = 'a' || x'ff' || 'b', qemu_version = 'q' || x'c3' "
                               "WHERE tag = 'nightly';"
                               "UPDATE cells SET cell_key = 'k' || x'1b' || '[31m' || x'c29b' || '1m' "
                               "WHERE cell_key = 'c000';"
                               "UPDATE cells SET workload = 'dd' || x'9b' || '2J' WHERE cell_key = 'c002';"
                               "UPDATE metrics SET name = 'dd.' || x'fffe' WHERE name = 'dd.read_MBps' AND "
                               "cell_id = (SELECT id FROM cells WHERE cell_key = 'c004');",
                               NULL, NULL, NULL), SQLITE_OK);

        ASSERT_EQ(view_runs_load(f.db, &runs, &err), 0);
        j = roundtrip(json_view_runs(runs));
        runs = view_runs_free(runs);
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(j, 0), "tag")), "a\xef\xbf\xbd" "b");
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(j, 0), "qemu_version")), "q\xef\xbf\xbd");
        json_decref(j);

        ASSERT_EQ(view_run_load(f.db, f.run, &v, &err), 0);
        CAPTURE(text, textrun_run(v, &(struct textrun_opts){ .width = 0 }, out));
        ASSERT_TRUE(!has_control(text));
        free(text);
        j = roundtrip(json_view_run(v));
        v = view_run_free(v);
        cell = json_array_get(json_object_get(j, "cells"), 4);
        ASSERT_STREQ(json_string_value(json_object_get(cell, "key")), "c004");
        ASSERT_EQ(json_object_size(json_object_get(cell, "metrics")), 2);
        ASSERT_TRUE(json_object_get(json_object_get(cell, "metrics"), "dd.\xef\xbf\xbd\xef\xbf\xbd") != NULL);
        json_decref(j);

        ASSERT_EQ(view_cell_load(f.db, f.run, "k\x1b[31m\xc2\x9b" "1m", &c, &err), 0);
        CAPTURE(text, text_cell(c, out));
        c = view_cell_free(c);
        ASSERT_TRUE(!has_control(text));
        free(text);
        ASSERT_EQ(view_cell_load(f.db, f.run, "c002", &c, &err), 0);
        CAPTURE(text, text_cell(c, out));
        c = view_cell_free(c);
        ASSERT_TRUE(!has_control(text));
        free(text);
        fixture_done(&f);
}

/* kbench show --log: the bytes as stored into a pipe; on a terminal the
 * newlines and tabs of the log, and '?' for every control character and
 * invalid byte, so a hostile console cannot drive the terminal. */
TEST(log_for_a_terminal) {
        static const char log[] = "ok\tline\n\x1b[31mred\x07\0nul\xc2\x9b" "2J\xff\xce\xbb\n";
        char *text = NULL;

        CAPTURE(text, ASSERT_EQ(text_log(log, sizeof(log) - 1, 0, out), 0));
        ASSERT_TRUE(memcmp(text, log, sizeof(log) - 1) == 0);
        free(text);
        CAPTURE(text, ASSERT_EQ(text_log(log, sizeof(log) - 1, 1, out), 0));
        /* an invalid byte is shown by its value, as every terminal line shows it */
        ASSERT_STREQ(text, "ok\tline\n?[31mred??nul?2J\\xff\xce\xbb\n");
        free(text);
}

TEST(contended_rule) {
        struct query_metric quiet[] = { { "dd.write_MBps", 90, 1, "MB/s", NULL },
                                        { "host.foreign_cpu_pct", 7.3, 1, "%", NULL } };
        struct query_metric busy[] = { { "host.foreign_cpu_pct", 61.2, 1, "%", NULL } };
        struct query_metric remote[] = { { "host.foreign_cpu_pct", 0, 0, "%", "remote host: unknown" } };
        struct query_run plain = { .settings_json = "{\"max_contention_pct\":0}" };
        struct query_run strict = { .settings_json = "{\"max_contention_pct\":5}" };
        struct query_run old = { .settings_json = "{}" };

        /* 10 % unless the run asked for another limit. */
        ASSERT_EQ(view_contended(&plain, quiet, 2), 0);
        ASSERT_EQ(view_contended(&plain, busy, 1), 1);
        ASSERT_EQ(view_contended(&old, busy, 1), 1);
        ASSERT_EQ(view_contended(&strict, quiet, 2), 1);
        ASSERT_EQ(view_contended(NULL, quiet, 2), 0);
        /* Unknown, never guessed. */
        ASSERT_EQ(view_contended(&plain, remote, 1), -1);
        ASSERT_EQ(view_contended(&plain, quiet, 1), -1);
}

TEST(cell_start_from_its_metric) {
        struct query_metric m[] = {
                { .name = (char *)"dd.write_MBps", .value = 1, .has_value = 1 },
                { .name = (char *)"boot_warm", .value = 1, .has_value = 1 },
        };

        ASSERT_STREQ(view_cell_start(m, 2), "warm");
        m[1].value = 0;
        ASSERT_STREQ(view_cell_start(m, 2), "cold");
        /* Cells stored before the metric existed say nothing. */
        ASSERT_TRUE(view_cell_start(m, 1) == NULL);
        m[1].has_value = 0;
        ASSERT_TRUE(view_cell_start(m, 2) == NULL);
}
