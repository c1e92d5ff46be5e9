/* kernels/ksyms: a kernel's text symbols, what a profile (host/kprof.h)
 * is resolved with. A table is the kernel's own: its /proc/kallsyms as a
 * guest of it listed it (the kernel proper and the modules that guest had
 * loaded), kept in the kernel store as `ksyms` once a cell sent it, or the
 * System.map of a kernel built from source. Debian's packages ship a
 * System.map that is a one-line placeholder ("The real System.map is in
 * the linux-image-<version>-dbg package"): ksyms_from_map refuses it, and
 * such a kernel's table comes from its guest.
 *
 * Addresses are kept relative: the kernel's from its `_text`, a module's
 * from its base, since a boot may put both elsewhere (KASLR, the module
 * area). A boot's bases (struct ksyms_boot) come from the guest's agent
 * with every cell; a System.map's own `_text` is the boot's only when the
 * kernel was not relocated (no KASLR: the caller decides).
 *
 * The text form, one section per line, is both what the agent sends (one
 * `ksym` record per line, common/proto.h) and the store's file after a
 * first line "kbench-ksyms 1":
 *
 *   core OFF NAME OFF NAME ...          the kernel proper, OFF hex from _text
 *   mod MODULE SIZE OFF NAME ...        a module of SIZE bytes (decimal), OFF hex from its base
 *
 * Everything in it came from a guest, so it is parsed as untrusted
 * (bounded, fuzzed: fuzz/fuzz-ksyms.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define KSYMS_NAME_MAX 255                 /* bytes of a symbol's name */
#define KSYMS_MODULE_MAX 63                /* bytes of a module's name */
#define KSYMS_SYMS_MAX (4u << 20)          /* symbols in a table, at most */
#define KSYMS_BOOT_MODULES_MAX 1024        /* modules of a boot, at most */
#define KSYMS_FILE_MAX (256u << 20)        /* bytes of a table's file */
#define KSYMS_FILE_HEADER "kbench-ksyms 1"
/* Longer than any function: an address this far past the last symbol of
 * the kernel proper is not in it. */
#define KSYMS_FUNC_MAX (1u << 20)
/* The name of a pseudo symbol: addresses in no function kbench knows. */
#define KSYMS_UNKNOWN "[unknown]"
/* Room for a resolved name: a symbol, " [", a module, "]". */
#define KSYMS_RESOLVED_MAX (KSYMS_NAME_MAX + KSYMS_MODULE_MAX + 4)

struct ksyms;

/* An empty table, for a guest's records (ksyms_add_line). Returns NULL on
 * want of memory. */
struct ksyms *ksyms_new(const char *source);
struct ksyms *ksyms_free(struct ksyms *ks);   /* accepts NULL, returns NULL */

/* Add one line of the text form (no newline). Returns 0, -EBADMSG for a
 * line that is not one, -E2BIG past KSYMS_SYMS_MAX, -ENOMEM. */
int ksyms_add_line(struct ksyms *ks, const char *line, size_t len);

/* Sort each section and keep one name per address: a function's before
 * a section's start or end marker (`__x86_indirect_thunk_rax` over
 * `__indirect_thunk_start`), then the one with the fewest leading
 * underscores (`startup_64` over `_stext` and `_text`), then the first in
 * byte order. Lookups need it. */
void ksyms_finish(struct ksyms *ks);

/* A System.map's text (len bytes): its text symbols (t, T, w, W) relative
 * to its `_text`. -ENODATA when it lists no text symbol or no `_text`
 * (Debian's placeholder), -EBADMSG for a line that is not "HEX TYPE NAME".
 * OUT: *ret (ksyms_free), finished; its link_text is the map's `_text`. */
int ksyms_from_map(const char *text, size_t len, struct ksyms **ret, struct kb_error *err);

/* A table as the store keeps it, and back. ksyms_load names path in its
 * errors; -ENOENT when there is no such file. OUT: *ret (ksyms_free),
 * finished. */
int ksyms_load(const char *path, struct ksyms **ret, struct kb_error *err);
int ksyms_save(const struct ksyms *ks, const char *path, struct kb_error *err);

/* What the table came from ("kallsyms", "System.map"), and a System.map's
 * `_text` address (0 for kallsyms). */
const char *ksyms_source(const struct ksyms *ks);
uint64_t ksyms_link_text(const struct ksyms *ks);
/* Symbols in all. */
size_t ksyms_count(const struct ksyms *ks);
/* Every name as a profile row names it ("vfs_write", "ext4_map_blocks
 * [ext4]"), once, each into fn. */
int ksyms_each_name(const struct ksyms *ks, int (*fn)(const char *name, void *userdata), void *userdata);

/* Where one boot put the kernel and its modules, as its guest's agent
 * said in `kbase` records. */
struct ksyms_module {
        char name[KSYMS_MODULE_MAX + 1];
        uint64_t base, size;
};

struct ksyms_boot {
        int has_text;                      /* the guest listed its _text */
        int no_kallsyms;                   /* the guest said it has no /proc/kallsyms */
        uint64_t text;
        struct ksyms_module *mods;         /* owned; ksyms_boot_clear */
        size_t n_mods;
};

/* One `kbase` record's payload: "text HEX", "none" (no /proc/kallsyms, or
 * its addresses hidden), or "module NAME HEX SIZE". Returns 0, -EBADMSG,
 * -E2BIG past KSYMS_BOOT_MODULES_MAX, -ENOMEM. */
int ksyms_boot_record(struct ksyms_boot *b, const char *payload, size_t len);
void ksyms_boot_clear(struct ksyms_boot *b);

/* Whether ks holds the kernel proper and every module of boot b, at the
 * size the boot gives: then no cell of this kernel need send its table. */
int ksyms_covers(const struct ksyms *ks, const struct ksyms_boot *b);

/* The function pc lies in, as a profile names it: "vfs_write",
 * "ext4_map_blocks [ext4]", "[ext4]" (in a module without a symbol
 * there), KSYMS_UNKNOWN (outside the kernel proper and every module, or
 * the boot's _text unknown). Into buf (KSYMS_RESOLVED_MAX + 1 bytes). */
void ksyms_lookup(const struct ksyms *ks, const struct ksyms_boot *b, uint64_t pc, char *buf, size_t size);
