/* guest/sampler: the agent's own vmstat. It reads /proc/stat, /proc/vmstat,
 * /proc/meminfo and the disk under test's line of /proc/diskstats under a
 * root directory and turns two snapshots into one procps-compatible vmstat
 * row (plus Dirty and Writeback kB, /proc/vmstat's writeback and reclaim
 * figures and the disk's) over the columns of common/vmstat-columns.h. The agent does not ship procps because Debian's
 * vmstat 4.0.2 never refreshes free/buff/cache within one invocation.
 *
 * It reads what the running kernel provides: a column whose inputs the kernel
 * lacks is absent from every row (printed "-", stored NULL), never 0, and
 * sampler_absent_note() says which and why. Everything except sampler_read()
 * is pure, so the arithmetic is tested on the host with /proc trees of
 * several kernels (tests/data/proc/). libc only: linked into the static
 * guest agent. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/vmstat-columns.h"

/* Largest /proc file sampler_read() accepts; /proc/stat with thousands of
 * interrupt counters stays far below this. */
#define SAMPLER_FILE_MAX (1024 * 1024)
#define SAMPLER_ROW_MAX 1024
#define SAMPLER_HEADER_MAX 512
#define SAMPLER_DISK_NAME_MAX 32   /* the kernel's DISK_NAME_LEN */

enum {
        SAMPLER_CPU_USER, SAMPLER_CPU_NICE, SAMPLER_CPU_SYSTEM, SAMPLER_CPU_IDLE,
        SAMPLER_CPU_IOWAIT, SAMPLER_CPU_IRQ, SAMPLER_CPU_SOFTIRQ, SAMPLER_CPU_STEAL,
        SAMPLER_CPU_GUEST, SAMPLER_CPU_GUEST_NICE,
        SAMPLER_CPU_FIELDS
};

/* What a snapshot holds: one bit per field the running kernel provided.
 * Kernels differ: one built without CONFIG_VM_EVENT_COUNTERS has a
 * /proc/vmstat without pgpgin/pgpgout/pswpin/pswpout, 2.4 and early 2.6 have
 * no /proc/vmstat at all (their /proc/stat carries `page` and `swap` lines),
 * 2.4's cpu line has four values and its /proc/stat no procs_* lines, and
 * meminfo's Dirty and Writeback came with 2.5/2.6. /proc/vmstat's pgscan_*,
 * pgsteal_* and allocstall* are event counters too (absent without
 * CONFIG_VM_EVENT_COUNTERS); nr_dirty, nr_writeback and the thresholds are
 * not. /proc/diskstats came with 2.6 (2.4 kept disk figures in
 * /proc/partitions). */
enum {
        SAMPLER_HAVE_CPU          = 1u << 0,   /* aggregate "cpu" line, >= 4 values */
        SAMPLER_HAVE_IOWAIT       = 1u << 1,   /* its 5th value (2.5.41+) */
        SAMPLER_HAVE_STEAL        = 1u << 2,   /* its 8th (2.6.11+) */
        SAMPLER_HAVE_GUEST        = 1u << 3,   /* its 9th (2.6.24+) */
        SAMPLER_HAVE_INTR         = 1u << 4,
        SAMPLER_HAVE_CTXT         = 1u << 5,
        SAMPLER_HAVE_RUNNING      = 1u << 6,   /* procs_running */
        SAMPLER_HAVE_BLOCKED      = 1u << 7,   /* procs_blocked */
        SAMPLER_HAVE_PGPGIN       = 1u << 8,   /* /proc/vmstat, or /proc/stat's page line */
        SAMPLER_HAVE_PGPGOUT      = 1u << 9,
        SAMPLER_HAVE_PSWPIN       = 1u << 10,  /* /proc/vmstat, or /proc/stat's swap line */
        SAMPLER_HAVE_PSWPOUT      = 1u << 11,
        SAMPLER_HAVE_MEMTOTAL     = 1u << 12,
        SAMPLER_HAVE_MEMFREE      = 1u << 13,
        SAMPLER_HAVE_BUFFERS      = 1u << 14,
        SAMPLER_HAVE_CACHED       = 1u << 15,
        SAMPLER_HAVE_SWAPTOTAL    = 1u << 16,
        SAMPLER_HAVE_SWAPFREE     = 1u << 17,
        SAMPLER_HAVE_DIRTY        = 1u << 18,
        SAMPLER_HAVE_WRITEBACK    = 1u << 19,
        SAMPLER_HAVE_VMSTAT_FILE  = 1u << 20,  /* /proc/vmstat exists */
        SAMPLER_HAVE_NR_DIRTY     = 1u << 21,  /* /proc/vmstat's nr_dirty */
        SAMPLER_HAVE_NR_WRITEBACK = 1u << 22,
        SAMPLER_HAVE_DIRTY_THRESH = 1u << 23,  /* nr_dirty_threshold (2.6.37+) */
        SAMPLER_HAVE_BG_THRESH    = 1u << 24,  /* nr_dirty_background_threshold */
        SAMPLER_HAVE_PGSCAN       = 1u << 25,  /* at least one pgscan_* summed */
        SAMPLER_HAVE_PGSTEAL      = 1u << 26,  /* at least one pgsteal_* */
        SAMPLER_HAVE_ALLOCSTALL   = 1u << 27,  /* allocstall (< 4.10) or allocstall_<zone> */
        SAMPLER_HAVE_DISKSTATS_FILE = 1u << 28, /* /proc/diskstats exists */
        SAMPLER_HAVE_DISK         = 1u << 29,  /* it has a line for the disk under test */
        SAMPLER_HAVE_FILE_PAGES   = 1u << 30,  /* /proc/vmstat's nr_file_pages */
        SAMPLER_HAVE_DISK_FLUSH   = 1u << 31,  /* the disk's line counts flushes (5.5+) */
};

