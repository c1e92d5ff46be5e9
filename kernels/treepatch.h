/* kernels/treepatch: a kernel source that kbench owns (an unpacked
 * linux-source tarball, its copy of a user's tree) patched in place, one
 * patch set at a time. Every patch set of a source so builds in one tree,
 * and so in one O= tree: a plant of a few lines recompiles those files and
 * links, in seconds, not a copy of the tree from scratch.
 *
 * In the tree kbench keeps a manifest (.kbench-patched: the files the last
 * patch set touched, one a line) and the pristine copy of each of them
 * that existed before (.kbench-orig/; a file a patch created has none).
 * Before a file is first patched its pristine copy is kept, and the
 * manifest names the files before any patch runs, so a build killed half
 * way is undone by the next. */
#pragma once

#include "common/error.h"

/* Bytes of one patch, at most: kernel build checks its --patch files
 * against it before it starts, treepatch_apply reads them up to it. */
#define TREEPATCH_MAX (64u << 20)

/* Runs argv in cwd ("patch -p1 ..."); what names it in an error. Returns
 * 0 or -errno with err set. */
typedef int (*treepatch_run_fn)(char **argv, const char *cwd, const char *what, void *userdata,
                                struct kb_error *err);

/* Undo the last patch set in dir: every file the manifest names back from
 * its pristine copy, or removed when it had none. The copies stay: they
 * are pristine whatever happens next, so a restore killed half way through
 * is finished by the next. A tree never patched is left as it is. Returns
 * 0 or -errno with err naming the tree. */
int treepatch_restore(const char *dir, struct kb_error *err);

/* The last patch set undone, then patches (NULL-terminated; NULL or empty:
 * the pristine tree) applied in order with patch -p1 through run. A patch
 * naming a path that leaves the tree is refused before anything changes.
 * Returns 0 or -errno with err set. */
int treepatch_apply(const char *dir, char *const *patches, treepatch_run_fn run, void *userdata,
                    struct kb_error *err);
