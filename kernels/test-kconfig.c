/* Unit tests for kernels/kconfig.c: a kernel's upstream version from its
 * version string or release, and the difference of two .configs. */
#include <glib.h>
#include <string.h>

#include "common/test.h"
#include "kernels/kconfig.h"

TEST_MAIN();

static void upstream_is(const char *version, const char *release, const char *want) {
        g_autofree char *got = kconfig_upstream(version, release);

        if (want)
                ASSERT_STREQ(got, want);
        else
                ASSERT_TRUE(got == NULL);
}

/* Debian's builds name the upstream release in the version
 * string; other kernels fall back to the release's leading numbers. */
TEST(upstream) {
        upstream_is("6.1.0-47-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.170-3 "
                    "(2026-05-08)", "6.1.0-47-amd64", "6.1.170");
        upstream_is("#1 SMP PREEMPT_DYNAMIC Debian 6.12.43-1~bpo12+1 (2025-09-06)", "6.12.43+bpo-amd64", "6.12.43");
        upstream_is("#1 SMP Debian build, Debian 6.1.99-1", "6.1.0-9-amd64", "6.1.99");
        upstream_is("#1 SMP Sun Dec 6 2026", "6.1.0-tiny", "6.1.0");
        upstream_is(NULL, "6.12.7", "6.12.7");
        upstream_is("Debian x", "6.1", "6.1");
        upstream_is(NULL, "6.1.0.9.9", "6.1.0");
        upstream_is("Debian 6.", "tiny", NULL);
        upstream_is(NULL, NULL, NULL);
        upstream_is(NULL, "..6", NULL);
}

/* Two .configs differ in the options set otherwise, "is not set" being
 * unset; comments and order do not count. */
TEST(config_diff) {
        const char *a = "# Linux/x86 6.1.0 Kernel Configuration\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"
                        "# CONFIG_KASAN is not set\nCONFIG_EXT4_FS=m\n";
        const char *b = "CONFIG_EXT4_FS=y\nCONFIG_HZ=1000\nCONFIG_HZ_1000=y\n# CONFIG_HZ_250 is not set\n"
                        "# CONFIG_KASAN is not set\n# comment\n";
        char **d = kconfig_diff(a, b, 10, NULL);
        size_t total = 0;

        ASSERT_STREQ(d[0], "CONFIG_EXT4_FS: m -> y");
        ASSERT_STREQ(d[1], "CONFIG_HZ: 250 -> 1000");
        ASSERT_STREQ(d[2], "CONFIG_HZ_1000: (unset) -> y");
        ASSERT_STREQ(d[3], "CONFIG_HZ_250: y -> (unset)");
        ASSERT_TRUE(d[4] == NULL);
        g_strfreev(d);
        d = kconfig_diff(a, b, 2, &total);
        ASSERT_STREQ(d[2], "... and 2 more");
        ASSERT_EQ(total, 4u);
        ASSERT_TRUE(d[3] == NULL);
        g_strfreev(d);
        d = kconfig_diff(a, a, 10, NULL);
        ASSERT_TRUE(d[0] == NULL);
        g_strfreev(d);
}

/* A line of a .config is untrusted: a control character never reaches a
 * reader, and a long value is cut. */
TEST(config_diff_untrusted) {
        g_autofree char *big = g_strnfill(1000, 'x');
        g_autofree char *b = g_strdup_printf("CONFIG_A=\"\033[2J\"\nCONFIG_B=%s\n", big);
        char **d = kconfig_diff("", b, 10, NULL);

        ASSERT_STREQ(d[0], "CONFIG_A: (unset) -> \"?[2J\"");
        ASSERT_TRUE(g_str_has_suffix(d[1], "..."));
        ASSERT_TRUE(g_utf8_strlen(d[1], -1) == 303);
        ASSERT_TRUE(d[2] == NULL);
        g_strfreev(d);
}
