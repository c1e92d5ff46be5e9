/* cli_show.c: `kbench show`, the reader's view of the result store: the list
 * of runs, one run's cells and summary, one cell in full, or one cell's log
 * raw. Option parsing only; report/show.c lays the output out. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/kfacts.h"
#include "report/show.h"
#include "report/textcompare.h"
#include "results/db.h"

static int parse_bisection_id(const char *text, gint64 *ret) {
        char *end;

        errno = 0;
        *ret = g_ascii_strtoll(text, &end, 10);
        return errno == 0 && *text && !*end && *ret > 0;
}

/* Which options go together: 0, or 1 once the usage error is said. */
static int check_combination(int argc, gboolean json, gboolean tags, gboolean bisect, const char *cell,
                             const char *log) {
        /* The streams cell/cellrows.c stores; vmstat is not stored as a
         * log: it is the rows, rendered. Any other name is a usage error,
         * whatever the cell holds. */
        static const char *const streams[] = { "console", "data", "output", "script", "vmstat" };
        int known = 0;

        if (tags && (argc > 1 || json || cell || log))
                return cli_errorf("show: --tags takes no RUN and no other option");
        if (bisect && (tags || cell || log))
                return cli_errorf("show: --bisect takes an id (or none) and --json, no other option");
        if ((cell || log) && argc < 2)
                return cli_errorf("show: --cell and --log need a RUN (an id or 'last')");
        if (log && !cell)
                return cli_errorf("show: --log needs --cell KEY");
        if (!log)
                return 0;
        for (size_t i = 0; i < G_N_ELEMENTS(streams); i++)
                known |= strcmp(log, streams[i]) == 0;
        if (!known)
                return cli_errorf("show: --log '%.64s' is not a log: console, data, output, script or vmstat", log);
        if (json && strcmp(log, "vmstat") != 0)
                return cli_errorf("show: --log prints the log raw; it cannot be combined with --json");
        return 0;
}

/* What a RUN argument selects: the run, one of its cells, or a cell's log. */
static int show_in_run(struct cli_ctx *c, int64_t run_id, const char *cell, const char *log, int vmstat_view,
                       enum cli_format format, gboolean all, struct kb_error *err) {
        struct db *db = c->s.db;
        int json = format == CLI_FORMAT_JSON;

        if (vmstat_view)
                return show_cell_vmstat(db, run_id, cell, json, stdout, err);
        if (log)
                return show_cell_log(db, run_id, cell, log, isatty(STDOUT_FILENO), stdout, err);
        if (cell)
                return show_cell(db, run_id, cell, json, stdout, err);
        return show_run(db, run_id,
                        &(struct show_opts){ .format = json ? SHOW_JSON : format == CLI_FORMAT_CSV ? SHOW_CSV : SHOW_TEXT,
                                             .all = all, .width = cli_width(TEXTCOMPARE_WIDTH),
                                             .upstream = kfacts_upstream, .upstream_ctx = c },
                        stdout, err);
}

/* What the arguments select, once they are checked: tags, bisections, the
 * list of runs or one run (run_id, resolved from RUN). */
static int show_select(struct cli_ctx *c, int argc, int64_t run_id, gboolean tags, gboolean bisect, gint64 bisection,
                       const char *cell, const char *log, enum cli_format format, gboolean all, struct kb_error *err) {
        struct db *db = c->s.db;
        int json = format == CLI_FORMAT_JSON;

        if (tags)
                return show_tags(db, stdout, err);
        if (bisect && argc < 2)
                return show_bisections(db, json, stdout, err);
        if (bisect)
                return show_bisection(db, bisection, json, stdout, err);
        if (argc < 2)
                return show_runs(db, json, stdout, err);
        return show_in_run(c, run_id, cell, log, log && strcmp(log, "vmstat") == 0, format, all, err);
}

int cli_show(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "show",
                .params = "[RUN|last]",
                .summary = "Without RUN: list the runs (id, tag, start, status, kernels, cells ok/total).\n"
                           "With RUN (an id, or 'last'): the run's cells with state, timings and metrics,\n"
                           "then one row per metric (judged first) and per kernel n and mean +/- stddev\n"
                           "over the ok cells only; rows that repeat another or are 0 everywhere need --all.\n"
                           "With --cell KEY: one cell in full (metrics, vmstat rows, timeline, logs).",
        };
        g_autofree char *cell = NULL, *log = NULL, *format_s = NULL;
        gboolean json = FALSE, tags = FALSE, bisect = FALSE, all = FALSE;
        struct kb_error err = { { 0 } };
        struct db *db;
        int64_t run_id = 0;
        gint64 bisection = 0;
        enum cli_format format;
        int r, rc = 1;
        GOptionEntry entries[] = {
                { "format", 0, 0, G_OPTION_ARG_STRING, &format_s,
                  "text (default), json, or csv (a run's metrics, one row per cell and metric)", "FORMAT" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Short for --format=json", NULL },
                { "all", 'a', 0, G_OPTION_ARG_NONE, &all, "Show everything: keep the summary rows that repeat "
                  "another row or are 0 in every cell", NULL },
                { "cell", 'c', 0, G_OPTION_ARG_STRING, &cell, "Show one cell of the run in full", "KEY" },
                { "log", 'l', 0, G_OPTION_ARG_STRING, &log,
                  "With --cell: print one log of the cell raw (console, data, ...); on a terminal, control "
                  "characters show as '?'. 'vmstat': the guest's vmstat beside the host's block statistics "
                  "of the disk (with --json too)", "STREAM" },
                { "tags", 0, 0, G_OPTION_ARG_NONE, &tags, "List the runs' tags, one a line (for scripts and "
                  "shell completion)", NULL },
                { "bisect", 0, 0, G_OPTION_ARG_NONE, &bisect, "List the bisections; with an id, one with its steps",
                  NULL },
                { NULL },
        };

        if (cli_options(&usage, entries, &argc, &argv))
                return 2;
        if (argc > 2) {
                cli_errorf("show: unexpected argument '%.64s' (try 'kbench show --help')", argv[2]);
                return 2;
        }
        if (cli_format("show", format_s, json, CLI_FORMAT_BIT(CLI_FORMAT_TEXT) | CLI_FORMAT_BIT(CLI_FORMAT_JSON) |
                       CLI_FORMAT_BIT(CLI_FORMAT_CSV), &format))
                return 2;
        json = format == CLI_FORMAT_JSON;
        if (format == CLI_FORMAT_CSV && (argc < 2 || tags || bisect || cell || log)) {
                cli_errorf("show: --format=csv is a run's metrics: kbench show RUN --format=csv");
                return 2;
        }
        if (check_combination(argc, json, tags, bisect, cell, log))
                return 2;
        if (bisect && argc > 1 && !parse_bisection_id(argv[1], &bisection)) {
                cli_errorf("show: --bisect '%.64s' is not a bisection id", argv[1]);
                return 2;
        }
        r = cli_setup(c, &err);
        if (r < 0)
                return cli_error(&err);
        db = c->s.db;
        if (argc >= 2 && !tags && !bisect) {
                r = show_resolve_run(db, argv[1], &run_id, &err);
                if (r == -EINVAL) {     /* RUN is neither an id nor 'last': a usage error */
                        cli_error(&err);
                        return 2;
                }
        }
        if (r >= 0)
                r = show_select(c, argc, run_id, tags, bisect, bisection, cell, log, format, all, &err);
        if (r < 0)
                r = db_blame(db, r, &err);
        rc = r < 0 ? cli_error(&err) : 0;
        return rc;
}
