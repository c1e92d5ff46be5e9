/* results/names.c: the names the store holds (see names.h). */
#include <glib.h>

#include "results/names.h"

int names_metrics(struct db *db, char ***ret, struct kb_error *err) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func(g_free);
        int r = db_prepare(db, "SELECT DISTINCT name FROM metrics ORDER BY name", &s, err);
        int rc;

        if (r < 0)
                return r;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
                if (sqlite3_column_type(s, 0) == SQLITE_TEXT)
                        g_ptr_array_add(v, g_strdup((const char *)sqlite3_column_text(s, 0)));
        if (rc != SQLITE_DONE)
                return db_error(db, rc, err, "reading the metric names");
        g_ptr_array_add(v, NULL);
        *ret = (char **)g_ptr_array_free(g_steal_pointer(&v), FALSE);
        return 0;
}
