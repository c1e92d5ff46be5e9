/* Unit tests for schedule.c: a comparison's cells stay on one host, the
 * groups spread by cells per slot, a failed host's cells go whole to the
 * least loaded live host, and with none left they are held. */
#include <glib.h>

#include "common/test.h"
#include "run/plan.h"
#include "run/schedule.h"

TEST_MAIN();

/* The plan of k kernels x w workloads x n repeats, grouped by workload. */
static size_t *groups_of(size_t k, size_t w, int n, size_t *ret_n, int **ret_todo) {
        struct plan_cell *p;
        size_t cells, *g;

        plan_build(k, w, n, &p, &cells);
        g = g_new(size_t, cells);
        *ret_todo = g_new(int, cells);
        for (size_t i = 0; i < cells; i++) {
                g[i] = p[i].workload;
                (*ret_todo)[i] = 1;
        }
        g_free(p);
        *ret_n = cells;
        return g;
}

/* Every cell a host runs belongs to groups given to it, in plan order. */
static void drain(struct schedule *s, size_t h, const size_t *g, size_t *seen, size_t n) {
        size_t c, last = 0;
        int first = 1;

        while (schedule_next(s, h, &c)) {
                ASSERT_TRUE(c < n);
                ASSERT_EQ(schedule_group_host(s, g[c]), h);
                ASSERT_TRUE(first || c > last);
                first = 0;
                last = c;
                seen[c]++;
        }
}

TEST(groups_stay_on_one_host_and_spread) {
        static const struct {
                size_t kernels, workloads;
                int repeats;
                unsigned slots[3];
                size_t hosts;
                size_t expect_cells[3];    /* queued per host at the start */
        } rows[] = {
                { 2, 1, 4, { 1, 1 }, 2, { 8, 0 } },          /* one comparison: one host */
                { 2, 2, 4, { 1, 1 }, 2, { 8, 8 } },
                { 10, 4, 6, { 1, 1, 1 }, 3, { 120, 60, 60 } }, /* a night: 4 groups of 60 */
                { 2, 3, 2, { 2, 1 }, 2, { 8, 4 } },          /* slots count */
                { 3, 2, 1, { 1 }, 1, { 6 } },
        };

        for (size_t r = 0; r < G_N_ELEMENTS(rows); r++) {
                size_t n;
                int *todo;
                g_autofree size_t *g = groups_of(rows[r].kernels, rows[r].workloads, rows[r].repeats, &n, &todo);
                g_autofree size_t *seen = g_new0(size_t, n);
                struct schedule *s = NULL;

                ASSERT_EQ(schedule_new(n, g, todo, rows[r].workloads, rows[r].slots, rows[r].hosts, &s), 0);
                for (size_t h = 0; h < rows[r].hosts; h++)
                        ASSERT_EQ(schedule_queued(s, h), rows[r].expect_cells[h]);
                for (size_t h = 0; h < rows[r].hosts; h++)
                        drain(s, h, g, seen, n);
                for (size_t i = 0; i < n; i++)
                        ASSERT_EQ(seen[i], 1);
                s = schedule_free(s);
                g_free(todo);
        }
}

/* A resumed run schedules only what is left. */
TEST(done_cells_are_not_queued) {
        size_t n, c;
        int *todo;
        g_autofree size_t *g = groups_of(2, 1, 3, &n, &todo);
        unsigned slots[] = { 1 };
        struct schedule *s = NULL;

        todo[0] = todo[1] = todo[4] = 0;
        ASSERT_EQ(schedule_new(n, g, todo, 1, slots, 1, &s), 0);
        ASSERT_EQ(schedule_queued(s, 0), 3);
        ASSERT_EQ(schedule_next(s, 0, &c), 1);
        ASSERT_EQ(c, 2);
        s = schedule_free(s);
        g_free(todo);
}

