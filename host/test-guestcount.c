/* test-guestcount.c: the guest kernel's counters at phase marks and its
 * memory at the job's start and end, as the cell turns them into metrics. */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "host/guestcount.h"

TEST_MAIN();

static int parse(const char *text, struct guestcount_totals *t) {
        return guestcount_parse(text, strlen(text), t);
}

static double value(const struct metric_list *ml, const char *name) {
        const struct metric *m = metric_find(ml, name);

        if (!m)
                TEST_FAIL("no metric %s", name);
        return m->has_value ? m->value : NAN;
}

TEST(parse_words) {
        struct guestcount_totals t = { { 0 }, 0 };

        ASSERT_EQ(parse("allocstall=3 pgscan=100 flush_ios=7 newer_key=9", &t), 0);
        ASSERT_EQ(t.v[GC_ALLOCSTALL], 3);
        ASSERT_EQ(t.v[GC_PGSCAN], 100);
        ASSERT_EQ(t.v[GC_FLUSH_IOS], 7);
        ASSERT_EQ(t.have, (1u << GC_ALLOCSTALL) | (1u << GC_PGSCAN) | (1u << GC_FLUSH_IOS));
        ASSERT_EQ(parse("", &t), 0);
        ASSERT_EQ(t.have, 0);
}

TEST(parse_refuses) {
        struct guestcount_totals t = { { 5 }, 1 };

        ASSERT_EQ(parse("allocstall=3 allocstall=4", &t), -EBADMSG);
        ASSERT_EQ(parse("allocstall", &t), -EBADMSG);
        ASSERT_EQ(parse("allocstall=-1", &t), -EBADMSG);
        ASSERT_EQ(parse("allocstall=1x", &t), -EBADMSG);
        ASSERT_EQ(parse("allocstall=99999999999999999999", &t), -EBADMSG);
        ASSERT_EQ(guestcount_parse("allocstall=1\0 pgscan=2", 22, &t), -EBADMSG);
        /* Nothing is written on failure. */
        ASSERT_EQ(t.v[0], 5);
        ASSERT_EQ(t.have, 1);
}

/* Three marks: write, read, end. The write phase's figures are the
 * differences from its mark to the next; the end is no phase. */
TEST(phase_figures) {
        struct guestcount_marks m = { .n = 0 };
        struct guestcount_totals a, b, c;
        struct metric_list ml = { 0 };

        ASSERT_EQ(parse("allocstall=2 pgscan=100 pgsteal=90 file_pages=1000 rd_ios=5 rd_sect=80 wr_ios=10 "
                        "wr_sect=2048 flush_ios=1 tasks=0 waiters=0 sleep_ns=0 run_ns=0 delay_ns=0 blkio_ns=0 reclaim_ns=0 "
                        "lost=0", &a), 0);
        ASSERT_EQ(parse("allocstall=32 pgscan=400 pgsteal=300 file_pages=3048 rd_ios=5 rd_sect=80 wr_ios=110 "
                        "wr_sect=526336 flush_ios=4 tasks=1 waiters=0 sleep_ns=750000000 run_ns=2000000000 "
                        "delay_ns=250000000 blkio_ns=500000000 reclaim_ns=100000000 lost=0", &b), 0);
        ASSERT_EQ(parse("allocstall=32 pgscan=400 pgsteal=300 file_pages=48 rd_ios=2053 rd_sect=524368 wr_ios=110 "
                        "wr_sect=526336 flush_ios=4 tasks=3 waiters=1 sleep_ns=750000000 run_ns=2100000000 "
                        "delay_ns=250000000 blkio_ns=500000000 reclaim_ns=100000000 lost=1", &c), 0);
        ASSERT_EQ(guestcount_mark(&m, "phase write", 11, &a), 1);
        ASSERT_EQ(guestcount_mark(&m, "phase read", 10, &b), 1);
        ASSERT_EQ(guestcount_mark(&m, "phase end", 9, &c), 1);
        ASSERT_EQ(guestcount_mark(&m, "not a phase", 11, &c), 0);
        ASSERT_EQ(guestcount_metrics(&m, &ml), 0);
        ASSERT_NEAR(value(&ml, "guest.write.allocstalls"), 30, 0);
        ASSERT_NEAR(value(&ml, "guest.write.pgscan"), 300, 0);
        ASSERT_NEAR(value(&ml, "guest.write.disk_writes"), 100, 0);
        ASSERT_NEAR(value(&ml, "guest.write.disk_written_MiB"), 256, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.disk_flushes"), 3, 0);
        ASSERT_NEAR(value(&ml, "guest.write.cache_MiB"), 8, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.tasks"), 1, 0);
        /* 3 s of life, 2 s running, 0.25 s waiting for the CPU. */
        ASSERT_NEAR(value(&ml, "guest.write.sleep_s"), 0.75, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.blkio_s"), 0.5, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.reclaim_s"), 0.1, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.read.disk_read_MiB"), 256, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.read.cache_MiB"), -11.71875, 1e-9);
        /* The socket dropped reports in the read phase: its task figures
         * have no value, the counters still do. */
        ASSERT_TRUE(isnan(value(&ml, "guest.read.sleep_s")));
        ASSERT_TRUE(isnan(value(&ml, "guest.read.tasks")));
        ASSERT_NEAR(value(&ml, "guest.read.disk_reads"), 2048, 0);
        ASSERT_TRUE(metric_find(&ml, "guest.end.tasks") == NULL);
        metric_list_clear(&ml);
}

