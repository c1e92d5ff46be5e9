/* test-counters.c: the `counters` and `memory` payloads from captured /proc
 * trees: what the kernel provides, and only that, as key=value words. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/test.h"
#include "guest/counters.h"

TEST_MAIN();

TEST(phase_payload) {
        struct sampler_snapshot s;
        struct taskstats_sums t = { .tasks = 3, .waiters = 1, .sleep_ns = 5, .run_ns = 6, .delay_ns = 7, .blkio_ns = 8,
                                    .reclaim_ns = 9, .lost = 0 };
        char buf[COUNTERS_PAYLOAD_MAX];

        ASSERT_EQ(sampler_read(PROC_FIXTURES "/dd61-t1", "vda", &s), 0);
        ASSERT_TRUE(counters_phase(&s, &t, buf, sizeof(buf)) > 0);
        ASSERT_TRUE(strstr(buf, "allocstall=") == buf);
        ASSERT_TRUE(strstr(buf, " file_pages=") != NULL);
        /* The disk's flushes: the 16th field of a 5.5+ line. */
        ASSERT_TRUE(strstr(buf, " wr_sect=") != NULL && strstr(buf, " flush_ios=") != NULL);
        ASSERT_TRUE(strstr(buf, " tasks=3 waiters=1 sleep_ns=5 run_ns=6 delay_ns=7 blkio_ns=8 reclaim_ns=9 lost=0") != NULL);
        /* No listener: no task figures. */
        ASSERT_TRUE(counters_phase(&s, NULL, buf, sizeof(buf)) > 0);
        ASSERT_TRUE(strstr(buf, "tasks=") == NULL);
        ASSERT_EQ(counters_phase(&s, &t, buf, 20), -ENOSPC);
        ASSERT_STREQ(buf, "");
}

/* A kernel without event counters and a 2.4 one: what is absent is left
 * out, never sent as 0. */
TEST(phase_payload_absent) {
        struct sampler_snapshot s;
        char buf[COUNTERS_PAYLOAD_MAX];

        ASSERT_EQ(sampler_read(PROC_FIXTURES "/tiny61-t1", NULL, &s), 0);
        ASSERT_TRUE(counters_phase(&s, NULL, buf, sizeof(buf)) >= 0);
        ASSERT_TRUE(strstr(buf, "allocstall") == NULL && strstr(buf, "pgscan") == NULL);
        ASSERT_TRUE(strstr(buf, "file_pages=") != NULL);
        ASSERT_TRUE(strstr(buf, "rd_ios") == NULL);
        ASSERT_EQ(sampler_read(PROC_FIXTURES "/linux24-t1", NULL, &s), 0);
        ASSERT_EQ(counters_phase(&s, NULL, buf, sizeof(buf)), 0);
}

TEST(memory_payload) {
        static const char meminfo[] = "MemTotal:       24683584 kB\nMemFree:        21859580 kB\n"
                                      "MemAvailable:   24035616 kB\nCached:          1896076 kB\n"
                                      "SwapCached:            0 kB\nAnonPages:        163088 kB\n"
                                      "Shmem:              9356 kB\nSUnreclaim:        57176 kB\n"
                                      "Percpu:              840 kB\n";
        char buf[COUNTERS_PAYLOAD_MAX];

        ASSERT_TRUE(counters_memory("start", meminfo, strlen(meminfo), buf, sizeof(buf)) > 0);
        ASSERT_STREQ(buf, "start mem_total_kb=24683584 mem_free_kb=21859580 mem_available_kb=24035616 "
                          "cached_kb=1896076 anon_kb=163088 shmem_kb=9356 sunreclaim_kb=57176 percpu_kb=840");
        /* SwapCached is not Cached; a value that is no number is refused. */
        ASSERT_EQ(counters_memory("end", "Cached: 12x kB\n", 15, buf, sizeof(buf)), -EBADMSG);
        ASSERT_EQ(counters_memory("end", "Buffers:\n", 9, buf, sizeof(buf)), -EBADMSG);
        ASSERT_EQ(counters_memory("end", meminfo, strlen(meminfo), buf, 30), -ENOSPC);
}

TEST(memory_from_proc) {
        char text[16384], buf[COUNTERS_PAYLOAD_MAX];
        FILE *f = fopen(PROC_FIXTURES "/dd61-t0/proc/meminfo", "r");
        size_t n;

        ASSERT_TRUE(f != NULL);
        n = fread(text, 1, sizeof(text), f);
        fclose(f);
        ASSERT_TRUE(counters_memory("end", text, n, buf, sizeof(buf)) > 0);
        ASSERT_TRUE(strstr(buf, "end mem_total_kb=24683584 mem_free_kb=21859580 ") == buf);
        ASSERT_TRUE(strstr(buf, " kernel_stack_kb=1860 page_tables_kb=3484 percpu_kb=840 vmalloc_used_kb=14712") != NULL);
}
