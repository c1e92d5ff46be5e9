/* Unit tests for kernels/kstore and kernels/deb: a synthetic linux-image
 * .deb (ar + data.tar.xz written by libarchive, with a PVH bzImage, config,
 * System.map, two .ko.xz modules where one needs a symbol the other exports,
 * a plain .ko, a symlink and docs) is imported into a temporary store; depmod
 * really runs. Then re-import, names, lookups, removal and the failure paths
 * that must leave the store unchanged. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <utime.h>

#include "common/util.h"
#include "kernels/deb.h"
#include "kernels/kstore.h"
#include "common/test-scratch.h"
#include "kernels/test-fixtures.h"

TEST_MAIN();

static const char *tmp(void) {
        return test_scratch("kstore-XXXXXX");
}

static GByteArray *bytes(const char *s) {
        GByteArray *b = g_byte_array_new();
        g_byte_array_append(b, (const guint8 *)s, (guint)strlen(s));
        return b;
}

#define MODDIR "./lib/modules/" FX_RELEASE "/"

/* The fixture package; written once. */
static const char *fixture_deb(void) {
        static char *path;
        if (path)
                return path;
        GByteArray *img = fx_kernel("xz");
        GByteArray *config = bytes("CONFIG_PVH=y\nCONFIG_EXT4_FS=m\n");
        GByteArray *map = bytes("ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n");
        GByteArray *a = fx_module("kbt_a", NULL, "kbt_b_sym");
        GByteArray *b = fx_module("kbt_b", "kbt_b_sym", NULL);
        GByteArray *c = fx_module("kbt_c", NULL, NULL);
        GByteArray *az = fx_compress(a->data, a->len, "xz");
        GByteArray *bz = fx_compress(b->data, b->len, "xz");
        GByteArray *order = bytes("kernel/drivers/kbt/kbt_a.ko\nkernel/drivers/kbt/kbt_b.ko\nkernel/fs/kbt_c.ko\n");
        GByteArray *doc = bytes("docs\n");
        const struct fx_file files[] = {
                { "./", NULL, NULL },
                { "./boot/", NULL, NULL },
                { "./boot/System.map-" FX_RELEASE, map, NULL },
                { "./boot/config-" FX_RELEASE, config, NULL },
                { "./boot/vmlinuz-" FX_RELEASE, img, NULL },
                { "./lib/", NULL, NULL },
                { "./lib/modules/", NULL, NULL },
                { MODDIR, NULL, NULL },
                { MODDIR "build", NULL, "/usr/src/linux-headers-" FX_RELEASE },
                { MODDIR "kernel/", NULL, NULL },
                { MODDIR "kernel/drivers/kbt/kbt_a.ko.xz", az, NULL },
                { MODDIR "kernel/drivers/kbt/kbt_b.ko.xz", bz, NULL },
                { MODDIR "kernel/fs/kbt_c.ko", c, NULL },
                { MODDIR "modules.order", order, NULL },
                { "./usr/share/doc/linux-image-" FX_RELEASE "/changelog", doc, NULL },
        };
        GByteArray *tar = fx_tar_xz(files, ELEMENTSOF(files));
        path = g_build_filename(tmp(), "linux-image-" FX_RELEASE "_amd64.deb", NULL);
        fx_write_deb(path, tar);
        GByteArray *all[] = { img, config, map, a, b, c, az, bz, order, doc, tar };
        for (size_t i = 0; i < ELEMENTSOF(all); i++)
                g_byte_array_unref(all[i]);
        return path;
}

static struct kstore *open_store(const char *sub) {
        g_autofree char *root = g_build_filename(tmp(), sub, NULL);
        struct kstore *s = NULL;
        struct kb_error err = { "" };

        if (kstore_open(root, &s, &err) < 0)
                TEST_FAIL("%s", err.msg);
        return s;
}

/* Entries of a directory, for "nothing changed" checks. */
static int count_entries(const char *dir) {
        GDir *d = g_dir_open(dir, 0, NULL);
        int n = 0;
        while (d && g_dir_read_name(d))
                n++;
        if (d)
                g_dir_close(d);
        return n;
}

static int collect_progress(void *ctx, const struct kb_event *ev) {
        ASSERT_EQ(ev->kind, KB_EVENT_PROGRESS);
        ASSERT_EQ(ev->origin, KB_ORIGIN_KERNEL);
        g_string_append_printf(ctx, "%s\n", ev->text);
        return 0;
}

