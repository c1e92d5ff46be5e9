/* web/model: what the pages read (see model.h). Every run view is loaded
 * once and kept for the whole pass: the run pages, the kernel pages and
 * the index all read the same summaries, so a number cannot differ
 * between two pages. A night's comparison is loaded as kbench nightly
 * loaded it (decide/pairing.c, the night's alpha and noise), so its page,
 * its verdicts and the states derived from them are the night's. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/util.h"
#include "decide/pairing.h"
#include "report/explain.h"
#include "results/cellstate.h"
#include "settings/pairkey.h"
#include "web/model.h"
#include "web/page.h"

const struct model_compare *model_compare_find(const struct model *s, const char *file) {
        for (size_t i = 0; i < s->n_compares; i++)
                if (strcmp(s->compares[i].file, file) == 0)
                        return &s->compares[i];
        return NULL;
}

const struct model_run *model_run_find(const struct model *s, int64_t id) {
        for (size_t i = 0; i < s->n_runs; i++)
                if (s->runs[i].v->run->id == id)
                        return &s->runs[i];
        return NULL;
}

const struct model_kernel *model_kernel_find(const struct model *s, const char *name) {
        for (size_t i = 0; i < s->n_kernels; i++)
                if (strcmp(s->kernels[i].name, name) == 0)
                        return &s->kernels[i];
        return NULL;
}

const struct query_cell *model_run_cell(const struct model_run *r, const char *kernel, const char *workload) {
        for (size_t k = 0; k < r->n_latest; k++) {
                const struct query_cell *c = &r->v->cells[r->latest[k]];

                if (strcmp(c->kernel_name, kernel) == 0 && strcmp(c->workload, workload) == 0)
                        return c;
        }
        return NULL;
}

static int str_index(char **v, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return (int)i;
        return -1;
}

/* The latest attempt of every cell key (the run view lists every attempt,
 * in insertion order), the state counts over them, the kernels and
 * workloads in the order the run met them. */
static void run_index(struct model_run *r) {
        const struct view_run *v = r->v;

        r->latest = g_new(size_t, v->n_cells + 1);
        r->kernels = g_new(char *, v->n_cells + 1);
        r->workloads = g_new(char *, v->n_cells + 1);
        r->states = g_new0(struct model_state_count, v->n_cells + 2);
        for (size_t i = 0; i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];
                size_t k;

                for (k = 0; k < r->n_latest; k++)
                        if (strcmp(v->cells[r->latest[k]].cell_key, c->cell_key) == 0)
                                break;
                if (k == r->n_latest)
                        r->latest[r->n_latest++] = i;
                else if (v->cells[r->latest[k]].attempt <= c->attempt)
                        r->latest[k] = i;
                if (str_index(r->kernels, r->n_kernels, c->kernel_name) < 0)
                        r->kernels[r->n_kernels++] = c->kernel_name;
                if (str_index(r->workloads, r->n_workloads, c->workload) < 0)
                        r->workloads[r->n_workloads++] = c->workload;
        }
        r->states[r->n_states++] = (struct model_state_count){ CELL_OK, 0 };
        for (size_t k = 0; k < r->n_latest; k++) {
                const char *st = v->cells[r->latest[k]].state;
                size_t j;

                for (j = 0; j < r->n_states; j++)
                        if (strcmp(r->states[j].state, st) == 0)
                                break;
                if (j == r->n_states)
                        r->states[r->n_states++] = (struct model_state_count){ st, 0 };
                r->states[j].n++;
                r->n_failed += !cellstate_is(st, CELLSTATE_OK);
        }
        /* Each cell's settings, parsed once here: the comparison pages ask
         * for every run's cells at the compared settings. */
        r->keys = g_new0(char *, r->n_latest + 1);
        for (size_t k = 0; k < r->n_latest; k++) {
                const struct query_cell *c = &v->cells[r->latest[k]];
                struct pairkey *key = NULL;

                if (pairkey_from_json(v->run->settings_json, c->params_json, c->workload, NULL, &key, NULL) == 0)
                        r->keys[k] = g_strdup(key->canon);
                pairkey_unref(key);
        }
}

/* The ok cell of a side closest to its median of the group's first judged
 * metric. The compare view keeps values, not cells, so the cell is found
 * among the side's runs by workload and by a value the side holds. */
