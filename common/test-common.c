/* Unit tests for common/: number and line parsing, file reads, the CRC,
 * the splitmix64 generator, the disk bus table. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/crc32.h"
#include "common/diskbus.h"
#include "common/error.h"
#include "common/fileio.h"
#include "common/nearest.h"
#include "common/util.h"
#include "common/nearest.h"
#include "common/util.h"
#include "common/parse.h"
#include "common/utf8.h"
#include "common/splitmix64.h"
#include "common/test.h"

TEST_MAIN();

/* Registered in this order (constructors run in definition order): the
 * case after a skip must still run. */
static int skip_reached, after_skip_ran;

/* The names nearest a mistyped one, for "did you mean". */
TEST(nearest_names) {
        const char *names[] = { "6.1.0-47-amd64", "tiny-base", "6.1.0-57-amd64", "6.12.107-amd64" };

        ASSERT_EQ(nearest_distance("kitten", "sitting"), 3);
        ASSERT_EQ(nearest_distance("", "abc"), 3);
        ASSERT_EQ(nearest_distance("same", "same"), 0);
        ASSERT_EQ(nearest_sort("6.1.0-57-amd46", names, ELEMENTSOF(names)), 2);
        ASSERT_STREQ(names[0], "6.1.0-57-amd64");
        ASSERT_STREQ(names[1], "6.1.0-47-amd64");
        ASSERT_EQ(nearest_sort("zzzzzzzz", names, ELEMENTSOF(names)), 0);
}

TEST(skip_ends_only_its_case) {
        skip_reached = 1;
        TEST_SKIP("on purpose: the next case must still run");
        TEST_FAIL("TEST_SKIP returned");
}

TEST(case_after_a_skip_runs) {
        ASSERT_EQ(skip_reached, 1);
        after_skip_ran = 1;
}

