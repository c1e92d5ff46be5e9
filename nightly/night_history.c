/* nightly/night_history.c: a night's reads and writes of the results
 * database (see night_history.h). One place says which rows a night
 * looks at and how it reads them (a cell's latest attempt, an ok cell of
 * the same settings, a bisection's runs left out of a history), so the
 * steps above speak of subjects and verdicts, not of queries. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "bisect/bisect.h"
#include "cell/cell.h"
#include "decide/pairing.h"
#include "nightly/night_history.h"
#include "nightly/nightly_measured.h"
#include "report/explain.h"
#include "report/metrics.h"
#include "results/bisect.h"
#include "results/nights.h"
#include "results/query.h"

int night_history_resumable(struct db *db, const char *tag, int64_t **ret_ids, size_t *ret_n, struct kb_error *err) {
        g_autofree int64_t *ids = NULL;
        size_t nr = 0, kept = 0;
        int r = query_tag_runs(db, tag, &ids, &nr, err);

        for (size_t i = 0; r >= 0 && i < nr; i++) {
                struct query_run *run = NULL;

                r = query_run(db, ids[i], &run, err);
                if (r < 0)
                        break;
                if (strcmp(run->status, "interrupted") == 0 || strcmp(run->status, "running") == 0)
                        ids[kept++] = ids[i];
                query_runs_free(run, 1);
        }
        if (r < 0)
                return r;
        *ret_ids = g_steal_pointer(&ids);
        *ret_n = kept;
        return 0;
}

int night_history_interrupted(struct db *db, int64_t run) {
        struct query_run *q = NULL;
        int interrupted = query_run(db, run, &q, NULL) == 0 && strcmp(q->status, "interrupted") == 0;

        query_runs_free(q, q ? 1 : 0);
        return interrupted;
}

int night_history_kernels(struct db *db, int64_t run, char ***ret_ids, char ***ret_names, struct kb_error *err) {
        struct query_kernel *ks = NULL;
        size_t nk = 0;
        int r = query_run_kernels(db, run, &ks, &nk, err);

        if (r < 0)
                return r;
        *ret_ids = g_new0(char *, nk + 1);
        *ret_names = g_new0(char *, nk + 1);
        for (size_t i = 0; i < nk; i++) {
                (*ret_ids)[i] = g_strdup(ks[i].id);
                (*ret_names)[i] = g_strdup(ks[i].name);
        }
        query_kernels_free(ks, nk);
        return 0;
}

int night_history_count_ok(struct db *db, const char *kernel_id, char *const *fps, size_t *ret,
                           struct kb_error *err) {
        size_t ok = 0;

        for (size_t i = 0; fps[i]; i++) {
                size_t on_host = 0;
                int r = nightly_measured(db, kernel_id, fps[i], &on_host, err);

                if (r < 0)
                        return r;
                ok += on_host;
        }
        *ret = ok;
        return 0;
}

json_t *night_history_run_host(struct db *db, int64_t run, struct nightly_regression *g) {
        struct query_run *rb = NULL;
        json_t *info, *settings;
        json_int_t mem;

        if (query_run(db, run, &rb, NULL) < 0)
                return NULL;
        info = rb->host_info_json ? json_loads(rb->host_info_json, 0, NULL) : NULL;
        mem = json_integer_value(json_object_get(info, "mem_kb"));
        g->host = g_strdup(rb->host);
        g->qemu = g_strdup(rb->qemu_version);
        g->libvirt = g_strdup(rb->libvirt_version);
        g->cpu_model = g_strdup(json_string_value(json_object_get(info, "cpu")));
        g->mem_kib = mem > 0 ? (uint64_t)mem : 0;
        json_decref(info);
        settings = json_loads(rb->settings_json, 0, NULL);
        query_runs_free(rb, 1);
        return settings;
}

int night_history_compare(struct db *db, const char *a, const char *b, double alpha, double noise,
                          struct compare_view **ret, struct kb_error *err) {
        struct compare_options o = { .a = a, .b = b, .alpha = alpha, .noise = noise };
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);

        g_ptr_array_add(ignored, NULL);
        return pairing_compare_load(db, &o, ignored, ret, err);
}

int night_history_explain(struct db *db, struct compare_view *v, struct kb_error *err) {
        return explain_load(db, v, &(struct explain_options){ 0 }, err);
}

int night_history_failures(struct db *db, int64_t run, const char *kernel_id, struct nightly_failure *f,
                           struct kb_error *err) {
        struct query_cell *cells = NULL;
        const struct query_cell *first = NULL;
        size_t nc = 0;
        int r = query_cells(db, run, &cells, &nc, err);

        if (r < 0)
                return r;
        for (size_t i = 0; i < nc; i++) {
                const struct query_cell *c = &cells[i];
                int latest = 1;

                if (strcmp(c->kernel_id, kernel_id) != 0)
                        continue;
                for (size_t j = 0; j < nc; j++)
                        if (strcmp(cells[j].cell_key, c->cell_key) == 0 && cells[j].attempt > c->attempt)
                                latest = 0;
                if (!latest)
                        continue;
                f->total++;
                if (strcmp(c->state, CELL_OK) == 0)
                        continue;
                f->failed++;
                if (!first)
                        first = c;
        }
        if (first) {
                f->state = g_strdup(first->state);
                f->detail = g_strdup(first->detail);
                f->stage = g_strdup(isnan(first->boot_s) ? "boot" : isnan(first->workload_s) ? "workload" : "end");
        }
        query_cells_free(cells, nc);
        return 0;
}

int night_history_kernel_id(struct db *db, const char *name, char **ret, struct kb_error *err) {
        struct query_kernel *k = NULL;
        int r = query_kernel_by_name(db, name, &k, err);

        if (r < 0)
                return r;
        *ret = g_strdup(k->id);
        query_kernels_free(k, 1);
        return 0;
}

char **night_history_bisection_steps(struct db *db, int64_t id) {
        struct bisect_row *row = NULL;
        struct kb_error err = { { 0 } };
        GPtrArray *lines;

        if (!id || db_bisection_get(db, id, &row, &err) < 0)
                return NULL;
        lines = g_ptr_array_new();
        for (size_t i = 0; i < row->n_steps; i++) {
                const struct bisect_step_row *st = &row->steps[i];

                g_ptr_array_add(lines, g_strdup_printf("step %d, %s %s: %s (%d rounds)%s%s", st->step,
                                                       st->role ? st->role : "?", st->candidate ? st->candidate : "?",
                                                       st->decision ? st->decision : "?", st->rounds,
                                                       st->note ? "; " : "", st->note ? st->note : ""));
        }
        g_ptr_array_add(lines, NULL);
        bisect_rows_free(row, 1);
        return (char **)g_ptr_array_free(lines, FALSE);
}

static void free_points(gpointer p) {
        GArray *a = p;

        for (guint i = 0; i < a->len; i++)
                g_free(g_array_index(a, struct night_point, i).kernel);
        g_array_free(a, TRUE);
}

struct night_series *night_series_free(struct night_series *s) {
        if (!s)
                return NULL;
        g_hash_table_unref(s->points);
        g_ptr_array_unref(s->metrics);
        g_free(s);
        return NULL;
}

/* Add the means of the judged metrics of one (run, kernel) selection's ok
 * cells measured with fingerprint fp to s. */
