/* results/db: the SQLite result store. Every sample kbench measures lands here;
 * compare, nightly and publish read only this. Versioned schema (PRAGMA
 * user_version migrations from schema.sql and later steps), WAL, foreign keys.
 * A cell is written in one transaction when it ends, so an interrupted run
 * never leaves half a cell. SQL only through prepared statements. */
#pragma once

#include <stdint.h>
#include <stddef.h>

#include <sqlite3.h>

#include "common/error.h"
#include "common/vmstat-columns.h"

struct db;

/* The schema version this build writes (PRAGMA user_version after migration). */
#define DB_SCHEMA_VERSION 8

/* Columns of the agent's vmstat rows, in this order: the one list in
 * common/vmstat-columns.h (results/test-vmstat-schema.c checks schema.sql
 * against it). A value the guest's kernel did not provide is stored as NULL
 * (NAN here), never 0. */
enum {
#define X(name, width, group) DB_VM_##name = KB_VM_##name,
        KB_VMSTAT_COLUMNS(X)
#undef X
        DB_VM_NCOLS = KB_VM_NCOLS
};
extern const char *const db_vmstat_column_names[DB_VM_NCOLS];

struct db_kernel {
        const char *id;            /* sha256 hex of the kernel image (store key) */
        const char *name;          /* user-visible name, unique */
        const char *release;       /* uname -r of the kernel, may be NULL */
        const char *source;        /* what it was imported from (path of .deb / image) */
        double added_at;           /* unix time */
};

struct db_run {
        int64_t id;                /* set by db_run_create */
        const char *tag;           /* may be NULL */
        const char *settings_json; /* the full plan: kernels, workloads, repeats, VM settings */
        const char *host;          /* hostname */
        const char *host_info_json;/* cpu model, cores, memory, kernel of the host */
        const char *qemu_version;
        const char *libvirt_version;
        const char *kbench_version;
        double started_at;         /* unix time */
};

/* A libvirt host as the cells that ran on it found it. */
struct db_host {
        const char *name;          /* the run's name for it: NAME of --connect NAME=URI, else the URI */
        const char *uri;
        const char *hostname;      /* what the host calls itself */
        const char *cpu_model;
        const char *qemu_version;
        const char *libvirt_version;
        const char *info_json;     /* {"cpus": N, "mem_kib": N}, may be NULL */
};

struct db_metric {
        const char *name;          /* e.g. "dd.write_MBps" */
        double value;              /* ignored when has_value == 0 */
        int has_value;             /* 0: measured but no number (e.g. bonnie "+++++") */
        const char *unit;          /* "MB/s", "s", "ms", "%", ... */
        const char *note;          /* why there is no value, or NULL */
};

struct db_vmstat_row {
        int64_t seq;               /* record sequence number on ttyS1 */
        double t_host;             /* host arrival, seconds since the cell's QEMU start */
        double t_guest;            /* guest monotonic, seconds */
        int first;                 /* 1 for vmstat's since-boot average row */
        double v[DB_VM_NCOLS];     /* NAN when the column was absent */
};

struct db_point {
        const char *kind;          /* series name, e.g. "ftp.bytes" */
        double t;                  /* seconds since the cell's QEMU start */
        double value;
};

/* One reading of libvirt's block statistics of the disk under test. */
struct db_hostblk_row {
        double t_host;             /* seconds since the cell's QEMU start (vmstat rows' clock) */
        int64_t rd_bytes;          /* cumulative since the domain started; -1: not reported */
        int64_t wr_bytes;          /* same */
        int64_t rd_reqs;           /* read requests, cumulative; -1: not reported */
        int64_t wr_reqs;           /* write requests, cumulative; -1: not reported */
};

/* One event the guest sent on ttyS1: a phase mark the job wrote to fd 3
 * ("phase write", "sync-start"), or the agent's own ("mounted"). */
struct db_mark {
        const char *name;          /* the event's text */
        double t_guest;            /* guest monotonic when it was made, s */
        double t_host;             /* arrival, s since the cell's QEMU start; NAN: unknown */
};

/* One row of a cell's profile (results/profile.h): the instructions the
 * kernel executed in one function during one phase. */
struct db_profile_row {
        const char *phase;         /* "write", as in guest.write.kernel_Minsn */
        const char *symbol;        /* "vfs_write", "ext4_map_blocks [ext4]", "[unknown]" */
        int64_t insns;             /* > 0 */
};

