/* cli_complete.c: `kbench --complete WHAT [ARG...]`, hidden: what the store
 * holds, one a line, for cli/kbench.bash, which must not read the
 * database itself (nor parse what `show` prints for people). A table of
 * what it lists, like the verbs'. Names that would not make one shell
 * word (a newline, a blank) are left out. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/show.h"
#include "results/db.h"
#include "results/names.h"
#include "results/query.h"

static void put(const char *word) {
        if (word && *word && !strpbrk(word, " \t\n\r"))
                printf("%s\n", word);
}

static int complete_runs(struct db *db, char **args, struct kb_error *err) {
        struct query_run *runs = NULL;
        size_t n = 0;
        int r = query_runs(db, &runs, &n, err);

        for (size_t i = n; r >= 0 && i-- > 0;)
                printf("%" PRId64 "\n", runs[i].id);
        if (r >= 0)
                put("last");
        query_runs_free(runs, n);
        return r;
}

static int complete_cells(struct db *db, char **args, struct kb_error *err) {
        struct query_cell *cells = NULL;
        size_t n = 0;
        int64_t run = 0;
        int r = show_resolve_run(db, args[0], &run, err);
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

        if (r >= 0)
                r = query_cells(db, run, &cells, &n, err);
        /* A cell's attempts are rows of their own: its key once. */
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (g_hash_table_add(seen, cells[i].cell_key))
                        put(cells[i].cell_key);
        query_cells_free(cells, n);
        return r;
}

static int complete_logs(struct db *db, char **args, struct kb_error *err) {
        struct query_cell *cell = NULL;
        struct query_log_info *logs = NULL;
        size_t n = 0;
        int64_t run = 0;
        int r = show_resolve_run(db, args[0], &run, err);

        if (r >= 0)
                r = query_cell(db, run, args[1], &cell, err);
        if (r >= 0)
                r = query_cell_logs(db, cell->id, &logs, &n, err);
        for (size_t i = 0; r >= 0 && i < n; i++)
                put(logs[i].stream);
        if (r >= 0)
                put("vmstat");        /* not a log: the vmstat rows beside the host's (show --log vmstat) */
        query_log_infos_free(logs, n);
        query_cells_free(cell, cell ? 1 : 0);
        return r;
}

static int complete_metrics(struct db *db, char **args, struct kb_error *err) {
        g_auto(GStrv) names = NULL;
        int r = names_metrics(db, &names, err);

        for (size_t i = 0; r >= 0 && names[i]; i++)
                put(names[i]);
        return r;
}

static const struct {
        const char *what;
        int nargs;
        int (*fn)(struct db *db, char **args, struct kb_error *err);
} lists[] = {
        { "runs", 0, complete_runs },
        { "cells", 1, complete_cells },
        { "logs", 2, complete_logs },
        { "metrics", 0, complete_metrics },
};

int cli_complete(int argc, char **argv, struct cli_ctx *c) {
        struct kb_error err = { { 0 } };
        int r;

        for (size_t i = 0; i < G_N_ELEMENTS(lists); i++) {
                if (argc < 2 || strcmp(argv[1], lists[i].what) != 0)
                        continue;
                if (argc != 2 + lists[i].nargs)
                        return 2;
                r = cli_setup(c, &err);
                if (r >= 0)
                        r = lists[i].fn(c->s.db, argv + 2, &err);
                return r < 0 ? 1 : 0;
        }
        return 2;
}
