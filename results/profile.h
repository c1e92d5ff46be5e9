/* results/profile: the store's profiles of the kernel's instructions by
 * function (schema version 8, cell/cellprof.h): per cell and phase, the
 * instructions executed in each function that ran (table `profile`), and
 * per kernel the names its symbol table holds (`kernel_symbols`), so a
 * reader can say a function exists in one kernel only. Names are rows of
 * `symbols`. Written with the cell, in its transaction; read by compare's
 * explanation of a change (report/explain.h). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/db.h"

/* Store c's profile rows and, when the kernel's stored names are fewer
 * than c gives, its symbol names; for db_cell_insert, inside its
 * transaction. -EINVAL for a row without phase or symbol or with insns <=
 * 0, with err naming the cell. */
int db_profile_insert(struct db *db, const struct db_cell *c, int64_t cell_id, struct kb_error *err);

/* One function of one cell's phase, as read back. */
struct db_profile_entry {
        char *symbol;              /* owned */
        int64_t insns;             /* > 0 */
};

/* The profile of cell_id's phase: every function that ran. A row whose
 * symbol or count is missing or not positive is a damaged file: -EBADMSG
 * with err naming the cell. OUT: *ret (db_profile_entries_free), *ret_n,
 * 0 when the cell has no profile of that phase. */
int db_profile_read(struct db *db, int64_t cell_id, const char *phase, struct db_profile_entry **ret,
                    size_t *ret_n, struct kb_error *err);
void db_profile_entries_free(struct db_profile_entry *v, size_t n);

/* Whether kernel_id's stored symbol table names symbol. OUT: *ret: 1 it
 * does, 0 it does not, -1 the store has no names of that kernel. */
int db_profile_kernel_has(struct db *db, const char *kernel_id, const char *symbol, int *ret,
                          struct kb_error *err);
