/* decide/pairing.c: loading a comparison the way `kbench compare` pairs it,
 * shared by compare, nightly and the site so all judge the same cells
 * alike: by kernel name from a run that holds both sides, by run or tag as
 * selected (see pairing.h). */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "decide/pairing.h"
#include "report/text.h"
#include "settings/runopts.h"

/* The settings two groups differ in (appended to names, borrowed from the
 * keys), and how many; -1 when they may not be paired across: a setting
 * kept apart differs (the workload's own parameters, dd:size=512M against
 * dd:size=1G, are another measurement, not a setting to compare), or a
 * cell's params were unreadable. */
static int across(const struct pairkey *a, const struct pairkey *b, GPtrArray *names) {
        g_autoptr(GPtrArray) found = g_ptr_array_new();
        size_t n = pairkey_diff(a, b, found, NULL);

        for (guint i = 0; i < found->len; i++) {
                const char *k = g_ptr_array_index(found, i);

                if (runopts_key_apart(k) || strcmp(k, PAIRKEY_PARAMS_RAW) == 0)
                        return -1;
        }
        for (guint i = 0; names && i < found->len; i++)
                g_ptr_array_add(names, g_ptr_array_index(found, i));
        return (int)n;
}

/* The settings that keep A's groups apart from their nearest group of the
 * same workload on B (the fewest differing settings), each once. */
static void differing_settings(const struct compare_view *v, GPtrArray *keys) {
        for (size_t i = 0; i < v->n_lonely; i++) {
                const struct compare_lonely *la = &v->lonely[i];
                const struct compare_lonely *best = NULL;
                int best_n = INT_MAX;
                g_autoptr(GPtrArray) found = g_ptr_array_new();

                if (la->side != 'A')
                        continue;
                for (size_t j = 0; j < v->n_lonely; j++) {
                        const struct compare_lonely *lb = &v->lonely[j];
                        int n;

                        if (lb->side != 'B' || strcmp(lb->workload, la->workload) != 0)
                                continue;
                        n = across(la->key, lb->key, NULL);
                        if (n > 0 && n < best_n) {
                                best_n = n;
                                best = lb;
                        }
                }
                if (!best)
                        continue;
                across(la->key, best->key, found);
                for (guint k = 0; k < found->len; k++) {
                        gboolean seen = FALSE;

                        for (guint m = 0; m < keys->len && !seen; m++)
                                seen = strcmp(g_ptr_array_index(keys, m), g_ptr_array_index(found, k)) == 0;
                        if (!seen)
                                g_ptr_array_add(keys, g_strdup(g_ptr_array_index(found, k)));
                }
        }
}

/* Selected by run or tag: when nothing pairs like with like, pair across
 * the settings that differ, as the selection asked (pairing.h). */
static int load_as_selected(struct db *db, struct compare_options *o, GPtrArray *ignored, struct compare_view **ret,
                            struct kb_error *err) {
        g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
        struct compare_view *v = NULL;
        int r;

        r = view_compare_load(db, o, &v, err);
        if (r < 0 || v->n_groups > 0)
                goto out;
        differing_settings(v, keys);
        if (keys->len == 0)
                goto out;
        compare_view_free(v);
        v = NULL;
        g_ptr_array_remove_index(ignored, ignored->len - 1);   /* the NULL end */
        for (guint k = 0; k < keys->len; k++)
                g_ptr_array_add(ignored, g_strdup(g_ptr_array_index(keys, k)));
        g_ptr_array_add(ignored, NULL);
        o->ignore_settings = (const char *const *)ignored->pdata;
        r = view_compare_load(db, o, &v, err);
out:
        if (r >= 0)
                *ret = v;
        return r;
}

static int is_name(const char *text) {
        struct compare_selector s;

        return compare_selector_parse(text, &s, NULL) == 0 && s.kind == COMPARE_SEL_KERNEL;
}

static int has(const int64_t *runs, size_t n, int64_t id) {
        for (size_t i = 0; i < n; i++)
                if (runs[i] == id)
                        return 1;
        return 0;
}

