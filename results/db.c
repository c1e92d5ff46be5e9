/* results/db.c: the SQLite result store (see db.h). Opening a database
 * configures the connection (WAL, foreign keys, busy timeout) and brings the
 * schema up to DB_SCHEMA_VERSION through an ordered list of migration steps,
 * each in its own transaction, so a crash mid-migration leaves the previous
 * version intact. Writers insert a whole cell in one IMMEDIATE transaction;
 * all SQL is prepared with bound parameters, never built from data. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/proto.h"
#include "common/util.h"
#include "results/column.h"
#include "results/db.h"
#include "results/profile.h"
#include "results/schema-sql.h"

struct db {
        sqlite3 *h;
        char *path;
        int readonly;              /* opened SQLITE_OPEN_READONLY: the store is not writable */
};

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

static int db_fill_marks(struct db *db, struct kb_error *err);

/* Migration steps in order; step i brings user_version from i to i + 1.
 * fill, when set, runs after sql in the same transaction: it fills a new
 * table from what older versions stored. */
static const struct db_migration {
        int version;
        const char *sql;
        int (*fill)(struct db *db, struct kb_error *err);
} db_migrations[] = {
        { 1, db_schema_v1, NULL },
        { 2, db_schema_v2, NULL },
        { 3, db_schema_v3, NULL },
        { 4, db_schema_v4, NULL },
        { 5, db_schema_v5, db_fill_marks },
        { 6, db_schema_v6, NULL },
        { 7, db_schema_v7, NULL },
        { 8, db_schema_v8, NULL },
};
_Static_assert(ELEMENTSOF(db_migrations) == DB_SCHEMA_VERSION,
               "one migration step per schema version");

#define DB_BUSY_TIMEOUT_MS 10000

static int db_errno(int rc) {
        switch (rc & 0xff) {
        case SQLITE_OK: case SQLITE_ROW: case SQLITE_DONE: return 0;
        case SQLITE_NOMEM: return -ENOMEM;
        case SQLITE_BUSY: case SQLITE_LOCKED: return -EBUSY;
        case SQLITE_READONLY: return -EROFS;
        case SQLITE_PERM: case SQLITE_AUTH: return -EACCES;
        case SQLITE_CANTOPEN: return -ENOENT;
        case SQLITE_FULL: return -ENOSPC;
        case SQLITE_NOTADB: case SQLITE_CORRUPT: return -EBADMSG;
        case SQLITE_CONSTRAINT: return -EEXIST;
        case SQLITE_MISMATCH: case SQLITE_RANGE: case SQLITE_TOOBIG: return -EINVAL;
        default: return -EIO;
        }
}

int db_error(struct db *db, int rc, struct kb_error *err, const char *fmt, ...) {
        char what[512];
        va_list ap;
        int r = db_errno(rc);

        if (r == 0)
                r = -EIO;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return error_setf(err, r, "%s: %s: %s", db->path, what,
                          db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
}

static int db_exec(struct db *db, const char *sql, struct kb_error *err) {
        int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK)
                return db_error(db, rc, err, "%.40s", sql);
        return 0;
}

int db_prepare(struct db *db, const char *sql, sqlite3_stmt **ret, struct kb_error *err) {
        int rc = sqlite3_prepare_v2(db->h, sql, -1, ret, NULL);
        if (rc != SQLITE_OK)
                return db_error(db, rc, err, "prepare");
        return 0;
}

/* Bind helpers: NULL strings and non-finite numbers become SQL NULL. */
static int bind_text(sqlite3_stmt *s, int i, const char *v) {
        return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static int bind_real(sqlite3_stmt *s, int i, double v) {
        return isfinite(v) ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i);
}

/* Run a statement that returns no rows (or whose rows are ignored). */
static int db_step_done(struct db *db, sqlite3_stmt *s, const char *what, struct kb_error *err) {
        int rc;

        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
                ;
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "%s", what);
        return 0;
}

static int db_user_version(struct db *db, int *ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r, rc;

        r = db_prepare(db, "PRAGMA user_version", &s, err);
        if (r < 0)
                return r;
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return db_error(db, rc, err, "reading the schema version");
        *ret = sqlite3_column_int(s, 0);
        return 0;
}

static int db_count_objects(struct db *db, int64_t *ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r, rc;

        r = db_prepare(db, "SELECT count(*) FROM sqlite_schema", &s, err);
        if (r < 0)
                return r;
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return db_error(db, rc, err, "reading the schema");
        *ret = sqlite3_column_int64(s, 0);
        return 0;
}

/* Apply one migration step in its own transaction. The version is read again
 * inside the transaction: another process may have migrated meanwhile. */
