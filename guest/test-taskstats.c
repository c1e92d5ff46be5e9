/* test-taskstats.c: the job's exiting tasks as the agent reads them from
 * taskstats' netlink datagrams, and which of them are workers. */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <string.h>

#include "common/test.h"
#include "guest/taskstats.h"

TEST_MAIN();

#define FAMILY 23

/* Append one exit report (AGGR_PID holding PID and STATS) of family to
 * buf at *len, as the kernel's taskstats_exit() lays it out. */
static void put_exit(char *buf, size_t *len, uint16_t family, const struct taskstats *t) {
        struct nlmsghdr *h = (struct nlmsghdr *)(void *)(buf + *len);
        struct genlmsghdr *g = NLMSG_DATA(h);
        struct nlattr *aggr = (struct nlattr *)(void *)((char *)g + GENL_HDRLEN);
        struct nlattr *pid = (struct nlattr *)(void *)((char *)aggr + NLA_HDRLEN);
        struct nlattr *stats = (struct nlattr *)(void *)((char *)pid + NLA_HDRLEN + NLA_ALIGN(4));
        uint32_t p = t->ac_pid;

        memset(h, 0, NLMSG_SPACE(GENL_HDRLEN + 2 * NLA_HDRLEN + NLA_ALIGN(4) + NLA_HDRLEN + sizeof(*t)));
        g->cmd = TASKSTATS_CMD_NEW;
        pid->nla_type = TASKSTATS_TYPE_PID;
        pid->nla_len = NLA_HDRLEN + 4;
        memcpy((char *)pid + NLA_HDRLEN, &p, 4);
        stats->nla_type = TASKSTATS_TYPE_STATS;
        stats->nla_len = (uint16_t)(NLA_HDRLEN + sizeof(*t));
        memcpy((char *)stats + NLA_HDRLEN, t, sizeof(*t));
        aggr->nla_type = TASKSTATS_TYPE_AGGR_PID | NLA_F_NESTED;
        aggr->nla_len = (uint16_t)(NLA_HDRLEN + NLA_HDRLEN + NLA_ALIGN(4) + NLA_HDRLEN + sizeof(*t));
        h->nlmsg_type = family;
        h->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + aggr->nla_len);
        *len += NLMSG_ALIGN(h->nlmsg_len);
}

static struct taskstats task(uint32_t pid, uint32_t tgid, uint32_t ppid, double life_s, double run_s, double delay_s) {
        struct taskstats t;

        memset(&t, 0, sizeof(t));
        t.version = TASKSTATS_VERSION;
        t.ac_pid = pid;
        t.ac_tgid = tgid;
        t.ac_ppid = ppid;
        t.ac_etime = (uint64_t)(life_s * 1e6);
        t.cpu_run_virtual_total = (uint64_t)(run_s * 1e9);
        t.cpu_delay_total = (uint64_t)(delay_s * 1e9);
        t.blkio_delay_total = 1000;
        t.freepages_delay_total = 7;
        return t;
}

TEST(parse_datagram) {
        static char buf[8192] __attribute__((aligned(8)));
        struct taskstats_task got[4];
        struct taskstats t;
        size_t len = 0, n = 0;
        uint64_t dropped = 0;

        t = task(30, 30, 29, 3.0, 2.0, 0.25);
        put_exit(buf, &len, FAMILY, &t);
        /* Another family's message and a kernel thread are no job exits. */
        put_exit(buf, &len, FAMILY + 1, &t);
        t = task(40, 40, 2, 300, 0.1, 0);
        put_exit(buf, &len, FAMILY, &t);
        t = task(31, 31, 29, 1.0, 0.5, 0);
        put_exit(buf, &len, FAMILY, &t);
        ASSERT_EQ(taskstats_parse(buf, len, FAMILY, got, 4, &n, &dropped), 2);
        ASSERT_EQ(n, 2);
        ASSERT_EQ(got[0].pid, 30);
        ASSERT_EQ(got[0].etime_ns, 3000000000ULL);
        ASSERT_EQ(got[0].run_ns, 2000000000ULL);
        ASSERT_EQ(got[0].delay_ns, 250000000ULL);
        ASSERT_EQ(got[0].blkio_ns, 1000);
        ASSERT_EQ(got[0].reclaim_ns, 7);
        ASSERT_EQ(got[1].pid, 31);
        /* Full: counted, not kept. */
        ASSERT_EQ(taskstats_parse(buf, len, FAMILY, got, 3, &n, &dropped), 2);
        ASSERT_EQ(n, 3);
        ASSERT_EQ(dropped, 1);
        /* A message that claims more than the datagram holds. */
        ASSERT_EQ(taskstats_parse(buf, len - 1, FAMILY, got, 4, &n, &dropped), -EBADMSG);
}

