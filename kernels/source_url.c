/* kernels/source_url.c: the `url` source over libcurl (see source_url.h).
 * One easy handle per transfer; the header callback keeps the validators
 * and Content-Range of the last response (a redirect starts a new block),
 * the write callback looks at its status before the first body byte, so an
 * error page is never written into a .part file and a server that ignores
 * the Range request restarts the file instead of being appended. The
 * decisions (what to send, whether a failure is worth another attempt) are
 * small functions of facts, apart from the transfer itself. */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "kernels/source_url.h"

#define HEADER_VALUE_MAX 256
#define URL_SHOW_MAX 200

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void curl_easy_cleanupp(CURL **c) {
        if (*c)
                curl_easy_cleanup(*c);
}

static void curl_slist_freep(struct curl_slist **l) {
        curl_slist_free_all(*l);
}

static void curl_url_cleanupp(CURLU **u) {
        if (*u)
                curl_url_cleanup(*u);
}

/* ---- names and links ---------------------------------------------------- */

/* The decoded last path segment of url, if it is a safe file name. */
static char *url_file_name(const char *url) {
        _cleanup_(curl_url_cleanupp) CURLU *u = curl_url();
        char *path = NULL, *decoded;
        const char *slash;
        g_autofree char *name = NULL;
        size_t n;

        if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
            curl_url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK)
                return NULL;
        slash = strrchr(path, '/');
        decoded = g_strdup(slash ? slash + 1 : path);
        curl_free(path);
        name = decoded;
        n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-");
        if (!*name || name[n] || n > 200 || name[0] == '.' || g_str_has_suffix(name, ".part"))
                return NULL;
        return TAKE_PTR(name);
}

int source_url_is_file(const char *url) {
        _cleanup_(curl_url_cleanupp) CURLU *u = curl_url();
        char *path = NULL;
        const char *base;
        int r;

        if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
            curl_url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK)
                return 0;
        base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        r = g_str_has_suffix(base, ".deb") || g_str_has_prefix(base, "vmlinuz") ||
            g_str_has_prefix(base, "vmlinux") || g_str_has_prefix(base, "bzImage");
        curl_free(path);
        return r;
}

/* The URL for a message: bounded, control bytes as '?'. */
static char *url_show(const char *url) {
        char *s = g_strndup(url, URL_SHOW_MAX);
        for (char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                        *p = '?';
        return s;
}

/* href's value starting at p (after "href"), or NULL; *end set past it. */
static char *href_value(const char *p, const char *end, const char **ret_end) {
        const char *v, *q;
        char quote = 0;

        while (p < end && isspace((unsigned char)*p))
                p++;
        if (p >= end || *p != '=')
                return NULL;
        p++;
        while (p < end && isspace((unsigned char)*p))
                p++;
        if (p < end && (*p == '"' || *p == '\''))
                quote = *p++;
        v = p;
        for (q = v; q < end; q++)
                if (quote ? *q == quote : (isspace((unsigned char)*q) || *q == '>'))
                        break;
        if (quote && q >= end)
                return NULL;
        *ret_end = q;
        if (q - v > 2048)
                return NULL;
        return g_strndup(v, (gsize)(q - v));
}

int source_url_index_links(const char *html, size_t len, const char *base, char ***ret_links, size_t *ret_n,
                           struct kb_error *err) {
        g_autoptr(GPtrArray) links = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        const char *p = html, *end = html + len;

        while (p + 4 < end) {
                g_autofree char *v = NULL, *decoded = NULL, *path_only = NULL;
                _cleanup_(curl_url_cleanupp) CURLU *u = NULL;
                char *abs = NULL, *scheme = NULL;
                const char *after;
                GString *g;

                if (g_ascii_strncasecmp(p, "href", 4) != 0) {
                        p++;
                        continue;
                }
                v = href_value(p + 4, end, &after);
                p = v ? after : p + 4;
                if (!v)
                        continue;
                /* The only entity that matters in a URL attribute. */
                g = g_string_new(v);
                g_string_replace(g, "&amp;", "&", 0);
                decoded = g_string_free(g, FALSE);
                path_only = g_strndup(decoded, strcspn(decoded, "?#"));
                if (!g_str_has_suffix(path_only, ".deb"))
                        continue;
                u = curl_url();
                if (!u)
                        return error_setf(err, -ENOMEM, "out of memory");
                if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
                    curl_url_set(u, CURLUPART_URL, decoded, 0) != CURLUE_OK ||
                    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK)
                        continue;
                if (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) {
                        curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0);   /* never sent */
                        if (curl_url_get(u, CURLUPART_URL, &abs, 0) == CURLUE_OK && !g_hash_table_contains(seen, abs)) {
                                char *copy = g_strdup(abs);
                                g_ptr_array_add(links, copy);
                                g_hash_table_add(seen, copy);
                        }
                        curl_free(abs);
                }
                curl_free(scheme);
        }
        *ret_n = links->len;
        g_ptr_array_add(links, NULL);
        *ret_links = (char **)g_ptr_array_free(TAKE_PTR(links), FALSE);
        return 0;
}

