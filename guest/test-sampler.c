/* Tests for guest/sampler: parse /proc snapshots captured on a real host
 * (tests/data/proc/t0 and t1, taken around a 200 MiB dd with conv=fsync) and
 * check the vmstat arithmetic against values worked out by hand from them. */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "guest/sampler.h"

#ifndef PROC_FIXTURES
#error "PROC_FIXTURES must point at tests/data/proc"
#endif

static struct sampler_snapshot load(const char *which) {
        struct sampler_snapshot s;
        char root[4096];

        snprintf(root, sizeof(root), "%s/%s", PROC_FIXTURES, which);
        ASSERT_EQ(sampler_read(root, &s), 0);
        return s;
}

TEST(read_fixture) {
        struct sampler_snapshot s = load("t0");

        ASSERT_EQ(s.cpu[SAMPLER_CPU_USER], 5019);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_SYSTEM], 3276);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_IDLE], 59076);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_IOWAIT], 854);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_SOFTIRQ], 61);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_STEAL], 117);
        ASSERT_EQ(s.ncpus, 2);
        ASSERT_EQ(s.intr, 166443);
        ASSERT_EQ(s.ctxt, 476001);
        ASSERT_EQ(s.procs_running, 2);
        ASSERT_EQ(s.procs_blocked, 0);
        ASSERT_EQ(s.pgpgin, 1204241);
        ASSERT_EQ(s.pgpgout, 626580);
        ASSERT_EQ(s.pswpin, 0);
        ASSERT_EQ(s.mem_total, 24684092);
        ASSERT_EQ(s.mem_free, 23163500);
        ASSERT_EQ(s.buffers, 12720);
        ASSERT_EQ(s.cached, 1141084);
        ASSERT_EQ(s.sreclaimable, 103880);
        ASSERT_EQ(s.dirty, 830816);
        ASSERT_EQ(s.writeback, 0);
}

TEST(boot_row) {
        struct sampler_snapshot s = load("t0");
        struct sampler_row r;

        sampler_boot_row(&s, 100, 4, &r);
        /* jiffies 68403 over 2 cpus at 100 Hz: uptime 342.015 s */
        ASSERT_EQ(r.r, 2);
        ASSERT_EQ(r.free, 23163500);
        ASSERT_EQ(r.buff, 12720);
        ASSERT_EQ(r.cache, 1141084 + 103880);
        ASSERT_EQ(r.swpd, 0);
        ASSERT_EQ(r.bi, 3521);   /* 1204241 / 342.015 = 3521.04 */
        ASSERT_EQ(r.bo, 1832);   /* 626580 / 342.015 = 1832.01 */
        ASSERT_EQ(r.in, 487);    /* 166443 / 342.015 = 486.65 */
        ASSERT_EQ(r.cs, 1392);   /* 476001 / 342.015 = 1391.75 */
        ASSERT_EQ(r.us, 7);      /* 5019 / 68403 = 7.34 % */
        ASSERT_EQ(r.sy, 5);      /* (3276 + 61) / 68403 = 4.88 % */
        ASSERT_EQ(r.id, 86);     /* 59076 / 68403 = 86.36 % */
        ASSERT_EQ(r.wa, 1);      /* 854 / 68403 = 1.25 % */
        ASSERT_EQ(r.st, 0);      /* 117 / 68403 = 0.17 % */
        ASSERT_EQ(r.gu, 0);
        ASSERT_EQ(r.dirty, 830816);
}

TEST(delta_row) {
        struct sampler_snapshot a = load("t0"), b = load("t1");
        struct sampler_row r;

        sampler_delta_row(&a, &b, 2000, 4, &r);
        ASSERT_EQ(r.r, 1);
        ASSERT_EQ(r.free, 22980288);
        ASSERT_EQ(r.cache, 1351168 + 109340);
        ASSERT_EQ(r.bi, 1518);   /* (1207277 - 1204241) / 2 */
        ASSERT_EQ(r.bo, 102418); /* (831416 - 626580) / 2 */
        ASSERT_EQ(r.in, 276);    /* (166995 - 166443) / 2 */
        ASSERT_EQ(r.cs, 262);    /* (476525 - 476001) / 2 */
        /* jiffy deltas: user 11, system 93, idle 251, iowait 7 = 362 */
        ASSERT_EQ(r.us, 3);
        ASSERT_EQ(r.sy, 26);
        ASSERT_EQ(r.id, 69);
        ASSERT_EQ(r.wa, 2);
        ASSERT_EQ(r.st, 0);
        ASSERT_EQ(r.dirty, 833624);
        ASSERT_EQ(r.writeback, 0);

        /* Rates use the real elapsed time: 1.5 s gives 2/3 of the 1 s figure. */
        sampler_delta_row(&a, &b, 1500, 4, &r);
        ASSERT_EQ(r.in, 368);    /* 552 / 1.5 */
}