struct db_log {
        const char *stream;        /* "console" (ttyS0), "data" (raw ttyS1), "script", ... */
        const char *text;          /* may be large */
        size_t len;
};

struct db_cell {
        int64_t run_id;
        const char *cell_key;      /* stable id within the run, e.g. "c007" */
        const char *kernel_id;     /* db_kernel.id */
        const char *workload;      /* "dd" */
        const char *params_json;   /* resolved workload keys and VM settings of this cell */
        int iteration;             /* 0-based repeat index */
        int attempt;               /* 1-based; >1 after infra retries */
        const char *state;         /* ok, infra-error, boot-timeout, boot-crash, runtime-crash,
                                      hang, workload-failure, corrupt-output */
        const char *detail;        /* one line: why it ended so (stage reached, quoted line) */
        const char *accel;         /* "kvm" or "tcg" */
        double started_at;         /* unix time of QEMU start */
        double boot_s;             /* QEMU start -> agent ready */
        double workload_s;         /* go -> done */
        double total_s;            /* QEMU start -> domain gone */
        int exit_code;             /* job exit code, -1 if none */
        long rejected_records;     /* ttyS1 lines rejected (stray, malformed, crc, seq) */
        int64_t host_id;           /* hosts.id of the host it ran on; 0: the run's own host */
        size_t n_metrics;   const struct db_metric *metrics;
        size_t n_vmstat;    const struct db_vmstat_row *vmstat;
        size_t n_points;    const struct db_point *points;
        size_t n_hostblk;   const struct db_hostblk_row *hostblk;   /* in time order */
        size_t n_marks;     const struct db_mark *marks;            /* in arrival order */
        size_t n_logs;      const struct db_log *logs;
        size_t n_profile;   const struct db_profile_row *profile;
        /* Every name of the symbol table the profile was resolved with,
         * for kernel_symbols: stored when the kernel's stored names are
         * fewer (the first cell of a kernel, or one whose boot loaded
         * modules the earlier ones did not). */
        size_t n_kernel_symbols; const char *const *kernel_symbols;
};

/* Open (creating and migrating as needed) the database at path. Returns 0 and
 * *ret (caller frees with db_close), or -errno with err naming the file. A
 * database whose user_version is newer than this build is refused.
 *
 * What a kbench database is, for every verb (docs/schema.md): a regular
 * SQLite file whose user_version is 1..DB_SCHEMA_VERSION and which has
 * every table of that version. Only a path where no file exists becomes a
 * new database (db_open); an existing file that is empty (0 bytes, or
 * SQLite with no schema) is -ENODATA "empty, not a kbench results
 * database", anything else not so is -EBADMSG, and neither is changed. */
int db_open(const char *path, struct db **ret, struct kb_error *err);
/* Like db_open, but a missing file is -ENOENT ("no results database at
 * PATH") instead of being created: for readers (show, compare, publish). */
int db_open_existing(const char *path, struct db **ret, struct kb_error *err);
/* Check the file's structure: PRAGMA integrity_check when full, else the
 * cheaper quick_check (no index-content cross-check). Returns 0 when SQLite
 * answers "ok", -EBADMSG with err naming the file, the number of problems
 * and the first one, or another -errno. */
int db_check(struct db *db, int full, struct kb_error *err);
/* One row of PRAGMA integrity_check/quick_check: the number of problems it
 * holds (one a line, at least 1), and into first (size bytes), if first is
 * still empty, the first of them without its newline. For db_check and its
 * tests. */
size_t db_check_row(const char *row, char *first, size_t size);
/* The schema of db's version as the migration steps make it, in an empty
 * database in memory: what db_open checks the file's tables and columns
 * against, and what results/dbcheck.c reads the columns' types, NOT NULL
 * and references from. OUT: *ret (sqlite3_close). */
int db_schema_reference(struct db *db, sqlite3 **ret, struct kb_error *err);
/* Tell absence from damage. SQLite does not notice every damaged page: a
 * query through a broken index may end early and return nothing, and the
 * reader would then report a false cause ("run 1 has no cells", "kernel X
 * has no runs of its own"). So before a reader reports that something is
 * not there, it passes its answer here: r 0 (an empty answer), -ENOENT or
 * -EINVAL (not found, not resolvable) runs db_check's quick_check, and a
 * damaged file's error replaces err and r. Any other r is returned as it
 * is. Costs a read of the whole file, on those paths only. */