/* The disk under test's line of /proc/diskstats (Documentation/admin-guide/
 * iostats.rst): counters since boot that the kernel keeps in unsigned long
 * (io_ticks in unsigned int), so they may wrap at 32 bits. */
struct sampler_disk {
        uint64_t rd_ios, wr_ios;           /* requests completed */
        uint64_t rd_sectors, wr_sectors;   /* 512-byte sectors */
        uint64_t inflight;                 /* requests in flight now */
        uint64_t io_ticks;                 /* ms the disk had requests in flight */
        uint64_t flush_ios;                /* flush requests completed (SAMPLER_HAVE_DISK_FLUSH) */
};

/* One reading of the three files; counters are cumulative since boot. A
 * field whose SAMPLER_HAVE_ bit is clear was not provided and holds 0. */
struct sampler_snapshot {
        uint32_t have;                     /* SAMPLER_HAVE_* */
        /* /proc/stat */
        uint64_t cpu[SAMPLER_CPU_FIELDS];  /* aggregate "cpu" line, USER_HZ jiffies */
        unsigned ncpus;                    /* number of "cpuN" lines */
        uint64_t intr;                     /* interrupts since boot */
        uint64_t ctxt;                     /* context switches since boot */
        uint64_t procs_running;            /* runnable tasks now */
        uint64_t procs_blocked;            /* tasks in uninterruptible I/O wait now */
        /* /proc/vmstat, else /proc/stat's page and swap lines */
        uint64_t pgpgin, pgpgout;          /* kB read from / written to block devices */
        uint64_t pswpin, pswpout;          /* pages swapped in / out */
        /* /proc/meminfo, all kB */
        uint64_t mem_total, mem_free, buffers, cached;
        uint64_t sreclaimable;             /* 0 on kernels without the field */
        uint64_t swap_total, swap_free;
        uint64_t dirty, writeback;
        /* /proc/vmstat's writeback and reclaim figures */
        uint64_t nr_dirty, nr_writeback;   /* pages now */
        uint64_t dirty_thresh, bg_thresh;  /* pages: nr_dirty_threshold, nr_dirty_background_threshold */
        uint64_t pgscan;                   /* pages scanned since boot: the pgscan_* by source summed */
        uint64_t pgsteal;                  /* pages reclaimed since boot: pgsteal_* summed */
        uint64_t allocstall;               /* direct reclaim entries since boot: allocstall* summed */
        uint64_t file_pages;               /* pages in the page cache now (nr_file_pages) */
        /* /proc/diskstats */
        char disk[SAMPLER_DISK_NAME_MAX + 1]; /* the disk looked for, "" if none was named */
        struct sampler_disk dk;
};

/* One vmstat row over the columns of common/vmstat-columns.h. Rates are per
 * second; cpu columns are percent; memory columns kB; cache = Cached +
 * SReclaimable (procps-ng); bi/bo are kB/s (1 kB blocks), si/so kB/s; the
 * vm gauges pages, pgscan/pgsteal pages/s, allocstall /s; rd/wr requests/s,
 * rsect/wsect sectors/s, inflight requests, util percent (at most 100). */
struct sampler_row {
        uint64_t v[KB_VM_NCOLS];           /* indexed by KB_VM_* */
        uint64_t have;                     /* bit KB_VM_x set: v[KB_VM_x] was computed;
                                              a clear bit prints as "-", never 0 */
};

/* Parse the text of /proc/stat (len bytes, need not be NUL-terminated) into
 * the /proc/stat fields of snap (and pgpgin/pgpgout, pswpin/pswpout from
 * the page and swap lines of kernels before 2.6), leaving the others alone
 * and setting the SAMPLER_HAVE_ bit of each field found. No field is
 * required; a field that is present must be well-formed. Returns 0 or
 * -EBADMSG (a malformed field); snap is modified only on success. Bounded:
 * never reads past len. Start from a zeroed snapshot: bits are only set. */
int sampler_parse_stat(const char *buf, size_t len, struct sampler_snapshot *snap);

/* Same for /proc/vmstat (pgpgin, pgpgout, pswpin, pswpout; its values take
 * precedence over the page and swap lines of /proc/stat), and its writeback
 * and reclaim figures: nr_dirty, nr_writeback, nr_dirty_threshold,
 * nr_dirty_background_threshold, nr_file_pages, and the sums of pgscan_*, pgsteal_* and
 * allocstall* (kswapd, direct, khugepaged, proactive, or per zone on older
 * kernels; not pgscan_direct_throttle, which counts throttling events, nor
 * the pgscan_anon/_file and pgsteal_anon/_file split of the same pages).
 * Sums saturate at UINT64_MAX. */
