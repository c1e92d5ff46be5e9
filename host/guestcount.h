/* host/guestcount: the guest kernel's own counters, as the agent sends them
 * beside each phase mark (`counters` records) and at the job's start and
 * end (`memory` records, guest/counters.h), turned into per-phase and
 * per-cell metrics:
 *
 *   guest.<phase>.allocstalls      direct-reclaim entries
 *   guest.<phase>.pgscan           pages reclaim scanned
 *   guest.<phase>.pgsteal          pages it reclaimed
 *   guest.<phase>.cache_MiB        the page cache's change over the phase
 *   guest.<phase>.disk_reads, disk_read_MiB, disk_writes, disk_written_MiB,
 *   guest.<phase>.disk_flushes     what reached the disk under test: requests
 *                                  completed, their bytes, flushes
 *   guest.<phase>.tasks            the job's tasks that ended in the phase
 *   guest.<phase>.sleep_s          the time its working tasks slept (lifetime
 *                                  less running and waiting for a CPU), summed;
 *                                  a task that waited for others of the job
 *                                  is no worker (guest/taskstats.h)
 *   guest.<phase>.run_delay_s      the time they were runnable, waiting for a CPU
 *   guest.<phase>.blkio_s          the time they waited on block I/O
 *   guest.<phase>.reclaim_s        the time every task spent in direct reclaim
 *   mem.held_MiB ...               what the kernel holds at the job's end that
 *                                  it did not at its start (see guestcount_memory_metrics)
 *
 * Counts of events, which the host's speed does not set; the task times
 * are guest seconds (a sleep lasts as long as the guest asked). The
 * records come from the guest, so the parsers are bounded and fuzzed. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "host/insncount.h"
#include "workloads/workload.h"

/* The `counters` payload's keys, in this order. */
enum guestcount_field {
        GC_ALLOCSTALL, GC_PGSCAN, GC_PGSTEAL, GC_FILE_PAGES, GC_RD_IOS, GC_RD_SECT, GC_WR_IOS, GC_WR_SECT,
        GC_FLUSH_IOS, GC_TASKS, GC_WAITERS, GC_SLEEP_NS, GC_RUN_NS, GC_DELAY_NS, GC_BLKIO_NS, GC_RECLAIM_NS, GC_LOST,
        GC_N
};

struct guestcount_totals {
        uint64_t v[GC_N];                  /* indexed by enum guestcount_field */
        uint32_t have;                     /* bit f: v[f] was sent */
};

/* Parse a `counters` payload (len bytes: "key=N" words). Unknown keys are
 * skipped (a newer agent); a key twice, a word without '=' or a value that
 * is not a decimal u64 is -EBADMSG. OUT: *ret, only on success. */
int guestcount_parse(const char *payload, size_t len, struct guestcount_totals *ret);

struct guestcount_mark {
        char phase[INSNCOUNT_PHASE_NAME_MAX + 1];   /* as insncount_mark names it; "" none */
        struct guestcount_totals at;                /* have 0: no counters came with the mark */
};

struct guestcount_marks {
        struct guestcount_mark v[INSNCOUNT_PHASES_MAX];
        size_t n;
};

/* Record a phase mark (the event's payload, "phase NAME", untrusted) with
 * the counters sent just before it, or none (at NULL). Returns 1 when kept,
 * 0 when text is no phase mark or the marks are full. */
int guestcount_mark(struct guestcount_marks *m, const char *text, size_t len, const struct guestcount_totals *at);

/* Add the per-phase metrics above for every mark followed by another, but
 * "end" and a phase named twice (its first span counts), as
 * insncount_metrics does. A figure whose counter either mark lacks is left
 * out; one whose counter went backwards is stored without a value; the
 * task figures are stored without a value when the socket dropped
 * reports in the phase. Returns 0 or -ENOMEM. */
int guestcount_metrics(const struct guestcount_marks *m, struct metric_list *metrics);

/* The `memory` payload's keys, in this order (kB each). */
enum guestcount_mem_field {
        GM_TOTAL, GM_FREE, GM_AVAILABLE, GM_BUFFERS, GM_CACHED, GM_ANON, GM_SHMEM, GM_SLAB, GM_SRECLAIMABLE,
        GM_SUNRECLAIM, GM_KERNEL_STACK, GM_PAGE_TABLES, GM_PERCPU, GM_VMALLOC, GM_N
};

struct guestcount_memory {
        uint64_t kb[GM_N];
        uint32_t have;                     /* bit f: kb[f] was sent; 0: no record */
};

/* Parse a `memory` payload: "start" or "end", then "key_kb=N" words.
 * OUT: *ret_end (1 for "end"), *ret; only on success. Returns 0 or
 * -EBADMSG. */
int guestcount_memory_parse(const char *payload, size_t len, int *ret_end, struct guestcount_memory *ret);

/* The kernel's memory at the job's end against its start, both read after
 * a sync and a drop of the clean caches, in MiB:
 *   mem.held_MiB          MemTotal - MemFree - AnonPages - Shmem: what the
 *                         kernel holds that no process owns and it did not
 *                         give back (a leak of any kind: slab, pages,
 *                         vmalloc), judged
 *   mem.available_MiB     MemAvailable's change
 *   mem.unreclaimable_MiB SUnreclaim + KernelStack + PageTables + Percpu +
 *                         VmallocUsed: the kernel's accounted own memory
 *   mem.slab_MiB, mem.sunreclaim_MiB, mem.page_tables_MiB, mem.kernel_stack_MiB,
 *   mem.percpu_MiB, mem.vmalloc_MiB, mem.cached_MiB   its parts
 * Nothing when either record is missing; a figure whose fields either
 * lacks is left out. Returns 0 or -ENOMEM. */
int guestcount_memory_metrics(const struct guestcount_memory *start, const struct guestcount_memory *end,
                              struct metric_list *metrics);
