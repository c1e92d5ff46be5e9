/* cell/endstate: the rule that gives a cell its one end state. The cell's
 * event pump (cell.c) only records facts: why it stopped, what the agent
 * said, what the consoles showed; endstate_decide turns them into a state
 * and a one-line detail, with no I/O, so that every state and every
 * precedence between them is tested from a table (test-endstate.c).
 *
 * Precedence, first match wins:
 *  1. the host failed the cell (its libvirt host was lost, the VM did not
 *     start, the job could not be sent, a host I/O error paused the guest,
 *     interrupted, another kernel booted, the guest saw stale disk blocks,
 *     QEMU itself failed): infra-error — the kernel is not to blame;
 *  2. a crash line on ttyS0 (panic, Oops, BUG:, GPF): boot-crash when it
 *     came before the agent's ready, else runtime-crash — also when the job
 *     had finished, or a timeout then struck (the crash is the cause);
 *  3. why the pump stopped: timeouts (boot-timeout, hang), the domain ending
 *     early (boot-crash / runtime-crash), a failed host phase;
 *  4. the job finished: rejected ttyS1 lines make corrupt-output, a non-zero
 *     exit workload-failure (255 quotes the agent's last note), else ok
 *     (the workload's parser may still demote it). */
#pragma once

#include <stddef.h>

#include "results/cellstate.h"             /* the end states: enum cellstate, their CELL_* words */

enum endstate_stop {
        STOP_DONE,                         /* the agent sent done */
        STOP_VM_START_FAILED,              /* detail: libvirt's error */
        STOP_SEND_FAILED,                  /* the job could not be written to ttyS1 */
        STOP_RELEASE_MISMATCH,             /* ready named another release */
        STOP_IO_ERROR,                     /* paused on a host I/O error; detail: what libvirt said */
        STOP_INTERRUPTED,                  /* SIGINT/SIGTERM */
        STOP_DOMAIN_ENDED,                 /* detail: "crashed", "shutdown", "closed ttyS1", ... */
        STOP_HOST_PHASE_FAILED,            /* detail: the host phase's error */
        STOP_DEADLINE,                     /* the whole-cell --timeout */
        STOP_NO_CONSOLE,                   /* no ttyS0 byte within a third of the boot timeout */
        STOP_NO_READY,                     /* no ready within the boot timeout */
        STOP_SILENCE,                      /* no ttyS1 record for the hang timeout while running */
        STOP_STALE_DISK,                   /* the guest read another disk head than the cell's image has;
                                              detail: both checksums */
};

struct endstate_facts {
        enum endstate_stop stop;
        const char *stop_detail;           /* see enum; may be NULL */
        int ready;                         /* the agent said ready */
        const char *release;               /* from ready; may be NULL */
        const char *expected_release;      /* the kernel's; may be NULL */
        int exit_code;                     /* from done; -1 none */
        long rejected;                     /* ttyS1 lines rejected (malformed, crc, cell, seq, too long) */
        const char *first_reject;          /* why the first was */
        const char *last_agent_note;       /* last "log" record; may be NULL */
        const char *last_output;           /* last out/err line; may be NULL */
        int kernel_started;                /* "Linux version" on ttyS0 */
        int crashed;                       /* a crash pattern on ttyS0 */
        const char *crash_line;
        int crash_before_ready;            /* the crash line lies before the console's length at ready */
        int warnings;                      /* WARNING: lines on ttyS0 */
        double deadline_s, boot_timeout_s, silence_timeout_s;
        const char *host_space;            /* "; N MiB free in DIR" for I/O errors; may be NULL */
        const char *host_lost;             /* the connection to the cell's libvirt host was lost
                                              (why, one line); NULL: it was not */
};

struct endstate {
        const char *state;                 /* one of CELL_* */
        char detail[512];
        int retryable;                     /* infra-error worth another attempt */
        int host_failed;                   /* the host takes no more cells (full disk, lost): the run stops,
                                              or goes on without it on its other hosts */
        int parse;                         /* ok so far: run the workload's parser */
};

/* Decide. Pure: no I/O, no globals. OUT: *ret. */
void endstate_decide(const struct endstate_facts *f, struct endstate *ret);
