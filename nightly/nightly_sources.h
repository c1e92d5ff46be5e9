/* nightly/nightly_sources: the "find new kernels" step of a nightly run,
 * over the sources of a configuration. Every source gets a directory of its
 * own under <store>/sources/<id>/ (id: a digest of its type, location and
 * name prefix, so reordering the configuration changes nothing) holding its
 * state.json and, for url and apt sources, the files/ mirror they download
 * into. Each source is brought up to date (url: source_url_sync, apt:
 * source_apt_sync) and its directory scanned (source_dir_scan), so what is
 * returned is always a complete file on disk; the caller imports each with
 * kstore_add and then marks it, and a file not marked (the import failed,
 * the night was cut short) is found again the next night. A source that
 * fails is reported and the others go on. */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "nightly/nightly_config.h"
#include "kernels/source_apt.h"
#include "kernels/source_dir.h"
#include "kernels/source_url.h"

struct nightly_found {
        size_t source;             /* index into the configuration's sources */
        char *path;                /* absolute path of a file to import */
};

struct nightly_sources_opts {
        const struct source_url_opts *url;   /* NULL: defaults */
        const struct source_apt_opts *apt;   /* NULL: defaults */
        const struct source_dir_opts *dir;   /* for dir sources; NULL: defaults */
};

/* The directory of source src under store_root (caller frees, g_free). */
char *nightly_source_home(const struct nightly_source *src, const char *store_root);

/* Bring every source of cfg up to date and list the new files, in source
 * order, then name order. OUT: *ret_found (nightly_found_free), *ret_n,
 * *ret_errors (one line per failed source, "sources[I] (TYPE LOCATION):
 * why", NULL-terminated, g_strfreev; empty when all worked). opts may be
 * NULL. Returns 0, or -errno only when nothing could be looked at (the store
 * directory cannot be created). */
int nightly_sources_collect(const struct nightly_config *cfg, const char *store_root,
                            const struct nightly_sources_opts *opts, struct nightly_found **ret_found,
                            size_t *ret_n, char ***ret_errors, struct kb_error *err);

/* Record that f was imported as kernel_id (the store's id of the image),
 * in its source's state: the file is not found again, and it joins the
 * source's history. Returns 0 or -errno. */
int nightly_sources_mark(const struct nightly_config *cfg, const char *store_root, const struct nightly_found *f,
                         const char *kernel_id, struct kb_error *err);

/* One file a source yielded and the night imported. */
struct nightly_history {
        char *file;                /* its file name, no directory (owned) */
        char *kernel_id;           /* the image it became in the store (owned) */
};

/* The kernels source i yielded, in the order its files name them: file
 * names compared as versions (strverscmp: linux-image-6.1.0-9 before
 * -10), as APT's versions and a directory of dated or numbered drops
 * sort. Only files marked since marks carry their kernel (older ones are
 * not listed); a file marked again keeps its latest kernel. OUT: *ret
 * (nightly_history_free), *ret_n. Returns 0 or -errno (an unreadable
 * state file). */
int nightly_sources_history(const struct nightly_config *cfg, const char *store_root, size_t i,
                            struct nightly_history **ret, size_t *ret_n, struct kb_error *err);

void nightly_history_free(struct nightly_history *h, size_t n);   /* accepts NULL */

void nightly_found_free(struct nightly_found *f, size_t n);   /* accepts NULL */
