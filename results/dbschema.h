/* results/dbschema: the versions of the database's schema. Version 1 is
 * schema.sql; each later version is one migration step (SQL, and where a
 * new table can be filled from what older versions stored, a fill). The
 * same steps, applied to an empty database in memory, are the reference a
 * file is checked against on every open (every table, every column), and
 * what results/dbcheck.c reads the columns' types from. For db.c, which
 * opens the file; nothing else migrates. */
#pragma once

#include <sqlite3.h>

#include "common/error.h"
#include "results/db.h"

/* The file's PRAGMA user_version. OUT: *ret. */
int dbschema_version(struct db *db, int *ret, struct kb_error *err);

/* The file, at version v (1..DB_SCHEMA_VERSION), has every table of v, each
 * with every column the migration steps give it; else -EBADMSG naming the
 * first table or column missing. */
int dbschema_check(struct db *db, int v, struct kb_error *err);

/* Bring the file from version v to DB_SCHEMA_VERSION, each step in its own
 * transaction, so a crash mid-migration leaves the previous version. */
int dbschema_migrate(struct db *db, int v, struct kb_error *err);

/* The schema of version v, built in an empty database in memory.
 * OUT: *ret (sqlite3_close). */
int dbschema_reference(struct db *db, int v, sqlite3 **ret, struct kb_error *err);
