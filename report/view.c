/* report/view.c: loading the run and cell views (see view.h). Everything
 * comes from results/query; statistics from report/stats. Failed cells are
 * part of a run view (they are listed) but never of its summary: the
 * series query returns ok cells only. */
#include <errno.h>
#include <fnmatch.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "report/compare.h"
#include "report/metrics.h"
#include "report/view.h"
#include "results/cellstate.h"
#include "settings/runopts.h"

int view_runs_load(struct db *db, struct view_runs **ret, struct kb_error *err) {
        struct view_runs *v = calloc(1, sizeof(*v));
        int r;

        if (!v || !(v->db_path = strdup(db_path(db)))) {
                free(v);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        r = query_runs(db, &v->runs, &v->n, err);
        if (r < 0) {
                view_runs_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

struct view_runs *view_runs_free(struct view_runs *v) {
        if (!v)
                return NULL;
        query_runs_free(v->runs, v->n);
        free(v->db_path);
        free(v);
        return NULL;
}

struct view_run *view_run_free(struct view_run *v) {
        if (!v)
                return NULL;
        query_runs_free(v->run, 1);
        for (size_t i = 0; v->metrics && i < v->n_cells; i++)
                query_metrics_free(v->metrics[i], v->n_metrics[i]);
        free(v->metrics);
        free(v->n_metrics);
        free(v->contended);
        query_cells_free(v->cells, v->n_cells);
        query_series_free(v->series, v->n_series);
        free(v->summary);
        if (v->series_of)
                g_hash_table_destroy(v->series_of);
        free(v);
        return NULL;
}

static char *series_key(const char *kernel, const char *workload, const char *metric) {
        return g_strjoin("\x1f", kernel, workload, metric, NULL);
}

const struct view_series *view_run_series(const struct view_run *v, const char *kernel, const char *workload,
                                          const char *metric) {
        g_autofree char *key = series_key(kernel, workload, metric);
        size_t at = v->series_of ? GPOINTER_TO_SIZE(g_hash_table_lookup(v->series_of, key)) : 0;

        return at ? &v->summary[at - 1] : NULL;
}

/* The foreign CPU above which a run's cells are contended: its
 * --max-contention, or METRICS_CONTENDED_PCT when that is 0. */
static double contention_limit(const json_t *settings) {
        struct run_settings s;

        runopts_read(&s, settings);
        return s.max_contention_pct > 0 ? s.max_contention_pct : METRICS_CONTENDED_PCT;
}

static double run_contention_limit(const struct query_run *run) {
        json_t *settings = run && run->settings_json ? json_loads(run->settings_json, 0, NULL) : NULL;
        double limit = contention_limit(settings);

        json_decref(settings);
        return limit;
}

static int contended_over(double limit, const struct query_metric *m, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(m[i].name, "host.foreign_cpu_pct") == 0)
                        return m[i].has_value ? m[i].value > limit : -1;
        return -1;
}

int view_contended(const struct query_run *run, const struct query_metric *m, size_t n) {
        return contended_over(run_contention_limit(run), m, n);
}

static int view_run_fill(struct db *db, int64_t run_id, struct view_run *v, struct kb_error *err) {
        double limit;
        int r;

        r = query_run(db, run_id, &v->run, err);
        if (r < 0)
                return r;
        r = query_cells(db, run_id, &v->cells, &v->n_cells, err);
        if (r >= 0 && v->n_cells == 0)
                r = db_blame(db, 0, err);        /* "no cells stored yet", or a damaged file? */
        if (r < 0)
                return r;
        v->metrics = calloc(v->n_cells + 1, sizeof(*v->metrics));
        v->n_metrics = calloc(v->n_cells + 1, sizeof(*v->n_metrics));
        v->contended = calloc(v->n_cells + 1, sizeof(*v->contended));
        if (!v->metrics || !v->n_metrics || !v->contended)
                return error_setf(err, -ENOMEM, "out of memory");
        limit = run_contention_limit(v->run);
        for (size_t i = 0; i < v->n_cells; i++) {
                r = query_cell_metrics(db, v->cells[i].id, &v->metrics[i], &v->n_metrics[i], err);
                if (r < 0)
                        return r;
                v->contended[i] = contended_over(limit, v->metrics[i], v->n_metrics[i]);
        }
        r = query_run_samples(db, run_id, &v->series, &v->n_series, err);
        if (r < 0)
                return r;
        v->summary = calloc(v->n_series + 1, sizeof(*v->summary));
        if (!v->summary)
                return error_setf(err, -ENOMEM, "out of memory");
        v->series_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        for (size_t i = 0; i < v->n_series; i++) {
                const struct query_series *q = &v->series[i];
                char *key = series_key(q->kernel_name, q->workload, q->metric);

                v->summary[i].s = q;
                stats_summarize(q->values, q->n, &v->summary[i].sum);
                /* The first of a key wins, as a scan in order would find it. */
                if (g_hash_table_contains(v->series_of, key))
                        g_free(key);
                else
                        g_hash_table_insert(v->series_of, key, GSIZE_TO_POINTER(i + 1));
        }
        return 0;
}

int view_run_load(struct db *db, int64_t run_id, struct view_run **ret, struct kb_error *err) {
        struct view_run *v = calloc(1, sizeof(*v));
        int r;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        r = view_run_fill(db, run_id, v, err);
        if (r < 0) {
                view_run_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

struct view_cell *view_cell_free(struct view_cell *v) {
        if (!v)
                return NULL;
        query_cells_free(v->cell, v->cell ? 1 : 0);
        query_metrics_free(v->metrics, v->n_metrics);
        free(v->vmstat);
        query_points_free(v->points, v->n_points);
        free(v->hostblk);
        query_marks_free(v->marks, v->n_marks);
        query_log_infos_free(v->logs, v->n_logs);
        free(v);
        return NULL;
}

int view_cell_load(struct db *db, int64_t run_id, const char *cell_key, struct view_cell **ret,
                   struct kb_error *err) {
        struct view_cell *v = calloc(1, sizeof(*v));
        struct query_run *run = NULL;
        int r;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        r = query_cell(db, run_id, cell_key, &v->cell, err);
        if (r >= 0)
                r = query_cell_metrics(db, v->cell->id, &v->metrics, &v->n_metrics, err);
        if (r >= 0)
                r = query_cell_vmstat(db, v->cell->id, &v->vmstat, &v->n_vmstat, err);
        if (r >= 0)
                r = query_cell_points(db, v->cell->id, &v->points, &v->n_points, err);
        if (r >= 0)
                r = query_cell_hostblk(db, v->cell->id, &v->hostblk, &v->n_hostblk, err);
        if (r >= 0)
                r = query_cell_marks(db, v->cell->id, &v->marks, &v->n_marks, err);
        if (r >= 0)
                r = query_cell_logs(db, v->cell->id, &v->logs, &v->n_logs, err);
        if (r >= 0)
                r = query_run(db, run_id, &run, err);
        if (r < 0) {
                view_cell_free(v);
                return r;
        }
        v->contended = view_contended(run, v->metrics, v->n_metrics);
        {
                /* The settings are data: a value the option would refuse is the default. */
                json_t *settings = run->settings_json ? json_loads(run->settings_json, 0, NULL) : NULL;
                struct run_settings s;

                runopts_read(&s, settings);
                v->vmstat_interval_s = s.vmstat_interval_s;
                json_decref(settings);
        }
        query_runs_free(run, 1);
        *ret = v;
        return 0;
}

int view_resolve_run(struct db *db, const char *text, int64_t *ret_id, struct kb_error *err) {
        struct query_run *run = NULL;
        int64_t id;
        int r;

        if (strcmp(text, "last") == 0)
                return query_last_run_id(db, ret_id, err);
        if (parse_i64(text, &id) < 0 || id <= 0)
                return error_setf(err, -EINVAL, "bad run '%.64s' (a run id or 'last')", text);
        r = query_run(db, id, &run, err);
        if (r < 0)
                return r;
        query_runs_free(run, 1);
        *ret_id = id;
        return 0;
}

int view_cell_log(struct db *db, int64_t run_id, const char *cell_key, const char *stream,
                  char **ret_text, size_t *ret_len, struct kb_error *err) {
        struct query_cell *c = NULL;
        int r;

        r = query_cell(db, run_id, cell_key, &c, err);
        if (r < 0)
                return r;
        r = query_cell_log(db, c->id, stream, ret_text, ret_len, err);
        if (r < 0)
                error_prefix(err, r, "run %lld cell %s", (long long)run_id, cell_key);
        query_cells_free(c, 1);
        return r;
}

/* ---- the comparison view ------------------------------------------------
 * Each side is a list of (run, kernel) pairs resolved from its selector;
 * its cells are grouped by pairing key (report/compare.c), groups present
 * on both sides become the view's groups, the rest its lonely list. */

struct side_metric {
        char *name, *unit;         /* owned */
        int skip;                  /* filtered out by --metric */
        double *v;
        size_t n, cap, missing;
        double *busy;              /* a host-timed metric's values from contended cells */
        size_t n_busy, cap_busy;
        int host_timed;            /* the registry's host_timed: a busy host moves it */
};

struct side_group {
        struct pairkey *key;       /* a reference; the spec is its */
        char *workload;
        size_t ok, failed;
        struct { char state[32]; size_t n; } fails[8];
        size_t n_fails;
        int64_t *runs;             /* the runs its cells come from */
        size_t n_runs, cap_runs;
        int64_t *cells;            /* its ok cells' ids */
        size_t n_cells, cap_cells;
        size_t contended;          /* ok cells the host was busy beside (host.foreign_cpu_pct) */
        size_t cpu_paced;          /* ok cells whose rates the emulator's CPU set: TCG, no disk
                                      throttle */
        struct side_metric *m;
        size_t n_m, cap_m;
        GHashTable *index;         /* metric name -> 1 + its place in m; the keys are m's names */
        int paired;
};

struct side {
        struct side_group *g;
        size_t n, cap;
};

static void side_clear(struct side *s) {
        for (size_t i = 0; i < s->n; i++) {
                for (size_t k = 0; k < s->g[i].n_m; k++) {
                        free(s->g[i].m[k].name);
                        free(s->g[i].m[k].unit);
                        free(s->g[i].m[k].v);
                        free(s->g[i].m[k].busy);
                }
                free(s->g[i].m);
                if (s->g[i].index)
                        g_hash_table_destroy(s->g[i].index);
                free(s->g[i].runs);
                free(s->g[i].cells);
                pairkey_unref(s->g[i].key);
                free(s->g[i].workload);
        }
        free(s->g);
}

static int grow_array(void **v, size_t *cap, size_t n, size_t elem) {
        size_t ncap;
        void *nv;

        if (n < *cap)
                return 0;
        ncap = *cap ? *cap * 2 : 8;
        nv = realloc(*v, ncap * elem);
        if (!nv)
                return -ENOMEM;
        *v = nv;
        *cap = ncap;
        return 0;
}

/* The entry for name in g, created when missing. hint: where the caller
 * expects it (cells of one workload store the same names in the same
 * order), so the common case is one strcmp; else the group's index, so a
 * cell of 20 000 names in another order costs 20 000 lookups, not 4 x 10^8
 * comparisons. */
static struct side_metric *side_metric(struct side_group *g, const char *name, const char *unit, size_t hint,
                                       const char *glob) {
        struct metrics_info info;
        struct side_metric *m;
        size_t at;

        if (hint < g->n_m && strcmp(g->m[hint].name, name) == 0)
                return &g->m[hint];
        at = GPOINTER_TO_SIZE(g_hash_table_lookup(g->index, name));
        if (at)
                return &g->m[at - 1];
        if (grow_array((void **)&g->m, &g->cap_m, g->n_m, sizeof(*g->m)) < 0)
                return NULL;
        m = &g->m[g->n_m];
        *m = (struct side_metric){ .name = strdup(name), .unit = strdup(unit ? unit : "") };
        m->host_timed = metrics_lookup(name, &info) == 0 && info.host_timed;
        if (!m->name || !m->unit) {
                free(m->name);
                free(m->unit);
                return NULL;
        }
        m->skip = glob && fnmatch(glob, name, 0) != 0;
        g_hash_table_insert(g->index, m->name, GSIZE_TO_POINTER(++g->n_m));
        return m;
}

/* busy: the cell was contended; a host-timed value is then kept apart,
 * for pair_group to leave out (judge_rules). */
static int side_add_value(struct side_metric *m, int has_value, double value, int busy) {
        if (m->skip)
                return 0;
        if (!has_value || !isfinite(value)) {
                m->missing++;
                return 0;
        }
        if (busy && m->host_timed) {
                if (grow_array((void **)&m->busy, &m->cap_busy, m->n_busy, sizeof(double)) < 0)
                        return -ENOMEM;
                m->busy[m->n_busy++] = value;
                return 0;
        }
        if (grow_array((void **)&m->v, &m->cap, m->n, sizeof(double)) < 0)
                return -ENOMEM;
        m->v[m->n++] = value;
        return 0;
}

/* The group of key in s, made (with a reference to key) when missing. */
static struct side_group *side_group(struct side *s, struct pairkey *key, const char *workload) {
        struct side_group *g;

        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->g[i].key->canon, key->canon) == 0)
                        return &s->g[i];
        if (grow_array((void **)&s->g, &s->cap, s->n, sizeof(*s->g)) < 0)
                return NULL;
        g = &s->g[s->n];
        *g = (struct side_group){ .workload = strdup(workload),
                                  .index = g_hash_table_new(g_str_hash, g_str_equal) };
        if (!g->workload)
                return NULL;
        g->key = pairkey_ref(key);
        s->n++;
        return g;
}

static int side_group_run(struct side_group *g, int64_t run) {
        /* Selections arrive run by run: the last entry is the common match. */
        if (g->n_runs && g->runs[g->n_runs - 1] == run)
                return 0;
        for (size_t i = 0; i < g->n_runs; i++)
                if (g->runs[i] == run)
                        return 0;
        if (grow_array((void **)&g->runs, &g->cap_runs, g->n_runs, sizeof(*g->runs)) < 0)
                return -ENOMEM;
        g->runs[g->n_runs++] = run;
        return 0;
}

static void side_group_fail(struct side_group *g, const char *state) {
        g->failed++;
        for (size_t i = 0; i < g->n_fails; i++)
                if (strcmp(g->fails[i].state, state) == 0) {
                        g->fails[i].n++;
                        return;
                }
        if (g->n_fails < ELEMENTSOF(g->fails)) {
                snprintf(g->fails[g->n_fails].state, sizeof(g->fails[0].state), "%s", state);
                g->fails[g->n_fails++].n = 1;
        }
}

/* Mark in found[] the ignored settings a cell has (cs: its settings,
 * pairkey_cell_settings). */
static void mark_ignored(const json_t *cs, const char *const *ignored, unsigned char *found) {
        for (size_t k = 0; ignored && ignored[k]; k++)
                if (!found[k] && json_object_get(cs, ignored[k]))
                        found[k] = 1;
}

/* Under TCG the guest runs on the emulator, and with the disk unthrottled
 * a dd or tiobench cell is CPU-bound (sy ~98 %): its rates and times are
 * then the emulator's speed as much as the kernel's, and even their sign
 * can be the emulator's (docs/design.md, "What a verdict judges"). With a
 * throttled disk the disk sets the pace. cs: the cell's settings
 * (pairkey_cell_settings: its own params win over its run's). */
static int cpu_paced(const json_t *cs) {
        struct run_settings s;

        runopts_read(&s, cs);
        return s.guest.accel && strcmp(s.guest.accel, "tcg") == 0 && s.guest.disk_mbps == 0;
}

static int side_add_cells(struct side *s, const struct query_selection *sel, const struct compare_options *o,
                          const json_t *settings, double limit, unsigned char *ignored_found,
                          struct kb_error *err);

int view_cpu_paced(const char *settings_json, const char *params_json) {
        json_t *settings = settings_json ? json_loads(settings_json, 0, NULL) : NULL;
        json_t *cs = pairkey_cell_settings(settings, params_json);
        int paced = cpu_paced(cs);

        json_decref(cs);
        json_decref(settings);
        return paced;
}

int view_metric_judged(const char *name, int paced) {
        struct metrics_info info;

        if (!metrics_verdict(name) || metrics_lookup(name, &info) < 0)
                return 0;
        return !(paced && info.host_timed);
}

/* Add one (run, kernel) selection's cells to side s. */
static int side_add(struct side *s, const struct query_selection *sel, const struct compare_options *o,
                    unsigned char *ignored_found, struct kb_error *err) {
        json_t *settings = sel->settings_json ? json_loads(sel->settings_json, 0, NULL) : NULL;
        double limit = contention_limit(settings);
        int r = side_add_cells(s, sel, o, settings, limit, ignored_found, err);

        json_decref(settings);
        return r;
}

static int side_add_cells(struct side *s, const struct query_selection *sel, const struct compare_options *o,
                          const json_t *settings, double limit, unsigned char *ignored_found,
                          struct kb_error *err) {
        for (size_t i = 0; i < sel->n_cells; i++) {
                const struct query_sel_cell *c = &sel->cells[i];
                struct pairkey *key = NULL;
                struct side_group *g;
                struct side_metric *m;
                json_t *cs;
                int r, busy, paced;

                if (sel->settings_json && !json_is_object(settings))
                        return error_setf(err, -EINVAL, "run %lld: run settings are not a JSON object",
                                          (long long)sel->run_id);
                /* The cell's params are read once, for all three questions. */
                cs = pairkey_cell_settings(settings, c->params_json);
                mark_ignored(cs, o->ignore_settings, ignored_found);
                paced = cpu_paced(cs);
                r = pairkey_new(cs, c->workload, o->ignore_settings, &key, err);
                json_decref(cs);
                if (r < 0)
                        return error_prefix(err, r, "run %lld", (long long)sel->run_id);
                g = side_group(s, key, c->workload);
                pairkey_unref(key);
                if (!g || side_group_run(g, sel->run_id) < 0)
                        return error_setf(err, -ENOMEM, "out of memory");
                if (!cellstate_is(c->state, CELLSTATE_OK)) {
                        side_group_fail(g, c->state);
                        continue;
                }
                busy = contended_over(limit, c->metrics, c->n_metrics) == 1;
                if (grow_array((void **)&g->cells, &g->cap_cells, g->n_cells, sizeof(*g->cells)) < 0)
                        return error_setf(err, -ENOMEM, "out of memory");
                g->cells[g->n_cells++] = c->id;
                g->ok++;
                g->contended += busy;
                g->cpu_paced += paced;
                for (size_t k = 0; k < c->n_metrics; k++) {
                        m = side_metric(g, c->metrics[k].name, c->metrics[k].unit, k, o->metric_glob);
                        if (!m || side_add_value(m, c->metrics[k].has_value, c->metrics[k].value, busy) < 0)
                                return error_setf(err, -ENOMEM, "out of memory");
                }
                m = side_metric(g, "boot_s", "s", c->n_metrics, o->metric_glob);
                if (!m || side_add_value(m, isfinite(c->boot_s), c->boot_s, busy) < 0)
                        return error_setf(err, -ENOMEM, "out of memory");
        }
        return 0;
}

/* A side's (run, kernel) pairs from its selector, and a description. */
struct side_sel {
        int64_t *runs;
        char **kernels;            /* kernel id per run entry */
        size_t n;
        char *desc;
};

static void side_sel_clear(struct side_sel *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->kernels[i]);
        free(s->kernels);
        free(s->runs);
        free(s->desc);
}

static int side_sel_push(struct side_sel *s, int64_t run, const char *kernel_id) {
        int64_t *r = realloc(s->runs, (s->n + 1) * sizeof(*r));
        char **k;

        if (!r)
                return -ENOMEM;
        s->runs = r;
        k = realloc(s->kernels, (s->n + 1) * sizeof(*k));
        if (!k)
                return -ENOMEM;
        s->kernels = k;
        s->kernels[s->n] = strdup(kernel_id);
        if (!s->kernels[s->n])
                return -ENOMEM;
        s->runs[s->n++] = run;
        return 0;
}

static int kernel_dup(const char *id, const char *name, struct query_kernel **ret, struct kb_error *err) {
        struct query_kernel *k = calloc(1, sizeof(*k));

        if (!k || !(k->id = strdup(id)) || !(k->name = strdup(name))) {
                query_kernels_free(k, 1);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        *ret = k;
        return 0;
}

/* The one kernel of runs[0..n), or an error naming them when there are
 * several (a side must be one kernel). OUT: *ret (query_kernels_free(k, 1)). */
static int only_kernel(struct db *db, const char *what, const int64_t *runs, size_t n, struct query_kernel **ret,
                       struct kb_error *err) {
        struct query_kernel *one = NULL;
        char names[512] = "";
        int several = 0, r;

        for (size_t i = 0; i < n; i++) {
                struct query_kernel *k = NULL;
                size_t nk = 0;

                r = query_run_shown_kernels(db, runs[i], &k, &nk, err);
                if (r < 0) {
                        query_kernels_free(one, 1);
                        return r;
                }
                for (size_t j = 0; j < nk; j++) {
                        if (!one) {
                                r = kernel_dup(k[j].id, k[j].name, &one, err);
                                if (r < 0) {
                                        query_kernels_free(k, nk);
                                        return r;
                                }
                                snprintf(names, sizeof(names), "%s", k[j].name);
                        } else if (strcmp(one->id, k[j].id) != 0 || strcmp(one->name, k[j].name) != 0) {
                                size_t len = strlen(names);

                                /* A kernel with and without a label is two
                                 * to show; two kernels may show one name
                                 * (a label and a name that meet). */
                                several = 1;
                                if (!strstr(names, k[j].name))
                                        snprintf(names + len, sizeof(names) - len, ", %s", k[j].name);
                        }
                }
                query_kernels_free(k, nk);
        }
        if (!one)
                return error_setf(err, -ENOENT, "%s has no cells", what);
        if (several) {
                query_kernels_free(one, 1);
                return error_setf(err, -EINVAL, "%s has several kernels (%s): name one, as %s:KERNEL", what, names,
                                  what);
        }
        *ret = one;
        return 0;
}

static int has_run(const int64_t *runs, size_t n, int64_t id) {
        for (size_t i = 0; i < n; i++)
                if (runs[i] == id)
                        return 1;
        return 0;
}

/* The kernel a bare selector names that no run shows by that name. */
static int unshown_kernel(struct db *db, const char *name, struct kb_error *err) {
        struct query_kernel *k = NULL;
        _cleanup_free_ int64_t *ids = NULL;
        size_t n = 0;
        int r = query_kernel_by_name(db, name, &k, err);

        if (r < 0)
                return r;
        r = query_kernel_runs(db, k->id, &ids, &n, err);
        query_kernels_free(k, 1);
        if (r < 0)
                return r;
        if (n > 0)
                return error_setf(err, -ENOENT, "kernel %s has no runs of its own in %s: each of its runs labels "
                                  "it as a variant (name it so, or as run:ID:%s)", name, db_path(db), name);
        return error_setf(err, -ENOENT, "kernel %s has no cells in %s", name, db_path(db));
}

/* The kernel stored as `name`, selected within runs[0..n); one run names
 * it the way that run shows it (a variant label first). */
static int stored_kernel(struct db *db, const char *name, const int64_t *runs, size_t n, struct query_kernel **ret,
                         struct kb_error *err) {
        struct query_kernel *k = NULL, *shown = NULL;
        size_t ns = 0;
        int r = query_kernel_by_name(db, name, &k, err);

        if (r >= 0 && n == 1)
                r = query_run_shown_kernels(db, runs[0], &shown, &ns, err);
        for (size_t i = 0; r >= 0 && i < ns; i++)
                if (strcmp(shown[i].id, k->id) == 0) {
                        free(k->name);
                        k->name = TAKE_PTR(shown[i].name);
                        break;
                }
        query_kernels_free(shown, ns);
        if (r < 0) {
                query_kernels_free(k, 1);
                return r;
        }
        *ret = k;
        return 0;
}

/* The kernel a selector names as `name`, the way results show it: a run
 * with a variant label shows its kernels under it ("dirty7-" +
 * "6.1.0-57-amd64"), so a bare name is a kernel's runs without a label,
 * and a labelled name its runs with that label. With runs already picked
 * (run:ID:K, tag:T:K) the name is looked for in those, and failing that
 * taken as the kernel's store name, which names the same cells in a
 * labelled run. Narrows *runs (NULL for a bare selector: then set) to the
 * runs showing the kernel so. */
static int pick_kernel(struct db *db, const char *name, int64_t **runs, size_t *n, struct query_kernel **ret,
                       struct kb_error *err) {
        struct query_kernel *shown = NULL;
        _cleanup_free_ int64_t *keep = NULL;
        size_t ns = 0, nkeep = 0, found = 0, which = 0;
        int r = query_kernels_shown_as(db, name, &shown, &ns, err);

        for (size_t i = 0; r >= 0 && i < ns; i++) {
                _cleanup_free_ int64_t *ids = NULL;
                size_t nids = 0, m = 0;

                r = query_shown_kernel_runs(db, shown[i].id, name, &ids, &nids, err);
                for (size_t j = 0; r >= 0 && j < nids; j++)
                        if (!*runs || has_run(*runs, *n, ids[j]))
                                ids[m++] = ids[j];
                if (r < 0 || m == 0)
                        continue;
                if (found++) {
                        r = error_setf(err, -EINVAL, "%s names two kernels here (a variant label and a kernel name "
                                       "meet): select it by run, as run:ID:%s", name, name);
                        break;
                }
                free(keep);
                keep = TAKE_PTR(ids);
                nkeep = m;
                which = i;
        }
        if (r >= 0 && found)
                r = kernel_dup(shown[which].id, name, ret, err);
        query_kernels_free(shown, ns);
        if (r < 0)
                return r;
        if (!found)
                return *runs ? stored_kernel(db, name, *runs, *n, ret, err) : unshown_kernel(db, name, err);
        free(*runs);
        *runs = TAKE_PTR(keep);
        *n = nkeep;
        return 0;
}

static int side_resolve(struct db *db, const char *text, int all_runs, struct side_sel *s, struct kb_error *err) {
        struct compare_selector sel;
        struct query_kernel *k = NULL;
        _cleanup_free_ int64_t *runs = NULL;
        size_t n = 0;
        char what[160];
        int r;

        r = compare_selector_parse(text, &sel, err);
        if (r < 0)
                return r;
        if (sel.kind == COMPARE_SEL_RUN) {
                struct query_run *run = NULL;

                r = query_run(db, sel.run, &run, err);
                if (r < 0)
                        return r;
                query_runs_free(run, 1);
                runs = malloc(sizeof(*runs));
                if (!runs)
                        return error_setf(err, -ENOMEM, "out of memory");
                runs[0] = sel.run;
                n = 1;
                snprintf(what, sizeof(what), "run:%lld", (long long)sel.run);
        } else if (sel.kind == COMPARE_SEL_TAG) {
                /* "tag:T:K" is the tag "T:K" when a run has it. */
                if (sel.kernel[0]) {
                        r = query_tag_runs(db, text + 4, &runs, &n, err);
                        if (r < 0)
                                return r;
                        if (n > 0) {
                                snprintf(sel.tag, sizeof(sel.tag), "%s", text + 4);
                                sel.kernel[0] = '\0';
                        } else {
                                free(runs);
                                runs = NULL;
                        }
                }
                if (!runs)
                        r = query_tag_runs(db, sel.tag, &runs, &n, err);
                if (r < 0)
                        return r;
                if (n == 0)
                        return error_setf(err, -ENOENT, "no run tagged '%s' in %s", sel.tag, db_path(db));
                snprintf(what, sizeof(what), "tag:%s", sel.tag);
        }
        if (sel.kernel[0]) {
                r = pick_kernel(db, sel.kernel, &runs, &n, &k, err);
                if (r < 0)
                        return r;
                if (sel.kind == COMPARE_SEL_KERNEL && !all_runs) {
                        runs[0] = runs[n - 1];
                        n = 1;
                }
        } else {
                r = only_kernel(db, what, runs, n, &k, err);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n; i++)
                if (side_sel_push(s, runs[i], k->id) < 0) {
                        query_kernels_free(k, 1);
                        return error_setf(err, -ENOMEM, "out of memory");
                }
        {
                char list[256] = "";
                size_t len = 0;

                for (size_t i = 0; i < n && len < sizeof(list) - 24; i++)
                        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%lld", i ? ", " : "",
                                                (long long)runs[i]);
                if (asprintf(&s->desc, "%s in run%s %s%s", k->name, n > 1 ? "s" : "", list,
                             len >= sizeof(list) - 24 ? ", ..." : "") < 0)
                        s->desc = NULL;
        }
        query_kernels_free(k, 1);
        return s->desc ? 0 : error_setf(err, -ENOMEM, "out of memory");
}

int view_selector_runs(struct db *db, const char *text, int64_t **ret_runs, size_t *ret_n, struct kb_error *err) {
        struct side_sel sel = { 0 };
        int64_t *runs;
        int r = side_resolve(db, text, 1, &sel, err);

        if (r < 0) {
                side_sel_clear(&sel);
                return r;
        }
        runs = malloc((sel.n + 1) * sizeof(*runs));
        if (!runs) {
                side_sel_clear(&sel);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        if (sel.n)
                memcpy(runs, sel.runs, sel.n * sizeof(*runs));
        *ret_runs = runs;
        *ret_n = sel.n;
        side_sel_clear(&sel);
        return 0;
}

static int load_side(struct db *db, const char *text, const struct compare_options *o, struct side *side,
                     unsigned char *ignored_found, char **ret_desc, char **ret_kernel, struct kb_error *err) {
        struct side_sel sel = { 0 };
        size_t cells = 0;
        int r;

        r = side_resolve(db, text, o->all_runs, &sel, err);
        for (size_t i = 0; r >= 0 && i < sel.n; i++) {
                struct query_selection *q = NULL;

                r = query_selection(db, sel.runs[i], sel.kernels[i], o->workload, &q, err);
                if (r >= 0) {
                        cells += q->n_cells;
                        r = side_add(side, q, o, ignored_found, err);
                }
                query_selection_free(q);
        }
        if (r >= 0 && cells == 0 && o->workload)
                r = error_setf(err, -ENOENT, "%.128s has no cells of workload " ERROR_VAL, sel.desc ? sel.desc : text,
                               ERROR_VALARG(o->workload));
        else if (r >= 0 && cells == 0)
                r = error_setf(err, -ENOENT, "%.128s has no cells", sel.desc ? sel.desc : text);
        if (r >= 0 && !(*ret_kernel = strdup(sel.kernels[0])))
                r = error_setf(err, -ENOMEM, "out of memory");
        if (r >= 0)
                *ret_desc = TAKE_PTR(sel.desc);
        side_sel_clear(&sel);
        return r;
}

static int copy_side(const struct side_group *g, struct compare_side *ret) {
        char buf[512] = "";
        size_t len = 0;

        *ret = (struct compare_side){ .ok = g->ok, .failed = g->failed, .n_runs = g->n_runs, .n_cells = g->n_cells };
        ret->runs = malloc((g->n_runs + 1) * sizeof(*ret->runs));
        ret->cells = malloc((g->n_cells + 1) * sizeof(*ret->cells));
        if (!ret->runs || !ret->cells)
                return -ENOMEM;
        if (g->n_cells)
                memcpy(ret->cells, g->cells, g->n_cells * sizeof(*ret->cells));
        if (g->n_runs)
                memcpy(ret->runs, g->runs, g->n_runs * sizeof(*ret->runs));
        for (size_t i = 1; i < ret->n_runs; i++)      /* few runs: insertion sort */
                for (size_t j = i; j > 0 && ret->runs[j - 1] > ret->runs[j]; j--) {
                        int64_t t = ret->runs[j];
                        ret->runs[j] = ret->runs[j - 1];
                        ret->runs[j - 1] = t;
                }
        for (size_t i = 0; i < g->n_fails; i++)
                len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu %s", i ? ", " : "", g->fails[i].n,
                                        g->fails[i].state);
        if (g->n_fails && !(ret->failed_states = strdup(buf)))
                return -ENOMEM;
        return 0;
}

/* Display order: the workload's own metrics, then cell timings, then the
 * vmstat analysis; by name within each. */
static int metric_rank(const char *workload, const char *name) {
        size_t wl = strlen(workload);

        if (strncmp(name, workload, wl) == 0 && name[wl] == '.')
                return 0;
        if (strncmp(name, "vmstat.", 7) == 0)
                return 2;
        return 1;
}

static int metric_cmp(const void *x, const void *y, void *workload) {
        const struct compare_metric *a = x, *b = y;
        int ra = metric_rank(workload, a->name), rb = metric_rank(workload, b->name);

        return ra != rb ? ra - rb : strcmp(a->name, b->name);
}

static int group_cmp(const void *x, const void *y) {
        const struct compare_group *a = x, *b = y;
        int c = strcmp(a->workload, b->workload);

        return c ? c : strcmp(a->key->canon, b->key->canon);
}

/* Move one side's values of a metric into m; with_busy: the contended
 * cells' too. */
static double *take_values(struct side_metric *sm, int with_busy, size_t *ret_n, size_t *ret_missing) {
        *ret_n = sm ? sm->n : 0;
        *ret_missing = sm ? sm->missing : 0;
        if (!sm)
                return NULL;
        if (with_busy && sm->n_busy) {
                double *v = realloc(sm->v, (sm->n + sm->n_busy) * sizeof(*v));

                if (!v)         /* out of memory: the quiet cells alone */
                        return TAKE_PTR(sm->v);
                memcpy(v + sm->n, sm->busy, sm->n_busy * sizeof(*v));
                sm->v = v;
                *ret_n = sm->n + sm->n_busy;
        }
        return TAKE_PTR(sm->v);
}

static int same_runs(const struct compare_side *a, const struct compare_side *b) {
        if (a->n_runs != b->n_runs)
                return 0;
        for (size_t i = 0; i < a->n_runs; i++)          /* both sorted by copy_side */
                if (a->runs[i] != b->runs[i])
                        return 0;
        return 1;
}

static const char why_cpu_paced[] =
        "under TCG with an unthrottled disk a rate or time is the emulator's speed as much as the kernel's";
static const char why_contended[] = "the host was busy beside too many cells (contended)";

/* The fewest quiet cells a side keeps for a rate or time to be judged
 * without its contended cells: below that the quiet ones are too few to
 * say anything, and the metric is withheld instead. */
#define QUIET_MIN 3

/* What the group's cells allow a verdict on, per metric: rates and times
 * paced by the emulator on both sides are shown, not judged (against a
 * throttled side, as when a nightly source throttles the disk, the
 * comparison is of the throttle, and the throttled side's rate does not
 * drift; the paced side's drift is in its run offset). A contended cell's
 * rates and times are left out, since a busy host slows QEMU; which cells
 * were contended is measured beside them, not read from the values, so
 * leaving them out does not bias what is left. With fewer than QUIET_MIN
 * quiet cells on a side, a judged rate gets no verdict. Counts of work
 * done keep every cell: a busy host slows QEMU, not what the guest
 * executes. Sides from different runs carry each run's offset
 * (compare_metric_stats). OUT: *with_busy, whether m takes the contended
 * cells' values; ruled[RULE_*] counts each rule applied. */
enum judge_rule { RULE_PACED, RULE_LEFT_OUT, RULE_WITHHELD, RULE_N };

static void judge_rules(const struct side_group *ga, const struct side_group *gb, const struct side_metric *sa,
                        const struct side_metric *sb, struct compare_group *g, struct compare_metric *m,
                        int *with_busy, size_t ruled[RULE_N]) {
        size_t qa = sa ? sa->n : 0, qb = sb ? sb->n : 0;

        *with_busy = 1;
        m->run_offset = !same_runs(&g->a, &g->b);
        if (!m->info.host_timed)
                return;
        if (m->judged && ga->cpu_paced && gb->cpu_paced) {
                m->judged = 0;
                m->info.why = why_cpu_paced;
                ruled[RULE_PACED]++;
        }
        if (!(sa && sa->n_busy) && !(sb && sb->n_busy))
                return;
        if (qa >= QUIET_MIN && qb >= QUIET_MIN) {
                *with_busy = 0;
                ruled[RULE_LEFT_OUT]++;
        } else if (m->judged) {
                m->withheld = why_contended;
                ruled[RULE_WITHHELD]++;
        }
}

/* One line per rule that judge_rules applied to a metric of the group
 * (ruled[RULE_*]: how many), for every renderer. */
static int group_notes(const struct side_group *ga, const struct side_group *gb, struct compare_group *g,
                       const size_t ruled[RULE_N]) {
        size_t k = 0;

        if (!same_runs(&g->a, &g->b) &&
            asprintf(&g->notes[k++], "A and B come from different runs: the host's speed drifts between runs, so "
                     "each side's mean also carries its run's offset, estimated from the drift its cells show "
                     "and never narrower than their scatter") < 0)
                return -ENOMEM;
        if (ruled[RULE_PACED] && asprintf(&g->notes[k++], "rates and times are shown, not judged: %s; what the guest itself did is "
                                       "judged instead", why_cpu_paced) < 0)
                return -ENOMEM;
        if (ruled[RULE_LEFT_OUT] &&
            asprintf(&g->notes[k++], "contended cells are left out of rates and times: A %zu of %zu, B %zu of %zu "
                     "(host.foreign_cpu_pct over the run's limit)", ga->contended, ga->ok, gb->contended,
                     gb->ok) < 0)
                return -ENOMEM;
        if (ruled[RULE_WITHHELD] &&
            asprintf(&g->notes[k++], "rates and times get no verdict: contended cells, A %zu of %zu, B %zu of %zu "
                     "(host.foreign_cpu_pct over the run's limit), fewer than %d quiet on a side; rerun on a "
                     "quiet host", ga->contended, ga->ok, gb->contended, gb->ok, QUIET_MIN) < 0)
                return -ENOMEM;
        return 0;
}

static int pair_group(struct side_group *ga, struct side_group *gb, double alpha, double noise,
                      struct compare_group *g) {
        size_t cap = ga->n_m + gb->n_m, ruled[RULE_N] = { 0 };

        *g = (struct compare_group){ .key = pairkey_ref(ga->key), .workload = strdup(ga->workload),
                                     .spec = strdup(ga->key->spec), .geomean = NAN };
        if (!g->workload || !g->spec || copy_side(ga, &g->a) < 0 || copy_side(gb, &g->b) < 0)
                return -ENOMEM;
        g->m = calloc(cap + 1, sizeof(*g->m));
        if (!g->m)
                return -ENOMEM;
        for (int pass = 0; pass < 2; pass++) {
                struct side_group *x = pass ? gb : ga, *y = pass ? ga : gb;

                for (size_t i = 0; i < x->n_m; i++) {
                        struct side_metric *sx = &x->m[i], *sy = NULL, *sa, *sb;
                        struct compare_metric *m;
                        size_t at;
                        int with_busy;

                        if (sx->skip || !sx->name)
                                continue;
                        /* The other side's entry of the name, by its index:
                         * one already paired has no name left. */
                        at = GPOINTER_TO_SIZE(g_hash_table_lookup(y->index, sx->name));
                        if (at && y->m[at - 1].name)
                                sy = &y->m[at - 1];
                        m = &g->m[g->n_m++];
                        m->name = TAKE_PTR(sx->name);
                        m->unit = TAKE_PTR(sx->unit);
                        if (metrics_lookup(m->name, &m->info) < 0)
                                m->info = (struct metrics_info){ .pattern = NULL, .unit = "", .direction = METRICS_NONE,
                                                                 .why = "not in kbench's metric registry" };
                        m->judged = metrics_verdict(m->name);
                        sa = pass ? sy : sx;
                        sb = pass ? sx : sy;
                        judge_rules(ga, gb, sa, sb, g, m, &with_busy, ruled);
                        m->a = take_values(sa, with_busy, &m->na, &m->a_missing);
                        m->b = take_values(sb, with_busy, &m->nb, &m->b_missing);
                        if (sy) {
                                /* Out of the index first: its key is this name. */
                                g_hash_table_remove(y->index, sy->name);
                                free(sy->name);
                                sy->name = NULL;
                        }
                        compare_metric_stats(m, alpha, noise);
                }
        }
        qsort_r(g->m, g->n_m, sizeof(*g->m), metric_cmp, g->workload);
        return group_notes(ga, gb, g, ruled);
}

static int add_lonely(struct compare_view *v, char side, struct side_group *g, const struct side *other) {
        struct compare_lonely *l;
        struct compare_lonely *nl = realloc(v->lonely, (v->n_lonely + 1) * sizeof(*nl));
        size_t best = SIZE_MAX;

        if (!nl)
                return -ENOMEM;
        v->lonely = nl;
        l = &v->lonely[v->n_lonely++];
        *l = (struct compare_lonely){ .side = side, .key = pairkey_ref(g->key), .workload = strdup(g->workload),
                                      .spec = strdup(g->key->spec) };
        if (!l->workload || !l->spec || copy_side(g, &l->s) < 0)
                return -ENOMEM;
        /* The nearest group of the same workload: the fewest differing
         * settings, said A's value first. */
        for (size_t i = 0; i < other->n; i++) {
                g_autoptr(GString) d = NULL;
                size_t parts;

                if (strcmp(other->g[i].workload, g->workload) != 0)
                        continue;
                d = g_string_new(NULL);
                parts = side == 'A' ? pairkey_diff(g->key, other->g[i].key, NULL, d)
                                    : pairkey_diff(other->g[i].key, g->key, NULL, d);
                if (parts == 0 || parts >= best)
                        continue;
                best = parts;
                free(l->differs);
                if (!(l->differs = strdup(d->str)))
                        return -ENOMEM;
        }
        return 0;
}

int view_compare_load(struct db *db, const struct compare_options *o, struct compare_view **ret,
                      struct kb_error *err) {
        struct compare_view *v = calloc(1, sizeof(*v));
        struct side a = { 0 }, b = { 0 };
        size_t n_ign = 0;
        int r;

        if (!v)
                return error_setf(err, -ENOMEM, "out of memory");
        v->alpha = o->alpha;
        v->noise = o->noise;
        while (o->ignore_settings && o->ignore_settings[n_ign])
                n_ign++;
        v->ignored = calloc(n_ign + 1, sizeof(*v->ignored));
        v->ignored_found = calloc(n_ign + 1, 1);
        v->sel_a = strdup(o->a);
        v->sel_b = strdup(o->b);
        v->metric_glob = o->metric_glob ? strdup(o->metric_glob) : NULL;
        v->workload = o->workload ? strdup(o->workload) : NULL;
        r = v->ignored && v->ignored_found && v->sel_a && v->sel_b && (v->metric_glob || !o->metric_glob) && (v->workload || !o->workload)
                    ? 0 : error_setf(err, -ENOMEM, "out of memory");
        for (size_t i = 0; r >= 0 && i < n_ign; i++)
                if (!(v->ignored[i] = strdup(o->ignore_settings[i])))
                        r = error_setf(err, -ENOMEM, "out of memory");
        if (r >= 0) {
                r = load_side(db, o->a, o, &a, v->ignored_found, &v->desc_a, &v->kernel_a, err);
                if (r < 0)
                        error_prefix(err, r, "A '%.64s'", o->a);
        }
        if (r >= 0) {
                r = load_side(db, o->b, o, &b, v->ignored_found, &v->desc_b, &v->kernel_b, err);
                if (r < 0)
                        error_prefix(err, r, "B '%.64s'", o->b);
        }
        /* The description names the kernel and every run of the side. */
        if (r >= 0)
                v->same_cells = strcmp(v->desc_a, v->desc_b) == 0;
        if (r >= 0) {
                v->groups = calloc(a.n + 1, sizeof(*v->groups));
                if (!v->groups)
                        r = error_setf(err, -ENOMEM, "out of memory");
        }
        for (size_t i = 0; r >= 0 && i < a.n; i++)
                for (size_t j = 0; j < b.n; j++)
                        if (!b.g[j].paired && strcmp(a.g[i].key->canon, b.g[j].key->canon) == 0) {
                                a.g[i].paired = b.g[j].paired = 1;
                                if (pair_group(&a.g[i], &b.g[j], o->alpha, o->noise, &v->groups[v->n_groups++]) < 0)
                                        r = error_setf(err, -ENOMEM, "out of memory");
                                break;
                        }
        for (size_t i = 0; r >= 0 && i < a.n; i++)
                if (!a.g[i].paired && add_lonely(v, 'A', &a.g[i], &b) < 0)
                        r = error_setf(err, -ENOMEM, "out of memory");
        for (size_t i = 0; r >= 0 && i < b.n; i++)
                if (!b.g[i].paired && add_lonely(v, 'B', &b.g[i], &a) < 0)
                        r = error_setf(err, -ENOMEM, "out of memory");
        if (r >= 0) {
                qsort(v->groups, v->n_groups, sizeof(*v->groups), group_cmp);
                if (compare_judge(v) < 0)
                        r = error_setf(err, -ENOMEM, "out of memory");
        }
        side_clear(&a);
        side_clear(&b);
        if (r < 0) {
                compare_view_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

const char *view_cell_start(const struct query_metric *m, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(m[i].name, "boot_warm") == 0 && m[i].has_value)
                        return m[i].value != 0 ? "warm" : "cold";
        return NULL;
}
