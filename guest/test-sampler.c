/* Tests for guest/sampler: parse /proc snapshots captured on a real host
 * (tests/data/proc/t0 and t1, taken around a 200 MiB dd with conv=fsync) and
 * trees standing for kernels that lack counters (tests/data/proc/README.md),
 * and check the vmstat arithmetic against values worked out by hand. */
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
        ASSERT_EQ(sampler_read(root, "vda", &s), 0);
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
        ASSERT_EQ(r.v[KB_VM_r], 2);
        ASSERT_EQ(r.v[KB_VM_free], 23163500);
        ASSERT_EQ(r.v[KB_VM_buff], 12720);
        ASSERT_EQ(r.v[KB_VM_cache], 1141084 + 103880);
        ASSERT_EQ(r.v[KB_VM_swpd], 0);
        ASSERT_EQ(r.v[KB_VM_bi], 3521);   /* 1204241 / 342.015 = 3521.04 */
        ASSERT_EQ(r.v[KB_VM_bo], 1832);   /* 626580 / 342.015 = 1832.01 */
        ASSERT_EQ(r.v[KB_VM_in], 487);    /* 166443 / 342.015 = 486.65 */
        ASSERT_EQ(r.v[KB_VM_cs], 1392);   /* 476001 / 342.015 = 1391.75 */
        ASSERT_EQ(r.v[KB_VM_us], 7);      /* 5019 / 68403 = 7.34 % */
        ASSERT_EQ(r.v[KB_VM_sy], 5);      /* (3276 + 61) / 68403 = 4.88 % */
        ASSERT_EQ(r.v[KB_VM_id], 86);     /* 59076 / 68403 = 86.36 % */
        ASSERT_EQ(r.v[KB_VM_wa], 1);      /* 854 / 68403 = 1.25 % */
        ASSERT_EQ(r.v[KB_VM_st], 0);      /* 117 / 68403 = 0.17 % */
        ASSERT_EQ(r.v[KB_VM_gu], 0);
        ASSERT_EQ(r.v[KB_VM_dirty], 830816);
}

TEST(delta_row) {
        struct sampler_snapshot a = load("t0"), b = load("t1");
        struct sampler_row r;

        sampler_delta_row(&a, &b, 2000, 4, &r);
        ASSERT_EQ(r.v[KB_VM_r], 1);
        ASSERT_EQ(r.v[KB_VM_free], 22980288);
        ASSERT_EQ(r.v[KB_VM_cache], 1351168 + 109340);
        ASSERT_EQ(r.v[KB_VM_bi], 1518);   /* (1207277 - 1204241) / 2 */
        ASSERT_EQ(r.v[KB_VM_bo], 102418); /* (831416 - 626580) / 2 */
        ASSERT_EQ(r.v[KB_VM_in], 276);    /* (166995 - 166443) / 2 */
        ASSERT_EQ(r.v[KB_VM_cs], 262);    /* (476525 - 476001) / 2 */
        /* jiffy deltas: user 11, system 93, idle 251, iowait 7 = 362 */
        ASSERT_EQ(r.v[KB_VM_us], 3);
        ASSERT_EQ(r.v[KB_VM_sy], 26);
        ASSERT_EQ(r.v[KB_VM_id], 69);
        ASSERT_EQ(r.v[KB_VM_wa], 2);
        ASSERT_EQ(r.v[KB_VM_st], 0);
        ASSERT_EQ(r.v[KB_VM_dirty], 833624);
        ASSERT_EQ(r.v[KB_VM_writeback], 0);

        /* Rates use the real elapsed time: 1.5 s gives 2/3 of the 1 s figure. */
        sampler_delta_row(&a, &b, 1500, 4, &r);
        ASSERT_EQ(r.v[KB_VM_in], 368);    /* 552 / 1.5 */
}

/* --vmstat-interval 0.25: the same readings 250 ms apart are four times the
 * rate per second, so a stall threshold in blocks/s means the same at any
 * interval; shares of CPU time do not depend on the interval. */
