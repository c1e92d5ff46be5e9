/* nightly/night_detect.c: a night's judging stage (see night_int.h):
 * each kernel measured tonight against the baseline measured beside it
 * (compare's pairing: findings, regressions with what a developer needs
 * to act on them, failed cells, regressions of earlier nights now fixed),
 * one bisection of the configured metric's first regression, and the
 * change points in each judged metric's history of run means. What it
 * reads of the results comes through night_history.h. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/changepoint.h"
#include "kernels/kconfig.h"
#include "kernels/kstore.h"
#include "nightly/night_history.h"
#include "nightly/night_int.h"
#include "nightly/nightly_bisect.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_report.h"
#include "report/metrics.h"
#include "report/stats.h"
#include "report/textcompare.h"
#include "report/text.h"
#include "report/view.h"
#include "web/page.h"
#include "web/regstate.h"

static int is_tonight(const struct night *n, int64_t run) {
        for (guint i = 0; i < n->runs->len; i++)
                if (g_array_index(n->runs, int64_t, i) == run)
                        return 1;
        return 0;
}

static void add_finding(struct night *n, const struct subject *s, const struct compare_view *v,
                        const struct compare_metric *m) {
        char change[64], ci[64], mde[64];
        struct nightly_finding f = {
                .kernel = g_strdup(s->name), .baseline = g_strdup(n->cfg->baseline), .metric = g_strdup(m->name),
                .across = v->ignored && v->ignored[0] ? g_strjoinv(",", v->ignored) : NULL,
                .change = m->change, .p = m->ttest.p, .q = m->q, .na = m->na, .nb = m->nb, .verdict = m->verdict,
        };

        /* An amount reads as its difference ("+1.05 s"), as compare prints it. */
        if (m->info.floor > 0) {
                text_format_change(m, change, ci, mde, sizeof(change));
                f.change_text = g_strdup(change);
        }

        n->rep.findings = g_renew(struct nightly_finding, n->rep.findings, n->rep.n_findings + 1);
        n->rep.findings[n->rep.n_findings++] = f;
}

#define CONFIG_DIFF_LINES 60           /* options the report lists of a config difference */

/* The versions of kernels a (the baseline) and b from the kernel store,
 * and how their configurations differ when the store has both. */
static void kernel_facts(struct night *n, const char *a, const char *b, struct nightly_regression *g) {
        struct kstore_kernel *ka = NULL, *kb = NULL;
        struct kb_error err = { { 0 } };
        g_autofree char *ca = NULL, *cb = NULL;

        if (kstore_find(n->ks, a, &ka, &err) < 0)
                ka = NULL;
        if (kstore_find(n->ks, b, &kb, &err) < 0)
                kb = NULL;
        g->version_a = g_strdup(ka ? ka->version : NULL);
        g->version_b = g_strdup(kb ? kb->version : NULL);
        ca = kconfig_read(ka ? ka->config_path : NULL);
        cb = kconfig_read(kb ? kb->config_path : NULL);
        if (ca && cb)
                g->config_diff = kconfig_diff(ca, cb, CONFIG_DIFF_LINES, NULL);
        kstore_kernel_free(ka);
        kstore_kernel_free(kb);
}

/* What a kernel developer needs to act on a comparison that found a metric
 * worse: which run each side came from, the host and versions it ran on,
 * the commands that measure both again in one run and compare them (with
 * the run's measured settings, so a variant keeps its overrides), the rows
 * as kbench compare prints them, and the site's page. */
