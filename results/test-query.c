/* test-query.c: the read side of the result store (results/query.c), on
 * the fixture database (results/test-fixture.h): two kernels, dd repeats, a
 * failed cell whose partial metric must stay out of the statistics, a
 * retried cell, and a tiobench cell. The views built on these queries are tested in
 * report/test-view.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "results/db.h"
#include "results/query.h"
#include "results/test-fixture.h"

TEST_MAIN();

TEST(runs_and_cells) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_run *runs = NULL, *one = NULL;
        struct query_cell *cells = NULL, *cell = NULL;
        size_t n = 0;
        int64_t last = 0;

        fixture_init(&f);
        ASSERT_EQ(query_runs(f.db, &runs, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_EQ(runs[0].id, f.run);
        ASSERT_STREQ(runs[0].tag, "nightly");
        ASSERT_STREQ(runs[0].status, "complete");
        ASSERT_TRUE(isfinite(runs[0].finished_at));
        ASSERT_EQ(runs[0].n_kernels, 2);
        ASSERT_EQ(runs[0].n_cells, 9);      /* c000..c008, c007 counted once */
        ASSERT_EQ(runs[0].n_ok, 8);         /* all but c006 */
        ASSERT_TRUE(runs[1].tag == NULL);
        ASSERT_STREQ(runs[1].status, "running");
        ASSERT_TRUE(isnan(runs[1].finished_at));
        ASSERT_EQ(runs[1].n_cells, 0);
        query_runs_free(runs, n);

        ASSERT_EQ(query_last_run_id(f.db, &last, &err), 0);
        ASSERT_EQ(last, f.empty_run);
        ASSERT_EQ(query_run(f.db, 77, &one, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no run 77 in ") && strstr(err.msg, f.path));
        ASSERT_EQ(query_run(f.db, f.run, &one, &err), 0);
        ASSERT_STREQ(one->qemu_version, "7.2.19");
        query_runs_free(one, 1);

        ASSERT_EQ(query_cells(f.db, f.run, &cells, &n, &err), 0);
        ASSERT_EQ(n, 10);
        ASSERT_STREQ(cells[0].cell_key, "c000");
        ASSERT_STREQ(cells[0].kernel_name, "6.1.0-47-amd64");
        ASSERT_STREQ(cells[1].kernel_name, "6.1.0-57-amd64");
        ASSERT_STREQ(cells[6].state, "workload-failure");
        ASSERT_EQ(cells[6].exit_code, 1);
        ASSERT_NEAR(cells[0].boot_s, 2.5, 1e-12);
        ASSERT_STREQ(cells[0].accel, "tcg");
        query_cells_free(cells, n);

        ASSERT_EQ(query_cell(f.db, f.run, "c007", &cell, &err), 0);
        ASSERT_EQ(cell->attempt, 2);
        ASSERT_STREQ(cell->state, "ok");
        query_cells_free(cell, 1);
        ASSERT_EQ(query_cell(f.db, f.run, "c999", &cell, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "no cell c999 in run") != NULL);
        ASSERT_EQ(query_cells(f.db, f.empty_run, &cells, &n, &err), 0);
        ASSERT_EQ(n, 0);
        query_cells_free(cells, n);
        fixture_done(&f);
}

TEST(cell_data) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_metric *m = NULL;
        struct db_vmstat_row *rows = NULL;
        struct query_point *pts = NULL;
        struct query_log_info *logs = NULL;
        char *text = NULL;
        size_t n = 0, len = 0;

        fixture_init(&f);
        ASSERT_EQ(query_cell_metrics(f.db, f.failed_cell_id, &m, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(m[0].name, "dd.write_MBps");
        ASSERT_NEAR(m[0].value, 1000, 0);
        query_metrics_free(m, n);

        ASSERT_EQ(query_cell_vmstat(f.db, f.failed_cell_id, &rows, &n, &err), 0);
        ASSERT_EQ(n, 3);
        ASSERT_EQ(rows[0].seq, 3);
        ASSERT_EQ(rows[0].first, 1);
        ASSERT_EQ(rows[2].first, 0);
        ASSERT_NEAR(rows[2].v[DB_VM_bo], 2000, 0);
        ASSERT_NEAR(rows[2].v[DB_VM_in], 2, 0);
        ASSERT_TRUE(isnan(rows[2].v[DB_VM_gu]));
        ASSERT_NEAR(rows[1].t_guest, 2.5, 1e-12);
        free(rows);

        ASSERT_EQ(query_cell_points(f.db, f.failed_cell_id, &pts, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(pts[1].kind, "phase");
        ASSERT_NEAR(pts[1].t, 9.0, 0);
        query_points_free(pts, n);

        ASSERT_EQ(query_cell_logs(f.db, f.failed_cell_id, &logs, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(logs[0].stream, "console");
        ASSERT_EQ(logs[0].bytes, sizeof(console_log) - 1);
        query_log_infos_free(logs, n);

        ASSERT_EQ(query_cell_log(f.db, f.failed_cell_id, "console", &text, &len, &err), 0);
        ASSERT_EQ(len, sizeof(console_log) - 1);
        ASSERT_TRUE(memcmp(text, console_log, len) == 0);
        free(text);
        ASSERT_EQ(query_cell_log(f.db, f.failed_cell_id, "script", &text, &len, &err), -ENOENT);
        fixture_done(&f);
}

TEST(samples_use_ok_cells_only) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_series *s = NULL;
        size_t n = 0;

        fixture_init(&f);
        ASSERT_EQ(query_run_samples(f.db, f.run, &s, &n, &err), 0);
        /* Kernel A first (first cell), then B; workloads and metrics sorted. */
        ASSERT_EQ(n, 5);
        ASSERT_STREQ(s[0].kernel_name, "6.1.0-47-amd64");
        ASSERT_STREQ(s[0].metric, "dd.read_MBps");
        ASSERT_EQ(s[0].n, 3);
        ASSERT_STREQ(s[1].metric, "dd.write_MBps");
        ASSERT_EQ(s[1].n, 3);           /* 40 42 44; the failed cell's 1000 is out */
        ASSERT_NEAR(s[1].values[0] + s[1].values[1] + s[1].values[2], 126, 1e-9);
        ASSERT_STREQ(s[1].unit, "MB/s");
        ASSERT_STREQ(s[2].workload, "tiobench");
        ASSERT_STREQ(s[2].metric, "tiobench.seq_write.t1.MBps");
        ASSERT_STREQ(s[4].kernel_name, "6.1.0-57-amd64");
        ASSERT_STREQ(s[4].kernel_id, KID_B);
        ASSERT_STREQ(s[4].metric, "dd.write_MBps");
        ASSERT_EQ(s[4].n, 3);           /* 50 50 and the retried c007's 53 */
        ASSERT_EQ(s[4].n_missing, 1);
        query_series_free(s, n);
        fixture_done(&f);
}

/* A cell run again (its first ok attempt was contended, say) counts once,
 * by its latest attempt, as compare counts it. */
TEST(samples_use_the_latest_attempt) {
        struct kb_error err = { { 0 } };
        struct db_metric m[] = { { .name = "dd.write_MBps", .value = 100, .has_value = 1, .unit = "MB/s" } };
        struct fixture f;
        struct query_series *s = NULL;
        size_t n = 0;

        fixture_init(&f);
        insert(&f, "c000", KID_A, "dd", 0, 2, "ok", NULL, 1, m, NULL);
        ASSERT_EQ(query_run_samples(f.db, f.run, &s, &n, &err), 0);
        ASSERT_STREQ(s[1].kernel_name, "6.1.0-47-amd64");
        ASSERT_STREQ(s[1].metric, "dd.write_MBps");
        ASSERT_EQ(s[1].n, 3);           /* 42 44 and c000's second attempt, 100; not its first 40 */
        ASSERT_NEAR(s[1].values[0] + s[1].values[1] + s[1].values[2], 186, 1e-9);
        ASSERT_STREQ(s[0].metric, "dd.read_MBps");
        ASSERT_EQ(s[0].n, 2);           /* c000's second attempt has no read rate */
        query_series_free(s, n);
        fixture_done(&f);
}

TEST(selections_for_compare) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_kernel *k = NULL;
        struct query_selection *sel = NULL;
        int64_t *ids = NULL;
        size_t n = 0, metrics = 0;

        fixture_init(&f);
        ASSERT_EQ(query_kernel_by_name(f.db, "6.1.0-57-amd64", &k, &err), 0);
        ASSERT_STREQ(k->id, KID_B);
        query_kernels_free(k, 1);
        ASSERT_EQ(query_kernel_by_name(f.db, "7.0", &k, &err), -ENOENT);
        ASSERT_TRUE(strncmp(err.msg, "no kernel '7.0' in ", 19) == 0);
        ASSERT_TRUE(strstr(err.msg, "did you mean") == NULL);
        /* A typo gets the nearest names. */
        ASSERT_EQ(query_kernel_by_name(f.db, "6.1.0-57-amd46", &k, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, " (did you mean 6.1.0-57-amd64 or 6.1.0-47-amd64?)") != NULL);

        ASSERT_EQ(query_run_kernels(f.db, f.run, &k, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(k[0].name, "6.1.0-47-amd64");      /* first cell first */
        ASSERT_STREQ(k[1].id, KID_B);
        query_kernels_free(k, n);
        ASSERT_EQ(query_run_kernels(f.db, f.empty_run, &k, &n, &err), 0);
        ASSERT_EQ(n, 0);
        query_kernels_free(k, n);

        ASSERT_EQ(query_kernel_runs(f.db, KID_A, &ids, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_EQ(ids[0], f.run);
        free(ids);
        ASSERT_EQ(query_tag_runs(f.db, "nightly", &ids, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_EQ(ids[0], f.run);
        free(ids);
        ASSERT_EQ(query_tag_runs(f.db, "none", &ids, &n, &err), 0);
        ASSERT_EQ(n, 0);
        free(ids);

        /* Kernel B: c001 c003 c005, and c007 by its latest (ok) attempt only. */
        ASSERT_EQ(query_selection(f.db, f.run, KID_B, NULL, &sel, &err), 0);
        ASSERT_STREQ(sel->tag, "nightly");
        ASSERT_STREQ(sel->kernel_name, "6.1.0-57-amd64");
        ASSERT_TRUE(strstr(sel->settings_json, "\"repeats\":3") != NULL);
        ASSERT_EQ(sel->n_cells, 4);
        ASSERT_STREQ(sel->cells[3].cell_key, "c007");
        ASSERT_STREQ(sel->cells[3].state, "ok");
        ASSERT_EQ(sel->cells[3].n_metrics, 1);
        ASSERT_NEAR(sel->cells[3].metrics[0].value, 53, 0);
        ASSERT_STREQ(sel->cells[3].params_json, "{\"size\":\"512M\",\"bs\":\"1M\",\"mem\":256}");
        /* c005's rate is stored without a value. */
        ASSERT_EQ(sel->cells[2].metrics[0].has_value, 0);
        ASSERT_TRUE(isnan(sel->cells[2].metrics[0].value));
        sel = query_selection_free(sel);

        /* Kernel A: the failed c006 is listed, its metric not read. */
        ASSERT_EQ(query_selection(f.db, f.run, KID_A, NULL, &sel, &err), 0);
        ASSERT_EQ(sel->n_cells, 5);
        for (size_t i = 0; i < sel->n_cells; i++) {
                metrics += sel->cells[i].n_metrics;
                if (strcmp(sel->cells[i].cell_key, "c006") == 0) {
                        ASSERT_STREQ(sel->cells[i].state, "workload-failure");
                        ASSERT_EQ(sel->cells[i].n_metrics, 0);
                }
        }
        ASSERT_EQ(metrics, 3 * 2 + 2);
        sel = query_selection_free(sel);
        ASSERT_EQ(query_selection(f.db, f.run, KID_A, "tiobench", &sel, &err), 0);
        ASSERT_EQ(sel->n_cells, 1);
        ASSERT_STREQ(sel->cells[0].cell_key, "c008");
        ASSERT_NEAR(sel->cells[0].boot_s, 2.5, 1e-12);
        sel = query_selection_free(sel);
        ASSERT_EQ(query_selection(f.db, 77, KID_A, NULL, &sel, &err), -ENOENT);
        ASSERT_TRUE(strncmp(err.msg, "no run 77 in ", 13) == 0);
        ASSERT_TRUE(sel == NULL);
        fixture_done(&f);
}

/* Copy table into one of the same name without its constraints (CREATE
 * TABLE AS keeps none), as a hand-rewritten schema leaves it, so a NULL can
 * be stored where schema.sql says NOT NULL. */
static void drop_constraints(struct fixture *f, const char *table) {
        char sql[512];

        snprintf(sql, sizeof(sql),
                 "PRAGMA foreign_keys = OFF; CREATE TABLE loose AS SELECT * FROM %s; DROP TABLE %s; "
                 "ALTER TABLE loose RENAME TO %s;", table, table, table);
        ASSERT_EQ(sqlite3_exec(db_handle(f->db), sql, NULL, NULL, NULL), SQLITE_OK);
}

/* A NULL where the schema says NOT NULL, or a needed number that is not
 * one, is the error naming the table's column and the row, from every
 * selection that reads it: never a NULL string handed to a view. */
TEST(needed_values_that_are_not) {
        static const struct {
                const char *table, *edit, *says;
        } cases[] = {
                { "cells", "UPDATE cells SET workload = NULL WHERE cell_key = 'c000'", "cells.workload is NULL in cell " },
                { "cells", "UPDATE cells SET state = NULL WHERE cell_key = 'c000'", "cells.state is NULL in cell " },
                { "cells", "UPDATE cells SET cell_key = NULL WHERE cell_key = 'c000'", "cells.cell_key is NULL in cell " },
                { "kernels", "UPDATE kernels SET name = NULL", "kernels.name is NULL in cell " },
                { "metrics", "UPDATE metrics SET name = NULL WHERE name = 'dd.write_MBps'", "metrics.name is NULL in a metric of cell " },
                { "timeline", "UPDATE timeline SET kind = NULL", "timeline.kind is NULL in a timeline point of cell " },
                { "runs", "UPDATE runs SET started_at = 9e999", "runs.started_at is not a finite number in run " },
                { "runs", "UPDATE runs SET status = NULL", "runs.status is NULL in run " },
                /* finite, but wider than the int it is read into; a text is no integer */
                { "cells", "UPDATE cells SET attempt = 99999999999999", "cells.attempt is out of range in cell " },
                { "cells", "UPDATE cells SET attempt = 'x'", "cells.attempt is not an integer in cell " },
        };

        for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
                struct kb_error err = { { 0 } };
                struct fixture f;
                struct query_run *runs = NULL;
                struct query_cell *cells = NULL;
                struct query_metric *m = NULL;
                struct query_point *p = NULL;
                struct query_series *s = NULL;
                size_t n = 0;
                int r, bad = 0;

                fixture_init(&f);
                drop_constraints(&f, cases[k].table);
                ASSERT_EQ(sqlite3_exec(db_handle(f.db), cases[k].edit, NULL, NULL, NULL), SQLITE_OK);
                r = query_runs(f.db, &runs, &n, &err);
                query_runs_free(runs, r < 0 ? 0 : n);
                bad += r == -EBADMSG && strstr(err.msg, cases[k].says);
                r = query_cells(f.db, f.run, &cells, &n, &err);
                bad += r == -EBADMSG && strstr(err.msg, cases[k].says);
                if (r >= 0) {
                        for (size_t i = 0; i < n && r >= 0; i++) {
                                size_t nm = 0, np = 0;

                                r = query_cell_metrics(f.db, cells[i].id, &m, &nm, &err);
                                if (r >= 0)
                                        query_metrics_free(m, nm);
                                else
                                        break;
                                r = query_cell_points(f.db, cells[i].id, &p, &np, &err);
                                if (r >= 0)
                                        query_points_free(p, np);
                        }
                        bad += r == -EBADMSG && strstr(err.msg, cases[k].says);
                        query_cells_free(cells, n);
                }
                r = query_run_samples(f.db, f.run, &s, &n, &err);
                if (r >= 0)
                        query_series_free(s, n);
                if (!bad)
                        TEST_FAIL("%s: no selection said \"%s\" (last: %d %s)", cases[k].edit, cases[k].says, r,
                                  err.msg);
                fixture_done(&f);
        }
        {
                /* run --resume's reader of the keys already done */
                struct kb_error err = { { 0 } };
                struct fixture f;
                char **keys = NULL;

                fixture_init(&f);
                drop_constraints(&f, "cells");
                ASSERT_EQ(sqlite3_exec(db_handle(f.db), "UPDATE cells SET cell_key = NULL WHERE cell_key = 'c000'",
                                       NULL, NULL, NULL), SQLITE_OK);
                ASSERT_EQ(db_run_done_keys(f.db, f.run, &keys, &err), -EBADMSG);
                ASSERT_TRUE(strstr(err.msg, "cells.cell_key is NULL in an ok cell of run ") != NULL);
                fixture_done(&f);
        }
}

/* A database edited by hand (or by a broken writer) can hold text, a blob
 * or an infinity where a number belongs. SQLite would read 'abc' as 0 and
 * '12abc' as 12: the read side must see "no value", never a wrong number. */
TEST(numbers_that_are_not) {
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_metric *m = NULL;
        struct query_series *s = NULL;
        struct query_selection *sel = NULL;
        struct query_cell *cell = NULL;
        size_t n = 0;

        fixture_init(&f);
        ASSERT_EQ(sqlite3_exec(db_handle(f.db),
                               "UPDATE metrics SET value = '12abc' WHERE name = 'dd.write_MBps' AND cell_id = "
                               "(SELECT id FROM cells WHERE cell_key = 'c000');"
                               "UPDATE metrics SET value = x'00ff' WHERE name = 'dd.write_MBps' AND cell_id = "
                               "(SELECT id FROM cells WHERE cell_key = 'c002');"
                               "UPDATE metrics SET value = 9e999 WHERE name = 'dd.read_MBps' AND cell_id = "
                               "(SELECT id FROM cells WHERE cell_key = 'c004');"
                               "UPDATE cells SET boot_s = 'slow' WHERE cell_key = 'c000';",
                               NULL, NULL, NULL), SQLITE_OK);

        ASSERT_EQ(query_cell(f.db, f.run, "c000", &cell, &err), 0);
        ASSERT_TRUE(isnan(cell->boot_s));
        ASSERT_EQ(query_cell_metrics(f.db, cell->id, &m, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(m[1].name, "dd.write_MBps");
        ASSERT_EQ(m[1].has_value, 0);
        ASSERT_TRUE(isnan(m[1].value));
        query_metrics_free(m, n);
        query_cells_free(cell, 1);

        /* Kernel A's dd.write_MBps: only c004's 44 is a number. */
        ASSERT_EQ(query_run_samples(f.db, f.run, &s, &n, &err), 0);
        ASSERT_STREQ(s[0].metric, "dd.read_MBps");
        ASSERT_EQ(s[0].n, 2);
        ASSERT_EQ(s[0].n_missing, 1);
        ASSERT_STREQ(s[1].metric, "dd.write_MBps");
        ASSERT_EQ(s[1].n, 1);
        ASSERT_EQ(s[1].n_missing, 2);
        ASSERT_NEAR(s[1].values[0], 44, 0);
        query_series_free(s, n);

        ASSERT_EQ(query_selection(f.db, f.run, KID_A, "dd", &sel, &err), 0);
        ASSERT_STREQ(sel->cells[0].cell_key, "c000");
        ASSERT_TRUE(isnan(sel->cells[0].boot_s));
        ASSERT_STREQ(sel->cells[0].metrics[1].name, "dd.write_MBps");
        ASSERT_EQ(sel->cells[0].metrics[1].has_value, 0);
        ASSERT_EQ(sel->cells[1].metrics[1].has_value, 0);
        ASSERT_EQ(sel->cells[2].metrics[0].has_value, 0);
        ASSERT_EQ(sel->cells[2].metrics[1].has_value, 1);
        sel = query_selection_free(sel);
        fixture_done(&f);
}

/* A run's variant label (settings "variant") names its kernels wherever
 * cells are read; the kernels table keeps one name per image, and
 * settings that are not JSON, or a label that is not text, label nothing. */
TEST(variant_label_names_the_kernel) {
        static const char *const settings[] = { "{\"variant\":\"dirty7-\"}", "{oops", "{\"variant\":5}" };
        static const char *const want[] = { "dirty7-6.1.0-57-amd64", "6.1.0-57-amd64", "6.1.0-57-amd64" };
        struct kb_error err = { { 0 } };
        struct fixture f;
        struct query_kernel *k = NULL;
        int64_t runs[3], *ids = NULL;
        size_t n = 0;

        fixture_init(&f);
        for (size_t i = 0; i < 3; i++) {
                struct db_run r = { .settings_json = settings[i], .host = "h", .started_at = 1700000000 };
                struct db_cell c = { .cell_key = "c000", .kernel_id = KID_B, .workload = "dd",
                                     .params_json = "{}", .attempt = 1, .state = "ok", .accel = "tcg",
                                     .started_at = 1700000001, .boot_s = 2, .workload_s = 5, .total_s = 8 };
                struct query_cell *cells = NULL;
                struct query_selection *sel = NULL;

                ASSERT_EQ(db_run_create(f.db, &r, &err), 0);
                c.run_id = r.id;
                ASSERT_EQ(db_cell_insert(f.db, &c, NULL, &err), 0);
                ASSERT_EQ(query_cells(f.db, r.id, &cells, &n, &err), 0);
                ASSERT_EQ(n, 1);
                ASSERT_STREQ(cells[0].kernel_name, want[i]);
                query_cells_free(cells, n);
                ASSERT_EQ(query_selection(f.db, r.id, KID_B, NULL, &sel, &err), 0);
                ASSERT_STREQ(sel->kernel_name, want[i]);
                sel = query_selection_free(sel);
                /* A run's kernels by their stored names, and as shown. */
                ASSERT_EQ(query_run_kernels(f.db, r.id, &k, &n, &err), 0);
                ASSERT_STREQ(k[0].name, "6.1.0-57-amd64");
                query_kernels_free(k, n);
                ASSERT_EQ(query_run_shown_kernels(f.db, r.id, &k, &n, &err), 0);
                ASSERT_EQ(n, 1);
                ASSERT_STREQ(k[0].id, KID_B);
                ASSERT_STREQ(k[0].name, want[i]);
                query_kernels_free(k, n);
                runs[i] = r.id;
        }
        /* By the name shown: the labelled run alone, and the plain name
         * in the runs without a label (the fixture's and the two whose
         * label is not one). */
        ASSERT_EQ(query_kernels_shown_as(f.db, "dirty7-6.1.0-57-amd64", &k, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(k[0].id, KID_B);
        ASSERT_STREQ(k[0].name, "dirty7-6.1.0-57-amd64");
        query_kernels_free(k, n);
        ASSERT_EQ(query_shown_kernel_runs(f.db, KID_B, "dirty7-6.1.0-57-amd64", &ids, &n, &err), 0);
        ASSERT_EQ(n, 1);
        ASSERT_EQ(ids[0], runs[0]);
        free(ids);
        ASSERT_EQ(query_shown_kernel_runs(f.db, KID_B, "6.1.0-57-amd64", &ids, &n, &err), 0);
        ASSERT_EQ(n, 3);
        ASSERT_EQ(ids[0], f.run);
        ASSERT_EQ(ids[1], runs[1]);
        ASSERT_EQ(ids[2], runs[2]);
        free(ids);
        ASSERT_EQ(query_kernels_shown_as(f.db, "dirty8-6.1.0-57-amd64", &k, &n, &err), 0);
        ASSERT_EQ(n, 0);
        free(k);
        fixture_done(&f);
}
