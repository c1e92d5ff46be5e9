/* Unit tests for kernels/kimage: synthetic bzImages (setup header + xz /
 * gzip / zstd payload written by libarchive around a tiny ELF with or without
 * the PVH note), bare ELF input, and damaged or foreign files. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "kernels/kimage.h"
#include "kernels/test-fixtures.h"

TEST_MAIN();

static void check_payload(const char *filter) {
        GByteArray *elf = fx_elf(1, "Linux version " FX_VERSION "\n");
        GByteArray *z = fx_compress(elf->data, elf->len, filter);
        GByteArray *img = fx_bzimage(z, elf->len, FX_VERSION);
        struct kimage_info *info = NULL;
        struct kb_error err = { "" };

        if (kimage_parse(img->data, img->len, "img", &info, &err) < 0)
                TEST_FAIL("%s: %s", filter, err.msg);
        ASSERT_STREQ(info->release, FX_RELEASE);
        ASSERT_STREQ(info->version, FX_VERSION);
        ASSERT_STREQ(info->compression, filter);
        ASSERT_EQ(info->boot_protocol, 0x20f);
        ASSERT_EQ(info->is_elf, 0);
        ASSERT_EQ(info->pvh, 1);
        ASSERT_EQ(info->pvh_entry, 0x1000850);
        ASSERT_EQ(info->vmlinux_size, elf->len);
        ASSERT_TRUE(memcmp(info->vmlinux, elf->data, elf->len) == 0);
        kimage_info_free(info);
        g_byte_array_unref(elf);
        g_byte_array_unref(z);
        g_byte_array_unref(img);
}

TEST(bzimage_xz) { check_payload("xz"); }
TEST(bzimage_gzip) { check_payload("gzip"); }
TEST(bzimage_zstd) { check_payload("zstd"); }

TEST(bzimage_without_pvh_note) {
        GByteArray *elf = fx_elf(0, "Linux version " FX_VERSION "\n");
        GByteArray *z = fx_compress(elf->data, elf->len, "xz");
        GByteArray *img = fx_bzimage(z, elf->len, FX_VERSION);
        struct kimage_info *info = NULL;

        ASSERT_EQ(kimage_parse(img->data, img->len, "img", &info, NULL), 0);
        ASSERT_EQ(info->pvh, 0);
        ASSERT_TRUE(info->vmlinux != NULL);
        kimage_info_free(info);
        g_byte_array_unref(elf);
        g_byte_array_unref(z);
        g_byte_array_unref(img);
}

TEST(version_from_banner_when_pointer_is_zero) {
        GByteArray *elf = fx_elf(1, "Linux version 5.10.0-7-amd64 (x@y) #1 SMP\n");
        GByteArray *z = fx_compress(elf->data, elf->len, "gzip");
        GByteArray *img = fx_bzimage(z, elf->len, NULL);
        struct kimage_info *info = NULL;

        ASSERT_EQ(kimage_parse(img->data, img->len, "img", &info, NULL), 0);
        ASSERT_STREQ(info->release, "5.10.0-7-amd64");
        ASSERT_STREQ(info->version, "5.10.0-7-amd64 (x@y) #1 SMP");
        kimage_info_free(info);
        g_byte_array_unref(elf);
        g_byte_array_unref(z);
        g_byte_array_unref(img);
}

TEST(bare_elf_vmlinux) {
        GByteArray *elf = fx_elf(1, "Linux version " FX_VERSION "\n");
        struct kimage_info *info = NULL;

        ASSERT_EQ(kimage_parse(elf->data, elf->len, "vmlinux", &info, NULL), 0);
        ASSERT_EQ(info->is_elf, 1);
        ASSERT_EQ(info->pvh, 1);
        ASSERT_STREQ(info->release, FX_RELEASE);
        ASSERT_TRUE(info->vmlinux == NULL);
        ASSERT_TRUE(info->compression == NULL);
        kimage_info_free(info);
        g_byte_array_unref(elf);
}

TEST(not_a_kernel) {
        static const char text[] = "#!/bin/sh\necho this is not a kernel, but it is long enough to have a header area\n";
        GByteArray *elf = fx_elf(1, NULL);
        struct kimage_info *info = NULL;
        struct kb_error err = { "" };

        ASSERT_EQ(kimage_parse((const uint8_t *)text, sizeof(text), "notes.txt", &info, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "notes.txt: not a kernel image (no bzImage setup header, not an ELF vmlinux)");
        ASSERT_EQ(kimage_parse((const uint8_t *)"", 0, "empty", &info, &err), -EINVAL);
        /* an ELF that is not a kernel (no banner), e.g. /bin/ls */
        ASSERT_EQ(kimage_parse(elf->data, elf->len, "ls", &info, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "ls: not a kernel image") == err.msg);
        ASSERT_TRUE(info == NULL);
        g_byte_array_unref(elf);
}