static void add_points(const struct query_selection *sel, const char *fp, struct night_series *s) {
        g_autoptr(GHashTable) sums = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        GHashTableIter it;
        gpointer key, val;

        for (size_t i = 0; i < sel->n_cells; i++) {
                g_autofree char *cfp = NULL;
                if (strcmp(sel->cells[i].state, CELL_OK) != 0 ||
                    nightly_fingerprint_stored(sel->settings_json, sel->cells[i].params_json, &cfp, NULL) < 0 ||
                    strcmp(cfp, fp) != 0)
                        continue;
                for (size_t k = 0; k < sel->cells[i].n_metrics; k++) {
                        const struct query_metric *m = &sel->cells[i].metrics[k];
                        double *acc;
                        if (!m->has_value || !metrics_verdict(m->name))
                                continue;
                        acc = g_hash_table_lookup(sums, m->name);
                        if (!acc) {
                                acc = g_new0(double, 2);
                                g_hash_table_insert(sums, m->name, acc);
                        }
                        acc[0] += m->value;
                        acc[1] += 1;
                }
        }
        g_hash_table_iter_init(&it, sums);
        while (g_hash_table_iter_next(&it, &key, &val)) {
                const double *acc = val;
                GArray *pts = g_hash_table_lookup(s->points, key);
                struct night_point p = { acc[0] / acc[1], sel->run_id, NULL };

                if (!pts) {
                        char *name = g_strdup(key);
                        g_ptr_array_add(s->metrics, name);
                        pts = g_array_new(FALSE, FALSE, sizeof(struct night_point));
                        g_hash_table_insert(s->points, name, pts);
                }
                p.kernel = g_strdup(sel->kernel_name ? sel->kernel_name : sel->kernel_id);
                g_array_append_val(pts, p);
        }
}