TEST(a_failed_hosts_cells_go_whole_to_the_least_loaded) {
        size_t n, c;
        int *todo;
        g_autofree size_t *g = groups_of(2, 3, 2, &n, &todo);     /* 3 groups of 4 */
        unsigned slots[] = { 1, 1, 1 };
        struct schedule *s = NULL;

        ASSERT_EQ(schedule_new(n, g, todo, 3, slots, 3, &s), 0);
        ASSERT_EQ(schedule_queued(s, 0), 4);
        /* Host 1 runs one cell, then fails while host 2 has run two. */
        ASSERT_EQ(schedule_next(s, 1, &c), 1);
        schedule_requeue(s, 1, c);                /* its attempt is to be made again */
        ASSERT_EQ(schedule_next(s, 2, &c), 1);
        ASSERT_EQ(schedule_next(s, 2, &c), 1);
        ASSERT_EQ(schedule_host_failed(s, 1), 2);  /* 2 of 4 left beats 4 of 4 */
        ASSERT_EQ(schedule_queued(s, 1), 0);
        ASSERT_EQ(schedule_queued(s, 2), 6);
        ASSERT_EQ(schedule_next(s, 1, &c), 0);
        /* The moved group is host 2's now, its order kept after host 2's own. */
        ASSERT_EQ(schedule_group_host(s, 1), 2);
        {
                size_t order[6], k = 0;
                while (schedule_next(s, 2, &c))
                        order[k++] = c;
                ASSERT_EQ(k, 6);
                ASSERT_EQ(g[order[0]], g[order[1]]);
                ASSERT_EQ(g[order[2]], 1);
                ASSERT_TRUE(order[2] < order[3] && order[3] < order[4] && order[4] < order[5]);
        }
        s = schedule_free(s);
        g_free(todo);
}

TEST(an_attempt_still_running_on_a_failed_host_follows_its_group) {
        size_t n, c1, c2;
        int *todo;
        g_autofree size_t *g = groups_of(2, 2, 2, &n, &todo);     /* 2 groups of 4 */
        unsigned slots[] = { 2, 2 };
        struct schedule *s = NULL;

        ASSERT_EQ(schedule_new(n, g, todo, 2, slots, 2, &s), 0);
        /* Host 1's two slots run a cell each; the connection goes and
         * ends both. The first to notice requeues its cell and fails the
         * host; the second requeues after that. */
        ASSERT_EQ(schedule_next(s, 1, &c1), 1);
        ASSERT_EQ(schedule_next(s, 1, &c2), 1);
        schedule_requeue(s, 1, c1);
        ASSERT_EQ(schedule_host_failed(s, 1), 0);
        schedule_requeue(s, 1, c2);
        ASSERT_EQ(schedule_held(s), 0);
        ASSERT_EQ(schedule_queued(s, 0), 8);
        ASSERT_EQ(schedule_next(s, 0, &c1), 1);
        ASSERT_EQ(c1, c2);                        /* it leads the queue it joined */
        s = schedule_free(s);
        g_free(todo);
}

TEST(no_host_left_holds_the_cells) {
        size_t n;
        int *todo;
        g_autofree size_t *g = groups_of(2, 2, 1, &n, &todo);
        unsigned slots[] = { 1, 1 };
        struct schedule *s = NULL;

        ASSERT_EQ(schedule_new(n, g, todo, 2, slots, 2, &s), 0);
        ASSERT_EQ(schedule_host_failed(s, 0), 1);
        ASSERT_EQ(schedule_queued(s, 1), 4);
        ASSERT_EQ(schedule_host_failed(s, 1), -1);
        ASSERT_EQ(schedule_held(s), 4);
        /* A retry for a dead host is held too. */
        schedule_requeue(s, 1, 0);
        ASSERT_EQ(schedule_held(s), 5);
        s = schedule_free(s);
        g_free(todo);
}

TEST(bad_input) {
        size_t g[] = { 0, 2 };
        int todo[] = { 1, 1 };
        unsigned slots[] = { 1, 0 };
        struct schedule *s = NULL;

        ASSERT_EQ(schedule_new(2, g, todo, 2, slots, 1, &s), -EINVAL);   /* group 2 of 2 */
        g[1] = 1;
        ASSERT_EQ(schedule_new(2, g, todo, 2, slots, 2, &s), -EINVAL);   /* a host without slots */
        ASSERT_EQ(schedule_new(2, g, todo, 2, slots, 0, &s), -EINVAL);
}
