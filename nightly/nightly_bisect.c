/* nightly/nightly_bisect.c: a night's bisection (see nightly_bisect.h). The
 * marks come from the same comparison the night makes (decide/pairing.c
 * over the baseline and the kernel in the kernel's latest nightly run); the
 * bisection is bisect/bisect.c's, embedded: quiet, under the night's lock. */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "common/util.h"
#include "bisect/bisect.h"
#include "nightly/nightly.h"
#include "nightly/nightly_bisect.h"
#include "nightly/nightly_sources.h"
#include "report/compare.h"
#include "report/metrics.h"
#include "decide/pairing.h"
#include "results/query.h"
#include "workloads/workload.h"


/* The canonical spec of a -w text, or NULL when it does not parse. */
static char *canonical(const char *text) {
        struct workload_spec *spec = NULL;
        struct kb_error e = { { 0 } };
        char *out;

        if (workload_spec_parse(text, &spec, &e) < 0)
                return NULL;
        out = g_strdup(spec->text);
        workload_spec_free(spec);
        return out;
}

int nightly_bisect_check(const struct nightly_config *cfg, struct kb_error *err) {
        const struct nightly_bisect_config *b = &cfg->bisect;
        struct metrics_info info;

        if (!b->metric)
                return 0;
        if (metrics_lookup(b->metric, &info) < 0 || !metrics_verdict(b->metric))
                return error_setf(err, -EINVAL, "bisect.metric: %.128s is not a metric that gets a verdict (kbench "
                                  "compare --all lists them)", b->metric);
        if (b->workload) {
                g_autofree char *want = canonical(b->workload);

                for (size_t i = 0; want && cfg->workload_specs[i]; i++)
                        if (strcmp(cfg->workload_specs[i], want) == 0)
                                return 0;
                return error_setf(err, -EINVAL, "bisect.workload: '%.128s' is not one of workloads", b->workload);
        }
        return 0;
}

size_t nightly_bisect_good_end(const enum nightly_bisect_mark *marks, size_t bad, const char **ret_why) {
        for (size_t i = bad; i-- > 0;) {
                if (marks[i] == NIGHTLY_BISECT_UNMEASURED)
                        continue;
                if (marks[i] == NIGHTLY_BISECT_GOOD)
                        return i;
                *ret_why = "the kernel before it was worse already: the regression is older than tonight";
                return SIZE_MAX;
        }
        *ret_why = "no kernel before it in its source was measured";
        return SIZE_MAX;
}

/* What run's comparison with the baseline measured beside the kernel in it
 * says of the metric in the workload's group: its verdict, or UNMEASURED
 * without a value (or without the baseline in that run). */
static int mark_in_run(const struct nightly_bisect_in *in, int64_t run, const char *name, const char *spec,
                       enum nightly_bisect_mark *ret, struct kb_error *err) {
        g_autofree char *a = g_strdup_printf("run:%" PRId64 ":%s", run, in->cfg->baseline);
        g_autofree char *b = g_strdup_printf("run:%" PRId64 ":%s", run, name);
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        struct compare_options o = { .a = a, .b = b, .alpha = in->cfg->alpha, .noise = in->cfg->noise };
        struct compare_view *v = NULL;
        int r;

        g_ptr_array_add(ignored, NULL);
        *ret = NIGHTLY_BISECT_UNMEASURED;
        r = pairing_compare_load(in->s->db, &o, ignored, &v, err);
        if (r == -ENOENT) {
                *err = (struct kb_error){ { 0 } };
                return 0;
        }
        if (r < 0)
                return r;
        for (size_t gi = 0; gi < v->n_groups; gi++) {
                if (strcmp(v->groups[gi].spec, spec) != 0)
                        continue;
                for (size_t i = 0; i < v->groups[gi].n_m; i++) {
                        const struct compare_metric *m = &v->groups[gi].m[i];

                        if (strcmp(m->name, in->cfg->bisect.metric) == 0 && m->na && m->nb)
                                *ret = m->verdict == COMPARE_WORSE ? NIGHTLY_BISECT_WORSE : NIGHTLY_BISECT_GOOD;
                }
        }
        compare_view_free(v);
        return 0;
}

/* Whether the run is one of the nights' at this source's settings: tagged
 * nightly, with this source's variant label (or none). */
static int nightly_run_of(const struct nightly_bisect_in *in, int64_t id) {
        struct query_run *run = NULL;
        json_auto_t *settings = NULL;
        const char *label;
        int yes = 0;

        if (query_run(in->s->db, id, &run, NULL) < 0)
                return 0;
        settings = json_loads(run->settings_json, 0, NULL);
        label = json_string_value(json_object_get(settings, "variant"));
        yes = run->tag && strcmp(run->tag, NIGHTLY_TAG) == 0 && g_strcmp0(label, in->label) == 0;
        query_runs_free(run, 1);
        return yes;
}

/* A kernel's mark: the baseline is good; another kernel is what its latest
 * nightly run's comparison with the baseline says. */