static int add_regression(struct night *n, const struct subject *s, const struct compare_view *v) {
        struct nightly_regression g = { .kernel = g_strdup(s->name), .baseline = g_strdup(n->cfg->baseline),
                                        .sel_a = g_strdup(v->sel_a), .sel_b = g_strdup(v->sel_b),
                                        .desc_a = g_strdup(v->desc_a), .desc_b = g_strdup(v->desc_b),
                                        .together = v->n_groups && v->groups[0].a.n_runs == 1 &&
                                                    v->groups[0].b.n_runs == 1 &&
                                                    v->groups[0].a.runs[0] == v->groups[0].b.runs[0] };
        json_t *sb = night_history_run_host(n->db, s->run, &g);
        char *rows = NULL;
        size_t len = 0;
        FILE *f;

        g.accel = g_strdup(n->accel);
        kernel_facts(n, n->cfg->baseline, s->store_name, &g);
        g.reproduce = sb ? nightly_reproduce(sb, n->cfg->baseline, s->store_name, s->run, n->cfg->alpha,
                                             n->cfg->noise)
                         : g_new0(char *, 1);
        json_decref(sb);
        f = open_memstream(&rows, &len);
        if (!f) {
                g.rows = NULL;
        } else {
                textcompare_print(v, &(struct textcompare_opts){ .width = TEXTCOMPARE_WIDTH }, f);
                fclose(f);
                g.rows = g_strdup(rows);
                free(rows);
        }
        if (n->cfg->base_url && n->cfg->publish_dir) {
                g_autofree char *page = page_compare_file(v->sel_a, v->sel_b);
                size_t bl = strlen(n->cfg->base_url);

                g.link = g_strdup_printf("%s%s%s", n->cfg->base_url,
                                         bl && n->cfg->base_url[bl - 1] == '/' ? "" : "/", page);
        }
        n->rep.regressions = g_renew(struct nightly_regression, n->rep.regressions, n->rep.n_regressions + 1);
        n->rep.regressions[n->rep.n_regressions++] = g;
        return 0;
}

/* The night and what it compared go into the store
 * (night_history_record), so the site can follow each regression from
 * night to night; the verdicts are loaded again from the cells there. Not
 * being able to record it is reported, not fatal: the night's report
 * stands. */
static void record_night(struct night *n) {
        struct kb_error err = { { 0 } };

        if (night_history_record(n->db, n->started_at, n->cfg->baseline, n->cfg->alpha, n->cfg->noise,
                                 n->night_compares, &err) < 0)
                night_add_error(n, "the night's comparisons are not recorded for the site: %s", err.msg);
}

/* The regressions of s that earlier nights reported and tonight's
 * comparison v no longer finds: their threads end tonight. */
static void add_fixed(struct night *n, const struct subject *s, const struct compare_view *v) {
        g_autoptr(GHashTable) threads = night_history_threads(n->db, s->name, n->started_at, g_get_host_name());
        g_autoptr(GHashTable) in = nightly_thread_inputs(v);
        GHashTableIter it;
        gpointer key, val;

        g_hash_table_iter_init(&it, threads);
        while (g_hash_table_iter_next(&it, &key, &val)) {
                struct nightly_fixed f;

                if (GPOINTER_TO_INT(g_hash_table_lookup(in, key)) != REGSTATE_CLEAR ||
                    !((const struct nightly_thread *)val)->open)
                        continue;
                f = (struct nightly_fixed){ g_strdup(s->name), g_strdup(n->cfg->baseline), g_strdup(key),
                                            g_strdup(v->sel_a), g_strdup(v->sel_b), nightly_thread_ids(val) };
                n->rep.fixed = g_renew(struct nightly_fixed, n->rep.fixed, n->rep.n_fixed + 1);
                n->rep.fixed[n->rep.n_fixed++] = f;
        }
}

/* A kernel measured tonight against the baseline measured beside it, in
 * its run: a verdict from cells measured together, interleaved. A run
 * without the baseline's cells (one an older kbench started, resumed
 * tonight) gives no verdict: the error says so. */
