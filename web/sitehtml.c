/* web/sitehtml: shared page pieces (see sitehtml.h). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report/metrics.h"
#include "web/page.h"
#include "web/sitehtml.h"

void sitehtml_scroll_begin(struct html *h) {
        html_start(h, "div");
        html_attr(h, "class", "scroll");
}

void sitehtml_table_begin(struct html *h, const char *cls, const char *const *head, size_t n) {
        sitehtml_scroll_begin(h);
        html_start(h, "table");
        if (cls)
                html_attr(h, "class", cls);
        html_start(h, "thead");
        page_header_row(h, head, n);
        html_end(h);
        html_start(h, "tbody");
}

void sitehtml_table_end(struct html *h) {
        html_end(h); /* tbody */
        html_end(h); /* table */
        html_end(h); /* the scrolling div */
}

void sitehtml_run_link(struct html *h, const struct model_run *r) {
        g_autofree char *text = g_strdup_printf("run %lld", (long long)r->v->run->id);

        html_link(h, r->file, text);
}

void sitehtml_kernel_link(struct html *h, const struct model *s, const char *kernel) {
        const struct model_kernel *k = model_kernel_find(s, kernel);

        if (k)
                html_link(h, k->file, kernel);
        else
                html_text(h, kernel);
}

void sitehtml_cell_tds(struct html *h, const struct model *s, const struct query_cell *c) {
        g_autofree char *file = page_cell_file(c->run_id, c->cell_key);

        html_start(h, "td");
        html_link(h, file, c->cell_key);
        html_end(h);
        html_start(h, "td");
        sitehtml_kernel_link(h, s, c->kernel_name);
        html_end(h);
        page_td_text(h, c->workload);
}

void sitehtml_state_counts(struct html *h, const struct model_run *r, const char *kernel, const char *workload) {
        int first = 1;

        for (size_t j = 0; j < r->n_states; j++) {
                size_t n = 0;

                for (size_t k = 0; k < r->n_latest; k++) {
                        const struct query_cell *c = &r->v->cells[r->latest[k]];

                        if ((!kernel || strcmp(c->kernel_name, kernel) == 0) &&
                            (!workload || strcmp(c->workload, workload) == 0) &&
                            strcmp(c->state, r->states[j].state) == 0)
                                n++;
                }
                if (n == 0)
                        continue;
                if (!first)
                        html_text(h, ", ");
                first = 0;
                html_start(h, "span");
                html_attr(h, "class", strcmp(r->states[j].state, "ok") == 0 ? "state ok" : "state bad");
                html_textf(h, "%zu %s", n, r->states[j].state);
                html_end(h);
        }
        if (first)
                html_text(h, "-");
}

void sitehtml_td_summary(struct html *h, const struct view_series *vs) {
        char mean[32], sd[32];

        html_start(h, "td");
        html_attr(h, "class", "num");
        if (!vs || vs->sum.n == 0) {
                html_text(h, "-");
                html_end(h);
                return;
        }
        page_format_num(vs->sum.mean, mean, sizeof(mean));
        /* sd / mean of values near DBL_MAX overflows: no percentage then. */
        if (isfinite(vs->sum.sd) && vs->sum.mean != 0 && isfinite(vs->sum.sd / fabs(vs->sum.mean) * 100)) {
                double pct = 100 * (vs->sum.sd / fabs(vs->sum.mean));

                snprintf(sd, sizeof(sd), pct < 1e6 ? "%.1f" : "%.3g", pct);
                html_textf(h, "%s ± %s %%", mean, sd);
        } else if (isfinite(vs->sum.sd)) {
                page_format_num(vs->sum.sd, sd, sizeof(sd));
                html_textf(h, "%s ± %s", mean, sd);
        } else
                html_text(h, mean);
        html_start(h, "span");
        html_attr(h, "class", "muted");
        html_textf(h, " (%zu)", vs->sum.n);
        html_end(h);
        if (vs->s->n_missing) {
                html_start(h, "span");
                html_attr(h, "class", "muted");
                html_attrf(h, "title", "%zu ok cells have no value for this metric", vs->s->n_missing);
                html_textf(h, " +%zu n/a", vs->s->n_missing);
                html_end(h);
        }
        html_end(h);
}

void sitehtml_td_direction(struct html *h, const char *metric) {
        enum metrics_direction d = metrics_direction(metric);

        html_start(h, "td");
        html_attr(h, "class", "muted");
        html_text(h, d == METRICS_NONE ? "-" : metrics_direction_name(d));
        html_end(h);
}

static void fact(struct html *h, const char *name, const char *value) {
        html_elem(h, "dt", name);
        html_elem(h, "dd", value ? value : "-");
}

