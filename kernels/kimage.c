/* kernels/kimage.c: bzImage / ELF vmlinux inspection (see kimage.h). The
 * file is untrusted: every header field is range-checked before use, strings
 * are read with an explicit bound, and decompression stops at a size limit. */
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common/fileio.h"
#include "common/util.h"
#include "kernels/kimage.h"

/* x86 boot protocol offsets (Documentation/arch/x86/boot.rst). */
#define SETUP_SECTS_OFF    0x1f1
#define HDRS_OFF           0x202
#define VERSION_OFF        0x206
#define KERNEL_VERSION_OFF 0x20e
#define PAYLOAD_OFFSET_OFF 0x248
#define PAYLOAD_LENGTH_OFF 0x24c
#define SETUP_HDR_END      0x250

#define VERSION_MAX 256                  /* bytes of version string we keep */
#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define PT_NOTE_TYPE 4

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

struct kimage_info *kimage_info_free(struct kimage_info *info) {
        if (!info)
                return NULL;
        free(info->version);
        free(info->release);
        free(info->vmlinux);
        free(info);
        return NULL;
}

static void kimage_info_freep(struct kimage_info **p) { kimage_info_free(*p); }

/* Copy a printable, NUL- or newline-terminated string of at most VERSION_MAX
 * bytes from p[0..avail). Returns NULL if it is empty or holds a control byte. */
static char *bounded_string(const uint8_t *p, size_t avail) {
        size_t n = 0, lim = avail < VERSION_MAX ? avail : VERSION_MAX;

        while (n < lim && p[n] != 0 && p[n] != '\n') {
                if (p[n] < 0x20 || p[n] > 0x7e)
                        return NULL;
                n++;
        }
        if (n == 0)
                return NULL;
        return strndup((const char *)p, n);
}

/* The release is the version string's first word, restricted to the
 * characters kernel releases use, so it is safe as a file and store name. */
static char *release_of(const char *version) {
        size_t n = strcspn(version, " ");

        if (n == 0 || n > 64)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_~", version[i]))
                        return NULL;
        return strndup(version, n);
}

/* Find the expanded linux_banner ("Linux version 6.1.0-47-amd64 (...") in
 * an ELF image; format strings ("Linux version %s") are skipped. */
static char *banner_version(const uint8_t *data, size_t size) {
        static const char pat[] = "Linux version ";
        const size_t pl = sizeof(pat) - 1;
        const uint8_t *p = data, *end = data + size;

        while ((size_t)(end - p) > pl) {
                const uint8_t *hit = memmem(p, (size_t)(end - p), pat, pl);
                if (!hit || (size_t)(end - hit) <= pl)
                        return NULL;
                if (hit[pl] >= '0' && hit[pl] <= '9')
                        return bounded_string(hit + pl, (size_t)(end - hit) - pl);
                p = hit + 1;
        }
        return NULL;
}

static bool is_elf(const uint8_t *data, size_t size) {
        return size >= 16 && memcmp(data, "\177ELF", 4) == 0;
}

int kimage_elf_pvh(const uint8_t *data, size_t size, int *ret_pvh, uint64_t *ret_entry,
                   struct kb_error *err) {
        uint64_t phoff;
        size_t phentsize, phnum;
        int elf64, pvh = 0;
        uint64_t entry = 0;

        if (!is_elf(data, size) || (data[4] != 1 && data[4] != 2) || data[5] != 1)
                return error_setf(err, -EINVAL, "not a little-endian ELF file");
        elf64 = data[4] == 2;
        if (size < (elf64 ? 64u : 52u))
                return error_setf(err, -EINVAL, "ELF header truncated");
        if (elf64) {
                phoff = le64(data + 32);
                phentsize = le16(data + 54);
                phnum = le16(data + 56);
        } else {
                phoff = le32(data + 28);
                phentsize = le16(data + 42);
                phnum = le16(data + 44);
        }
        if (phnum == 0) {
                *ret_pvh = 0;
                return 0;
        }
        if (phentsize < (elf64 ? 56u : 32u) || phoff > size || phnum > (size - phoff) / phentsize)
                return error_setf(err, -EINVAL, "ELF program headers out of bounds");

        for (size_t i = 0; i < phnum && !pvh; i++) {
                const uint8_t *ph = data + phoff + i * phentsize;
                uint64_t off, len;

                if (le32(ph) != PT_NOTE_TYPE)
                        continue;
                off = elf64 ? le64(ph + 8) : le32(ph + 4);
                len = elf64 ? le64(ph + 32) : le32(ph + 16);
                if (off > size || len > size - off)
                        continue;        /* a note outside the file is no note */

                /* Notes: namesz, descsz, type, name (4-aligned), desc (4-aligned). */
                for (uint64_t p = 0; len - p >= 12;) {
                        const uint8_t *n = data + off + p;
                        uint64_t namesz = le32(n), descsz = le32(n + 4), type = le32(n + 8);
                        uint64_t namepad = (namesz + 3) & ~(uint64_t)3, descpad = (descsz + 3) & ~(uint64_t)3;

                        if (namepad > len - p - 12 || descpad > len - p - 12 - namepad)
                                break;
                        if (namesz == 4 && memcmp(n + 12, "Xen", 4) == 0 &&
                            type == XEN_ELFNOTE_PHYS32_ENTRY && descsz >= 4) {
                                pvh = 1;
                                entry = descsz >= 8 ? le64(n + 12 + namepad) : le32(n + 12 + namepad);
                                break;
                        }
                        p += 12 + namepad + descpad;
                }
        }
        *ret_pvh = pvh;
        if (pvh && ret_entry)
                *ret_entry = entry;
        return 0;
}

