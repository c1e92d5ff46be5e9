/* kernels/source_apt.c: the `apt` source (see source_apt.h). APT's
 * commands run without a shell, with LC_ALL=C so their messages are the
 * ones the parsers and the error lines expect; their output is untrusted
 * text like any other: every field is checked against the characters Debian
 * allows in it before it is used in a path or an argument. */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/parse.h"
#include "common/util.h"
#include "kernels/source_apt.h"

#define QUOTE_MAX 120

static void apt_version_clear(struct apt_version *v) {
        g_free(v->package);
        g_free(v->version);
        g_free(v->arch);
        g_free(v->file);
        g_free(v->sha256);
        memset(v, 0, sizeof(*v));
}

void apt_versions_free(struct apt_version *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                apt_version_clear(&v[i]);
        g_free(v);
}

/* Debian policy: package names [a-z0-9][a-z0-9+.-]+, versions
 * [A-Za-z0-9.+~:-] (epoch before ':'), architectures [a-z0-9-]. */
static int valid_chars(const char *s, const char *set, size_t max) {
        size_t n = strspn(s, set);
        return *s && !s[n] && n <= max;
}

static int valid_package(const char *s) {
        return valid_chars(s, "abcdefghijklmnopqrstuvwxyz0123456789+.-", 128) && g_ascii_isalnum(s[0]);
}

static int valid_version(const char *s) {
        return valid_chars(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+~:-", 128) &&
               g_ascii_isalnum(s[0]);
}

static int valid_arch(const char *s) {
        return valid_chars(s, "abcdefghijklmnopqrstuvwxyz0123456789-", 32);
}

/* A line of tool output for a message: bounded, control bytes as '?'. */
static char *quote(const char *line) {
        char *s = g_strndup(line, QUOTE_MAX);
        for (char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                        *p = '?';
        return s;
}

static int strcmp_p(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int source_apt_parse_pkgnames(const char *text, const char *pattern, char ***ret_names, size_t *ret_n) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);

        for (char **l = lines; *l; l++) {
                char *name = g_strstrip(*l);
                if (!valid_package(name) || fnmatch(pattern, name, 0) != 0 || g_hash_table_contains(seen, name))
                        continue;
                g_hash_table_add(seen, name);
                g_ptr_array_add(out, g_strdup(name));
        }
        g_ptr_array_sort(out, strcmp_p);
        *ret_n = out->len;
        g_ptr_array_add(out, NULL);
        *ret_names = (char **)g_ptr_array_free(TAKE_PTR(out), FALSE);
        return 0;
}

int source_apt_parse_madison(const char *text, char *const *names, struct apt_version **ret, size_t *ret_n,
                             struct kb_error *err) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GArray) out = g_array_new(FALSE, TRUE, sizeof(struct apt_version));
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = NULL, words = NULL;
                g_autofree char *q = NULL, *key = NULL;
                size_t nw;
                struct apt_version v = { 0 };

                if (!*g_strstrip(*l))
                        continue;
                f = g_strsplit(*l, "|", 4);
                if (g_strv_length(f) != 3)
                        goto bad;
                for (int i = 0; i < 3; i++)
                        g_strstrip(f[i]);
                words = g_strsplit_set(f[2], " \t", -1);
                nw = g_strv_length(words);
                if (nw >= 1 && strcmp(words[nw - 1], "Sources") == 0)
                        continue;      /* a source package of that name */
                if (nw < 3 || strcmp(words[nw - 1], "Packages") != 0 || !valid_package(f[0]) ||
                    !valid_version(f[1]) || !valid_arch(words[nw - 2]))
                        goto bad;
                if (names && !g_strv_contains((const char *const *)names, f[0]))
                        continue;
                key = g_strdup_printf("%s=%s", f[0], f[1]);
                if (g_hash_table_contains(seen, key))
                        continue;      /* the same version in another archive */
                g_hash_table_add(seen, TAKE_PTR(key));
                v.package = g_strdup(f[0]);
                v.version = g_strdup(f[1]);
                v.arch = g_strdup(words[nw - 2]);
                g_array_append_val(out, v);
                continue;
bad:
                q = quote(*l);
                for (guint i = 0; i < out->len; i++)
                        apt_version_clear(&g_array_index(out, struct apt_version, i));
                return error_setf(err, -EBADMSG, "apt-cache madison: unexpected line '%s'", q);
        }
        *ret_n = out->len;
        *ret = (struct apt_version *)g_array_free(TAKE_PTR(out), FALSE);
        return 0;
}