TEST(quarter_second_interval) {
        struct sampler_snapshot a = load("t0"), b = load("t1");
        struct sampler_row r;

        sampler_delta_row(&a, &b, 250, 4, &r);
        ASSERT_EQ(r.v[KB_VM_bi], 12144);  /* 3036 / 0.25 */
        ASSERT_EQ(r.v[KB_VM_bo], 819344); /* 204836 / 0.25 */
        ASSERT_EQ(r.v[KB_VM_in], 2208);   /* 552 / 0.25 */
        ASSERT_EQ(r.v[KB_VM_cs], 2096);   /* 524 / 0.25 */
        ASSERT_EQ(r.v[KB_VM_us], 3);
        ASSERT_EQ(r.v[KB_VM_sy], 26);
        ASSERT_EQ(r.v[KB_VM_free], 22980288);
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
        ASSERT_EQ(r.v[KB_VM_si], 1000);   /* 250 pages * 4 kB */
        ASSERT_EQ(r.v[KB_VM_so], 12);
        ASSERT_EQ(r.v[KB_VM_swpd], 1068);
        ASSERT_EQ(r.v[KB_VM_us], 2);      /* 11 of 462 jiffies; the 100 guest ones move to gu */
        ASSERT_EQ(r.v[KB_VM_gu], 22);     /* 100 / 462 = 21.6 % */

        /* Counters that went backwards (a reset) give 0, not a huge number. */
        sampler_delta_row(&b, &a, 1000, 4, &r);
        ASSERT_EQ(r.v[KB_VM_bi], 0);
        ASSERT_EQ(r.v[KB_VM_si], 0);
        ASSERT_EQ(r.v[KB_VM_id], 100);
}

TEST(format) {
        struct sampler_snapshot a = load("t0"), b = load("t1");
        struct sampler_row r;
        char line[SAMPLER_ROW_MAX], small[20];
        int n;

        sampler_delta_row(&a, &b, 2000, 4, &r);
        n = sampler_format_row(line, sizeof(line), &r);
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    0    0  1518 102418  276  262"
                           "  3 26 69  2  0  0 833624         0"
                           "   208406            0      1210318    604420      0       0          0    -    -      -      -        -    -");
        ASSERT_EQ(sampler_format_row(small, sizeof(small), &r), -ENOSPC);

        /* An absent column prints as "-" in its own width, never as 0. */
        r.have &= ~((1ull << KB_VM_bi) | (1ull << KB_VM_bo));
        n = sampler_format_row(line, sizeof(line), &r);
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    0    0     -     -  276  262"
                           "  3 26 69  2  0  0 833624         0"
                           "   208406            0      1210318    604420      0       0          0    -    -      -      -        -    -");
        ASSERT_EQ(sampler_format_row(small, sizeof(small), &r), -ENOSPC);
}

/* The header lines come from common/vmstat-columns.h: right-aligned names
 * (procps's layout) and groups spanning their columns. */
TEST(header) {
        char names[SAMPLER_HEADER_MAX], groups[SAMPLER_HEADER_MAX], small[40];
        int fields = 0, in_word = 0;

        ASSERT_TRUE(sampler_format_names(names, sizeof(names)) > 0);
        ASSERT_STREQ(names, " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs"
                            " us sy id wa st gu  dirty writeback"
                            " nr_dirty nr_writeback dirty_thresh bg_thresh pgscan pgsteal allocstall"
                            "   rd   wr  rsect  wsect inflight util");
        ASSERT_TRUE(sampler_format_groups(groups, sizeof(groups)) > 0);
        ASSERT_STREQ(groups, "procs -----------memory---------- ---swap-- -----io---- --system- "
                             "-------cpu------- -----kbench----- "
                             "----------------------------------vm----------------------------------"
                             " -----------------disk----------------");
        /* Same length: every group sits over its columns. */
        ASSERT_EQ(strlen(groups), strlen(names));
        for (const char *p = names; *p; p++) {
                if (*p != ' ' && !in_word)
                        fields++;
                in_word = *p != ' ';
        }
        ASSERT_EQ(fields, KB_VM_NCOLS);
        ASSERT_EQ(sampler_format_names(small, sizeof(small)), -ENOSPC);
        ASSERT_EQ(sampler_format_groups(small, sizeof(small)), -ENOSPC);
}