int db_blame(struct db *db, int r, struct kb_error *err);
struct db *db_close(struct db *db);   /* accepts NULL, returns NULL */
/* The path db was opened with (owned by db), for messages. */
const char *db_path(const struct db *db);

/* Mark every run still 'running' as 'interrupted'. Only for a caller that
 * holds the store lock: then no run can really be running. OUT: *ret_n
 * (may be NULL), the number of runs marked. */
int db_runs_interrupt(struct db *db, int *ret_n, struct kb_error *err);

/* Insert or update a kernel row (keyed by id). If another kernel (other id)
 * holds k->name, that older row is renamed "<name>~<first 12 hex of its id>"
 * so its results stay attached to a distinct, findable name. */
int db_kernel_upsert(struct db *db, const struct db_kernel *k, struct kb_error *err);

/* Create a run row (status "running"); sets run->id. started_at <= 0 means now. */
int db_run_create(struct db *db, struct db_run *run, struct kb_error *err);
/* The hosts row of h, made when no row says the same of it. OUT: *ret_id. */
int db_host_upsert(struct db *db, const struct db_host *h, int64_t *ret_id, struct kb_error *err);
/* Mark a run finished (finished_at = now, status text e.g. "complete", "interrupted"). */
int db_run_finish(struct db *db, int64_t run_id, const char *status, struct kb_error *err);
/* Mark a run running again (status "running", no finished_at), for --resume. */
int db_run_reopen(struct db *db, int64_t run_id, struct kb_error *err);
/* Set one key of a run's settings JSON to json_value (JSON text), for what
 * a run learns while it runs (the repeats an --until-mde run stopped at);
 * the key must be declared HOW (settings/runopts.c) so pairing ignores it.
 * Keys must not contain '"'. -ENOENT when the run does not exist. */
int db_run_set_setting(struct db *db, int64_t run_id, const char *key, const char *json_value,
                       struct kb_error *err);

/* Store one finished cell with everything it measured, in one transaction.
 * OUT: *ret_cell_id (may be NULL). Nothing is written if any part fails. */
int db_cell_insert(struct db *db, const struct db_cell *cell, int64_t *ret_cell_id,
                   struct kb_error *err);

/* The marks of a cell stored without them (before schema version 5, or a
 * pending cell written by a kbench of then), from its raw ttyS1 log (text,
 * len bytes: untrusted, as the guest sent it) with the one record parser
 * (common/proto.h): every event record with a good CRC, in order; lines
 * that are not good records are skipped, as the cell skipped them. The
 * log has no arrival times, so t_host is placed the way the charts placed
 * such marks before: boot_s (the host time of the first ready record) plus
 * the guest time since that record; NAN before any ready record or when
 * boot_s is not finite. A name is cut at a NUL byte, as the cell cuts it.
 * OUT: *ret (db_marks_free; NULL when none), *ret_n. Returns 0 or -ENOMEM. */
int db_marks_from_log(const char *text, size_t len, double boot_s, struct db_mark **ret, size_t *ret_n);
/* Free what db_marks_from_log made (its names too); accepts NULL. */
void db_marks_free(struct db_mark *m, size_t n);

/* Cell keys already stored with state "ok" for a run (for --resume).
 * OUT: *ret_keys, a NULL-terminated array the caller frees (each string and
 * the array, with free()). */
int db_run_done_keys(struct db *db, int64_t run_id, char ***ret_keys, struct kb_error *err);

/* The attempt number the next try of cell_key in run_id gets: 1 + the
 * highest stored attempt, 1 if none. OUT: *ret_attempt. */
int db_cell_next_attempt(struct db *db, int64_t run_id, const char *cell_key, int *ret_attempt,
                         struct kb_error *err);

/* The underlying handle, for results/query.c. */
struct sqlite3 *db_handle(struct db *db);

/* For results/query.c: prepare sql on db's connection; a failure is a
 * db_error ("PATH: prepare: <sqlite message>"). OUT: *ret (caller
 * finalizes, e.g. through _cleanup_stmt_). */
int db_prepare(struct db *db, const char *sql, sqlite3_stmt **ret, struct kb_error *err);

/* For results/query.c: turn a failed sqlite3 result code rc into -errno and
 * fill err with "PATH: <what>: <sqlite message>". Returns the -errno. */
