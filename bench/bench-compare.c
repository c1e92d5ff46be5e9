/* bench-compare.c: how fast `kbench compare` answers on a large store. It
 * builds a store of 10 000 cells x 40 metrics (500 runs, each 2 kernels x
 * 10 dd cells; per cell dd's 4 metrics, the 22 of the vmstat analysis, 14
 * more vmstat-like columns; written directly in one transaction so the
 * setup takes seconds), then times the comparison view plus its text
 * rendering for: two runs (run:499:K vs run:500:K), two kernels by name
 * (their latest run), and two kernels over every run (--all-runs: 5000
 * cells and 200 000 metric rows a side). Reported are medians of repeated
 * rounds; the first two must stay under 0.2 s (exit 1 otherwise), the
 * all-runs case is reported against the same mark, with the share of it
 * that is reading one side from SQLite. Last, the statistics of
 * one judged metric alone (10 + 10 values, with MDE and repeats for 2 % and
 * 5 %), which is what a comparison with many judged metrics (tiobench)
 * pays per metric. `meson test --benchmark`. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/benchstore.h"
#include "common/util.h"
#include "report/compare.h"
#include "report/text.h"
#include "report/textcompare.h"
#include "report/view.h"
#include "results/db.h"

#define BENCH_ROUNDS 9
#define BENCH_RUNS 500
#define BENCH_CELLS_PER_KERNEL 10
#define BENCH_METRICS 40
#define BENCH_LIMIT_S 0.2

/* 40 metric names: dd's four, the vmstat analysis' 22, 14 more columns. */
static double metric_name(int k, char *buf, size_t size, const char **unit) {
        static const char *const dd[] = { "dd.write_MBps", "dd.read_MBps", "dd.write_s", "dd.read_s" };
        static const char *const vm[] = { "vmstat.samples", "vmstat.stall_count", "vmstat.stall_longest_s",
                                          "vmstat.stall_total_s", "vmstat.stall_fraction", "vmstat.pause_count",
                                          "vmstat.pause_longest_s", "vmstat.pause_total_s" };
        static const char *const cols[] = { "bi", "bo", "si", "so", "us", "sy", "wa" };

        *unit = "";
        if (k < 4) {
                snprintf(buf, size, "%s", dd[k]);
                *unit = k < 2 ? "MB/s" : "s";
        } else if (k < 12)
                snprintf(buf, size, "%s", vm[k - 4]);
        else if (k < 26)
                snprintf(buf, size, "vmstat.%s_%s", cols[(k - 12) / 2], (k - 12) % 2 ? "cov" : "mean");
        else
                snprintf(buf, size, "vmstat.col%02d_mean", k - 26);
        return 100 + k;
}

