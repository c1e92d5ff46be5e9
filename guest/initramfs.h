/* guest/initramfs: builds the guest's initramfs on the host (newc cpio + gzip,
 * written with libarchive): busybox (static) with its applet links, the static
 * agent as /init, kernel modules with their dependency closure (libkmod) in
 * load order, host binaries with their shared-library closure, and kbench's
 * own static guest helpers. Images are cached by the hash of everything that
 * goes in, so a second run does not rebuild. */
#pragma once

#include "common/error.h"

struct initramfs_spec {
        const char *agent_path;            /* static kbench-agent, becomes /init */
        const char *busybox_path;          /* static busybox, /bin/busybox + applet links */
        const char *modules_dir;           /* <...>/lib/modules/<release>, NULL = no modules */
        const char *const *modules;        /* module names to load (deps added), NULL-terminated */
        const char *const *binaries;       /* absolute host paths, installed at the same path
                                              with their ELF shared-library closure */
        const char *const *files;          /* "SRC=DST" pairs copied verbatim (mode kept) */
};

/* Build (or reuse) the initramfs for spec under cache_dir. The guest finds
 * the module load order in /etc/kbench/modules (one path per line, relative
 * to /lib/modules/<release>/, dependencies first); a requested module that is
 * built into the kernel (modules.builtin) is skipped, one that exists nowhere
 * is an error naming it. OUT: *ret_path (caller frees), *ret_cached = 1 if it
 * was already there. */
int initramfs_build(const struct initramfs_spec *spec, const char *cache_dir,
                    char **ret_path, int *ret_cached, struct kb_error *err);