static int compare_subject(struct night *n, const struct subject *s, GPtrArray *compared, struct kb_error *err) {
        g_autofree char *a = g_strdup_printf("run:%" G_GINT64_FORMAT ":%s", s->run, n->cfg->baseline);
        g_autofree char *b = g_strdup_printf("run:%" G_GINT64_FORMAT ":%s", s->run, s->store_name);
        struct compare_view *v = NULL;
        int r = night_history_compare(n->db, a, b, n->cfg->alpha, n->cfg->noise, &v, err);

        if (r == -ENOENT) {
                night_add_error(n, "%s: run %" G_GINT64_FORMAT " holds no ok cell of the baseline %s, so no verdict "
                                "(a night compares cells measured together): %s", s->name, s->run, n->cfg->baseline,
                                err->msg);
                *err = (struct kb_error){ { 0 } };
                return 0;
        }
        if (r < 0)
                return r;
        /* A regression's rows say where its kernel instructions went. */
        if (v->worse && night_history_explain(n->db, v, err) < 0)
                night_add_error(n, "%s: where its change went is not known: %s", s->name, err->msg);
        g_ptr_array_add(compared, g_strdup_printf("%s %s", a, b));
        g_ptr_array_add(n->night_compares, g_strdup(s->name));
        g_ptr_array_add(n->night_compares, g_strdup(a));
        g_ptr_array_add(n->night_compares, g_strdup(b));
        if (v->worse)
                r = add_regression(n, s, v);
        add_fixed(n, s, v);
        if (r < 0) {
                compare_view_free(v);
                return error_setf(err, r, "nightly: out of memory");
        }
        for (size_t gi = 0; gi < v->n_groups; gi++)
                for (size_t i = 0; i < v->groups[gi].n_m; i++) {
                        const struct compare_metric *m = &v->groups[gi].m[i];
                        if (m->verdict == COMPARE_WORSE || m->verdict == COMPARE_BETTER)
                                add_finding(n, s, v, m);
                }
        if (v->n_groups == 0)
                night_add_error(n, "%s: nothing pairs with the baseline's cells in run %" G_GINT64_FORMAT, s->name,
                                s->run);
        /* A kernel's own failed cells are failures_of's; a baseline
         * without one ok cell leaves the kernel unjudged, which must not
         * read as "no regression". */
        for (size_t gi = 0; gi < v->n_groups; gi++)
                if (v->groups[gi].failed == COMPARE_FAILED_NO_OK_A)
                        night_add_error(n, "%s: %s: the baseline has no ok cell in run %" G_GINT64_FORMAT
                                        " (%zu failed: %s), nothing judged", s->name, v->groups[gi].spec, s->run,
                                        v->groups[gi].a.failed,
                                        v->groups[gi].a.failed_states ? v->groups[gi].a.failed_states : "");
        compare_view_free(v);
        return 0;
}

/* The failed cells of a subject, by the latest attempt of each cell. */
static int failures_of(struct night *n, const struct subject *s, struct kb_error *err) {
        struct nightly_failure f = { 0 };
        int r = night_history_failures(n->db, s->run, s->kernel_id, &f, err);

        if (r < 0 || !f.failed)
                return r;
        f.kernel = g_strdup(s->name);
        n->rep.failures = g_renew(struct nightly_failure, n->rep.failures, n->rep.n_failures + 1);
        n->rep.failures[n->rep.n_failures++] = f;
        return 0;
}

int night_step_compare(struct night *n, struct kb_error *err) {
        g_autoptr(GPtrArray) compared = g_ptr_array_new_with_free_func(g_free);
        const struct nightly_candidate *c = (const struct nightly_candidate *)(void *)n->cands->data;
        const char *base_id = NULL;
        int r = 0;

        for (guint k = 0; k < n->cands->len; k++)
                if (c[k].is_baseline)
                        base_id = c[k].kernel_id;
        for (guint i = 0; r >= 0 && i < n->subjects->len; i++) {
                const struct subject *s = &g_array_index(n->subjects, struct subject, i);

                /* The baseline measured beside a variant's kernels is the
                 * other side of their comparison, not a subject. */
                if (base_id && strcmp(s->kernel_id, base_id) == 0)
                        continue;
                r = failures_of(n, s, err);
                if (r >= 0)
                        r = compare_subject(n, s, compared, err);
        }
        if (r >= 0)
                record_night(n);
        g_ptr_array_add(compared, NULL);
        n->rep.compared = (char **)g_ptr_array_free(g_steal_pointer(&compared), FALSE);
        return r;
}

