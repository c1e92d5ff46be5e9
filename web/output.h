/* web/output: writing the site's files so that publishing again costs
 * nothing when nothing changed, and a reader (a web server, a browser on
 * file://) never sees a half-written page. A page is written only when its
 * bytes differ from the file on disk, through a temporary file in the same
 * directory renamed over the old one. */
#pragma once

#include <stddef.h>

#include "common/error.h"

struct output {
        char *dir;                 /* the site's directory (owned) */
        size_t written;            /* pages whose bytes changed (or were new) */
        size_t unchanged;          /* pages left as they were */
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
