/* kernels/test-fixtures.h: builders for the kernel tests' synthetic inputs,
 * made with the same tools the real artefacts are made with: a tiny ELF
 * vmlinux (optional PVH note, linux_banner), compressed by libarchive's xz /
 * gzip / zstd writers, wrapped in a boot-protocol 2.15 setup header laid out
 * as Documentation/arch/x86/boot.rst describes; tiny ELF relocatable .ko
 * files with a .modinfo, exported (__ksymtab_strings) and undefined (.symtab)
 * symbols, so depmod computes a real dependency; and a .deb (ar: debian-binary,
 * control.tar.xz, data.tar.xz) holding them. Test-only: aborts on failure. */
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "common/test.h"

static inline void fx_put16(GByteArray *b, size_t off, uint16_t v) { b->data[off] = v & 0xff; b->data[off + 1] = v >> 8; }
static inline void fx_put32(GByteArray *b, size_t off, uint32_t v) { for (int i = 0; i < 4; i++) b->data[off + i] = (v >> (8 * i)) & 0xff; }
static inline void fx_put64(GByteArray *b, size_t off, uint64_t v) { for (int i = 0; i < 8; i++) b->data[off + i] = (v >> (8 * i)) & 0xff; }
static inline size_t fx_grow(GByteArray *b, size_t n) { size_t o = b->len; g_byte_array_set_size(b, (guint)(o + n)); memset(b->data + o, 0, n); return o; }

/* An ELF64 x86-64 executable with one PT_NOTE segment (a "GNU" note, then
 * the Xen PHYS32_ENTRY note when pvh) and a linux_banner string, if banner. */
static inline GByteArray *fx_elf(int pvh, const char *banner) {
        GByteArray *b = g_byte_array_new();
        size_t notes, nlen;

        fx_grow(b, 64 + 56);
        memcpy(b->data, "\177ELF\2\1\1", 7);
        fx_put16(b, 16, 2);                  /* ET_EXEC */
        fx_put16(b, 18, 62);                 /* EM_X86_64 */
        fx_put32(b, 20, 1);
        fx_put64(b, 24, 0x1000000);          /* e_entry */
        fx_put64(b, 32, 64);                 /* e_phoff */
        fx_put16(b, 52, 64);                 /* e_ehsize */
        fx_put16(b, 54, 56);                 /* e_phentsize */
        fx_put16(b, 56, 1);                  /* e_phnum */
        notes = fx_grow(b, 12 + 4 + 20);     /* GNU build-id style note */
        fx_put32(b, notes, 4);
        fx_put32(b, notes + 4, 20);
        fx_put32(b, notes + 8, 3);
        memcpy(b->data + notes + 12, "GNU", 4);
        if (pvh) {
                size_t x = fx_grow(b, 12 + 4 + 4);
                fx_put32(b, x, 4);
                fx_put32(b, x + 4, 4);
                fx_put32(b, x + 8, 18);
                memcpy(b->data + x + 12, "Xen", 4);
                fx_put32(b, x + 16, 0x1000850);
        }
        nlen = b->len - notes;
        fx_put32(b, 64, 4);                  /* PT_NOTE */
        fx_put64(b, 64 + 8, notes);          /* p_offset */
        fx_put64(b, 64 + 32, nlen);          /* p_filesz */
        fx_put64(b, 64 + 40, nlen);
        if (banner) {
                /* A format string first, as in real kernels, then the banner. */
                g_byte_array_append(b, (const guint8 *)"Linux version %s\0", 17);
                g_byte_array_append(b, (const guint8 *)banner, (guint)strlen(banner) + 1);
        }
        fx_grow(b, 4096);                    /* some "text" so compression has work */
        for (size_t i = b->len - 4096; i < b->len; i++)
                b->data[i] = (uint8_t)(i * 7);
        return b;
}

/* data compressed as one raw stream with the named libarchive filter
 * ("xz", "gzip", "zstd"). */
