/* host/insncount: the host's side of the counts that plugin/kbinsn.c keeps
 * inside QEMU (common/insncount-format.h). A cell makes the counter file
 * before QEMU starts, reads running totals whenever the guest marks a phase
 * of its job ("phase write" on fd 3), and turns the differences between
 * marks into metrics:
 *
 *   guest.<phase>.kernel_Minsn   guest.<phase>.user_Minsn
 *       millions of guest instructions, summed over vCPUs: the work done
 *   guest.<phase>.wait_s
 *       seconds during which every vCPU was halted: the guest waited
 *   guest.<phase>.spin_s   guest.<phase>.kernel_pauses
 *       seconds the guest's kernel spent in `pause` loops, and their turns
 *   guest.<phase>.halt_longest_s
 *       the longest stall: seconds from a halt of every vCPU to the resume
 *       that ended it, halts joined across the ticks between them
 *   guest.<phase>.wall_s
 *       the phase's length, host seconds
 *
 * The host's speed moves every timed figure under TCG; it does not move
 * the counts, and the guest's waiting and spinning last as long as the
 * guest asked (a timer, a TSC deadline) on a slow host and a fast one. The
 * file is written by QEMU, so its contents are untrusted: insncount_parse
 * is bounded and fuzzed. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/insncount-format.h"
#include "workloads/workload.h"

struct vm_qemu_user;

/* Totals over every vCPU at one moment. */
struct insncount_totals {
        uint64_t insns[2];                 /* [INSNCOUNT_USER], [INSNCOUNT_KERNEL] */
        uint64_t pauses;                   /* kernel `pause` instructions */
        uint64_t spin_ns;                  /* host ns spent spinning on them */
        uint64_t wait_ns;                  /* host ns every vCPU was halted */
        uint64_t t_ns;                     /* the host's CLOCK_MONOTONIC, ns; 0: not known */
        uint64_t halt_longest_ns;          /* at a mark: the longest stall since the previous mark
                                              (insncount_mark_slot); 0 in running totals */
};

/* Parse a counter file's bytes (len of them): the running totals (t_ns 0:
 * the file holds no time but the marks'). Returns
 * 0 and fills *ret; -EAGAIN while the plugin has not loaded (no magic yet:
 * all zero); -EBADMSG for anything else that is not a file of
 * INSNCOUNT_VERSION (short, another magic or version, more vCPUs than
 * slots). OUT: *ret, only on success. */
int insncount_parse(const void *buf, size_t len, struct insncount_totals *ret);

/* The totals at the guest's k-th marker (0-based): as insncount_parse,
 * and -ENOENT while the guest has not executed it k + 1 times. */
int insncount_parse_mark(const void *buf, size_t len, size_t k, struct insncount_totals *ret);

/* Make path a zero-filled counter file of INSNCOUNT_FILE_SIZE bytes, mode
 * 0600, handed to u (vm_qemu_hand_over; u may be NULL). Replaces what was
 * there. Returns 0 or -errno with err naming path. */
int insncount_file_create(const char *path, const struct vm_qemu_user *u, struct kb_error *err);

/* Read fd (pread from offset 0): the totals at the k-th marker when the
 * guest executed it, else the running totals. Returns what insncount_parse
 * returns, or -errno when the read fails. OUT: *ret, *ret_at_marker (1:
 * the marker's). */
int insncount_read(int fd, size_t k, struct insncount_totals *ret, int *ret_at_marker);

/* The phases a cell saw, each with the totals at its mark. */
#define INSNCOUNT_PHASES_MAX 64            /* marks kept per cell; a guest sending more is ignored */
#define INSNCOUNT_PHASE_NAME_MAX 40        /* bytes of a phase name in a metric */

struct insncount_mark {
        char phase[INSNCOUNT_PHASE_NAME_MAX + 1];   /* "write", "seq_read.t2"; "" for a mark
                                                       whose name cannot be a metric's */
        struct insncount_totals at;
};

struct insncount_marks {
        struct insncount_mark v[INSNCOUNT_PHASES_MAX];
        size_t n;
        int insns_only;                    /* 1: the totals are the guest PMU's instructions
                                              (insncount_parse_pmu): no waiting, spinning or time */
};

/* Parse the guest agent's "pmu" record (guest/pmu.h, under KVM with a
 * vPMU): "user=N kernel=N", its instruction totals at the phase mark that
 * follows it. From the guest, so untrusted. Returns 0 and fills the
 * insns of *ret (the rest 0); -EIO for "lost" (the guest could not read
 * its counters at that mark); -EBADMSG for anything else. OUT: *ret, only
 * on success. */
int insncount_parse_pmu(const char *payload, size_t len, struct insncount_totals *ret);

/* A phase mark's words as a metric's middle: "seq_read t2" (len bytes)
 * -> "seq_read.t2" in out (INSNCOUNT_PHASE_NAME_MAX + 1 bytes). Returns 1,
 * or 0 when a word is not [a-z0-9_-] or the name would be too long. */
int insncount_phase_name(const char *s, size_t len, char *out);

/* Whether text (len bytes, the event's payload, untrusted) is a phase
 * mark, "phase NAME": 1 with NAME as insncount_phase_name makes it in
 * out ("" when it cannot be a metric's), else 0 with out untouched. */
int insncount_phase_mark(const char *text, size_t len, char *out);

/* Record a phase mark: text is the event's payload ("phase seq_read t2"),
 * from the guest, so untrusted; anything but "phase NAME" is ignored.
 * NAME becomes [a-z0-9_-] words joined by '.', at most
 * INSNCOUNT_PHASE_NAME_MAX bytes; another name is kept as a boundary with
 * no metric of its own. Returns 1 when kept, 0 when ignored. */
int insncount_mark(struct insncount_marks *m, const char *text, size_t len, const struct insncount_totals *at);

/* The spans per-phase metrics are of, here and in host/guestcount.c:
 * calls fn(marks, i, metrics) for every mark i of the n marks that is
 * followed by another, but the phase named "" or "end" (what follows the
 * job) and a phase named at an earlier mark (a phase named twice counts
 * once, its first span). phases is the first mark's phase name, the
 * others stride bytes apart (&m->v[0].phase, sizeof(m->v[0])). Returns 0
 * or fn's first negative return. */
int insncount_each_span(const char *phases, size_t stride, size_t n,
                        int (*fn)(const void *marks, size_t i, struct metric_list *metrics), const void *marks,
                        struct metric_list *metrics);

/* Add the per-phase metrics (see above; with m->insns_only, the two
 * instruction counts alone) to metrics: one set for every
 * mark followed by another, but the phase named "end" (what follows the
 * job), and a phase named twice counted once, its first span. Returns 0 or
 * -ENOMEM. */
int insncount_metrics(const struct insncount_marks *m, struct metric_list *metrics);
