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

/* Which verbs may create a store (README, "Which verbs create a store"):
 * those that put a kernel in it, kernel add, kernel build, nightly and
 * bisect --git, once their usage is checked; they say so on stderr
 * ("kbench: creating the store DIR"). Every other verb, run and doctor
 * included, refuses a store directory that does not exist, so a mistyped
 * --store creates nothing. Nothing else creates one: the lock does not.
 * Returns 0 when s->home is a directory (made now when create), else
 * -errno with err naming it. */
int store_prepare(const struct store_ctx *s, int create, struct kb_error *err);

/* Paths under the store. Caller frees (g_free). */
char *store_kernels_dir(const struct store_ctx *s);   /* <home>/kernels */
char *store_cache_dir(const struct store_ctx *s);     /* <home>/cache */
