/* guest/taskstats.c: the job's exiting tasks over taskstats' netlink
 * family (see taskstats.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/util.h"
#include "guest/taskstats.h"

#define TASKSTATS_BUF 16384
#define TASKSTATS_RCVBUF (4 << 20)         /* room for thousands of exits between two drains */
#define TASKSTATS_KTHREADD 2               /* every kernel thread's parent */

/* One request: a generic netlink header and its attributes. */
struct taskstats_req {
        struct nlmsghdr n;
        struct genlmsghdr g;
        char attrs[256];
};

static void req_init(struct taskstats_req *r, uint16_t type, uint8_t cmd) {
        memset(r, 0, sizeof(*r));
        r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
        r->n.nlmsg_type = type;
        r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        r->g.cmd = cmd;
        r->g.version = 1;
}

/* Append attribute type holding len bytes of data. Returns 0 or -ENOSPC. */
static int req_attr(struct taskstats_req *r, uint16_t type, const void *data, size_t len) {
        struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));
        size_t total = NLA_HDRLEN + len;

        if (NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(total) > sizeof(*r))
                return -ENOSPC;
        a->nla_type = type;
        a->nla_len = (uint16_t)total;
        memcpy((char *)a + NLA_HDRLEN, data, len);
        r->n.nlmsg_len = (uint32_t)(NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(total));
        return 0;
}

/* Send r and wait for the kernel's answer; the family lookup's reply is
 * copied to buf. Returns the bytes of the last reply read, or -errno (the
 * kernel's error of an ack). */
static int req_send(int fd, struct taskstats_req *r, char *buf, size_t size) {
        ssize_t n;

        if (send(fd, r, r->n.nlmsg_len, 0) < 0)
                return -errno;
        for (;;) {
                const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;

                n = recv(fd, buf, size, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if ((size_t)n < sizeof(*h) || h->nlmsg_len > (size_t)n)
                        return -EBADMSG;
                if (h->nlmsg_type == NLMSG_ERROR) {
                        const struct nlmsgerr *e = NLMSG_DATA(h);
                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
                                return -EBADMSG;
                        /* An ack (error 0) ends a request without a reply. */
                        return e->error;
                }
                return (int)n;
        }
}

/* The attribute type within [p, end) whose type is want, or NULL. */
static const struct nlattr *attr_find(const char *p, const char *end, uint16_t want) {
        while (p + NLA_HDRLEN <= end) {
                const struct nlattr *a = (const struct nlattr *)(const void *)p;

                if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
                        return NULL;
                if ((a->nla_type & NLA_TYPE_MASK) == want)
                        return a;
                p += NLA_ALIGN(a->nla_len);
        }
        return NULL;
}

/* The TASKSTATS family's id through the generic netlink controller. */
static int family_id(int fd, uint16_t *ret) {
        struct taskstats_req r;
        char buf[TASKSTATS_BUF];
        const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;
        const struct nlattr *a;
        int n;

        req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
        r.n.nlmsg_flags = NLM_F_REQUEST;
        if ((n = req_attr(&r, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME))) < 0)
                return n;
        n = req_send(fd, &r, buf, sizeof(buf));
        if (n <= 0)
                return n == 0 ? -ENOENT : n;
        if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
                return -EBADMSG;
        a = attr_find(buf + NLMSG_LENGTH(GENL_HDRLEN), buf + h->nlmsg_len, CTRL_ATTR_FAMILY_ID);
        if (!a || a->nla_len < NLA_HDRLEN + sizeof(uint16_t))
                return -EBADMSG;
        memcpy(ret, (const char *)a + NLA_HDRLEN, sizeof(*ret));
        return 0;
}

