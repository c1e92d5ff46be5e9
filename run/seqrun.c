/* seqrun.c: the values an --until-mde run asks about (see seqrun.h). */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/cellstate.h"
#include "run/seqrun.h"
#include "report/metrics.h"
#include "report/view.h"
#include "results/query.h"

/* One judged metric of one workload: its values per kernel and round. */
struct series {
        size_t workload;
        char *metric;
        double *v;                 /* [kernel * max_rounds + round], NAN: no value */
};

static void series_free(gpointer p) {
        struct series *s = p;

        g_free(s->metric);
        g_free(s->v);
        g_free(s);
}

static gint series_cmp(gconstpointer x, gconstpointer y) {
        const struct series *a = *(struct series *const *)x, *b = *(struct series *const *)y;

        if (a->workload != b->workload)
                return a->workload < b->workload ? -1 : 1;
        return strcmp(a->metric, b->metric);
}

/* The plan index of a cell key "c007" (the plan's own spelling), or -1. */
static ssize_t plan_index(const struct seqrun_ctx *c, const char *key) {
        char *end;
        unsigned long i;

        if (!key || key[0] != 'c' || !g_ascii_isdigit(key[1]))
                return -1;
        i = strtoul(key + 1, &end, 10);
        if (*end || i >= c->n_plan || strcmp(c->plan[i].key, key) != 0)
                return -1;
        return (ssize_t)i;
}

/* Read every ok cell of the first `rounds` rounds into series. */
static int load(const struct seqrun_ctx *c, size_t rounds, GHashTable *by_name, GPtrArray *all,
                struct kb_error *err) {
        size_t max = c->params.max_rounds;

        for (size_t k = 0; k < c->n_kernels; k++) {
                struct query_selection *sel = NULL;
                int r = query_selection(c->db, c->run_id, c->kernel_ids[k], NULL, &sel, err);

                if (r < 0)
                        return r;
                for (size_t i = 0; i < sel->n_cells; i++) {
                        const struct query_sel_cell *cell = &sel->cells[i];
                        int paced;
                        ssize_t pi = plan_index(c, cell->cell_key);
                        const struct plan_cell *pc;

                        if (pi < 0 || !cellstate_is(cell->state, CELLSTATE_OK))
                                continue;
                        pc = &c->plan[pi];
                        if (pc->kernel != k || (size_t)pc->iteration >= rounds)
                                continue;
                        /* What compare will judge: under TCG with an
                         * unthrottled disk, the counts, not the rates. */
                        paced = view_cpu_paced(sel->settings_json, cell->params_json);
                        for (size_t m = 0; m < cell->n_metrics; m++) {
                                const struct query_metric *qm = &cell->metrics[m];
                                g_autofree char *key = NULL;
                                struct series *s;

                                if (!qm->has_value || !isfinite(qm->value) || !view_metric_judged(qm->name, paced))
                                        continue;
                                key = g_strdup_printf("%zu\t%s", pc->workload, qm->name);
                                s = g_hash_table_lookup(by_name, key);
                                if (!s) {
                                        s = g_new0(struct series, 1);
                                        s->workload = pc->workload;
                                        s->metric = g_strdup(qm->name);
                                        s->v = g_new(double, c->n_kernels * max);
                                        for (size_t x = 0; x < c->n_kernels * max; x++)
                                                s->v[x] = NAN;
                                        g_hash_table_insert(by_name, g_steal_pointer(&key), s);
                                        g_ptr_array_add(all, s);
                                }
                                s->v[k * max + (size_t)pc->iteration] = qm->value;
                        }
                }
                query_selection_free(sel);
        }
        g_ptr_array_sort(all, series_cmp);
        return 0;
}

/* One metric's MDE in the progress line and the JSON, as compare shows it:
 * a fraction, or for an amount (floor > 0) the difference in its unit
 * (seqrule_mde's shown figure). */
