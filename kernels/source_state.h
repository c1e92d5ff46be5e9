/* kernels/source_state: what the nightly kernel sources remember between
 * nights, in one small JSON file in the store (<store>/sources/state.json):
 * per URL the validators of the last fetch (ETag, Last-Modified) and where
 * the file was put, per directory entry the size and mtime it had when it was
 * imported. Losing the file costs only a re-download or a re-import (both are
 * idempotent in the store), so it is a cache, written atomically (temporary
 * file, fsync, rename) so that a crash leaves the old or the new version. */
#pragma once

#include <jansson.h>

#include "common/error.h"

/* Bound on the state file, bytes. */
#define SOURCE_STATE_MAX ((size_t)16 << 20)

struct source_state;

/* Read the state at path; a missing file is an empty state. A file that is
 * not a JSON object is -EINVAL naming it. OUT: *ret (source_state_free). */
int source_state_open(const char *path, struct source_state **ret, struct kb_error *err);
struct source_state *source_state_free(struct source_state *s);   /* accepts NULL */

/* The object stored under key, or NULL (absent, or not an object). Borrowed:
 * valid until the next source_state_set of that key. */
json_t *source_state_get(struct source_state *s, const char *key);

/* Store value (an object; the reference is stolen) under key, in memory. */
void source_state_set(struct source_state *s, const char *key, json_t *value);

/* Write the state back (creating the directory). Returns 0 or -errno. */
int source_state_save(struct source_state *s, struct kb_error *err);
