/* web/site: the publishing pass (see site.h). Every run view is loaded
 * once and kept for the whole pass: the run pages, the kernel pages and
 * the index all read the same summaries, so a number cannot differ
 * between two pages. Cell views are loaded one at a time, rendered and
 * dropped, which keeps memory flat for stores of thousands of cells. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/util.h"
#include "report/html.h"
#include "report/pairing.h"
#include "report/stats.h"
#include "web/charts.h"
#include "web/output.h"
#include "web/page.h"
#include "web/site.h"

const struct site_kernel *site_kernel_find(const struct site *s, const char *name) {
        for (size_t i = 0; i < s->n_kernels; i++)
                if (strcmp(s->kernels[i].name, name) == 0)
                        return &s->kernels[i];
        return NULL;
}

const struct view_series *site_series(const struct view_run *v, const char *kernel, const char *workload,
                                      const char *metric) {
        for (size_t i = 0; i < v->n_series; i++) {
                const struct query_series *q = v->summary[i].s;

                if (strcmp(q->kernel_name, kernel) == 0 && strcmp(q->workload, workload) == 0 &&
                    strcmp(q->metric, metric) == 0)
                        return &v->summary[i];
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
static void run_index(struct site_run *r) {
        const struct view_run *v = r->v;

        r->latest = g_new(size_t, v->n_cells + 1);
        r->kernels = g_new(char *, v->n_cells + 1);
        r->workloads = g_new(char *, v->n_cells + 1);
        r->states = g_new0(struct site_state_count, v->n_cells + 2);
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
        r->states[r->n_states++] = (struct site_state_count){ "ok", 0 };
        for (size_t k = 0; k < r->n_latest; k++) {
                const char *st = v->cells[r->latest[k]].state;
                size_t j;

                for (j = 0; j < r->n_states; j++)
                        if (strcmp(r->states[j].state, st) == 0)
                                break;
                if (j == r->n_states)
                        r->states[r->n_states++] = (struct site_state_count){ st, 0 };
                r->states[j].n++;
                r->n_failed += strcmp(st, "ok") != 0;
        }
}

/* The ok cell of a side closest to its median of the group's first judged
 * metric. The compare view keeps values, not cells, so the cell is found
 * among the side's runs by workload and by a value the side holds. */
static void representative(const struct site *s, const struct compare_side *side, const struct compare_group *g,
                           const struct compare_metric *m, const double *vals, size_t n, double median,
                           struct site_rep *ret) {
        double best = INFINITY;

        *ret = (struct site_rep){ .metric = m ? m->name : NULL };
        if (!m)
                return;
        for (size_t i = 0; i < s->n_runs; i++) {
                const struct site_run *r = &s->runs[i];
                int in_side = 0;

                for (size_t k = 0; k < side->n_runs; k++)
                        in_side |= side->runs[k] == r->v->run->id;
                if (!in_side)
                        continue;
                for (size_t k = 0; k < r->n_latest; k++) {
                        size_t ci = r->latest[k];
                        const struct query_cell *c = &r->v->cells[ci];

                        if (strcmp(c->state, "ok") != 0 || strcmp(c->workload, g->workload) != 0)
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
                                        *ret = (struct site_rep){ r->v->run->id, c->cell_key, c->kernel_name,
                                                                  qm->value, m->name };
                                }
                        }
                }
        }
}

