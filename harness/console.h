/* harness/console: turning the two serial ports into facts. ttyS1 bytes are
 * cut into bounded lines (an over-long line is dropped and counted, never
 * grown without bound); the ttyS0 kernel log is scanned for the moments that
 * decide a cell's end state (kernel started, panic, oops, BUG, warnings). */
#pragma once

#include <stddef.h>

#include "guest/proto.h"

struct console_lines {
        char buf[PROTO_LINE_MAX + 2];
        size_t len;
        int overflow;              /* the current line exceeded the bound */
        long dropped;              /* over-long lines discarded */
};

/* Feed bytes; calls fn for every complete line (without '\n'). */
void console_lines_feed(struct console_lines *l, const char *data, size_t len,
                        void (*fn)(void *userdata, const char *line, size_t len), void *userdata);

struct console_verdict {
        int kernel_started;        /* "Linux version" seen */
        int crashed;               /* panic, Oops, BUG:, general protection fault */
        char crash_line[256];      /* the first such line, sanitised */
        int warnings;              /* "WARNING:" lines */
};

/* Scan a kernel console log (any bytes). */
void console_scan(const char *log, size_t len, struct console_verdict *ret);