static int db_migrate_step(struct db *db, const struct db_migration *m, struct kb_error *err) {
        char sql[64];
        int r, v;

        r = db_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        r = db_user_version(db, &v, err);
        if (r < 0)
                goto fail;
        if (v >= m->version)
                return db_exec(db, "COMMIT", err);
        if (sqlite3_exec(db->h, m->sql, NULL, NULL, NULL) != SQLITE_OK) {
                r = db_error(db, sqlite3_errcode(db->h), err, "migrating to schema version %d",
                             m->version);
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
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return r;
}

/* The schema a database of version v has: the migration steps' SQL up
 * to v, applied to an empty database in memory (the fill steps move data,
 * and there is none). The file must have each of its tables, each with
 * each of its columns (extra ones are the file's own business): one rule,
 * taken from the migrations themselves, for every verb that opens a
 * database, doctor's check included. OUT: *ret (sqlite3_close). */
static int db_reference(struct db *db, int v, sqlite3 **ret, struct kb_error *err) {
        sqlite3 *ref = NULL;
        int rc = sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL);

        for (size_t i = 0; rc == SQLITE_OK && i < ELEMENTSOF(db_migrations) && db_migrations[i].version <= v; i++)
                rc = sqlite3_exec(ref, db_migrations[i].sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
                int r = error_setf(err, -EIO, "%s: building schema version %d to check against: %s", db->path, v,
                                   ref ? sqlite3_errmsg(ref) : sqlite3_errstr(rc));
                sqlite3_close(ref);
                return r;
        }
        *ret = ref;
        return 0;
}

int db_schema_reference(struct db *db, sqlite3 **ret, struct kb_error *err) {
        int r, v;

        r = db_user_version(db, &v, err);
        return r < 0 ? r : db_reference(db, v, ret, err);
}

/* Step s (of ref, or of the file: db NULL or not) once: 1 a row, 0 done. */
static int db_step_row(struct db *db, sqlite3_stmt *s, struct kb_error *err) {
        int rc = sqlite3_step(s);

        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return db_error(db, rc, err, "reading the schema");
}

/* The file has table (of version v) with every column the reference gives it. */
static int db_check_table(struct db *db, sqlite3 *ref, int v, const char *table, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *has_table = NULL, *want = NULL, *has_col = NULL;
        int r;

        r = db_prepare(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1", &has_table, err);
        if (r >= 0)
                r = db_prepare(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", &has_col, err);
        if (r < 0)
                return r;
        if (sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &want, NULL) != SQLITE_OK)
                return error_setf(err, -EIO, "%s: reading schema version %d: %s", db->path, v, sqlite3_errmsg(ref));
        bind_text(has_table, 1, table);
        r = db_step_row(db, has_table, err);
        if (r == 0)
                return error_setf(err, -EBADMSG, "%s: not a kbench results database (schema version %d but no "
                                  "table '%s')", db->path, v, table);
        bind_text(want, 1, table);
        while (r > 0 && sqlite3_step(want) == SQLITE_ROW) {
                const char *col = (const char *)sqlite3_column_text(want, 0);

                sqlite3_reset(has_col);
                bind_text(has_col, 1, table);
                bind_text(has_col, 2, col);
                r = db_step_row(db, has_col, err);
                if (r == 0)
                        return error_setf(err, -EBADMSG, "%s: not a kbench results database (schema version %d "
                                          "but table '%s' has no column '%s')", db->path, v, table, col);
        }
        return r < 0 ? r : 0;
}

static int db_check_tables(struct db *db, int v, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *tables = NULL;
        sqlite3 *ref = NULL;
        int r = db_reference(db, v, &ref, err);

        if (r < 0)
                return r;
        /* In the order the migrations made them: kernels first. */
        if (sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid", -1, &tables,
                               NULL) != SQLITE_OK)
                r = error_setf(err, -EIO, "%s: reading schema version %d: %s", db->path, v, sqlite3_errmsg(ref));
        while (r >= 0 && sqlite3_step(tables) == SQLITE_ROW)
                r = db_check_table(db, ref, v, (const char *)sqlite3_column_text(tables, 0), err);
        sqlite3_finalize(TAKE_PTR(tables));
        sqlite3_close(ref);
        return r;
}

