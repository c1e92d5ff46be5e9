/* results/db.c: the connection to the SQLite result store (see db.h).
 * Opening a database configures the connection (WAL, foreign keys, busy
 * timeout, no trust in the file's schema), checks the file against its
 * schema version and migrates it (dbschema.c); the statement helpers here
 * (db_bind, db_write, db_one_int64, db_query and db_row) are how the rest
 * of results/ runs SQL: prepared, with bound parameters, never built from
 * data. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "results/cellstate.h"
#include "results/db.h"
#include "results/dbschema.h"

struct db {
        sqlite3 *h;
        char *path;
        int readonly;              /* opened SQLITE_OPEN_READONLY: the store is not writable */
};

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

int db_exec(struct db *db, const char *sql, struct kb_error *err) {
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

/* ---- statements with bound parameters ---------------------------------- */

static int db_bind_one(sqlite3_stmt *s, int i, const struct db_param *p) {
        switch (p->type) {
        case DB_PARAM_INT:
                return sqlite3_bind_int64(s, i, p->i);
        case DB_PARAM_REAL:
                return isfinite(p->d) ? sqlite3_bind_double(s, i, p->d) : sqlite3_bind_null(s, i);
        case DB_PARAM_TEXT:
                return p->p ? sqlite3_bind_text(s, i, p->p, p->n, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
        case DB_PARAM_BLOB:
                return sqlite3_bind_blob(s, i, p->p, p->n, SQLITE_STATIC);
        case DB_PARAM_NULL:
                break;
        }
        return sqlite3_bind_null(s, i);
}

int db_bind(struct db *db, sqlite3_stmt *s, const struct db_param *params, size_t n_params, const char *what,
            struct kb_error *err) {
        sqlite3_reset(s);
        for (size_t i = 0; i < n_params; i++) {
                int rc = db_bind_one(s, (int)i + 1, &params[i]);

                if (rc != SQLITE_OK)
                        return db_error(db, rc, err, "%s: binding ?%zu", what, i + 1);
        }
        return 0;
}

int db_step_args(struct db *db, sqlite3_stmt *s, const struct db_param *params, size_t n_params, const char *what,
                 struct kb_error *err) {
        int r = db_bind(db, s, params, n_params, what, err), rc;

        if (r < 0)
                return r;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
                ;
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "%s", what);
        return 0;
}

int db_write(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
             int *ret_changes, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, sql, &s, err);

        if (r >= 0)
                r = db_step_args(db, s, params, n_params, what, err);
        if (r < 0)
                return r;
        if (ret_changes)
                *ret_changes = sqlite3_changes(db->h);
        return 0;
}

double db_now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int db_query(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
             sqlite3_stmt **ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, sql, &s, err);

        if (r >= 0)
                r = db_bind(db, s, params, n_params, what, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int db_row(struct db *db, sqlite3_stmt *s, const char *what, struct kb_error *err) {
        int rc = sqlite3_step(s);

        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return db_error(db, rc, err, "%s", what);
}

int db_query_row(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
                 sqlite3_stmt **ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_query(db, sql, params, n_params, what, &s, err);

        if (r >= 0)
                r = db_row(db, s, what, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return r;
}

int db_one_int64(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
                 int64_t *ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_query_row(db, sql, params, n_params, what, &s, err);

        if (r < 0)
                return r;
        /* No row is an error too: the caller counted on one. */
        if (r == 0)
                return db_error(db, SQLITE_DONE, err, "%s", what);
        *ret = sqlite3_column_int64(s, 0);
        return 0;
}

/* ---- opening ------------------------------------------------------------ */

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
        r = dbschema_version(db, &v, err);
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
                r = db_one_int64(db, "SELECT count(*) FROM sqlite_schema", DB_NO_ARGS, "reading the schema",
                                 &objects, err);
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
                r = dbschema_check(db, v, err);
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
        return dbschema_migrate(db, v, err);
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

int db_schema_reference(struct db *db, sqlite3 **ret, struct kb_error *err) {
        int r, v;

        r = dbschema_version(db, &v, err);
        return r < 0 ? r : dbschema_reference(db, v, ret, err);
}

/* ---- checks ------------------------------------------------------------- */

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
                if (cellstate_is(t, CELLSTATE_OK))
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
