/* fuzz-db.c: a results database is a file kbench may be handed (copied from
 * another machine for publish), so its bytes are untrusted. Write the input
 * to a temporary file, open it as a result store, and run every read-side
 * query over whatever runs and cells it claims to hold. Errors are expected;
 * crashes, leaks and hangs are not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "results/db.h"
#include "results/query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(struct db *db) {
        struct kb_error err;
        struct query_run *runs = NULL;
        size_t n_runs = 0;

        if (query_runs(db, &runs, &n_runs, &err) < 0)
                return;
        for (size_t i = 0; i < n_runs && i < 8; i++) {
                struct query_cell *cells = NULL;
                struct query_series *series = NULL;
                size_t n_cells = 0, n_series = 0;

                if (query_run_samples(db, runs[i].id, &series, &n_series, &err) >= 0)
                        query_series_free(series, n_series);
                if (query_cells(db, runs[i].id, &cells, &n_cells, &err) < 0)
                        continue;
                for (size_t k = 0; k < n_cells && k < 16; k++) {
                        struct query_metric *m = NULL;
                        struct db_vmstat_row *rows = NULL;
                        struct query_point *pts = NULL;
                        struct query_log_info *logs = NULL;
                        struct query_cell *one = NULL;
                        char *text = NULL;
                        size_t n = 0, len = 0;

                        if (query_cell_metrics(db, cells[k].id, &m, &n, &err) >= 0)
                                query_metrics_free(m, n);
                        if (query_cell_vmstat(db, cells[k].id, &rows, &n, &err) >= 0)
                                free(rows);
                        if (query_cell_points(db, cells[k].id, &pts, &n, &err) >= 0)
                                query_points_free(pts, n);
                        if (query_cell_logs(db, cells[k].id, &logs, &n, &err) >= 0)
                                query_log_infos_free(logs, n);
                        if (query_cell_log(db, cells[k].id, "console", &text, &len, &err) >= 0)
                                free(text);
                        if (cells[k].cell_key &&
                            query_cell(db, runs[i].id, cells[k].cell_key, &one, &err) >= 0)
                                query_cells_free(one, 1);
                }
                query_cells_free(cells, n_cells);
        }
        query_runs_free(runs, n_runs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char path[] = "/tmp/kbench-fuzz-db-XXXXXX", side[64];
        struct kb_error err;
        struct db *db = NULL;
        int64_t last;
        int fd;

        if (size > 1 << 20)
                return 0;
        fd = mkstemp(path);
        if (fd < 0)
                return 0;
        if (write(fd, data, size) == (ssize_t)size && db_open_existing(path, &db, &err) >= 0) {
                (void)query_last_run_id(db, &last, &err);
                walk(db);
                db_close(db);
        }
        close(fd);
        unlink(path);
        snprintf(side, sizeof(side), "%s-wal", path);
        unlink(side);
        snprintf(side, sizeof(side), "%s-shm", path);
        unlink(side);
        return 0;
}
