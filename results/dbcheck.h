/* results/dbcheck: what a crafted or damaged results database can hold
 * that SQLite's own checks pass and kbench's readers would misread: a NULL
 * where a reader takes a value (a file may declare its tables without
 * NOT NULL), a number that is not one (text or infinity in a REAL column),
 * a value out of its range (a negative iteration, an unknown cell state),
 * and orphan rows (a cell whose kernel has no row is left out of show,
 * compare and the site, while the counts still hold it). The columns'
 * types, NOT NULL and references are read from the schema of the file's
 * version as the migration steps make it (db_schema_reference), so a new
 * column is checked without a second list; only the ranges are written
 * down here. For `kbench doctor`, which renders the findings. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/db.h"

enum dbcheck_kind {
        DBCHECK_NULL,              /* NULL in a column the schema declares NOT NULL */
        DBCHECK_NUMBER,            /* not a finite number in a REAL or INTEGER column */
        DBCHECK_RANGE,             /* a number or word outside what the column may hold */
        DBCHECK_ORPHAN,            /* a reference to a row that does not exist */
};

struct dbcheck_finding {
        enum dbcheck_kind kind;
        char *table;               /* owned */
        char *column;              /* owned */
        int64_t rows;              /* rows of table at fault, >= 1 */
        char *what;                /* one line: "cells.kernel_id: 2 row(s) name no kernels row" (owned) */
};

/* Check every row of every table of db's schema version (one scan of each
 * table). Returns 0 with the findings in table order, or -errno with err
 * (the file could not be read). OUT: *ret (dbcheck_findings_free; NULL
 * when there is none), *ret_n. */
int dbcheck_rows(struct db *db, struct dbcheck_finding **ret, size_t *ret_n, struct kb_error *err);

/* Free what dbcheck_rows made; accepts NULL. Returns NULL. */
struct dbcheck_finding *dbcheck_findings_free(struct dbcheck_finding *v, size_t n);