TEST(swap_and_guest_columns) {
        struct sampler_snapshot a = load("t0"), b = load("t1");
        struct sampler_row r;

        /* The fixture host has no swap and runs no guests: shift counters to
         * exercise those columns. */
        a.pswpin = 1000, b.pswpin = 1250;
        a.pswpout = 0, b.pswpout = 3;
        b.swap_total = 131068, b.swap_free = 130000;
        b.cpu[SAMPLER_CPU_USER] += 100;
        b.cpu[SAMPLER_CPU_GUEST] = a.cpu[SAMPLER_CPU_GUEST] + 100;
        sampler_delta_row(&a, &b, 1000, 4, &r);
        ASSERT_EQ(r.si, 1000);   /* 250 pages * 4 kB */
        ASSERT_EQ(r.so, 12);
        ASSERT_EQ(r.swpd, 1068);
        ASSERT_EQ(r.us, 2);      /* 11 of 462 jiffies; the 100 guest ones move to gu */
        ASSERT_EQ(r.gu, 22);     /* 100 / 462 = 21.6 % */

        /* Counters that went backwards (a reset) give 0, not a huge number. */
        sampler_delta_row(&b, &a, 1000, 4, &r);
        ASSERT_EQ(r.bi, 0);
        ASSERT_EQ(r.si, 0);
        ASSERT_EQ(r.id, 100);
}

TEST(format) {
        struct sampler_snapshot a = load("t0"), b = load("t1");
        struct sampler_row r;
        char line[256], small[20];
        int n;

        sampler_delta_row(&a, &b, 2000, 4, &r);
        n = sampler_format_row(line, sizeof(line), &r);
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    0    0  1518 102418  276  262"
                           "  3 26 69  2  0  0 833624         0");
        ASSERT_EQ(sampler_format_row(small, sizeof(small), &r), -ENOSPC);
        /* The names line splits into the same 20 fields as a row. */
        {
                int fields = 0, in_word = 0;
                for (const char *p = sampler_header_names; *p; p++) {
                        if (*p != ' ' && !in_word)
                                fields++;
                        in_word = *p != ' ';
                }
                ASSERT_EQ(fields, 20);
        }
}

TEST(parse_errors) {
        struct sampler_snapshot s, before;
        static const char stat_ok[] = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5 0 0\nctxt 6\nprocs_running 1\nprocs_blocked 0\n";
        static const char stat_no_ctxt[] = "cpu  1 2 3 4\nintr 5\nprocs_running 1\nprocs_blocked 0\n";
        static const char stat_short_cpu[] = "cpu  1 2 3\nintr 5\nctxt 6\nprocs_running 1\nprocs_blocked 0\n";
        static const char stat_overflow[] = "cpu  1 2 3 4\nintr 99999999999999999999\nctxt 6\nprocs_running 1\nprocs_blocked 0\n";
        static const char vm_missing[] = "pgpgin 1\npgpgout 2\npswpin 3\n";
        static const char mem_bad[] = "MemTotal: x kB\n";
        static const char mem_old[] = "MemTotal: 1 kB\nMemFree: 2 kB\nBuffers: 3 kB\nCached: 4 kB\n"
                                      "SwapTotal: 5 kB\nSwapFree: 5 kB\nDirty: 6 kB\nWriteback: 7 kB\n";

        memset(&s, 0x5a, sizeof(s));
        before = s;
        ASSERT_EQ(sampler_parse_stat(stat_no_ctxt, strlen(stat_no_ctxt), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_stat(stat_short_cpu, strlen(stat_short_cpu), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_stat(stat_overflow, strlen(stat_overflow), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_vmstat(vm_missing, strlen(vm_missing), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_meminfo(mem_bad, strlen(mem_bad), &s), -EBADMSG);
        ASSERT_TRUE(memcmp(&s, &before, sizeof(s)) == 0);   /* untouched on failure */

        /* Truncated in the middle of "ctxt": the bound is len, not the NUL. */
        ASSERT_EQ(sampler_parse_stat(stat_ok, strlen(stat_ok), &s), 0);
        ASSERT_EQ(s.ncpus, 1);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_STEAL], 0);
        ASSERT_EQ(sampler_parse_stat(stat_ok, 40, &s), -EBADMSG);

        /* Kernels before 2.6.19 have no SReclaimable: cache is Cached alone. */
        ASSERT_EQ(sampler_parse_meminfo(mem_old, strlen(mem_old), &s), 0);
        ASSERT_EQ(s.sreclaimable, 0);
        ASSERT_EQ(s.writeback, 7);
}

TEST(read_missing_root) {
        struct sampler_snapshot s;

        ASSERT_EQ(sampler_read("/nonexistent-kbench-root", &s), -ENOENT);
}

TEST_MAIN();
