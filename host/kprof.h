/* host/kprof: the host's side of the profile that plugin/kbprof.c keeps
 * inside QEMU (common/kprof-format.h): the file a cell makes before QEMU
 * starts, and its reading once the domain is gone. Each segment is one
 * phase of the job, from the guest's marker execution k - 1 to k, as
 * kernel block start addresses and the instructions executed there; the
 * cell resolves them to the kernel's functions (kernels/ksyms.h). The
 * file is written by QEMU, so it is parsed as untrusted: kprof_parse is
 * bounded and fuzzed (fuzz/fuzz-kprof.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/kprof-format.h"

struct vm_qemu_user;

/* One phase: the entries between the header of marker execution k and
 * the next header. */
struct kprof_segment {
        uint64_t k;                        /* the marker execution (0-based) that ends it, >= 1 */
        const struct kprof_entry *e;       /* into struct kprof_data's entries */
        size_t n;
        uint64_t insns;                    /* the sum of its entries' instructions */
};

struct kprof_data {
        uint64_t n_marks;                  /* marker executions the plugin saw */
        uint64_t lost_marks;               /* segments it had no room for */
        struct kprof_entry *entries;       /* owned */
        struct kprof_segment *seg;         /* owned, in file order (k increasing) */
        size_t n_seg;
};

/* Parse a profile file's bytes (len of them). Returns 0 and fills *ret;
 * -EAGAIN while the plugin has not loaded (no magic: all zero);
 * -EBADMSG for anything else that is not a file of KPROF_VERSION (short,
 * another magic, version or capacity, more entries used than there is
 * room for, entries before the first header, headers out of order, a
 * segment's sum past 64 bits). OUT: *ret (kprof_data_clear), only on
 * success. */
int kprof_parse(const void *buf, size_t len, struct kprof_data *ret);

/* kprof_parse of the file at path, reading the header and the entries it
 * says are used (not the whole file). -errno with err naming path; the
 * codes of kprof_parse otherwise (err says which). */
int kprof_read(const char *path, struct kprof_data *ret, struct kb_error *err);
void kprof_data_clear(struct kprof_data *d);

/* The segment that ends at marker execution k, or NULL. */
const struct kprof_segment *kprof_segment(const struct kprof_data *d, uint64_t k);

/* Make path the zero-filled file of KPROF_FILE_SIZE bytes the plugin
 * maps, handed to u (vm_qemu_file_create). */
int kprof_file_create(const char *path, const struct vm_qemu_user *u, struct kb_error *err);
