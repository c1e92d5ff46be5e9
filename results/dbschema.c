/* results/dbschema.c: the schema's versions and the migration steps
 * between them (see dbschema.h). A step's SQL is fixed text: a later change
 * of the schema is a later step, never an edit of an old one, so that every
 * file of a version has the same tables whichever kbench made it. */
#include <errno.h>
#include <stdio.h>

#include "common/util.h"
#include "results/dbschema.h"
#include "results/dbwrite.h"
#include "results/schema-sql.h"

const char *const db_vmstat_column_names[DB_VM_NCOLS] = {
#define X(name, width, group) #name,
        KB_VMSTAT_COLUMNS(X)
#undef X
};

/* Version 2: the host's view of the disk under test. libvirt's block
 * statistics of the guest's disk (virDomainBlockStats), read about once a
 * second over the workload window, on the same clock as vmstat.t_host so the
 * two can be put side by side. The counters are cumulative since the domain
 * started, as libvirt gives them; NULL where the hypervisor did not report
 * the field. A cell stored before version 2, or whose statistics could not be
 * read, has no rows (its host.disk_* metrics say why). */
static const char db_schema_v2[] =
        "CREATE TABLE host_block (\n"
        "        cell_id   INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,\n"
        "        seq       INTEGER NOT NULL,\n"
        "        t_host    REAL NOT NULL,\n"
        "        rd_bytes  INTEGER,\n"
        "        wr_bytes  INTEGER,\n"
        "        rd_reqs   INTEGER,\n"
        "        wr_reqs   INTEGER,\n"
        "        PRIMARY KEY (cell_id, seq)\n"
        ") WITHOUT ROWID;\n";

/* Version 3: the sampler's /proc/vmstat writeback and reclaim columns and
 * the disk under test's /proc/diskstats columns (common/vmstat-columns.h,
 * docs/schema.md). Rows stored before have NULL there: not measured. Fixed
 * text: a later column list is a later step. */
static const char db_schema_v3[] =
        "ALTER TABLE vmstat ADD COLUMN nr_dirty REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN nr_writeback REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN dirty_thresh REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN bg_thresh REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN pgscan REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN pgsteal REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN allocstall REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN rd REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN wr REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN rsect REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN wsect REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN inflight REAL;\n"
        "ALTER TABLE vmstat ADD COLUMN util REAL;\n";

/* A bisection (bisect/bisect.h) and its steps: one row per search, one per
 * candidate measured or skipped. The cells of a step are ordinary runs
 * (run_ids), so compare and the site read them like any other. */
static const char db_schema_v4[] =
        "CREATE TABLE bisections (\n"
        "        id              INTEGER PRIMARY KEY,\n"
        "        started_at      REAL NOT NULL,\n"
        "        finished_at     REAL,\n"
        "        status          TEXT NOT NULL,\n"          /* running, done, failed, interrupted */
        "        workload        TEXT NOT NULL,\n"
        "        metric          TEXT NOT NULL,\n"
        "        source          TEXT NOT NULL,\n"          /* kernels, or git:<dir> */
        "        good            TEXT NOT NULL,\n"
        "        bad             TEXT NOT NULL,\n"
        "        settings_json   TEXT NOT NULL,\n"          /* the cells' run options, the rule's parameters */
        "        outcome         TEXT,\n"                   /* first-bad, no-change, cannot-tell */
        "        first_bad       TEXT,\n"                   /* kernel name or full commit id */
        "        summary_json    TEXT\n"
        ");\n"
        "CREATE TABLE bisect_steps (\n"
        "        bisection_id    INTEGER NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,\n"
        "        step            INTEGER NOT NULL,\n"
        "        role            TEXT NOT NULL,\n"          /* ends, probe, confirm */
        "        candidate       TEXT NOT NULL,\n"          /* kernel name, or commit id */
        "        kernel_id       TEXT,\n"                   /* NULL: it did not build */
        "        run_ids         TEXT NOT NULL,\n"          /* JSON array of the step's runs */
        "        rounds          INTEGER NOT NULL,\n"
        "        vs_good         TEXT,\n"                   /* same, different, not yet (seqrule) */
        "        vs_bad          TEXT,\n"
        "        decision        TEXT NOT NULL,\n"          /* good, bad, skipped, different, same, unknown */
        "        mean_good       REAL, mean_cand REAL, mean_bad REAL,\n"
        "        note            TEXT,\n"
        "        PRIMARY KEY (bisection_id, step)\n"
        ") WITHOUT ROWID;\n";