TEST(deb_extract_direct) {
        g_autofree char *boot = g_build_filename(tmp(), "x/boot", NULL);
        g_autofree char *mods = g_build_filename(tmp(), "x/mods", NULL);
        struct deb_result *r = NULL;
        struct kb_error err = { "" };
        g_autofree char *dep = NULL, *ko = NULL;
        uint8_t head[64];
        FILE *f = fopen(fixture_deb(), "rb");

        ASSERT_TRUE(f && fread(head, 1, sizeof(head), f) == sizeof(head));
        fclose(f);
        ASSERT_TRUE(deb_sniff(head, sizeof(head)));
        ASSERT_TRUE(!deb_sniff((const uint8_t *)"!<arch>\nfoo", 11));
        if (deb_extract(fixture_deb(), boot, mods, NULL, &r, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_STREQ(r->release, FX_RELEASE);
        ASSERT_EQ(r->n_modules, 3);
        ASSERT_EQ(r->n_decompressed, 2);
        ASSERT_EQ(r->n_skipped, 1);        /* the build symlink */
        ASSERT_TRUE(r->config_path && r->system_map_path);
        ASSERT_EQ(deb_depmod(mods, r->release, &err), 0);
        dep = g_build_filename(r->modules_dir, "modules.dep", NULL);
        ASSERT_TRUE(g_file_get_contents(dep, &ko, NULL, NULL));
        /* depmod resolved kbt_a's undefined symbol to kbt_b's export */
        ASSERT_TRUE(strstr(ko, "kernel/drivers/kbt/kbt_a.ko: kernel/drivers/kbt/kbt_b.ko\n") != NULL);
        ASSERT_TRUE(strstr(ko, "kernel/drivers/kbt/kbt_b.ko:\n") != NULL);
        ASSERT_TRUE(strstr(ko, "kernel/fs/kbt_c.ko:\n") != NULL);
        deb_result_free(r);
}

TEST(add_deb) {
        struct kstore *s = open_store("s1");
        struct kstore_kernel *k = NULL;
        struct kb_error err = { "" };
        GString *prog = g_string_new(NULL);
        int existed = -1;
        g_autofree char *ko = NULL, *dep = NULL, *koxz = NULL, *link = NULL, *doc = NULL, *elf = NULL;
        gsize elf_len = 0;
        const struct kb_sink sink = { collect_progress, prog };

        kstore_set_events(s, &sink);
        if (kstore_add(s, fixture_deb(), NULL, &k, &existed, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(existed, 0);
        ASSERT_STREQ(k->name, FX_RELEASE);
        ASSERT_STREQ(k->release, FX_RELEASE);
        ASSERT_STREQ(k->version, FX_VERSION);
        ASSERT_EQ(strlen(k->id), 64);
        ASSERT_EQ(k->pvh, 1);
        ASSERT_EQ(k->n_modules, 3);
        ASSERT_TRUE(k->vmlinux_path && g_file_get_contents(k->vmlinux_path, &elf, &elf_len, NULL));
        ASSERT_TRUE(elf_len > 64 && memcmp(elf, "\177ELF", 4) == 0);
        ASSERT_TRUE(k->config_path && g_file_test(k->config_path, G_FILE_TEST_IS_REGULAR));
        ASSERT_TRUE(k->system_map_path && g_file_test(k->system_map_path, G_FILE_TEST_IS_REGULAR));
        ASSERT_TRUE(g_str_has_suffix(k->modules_dir, "/modules/lib/modules/" FX_RELEASE));
        ko = g_build_filename(k->modules_dir, "kernel/drivers/kbt/kbt_a.ko", NULL);
        koxz = g_strconcat(ko, ".xz", NULL);
        ASSERT_TRUE(g_file_test(ko, G_FILE_TEST_IS_REGULAR));
        ASSERT_TRUE(!g_file_test(koxz, G_FILE_TEST_EXISTS));
        dep = g_build_filename(k->modules_dir, "modules.dep", NULL);
        ASSERT_TRUE(g_file_test(dep, G_FILE_TEST_IS_REGULAR));
        link = g_build_filename(k->modules_dir, "build", NULL);
        ASSERT_TRUE(!g_file_test(link, G_FILE_TEST_EXISTS));
        doc = g_build_filename(k->dir, "usr", NULL);
        ASSERT_TRUE(!g_file_test(doc, G_FILE_TEST_EXISTS));
        ASSERT_TRUE(strstr(prog->str, "running depmod") != NULL);
        kstore_kernel_free(k);

        /* same package again: a no-op that stops before the modules */
        g_string_truncate(prog, 0);
        ASSERT_EQ(kstore_add(s, fixture_deb(), NULL, &k, &existed, &err), 0);
        ASSERT_EQ(existed, 1);
        ASSERT_STREQ(k->name, FX_RELEASE);
        ASSERT_TRUE(strstr(prog->str, "already in the store as " FX_RELEASE " (") != NULL);
        ASSERT_TRUE(strstr(prog->str, "depmod") == NULL);
        kstore_kernel_free(k);
        /* again with a new name: the store's name is said, and the new one as made */
        g_string_truncate(prog, 0);
        ASSERT_EQ(kstore_add(s, fixture_deb(), "again", &k, &existed, &err), 0);
        ASSERT_EQ(existed, 1);
        ASSERT_TRUE(strstr(prog->str, "already in the store as " FX_RELEASE " (") != NULL);
        ASSERT_TRUE(strstr(prog->str, "); named it again too") != NULL);
        kstore_kernel_free(k);
        g_string_truncate(prog, 0);
        ASSERT_EQ(kstore_add(s, fixture_deb(), "again", &k, &existed, &err), 0);
        ASSERT_TRUE(strstr(prog->str, "already in the store as again (") != NULL);
        ASSERT_TRUE(strstr(prog->str, "named it") == NULL);
        kstore_kernel_free(k);
        ASSERT_EQ(kstore_remove(s, "again", NULL, &err), 0);
        g_autofree char *root = g_build_filename(tmp(), "s1", NULL);
        ASSERT_EQ(count_entries(root), 2);        /* names/ and the one kernel, no staging left */
        g_string_free(prog, TRUE);
        kstore_free(s);
}

TEST(add_bzimage_names_find_remove) {
        struct kstore *s = open_store("s2");
        struct kstore_kernel *k = NULL, **v = NULL;
        struct kb_error err = { "" };
        g_autofree char *img = g_build_filename(tmp(), "bzImage", NULL);
        g_autofree char *img2 = g_build_filename(tmp(), "bzImage-gz", NULL);
        g_autofree char *id = NULL, *dir = NULL;
        GByteArray *b = fx_kernel("zstd"), *b2 = fx_kernel("gzip");
        size_t n = 0;
        int existed = -1;

        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, b->len, NULL));
        ASSERT_TRUE(g_file_set_contents(img2, (const char *)b2->data, b2->len, NULL));
        ASSERT_EQ(kstore_add(s, img, "tiny", &k, &existed, &err), 0);
        ASSERT_EQ(existed, 0);
        ASSERT_STREQ(k->name, "tiny");
        ASSERT_TRUE(k->modules_dir == NULL && k->config_path == NULL);
        ASSERT_EQ(k->pvh, 1);
        ASSERT_TRUE(g_file_test(k->vmlinux_path, G_FILE_TEST_IS_REGULAR));
        id = g_strdup(k->id);
        dir = g_strdup(k->dir);
        kstore_kernel_free(k);

        /* same image, second name: an alias to the same directory */
        ASSERT_EQ(kstore_add(s, img, "tiny2", &k, &existed, &err), 0);
        ASSERT_EQ(existed, 1);
        ASSERT_STREQ(k->id, id);
        kstore_kernel_free(k);
        /* a different image under a taken name: refused, nothing added */
        ASSERT_EQ(kstore_add(s, img2, "tiny", &k, &existed, &err), -EEXIST);
        ASSERT_TRUE(strstr(err.msg, "'tiny' is already taken") != NULL);
        ASSERT_EQ(kstore_list(s, &v, &n, &err), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(v[0]->name, "tiny");
        ASSERT_STREQ(v[1]->name, "tiny2");
        kstore_kernel_list_free(v, n);
        g_autofree char *root = g_build_filename(tmp(), "s2", NULL);
        ASSERT_EQ(count_entries(root), 2);
        ASSERT_EQ(kstore_add(s, img2, "bad/name", &k, &existed, &err), -EINVAL);

        /* lookups: name, id prefix, unknown */
        ASSERT_EQ(kstore_find(s, "tiny2", &k, &err), 0);
        ASSERT_STREQ(k->id, id);
        kstore_kernel_free(k);
        char prefix[13];
        memcpy(prefix, id, 12);
        prefix[12] = 0;
        ASSERT_EQ(kstore_find(s, prefix, &k, &err), 0);
        ASSERT_STREQ(k->name, "tiny");
        kstore_kernel_free(k);
        ASSERT_EQ(kstore_find(s, "6.1.0-1-amd64", &k, &err), -ENOENT);
        ASSERT_STREQ(err.msg, "no kernel '6.1.0-1-amd64' in the store (known: tiny, tiny2)");

        /* remove: the image stays while a name points at it */
        g_autofree char *gone = NULL;
        ASSERT_EQ(kstore_remove(s, "tiny", &gone, &err), 0);
        ASSERT_TRUE(gone == NULL);
        ASSERT_TRUE(g_file_test(dir, G_FILE_TEST_IS_DIR));
        ASSERT_EQ(kstore_remove(s, "tiny", NULL, &err), -ENOENT);
        ASSERT_EQ(kstore_remove(s, "tiny2", &gone, &err), 0);
        ASSERT_STREQ(gone, id);
        ASSERT_TRUE(!g_file_test(dir, G_FILE_TEST_EXISTS));
        ASSERT_EQ(kstore_list(s, &v, &n, &err), 0);
        ASSERT_EQ(n, 0);
        kstore_kernel_list_free(v, n);
        g_byte_array_unref(b);
        g_byte_array_unref(b2);
        kstore_free(s);
}

TEST(not_a_kernel_changes_nothing) {
        struct kstore *s = open_store("s3");
        struct kstore_kernel *k = NULL;
        struct kb_error err = { "" };
        g_autofree char *txt = g_build_filename(tmp(), "README.txt", NULL);
        g_autofree char *cut = g_build_filename(tmp(), "cut.deb", NULL);
        g_autofree char *big = g_build_filename(tmp(), "big.elf", NULL);
        GString *prog = g_string_new(NULL);
        g_autofree char *root = g_build_filename(tmp(), "s3", NULL);
        g_autofree char *deb = NULL;
        g_autofree char *msg = NULL;
        gsize len;
        int existed = -1;
        const struct kb_sink sink = { collect_progress, prog };

        ASSERT_TRUE(g_file_set_contents(txt, "hello, this is a text file and no kernel at all\n", -1, NULL));
        kstore_set_events(s, &sink);
        ASSERT_EQ(kstore_add(s, txt, NULL, &k, &existed, &err), -EINVAL);
        msg = g_strdup_printf("%s: not a kernel image (not a Debian package, no bzImage setup header, not an ELF "
                              "vmlinux)", txt);
        ASSERT_STREQ(err.msg, msg);
        ASSERT_TRUE(strchr(err.msg, '\n') == NULL);
        ASSERT_EQ(count_entries(root), 1);        /* only names/ */
        /* Refused on its first bytes: nothing was copied, nothing inspected. */
        ASSERT_STREQ(prog->str, "");
        kstore_set_events(s, NULL);
        /* An ELF file larger than any kernel: refused before a copy (a
         * sparse file of 600 MiB would have been written out in full). */
        {
                GByteArray *elf = fx_elf(0, NULL);
                FILE *f = fopen(big, "wb");

                ASSERT_TRUE(f && fwrite(elf->data, 1, elf->len, f) == elf->len);
                ASSERT_EQ(ftruncate(fileno(f), (off_t)600 << 20), 0);
                fclose(f);
                g_byte_array_unref(elf);
                ASSERT_EQ(kstore_add(s, big, NULL, &k, &existed, &err), -EFBIG);
                ASSERT_TRUE(strstr(err.msg, "larger than any kernel image") != NULL);
                ASSERT_EQ(count_entries(root), 1);
                unlink(big);
        }

        /* An ELF vmlinux without a PVH note: QEMU cannot boot it, so it
         * is refused at the import, not at every run; nothing is kept. */
        {
                GByteArray *elf = fx_elf(0, "Linux version " FX_VERSION "\n");

                ASSERT_TRUE(g_file_set_contents(big, (const char *)elf->data, elf->len, NULL));
                g_byte_array_unref(elf);
                ASSERT_EQ(kstore_add(s, big, NULL, &k, &existed, &err), -EINVAL);
                ASSERT_TRUE(strstr(err.msg, "big.elf: an ELF vmlinux without a PVH note") != NULL);
                ASSERT_TRUE(strstr(err.msg, "give its bzImage") != NULL);
                ASSERT_EQ(count_entries(root), 1);
                unlink(big);
        }

        /* a truncated package */
        ASSERT_TRUE(g_file_get_contents(fixture_deb(), &deb, &len, NULL));
        ASSERT_TRUE(g_file_set_contents(cut, deb, (gssize)(len / 2), NULL));
        ASSERT_TRUE(kstore_add(s, cut, NULL, &k, &existed, &err) < 0);
        ASSERT_TRUE(strstr(err.msg, cut) != NULL);
        ASSERT_EQ(count_entries(root), 1);
        ASSERT_EQ(kstore_add(s, "/nonexistent/vmlinuz", NULL, &k, &existed, &err), -ENOENT);
        ASSERT_EQ(kstore_add(s, tmp(), NULL, &k, &existed, &err), -EINVAL);
        ASSERT_EQ(count_entries(root), 1);
        g_string_free(prog, TRUE);
        kstore_free(s);
}

/* New names never read as an id prefix; a name from an older store that
 * does is reported as ambiguous, not resolved to one of the two. */
TEST(names_and_id_prefixes_are_kept_apart) {
        struct kstore *s = open_store("s4");
        struct kstore_kernel *k = NULL;
        struct kb_error err = { "" };
        g_autofree char *img = g_build_filename(tmp(), "bzImage-s4", NULL);
        g_autofree char *img2 = g_build_filename(tmp(), "bzImage-s4b", NULL);
        g_autofree char *id2 = NULL, *link = NULL, *target = NULL, *prefix = NULL;
        GByteArray *b = fx_kernel("zstd"), *b2 = fx_kernel("gzip");
        int existed;

        ASSERT_TRUE(kstore_name_new_valid("6.1.0-47-amd64"));
        ASSERT_TRUE(kstore_name_new_valid("abc1234"));                /* 7 hex digits: no id prefix */
        ASSERT_TRUE(kstore_name_new_valid("ABCDEF12"));               /* ids are lowercase */
        ASSERT_TRUE(!kstore_name_new_valid("f61faf3c"));
        ASSERT_TRUE(kstore_name_valid("f61faf3c"));
        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, b->len, NULL));
        ASSERT_TRUE(g_file_set_contents(img2, (const char *)b2->data, b2->len, NULL));
        ASSERT_EQ(kstore_add(s, img2, "other", &k, &existed, &err), 0);
        id2 = g_strdup(k->id);
        kstore_kernel_free(k);
        prefix = g_strndup(id2, 8);
        ASSERT_EQ(kstore_add(s, img, prefix, &k, &existed, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "read as a kernel id") != NULL);
        /* As an older kbench could have named it. */
        ASSERT_EQ(kstore_add(s, img, "first", &k, &existed, &err), 0);
        link = g_build_filename(tmp(), "s4", "names", prefix, NULL);
        target = g_strdup_printf("../%s", k->id);
        kstore_kernel_free(k);
        ASSERT_EQ(symlink(target, link), 0);
        ASSERT_EQ(kstore_find(s, prefix, &k, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "is the name of kernel") && strstr(err.msg, "id prefix of"));
        g_byte_array_unref(b);
        g_byte_array_unref(b2);
        kstore_free(s);
}

/* A name whose kernel is gone or unreadable is listed as damaged, with
 * why, and can be removed like any other. */
TEST(damaged_entries_are_listed_and_removable) {
        struct kstore *s = open_store("s5");
        struct kstore_kernel *k = NULL, **v = NULL;
        struct kstore_damaged *dm = NULL;
        struct kb_error err = { "" };
        g_autofree char *img = g_build_filename(tmp(), "bzImage-s5", NULL);
        g_autofree char *names = g_build_filename(tmp(), "s5", "names", NULL);
        g_autofree char *dangling = g_build_filename(names, "gone", NULL);
        g_autofree char *meta = NULL, *gone = NULL, *dir = NULL;
        GByteArray *b = fx_kernel("zstd");
        size_t n = 0, nd = 0;
        int existed;

        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, b->len, NULL));
        ASSERT_EQ(kstore_add(s, img, "broken", &k, &existed, &err), 0);
        meta = g_build_filename(k->dir, "kernel.json", NULL);
        dir = g_strdup(k->dir);
        kstore_kernel_free(k);
        ASSERT_TRUE(g_file_set_contents(meta, "{ not json", -1, NULL));
        ASSERT_EQ(symlink("../0000000000000000000000000000000000000000000000000000000000000000", dangling), 0);
        ASSERT_EQ(kstore_list_all(s, &v, &n, &dm, &nd, &err), 0);
        ASSERT_EQ(n, 0);
        ASSERT_EQ(nd, 2);
        for (size_t i = 0; i < nd; i++) {
                if (strcmp(dm[i].name, "gone") == 0)
                        ASSERT_TRUE(strstr(dm[i].why, "not in the store") != NULL);
                else {
                        ASSERT_STREQ(dm[i].name, "broken");
                        ASSERT_TRUE(strstr(dm[i].why, "kernel.json") != NULL);
                }
        }
        kstore_kernel_list_free(v, n);
        kstore_damaged_free(dm, nd);
        ASSERT_EQ(kstore_remove(s, "gone", &gone, &err), 0);
        ASSERT_STREQ(gone, "0000000000000000000000000000000000000000000000000000000000000000");
        g_clear_pointer(&gone, g_free);
        ASSERT_EQ(kstore_remove(s, "broken", &gone, &err), 0);
        ASSERT_TRUE(gone != NULL && strstr(dir, gone));
        ASSERT_TRUE(!g_file_test(dir, G_FILE_TEST_EXISTS));
        ASSERT_EQ(kstore_list_all(s, &v, &n, &dm, &nd, &err), 0);
        ASSERT_EQ(n + nd, 0);
        kstore_kernel_list_free(v, n);
        kstore_damaged_free(dm, nd);
        g_byte_array_unref(b);
        kstore_free(s);
}

