/* The file through which kbench's TCG profile plugin (plugin/kbprof.c)
 * hands the host where in the guest's kernel each phase's instructions
 * went. The instruction counter (common/insncount-format.h) says how many
 * instructions the kernel executed in a phase; this file says at which
 * translation blocks, so the host can attribute them to the kernel's
 * functions with the kernel's own symbol table (kernels/ksyms.h) once the
 * cell is over.
 *
 * kbench creates it zero-filled, KPROF_FILE_SIZE bytes, in the cell's
 * scratch directory and gives it to the QEMU user; the plugin maps it
 * shared and writes the magic once loaded. At each phase mark the guest's
 * agent executes the marker instruction (insncount_marker()); at its
 * execution k (0-based, as the counter's marks[k]) with k >= 1 the plugin
 * appends one segment: a header entry { pc 0, insns k }, followed by one
 * entry { pc, insns } per kernel block start address whose instructions
 * grew since execution k - 1, with that growth. A segment thus holds the phase from mark k - 1 to mark k,
 * and the sum of its entries is that phase's kernel instructions exactly,
 * the same blocks and the same instants as the counter's marks (with one
 * vCPU; with several, the other vCPUs count on while one writes). What
 * ran before the first mark (the boot) is not written. `used` is stored
 * after the entries it counts, so a reader that sees used = n finds the
 * first n entries whole. A segment that does not fit is not written and
 * counted in lost_marks. Little-endian, as both ends run on the same
 * x86-64 host; the file is QEMU's, so its reader treats it as untrusted
 * (host/kprof.h, fuzzed). */
#pragma once

#include <stdint.h>

#define KPROF_MAGIC "KBPROF1"              /* 8 bytes with its NUL */
#define KPROF_VERSION 1
#define KPROF_FILE_SIZE (16u << 20)        /* bytes: room for about a million entries */

struct kprof_entry {
        uint64_t pc;                       /* a kernel block's first address; 0: a segment header */
        uint64_t insns;                    /* instructions executed there in the segment's phase; in a
                                              header, the marker execution k (0-based) that ends the
                                              segment */
};

struct kprof_header {
        char magic[8];                     /* KPROF_MAGIC once the plugin is loaded */
        uint32_t version;                  /* KPROF_VERSION */
        uint32_t n_vcpus;
        uint64_t capacity;                 /* entries the file has room for after the header */
        uint64_t used;                     /* entries written, stored after them */
        uint64_t n_marks;                  /* marker executions the plugin saw */
        uint64_t lost_marks;               /* segments not written for want of room */
        uint64_t pad[2];
};

#define KPROF_CAPACITY ((KPROF_FILE_SIZE - sizeof(struct kprof_header)) / sizeof(struct kprof_entry))
