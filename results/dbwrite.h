/* results/dbwrite: what a run writes into the database: kernels, the run
 * and its hosts, each finished cell with everything it measured in one
 * transaction, and what --resume asks of them. Its public functions are
 * db.h's (db_run_create, db_cell_insert, ...), whose names every writer
 * uses; this header holds what the schema's migration needs of it. */
#pragma once

#include "common/error.h"
#include "results/db.h"

/* Migration step 5's fill: the marks of every stored cell, from its data
 * log (db_marks_from_log). Runs inside the step's transaction. */
int dbwrite_fill_marks(struct db *db, struct kb_error *err);
