/* report/explain.c: where a change of the kernel's instructions went (see
 * explain.h). */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "report/explain.h"
#include "results/profile.h"

struct explain_view *explain_view_free(struct explain_view *x) {
        if (!x)
                return NULL;
        for (size_t i = 0; i < x->n; i++) {
                for (size_t k = 0; k < x->v[i].n_top; k++)
                        g_free(x->v[i].top[k].symbol);
                g_free(x->v[i].top);
                g_free(x->v[i].phase);
        }
        g_free(x->v);
        g_free(x);
        return NULL;
}

int explain_metric_phase(const char *name, char *phase, size_t size) {
        static const char pre[] = "guest.", post[] = ".kernel_Minsn";
        size_t n = strlen(name);

        if (n <= strlen(pre) + strlen(post) || strncmp(name, pre, strlen(pre)) != 0 ||
            strcmp(name + n - strlen(post), post) != 0 || n - strlen(pre) - strlen(post) >= size)
                return 0;
        memcpy(phase, name + strlen(pre), n - strlen(pre) - strlen(post));
        phase[n - strlen(pre) - strlen(post)] = '\0';
        return 1;
}

/* Per function, the sum of each side's instructions (index 0: A, 1: B). */
struct sums {
        GHashTable *by_name;               /* name -> index into v */
        GArray *v;                         /* struct sum */
};

struct sum {
        char *name;                        /* owned by by_name's key */
        double s[2];
};

/* Add the profiles of the phase of cells (one side) to sums. OUT:
 * *ret_n, the cells that had one; *ret_total, their instructions. */
static int add_side(struct db *db, const struct compare_side *side, const char *phase, int k, struct sums *sums,
                    size_t *ret_n, double *ret_total, struct kb_error *err) {
        *ret_n = 0;
        *ret_total = 0;
        for (size_t c = 0; c < side->n_cells; c++) {
                struct db_profile_entry *e = NULL;
                size_t n = 0;
                int r = db_profile_read(db, side->cells[c], phase, &e, &n, err);

                if (r < 0)
                        return r;
                *ret_n += n > 0;
                for (size_t i = 0; i < n; i++) {
                        gpointer idx;

                        if (!g_hash_table_lookup_extended(sums->by_name, e[i].symbol, NULL, &idx)) {
                                struct sum s = { .name = g_strdup(e[i].symbol) };

                                idx = GUINT_TO_POINTER(sums->v->len);
                                g_array_append_val(sums->v, s);
                                g_hash_table_insert(sums->by_name, s.name, idx);
                        }
                        g_array_index(sums->v, struct sum, GPOINTER_TO_UINT(idx)).s[k] += (double)e[i].insns;
                        *ret_total += (double)e[i].insns;
                }
                db_profile_entries_free(e, n);
        }
        return 0;
}

static gint by_size(gconstpointer x, gconstpointer y) {
        const struct explain_fn *a = x, *b = y;

        if (fabs(a->delta) != fabs(b->delta))
                return fabs(a->delta) > fabs(b->delta) ? -1 : 1;
        return strcmp(a->symbol, b->symbol);
}

/* A function the other side did not run: in that kernel only, when the
 * other kernel's table lacks it. Pseudo symbols ("[unknown]", "[ext4]")
 * are in no table. */
static int only_in(struct db *db, const struct compare_view *v, const struct explain_fn *f, char *ret,
                   struct kb_error *err) {
        const char *other = f->a == 0 ? v->kernel_a : f->b == 0 ? v->kernel_b : NULL;
        int has = 1, r;

        *ret = 0;
        if (!other || f->symbol[0] == '[')
                return 0;
        r = db_profile_kernel_has(db, other, f->symbol, &has, err);
        if (r < 0)
                return r;
        if (has == 0)
                *ret = f->a == 0 ? 'B' : 'A';
        return 0;
}