/* Version 5: the events the guest sent (the job's fd-3 phase marks, the
 * agent's "mounted"), one row each, so that a reader (the site's charts)
 * places them from rows instead of parsing the raw ttyS1 log again. t_host
 * is the record's arrival on the host; NULL where that is unknown. */
static const char db_schema_v5[] =
        "CREATE TABLE marks (\n"
        "        cell_id   INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,\n"
        "        seq       INTEGER NOT NULL,\n"
        "        t_guest   REAL NOT NULL,\n"
        "        t_host    REAL,\n"
        "        name      TEXT NOT NULL,\n"
        "        PRIMARY KEY (cell_id, seq)\n"
        ") WITHOUT ROWID;\n";

/* Version 6: the nights of kbench nightly (results/nights.h): each night's
 * baseline, alpha and noise band, and the comparisons it made as kbench
 * compare's selectors, so a reader can load them again from the cells and
 * follow a regression from night to night. */
static const char db_schema_v6[] =
        "CREATE TABLE nights (\n"
        "        id              INTEGER PRIMARY KEY,\n"
        "        started_at      REAL NOT NULL,\n"
        "        baseline        TEXT NOT NULL,\n"
        "        alpha           REAL NOT NULL,\n"
        "        noise           REAL NOT NULL\n"
        ");\n"
        "CREATE TABLE night_compares (\n"
        "        night_id        INTEGER NOT NULL REFERENCES nights(id) ON DELETE CASCADE,\n"
        "        seq             INTEGER NOT NULL,\n"
        "        subject         TEXT NOT NULL,\n"         /* as reported: variant label + kernel name */
        "        sel_a           TEXT NOT NULL,\n"         /* kbench compare selectors: the baseline's */
        "        sel_b           TEXT NOT NULL,\n"         /* and the subject's */
        "        PRIMARY KEY (night_id, seq)\n"
        ") WITHOUT ROWID;\n";

/* Version 7: the libvirt hosts cells ran on, when a run spreads its cells
 * over several (or runs them on a host it reaches only through libvirt).
 * A host row is what was measured of it; the same host with another QEMU
 * is another row, since its cells are not like the earlier ones. A cell
 * with no host_id ran on the run's own host (runs.host and its versions). */
static const char db_schema_v7[] =
        "CREATE TABLE hosts (\n"
        "        id              INTEGER PRIMARY KEY,\n"
        "        name            TEXT NOT NULL,\n"         /* the run's name for it (--connect NAME=URI) */
        "        uri             TEXT NOT NULL,\n"
        "        hostname        TEXT NOT NULL,\n"         /* what the host calls itself */
        "        cpu_model       TEXT NOT NULL,\n"
        "        qemu_version    TEXT NOT NULL,\n"
        "        libvirt_version TEXT NOT NULL,\n"
        "        info_json       TEXT,\n"                  /* cpus, mem_kib */
        "        UNIQUE (name, uri, hostname, cpu_model, qemu_version, libvirt_version)\n"
        ");\n"
        "ALTER TABLE cells ADD COLUMN host_id INTEGER REFERENCES hosts(id);\n";