/* The view of o with each side named by kernel taken in run; NULL when a
 * side has no cells there (of the workload asked for). */
static int load_in_run(struct db *db, const struct compare_options *o, int64_t run, struct compare_view **ret,
                       struct kb_error *err) {
        g_autofree char *a = is_name(o->a) ? g_strdup_printf("run:%" PRId64 ":%s", run, o->a) : g_strdup(o->a);
        g_autofree char *b = is_name(o->b) ? g_strdup_printf("run:%" PRId64 ":%s", run, o->b) : g_strdup(o->b);
        struct compare_options in = *o;
        struct compare_view *v = NULL;
        int r;

        in.a = a;
        in.b = b;
        *ret = NULL;
        r = view_compare_load(db, &in, &v, err);
        if (r == -ENOENT) {
                *err = (struct kb_error){ { 0 } };
                return 0;
        }
        if (r < 0)
                return r;
        /* The answer names the selectors as given. */
        free(v->sel_a);
        free(v->sel_b);
        v->sel_a = strdup(o->a);
        v->sel_b = strdup(o->b);
        if (!v->sel_a || !v->sel_b) {
                compare_view_free(v);
                return error_setf(err, -ENOMEM, "out of memory");
        }
        *ret = v;
        return 0;
}

/* The latest run both sides can take cells from in which some group pairs
 * like with like (no setting differs but those the user ignores). OUT:
 * *ret (NULL: there is none), *ret_run. */
static int shared_run(struct db *db, const struct compare_options *o, struct compare_view **ret, int64_t *ret_run,
                      struct kb_error *err) {
        _cleanup_free_ int64_t *ra = NULL, *rb = NULL;
        size_t na = 0, nb = 0;
        int r = view_selector_runs(db, o->a, &ra, &na, err);

        if (r >= 0)
                r = view_selector_runs(db, o->b, &rb, &nb, err);
        *ret = NULL;
        for (size_t i = na; r >= 0 && i-- > 0;) {
                struct compare_view *v = NULL;

                if (!has(rb, nb, ra[i]))
                        continue;
                r = load_in_run(db, o, ra[i], &v, err);
                if (r >= 0 && v && v->n_groups > 0) {
                        *ret = v;
                        *ret_run = ra[i];
                        return 0;
                }
                compare_view_free(v);
        }
        return r < 0 ? r : 0;
}

/* The settings that keep the sides' groups apart, as the first lonely
 * group of A says them ("disk_mbps 0 | 20"), or NULL. */
static const char *apart(const struct compare_view *v) {
        for (size_t i = 0; i < v->n_lonely; i++)
                if (v->lonely[i].side == 'A' && v->lonely[i].differs)
                        return v->lonely[i].differs;
        return NULL;
}

static int by_name_line(struct compare_view *v, int64_t run) {
        return asprintf(&v->first, "by kernel name: run %" PRId64 ", the latest run that holds A and B with "
                        "identical settings (cells measured together)", run) < 0 ? -ENOMEM : 0;
}

/* No run holds both: no verdict, and the first line says why and what
 * would give one. */
static int refuse(struct compare_view *v) {
        const char *d = apart(v);

        v->no_verdict = 1;
        if (compare_judge(v) < 0)
                return -ENOMEM;
        return asprintf(&v->first, "no verdict: no run holds A and B with identical settings (A: %s; B: %s%s%s): "
                        "measure them together (kbench run -k A -k B), or kbench compare --across-runs judges "
                        "these runs, each side's mean carrying its run's offset", v->desc_a, v->desc_b,
                        d ? "; their cells differ in " : "", d ? d : "") < 0 ? -ENOMEM : 0;
}

static int by_ratio(const void *x, const void *y) {
        const struct compare_metric *a = *(const struct compare_metric *const *)x;
        const struct compare_metric *b = *(const struct compare_metric *const *)y;
        double ra = a->mde / a->mde_one_run, rb = b->mde / b->mde_one_run;

        return (ra > rb) - (ra < rb);
}

