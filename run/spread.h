/* run/spread: a run's cells over several hosts at once. Each host runs as
 * many cells at a time as it has slots, one thread a slot, each taking the
 * next cell the schedule (schedule.h) gave its host. A host that fails
 * gives its cells to another; a slot whose queue is empty waits while
 * cells still run elsewhere, since a host failing there may send it more.
 * The caller's callbacks run a cell and say whether to go on; this module
 * only keeps the threads and the schedule in step. */
#pragma once

#include <glib.h>
#include <stddef.h>

#include "common/error.h"
#include "run/schedule.h"

struct spread_ops {
        /* Run cell on host, its attempts included, without the lock held.
         * *ret_host_failed: the host takes no more cells; *ret_again: the
         * cell is to be attempted again, on whichever host its cells go
         * to. Returns 0, or -errno with err (the run stops). */
        int (*run_cell)(void *userdata, size_t host, size_t cell, int *ret_host_failed, int *ret_again,
                        struct kb_error *err);
        /* Whether another cell may start (no interrupt, no deadline);
         * called with the lock held. */
        int (*go_on)(void *userdata);
        /* Host failed; its cells went to host to, or were held (to < 0, held
         * of them). Called with the lock held. */
        void (*host_failed)(void *userdata, size_t host, long to, size_t held);
};

/* Run the schedule's cells on n_hosts hosts of slots[h] slots each. lock
 * guards what the callbacks share (they take it around their own shared
 * work; spread holds it only between cells). Returns 0, or the first
 * callback's error (then no further cell starts, and the running ones
 * finish). */
int spread_run(const struct spread_ops *ops, void *userdata, struct schedule *s, const unsigned *slots,
               size_t n_hosts, GMutex *lock, struct kb_error *err);
