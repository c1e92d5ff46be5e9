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
        char line[256], small[20];
        int n;

        sampler_delta_row(&a, &b, 2000, 4, &r);
        n = sampler_format_row(line, sizeof(line), &r);
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    0    0  1518 102418  276  262"
                           "  3 26 69  2  0  0 833624         0");
        ASSERT_EQ(sampler_format_row(small, sizeof(small), &r), -ENOSPC);

        /* An absent column prints as "-" in its own width, never as 0. */
        r.have &= ~((1u << KB_VM_bi) | (1u << KB_VM_bo));
        n = sampler_format_row(line, sizeof(line), &r);
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    0    0     -     -  276  262"
                           "  3 26 69  2  0  0 833624         0");
        ASSERT_EQ(sampler_format_row(small, sizeof(small), &r), -ENOSPC);
}

/* The header lines come from common/vmstat-columns.h: right-aligned names
 * (procps's layout) and groups spanning their columns. */
TEST(header) {
        char names[SAMPLER_HEADER_MAX], groups[SAMPLER_HEADER_MAX], small[40];
        int fields = 0, in_word = 0;

        ASSERT_TRUE(sampler_format_names(names, sizeof(names)) > 0);
        ASSERT_STREQ(names, " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs"
                            " us sy id wa st gu  dirty writeback");
        ASSERT_TRUE(sampler_format_groups(groups, sizeof(groups)) > 0);
        ASSERT_STREQ(groups, "procs -----------memory---------- ---swap-- -----io---- --system- "
                             "-------cpu------- -----kbench-----");
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
        const uint32_t io = (1u << KB_VM_si) | (1u << KB_VM_so) | (1u << KB_VM_bi) | (1u << KB_VM_bo);

        ASSERT_TRUE(a.have & SAMPLER_HAVE_VMSTAT_FILE);
        ASSERT_TRUE(!(a.have & (SAMPLER_HAVE_PGPGIN | SAMPLER_HAVE_PGPGOUT | SAMPLER_HAVE_PSWPIN)));
        ASSERT_EQ(sampler_columns(&a), ((1u << KB_VM_NCOLS) - 1) & ~io);
        sampler_delta_row(&a, &b, 2000, 4, &r);
        ASSERT_EQ(r.have & io, 0);
        ASSERT_EQ(r.v[KB_VM_bo], 0);
        ASSERT_EQ(r.v[KB_VM_in], 276);
        ASSERT_EQ(r.v[KB_VM_sy], 26);
        ASSERT_EQ(r.v[KB_VM_dirty], 833624);
        ASSERT_TRUE(sampler_format_row(line, sizeof(line), &r) > 0);
        ASSERT_STREQ(line, " 1  0      0 22980288  13280 1460508    -    -     -     -  276  262"
                           "  3 26 69  2  0  0 833624         0");
        sampler_boot_row(&a, 100, 4, &r);
        ASSERT_EQ(r.have & io, 0);
        ASSERT_EQ(r.v[KB_VM_in], 487);
        ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
        ASSERT_STREQ(note, "# absent si so bi bo: /proc/vmstat has no pgpgin pgpgout pswpin pswpout"
                           " (a kernel without CONFIG_VM_EVENT_COUNTERS)");
        ASSERT_EQ(sampler_absent_note(&a, note, 20), -ENOSPC);
        ASSERT_STREQ(note, "");

        /* The full kernel has nothing to say. */
        a = load("t0");
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
        ASSERT_STREQ(note, "# absent si so bi bo: /proc/vmstat has no pgpgin pgpgout pswpin pswpout"
                           " (a kernel without CONFIG_VM_EVENT_COUNTERS)");
        /* 207 jiffies at 100 Hz on one cpu: 2.07 s. */
        sampler_delta_row(&a, &b, 2070, 4, &r);
        ASSERT_EQ(r.have & ((1u << KB_VM_si) | (1u << KB_VM_so) | (1u << KB_VM_bi) | (1u << KB_VM_bo)), 0);
        ASSERT_EQ(r.v[KB_VM_in], 474);    /* (1342 - 361) / 2.07 */
        ASSERT_EQ(r.v[KB_VM_cs], 19);     /* (1426 - 1387) / 2.07 */
        ASSERT_EQ(r.v[KB_VM_sy], 2);      /* 5 of 207 jiffies */
        ASSERT_EQ(r.v[KB_VM_id], 97);
        ASSERT_EQ(r.v[KB_VM_free], 96492);
        ASSERT_EQ(r.v[KB_VM_cache], 18324);
        ASSERT_TRUE(r.have & (1u << KB_VM_dirty));
        ASSERT_TRUE(r.have & (1u << KB_VM_gu));
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
                           "  5 30 65  -  -  -      -         -");
        ASSERT_TRUE(sampler_absent_note(&a, note, sizeof(note)) > 0);
        ASSERT_STREQ(note, "# absent r b wa st gu dirty writeback: /proc/stat has no procs_running"
                           " procs_blocked; the cpu line of /proc/stat has no iowait steal guest;"
                           " /proc/meminfo has no Dirty Writeback");

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
        ASSERT_TRUE(!(r.have & (1u << KB_VM_bo)));
        ASSERT_TRUE(r.have & (1u << KB_VM_cs));
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

TEST(read_missing_root) {
        struct sampler_snapshot s;

        ASSERT_EQ(sampler_read("/nonexistent-kbench-root", &s), -ENOENT);
}

TEST_MAIN();