static const char *filter_name(int code) {
        switch (code) {
        case ARCHIVE_FILTER_XZ: return "xz";
        case ARCHIVE_FILTER_GZIP: return "gzip";
        case ARCHIVE_FILTER_ZSTD: return "zstd";
        case ARCHIVE_FILTER_LZ4: return "lz4";
        case ARCHIVE_FILTER_BZIP2: return "bzip2";
        case ARCHIVE_FILTER_LZMA: return "lzma";
        case ARCHIVE_FILTER_LZOP: return "lzo";
        default: return "other";
        }
}

static void archive_read_freep(struct archive **a) {
        if (*a)
                archive_read_free(*a);
}

int kimage_decompress(const uint8_t *data, size_t size, size_t max_out, uint8_t **ret,
                      size_t *ret_size, const char **ret_filter, struct kb_error *err) {
        _cleanup_(archive_read_freep) struct archive *a = archive_read_new();
        _cleanup_free_ uint8_t *buf = NULL;
        struct archive_entry *e;
        size_t len = 0, cap = 0;
        const char *filter;

        if (!a)
                return error_setf(err, -ENOMEM, "out of memory");
        archive_read_support_filter_all(a);
        archive_read_support_format_raw(a);
        if (size == 0 || archive_read_open_memory(a, (void *)(uintptr_t)data, size) != ARCHIVE_OK ||
            archive_read_next_header(a, &e) != ARCHIVE_OK)
                return error_setf(err, -EBADMSG, "unrecognised compressed data: %s",
                                  size ? archive_error_string(a) ?: "no header" : "empty");
        if (archive_filter_count(a) < 2)
                return error_setf(err, -EBADMSG, "data is not compressed with a known filter");
        filter = filter_name(archive_filter_code(a, 0));

        for (;;) {
                la_ssize_t n;

                if (cap - len < 65536) {
                        size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
                        uint8_t *nb;
                        if (ncap > max_out + 65536)
                                ncap = max_out + 65536;
                        if (ncap <= cap)
                                return error_setf(err, -EFBIG, "%s stream inflates beyond %zu bytes", filter, max_out);
                        nb = realloc(buf, ncap);
                        if (!nb)
                                return error_setf(err, -ENOMEM, "out of memory");
                        buf = nb;
                        cap = ncap;
                }
                n = archive_read_data(a, buf + len, cap - len);
                if (n < 0)
                        return error_setf(err, -EBADMSG, "corrupt %s stream: %s", filter,
                                          archive_error_string(a) ?: "read error");
                if (n == 0)
                        break;
                len += (size_t)n;
                if (len > max_out)
                        return error_setf(err, -EFBIG, "%s stream inflates beyond %zu bytes", filter, max_out);
        }
        *ret = TAKE_PTR(buf);
        *ret_size = len;
        if (ret_filter)
                *ret_filter = filter;
        return 0;
}

