/* run/runevent: what a pump (a run, a bisection) tells whoever watches it.
 * A pump prints nothing: it hands each event, a small struct, to a sink,
 * and cli/ renders the events as text on stderr, the result as text or
 * JSON on stdout, or nothing at all (curl's lib/ never prints; its tool
 * does). The pumps also run unattended inside kbench nightly and in unit
 * tests, which pass their own sink or none. An event only borrows: its
 * pointers are valid during the call, and a sink copies what it keeps. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct bisect_ending;
struct bisect_row;
struct db;

enum run_event_kind {
        RUN_EVENT_NOTE,            /* text: one line for the person watching (a host opened, a round's
                                      answer, how to resume) */
        RUN_EVENT_BUILD,           /* text: one line of a kernel build's progress (a bisection's) */
        RUN_EVENT_IMAGE,           /* label (the kernel), cached, seconds: its guest image is ready */
        RUN_EVENT_CELLS,           /* total: the cells about to run, the clock of the ETA starts */
        RUN_EVENT_CELL_BEGIN,      /* label: a cell's attempts begin (a run on one host) */
        RUN_EVENT_CELL_STAGE,      /* stage: the running cell reached it, "boot", "run" (one host) */
        RUN_EVENT_CELL_RETRY,      /* label, state, detail: an attempt ended and another one follows */
        RUN_EVENT_CELL_END,        /* label, state, detail; with own_line, seconds: a cell's last attempt
                                      ended */
        RUN_EVENT_STOPPED,         /* stop, run_id; total (RUN_STOP_NO_HOST): the cells held. The run
                                      ended before its last cell and can be resumed */
        RUN_EVENT_CELL_KEPT,       /* label, run_id, state, detail (why), text (the file): a cell the
                                      database refused, kept in a file that resuming the run stores */
        RUN_EVENT_RESULT,          /* run_id, db: the run ended (or had nothing left to run); its summary
                                      can be read from db. Not sent when the driver reports it itself */
        RUN_EVENT_BISECT_RESULT,   /* bisection, ending: the bisection's answer */
};

/* Why a run stopped before its last cell (RUN_EVENT_STOPPED). */
enum run_stop {
        RUN_STOP_NO_HOST,          /* every host failed: cells are held */
        RUN_STOP_HOST_FAILED,      /* the host could not go on (its disk is full) */
        RUN_STOP_INTERRUPTED,      /* a signal or the deadline */
};

/* Who sent the event: a bisection's own lines read as the bisection's. */
enum run_event_origin {
        RUN_ORIGIN_RUN,
        RUN_ORIGIN_BISECT,
};

struct run_event {
        enum run_event_kind kind;
        enum run_event_origin origin;
        const char *text;          /* NOTE, BUILD: the line, without a newline; CELL_KEPT: the file */
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
        int64_t run_id;            /* RESULT, STOPPED, CELL_KEPT */
        struct db *db;             /* RESULT: the run's database, open during the call */
        const struct bisect_row *bisection; /* BISECT_RESULT: the bisection as stored, with its steps
                                      (results/bisect.h) */
        const struct bisect_ending *ending; /* BISECT_RESULT: what it adds as it ends: the caution, the
                                      confirmation, where the change went (report/textbisect.h) */
};

/* A sink. on_event is called from the pump's thread; with several hosts
 * from their threads, but never two at once (the run's lock is held). */
struct run_events {
        void (*on_event)(void *ctx, const struct run_event *ev);
        void *ctx;
};

/* Hand ev to sink; a NULL sink (or one without on_event) reports nothing. */
void runevent_emit(const struct run_events *sink, const struct run_event *ev);

/* A RUN_EVENT_NOTE of origin, its text formatted from fmt (which is the
 * pump's, never data). */
void runevent_note(const struct run_events *sink, enum run_event_origin origin, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
