/* guest/counters: the exact counts the agent sends beside each phase mark
 * and the kernel's memory at the job's start and end, as `counters` and
 * `memory` records (common/proto.h). The vmstat rows (guest/sampler.h) are
 * rates rounded to whole numbers per interval, fine for a timeline but not
 * for a count of a few direct-reclaim stalls or flushes; these are the
 * kernel's own counters, read at the mark, whose differences the host
 * (host/guestcount.h) turns into per-phase figures: reclaim (allocstall,
 * pgscan, pgsteal), what reached the disk under test (requests, sectors,
 * flushes), the page cache, and the job's exited tasks (guest/taskstats.h).
 * Both payloads are "key=value" words; a counter the kernel lacks is left
 * out, never sent as 0. Pure: tested on the host with captured /proc trees.
 * Linked into the static agent: libc only. */
#pragma once

#include <stddef.h>

#include "guest/sampler.h"
#include "guest/taskstats.h"

#define COUNTERS_PAYLOAD_MAX 1024

/* The `counters` payload: "allocstall=N pgscan=N pgsteal=N file_pages=N
 * rd_ios=N rd_sect=N wr_ios=N wr_sect=N flush_ios=N tasks=N waiters=N
 * sleep_ns=N run_ns=N delay_ns=N blkio_ns=N reclaim_ns=N lost=N", the first nine
 * from s where its kernel provides them, the task sums when t is not NULL
 * (the agent listens to taskstats). Returns its length or -ENOSPC;
 * COUNTERS_PAYLOAD_MAX is enough. */
int counters_phase(const struct sampler_snapshot *s, const struct taskstats_sums *t, char *buf, size_t size);

/* The `memory` payload: when ("start" or "end"), then "key_kb=N" for each
 * of MemTotal, MemFree, MemAvailable, Buffers, Cached, AnonPages, Shmem,
 * Slab, SReclaimable, SUnreclaim, KernelStack, PageTables, Percpu and
 * VmallocUsed that the text of /proc/meminfo (len bytes) has, as
 * mem_total_kb ... vmalloc_used_kb. Returns its length, -EBADMSG for a
 * malformed value of one of them, or -ENOSPC. */
int counters_memory(const char *when, const char *meminfo, size_t len, char *buf, size_t size);