/* An image directory no name points at is found (and only it: a named
 * one, a dangling name's missing id and staging directories are not), and
 * a kernel add of its image names it again. */
TEST(unnamed_images_are_found) {
        struct kstore *s = open_store("s9");
        struct kstore_kernel *k = NULL;
        struct kb_error err = { "" };
        g_autofree char *img = g_build_filename(tmp(), "bzImage-s9", NULL);
        g_autofree char *names = g_build_filename(tmp(), "s9", "names", NULL);
        g_autofree char *link = g_build_filename(names, "soon-gone", NULL);
        g_autofree char *dangling = g_build_filename(names, "gone", NULL);
        g_autofree char *id = NULL, *image = NULL;
        g_auto(GStrv) unnamed = NULL;
        GByteArray *b = fx_kernel("gzip");
        int existed;

        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, b->len, NULL));
        ASSERT_EQ(kstore_add(s, img, "soon-gone", &k, &existed, &err), 0);
        id = g_strdup(k->id);
        image = g_strdup(k->image_path);
        kstore_kernel_free(k);
        ASSERT_EQ(symlink("../1111111111111111111111111111111111111111111111111111111111111111", dangling), 0);
        ASSERT_EQ(kstore_unnamed(s, &unnamed, &err), 0);
        ASSERT_EQ(g_strv_length(unnamed), 0);
        g_clear_pointer(&unnamed, g_strfreev);
        ASSERT_EQ(unlink(link), 0);
        ASSERT_EQ(kstore_unnamed(s, &unnamed, &err), 0);
        ASSERT_EQ(g_strv_length(unnamed), 1);
        ASSERT_STREQ(unnamed[0], id);
        g_clear_pointer(&unnamed, g_strfreev);
        ASSERT_EQ(kstore_add(s, image, "again", &k, &existed, &err), 0);
        ASSERT_EQ(existed, 1);
        ASSERT_STREQ(k->id, id);
        kstore_kernel_free(k);
        ASSERT_EQ(kstore_unnamed(s, &unnamed, &err), 0);
        ASSERT_EQ(g_strv_length(unnamed), 0);
        g_byte_array_unref(b);
        kstore_free(s);
}