TEST(parse_errors) {
        struct sampler_snapshot s, before;
        static const char stat_ok[] = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5 0 0\nctxt 6\nprocs_running 1\nprocs_blocked 0\n";
        static const char stat_short_cpu[] = "cpu  1 2 3\nintr 5\nctxt 6\nprocs_running 1\nprocs_blocked 0\n";
        static const char stat_overflow[] = "cpu  1 2 3 4\nintr 99999999999999999999\nctxt 6\nprocs_running 1\nprocs_blocked 0\n";
        static const char vm_bad[] = "pgpgin 1\npgpgout x\n";
        static const char mem_bad[] = "MemTotal: x kB\n";
        static const char mem_old[] = "MemTotal: 1 kB\nMemFree: 2 kB\nBuffers: 3 kB\nCached: 4 kB\n"
                                      "SwapTotal: 5 kB\nSwapFree: 5 kB\nDirty: 6 kB\nWriteback: 7 kB\n";

        memset(&s, 0x5a, sizeof(s));
        before = s;
        ASSERT_EQ(sampler_parse_stat(stat_short_cpu, strlen(stat_short_cpu), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_stat(stat_overflow, strlen(stat_overflow), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_vmstat(vm_bad, strlen(vm_bad), &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_meminfo(mem_bad, strlen(mem_bad), &s), -EBADMSG);
        ASSERT_TRUE(memcmp(&s, &before, sizeof(s)) == 0);   /* untouched on failure */

        /* Truncated in the middle of "ctxt": the bound is len, not the NUL. */
        ASSERT_EQ(sampler_parse_stat(stat_ok, strlen(stat_ok), &s), 0);
        ASSERT_EQ(s.ncpus, 1);
        ASSERT_EQ(s.cpu[SAMPLER_CPU_STEAL], 0);
        ASSERT_TRUE(s.have & SAMPLER_HAVE_CTXT);
        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_stat(stat_ok, 40, &s), 0);
        ASSERT_TRUE(!(s.have & SAMPLER_HAVE_CTXT));

        /* Kernels before 2.6.19 have no SReclaimable: cache is Cached alone. */
        ASSERT_EQ(sampler_parse_meminfo(mem_old, strlen(mem_old), &s), 0);
        ASSERT_EQ(s.sreclaimable, 0);
        ASSERT_EQ(s.writeback, 7);
}

/* A kernel without CONFIG_VM_EVENT_COUNTERS (tests/data/proc/noevents-*):
 * bi bo si so are absent, every other column is as on the full kernel. */
TEST(no_event_counters) {
        struct sampler_snapshot a = load("noevents-t0"), b = load("noevents-t1");
        struct sampler_row r;
        char note[SAMPLER_NOTE_MAX], line[SAMPLER_ROW_MAX];
        const uint64_t io = (1ull << KB_VM_si) | (1ull << KB_VM_so) | (1ull << KB_VM_bi) | (1ull << KB_VM_bo);
        const uint64_t reclaim = (1ull << KB_VM_pgscan) | (1ull << KB_VM_pgsteal) | (1ull << KB_VM_allocstall);
        const uint64_t disk = (1ull << KB_VM_rd) | (1ull << KB_VM_wr) | (1ull << KB_VM_rsect) |
                              (1ull << KB_VM_wsect) | (1ull << KB_VM_inflight) | (1ull << KB_VM_util);

        ASSERT_TRUE(a.have & SAMPLER_HAVE_VMSTAT_FILE);
        ASSERT_TRUE(!(a.have & (SAMPLER_HAVE_PGPGIN | SAMPLER_HAVE_PGPGOUT | SAMPLER_HAVE_PSWPIN)));
        ASSERT_EQ(sampler_columns(&a), ((1ull << KB_VM_NCOLS) - 1) & ~io & ~reclaim & ~disk);
        sampler_delta_row(&a, &b, 2000, 4, &r);
        ASSERT_EQ(r.have & io, 0);
        ASSERT_EQ(r.v[KB_VM_bo], 0);
        ASSERT_EQ(r.v[KB_VM_in], 276);
        ASSERT_EQ(r.v[KB_VM_sy], 26);
        ASSERT_EQ(r.v[KB_VM_dirty], 833624);
        ASSERT_TRUE(sampler_format_row(line, sizeof(line), &r) > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    -    -     -     -  276  262"
                           "  3 26 69  2  0  0 833624         0"
                           "   208406            0      1210318    604420      -       -          -"
                           "    -    -      -      -        -    -");
        sampler_boot_row(&a, 100, 4, &r);
        ASSERT_EQ(r.have & io, 0);
        ASSERT_EQ(r.v[KB_VM_in], 487);
        ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
        ASSERT_STREQ(note, "# absent si so bi bo pgscan pgsteal allocstall rd wr rsect wsect inflight util:"
                           " /proc/vmstat has no pgpgin pgpgout pswpin pswpout pgscan_* pgsteal_* allocstall*"
                           " (a kernel without CONFIG_VM_EVENT_COUNTERS); there is no /proc/diskstats");
        ASSERT_EQ(sampler_absent_note(&a, note, 20), -ENOSPC);
        ASSERT_STREQ(note, "");

        /* The full kernel has nothing to say. */
        a = load("dd61-t0");
        ASSERT_EQ(sampler_absent_note(&a, note, sizeof(note)), 0);
        ASSERT_STREQ(note, "");
}

/* The same, captured: a 6.1.192 tinyconfig kernel built by
 * tools/build-tiny-kernel.sh, booted under QEMU (1 cpu, 128 MiB), its /proc
 * read twice about two seconds apart (tests/data/proc/tiny61-*). */
TEST(captured_tinyconfig_kernel) {
        struct sampler_snapshot a = load("tiny61-t0"), b = load("tiny61-t1");
        struct sampler_row r;
        char note[SAMPLER_NOTE_MAX];

        ASSERT_TRUE(a.have & SAMPLER_HAVE_VMSTAT_FILE);
        ASSERT_EQ(a.ncpus, 1);
        ASSERT_EQ(sampler_absent_note(&a, note, sizeof(note)) > 0, 1);
        ASSERT_STREQ(note, "# absent si so bi bo pgscan pgsteal allocstall rd wr rsect wsect inflight util:"
                           " /proc/vmstat has no pgpgin pgpgout pswpin pswpout pgscan_* pgsteal_* allocstall*"
                           " (a kernel without CONFIG_VM_EVENT_COUNTERS); there is no /proc/diskstats");
        /* 207 jiffies at 100 Hz on one cpu: 2.07 s. */
        sampler_delta_row(&a, &b, 2070, 4, &r);
        ASSERT_EQ(r.have & ((1ull << KB_VM_si) | (1ull << KB_VM_so) | (1ull << KB_VM_bi) | (1ull << KB_VM_bo)), 0);
        /* The writeback gauges are zone/node figures: there without event counters. */
        ASSERT_EQ(r.v[KB_VM_nr_dirty], 0);
        ASSERT_TRUE(r.have & (1ull << KB_VM_nr_dirty));
        ASSERT_EQ(r.v[KB_VM_dirty_thresh], 4722);
        ASSERT_EQ(r.v[KB_VM_bg_thresh], 2358);
        ASSERT_TRUE(!(r.have & (1ull << KB_VM_pgscan)));
        ASSERT_EQ(r.v[KB_VM_in], 474);    /* (1342 - 361) / 2.07 */
        ASSERT_EQ(r.v[KB_VM_cs], 19);     /* (1426 - 1387) / 2.07 */
        ASSERT_EQ(r.v[KB_VM_sy], 2);      /* 5 of 207 jiffies */
        ASSERT_EQ(r.v[KB_VM_id], 97);
        ASSERT_EQ(r.v[KB_VM_free], 96492);
        ASSERT_EQ(r.v[KB_VM_cache], 18324);
        ASSERT_TRUE(r.have & (1ull << KB_VM_dirty));
        ASSERT_TRUE(r.have & (1ull << KB_VM_gu));
}

/* A 2.4 kernel (tests/data/proc/linux24-*): no /proc/vmstat, so bi bo si so
 * come from /proc/stat's page and swap lines; no procs_*, a four-value cpu
 * line and no Dirty/Writeback make r b wa st gu dirty writeback absent. */
TEST(no_proc_vmstat) {
        struct sampler_snapshot a = load("linux24-t0"), b = load("linux24-t1");
        struct sampler_row r;
        char note[SAMPLER_NOTE_MAX], line[SAMPLER_ROW_MAX];

        ASSERT_TRUE(!(a.have & SAMPLER_HAVE_VMSTAT_FILE));
        ASSERT_EQ(a.pgpgin, 77557);
        ASSERT_EQ(a.pgpgout, 12040);
        ASSERT_EQ(b.pswpout, 4);
        ASSERT_EQ(a.mem_free, 9012);
        ASSERT_EQ(a.swap_total, 522072);
        sampler_delta_row(&a, &b, 2000, 4, &r);
        ASSERT_EQ(r.v[KB_VM_bi], 30);     /* (77617 - 77557) / 2 */
        ASSERT_EQ(r.v[KB_VM_bo], 5000);   /* (22040 - 12040) / 2 */
        ASSERT_EQ(r.v[KB_VM_si], 0);
        ASSERT_EQ(r.v[KB_VM_so], 8);      /* 4 pages * 4 kB / 2 s */
        ASSERT_EQ(r.v[KB_VM_in], 300);
        ASSERT_EQ(r.v[KB_VM_cs], 400);
        ASSERT_EQ(r.v[KB_VM_swpd], 522072 - 490576);
        ASSERT_EQ(r.v[KB_VM_cache], 135700);   /* no SReclaimable */
        ASSERT_EQ(r.v[KB_VM_us], 5);      /* 10 of 200 jiffies */
        ASSERT_EQ(r.v[KB_VM_sy], 30);
        ASSERT_EQ(r.v[KB_VM_id], 65);
        ASSERT_TRUE(sampler_format_row(line, sizeof(line), &r) > 0);
        ASSERT_STREQ(line, " -  -  31496   8000  14600 135700    0    8    30  5000  300  400"
                           "  5 30 65  -  -  -      -         -"
                           "        -            -            -         -      -       -          -"
                           "    -    -      -      -        -    -");
        ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
        ASSERT_STREQ(note, "# absent r b wa st gu dirty writeback nr_dirty nr_writeback dirty_thresh"
                           " bg_thresh pgscan pgsteal allocstall rd wr rsect wsect inflight util:"
                           " /proc/stat has no procs_running"
                           " procs_blocked; the cpu line of /proc/stat has no iowait steal guest;"
                           " there is no /proc/vmstat; /proc/meminfo has no Dirty Writeback;"
                           " there is no /proc/diskstats");

        /* Without the page and swap lines as well, the note names both places. */
        a.have &= ~(SAMPLER_HAVE_PGPGIN | SAMPLER_HAVE_PGPGOUT | SAMPLER_HAVE_PSWPIN | SAMPLER_HAVE_PSWPOUT);
        ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
        ASSERT_TRUE(strstr(note, "; there is no /proc/vmstat and /proc/stat has no page swap line;") != NULL);
        ASSERT_TRUE(strncmp(note, "# absent r b si so bi bo wa", 27) == 0);
}

/* A column is present in a delta row only if both readings had it. */
TEST(columns_of_both_readings) {
        struct sampler_snapshot a = load("t0"), b = load("noevents-t1");
        struct sampler_row r;

        sampler_delta_row(&a, &b, 2000, 4, &r);
        ASSERT_TRUE(!(r.have & (1ull << KB_VM_bo)));
        ASSERT_TRUE(r.have & (1ull << KB_VM_cs));
        /* /proc/vmstat's counters win over a page line in /proc/stat. */
        {
                static const char stat[] = "cpu  1 2 3 4\npage 5 6\n";
                static const char vm[] = "pgpgin 50\n";
                struct sampler_snapshot s;
                memset(&s, 0, sizeof(s));
                ASSERT_EQ(sampler_parse_stat(stat, strlen(stat), &s), 0);
                ASSERT_EQ(sampler_parse_vmstat(vm, strlen(vm), &s), 0);
                ASSERT_EQ(s.pgpgin, 50);
                ASSERT_EQ(s.pgpgout, 6);
        }
}

/* Captured around a 128 MiB dd conv=fsync (tests/data/proc/dd61-*, 639 ms
 * apart): the disk under test's line of /proc/diskstats and /proc/vmstat's
 * writeback figures. Expected values worked out from the files by hand. */
TEST(disk_and_writeback_columns) {
        struct sampler_snapshot a = load("dd61-t0"), b = load("dd61-t1");
        struct sampler_row r;
        char note[SAMPLER_NOTE_MAX];

        ASSERT_TRUE(b.have & SAMPLER_HAVE_DISK);
        ASSERT_EQ(a.dk.wr_ios, 994702);
        ASSERT_EQ(a.dk.wr_sectors, 393732138);
        ASSERT_EQ(b.dk.wr_sectors, 393994330);
        ASSERT_EQ(b.dk.rd_ios, 1437614);
        ASSERT_EQ(b.dk.rd_sectors, 191422637);
        ASSERT_EQ(b.dk.io_ticks, 349228);
        ASSERT_EQ(b.dk.inflight, 0);
        ASSERT_EQ(b.nr_dirty, 56);
        ASSERT_EQ(b.dirty_thresh, 1180858);
        ASSERT_EQ(b.bg_thresh, 589708);
        ASSERT_TRUE(b.have & SAMPLER_HAVE_PGSCAN);
        ASSERT_EQ(b.pgscan, 0);
        sampler_delta_row(&a, &b, 639, 4, &r);
        ASSERT_EQ(r.v[KB_VM_wsect], 410316);  /* 262192 sectors (128 MiB + 24 KiB) / 0.639 s */
        ASSERT_EQ(r.v[KB_VM_wr], 61);         /* 39 / 0.639 */
        ASSERT_EQ(r.v[KB_VM_rd], 0);
        ASSERT_EQ(r.v[KB_VM_rsect], 0);
        ASSERT_EQ(r.v[KB_VM_util], 8);        /* io_ticks 52 ms of 639 */
        ASSERT_EQ(r.v[KB_VM_nr_dirty], 56);
        ASSERT_EQ(r.v[KB_VM_nr_writeback], 0);
        ASSERT_EQ(r.v[KB_VM_allocstall], 0);
        ASSERT_TRUE(r.have & (1ull << KB_VM_util));
        ASSERT_TRUE(r.have & (1ull << KB_VM_inflight));
        ASSERT_EQ(sampler_absent_note(&a, note, sizeof(note)), 0);

        /* A tree without that disk: its columns are absent, and the note says which. */
        {
                char root[4096];
                snprintf(root, sizeof(root), "%s/dd61-t0", PROC_FIXTURES);
                ASSERT_EQ(sampler_read(root, "sda", &a), 0);
        }
        ASSERT_TRUE(a.have & SAMPLER_HAVE_DISKSTATS_FILE);
        ASSERT_TRUE(!(a.have & SAMPLER_HAVE_DISK));
        ASSERT_EQ(sampler_columns(&a) & (1ull << KB_VM_wsect), 0);
        ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
        ASSERT_STREQ(note, "# absent rd wr rsect wsect inflight util: /proc/diskstats has no sda");
        sampler_delta_row(&a, &b, 639, 4, &r);
        ASSERT_EQ(r.have & (1ull << KB_VM_wsect), 0);
        ASSERT_EQ(r.v[KB_VM_wsect], 0);
        ASSERT_TRUE(r.have & (1ull << KB_VM_nr_dirty));

        /* No disk named (the agent before it mounted one). */
        {
                char root[4096];
                snprintf(root, sizeof(root), "%s/dd61-t0", PROC_FIXTURES);
                ASSERT_EQ(sampler_read(root, NULL, &a), 0);
                ASSERT_TRUE(!(a.have & SAMPLER_HAVE_DISKSTATS_FILE));
                ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
                ASSERT_STREQ(note, "# absent rd wr rsect wsect inflight util: no disk under test was named");
                ASSERT_EQ(sampler_read(root, "a-disk-name-longer-than-32-bytes-x", &a), -EINVAL);
        }
}

TEST(diskstats_lines) {
        struct sampler_snapshot s, before;
        /* 6.1 prints 17 fields after the name, 2.6 eleven; a partition shares the prefix. */
        static const char ok[] =
                "   8       0 sdaa 9 9 9 9 9 9 9 9 9 9 9\n"
                "garbage without numbers\n"
                "\n"
                "   8       1 sda1 7 7 7 7 7 7 7 7 7 7 7\n"
                "   8       0 sda 10 1 2000 5 20 2 4000 6 3 700 800\n"
                "   8       0 sda 99 99 99 99 99 99 99 99 99 99 99\n";
        static const char v61[] = " 8 0 sda 1 0 8 0 2 0 16 0 0 30 0 0 0 0 0 4 5\n";
        static const char short_line[] = "   8       0 sda 10 1 2000 5 20 2 4000 6 3 700\n";
        static const char bad_value[] = "   8       0 sda 10 1 2000 5 20 2 4000 6 x 700 800\n";
        static const char overflow[] = "   8       0 sda 10 1 99999999999999999999 5 20 2 4000 6 3 700 800\n";
        static const char without[] = "   8       0 sdb 10 1 2000 5 20 2 4000 6 3 700 800\nsda 1 2 3 4 5 6 7 8 9 10 11\n";

        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_diskstats(ok, strlen(ok), "sda", &s), 0);
        ASSERT_TRUE(s.have & SAMPLER_HAVE_DISK);
        ASSERT_EQ(s.dk.rd_ios, 10);           /* the first sda line, not sdaa, sda1 or the repeat */
        ASSERT_EQ(s.dk.rd_sectors, 2000);
        ASSERT_EQ(s.dk.wr_ios, 20);
        ASSERT_EQ(s.dk.wr_sectors, 4000);
        ASSERT_EQ(s.dk.inflight, 3);
        ASSERT_EQ(s.dk.io_ticks, 700);
        ASSERT_STREQ(s.disk, "sda");
        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_diskstats(v61, strlen(v61), "sda", &s), 0);
        ASSERT_EQ(s.dk.wr_sectors, 16);
        ASSERT_EQ(s.dk.io_ticks, 30);
        /* Bounded by len: cut inside the line, the fields are too few. */
        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_diskstats(v61, 20, "sda", &s), -EBADMSG);

        memset(&s, 0x5a, sizeof(s));
        before = s;
        ASSERT_EQ(sampler_parse_diskstats(short_line, strlen(short_line), "sda", &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_diskstats(bad_value, strlen(bad_value), "sda", &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_diskstats(overflow, strlen(overflow), "sda", &s), -EBADMSG);
        ASSERT_EQ(sampler_parse_diskstats(ok, strlen(ok), "a-disk-name-longer-than-32-bytes-x", &s), -EINVAL);
        ASSERT_TRUE(memcmp(&s, &before, sizeof(s)) == 0);   /* untouched on failure */

        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_diskstats(without, strlen(without), "sda", &s), 0);
        ASSERT_TRUE(!(s.have & SAMPLER_HAVE_DISK));
        ASSERT_EQ(sampler_parse_diskstats("", 0, "sda", &s), 0);
        ASSERT_TRUE(!(s.have & SAMPLER_HAVE_DISK));
}

