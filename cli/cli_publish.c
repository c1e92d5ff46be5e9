/* cli_publish.c: `kbench publish`, the static HTML site of the result
 * store. Option parsing only; web/site.c builds and writes the pages. */
#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/utf8.h"
#include "common/util.h"
#include "cli/cli.h"
#include "report/json.h"
#include "report/compare.h"
#include "results/db.h"
#include "web/output.h"
#include "web/site.h"

/* Whether spec splits at some ':' into two texts that parse as selectors
 * (a selector may hold ':' itself: which split, the store decides). */
static int compare_spec_ok(const char *spec) {
        struct compare_selector sel;

        for (const char *p = strchr(spec, ':'); p; p = strchr(p + 1, ':')) {
                g_autofree char *a = g_strndup(spec, (gsize)(p - spec));

                if (compare_selector_parse(a, &sel, NULL) == 0 && compare_selector_parse(p + 1, &sel, NULL) == 0)
                        return 1;
        }
        return 0;
}

/* Whether dir is the store's own site: <store>/site, a directory of the
 * store itself (not a link to one elsewhere), whether it was named by -o
 * or by default. That one is kbench's as the store is, and one written
 * before sites carried a manifest is taken over (OUTPUT_ADOPT); once it
 * has a manifest, a file it does not name is left alone as in any site.
 * Any other directory, <store>/site as a link to someone's directory too,
 * must be a site or empty. */
static int is_store_site(const char *dir, const char *home) {
        g_autofree char *own = g_build_filename(home, "site", NULL);
        struct stat mine, given;

        if (lstat(own, &mine) < 0 || !S_ISDIR(mine.st_mode) || stat(dir, &given) < 0)
                return 0;
        return mine.st_dev == given.st_dev && mine.st_ino == given.st_ino;
}

static void print_text(const char *dir, const struct site_result *res) {
        /* The directory is the user's text: a newline in it must not forge
         * a second line for a script reading this one. */
        _cleanup_free_ char *shown = utf8_mask(dir);

        printf("publish: %zu page%s written, %zu unchanged", res->written, res->written == 1 ? "" : "s",
               res->unchanged);
        if (res->removed)
                printf(", %zu stale removed", res->removed);
        printf("\nsite: %s/index.html\n", shown);
}

static int print_json(const char *dir, const struct site_result *res, struct kb_error *err) {
        g_autofree char *index = g_build_filename(dir, "index.html", NULL);
        json_t *j;
        int r;

        /* JSON carries text: a path that is not UTF-8 cannot be given as it is. */
        if (!g_utf8_validate(dir, -1, NULL))
                return error_setf(err, -EINVAL, "publish: the site's directory is not UTF-8 text, which JSON "
                                  "cannot carry as it is (the site is written; --format=text names it)");
        j = json_pack("{s:s%, s:s%, s:I, s:I, s:I, s:I}", "site", dir, strlen(dir), "index", index, strlen(index),
                      "written", (json_int_t)res->written, "unchanged", (json_int_t)res->unchanged, "removed",
                      (json_int_t)res->removed, "dropped", (json_int_t)res->dropped);
        r = j ? json_view_print(j, stdout, err) : error_setf(err, -ENOMEM, "publish: out of memory");
        json_decref(j);
        return r;
}

static const char publish_summary[] =
        "Write a static HTML site of the result store: an index, a page per run,\n"
        "per cell (settings, metrics, charts, logs) and per kernel (its metrics\n"
        "across runs) and per comparison (kbench compare's tables and verdicts,\n"
        "with bar charts and vmstat of both sides overlaid). Without --compare,\n"
        "each kernel of a run is compared with the one before it in that run.\n"
        "A and B are selectors as in kbench compare: a kernel name, run:ID,\n"
        "run:ID:KERNEL, tag:NAME or tag:NAME:KERNEL.\n\n"
        "Pages are plain HTML with inline CSS and SVG charts: no script, no\n"
        "external request; they work from file:// and any web server. Only pages\n"
        "whose bytes changed are written.\n\n"
        "DIR is a kbench site when it holds .kbench-site, the list of the pages\n"
        "kbench wrote there; only those are ever replaced or removed. A missing or\n"
        "empty DIR becomes a site; any other DIR is refused unless --force. The\n"
        "store's own site/ directory (with or without -o; not a link elsewhere)\n"
        "without .kbench-site was written before kbench kept one: it is taken over,\n"
        "then follows its manifest as any site. Publishes into one DIR take turns.";

