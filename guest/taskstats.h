/* guest/taskstats: what the job's tasks did, summed as they exit. The
 * vCPU-halt time the TCG plugin measures (guest.<phase>.wait_s) sees a
 * sleep only while every vCPU is idle: with several clients or threads a
 * sleep of one overlaps another's work and halts nothing. The kernel's
 * taskstats (netlink, CONFIG_TASKSTATS) report each task as it exits: how
 * long it lived, ran and waited on a run queue (SCHED_INFO), and with
 * delay accounting how long it waited on block I/O and in direct reclaim.
 * A task's lifetime less its running and its run-queue waiting is the time
 * it slept, however many others ran meanwhile. The agent listens from the
 * job's start and sends the running sums at each phase mark
 * (guest/counters.h), so the host attributes each exit to the phase it
 * ended in. Kernel threads (children of kthreadd) are left out. Linked into
 * the static agent: libc only; taskstats_parse is pure and fuzzed. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* One task's exit report, as the agent keeps it until the next phase mark. */
struct taskstats_task {
        uint32_t pid, tgid, ppid;
        uint64_t etime_ns;                 /* its lifetime */
        uint64_t run_ns;                   /* time on a CPU (sum_exec_runtime) */
        uint64_t delay_ns;                 /* time runnable, waiting for a CPU (run_delay) */
        uint64_t blkio_ns;                 /* time waiting on block I/O (delay accounting on) */
        uint64_t reclaim_ns;               /* time in direct reclaim (delay accounting on) */
};

/* Running sums over the job's exited tasks (threads each). A task that
 * waited for others of the job (a parent whose children ended in the same
 * phase: dbench's or fio's main process; or a thread group's leader whose
 * threads did) is a waiter: its sleep is their work, and over a phase of
 * fixed time it would add the phase's length whatever the kernel did, so
 * the sleep, running and waiting sums are over the other tasks, the
 * workers. */
struct taskstats_sums {
        uint64_t tasks;                    /* exits counted */
        uint64_t waiters;                  /* of them, waiters */
        uint64_t sleep_ns;                 /* the workers' lifetimes less their running and their
                                              waiting for a CPU, each at least 0, summed */
        uint64_t run_ns;                   /* the workers' time on a CPU */
        uint64_t delay_ns;                 /* the workers' time runnable, waiting for a CPU */
        uint64_t blkio_ns;                 /* the workers' time waiting on block I/O */
        uint64_t reclaim_ns;               /* every task's time in direct reclaim */
        uint64_t lost;                     /* reports the socket dropped (ENOBUFS), or the agent
                                              could not keep until the mark */
};

#define TASKSTATS_PENDING_MAX 4096         /* exits kept between two marks */

struct taskstats_listener {
        int fd;                            /* -1: not listening */
        uint16_t family;                   /* the TASKSTATS generic netlink family's id */
        struct taskstats_task pending[TASKSTATS_PENDING_MAX];   /* exits since the last mark */
        size_t n_pending;
};

/* Open a netlink socket, find the TASKSTATS family and register for the
 * exits on every possible CPU. Returns 0 with l->fd non-blocking, or
 * -errno: -EPROTONOSUPPORT/-EAFNOSUPPORT without networking, -ENOENT
 * without CONFIG_TASKSTATS; l->fd is -1 then. */
int taskstats_open(struct taskstats_listener *l);

/* Read every report waiting on the socket into l->pending (those beyond
 * TASKSTATS_PENDING_MAX count as lost in *sums). Returns the number of
 * exits read, or -errno of a failed read other than EAGAIN (ENOBUFS
 * counts as lost and is no error). */
int taskstats_drain(struct taskstats_listener *l, struct taskstats_sums *sums);

/* At a phase mark: add the pending exits to *sums, telling waiters from
 * workers, and empty l->pending. */
void taskstats_mark(struct taskstats_listener *l, struct taskstats_sums *sums);

void taskstats_close(struct taskstats_listener *l);

/* The per-task exit reports of one netlink datagram (len bytes) of family:
 * each TASKSTATS_TYPE_AGGR_PID's stats into ret[*n...] (at most max in
 * all; further ones are counted in *ret_dropped), kernel threads (parent
 * 2, or pid 2) left out; thread-group totals (AGGR_TGID) are not taken,
 * their threads were. Stops at the first malformed message. Returns the
 * number of exits taken, or -EBADMSG (after taking those before it).
 * Pure. */
int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_task *ret, size_t max,
                    size_t *n, uint64_t *ret_dropped);

/* Add n exits to *sums (see struct taskstats_sums). Pure. */
void taskstats_sum(const struct taskstats_task *t, size_t n, struct taskstats_sums *sums);