static inline GByteArray *fx_compress(const uint8_t *data, size_t size, const char *filter) {
        struct archive *a = archive_write_new();
        struct archive_entry *e = archive_entry_new();
        size_t cap = size + 65536, used = 0;
        GByteArray *out = g_byte_array_sized_new((guint)cap);

        g_byte_array_set_size(out, (guint)cap);
        if (archive_write_add_filter_by_name(a, filter) != ARCHIVE_OK ||
            archive_write_set_format_raw(a) != ARCHIVE_OK ||
            archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
            archive_write_open_memory(a, out->data, cap, &used) != ARCHIVE_OK)
                TEST_FAIL("libarchive %s writer: %s", filter, archive_error_string(a));
        archive_entry_set_pathname(e, "data");
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_size(e, (la_int64_t)size);
        if (archive_write_header(a, e) != ARCHIVE_OK ||
            archive_write_data(a, data, size) != (la_ssize_t)size ||
            archive_write_close(a) != ARCHIVE_OK)
                TEST_FAIL("libarchive %s write: %s", filter, archive_error_string(a));
        archive_entry_free(e);
        archive_write_free(a);
        g_byte_array_set_size(out, (guint)used);
        return out;
}

/* A bzImage: 1 setup sector after the boot sector, header "HdrS" version
 * 2.15, kernel_version string (NULL = pointer 0), then a 64-byte stand-in
 * for the decompressor, the payload and its le32 inflated size. */
static inline GByteArray *fx_bzimage(const GByteArray *payload, uint32_t inflated, const char *version) {
        GByteArray *b = g_byte_array_new();
        size_t pm = 2 * 512, p;

        fx_grow(b, pm + 64);
        b->data[0x1f1] = 1;                  /* setup_sects */
        b->data[0x1fe] = 0x55;
        b->data[0x1ff] = 0xaa;
        memcpy(b->data + 0x202, "HdrS", 4);
        fx_put16(b, 0x206, 0x020f);
        if (version) {
                memcpy(b->data + 0x300, version, strlen(version) + 1);
                fx_put16(b, 0x20e, 0x100);   /* string at 0x200 + 0x100 */
        }
        p = fx_grow(b, payload->len + 4);
        memcpy(b->data + p, payload->data, payload->len);
        fx_put32(b, p + payload->len, inflated);
        fx_put32(b, 0x248, 64);              /* payload_offset from protected-mode start */
        fx_put32(b, 0x24c, payload->len + 4);
        return b;
}

#define FX_RELEASE "6.1.0-99-kbtest"
#define FX_VERSION FX_RELEASE " (kbench@test) #1 SMP PREEMPT_DYNAMIC Debian 6.1.0-99"

/* A complete bzImage of a PVH-capable kernel with FX_RELEASE. */
static inline GByteArray *fx_kernel(const char *filter) {
        GByteArray *elf = fx_elf(1, "Linux version " FX_VERSION "\n");
        GByteArray *z = fx_compress(elf->data, elf->len, filter);
        GByteArray *img = fx_bzimage(z, elf->len, FX_VERSION);
        g_byte_array_unref(elf);
        g_byte_array_unref(z);
        return img;
}

/* An ELF64 relocatable module: .modinfo "name=<name>", exports (may be
 * NULL) in __ksymtab_strings, needs (may be NULL) as an undefined global in
 * .symtab. Section order: null, .modinfo, __ksymtab_strings, .symtab,
 * .strtab, .shstrtab. */