/* "0-3": the CPUs the kernel could run; taskstats refuses a mask beyond them. */
static int possible_cpus(char *buf, size_t size) {
        int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return snprintf(buf, size, "0") < 0 ? -EINVAL : 0;
        n = read(fd, buf, size - 1);
        close(fd);
        if (n <= 0)
                return -EIO;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

int taskstats_open(struct taskstats_listener *l) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
        struct taskstats_req r;
        char cpus[256], buf[TASKSTATS_BUF];
        int fd, rcv = TASKSTATS_RCVBUF, rc;

        l->fd = -1;
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
        if (fd < 0)
                return -errno;
        /* Root may pass rmem_max; a smaller buffer only drops sooner. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)) < 0)
                (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                rc = -errno;
                goto fail;
        }
        if ((rc = family_id(fd, &l->family)) < 0 || (rc = possible_cpus(cpus, sizeof(cpus))) < 0)
                goto fail;
        req_init(&r, l->family, TASKSTATS_CMD_GET);
        if ((rc = req_attr(&r, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus, strlen(cpus) + 1)) < 0 ||
            (rc = req_send(fd, &r, buf, sizeof(buf))) < 0)
                goto fail;
        if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
                rc = -errno;
                goto fail;
        }
        l->fd = fd;
        return 0;
fail:
        close(fd);
        return rc;
}

/* One task's exit report: its stats attribute, len bytes (an older kernel's
 * struct is shorter: what it lacks reads 0, a thread group 0 its pid's). */
static int take_task(const void *stats, size_t len, struct taskstats_task *ret) {
        struct taskstats t;

        memset(&t, 0, sizeof(t));
        memcpy(&t, stats, len < sizeof(t) ? len : sizeof(t));
        if (t.ac_pid == TASKSTATS_KTHREADD || t.ac_ppid == TASKSTATS_KTHREADD)
                return 0;
        *ret = (struct taskstats_task){
                .pid = t.ac_pid, .tgid = t.ac_tgid ? t.ac_tgid : t.ac_pid, .ppid = t.ac_ppid,
                .etime_ns = t.ac_etime * 1000, .run_ns = t.cpu_run_virtual_total, .delay_ns = t.cpu_delay_total,
                .blkio_ns = t.blkio_delay_total, .reclaim_ns = t.freepages_delay_total,
        };
        return 1;
}

int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_task *ret, size_t max,
                    size_t *n, uint64_t *ret_dropped) {
        const char *p = buf, *end = p + len;
        int added = 0;

        while (p + NLMSG_HDRLEN <= end) {
                const struct nlmsghdr *h = (const struct nlmsghdr *)(const void *)p;
                const char *body = p + NLMSG_LENGTH(GENL_HDRLEN), *msg_end;
                const struct genlmsghdr *g = NLMSG_DATA(h);
                const struct nlattr *aggr, *stats;
                struct taskstats_task t;

                if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > (size_t)(end - p))
                        return -EBADMSG;
                msg_end = p + h->nlmsg_len;
                p += NLMSG_ALIGN(h->nlmsg_len);
                /* Acks, the controller's replies, other commands: not exits. */
                if (h->nlmsg_type != family || body > msg_end || g->cmd != TASKSTATS_CMD_NEW)
                        continue;
                aggr = attr_find(body, msg_end, TASKSTATS_TYPE_AGGR_PID);
                if (!aggr)
                        continue;
                stats = attr_find((const char *)aggr + NLA_HDRLEN, (const char *)aggr + aggr->nla_len,
                                  TASKSTATS_TYPE_STATS);
                if (!stats)
                        return -EBADMSG;
                if (!take_task((const char *)stats + NLA_HDRLEN, stats->nla_len - NLA_HDRLEN, &t))
                        continue;
                if (*n < max)
                        ret[(*n)++] = t;
                else
                        (*ret_dropped)++;
                added++;
        }
        return added;
}

/* Whether task i waited for others among the n: a parent of another's
 * process, or its thread, or a thread group's leader one of whose other
 * threads ended too. */
static int is_waiter(const struct taskstats_task *t, size_t n, size_t i) {
        for (size_t j = 0; j < n; j++) {
                if (j == i)
                        continue;
                if (t[j].ppid == t[i].tgid && t[j].tgid != t[i].tgid)
                        return 1;
                if (t[i].pid == t[i].tgid && t[j].tgid == t[i].tgid)
                        return 1;
        }
        return 0;
}

void taskstats_sum(const struct taskstats_task *t, size_t n, struct taskstats_sums *sums) {
        for (size_t i = 0; i < n; i++) {
                uint64_t busy = t[i].run_ns + t[i].delay_ns;

                sums->tasks++;
                sums->reclaim_ns += t[i].reclaim_ns;
                if (is_waiter(t, n, i)) {
                        sums->waiters++;
                        continue;
                }
                /* Lifetimes are whole microseconds: a task that never
                 * slept may come out a little below 0. */
                sums->sleep_ns += t[i].etime_ns > busy ? t[i].etime_ns - busy : 0;
                sums->run_ns += t[i].run_ns;
                sums->delay_ns += t[i].delay_ns;
                sums->blkio_ns += t[i].blkio_ns;
        }
}

int taskstats_drain(struct taskstats_listener *l, struct taskstats_sums *sums) {
        static char buf[TASKSTATS_BUF];
        int added = 0;

        if (l->fd < 0)
                return 0;
        for (;;) {
                ssize_t n = recv(l->fd, buf, sizeof(buf), 0);
                int r;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == ENOBUFS) {
                        /* The kernel dropped reports: say so, carry on. */
                        sums->lost++;
                        continue;
                }
                if (n < 0)
                        return errno == EAGAIN ? added : -errno;
                if (n == 0)
                        return added;
                r = taskstats_parse(buf, (size_t)n, l->family, l->pending, TASKSTATS_PENDING_MAX, &l->n_pending,
                                    &sums->lost);
                added += r > 0 ? r : 0;
        }
}

void taskstats_mark(struct taskstats_listener *l, struct taskstats_sums *sums) {
        taskstats_sum(l->pending, l->n_pending, sums);
        l->n_pending = 0;
}

void taskstats_close(struct taskstats_listener *l) {
        if (l->fd >= 0)
                close(l->fd);
        l->fd = -1;
}