/* ---- one transfer --------------------------------------------------------- */

struct xfer {
        int fd;                    /* the .part file, or -1: into mem */
        GByteArray *mem;
        size_t max_mem;
        int64_t offset;            /* the resume offset asked for (0: whole file) */
        long code;                 /* status of the last response */
        char reason[64];           /* its reason phrase */
        char etag[HEADER_VALUE_MAX];
        char last_modified[HEADER_VALUE_MAX];
        int64_t range_start;       /* from Content-Range, -1 if none */
        int body_started;
        int body_error;            /* errno of a failed write, or EFBIG/EPROTO */
        int64_t written;           /* body bytes kept in this transfer */
};

static void copy_header_value(char *dst, const char *v, size_t n) {
        size_t k = 0;

        while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
                n--;
        for (size_t i = 0; i < n && k + 1 < HEADER_VALUE_MAX; i++)
                if ((unsigned char)v[i] >= 0x20 && (unsigned char)v[i] < 0x7f)
                        dst[k++] = v[i];
        dst[k] = '\0';
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *userdata) {
        struct xfer *x = userdata;
        size_t n = size * nitems;
        const char *v;

        if (n >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
                /* A new response (after a redirect or 100): forget the last
                 * one's facts, and take its status before any body byte. */
                const char *sp = memchr(buf, ' ', n), *sp2;
                char tmp[HEADER_VALUE_MAX], *end;
                long code;

                x->etag[0] = x->last_modified[0] = x->reason[0] = '\0';
                x->range_start = -1;
                x->body_started = 0;
                x->code = 0;
                if (!sp)
                        return n;
                copy_header_value(tmp, sp + 1, n - (size_t)(sp + 1 - buf));
                errno = 0;
                code = strtol(tmp, &end, 10);
                if (!errno && end == tmp + 3 && code >= 100 && code <= 599)
                        x->code = code;
                sp2 = memchr(sp + 1, ' ', n - (size_t)(sp + 1 - buf));
                if (sp2) {
                        copy_header_value(tmp, sp2 + 1, n - (size_t)(sp2 + 1 - buf));
                        g_strlcpy(x->reason, tmp, sizeof(x->reason));
                }
                return n;
        }
        v = memchr(buf, ':', n);
        if (!v)
                return n;
        v++;
        while (v < buf + n && *v == ' ')
                v++;
        if (g_ascii_strncasecmp(buf, "ETag:", 5) == 0)
                copy_header_value(x->etag, v, n - (size_t)(v - buf));
        else if (g_ascii_strncasecmp(buf, "Last-Modified:", 14) == 0)
                copy_header_value(x->last_modified, v, n - (size_t)(v - buf));
        else if (g_ascii_strncasecmp(buf, "Content-Range:", 14) == 0) {
                char tmp[HEADER_VALUE_MAX], *e;
                long long s;
                copy_header_value(tmp, v, n - (size_t)(v - buf));
                if (g_str_has_prefix(tmp, "bytes ")) {
                        errno = 0;
                        s = strtoll(tmp + 6, &e, 10);
                        if (!errno && e != tmp + 6 && *e == '-' && s >= 0)
                                x->range_start = s;
                }
        }
        return n;
}