/* The reclaim counters are sums over their sources; 6.1 splits them by
 * kswapd/direct/khugepaged and again by anon/file, 2.6 by zone. */
TEST(reclaim_sums) {
        struct sampler_snapshot s;
        static const char v61[] =
                "nr_dirty 12\nnr_writeback 3\nnr_writeback_temp 99\nnr_dirty_threshold 5000\n"
                "nr_dirty_background_threshold 2500\n"
                "allocstall_dma 0\nallocstall_dma32 2\nallocstall_normal 5\nallocstall_movable 0\n"
                "pgsteal_kswapd 100\npgsteal_direct 40\npgsteal_khugepaged 1\n"
                "pgscan_kswapd 300\npgscan_direct 90\npgscan_khugepaged 2\npgscan_direct_throttle 7\n"
                "pgscan_anon 100\npgscan_file 292\npgsteal_anon 41\npgsteal_file 100\n";
        static const char v26[] =
                "pgsteal_dma 1\npgsteal_normal 20\npgscan_kswapd_dma 3\npgscan_kswapd_normal 30\n"
                "pgscan_direct_dma 0\npgscan_direct_normal 6\nallocstall 4\n";
        static const char huge[] = "pgscan_kswapd 18446744073709551615\npgscan_direct 18446744073709551615\n";
        static const char bad[] = "pgscan_kswapd 1\npgscan_direct x\n";

        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_vmstat(v61, strlen(v61), &s), 0);
        ASSERT_EQ(s.nr_dirty, 12);
        ASSERT_EQ(s.nr_writeback, 3);         /* not nr_writeback_temp */
        ASSERT_EQ(s.dirty_thresh, 5000);
        ASSERT_EQ(s.bg_thresh, 2500);
        ASSERT_EQ(s.allocstall, 7);
        ASSERT_EQ(s.pgsteal, 141);            /* kswapd + direct + khugepaged, not anon/file again */
        ASSERT_EQ(s.pgscan, 392);             /* without the throttle events */
        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_vmstat(v26, strlen(v26), &s), 0);
        ASSERT_EQ(s.pgsteal, 21);
        ASSERT_EQ(s.pgscan, 39);
        ASSERT_EQ(s.allocstall, 4);
        ASSERT_TRUE(!(s.have & SAMPLER_HAVE_NR_DIRTY));
        memset(&s, 0, sizeof(s));
        ASSERT_EQ(sampler_parse_vmstat(huge, strlen(huge), &s), 0);
        ASSERT_EQ(s.pgscan, UINT64_MAX);      /* saturates, does not wrap */
        ASSERT_EQ(sampler_parse_vmstat(bad, strlen(bad), &s), -EBADMSG);
}

