/* kernels/deb: import of a Debian linux-image .deb without dpkg. libarchive
 * reads the ar archive and, streaming, the data.tar.{xz,zst,gz,bz2} inside it;
 * only the boot files (vmlinuz, config, System.map) and lib/modules/<release>
 * (or usr/lib/modules/<release>) are written, compressed modules are inflated
 * to plain .ko, and depmod -b builds modules.dep so libkmod can resolve module
 * closures later. The package is untrusted: member names are normalised and
 * checked, links and device nodes are skipped, files are created 0644 with
 * O_EXCL|O_NOFOLLOW beneath the given directories only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/event.h"

/* Bounds on what one package may make us allocate or write. */
#define DEB_MAX_MODULE ((size_t)256 << 20)       /* one (compressed or inflated) module, bytes */

struct deb_result {
        char *release;             /* the lib/modules/<release> name, else vmlinuz-<release> suffix */
        char *image_path;          /* <boot_dir>/vmlinuz-<release> */
        char *config_path;         /* <boot_dir>/config-<release>, or NULL */
        char *system_map_path;     /* <boot_dir>/System.map-<release>, or NULL */
        char *modules_dir;         /* <modules_root>/lib/modules/<release>, or NULL (no modules) */
        int n_modules;             /* .ko files written */
        int n_decompressed;        /* of which were stored compressed (.ko.xz/.ko.zst/.ko.gz) */
        int n_skipped;             /* links and special files ignored */
        uint64_t bytes_written;    /* total bytes written */
        int stopped;               /* on_image returned > 0: only boot files up to the image were written */
};

struct deb_options {
        /* Called once the boot image has been written (image_path). Return 0 to
         * go on, > 0 to stop the import there (deb_extract returns 0 with
         * result->stopped = 1), < 0 to fail with that error (fill err). */
        int (*on_image)(const char *image_path, void *userdata, struct kb_error *err);
        void *userdata;
        /* Progress lines for the slow steps (KB_EVENT_PROGRESS), or NULL. */
        const struct kb_sink *events;
};

/* Does this file start like a Debian binary package ("!<arch>\n" then the
 * "debian-binary" member)? head = the first bytes of the file. */
int deb_sniff(const uint8_t *head, size_t n);

/* Extract deb_path: boot files into boot_dir, modules into
 * modules_root/lib/modules/<release>/ (both directories are created if
 * missing). A package without boot/vmlinuz-* is -EINVAL naming the file; a
 * damaged archive is -EBADMSG; a member that would leave its directory,
 * duplicate files or two module releases are -EINVAL. Does not run depmod.
 * opts may be NULL. OUT: *ret (free with deb_result_free). On failure partial
 * output may remain: extract into a scratch directory. */
int deb_extract(const char *deb_path, const char *boot_dir, const char *modules_root,
                const struct deb_options *opts, struct deb_result **ret, struct kb_error *err);

/* Run depmod -b modules_root release (depmod from /sbin or /usr/sbin), so
 * modules_root/lib/modules/<release>/modules.dep exists. Returns 0, -ENOENT if
 * depmod is missing, -EIO with depmod's first stderr line on failure. */
int deb_depmod(const char *modules_root, const char *release, struct kb_error *err);

struct deb_result *deb_result_free(struct deb_result *r);
