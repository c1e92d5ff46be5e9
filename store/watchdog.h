/* store/watchdog: no QEMU outlives its kbench. libvirt's embedded driver
 * runs QEMU as a daemon of its own, so when kbench is killed (SIGKILL, OOM)
 * nothing of libvirt is left to destroy the guest. The watchdog is a small
 * child forked before any thread exists; it waits on a pipe whose other end
 * only kbench holds, and when the pipe reads end-of-file (kbench gone, for
 * whatever reason) it kills the QEMU processes of this kbench's domains,
 * found through the embedded driver's pid files, and removes their scratch
 * directories. What it cannot clean (the run row, libvirt's state) the next
 * kbench on the store reaps (see reap.h). */
#pragma once

#include <sys/types.h>

#include "common/error.h"

/* Guests restored from a snapshot keep the name they were saved under
 * (libvirt refuses another), which cannot carry this process's id; the
 * store lock makes every such domain in the store's run_dir this kbench's,
 * so the watchdog kills those too. */
#define WATCHDOG_SNAPSHOT_PREFIX "kbsnap-"

/* Fork the watchdog for domains named "<prefix>-..." (and WATCHDOG_SNAPSHOT_PREFIX...) whose pid files lie in
 * run_dir (<root>/run/qemu of the embedded driver) and whose scratch
 * directories are scratch_dir/<prefix>-*. Call before any thread starts.
 * Returns 0 (the watchdog runs until this process ends) or -errno with err. */
int watchdog_start(const char *prefix, const char *run_dir, const char *scratch_dir, struct kb_error *err);

/* What the watchdog does when kbench is gone, callable directly (tests, and
 * reaping at the next start): SIGKILL every live process named in
 * run_dir/<prefix>*.pid whose command line mentions qemu, then remove
 * scratch_dir/<prefix>* recursively. prefix "" matches all. Returns the
 * number of processes killed. OUT: *ret_removed (may be NULL), the number
 * of scratch entries removed. */
int watchdog_clean(const char *prefix, const char *run_dir, const char *scratch_dir, int *ret_removed);
