/* common/event: what a pump tells whoever watches it. Every pump of
 * kbench (a run, a bisection, a night, a kernel's build or import, a
 * cell) prints nothing: it hands each fact, one small struct, to a sink of
 * one shape, and cli/ renders the events as text on stderr, a result as
 * text or JSON on stdout, or nothing at all (curl's lib/ never prints; its
 * tool does). The pumps also run unattended inside kbench nightly and in
 * unit tests, which pass their own sink or none; a pump that drives
 * another (a bisection its runs, a night its runs and bisections) hands
 * it the same sink, and a bisection relays its builds' lines as its own
 * (KB_ORIGIN_BISECT). An event only borrows: its pointers are valid during
 * the call, and a sink copies what it keeps.
 *
 * The payloads are typed: the structs named below are defined by the
 * floor that sends them (results/db.h, results/bisect.h,
 * report/textbisect.h, nightly/nightly_events.h, nightly/nightly_report.h);
 * a sink that reads one includes its header. The price of one shape: a
 * new pump's kinds are added here. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct bisect_ending;
struct bisect_row;
struct db;
struct nightly_bisect_event;
struct nightly_plan_event;
struct nightly_report;

enum kb_event_kind {
        /* Any pump. */
        KB_EVENT_NOTE,            /* text: one line for the person watching (a host opened, a round's
                                     answer, a bisection's step) */
        KB_EVENT_PROGRESS,        /* text: one line of a kernel's build or import */
        /* A run (run/runner.h), also each step of a bisection and each run of a night. */
        KB_EVENT_IMAGE,           /* label (the kernel), cached, seconds: its guest image is ready */
        KB_EVENT_CELLS,           /* total: the cells about to run, the clock of the ETA starts */
        KB_EVENT_CELL_BEGIN,      /* label: a cell's attempts begin (a run on one host) */
        KB_EVENT_CELL_STAGE,      /* stage: the running cell reached it, "boot", "run" (sent by the
                                     cell, cell/cell.h; a run forwards it on one host only) */
        KB_EVENT_CELL_RETRY,      /* label, state, detail: an attempt ended and another one follows */
        KB_EVENT_CELL_END,        /* label, state, detail; with own_line, seconds: a cell's last attempt
                                     ended */
        KB_EVENT_STOPPED,         /* stop, run_id; total (RUN_STOP_NO_HOST): the cells held. The run
                                     ended before its last cell and can be resumed */
        KB_EVENT_CELL_KEPT,       /* label, run_id, state, detail (why), text (the file): a cell the
                                     database refused, kept in a file that resuming the run stores */
        KB_EVENT_RESULT,          /* run_id, db: the run ended (or had nothing left to run); its summary
                                     can be read from db. Not sent when the driver reports it itself */
        /* A bisection (bisect/bisect.h). */
        KB_EVENT_BISECT_RESULT,   /* bisection, ending: the bisection's answer */
        /* A night (nightly/nightly.h). */
        KB_EVENT_NIGHT_RESUME,    /* run_id: a run an earlier night left is resumed now */
        KB_EVENT_NIGHT_WOULD_RESUME, /* run_id: a dry run would resume it */
        KB_EVENT_NIGHT_ERROR,     /* text: a source, an import or a comparison failed; the night goes on,
                                     its report lists it and it exits 1 */
        KB_EVENT_NIGHT_PLAN,      /* plan: what a dry run would measure */
        KB_EVENT_NIGHT_RUN_DONE,  /* group, n_groups, run_id, code: a run of the plan ended */
        KB_EVENT_NIGHT_NOT_STARTED, /* group, n_groups, interrupted: a run of the plan is left for the next
                                     night (a signal, else the deadline) */
        KB_EVENT_NIGHT_BISECT,    /* night_bisect: a bisection of tonight's regression starts */
        KB_EVENT_NIGHT_REPORT,    /* report: the night's report, once, before the mail */
        KB_EVENT_NIGHT_NOTIFY_FAILED, /* text: the notify command did not take the mail */
};