static int db_setup(struct db *db, int create, struct kb_error *err) {
        int64_t objects = 0;
        int r, v;

        sqlite3_extended_result_codes(db->h, 1);
        sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
        /* A results.db may come from elsewhere (copied for publish): let its
         * schema run no functions and forbid writes that corrupt the file. */
        sqlite3_db_config(db->h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_db_config(db->h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
        r = db_exec(db, "PRAGMA foreign_keys = ON", err);
        if (r < 0)
                return r;
        /* The first read of the file: garbage fails here with "not a database". */
        r = db_user_version(db, &v, err);
        if (r < 0)
                return r;
        if (v > DB_SCHEMA_VERSION)
                return error_setf(err, -EPROTONOSUPPORT,
                                  "%s: schema version %d is newer than this kbench understands (%d); "
                                  "use a newer kbench", db->path, v, DB_SCHEMA_VERSION);
        /* user_version is anyone's to set: a negative one is no version
         * kbench ever wrote, whatever tables the file has. */
        if (v < 0)
                return error_setf(err, -EBADMSG, "%s: not a kbench results database (schema version %d; kbench's "
                                  "are 1 to %d)", db->path, v, DB_SCHEMA_VERSION);
        if (v == 0) {
                r = db_count_objects(db, &objects, err);
                if (r < 0)
                        return r;
                if (objects > 0)
                        return error_setf(err, -EBADMSG,
                                          "%s: not a kbench results database (tables but no schema version)",
                                          db->path);
                /* No verb turns a file it was pointed at into a database:
                 * create is set only where there was no file. */
                if (!create)
                        return error_setf(err, -ENODATA, "%s: empty, not a kbench results database", db->path);
        } else {
                r = db_check_tables(db, v, err);
                if (r < 0)
                        return r;
        }
        if (db->readonly) {
                if (v < DB_SCHEMA_VERSION)
                        return error_setf(err, -EROFS, "%s: schema version %d needs migrating to %d, but the "
                                          "file is read-only", db->path, v, DB_SCHEMA_VERSION);
                return 0;
        }
        if (!create && v == DB_SCHEMA_VERSION)
                return 0;
        r = db_exec(db, "PRAGMA journal_mode = WAL", err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(db_migrations); i++) {
                if (db_migrations[i].version <= v)
                        continue;
                r = db_migrate_step(db, &db_migrations[i], err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether SQLite can write path: the file and its directory (for the
 * journal, -wal and -shm files). */
static int db_writable(const char *path) {
        const char *slash = strrchr(path, '/');
        char dir[4096];
        size_t n = slash ? (size_t)(slash - path) : 1;

        if (n == 0)
                n = 1;
        if (n >= sizeof(dir))
                return access(path, W_OK) == 0;
        memcpy(dir, slash ? path : ".", n);
        dir[n] = '\0';
        return access(path, W_OK) == 0 && access(dir, W_OK) == 0;
}

static int db_probe(sqlite3 *h) {
        return sqlite3_exec(h, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
}

/* "file:PATH?immutable=1", PATH percent-escaped as URI rules want. Caller
 * frees; NULL when out of memory. */
static char *db_immutable_uri(const char *path) {
        static const char keep[] = "/-._~";
        size_t len = strlen(path);
        char *uri = malloc(len * 3 + sizeof("file:?immutable=1"));
        char *p = uri;

        if (!uri)
                return NULL;
        p += sprintf(p, "file:");
        for (const unsigned char *c = (const unsigned char *)path; *c; c++)
                if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                    strchr(keep, *c))
                        *p++ = (char)*c;
                else
                        p += sprintf(p, "%%%02X", *c);
        strcpy(p, "?immutable=1");
        return uri;
}

static int db_open_flags(const char *path, int create, struct db **ret, struct kb_error *err) {
        struct db *db;
        struct stat st;
        int r, rc;

        /* Only a path where no file is may become a new database: a file
         * that is there (0 bytes, someone else's SQLite file) must already
         * be a kbench database, whichever verb opens it. */
        if (stat(path, &st) < 0) {
                if (errno != ENOENT)
                        return error_setf(err, -errno, "%s: %s", path, strerror(errno));
                if (!create)
                        return error_setf(err, -ENOENT, "no results database at %s", path);
        } else {
                if (!S_ISREG(st.st_mode))
                        return error_setf(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
                                          "%s: not a regular file, not a kbench results database", path);
                create = 0;
        }
        db = calloc(1, sizeof(*db));
        if (!db)
                return error_setf(err, -ENOMEM, "out of memory");
        db->path = strdup(path);
        if (!db->path) {
                free(db);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        if (!create && !db_writable(path)) {
                /* A read-only store can still be shown. A WAL database needs
                 * its -shm file, which a read-only directory may not let
                 * SQLite create: then open it immutable (nobody can write
                 * it anyway). */
                char *uri;
                db->readonly = 1;
                rc = sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READONLY, NULL);
                if (rc == SQLITE_OK && db_probe(db->h) != SQLITE_OK) {
                        sqlite3_close_v2(db->h);
                        db->h = NULL;
                        uri = db_immutable_uri(path);
                        rc = uri ? sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL)
                                 : SQLITE_NOMEM;
                        free(uri);
                }
        } else {
                rc = sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
                                     NULL);
        }
        if (rc != SQLITE_OK) {
                r = db_error(db, rc, err, "cannot open");
                db_close(db);
                return r;
        }
        r = db_setup(db, create, err);
        if (r < 0) {
                db_close(db);
                return r;
        }
        *ret = db;
        return 0;
}

int db_open(const char *path, struct db **ret, struct kb_error *err) {
        return db_open_flags(path, 1, ret, err);
}

int db_open_existing(const char *path, struct db **ret, struct kb_error *err) {
        return db_open_flags(path, 0, ret, err);
}

size_t db_check_row(const char *row, char *first, size_t size) {
        size_t n = 0;

        /* One row may hold several problems, one a line (SQLite puts the
         * first under a "*** in database main ***" line): count each, keep
         * the first, so the error stays one line naming one problem. */
        static const char header[] = "*** in database ";

        for (const char *p = row; *p;) {
                size_t len = strcspn(p, "\n");

                /* "*** in database main ***" heads the problems of a
                 * schema; it is not one itself. */
                if (len > 0 && strncmp(p, header, strlen(header)) != 0) {
                        if (n == 0 && !first[0])
                                snprintf(first, size, "%.*s", (int)len, p);
                        n++;
                }
                p += len;
                if (*p == '\n')
                        p++;
        }
        if (n == 0 && !first[0])
                snprintf(first, size, "(empty row)");
        return n > 0 ? n : 1;
}

int db_check(struct db *db, int full, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        const char *pragma = full ? "integrity_check" : "quick_check";
        char first[256] = "";
        long problems = 0;
        int r, rc;

        /* At most 100 rows: enough to know it is broken, bounded on a wreck. */
        r = db_prepare(db, full ? "PRAGMA integrity_check(100)" : "PRAGMA quick_check(100)", &s, err);
        if (r < 0)
                return error_prefix(err, r, "PRAGMA %s", pragma);
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                const char *t = (const char *)sqlite3_column_text(s, 0);
                if (t && strcmp(t, "ok") == 0)
                        continue;
                problems += db_check_row(t ? t : "(null)", first, sizeof(first));
        }
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "PRAGMA %s", pragma);
        if (problems > 0)
                return error_setf(err, -EBADMSG, "%s fails PRAGMA %s: %ld problem(s)%s, first: %s", db->path,
                                  pragma, problems, problems >= 100 ? " or more" : "", first);
        return 0;
}

int db_blame(struct db *db, int r, struct kb_error *err) {
        struct kb_error damage = { { 0 } };
        int d;

        if (r != 0 && r != -ENOENT && r != -EINVAL)
                return r;
        d = db_check(db, 0, &damage);
        if (d == 0)
                return r;
        return error_setf(err, d, "%s", damage.msg);
}

struct db *db_close(struct db *db) {
        if (!db)
                return NULL;
        sqlite3_close_v2(db->h);
        free(db->path);
        free(db);
        return NULL;
}

const char *db_path(const struct db *db) {
        return db->path;
}

sqlite3 *db_handle(struct db *db) {
        return db->h;
}

/* ---- kernels and runs ------------------------------------------------ */

int db_kernel_upsert(struct db *db, const struct db_kernel *k, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *rename = NULL, *up = NULL;
        int r;

        if (!k->id || !k->name)
                return error_setf(err, -EINVAL, "%s: kernel without id or name", db->path);
        r = db_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        /* Another image under the same name (removed from the store and a
         * different one imported): keep its history under a distinct name. */
        r = db_prepare(db, "UPDATE kernels SET name = name || '~' || substr(id, 1, 12) "
                           "WHERE name = ?1 AND id != ?2", &rename, err);
        if (r < 0)
                goto fail;
        if (bind_text(rename, 1, k->name) || bind_text(rename, 2, k->id)) {
                r = db_error(db, sqlite3_errcode(db->h), err, "binding kernel %s", k->name);
                goto fail;
        }
        r = db_step_done(db, rename, "renaming an older kernel", err);
        if (r < 0)
                goto fail;
        r = db_prepare(db, "INSERT INTO kernels(id, name, release, source, added_at) "
                           "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(id) DO UPDATE SET "
                           "name = excluded.name, release = excluded.release, "
                           "source = excluded.source", &up, err);
        if (r < 0)
                goto fail;
        if (bind_text(up, 1, k->id) || bind_text(up, 2, k->name) || bind_text(up, 3, k->release) ||
            bind_text(up, 4, k->source) ||
            sqlite3_bind_double(up, 5, k->added_at > 0 ? k->added_at : (double)time(NULL))) {
                r = db_error(db, sqlite3_errcode(db->h), err, "binding kernel %s", k->name);
                goto fail;
        }
        r = db_step_done(db, up, "storing kernel", err);
        if (r < 0)
                goto fail;
        return db_exec(db, "COMMIT", err);
fail:
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return r;
}

int db_run_create(struct db *db, struct db_run *run, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = db_prepare(db, "INSERT INTO runs(tag, settings_json, host, host_info_json, qemu_version, "
                           "libvirt_version, kbench_version, started_at, status) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running')", &s, err);
        if (r < 0)
                return r;
        if (bind_text(s, 1, run->tag) || bind_text(s, 2, run->settings_json ? run->settings_json : "{}") ||
            bind_text(s, 3, run->host) || bind_text(s, 4, run->host_info_json) ||
            bind_text(s, 5, run->qemu_version) || bind_text(s, 6, run->libvirt_version) ||
            bind_text(s, 7, run->kbench_version) ||
            sqlite3_bind_double(s, 8, run->started_at > 0 ? run->started_at : (double)time(NULL)))
                return db_error(db, sqlite3_errcode(db->h), err, "binding run");
        r = db_step_done(db, s, "creating run", err);
        if (r < 0)
                return r;
        run->id = sqlite3_last_insert_rowid(db->h);
        return 0;
}

int db_host_upsert(struct db *db, const struct db_host *h, int64_t *ret_id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        /* The row is what the host was: an existing one is reused, never
         * changed (its cells were measured on what it says). */
        r = db_prepare(db, "INSERT INTO hosts(name, uri, hostname, cpu_model, qemu_version, libvirt_version, "
                           "info_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO UPDATE SET id = id "
                           "RETURNING id", &s, err);
        if (r < 0)
                return r;
        if (bind_text(s, 1, h->name) || bind_text(s, 2, h->uri) || bind_text(s, 3, h->hostname) ||
            bind_text(s, 4, h->cpu_model) || bind_text(s, 5, h->qemu_version) ||
            bind_text(s, 6, h->libvirt_version) || bind_text(s, 7, h->info_json))
                return db_error(db, sqlite3_errcode(db->h), err, "binding host %s", h->name);
        r = sqlite3_step(s);
        if (r != SQLITE_ROW)
                return db_error(db, r, err, "storing host %s", h->name);
        *ret_id = sqlite3_column_int64(s, 0);
        return 0;
}

int db_run_finish(struct db *db, int64_t run_id, const char *status, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct timespec ts;
        int r;

        clock_gettime(CLOCK_REALTIME, &ts);
        r = db_prepare(db, "UPDATE runs SET finished_at = ?1, status = ?2 WHERE id = ?3", &s, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_double(s, 1, (double)ts.tv_sec + ts.tv_nsec / 1e9) ||
            bind_text(s, 2, status ? status : "complete") || sqlite3_bind_int64(s, 3, run_id))
                return db_error(db, sqlite3_errcode(db->h), err, "binding run");
        r = db_step_done(db, s, "finishing run", err);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->h) == 0)
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db->path);
        return 0;
}

