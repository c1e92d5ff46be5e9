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
 * to /lib/modules/<release>/, dependencies and softdep pre-modules first, no
 * duplicates; every module an alias names is listed, e.g. crypto-crc32c gives
 * crc32c-intel and crc32c_generic, so the agent must tolerate a module whose
 * init fails with ENODEV); a requested module that is built into the kernel
 * (modules.builtin) is skipped, one that exists nowhere is an error naming
 * it. The host's modprobe.d is not read.
 *
 * Layout: the standard directories (/tmp 1777), /dev/console (5,1) and
 * /dev/null (1,3), /etc/passwd + /etc/group (root, ftp, nobody),
 * /etc/nsswitch.conf, /etc/hosts, the agent as /init (0755), binaries and
 * their libraries at their host paths (library symlinks kept as symlinks,
 * targets added), "SRC=DST" files (they replace anything else at DST, e.g.
 * the generated /etc files or even /init), modules under /lib/modules/<release>/, /bin/busybox and a symlink
 * to it for every applet of `busybox --list-full` except where a path is
 * taken or a real binary of that name is in a bin directory (GNU dd wins).
 *
 * The image is <cache_dir>/initramfs-<sha256>.cpio.gz, the hash covering a
 * format version and every path, mode, link and file content; entries are
 * sorted with mtime 0 and uid/gid 0, so equal inputs give equal bytes. It is
 * written to a temporary file in cache_dir (created if missing) and renamed.
 * Returns 0 or -errno with err naming the file, binary, library or module at
 * fault (-ENOENT missing, -EEXIST two inputs for one path, -EINVAL bad spec).
 * OUT: *ret_path (caller frees with free), *ret_cached = 1 if it was already
 * there, 0 if built now. */
int initramfs_build(const struct initramfs_spec *spec, const char *cache_dir,
                    char **ret_path, int *ret_cached, struct kb_error *err);
