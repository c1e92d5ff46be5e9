/* web/history: regressions across nights and comparison histories (see
 * history.h). */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "common/util.h"
#include "report/text.h"
#include "results/cellstate.h"
#include "settings/pairkey.h"
#include "web/history.h"
#include "web/page.h"
#include "web/regstate.h"

/* ---- regressions across nights ---------------------------------------- */

/* What one night says of one (subject, baseline, group, metric). */
struct tonight {
        char *key;                 /* subject, baseline, spec, metric joined (owned) */
        const char *subject;       /* borrowed from the night */
        enum regstate_input in;    /* the strongest of the night's comparisons of the subject */
        size_t compare;
        const struct compare_group *g;
        const struct compare_metric *m;
};

/* An open regression, or one that was. */
struct track {
        int open;
        size_t since;
};

static void tonight_free(gpointer p) {
        struct tonight *t = p;

        g_free(t->key);
        g_free(t);
}

/* Gather what the night's comparisons say, worst first: worse over clear
 * over unknown, should one night compare a subject twice. OUT: order (in
 * the order met, so events read the same on every pass). */
static void night_inputs(const struct model *s, const struct night_row *n, GPtrArray *order) {
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

        for (size_t k = 0; k < n->n_compares; k++) {
                const struct night_compare_row *nc = &n->compares[k];
                g_autofree char *file = NULL;
                const struct model_compare *c;

                if (!nc->sel_a || !nc->sel_b)
                        continue;
                file = page_compare_file(nc->sel_a, nc->sel_b);
                c = model_compare_find(s, file);
                if (!c || !c->v)
                        continue;
                for (size_t gi = 0; gi < c->v->n_groups; gi++)
                        for (size_t mi = 0; mi < c->v->groups[gi].n_m; mi++) {
                                const struct compare_group *g = &c->v->groups[gi];
                                const struct compare_metric *m = &g->m[mi];
                                enum regstate_input in = m->na && m->nb ? regstate_input(m->verdict)
                                                                        : REGSTATE_UNKNOWN;
                                g_autofree char *key = g_strjoin("\x1f", nc->subject ? nc->subject : "",
                                                                 n->baseline ? n->baseline : "", g->spec, m->name,
                                                                 NULL);
                                struct tonight *t = g_hash_table_lookup(seen, key);

                                if (t && t->in >= in)
                                        continue;
                                if (!t) {
                                        t = g_new0(struct tonight, 1);
                                        t->key = TAKE_PTR(key);
                                        g_hash_table_insert(seen, t->key, t);
                                        g_ptr_array_add(order, t);
                                }
                                *t = (struct tonight){ t->key, nc->subject ? nc->subject : "", in,
                                                       (size_t)(c - s->compares), g, m };
                        }
        }
}

static void add_event(GArray *events, const struct model *s, size_t night, const struct tonight *t,
                      enum regstate state, size_t since) {
        struct model_event e = {
                .night = night, .compare = t->compare, .subject = t->subject,
                .baseline = s->nights[night].baseline ? s->nights[night].baseline : "",
                .spec = t->g->spec, .metric = t->m->name, .state = state, .since = since,
                .verdict = t->m->verdict, .change = t->m->change, .q = t->m->q, .na = t->m->na, .nb = t->m->nb,
                .m = t->m,
        };

        g_array_append_val(events, e);
}

void history_event_change(const struct model_event *e, char *buf, size_t size) {
        char ci[64], mde[64];

        if (!e->m) {
                text_format_pct(e->change, 1, buf, size);
                return;
        }
        text_format_change(e->m, buf, ci, mde, size < sizeof(ci) ? size : sizeof(ci));
}

void history_regressions(struct model *s) {
        g_autoptr(GHashTable) tracks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        GArray *events = g_array_new(FALSE, TRUE, sizeof(struct model_event));

        for (size_t ni = 0; ni < s->n_nights; ni++) {
                g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(tonight_free);

                night_inputs(s, &s->nights[ni], order);
                for (guint i = 0; i < order->len; i++) {
                        const struct tonight *t = g_ptr_array_index(order, i);
                        struct track *tr = g_hash_table_lookup(tracks, t->key);
                        enum regstate state;

                        if (!tr) {
                                tr = g_new0(struct track, 1);
                                g_hash_table_insert(tracks, g_strdup(t->key), tr);
                        }
                        state = regstate_step(&tr->open, t->in);
                        if (state == REGSTATE_NEW)
                                tr->since = ni;
                        if (state != REGSTATE_NONE)
                                add_event(events, s, ni, t, state, tr->since);
                }
        }
        g_free(s->events);
        s->n_events = events->len;
        s->events = (struct model_event *)(void *)g_array_free(events, FALSE);
}

/* ---- a comparison's history --------------------------------------------- */

static int has_key(GPtrArray *keys, const char *key) {
        for (guint i = 0; i < keys->len; i++)
                if (strcmp(g_ptr_array_index(keys, i), key) == 0)
                        return 1;
        return 0;
}

/* The settings of one side's cells in the group: their pairing keys with
 * nothing ignored (borrowed from the model), and the kernel as the runs
 * show it. */
