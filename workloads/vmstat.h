/* vmstat.h: turn any vmstat text into a table of samples (what it says
 * is vmstat_metrics.h's: per-column statistics, writeout stalls, phases).
 * Parsing is driven by the column-name header line, so every dialect works
 * (procps 1.x/2.x with `w`, procps-ng 3.x/4.x with wa/st/gu, -a, -w, -t,
 * -S units, kbench's own dirty/writeback columns and "-" for a value its
 * guest kernel does not provide, hand-cut excerpts). Input is
 * untrusted: lines are bounded, every row is checked whole against its
 * header and is either used whole or rejected and counted. */
#pragma once

#include <stddef.h>


#include "workloads/workload.h"

#define VMSTAT_LINE_MAX 1024          /* longer lines are rejected */
/* Every vmstat column is a count, a rate, a size or a share: none is
 * negative, and none exceeds 2^53 (beyond it a double holds no exact
 * integer, and no machine has that many KiB or blocks per second). A row
 * with a value outside 0..VMSTAT_VALUE_MAX is rejected whole. */
#define VMSTAT_VALUE_MAX 9007199254740992.0
#define VMSTAT_COLS_MAX 64            /* columns over all headers of one stream */
#define VMSTAT_VALUES_MAX (1u << 24)  /* samples x columns kept; further rows rejected */
/* VMSTAT_BO_THRESHOLD and VMSTAT_INTERVAL are in workloads/workload.h. */

struct vmstat_sample {
        double t;                  /* seconds: host arrival time, or the -t timestamp
                                      (UTC seconds of the printed wall clock); NAN if unknown */
        int first;                 /* 1: the since-boot average row (excluded from statistics) */
        unsigned capture;          /* which capture (header block) the row belongs to, 0-based */
};

struct vmstat_table {
        size_t ncols;
        char **cols;               /* column names, in header order; a later header with other
                                      names appends the new ones (owned) */
        size_t nsamples;
        struct vmstat_sample *samples;  /* owned */
        double *values;            /* nsamples x ncols, row-major; NAN where the row's
                                      header lacked the column (owned) */
        size_t rejected;           /* non-blank lines that were neither header nor row */
        size_t dropped;            /* good rows past VMSTAT_VALUES_MAX, not kept */
        size_t skipped;            /* first rows dropped by vmstat_parser_set_skip_first() */
        unsigned ncaptures;        /* header blocks seen (a repeated identical header right
                                      after rows of the same header continues a capture) */
        char *tz;                  /* time zone named by the last -t header, or NULL (owned) */
        char *note;                /* "absent COL...: why" lines ("# absent ...", the kbench
                                      agent's vmstat-note) joined by "; ", or NULL (owned) */
};

struct vmstat_parser;

/* A new incremental parser. Returns NULL on -ENOMEM. Free with
 * vmstat_parser_free() or hand it to vmstat_parser_finish(). */
struct vmstat_parser *vmstat_parser_new(void);
struct vmstat_parser *vmstat_parser_free(struct vmstat_parser *p);

/* Drop the first row of each capture (vmstat's average since boot) instead of
 * keeping it as a sample; dropped rows are counted in table->skipped. Use for
 * text whose rows are not marked by the caller. */
void vmstat_parser_set_skip_first(struct vmstat_parser *p, int skip);

/* Feed one line (len bytes, need not be NUL-terminated, may end in CR/LF; any
 * byte values). t: host arrival time in seconds or NAN. first: 1 if the row is
 * the since-boot average (kept, flagged, excluded from statistics).
 * Returns 1 if the line became a sample, 0 if it was a header, a group line,
 * blank, dropped by skip-first, or rejected (counted), -ENOMEM on allocation
 * failure (the parser stays usable; the line is counted as rejected). */
int vmstat_parser_feed(struct vmstat_parser *p, const char *line, size_t len, double t, int first);

/* Feed arbitrary bytes of a text stream (t = NAN, first = 0): splits on LF and
 * CR, keeps a partial last line (bounded by VMSTAT_LINE_MAX) for the next call
 * or for vmstat_parser_finish(). NUL bytes at either end of a line are
 * ignored; inside a line they make it rejected. Returns the number of samples
 * added or -ENOMEM. */
int vmstat_parser_feed_bytes(struct vmstat_parser *p, const void *buf, size_t len);

/* Flush a pending partial line, free the parser (always, even on failure) and
 * hand out the table. Returns NULL on -ENOMEM. Caller frees the table with
 * vmstat_table_free(). */
struct vmstat_table *vmstat_parser_finish(struct vmstat_parser *p);

/* Parse a whole buffer. OUT: *ret_table (caller frees). Returns 0 or -ENOMEM. */
int vmstat_parse_text(const void *buf, size_t len, int skip_first, struct vmstat_table **ret_table);

struct vmstat_table *vmstat_table_free(struct vmstat_table *t);

/* Index of the column named name, or -1. */
int vmstat_table_col(const struct vmstat_table *t, const char *name);
/* The table's note if it names column name as absent ("# absent bi bo:
 * why"), else NULL. Borrowed from t. */
const char *vmstat_table_absent_note(const struct vmstat_table *t, const char *name);
/* 1 if some sample has a value (not NAN) in column col, else 0. */
int vmstat_table_has_values(const struct vmstat_table *t, int col);
/* Value of column col in sample i; NAN if absent or out of range. */
double vmstat_table_value(const struct vmstat_table *t, size_t i, int col);

/* ---- the kbench agent's records ----------------------------------------
 * The agent prints its vmstat header and rows from common/vmstat-columns.h,
 * so the host reads them by index in that list, not by header name: the
 * names header must be the list's first n columns in order (n >= 3; an
 * older agent printed fewer, the list only grows at its end), and field i
 * of a row is column i. The table it builds has those columns, in that
 * order, so column c of the table is KB_VM index c. Anything else from the
 * guest is rejected whole, counted in the table's rejected and the first
 * reason kept; text from any other vmstat goes through vmstat_parser. */

struct vmstat_agent;

/* A new reader. Returns NULL on -ENOMEM. vmstat_agent_free() or
 * vmstat_agent_finish(). */
struct vmstat_agent *vmstat_agent_new(void);
struct vmstat_agent *vmstat_agent_free(struct vmstat_agent *a);

/* One agent record: type "vmstat-header" (the group line, ignored, or the
 * names line), "vmstat" or "vmstat-boot" (a row; the boot row is flagged
 * first), "vmstat-note" ("# absent COL...: why"). text is the unescaped
 * payload (len bytes, untrusted; trailing CR/LF and NULs at either end are
 * not content). t: the row's host arrival, s, or NAN. Returns 1 for a row
 * kept, 0 for a header, group line, note, blank payload or a row past
 * VMSTAT_VALUES_MAX (counted in dropped), -EINVAL for a record that is
 * not what the agent writes (counted; vmstat_agent_why() says why),
 * -ENOMEM. */
int vmstat_agent_feed(struct vmstat_agent *a, const char *type, const char *text, size_t len, double t);
/* The first rejected record's reason, or NULL. Borrowed from a. */
const char *vmstat_agent_why(const struct vmstat_agent *a);
/* Free the reader and hand out its table (vmstat_table_free); NULL for a
 * NULL reader. */
struct vmstat_table *vmstat_agent_finish(struct vmstat_agent *a);
