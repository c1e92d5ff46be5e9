/* kernels/source_url: the `url` nightly source. It keeps a local directory
 * a mirror of what one URL offers: the URL itself when it names a file (its
 * path ends in .deb, or its last segment starts with vmlinuz, vmlinux or
 * bzImage), otherwise the .deb files an HTML index page at that URL links
 * to. The kernels to import are then found in that directory with
 * source_dir_scan, so a download that worked is imported even if the night
 * failed afterwards.
 *
 * The network is untrusted and unreliable, so: every fetch is conditional
 * (If-None-Match with the last ETag, If-Modified-Since with the last
 * Last-Modified, kept in the source state), an unchanged file costs one 304;
 * a download is written to NAME.part and renamed to NAME only when complete
 * and, when a sha256 is given, verified, so nothing half-downloaded is ever
 * where the import looks; an interrupted download resumes with a Range
 * request guarded by If-Range (the partial file's validator), so a file
 * that changed meanwhile restarts instead of being spliced; transient
 * failures (connection errors, timeouts, a cut transfer, HTTP 5xx, 408,
 * 429) are retried a bounded number of times with a doubling pause; a 404,
 * a TLS failure or a checksum mismatch is one line naming the URL. */
#pragma once

#include <stddef.h>

#include "common/error.h"
#include "kernels/source_state.h"

struct source_url_opts {
        double connect_timeout_s;  /* default 30 */
        double stall_s;            /* abort a transfer slower than 1 KiB/s for this long; default 60 */
        double timeout_s;          /* one transfer, start to end; default 3600 */
        int retries;               /* extra attempts after a transient failure; default 3 */
        double backoff_s;          /* pause before the first retry, doubled for each next; default 5 */
        size_t max_index;          /* largest index page, bytes; default 4 MiB */
};

struct source_url_stats {
        int fetched;               /* files downloaded, complete and verified, into the directory */
        int resumed;               /* of those, continued from an earlier partial download */
        int not_modified;          /* files the server said had not changed, or that came back identical */
};

/* Bring dest_dir (created if missing) up to date with url. sha256 (64 hex
 * digits, or NULL) is the expected digest of a single-file URL; given for
 * an index page it is an error. state keeps the validators and is saved
 * after every file. opts NULL: defaults. On an index page, a link that
 * fails does not stop the others: the first failure is returned after all
 * were tried. Returns 0 (OUT: *ret_stats, may be NULL) or -errno with one
 * line "URL: why" (-ENOENT HTTP 404/410, -EPROTO TLS failure, -ETIMEDOUT
 * timeout, -EBADMSG checksum mismatch, -EIO other failures). */
int source_url_sync(const char *url, const char *sha256, const char *dest_dir, struct source_state *state,
                    const struct source_url_opts *opts, struct source_url_stats *ret_stats,
                    struct kb_error *err);

/* Pure: the links to .deb files in an HTML page (href="...", '...' or
 * unquoted; &amp; decoded), resolved against base, http(s) only, first
 * occurrence order, duplicates dropped. OUT: *ret_links (NULL-terminated,
 * g_strfreev), *ret_n. Returns 0 or -ENOMEM. */
int source_url_index_links(const char *html, size_t len, const char *base, char ***ret_links, size_t *ret_n,
                           struct kb_error *err);

/* Does url name a file (rather than an index page)? See above. */
int source_url_is_file(const char *url);