/* An older kernel's shorter struct: no thread group, which is the pid. */
TEST(parse_short_struct) {
        static char buf[4096] __attribute__((aligned(8)));
        struct taskstats t = task(50, 0, 29, 1, 1, 0);
        struct taskstats_task got[1];
        size_t len = 0, n = 0;
        uint64_t dropped = 0;

        put_exit(buf, &len, FAMILY, &t);
        ASSERT_EQ(taskstats_parse(buf, len, FAMILY, got, 1, &n, &dropped), 1);
        ASSERT_EQ(got[0].tgid, 50);
}

static struct taskstats_task tt(uint32_t pid, uint32_t tgid, uint32_t ppid, double life_s, double run_s) {
        return (struct taskstats_task){ pid, tgid, ppid, (uint64_t)(life_s * 1e9), (uint64_t)(run_s * 1e9),
                                        (uint64_t)(0.5e9), 100, 1 };
}

/* fio: its main process (36, with a helper thread 37) waits for the job's
 * process (38): only 38 is a worker. */
TEST(sum_fio) {
        struct taskstats_task t[] = { tt(38, 38, 36, 10, 3), tt(37, 36, 29, 10, 0.1), tt(36, 36, 29, 10.5, 0.6) };
        struct taskstats_sums s = { 0 };

        taskstats_sum(t, 3, &s);
        ASSERT_EQ(s.tasks, 3);
        ASSERT_EQ(s.waiters, 2);
        ASSERT_EQ(s.sleep_ns, 6500000000ULL);
        ASSERT_EQ(s.run_ns, 3000000000ULL);
        ASSERT_EQ(s.blkio_ns, 100);
        ASSERT_EQ(s.reclaim_ns, 3);
}

/* dbench: a parent and four clients; tiotest: a leader and its threads;
 * dd: one process, a worker; a task whose running outlasts its life (whole
 * microseconds) slept 0. */
TEST(sum_trees) {
        struct taskstats_task db[] = { tt(32, 32, 31, 24, 5), tt(33, 33, 31, 24, 5), tt(34, 34, 31, 24, 5),
                                       tt(35, 35, 31, 24, 5), tt(31, 31, 29, 24.5, 0.1) };
        struct taskstats_task tio[] = { tt(41, 40, 29, 2, 1), tt(42, 40, 29, 2, 1), tt(40, 40, 29, 9, 0.2) };
        struct taskstats_task dd[] = { tt(30, 30, 29, 3, 2.7) };
        struct taskstats_sums s = { 0 };

        taskstats_sum(db, 5, &s);
        ASSERT_EQ(s.waiters, 1);
        ASSERT_EQ(s.sleep_ns, 4 * 18500000000ULL);
        s = (struct taskstats_sums){ 0 };
        taskstats_sum(tio, 3, &s);
        ASSERT_EQ(s.waiters, 1);
        ASSERT_EQ(s.sleep_ns, 2 * 500000000ULL);
        s = (struct taskstats_sums){ 0 };
        taskstats_sum(dd, 1, &s);
        ASSERT_EQ(s.waiters, 0);
        ASSERT_EQ(s.sleep_ns, 0);
        ASSERT_EQ(s.delay_ns, 500000000ULL);
}
