/* test-hostdisk.c: the guest's bo against the host's block statistics
 * (report/hostdisk.c). The samples are constructed to the shapes a cell
 * produces: host readings about once a second from the go to the done, not
 * on the vmstat rows' times, vmstat rows arriving at the end of the second
 * they describe. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "report/hostdisk.h"

TEST_MAIN();

#define MiB (1024.0 * 1024.0)

static struct db_vmstat_row vrow(double t, double bo, int first) {
        struct db_vmstat_row r = { .t_host = t, .first = first };

        for (int k = 0; k < DB_VM_NCOLS; k++)
                r.v[k] = NAN;
        r.v[DB_VM_bo] = bo;
        return r;
}

static struct db_hostblk_row hrow(double t, int64_t rd, int64_t wr) {
        return (struct db_hostblk_row){ .t_host = t, .rd_bytes = rd, .wr_bytes = wr, .rd_reqs = -1, .wr_reqs = -1 };
}

TEST(counter_interpolates_between_samples) {
        struct db_hostblk_row hb[] = { hrow(10.0, 0, 0), hrow(11.0, 0, 4000000), hrow(12.5, 0, 4000000) };

        ASSERT_NEAR(hostdisk_counter_at(hb, 3, 1, 10.0), 0.0, 1e-9);
        ASSERT_NEAR(hostdisk_counter_at(hb, 3, 1, 10.25), 1000000.0, 1e-6);
        ASSERT_NEAR(hostdisk_counter_at(hb, 3, 1, 11.0), 4000000.0, 1e-6);
        ASSERT_NEAR(hostdisk_counter_at(hb, 3, 1, 12.0), 4000000.0, 1e-6);
        /* Outside the samples the host said nothing. */
        ASSERT_TRUE(isnan(hostdisk_counter_at(hb, 3, 1, 9.99)));
        ASSERT_TRUE(isnan(hostdisk_counter_at(hb, 3, 1, 12.51)));
        ASSERT_TRUE(isnan(hostdisk_counter_at(hb, 0, 1, 10.0)));
}

TEST(counter_missing_or_backwards_is_unknown) {
        struct db_hostblk_row hb[] = { hrow(0, -1, 100), hrow(1, -1, 50), hrow(2, -1, 60) };

        ASSERT_TRUE(isnan(hostdisk_counter_at(hb, 3, 0, 0.5)));      /* reads not reported */
        ASSERT_TRUE(isnan(hostdisk_counter_at(hb, 3, 1, 0.5)));      /* went backwards */
        ASSERT_NEAR(hostdisk_counter_at(hb, 3, 1, 1.5), 55.0, 1e-9);
}

TEST(judge_thresholds_have_a_gap) {
        ASSERT_EQ(hostdisk_judge(5 * MiB, 5 * MiB), HOSTDISK_AGREE);
        ASSERT_EQ(hostdisk_judge(0, 0), HOSTDISK_AGREE);
        ASSERT_EQ(hostdisk_judge(HOSTDISK_WRITING_BPS, HOSTDISK_IDLE_BPS - 1), HOSTDISK_GUEST_ONLY);
        ASSERT_EQ(hostdisk_judge(HOSTDISK_IDLE_BPS - 1, HOSTDISK_WRITING_BPS), HOSTDISK_HOST_ONLY);
        /* In between is neither writing nor idle: never a disagreement. */
        ASSERT_EQ(hostdisk_judge(HOSTDISK_WRITING_BPS, HOSTDISK_IDLE_BPS), HOSTDISK_AGREE);
        ASSERT_EQ(hostdisk_judge(HOSTDISK_WRITING_BPS - 1, 0), HOSTDISK_AGREE);
        ASSERT_EQ(hostdisk_judge(NAN, 0), HOSTDISK_UNKNOWN);
        ASSERT_EQ(hostdisk_judge(0, NAN), HOSTDISK_UNKNOWN);
}

/* Host samples at 10.3, 11.3, ... 16.3 (the go at 10.3): 8 MB written in
 * the second ending 12.3, nothing in the second ending 13.3, 8 MB in the
 * second ending 14.3 and again in the one ending 15.3. The guest's rows
 * arrive at 11.0, 12.0, ...: the row at 13.0 covers [12, 13], 30 % of which
 * is the host's writing second -> 2.4 MB/s. */
static const struct db_hostblk_row host[] = {
        { 10.3, 0, 0, -1, -1 },        { 11.3, 0, 0, -1, -1 },        { 12.3, 4096, 8000000, -1, -1 },
        { 13.3, 4096, 8000000, -1, -1 }, { 14.3, 4096, 16000000, -1, -1 }, { 15.3, 4096, 24000000, -1, -1 },
        { 16.3, 4096, 24000000, -1, -1 },
};

