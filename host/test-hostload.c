/* Tests for host/hostload: the parsers on well-formed and hostile text,
 * and the foreign-CPU arithmetic on the constructed /proc trees under
 * tests/data/hostload (see the README there), with the expected figures
 * worked out here from the numbers in the files. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "host/hostload.h"
#include "report/metrics.h"

#ifndef HOSTLOAD_FIXTURES
#error "HOSTLOAD_FIXTURES must point at tests/data/hostload"
#endif

TEST_MAIN();

static const int pids[] = { 4242, 4300 };      /* QEMU, kbench */

static int load(const char *tree, double t, struct hostload_snap *ret, struct kb_error *err) {
        char root[4096];

        snprintf(root, sizeof(root), "%s/%s", HOSTLOAD_FIXTURES, tree);
        return hostload_read(root, pids, 2, t, ret, err);
}

static struct hostload_snap load_ok(const char *tree, double t) {
        struct hostload_snap s;
        struct kb_error err = { "" };

        if (load(tree, t, &s, &err) < 0)
                TEST_FAIL("%s: %s", tree, err.msg);
        return s;
}

static int compute(const char *a, const char *b, struct hostload_figures *ret, struct kb_error *err) {
        struct hostload_snap s0 = load_ok(a, 100.0), s1 = load_ok(b, 104.0);

        return hostload_compute(&s0, &s1, 100, ret, err);
}

TEST(read_start) {
        struct hostload_snap s = load_ok("start", 100.0);

        ASSERT_EQ(s.cpu[HOSTLOAD_USER], 100000);
        ASSERT_EQ(s.cpu[HOSTLOAD_NICE], 2000);
        ASSERT_EQ(s.cpu[HOSTLOAD_SYSTEM], 30000);
        ASSERT_EQ(s.cpu[HOSTLOAD_IDLE], 500000);
        ASSERT_EQ(s.cpu[HOSTLOAD_IOWAIT], 1000);
        ASSERT_EQ(s.cpu[HOSTLOAD_IRQ], 0);
        ASSERT_EQ(s.cpu[HOSTLOAD_SOFTIRQ], 500);
        ASSERT_EQ(s.cpu[HOSTLOAD_STEAL], 0);
        ASSERT_EQ(s.ncpus, 2);
        ASSERT_NEAR(s.loadavg1, 0.52, 1e-12);
        ASSERT_EQ(s.n_procs, 2);
        ASSERT_EQ(s.procs[0].pid, 4242);
        ASSERT_EQ(s.procs[0].ticks, 2000 + 300);
        ASSERT_EQ(s.procs[0].starttime, 880000);
        ASSERT_EQ(s.procs[1].pid, 4300);
        ASSERT_EQ(s.procs[1].ticks, 150 + 40);
        ASSERT_NEAR(s.t, 100.0, 1e-12);
}

TEST(quiet_host) {
        struct hostload_figures f;
        struct kb_error err = { "" };

        ASSERT_EQ(compute("start", "quiet", &f, &err), 0);
        /* Capacity: 2 CPUs x 4 s x 100 ticks/s = 800 ticks.
         * Busy (all but idle and iowait): user +376, system +26, softirq +2 = 404.
         * Excluded: QEMU (2360+320) - (2000+300) = 380, kbench (156+42) - (150+40) = 8.
         * Foreign: 404 - 388 = 16 ticks = 16 / 800 = 2.0 %. */
        ASSERT_NEAR(f.foreign_pct, 16.0 / 800.0 * 100.0, 1e-9);
        ASSERT_NEAR(f.foreign_pct, 2.0, 1e-9);
        ASSERT_NEAR(f.excluded_pct, 388.0 / 800.0 * 100.0, 1e-9);
        ASSERT_NEAR(f.loadavg1, 0.52, 1e-12);      /* the start's, not the end's 0.61 */
        ASSERT_NEAR(f.wall_s, 4.0, 1e-12);
        ASSERT_TRUE(f.foreign_pct <= METRICS_CONTENDED_PCT);
}