/* "linux-image-x_6.1.192-3_amd64.deb" -> package, version (%3a -> ':'), arch. */
static int split_deb_name(const char *file, char **ret_pkg, char **ret_ver, char **ret_arch) {
        g_autofree char *stem = NULL, *ver = NULL;
        g_auto(GStrv) parts = NULL;
        GString *g;

        if (!g_str_has_suffix(file, ".deb") || strchr(file, '/'))
                return -EINVAL;
        stem = g_strndup(file, strlen(file) - 4);
        parts = g_strsplit(stem, "_", 4);
        if (g_strv_length(parts) != 3)
                return -EINVAL;
        g = g_string_new(parts[1]);
        g_string_replace(g, "%3a", ":", 0);
        g_string_replace(g, "%3A", ":", 0);
        ver = g_string_free(g, FALSE);
        if (!valid_package(parts[0]) || !valid_version(ver) || !valid_arch(parts[2]))
                return -EINVAL;
        *ret_pkg = g_strdup(parts[0]);
        *ret_ver = TAKE_PTR(ver);
        *ret_arch = g_strdup(parts[2]);
        return 0;
}

int source_apt_parse_print_uris(const char *text, struct apt_version *v, size_t n, struct kb_error *err) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = NULL;
                g_autofree char *pkg = NULL, *ver = NULL, *arch = NULL, *q = NULL;
                const char *end, *hash;
                uint64_t size;

                if (!*g_strstrip(*l))
                        continue;
                if ((*l)[0] != '\'' || !(end = strstr(*l + 1, "' ")))
                        goto bad;
                f = g_strsplit(end + 2, " ", 4);
                if (g_strv_length(f) != 3 || parse_u64(f[1], &size) < 0 ||
                    split_deb_name(f[0], &pkg, &ver, &arch) < 0)
                        goto bad;
                hash = g_str_has_prefix(f[2], "SHA256:") ? f[2] + 7 : NULL;
                if (hash && (strlen(hash) != 64 || strspn(hash, "0123456789abcdefABCDEF") != 64))
                        goto bad;
                for (size_t i = 0; i < n; i++)
                        if (strcmp(v[i].package, pkg) == 0 && strcmp(v[i].version, ver) == 0) {
                                g_free(v[i].file);
                                g_free(v[i].arch);
                                g_free(v[i].sha256);
                                v[i].file = g_strdup(f[0]);
                                v[i].arch = g_strdup(arch);
                                v[i].sha256 = hash ? g_ascii_strdown(hash, -1) : NULL;
                                v[i].size = size;
                        }
                continue;
bad:
                q = quote(*l);
                return error_setf(err, -EBADMSG, "apt-get download --print-uris: unexpected line '%s'", q);
        }
        return 0;
}

/* ---- running APT ------------------------------------------------------------ */

/* Run argv (in cwd, or here if NULL) with LC_ALL=C. OUT: *ret_out (stdout,
 * caller frees). A failure is -EIO "PROG: first error line". */
static int run(char **argv, const char *cwd, char **ret_out, struct kb_error *err) {
        g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LC_ALL", "C", TRUE);
        g_autofree char *out = NULL, *errout = NULL;
        g_autoptr(GError) e = NULL;
        int status;

        if (!g_spawn_sync(cwd, argv, env, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &errout, &status, &e))
                return error_setf(err, -EIO, "%s: %s", argv[0], e->message);
        if (!g_spawn_check_wait_status(status, NULL)) {
                g_auto(GStrv) lines = g_strsplit(errout ? errout : "", "\n", -1);
                const char *first = NULL;
                g_autofree char *q = NULL;
                for (char **l = lines; *l && !first; l++)
                        if (g_str_has_prefix(*l, "E: "))
                                first = *l + 3;
                if (!first)
                        first = lines[0] && *lines[0] ? lines[0] : "failed";
                q = quote(first);
                return error_setf(err, -EIO, "%s %s: %s", argv[0], argv[1] ? argv[1] : "", q);
        }
        if (ret_out)
                *ret_out = TAKE_PTR(out);
        return 0;
}

static const char *prog(const char *p, const char *def) {
        return p ? p : def;
}