static void representative(const struct model *s, const struct compare_side *side, const struct compare_group *g,
                           const struct compare_metric *m, const double *vals, size_t n, double median,
                           struct model_rep *ret) {
        double best = INFINITY;

        *ret = (struct model_rep){ .metric = m ? m->name : NULL };
        if (!m)
                return;
        for (size_t i = 0; i < s->n_runs; i++) {
                const struct model_run *r = &s->runs[i];
                int in_side = 0;

                for (size_t k = 0; k < side->n_runs; k++)
                        in_side |= side->runs[k] == r->v->run->id;
                if (!in_side)
                        continue;
                for (size_t k = 0; k < r->n_latest; k++) {
                        size_t ci = r->latest[k];
                        const struct query_cell *c = &r->v->cells[ci];

                        if (!cellstate_is(c->state, CELLSTATE_OK) || strcmp(c->workload, g->workload) != 0)
                                continue;
                        for (size_t j = 0; j < r->v->n_metrics[ci]; j++) {
                                const struct query_metric *qm = &r->v->metrics[ci][j];
                                int held = 0;

                                if (!qm->has_value || strcmp(qm->name, m->name) != 0)
                                        continue;
                                for (size_t x = 0; x < n && !held; x++)
                                        held = vals[x] == qm->value;
                                if (held && fabs(qm->value - median) < best) {
                                        best = fabs(qm->value - median);
                                        *ret = (struct model_rep){ r->v->run->id, c->cell_key, c->kernel_name,
                                                                  qm->value, m->name };
                                }
                        }
                }
        }
}

void model_representatives(const struct model *s, const struct compare_group *g, struct model_rep ret[2]) {
        const struct compare_metric *m = NULL;

        for (size_t i = 0; i < g->n_m && !m; i++)
                if (g->m[i].judged && g->m[i].na && g->m[i].nb)
                        m = &g->m[i];
        for (size_t i = 0; i < g->n_m && !m; i++)
                if (g->m[i].na && g->m[i].nb)
                        m = &g->m[i];
        representative(s, &g->a, g, m, m ? m->a : NULL, m ? m->na : 0, m ? m->sa.median : NAN, &ret[0]);
        representative(s, &g->b, g, m, m ? m->b : NULL, m ? m->nb : 0, m ? m->sb.median : NAN, &ret[1]);
}

void model_free(struct model *s) {
        for (size_t i = 0; i < s->n_compares; i++) {
                struct model_compare *c = &s->compares[i];

                g_free(c->sel_a);
                g_free(c->sel_b);
                g_free(c->file);
                g_free(c->error);
                compare_view_free(c->v);
        }
        g_free(s->compares);
        for (size_t i = 0; i < s->n_runs; i++) {
                struct model_run *r = &s->runs[i];

                for (size_t k = 0; r->keys && k < r->n_latest; k++)
                        g_free(r->keys[k]);
                g_free(r->keys);
                view_run_free(r->v);
                g_free(r->file);
                g_free(r->latest);
                g_free(r->states);
                g_free(r->kernels);
                g_free(r->workloads);
        }
        g_free(s->runs);
        for (size_t i = 0; i < s->n_kernels; i++)
                g_free(s->kernels[i].file);
        g_free(s->kernels);
        night_rows_free(s->nights, s->n_nights);
        g_free(s->events);
        bisect_rows_free(s->bisections, s->n_bisections);
}

static int runs_load(struct db *db, struct model *s, struct kb_error *err) {
        struct view_runs *runs = NULL;
        int r;

        *s = (struct model){ .db = db };
        r = view_runs_load(db, &runs, err);
        if (r < 0)
                return r;
        s->runs = g_new0(struct model_run, runs->n + 1);
        for (size_t i = 0; i < runs->n; i++) {
                struct model_run *sr = &s->runs[s->n_runs];

                r = view_run_load(db, runs->runs[i].id, &sr->v, err);
                if (r < 0)
                        break;
                s->n_runs++;
                sr->file = page_run_file(runs->runs[i].id);
                run_index(sr);
        }
        view_runs_free(runs);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_runs; i++)
                for (size_t k = 0; k < s->runs[i].n_kernels; k++) {
                        const char *name = s->runs[i].kernels[k];

                        if (model_kernel_find(s, name))
                                continue;
                        s->kernels = g_renew(struct model_kernel, s->kernels, s->n_kernels + 1);
                        s->kernels[s->n_kernels++] = (struct model_kernel){ name, page_kernel_file(name) };
                }
        return 0;
}