static size_t on_body(char *buf, size_t size, size_t nmemb, void *userdata) {
        struct xfer *x = userdata;
        size_t n = size * nmemb;

        if (!x->body_started) {
                x->body_started = 1;
                if (x->code == 206 && x->range_start != x->offset) {
                        x->body_error = EPROTO;    /* not the range asked for */
                        return 0;
                }
                if (x->code == 200 && x->fd >= 0 && x->offset > 0) {
                        /* The server sent the whole file (If-Range failed or no
                         * range support): start the .part again. */
                        if (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0) {
                                x->body_error = errno;
                                return 0;
                        }
                        x->offset = 0;
                }
        }
        if (x->code != 200 && x->code != 206)
                return n;          /* an error page: not ours to keep */
        if (x->fd < 0) {
                if (x->mem->len + n > x->max_mem) {
                        x->body_error = EFBIG;
                        return 0;
                }
                g_byte_array_append(x->mem, (const guint8 *)buf, (guint)n);
        } else
                for (size_t off = 0; off < n;) {
                        ssize_t w = write(x->fd, buf + off, n - off);
                        if (w < 0 && errno == EINTR)
                                continue;
                        if (w < 0) {
                                x->body_error = errno;
                                return 0;
                        }
                        off += (size_t)w;
                }
        x->written += (int64_t)n;
        return n;
}

/* Run one request. extra: request headers. Returns the curl code; x holds
 * the response facts. errbuf: curl's message. */
static CURLcode transfer(const char *url, struct curl_slist *extra, const char *range,
                         const struct source_url_opts *o, struct xfer *x, char errbuf[CURL_ERROR_SIZE]) {
        _cleanup_(curl_easy_cleanupp) CURL *c = curl_easy_init();
        CURLcode rc;

        if (!c)
                return CURLE_OUT_OF_MEMORY;
        errbuf[0] = '\0';
        x->range_start = -1;
        x->code = 0;
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_USERAGENT, "kbench-nightly");
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout_s * 1000));
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)(o->stall_s > 1 ? o->stall_s : 1));
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, extra);
        if (range)
                curl_easy_setopt(c, CURLOPT_RANGE, range);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
        rc = curl_easy_perform(c);
        /* curl's own view of the last status, for a response whose status
         * line could not be read above. */
        if (!x->code)
                curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->code);
        return rc;
}

/* ---- decisions ------------------------------------------------------------ */

enum outcome {
        OUT_DONE,                  /* 200/206 complete */
        OUT_NOT_MODIFIED,          /* 304 */
        OUT_RETRY,                 /* transient: try again after a pause */
        OUT_RESTART,               /* the partial file is useless: drop it and try again */
        OUT_FAIL,                  /* permanent */
};

static int is_tls_error(CURLcode rc) {
        switch (rc) {
        case CURLE_SSL_CONNECT_ERROR: case CURLE_PEER_FAILED_VERIFICATION: case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER: case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_SSL_ENGINE_SETFAILED: case CURLE_SSL_SHUTDOWN_FAILED: case CURLE_SSL_CRL_BADFILE:
        case CURLE_SSL_ISSUER_ERROR: case CURLE_SSL_PINNEDPUBKEYNOTMATCH: case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_CLIENTCERT: case CURLE_USE_SSL_FAILED:
                return 1;
        default:
                return 0;
        }
}

/* Classify one attempt; fill err with the one-line reason for anything
 * but OUT_DONE / OUT_NOT_MODIFIED. */
