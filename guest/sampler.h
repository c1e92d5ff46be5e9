/* guest/sampler: the agent's own vmstat. It reads /proc/stat, /proc/vmstat
 * and /proc/meminfo under a root directory and turns two snapshots into one
 * procps-compatible vmstat row (plus Dirty and Writeback kB). The agent does
 * not ship procps because Debian's vmstat 4.0.2 never refreshes
 * free/buff/cache within one invocation. Everything except sampler_read() is
 * pure, so the arithmetic is tested on the host with captured /proc files.
 * libc only: linked into the static guest agent. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Largest /proc file sampler_read() accepts; /proc/stat with thousands of
 * interrupt counters stays far below this. */
#define SAMPLER_FILE_MAX (1024 * 1024)
#define SAMPLER_ROW_MAX 512

/* Column groups and names, in the order sampler_format_row() prints. The
 * names line is right-aligned to the row widths, so both split on blanks. */
extern const char sampler_header_groups[];
extern const char sampler_header_names[];

enum {
        SAMPLER_CPU_USER, SAMPLER_CPU_NICE, SAMPLER_CPU_SYSTEM, SAMPLER_CPU_IDLE,
        SAMPLER_CPU_IOWAIT, SAMPLER_CPU_IRQ, SAMPLER_CPU_SOFTIRQ, SAMPLER_CPU_STEAL,
        SAMPLER_CPU_GUEST, SAMPLER_CPU_GUEST_NICE,
        SAMPLER_CPU_FIELDS
};

/* One reading of the three files; counters are cumulative since boot. */
struct sampler_snapshot {
        /* /proc/stat */
        uint64_t cpu[SAMPLER_CPU_FIELDS];  /* aggregate "cpu" line, USER_HZ jiffies */
        unsigned ncpus;                    /* number of "cpuN" lines */
        uint64_t intr;                     /* interrupts since boot */
        uint64_t ctxt;                     /* context switches since boot */
        uint64_t procs_running;            /* runnable tasks now */
        uint64_t procs_blocked;            /* tasks in uninterruptible I/O wait now */
        /* /proc/vmstat */
        uint64_t pgpgin, pgpgout;          /* kB read from / written to block devices */
        uint64_t pswpin, pswpout;          /* pages swapped in / out */
        /* /proc/meminfo, all kB */
        uint64_t mem_total, mem_free, buffers, cached;
        uint64_t sreclaimable;             /* 0 on kernels without the field */
        uint64_t swap_total, swap_free;
        uint64_t dirty, writeback;
};

/* One vmstat row. Rates are per second; cpu columns are percent. */
struct sampler_row {
        uint64_t r, b;                     /* procs_running, procs_blocked */
        uint64_t swpd, free, buff, cache;  /* kB; cache = Cached + SReclaimable (procps-ng) */
        uint64_t si, so;                   /* kB/s swapped in / out */
        uint64_t bi, bo;                   /* kB/s (1 kB blocks) read / written */
        uint64_t in, cs;                   /* interrupts, context switches per second */
        unsigned us, sy, id, wa, st, gu;   /* percent of cpu time */
        uint64_t dirty, writeback;         /* kB */
};

/* Parse the text of /proc/stat (len bytes, need not be NUL-terminated) into
 * the /proc/stat fields of snap, leaving the others alone. Requires the
 * aggregate cpu line (>= 4 values), intr, ctxt, procs_running and
 * procs_blocked. Returns 0 or -EBADMSG (missing or malformed field); snap is
 * modified only on success. Bounded: never reads past len. */
int sampler_parse_stat(const char *buf, size_t len, struct sampler_snapshot *snap);

/* Same for /proc/vmstat: requires pgpgin, pgpgout, pswpin, pswpout. */
int sampler_parse_vmstat(const char *buf, size_t len, struct sampler_snapshot *snap);

/* Same for /proc/meminfo: requires MemTotal, MemFree, Buffers, Cached,
 * SwapTotal, SwapFree, Dirty, Writeback (SReclaimable is optional). */
int sampler_parse_meminfo(const char *buf, size_t len, struct sampler_snapshot *snap);

/* Read <root>/proc/{stat,vmstat,meminfo} ("/" in the guest, a fixture
 * directory in tests). Returns 0, -errno from open/read, -EFBIG for a file
 * over SAMPLER_FILE_MAX, or -EBADMSG from the parsers. OUT: ret_snap written
 * only on success. */
int sampler_read(const char *root, struct sampler_snapshot *ret_snap);

/* The since-boot averages row that procps prints first: rates are totals
 * divided by the uptime implied by the cpu jiffies (total / ncpus / hz),
 * percentages are shares of all jiffies. hz is USER_HZ (100 on Linux),
 * page_kb the page size in kB. */
void sampler_boot_row(const struct sampler_snapshot *s, unsigned hz, unsigned page_kb,
                      struct sampler_row *ret_row);

/* The row for the interval prev -> cur, elapsed_ms long (wall time between
 * the two readings; 0 is treated as 1 ms). Rates are rounded to the nearest
 * integer; a counter that went backwards counts as 0. */
void sampler_delta_row(const struct sampler_snapshot *prev, const struct sampler_snapshot *cur,
                       uint64_t elapsed_ms, unsigned page_kb, struct sampler_row *ret_row);

/* Print row as one line without newline, right-aligned like procps (wider
 * numbers push the line right). Returns the length or -ENOSPC;
 * SAMPLER_ROW_MAX bytes are always enough (20 columns of <= 20 digits). */
int sampler_format_row(char *buf, size_t size, const struct sampler_row *row);