/* The functions from the sums: the top differences, the rest summed. */
static int rank(struct db *db, const struct compare_view *v, struct sums *sums, struct explain *x, size_t top,
                struct kb_error *err) {
        g_autoptr(GArray) fns = g_array_sized_new(FALSE, FALSE, sizeof(struct explain_fn), sums->v->len);

        for (guint i = 0; i < sums->v->len; i++) {
                const struct sum *s = &g_array_index(sums->v, struct sum, i);
                struct explain_fn f = { .symbol = s->name, .a = s->s[0] / (double)x->na, .b = s->s[1] / (double)x->nb };

                f.delta = f.b - f.a;
                g_array_append_val(fns, f);
        }
        g_array_sort(fns, by_size);
        x->n_top = MIN(top, fns->len);
        x->top = g_new0(struct explain_fn, x->n_top);
        for (guint i = 0; i < fns->len; i++) {
                const struct explain_fn *f = &g_array_index(fns, struct explain_fn, i);
                int r;

                if (i >= x->n_top) {
                        x->rest += f->delta;
                        x->n_rest++;
                        continue;
                }
                x->top[i] = *f;
                x->top[i].symbol = g_strdup(f->symbol);
                r = only_in(db, v, &x->top[i], &x->top[i].only, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void sums_clear(struct sums *s) {
        g_hash_table_destroy(s->by_name);
        g_array_free(s->v, TRUE);
}

/* Explain metric m of group g into x. */
static int explain_one(struct db *db, const struct compare_view *v, size_t gi, const struct compare_metric *m,
                       const char *phase, size_t top, struct explain *x, struct kb_error *err) {
        const struct compare_group *g = &v->groups[gi];
        struct sums sums = { g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                             g_array_new(FALSE, FALSE, sizeof(struct sum)) };
        int r;

        *x = (struct explain){ .group = gi, .m = m, .phase = g_strdup(phase) };
        r = add_side(db, &g->a, phase, 0, &sums, &x->na, &x->total_a, err);
        if (r >= 0)
                r = add_side(db, &g->b, phase, 1, &sums, &x->nb, &x->total_b, err);
        if (r >= 0 && (x->na == 0 || x->nb == 0))
                x->none = "no profile of the phase on one side: cells under KVM, run with --no-profile or "
                          "stored before profiles have none";
        else if (r >= 0) {
                x->total_a /= (double)x->na;
                x->total_b /= (double)x->nb;
                r = rank(db, v, &sums, x, top, err);
        }
        sums_clear(&sums);
        return r;
}

/* Whether o asks for metric m. */
static int wanted(const struct explain_options *o, const struct compare_metric *m) {
        if (o->metric)
                return strcmp(o->metric, m->name) == 0;
        if (o->all)
                return m->na > 0 && m->nb > 0;
        return m->verdict == COMPARE_WORSE || m->verdict == COMPARE_BETTER;
}

int explain_load(struct db *db, struct compare_view *v, const struct explain_options *o, struct kb_error *err) {
        struct explain_view *x = g_new0(struct explain_view, 1);
        size_t top = o->top ? MIN(o->top, EXPLAIN_TOP_MAX) : EXPLAIN_TOP_DEFAULT;
        int r = 0;

        for (size_t gi = 0; r >= 0 && gi < v->n_groups; gi++)
                for (size_t i = 0; r >= 0 && i < v->groups[gi].n_m; i++) {
                        const struct compare_metric *m = &v->groups[gi].m[i];
                        char phase[64];

                        if (!explain_metric_phase(m->name, phase, sizeof(phase)) || !wanted(o, m))
                                continue;
                        x->v = g_renew(struct explain, x->v, x->n + 1);
                        r = explain_one(db, v, gi, m, phase, top, &x->v[x->n++], err);
                }
        if (r < 0) {
                explain_view_free(x);
                return r;
        }
        explain_view_free(v->explain);
        v->explain = x;
        return 0;
}

const struct explain *explain_find(const struct compare_view *v, size_t group, const struct compare_metric *m) {
        for (size_t i = 0; v->explain && i < v->explain->n; i++)
                if (v->explain->v[i].group == group && v->explain->v[i].m == m)
                        return &v->explain->v[i];
        return NULL;
}