/* Counters that wrapped at 32 bits count the wrapped difference; one that
 * went back from above 2^32 was reset and counts 0; util never passes 100. */
TEST(counter_wrap) {
        struct sampler_snapshot a, b;
        struct sampler_row r;

        memset(&a, 0, sizeof(a));
        a.have = SAMPLER_HAVE_DISK | SAMPLER_HAVE_PGSCAN | SAMPLER_HAVE_ALLOCSTALL;
        b = a;
        a.dk.wr_sectors = 4294967295u - 999;  /* 1000 sectors before the wrap */
        b.dk.wr_sectors = 1000;               /* 1000 after */
        a.dk.io_ticks = 4294967000u;
        b.dk.io_ticks = 704;                  /* 296 + 704 = 1000 ms busy */
        a.pgscan = 5000000000ull;             /* above 32 bits: a reset */
        b.pgscan = 10;
        a.allocstall = 3;
        b.allocstall = 3;
        sampler_delta_row(&a, &b, 1000, 4, &r);
        ASSERT_EQ(r.v[KB_VM_wsect], 2000);
        ASSERT_EQ(r.v[KB_VM_util], 100);
        ASSERT_EQ(r.v[KB_VM_pgscan], 0);
        ASSERT_EQ(r.v[KB_VM_allocstall], 0);
        ASSERT_TRUE(r.have & (1ull << KB_VM_allocstall));
        /* Busier than the interval (timer jitter): capped. */
        b.dk.io_ticks = a.dk.io_ticks + 1100;
        sampler_delta_row(&a, &b, 1000, 4, &r);
        ASSERT_EQ(r.v[KB_VM_util], 100);
        b.dk.io_ticks = a.dk.io_ticks + 250;
        sampler_delta_row(&a, &b, 500, 4, &r);
        ASSERT_EQ(r.v[KB_VM_util], 50);
        /* Huge values stay within the row's bound. */
        {
                char line[SAMPLER_ROW_MAX];
                memset(&b, 0xff, sizeof(b));
                b.disk[0] = '\0';
                memset(&a, 0, sizeof(a));
                a.have = b.have;
                sampler_delta_row(&a, &b, 1, 4, &r);
                ASSERT_TRUE(sampler_format_row(line, sizeof(line), &r) > 0);
                ASSERT_EQ(r.v[KB_VM_util], 100);
        }
}