void sitehtml_run_facts(struct html *h, const struct model_run *r) {
        const struct query_run *run = r->v->run;
        char started[40], finished[40];

        page_format_time(run->started_at, started, sizeof(started));
        page_format_time(run->finished_at, finished, sizeof(finished));
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        fact(h, "status", run->status);
        html_elem(h, "dt", "cells");
        html_start(h, "dd");
        sitehtml_state_counts(h, r, NULL, NULL);
        html_end(h);
        fact(h, "started", started);
        fact(h, "finished", finished);
        fact(h, "host", run->host);
        fact(h, "QEMU", run->qemu_version);
        fact(h, "libvirt", run->libvirt_version);
        fact(h, "kbench", run->kbench_version);
        html_end(h);
}

/* A JSON value as one line of text: scalars as they are, arrays joined
 * with ", " (objects in them by their "name", as the run's kernels are). */
static void value_text(GString *out, const json_t *v) {
        char b[64];

        switch (json_typeof(v)) {
        case JSON_STRING:
                g_string_append(out, json_string_value(v));
                break;
        case JSON_INTEGER:
                g_string_append_printf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                break;
        case JSON_REAL:
                snprintf(b, sizeof(b), "%g", json_real_value(v));
                g_string_append(out, b);
                break;
        case JSON_TRUE:
                g_string_append(out, "yes");
                break;
        case JSON_FALSE:
                g_string_append(out, "no");
                break;
        case JSON_NULL:
                g_string_append(out, "-");
                break;
        case JSON_ARRAY: {
                size_t i;
                json_t *e;

                json_array_foreach(v, i, e) {
                        json_t *name = json_is_object(e) ? json_object_get(e, "name") : NULL;

                        if (i)
                                g_string_append(out, ", ");
                        value_text(out, name ? name : e);
                }
                break;
        }
        case JSON_OBJECT: {
                const char *k;
                json_t *e;
                int first = 1;

                json_object_foreach((json_t *)v, k, e) {
                        if (!first)
                                g_string_append(out, ", ");
                        first = 0;
                        g_string_append_printf(out, "%s=", k);
                        value_text(out, e);
                }
                break;
        }
        }
}

void sitehtml_json_kv(struct html *h, const char *json) {
        json_t *j;
        const char *k;
        json_t *v;

        if (!json)
                return;
        j = json_loads(json, JSON_DECODE_ANY, NULL);
        if (!json_is_object(j)) {
                html_start(h, "pre");
                html_attr(h, "class", "log");
                html_text(h, json);
                html_end(h);
                json_decref(j);
                return;
        }
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        json_object_foreach(j, k, v) {
                GString *t = g_string_new(NULL);

                value_text(t, v);
                html_elem(h, "dt", k);
                html_elem(h, "dd", t->str);
                g_string_free(t, TRUE);
        }
        html_end(h);
        json_decref(j);
}

void sitehtml_compare_table(struct html *h, const struct model *s, int64_t run_id, size_t max) {
        static const char *const head[] = { "B", "vs A", "worse", "better", "judged", "groups" };
        size_t shown = 0, total = 0;

        for (size_t i = 0; i < s->n_compares; i++)
                total += !run_id || s->compares[i].run_id == run_id;
        if (total == 0) {
                html_elem(h, "p", "No comparisons: a comparison needs two kernels (or kbench publish --compare A:B).");
                return;
        }
        sitehtml_table_begin(h, NULL, head, G_N_ELEMENTS(head));
        /* newest first, as the runs */
        for (size_t i = s->n_compares; i-- > 0 && shown < max;) {
                const struct model_compare *c = &s->compares[i];

                if (run_id && c->run_id != run_id)
                        continue;
                shown++;
                html_start(h, "tr");
                html_start(h, "td");
                if (c->v)
                        html_link(h, c->file, c->sel_b);
                else
                        html_text(h, c->sel_b);
                html_end(h);
                page_td_text(h, c->sel_a);
                if (!c->v) {
                        html_start(h, "td");
                        html_attr(h, "colspan", "4");
                        html_attr(h, "class", "wrap muted");
                        html_textf(h, "not compared: %s", c->error ? c->error : "");
                        html_end(h);
                        html_end(h);
                        continue;
                }
                html_start(h, "td");
                html_attr(h, "class", c->v->worse ? "num worse" : "num");
                html_textf(h, "%zu", c->v->worse);
                html_end(h);
                html_start(h, "td");
                html_attr(h, "class", c->v->better ? "num better" : "num");
                html_textf(h, "%zu", c->v->better);
                html_end(h);
                page_td_int(h, (long long)c->v->judged);
                page_td_int(h, (long long)c->v->n_groups);
                html_end(h);
        }
        sitehtml_table_end(h);
        if (total > shown)
                html_elemf(h, "p", "The newest %zu of %zu comparisons are listed; each run's page lists its own.",
                           shown, total);
}
