/* report/pairing.c: loading a comparison the way `kbench compare` pairs it,
 * shared by compare, nightly and the site so all judge the same cells alike. */
#include <glib.h>
#include <jansson.h>
#include <limits.h>
#include <string.h>

#include "report/pairing.h"

/* Settings never paired across unasked: the workload's own parameters
 * (dd:size=512M against dd:size=1G is another measurement, not a setting
 * to compare) and unreadable params. */
static const char *const never_across[] = { "workload", "params_raw" };

/* The keys whose values differ between two pairing keys (canonical JSON
 * objects), into keys (each once, comma-separated); how many, or -1 when
 * the two may not be paired across (a workload parameter differs, or a key
 * is unreadable). */
static int key_diff(const char *ka, const char *kb, GPtrArray *keys) {
        json_t *a = json_loads(ka, 0, NULL), *b = json_loads(kb, 0, NULL), *val;
        const char *k;
        int n = 0;

        if (!json_is_object(a) || !json_is_object(b))
                n = -1;
        for (int pass = 0; n >= 0 && pass < 2; pass++) {
                json_t *x = pass ? b : a, *y = pass ? a : b;

                json_object_foreach(x, k, val) {
                        json_t *other = json_object_get(y, k);

                        if ((pass && other) || (other && json_equal(val, other)))
                                continue;
                        for (size_t i = 0; i < G_N_ELEMENTS(never_across); i++)
                                if (strcmp(k, never_across[i]) == 0)
                                        n = -1;
                        if (n < 0)
                                break;
                        n++;
                        if (keys)
                                g_ptr_array_add(keys, g_strdup(k));
                }
        }
        json_decref(a);
        json_decref(b);
        return n;
}

/* The settings that keep A's groups apart from their nearest group of the
 * same workload on B (the fewest differing settings), each once. */
static void differing_settings(const struct compare_view *v, GPtrArray *keys) {
        for (size_t i = 0; i < v->n_lonely; i++) {
                const struct compare_lonely *la = &v->lonely[i];
                const struct compare_lonely *best = NULL;
                int best_n = INT_MAX;
                g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);

                if (la->side != 'A')
                        continue;
                for (size_t j = 0; j < v->n_lonely; j++) {
                        const struct compare_lonely *lb = &v->lonely[j];
                        int n;

                        if (lb->side != 'B' || strcmp(lb->workload, la->workload) != 0)
                                continue;
                        n = key_diff(la->key, lb->key, NULL);
                        if (n > 0 && n < best_n) {
                                best_n = n;
                                best = lb;
                        }
                }
                if (!best)
                        continue;
                key_diff(la->key, best->key, found);
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