static int fill(struct db *db) {
        sqlite3 *h = db_handle(db);
        sqlite3_stmt *run = NULL;
        const char *settings = "{\"workloads\":[\"dd:size=,bs=1M\"],\"repeats\":25,\"mem_mb\":256,\"cpus\":1,"
                               "\"disk_mbps\":0,\"fs\":\"ext4\",\"append\":null}";
        const char *params = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_mbps\":0,"
                             "\"fs\":\"ext4\",\"accel\":\"tcg\"}";
        struct benchstore b;
        int r = -1;

        if (benchstore_begin(&b, h, "bench-compare") < 0)
                return benchstore_end(&b, -1);
        if (sqlite3_prepare_v2(h, "INSERT INTO runs (id, tag, settings_json, started_at, status) "
                                  "VALUES (?1, ?2, ?3, 1700000000, 'complete')", -1, &run, NULL) != SQLITE_OK)
                goto out;
        for (int ri = 1; ri <= BENCH_RUNS; ri++) {
                char tag[16];

                snprintf(tag, sizeof(tag), "n%03d", ri);
                sqlite3_bind_int(run, 1, ri);
                sqlite3_bind_text(run, 2, tag, -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(run, 3, settings, -1, SQLITE_STATIC);
                if (sqlite3_step(run) != SQLITE_DONE)
                        goto out;
                sqlite3_reset(run);
                if (benchstore_cells(&b, ri, 2 * BENCH_CELLS_PER_KERNEL, params, BENCH_METRICS, metric_name) < 0)
                        goto out_quiet;
        }
        r = 0;
        goto out_quiet;
out:
        fprintf(stderr, "bench-compare: filling the store: %s\n", sqlite3_errmsg(h));
out_quiet:
        sqlite3_finalize(run);
        return benchstore_end(&b, r);
}

/* Median seconds of view + text rendering for one comparison. */
static double time_compare(struct db *db, const char *a, const char *b, int all_runs, size_t *ret_cells) {
        struct compare_options o = { .a = a, .b = b, .alpha = 0.05, .noise = 0.02, .all_runs = all_runs };
        double secs[BENCH_ROUNDS];
        FILE *null = fopen("/dev/null", "w");

        for (int i = 0; i < BENCH_ROUNDS; i++) {
                struct kb_error err = { { 0 } };
                struct compare_view *v = NULL;
                double t0 = bench_now();

                if (view_compare_load(db, &o, &v, &err) < 0) {
                        fprintf(stderr, "bench-compare: %s %s: %s\n", a, b, err.msg);
                        exit(1);
                }
                textcompare_print(v, &(struct textcompare_opts){ .width = TEXTCOMPARE_WIDTH }, null);
                secs[i] = bench_now() - t0;
                *ret_cells = v->n_groups ? v->groups[0].a.ok + v->groups[0].b.ok : 0;
                compare_view_free(v);
        }
        fclose(null);
        qsort(secs, BENCH_ROUNDS, sizeof(secs[0]), bench_cmp_double);
        return secs[BENCH_ROUNDS / 2];
}

static double time_metric(void) {
        double secs[BENCH_ROUNDS], a[10], b[10];

        for (int i = 0; i < 10; i++) {
                a[i] = 160 + (i * 7 % 10) * 0.4;
                b[i] = 158 + (i * 3 % 10) * 0.5;
        }
        for (int i = 0; i < BENCH_ROUNDS; i++) {
                struct compare_metric m = { .judged = 1, .a = a, .b = b, .na = 10, .nb = 10 };
                double t0 = bench_now();

                compare_metric_stats(&m, 0.05, 0.02);
                secs[i] = bench_now() - t0;
        }
        qsort(secs, BENCH_ROUNDS, sizeof(secs[0]), bench_cmp_double);
        return secs[BENCH_ROUNDS / 2];
}

int main(void) {
        struct kb_error err = { { 0 } };
        char dir[] = "/tmp/kbench-bench-compare-XXXXXX", path[128], p[160];
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        struct db *db = NULL;
        double t0, t_runs, t_latest, t_all;
        size_t c_runs, c_latest, c_all;
        int bad = 0;

        if (!mkdtemp(dir))
                return 1;
        snprintf(path, sizeof(path), "%s/results.db", dir);
        if (db_open(path, &db, &err) < 0) {
                fprintf(stderr, "bench-compare: %s\n", err.msg);
                return 1;
        }
        t0 = bench_now();
        if (fill(db) < 0)
                return 1;
        printf("store: %d runs, %d cells, %d metric rows, filled in %.1f s\n", BENCH_RUNS,
               BENCH_RUNS * 2 * BENCH_CELLS_PER_KERNEL, BENCH_RUNS * 2 * BENCH_CELLS_PER_KERNEL * BENCH_METRICS,
               bench_now() - t0);
        t_runs = time_compare(db, "run:499:kA", "run:500:kA", 0, &c_runs);
        t_latest = time_compare(db, "kA", "kB", 0, &c_latest);
        t_all = time_compare(db, "kA", "kB", 1, &c_all);
        printf("compare run:499:kA run:500:kA (%4zu cells): median %.4f s over %d rounds\n", c_runs, t_runs,
               BENCH_ROUNDS);
        printf("compare kA kB                 (%4zu cells): median %.4f s\n", c_latest, t_latest);
        printf("compare kA kB --all-runs      (%4zu cells): median %.4f s\n", c_all, t_all);
        {
                /* How much of the all-runs case is reading: one side's
                 * selections alone, SQL and copies. */
                double t1 = bench_now();
                size_t rows = 0;

                for (int ri = 1; ri <= BENCH_RUNS; ri++) {
                        struct query_selection *q = NULL;
                        if (query_selection(db, ri, "aaaa", NULL, &q, &err) < 0)
                                return 1;
                        for (size_t i = 0; i < q->n_cells; i++)
                                rows += q->cells[i].n_metrics;
                        query_selection_free(q);
                }
                printf("  of which reading one side (query_selection over %d runs): %.4f s, %zu metric rows\n",
                       BENCH_RUNS, bench_now() - t1, rows);
        }
        printf("statistics of one judged metric, 10+10 values: median %.4f s\n", time_metric());
        bad = t_runs > BENCH_LIMIT_S || t_latest > BENCH_LIMIT_S;
        printf("limit %.1f s: %s%s\n", BENCH_LIMIT_S, bad ? "EXCEEDED" : "ok",
               t_all > BENCH_LIMIT_S ? " (the all-runs case exceeds it)" : "");
        db_close(db);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
                unlink(p);
        }
        rmdir(dir);
        return bad;
}