/* ---- bisect: tonight's regression between two kernels of a source ------ */

/* A subject's variant label: what its reported name adds to the store's. */
static char *subject_label(const struct subject *s) {
        size_t ln = strlen(s->name), ls = strlen(s->store_name);

        return ln > ls && strcmp(s->name + ln - ls, s->store_name) == 0 ? g_strndup(s->name, ln - ls) : NULL;
}

/* Bisect s's regression in the first source that yielded s's kernel at
 * s's settings. */
static int bisect_subject(struct night *n, const struct subject *s, struct kb_error *err) {
        struct nightly_bisection *b = g_new0(struct nightly_bisection, 1);
        g_autofree char *label = subject_label(s);
        g_autofree char *base_id = NULL;
        int r = night_history_kernel_id(n->db, n->cfg->baseline, &base_id, err);

        b->kernel = g_strdup(s->name);
        b->metric = g_strdup(n->cfg->bisect.metric);
        b->confirmed = -1;
        n->rep.bisection = b;
        for (size_t si = 0; r == 0 && si < n->cfg->n_sources; si++) {
                struct nightly_candidate c = { .source = si };
                struct nightly_variant v;
                struct run_settings o;
                struct nightly_bisect_in in;

                nightly_candidate_variant(n->cfg, &c, &v);
                if (g_strcmp0(v.label, label) != 0)
                        continue;
                night_opts(n, &v, &o);
                in = (struct nightly_bisect_in){ .cfg = n->cfg, .g = &n->g, .s = n->s, .ops = n->ops,
                                                 .events = n->o->events,
                                                 .hosts = n->o->hosts, .baseline_id = base_id,
                                                 .source = si, .label = v.label, .kernel_id = s->kernel_id,
                                                 .run = &o, .deadline_at = n->deadline_at };
                r = nightly_bisect_source(&in, b, err);
        }
        if (r == 0)
                b->why = g_strdup("no source's history holds it (kernels imported before histories were kept "
                                  "are not listed)");
        return r < 0 ? r : 0;
}

/* One bisection a night, of the first kernel whose comparison found the
 * configured metric worse: each costs rounds of cells the night may not
 * have. */
int night_step_bisect(struct night *n, struct kb_error *err) {
        if (!n->cfg->bisect.metric)
                return 0;
        for (guint i = 0; i < n->subjects->len; i++) {
                const struct subject *s = &g_array_index(n->subjects, struct subject, i);

                for (size_t k = 0; k < n->rep.n_findings; k++) {
                        const struct nightly_finding *f = &n->rep.findings[k];

                        if (f->verdict == COMPARE_WORSE && strcmp(f->kernel, s->name) == 0 &&
                            strcmp(f->metric, n->cfg->bisect.metric) == 0) {
                                int r = bisect_subject(n, s, err);

                                n->rep.bisection->steps = night_history_bisection_steps(n->db, n->rep.bisection->id);
                                return r;
                        }
                }
        }
        return 0;
}

/* ---- detect: change points over history ------------------------------- */

/* Enough permutations that the configured p-value can be reached at all
 * (the smallest p of R permutations is 1 / (R + 1)). */
static struct changepoint_params cp_params(const struct nightly_config *cfg) {
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        double want = ceil(2.0 / cfg->cp_p_value) - 1;

        p.p_threshold = cfg->cp_p_value;
        p.min_rel_change = cfg->cp_min_magnitude;
        p.window = MIN((size_t)cfg->cp_window, 1024);
        p.min_size = MIN((size_t)3, p.window / 2);
        p.permutations = (size_t)MIN(100000, MAX(199, want));
        p.confirm = (size_t)cfg->cp_confirm;
        return p;
}

/* A history's power at a change point: the step between the points
 * before it and those after that Welch's test would show with 80 % power
 * at the detector's p-value, as a fraction of the level before. Each
 * point is one run's mean, so its scatter is the runs' offsets as much as
 * the cells'. */