int db_run_set_setting(struct db *db, int64_t run_id, const char *key, const char *json_value,
                       struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        /* json_set with a '$."key"' path: a key is never read as a path. */
        r = db_prepare(db, "UPDATE runs SET settings_json = json_set(settings_json, '$.\"' || ?1 || '\"', "
                           "json(?2)) WHERE id = ?3", &s, err);
        if (r < 0)
                return r;
        if (bind_text(s, 1, key) || bind_text(s, 2, json_value) || sqlite3_bind_int64(s, 3, run_id))
                return db_error(db, sqlite3_errcode(db->h), err, "binding run");
        r = db_step_done(db, s, "updating the run's settings", err);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->h) == 0)
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db->path);
        return 0;
}

int db_runs_interrupt(struct db *db, int *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = db_prepare(db, "UPDATE runs SET status = 'interrupted' WHERE status = 'running'", &s, err);
        if (r < 0)
                return r;
        r = db_step_done(db, s, "marking interrupted runs", err);
        if (r < 0)
                return r;
        if (ret_n)
                *ret_n = sqlite3_changes(db->h);
        return 0;
}

int db_run_reopen(struct db *db, int64_t run_id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = db_prepare(db, "UPDATE runs SET finished_at = NULL, status = 'running' WHERE id = ?1", &s, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(s, 1, run_id))
                return db_error(db, sqlite3_errcode(db->h), err, "binding run");
        r = db_step_done(db, s, "reopening run", err);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->h) == 0)
                return error_setf(err, -ENOENT, "no run %lld in %s", (long long)run_id, db->path);
        return 0;
}