void site_representatives(const struct site *s, const struct compare_group *g, struct site_rep ret[2]) {
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

static void site_free(struct site *s) {
        for (size_t i = 0; i < s->n_compares; i++) {
                struct site_compare *c = &s->compares[i];

                g_free(c->sel_a);
                g_free(c->sel_b);
                g_free(c->file);
                g_free(c->error);
                compare_view_free(c->v);
        }
        g_free(s->compares);
        for (size_t i = 0; i < s->n_runs; i++) {
                struct site_run *r = &s->runs[i];

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
}

static int site_load(struct db *db, struct site *s, struct kb_error *err) {
        struct view_runs *runs = NULL;
        int r;

        *s = (struct site){ .db = db };
        r = view_runs_load(db, &runs, err);
        if (r < 0)
                return r;
        s->runs = g_new0(struct site_run, runs->n + 1);
        for (size_t i = 0; i < runs->n; i++) {
                struct site_run *sr = &s->runs[s->n_runs];

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

                        if (site_kernel_find(s, name))
                                continue;
                        s->kernels = g_renew(struct site_kernel, s->kernels, s->n_kernels + 1);
                        s->kernels[s->n_kernels++] = (struct site_kernel){ name, page_kernel_file(name) };
                }
        return 0;
}

static const struct compare_options compare_defaults = { .alpha = 0.05, .noise = 0.02 };

static void compare_add(struct site *s, const char *a, const char *b, int64_t run_id) {
        s->compares = g_renew(struct site_compare, s->compares, s->n_compares + 1);
        s->compares[s->n_compares++] = (struct site_compare){ g_strdup(a), g_strdup(b), run_id,
                                                              page_compare_file(a, b), NULL, NULL };
}

/* A selector in kbench compare's syntax that this store can answer: run:
 * and tag: forms that parse and name no kernel or one of the store's, or
 * the exact name of a kernel of the store. */
static int selector_ok(const struct site *s, const char *text) {
        struct compare_selector sel;

        /* A tag may hold ':' itself (a timestamp). */
        if (strncmp(text, "tag:", 4) == 0)
                for (size_t i = 0; i < s->n_runs; i++)
                        if (s->runs[i].v->run->tag && strcmp(s->runs[i].v->run->tag, text + 4) == 0)
                                return 1;
        if (strncmp(text, "run:", 4) == 0 || strncmp(text, "tag:", 4) == 0)
                return compare_selector_parse(text, &sel, NULL) == 0 &&
                       (!sel.kernel[0] || site_kernel_find(s, sel.kernel));
        return site_kernel_find(s, text) != NULL;
}

/* "A:B" where A and B may hold ':' themselves (run:3:KERNEL): the one
 * split whose both halves are selectors. */
static int split_compare(const struct site *s, const char *spec, char **ret_a, char **ret_b, struct kb_error *err) {
        g_autofree char *a = NULL, *b = NULL;
        int found = 0;

        for (const char *p = strchr(spec, ':'); p; p = strchr(p + 1, ':')) {
                g_autofree char *x = g_strndup(spec, (gsize)(p - spec));

                if (!selector_ok(s, x) || !selector_ok(s, p + 1))
                        continue;
                if (found++) {
                        return error_setf(err, -EINVAL,
                                          "--compare '%s': ambiguous, it splits into selectors more than one way", spec);
                }
                a = TAKE_PTR(x);
                b = g_strdup(p + 1);
        }
        if (!found)
                return error_setf(err, -EINVAL,
                                  "--compare '%s': not A:B with A and B each a kernel of the store, run:ID, "
                                  "run:ID:KERNEL, tag:NAME or tag:NAME:KERNEL", spec);
        *ret_a = TAKE_PTR(a);
        *ret_b = TAKE_PTR(b);
        return 0;
}

/* The comparisons: as asked, or each kernel against the one before it in
 * each run, in run order. A default comparison that cannot be built is
 * shown with its reason; an asked-for one is an error. */
static int compares_load(struct site *s, const struct site_options *opt, struct kb_error *err) {
        for (size_t i = 0; i < opt->n_compares; i++) {
                g_autofree char *a = NULL, *b = NULL;
                int r = split_compare(s, opt->compares[i], &a, &b, err);

                if (r < 0)
                        return r;
                compare_add(s, a, b, 0);
        }
        if (opt->n_compares == 0 || opt->with_defaults)
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
                struct site_compare *c = &s->compares[i];
                struct compare_options o = compare_defaults;
                struct kb_error e = { { 0 } };
                g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
                int r;

                o.a = c->sel_a;
                o.b = c->sel_b;
                g_ptr_array_add(ignored, NULL);
                /* Paired as `kbench compare A B` pairs them, so the page and
                 * the command agree on every verdict. */
                r = pairing_compare_load(s->db, &o, ignored, &c->v, &e);
                if (r < 0 && opt->n_compares)
                        return error_setf(err, r, "--compare %s:%s: %s", c->sel_a, c->sel_b, e.msg);
                if (r < 0)
                        c->error = g_strdup(e.msg);
        }
        return 0;
}

/* Render into a fresh buffer and hand it to the writer. */
static int emit(struct output *o, const char *name, struct html *h, struct kb_error *err) {
        g_autofree char *buf = NULL;
        size_t len;

        if (html_finish(h, &buf, &len) < 0)
                return error_setf(err, -EINVAL, "%s: the page's elements are misnested (a bug)", name);
        return output_write(o, name, buf, len, err);
}

static int publish_cells(struct output *o, const struct site *s, const struct site_run *r, struct kb_error *err) {
        for (size_t k = 0; k < r->n_latest; k++) {
                const struct query_cell *c = &r->v->cells[r->latest[k]];
                struct view_cell *vc = NULL;
                struct cell_charts charts = { 0 };
                g_autofree char *file = page_cell_file(c->run_id, c->cell_key);
                struct html *h;
                int ret;

                ret = view_cell_load(s->db, c->run_id, c->cell_key, &vc, err);
                if (ret < 0)
                        return ret;
                ret = charts_load(s->db, vc, &charts, err);
                if (ret < 0) {
                        view_cell_free(vc);
                        return ret;
                }
                h = html_new();
                cellpage_render(h, s, r, vc, &charts);
                charts_free(&charts);
                view_cell_free(vc);
                ret = emit(o, file, h, err);
                if (ret < 0)
                        return ret;
        }
        return 0;
}

/* A comparison page with the chart data of each group's representative
 * cells, loaded for the page and dropped after it. */
static int publish_compare(struct output *o, const struct site *s, const struct site_compare *c,
                           struct kb_error *err) {
        size_t ng = c->v ? c->v->n_groups : 0;
        struct site_group_cells *gc = g_new0(struct site_group_cells, ng + 1);
        struct html *h;
        int r = 0;

        for (size_t g = 0; g < ng && r >= 0; g++) {
                site_representatives(s, &c->v->groups[g], gc[g].rep);
                for (int side = 0; side < 2 && r >= 0; side++) {
                        struct view_cell *vc = NULL;

                        if (!gc[g].rep[side].cell_key)
                                continue;
                        r = view_cell_load(s->db, gc[g].rep[side].run_id, gc[g].rep[side].cell_key, &vc, err);
                        if (r < 0)
                                break;
                        gc[g].charts[side] = g_new0(struct cell_charts, 1);
                        r = charts_load(s->db, vc, gc[g].charts[side], err);
                        view_cell_free(vc);
                }
        }
        if (r >= 0) {
                h = html_new();
                comparepage_render(h, s, c, gc);
                r = emit(o, c->file, h, err);
        }
        for (size_t g = 0; g < ng; g++)
                for (int side = 0; side < 2; side++)
                        if (gc[g].charts[side]) {
                                charts_free(gc[g].charts[side]);
                                g_free(gc[g].charts[side]);
                        }
        g_free(gc);
        return r;
}

int site_publish(struct db *db, const struct site_options *opt, struct site_result *ret, struct kb_error *err) {
        struct output o;
        struct site s;
        struct html *h;
        int r;

        r = output_open(&o, opt->dir, opt->force, err);
        if (r < 0)
                return r;
        r = site_load(db, &s, err);
        if (r >= 0)
                r = compares_load(&s, opt, err);
        for (size_t i = 0; r >= 0 && i < s.n_compares; i++)
                if (s.compares[i].v)
                        r = publish_compare(&o, &s, &s.compares[i], err);
        for (size_t i = 0; r >= 0 && i < s.n_runs; i++) {
                h = html_new();
                runpage_render(h, &s, &s.runs[i]);
                r = emit(&o, s.runs[i].file, h, err);
                if (r >= 0)
                        r = publish_cells(&o, &s, &s.runs[i], err);
        }
        for (size_t i = 0; r >= 0 && i < s.n_kernels; i++) {
                h = html_new();
                kernelpage_render(h, &s, &s.kernels[i]);
                r = emit(&o, s.kernels[i].file, h, err);
        }
        if (r >= 0) {
                h = html_new();
                indexpage_render(h, &s);
                r = emit(&o, "index.html", h, err);
        }
        if (r >= 0)
                r = output_prune(&o, err);
        if (r >= 0)
                *ret = (struct site_result){ o.written, o.unchanged, o.removed };
        site_free(&s);
        output_close(&o);
        return r;
}
