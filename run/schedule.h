/* run/schedule: which host runs which cell when a run spreads its cells
 * over several libvirt hosts. compare never pairs cells of two hosts, so
 * the cells a comparison puts side by side (a group: every kernel of one
 * workload, every round) run on one host, in the plan's interleaved order;
 * the groups are spread over the hosts by cells per slot. A host that
 * fails gives the cells it had not finished to the live host with the
 * least work per slot, all to that one, so the group stays together there
 * (its cells on the two hosts are then two comparisons, never one). With
 * no live host left the cells are held, and the run ends resumable. Pure:
 * no I/O, no locks (the runner holds its own), tested from tables. */
#pragma once

#include <stddef.h>

struct schedule;

/* n cells, cell i of group group_of[i] (groups are 0..n_groups-1), in
 * plan order; todo[i] says whether it is still to run (a resumed run has
 * some done). hosts[h] has slots[h] >= 1 slots. OUT: *ret. */
int schedule_new(size_t n, const size_t *group_of, const int *todo, size_t n_groups, const unsigned *slots,
                 size_t n_hosts, struct schedule **ret);
struct schedule *schedule_free(struct schedule *s);

/* The host group g was given to. */
size_t schedule_group_host(const struct schedule *s, size_t g);

/* The next cell host h is to run (taken off its queue). Returns 1 with
 * *ret_cell, 0 when h has nothing queued. */
int schedule_next(struct schedule *s, size_t h, size_t *ret_cell);

/* Put cell back at the front of host h's queue (an attempt to be made
 * again); when h has failed, at the front of the queue of the host its
 * group went to, or held when none is left. */
void schedule_requeue(struct schedule *s, size_t h, size_t cell);

/* Host h failed: it takes no more cells, and what it had queued goes to
 * the live host with the least queued cells per slot. Returns that host,
 * or -1 when no host is left (the cells stay held, schedule_held counts
 * them). */
long schedule_host_failed(struct schedule *s, size_t h);

/* Cells queued on no live host. */
size_t schedule_held(const struct schedule *s);

/* Cells queued on host h. */
size_t schedule_queued(const struct schedule *s, size_t h);
