/* cell/cellhost: what the host observes of a living cell beside the
 * guest's own records, and what it does for it: the load on the host over
 * the workload's window (this cell's QEMU and kbench against everything
 * else, host/hostload.h), libvirt's block statistics of the disk under
 * test over the same window, and the workload's host phase (FTP's upload)
 * on a thread of its own. These describe the cell, they are not part of
 * it: a figure the host cannot read becomes unknown with its reason, and
 * the cell carries on. Private to cell/ (cellpump.h). */
#pragma once

#include "cell/cellpump.h"

/* Once, right after QEMU started: which process is this cell's QEMU
 * (domain is its domain's name), and who it runs as (a host note). */
void cellhost_find_qemu(struct cell *c, const char *domain);
/* The job's go: the load's first snapshot and the first block reading. */
void cellhost_window_start(struct cell *c);
/* The job's done: the load over the window, the last block reading. */
void cellhost_window_end(struct cell *c);
/* Read libvirt's block statistics of the disk under test once, when the
 * window is open. A failure ends the sampling: the figures become unknown
 * with libvirt's message. */
void cellhost_blk_sample(struct cell *c);
/* The load's figures as metrics of an ok cell (a failed one keeps no
 * metrics); unknown ones carry the reason instead of a number. Marks the
 * cell contended. */
void cellhost_load_metrics(struct cell *c);
/* Start the workload's host phase (its ops->host) on a thread of its own,
 * once; it reports its end as MSG_HOST_DONE. env must outlive the phase. */
void cellhost_phase_start(struct cell *c, const struct workload_env *env);