static inline GByteArray *fx_module(const char *name, const char *exports, const char *needs) {
        GByteArray *b = g_byte_array_new();
        g_autofree char *modinfo = g_strdup_printf("license=GPL%cname=%s%cvermagic=" FX_RELEASE " SMP mod_unload%c",
                                                   0, name, 0, 0);
        size_t milen = strlen("license=GPL") + 1 + strlen("name=") + strlen(name) + 1 +
                       strlen("vermagic=" FX_RELEASE " SMP mod_unload") + 1;
        static const char shstr[] = "\0.modinfo\0__ksymtab_strings\0.symtab\0.strtab\0.shstrtab\0";
        size_t o_mi, o_ks, o_sym, o_str, o_sh, o_shdr, kslen = exports ? strlen(exports) + 1 : 1;
        size_t strlen_ = 1 + (needs ? strlen(needs) + 1 : 0);
        int nsym = needs ? 2 : 1;

        fx_grow(b, 64);
        memcpy(b->data, "\177ELF\2\1\1", 7);
        fx_put16(b, 16, 1);                  /* ET_REL */
        fx_put16(b, 18, 62);
        fx_put32(b, 20, 1);
        fx_put16(b, 52, 64);
        o_mi = fx_grow(b, milen);
        memcpy(b->data + o_mi, modinfo, milen);
        o_ks = fx_grow(b, kslen);
        if (exports)
                memcpy(b->data + o_ks, exports, kslen);
        o_sym = (fx_grow(b, (size_t)nsym * 24 + 8) + 7) & ~(size_t)7;
        if (needs) {
                fx_put32(b, o_sym + 24, 1);              /* st_name */
                b->data[o_sym + 24 + 4] = 0x10;          /* STB_GLOBAL, STT_NOTYPE */
                fx_put16(b, o_sym + 24 + 6, 0);          /* SHN_UNDEF */
        }
        o_str = fx_grow(b, strlen_);
        if (needs)
                memcpy(b->data + o_str + 1, needs, strlen(needs) + 1);
        o_sh = fx_grow(b, sizeof(shstr));
        memcpy(b->data + o_sh, shstr, sizeof(shstr));
        o_shdr = (fx_grow(b, 6 * 64 + 8) + 7) & ~(size_t)7;
        fx_put64(b, 40, o_shdr);                 /* e_shoff */
        fx_put16(b, 58, 64);                     /* e_shentsize */
        fx_put16(b, 60, 6);                      /* e_shnum */
        fx_put16(b, 62, 5);                      /* e_shstrndx */
        struct { uint32_t name, type; uint64_t flags, off, size; uint32_t link, info; uint64_t align, entsize; } sh[6] = {
                { 0, 0, 0, 0, 0, 0, 0, 0, 0 },
                { 1, 1, 2, o_mi, milen, 0, 0, 1, 0 },              /* .modinfo PROGBITS ALLOC */
                { 10, 1, 2, o_ks, kslen, 0, 0, 1, 0 },             /* __ksymtab_strings */
                { 28, 2, 0, o_sym, (uint64_t)nsym * 24, 4, 1, 8, 24 }, /* .symtab -> .strtab */
                { 36, 3, 0, o_str, strlen_, 0, 0, 1, 0 },          /* .strtab */
                { 44, 3, 0, o_sh, sizeof(shstr), 0, 0, 1, 0 },     /* .shstrtab */
        };
        for (int i = 0; i < 6; i++) {
                size_t h = o_shdr + (size_t)i * 64;
                fx_put32(b, h, sh[i].name);
                fx_put32(b, h + 4, sh[i].type);
                fx_put64(b, h + 8, sh[i].flags);
                fx_put64(b, h + 24, sh[i].off);
                fx_put64(b, h + 32, sh[i].size);
                fx_put32(b, h + 40, sh[i].link);
                fx_put32(b, h + 44, sh[i].info);
                fx_put64(b, h + 48, sh[i].align);
                fx_put64(b, h + 56, sh[i].entsize);
        }
        return b;
}

struct fx_file {
        const char *path;            /* member name, "./boot/..." */
        const GByteArray *data;      /* NULL = directory */
        const char *link;            /* symlink target instead of data */
};