/* What a killed import left is removed by the next one; a live import's
 * directory (flock'ed) and a brand new one are not. */
TEST(staging_of_a_killed_import_is_reaped) {
        struct kstore *s = open_store("s6");
        struct kstore_kernel *k = NULL;
        struct kb_error err = { "" };
        g_autofree char *root = g_build_filename(tmp(), "s6", NULL);
        g_autofree char *dead = g_build_filename(root, ".tmp-add-dead01", NULL);
        g_autofree char *live = g_build_filename(root, ".tmp-add-live01", NULL);
        g_autofree char *young = g_build_filename(root, ".tmp-add-new001", NULL);
        g_autofree char *junk = g_build_filename(dead, "image", NULL);
        g_autofree char *img = g_build_filename(tmp(), "bzImage-s6", NULL);
        struct utimbuf old = { time(NULL) - 3600, time(NULL) - 3600 };
        GByteArray *b = fx_kernel("zstd");
        int fd, existed;

        ASSERT_EQ(mkdir(dead, 0700), 0);
        ASSERT_TRUE(g_file_set_contents(junk, "half an image", -1, NULL));
        ASSERT_EQ(mkdir(live, 0700), 0);
        ASSERT_EQ(mkdir(young, 0700), 0);
        ASSERT_EQ(utime(dead, &old), 0);
        ASSERT_EQ(utime(live, &old), 0);
        fd = open(live, O_RDONLY | O_DIRECTORY);
        ASSERT_TRUE(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, b->len, NULL));
        ASSERT_EQ(kstore_add(s, img, "k6", &k, &existed, &err), 0);
        kstore_kernel_free(k);
        ASSERT_TRUE(!g_file_test(dead, G_FILE_TEST_EXISTS));
        ASSERT_TRUE(g_file_test(live, G_FILE_TEST_IS_DIR));
        ASSERT_TRUE(g_file_test(young, G_FILE_TEST_IS_DIR));
        close(fd);
        g_byte_array_unref(b);
        kstore_free(s);
}

