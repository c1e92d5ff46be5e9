/* kernels/source_dir: the `dir` nightly source, a directory into which
 * people or build jobs drop kernel packages. A scan lists the .deb packages
 * and kernel images (bzImage, ELF vmlinux) directly in it that are new: not
 * imported before with the same size and mtime. Files are recognised by
 * their first bytes, not their names; dot files and partial downloads
 * (*.part, *.tmp, *.partial, *.crdownload, *~) are skipped, and so is a
 * file still being written (modified within the settle time, or whose size
 * changes while it is looked at): it is found complete on a later scan,
 * never imported half-copied. The caller imports the paths with kstore_add
 * and then marks each one it imported. */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "kernels/source_state.h"

struct source_dir_opts {
        double settle_s;           /* files modified more recently are left; default 5 s */
        unsigned probe_ms;         /* pause between the two size checks; default 200 ms */
};

/* What opts NULL means. */
#define SOURCE_DIR_OPTS_DEFAULT { .settle_s = 5, .probe_ms = 200 }

/* List the new kernel files in dir, sorted by name (strcmp), as absolute
 * paths. state NULL: every settled kernel file. opts NULL: defaults. An
 * unreadable directory is -errno naming it. OUT: *ret_paths (NULL-terminated,
 * g_strfreev), *ret_n. */
int source_dir_scan(const char *dir, struct source_state *state, const struct source_dir_opts *opts,
                    char ***ret_paths, size_t *ret_n, struct kb_error *err);

/* Remember that path (as listed by source_dir_scan) was imported, with its
 * current size and mtime; a later scan skips it until it changes. The state
 * is saved by the caller. Returns 0 or -errno naming the file. */
int source_dir_mark(struct source_state *state, const char *path, struct kb_error *err);