static const struct compare_options compare_defaults = { .alpha = 0.05, .noise = 0.02 };

/* A comparison page, unless one of these selectors has it already: the
 * first comes first (a night's, then those asked for, then the defaults). */
static struct model_compare *compare_add(struct model *s, const char *a, const char *b, int64_t run_id) {
        g_autofree char *file = page_compare_file(a, b);
        struct model_compare *had = (struct model_compare *)model_compare_find(s, file);

        /* A night's comparison of two kernels of one run is that run's
         * default comparison too: its page lists it. */
        if (had && run_id && !had->run_id)
                had->run_id = run_id;
        if (had)
                return NULL;
        s->compares = g_renew(struct model_compare, s->compares, s->n_compares + 1);
        s->compares[s->n_compares] = (struct model_compare){ g_strdup(a), g_strdup(b), run_id, TAKE_PTR(file),
                                                            .alpha = compare_defaults.alpha,
                                                            .noise = compare_defaults.noise };
        return &s->compares[s->n_compares++];
}

/* Every night's comparisons, in night order. */
static void night_compares_add(struct model *s) {
        for (size_t i = 0; i < s->n_nights; i++)
                for (size_t k = 0; k < s->nights[i].n_compares; k++) {
                        const struct night_compare_row *nc = &s->nights[i].compares[k];
                        struct model_compare *c;

                        if (!nc->sel_a || !nc->sel_b || !(c = compare_add(s, nc->sel_a, nc->sel_b, 0)))
                                continue;
                        c->night = &s->nights[i];
                        c->subject = nc->subject;
                        if (isfinite(s->nights[i].alpha) && isfinite(s->nights[i].noise)) {
                                c->alpha = s->nights[i].alpha;
                                c->noise = s->nights[i].noise;
                        }
                }
}

/* Whether some run stores a kernel as name under its variant label: as
 * compare does (report/view.c), run:ID:K and tag:T:K take K as the store
 * name when no run shows a kernel as K. */
static int stored_under_label(const struct model *s, const char *name) {
        for (size_t i = 0; i < s->n_runs; i++) {
                const struct model_run *r = &s->runs[i];
                json_auto_t *set = json_loads(r->v->run->settings_json ? r->v->run->settings_json : "", 0, NULL);
                const char *label = json_string_value(json_object_get(set, "variant"));
                g_autofree char *shown = label ? g_strconcat(label, name, NULL) : NULL;

                for (size_t k = 0; shown && k < r->n_kernels; k++)
                        if (strcmp(r->kernels[k], shown) == 0)
                                return 1;
        }
        return 0;
}

/* A selector in kbench compare's syntax that this store can answer: run:
 * and tag: forms that parse and name no kernel or one of the store's, or
 * the exact name of a kernel of the store. */
static int selector_ok(const struct model *s, const char *text) {
        struct compare_selector sel;

        /* A tag may hold ':' itself (a timestamp). */
        if (strncmp(text, "tag:", 4) == 0)
                for (size_t i = 0; i < s->n_runs; i++)
                        if (s->runs[i].v->run->tag && strcmp(s->runs[i].v->run->tag, text + 4) == 0)
                                return 1;
        if (strncmp(text, "run:", 4) == 0 || strncmp(text, "tag:", 4) == 0)
                return compare_selector_parse(text, &sel, NULL) == 0 &&
                       (!sel.kernel[0] || model_kernel_find(s, sel.kernel) || stored_under_label(s, sel.kernel));
        return model_kernel_find(s, text) != NULL;
}

/* "A:B" where A and B may hold ':' themselves (run:3:KERNEL): the one
 * split whose both halves are selectors. */
