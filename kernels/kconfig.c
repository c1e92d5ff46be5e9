/* kernels/kconfig.c: a kernel's upstream version and how two .configs
 * differ (see kconfig.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/fileio.h"
#include "common/util.h"
#include "common/utf8.h"
#include "kernels/kconfig.h"

#define LINE_MAX_CHARS 300         /* characters of one difference's line */
#define OPTION_LINE_MAX 4096       /* a longer .config line is not an option kbench reads */

/* The "X.Y" or "X.Y.Z" that s starts with, or NULL. */
static char *leading_version(const char *s) {
        size_t n = 0, dots = 0;

        while (s[n] && (isdigit((unsigned char)s[n]) || (s[n] == '.' && n > 0 && s[n - 1] != '.' && dots < 2))) {
                dots += s[n] == '.';
                n++;
        }
        while (n > 0 && s[n - 1] == '.')
                n--, dots--;
        return dots >= 1 ? g_strndup(s, n) : NULL;
}

char *kconfig_upstream(const char *version, const char *release) {
        /* Debian's builds say "Debian 6.1.170-3"; "-Debian" elsewhere in a
         * string is not followed by a version, so each mention is tried. */
        for (const char *p = version; p && (p = strstr(p, "Debian ")); p++) {
                char *v = leading_version(p + strlen("Debian "));
                if (v)
                        return v;
        }
        return release ? leading_version(release) : NULL;
}

char *kconfig_read(const char *path) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;

        if (!path || fileio_read(path, KCONFIG_MAX, &buf, &len, NULL, NULL) < 0)
                return NULL;
        return g_strndup(buf, len);
}

/* A .config's options: name -> value ("y", "m", "\"text\"", or NULL for
 * "# CONFIG_X is not set"). A .config is a file of the store, not
 * trusted: an overlong line is skipped. */
static GHashTable *options(const char *text) {
        GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);

        for (size_t i = 0; lines[i]; i++) {
                char *l = g_strstrip(lines[i]), *eq;

                if (strlen(l) > OPTION_LINE_MAX)
                        continue;
                if (g_str_has_prefix(l, "# CONFIG_") && g_str_has_suffix(l, " is not set")) {
                        l[strlen(l) - strlen(" is not set")] = '\0';
                        g_hash_table_replace(h, g_strdup(l + 2), NULL);
                } else if (g_str_has_prefix(l, "CONFIG_") && (eq = strchr(l, '='))) {
                        *eq = '\0';
                        g_hash_table_replace(h, g_strdup(l), g_strdup(eq + 1));
                }
        }
        return h;
}

static gint cmp_strp(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

char **kconfig_diff(const char *config_a, const char *config_b, size_t max, size_t *ret_total) {
        g_autoptr(GHashTable) a = options(config_a), b = options(config_b);
        g_autoptr(GPtrArray) names = g_ptr_array_new();
        GPtrArray *out = g_ptr_array_new();
        GHashTableIter it;
        gpointer key;
        size_t shown = 0;

        g_hash_table_iter_init(&it, a);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_ptr_array_add(names, key);
        g_hash_table_iter_init(&it, b);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (!g_hash_table_contains(a, key))
                        g_ptr_array_add(names, key);
        g_ptr_array_sort(names, cmp_strp);
        for (guint i = 0; i < names->len; i++) {
                const char *va = g_hash_table_lookup(a, names->pdata[i]), *vb = g_hash_table_lookup(b, names->pdata[i]);
                g_autofree char *line = NULL;

                if (g_strcmp0(va, vb) == 0)
                        continue;
                if (shown++ >= max)
                        continue;
                line = g_strdup_printf("%s: %s -> %s", (const char *)names->pdata[i], va ? va : "(unset)",
                                       vb ? vb : "(unset)");
                g_ptr_array_add(out, utf8_mask_cut(line, LINE_MAX_CHARS));
        }
        if (shown > max)
                g_ptr_array_add(out, g_strdup_printf("... and %zu more", shown - max));
        g_ptr_array_add(out, NULL);
        if (ret_total)
                *ret_total = shown;
        return (char **)g_ptr_array_free(out, FALSE);
}