/* A mark without counters (an older agent), a counter one mark lacks, a
 * counter that went backwards, a phase named twice. */
TEST(phase_gaps) {
        struct guestcount_marks m = { .n = 0 };
        struct guestcount_totals a, b, c;
        struct metric_list ml = { 0 };

        ASSERT_EQ(parse("allocstall=5 wr_ios=10", &a), 0);
        ASSERT_EQ(parse("allocstall=4 wr_ios=20 flush_ios=3", &b), 0);
        ASSERT_EQ(parse("allocstall=9 wr_ios=30 flush_ios=3", &c), 0);
        guestcount_mark(&m, "phase one", 9, &a);
        guestcount_mark(&m, "phase two", 9, &b);
        guestcount_mark(&m, "phase one", 9, &c);
        guestcount_mark(&m, "phase three", 11, NULL);
        guestcount_mark(&m, "phase end", 9, &c);
        ASSERT_EQ(guestcount_metrics(&m, &ml), 0);
        ASSERT_TRUE(isnan(value(&ml, "guest.one.allocstalls")));
        ASSERT_NEAR(value(&ml, "guest.one.disk_writes"), 10, 0);
        ASSERT_TRUE(metric_find(&ml, "guest.one.disk_flushes") == NULL);
        ASSERT_NEAR(value(&ml, "guest.two.allocstalls"), 5, 0);
        ASSERT_TRUE(metric_find(&ml, "guest.three.allocstalls") == NULL);
        ASSERT_EQ(ml.n, 5);
        metric_list_clear(&ml);
}

TEST(memory) {
        static const char start[] = "start mem_total_kb=250000 mem_free_kb=200000 mem_available_kb=220000 "
                                    "anon_kb=1000 shmem_kb=3000 sunreclaim_kb=5000 kernel_stack_kb=300 "
                                    "page_tables_kb=100 percpu_kb=50 vmalloc_used_kb=1000 slab_kb=9000 cached_kb=4000";
        static const char end[] = "end mem_total_kb=250000 mem_free_kb=167232 mem_available_kb=187232 "
                                  "anon_kb=1000 shmem_kb=3000 sunreclaim_kb=37768 kernel_stack_kb=300 "
                                  "page_tables_kb=100 percpu_kb=50 vmalloc_used_kb=1000 slab_kb=41768 cached_kb=4000";
        struct guestcount_memory s, e, none = { { 0 }, 0 };
        struct metric_list ml = { 0 };
        int is_end = -1;

        ASSERT_EQ(guestcount_memory_parse(start, strlen(start), &is_end, &s), 0);
        ASSERT_EQ(is_end, 0);
        ASSERT_EQ(guestcount_memory_parse(end, strlen(end), &is_end, &e), 0);
        ASSERT_EQ(is_end, 1);
        ASSERT_EQ(guestcount_memory_parse("middle mem_free_kb=1", 20, &is_end, &s), -EBADMSG);
        ASSERT_EQ(guestcount_memory_parse("startmem_free_kb=1", 18, &is_end, &s), -EBADMSG);
        ASSERT_EQ(guestcount_memory_metrics(&s, &none, &ml), 0);
        ASSERT_EQ(ml.n, 0);
        ASSERT_EQ(guestcount_memory_metrics(&s, &e, &ml), 0);
        ASSERT_NEAR(value(&ml, "mem.held_MiB"), 32, 1e-9);
        ASSERT_NEAR(value(&ml, "mem.available_MiB"), -32, 1e-9);
        ASSERT_NEAR(value(&ml, "mem.sunreclaim_MiB"), 32, 1e-9);
        ASSERT_NEAR(value(&ml, "mem.unreclaimable_MiB"), 32, 1e-9);
        ASSERT_NEAR(value(&ml, "mem.cached_MiB"), 0, 1e-9);
        metric_list_clear(&ml);
        /* An end without Shmem: held needs it, the rest are there. */
        e.have &= ~(1u << GM_SHMEM);
        ASSERT_EQ(guestcount_memory_metrics(&s, &e, &ml), 0);
        ASSERT_TRUE(metric_find(&ml, "mem.held_MiB") == NULL);
        ASSERT_TRUE(metric_find(&ml, "mem.slab_MiB") != NULL);
        metric_list_clear(&ml);
}
