/* results/profile.c: the profile tables (see profile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "results/column.h"
#include "results/profile.h"

/* The statements a cell's insert reuses for every name. */
struct names {
        sqlite3_stmt *insert, *select;
};

static void names_clear(struct names *n) {
        sqlite3_finalize(n->insert);
        sqlite3_finalize(n->select);
}

static int names_prepare(struct db *db, struct names *n, struct kb_error *err) {
        int r = db_prepare(db, "INSERT OR IGNORE INTO symbols(name) VALUES (?1)", &n->insert, err);

        return r < 0 ? r : db_prepare(db, "SELECT id FROM symbols WHERE name = ?1", &n->select, err);
}

/* The id of name in symbols, made when new. */
static int name_id(struct db *db, struct names *n, const char *name, int64_t *ret, struct kb_error *err) {
        char what[128];
        int r;

        snprintf(what, sizeof(what), "storing the symbol %.80s", name);
        r = db_step_args(db, n->insert, DB_ARGS(DB_TEXT(name)), what, err);
        if (r < 0)
                return r;
        if (sqlite3_changes(db_handle(db)) == 1) {
                *ret = sqlite3_last_insert_rowid(db_handle(db));
                return 0;
        }
        snprintf(what, sizeof(what), "reading the symbol %.80s", name);
        r = db_bind(db, n->select, DB_ARGS(DB_TEXT(name)), what, err);
        if (r >= 0)
                r = db_row(db, n->select, what, err);
        if (r == 0)
                r = db_error(db, SQLITE_DONE, err, "%s", what);
        if (r < 0)
                return r;
        *ret = sqlite3_column_int64(n->select, 0);
        return 0;
}

static int insert_rows(struct db *db, struct names *names, const struct db_cell *c, int64_t cell_id,
                       struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = db_prepare(db, "INSERT INTO profile(cell_id, phase, symbol_id, insns) VALUES (?1, ?2, ?3, ?4)", &s,
                           err);
        char what[128];

        snprintf(what, sizeof(what), "cell %s: storing its profile", c->cell_key);
        for (size_t i = 0; r >= 0 && i < c->n_profile; i++) {
                const struct db_profile_row *p = &c->profile[i];
                int64_t id;

                if (!p->phase || !p->symbol || p->insns <= 0)
                        return error_setf(err, -EINVAL, "cell %s: a profile row without phase, symbol or "
                                          "instructions", c->cell_key);
                r = name_id(db, names, p->symbol, &id, err);
                if (r >= 0)
                        r = db_step_args(db, s, DB_ARGS(DB_INT(cell_id), DB_TEXT(p->phase), DB_INT(id),
                                                        DB_INT(p->insns)), what, err);
        }
        return r;
}

/* The kernel's names, when it has fewer stored than c gives. */
static int insert_kernel_names(struct db *db, struct names *names, const struct db_cell *c,
                               struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int64_t stored = 0;
        char what[128];
        int r;

        snprintf(what, sizeof(what), "counting the symbols of kernel %s", c->kernel_id);
        r = db_one_int64(db, "SELECT count(*) FROM kernel_symbols WHERE kernel_id = ?1",
                         DB_ARGS(DB_TEXT(c->kernel_id)), what, &stored, err);
        if (r < 0 || (uint64_t)stored >= c->n_kernel_symbols)
                return r;
        snprintf(what, sizeof(what), "storing the symbols of kernel %s", c->kernel_id);
        r = db_prepare(db, "INSERT OR IGNORE INTO kernel_symbols(kernel_id, symbol_id) VALUES (?1, ?2)", &s, err);
        for (size_t i = 0; r >= 0 && i < c->n_kernel_symbols; i++) {
                int64_t id;

                r = name_id(db, names, c->kernel_symbols[i], &id, err);
                if (r >= 0)
                        r = db_step_args(db, s, DB_ARGS(DB_TEXT(c->kernel_id), DB_INT(id)), what, err);
        }
        return r;
}

int db_profile_insert(struct db *db, const struct db_cell *c, int64_t cell_id, struct kb_error *err) {
        struct names names = { 0 };
        int r;

        if (c->n_profile == 0 && c->n_kernel_symbols == 0)
                return 0;
        r = names_prepare(db, &names, err);
        if (r >= 0)
                r = insert_rows(db, &names, c, cell_id, err);
        if (r >= 0 && c->n_kernel_symbols)
                r = insert_kernel_names(db, &names, c, err);
        names_clear(&names);
        return r;
}

void db_profile_entries_free(struct db_profile_entry *v, size_t n) {
        for (size_t i = 0; v && i < n; i++)
                free(v[i].symbol);
        free(v);
}

int db_profile_read(struct db *db, int64_t cell_id, const char *phase, struct db_profile_entry **ret,
                    size_t *ret_n, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        struct db_profile_entry *v = NULL;
        size_t n = 0, cap = 0;
        char what[64], where[64];
        int r;

        snprintf(what, sizeof(what), "reading the profile of cell %lld", (long long)cell_id);
        snprintf(where, sizeof(where), "cell %lld phase %.30s", (long long)cell_id, phase);
        r = db_query(db, "SELECT y.name, p.insns FROM profile p LEFT JOIN symbols y ON y.id = p.symbol_id "
                         "WHERE p.cell_id = ?1 AND p.phase = ?2", DB_ARGS(DB_INT(cell_id), DB_TEXT(phase)), what, &s,
                     err);
        while (r >= 0 && (r = db_row(db, s, what, err)) > 0) {
                if (n == cap) {
                        struct db_profile_entry *nv = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

                        if (!nv) {
                                r = error_setf(err, -ENOMEM, "out of memory");
                                break;
                        }
                        v = nv;
                }
                r = column_text(s, 0, COLUMN_NEEDED, &v[n].symbol);
                if (r < 0) {
                        r = column_error(db, r, "symbols.name", where, err);
                        break;
                }
                r = column_int64(s, 1, COLUMN_NEEDED, 0, &v[n].insns);
                n++;
                if (r == 0 && v[n - 1].insns <= 0)
                        r = -EDOM;
                if (r < 0)
                        r = column_error(db, r, "profile.insns", where, err);
        }
        if (r < 0) {
                db_profile_entries_free(v, n);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

int db_profile_kernel_has(struct db *db, const char *kernel_id, const char *symbol, int *ret,
                          struct kb_error *err) {
        char what[128];
        int64_t v = 0;
        int r;

        snprintf(what, sizeof(what), "reading the symbols of kernel %s", kernel_id);
        r = db_one_int64(db, "SELECT CASE WHEN EXISTS (SELECT 1 FROM kernel_symbols WHERE kernel_id = ?1) "
                             "THEN EXISTS (SELECT 1 FROM kernel_symbols k JOIN symbols y ON y.id = k.symbol_id "
                             "WHERE k.kernel_id = ?1 AND y.name = ?2) ELSE -1 END",
                         DB_ARGS(DB_TEXT(kernel_id), DB_TEXT(symbol)), what, &v, err);
        if (r >= 0)
                *ret = (int)v;
        return r;
}
