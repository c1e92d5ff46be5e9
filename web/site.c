/* web/site: the publishing pass (see site.h). The model (web/model.c) is
 * loaded once; cell views are loaded one at a time, rendered and dropped,
 * which keeps memory flat for stores of thousands of cells. Every page is
 * written with its data file beside it, and the feed at the root, through
 * the same compare-then-write output, so publishing again writes nothing
 * when nothing changed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/html.h"
#include "report/json.h"
#include "web/charts.h"
#include "web/history.h"
#include "web/model.h"
#include "web/output.h"
#include "web/page.h"
#include "web/pages.h"
#include "web/site.h"

/* Write a rendered document (taking h). */
static int emit(struct output *o, const char *name, struct html *h, struct kb_error *err) {
        g_autofree char *buf = NULL;
        size_t len;

        if (html_finish(h, &buf, &len) < 0)
                return error_setf(err, -EINVAL, "%s: the page's elements are misnested (a bug)", name);
        return output_write(o, name, buf, len, err);
}

/* A page (taking h) and its data file beside it (taking j). */
static int emit_page(struct output *o, const char *name, struct html *h, json_t *j, struct kb_error *err) {
        g_autofree char *json_name = page_json_file(name);
        char *text = json_view_dumps(j);
        int r;

        json_decref(j);
        r = emit(o, name, h, err);
        if (r >= 0 && !text)
                r = error_setf(err, -ENOMEM, "%s: out of memory building its data", json_name);
        if (r >= 0) {
                g_autofree char *line = g_strconcat(text, "\n", NULL);

                r = output_write(o, json_name, line, strlen(line), err);
        }
        free(text);
        return r;
}

static int publish_cells(struct output *o, const struct model *s, const struct model_run *r, struct kb_error *err) {
        for (size_t k = 0; k < r->n_latest; k++) {
                const struct query_cell *c = &r->v->cells[r->latest[k]];
                struct view_cell *vc = NULL;
                struct cell_charts charts = { 0 };
                g_autofree char *file = page_cell_file(c->run_id, c->cell_key);
                struct html *h;
                json_t *j;
                int ret;

                ret = view_cell_load(s->db, c->run_id, c->cell_key, &vc, err);
                if (ret < 0)
                        return ret;
                charts_load(vc, &charts);
                h = html_new();
                cellpage_render(h, s, r, vc, &charts);
                j = sitejson_cell(vc);
                charts_free(&charts);
                view_cell_free(vc);
                ret = emit_page(o, file, h, j, err);
                if (ret < 0)
                        return ret;
        }
        return 0;
}

/* The chart data of each group's representative cells, loaded for the
 * comparison page and dropped after it. */
static int representatives_load(const struct model *s, const struct model_compare *c, struct model_group_cells *gc,
                                struct kb_error *err) {
        for (size_t g = 0; g < c->v->n_groups; g++) {
                model_representatives(s, &c->v->groups[g], gc[g].rep);
                for (int side = 0; side < 2; side++) {
                        struct view_cell *vc = NULL;
                        int r;

                        if (!gc[g].rep[side].cell_key)
                                continue;
                        r = view_cell_load(s->db, gc[g].rep[side].run_id, gc[g].rep[side].cell_key, &vc, err);
                        if (r < 0)
                                return r;
                        gc[g].charts[side] = g_new0(struct cell_charts, 1);
                        charts_load(vc, gc[g].charts[side]);
                        view_cell_free(vc);
                }
        }
        return 0;
}

/* A comparison page with its representative cells' charts and its
 * metrics' history. */
static int publish_compare(struct output *o, const struct model *s, const struct model_compare *c,
                           struct kb_error *err) {
        size_t ng = c->v->n_groups;
        struct model_group_cells *gc = g_new0(struct model_group_cells, ng + 1);
        struct history_group *hist = g_new0(struct history_group, ng + 1);
        int r = representatives_load(s, c, gc, err);

        for (size_t g = 0; g < ng; g++)
                history_group_load(s, c, &c->v->groups[g], &hist[g]);
        if (r >= 0) {
                struct html *h = html_new();

                comparepage_render(h, s, c, gc, hist);
                r = emit_page(o, c->file, h, sitejson_compare(c, gc, hist), err);
        }
        for (size_t g = 0; g < ng; g++) {
                history_group_free(&hist[g]);
                for (int side = 0; side < 2; side++)
                        if (gc[g].charts[side]) {
                                charts_free(gc[g].charts[side]);
                                g_free(gc[g].charts[side]);
                        }
        }
        g_free(hist);
        g_free(gc);
        return r;
}

static int publish_pages(struct output *o, const struct model *s, struct kb_error *err) {
        struct html *h;
        int r = 0;

        for (size_t i = 0; r >= 0 && i < s->n_compares; i++)
                if (s->compares[i].v)
                        r = publish_compare(o, s, &s->compares[i], err);
        for (size_t i = 0; r >= 0 && i < s->n_runs; i++) {
                h = html_new();
                runpage_render(h, s, &s->runs[i]);
                r = emit_page(o, s->runs[i].file, h, sitejson_run(s, &s->runs[i]), err);
                if (r >= 0)
                        r = publish_cells(o, s, &s->runs[i], err);
        }
        for (size_t i = 0; r >= 0 && i < s->n_kernels; i++) {
                h = html_new();
                kernelpage_render(h, s, &s->kernels[i]);
                r = emit_page(o, s->kernels[i].file, h, sitejson_kernel(s, &s->kernels[i]), err);
        }
        for (size_t i = 0; r >= 0 && i < s->n_bisections; i++) {
                g_autofree char *file = page_bisect_file(s->bisections[i].id);

                h = html_new();
                bisectpage_render(h, s, &s->bisections[i]);
                r = emit_page(o, file, h, sitejson_bisect(&s->bisections[i]), err);
        }
        if (r >= 0) {
                h = html_new();
                indexpage_render(h, s);
                r = emit_page(o, "index.html", h, sitejson_index(s), err);
        }
        if (r >= 0) {
                h = html_new_xml();
                feed_render(h, s);
                r = emit(o, PAGE_FEED_FILE, h, err);
        }
        return r;
}

int site_publish(struct db *db, const struct site_options *opt, struct site_result *ret, struct kb_error *err) {
        struct output o;
        struct model s;
        int r;

        /* The store first: a --compare that names nothing, or a damaged
         * database, must fail before a directory is made for the site. */
        r = model_load(db, opt->compares, opt->n_compares, opt->with_defaults, &s, err);
        if (r >= 0)
                r = output_open(&o, opt->dir, (opt->force ? OUTPUT_FORCE : 0) | (opt->adopt ? OUTPUT_ADOPT : 0), err);
        if (r < 0) {
                model_free(&s);
                return r;
        }
        s.published_at = (double)time(NULL);
        history_regressions(&s);
        r = publish_pages(&o, &s, err);
        if (r >= 0)
                r = output_prune(&o, err);
        if (r >= 0) {
                *ret = (struct site_result){ .written = o.written, .unchanged = o.unchanged, .removed = o.removed,
                                             .dropped = o.dropped };
                memcpy(ret->dropped_note, o.dropped_note, sizeof(ret->dropped_note));
        }
        model_free(&s);
        output_close(&o);
        return r;
}
