/* Unit tests for common/: number parsing and the CRC. */
#include <errno.h>
#include <stdint.h>

#include <unistd.h>

#include "common/crc32.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "common/test.h"

TEST_MAIN();

TEST(crc32_check_value) {
        ASSERT_EQ(crc32_update(0, "123456789", 9), 0xcbf43926u);
        ASSERT_EQ(crc32_update(crc32_update(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

TEST(parse_size_suffixes) {
        uint64_t v;
        ASSERT_EQ(parse_size("512M", &v), 0);
        ASSERT_EQ(v, 512ull << 20);
        ASSERT_EQ(parse_size("2G", &v), 0);
        ASSERT_EQ(v, 2ull << 30);
        ASSERT_EQ(parse_size("4KiB", &v), 0);
        ASSERT_EQ(v, 4096);
        ASSERT_EQ(parse_size("4Q", &v), -EINVAL);
        ASSERT_EQ(parse_size("-1", &v), -EINVAL);
        ASSERT_EQ(parse_size("99999999999999999999", &v), -ERANGE);
        ASSERT_EQ(parse_size("17179869184G", &v), -ERANGE);
}

TEST(parse_numbers) {
        uint64_t u;
        int64_t i;
        double d;
        int b;
        ASSERT_EQ(parse_u64("42", &u), 0);
        ASSERT_EQ(u, 42);
        ASSERT_EQ(parse_u64("42x", &u), -EINVAL);
        ASSERT_EQ(parse_u64(" 42", &u), -EINVAL);
        ASSERT_EQ(parse_i64("-7", &i), 0);
        ASSERT_EQ(i, -7);
        ASSERT_EQ(parse_double("1.5", &d), 0);
        ASSERT_NEAR(d, 1.5, 0);
        ASSERT_EQ(parse_double("nan", &d), -ERANGE);
        ASSERT_EQ(parse_double("", &d), -EINVAL);
        ASSERT_EQ(parse_bool("on", &b), 0);
        ASSERT_EQ(b, 1);
        ASSERT_EQ(parse_bool("maybe", &b), -EINVAL);
}

TEST(fileio_bounds) {
        char path[] = "/tmp/kbench-test-fileio-XXXXXX";
        int fd = mkstemp(path);
        struct kb_error err;
        char *buf = NULL;
        size_t len = 0;
        unsigned mode = 0;

        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, "hello", 5), 5);
        close(fd);
        ASSERT_EQ(fileio_read(path, 5, &buf, &len, &mode, &err), 0);
        ASSERT_EQ(len, 5);
        ASSERT_TRUE(memcmp(buf, "hello", 5) == 0);
        ASSERT_EQ(mode, 0600);
        free(buf);
        ASSERT_EQ(fileio_read(path, 4, &buf, &len, NULL, &err), -EFBIG);
        ASSERT_TRUE(strstr(err.msg, path) && strstr(err.msg, "larger than 4 bytes"));
        ASSERT_EQ(fileio_read("/tmp", 4096, &buf, &len, NULL, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "/tmp: not a regular file");
        unlink(path);
        ASSERT_EQ(fileio_read(path, 4096, &buf, &len, NULL, &err), -ENOENT);
}
