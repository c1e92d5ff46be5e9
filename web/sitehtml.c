/* web/sitehtml: shared page pieces (see sitehtml.h). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report/metrics.h"
#include "results/cellstate.h"
#include "settings/runopts.h"
#include "web/page.h"
#include "web/sitehtml.h"

void sitehtml_scroll_begin(struct html *h) {
        html_start(h, "div");
        html_attr(h, "class", "scroll");
}

void sitehtml_table_begin(struct html *h, const char *cls, const char *const *head, size_t n) {
        sitehtml_table_begin_opt(h, cls, head, n, 0);
}

void sitehtml_table_begin_opt(struct html *h, const char *cls, const char *const *head, size_t n, unsigned opt) {
        sitehtml_scroll_begin(h);
        html_column_labels(h, head, n);
        html_start(h, "table");
        if (cls)
                html_attr(h, "class", cls);
        html_start(h, "thead");
        html_start(h, "tr");
        for (size_t i = 0; i < n; i++) {
                html_start(h, "th");
                if (i < 32 && (opt & (1u << i)))
                        html_attr(h, "class", "opt");
                html_text(h, head[i]);
                html_end(h);
        }
        html_end(h);
        html_end(h);
        html_start(h, "tbody");
}

void sitehtml_table_end(struct html *h) {
        html_end(h); /* tbody */
        html_end(h); /* table */
        html_end(h); /* the scrolling div */
        html_column_labels(h, NULL, 0);
}

void sitehtml_metric_name(struct html *h, const char *name) {
        for (const char *p = name; *p;) {
                size_t len = strcspn(p, "._");

                len += p[len] != '\0';
                html_text_len(h, p, len);
                p += len;
                if (*p && (p[-1] == '.' || p[-1] == '_'))
                        html_literal(h, "<wbr>");
        }
}

char *sitehtml_breakable(const char *name) {
        GString *t = g_string_new(NULL);

        for (const char *p = name; *p; p++) {
                g_string_append_c(t, *p);
                if ((*p == '.' || *p == '_') && p[1])
                        g_string_append(t, "\u200b");
        }
        return g_string_free(t, FALSE);
}

void sitehtml_td_metric(struct html *h, const char *name) {
        html_start(h, "td");
        html_attr(h, "class", "metric");
        sitehtml_metric_name(h, name);
        html_end(h);
}

int sitehtml_paced(const struct model_run *r, const struct query_cell *c) {
        return view_cpu_paced(r->v->run->settings_json, c ? c->params_json : NULL);
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
                html_attr(h, "class", cellstate_is(r->states[j].state, CELLSTATE_OK) ? "state ok" : "state bad");
                html_textf(h, "%zu %s", n, r->states[j].state);
                html_end(h);
        }
        if (first)
                html_text(h, "-");
}