static enum outcome classify(const char *show, CURLcode rc, const struct xfer *x, const char *errbuf,
                             const struct source_url_opts *o, int *ret_errno, struct kb_error *err) {
        const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);

        if (x->body_error == EPROTO) {
                *ret_errno = EIO;
                error_setf(err, -EIO, "%s: the server answered a different byte range than asked", show);
                return OUT_RESTART;
        }
        if (x->body_error == EFBIG) {
                *ret_errno = EFBIG;
                error_setf(err, -EFBIG, "%s: index page larger than %zu bytes", show, o->max_index);
                return OUT_FAIL;
        }
        if (x->body_error) {
                *ret_errno = x->body_error;
                error_setf(err, -x->body_error, "%s: cannot write the download: %s", show, strerror(x->body_error));
                return OUT_FAIL;
        }
        if (is_tls_error(rc)) {
                *ret_errno = EPROTO;
                error_setf(err, -EPROTO, "%s: TLS failure: %s", show, why);
                return OUT_FAIL;
        }
        switch (rc) {
        case CURLE_OK:
                break;
        case CURLE_OPERATION_TIMEDOUT:
                *ret_errno = ETIMEDOUT;
                error_setf(err, -ETIMEDOUT, "%s: timed out: %s", show, why);
                return OUT_RETRY;
        case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY: case CURLE_COULDNT_CONNECT:
        case CURLE_PARTIAL_FILE: case CURLE_RECV_ERROR: case CURLE_SEND_ERROR: case CURLE_GOT_NOTHING:
        case CURLE_HTTP2: case CURLE_HTTP2_STREAM: case CURLE_HTTP3:
                *ret_errno = EIO;
                error_setf(err, -EIO, "%s: %s", show, why);
                return OUT_RETRY;
        default:
                *ret_errno = EIO;
                error_setf(err, -EIO, "%s: %s", show, why);
                return OUT_FAIL;
        }
        if (x->code == 200 || x->code == 206)
                return OUT_DONE;
        if (x->code == 304)
                return OUT_NOT_MODIFIED;
        *ret_errno = x->code == 404 || x->code == 410 ? ENOENT : EIO;
        error_setf(err, -*ret_errno, "%s: HTTP %ld%s%s", show, x->code, x->reason[0] ? " " : "", x->reason);
        if (x->code == 416)
                return OUT_RESTART;
        if (x->code >= 500 || x->code == 408 || x->code == 429)
                return OUT_RETRY;
        return OUT_FAIL;
}

static struct source_url_opts opts_or_defaults(const struct source_url_opts *opts) {
        struct source_url_opts o = { .connect_timeout_s = 30, .stall_s = 60, .timeout_s = 3600, .retries = 3,
                                     .backoff_s = 5, .max_index = (size_t)4 << 20 };
        if (opts) {
                o = *opts;
                if (!o.max_index)
                        o.max_index = (size_t)4 << 20;
        }
        return o;
}

static void error_append_attempts(struct kb_error *err, int attempts) {
        size_t n;

        if (!err || attempts < 2)
                return;
        n = strlen(err->msg);
        snprintf(err->msg + n, sizeof(err->msg) - n, " (after %d attempts)", attempts);
}

static void pause_before(const struct source_url_opts *o, int attempt) {
        double s = o->backoff_s;

        for (int i = 1; i < attempt && s < 300; i++)
                s *= 2;
        g_usleep((gulong)((s < 300 ? s : 300) * 1e6));
}

static const char *state_str(json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s && *s && strlen(s) < HEADER_VALUE_MAX ? s : NULL;
}

/* Conditional and range headers for a request, from what is known. */
static struct curl_slist *request_headers(json_t *st, int have_final, int64_t part_size, const char **ret_if_range) {
        struct curl_slist *h = NULL;
        const char *etag = state_str(st, "etag"), *lm = state_str(st, "last_modified");
        const char *petag = state_str(st, "part_etag"), *plm = state_str(st, "part_last_modified");
        g_autofree char *line = NULL;

        if (have_final && etag) {
                line = g_strdup_printf("If-None-Match: %s", etag);
                h = curl_slist_append(h, line);
        } else if (have_final && lm) {
                line = g_strdup_printf("If-Modified-Since: %s", lm);
                h = curl_slist_append(h, line);
        }
        *ret_if_range = NULL;
        if (part_size > 0) {
                /* If-Range needs a strong validator: a weak ETag cannot say
                 * the bytes are the same. */
                const char *v = petag && !g_str_has_prefix(petag, "W/") ? petag : plm;
                if (v) {
                        g_autofree char *ir = g_strdup_printf("If-Range: %s", v);
                        h = curl_slist_append(h, ir);
                        *ret_if_range = v;
                }
        }
        /* No "Accept-Encoding": the bytes must be the file's. */
        return h;
}