static double history_mde(const double *v, size_t len, size_t at, double p_value) {
        struct stats_summary before, after;

        stats_summarize(v, at, &before);
        stats_summarize(v + at, len - at, &after);
        return stats_mde(&before, &after, p_value, 0.8);
}

static void detect_series(struct night *n, const char *workload, const char *metric, const GArray *pts) {
        struct changepoint_params p = cp_params(n->cfg);
        size_t off = pts->len > p.window ? pts->len - p.window : 0, len = pts->len - off, count = 0;
        g_autofree double *v = g_new(double, len + 1);
        struct changepoint *cps = NULL;

        size_t len_before = 0;

        for (size_t i = 0; i < len; i++) {
                v[i] = g_array_index(pts, struct night_point, off + i).v;
                len_before += !is_tonight(n, g_array_index(pts, struct night_point, off + i).run);
        }
        if (len < 2 * p.min_size || changepoint_detect(v, len, &p, &cps, &count) < 0)
                return;
        for (size_t i = 0; i < count; i++) {
                const struct night_point *at = &g_array_index(pts, struct night_point, off + cps[i].index);
                const struct night_point *before = &g_array_index(pts, struct night_point, off + cps[i].index - 1);
                struct nightly_change c;

                if (!nightly_change_is_news(cps[i].index, len_before, cps[i].provisional, p.min_size, p.confirm))
                        continue;
                c = (struct nightly_change){
                        .metric = g_strdup(metric), .workload = g_strdup(workload), .kernel = g_strdup(at->kernel),
                        .before = g_strdup(before->kernel), .run = at->run, .rel_change = cps[i].rel_change,
                        .p = cps[i].p, .provisional = cps[i].provisional,
                        .worse = metrics_direction(metric) * cps[i].rel_change < 0,
                        .mde = history_mde(v, len, cps[i].index, p.p_threshold),
                };
                n->rep.changes = g_renew(struct nightly_change, n->rep.changes, n->rep.n_changes + 1);
                n->rep.changes[n->rep.n_changes++] = c;
        }
        free(cps);
}

/* One workload's history as one variant (the base settings, or a
 * source's overrides) on the night's host h: every (run, kernel) with ok
 * cells of that fingerprint is a point, in run order; a variant's points
 * are named with its label (results/query.c). Each host is its own
 * history, as each is its own comparison. */
static int history_of(struct night *n, size_t w, const struct nightly_variant *v, guint h, struct kb_error *err) {
        g_autofree char *fp = night_fingerprint(n, w, v, h);
        struct night_series *series = NULL;
        int r = night_history_series(n->db, fp, &series, err);

        for (guint i = 0; r >= 0 && i < series->metrics->len; i++)
                detect_series(n, n->cfg->workload_specs[w], series->metrics->pdata[i],
                              g_hash_table_lookup(series->points, series->metrics->pdata[i]));
        night_series_free(series);
        return r;
}

int night_step_changepoints(struct night *n, struct kb_error *err) {
        g_autoptr(GArray) variants = g_array_new(FALSE, TRUE, sizeof(struct nightly_variant));
        const struct nightly_variant base = { 0 };
        int r = 0;

        if (n->runs->len == 0)
                return 0;
        /* The base settings first, then each source's variant once. */
        g_array_append_val(variants, base);
        for (size_t si = 0; si < n->cfg->n_sources; si++) {
                struct nightly_candidate c = { .source = si };
                struct nightly_variant v;
                int seen = 0;

                nightly_candidate_variant(n->cfg, &c, &v);
                for (guint i = 0; i < variants->len && !seen; i++)
                        seen = nightly_variant_equal(&g_array_index(variants, struct nightly_variant, i), &v);
                if (!seen)
                        g_array_append_val(variants, v);
        }
        for (size_t w = 0; r >= 0 && n->cfg->workload_specs[w]; w++)
                for (guint i = 0; r >= 0 && i < variants->len; i++)
                        for (guint h = 0; r >= 0 && h < n->hosts->len; h++)
                                r = history_of(n, w, &g_array_index(variants, struct nightly_variant, i), h, err);
        return r;
}