static const char *side_keys(const struct model *s, const struct compare_view *v, const struct compare_group *g,
                             const struct compare_side *side, const char *kernel_id, GPtrArray *keys) {
        const char *label = NULL;

        for (size_t i = 0; i < side->n_runs; i++) {
                const struct model_run *r = model_run_find(s, side->runs[i]);

                for (size_t k = 0; r && k < r->n_latest; k++) {
                        const struct query_cell *c = &r->v->cells[r->latest[k]];
                        struct pairkey *key = NULL;
                        int same;

                        if (!r->keys[k] || strcmp(c->kernel_id, kernel_id) != 0 || strcmp(c->workload, g->workload) != 0 ||
                            pairkey_from_json(r->v->run->settings_json, c->params_json, c->workload,
                                              (const char *const *)v->ignored, &key, NULL) < 0)
                                continue;
                        same = strcmp(key->canon, g->key->canon) == 0;
                        pairkey_unref(key);
                        if (!same)
                                continue;
                        label = c->kernel_name;
                        if (!has_key(keys, r->keys[k]))
                                g_ptr_array_add(keys, r->keys[k]);
                }
        }
        return label;
}

/* One side's lines: per run up to last_run, the mean of each metric over
 * the kernel's ok cells at the side's settings. */
static void side_lines(const struct model *s, const struct compare_group *g, const char *kernel_id, GPtrArray *keys,
                       struct history_group *h, int side) {
        g_autofree double *sum = g_new(double, h->n_metrics + 1);
        g_autofree size_t *cnt = g_new(size_t, h->n_metrics + 1);

        for (size_t m = 0; m < h->n_metrics; m++)
                h->lines[m][side].p = g_new0(struct history_point, s->n_runs + 1);
        for (size_t i = 0; i < s->n_runs && s->runs[i].v->run->id <= h->last_run; i++) {
                const struct model_run *r = &s->runs[i];

                memset(sum, 0, sizeof(double) * h->n_metrics);
                memset(cnt, 0, sizeof(size_t) * h->n_metrics);
                for (size_t k = 0; k < r->n_latest; k++) {
                        size_t ci = r->latest[k];
                        const struct query_cell *c = &r->v->cells[ci];

                        if (!cellstate_is(c->state, CELLSTATE_OK) || strcmp(c->kernel_id, kernel_id) != 0 ||
                            strcmp(c->workload, g->workload) != 0 || !r->keys[k] || !has_key(keys, r->keys[k]))
                                continue;
                        for (size_t j = 0; j < r->v->n_metrics[ci]; j++) {
                                const struct query_metric *qm = &r->v->metrics[ci][j];
                                size_t m = GPOINTER_TO_SIZE(g_hash_table_lookup(h->of, qm->name));

                                if (m && qm->has_value && isfinite(qm->value)) {
                                        sum[m - 1] += qm->value;
                                        cnt[m - 1]++;
                                }
                        }
                }
                for (size_t m = 0; m < h->n_metrics; m++)
                        if (cnt[m])
                                h->lines[m][side].p[h->lines[m][side].n++] =
                                        (struct history_point){ r->v->run->id, sum[m] / (double)cnt[m], cnt[m] };
        }
}

void history_group_load(const struct model *s, const struct model_compare *c, const struct compare_group *g,
                        struct history_group *ret) {
        const struct compare_side *sides[2] = { &g->a, &g->b };
        const char *kernels[2] = { c->v->kernel_a, c->v->kernel_b };
        struct history_group h = { 0 };

        h.metrics = g_new0(const char *, g->n_m + 1);
        h.of = g_hash_table_new(g_str_hash, g_str_equal);
        for (size_t i = 0; i < g->n_m; i++)
                if (g->m[i].judged) {
                        h.metrics[h.n_metrics++] = g->m[i].name;
                        g_hash_table_insert(h.of, (gpointer)g->m[i].name, GSIZE_TO_POINTER(h.n_metrics));
                }
        h.lines = g_malloc0_n(h.n_metrics + 1, sizeof(*h.lines));
        for (int side = 0; side < 2; side++)
                for (size_t i = 0; i < sides[side]->n_runs; i++)
                        h.last_run = MAX(h.last_run, sides[side]->runs[i]);
        for (int side = 0; side < 2; side++) {
                g_autoptr(GPtrArray) keys = g_ptr_array_new();
                const char *label;

                if (!kernels[side])
                        continue;
                label = side_keys(s, c->v, g, sides[side], kernels[side], keys);
                for (size_t m = 0; m < h.n_metrics; m++)
                        h.lines[m][side].kernel = label;
                side_lines(s, g, kernels[side], keys, &h, side);
        }
        *ret = h;
}

void history_group_free(struct history_group *h) {
        for (size_t m = 0; h->lines && m < h->n_metrics; m++) {
                g_free(h->lines[m][0].p);
                g_free(h->lines[m][1].p);
        }
        g_free(h->lines);
        g_free(h->metrics);
        if (h->of)
                g_hash_table_destroy(h->of);
        *h = (struct history_group){ 0 };
}

const struct history_line *history_lines_of(const struct history_group *h, const char *name) {
        size_t m = h->of ? GPOINTER_TO_SIZE(g_hash_table_lookup(h->of, name)) : 0;

        return m ? h->lines[m - 1] : NULL;
}