/* What publish was asked, before any store is opened: the arguments,
 * the format, -o and each --compare. Returns 0, or -1 once the usage
 * error is said. */
static int check_request(int argc, char **argv, const char *format_s, gboolean json, enum cli_format *format,
                         const char *dir, char **compares) {
        if (argc > 1) {
                cli_errorf("publish: unexpected argument '%.64s' (try 'kbench publish --help')", argv[1]);
                return -1;
        }
        if (cli_format("publish", format_s, json, CLI_FORMAT_BIT(CLI_FORMAT_TEXT) | CLI_FORMAT_BIT(CLI_FORMAT_JSON),
                       format))
                return -1;
        if (dir && !*dir) {
                cli_errorf("publish: -o needs a directory, not an empty string");
                return -1;
        }
        /* What no store could make a comparison of is a usage error; which
         * kernels and runs exist is the store's to say (exit 1). */
        for (size_t i = 0; compares && compares[i]; i++)
                if (!compare_spec_ok(compares[i])) {
                        cli_errorf("publish: --compare " CLI_Q " is not A:B with A and B selectors (a kernel name, "
                                   "run:ID, run:ID:KERNEL, tag:NAME or tag:NAME:KERNEL)", CLI_QARG(compares[i]));
                        return -1;
                }
        return 0;
}

int cli_publish(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "publish",
                .params = "",
                .summary = publish_summary,
        };
        const struct store_ctx *g = c->g;
        g_autofree char *dir = NULL;
        g_auto(GStrv) compares = NULL;
        struct kb_error err = { { 0 } };
        struct site_options opt = { 0 };
        struct site_result res = { 0 };
        g_autofree char *format_s = NULL;
        gboolean force = FALSE, json = FALSE;
        enum cli_format format;
        int r;
        GOptionEntry entries[] = {
                { "output", 'o', 0, G_OPTION_ARG_FILENAME, &dir, "Write the site into DIR (default <store>/site)",
                  "DIR" },
                { "compare", 0, 0, G_OPTION_ARG_STRING_ARRAY, &compares,
                  "Add a comparison page of B against A (selectors as in kbench compare); repeatable", "A:B" },
                { "force", 0, 0, G_OPTION_ARG_NONE, &force,
                  "Write into DIR even if it is not empty and not a kbench site (no .kbench-site)", NULL },
                { "format", 0, 0, G_OPTION_ARG_STRING, &format_s,
                  "What was written as text (default) or json: pages written, unchanged, removed, the site", "FORMAT" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Short for --format=json", NULL },
                { NULL },
        };

        if (cli_options(&usage, entries, &argc, &argv))
                return 2;
        if (check_request(argc, argv, format_s, json, &format, dir, compares) < 0)
                return 2;
        if (!dir)
                dir = g_build_filename(g->home, "site", NULL);
        opt.force = force;
        opt.adopt = is_store_site(dir, g->home);
        opt.dir = dir;
        opt.compares = (const char *const *)compares;
        opt.n_compares = compares ? g_strv_length(compares) : 0;

        r = cli_setup(c, &err);
        if (r < 0)
                return cli_error(&err);
        r = site_publish(c->s.db, &opt, &res, &err);
        if (r < 0)
                r = db_blame(c->s.db, r, &err);
        if (r < 0)
                return cli_error(&err);
        if (res.dropped) {
                struct kb_error note;

                /* One line on stderr, masked as errors are: the names are the file's. */
                error_setf(&note, 0, "publish: note: dropped %zu entr%s of %s/%s that %s not a page kbench "
                           "writes, first %s", res.dropped, res.dropped == 1 ? "y" : "ies", dir, OUTPUT_MANIFEST,
                           res.dropped == 1 ? "is" : "are", res.dropped_note);
                cli_error(&note);
        }
        if (format == CLI_FORMAT_JSON)
                r = print_json(dir, &res, &err);
        else
                print_text(dir, &res);
        if (r < 0)
                return cli_error(&err);
        return 0;
}