static int mark_of(const struct nightly_bisect_in *in, const char *kernel_id, const char *spec,
                   enum nightly_bisect_mark *ret, struct kb_error *err) {
        g_autofree int64_t *ids = NULL;
        struct kstore_kernel *k = NULL;
        struct kb_error ignored = { { 0 } };
        size_t n = 0;
        int r;

        *ret = NIGHTLY_BISECT_UNMEASURED;
        if (strcmp(kernel_id, in->baseline_id) == 0 && !in->label) {
                *ret = NIGHTLY_BISECT_GOOD;
                return 0;
        }
        if (kstore_find(in->s->ks, kernel_id, &k, &ignored) < 0)
                return 0;
        r = query_kernel_runs(in->s->db, kernel_id, &ids, &n, err);
        for (size_t i = n; r >= 0 && i-- > 0 && *ret == NIGHTLY_BISECT_UNMEASURED;)
                if (nightly_run_of(in, ids[i]))
                        r = mark_in_run(in, ids[i], k->name, spec, ret, err);
        kstore_kernel_free(k);
        return r;
}

/* The store names of history[lo..hi], one per image (a file yielded again
 * as the same image is one candidate). NULL-terminated (g_strfreev). */
static char **names_of(const struct nightly_bisect_in *in, const struct nightly_history *h, size_t lo, size_t hi,
                       struct kb_error *err) {
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        const char *last = NULL;

        for (size_t i = lo; i <= hi; i++) {
                struct kstore_kernel *k = NULL;

                if (last && strcmp(last, h[i].kernel_id) == 0)
                        continue;
                if (kstore_find(in->s->ks, h[i].kernel_id, &k, err) < 0)
                        return NULL;
                g_ptr_array_add(names, g_strdup(k->name));
                kstore_kernel_free(k);
                last = h[i].kernel_id;
        }
        g_ptr_array_add(names, NULL);
        return (char **)g_ptr_array_free(g_steal_pointer(&names), FALSE);
}

/* Run the bisection over names, good first; its answer into ret. */
static void run_bisection(const struct nightly_bisect_in *in, char **names, const char *workload,
                          struct nightly_bisection *ret) {
        struct bisect_opts o = { .run = *in->run, .workload = workload, .metric = in->cfg->bisect.metric,
                                 .kernels = names, .quiet = 1, .events = in->events, .hosts = in->hosts,
                                 .option_name = nightly_config_option_key };
        struct bisect_answer a = { 0 };
        struct kb_error err = { { 0 } };
        struct judge_opts j;
        int code;

        nightly_config_judge(in->cfg, &j);
        o.pilot = j.pilot;
        o.max_rounds = j.max_rounds;
        o.target = j.target;
        o.alpha = j.alpha;
        o.noise = j.noise;
        o.deadline_at = in->deadline_at;
        code = nightly_ops_or_real(in->ops)->bisect(&o, in->g, in->s, &a, &err);
        if (code != 0 && code != BISECT_EXIT_UNDECIDED) {
                ret->why = g_strdup(err.msg[0] ? err.msg : "the bisection failed");
                return;
        }
        ret->id = a.id;
        ret->outcome = g_strdup(a.outcome);
        ret->first_bad = g_strdup(a.first_bad);
        ret->confirmed = a.confirmed;
        ret->skipped_between = a.skipped_between;
        ret->where = a.where ? g_strsplit(g_strchomp(a.where), "\n", -1) : NULL;
        bisect_answer_clear(&a);
}

int nightly_bisect_source(const struct nightly_bisect_in *in, struct nightly_bisection *ret, struct kb_error *err) {
        const char *workload = in->cfg->bisect.workload ? in->cfg->bisect.workload : in->cfg->workloads[0];
        g_autofree char *spec = canonical(workload);
        g_autofree enum nightly_bisect_mark *marks = NULL;
        struct nightly_history *h = NULL;
        size_t n = 0, bad = SIZE_MAX, good;
        const char *why = NULL;
        int r = nightly_sources_history(in->cfg, in->g->home, in->source, &h, &n, err);

        for (size_t i = 0; r >= 0 && i < n; i++)
                if (strcmp(h[i].kernel_id, in->kernel_id) == 0)
                        bad = i;
        if (r < 0 || bad == SIZE_MAX || !spec) {
                nightly_history_free(h, n);
                return r < 0 ? r : 0;
        }
        /* Walk back only as far as the nearest measured kernel. */
        marks = g_new0(enum nightly_bisect_mark, bad + 1);
        for (size_t i = bad; r >= 0 && i-- > 0;) {
                r = mark_of(in, h[i].kernel_id, spec, &marks[i], err);
                if (marks[i] != NIGHTLY_BISECT_UNMEASURED)
                        break;
        }
        good = r >= 0 ? nightly_bisect_good_end(marks, bad, &why) : SIZE_MAX;
        if (r >= 0 && good == SIZE_MAX)
                ret->why = g_strdup(why);
        else if (r >= 0 && nightly_ops_or_real(in->ops)->now() >= in->deadline_at && in->deadline_at > 0)
                ret->why = g_strdup("the night's deadline has passed");
        else if (r >= 0) {
                struct kb_error nerr = { { 0 } };
                g_auto(GStrv) names = names_of(in, h, good, bad, &nerr);

                if (!names)
                        ret->why = g_strdup(nerr.msg);
                else {
                        struct nightly_bisect_event ev;

                        ret->good = g_strdup(names[0]);
                        ret->candidates = g_strv_length(names);
                        ev = (struct nightly_bisect_event){ .metric = in->cfg->bisect.metric, .workload = workload,
                                                            .good = names[0], .bad = names[ret->candidates - 1],
                                                            .candidates = ret->candidates };
                        kb_emit(in->events, &(struct kb_event){ .kind = KB_EVENT_NIGHT_BISECT, .night_bisect = &ev });
                        run_bisection(in, names, workload, ret);
                }
        }
        nightly_history_free(h, n);
        return r < 0 ? r : 1;
}
