/* cli/render: the pumps' events (common/event.h) as kbench shows them.
 * Progress and notes go to stderr through cli/progress.c (one line redrawn
 * on a terminal, a permanent line per cell); a run's summary (report/show.c)
 * and a bisection's answer go to stdout, as text or as JSON. One renderer
 * serves kbench run, kbench bisect (whose steps are runs) and the runs and
 * bisections of kbench nightly. */
#pragma once

#include "cli/progress.h"
#include "common/error.h"
#include "common/event.h"

struct render {
        struct progress progress;
        int json;                  /* --json: the summary and the answer as JSON */
        int all;                   /* --all: the summary shows every metric */
        int width;                 /* columns the summary fits in (cli_width) */
        int image_lines;           /* say where each guest image came from */
        int failed;                /* the run's result could not be shown: err says why */
        struct kb_error err;
};

/* A renderer for a verb's --json and --all. Guest-image lines are shown
 * unless JSON goes to stdout and stderr is no terminal (a script reading
 * both wants the data alone). */
void render_init(struct render *r, int json, int all);

/* The sink that renders into r; r must outlive the pump's run. */
struct kb_sink render_sink(struct render *r);