TEST(read_missing_root) {
        struct sampler_snapshot s;

        ASSERT_EQ(sampler_read("/nonexistent-kbench-root", "vda", &s), -ENOENT);
}

TEST_MAIN();

/* Without a timerfd the agent paces samples itself: due on time, never a
 * burst after a stall, the poll timeout is what is left of the interval. */
TEST(pace_without_timerfd) {
        uint64_t next = 1000;
        int timeout = -1;

        ASSERT_EQ(sampler_pace(400, 1000, &next, &timeout), 0);
        ASSERT_EQ(timeout, 600);
        ASSERT_EQ(next, 1000);
        ASSERT_EQ(sampler_pace(1000, 1000, &next, &timeout), 1);
        ASSERT_EQ(next, 2000);
        ASSERT_EQ(timeout, 1000);
        ASSERT_EQ(sampler_pace(2003, 1000, &next, &timeout), 1);
        ASSERT_EQ(next, 3000);
        ASSERT_EQ(timeout, 997);
        /* 4.5 intervals late: one sample, and the cadence resumes */
        ASSERT_EQ(sampler_pace(7500, 1000, &next, &timeout), 1);
        ASSERT_EQ(next, 8000);
        ASSERT_EQ(timeout, 500);
        ASSERT_EQ(sampler_pace(7600, 1000, &next, &timeout), 0);
        ASSERT_EQ(timeout, 400);
        /* a quarter-second interval */
        next = 250;
        ASSERT_EQ(sampler_pace(250, 250, &next, &timeout), 1);
        ASSERT_EQ(next, 500);
}