/* ---- cells ------------------------------------------------------------ */

static int cell_insert_row(struct db *db, const struct db_cell *c, int64_t *ret_id,
                           struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        r = db_prepare(db, "INSERT INTO cells(run_id, cell_key, kernel_id, workload, params_json, "
                           "iteration, attempt, state, detail, accel, started_at, boot_s, workload_s, "
                           "total_s, exit_code, rejected_records, host_id) VALUES "
                           "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                       &s, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(s, 1, c->run_id) || bind_text(s, 2, c->cell_key) ||
            bind_text(s, 3, c->kernel_id) || bind_text(s, 4, c->workload) ||
            bind_text(s, 5, c->params_json) || sqlite3_bind_int(s, 6, c->iteration) ||
            sqlite3_bind_int(s, 7, c->attempt > 0 ? c->attempt : 1) || bind_text(s, 8, c->state) ||
            bind_text(s, 9, c->detail) || bind_text(s, 10, c->accel) ||
            bind_real(s, 11, c->started_at) || bind_real(s, 12, c->boot_s) ||
            bind_real(s, 13, c->workload_s) || bind_real(s, 14, c->total_s) ||
            sqlite3_bind_int(s, 15, c->exit_code) || sqlite3_bind_int64(s, 16, c->rejected_records) ||
            (c->host_id > 0 ? sqlite3_bind_int64(s, 17, c->host_id) : sqlite3_bind_null(s, 17)))
                return db_error(db, sqlite3_errcode(db->h), err, "binding cell %s", c->cell_key);
        r = db_step_done(db, s, "storing cell", err);
        if (r < 0)
                return error_prefix(err, r, "cell %s", c->cell_key);
        *ret_id = sqlite3_last_insert_rowid(db->h);
        return 0;
}

