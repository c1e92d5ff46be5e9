/* store/reap: what a kbench killed without warning left in its store,
 * cleaned by the next kbench that holds the store lock (see lock.h). With
 * the lock held nothing else uses the store, so every QEMU named in the
 * embedded driver's pid files, every scratch directory and every run still
 * marked 'running' is stale: the QEMU is killed (the embedded driver then
 * drops the domain when it connects), the scratch removed and the run
 * marked 'interrupted', ready for `kbench run --resume`. */
#pragma once

#include "common/error.h"
#include "store/store.h"
#include "results/db.h"

struct reap_report {
        int qemu_killed;                   /* QEMU processes of this store still running */
        int scratch_removed;               /* entries of <store>/scratch */
        int runs_interrupted;              /* runs marked 'interrupted' */
};

/* The embedded driver's pid-file directory for g->connect, or NULL when the
 * URI is not qemu:///embed?root=... (caller g_frees). */
char *reap_run_dir(const struct store_ctx *g);

/* Reap the store of g; db may be NULL (then runs are not touched). The
 * caller holds the store lock. Returns 0 or -errno with err (database).
 * OUT: *ret. */
int reap_store(const struct store_ctx *g, struct db *db, struct reap_report *ret, struct kb_error *err);
