/* results/test-fixture: a results database for the read-side tests
 * (results/test-query.c, report/test-view.c), filled in a fresh temporary
 * directory: two kernels (KID_A 6.1.0-47, KID_B 6.1.0-57) in run "nightly",
 * dd repeats interleaved A B A B A B (c000..c005; B's third write rate
 * stored without a value), a failed cell c006 with a partial metric that
 * must stay out of statistics, a cell c007 retried after an infra error, a
 * tiobench cell c008, and an empty run interrupted before its first cell
 * (it plans 4 cells). Every cell carries three vmstat rows (the last with
 * gu NAN), two phase points and two logs (console: console_log, NUL
 * included). A failing step fails the test. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "results/db.h"

#define KID_A "1111111111111111111111111111111111111111111111111111111111111111"
#define KID_B "2222222222222222222222222222222222222222222222222222222222222222"

struct fixture {
        char dir[64], path[128];        /* the temporary directory and its results.db */
        struct db *db;
        int64_t run, empty_run;
        int64_t failed_cell_id;         /* c006 */
};

/* The console log every cell stores, with its NUL and control byte. */
static const char console_log[] = "[    0.000000] Linux version 6.1.0-47-amd64\0\x01 after NUL\n";

/* Store one cell of f->run with the fixture's vmstat rows, points and logs,
 * and nm metrics m. OUT: ret_id (may be NULL). */
void insert(struct fixture *f, const char *key, const char *kid, const char *workload, int it,
            int attempt, const char *state, const char *detail, size_t nm,
            const struct db_metric *m, int64_t *ret_id);

/* Create the directory and fill the database. */
void fixture_init(struct fixture *f);
/* Close the database and remove its files and the directory. */
void fixture_done(struct fixture *f);