static void put_mde(GString *out, json_t *j, const char *name, double mde, double floor) {
        if (out->len)
                g_string_append(out, ", ");
        if (isnan(mde))
                g_string_append_printf(out, "%s n/a", name);
        else if (isinf(mde))
                g_string_append_printf(out, "%s -", name);
        else if (floor > 0)
                g_string_append_printf(out, "%s %.3g", name, mde);
        else
                g_string_append_printf(out, "%s %.1f%%", name, mde * 100);
        json_object_set_new(j, name, isfinite(mde) ? json_real(mde) : json_null());
}

int seqrun_ask(const struct seqrun_ctx *c, size_t rounds, struct seqrun_answer *ret, struct kb_error *err) {
        g_autoptr(GHashTable) by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(series_free);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GString) mdes = g_string_new("");
        g_autofree struct seqrule_metric *m = NULL;
        size_t max = c->params.max_rounds, n = 0, per = c->n_kernels > 1 ? c->n_kernels - 1 : 1;
        struct seqrun_answer a = { 0 };
        json_t *j = json_object();
        int r;

        if (rounds > max)
                rounds = max;
        r = load(c, rounds, by_name, all, err);
        if (r < 0) {
                json_decref(j);
                return r;
        }
        m = g_new0(struct seqrule_metric, all->len * per + 1);
        for (guint i = 0; i < all->len; i++) {
                const struct series *s = all->pdata[i];

                /* Several kernels are each compared with the first; two
                 * workloads may share a metric name. */
                for (size_t k = c->n_kernels > 1 ? 1 : 0; k < c->n_kernels; k++) {
                        char *name = g_strdup_printf("%s%s%s%s%s", c->n_specs > 1 ? c->spec_names[s->workload] : "",
                                                     c->n_specs > 1 ? " " : "", s->metric,
                                                     c->n_kernels > 2 ? " " : "",
                                                     c->n_kernels > 2 ? c->kernel_names[k] : "");

                        g_ptr_array_add(names, name);
                        double shown;

                        m[n++] = (struct seqrule_metric){ name, s->v, s->v + k * max, metrics_floor(s->metric) };
                        seqrule_mde(&m[n - 1], rounds, &c->params, &shown);
                        put_mde(mdes, j, name, shown, m[n - 1].floor);
                }
        }
        r = seqrule_decide(&c->params, m, n, rounds, &a.d);
        if (r < 0) {
                json_decref(j);
                return error_setf(err, r, "the stopping rule refuses its parameters");
        }
        a.n_metrics = n;
        a.worst = n && a.d.look ? g_strdup(m[a.d.worst].name) : NULL;
        a.mdes = g_string_free(g_steal_pointer(&mdes), FALSE);
        a.mdes_json = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
        json_decref(j);
        *ret = a;
        return 0;
}

void seqrun_answer_clear(struct seqrun_answer *a) {
        g_free(a->worst);
        free(a->mdes_json);
        g_free(a->mdes);
        *a = (struct seqrun_answer){ 0 };
}

char *seqrun_outcome_json(const struct seqrun_ctx *c, const struct seqrun_answer *a, const char *why,
                          size_t rounds) {
        json_t *mdes = a->mdes_json ? json_loads(a->mdes_json, 0, NULL) : NULL;
        json_t *j = json_pack("{s:s, s:I, s:I, s:f, s:I, s:I, s:s?, s:o?, s:o}", "answer", why,
                              "rounds", (json_int_t)rounds,
                              "cells", (json_int_t)(rounds * c->n_kernels * c->n_specs),
                              "target", c->params.target, "pilot", (json_int_t)c->params.pilot,
                              "max_rounds", (json_int_t)c->params.max_rounds, "worst_metric", a->worst,
                              "worst_mde", isfinite(a->d.worst_mde) ? json_real(a->d.worst_mde) : NULL,
                              "mde", mdes ? mdes : json_object());
        char *s = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        char *out = s ? g_strdup(s) : NULL;

        free(s);
        json_decref(j);
        return out;
}