TEST(crc32_check_value) {
        ASSERT_EQ(after_skip_ran, 1);
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

TEST(parse_number_checks) {
        union parse_value v;

        ASSERT_EQ(parse_number("1800", PARSE_REAL, 10, 1e6, &v), 0);
        ASSERT_NEAR(v.d, 1800, 1e-9);
        ASSERT_EQ(parse_number("inf", PARSE_REAL, 10, 1e6, &v), -ERANGE);
        ASSERT_EQ(parse_number("-inf", PARSE_REAL, 10, 1e6, &v), -ERANGE);
        ASSERT_EQ(parse_number("nan", PARSE_REAL, 10, 1e6, &v), -ERANGE);
        ASSERT_EQ(parse_number("1e400", PARSE_REAL, 10, 1e6, &v), -ERANGE);
        ASSERT_EQ(parse_number("5", PARSE_REAL, 10, 1e6, &v), -ERANGE);
        ASSERT_EQ(parse_number("10s", PARSE_REAL, 10, 1e6, &v), -EINVAL);
        /* 4294967424 MiB-or-bytes must never wrap to 128 MiB. */
        ASSERT_EQ(parse_number("4294967424", PARSE_MIB, 128.0 * 1048576, 65536.0 * 1048576, &v), -ERANGE);
        ASSERT_EQ(parse_number("160", PARSE_MIB, 128.0 * 1048576, 65536.0 * 1048576, &v), 0);
        ASSERT_EQ(v.u, 160ull << 20);
        ASSERT_EQ(parse_number("1G", PARSE_MIB, 128.0 * 1048576, 65536.0 * 1048576, &v), 0);
        ASSERT_EQ(v.u, 1ull << 30);
        ASSERT_EQ(parse_number("17592186044416", PARSE_MIB, 0, 1e30, &v), -ERANGE);
        ASSERT_EQ(parse_number("16000T", PARSE_SIZE, 64 << 20, 1ull << 55, &v), 0);
        ASSERT_EQ(parse_number("16000T", PARSE_SIZE, 64 << 20, 1ull << 40, &v), -ERANGE);
        ASSERT_EQ(parse_number("63M", PARSE_SIZE, 64 << 20, 1ull << 40, &v), -ERANGE);
        ASSERT_EQ(parse_number("99999999999999999999", PARSE_UINT, 0, 10, &v), -ERANGE);
        ASSERT_EQ(parse_number("-1", PARSE_UINT, 0, 10, &v), -EINVAL);
        ASSERT_EQ(parse_number("11", PARSE_UINT, 0, 10, &v), -ERANGE);
        ASSERT_EQ(parse_number("10", PARSE_UINT, 0, 10, &v), 0);
        ASSERT_EQ(v.u, 10);
}

/* Lines of /proc-style text: the last may lack its newline, an empty line
 * is a line, and nothing is read past len. */
TEST(parse_lines) {
        /* The newline past len must not end the last line. */
        static const char text[] = "cpu 1 2\n\nlast\nhidden";
        const size_t len = sizeof(text) - 1 - strlen("\nhidden");
        const char *s;
        size_t pos = 0, n;

        ASSERT_EQ(parse_next_line(text, len, &pos, &s, &n), 1);
        ASSERT_TRUE(s == text && n == 7);
        ASSERT_EQ(parse_next_line(text, len, &pos, &s, &n), 1);
        ASSERT_TRUE(s == text + 8 && n == 0);
        ASSERT_EQ(parse_next_line(text, len, &pos, &s, &n), 1);
        ASSERT_TRUE(s == text + 9 && n == 4);
        ASSERT_EQ(pos, len);
        ASSERT_EQ(parse_next_line(text, len, &pos, &s, &n), 0);
        pos = 0;
        ASSERT_EQ(parse_next_line(text, 0, &pos, &s, &n), 0);
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
        ASSERT_STREQ(err.msg, "/tmp: a directory, not a regular file");
        /* A FIFO without a writer: refused at once, never waited on. */
        {
                char fifo[] = "/tmp/kbench-test-fifo-XXXXXX";
                int fd2 = mkstemp(fifo);

                ASSERT_TRUE(fd2 >= 0);
                close(fd2);
                unlink(fifo);
                ASSERT_EQ(mkfifo(fifo, 0600), 0);
                ASSERT_EQ(fileio_read(fifo, 4096, &buf, &len, NULL, &err), -EINVAL);
                ASSERT_TRUE(strstr(err.msg, "a FIFO, not a regular file") != NULL);
                ASSERT_EQ(fileio_open_regular(fifo, &fd2, &err), -EINVAL);
                unlink(fifo);
        }
        ASSERT_EQ(fileio_read("/dev/null", 4096, &buf, &len, NULL, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "/dev/null: a character device, not a regular file");
        /* fileio_check: the same refusals, nothing read; a file of 1 GiB
         * (sparse) is refused by its size. */
        ASSERT_EQ(fileio_check(path, 5, &err), 0);
        ASSERT_EQ(fileio_check(path, 4, &err), -EFBIG);
        ASSERT_EQ(fileio_check("/dev/zero", 1 << 20, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "/dev/zero: a character device, not a regular file");
        ASSERT_EQ(truncate(path, 1LL << 30), 0);
        ASSERT_EQ(fileio_check(path, 64 << 10, &err), -EFBIG);
        ASSERT_EQ(fileio_read(path, 64 << 10, &buf, &len, NULL, &err), -EFBIG);
        unlink(path);
        ASSERT_EQ(fileio_read(path, 4096, &buf, &len, NULL, &err), -ENOENT);
        ASSERT_EQ(fileio_check(path, 4096, &err), -ENOENT);
}

/* The store's own files: a link put where one goes is neither followed nor
 * truncated through, a FIFO is refused without waiting, and a replaced
 * file replaces the link instead of writing through it. */
TEST(fileio_create_follows_no_link) {
        char dir[] = "/tmp/kbench-test-create-XXXXXX";
        char victim[64], link[64], fifo[64], plain[64], buf[16] = "";
        struct kb_error err;
        struct stat st;
        int fd = -1, vfd;

        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(victim, sizeof(victim), "%s/victim", dir);
        snprintf(link, sizeof(link), "%s/lock", dir);
        snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        snprintf(plain, sizeof(plain), "%s/plain", dir);
        vfd = open(victim, O_WRONLY | O_CREAT, 0600);
        ASSERT_TRUE(vfd >= 0);
        ASSERT_EQ(write(vfd, "precious", 8), 8);
        close(vfd);
        ASSERT_EQ(symlink(victim, link), 0);
        ASSERT_EQ(fileio_create(link, O_RDWR | O_TRUNC, 0644, &fd, &err), -ELOOP);
        ASSERT_TRUE(strstr(err.msg, link) && strstr(err.msg, "symbolic link"));
        ASSERT_EQ(stat(victim, &st), 0);
        ASSERT_EQ(st.st_size, 8);
        ASSERT_EQ(mkfifo(fifo, 0600), 0);
        ASSERT_EQ(fileio_create(fifo, O_WRONLY, 0644, &fd, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "a FIFO, not a regular file") != NULL);
        ASSERT_EQ(fileio_create(plain, O_WRONLY, 0600, &fd, &err), 0);
        ASSERT_EQ(write(fd, "x", 1), 1);
        close(fd);
        /* Replacing the link's path replaces the link. */
        ASSERT_EQ(fileio_write_atomic(link, "new\n", 4, 0644, &err), 0);
        ASSERT_EQ(lstat(link, &st), 0);
        ASSERT_TRUE(S_ISREG(st.st_mode));
        ASSERT_EQ(st.st_mode & 07777, 0644);
        vfd = open(victim, O_RDONLY);
        ASSERT_EQ(read(vfd, buf, sizeof(buf) - 1), 8);
        close(vfd);
        ASSERT_STREQ(buf, "precious");
        unlink(link);
        unlink(fifo);
        unlink(plain);
        unlink(victim);
        ASSERT_EQ(rmdir(dir), 0);      /* no temporary file is left */
}

/* A message longer than the buffer keeps its head and its reason: a path
 * of thousands of bytes is cut in its middle. */
/* fileio_write_all writes the whole buffer, also to a non-blocking pipe
 * that fills (the agent's console): four times a pipe's buffer, read
 * by a child that checks every byte. */
TEST(fileio_write_all_waits_out_a_full_pipe) {
        enum { LEN = 4 * 65536 };
        static unsigned char buf[LEN];
        int p[2], status = -1;
        pid_t child;

        for (size_t i = 0; i < LEN; i++)
                buf[i] = (unsigned char)(i * 7);
        ASSERT_EQ(pipe(p), 0);
        child = fork();
        ASSERT_TRUE(child >= 0);
        if (child == 0) {
                unsigned char in[4096];
                size_t got = 0;
                ssize_t n;

                close(p[1]);
                usleep(100 * 1000);            /* the writer meets a full pipe first */
                while ((n = read(p[0], in, sizeof(in))) > 0)
                        for (ssize_t i = 0; i < n; i++, got++)
                                if (got >= LEN || in[i] != (unsigned char)(got * 7))
                                        _exit(1);
                _exit(got == LEN ? 0 : 2);
        }
        close(p[0]);
        ASSERT_EQ(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
        ASSERT_EQ(fileio_write_all(p[1], buf, LEN), 0);
        close(p[1]);
        ASSERT_EQ(waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(error_keeps_the_reason) {
        struct kb_error err;
        char path[5001];

        memset(path, 'a', sizeof(path) - 1);
        path[sizeof(path) - 1] = '\0';
        path[0] = '/';
        ASSERT_EQ(error_setf(&err, -ENAMETOOLONG, "store %s: %s", path, strerror(ENAMETOOLONG)), -ENAMETOOLONG);
        ASSERT_TRUE(strlen(err.msg) < sizeof(err.msg));
        ASSERT_TRUE(strncmp(err.msg, "store /aaa", 10) == 0);
        ASSERT_TRUE(strstr(err.msg, "aaa ... aaa") != NULL);
        ASSERT_TRUE(strstr(err.msg, ": File name too long") != NULL);
        ASSERT_EQ(strlen(err.msg), sizeof(err.msg) - 1);
        error_prefix(&err, -ENAMETOOLONG, "kernel add");
        ASSERT_TRUE(strncmp(err.msg, "kernel add: store /aaa", 22) == 0);
        ASSERT_TRUE(strstr(err.msg, ": File name too long") != NULL);
        /* Short ones are as they were. */
        error_setf(&err, -EINVAL, "%s: bad", "x");
        error_prefix(&err, -EINVAL, "ctx");
        ASSERT_STREQ(err.msg, "ctx: x: bad");
        /* A cut never splits a UTF-8 character. */
        {
                char dst[16];

                error_fit(dst, sizeof(dst), "x\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9y", 20);
                ASSERT_TRUE(strstr(dst, " ... ") != NULL);
                ASSERT_TRUE(dst[0] == 'x' && dst[strlen(dst) - 1] == 'y');
                for (const char *p = dst; *p; p++) {
                        if ((unsigned char)*p == 0xc3)
                                ASSERT_TRUE((unsigned char)p[1] == 0xa9);
                        if ((unsigned char)*p == 0xa9)
                                ASSERT_TRUE(p > dst && (unsigned char)p[-1] == 0xc3);
                }
        }
}

/* The first outputs for seed 0 of Vigna's reference splitmix64.c; the
 * addressed form must give the same words as walking the state. */
TEST(splitmix64_reference) {
        const uint64_t want[] = { UINT64_C(0xe220a8397b1dcdaf), UINT64_C(0x6e789e6aa1b965f4),
                                  UINT64_C(0x06c45d188009454f) };
        uint64_t state = 0;

        for (uint64_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                ASSERT_EQ(splitmix64(&state), want[i]);
                ASSERT_EQ(splitmix64_at(0, i), want[i]);
        }
        state = 1234567;
        for (uint64_t i = 0; i < 1000; i++)
                ASSERT_EQ(splitmix64(&state), splitmix64_at(1234567, i));
}

/* The one terminal-safe form: what a terminal would obey (CSI, OSC, BEL,
 * the newline, C1's CSI, a right-to-left override) is '?', a byte that is
 * not UTF-8 is shown by its value, and printable text, UTF-8 included, is
 * kept as it is. */
TEST(terminal_safe_mask) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "6.1.0-57-amd64", "6.1.0-57-amd64" },
                { "\x1b[31mEVIL\x1b[0m", "?[31mEVIL?[0m" },
                { "\x1b]0;title\x07x", "?]0;title?x" },
                { "a\xe2\x80\xae" "cba", "a?cba" },            /* U+202E */
                { "two\nlines\r", "two?lines?" },
                { "\xc2\x9b" "2J", "?2J" },                        /* U+009B, CSI */
                { "caf\xc3\xa9 \xce\xbb", "caf\xc3\xa9 \xce\xbb" },
                { "/tmp/\xff\xfe", "/tmp/\\xff\\xfe" },
                { "\xe2\x82", "\\xe2\\x82" },                     /* cut short */
                { "", "" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *m = utf8_mask(cases[i].in);

                ASSERT_STREQ(m, cases[i].out);
                free(m);
        }
        {
                char *m = utf8_mask(NULL);

                ASSERT_STREQ(m, "-");
                free(m);
        }
}

/* utf8_mask_cut counts characters, a masked byte as one, and says it cut. */
TEST(utf8_mask_cut) {
        static const struct {
                const char *in;
                size_t max;
                const char *out;
        } cases[] = {
                { "caf\xc3\xa9", 4, "caf\xc3\xa9" },
                { "caf\xc3\xa9!", 4, "caf\xc3\xa9..." },
                { "a\x1b[2J", 2, "a?..." },
                { "\xff\xfe", 1, "\\xff..." },
                { NULL, 5, "" },
                { "abc", 0, "..." },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *m = utf8_mask_cut(cases[i].in, cases[i].max);

                ASSERT_STREQ(m, cases[i].out);
                free(m);
        }
}

/* Every bus row is whole: the agent finds a disk by serial only if the
 * domain gives it that serial, and it checks "BUS/DRIVER" names; the
 * default is IDE, and an unknown name reads as it. */
TEST(diskbus_table) {
        char names[128];

        ASSERT_STREQ(diskbus_table[0].name, DISKBUS_DEFAULT);
        ASSERT_STREQ(diskbus_get(NULL)->name, "ide");
        ASSERT_STREQ(diskbus_get("nvme")->name, "ide");
        ASSERT_TRUE(diskbus_find("nvme") == NULL);
        ASSERT_STREQ(diskbus_names(", ", names, sizeof(names)), "ide, ahci, virtio-blk, virtio-scsi");
        for (const struct diskbus *b = diskbus_table; b->name; b++) {
                ASSERT_TRUE(strlen(b->name) <= DISKBUS_NAME_MAX);
                ASSERT_TRUE(b->modules[0] && b->drivers[0] && strlen(b->target_prefix) == 2);
                for (const char *const *d = b->drivers; *d; d++)
                        ASSERT_TRUE(strchr(*d, '/') && strchr(*d, '/')[1]);
                ASSERT_EQ(b->serial_disk != NULL, strncmp(b->disk, "serial:", 7) == 0);
                ASSERT_EQ(b->serial_swap != NULL, strncmp(b->swap, "serial:", 7) == 0);
                if (b->serial_disk) {
                        ASSERT_STREQ(b->disk + 7, b->serial_disk);
                        ASSERT_STREQ(b->swap + 7, b->serial_swap);
                }
        }
}
