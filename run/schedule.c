/* schedule.c: cells over hosts (see schedule.h). */
#include <errno.h>
#include <glib.h>

#include "run/schedule.h"

struct schedule {
        size_t n_hosts, n_groups;
        unsigned *slots;
        int *alive;
        GQueue *queues;            /* per host: cell indices (GUINT_TO_POINTER) in run order */
        GQueue held;               /* cells of failed hosts no live host could take */
        size_t *group_host;
        size_t n_cells;
        size_t *group_of;          /* per cell */
};

/* Work per slot if host h took extra more cells (compared as fractions
 * without dividing: a*sb < b*sa). */
static int lighter(const struct schedule *s, size_t a, size_t extra_a, size_t b, size_t extra_b) {
        return (s->queues[a].length + extra_a) * s->slots[b] < (s->queues[b].length + extra_b) * s->slots[a];
}

int schedule_new(size_t n, const size_t *group_of, const int *todo, size_t n_groups, const unsigned *slots,
                 size_t n_hosts, struct schedule **ret) {
        struct schedule *s;
        size_t *cells, *order;

        if (n_hosts == 0)
                return -EINVAL;
        for (size_t h = 0; h < n_hosts; h++)
                if (slots[h] == 0)
                        return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (group_of[i] >= n_groups)
                        return -EINVAL;
        s = g_new0(struct schedule, 1);
        s->n_hosts = n_hosts;
        s->n_groups = n_groups;
        s->slots = g_memdup2(slots, n_hosts * sizeof(*slots));
        s->alive = g_new(int, n_hosts);
        s->queues = g_new0(GQueue, n_hosts);
        s->group_host = g_new0(size_t, n_groups ? n_groups : 1);
        s->n_cells = n;
        s->group_of = n ? g_memdup2(group_of, n * sizeof(*group_of)) : NULL;
        for (size_t h = 0; h < n_hosts; h++)
                s->alive[h] = 1;

        /* Largest groups first, each to the host it loads least (per
         * slot): the classic greedy spread, close to even for a night's
         * few large groups. Ties keep the order given. */
        cells = g_new0(size_t, n_groups ? n_groups : 1);
        order = g_new0(size_t, n_groups ? n_groups : 1);
        for (size_t i = 0; i < n; i++)
                cells[group_of[i]] += todo[i] != 0;
        for (size_t g = 0; g < n_groups; g++)
                order[g] = g;
        for (size_t a = 1; a < n_groups; a++)
                for (size_t b = a; b > 0 && cells[order[b]] > cells[order[b - 1]]; b--) {
                        size_t t = order[b];
                        order[b] = order[b - 1];
                        order[b - 1] = t;
                }
        {
                g_autofree size_t *load = g_new0(size_t, n_hosts);

                for (size_t k = 0; k < n_groups; k++) {
                        size_t g = order[k], best = 0;

                        for (size_t h = 1; h < n_hosts; h++)
                                if ((load[h] + cells[g]) * slots[best] < (load[best] + cells[g]) * slots[h])
                                        best = h;
                        s->group_host[g] = best;
                        load[best] += cells[g];
                }
        }
        for (size_t i = 0; i < n; i++)
                if (todo[i])
                        g_queue_push_tail(&s->queues[s->group_host[group_of[i]]], GUINT_TO_POINTER(i));
        g_free(cells);
        g_free(order);
        *ret = s;
        return 0;
}

struct schedule *schedule_free(struct schedule *s) {
        if (!s)
                return NULL;
        for (size_t h = 0; h < s->n_hosts; h++)
                g_queue_clear(&s->queues[h]);
        g_queue_clear(&s->held);
        g_free(s->queues);
        g_free(s->slots);
        g_free(s->alive);
        g_free(s->group_host);
        g_free(s->group_of);
        g_free(s);
        return NULL;
}

size_t schedule_group_host(const struct schedule *s, size_t g) {
        return s->group_host[g];
}

int schedule_next(struct schedule *s, size_t h, size_t *ret_cell) {
        if (h >= s->n_hosts || !s->alive[h] || g_queue_is_empty(&s->queues[h]))
                return 0;
        *ret_cell = GPOINTER_TO_UINT(g_queue_pop_head(&s->queues[h]));
        return 1;
}

void schedule_requeue(struct schedule *s, size_t h, size_t cell) {
        /* A host that failed gave its group to another: an attempt it
         * still had running (another slot of it) follows the group. */
        if (h < s->n_hosts && !s->alive[h] && cell < s->n_cells)
                h = s->group_host[s->group_of[cell]];
        if (h < s->n_hosts && s->alive[h])
                g_queue_push_head(&s->queues[h], GUINT_TO_POINTER(cell));
        else
                g_queue_push_head(&s->held, GUINT_TO_POINTER(cell));
}

long schedule_host_failed(struct schedule *s, size_t h) {
        long to = -1;

        if (h >= s->n_hosts)
                return -1;
        s->alive[h] = 0;
        for (size_t o = 0; o < s->n_hosts; o++)
                if (s->alive[o] && (to < 0 || lighter(s, o, 0, (size_t)to, 0)))
                        to = (long)o;
        /* Held cells go too: a host that failed earlier left them. */
        while (!g_queue_is_empty(&s->held))
                g_queue_push_tail(&s->queues[h], g_queue_pop_head(&s->held));
        while (!g_queue_is_empty(&s->queues[h])) {
                gpointer c = g_queue_pop_head(&s->queues[h]);
                g_queue_push_tail(to >= 0 ? &s->queues[to] : &s->held, c);
        }
        for (size_t g = 0; to >= 0 && g < s->n_groups; g++)
                if (s->group_host[g] == h)
                        s->group_host[g] = (size_t)to;
        return to;
}

size_t schedule_held(const struct schedule *s) {
        return s->held.length;
}

size_t schedule_queued(const struct schedule *s, size_t h) {
        return h < s->n_hosts ? s->queues[h].length : 0;
}
