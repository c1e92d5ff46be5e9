/* spread.c: the slots of several hosts over one schedule (see spread.h). */
#include <errno.h>

#include "run/spread.h"

struct spread {
        const struct spread_ops *ops;
        void *userdata;
        struct schedule *s;
        GMutex *lock;
        GCond cond;                        /* a cell ended or cells moved */
        size_t in_flight;                  /* cells running now, on any host */
        size_t n_hosts;
        int *failed;                       /* per host */
        int error;                         /* the first callback error, or 0 */
        struct kb_error err;
};

struct slot {
        struct spread *sp;
        size_t host;
};

/* Cells queued on the hosts still alive: work that may yet move to any
 * of them, should its host fail. */
static size_t queued_live(const struct spread *sp) {
        size_t n = 0;

        for (size_t h = 0; h < sp->n_hosts; h++)
                if (!sp->failed[h])
                        n += schedule_queued(sp->s, h);
        return n;
}

/* With the lock held: the next cell for host h, waiting while its queue is
 * empty but cells run or wait elsewhere (a host that fails gives them to
 * another, perhaps this one). Returns 0 when there is none to come. */
static int next_cell(struct spread *sp, size_t h, size_t *ret) {
        for (;;) {
                if (sp->error || sp->failed[h] || !sp->ops->go_on(sp->userdata))
                        return 0;
                if (schedule_next(sp->s, h, ret))
                        return 1;
                if (sp->in_flight == 0 && queued_live(sp) == 0)
                        return 0;
                g_cond_wait(&sp->cond, sp->lock);
        }
}

static gpointer slot_main(gpointer data) {
        struct slot *sl = data;
        struct spread *sp = sl->sp;
        size_t cell;

        g_mutex_lock(sp->lock);
        while (next_cell(sp, sl->host, &cell)) {
                struct kb_error err = { { 0 } };
                int host_failed = 0, again = 0, r;

                sp->in_flight++;
                g_mutex_unlock(sp->lock);
                r = sp->ops->run_cell(sp->userdata, sl->host, cell, &host_failed, &again, &err);
                g_mutex_lock(sp->lock);
                sp->in_flight--;
                if (r < 0 && !sp->error) {
                        sp->error = r;
                        sp->err = err;
                }
                /* The attempt to be made again goes first, before the
                 * host's cells move: it leads the queue it joins. */
                if (r >= 0 && again)
                        schedule_requeue(sp->s, sl->host, cell);
                if (r >= 0 && host_failed && !sp->failed[sl->host]) {
                        long to;

                        sp->failed[sl->host] = 1;
                        to = schedule_host_failed(sp->s, sl->host);
                        sp->ops->host_failed(sp->userdata, sl->host, to, schedule_held(sp->s));
                }
                g_cond_broadcast(&sp->cond);
        }
        g_cond_broadcast(&sp->cond);
        g_mutex_unlock(sp->lock);
        return NULL;
}

int spread_run(const struct spread_ops *ops, void *userdata, struct schedule *s, const unsigned *slots,
               size_t n_hosts, GMutex *lock, struct kb_error *err) {
        struct spread sp = { .ops = ops, .userdata = userdata, .s = s, .lock = lock, .n_hosts = n_hosts };
        g_autoptr(GPtrArray) threads = g_ptr_array_new();
        g_autofree struct slot *sl = NULL;
        size_t n = 0;

        for (size_t h = 0; h < n_hosts; h++)
                n += slots[h];
        sl = g_new0(struct slot, n ? n : 1);
        sp.failed = g_new0(int, n_hosts ? n_hosts : 1);
        g_cond_init(&sp.cond);
        for (size_t h = 0, k = 0; h < n_hosts; h++)
                for (unsigned i = 0; i < slots[h]; i++, k++) {
                        sl[k] = (struct slot){ &sp, h };
                        g_ptr_array_add(threads, g_thread_new("kbench-slot", slot_main, &sl[k]));
                }
        for (guint i = 0; i < threads->len; i++)
                g_thread_join(threads->pdata[i]);
        g_cond_clear(&sp.cond);
        g_free(sp.failed);
        if (sp.error) {
                *err = sp.err;
                return sp.error;
        }
        return 0;
}
