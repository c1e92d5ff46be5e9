/* Unit tests for console.c: bounded line framing and kernel-log verdicts. */
#include <glib.h>
#include <string.h>

#include "common/test.h"
#include "host/console.h"

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

static size_t rec(char *buf, const char *cell, uint64_t seq, const char *type, const char *payload) {
        int n = proto_format(buf, PROTO_LINE_MAX + 1, cell, seq, seq * 10, type, payload, strlen(payload));
        ASSERT_TRUE(n > 0);
        return (size_t)n - 1;      /* without the '\n', as console_lines hands it over */
}

TEST(stream_accepts_records_in_sequence) {
        static char buf[PROTO_LINE_MAX + 1];
        static struct proto_record r;
        struct console_stream s;

        console_stream_init(&s, "c003");
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c003", 0, "ready", "release=6.1"), &r), 1);
        ASSERT_STREQ(r.type, "ready");
        ASSERT_EQ(console_stream_line(&s, "", 0, &r), 0);
        ASSERT_EQ(console_stream_line(&s, "\r", 1, &r), 0);
        buf[rec(buf, "c003", 1, "out", "x")] = '\r';       /* CRLF ending */
        ASSERT_EQ(console_stream_line(&s, buf, strlen(buf), &r), 1);
        ASSERT_EQ(s.rejected, 0);
        ASSERT_STREQ(s.first_reject, "");
}

TEST(stream_counts_what_is_wrong) {
        static char buf[PROTO_LINE_MAX + 1];
        static struct proto_record r;
        struct console_stream s;
        size_t n;

        console_stream_init(&s, "c003");
        /* An interleaved kernel message. */
        ASSERT_EQ(console_stream_line(&s, "[   12.3] EXT4-fs (sda): mounted", 32, &r), 0);
        ASSERT_EQ(s.rejected, 1);
        ASSERT_STREQ(s.first_reject, "not a record: '[   12.3] EXT4-fs (sda): mounted'");
        /* Another cell's record (a stale guest), then a lost byte. */
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c002", 0, "ready", ""), &r), 0);
        n = rec(buf, "c003", 0, "out", "hello world");
        memmove(buf + 20, buf + 21, n - 21);
        ASSERT_EQ(console_stream_line(&s, buf, n - 1, &r), 0);
        ASSERT_EQ(s.rejected, 3);
        /* A record lost in between: the gap counts, the record is kept. */
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c003", 0, "ready", ""), &r), 1);
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c003", 2, "out", "y"), &r), 1);
        ASSERT_EQ(s.rejected, 4);
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c003", 3, "done", "0"), &r), 1);
        ASSERT_EQ(s.rejected, 4);
        ASSERT_STREQ(s.first_reject, "not a record: '[   12.3] EXT4-fs (sda): mounted'");
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

TEST(stream_rejects_replay_and_backwards) {
        static char buf[PROTO_LINE_MAX + 1];
        static struct proto_record r;
        struct console_stream s;

        console_stream_init(&s, "c001");
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 0, "ready", ""), &r), 1);
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 1, "vmstat", "1 2 3"), &r), 1);
        ASSERT_EQ(s.rejected, 0);
        /* The same record again: counted, not handed on. */
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 1, "vmstat", "1 2 3"), &r), 0);
        ASSERT_EQ(s.rejected, 1);
        ASSERT_TRUE(strstr(s.first_reject, "sequence 1 replayed or backwards (expected 2)") != NULL);
        /* Backwards. */
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 0, "done", "0"), &r), 0);
        ASSERT_EQ(s.rejected, 2);
        /* The stream goes on where it was. */
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 2, "done", "0"), &r), 1);
        ASSERT_EQ(s.rejected, 2);
        /* A gap: counted, the record kept, the sequence resumes after it. */
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 5, "out", "x"), &r), 1);
        ASSERT_EQ(s.rejected, 3);
        ASSERT_EQ(console_stream_line(&s, buf, rec(buf, "c001", 6, "out", "y"), &r), 1);
        ASSERT_EQ(s.rejected, 3);
}

TEST(scan_every_crash_pattern) {
        static const char *const lines[] = {
                "[    2.1] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009",
                "[    3.2] Oops: 0002 [#1] PREEMPT SMP NOPTI",
                "[    4.3] BUG: unable to handle page fault for address: ffff9e0000000000",
                "[    5.4] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1]",
        };
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
                char *log = g_strdup_printf("[    0.0] Linux version 6.1.0\n[    1.0] ata1: SATA link up\n%s\n"
                                            "[    9.9] later line\n", lines[i]);
                struct console_verdict v;

                console_scan(log, strlen(log), &v);
                if (!v.crashed)
                        TEST_FAIL("not a crash: %s", lines[i]);
                ASSERT_STREQ(v.crash_line, lines[i]);
                ASSERT_EQ(v.crash_offset, (size_t)(strstr(log, lines[i]) - log));
                g_free(log);
        }
        /* Words that only look alike are not crashes. */
        {
                const char *calm = "[ 1.0] Linux version 6.1\n[ 2.0] debug: BUGS none\n[ 3.0] panic=-1 set\n";
                struct console_verdict v;
                console_scan(calm, strlen(calm), &v);
                ASSERT_EQ(v.crashed, 0);
        }
}