static int cell_insert_metrics(struct db *db, const struct db_cell *c, int64_t id,
                               struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_metrics == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO metrics(cell_id, name, value, unit, note) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)", &s, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_metrics; i++) {
                const struct db_metric *m = &c->metrics[i];

                if (!m->name)
                        return error_setf(err, -EINVAL, "cell %s: metric without a name", c->cell_key);
                sqlite3_reset(s);
                if (sqlite3_bind_int64(s, 1, id) || bind_text(s, 2, m->name) ||
                    (m->has_value ? bind_real(s, 3, m->value) : sqlite3_bind_null(s, 3)) ||
                    bind_text(s, 4, m->unit ? m->unit : "") || bind_text(s, 5, m->note))
                        return db_error(db, sqlite3_errcode(db->h), err, "binding metric %s", m->name);
                r = db_step_done(db, s, "storing metric", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s: metric %s", c->cell_key, m->name);
        }
        return 0;
}

static int cell_insert_vmstat(struct db *db, const struct db_cell *c, int64_t id,
                              struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char sql[1024];
        size_t n;
        int r;

        if (c->n_vmstat == 0)
                return 0;
        /* Column names come from the compile-time list, never from data. */
        n = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO vmstat(cell_id, seq, t_host, t_guest, first");
        for (size_t k = 0; k < DB_VM_NCOLS; k++)
                n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", \"%s\"", db_vmstat_column_names[k]);
        n += (size_t)snprintf(sql + n, sizeof(sql) - n, ") VALUES (?, ?, ?, ?, ?");
        for (size_t k = 0; k < DB_VM_NCOLS; k++)
                n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", ?");
        snprintf(sql + n, sizeof(sql) - n, ")");
        r = db_prepare(db, sql, &s, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_vmstat; i++) {
                const struct db_vmstat_row *v = &c->vmstat[i];
                int bad;

                sqlite3_reset(s);
                bad = sqlite3_bind_int64(s, 1, id) || sqlite3_bind_int64(s, 2, v->seq) ||
                      bind_real(s, 3, v->t_host) || bind_real(s, 4, v->t_guest) ||
                      sqlite3_bind_int(s, 5, v->first ? 1 : 0);
                for (int k = 0; k < DB_VM_NCOLS && !bad; k++)
                        bad = bind_real(s, 6 + k, v->v[k]);
                if (bad)
                        return db_error(db, sqlite3_errcode(db->h), err, "binding vmstat row");
                r = db_step_done(db, s, "storing vmstat row", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s: vmstat seq %lld", c->cell_key,
                                            (long long)v->seq);
        }
        return 0;
}

static int cell_insert_points(struct db *db, const struct db_cell *c, int64_t id,
                              struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_points == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO timeline(cell_id, kind, t, value) VALUES (?1, ?2, ?3, ?4)",
                       &s, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_points; i++) {
                const struct db_point *p = &c->points[i];

                if (!p->kind || !isfinite(p->t))
                        return error_setf(err, -EINVAL, "cell %s: timeline point without kind or time",
                                          c->cell_key);
                sqlite3_reset(s);
                if (sqlite3_bind_int64(s, 1, id) || bind_text(s, 2, p->kind) ||
                    sqlite3_bind_double(s, 3, p->t) || bind_real(s, 4, p->value))
                        return db_error(db, sqlite3_errcode(db->h), err, "binding point");
                r = db_step_done(db, s, "storing timeline point", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s", c->cell_key);
        }
        return 0;
}

/* A counter libvirt did not report (-1) is stored as NULL. */
static int bind_counter(sqlite3_stmt *s, int i, int64_t v) {
        return v < 0 ? sqlite3_bind_null(s, i) : sqlite3_bind_int64(s, i, v);
}

static int cell_insert_hostblk(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_hostblk == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO host_block(cell_id, seq, t_host, rd_bytes, wr_bytes, rd_reqs, wr_reqs) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &s, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_hostblk; i++) {
                const struct db_hostblk_row *b = &c->hostblk[i];

                if (!isfinite(b->t_host))
                        return error_setf(err, -EINVAL, "cell %s: host block sample %zu without a time",
                                          c->cell_key, i);
                sqlite3_reset(s);
                if (sqlite3_bind_int64(s, 1, id) || sqlite3_bind_int64(s, 2, (int64_t)i) ||
                    sqlite3_bind_double(s, 3, b->t_host) || bind_counter(s, 4, b->rd_bytes) ||
                    bind_counter(s, 5, b->wr_bytes) || bind_counter(s, 6, b->rd_reqs) ||
                    bind_counter(s, 7, b->wr_reqs))
                        return db_error(db, sqlite3_errcode(db->h), err, "binding host block sample");
                r = db_step_done(db, s, "storing host block sample", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s", c->cell_key);
        }
        return 0;
}