int night_history_series(struct db *db, const char *fp, struct night_series **ret, struct kb_error *err) {
        struct night_series *s = g_new0(struct night_series, 1);
        struct query_run *runs = NULL;
        size_t nr = 0;
        int r = query_runs(db, &runs, &nr, err);

        s->metrics = g_ptr_array_new_with_free_func(g_free);
        s->points = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_points);
        for (size_t i = 0; i < nr && r >= 0; i++) {
                struct query_kernel *ks = NULL;
                size_t nk = 0;

                /* A bisection measures older kernels after newer ones: not history. */
                if (runs[i].tag && g_str_has_prefix(runs[i].tag, BISECT_TAG_PREFIX))
                        continue;
                r = query_run_kernels(db, runs[i].id, &ks, &nk, err);
                for (size_t k = 0; r >= 0 && k < nk; k++) {
                        struct query_selection *sel = NULL;
                        r = query_selection(db, runs[i].id, ks[k].id, NULL, &sel, err);
                        if (r >= 0)
                                add_points(sel, fp, s);
                        query_selection_free(sel);
                }
                query_kernels_free(ks, nk);
        }
        query_runs_free(runs, nr);
        if (r < 0) {
                night_series_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

/* What the nights before tonight said of subject, oldest first. OUT:
 * *ret (nightly_past_free), *ret_n. */
static void earlier(struct db *db, const char *subject, double tonight, struct nightly_past **ret, size_t *ret_n) {
        GArray *past = g_array_new(FALSE, TRUE, sizeof(struct nightly_past));
        struct night_row *nights = NULL;
        struct kb_error err = { { 0 } };
        size_t nn = 0;

        if (db_nights_list(db, &nights, &nn, &err) < 0)
                nn = 0;
        for (size_t i = 0; i < nn; i++) {
                const struct night_row *nr = &nights[i];

                if (nr->started_at == tonight)
                        continue;        /* tonight, recorded already */
                for (size_t c = 0; c < nr->n_compares; c++) {
                        const struct night_compare_row *cr = &nr->compares[c];
                        struct compare_view *v = NULL;
                        struct nightly_past p;

                        if (g_strcmp0(cr->subject, subject) != 0 || !cr->sel_a || !cr->sel_b || !nr->baseline)
                                continue;
                        if (night_history_compare(db, cr->sel_a, cr->sel_b, nr->alpha, nr->noise, &v, &err) < 0)
                                continue;
                        p = (struct nightly_past){ nr->started_at, g_strdup(nr->baseline), nightly_thread_inputs(v) };
                        compare_view_free(v);
                        g_array_append_val(past, p);
                }
        }
        night_rows_free(nights, nn);
        *ret_n = past->len;
        *ret = (struct nightly_past *)(void *)g_array_free(past, FALSE);
}

GHashTable *night_history_threads(struct db *db, const char *subject, double tonight, const char *domain) {
        struct nightly_past *past = NULL;
        size_t n = 0;
        GHashTable *threads;

        earlier(db, subject, tonight, &past, &n);
        threads = nightly_mail_threads(subject, past, n, domain);
        nightly_past_free(past, n);
        return threads;
}

int night_history_record(struct db *db, double started_at, const char *baseline, double alpha, double noise,
                         const GPtrArray *compares, struct kb_error *err) {
        size_t nc = compares->len / 3;
        g_autofree struct db_night_compare *c = g_new0(struct db_night_compare, nc + 1);
        struct db_night row = { .started_at = started_at, .baseline = baseline, .alpha = alpha, .noise = noise };

        for (size_t i = 0; i < nc; i++)
                c[i] = (struct db_night_compare){ compares->pdata[3 * i], compares->pdata[3 * i + 1],
                                                  compares->pdata[3 * i + 2] };
        return db_night_add(db, &row, c, nc, err);
}