int db_error(struct db *db, int rc, struct kb_error *err, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* For results/: run sql, which returns no rows, on db's connection (a
 * transaction's BEGIN, COMMIT, a pragma); a failure is a db_error. */
int db_exec(struct db *db, const char *sql, struct kb_error *err);

/* One bound parameter of a statement, for results/: ?1 is the first of a
 * list, ?2 the next. Written with the macros below, as a list:
 * DB_ARGS(DB_INT(run_id), DB_TEXT(key)). */
struct db_param {
        enum { DB_PARAM_NULL, DB_PARAM_INT, DB_PARAM_REAL, DB_PARAM_TEXT, DB_PARAM_BLOB } type;
        int64_t i;                 /* DB_PARAM_INT */
        double d;                  /* DB_PARAM_REAL */
        const void *p;             /* DB_PARAM_TEXT (copied when bound), DB_PARAM_BLOB (not copied) */
        int n;                     /* bytes of p; -1: up to its NUL */
};
#define DB_NULL { .type = DB_PARAM_NULL }
#define DB_INT(v) { .type = DB_PARAM_INT, .i = (v) }
/* A NULL string binds SQL NULL. */
#define DB_TEXT(v) { .type = DB_PARAM_TEXT, .p = (v), .n = -1 }
#define DB_TEXTN(v, len) { .type = DB_PARAM_TEXT, .p = (v), .n = (int)(len) }
/* A non-finite number binds SQL NULL: not measured. */
#define DB_REAL(v) { .type = DB_PARAM_REAL, .d = (v) }
/* Bound SQLITE_STATIC: the bytes must last until the statement steps. */
#define DB_BLOB(v, len) { .type = DB_PARAM_BLOB, .p = (v), .n = (int)(len) }
/* A parameter list and its length, for the functions below. */
#define DB_ARGS(...) (const struct db_param[]){ __VA_ARGS__ }, \
        sizeof((const struct db_param[]){ __VA_ARGS__ }) / sizeof(struct db_param)
#define DB_NO_ARGS NULL, 0

/* For results/: reset s and bind params to it from ?1 on; a failure is a
 * db_error "<what>: binding ?N". */
int db_bind(struct db *db, sqlite3_stmt *s, const struct db_param *params, size_t n_params, const char *what,
            struct kb_error *err);
/* For results/: run the prepared statement s with params to its end (its
 * rows, if any, ignored); again and again for the rows of a table. A
 * failure is a db_error naming what ("storing metric"). */
int db_step_args(struct db *db, sqlite3_stmt *s, const struct db_param *params, size_t n_params, const char *what,
                 struct kb_error *err);
/* For results/: run sql, which changes rows and returns none, with params.
 * OUT: *ret_changes (may be NULL), the rows it changed. A failure is a
 * db_error naming what ("finishing run"). */
int db_write(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
             int *ret_changes, struct kb_error *err);
/* For results/: run sql with params, which returns one row, and read its
 * first column as an integer: a pragma, a count, an INSERT ... RETURNING
 * id. No row, or a failure, is a db_error naming what. OUT: *ret. */
int db_one_int64(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
                 int64_t *ret, struct kb_error *err);

/* For results/: the time of day, unix seconds with their fraction: what
 * a row's started_at or finished_at holds when its writer gives none. */
double db_now(void);

/* For results/: prepare sql, which returns rows, and bind params to it:
 * a failure is a db_error (a binding's naming what). OUT: *ret (caller
 * finalizes, e.g. through _cleanup_stmt_), stepped with db_row. */
int db_query(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
             sqlite3_stmt **ret, struct kb_error *err);
/* For results/: step s to its next row. Returns 1 on a row, 0 past the
 * last, or a db_error naming what ("reading the nights"). */
int db_row(struct db *db, sqlite3_stmt *s, const char *what, struct kb_error *err);

/* For results/: db_query and db_row once: s on the first row of sql.
 * Returns 1 on a row, 0 when there is none (the caller says what is
 * missing), or a db_error naming what. OUT: *ret on 0 and 1 (caller
 * finalizes). */
int db_query_row(struct db *db, const char *sql, const struct db_param *params, size_t n_params, const char *what,
                 sqlite3_stmt **ret, struct kb_error *err);

static inline void db_finalizep(sqlite3_stmt **s) {
        if (*s)
                sqlite3_finalize(*s);
}
#define _cleanup_stmt_ __attribute__((cleanup(db_finalizep)))
