/* kernels/kimage: inspection of a kernel boot image without trusting it. An
 * x86 bzImage is read through its setup header (boot protocol >= 2.08: the
 * version string, the payload location); the payload is decompressed with
 * libarchive (xz, gzip, zstd, lz4, bzip2, lzma) to the ELF vmlinux, whose
 * PT_NOTE segments tell whether the kernel has a PVH entry point (QEMU then
 * boots the ELF directly, skipping the in-guest decompression that costs ~3 s
 * under TCG). A bare ELF vmlinux is accepted as input too. Every offset and
 * length read from the file is bounds-checked. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Upper bound on a decompressed vmlinux (Debian's is ~60 MiB). */
#define KIMAGE_MAX_VMLINUX ((size_t)512 << 20)

struct kimage_info {
        char *version;             /* whole version string ("6.1.0-47-amd64 (debian-kernel@...) #1 SMP ..."), or NULL */
        char *release;             /* first word of version: "6.1.0-47-amd64"; NULL if unknown */
        int is_elf;                /* the input itself is an ELF vmlinux (no setup header) */
        unsigned boot_protocol;    /* setup header version, 0x20f = 2.15; 0 for ELF input */
        const char *compression;   /* payload filter ("xz", "zstd", "gzip", ..., "none"); static; NULL for ELF */
        int pvh;                   /* ELF has a "Xen" note of type 18 (XEN_ELFNOTE_PHYS32_ENTRY) */
        uint64_t pvh_entry;        /* physical entry address from that note */
        uint8_t *vmlinux;          /* decompressed ELF from a bzImage (owned, malloc); NULL for ELF input */
        size_t vmlinux_size;       /* bytes */
};

/* Inspect an in-memory image. what names the input in messages (a file name).
 * Returns 0, or -EINVAL "<what>: not a kernel image (...)" for anything that is
 * neither a bzImage nor an ELF, -EBADMSG for a damaged bzImage/payload,
 * -EFBIG when the payload inflates beyond KIMAGE_MAX_VMLINUX, -ENOMEM.
 * OUT: *ret (free with kimage_info_free). Does not keep a pointer to data. */
int kimage_parse(const uint8_t *data, size_t size, const char *what,
                 struct kimage_info **ret, struct kb_error *err);

/* Bytes of a file's head that kimage_sniff needs (the setup header's end). */
#define KIMAGE_SNIFF_BYTES 0x250

/* Whether a file starting with head[0..n) may be a kernel image: a bzImage
 * setup header ("HdrS") or an ELF file; a cheap look before a copy. */
int kimage_sniff(const uint8_t *head, size_t n);

/* kimage_parse() on the contents of the file at path (mapped read-only).
 * Errors as kimage_parse, plus -errno from open/mmap naming the file. */
int kimage_inspect(const char *path, struct kimage_info **ret, struct kb_error *err);

struct kimage_info *kimage_info_free(struct kimage_info *info);

/* Walk an ELF's (32- or 64-bit, little-endian) PT_NOTE segments for the PVH
 * note. Returns 0 (OUT: *ret_pvh 0/1, *ret_entry when 1), or -EINVAL if data
 * is not an ELF file or its program headers lie outside it. */
int kimage_elf_pvh(const uint8_t *data, size_t size, int *ret_pvh, uint64_t *ret_entry,
                   struct kb_error *err);

/* Decompress one compressed stream (any filter libarchive detects; data that
 * no filter claims is an error) into a new buffer of at most max_out bytes.
 * Returns 0, -EBADMSG (corrupt/unknown), -EFBIG (over max_out), -ENOMEM.
 * OUT: *ret (malloc, caller frees), *ret_size, *ret_filter (static name). */
int kimage_decompress(const uint8_t *data, size_t size, size_t max_out, uint8_t **ret,
                      size_t *ret_size, const char **ret_filter, struct kb_error *err);