TEST(align_puts_host_rates_on_vmstat_seconds) {
        struct db_vmstat_row vm[] = { vrow(1.0, 50, 1), vrow(11.0, 0, 0), vrow(12.0, 7000, 0), vrow(13.0, 2000, 0),
                                      vrow(14.0, 0, 0), vrow(15.0, 8000, 0), vrow(16.0, 0, 0), vrow(17.0, 0, 0) };
        struct db_hostblk_row hb[ELEMENTSOF(host)];
        struct hostdisk_second s[ELEMENTSOF(vm)];
        size_t n;

        memcpy(hb, host, sizeof(hb));
        n = hostdisk_align(vm, ELEMENTSOF(vm), hb, ELEMENTSOF(hb), 1.0, s);
        ASSERT_EQ(n, ELEMENTSOF(vm) - 1);                    /* the since-boot row is not a second */
        ASSERT_NEAR(s[0].t_host, 11.0, 1e-9);
        ASSERT_EQ(s[0].verdict, HOSTDISK_UNKNOWN);           /* [10, 11] starts before the first sample */
        ASSERT_NEAR(s[1].host_wr_Bps, 8000000.0 * 0.7, 1e-3); /* [11, 12]: 70 % of the writing second */
        ASSERT_NEAR(s[1].guest_bo_Bps, 7000.0 * 1024, 1e-9);
        ASSERT_EQ(s[1].verdict, HOSTDISK_AGREE);
        ASSERT_NEAR(s[2].host_wr_Bps, 8000000.0 * 0.3, 1e-3);
        ASSERT_NEAR(s[2].host_rd_Bps, 4096 * 0.3, 1e-6);
        ASSERT_EQ(s[2].verdict, HOSTDISK_AGREE);
        /* [13, 14]: the host wrote 0.7 x 8 MB, the guest said 0. */
        ASSERT_EQ(s[3].verdict, HOSTDISK_HOST_ONLY);
        ASSERT_EQ(s[4].verdict, HOSTDISK_AGREE);
        /* [15, 16]: the host wrote 0.3 x 8 MB (2.4 MB/s), the guest said 0. */
        ASSERT_EQ(s[5].verdict, HOSTDISK_HOST_ONLY);
        ASSERT_EQ(s[6].verdict, HOSTDISK_UNKNOWN);           /* [16, 17] ends after the last sample */
}

TEST(guest_writing_while_the_host_is_idle) {
        /* [12.3, 13.3] is exactly the host's idle second. */
        struct db_vmstat_row vm[] = { vrow(13.3, 9000, 0) };
        struct hostdisk_second s[1];

        ASSERT_EQ(hostdisk_align(vm, 1, host, ELEMENTSOF(host), 1.0, s), 1);
        ASSERT_NEAR(s[0].host_wr_Bps, 0.0, 1e-9);
        ASSERT_EQ(s[0].verdict, HOSTDISK_GUEST_ONLY);
}

TEST(summary_over_the_window) {
        struct db_vmstat_row vm[] = { vrow(1.0, 50, 1), vrow(11.0, 0, 0), vrow(12.0, 7000, 0), vrow(13.0, 2000, 0),
                                      vrow(14.0, 0, 0), vrow(15.0, 8000, 0), vrow(16.0, 0, 0), vrow(17.0, 0, 0) };
        struct hostdisk_summary sum;

        ASSERT_EQ(hostdisk_summarize(vm, ELEMENTSOF(vm), host, ELEMENTSOF(host), 1.0, &sum), 0);
        ASSERT_NEAR(sum.from, 10.3, 1e-9);
        ASSERT_NEAR(sum.to, 16.3, 1e-9);
        ASSERT_NEAR(sum.written_bytes, 24000000.0, 1e-6);
        ASSERT_NEAR(sum.read_bytes, 4096.0, 1e-9);
        ASSERT_NEAR(sum.write_MBps, 24.0 / 6.0, 1e-9);
        /* Rows 11.0 .. 16.0 are at least half inside [10.3, 16.3]; 11.0 is
         * not covered by the samples, so five are compared, two disagree. */
        ASSERT_EQ(sum.compared, 5);
        ASSERT_EQ(sum.disagree, 2);
        ASSERT_NEAR(sum.disagree_s, 2.0, 1e-9);
}

TEST(summary_needs_two_samples_with_writes) {
        struct db_hostblk_row one[] = { hrow(1, 0, 0) };
        struct db_hostblk_row nowr[] = { hrow(1, 0, -1), hrow(2, 0, -1) };
        struct db_hostblk_row same_t[] = { hrow(1, 0, 0), hrow(1, 0, 10) };
        struct hostdisk_summary sum = { .written_bytes = 42 };

        ASSERT_EQ(hostdisk_summarize(NULL, 0, one, 1, 1.0, &sum), -ENODATA);
        ASSERT_EQ(hostdisk_summarize(NULL, 0, nowr, 2, 1.0, &sum), -ENODATA);
        ASSERT_EQ(hostdisk_summarize(NULL, 0, same_t, 2, 1.0, &sum), -ENODATA);
        ASSERT_EQ(hostdisk_summarize(NULL, 0, host, ELEMENTSOF(host), 0, &sum), -ENODATA);
        ASSERT_NEAR(sum.written_bytes, 42.0, 0);              /* untouched on failure */
}