TEST(busy_host) {
        struct hostload_figures f;
        struct kb_error err = { "" };

        ASSERT_EQ(compute("start", "busy", &f, &err), 0);
        /* Busy: user +440, system +320 = 760 of 800 ticks.
         * Excluded: QEMU (2250+314) - 2300 = 264, kbench (154+42) - 190 = 6.
         * Foreign: 760 - 270 = 490 ticks = 61.25 %: the two yes loops. */
        ASSERT_NEAR(f.foreign_pct, 490.0 / 800.0 * 100.0, 1e-9);
        ASSERT_NEAR(f.foreign_pct, 61.25, 1e-9);
        ASSERT_NEAR(f.excluded_pct, 270.0 / 800.0 * 100.0, 1e-9);
        ASSERT_TRUE(f.foreign_pct > METRICS_CONTENDED_PCT);
}

TEST(only_qemu_excluded) {
        struct hostload_snap s0 = load_ok("start", 100.0), s1 = load_ok("quiet", 104.0);
        struct hostload_figures f;

        /* Without kbench in the set its 8 ticks become foreign: (404 - 380) / 800. */
        s0.n_procs = s1.n_procs = 1;
        ASSERT_EQ(hostload_compute(&s0, &s1, 100, &f, NULL), 0);
        ASSERT_NEAR(f.foreign_pct, 24.0 / 800.0 * 100.0, 1e-9);
}

TEST(wall_time_scales) {
        struct hostload_snap s0 = load_ok("start", 100.0), s1 = load_ok("quiet", 108.0);
        struct hostload_figures f;

        /* The same 16 ticks over 8 s: capacity 1600 ticks, 1.0 %. */
        ASSERT_EQ(hostload_compute(&s0, &s1, 100, &f, NULL), 0);
        ASSERT_NEAR(f.foreign_pct, 1.0, 1e-9);
        ASSERT_NEAR(f.wall_s, 8.0, 1e-12);
}

TEST(steal_is_foreign) {
        struct hostload_snap s0 = load_ok("start", 100.0), s1 = load_ok("quiet", 104.0);
        struct hostload_figures f;

        /* 40 ticks the hypervisor gave away: (16 + 40) / 800 = 7.0 %.
         * iowait and idle are not busy: adding to them changes nothing. */
        s1.cpu[HOSTLOAD_STEAL] += 40;
        s1.cpu[HOSTLOAD_IOWAIT] += 100;
        ASSERT_EQ(hostload_compute(&s0, &s1, 100, &f, NULL), 0);
        ASSERT_NEAR(f.foreign_pct, 7.0, 1e-9);
}

TEST(clamped) {
        struct hostload_snap s0 = load_ok("start", 100.0), s1 = load_ok("quiet", 104.0);
        struct hostload_figures f;

        /* Per-process times are exact, /proc/stat is sampled per tick: QEMU
         * may show more than the host counted as busy. Not below zero. */
        s1.procs[0].ticks += 100;
        ASSERT_EQ(hostload_compute(&s0, &s1, 100, &f, NULL), 0);
        ASSERT_NEAR(f.foreign_pct, 0.0, 1e-12);
        /* Nor above 100 % (a window measured too short). */
        s1 = load_ok("busy", 100.1);
        ASSERT_EQ(hostload_compute(&s0, &s1, 100, &f, NULL), 0);
        ASSERT_NEAR(f.foreign_pct, 100.0, 1e-12);
}

TEST(vanished) {
        struct hostload_snap s;
        struct kb_error err = { "" };

        ASSERT_EQ(load("vanished", 104.0, &s, &err), -ESRCH);
        ASSERT_TRUE(strstr(err.msg, "/vanished/proc/4242/stat: the process is gone") != NULL);
}

TEST(pid_reused) {
        struct hostload_figures f;
        struct kb_error err = { "" };

        ASSERT_EQ(compute("start", "reused", &f, &err), -ESRCH);
        ASSERT_STREQ(err.msg, "/proc/4242/stat: another process took the pid");
}

