/* harness/cli: what every verb (cli_<verb>.c) shares: the global options and
 * the one-line error printer. main.c holds the verb table. */
#pragma once

#include "common/error.h"

struct cli_global {
        char *home;                /* store root: --store, $KBENCH_HOME, $XDG_DATA_HOME/kbench */
        char *db_path;             /* --db, default <home>/results.db */
        char *connect;             /* --connect URI, default qemu:///embed?root=<home>/libvirt */
};

/* Each verb: parses its own options (GOptionContext, so --help works) from
 * argv[0] = verb name onwards. Returns the process exit code: 0 ok, 1 failure,
 * 2 usage error. */
int cli_kernel(int argc, char **argv, const struct cli_global *g);
int cli_run(int argc, char **argv, const struct cli_global *g);
int cli_show(int argc, char **argv, const struct cli_global *g);
int cli_compare(int argc, char **argv, const struct cli_global *g);
int cli_doctor(int argc, char **argv, const struct cli_global *g);
int cli_vmstat(int argc, char **argv, const struct cli_global *g);
int cli_publish(int argc, char **argv, const struct cli_global *g);
int cli_nightly(int argc, char **argv, const struct cli_global *g);

/* Print "kbench: <message>" on stderr; returns 1 (the failure exit code). */
int cli_error(const struct kb_error *err);
int cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Which verbs may create a store (README, "The store"): run, nightly and
 * kernel add, which say so on stderr ("kbench: creating the store DIR");
 * every other verb, doctor included, refuses a store directory that does
 * not exist, so a mistyped --store creates nothing. Returns 0 when g->home
 * is a directory (made now when create), else -errno with err naming it. */
int cli_store_prepare(const struct cli_global *g, int create, struct kb_error *err);

/* Paths under the store. Caller frees (g_free). */
char *cli_kernels_dir(const struct cli_global *g);   /* <home>/kernels */
char *cli_cache_dir(const struct cli_global *g);     /* <home>/cache */
