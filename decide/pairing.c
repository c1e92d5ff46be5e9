/* decide/pairing.c: loading a comparison the way `kbench compare` pairs it,
 * shared by compare, nightly and the site so all judge the same cells alike. */
#include <glib.h>
#include <limits.h>
#include <string.h>

#include "decide/pairing.h"
#include "settings/runopts.h"

/* The settings two groups differ in (appended to names, borrowed from the
 * keys), and how many; -1 when they may not be paired across: a setting
 * kept apart differs (the workload's own parameters, dd:size=512M against
 * dd:size=1G, are another measurement, not a setting to compare), or a
 * cell's params were unreadable. */
static int across(const struct pairkey *a, const struct pairkey *b, GPtrArray *names) {
        g_autoptr(GPtrArray) found = g_ptr_array_new();
        size_t n = pairkey_diff(a, b, found, NULL);

        for (guint i = 0; i < found->len; i++) {
                const char *k = g_ptr_array_index(found, i);

                if (runopts_key_apart(k) || strcmp(k, PAIRKEY_PARAMS_RAW) == 0)
                        return -1;
        }
        for (guint i = 0; names && i < found->len; i++)
                g_ptr_array_add(names, g_ptr_array_index(found, i));
        return (int)n;
}

/* The settings that keep A's groups apart from their nearest group of the
 * same workload on B (the fewest differing settings), each once. */
static void differing_settings(const struct compare_view *v, GPtrArray *keys) {
        for (size_t i = 0; i < v->n_lonely; i++) {
                const struct compare_lonely *la = &v->lonely[i];
                const struct compare_lonely *best = NULL;
                int best_n = INT_MAX;
                g_autoptr(GPtrArray) found = g_ptr_array_new();

                if (la->side != 'A')
                        continue;
                for (size_t j = 0; j < v->n_lonely; j++) {
                        const struct compare_lonely *lb = &v->lonely[j];
                        int n;

                        if (lb->side != 'B' || strcmp(lb->workload, la->workload) != 0)
                                continue;
                        n = across(la->key, lb->key, NULL);
                        if (n > 0 && n < best_n) {
                                best_n = n;
                                best = lb;
                        }
                }
                if (!best)
                        continue;
                across(la->key, best->key, found);
                for (guint k = 0; k < found->len; k++) {
                        gboolean seen = FALSE;

                        for (guint m = 0; m < keys->len && !seen; m++)
                                seen = strcmp(g_ptr_array_index(keys, m), g_ptr_array_index(found, k)) == 0;
                        if (!seen)
                                g_ptr_array_add(keys, g_strdup(g_ptr_array_index(found, k)));
                }
        }
}

int pairing_compare_load(struct db *db, struct compare_options *o, GPtrArray *ignored,
                           struct compare_view **ret, struct kb_error *err) {
        g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
        struct compare_view *v = NULL;
        int r;

        o->ignore_settings = (const char *const *)ignored->pdata;
        r = view_compare_load(db, o, &v, err);
        if (r < 0 || v->n_groups > 0)
                goto out;
        differing_settings(v, keys);
        if (keys->len == 0)
                goto out;
        compare_view_free(v);
        v = NULL;
        g_ptr_array_remove_index(ignored, ignored->len - 1);   /* the NULL end */
        for (guint k = 0; k < keys->len; k++)
                g_ptr_array_add(ignored, g_strdup(g_ptr_array_index(keys, k)));
        g_ptr_array_add(ignored, NULL);
        o->ignore_settings = (const char *const *)ignored->pdata;
        r = view_compare_load(db, o, &v, err);
out:
        if (r >= 0)
                *ret = v;
        return r;
}