static int parse_bzimage(const uint8_t *data, size_t size, const char *what,
                         struct kimage_info *info, struct kb_error *err) {
        size_t setup_sects = data[SETUP_SECTS_OFF] ? data[SETUP_SECTS_OFF] : 4;
        size_t pm_start = (setup_sects + 1) * 512;
        uint16_t kv = le16(data + KERNEL_VERSION_OFF);
        uint32_t poff = le32(data + PAYLOAD_OFFSET_OFF), plen = le32(data + PAYLOAD_LENGTH_OFF);
        int r;

        info->boot_protocol = le16(data + VERSION_OFF);
        if (info->boot_protocol < 0x208)
                return error_setf(err, -EBADMSG, "%s: bzImage boot protocol %u.%02u is older than 2.08 (no payload info)",
                                  what, info->boot_protocol >> 8, info->boot_protocol & 0xff);
        if (pm_start > size)
                return error_setf(err, -EBADMSG, "%s: bzImage truncated (setup is %zu bytes, file %zu)",
                                  what, pm_start, size);
        if (kv != 0 && 0x200 + (size_t)kv < size) {
                info->version = bounded_string(data + 0x200 + kv, size - 0x200 - kv);
                if (info->version)
                        info->release = release_of(info->version);
        }
        if (poff > size - pm_start || plen > size - pm_start - poff || plen <= 4)
                return error_setf(err, -EBADMSG, "%s: bzImage payload (offset %u, length %u) lies outside the file",
                                  what, poff, plen);

        const uint8_t *payload = data + pm_start + poff;
        if (is_elf(payload, plen)) {
                /* CONFIG_KERNEL_UNCOMPRESSED */
                info->vmlinux = malloc(plen);
                if (!info->vmlinux)
                        return error_setf(err, -ENOMEM, "out of memory");
                memcpy(info->vmlinux, payload, plen);
                info->vmlinux_size = plen;
                info->compression = "none";
        } else {
                /* The build appends the inflated size (le32) to the stream; leave
                 * it out so the decoder does not take it for a second stream. */
                r = kimage_decompress(payload, plen - 4, KIMAGE_MAX_VMLINUX, &info->vmlinux,
                                      &info->vmlinux_size, &info->compression, err);
                if (r < 0)
                        return error_prefix(err, r, "%s: bzImage payload", what);
        }
        if (!is_elf(info->vmlinux, info->vmlinux_size))
                return error_setf(err, -EBADMSG, "%s: bzImage payload does not inflate to an ELF vmlinux", what);
        r = kimage_elf_pvh(info->vmlinux, info->vmlinux_size, &info->pvh, &info->pvh_entry, err);
        if (r < 0)
                return error_prefix(err, r, "%s: vmlinux in payload", what);
        if (!info->version) {
                info->version = banner_version(info->vmlinux, info->vmlinux_size);
                if (info->version)
                        info->release = release_of(info->version);
        }
        return 0;
}

int kimage_sniff(const uint8_t *head, size_t n) {
        return (n >= SETUP_HDR_END && memcmp(head + HDRS_OFF, "HdrS", 4) == 0) || is_elf(head, n);
}

int kimage_parse(const uint8_t *data, size_t size, const char *what,
                 struct kimage_info **ret, struct kb_error *err) {
        _cleanup_(kimage_info_freep) struct kimage_info *info = calloc(1, sizeof(*info));
        int r;

        if (!info)
                return error_setf(err, -ENOMEM, "out of memory");
        if (size >= SETUP_HDR_END && memcmp(data + HDRS_OFF, "HdrS", 4) == 0) {
                r = parse_bzimage(data, size, what, info, err);
                if (r < 0)
                        return r;
        } else if (is_elf(data, size)) {
                info->is_elf = 1;
                r = kimage_elf_pvh(data, size, &info->pvh, &info->pvh_entry, err);
                if (r < 0)
                        return error_prefix(err, -EINVAL, "%s: not a kernel image", what);
                info->version = banner_version(data, size);
                if (!info->version)
                        return error_setf(err, -EINVAL, "%s: not a kernel image (ELF without a Linux version banner)", what);
                info->release = release_of(info->version);
        } else
                return error_setf(err, -EINVAL, "%s: not a kernel image (no bzImage setup header, not an ELF vmlinux)", what);
        *ret = TAKE_PTR(info);
        return 0;
}

int kimage_inspect(const char *path, struct kimage_info **ret, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        void *map;
        int r;

        /* A FIFO or a device is refused without waiting on it. */
        r = fileio_open_regular(path, &fd, err);
        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        if (st.st_size == 0)
                return error_setf(err, -EINVAL, "%s: not a kernel image (empty file)", path);
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
                return error_setf(err, -errno, "%s: mmap: %s", path, strerror(errno));
        r = kimage_parse(map, (size_t)st.st_size, path, ret, err);
        munmap(map, (size_t)st.st_size);
        return r;
}
