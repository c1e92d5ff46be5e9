/* web/output: writing the site's files so that publishing again costs
 * nothing when nothing changed, and a reader (a web server, a browser on
 * file://) never sees a half-written page. A page is written only when its
 * bytes differ from the file on disk, through a temporary file in the same
 * directory renamed over the old one. Pages of an earlier pass that this
 * pass did not produce (a comparison no longer asked for) are removed, so
 * the site never links to or serves stale results; only files the site
 * names itself are touched. */
#pragma once

#include <stddef.h>

#include <glib.h>

#include "common/error.h"

struct output {
        char *dir;                 /* the site's directory (owned) */
        size_t written;            /* pages whose bytes changed (or were new) */
        size_t unchanged;          /* pages left as they were */
        size_t removed;            /* stale pages of an earlier pass removed */
        GHashTable *names;         /* pages of this pass (owned) */
};

/* Start writing into dir, creating it (and its parents) if needed.
 * Returns 0 or -errno with err naming dir. */
int output_open(struct output *o, const char *dir, struct kb_error *err);
void output_close(struct output *o);

/* Write buf (len bytes) as dir/name unless the file already holds exactly
 * these bytes. name is a file name the site built (no '/', no leading
 * '.'). Counts the page as written or unchanged. Returns 0 or -errno with
 * err naming the file. */
int output_write(struct output *o, const char *name, const char *buf, size_t len, struct kb_error *err);

/* Remove the files in dir that look like the site's pages (is_page(name)
 * is true) and were not written or kept by this pass. Returns 0 or -errno
 * with err naming the file. */
int output_prune(struct output *o, int (*is_page)(const char *name), struct kb_error *err);
