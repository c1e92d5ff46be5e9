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

void site_mean_ci(const struct stats_summary *s, double *ret_lo, double *ret_hi) {
        double half;

        if (s->n < 2 || !isfinite(s->sd)) {
                *ret_lo = *ret_hi = NAN;
                return;
        }
        half = stats_t_quantile(0.975, (double)(s->n - 1)) * s->sd / sqrt((double)s->n);
        *ret_lo = s->mean - half;
        *ret_hi = s->mean + half;
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

static void site_free(struct site *s) {
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

int site_publish(struct db *db, const struct site_options *opt, struct site_result *ret, struct kb_error *err) {
        struct output o;
        struct site s;
        struct html *h;
        int r;

        r = output_open(&o, opt->dir, err);
        if (r < 0)
                return r;
        r = site_load(db, &s, err);
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
                *ret = (struct site_result){ o.written, o.unchanged };
        site_free(&s);
        output_close(&o);
        return r;
}
