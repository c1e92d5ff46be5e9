/* web/output: writing the site's files so that publishing again costs
 * nothing when nothing changed, and a reader (a web server, a browser on
 * file://) never sees a half-written page. A page is written only when its
 * bytes differ from the file on disk, through a temporary file in the same
 * directory renamed over the old one. Pages of an earlier pass that this
 * pass did not produce (a comparison no longer asked for) are removed, so
 * the site never links to or serves stale results.
 *
 * A directory is a kbench site when it holds OUTPUT_MANIFEST: its first line
 * "kbench site v1", then one line per page kbench wrote there. Only files
 * the manifest names are ever replaced or removed; a name is added before
 * its page first appears, so a publish killed half-way still owns what it
 * wrote. A missing or empty directory becomes a site; a non-empty one
 * without the manifest is refused unless forced, and a file the manifest
 * does not name is never replaced unless forced (then it is taken over).
 *
 * A manifest entry is followed only when it is a page name kbench could
 * have written (no '/', no leading '.') and, if it exists, a regular
 * file: anything else (a directory, a link, "../x") is dropped from the
 * manifest with a note, never removed or replaced. While a site is open
 * its directory is locked (flock), so publishes into one site take turns
 * instead of refusing each other's pages. */
#pragma once

#include <stddef.h>

#include <glib.h>

#include "common/error.h"

#define OUTPUT_MANIFEST ".kbench-site"

struct output {
        char *dir;                 /* the site's directory (owned) */
        char *manifest;            /* dir/OUTPUT_MANIFEST (owned) */
        int force;                 /* write into a directory that is not a site, replace files not in the manifest */
        size_t written;            /* pages whose bytes changed (or were new) */
        size_t unchanged;          /* pages left as they were */
        size_t removed;            /* stale pages of an earlier pass removed */
        GHashTable *names;         /* pages of this pass (owned) */
        GHashTable *owned;         /* pages the manifest says kbench wrote (owned) */
        int lock_fd;               /* the directory, flock()ed while open; -1 when closed */
        size_t dropped;            /* manifest entries dropped: not pages kbench writes */
        char dropped_note[256];    /* the first of them and why, for a note; "" when none */
};

/* output_open's flags. */
#define OUTPUT_FORCE 1             /* --force: write into a directory that is not a site, and take over the
                                      files whose names the pages take */
#define OUTPUT_ADOPT 2             /* the store's own site: one without a manifest (written before kbench
                                      kept one) is kbench's, taken over as OUTPUT_FORCE would for this pass;
                                      one with a manifest follows the manifest, as every site */

/* Start writing into dir, creating it (and its parents) if needed, and
 * wait for any other publish into it to end (the lock is held until
 * output_close); flags: OUTPUT_FORCE, OUTPUT_ADOPT. Returns 0, or -errno
 * with err naming dir: -EEXIST a non-empty directory that is not a kbench
 * site (unless forced or adopted), -ENOTDIR, -EBADMSG a manifest that is
 * not kbench's. */
int output_open(struct output *o, const char *dir, unsigned flags, struct kb_error *err);
void output_close(struct output *o);

/* Write buf (len bytes) as dir/name unless the file already holds exactly
 * these bytes. name is a file name the site built (no '/', no leading
 * '.'). Counts the page as written or unchanged. Returns 0 or -errno with
 * err naming the file (-EEXIST: a file kbench did not write, not forced). */
int output_write(struct output *o, const char *name, const char *buf, size_t len, struct kb_error *err);

/* Remove the pages the manifest names that this pass did not write or
 * keep, and rewrite the manifest as this pass's pages. Returns 0 or -errno
 * with err naming the file. */
int output_prune(struct output *o, struct kb_error *err);
