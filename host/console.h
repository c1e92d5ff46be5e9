/* host/console: turning the two serial ports into facts. ttyS1 bytes are
 * cut into bounded lines (an over-long line is dropped and counted, never
 * grown without bound); the ttyS0 kernel log is scanned for the moments that
 * decide a cell's end state (kernel started, panic, oops, BUG, warnings). */
#pragma once

#include <stddef.h>

#include "common/proto.h"

struct console_lines {
        char buf[PROTO_LINE_MAX + 2];
        size_t len;
        int overflow;              /* the current line exceeded the bound */
        long dropped;              /* over-long lines discarded */
};

/* Feed bytes; calls fn for every complete line (without '\n'). */
void console_lines_feed(struct console_lines *l, const char *data, size_t len,
                        void (*fn)(void *userdata, const char *line, size_t len), void *userdata);

/* Bookkeeping of one cell's ttyS1: every line is a record for this cell,
 * in sequence, or it is counted as rejected (with the first reason kept). */
struct console_stream {
        char cell[PROTO_CELL_MAX + 1];     /* the expected cell id */
        uint64_t next_seq;
        long rejected;                     /* lines rejected, and sequence gaps */
        char first_reject[200];            /* why the first one was, quoted */
};

void console_stream_init(struct console_stream *s, const char *cell);

/* Account one ttyS1 line (without its '\n'; a trailing '\r' and empty lines
 * are ignored). Returns 1 with *ret filled for a record of this cell (a
 * sequence gap is counted as rejected, but the record is still returned:
 * what came is real, what went missing makes the cell corrupt), 0 when the
 * line was ignored or rejected (a replayed or backwards sequence number is
 * rejected and not returned). */
int console_stream_line(struct console_stream *s, const char *line, size_t len, struct proto_record *ret);

struct console_verdict {
        int kernel_started;        /* "Linux version" seen */
        int crashed;               /* panic, Oops, BUG:, general protection fault */
        char crash_line[256];      /* the first such line, sanitised */
        size_t crash_offset;       /* where that line starts in the log, bytes */
        int warnings;              /* "WARNING:" lines */
};

/* Scan a kernel console log (any bytes). */
void console_scan(const char *log, size_t len, struct console_verdict *ret);
