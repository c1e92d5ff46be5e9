/* cell/cellprof: a cell's profile of its kernel's instructions by
 * function, per phase of the job. Under TCG, QEMU loads the profile plugin
 * (plugin/kbprof.c) beside the counter; it counts each kernel block's
 * instructions and writes, at every phase mark, how much each block start
 * address ran since the last (host/kprof.h). After the cell, the
 * addresses are put in the kernel's own functions (kernels/ksyms.h): the
 * guest's /proc/kallsyms, kept in the kernel store as `ksyms` once a cell
 * of the kernel sent it (the agent lists it after the job when asked,
 * guest/ksymlist.h), or, for a kernel without kallsyms, its System.map
 * (a kernel built from source). Where this boot put the kernel and its
 * modules comes from the agent with every ready (`kbase` records), so
 * KASLR moves nothing; a kernel with neither kallsyms nor its _text known
 * is profiled only when it cannot have been relocated (booted from its
 * PVH vmlinux, no CONFIG_RANDOMIZE_BASE, or `nokaslr`).
 *
 * A phase's rows sum to its kernel instructions exactly (the same blocks
 * at the same instants as guest.<phase>.kernel_Minsn, with one vCPU):
 * addresses in no known function are the row KSYMS_UNKNOWN, those in a
 * module without symbols "[module]". */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "host/insncount.h"
#include "kernels/ksyms.h"
#include "kernels/kstore.h"

/* One row of a cell's profile. */
struct cell_profile_row {
        char *phase;                       /* as in guest.<phase>.kernel_Minsn (owned) */
        char *symbol;                      /* "vfs_write", "ext4_map_blocks [ext4]", "[unknown]" (owned) */
        uint64_t insns;                    /* instructions executed there in the phase, > 0 */
};

/* The file the kernel store keeps a kernel's table in (kstore_attach). */
#define CELLPROF_KSYMS_FILE "ksyms"

struct cellprof {
        char *path;                        /* the plugin's file (owned), or NULL: no profile */
        const struct kstore_kernel *kernel;
        struct ksyms_boot boot;            /* this boot's bases, from the kbase records */
        int boot_bad;                      /* a kbase record was not one */
        struct ksyms *stored;              /* the store's table, when it has one (owned) */
        struct ksyms *sent;                /* the table the guest is sending (owned), or NULL */
        int asked;                         /* the job asked the guest for its table */
        int ended;                         /* its ksyms-end arrived */
        int sent_bad;                      /* a ksym record was not a line of symbols */
        uint64_t sent_count;               /* what ksyms-end said it sent */
};

/* Set p up for a cell of kernel whose plugin writes path (NULL: the cell
 * has no profile; every other call then does nothing). */
void cellprof_init(struct cellprof *p, const char *path, const struct kstore_kernel *kernel);
/* Forget what a guest said (a restored guest's bases, before the cell
 * boots cold instead). */
void cellprof_reset(struct cellprof *p);
void cellprof_clear(struct cellprof *p);

/* The guest's records, untrusted: a kbase record (its bases, sent with
 * every ready), a ksym record (a line of its table), ksyms-end (the
 * count). A record that is not one is remembered and its table not used. */
void cellprof_on_base(struct cellprof *p, const char *payload, size_t len);
void cellprof_on_sym(struct cellprof *p, const char *payload, size_t len);
void cellprof_on_end(struct cellprof *p, const char *payload, size_t len);

/* Whether the job should ask the guest for its table (`set ksyms 1`):
 * it lists its _text, and the store has no table of the kernel that holds
 * every module this boot loaded. Sets p->asked to the answer. */
int cellprof_ask(struct cellprof *p);

/* What the cell's profile came to, for the result. */
struct cellprof_result {
        GArray *rows;                      /* struct cell_profile_row, by phase then symbol (owned) */
        struct ksyms *ksyms;               /* the table they were resolved with (owned), or NULL */
        int ksyms_fresh;                   /* the guest sent it in this cell: the store should keep it */
};

/* After the domain is gone: read the plugin's file, resolve every phase
 * of marks (those insncount_metrics gives a metric) with the best table,
 * and say in notes (char *, added) what the profile is, or why there is
 * none. OUT: *ret (cellprof_result_clear), its rows empty without a
 * profile. */
void cellprof_conclude(struct cellprof *p, const struct insncount_marks *marks, const char *cmdline,
                       int booted_vmlinux, GPtrArray *notes, struct cellprof_result *ret);
void cellprof_result_clear(struct cellprof_result *r);