TEST(counter_backwards) {
        struct hostload_figures f;
        struct kb_error err = { "" };

        ASSERT_EQ(compute("start", "backwards", &f, &err), -ERANGE);
        ASSERT_STREQ(err.msg, "/proc/stat: cpu user went backwards (100000 -> 99000)");
}

TEST(process_ticks_backwards) {
        struct hostload_snap s0 = load_ok("start", 100.0), s1 = load_ok("quiet", 104.0);
        struct kb_error err = { "" };
        struct hostload_figures f;

        s1.procs[1].ticks = 189;
        ASSERT_EQ(hostload_compute(&s0, &s1, 100, &f, &err), -ERANGE);
        ASSERT_STREQ(err.msg, "/proc/4300/stat: cpu times went backwards (190 -> 189)");
}

TEST(compute_refusals) {
        struct hostload_snap s0 = load_ok("start", 100.0), s1 = load_ok("quiet", 104.0), t;
        struct hostload_figures f = { .foreign_pct = -1 };
        struct kb_error err = { "" };

        ASSERT_EQ(hostload_compute(&s0, &s0, 100, &f, &err), -EINVAL);          /* no time */
        ASSERT_EQ(hostload_compute(&s1, &s0, 100, &f, &err), -EINVAL);          /* time reversed */
        ASSERT_EQ(hostload_compute(&s0, &s1, 0, &f, &err), -EINVAL);
        t = s1;
        t.ncpus = 3;
        ASSERT_EQ(hostload_compute(&s0, &t, 100, &f, &err), -ERANGE);
        ASSERT_STREQ(err.msg, "/proc/stat: CPUs online changed from 2 to 3");
        t = s1;
        t.n_procs = 1;
        ASSERT_EQ(hostload_compute(&s0, &t, 100, &f, &err), -EINVAL);
        t = s1;
        t.procs[0].pid = 4243;
        ASSERT_EQ(hostload_compute(&s0, &t, 100, &f, &err), -EINVAL);
        /* ret untouched on every failure */
        ASSERT_NEAR(f.foreign_pct, -1.0, 1e-12);
}

TEST(malformed_tree) {
        struct hostload_snap s = { .ncpus = 99 };
        struct kb_error err = { "" };

        ASSERT_EQ(load("malformed", 104.0, &s, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "/malformed/proc/stat: cpu iowait missing or not a number") != NULL);
        ASSERT_EQ(s.ncpus, 99);
}

TEST(missing_root) {
        struct hostload_snap s;
        struct kb_error err = { "" };

        ASSERT_EQ(load("no-such-tree", 1.0, &s, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "/no-such-tree/proc/stat: no such file") != NULL);
        ASSERT_EQ(hostload_read("/", pids, HOSTLOAD_PIDS_MAX + 1, 1.0, &s, &err), -EINVAL);
}

static int stat_text(const char *text, struct hostload_snap *s, struct kb_error *err) {
        return hostload_parse_stat(text, strlen(text), "stat", s, err);
}

TEST(parse_stat) {
        struct hostload_snap s = { 0 };
        struct kb_error err = { "" };

        /* Pre-2.6.33 kernels end at steal; no trailing newline. */
        ASSERT_EQ(stat_text("cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8", &s, &err), 0);
        ASSERT_EQ(s.cpu[HOSTLOAD_STEAL], 8);
        ASSERT_EQ(s.ncpus, 1);
        /* Tabs, and the largest value a counter can hold. */
        ASSERT_EQ(stat_text("cpu\t18446744073709551615 0 0 0 0 0 0 0 0 0\ncpu0 0\ncpu1 0\ncpu7 0\n", &s, &err), 0);
        ASSERT_TRUE(s.cpu[HOSTLOAD_USER] == UINT64_MAX);
        ASSERT_EQ(s.ncpus, 3);
}