int source_apt_resolve(const char *pattern, const struct source_apt_opts *opts, struct apt_version **ret,
                       size_t *ret_n, struct kb_error *err) {
        const char *apt_cache = prog(opts ? opts->apt_cache : NULL, "apt-cache");
        const char *apt_get = prog(opts ? opts->apt_get : NULL, "apt-get");
        g_autofree char *prefix = g_strndup(pattern, strcspn(pattern, "*?["));
        g_autofree char *names_out = NULL, *madison_out = NULL, *uris_out = NULL;
        g_auto(GStrv) names = NULL;
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        struct apt_version *v = NULL;
        size_t n_names, n = 0;
        int r;

        {
                char *a[] = { (char *)apt_cache, "pkgnames", prefix, NULL };
                r = run(a, NULL, &names_out, err);
                if (r < 0)
                        return r;
        }
        source_apt_parse_pkgnames(names_out, pattern, &names, &n_names);
        if (n_names == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        g_ptr_array_add(argv, g_strdup(apt_cache));
        g_ptr_array_add(argv, g_strdup("madison"));
        for (size_t i = 0; i < n_names; i++)
                g_ptr_array_add(argv, g_strdup(names[i]));
        g_ptr_array_add(argv, NULL);
        r = run((char **)argv->pdata, NULL, &madison_out, err);
        if (r < 0)
                return r;
        r = source_apt_parse_madison(madison_out, names, &v, &n, err);
        if (r < 0)
                return r;
        if (n > 0) {
                g_ptr_array_set_size(argv, 0);
                g_ptr_array_add(argv, g_strdup(apt_get));
                g_ptr_array_add(argv, g_strdup("download"));
                g_ptr_array_add(argv, g_strdup("--print-uris"));
                for (size_t i = 0; i < n; i++)
                        g_ptr_array_add(argv, g_strdup_printf("%s=%s", v[i].package, v[i].version));
                g_ptr_array_add(argv, NULL);
                r = run((char **)argv->pdata, NULL, &uris_out, err);
                if (r >= 0)
                        r = source_apt_parse_print_uris(uris_out, v, n, err);
                if (r < 0) {
                        apt_versions_free(v, n);
                        return r;
                }
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f) {
        return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* Download one version into cache_dir/v->file, through a scratch directory. */
static int download(const struct apt_version *v, const char *cache_dir, const char *apt_get, struct kb_error *err) {
        g_autofree char *scratch = g_build_filename(cache_dir, ".apt-download-XXXXXX", NULL);
        g_autofree char *spec = g_strdup_printf("%s=%s", v->package, v->version);
        g_autofree char *got = NULL, *final = g_build_filename(cache_dir, v->file, NULL), *sha = NULL;
        char *argv[] = { (char *)apt_get, "download", spec, NULL };
        gsize len;
        int r;

        if (!g_mkdtemp(scratch))
                return error_setf(err, -errno, "%s: %s", scratch, strerror(errno));
        r = run(argv, scratch, NULL, err);
        if (r < 0)
                goto out;
        got = g_build_filename(scratch, v->file, NULL);
        if (!g_file_test(got, G_FILE_TEST_IS_REGULAR)) {
                r = error_setf(err, -EIO, "apt-get download %s: wrote no %s", spec, v->file);
                goto out;
        }
        if (v->sha256) {
                /* apt checked it too; a kernel is worth reading the file twice. */
                g_autoptr(GChecksum) ck = g_checksum_new(G_CHECKSUM_SHA256);
                g_autoptr(GMappedFile) m = g_mapped_file_new(got, FALSE, NULL);
                if (!m) {
                        r = error_setf(err, -EIO, "%s: cannot read it back", got);
                        goto out;
                }
                len = g_mapped_file_get_length(m);
                g_checksum_update(ck, (const guchar *)g_mapped_file_get_contents(m), (gssize)len);
                sha = g_strdup(g_checksum_get_string(ck));
                if (strcmp(sha, v->sha256) != 0) {
                        r = error_setf(err, -EBADMSG, "apt-get download %s: sha256 %s does not match the index's %s",
                                       spec, sha, v->sha256);
                        goto out;
                }
        }
        if (rename(got, final) < 0)
                r = error_setf(err, -errno, "%s: %s", final, strerror(errno));
out:
        nftw(scratch, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
        return r;
}

int source_apt_sync(const char *pattern, const char *cache_dir, const struct source_apt_opts *opts,
                    int *ret_downloaded, struct kb_error *err) {
        const char *apt_get = prog(opts ? opts->apt_get : NULL, "apt-get");
        struct apt_version *v = NULL;
        size_t n = 0;
        int r, first = 0, downloaded = 0;

        if (g_mkdir_with_parents(cache_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", cache_dir, strerror(errno));
        r = source_apt_resolve(pattern, opts, &v, &n, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                g_autofree char *path = NULL;
                struct kb_error e = { { 0 } };

                if (!v[i].file) {
                        r = error_setf(&e, -EIO, "apt-get download --print-uris did not name the file of %s=%s",
                                       v[i].package, v[i].version);
                } else {
                        path = g_build_filename(cache_dir, v[i].file, NULL);
                        if (g_file_test(path, G_FILE_TEST_EXISTS))
                                continue;
                        r = download(&v[i], cache_dir, apt_get, &e);
                        if (r >= 0)
                                downloaded++;
                }
                if (r < 0 && first == 0) {
                        first = r;
                        if (err)
                                *err = e;
                }
        }
        apt_versions_free(v, n);
        if (first < 0)
                return first;
        if (ret_downloaded)
                *ret_downloaded = downloaded;
        return 0;
}
