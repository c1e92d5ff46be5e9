/* kernels/source_apt: the `apt` nightly source, the way a distribution's
 * kernel team follows its own archive. A package name glob
 * (linux-image-*-amd64-unsigned) is resolved through the host's APT
 * configuration, so its mirrors, proxies and signed indexes apply:
 *   apt-cache pkgnames PREFIX       the names APT knows, filtered with the glob
 *   apt-cache madison NAMES...      every available version of each
 *   apt-get download --print-uris   the file name and SHA256 of each version
 * and each version whose file is not yet in the cache directory is fetched
 * with `apt-get download NAME=VERSION` into a hidden scratch directory,
 * checked against the SHA256 from the signed index, and renamed into the
 * cache directory, where source_dir_scan finds it to import. The parsers of
 * the three outputs are pure and tested on captured output. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct apt_version {
        char *package;             /* "linux-image-6.1.0-57-amd64-unsigned" */
        char *version;             /* "6.1.192-3", epoch included ("2:9.0.1378-2") */
        char *arch;                /* "amd64", or NULL until known from --print-uris */
        char *file;                /* the .deb name apt-get download writes, or NULL until known */
        char *sha256;              /* lowercase hex from the index, or NULL until known */
        uint64_t size;             /* bytes, 0 until known */
};

void apt_versions_free(struct apt_version *v, size_t n);   /* accepts NULL */

/* Pure: the names in `apt-cache pkgnames` output (one a line) matching the
 * glob pattern (fnmatch), sorted, without duplicates. OUT: *ret_names
 * (NULL-terminated, g_strfreev), *ret_n. */
int source_apt_parse_pkgnames(const char *text, const char *pattern, char ***ret_names, size_t *ret_n);

/* Pure: the binary package versions in `apt-cache madison` output
 * ("name | version | archive ... arch Packages"; lines of source packages
 * and of names not in names are skipped), in output order, each
 * (package, version) once. A line that does not have that shape is
 * -EBADMSG quoting it. OUT: *ret (apt_versions_free), *ret_n. */
int source_apt_parse_madison(const char *text, char *const *names, struct apt_version **ret, size_t *ret_n,
                             struct kb_error *err);

/* Pure: fill file, arch, sha256 and size of the versions from
 * `apt-get download --print-uris` output ("'URI' FILE SIZE SHA256:HEX"),
 * matching each line by the package and version its file name encodes
 * (NAME_VERSION_ARCH.deb, ':' written %3a). A malformed line is -EBADMSG
 * quoting it; a version the output does not mention keeps NULLs. */
int source_apt_parse_print_uris(const char *text, struct apt_version *v, size_t n, struct kb_error *err);

struct source_apt_opts {
        const char *apt_cache;     /* program, default "apt-cache" (PATH) */
        const char *apt_get;       /* program, default "apt-get" (PATH) */
};

/* Resolve pattern through the host's APT: every available version of every
 * matching package, with its file name and SHA256. No match is not an
 * error (*ret_n = 0). A failing apt command is -EIO with its first error
 * line. OUT: *ret (apt_versions_free), *ret_n. */
int source_apt_resolve(const char *pattern, const struct source_apt_opts *opts, struct apt_version **ret,
                       size_t *ret_n, struct kb_error *err);

/* Resolve pattern and download into cache_dir (created if missing) every
 * version whose file is not there yet. A download whose SHA256 differs from
 * the index is deleted and is -EBADMSG. The other versions are still tried
 * after a failure; the first failure is returned. OUT: *ret_downloaded
 * (files added; may be NULL). */
int source_apt_sync(const char *pattern, const char *cache_dir, const struct source_apt_opts *opts,
                    int *ret_downloaded, struct kb_error *err);
