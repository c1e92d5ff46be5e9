/* The file through which kbench's TCG plugin (plugin/kbinsn.c) hands the
 * host its instruction counts. kbench creates it zero-filled, sized
 * INSNCOUNT_FILE_SIZE, in the cell's scratch directory and gives it to the
 * QEMU user; the plugin maps it shared and counts into it, so the host reads
 * running totals with one pread() whenever the guest marks a phase. The
 * plugin writes the magic once it is loaded: a file still all zero at the
 * end of a cell means QEMU ran without it. Little-endian, as both ends run
 * on the same x86-64 host. Nothing here depends on QEMU or on the host's
 * libraries. */
#pragma once

#include <stdint.h>

#define INSNCOUNT_MAGIC "KBINSN1"          /* 8 bytes with its NUL */
#define INSNCOUNT_VERSION 1
#define INSNCOUNT_VCPUS_MAX 64

enum { INSNCOUNT_USER = 0, INSNCOUNT_KERNEL = 1 };

/* One vCPU's counters on a cache line of its own: under multi-threaded TCG
 * each vCPU thread adds to its own slot only. */
struct insncount_vcpu {
        uint64_t insns[2];                 /* guest instructions executed: [INSNCOUNT_USER],
                                              [INSNCOUNT_KERNEL] (x86-64's upper half) */
        uint64_t pad[6];
};

struct insncount_file {
        char magic[8];                     /* INSNCOUNT_MAGIC once the plugin is loaded */
        uint32_t version;                  /* INSNCOUNT_VERSION */
        uint32_t n_vcpus;                  /* slots in use, <= INSNCOUNT_VCPUS_MAX */
        uint64_t pad[7];
        struct insncount_vcpu vcpu[INSNCOUNT_VCPUS_MAX];
};

#define INSNCOUNT_FILE_SIZE sizeof(struct insncount_file)