/* Why a run stopped before its last cell (KB_EVENT_STOPPED). */
enum run_stop {
        RUN_STOP_NO_HOST,          /* every host failed: cells are held */
        RUN_STOP_HOST_FAILED,      /* the host could not go on (its disk is full) */
        RUN_STOP_INTERRUPTED,      /* a signal or the deadline */
};

/* Who sent a NOTE or a PROGRESS line: a bisection's own lines, and the
 * builds it asks for, read as the bisection's. */
enum kb_event_origin {
        KB_ORIGIN_RUN,
        KB_ORIGIN_BISECT,
        KB_ORIGIN_KERNEL,          /* kernels/: a build or an import */
};

struct kb_event {
        enum kb_event_kind kind;
        enum kb_event_origin origin;
        const char *text;          /* NOTE, PROGRESS: the line, without a newline; CELL_KEPT: the file;
                                      NIGHT_ERROR, NIGHT_NOTIFY_FAILED: one line */
        enum run_stop stop;        /* STOPPED */
        const char *label;         /* CELL_*: the cell as its line names it ("c003" on one host, the
                                      whole label beside others); IMAGE: the kernel's name */
        const char *stage;         /* CELL_STAGE */
        const char *state;         /* CELL_RETRY, CELL_END: the attempt's end state (cell/endstate.h) */
        const char *detail;        /* CELL_RETRY, CELL_END: one line; it may quote the guest's console:
                                      untrusted, render it through an escaping writer */
        size_t total;              /* CELLS: cells to run; STOPPED: the cells held */
        double seconds;            /* CELL_END with own_line: the cell's wall time; IMAGE: the build's */
        int cached;                /* IMAGE: 1 found in the store's cache, 0 built now */
        int own_line;              /* CELL_END: cells ran side by side, so no progress line was drawn:
                                      the line carries its label and seconds */
        int64_t run_id;            /* RESULT, STOPPED, CELL_KEPT, NIGHT_RESUME, NIGHT_WOULD_RESUME,
                                      NIGHT_RUN_DONE */
        struct db *db;             /* RESULT: the run's database, open during the call */
        const struct bisect_row *bisection; /* BISECT_RESULT: the bisection as stored, with its steps
                                      (results/bisect.h) */
        const struct bisect_ending *ending; /* BISECT_RESULT: what it adds as it ends: the caution, the
                                      confirmation, where the change went (report/textbisect.h) */
        size_t group, n_groups;    /* NIGHT_RUN_DONE, NIGHT_NOT_STARTED: which run of the plan (0-based),
                                      of how many */
        int code;                  /* NIGHT_RUN_DONE: the runner's exit code (0, or 3: failed or left
                                      cells) */
        int interrupted;           /* NIGHT_NOT_STARTED: 1 a signal, 0 the deadline */
        const struct nightly_plan_event *plan;     /* NIGHT_PLAN */
        const struct nightly_bisect_event *night_bisect; /* NIGHT_BISECT */
        const struct nightly_report *report;       /* NIGHT_REPORT */
};

/* A sink. on_event is called from the pump's thread; with several hosts
 * from their threads, but never two at once (the run's lock is held). It
 * returns 0, or -errno when it could not render an event that matters
 * (a night's plan or report): the pump that asked (kb_emit's caller)
 * decides; a run's events never matter so, and their answer is ignored. */
struct kb_sink {
        int (*on_event)(void *ctx, const struct kb_event *ev);
        void *ctx;
};

/* Hand ev to sink. Returns the sink's answer; 0 for a NULL sink (or one
 * without on_event), which reports nothing. */
int kb_emit(const struct kb_sink *sink, const struct kb_event *ev);

/* A KB_EVENT_NOTE of origin, its text formatted from fmt (which is the
 * pump's, never data). */
void kb_note(const struct kb_sink *sink, enum kb_event_origin origin, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* A KB_EVENT_CELL_STAGE: the running cell reached stage. */
void kb_stage(const struct kb_sink *sink, const char *stage);

/* A KB_EVENT_PROGRESS line of origin, formatted likewise. */
void kb_progress(const struct kb_sink *sink, enum kb_event_origin origin, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