static int marks_prepare(struct db *db, sqlite3_stmt **ret, struct kb_error *err) {
        return db_prepare(db, "INSERT INTO marks(cell_id, seq, t_guest, t_host, name) VALUES (?1, ?2, ?3, ?4, ?5)",
                          ret, err);
}

/* One row of marks through s (marks_prepare). name is len bytes. */
static int mark_insert(struct db *db, sqlite3_stmt *s, int64_t cell_id, int64_t seq, const char *name, size_t len,
                       double t_guest, double t_host, struct kb_error *err) {
        if (!isfinite(t_guest) || len > PROTO_PAYLOAD_MAX)
                return error_setf(err, -EINVAL, "%s: mark %lld of cell %lld without a guest time or too long",
                                  db->path, (long long)seq, (long long)cell_id);
        sqlite3_reset(s);
        if (sqlite3_bind_int64(s, 1, cell_id) || sqlite3_bind_int64(s, 2, seq) || sqlite3_bind_double(s, 3, t_guest) ||
            bind_real(s, 4, t_host) || sqlite3_bind_text(s, 5, name, (int)len, SQLITE_TRANSIENT))
                return db_error(db, sqlite3_errcode(db->h), err, "binding mark");
        return db_step_done(db, s, "storing mark", err);
}

static int cell_insert_marks(struct db *db, const struct db_cell *c, int64_t id, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_marks == 0)
                return 0;
        r = marks_prepare(db, &s, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_marks; i++) {
                const struct db_mark *m = &c->marks[i];

                if (!m->name)
                        return error_setf(err, -EINVAL, "cell %s: mark without a name", c->cell_key);
                r = mark_insert(db, s, id, (int64_t)i, m->name, strlen(m->name), m->t_guest, m->t_host, err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s", c->cell_key);
        }
        return 0;
}

void db_marks_free(struct db_mark *m, size_t n) {
        for (size_t i = 0; m && i < n; i++)
                free((char *)m[i].name);
        free(m);
}

/* Backfilled by the migration, once, rather than by a fallback in every
 * reader: the readers then have one source of marks, and the raw log is
 * parsed by nothing but the cell and this. */
int db_marks_from_log(const char *text, size_t len, double boot_s, struct db_mark **ret, size_t *ret_n) {
        struct db_mark *v = NULL;
        size_t n = 0, cap = 0, i = 0;
        double offset = NAN;

        while (i < len) {
                const char *nl = memchr(text + i, '\n', len - i);
                size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
                struct proto_record rec;

                if (proto_parse(text + i, l, &rec) == PROTO_OK) {
                        double t = (double)rec.t_ms / 1000;

                        if (strcmp(rec.type, "ready") == 0 && isnan(offset) && isfinite(boot_s))
                                offset = boot_s - t;
                        if (strcmp(rec.type, "event") == 0) {
                                char *name = strdup(rec.payload);   /* cut at a NUL, as the cell cuts it */
                                struct db_mark *nv = n < cap ? v : realloc(v, (cap ? cap * 2 : 16) * sizeof(*nv));

                                if (!name || !nv) {
                                        free(name);
                                        db_marks_free(nv ? nv : v, n);
                                        return -ENOMEM;
                                }
                                if (n == cap)
                                        cap = cap ? cap * 2 : 16;
                                v = nv;
                                v[n++] = (struct db_mark){ name, t, t + offset };
                        }
                }
                i += l + 1;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* Migration step 5's fill: the marks of every stored cell from its data
 * log. */
static int db_fill_marks(struct db *db, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *q = NULL, *ins = NULL;
        int r, rc;

        r = db_prepare(db, "SELECT c.id, c.boot_s, l.text FROM cells c JOIN logs l ON l.cell_id = c.id "
                           "AND l.stream = 'data' ORDER BY c.id", &q, err);
        if (r >= 0)
                r = marks_prepare(db, &ins, err);
        if (r < 0)
                return r;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
                int64_t id = sqlite3_column_int64(q, 0);
                double boot_s;
                const char *text = sqlite3_column_blob(q, 2);
                int n = sqlite3_column_bytes(q, 2);

                struct db_mark *m = NULL;
                size_t nm = 0;

                /* Text or an infinity there is no boot time: NAN, as NULL. */
                (void)column_real(q, 1, COLUMN_OPTIONAL, &boot_s);
                if (!text || n <= 0)
                        continue;
                if (db_marks_from_log(text, (size_t)n, boot_s, &m, &nm) < 0)
                        return error_setf(err, -ENOMEM, "out of memory");
                for (size_t i = 0; i < nm && r >= 0; i++)
                        r = mark_insert(db, ins, id, (int64_t)i, m[i].name, strlen(m[i].name), m[i].t_guest,
                                        m[i].t_host, err);
                db_marks_free(m, nm);
                if (r < 0)
                        return r;
        }
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "reading the data logs");
        return 0;
}

