/* common/vmstat-columns.h: the one list of the columns of the agent's vmstat
 * rows. The agent prints its header and rows from it, the host reads a
 * row's field i as column i of it (vmstat_agent_feed() of workloads/vmstat.c,
 * called by cell/cellrows.c; a header must be its first columns in
 * order), and the result store names its vmstat table's columns after it
 * (results/db.h; results/test-vmstat-schema.c checks results/schema.sql
 * against it). Adding a column is one row here, at the end (an older
 * agent's header is a prefix of the list), plus a migration step for the
 * table. Plain C preprocessor, no includes:
 * usable by the static agent and by every host module, which is why it
 * lives in common/ rather than guest/ (results/ may not include guest/).
 *
 * X(name, width, group): name as procps prints it (and as the SQL column is
 * called), the printed width (procps alignment), and the group it sits under
 * in the first header line. The order is procps order, then kbench's own:
 * Dirty and Writeback from /proc/meminfo (kB); then /proc/vmstat's writeback
 * and reclaim figures (group vm: nr_dirty, nr_writeback and the two dirty
 * thresholds in pages as the kernel prints them; pgscan, pgsteal and
 * allocstall per second, each the sum of the kernel's per-source counters);
 * then the disk under test from /proc/diskstats (group disk: rd and wr
 * requests completed per second, rsect and wsect 512-byte sectors per
 * second, inflight requests now, util the % of the interval the disk was
 * busy, from io_ticks). */
#pragma once

#define KB_VMSTAT_COLUMNS(X) \
        X(r, 2, procs) X(b, 2, procs) \
        X(swpd, 6, memory) X(free, 6, memory) X(buff, 6, memory) X(cache, 6, memory) \
        X(si, 4, swap) X(so, 4, swap) \
        X(bi, 5, io) X(bo, 5, io) \
        X(in, 4, system) X(cs, 4, system) \
        X(us, 2, cpu) X(sy, 2, cpu) X(id, 2, cpu) X(wa, 2, cpu) X(st, 2, cpu) X(gu, 2, cpu) \
        X(dirty, 6, kbench) X(writeback, 9, kbench) \
        X(nr_dirty, 8, vm) X(nr_writeback, 12, vm) X(dirty_thresh, 12, vm) X(bg_thresh, 9, vm) \
        X(pgscan, 6, vm) X(pgsteal, 7, vm) X(allocstall, 10, vm) \
        X(rd, 4, disk) X(wr, 4, disk) X(rsect, 6, disk) X(wsect, 6, disk) X(inflight, 8, disk) X(util, 4, disk)

/* KB_VM_r ... KB_VM_util: a column's index in the list. */
enum {
#define KB_VM_INDEX_(name, width, group) KB_VM_##name,
        KB_VMSTAT_COLUMNS(KB_VM_INDEX_)
#undef KB_VM_INDEX_
        KB_VM_NCOLS
};