static int sha256_fd(int fd, char **ret_hex) {
        g_autoptr(GChecksum) ck = g_checksum_new(G_CHECKSUM_SHA256);
        uint8_t buf[1 << 16];
        ssize_t n;

        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        while ((n = read(fd, buf, sizeof(buf))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                g_checksum_update(ck, buf, (gssize)n);
        }
        *ret_hex = g_strdup(g_checksum_get_string(ck));
        return 0;
}

static json_t *state_entry(struct source_state *state, const char *key) {
        json_t *o = source_state_get(state, key);
        return o ? json_deep_copy(o) : json_object();
}

static void state_put_str(json_t *o, const char *key, const char *v) {
        if (v && *v)
                json_object_set_new(o, key, json_string(v));
        else
                json_object_del(o, key);
}

/* One file being fetched: what the steps of fetch_file share. */
struct fetch {
        const char *url, *sha256;  /* sha256: expected, or NULL */
        const char *show;          /* url as messages show it */
        const char *name;          /* the file's name in dir */
        const char *final, *part;  /* dir/NAME and dir/NAME.part */
        const char *key;           /* "url:<url>", the state's key */
        json_t *st;                /* the state entry being updated */
        struct source_state *state;
        const struct source_url_opts *o;
        struct source_url_stats *stats;
        int resumed;               /* the bytes now in the part came from a 206 */
};

/* Open dir/NAME.part at the offset a resume would start from (0 when
 * nothing says its bytes still belong to the server's file). OUT: *ret_fd,
 * *ret_part_size, *ret_hdr (the request's conditional headers). */
static int fetch_open_part(struct fetch *f, int have_final, int *ret_fd, int64_t *ret_part_size,
                           struct curl_slist **ret_hdr, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        const char *if_range;
        struct stat sb;
        int64_t part_size;

        fd = open(f->part, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 || fstat(fd, &sb) < 0)
                return error_setf(err, -errno, "%s: %s", f->part, strerror(errno));
        part_size = sb.st_size;
        *ret_hdr = request_headers(f->st, have_final, part_size, &if_range);
        if (part_size > 0 && !if_range) {
                /* Nothing says the partial bytes belong to the file the
                 * server has now: start again. */
                if (ftruncate(fd, 0) < 0)
                        return error_setf(err, -errno, "%s: %s", f->part, strerror(errno));
                part_size = 0;
        }
        if (lseek(fd, part_size, SEEK_SET) < 0)
                return error_setf(err, -errno, "%s: %s", f->part, strerror(errno));
        *ret_fd = TAKE_FD(fd);
        *ret_part_size = part_size;
        return 0;
}

static void fetch_forget_part(struct fetch *f) {
        json_object_del(f->st, "part_etag");
        json_object_del(f->st, "part_last_modified");
}

/* A complete body is in the part: check it and put it in place, or keep
 * the old file when the bytes are the same. Returns 0 when done, 1 to try
 * once more from the start (a resumed file that does not match may be
 * spliced), or an error. */
static int fetch_complete(struct fetch *f, int fd, const struct xfer *x, int have_final, int attempt,
                          struct kb_error *err) {
        g_autofree char *got = NULL;
        int r;

        f->resumed |= x->code == 206;
        r = sha256_fd(fd, &got);
        if (r < 0)
                return error_setf(err, r, "%s: %s", f->part, strerror(-r));
        if (f->sha256 && g_ascii_strcasecmp(got, f->sha256) != 0) {
                unlink(f->part);
                fetch_forget_part(f);
                if (f->resumed && attempt < f->o->retries) {
                        f->resumed = 0;
                        return 1;
                }
                source_state_set(f->state, f->key, json_incref(f->st));
                source_state_save(f->state, NULL);
                return error_setf(err, -EBADMSG, "%s: sha256 %s does not match the expected %s", f->show, got,
                                  f->sha256);
        }
        if (have_final && g_strcmp0(state_str(f->st, "sha256"), got) == 0) {
                /* The same bytes again (a server without validators):
                 * keep the old file, and its mtime, as it is. */
                unlink(f->part);
                f->stats->not_modified++;
        } else {
                if (fsync(fd) < 0 || rename(f->part, f->final) < 0)
                        return error_setf(err, -errno, "%s: %s", f->final, strerror(errno));
                f->stats->fetched++;
                f->stats->resumed += f->resumed;
        }
        state_put_str(f->st, "etag", x->etag[0] ? x->etag : state_str(f->st, "part_etag"));
        state_put_str(f->st, "last_modified",
                      x->last_modified[0] ? x->last_modified : state_str(f->st, "part_last_modified"));
        state_put_str(f->st, "sha256", got);
        state_put_str(f->st, "file", f->name);
        fetch_forget_part(f);
        return 0;
}

/* One request. Returns 0 when the file is settled, 1 to try again, or an
 * error (the state saved first, so a later run can resume). */
static int fetch_attempt(struct fetch *f, int attempt, struct kb_error *err) {
        _cleanup_(curl_slist_freep) struct curl_slist *hdr = NULL;
        _cleanup_close_ int fd = -1;
        g_autofree char *range = NULL;
        struct xfer x = { .fd = -1 };
        char errbuf[CURL_ERROR_SIZE];
        struct stat sb;
        enum outcome out;
        int64_t part_size = 0;
        int have_final = stat(f->final, &sb) == 0 && S_ISREG(sb.st_mode), e = 0, r;
        CURLcode rc;

        r = fetch_open_part(f, have_final, &fd, &part_size, &hdr, err);
        if (r < 0)
                return r;
        if (part_size > 0)
                range = g_strdup_printf("%lld-", (long long)part_size);
        x.fd = fd;
        x.offset = part_size;
        rc = transfer(f->url, hdr, range, f->o, &x, errbuf);
        out = classify(f->show, rc, &x, errbuf, f->o, &e, err);

        /* A partial body is worth keeping only with a validator to
         * resume it by; a fresh 200 defines the part's validators. */
        if (x.written > 0 && x.code == 200) {
                state_put_str(f->st, "part_etag", x.etag);
                state_put_str(f->st, "part_last_modified", x.last_modified);
        }
        if (out == OUT_NOT_MODIFIED) {
                unlink(f->part);
                f->stats->not_modified++;
                return 0;
        }
        if (out == OUT_DONE)
                return fetch_complete(f, fd, &x, have_final, attempt, err);
        if (out == OUT_RESTART) {
                if (ftruncate(fd, 0) < 0)
                        unlink(f->part);
                fetch_forget_part(f);
        }
        source_state_set(f->state, f->key, json_incref(f->st));
        source_state_save(f->state, NULL);
        if (out == OUT_FAIL || attempt >= f->o->retries) {
                if (out != OUT_FAIL)
                        error_append_attempts(err, attempt + 1);
                if (fstat(fd, &sb) == 0 && sb.st_size == 0)
                        unlink(f->part);
                return -e;
        }
        if (out == OUT_RETRY)
                pause_before(f->o, attempt + 1);
        return 1;
}

/* Fetch one file URL into dir/NAME. */
static int fetch_file(const char *url, const char *sha256, const char *dir, struct source_state *state,
                      const struct source_url_opts *o, struct source_url_stats *stats, struct kb_error *err) {
        g_autofree char *show = url_show(url), *name = url_file_name(url), *final = NULL, *part = NULL;
        g_autofree char *key = g_strconcat("url:", url, NULL);
        json_auto_t *st = state_entry(state, key);
        struct fetch f = { .url = url, .sha256 = sha256, .show = show, .name = name, .key = key, .st = st,
                           .state = state, .o = o, .stats = stats };
        int r;

        if (!name)
                return error_setf(err, -EINVAL, "%s: no safe file name at the end of the URL", show);
        final = g_build_filename(dir, name, NULL);
        part = g_strconcat(final, ".part", NULL);
        f.final = final;
        f.part = part;
        for (int attempt = 0;; attempt++) {
                r = fetch_attempt(&f, attempt, err);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
        }
        source_state_set(state, key, json_incref(st));
        return source_state_save(state, err);
}

/* Fetch the index page at url (conditionally) and return its .deb links;
 * on 304 the links remembered from the last time it changed. */
static int index_links(const char *url, struct source_state *state, const struct source_url_opts *o,
                       char ***ret_links, struct kb_error *err) {
        g_autofree char *show = url_show(url), *key = g_strconcat("index:", url, NULL);
        json_auto_t *st = state_entry(state, key);
        g_autoptr(GByteArray) mem = NULL;

        for (int attempt = 0;; attempt++) {
                _cleanup_(curl_slist_freep) struct curl_slist *hdr = NULL;
                struct xfer x = { .fd = -1 };
                char errbuf[CURL_ERROR_SIZE];
                const char *if_range;
                enum outcome out;
                int e = 0;
                CURLcode rc;

                if (mem)
                        g_byte_array_unref(mem);
                mem = g_byte_array_new();
                x.mem = mem;
                x.max_mem = o->max_index;
                hdr = request_headers(st, json_object_get(st, "links") != NULL, 0, &if_range);
                rc = transfer(url, hdr, NULL, o, &x, errbuf);
                out = classify(show, rc, &x, errbuf, o, &e, err);
                if (out == OUT_NOT_MODIFIED) {
                        g_autoptr(GPtrArray) a = g_ptr_array_new();
                        size_t i;
                        json_t *l;
                        json_array_foreach(json_object_get(st, "links"), i, l)
                                if (json_is_string(l))
                                        g_ptr_array_add(a, g_strdup(json_string_value(l)));
                        g_ptr_array_add(a, NULL);
                        *ret_links = (char **)g_ptr_array_free(TAKE_PTR(a), FALSE);
                        return 0;
                }
                if (out == OUT_DONE) {
                        char **links = NULL;
                        size_t n;
                        json_t *arr = json_array();
                        int r = source_url_index_links((const char *)mem->data, mem->len, url, &links, &n, err);
                        if (r < 0) {
                                json_decref(arr);
                                return r;
                        }
                        for (size_t i = 0; i < n; i++)
                                json_array_append_new(arr, json_string(links[i]));
                        json_object_set_new(st, "links", arr);
                        state_put_str(st, "etag", x.etag);
                        state_put_str(st, "last_modified", x.last_modified);
                        source_state_set(state, key, json_incref(st));
                        *ret_links = links;
                        return 0;
                }
                if (out != OUT_RETRY || attempt >= o->retries) {
                        if (out == OUT_RETRY)
                                error_append_attempts(err, attempt + 1);
                        return -e;
                }
                pause_before(o, attempt + 1);
        }
}

int source_url_sync(const char *url, const char *sha256, const char *dest_dir, struct source_state *state,
                    const struct source_url_opts *opts, struct source_url_stats *ret_stats,
                    struct kb_error *err) {
        struct source_url_opts o = opts_or_defaults(opts);
        struct source_url_stats stats = { 0 };
        g_autofree char *show = url_show(url);
        g_auto(GStrv) links = NULL;
        g_autoptr(GHashTable) names = NULL;
        int first = 0;

        pthread_once(&curl_once, curl_init_once);
        if (g_mkdir_with_parents(dest_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", dest_dir, strerror(errno));
        if (source_url_is_file(url)) {
                int r = fetch_file(url, sha256, dest_dir, state, &o, &stats, err);
                if (r < 0)
                        return r;
                if (ret_stats)
                        *ret_stats = stats;
                return 0;
        }
        if (sha256)
                return error_setf(err, -EINVAL, "%s: a sha256 names one file, but this URL is an index page", show);
        first = index_links(url, state, &o, &links, err);
        if (first < 0)
                return first;
        names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        for (char **l = links; *l; l++) {
                struct kb_error e = { { 0 } };
                g_autofree char *name = url_file_name(*l);
                int r;

                if (name && g_hash_table_contains(names, name)) {
                        g_autofree char *ls = url_show(*l);
                        r = error_setf(&e, -EINVAL, "%s: another link of the index has the file name %s", ls, name);
                } else {
                        if (name)
                                g_hash_table_add(names, g_strdup(name));
                        r = fetch_file(*l, NULL, dest_dir, state, &o, &stats, &e);
                }
                if (r < 0 && first == 0) {
                        first = r;
                        if (err)
                                *err = e;
                }
        }
        if (first < 0)
                return first;
        if (ret_stats)
                *ret_stats = stats;
        return 0;
}
