/* nightly/nightly_sources.c: the sources of a nightly configuration (see
 * nightly_sources.h). The state of a source is opened for its sync and its
 * scan and saved at once, so a crash later in the night loses nothing. */
#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "nightly/nightly_sources.h"
#include "kernels/source_state.h"

static const char *source_location(const struct nightly_source *src) {
        switch (src->type) {
        case NIGHTLY_SOURCE_DIR: return src->path;
        case NIGHTLY_SOURCE_URL: return src->url;
        case NIGHTLY_SOURCE_APT: return src->pattern;
        }
        return "";
}

char *nightly_source_home(const struct nightly_source *src, const char *store_root) {
        g_autofree char *ident = g_strdup_printf("%s\n%s\n%s", nightly_source_type_name(src->type),
                                                 source_location(src), src->name ? src->name : "");
        g_autofree char *digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, ident, -1);

        digest[16] = '\0';
        return g_build_filename(store_root, "sources", digest, NULL);
}

void nightly_found_free(struct nightly_found *f, size_t n) {
        if (!f)
                return;
        for (size_t i = 0; i < n; i++)
                g_free(f[i].path);
        g_free(f);
}

/* Sync (url, apt) and scan one source. OUT: paths appended to found. */
static int collect_one(const struct nightly_config *cfg, size_t i, const char *store_root,
                       const struct nightly_sources_opts *o, GArray *found, struct kb_error *err) {
        const struct nightly_source *src = &cfg->sources[i];
        g_autofree char *home = nightly_source_home(src, store_root);
        g_autofree char *state_path = g_build_filename(home, "state.json", NULL);
        g_autofree char *files = g_build_filename(home, "files", NULL);
        /* Our own downloads appear by rename, complete: no settling needed. */
        struct source_dir_opts own = { .settle_s = 0, .probe_ms = 0 };
        const struct source_dir_opts *dir_opts = &own;
        const char *scan = files;
        struct source_state *state = NULL;
        char **paths = NULL;
        size_t n = 0;
        int r;

        if (g_mkdir_with_parents(home, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", home, g_strerror(errno));
        r = source_state_open(state_path, &state, err);
        if (r < 0)
                return r;
        switch (src->type) {
        case NIGHTLY_SOURCE_DIR:
                scan = src->path;
                dir_opts = o->dir;
                break;
        case NIGHTLY_SOURCE_URL:
                r = source_url_sync(src->url, src->sha256, files, state, o->url, NULL, err);
                break;
        case NIGHTLY_SOURCE_APT:
                r = source_apt_sync(src->pattern, files, o->apt, NULL, err);
                break;
        }
        /* A failed sync may still have completed some files: scan anyway,
         * and report the failure after. */
        {
                struct kb_error scan_err = { { 0 } };
                int s = g_file_test(scan, G_FILE_TEST_IS_DIR) || src->type == NIGHTLY_SOURCE_DIR
                                ? source_dir_scan(scan, state, dir_opts, &paths, &n, &scan_err) : 0;
                if (s < 0 && r >= 0) {
                        r = s;
                        if (err)
                                *err = scan_err;
                }
        }
        for (size_t k = 0; k < n; k++) {
                struct nightly_found f = { .source = i, .path = TAKE_PTR(paths[k]) };
                g_array_append_val(found, f);
        }
        g_free(paths);
        {
                int s = source_state_save(state, r < 0 ? NULL : err);
                if (s < 0 && r >= 0)
                        r = s;
        }
        source_state_free(state);
        return r;
}

int nightly_sources_collect(const struct nightly_config *cfg, const char *store_root,
                            const struct nightly_sources_opts *opts, struct nightly_found **ret_found,
                            size_t *ret_n, char ***ret_errors, struct kb_error *err) {
        static const struct nightly_sources_opts none = { 0 };
        const struct nightly_sources_opts *o = opts ? opts : &none;
        g_autofree char *root = g_build_filename(store_root, "sources", NULL);
        g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(struct nightly_found));
        g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);

        if (g_mkdir_with_parents(root, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", root, g_strerror(errno));
        for (size_t i = 0; i < cfg->n_sources; i++) {
                struct kb_error e = { { 0 } };
                const struct nightly_source *src = &cfg->sources[i];

                if (collect_one(cfg, i, store_root, o, found, &e) < 0)
                        g_ptr_array_add(errors, g_strdup_printf("sources[%zu] (%s %s): %s", i,
                                                                nightly_source_type_name(src->type),
                                                                source_location(src), e.msg));
        }
        *ret_n = found->len;
        *ret_found = (struct nightly_found *)g_array_free(TAKE_PTR(found), FALSE);
        g_ptr_array_add(errors, NULL);
        *ret_errors = (char **)g_ptr_array_free(TAKE_PTR(errors), FALSE);
        return 0;
}

/* The state's key of the history: an object of file name -> kernel id. */
#define HISTORY_KEY "history"

int nightly_sources_mark(const struct nightly_config *cfg, const char *store_root, const struct nightly_found *f,
                         const char *kernel_id, struct kb_error *err) {
        g_autofree char *home = NULL, *state_path = NULL, *file = NULL;
        struct source_state *state = NULL;
        json_t *history;
        int r;

        if (f->source >= cfg->n_sources)
                return error_setf(err, -EINVAL, "%s: no source %zu", f->path, f->source);
        home = nightly_source_home(&cfg->sources[f->source], store_root);
        state_path = g_build_filename(home, "state.json", NULL);
        r = source_state_open(state_path, &state, err);
        if (r < 0)
                return r;
        r = source_dir_mark(state, f->path, err);
        if (r >= 0 && kernel_id) {
                history = source_state_get(state, HISTORY_KEY);
                history = history ? json_deep_copy(history) : json_object();
                file = g_path_get_basename(f->path);
                json_object_set_new(history, file, json_string(kernel_id));
                source_state_set(state, HISTORY_KEY, history);
        }
        if (r >= 0)
                r = source_state_save(state, err);
        source_state_free(state);
        return r;
}

static int history_order(const void *a, const void *b) {
        const struct nightly_history *x = a, *y = b;

        return strverscmp(x->file, y->file);
}

int nightly_sources_history(const struct nightly_config *cfg, const char *store_root, size_t i,
                            struct nightly_history **ret, size_t *ret_n, struct kb_error *err) {
        g_autofree char *home = NULL, *state_path = NULL;
        g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(struct nightly_history));
        struct source_state *state = NULL;
        const char *file;
        json_t *history, *id;
        int r;

        if (i >= cfg->n_sources)
                return error_setf(err, -EINVAL, "no source %zu", i);
        home = nightly_source_home(&cfg->sources[i], store_root);
        state_path = g_build_filename(home, "state.json", NULL);
        r = source_state_open(state_path, &state, err);
        if (r < 0)
                return r;
        history = source_state_get(state, HISTORY_KEY);
        if (history)
                json_object_foreach(history, file, id) {
                        struct nightly_history h;

                        /* The state is a cache kbench wrote, but a file all the same. */
                        if (!json_is_string(id) || strlen(json_string_value(id)) != 64 || strchr(file, '/'))
                                continue;
                        h = (struct nightly_history){ g_strdup(file), g_strdup(json_string_value(id)) };
                        g_array_append_val(out, h);
                }
        source_state_free(state);
        /* An empty GArray's data may be NULL, which qsort must not get. */
        if (out->len > 1)
                qsort(out->data, out->len, sizeof(struct nightly_history), history_order);
        *ret_n = out->len;
        *ret = (struct nightly_history *)(void *)g_array_free(TAKE_PTR(out), FALSE);
        return 0;
}

void nightly_history_free(struct nightly_history *h, size_t n) {
        if (!h)
                return;
        for (size_t i = 0; i < n; i++) {
                g_free(h[i].file);
                g_free(h[i].kernel_id);
        }
        g_free(h);
}