int sampler_parse_vmstat(const char *buf, size_t len, struct sampler_snapshot *snap);

/* Same for /proc/meminfo (MemTotal, MemFree, Buffers, Cached, SwapTotal,
 * SwapFree, Dirty, Writeback, SReclaimable). */
int sampler_parse_meminfo(const char *buf, size_t len, struct sampler_snapshot *snap);

/* Same for /proc/diskstats: the first line whose device name is disk
 * ("sda", as in /dev/sda; at most SAMPLER_DISK_NAME_MAX bytes, else
 * -EINVAL) fills snap->dk; it must carry at least the eleven fields of 2.6
 * (-EBADMSG otherwise), and from 5.5 on its flush count (the 16th: flush
 * requests completed). Lines of other devices, and lines that are not
 * "MAJOR MINOR NAME ..." at all, are skipped. Records disk in snap->disk. */
int sampler_parse_diskstats(const char *buf, size_t len, const char *disk, struct sampler_snapshot *snap);

/* Read <root>/proc/{stat,vmstat,meminfo} ("" in the guest, a fixture
 * directory in tests), and when disk is not NULL or "" the line of
 * /proc/diskstats for that device name (the basename of the device node
 * the agent mounted). /proc/vmstat and /proc/diskstats may be missing
 * (kernels before 2.6). Returns 0, -errno from open/read, -EFBIG for a file
 * over SAMPLER_FILE_MAX, -EINVAL for a disk name too long, or -EBADMSG from
 * the parsers. OUT: ret_snap written only on success. */
int sampler_read(const char *root, const char *disk, struct sampler_snapshot *ret_snap);

/* The columns a row can carry when its snapshots are like s: those whose
 * inputs the kernel provides. A mask of (1ull << KB_VM_x). */
uint64_t sampler_columns(const struct sampler_snapshot *s);

/* One line saying which columns s cannot give and why, for the host to keep
 * beside the samples, e.g. "# absent bi bo si so: /proc/vmstat has no pgpgin
 * pgpgout pswpin pswpout (a kernel without CONFIG_VM_EVENT_COUNTERS)".
 * Returns its length, 0 (buf "") when nothing is absent, or -ENOSPC;
 * SAMPLER_NOTE_MAX bytes are always enough. */
#define SAMPLER_NOTE_MAX 1024
int sampler_absent_note(const struct sampler_snapshot *s, char *buf, size_t size);

/* The since-boot averages row that procps prints first: rates are totals
 * divided by the uptime implied by the cpu jiffies (total / ncpus / hz),
 * percentages are shares of all jiffies. hz is USER_HZ (100 on Linux),
 * page_kb the page size in kB. Without a cpu line there is no uptime, so
 * the rate columns are absent too. */
void sampler_boot_row(const struct sampler_snapshot *s, unsigned hz, unsigned page_kb,
                      struct sampler_row *ret_row);

/* The row for the interval prev -> cur, elapsed_ms long (wall time between
 * the two readings; 0 is treated as 1 ms). Rates are rounded to the nearest
 * integer; a counter of the procps columns that went backwards counts as 0.
 * Those of the vm and disk columns are kept by the kernel in unsigned long
 * or unsigned int: one that went backwards from at most UINT32_MAX wrapped
 * at 32 bits and counts as the wrapped difference, one from higher counts
 * as 0 (a reset). util is io_ticks over the interval, capped at 100. A
 * column is present only if both snapshots provide its inputs. */
void sampler_delta_row(const struct sampler_snapshot *prev, const struct sampler_snapshot *cur,
                       uint64_t elapsed_ms, unsigned page_kb, struct sampler_row *ret_row);

/* Print row as one line without newline, right-aligned like procps (wider
 * numbers push the line right), "-" for an absent column. Returns the length
 * or -ENOSPC; SAMPLER_ROW_MAX bytes are always enough (33 columns of <= 20
 * digits). */
int sampler_format_row(char *buf, size_t size, const struct sampler_row *row);

/* The two header lines procps prints: the groups ("procs ---memory--- ...")
 * and the column names, right-aligned to the row widths so both split on
 * blanks. Return the length or -ENOSPC; SAMPLER_HEADER_MAX is enough. */
int sampler_format_groups(char *buf, size_t size);
int sampler_format_names(char *buf, size_t size);

/* Pacing the sampler without a timerfd (a kernel built without
 * CONFIG_TIMERFD): the agent's poll() waits at most *ret_timeout_ms, and a
 * sample is taken when this returns 1. *next_ms is the time of the next
 * sample (CLOCK_MONOTONIC, ms); when it is due it advances by whole
 * intervals past now, so a late wake-up skips samples instead of taking a
 * burst of them, as an overrun timerfd would count one read. Pure. */
int sampler_pace(uint64_t now_ms, uint64_t interval_ms, uint64_t *next_ms, int *ret_timeout_ms);
