/* Unit tests for console.c: bounded line framing and kernel-log verdicts. */
#include <glib.h>
#include <string.h>

#include "common/test.h"
#include "harness/console.h"

TEST_MAIN();

static void collect(void *userdata, const char *line, size_t len) {
        g_ptr_array_add(userdata, g_strndup(line, len));
}

TEST(lines_split_across_feeds) {
        struct console_lines l = { 0 };
        GPtrArray *got = g_ptr_array_new_with_free_func(g_free);

        console_lines_feed(&l, "ab", 2, collect, got);
        console_lines_feed(&l, "c\nde\n\nf", 7, collect, got);
        ASSERT_EQ(got->len, 3);
        ASSERT_STREQ(got->pdata[0], "abc");
        ASSERT_STREQ(got->pdata[1], "de");
        ASSERT_STREQ(got->pdata[2], "");
        ASSERT_EQ(l.len, 1);
        g_ptr_array_free(got, TRUE);
}

TEST(overlong_line_dropped) {
        struct console_lines *l = g_new0(struct console_lines, 1);
        GPtrArray *got = g_ptr_array_new_with_free_func(g_free);
        size_t n = PROTO_LINE_MAX * 3;
        char *big = g_malloc(n);

        memset(big, 'x', n);
        console_lines_feed(l, big, n, collect, got);
        console_lines_feed(l, "\nok\n", 4, collect, got);
        ASSERT_EQ(got->len, 1);
        ASSERT_STREQ(got->pdata[0], "ok");
        ASSERT_EQ(l->dropped, 1);
        g_free(big);
        g_free(l);
        g_ptr_array_free(got, TRUE);
}

TEST(scan_verdicts) {
        const char *boot = "[    0.000000] Linux version 6.1.0-47-amd64 (debian-kernel@lists.debian.org)\n"
                           "[    1.2] WARNING: CPU: 0 PID: 1 at foo.c:12 bar+0x1/0x2\n";
        const char *panic = "[    0.000000] Linux version 6.1.0\n"
                            "[    2.345678] Kernel panic - not syncing: VFS: Unable to mount root fs\n";
        struct console_verdict v;

        console_scan(boot, strlen(boot), &v);
        ASSERT_EQ(v.kernel_started, 1);
        ASSERT_EQ(v.crashed, 0);
        ASSERT_EQ(v.warnings, 1);
        console_scan(panic, strlen(panic), &v);
        ASSERT_EQ(v.crashed, 1);
        ASSERT_STREQ(v.crash_line, "[    2.345678] Kernel panic - not syncing: VFS: Unable to mount root fs");
        console_scan("SeaBIOS\n\x1b[2J", 12, &v);
        ASSERT_EQ(v.kernel_started, 0);
        ASSERT_EQ(v.crashed, 0);
}