/* Version 8: where each phase's kernel instructions went (cell/cellprof.h):
 * per cell and phase, the instructions executed in each function of the
 * kernel, every function that ran (the rows sum to the phase's kernel
 * instructions); and per kernel the names its symbol table holds, so a
 * reader can tell a function of one kernel only from one that did not
 * run. Names are rows of their own: one kernel's ~50,000 functions, and
 * every cell's few thousand rows, would otherwise repeat them. */
static const char db_schema_v8[] =
        "CREATE TABLE symbols (\n"
        "        id        INTEGER PRIMARY KEY,\n"
        "        name      TEXT NOT NULL UNIQUE\n"          /* "vfs_write", "ext4_map_blocks [ext4]" */
        ");\n"
        "CREATE TABLE kernel_symbols (\n"
        "        kernel_id TEXT NOT NULL REFERENCES kernels(id),\n"
        "        symbol_id INTEGER NOT NULL REFERENCES symbols(id),\n"
        "        PRIMARY KEY (kernel_id, symbol_id)\n"
        ") WITHOUT ROWID;\n"
        "CREATE TABLE profile (\n"
        "        cell_id   INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,\n"
        "        phase     TEXT NOT NULL,\n"              /* as in guest.<phase>.kernel_Minsn */
        "        symbol_id INTEGER NOT NULL REFERENCES symbols(id),\n"
        "        insns     INTEGER NOT NULL CHECK (insns > 0),\n"   /* instructions executed there */
        "        PRIMARY KEY (cell_id, phase, symbol_id)\n"
        ") WITHOUT ROWID;\n";


/* Migration steps in order; step i brings user_version from i to i + 1.
 * fill, when set, runs after sql in the same transaction: it fills a new
 * table from what older versions stored. */
static const struct dbschema_step {
        int version;
        const char *sql;
        int (*fill)(struct db *db, struct kb_error *err);
} dbschema_steps[] = {
        { 1, db_schema_v1, NULL },
        { 2, db_schema_v2, NULL },
        { 3, db_schema_v3, NULL },
        { 4, db_schema_v4, NULL },
        { 5, db_schema_v5, dbwrite_fill_marks },
        { 6, db_schema_v6, NULL },
        { 7, db_schema_v7, NULL },
        { 8, db_schema_v8, NULL },
};
_Static_assert(ELEMENTSOF(dbschema_steps) == DB_SCHEMA_VERSION, "one migration step per schema version");

int dbschema_version(struct db *db, int *ret, struct kb_error *err) {
        int64_t v;
        int r = db_one_int64(db, "PRAGMA user_version", DB_NO_ARGS, "reading the schema version", &v, err);

        if (r < 0)
                return r;
        *ret = (int)v;
        return 0;
}

/* Apply one migration step in its own transaction. The version is read again
 * inside the transaction: another process may have migrated meanwhile. */
static int dbschema_step(struct db *db, const struct dbschema_step *m, struct kb_error *err) {
        char sql[64];
        int r, v;

        r = db_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        r = dbschema_version(db, &v, err);
        if (r < 0)
                goto fail;
        if (v >= m->version)
                return db_exec(db, "COMMIT", err);
        if (sqlite3_exec(db_handle(db), m->sql, NULL, NULL, NULL) != SQLITE_OK) {
                r = db_error(db, sqlite3_errcode(db_handle(db)), err, "migrating to schema version %d", m->version);
                goto fail;
        }
        if (m->fill) {
                r = m->fill(db, err);
                if (r < 0) {
                        r = error_prefix(err, r, "migrating to schema version %d", m->version);
                        goto fail;
                }
        }
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", m->version);
        r = db_exec(db, sql, err);
        if (r < 0)
                goto fail;
        r = db_exec(db, "COMMIT", err);
        if (r < 0)
                goto fail;
        return 0;
fail:
        sqlite3_exec(db_handle(db), "ROLLBACK", NULL, NULL, NULL);
        return r;
}