TEST(damaged_bzimages) {
        GByteArray *img = fx_kernel("xz");
        struct kimage_info *info = NULL;
        struct kb_error err = { "" };
        size_t payload = 2 * 512 + 64;

        /* truncated in the middle of the payload */
        ASSERT_EQ(kimage_parse(img->data, payload + 40, "cut", &info, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "outside the file") != NULL);
        /* payload length beyond the file */
        GByteArray *big = g_byte_array_new();
        g_byte_array_append(big, img->data, img->len);
        fx_put32(big, 0x24c, 0xfffffff0u);
        ASSERT_EQ(kimage_parse(big->data, big->len, "big", &info, &err), -EBADMSG);
        /* a corrupted xz stream */
        fx_put32(big, 0x24c, img->len - payload);
        memcpy(big->data, img->data, 0x250);
        for (size_t i = payload + 40; i < payload + 80; i++)
                big->data[i] ^= 0x5a;
        ASSERT_TRUE(kimage_parse(big->data, big->len, "bad", &info, &err) < 0);
        ASSERT_TRUE(strstr(err.msg, "bad: bzImage payload") == err.msg);
        /* setup larger than the file */
        ASSERT_EQ(kimage_parse(img->data, 0x300, "short", &info, &err), -EBADMSG);
        /* a boot protocol without payload fields */
        memcpy(big->data, img->data, img->len);
        fx_put16(big, 0x206, 0x0204);
        ASSERT_EQ(kimage_parse(big->data, big->len, "old", &info, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "2.04") != NULL);
        ASSERT_TRUE(info == NULL);
        g_byte_array_unref(big);
        g_byte_array_unref(img);
}

TEST(payload_that_is_not_an_elf) {
        static const char junk[] = "not an elf, but compressed nonetheless";
        GByteArray *raw = g_byte_array_new();
        g_byte_array_append(raw, (const guint8 *)junk, sizeof(junk));
        GByteArray *z = fx_compress(raw->data, raw->len, "gzip");
        GByteArray *img = fx_bzimage(z, raw->len, FX_VERSION);
        struct kimage_info *info = NULL;
        struct kb_error err = { "" };

        ASSERT_EQ(kimage_parse(img->data, img->len, "img", &info, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "does not inflate to an ELF") != NULL);
        g_byte_array_unref(raw);
        g_byte_array_unref(z);
        g_byte_array_unref(img);
}

TEST(elf_note_bounds) {
        GByteArray *elf = fx_elf(1, NULL);
        int pvh = -1;
        uint64_t entry = 0;

        ASSERT_EQ(kimage_elf_pvh(elf->data, elf->len, &pvh, &entry, NULL), 0);
        ASSERT_EQ(pvh, 1);
        /* first note claims a huge name: the walk stops, no PVH, no overread */
        fx_put32(elf, 64 + 56, 0x7ffffff0u);
        ASSERT_EQ(kimage_elf_pvh(elf->data, elf->len, &pvh, &entry, NULL), 0);
        ASSERT_EQ(pvh, 0);
        /* segment extends past the end of the file: ignored */
        fx_put32(elf, 64 + 56, 4);
        fx_put64(elf, 64 + 32, elf->len);
        ASSERT_EQ(kimage_elf_pvh(elf->data, elf->len, &pvh, &entry, NULL), 0);
        ASSERT_EQ(pvh, 0);
        /* too many program headers for the file */
        fx_put16(elf, 56, 60000);
        ASSERT_EQ(kimage_elf_pvh(elf->data, elf->len, &pvh, &entry, NULL), -EINVAL);
        /* truncated ELF header */
        ASSERT_EQ(kimage_elf_pvh(elf->data, 40, &pvh, &entry, NULL), -EINVAL);
        g_byte_array_unref(elf);
}

TEST(decompress_limit) {
        GByteArray *zeros = g_byte_array_new();
        fx_grow(zeros, 1 << 20);
        GByteArray *z = fx_compress(zeros->data, zeros->len, "xz");
        uint8_t *out = NULL;
        size_t n = 0;
        const char *f = NULL;
        struct kb_error err = { "" };

        ASSERT_EQ(kimage_decompress(z->data, z->len, 1 << 16, &out, &n, &f, &err), -EFBIG);
        ASSERT_TRUE(out == NULL);
        ASSERT_EQ(kimage_decompress(z->data, z->len, 1 << 20, &out, &n, &f, &err), 0);
        ASSERT_EQ(n, 1 << 20);
        ASSERT_STREQ(f, "xz");
        free(out);
        /* uncompressed input is refused: no filter recognised */
        ASSERT_EQ(kimage_decompress(zeros->data, 4096, 1 << 20, &out, &n, &f, &err), -EBADMSG);
        g_byte_array_unref(zeros);
        g_byte_array_unref(z);
}

TEST(inspect_file) {
        GByteArray *img = fx_kernel("zstd");
        g_autofree char *dir = g_dir_make_tmp("kimage-XXXXXX", NULL);
        g_autofree char *path = g_build_filename(dir, "vmlinuz", NULL);
        struct kimage_info *info = NULL;
        struct kb_error err = { "" };

        ASSERT_TRUE(g_file_set_contents(path, (const char *)img->data, img->len, NULL));
        ASSERT_EQ(kimage_inspect(path, &info, &err), 0);
        ASSERT_STREQ(info->release, FX_RELEASE);
        ASSERT_EQ(info->pvh, 1);
        kimage_info_free(info);
        g_unlink(path);
        ASSERT_EQ(kimage_inspect(path, &info, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, path) == err.msg);
        ASSERT_EQ(kimage_inspect(dir, &info, &err), -EINVAL);
        g_rmdir(dir);
        g_byte_array_unref(img);
}