void sitehtml_td_summary(struct html *h, const struct view_series *vs) {
        char mean[48], sd[32];

        html_start(h, "td");
        html_attr(h, "class", "num sum");
        if (!vs || vs->sum.n == 0) {
                html_text(h, "-");
                html_end(h);
                return;
        }
        page_format_value(vs->sum.mean, vs->s->unit, mean, sizeof(mean));
        /* sd / mean of values near DBL_MAX overflows: no percentage then. */
        if (isfinite(vs->sum.sd) && vs->sum.mean != 0 && isfinite(vs->sum.sd / fabs(vs->sum.mean) * 100)) {
                double pct = 100 * (vs->sum.sd / fabs(vs->sum.mean));

                snprintf(sd, sizeof(sd), pct < 1e6 ? "%.1f" : "%.3g", pct);
                /* no-break spaces: a narrow table wraps before "±" and "(n)" only */
                html_textf(h, "%s \u00b1\u00a0%s\u00a0%%", mean, sd);
        } else if (isfinite(vs->sum.sd)) {
                page_format_value(vs->sum.sd, vs->s->unit, sd, sizeof(sd));
                html_textf(h, "%s \u00b1\u00a0%s", mean, sd);
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
        html_attr(h, "class", "muted opt");
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

/* The reason an accelerator was used, in a few words: accel_why without
 * its head naming the accelerator ("tcg: ", "tcg ") and without what
 * follows " (", "; " or " from " (a probe's raw libvirt error, the cache
 * file's path). Caller g_free()s; NULL when there is nothing to say. */
static char *accel_reason(const char *accel, const char *why) {
        static const char *const cuts[] = { " (", "; ", " from " };
        size_t len, head = accel ? strlen(accel) : 0;

        if (!why)
                return NULL;
        if (head && g_ascii_strncasecmp(why, accel, head) == 0 && (why[head] == ':' || why[head] == ' '))
                why += head + (why[head] == ':');
        while (*why == ' ')
                why++;
        len = strlen(why);
        for (size_t i = 0; i < G_N_ELEMENTS(cuts); i++) {
                const char *p = strstr(why, cuts[i]);

                if (p && (size_t)(p - why) < len)
                        len = (size_t)(p - why);
        }
        return len ? g_strndup(why, len) : NULL;
}

/* A saved option's value with its unit: sizes in MiB or GiB, seconds,
 * percentages; 0 of an option where 0 means none as "none". */
static char *option_value(const struct runopt *row, const json_t *v) {
        double x = json_number_value(v);
        GString *t;

        if (!json_is_number(v)) {
                t = g_string_new(NULL);
                value_text(t, v);
                return g_string_free(t, FALSE);
        }
        if (x == 0 && (row->zero_ok || (row->unit && strcmp(row->unit, "MB/s") == 0)))
                return g_strdup("none");
        switch (row->type) {
        case RUNOPT_SIZE:
                return x >= 1024.0 * 1024 * 1024 && fmod(x, 1024.0 * 1024 * 1024) == 0
                               ? g_strdup_printf("%g GiB", x / (1024.0 * 1024 * 1024))
                               : g_strdup_printf("%g MiB", x / (1024.0 * 1024));
        case RUNOPT_MIB: return g_strdup_printf("%g MiB", x);
        case RUNOPT_SECONDS: return g_strdup_printf("%g s", x);
        case RUNOPT_PERCENT: return g_strdup_printf("%g %%", x);
        default:
                return row->unit && strcmp(row->unit, "bytes") != 0 ? g_strdup_printf("%g %s", x, row->unit)
                                                                    : g_strdup_printf("%g", x);
        }
}

/* Whether a HOW option holds its default (a reader needs only what was
 * chosen). */
static int option_default(const struct runopt *row, const json_t *v) {
        if (row->class != RUNOPT_HOW)
                return 0;
        if (row->type == RUNOPT_FLAG)
                return json_is_false(v);
        if (json_is_number(v))
                return row->def && json_number_value(v) == g_ascii_strtod(row->def, NULL);
        return json_is_string(v) && row->def && strcmp(json_string_value(v), row->def) == 0;
}

/* The kernels of the run: "name (release, upstream 6.1.170)", each part
 * in brackets when the run recorded it and the name does not say it. */
static void settings_kernels(struct html *h, const json_t *kernels) {
        GString *t = g_string_new(NULL);
        size_t i;
        json_t *k;

        json_array_foreach(kernels, i, k) {
                const char *name = json_string_value(json_object_get(k, "name"));
                const char *release = json_string_value(json_object_get(k, "release"));
                const char *up = json_string_value(json_object_get(k, "upstream"));

                if (!name)
                        continue;
                g_string_append_printf(t, "%s%s", t->len ? ", " : "", name);
                if (release && strcmp(release, name) == 0)
                        release = NULL;
                if (release || up)
                        g_string_append_printf(t, " (%s%s%s%s)", release ? release : "", release && up ? ", " : "",
                                               up ? "upstream " : "", up ? up : "");
        }
        if (t->len) {
                html_elem(h, "dt", "kernels");
                html_elem(h, "dd", t->str);
        }
        g_string_free(t, TRUE);
}

/* The accelerator and, in words, why; then warm or cold. */
static void settings_start(struct html *h, const json_t *j) {
        const char *accel = json_string_value(json_object_get(j, RUNOPTS_ACCEL_KEY));
        g_autofree char *why = accel_reason(accel, json_string_value(json_object_get(j, "accel_why")));

        if (accel) {
                g_autofree char *up = g_ascii_strup(accel, -1);

                html_elem(h, "dt", "accelerator");
                html_start(h, "dd");
                html_text(h, up);
                if (why && *why)
                        html_textf(h, " (%s)", why);
                html_end(h);
        }
        if (json_object_get(j, "warm") || json_object_get(j, "cold")) {
                html_elem(h, "dt", "cells start");
                html_elem(h, "dd", json_is_true(json_object_get(j, "warm")) && !json_is_true(json_object_get(j, "cold"))
                                           ? "warm, from a snapshot of the booted guest"
                                           : "cold, each cell boots its guest");
        }
}

void sitehtml_run_settings(struct html *h, const char *settings_json) {
        static const char *const shown_apart[] = { "kernels", "workloads", RUNOPTS_ACCEL_KEY, "accel_why",
                                                   "accel_requested", "warm", "cold", RUNOPTS_HOW_KEYS,
                                                   "planned_cells" };
        json_t *j = settings_json ? json_loads(settings_json, 0, NULL) : NULL;
        const char *k;
        json_t *v;

        if (!json_is_object(j)) {
                json_decref(j);
                sitehtml_json_kv(h, settings_json);
                return;
        }
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        settings_kernels(h, json_object_get(j, "kernels"));
        if (json_array_size(json_object_get(j, "workloads"))) {
                GString *t = g_string_new(NULL);

                value_text(t, json_object_get(j, "workloads"));
                html_elem(h, "dt", "workloads");
                html_elem(h, "dd", t->str);
                g_string_free(t, TRUE);
        }
        settings_start(h, j);
        json_object_foreach(j, k, v) {
                const struct runopt *row = runopt_find_key(k);
                int apart = 0;
                g_autofree char *text = NULL;

                for (size_t i = 0; i < G_N_ELEMENTS(shown_apart); i++)
                        apart |= strcmp(k, shown_apart[i]) == 0;
                if (apart || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)) ||
                    (json_is_array(v) && json_array_size(v) == 0) || (row && option_default(row, v)))
                        continue;
                if (row)
                        text = option_value(row, v);
                else {
                        GString *t = g_string_new(NULL);

                        value_text(t, v);
                        text = g_string_free(t, FALSE);
                }
                html_elem(h, "dt", row ? row->name : k);
                html_elem(h, "dd", text);
        }
        html_end(h);
        json_decref(j);
}