TEST(parse_stat_hostile) {
        static const struct { const char *text, *msg; } bad[] = {
                { "", "stat: no aggregate cpu line" },
                { "intr 1 2 3\n", "stat: no aggregate cpu line" },
                { "cpu  1 2 3 4 5 6 7\ncpu0 1\n", "stat: cpu steal missing or not a number" },
                { "cpu  1 2 3 4 5 6 7 8\n", "stat: no cpuN lines" },
                { "cpu  1 2 3 -4 5 6 7 8\ncpu0\n", "stat: cpu idle missing or not a number" },
                { "cpu  1 2 3 4x 5 6 7 8\ncpu0\n", "stat: cpu idle missing or not a number" },
                { "cpu  18446744073709551616 2 3 4 5 6 7 8\ncpu0\n", "stat: cpu user out of range" },
                { "cpu  1 2 3 4 5 6 7 8 9 z\ncpu0\n", "stat: cpu field 10 not a number" },
                { "cpu  1 2 3 4 5 6 7 8\ncpu  1 2 3 4 5 6 7 8\ncpu0\n", "stat: two aggregate cpu lines" },
        };
        struct hostload_snap s = { .ncpus = 42 };
        struct kb_error err;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                err.msg[0] = '\0';
                if (stat_text(bad[i].text, &s, &err) != -EBADMSG)
                        TEST_FAIL("accepted: %s", bad[i].text);
                ASSERT_STREQ(err.msg, bad[i].msg);
        }
        ASSERT_EQ(s.ncpus, 42);
}

TEST(parse_stat_bounds) {
        struct hostload_snap s = { 0 };
        struct kb_error err = { "" };
        char buf[8192];
        size_t n;

        /* A long line the parser does not read is skipped... */
        n = (size_t)snprintf(buf, sizeof(buf), "cpu  1 2 3 4 5 6 7 8\ncpu0 1\nintr ");
        memset(buf + n, '1', 6000);
        n += 6000;
        buf[n++] = '\n';
        ASSERT_EQ(hostload_parse_stat(buf, n, "stat", &s, &err), 0);
        /* ...a cpu line that long is malformed. */
        n = (size_t)snprintf(buf, sizeof(buf), "cpu0 1\ncpu  1 2 3 4 5 6 7 8");
        memset(buf + n, ' ', 2000);
        n += 2000;
        ASSERT_EQ(hostload_parse_stat(buf, n, "stat", &s, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "stat: cpu line longer than 1024 bytes");
        /* The length is respected: "8" is beyond len, so steal is missing. */
        strcpy(buf, "cpu0 1\ncpu  1 2 3 4 5 6 7 8");
        ASSERT_EQ(hostload_parse_stat(buf, strlen(buf) - 1, "stat", &s, &err), -EBADMSG);
        /* A NUL byte in the line would hide its end from strtoull. */
        memcpy(buf, "cpu0 1\ncpu  1 2 3\0 5 6 7 8\n", 28);
        ASSERT_EQ(hostload_parse_stat(buf, 28, "stat", &s, &err), -EBADMSG);
        ASSERT_STREQ(err.msg, "stat: NUL byte in the cpu line");
}

static int pid_text(const char *text, struct hostload_proc *p, struct kb_error *err) {
        return hostload_parse_pid_stat(text, strlen(text), "4242/stat", p, err);
}

TEST(parse_pid_stat) {
        struct hostload_proc p;
        struct kb_error err = { "" };

        /* comm may hold blanks and parentheses; only the last ')' ends it. */
        ASSERT_EQ(pid_text("77 (a) (b c)) R 1 77 77 0 -1 0 0 0 0 0 11 22 33 44 20 -5 1 0 555 0 0\n", &p, &err), 0);
        ASSERT_EQ(p.pid, 77);
        /* utime + stime; the children's times (33, 44) are not the process's. */
        ASSERT_EQ(p.ticks, 11 + 22);
        ASSERT_EQ(p.starttime, 555);
        /* Exactly 22 fields, no newline. */
        ASSERT_EQ(pid_text("8 (x) S 1 8 8 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9", &p, &err), 0);
        ASSERT_EQ(p.ticks, 3);
        ASSERT_EQ(p.starttime, 9);
}

TEST(parse_pid_stat_hostile) {
        static const struct { const char *text, *msg; } bad[] = {
                { "", "4242/stat: empty" },
                { "77 qemu R 1", "4242/stat: no (comm) field" },
                { "77 )qemu( R 1", "4242/stat: no (comm) field" },
                { "x (qemu) R 1", "4242/stat: bad pid field" },
                { "0 (qemu) R 1", "4242/stat: bad pid field" },
                { "99999999999 (qemu) R 1", "4242/stat: bad pid field" },
                { "77 (qemu) 1 1", "4242/stat: bad state field" },
                { "77 (qemu) R", "4242/stat: bad state field" },
                { "77 (qemu) R 1 77 77 0 -1 0 0 0 0 0 11 22 33 44 20 0 1 0", "4242/stat: field 22 missing or not a number" },
                { "77 (qemu) R 1 77 77 0 -1 0 0 0 0 0 -11 22 33 44 20 0 1 0 5", "4242/stat: field 14 missing or not a number" },
                { "77 (qemu) R 1 77 77 0 -1 0 0 0 0 0 11 22 33 4a 20 0 1 0 5", "4242/stat: field 17 missing or not a number" },
                { "77 (qemu) R 1 77 77 0 -1 0 0 0 0 0 11 22 33 44 20 0 1 0 99999999999999999999", "4242/stat: field 22 missing or not a number" },
                { "77 (qemu) R 1 77 77 0 -1 0 0 0 0 0 18446744073709551615 1 0 0 20 0 1 0 5", "4242/stat: cpu times out of range" },
                { "77 (qemu) R - 77", "4242/stat: field 4 missing or not a number" },
        };
        struct hostload_proc p = { .pid = -7 };
        struct kb_error err;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                err.msg[0] = '\0';
                if (pid_text(bad[i].text, &p, &err) != -EBADMSG)
                        TEST_FAIL("accepted: %s", bad[i].text);
                ASSERT_STREQ(err.msg, bad[i].msg);
        }
        ASSERT_EQ(p.pid, -7);
}

