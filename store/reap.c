/* reap.c: clean what a killed kbench left behind (see reap.h). */
#include <glib.h>
#include <string.h>

#include "store/reap.h"
#include "store/watchdog.h"

char *reap_run_dir(const struct store_ctx *g) {
        const char *root;
        size_t n;

        if (!g->connect || !strstr(g->connect, "/embed") || !(root = strstr(g->connect, "root=")))
                return NULL;
        root += 5;
        n = strcspn(root, "&");
        if (n == 0)
                return NULL;
        {
                g_autofree char *dir = g_strndup(root, n);
                return g_build_filename(dir, "run", "qemu", NULL);
        }
}

int reap_store(const struct store_ctx *g, struct db *db, struct reap_report *ret, struct kb_error *err) {
        g_autofree char *run_dir = reap_run_dir(g);
        g_autofree char *scratch = g_build_filename(g->home, "scratch", NULL);
        struct reap_report rep = { 0 };
        int r;

        rep.qemu_killed = watchdog_clean("", run_dir ? run_dir : "/nonexistent", scratch, &rep.scratch_removed);
        if (db) {
                r = db_runs_interrupt(db, &rep.runs_interrupted, err);
                if (r < 0)
                        return r;
        }
        *ret = rep;
        return 0;
}