static int cell_insert_logs(struct db *db, const struct db_cell *c, int64_t id,
                            struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (c->n_logs == 0)
                return 0;
        r = db_prepare(db, "INSERT INTO logs(cell_id, stream, text) VALUES (?1, ?2, ?3)", &s, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_logs; i++) {
                const struct db_log *l = &c->logs[i];

                if (!l->stream || (!l->text && l->len > 0) || l->len > (size_t)INT32_MAX)
                        return error_setf(err, -EINVAL, "cell %s: bad log", c->cell_key);
                sqlite3_reset(s);
                /* A blob, not text: console logs can hold NUL and invalid UTF-8. */
                if (sqlite3_bind_int64(s, 1, id) || bind_text(s, 2, l->stream) ||
                    sqlite3_bind_blob(s, 3, l->text ? l->text : "", (int)l->len, SQLITE_STATIC))
                        return db_error(db, sqlite3_errcode(db->h), err, "binding log %s", l->stream);
                r = db_step_done(db, s, "storing log", err);
                if (r < 0)
                        return error_prefix(err, r, "cell %s: log %s", c->cell_key, l->stream);
        }
        return 0;
}

int db_cell_insert(struct db *db, const struct db_cell *cell, int64_t *ret_cell_id,
                   struct kb_error *err) {
        int64_t id = 0;
        int r;

        if (!cell->cell_key || !cell->kernel_id || !cell->workload || !cell->state)
                return error_setf(err, -EINVAL, "%s: cell without key, kernel, workload or state",
                                  db->path);
        r = db_exec(db, "BEGIN IMMEDIATE", err);
        if (r < 0)
                return r;
        r = cell_insert_row(db, cell, &id, err);
        if (r >= 0)
                r = cell_insert_metrics(db, cell, id, err);
        if (r >= 0)
                r = cell_insert_vmstat(db, cell, id, err);
        if (r >= 0)
                r = cell_insert_points(db, cell, id, err);
        if (r >= 0)
                r = cell_insert_hostblk(db, cell, id, err);
        if (r >= 0)
                r = cell_insert_marks(db, cell, id, err);
        if (r >= 0)
                r = cell_insert_logs(db, cell, id, err);
        if (r >= 0)
                r = db_profile_insert(db, cell, id, err);
        if (r >= 0)
                r = db_exec(db, "COMMIT", err);
        if (r < 0) {
                sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
                return r;
        }
        if (ret_cell_id)
                *ret_cell_id = id;
        return 0;
}

int db_run_done_keys(struct db *db, int64_t run_id, char ***ret_keys, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char **keys = NULL;
        size_t n = 0, cap = 0;
        int r, rc;

        r = db_prepare(db, "SELECT DISTINCT cell_key FROM cells WHERE run_id = ?1 AND state = 'ok' "
                           "ORDER BY cell_key", &s, err);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, run_id);
        for (;;) {
                rc = sqlite3_step(s);
                if (rc == SQLITE_DONE)
                        break;
                if (rc != SQLITE_ROW) {
                        r = db_error(db, rc, err, "reading done cells");
                        goto fail;
                }
                if (n + 2 > cap) {
                        size_t ncap = cap ? cap * 2 : 16;
                        char **nk = realloc(keys, ncap * sizeof(*nk));
                        if (!nk) {
                                r = error_setf(err, -ENOMEM, "out of memory");
                                goto fail;
                        }
                        keys = nk;
                        cap = ncap;
                }
                r = column_text(s, 0, COLUMN_NEEDED, &keys[n]);
                if (r < 0) {
                        char where[40];

                        snprintf(where, sizeof(where), "an ok cell of run %lld", (long long)run_id);
                        r = column_error(db, r, "cells.cell_key", where, err);
                        goto fail;
                }
                n++;
        }
        if (!keys) {
                keys = calloc(1, sizeof(*keys));
                if (!keys)
                        return error_setf(err, -ENOMEM, "out of memory");
        }
        keys[n] = NULL;
        *ret_keys = keys;
        return 0;
fail:
        for (size_t i = 0; i < n; i++)
                free(keys[i]);
        free(keys);
        return r;
}

int db_cell_next_attempt(struct db *db, int64_t run_id, const char *cell_key, int *ret_attempt,
                         struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r, rc;

        r = db_prepare(db, "SELECT coalesce(max(attempt), 0) + 1 FROM cells "
                           "WHERE run_id = ?1 AND cell_key = ?2", &s, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(s, 1, run_id) || bind_text(s, 2, cell_key))
                return db_error(db, sqlite3_errcode(db->h), err, "binding cell key");
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return db_error(db, rc, err, "reading attempts of %s", cell_key);
        *ret_attempt = sqlite3_column_int(s, 0);
        return 0;
}