/* A tar (filter xz) of files, in memory. */
static inline GByteArray *fx_tar_xz(const struct fx_file *files, size_t n) {
        struct archive *a = archive_write_new();
        size_t cap = 1 << 22, used = 0;
        GByteArray *out = g_byte_array_new();

        g_byte_array_set_size(out, (guint)cap);
        archive_write_add_filter_xz(a);
        archive_write_set_format_gnutar(a);
        archive_write_set_bytes_in_last_block(a, 1);
        if (archive_write_open_memory(a, out->data, cap, &used) != ARCHIVE_OK)
                TEST_FAIL("tar writer: %s", archive_error_string(a));
        for (size_t i = 0; i < n; i++) {
                struct archive_entry *e = archive_entry_new();
                archive_entry_set_pathname(e, files[i].path);
                archive_entry_set_mtime(e, 1700000000, 0);
                if (files[i].link) {
                        archive_entry_set_filetype(e, AE_IFLNK);
                        archive_entry_set_perm(e, 0777);
                        archive_entry_set_symlink(e, files[i].link);
                } else if (!files[i].data) {
                        archive_entry_set_filetype(e, AE_IFDIR);
                        archive_entry_set_perm(e, 0755);
                } else {
                        archive_entry_set_filetype(e, AE_IFREG);
                        archive_entry_set_perm(e, 0644);
                        archive_entry_set_size(e, files[i].data->len);
                }
                if (archive_write_header(a, e) != ARCHIVE_OK)
                        TEST_FAIL("tar header %s: %s", files[i].path, archive_error_string(a));
                if (files[i].data && !files[i].link &&
                    archive_write_data(a, files[i].data->data, files[i].data->len) != (la_ssize_t)files[i].data->len)
                        TEST_FAIL("tar data %s: %s", files[i].path, archive_error_string(a));
                archive_entry_free(e);
        }
        if (archive_write_close(a) != ARCHIVE_OK)
                TEST_FAIL("tar close: %s", archive_error_string(a));
        archive_write_free(a);
        g_byte_array_set_size(out, (guint)used);
        return out;
}

/* Write a .deb (ar: debian-binary, control.tar.xz, data.tar.xz) to path. */
static inline void fx_write_deb(const char *path, const GByteArray *data_tar_xz) {
        struct archive *a = archive_write_new();
        GByteArray *ver = g_byte_array_new();
        GByteArray *control = g_byte_array_new();
        const char *ctl = "Package: linux-image-" FX_RELEASE "\nVersion: 6.1.0-99\nArchitecture: amd64\n";
        GByteArray *ctl_data = g_byte_array_new();
        struct fx_file cf[] = { { "./control", ctl_data, NULL } };

        g_byte_array_append(ver, (const guint8 *)"2.0\n", 4);
        g_byte_array_append(ctl_data, (const guint8 *)ctl, (guint)strlen(ctl));
        g_byte_array_unref(control);
        control = fx_tar_xz(cf, 1);
        const struct { const char *name; const GByteArray *d; } m[] = {
                { "debian-binary", ver }, { "control.tar.xz", control }, { "data.tar.xz", data_tar_xz },
        };
        archive_write_set_format_ar_bsd(a);
        if (archive_write_open_filename(a, path) != ARCHIVE_OK)
                TEST_FAIL("%s: %s", path, archive_error_string(a));
        for (size_t i = 0; i < 3; i++) {
                struct archive_entry *e = archive_entry_new();
                archive_entry_set_pathname(e, m[i].name);
                archive_entry_set_filetype(e, AE_IFREG);
                archive_entry_set_perm(e, 0644);
                archive_entry_set_size(e, m[i].d->len);
                if (archive_write_header(a, e) != ARCHIVE_OK ||
                    archive_write_data(a, m[i].d->data, m[i].d->len) != (la_ssize_t)m[i].d->len)
                        TEST_FAIL("ar %s: %s", m[i].name, archive_error_string(a));
                archive_entry_free(e);
        }
        archive_write_close(a);
        archive_write_free(a);
        g_byte_array_unref(ver);
        g_byte_array_unref(control);
        g_byte_array_unref(ctl_data);
}
