/* Unit tests for the ttyS1 record format (common/proto.c). */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "common/proto.h"

TEST_MAIN();

TEST(round_trip) {
        char buf[PROTO_LINE_MAX + 1];
        struct proto_record r;
        int n = proto_format(buf, sizeof(buf), "c007", 12, 3456, "out", "a\\b\tc\x01", 6);

        ASSERT_TRUE(n > 0);
        ASSERT_EQ(buf[n - 1], '\n');
        ASSERT_TRUE(strstr(buf, "@kb c007 12 3456 out a\\\\b\\x09c\\x01 *") == buf);
        ASSERT_EQ(proto_parse(buf, (size_t)n, &r), PROTO_OK);
        ASSERT_STREQ(r.cell, "c007");
        ASSERT_EQ(r.seq, 12);
        ASSERT_EQ(r.t_ms, 3456);
        ASSERT_STREQ(r.type, "out");
        ASSERT_EQ(r.payload_len, 6);
        ASSERT_TRUE(memcmp(r.payload, "a\\b\tc\x01", 6) == 0);
}

TEST(empty_payload_and_spaces) {
        char buf[256];
        struct proto_record r;
        int n = proto_format(buf, sizeof(buf), "x", 0, 0, "ready", "", 0);

        ASSERT_EQ(proto_parse(buf, (size_t)n, &r), PROTO_OK);
        ASSERT_EQ(r.payload_len, 0);
        n = proto_format(buf, sizeof(buf), "x", 1, 5, "vmstat", " 1  0 ", 6);
        ASSERT_EQ(proto_parse(buf, (size_t)n, &r), PROTO_OK);
        ASSERT_STREQ(r.payload, " 1  0 ");
}

TEST(rejects) {
        char buf[256];
        struct proto_record r;
        int n = proto_format(buf, sizeof(buf), "cell", 3, 9, "done", "0", 1);

        ASSERT_EQ(proto_parse("[    1.234] EXT4-fs", 19, &r), PROTO_NOT_RECORD);
        ASSERT_EQ(proto_parse("", 0, &r), PROTO_NOT_RECORD);
        /* A flipped payload byte fails the CRC. */
        buf[n - 12] = '1';
        ASSERT_EQ(proto_parse(buf, (size_t)n, &r), PROTO_BAD_CRC);
        /* A truncated line (lost bytes) is malformed. */
        ASSERT_EQ(proto_parse(buf, (size_t)n - 5, &r), PROTO_MALFORMED);
        /* Kernel text interleaved inside a record breaks the CRC or the frame. */
        n = proto_format(buf, sizeof(buf), "cell", 4, 9, "out", "hello world", 11);
        {
                char mixed[512];
                snprintf(mixed, sizeof(mixed), "%.20s[ 5.1] oops%s", buf, buf + 20);
                ASSERT_TRUE(proto_parse(mixed, strlen(mixed), &r) < 0);
        }
        ASSERT_EQ(proto_parse("@kb bad/cell 1 1 out x *00000000", 32, &r), PROTO_MALFORMED);
        ASSERT_EQ(proto_parse("@kb c 1 1 OUT x *00000000", 25, &r), PROTO_MALFORMED);
        ASSERT_EQ(proto_parse("@kb c 99999999999999999999 1 out x *00000000", 44, &r), PROTO_MALFORMED);
}

TEST(long_payload) {
        static char payload[PROTO_PAYLOAD_MAX];
        static char buf[PROTO_LINE_MAX + 1];
        static struct proto_record r;
        int n;

        for (size_t i = 0; i < sizeof(payload); i++)
                payload[i] = (char)(i & 0xff);     /* worst case: most bytes escaped */
        n = proto_format(buf, sizeof(buf), "c", 1, 1, "out", payload, sizeof(payload));
        ASSERT_TRUE(n > 0);
        ASSERT_EQ(proto_parse(buf, (size_t)n, &r), PROTO_OK);
        ASSERT_EQ(r.payload_len, sizeof(payload));
        ASSERT_TRUE(memcmp(r.payload, payload, sizeof(payload)) == 0);
        ASSERT_EQ(proto_format(buf, 64, "c", 1, 1, "out", payload, sizeof(payload)), -ENOSPC);
}

TEST(unescape_errors) {
        char out[16];
        ASSERT_EQ(proto_unescape(out, sizeof(out), "\\q", 2), -EINVAL);
        ASSERT_EQ(proto_unescape(out, sizeof(out), "\\x4", 3), -EINVAL);
        ASSERT_EQ(proto_unescape(out, sizeof(out), "\\x4g", 4), -EINVAL);
        ASSERT_EQ(proto_unescape(out, 4, "abcdef", 6), -ENOSPC);
        ASSERT_EQ(proto_unescape(out, sizeof(out), "a\\x41", 5), 2);
        ASSERT_STREQ(out, "aA");
}

