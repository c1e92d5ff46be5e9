/* cli/progress: what a person watching `kbench run` sees. On a TTY one
 * line redrawn in place (cell i/N, kernel, workload, stage, elapsed, ETA);
 * every finished cell also leaves a permanent line, so logs show the run. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct progress {
        int tty;                   /* stderr is a terminal */
        size_t total;              /* cells planned */
        size_t finished;
        int64_t t0_us;             /* run start, monotonic */
        int64_t cell_t0_us;
        double finished_s;         /* sum of finished cells' durations */
        char label[128];           /* current cell, "c003 6.1.0-47-amd64 dd #2" */
};

void progress_init(struct progress *p, size_t total);
/* A cell begins: label is copied. */
void progress_begin(struct progress *p, size_t index, const char *label);
/* The running cell reached stage (redraws on a TTY). */
void progress_stage(struct progress *p, const char *stage);
/* The cell ended in state (one permanent line). */
void progress_end(struct progress *p, const char *state, const char *detail);
/* A cell that ran beside others ended: one permanent line with its own
 * label and duration (the single progress line is not drawn then). */
void progress_end_line(struct progress *p, const char *label, double seconds, const char *state, const char *detail);
/* Print a note above the progress line. */
void progress_note(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
