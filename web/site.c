/* web/site: the publishing pass (see site.h). The model (web/model.c) is
 * loaded once; cell views are loaded one at a time, rendered and dropped,
 * which keeps memory flat for stores of thousands of cells. */

#include "report/html.h"
#include "web/charts.h"
#include "web/model.h"
#include "web/output.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/site.h"

/* Render into a fresh buffer and hand it to the writer. */
static int emit(struct output *o, const char *name, struct html *h, struct kb_error *err) {
        g_autofree char *buf = NULL;
        size_t len;

        if (html_finish(h, &buf, &len) < 0)
                return error_setf(err, -EINVAL, "%s: the page's elements are misnested (a bug)", name);
        return output_write(o, name, buf, len, err);
}

static int publish_cells(struct output *o, const struct model *s, const struct model_run *r, struct kb_error *err) {
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
                charts_load(vc, &charts);
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
static int publish_compare(struct output *o, const struct model *s, const struct model_compare *c,
                           struct kb_error *err) {
        size_t ng = c->v ? c->v->n_groups : 0;
        struct model_group_cells *gc = g_new0(struct model_group_cells, ng + 1);
        struct html *h;
        int r = 0;

        for (size_t g = 0; g < ng && r >= 0; g++) {
                model_representatives(s, &c->v->groups[g], gc[g].rep);
                for (int side = 0; side < 2 && r >= 0; side++) {
                        struct view_cell *vc = NULL;

                        if (!gc[g].rep[side].cell_key)
                                continue;
                        r = view_cell_load(s->db, gc[g].rep[side].run_id, gc[g].rep[side].cell_key, &vc, err);
                        if (r < 0)
                                break;
                        gc[g].charts[side] = g_new0(struct cell_charts, 1);
                        charts_load(vc, gc[g].charts[side]);
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
        struct model s;
        struct html *h;
        int r;

        r = output_open(&o, opt->dir, opt->force, err);
        if (r < 0)
                return r;
        r = model_load(db, opt->compares, opt->n_compares, opt->with_defaults, &s, err);
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
        model_free(&s);
        output_close(&o);
        return r;
}