TEST(sysctl_names_and_values) {
        char big[PROTO_SYSCTL_VALUE_MAX + 2], path[64];
        const char *why = NULL;

        ASSERT_EQ(proto_sysctl_check("vm.dirty_ratio", "7", &why), 0);
        ASSERT_EQ(proto_sysctl_check("net.ipv4.tcp_rmem", "4096 87380 6291456", &why), 0);
        static const char *const bad_keys[] = { "", ".vm", "vm.", "vm..x", "vm/dirty", "../etc", "VM.x",
                                                "vm dirty", "vm.dirty-ratio", NULL };
        for (size_t i = 0; bad_keys[i]; i++) {
                why = NULL;
                ASSERT_EQ(proto_sysctl_check(bad_keys[i], "1", &why), -EINVAL);
                ASSERT_STREQ(why, "not a sysctl name");
        }
        ASSERT_EQ(proto_sysctl_check("vm.x", "", &why), -EINVAL);
        ASSERT_EQ(proto_sysctl_check("vm.x", "1\n2", &why), -EINVAL);
        ASSERT_STREQ(why, "value holds a control character");
        ASSERT_EQ(proto_sysctl_check("vm.x", "1\t2", &why), -EINVAL);
        memset(big, '1', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        ASSERT_EQ(proto_sysctl_check("vm.x", big, &why), -EINVAL);
        big[PROTO_SYSCTL_VALUE_MAX] = '\0';
        ASSERT_EQ(proto_sysctl_check("vm.x", big, &why), 0);

        ASSERT_EQ(proto_sysctl_path("vm.dirty_ratio", path, sizeof(path)), 24);
        ASSERT_STREQ(path, "/proc/sys/vm/dirty_ratio");
        ASSERT_EQ(proto_sysctl_path("../etc", path, sizeof(path)), -EINVAL);
        ASSERT_EQ(proto_sysctl_path("vm.dirty_ratio", path, 24), -ENOSPC);
        ASSERT_EQ(proto_sysctl_path("vm.dirty_ratio", path, 25), 24);
}

/* The host's reading of a `sysctl` record's payload. */
static int record(const char *payload, size_t len, char *key, char *value) {
        return proto_sysctl_record_parse(payload, len, key, value);
}

TEST(sysctl_records) {
        /* Guards after each buffer: a longest key or value must not write past it. */
        struct {
                char key[PROTO_SYSCTL_KEY_MAX + 1], guard1[8];
                char value[PROTO_SYSCTL_READBACK_MAX + 1], guard2[8];
        } b;
        char *key = b.key, *value = b.value;
        char big[PROTO_SYSCTL_READBACK_MAX + 16];
        static const char untouched[8] = "GGGGGGG";
        size_t n;

        memcpy(b.guard1, untouched, sizeof(untouched));
        memcpy(b.guard2, untouched, sizeof(untouched));

        ASSERT_EQ(record("vm.dirty_ratio=7", 16, key, value), 0);
        ASSERT_STREQ(key, "vm.dirty_ratio");
        ASSERT_STREQ(value, "7");
        /* kernel.printk reads back as tab-separated fields. */
        ASSERT_EQ(record("kernel.printk=4\t4\t1\t7", 21, key, value), 0);
        ASSERT_STREQ(value, "4 4 1 7");
        /* An empty value is what the kernel said; the first '=' ends the key. */
        ASSERT_EQ(record("kernel.core_pattern=", 20, key, value), 0);
        ASSERT_STREQ(value, "");
        ASSERT_EQ(record("vm.x=a=b", 8, key, value), 0);
        ASSERT_STREQ(value, "a=b");
        /* The length is the payload's, not up to a NUL. */
        ASSERT_EQ(record("vm.x=12", 6, key, value), 0);
        ASSERT_STREQ(value, "1");

        static const char *const bad[] = { "vm.dirty_ratio", "=7", "../etc=1", "VM.x=1", "vm..x=1", "vm.x=1\n",
                                           "vm.x=\x01", "vm.x=\x7f", "vm.x=\xc3\xa9", NULL };
        for (size_t i = 0; bad[i]; i++)
                ASSERT_EQ(record(bad[i], strlen(bad[i]), key, value), -EINVAL);
        ASSERT_EQ(record("vm.x=1\0002", 8, key, value), -EINVAL);

        /* The longest key and value fit their buffers; one byte more does not. */
        memset(big, 'k', PROTO_SYSCTL_KEY_MAX + 1);
        big[PROTO_SYSCTL_KEY_MAX] = '=';
        big[PROTO_SYSCTL_KEY_MAX + 1] = '1';
        ASSERT_EQ(record(big, PROTO_SYSCTL_KEY_MAX + 2, key, value), 0);
        ASSERT_EQ(strlen(key), (size_t)PROTO_SYSCTL_KEY_MAX);
        memset(big, 'k', PROTO_SYSCTL_KEY_MAX + 1);
        big[PROTO_SYSCTL_KEY_MAX + 1] = '=';
        ASSERT_EQ(record(big, PROTO_SYSCTL_KEY_MAX + 2, key, value), -EINVAL);
        memcpy(big, "vm.x=", 5);
        n = 5 + PROTO_SYSCTL_READBACK_MAX;
        memset(big + 5, '9', PROTO_SYSCTL_READBACK_MAX + 1);
        ASSERT_EQ(record(big, n, key, value), 0);
        ASSERT_EQ(strlen(value), (size_t)PROTO_SYSCTL_READBACK_MAX);
        ASSERT_EQ(record(big, n + 1, key, value), -EINVAL);
        ASSERT_TRUE(memcmp(b.guard1, untouched, sizeof(untouched)) == 0);
        ASSERT_TRUE(memcmp(b.guard2, untouched, sizeof(untouched)) == 0);
}