/* Right after a kill -9 of kernel add, its staging directory already holds
 * a half image: doctor names it at once (no minute to wait) and removes it
 * on request; a live import's and an empty new one are not named. */
TEST(staging_left_by_a_kill_is_named_at_once) {
        struct kstore *s = open_store("s7");
        struct kb_error err = { "" };
        g_autofree char *root = g_build_filename(tmp(), "s7", NULL);
        g_autofree char *dead = g_build_filename(root, ".tmp-add-kill01", NULL);
        g_autofree char *live = g_build_filename(root, ".tmp-add-live01", NULL);
        g_autofree char *young = g_build_filename(root, ".tmp-add-new001", NULL);
        g_autofree char *junk = g_build_filename(dead, "image", NULL);
        g_autofree char *busy = g_build_filename(live, "image", NULL);
        g_auto(GStrv) stale = NULL;
        int fd;

        ASSERT_EQ(mkdir(dead, 0700), 0);
        ASSERT_TRUE(g_file_set_contents(junk, "half an image", -1, NULL));
        ASSERT_EQ(mkdir(live, 0700), 0);
        ASSERT_TRUE(g_file_set_contents(busy, "an image on its way", -1, NULL));
        ASSERT_EQ(mkdir(young, 0700), 0);
        fd = open(live, O_RDONLY | O_DIRECTORY);
        ASSERT_TRUE(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
        ASSERT_EQ(kstore_staging_stale(s, &stale, &err), 0);
        ASSERT_TRUE(stale && stale[0] && !stale[1]);
        ASSERT_STREQ(stale[0], ".tmp-add-kill01");
        ASSERT_EQ(kstore_staging_remove(s, ".tmp-add-live01", &err), -EBUSY);
        ASSERT_EQ(kstore_staging_remove(s, "../s6", &err), -EBUSY);
        ASSERT_EQ(kstore_staging_remove(s, stale[0], &err), 0);
        ASSERT_TRUE(!g_file_test(dead, G_FILE_TEST_EXISTS));
        ASSERT_TRUE(g_file_test(live, G_FILE_TEST_IS_DIR));
        g_clear_pointer(&stale, g_strfreev);
        ASSERT_EQ(kstore_staging_stale(s, &stale, &err), 0);
        ASSERT_TRUE(stale == NULL);
        close(fd);
        kstore_free(s);
}
