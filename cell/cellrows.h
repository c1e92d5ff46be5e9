/* cell/cellrows: a finished cell as database rows. The cell (cell.c)
 * knows nothing of the database and the runner only orders cells; this is
 * where a cell_result becomes one struct db_cell (the vmstat records parsed
 * into rows and, for an ok cell, the vmstat metrics of the workload's
 * main phase and of each phase it keeps, and the host.disk_* figures of
 * the host's block statistics beside them), and where a cell whose commit failed (a full host disk) is kept
 * as a JSON file in the store until `kbench run --resume` stores it. */
#pragma once

#include <jansson.h>

#include "cell/cell.h"
#include "results/db.h"

/* A struct db_cell with the storage it points into. */
struct cellrows {
        struct db_cell cell;
        GArray *metrics;                   /* struct db_metric */
        GArray *vmstat;                    /* struct db_vmstat_row */
        GArray *points;                    /* struct db_point */
        GArray *hostblk;                   /* struct db_hostblk_row */
        GArray *marks;                     /* struct db_mark: the guest's events */
        GArray *profile;                   /* struct db_profile_row: an ok cell's profile */
        GPtrArray *kernel_symbols;         /* const char *: the names of the table it was resolved with,
                                              borrowed from the cell's result (none from a pending file) */
        struct db_mark *log_marks;         /* owned: the marks of a pending file from before marks
                                              were rows, read from its data log */
        size_t n_log_marks;
        struct db_log logs[4];
        char *log_bufs[4];                 /* decoded log texts of a cell read back */
        char *params_json;
        json_t *json;                      /* a cell read back from a pending file owns its strings here */
};

/* What the rows need beyond the result. */
struct cellrows_ctx {
        int64_t run_id;
        const char *cell_key;
        const char *kernel_id;
        const struct workload_spec *workload;
        int iteration;
        int attempt;
        const char *accel;
        const char *params_json;           /* the cell's resolved settings (copied) */
        double vmstat_interval_s;          /* the agent's sampling interval; 0: VMSTAT_INTERVAL */
};

/* Build the rows of res. For an ok cell the vmstat metrics are added to
 * res->metrics first (so res is modified). res must outlive ret. OUT: *ret
 * (clear with cellrows_clear). */
void cellrows_build(const struct cellrows_ctx *ctx, struct cell_result *res, struct cellrows *ret);
void cellrows_clear(struct cellrows *r);

/* The rows of c as a JSON object, and back. cellrows_from_json checks every
 * field (the file is data from disk) and returns -EINVAL with err naming
 * the field. OUT: *ret (clear with cellrows_clear; strings live in ret->json,
 * which takes a reference on j). */
json_t *cellrows_to_json(const struct db_cell *c);
int cellrows_from_json(json_t *j, struct cellrows *ret, struct kb_error *err);

/* Write c to dir/run<R>-<key>-<attempt>.json (dir created), atomically
 * (temp file + rename). OUT: *ret_path (g_free). Returns 0 or -errno. */
int cellrows_save_pending(const char *dir, const struct db_cell *c, char **ret_path, struct kb_error *err);

/* Store every pending file of run_id in dir and remove each one stored.
 * OUT: *ret_n, the number stored. Returns 0 or the first error (files not
 * yet stored stay). */
int cellrows_store_pending(struct db *db, const char *dir, int64_t run_id, int *ret_n, struct kb_error *err);
