/* store/store: which store a command works on, and the paths inside it.
 * Every floor that touches the store's directory takes this context; only
 * cli/ makes one (from --store, --db, --connect and the environment). */
#pragma once

#include "common/error.h"

struct store_ctx {
        char *home;                /* store root: --store, $KBENCH_HOME, $XDG_DATA_HOME/kbench */
        char *db_path;             /* --db, default <home>/results.db */
        char *connect;             /* --connect URI, default qemu:///embed?root=<home>/libvirt: the
                                      embedded driver keeps its state in the store; with several, the
                                      first's URI */
        char **hosts;              /* every --connect [NAME=]URI given, NULL-terminated; NULL: none
                                      (the run's cells run on connect) */
};

struct db;
struct kstore;

/* What a verb works on, opened for it by cli/ as the verb's row in the
 * verb table declares (cli/setup.c: the store's directory and lock, the
 * kernel store, the database). No floor below cli/ opens any of them: a
 * pump (run, bisect, nightly) checks its request first, so that a usage
 * error is not hidden behind a missing store, then asks for the parts it
 * is about to use with store_session_open; a part already open stays.
 * Owned by cli/, which closes it after the verb. */
struct store_session {
        struct db *db;             /* the results database, or NULL: not (yet) opened */
        struct kstore *ks;         /* the kernel store, or NULL: not (yet) opened */
        int (*open)(struct store_session *s, unsigned parts, struct kb_error *err);   /* cli/'s setup */
};

/* The parts a pump asks for, in this order: the store once its request
 * is checked, the database once the request is resolved against the
 * store's kernels (a request refused for its kernels makes no database). */
enum store_part {
        STORE_PART_STORE = 1 << 0, /* the directory, the lock, the kernel store */
        STORE_PART_DB = 1 << 1,    /* the results database */
};

/* Open the parts of what the verb declared (s->open). Returns 0, or
 * -errno with err saying why in one line (a store that is not there, the
 * lock's holder). */
static inline int store_session_open(struct store_session *s, unsigned parts, struct kb_error *err) {
        return s->open(s, parts, err);
}

/* Which verbs may create a store (docs/reference.md, "Which verbs create a store"):
 * those that put a kernel in it, kernel add, kernel build, nightly and
 * bisect --git, once their usage is checked, and the caller says so
 * ("kbench: creating the store DIR"). Every other verb, run and doctor
 * included, refuses a store directory that does not exist, so a mistyped
 * --store creates nothing. Nothing else creates one: the lock does not.
 * Returns 0 when s->home is a directory, 1 when it was made now (create),
 * else -errno with err naming it. */
int store_prepare(const struct store_ctx *s, int create, struct kb_error *err);

/* Paths under the store. Caller frees (g_free). */
char *store_kernels_dir(const struct store_ctx *s);   /* <home>/kernels */
char *store_cache_dir(const struct store_ctx *s);     /* <home>/cache */