int dbschema_migrate(struct db *db, int v, struct kb_error *err) {
        for (size_t i = 0; i < ELEMENTSOF(dbschema_steps); i++) {
                int r;

                if (dbschema_steps[i].version <= v)
                        continue;
                r = dbschema_step(db, &dbschema_steps[i], err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The schema a database of version v has: the migration steps' SQL up
 * to v, applied to an empty database in memory (the fill steps move data,
 * and there is none). The file must have each of its tables, each with
 * each of its columns (extra ones are the file's own business): one rule,
 * taken from the migrations themselves, for every verb that opens a
 * database, doctor's check included. */
int dbschema_reference(struct db *db, int v, sqlite3 **ret, struct kb_error *err) {
        sqlite3 *ref = NULL;
        int rc = sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL);

        for (size_t i = 0; rc == SQLITE_OK && i < ELEMENTSOF(dbschema_steps) && dbschema_steps[i].version <= v; i++)
                rc = sqlite3_exec(ref, dbschema_steps[i].sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
                int r = error_setf(err, -EIO, "%s: building schema version %d to check against: %s", db_path(db), v,
                                   ref ? sqlite3_errmsg(ref) : sqlite3_errstr(rc));
                sqlite3_close(ref);
                return r;
        }
        *ret = ref;
        return 0;
}

/* Step s (a question to the file whose answer is a row or none) once: 1 a
 * row, 0 none. */
static int dbschema_has_row(struct db *db, sqlite3_stmt *s, struct kb_error *err) {
        int rc = sqlite3_step(s);

        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return db_error(db, rc, err, "reading the schema");
}

/* The file has table (of version v) with every column the reference gives it. */
static int dbschema_check_table(struct db *db, sqlite3 *ref, int v, const char *table, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *has_table = NULL, *want = NULL, *has_col = NULL;
        int r;

        r = db_prepare(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1", &has_table, err);
        if (r >= 0)
                r = db_prepare(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", &has_col, err);
        if (r < 0)
                return r;
        if (sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &want, NULL) != SQLITE_OK)
                return error_setf(err, -EIO, "%s: reading schema version %d: %s", db_path(db), v,
                                  sqlite3_errmsg(ref));
        r = db_bind(db, has_table, DB_ARGS(DB_TEXT(table)), "reading the schema", err);
        if (r >= 0)
                r = dbschema_has_row(db, has_table, err);
        if (r == 0)
                return error_setf(err, -EBADMSG, "%s: not a kbench results database (schema version %d but no "
                                  "table '%s')", db_path(db), v, table);
        sqlite3_bind_text(want, 1, table, -1, SQLITE_TRANSIENT);
        while (r > 0 && sqlite3_step(want) == SQLITE_ROW) {
                const char *col = (const char *)sqlite3_column_text(want, 0);

                r = db_bind(db, has_col, DB_ARGS(DB_TEXT(table), DB_TEXT(col)), "reading the schema", err);
                if (r >= 0)
                        r = dbschema_has_row(db, has_col, err);
                if (r == 0)
                        return error_setf(err, -EBADMSG, "%s: not a kbench results database (schema version %d "
                                          "but table '%s' has no column '%s')", db_path(db), v, table, col);
        }
        return r < 0 ? r : 0;
}

int dbschema_check(struct db *db, int v, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *tables = NULL;
        sqlite3 *ref = NULL;
        int r = dbschema_reference(db, v, &ref, err);

        if (r < 0)
                return r;
        /* In the order the migrations made them: kernels first. */
        if (sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid", -1, &tables,
                               NULL) != SQLITE_OK)
                r = error_setf(err, -EIO, "%s: reading schema version %d: %s", db_path(db), v, sqlite3_errmsg(ref));
        while (r >= 0 && sqlite3_step(tables) == SQLITE_ROW)
                r = dbschema_check_table(db, ref, v, (const char *)sqlite3_column_text(tables, 0), err);
        sqlite3_finalize(TAKE_PTR(tables));
        sqlite3_close(ref);
        return r;
}