/* A metric's MDE in its terms: a percentage, or an amount's difference. */
static void fmt_mde(const struct compare_metric *m, double mde, char *buf, size_t size) {
        char num[32];

        if (m->info.floor > 0) {
                text_format_num(mde * fabs(m->sa.mean), num, sizeof(num));
                snprintf(buf, size, "%s %s", num, m->unit ? m->unit : "");
        } else
                text_format_pct(mde, 0, buf, size);
}

/* --across-runs: the first line states the power it costs, the median
 * over the judged ratio metrics (else the amounts) of the MDE with each
 * run's offset against what one run would give, with that metric as the
 * example. */
static int across_line(struct compare_view *v) {
        g_autoptr(GPtrArray) ms = g_ptr_array_new();
        const struct compare_metric *mid;
        char with[48], without[48];

        if (v->n_groups == 0) {
                g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
                g_autofree char *names = NULL;
                const char *d = apart(v);

                differing_settings(v, keys);
                g_ptr_array_add(keys, NULL);
                names = g_strjoinv(",", (char **)keys->pdata);
                return asprintf(&v->first, "across runs: nothing pairs: %s%s%s%s%s", d ? "the cells differ in " : "",
                                d ? d : "no workload in common", *names ? " (--ignore-setting " : "", names,
                                *names ? " pairs across it)" : "") < 0 ? -ENOMEM : 0;
        }
        /* The ratio metrics first: an amount's MDE is mostly its floor,
         * which no run offset moves. */
        for (int amounts = 0; amounts < 2 && ms->len == 0; amounts++)
                for (size_t i = 0; i < v->n_groups; i++)
                        for (size_t j = 0; j < v->groups[i].n_m; j++) {
                                const struct compare_metric *m = &v->groups[i].m[j];

                                if (m->judged && (m->info.floor > 0) == amounts && isfinite(m->mde) &&
                                    isfinite(m->mde_one_run) && m->mde_one_run > 0)
                                        g_ptr_array_add(ms, (gpointer)m);
                        }
        if (ms->len == 0)
                return asprintf(&v->first, "across runs (A: %s; B: %s): each side's mean carries its run's offset",
                                v->desc_a, v->desc_b) < 0 ? -ENOMEM : 0;
        qsort(ms->pdata, ms->len, sizeof(gpointer), by_ratio);
        mid = g_ptr_array_index(ms, ms->len / 2);
        fmt_mde(mid, mid->mde, with, sizeof(with));
        fmt_mde(mid, mid->mde_one_run, without, sizeof(without));
        return asprintf(&v->first, "across runs (A: %s; B: %s): each side's mean carries its run's offset, so the "
                        "smallest change a verdict sees (mde) is %.1fx what one run would give (the median: %s %s, %s "
                        "within one run)", v->desc_a, v->desc_b,
                        mid->mde / mid->mde_one_run, mid->name, with, without) < 0 ? -ENOMEM : 0;
}

int pairing_compare_load(struct db *db, struct compare_options *o, GPtrArray *ignored,
                         struct compare_view **ret, struct kb_error *err) {
        struct compare_view *v = NULL;
        int64_t run = 0;
        int r;

        o->ignore_settings = (const char *const *)ignored->pdata;
        if (o->all_runs || !(is_name(o->a) || is_name(o->b)))
                return load_as_selected(db, o, ignored, ret, err);
        if (o->across_runs) {
                r = view_compare_load(db, o, &v, err);
                if (r >= 0 && v->n_groups && v->groups[0].a.n_runs == 1 && v->groups[0].b.n_runs == 1 &&
                    v->groups[0].a.runs[0] == v->groups[0].b.runs[0])
                        r = by_name_line(v, v->groups[0].a.runs[0]);
                else if (r >= 0)
                        r = across_line(v);
                goto out;
        }
        r = shared_run(db, o, &v, &run, err);
        if (r >= 0 && v)
                r = by_name_line(v, run);
        else if (r >= 0) {
                r = view_compare_load(db, o, &v, err);
                if (r >= 0)
                        r = refuse(v);
        }
out:
        if (r == -ENOMEM)
                r = error_setf(err, r, "out of memory");
        if (r < 0) {
                compare_view_free(v);
                return r;
        }
        *ret = v;
        return 0;
}