static int split_compare(const struct model *s, const char *spec, char **ret_a, char **ret_b, struct kb_error *err) {
        g_autofree char *a = NULL, *b = NULL;
        int found = 0;

        for (const char *p = strchr(spec, ':'); p; p = strchr(p + 1, ':')) {
                g_autofree char *x = g_strndup(spec, (gsize)(p - spec));

                if (!selector_ok(s, x) || !selector_ok(s, p + 1))
                        continue;
                if (found++) {
                        return error_setf(err, -EINVAL, "--compare '%.64s%s': ambiguous, it splits into selectors "
                                          "more than one way", spec, strlen(spec) > 64 ? "..." : "");
                }
                a = TAKE_PTR(x);
                b = g_strdup(p + 1);
        }
        if (!found)
                return error_setf(err, -EINVAL, "--compare '%.64s%s': not A:B with A and B each a kernel of the "
                                  "store, run:ID, run:ID:KERNEL, tag:NAME or tag:NAME:KERNEL", spec,
                                  strlen(spec) > 64 ? "..." : "");
        *ret_a = TAKE_PTR(a);
        *ret_b = TAKE_PTR(b);
        return 0;
}

/* The comparisons: as asked, or each kernel against the one before it in
 * each run, in run order. A default comparison that cannot be built is
 * shown with its reason; an asked-for one is an error. */
static int compares_load(struct model *s, const char *const *compares, size_t n_compares, int with_defaults,
                         struct kb_error *err) {
        size_t asked_from, asked_to;

        night_compares_add(s);
        asked_from = s->n_compares;
        for (size_t i = 0; i < n_compares; i++) {
                g_autofree char *a = NULL, *b = NULL;
                int r = split_compare(s, compares[i], &a, &b, err);

                if (r < 0)
                        return r;
                compare_add(s, a, b, 0);
        }
        asked_to = s->n_compares;
        if (n_compares == 0 || with_defaults)
                for (size_t i = 0; i < s->n_runs; i++)
                        for (size_t k = 1; k < s->runs[i].n_kernels; k++) {
                                int64_t id = s->runs[i].v->run->id;
                                g_autofree char *a = g_strdup_printf("run:%lld:%s", (long long)id,
                                                                     s->runs[i].kernels[k - 1]);
                                g_autofree char *b = g_strdup_printf("run:%lld:%s", (long long)id,
                                                                     s->runs[i].kernels[k]);

                                compare_add(s, a, b, id);
                        }
        for (size_t i = 0; i < s->n_compares; i++) {
                struct model_compare *c = &s->compares[i];
                struct compare_options o = compare_defaults;
                struct kb_error e = { { 0 } };
                g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
                int r;

                o.a = c->sel_a;
                o.b = c->sel_b;
                o.alpha = c->alpha;
                o.noise = c->noise;
                g_ptr_array_add(ignored, NULL);
                /* Paired as `kbench compare A B` pairs them, so the page and
                 * the command agree on every verdict. */
                r = pairing_compare_load(s->db, &o, ignored, &c->v, &e);
                /* Where its judged changes of the kernel's instructions went, as compare says. */
                if (r >= 0)
                        r = explain_load(s->db, c->v, &(struct explain_options){ 0 }, &e);
                if (r < 0 && i >= asked_from && i < asked_to)
                        return error_setf(err, r, "--compare %s:%s: %s", c->sel_a, c->sel_b, e.msg);
                if (r < 0)
                        c->error = g_strdup(e.msg);
        }
        return 0;
}

/* Every bisection, newest first, each with its steps. */
static int bisections_load(struct model *s, struct kb_error *err) {
        int r = db_bisections_list(s->db, &s->bisections, &s->n_bisections, err);

        for (size_t i = 0; r >= 0 && i < s->n_bisections; i++) {
                struct bisect_row *full = NULL;

                r = db_bisection_get(s->db, s->bisections[i].id, &full, err);
                if (r < 0)
                        break;
                bisect_rows_free(g_memdup2(&s->bisections[i], sizeof(s->bisections[i])), 1);
                s->bisections[i] = *full;
                g_free(full);
        }
        return r;
}

int model_load(struct db *db, const char *const *compares, size_t n_compares, int with_defaults, struct model *ret,
               struct kb_error *err) {
        int r = runs_load(db, ret, err);

        if (r >= 0)
                r = db_nights_list(db, &ret->nights, &ret->n_nights, err);
        if (r >= 0)
                r = compares_load(ret, compares, n_compares, with_defaults, err);
        if (r >= 0)
                r = bisections_load(ret, err);
        return r;
}
