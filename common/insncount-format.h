/* The file through which kbench's TCG plugin (plugin/kbinsn.c) hands the
 * host its instruction counts, and the two kinds of guest time that
 * instructions cannot show: the time the guest waited (every vCPU halted:
 * on a timer, the disk, a lock's wake-up) and the time its kernel spun in
 * `pause` loops (udelay and other busy-waits on the clock). kbench creates it zero-filled, sized
 * INSNCOUNT_FILE_SIZE, in the cell's scratch directory and gives it to the
 * QEMU user; the plugin maps it shared and counts into it. At each phase
 * mark the guest's agent executes the marker instruction (below) before it
 * sends the phase record, and the plugin copies the totals of that instant
 * into marks[]: the host reads mark k when the k-th phase record arrives,
 * so how late the host's thread gets to the record (tens of milliseconds,
 * millions of guest instructions, on a busy host) moves no count. The
 * plugin writes the magic once it is loaded: a file still all zero at the
 * end of a cell means QEMU ran without it. Little-endian, as both ends run
 * on the same x86-64 host. Nothing here depends on QEMU or on the host's
 * libraries. */
#pragma once

#include <stdint.h>

#define INSNCOUNT_MAGIC "KBINSN1"          /* 8 bytes with its NUL */
#define INSNCOUNT_VERSION 4
#define INSNCOUNT_VCPUS_MAX 64
#define INSNCOUNT_MARKS_MAX 64

/* The marker: `xchg %bx, %bx` (66 87 db), an x86 no-op no compiler emits
 * (Bochs took it as its magic breakpoint for that reason). The plugin
 * counts it only in user mode. */
#define INSNCOUNT_MARKER_BYTES "\x66\x87\xdb"
#define INSNCOUNT_MARKER_LEN 3

static inline void insncount_marker(void) {
        __asm__ volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
}

enum { INSNCOUNT_USER = 0, INSNCOUNT_KERNEL = 1 };

/* Two `pause` instructions of one vCPU at most this far apart (host
 * time) are one spin loop, and the time between them is spinning. An
 * iteration of udelay's loop takes well under a microsecond under TCG; a
 * gap longer than this is the vCPU thread preempted, or two loops. */
#define INSNCOUNT_SPIN_GAP_NS 100000

/* Two spans of every vCPU halted with fewer guest instructions than this
 * between them are one stall. An idle guest is not idle all along: a
 * periodic tick (the tiny kernel's 250 Hz) wakes it for a few thousand
 * instructions at a time, which would cut a 500 ms sleep into 4 ms halts;
 * a task that runs in between does far more. */
#define INSNCOUNT_HALT_JOIN_INSNS 50000

/* One vCPU's counters on a cache line of its own: under multi-threaded TCG
 * each vCPU thread adds to its own slot only. */
struct insncount_vcpu {
        uint64_t insns[2];                 /* guest instructions executed: [INSNCOUNT_USER],
                                              [INSNCOUNT_KERNEL] (x86-64's upper half) */
        uint64_t pauses;                   /* `pause` (f3 90) executed in kernel mode */
        uint64_t spin_ns;                  /* host ns between consecutive kernel pauses less than
                                              INSNCOUNT_SPIN_GAP_NS apart: time spent spinning */
        uint64_t last_pause_ns;            /* the plugin's own: when the last pause ran */
        uint64_t pad[3];
};

/* The totals over every vCPU at one execution of the marker. */
struct insncount_mark_slot {
        uint64_t insns[2];
        uint64_t pauses;
        uint64_t spin_ns;
        uint64_t wait_ns;                  /* struct insncount_file's wait_ns then */
        uint64_t t_ns;                     /* the host's CLOCK_MONOTONIC then, ns */
        uint64_t halt_longest_ns;          /* the longest stall since the previous mark: host ns
                                              from a halt of every vCPU to the resume that ends
                                              it, halts joined across INSNCOUNT_HALT_JOIN_INSNS */
};

struct insncount_file {
        char magic[8];                     /* INSNCOUNT_MAGIC once the plugin is loaded */
        uint32_t version;                  /* INSNCOUNT_VERSION */
        uint32_t n_vcpus;                  /* slots in use, <= INSNCOUNT_VCPUS_MAX */
        uint64_t n_marks;                  /* marker executions so far; marks[] holds the first
                                              INSNCOUNT_MARKS_MAX, written before n_marks counts them */
        uint64_t wait_ns;                  /* host ns during which every vCPU was halted (QEMU's
                                              idle and resume callbacks): the guest waited */
        uint64_t pad[5];
        struct insncount_vcpu vcpu[INSNCOUNT_VCPUS_MAX];
        struct insncount_mark_slot marks[INSNCOUNT_MARKS_MAX];
};

#define INSNCOUNT_FILE_SIZE sizeof(struct insncount_file)