/* A positive whole number of o (a JSON integer), else 0. */
static long long json_count(const json_t *o, const char *key) {
        const json_t *v = json_object_get(o, key);

        return json_is_integer(v) && json_integer_value(v) > 0 ? (long long)json_integer_value(v) : 0;
}

char *sitehtml_host_cpu(const json_t *info) {
        const char *cpu = json_string_value(json_object_get(info, "cpu"));
        long long cores = json_count(info, "cores");

        if (!cpu)
                return NULL;
        return cores ? g_strdup_printf("%s, %lld core%s", cpu, cores, cores == 1 ? "" : "s") : g_strdup(cpu);
}

char *sitehtml_host_ram(const json_t *info) {
        long long kb = json_count(info, "mem_kb");

        return kb ? g_strdup_printf("%.1f GiB", (double)kb / (1024.0 * 1024.0)) : NULL;
}

void sitehtml_host_info(struct html *h, const char *host_info_json) {
        json_t *j = host_info_json ? json_loads(host_info_json, 0, NULL) : NULL;
        g_autofree char *cpu = sitehtml_host_cpu(j), *ram = sitehtml_host_ram(j);
        const char *k;
        json_t *v;

        if (!json_is_object(j)) {
                json_decref(j);
                sitehtml_json_kv(h, host_info_json);
                return;
        }
        html_start(h, "dl");
        html_attr(h, "class", "kv");
        if (cpu) {
                html_elem(h, "dt", "CPU");
                html_elem(h, "dd", cpu);
        }
        if (ram) {
                html_elem(h, "dt", "RAM");
                html_elem(h, "dd", ram);
        }
        json_object_foreach(j, k, v) {
                GString *t;

                /* what the two lines above said */
                if ((cpu && (strcmp(k, "cpu") == 0 || strcmp(k, "cores") == 0)) || (ram && strcmp(k, "mem_kb") == 0))
                        continue;
                t = g_string_new(NULL);
                value_text(t, v);
                html_elem(h, "dt", strcmp(k, "kernel") == 0 ? "host kernel" : k);
                html_elem(h, "dd", t->str);
                g_string_free(t, TRUE);
        }
        html_end(h);
        json_decref(j);
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
        static const char *const head[] = { "kernel", "against", "worse", "better", "judged", "groups" };
        size_t shown = 0, total = 0;

        for (size_t i = 0; i < s->n_compares; i++)
                total += !run_id || s->compares[i].run_id == run_id;
        if (total == 0) {
                html_elem(h, "p", "No comparisons: a comparison needs two kernels (or kbench publish --compare A:B).");
                return;
        }
        sitehtml_table_begin(h, "cards", head, G_N_ELEMENTS(head));
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

const char *sitehtml_side_kernel(const struct model *s, const struct compare_view *v, int side) {
        const char *id = side ? v->kernel_b : v->kernel_a;

        for (size_t g = 0; id && g < v->n_groups; g++) {
                const struct compare_side *cs = side ? &v->groups[g].b : &v->groups[g].a;

                for (size_t i = 0; i < cs->n_runs; i++) {
                        const struct model_run *r = model_run_find(s, cs->runs[i]);

                        for (size_t k = 0; r && k < r->n_latest; k++) {
                                const struct query_cell *c = &r->v->cells[r->latest[k]];

                                if (strcmp(c->kernel_id, id) == 0)
                                        return c->kernel_name;
                        }
                }
        }
        return NULL;
}
