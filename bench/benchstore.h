/* bench/benchstore.h: the synthetic store the benchmarks of the read side
 * time (bench-compare, bench-names): runs of dd cells written directly
 * with SQL in one transaction, so a store of 10 000 cells takes seconds to
 * make. Written once so that both fill cells the same way; each says only
 * how many cells and which metrics. */
#pragma once

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* What a benchmark names its store's metrics: metric k's name and unit,
 * and the value its values scatter above. */
typedef double (*benchstore_metric_fn)(int k, char *name, size_t size, const char **unit);

struct benchstore {
        sqlite3 *h;
        const char *who;        /* the benchmark's name, for its error lines */
        sqlite3_stmt *cell, *metric;
        int64_t cell_id;        /* the last cell's id */
        unsigned x;             /* the scatter's linear congruential state */
};

static inline int benchstore_exec(sqlite3 *h, const char *who, const char *sql) {
        char *msg = NULL;

        if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) {
                fprintf(stderr, "%s: %s: %s\n", who, sql, msg ? msg : "?");
                sqlite3_free(msg);
                return -1;
        }
        return 0;
}

/* The two kernels kA and kB, and a transaction that benchstore_end ends. */
static inline int benchstore_begin(struct benchstore *b, sqlite3 *h, const char *who) {
        *b = (struct benchstore){ .h = h, .who = who, .x = 12345 };
        if (benchstore_exec(h, who, "INSERT INTO kernels (id, name, added_at) VALUES "
                                    "('aaaa', 'kA', 1), ('bbbb', 'kB', 1)") < 0 ||
            benchstore_exec(h, who, "BEGIN") < 0)
                return -1;
        if (sqlite3_prepare_v2(h, "INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, params_json, "
                                  "iteration, attempt, state, boot_s) VALUES (?1, ?2, ?3, ?4, 'dd', ?5, ?6, 1, "
                                  "'ok', 3.1)", -1, &b->cell, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(h, "INSERT INTO metrics (cell_id, name, value, unit) VALUES (?1, ?2, ?3, ?4)", -1,
                               &b->metric, NULL) != SQLITE_OK) {
                fprintf(stderr, "%s: filling the store: %s\n", who, sqlite3_errmsg(h));
                return -1;
        }
        return 0;
}

static inline int benchstore_metrics(struct benchstore *b, int nmetrics, benchstore_metric_fn metric) {
        for (int k = 0; k < nmetrics; k++) {
                char name[48];
                const char *unit;
                double base = metric(k, name, sizeof(name), &unit);

                b->x = b->x * 1103515245u + 12345u;
                sqlite3_bind_int64(b->metric, 1, b->cell_id);
                sqlite3_bind_text(b->metric, 2, name, -1, SQLITE_TRANSIENT);
                sqlite3_bind_double(b->metric, 3, base + (double)(b->x >> 16 & 1023) / 256);
                sqlite3_bind_text(b->metric, 4, unit, -1, SQLITE_STATIC);
                if (sqlite3_step(b->metric) != SQLITE_DONE)
                        return -1;
                sqlite3_reset(b->metric);
        }
        return 0;
}

/* ncells dd cells of run run_id, kA and kB in turn, each with nmetrics
 * metrics. */
static inline int benchstore_cells(struct benchstore *b, int run_id, int ncells, const char *params, int nmetrics,
                                   benchstore_metric_fn metric) {
        for (int c = 0; c < ncells; c++) {
                char key[16];

                snprintf(key, sizeof(key), "c%03d", c);
                sqlite3_bind_int64(b->cell, 1, ++b->cell_id);
                sqlite3_bind_int(b->cell, 2, run_id);
                sqlite3_bind_text(b->cell, 3, key, -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(b->cell, 4, c % 2 ? "bbbb" : "aaaa", -1, SQLITE_STATIC);
                sqlite3_bind_text(b->cell, 5, params, -1, SQLITE_STATIC);
                sqlite3_bind_int(b->cell, 6, c / 2);
                if (sqlite3_step(b->cell) != SQLITE_DONE)
                        goto fail;
                sqlite3_reset(b->cell);
                if (benchstore_metrics(b, nmetrics, metric) < 0)
                        goto fail;
        }
        return 0;
fail:
        fprintf(stderr, "%s: filling the store: %s\n", b->who, sqlite3_errmsg(b->h));
        return -1;
}

/* Commits what was filled (when r is 0) and frees the statements. */
static inline int benchstore_end(struct benchstore *b, int r) {
        if (r == 0)
                r = benchstore_exec(b->h, b->who, "COMMIT");
        sqlite3_finalize(b->cell);
        sqlite3_finalize(b->metric);
        return r;
}