TEST(parse_loadavg) {
        static const char *const bad[] = { "", "-1 0 0 1/1 1", "x 0 0", "0.5x 0 0", "1e999 0 0", "nan 0 0" };
        struct kb_error err = { "" };
        double v = -1;

        ASSERT_EQ(hostload_parse_loadavg("12.75 3.00 1.00 9/400 4242\n", 27, "loadavg", &v, &err), 0);
        ASSERT_NEAR(v, 12.75, 1e-12);
        ASSERT_EQ(hostload_parse_loadavg("0.00", 4, "loadavg", &v, &err), 0);
        ASSERT_NEAR(v, 0.0, 1e-12);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                v = -1;
                if (hostload_parse_loadavg(bad[i], strlen(bad[i]), "loadavg", &v, &err) != -EBADMSG)
                        TEST_FAIL("accepted: %s", bad[i]);
                ASSERT_NEAR(v, -1.0, 1e-12);
        }
        ASSERT_STREQ(err.msg, "loadavg: first load average not a number");
}

TEST(this_host) {
        int self = (int)getpid();
        struct hostload_snap s0, s1;
        struct hostload_figures f;
        struct kb_error err = { "" };
        long tck = sysconf(_SC_CLK_TCK);
        volatile double x = 0;

        /* The real /proc parses, and this process's own spinning is excluded. */
        if (hostload_read("", &self, 1, 0.0, &s0, &err) < 0)
                TEST_FAIL("%s", err.msg);
        for (long i = 0; i < 20000000; i++)
                x += 1.0;
        if (hostload_read("", &self, 1, 1.0, &s1, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_TRUE(s0.ncpus >= 1);
        ASSERT_EQ(s1.procs[0].pid, self);
        ASSERT_TRUE(s1.procs[0].ticks >= s0.procs[0].ticks);
        ASSERT_TRUE(tck > 0);
        ASSERT_EQ(hostload_compute(&s0, &s1, (unsigned)tck, &f, &err), 0);
        ASSERT_TRUE(f.foreign_pct >= 0 && f.foreign_pct <= 100);
}

TEST(status_uids) {
        const char ok[] = "Name:\tqemu-system-x86\nUmask:\t0022\nState:\tS (sleeping)\n"
                          "Uid:\t999\t998\t997\t996\nGid:\t109\t109\t109\t109\n";
        const char *bad[] = {
                "Name:\tx\nGid:\t0\t0\t0\t0\n",            /* no Uid line */
                "Uid:\t0\t0\t0\n",                          /* three fields */
                "Uid:\t0\t0\t0\t0\t0\n",                    /* five */
                "Uid:\t0\t-1\t0\t0\n",                       /* not a number */
                "Uid:\t0\t0x1\t0\t0\n",
                "Uid:\t0\t4294967296\t0\t0\n",               /* above 32 bits */
        };
        uint64_t uids[4] = { 7, 7, 7, 7 };
        struct kb_error err = { "" };
        uint64_t self[4];

        ASSERT_EQ(hostload_parse_status_uids(ok, strlen(ok), "status", uids, &err), 0);
        ASSERT_EQ(uids[0], 999);
        ASSERT_EQ(uids[1], 998);
        ASSERT_EQ(uids[2], 997);
        ASSERT_EQ(uids[3], 996);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                uint64_t left[4] = { 7, 7, 7, 7 };

                ASSERT_EQ(hostload_parse_status_uids(bad[i], strlen(bad[i]), "st", left, &err), -EBADMSG);
                ASSERT_TRUE(strncmp(err.msg, "st: ", 4) == 0);
                ASSERT_EQ(left[1], 7);
        }
        /* This process, from the real /proc. */
        ASSERT_EQ(hostload_read_uids("", (int)getpid(), self, &err), 0);
        ASSERT_EQ(self[0], (uint64_t)getuid());
        ASSERT_EQ(self[1], (uint64_t)geteuid());
        ASSERT_EQ(hostload_read_uids("", 0, self, &err), -ESRCH);
}

TEST(uri_local) {
        ASSERT_TRUE(hostload_uri_local("qemu:///embed?root=/home/u/.kbench/libvirt"));
        ASSERT_TRUE(hostload_uri_local("qemu:///system"));
        ASSERT_TRUE(hostload_uri_local("qemu+unix:///session"));
        ASSERT_TRUE(!hostload_uri_local("qemu+ssh://bench1/system"));
        ASSERT_TRUE(!hostload_uri_local("qemu://localhost/system"));
        ASSERT_TRUE(!hostload_uri_local("qemu+tcp://127.0.0.1/system"));
        ASSERT_TRUE(!hostload_uri_local("test:///default"));
        ASSERT_TRUE(!hostload_uri_local(""));
        ASSERT_TRUE(!hostload_uri_local(NULL));
}

TEST(find_qemu) {
        char root[4096];
        struct kb_error err = { "" };
        int pid = -1;

        snprintf(root, sizeof(root), "%s/start", HOSTLOAD_FIXTURES);
        /* 4242 and 4250 both name the domain; 4242 started later (880000 >
         * 700000 ticks). 4260 names kb99-r1-c0001, kbench's own command line
         * (4300) holds the name but not as guest=. */
        if (hostload_find_qemu(root, "kb99-r1-c000", &pid, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(pid, 4242);
        ASSERT_EQ(hostload_find_qemu(root, "kb99-r1-c0001", &pid, &err), 0);
        ASSERT_EQ(pid, 4260);
        pid = -1;
        ASSERT_EQ(hostload_find_qemu(root, "kb99-r1-c00", &pid, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "/start/proc: no QEMU process for domain kb99-r1-c00") != NULL);
        ASSERT_EQ(hostload_find_qemu(root, "kb99-r1", &pid, &err), -ENOENT);
        ASSERT_EQ(hostload_find_qemu(root, "a,b", &pid, &err), -EINVAL);
        ASSERT_EQ(hostload_find_qemu(root, "", &pid, &err), -EINVAL);
        ASSERT_EQ(pid, -1);
        snprintf(root, sizeof(root), "%s/no-such-tree", HOSTLOAD_FIXTURES);
        ASSERT_EQ(hostload_find_qemu(root, "kb99-r1-c000", &pid, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "/no-such-tree/proc: ") != NULL);
}
