/* Integration test (suite 'integration'): imports every real Debian
 * linux-image .deb in $KBENCH_DEBS (default /var/cache/kbench-debs) into a
 * temporary store and checks what the runner relies on: the release, a
 * vmlinux with the PVH note, modules.dep covering the guest's modules
 * (ata_piix, sd_mod, ext4, e1000), plain .ko files only, and that a second
 * import is a no-op. Fails when KBENCH_DEBS is set but holds no .deb; skips
 * only when it is unset and the default directory does not exist. */
#include <errno.h>
#include <ftw.h>
#include <glib.h>
#include <sys/stat.h>
#include <time.h>

#include "kernels/kimage.h"
#include "kernels/kstore.h"
#include "common/test-scratch.h"
#include "common/test.h"

TEST_MAIN();

static int compressed_ko;
static int count_compressed(const char *p, const struct stat *st, int flag, struct FTW *f) {
        if (flag == FTW_F && (g_str_has_suffix(p, ".ko.xz") || g_str_has_suffix(p, ".ko.zst") || g_str_has_suffix(p, ".ko.gz")))
                compressed_ko++;
        return 0;
}

static double now(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int progress(void *ctx, const struct kb_event *ev) {
        (void)ctx;
        fprintf(stderr, "    %s\n", ev->text);
        return 0;
}

TEST(import_real_debs) {
        const char *env = getenv("KBENCH_DEBS");
        const char *dir = env && *env ? env : "/var/cache/kbench-debs";
        g_autoptr(GPtrArray) debs = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *root = NULL;
        struct kstore *s = NULL;
        struct kb_error err = { "" };
        GDir *d = g_dir_open(dir, 0, NULL);
        const char *e;

        if (!d) {
                if (env && *env)
                        TEST_FAIL("KBENCH_DEBS=%s cannot be read", dir);
                TEST_SKIP("%s does not exist and KBENCH_DEBS is unset", dir);
        }
        while ((e = g_dir_read_name(d)))
                if (g_str_has_prefix(e, "linux-image-") && g_str_has_suffix(e, ".deb"))
                        g_ptr_array_add(debs, g_build_filename(dir, e, NULL));
        g_dir_close(d);
        if (debs->len == 0)
                TEST_FAIL("no linux-image-*.deb in %s", dir);

        root = g_dir_make_tmp("kbench-store-XXXXXX", NULL);
        ASSERT_TRUE(root != NULL);
        ASSERT_EQ(kstore_open(root, &s, &err), 0);
        kstore_set_events(s, &(const struct kb_sink){ progress, NULL });

        for (guint i = 0; i < debs->len; i++) {
                const char *deb = debs->pdata[i];
                g_autofree char *base = g_path_get_basename(deb);
                g_autofree char *depf = NULL, *dep = NULL;
                struct kstore_kernel *k = NULL, *k2 = NULL;
                struct kimage_info *vi = NULL;
                int existed = -1;
                double t0 = now(), t1, t2;

                fprintf(stderr, "  %s\n", base);
                if (kstore_add(s, deb, NULL, &k, &existed, &err) < 0)
                        TEST_FAIL("%s", err.msg);
                t1 = now();
                ASSERT_EQ(existed, 0);
                /* linux-image-<release>-unsigned_<version>_amd64.deb or linux-image-<release>_... */
                ASSERT_TRUE(k->release != NULL);
                g_autofree char *expect = g_strdup_printf("linux-image-%s", k->release);
                ASSERT_TRUE(g_str_has_prefix(base, expect));
                ASSERT_STREQ(k->name, k->release);
                ASSERT_TRUE(k->n_modules > 1000);

                /* the stored vmlinux is an ELF with the PVH note */
                ASSERT_TRUE(k->vmlinux_path != NULL);
                if (kimage_inspect(k->vmlinux_path, &vi, &err) < 0)
                        TEST_FAIL("%s", err.msg);
                ASSERT_EQ(vi->is_elf, 1);
                ASSERT_EQ(vi->pvh, 1);
                ASSERT_STREQ(vi->release, k->release);
                kimage_info_free(vi);

                depf = g_build_filename(k->modules_dir, "modules.dep", NULL);
                ASSERT_TRUE(g_file_get_contents(depf, &dep, NULL, NULL));
                static const char *const need[] = {
                        "/ata/ata_piix.ko:", "/scsi/sd_mod.ko:", "/ext4/ext4.ko:", "/e1000/e1000.ko:",
                };
                for (size_t j = 0; j < sizeof(need) / sizeof(need[0]); j++)
                        if (!strstr(dep, need[j]))
                                TEST_FAIL("%s: modules.dep lacks %s", base, need[j]);
                ASSERT_TRUE(strstr(dep, ".ko.xz") == NULL && strstr(dep, ".ko.zst") == NULL);
                compressed_ko = 0;
                nftw(k->modules_dir, count_compressed, 16, FTW_PHYS);
                ASSERT_EQ(compressed_ko, 0);

                /* again: no-op, same id */
                ASSERT_EQ(kstore_add(s, deb, NULL, &k2, &existed, &err), 0);
                t2 = now();
                ASSERT_EQ(existed, 1);
                ASSERT_STREQ(k2->id, k->id);
                fprintf(stderr, "  %s: release %s, %d modules, pvh %d, import %.1f s, re-import %.2f s\n",
                        base, k->release, k->n_modules, k->pvh, t1 - t0, t2 - t1);
                kstore_kernel_free(k);
                kstore_kernel_free(k2);
        }
        struct kstore_kernel **v = NULL;
        size_t n = 0;
        ASSERT_EQ(kstore_list(s, &v, &n, &err), 0);
        ASSERT_EQ(n, debs->len);
        kstore_kernel_list_free(v, n);
        kstore_free(s);
        if (!getenv("KBENCH_KEEP_STORE"))
                test_rm_tree(root);
        else
                fprintf(stderr, "  store kept at %s\n", root);
}
