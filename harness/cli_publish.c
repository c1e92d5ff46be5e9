/* cli_publish.c: `kbench publish`, the static HTML site of the result
 * store. Option parsing only; web/site.c builds and writes the pages. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli.h"
#include "results/db.h"
#include "web/site.h"

int cli_publish(int argc, char **argv, const struct cli_global *g) {
        g_autoptr(GOptionContext) ctx = NULL;
        g_autoptr(GError) gerr = NULL;
        g_autofree char *dir = NULL;
        struct kb_error err = { { 0 } };
        struct site_options opt = { 0 };
        struct site_result res = { 0 };
        struct db *db = NULL;
        int r;
        GOptionEntry entries[] = {
                { "output", 'o', 0, G_OPTION_ARG_FILENAME, &dir, "Write the site into DIR (default <store>/site)",
                  "DIR" },
                { NULL },
        };

        ctx = g_option_context_new("");
        g_option_context_set_summary(ctx,
                "Write a static HTML site of the result store: an index, a page per run,\n"
                "per cell (settings, metrics, charts, logs) and per kernel (its metrics\n"
                "across runs). Pages are plain HTML with inline CSS and SVG charts: no\n"
                "script, no external request; they work from file:// and any web server.\n"
                "Only pages whose bytes changed are written.");
        g_option_context_add_main_entries(ctx, entries, NULL);
        if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
                cli_errorf("publish: %s", gerr->message);
                return 2;
        }
        if (argc > 1) {
                cli_errorf("publish: unexpected argument '%s' (try 'kbench publish --help')", argv[1]);
                return 2;
        }
        if (!dir)
                dir = g_build_filename(g->home, "site", NULL);
        opt.dir = dir;

        r = db_open_existing(g->db_path, &db, &err);
        if (r < 0)
                return cli_error(&err);
        r = site_publish(db, &opt, &res, &err);
        db_close(db);
        if (r < 0)
                return cli_error(&err);
        printf("publish: %zu page%s written, %zu unchanged\n", res.written, res.written == 1 ? "" : "s",
               res.unchanged);
        printf("site: %s/index.html\n", dir);
        return fflush(stdout) == 0 ? 0 : cli_errorf("publish: cannot write the output");
}
