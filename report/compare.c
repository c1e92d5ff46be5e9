/* report/compare.c: the statistics and verdicts of the comparison view (see
 * compare.h). Pure functions over the view's data; loading is report/view.c's, laying out the
 * renderers'. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/parse.h"
#include "common/util.h"
#include "report/compare.h"

#define COMPARE_POWER 0.8
#define COMPARE_LEVEL 0.95
/* Of each side of an amount, Yuen's test cuts this share from each end:
 * one value per end of 5-9 cells. */
#define COMPARE_TRIM 0.2
#define COMPARE_MAX_N 1000

static void side_free(struct compare_side *s) {
        free(s->failed_states);
        free(s->runs);
        free(s->cells);
}

struct compare_view *compare_view_free(struct compare_view *v) {
        if (!v)
                return NULL;
        explain_view_free(v->explain);
        free(v->kernels.upstream_a);
        free(v->kernels.upstream_b);
        g_strfreev(v->kernels.config_diff);
        for (size_t i = 0; i < v->n_groups; i++) {
                struct compare_group *g = &v->groups[i];

                for (size_t k = 0; k < g->n_m; k++) {
                        free(g->m[k].name);
                        free(g->m[k].unit);
                        free(g->m[k].a);
                        free(g->m[k].b);
                }
                free(g->m);
                pairkey_unref(g->key);
                free(g->workload);
                free(g->spec);
                for (size_t k = 0; k < ELEMENTSOF(g->notes); k++)
                        free(g->notes[k]);
                side_free(&g->a);
                side_free(&g->b);
        }
        free(v->groups);
        for (size_t i = 0; i < v->n_lonely; i++) {
                pairkey_unref(v->lonely[i].key);
                free(v->lonely[i].workload);
                free(v->lonely[i].spec);
                free(v->lonely[i].differs);
                side_free(&v->lonely[i].s);
        }
        free(v->lonely);
        for (size_t i = 0; v->ignored && v->ignored[i]; i++)
                free(v->ignored[i]);
        free(v->ignored);
        free(v->ignored_found);
        free(v->metric_glob);
        free(v->workload);
        free(v->sel_a);
        free(v->sel_b);
        free(v->desc_a);
        free(v->desc_b);
        free(v->kernel_a);
        free(v->kernel_b);
        free(v->first);
        free(v);
        return NULL;
}

int compare_selector_parse(const char *text, struct compare_selector *ret, struct kb_error *err) {
        struct compare_selector s = { 0 };
        const char *rest, *colon;
        char num[24];

        if (!text[0] || strlen(text) >= sizeof(s.kernel))
                goto bad;
        if (strncmp(text, "run:", 4) == 0) {
                rest = text + 4;
                colon = strchr(rest, ':');
                if (!colon)
                        colon = rest + strlen(rest);
                if (colon == rest || (size_t)(colon - rest) >= sizeof(num))
                        goto bad;
                memcpy(num, rest, (size_t)(colon - rest));
                num[colon - rest] = '\0';
                if (parse_i64(num, &s.run) < 0 || s.run <= 0)
                        goto bad;
                s.kind = COMPARE_SEL_RUN;
                if (*colon) {
                        if (!colon[1] || strchr(colon + 1, ':'))
                                goto bad;        /* a kernel name holds no ':' */
                        snprintf(s.kernel, sizeof(s.kernel), "%s", colon + 1);
                }
        } else if (strncmp(text, "tag:", 4) == 0) {
                /* A tag may hold ':' (a timestamp), a kernel name never:
                 * the kernel is what follows the last one. Whether the
                 * whole rest is a tag instead is the store's to say
                 * (view.c tries it first). */
                rest = text + 4;
                colon = strrchr(rest, ':');
                if (!colon)
                        colon = rest + strlen(rest);
                if (colon == rest || (size_t)(colon - rest) >= sizeof(s.tag))
                        goto bad;
                memcpy(s.tag, rest, (size_t)(colon - rest));
                s.tag[colon - rest] = '\0';
                s.kind = COMPARE_SEL_TAG;
                if (*colon) {
                        if (!colon[1])
                                goto bad;
                        snprintf(s.kernel, sizeof(s.kernel), "%s", colon + 1);
                }
        } else {
                if (strchr(text, ':'))
                        goto bad;        /* no kernel name holds one, labelled or not */
                s.kind = COMPARE_SEL_KERNEL;
                snprintf(s.kernel, sizeof(s.kernel), "%s", text);
        }
        *ret = s;
        return 0;
bad:
        return error_setf(err, -EINVAL, "bad selector '%.64s' (a kernel name, run:ID, run:ID:KERNEL or "
                          "tag:NAME[:KERNEL])", text);
}

/* The variance one run's offset adds to its side's mean. The host's speed
 * is taken as a random walk plus independent noise: within a run of n
 * cells the walk's steps (variance w) show in the mean squared successive
 * difference d2 = w + 2 c and in the variance s2 = c + w (n + 1) / 6, so
 * w = (2 s2 - d2) / ((n + 1) / 3 - 1), and two runs one run apart drift by
 * n w. The offset is never taken narrower than the cells' own scatter s2,
 * since runs may lie days apart. x in run order (the cells' order). */
static double run_offset_var(const double *x, size_t n, double s2) {
        double d2 = 0, w;

        /* Below six cells the walk's estimate is mostly noise (at n = 3 it
         * is 9 (2 s2 - d2)): the floor alone. */
        if (n < 6)
                return s2;
        for (size_t i = 1; i < n; i++)
                d2 += (x[i] - x[i - 1]) * (x[i] - x[i - 1]);
        d2 /= (double)(n - 1);
        w = (2 * s2 - d2) / (((double)n + 1) / 3 - 1);
        return fmax(s2, (double)n * fmax(w, 0));
}

/* x's values moved away from center so that a test dividing their
 * variance by n sees s2 / n + the run's offset (run_offset_var). Welch's
 * test and Fieller's interval depend on the values only through mean,
 * variance and n, so this is exact for both with center the mean; Yuen's
 * test on trimmed means, with center the trimmed mean, sees its squared
 * standard error grow by the same factor. Caller frees. */
static double *with_run_offset(const double *x, size_t n, const struct stats_summary *sm, double center) {
        double *y = malloc((n + 1) * sizeof(*y)), s2 = sm->sd * sm->sd, k = 1;

        if (s2 > 0)
                k = sqrt(1 + (double)n * run_offset_var(x, n, s2) / s2);
        for (size_t i = 0; y && i < n; i++)
                y[i] = center + (x[i] - center) * k;
        return y;
}

/* Welch's test and interval of x's means, or Yuen's of their trimmed
 * means (trim > 0: m->trimmed_a/b set), with each side's run offset when
 * m has one. */
static void amount_one(const struct compare_metric *m, double trim, struct stats_test *ret_test,
                       struct stats_interval *ret_diff) {
        _cleanup_free_ double *ya = NULL, *yb = NULL;
        const double *xa = m->a, *xb = m->b;
        double ca = trim > 0 ? m->trimmed_a : m->sa.mean, cb = trim > 0 ? m->trimmed_b : m->sb.mean;

        if (trim > 0 && !(isfinite(ca) && isfinite(cb)))
                return;
        if (m->run_offset) {
                ya = with_run_offset(m->a, m->na, &m->sa, ca);
                yb = with_run_offset(m->b, m->nb, &m->sb, cb);
                if (ya && yb) {
                        xa = ya;
                        xb = yb;
                }
        }
        if (trim > 0) {
                stats_yuen(xa, m->na, xb, m->nb, trim, COMPARE_LEVEL, ret_test, ret_diff);
        } else {
                stats_welch(xa, m->na, xb, m->nb, ret_test);
                stats_diff_ci(xa, m->na, xb, m->nb, COMPARE_LEVEL, ret_diff);
        }
}

static void trimmed_means(struct compare_metric *m) {
        double se2;

        m->trimmed_a = m->trimmed_b = NAN;
        if (stats_trimmed(m->a, m->na, COMPARE_TRIM, &m->trimmed_a, &se2) < 0 ||
            stats_trimmed(m->b, m->nb, COMPARE_TRIM, &m->trimmed_b, &se2) < 0)
                m->trimmed_a = m->trimmed_b = NAN;
}

void compare_amount_test(struct compare_metric *m) {
        struct stats_test w = { NAN, NAN, NAN, 0 }, y = w;
        struct stats_interval dw = { NAN, NAN, NAN }, dy = dw;

        trimmed_means(m);
        amount_one(m, 0, &w, &dw);
        /* Below 5 cells a side nothing is trimmed: Yuen's test is Welch's. */
        if (floor(COMPARE_TRIM * (double)m->na) >= 1 || floor(COMPARE_TRIM * (double)m->nb) >= 1)
                amount_one(m, COMPARE_TRIM, &y, &dy);
        /* The test with the smaller p decides, its p doubled (Bonferroni
         * over the two): Welch's keeps its power on a steady plant of
         * widely scattered amounts, Yuen's on one with a stray cell. */
        m->trimmed = isfinite(y.p) && !(w.p <= y.p);
        m->ttest = m->trimmed ? y : w;
        m->diff = m->trimmed ? dy : dw;
        if (!isfinite(m->diff.estimate) && m->na && m->nb)
                m->diff.estimate = m->sb.mean - m->sa.mean;
        if (isfinite(m->ttest.p) && isfinite(y.p))
                m->ttest.p = fmin(1, 2 * m->ttest.p);
}

void compare_amount_test_alone(struct compare_metric *m, int trimmed) {
        struct stats_test t = { NAN, NAN, NAN, 0 };
        struct stats_interval d = { NAN, NAN, NAN };

        trimmed_means(m);
        amount_one(m, trimmed ? COMPARE_TRIM : 0, &t, &d);
        m->trimmed = trimmed && isfinite(t.p);
        m->ttest = t;
        m->diff = d;
        if (!isfinite(m->diff.estimate) && m->na && m->nb)
                m->diff.estimate = m->sb.mean - m->sa.mean;
}

void compare_tail_test(struct compare_metric *m) {
        double p0, threshold;

        m->tail_a = m->tail_b = 0;
        if (!m->na || !m->nb || !isfinite(m->sa.median))
                return;
        /* Longer than twice A's median, and by more than the tail: a
         * phase whose halts chain (I/O at depth 1) has long ones anyway. */
        threshold = m->sa.median + fmax(m->info.tail, m->sa.median);
        for (size_t i = 0; i < m->na; i++)
                m->tail_a += m->a[i] > threshold;
        for (size_t i = 0; i < m->nb; i++)
                m->tail_b += m->b[i] > threshold;
        /* One stalled cell in A is a hiccup as often as not; two say the
         * host hiccups more than COMPARE_TAIL_STRAY, at A's own rate. */
        p0 = m->tail_a >= COMPARE_TAIL_MIN_CELLS ? fmax(COMPARE_TAIL_STRAY, (double)m->tail_a / (double)m->na)
                                                 : COMPARE_TAIL_STRAY;
        m->ttest = (struct stats_test){ (double)m->tail_b, NAN, stats_binom_sf(m->tail_b, m->nb, p0), 0 };
        m->trimmed = 0;
}

double compare_band(const struct compare_metric *m, double noise) {
        return fmax(m->info.floor, noise * fabs(m->sa.mean));
}

/* The repeats a side needs for a change of effect (a fraction of
 * mean(a)) to get a verdict with COMPARE_POWER: the part of it beyond the
 * band (band_rel, the band over |mean(a)|) must stand out of the spread
 * cov. COMPARE_MAX_N + 1 when the change lies within the band (never a
 * verdict, whatever n), 0 when unknown. */
static size_t n_for(double effect, double band_rel, double cov, double alpha) {
        if (!isfinite(cov) || !isfinite(band_rel))
                return 0;
        if (effect <= band_rel)
                return COMPARE_MAX_N + 1;
        return stats_n_for_effect(cov, effect - band_rel, alpha, COMPARE_POWER, COMPARE_MAX_N);
}

/* What a verdict could have detected, from the summaries the tests use
 * (sa, sb: with the run offset when the sides come from different runs):
 * the smallest change whose whole interval clears the band (the noise
 * band, and an amount's floor) with COMPARE_POWER, i.e. Welch's MDE beyond
 * the band (a verdict needs the interval's near end past the band, so the
 * change it detects that often lies that much further); the same as a
 * difference for an amount, whose mean(a) may be 0; and the repeats for
 * 2 % and 5 %. Only for the metrics that can get a verdict (the power
 * computation is the costly part of a metric). (Welch's: an amount with
 * a stray cell may be seen by Yuen's test below it.) */
static void compare_power(struct compare_metric *m, const struct stats_summary *sa,
                          const struct stats_summary *sb, double alpha, double noise) {
        double band = compare_band(m, noise), mean_a = fabs(m->sa.mean), cov = NAN, welch;
        double band_rel = mean_a > 0 && isfinite(mean_a) ? band / mean_a : NAN;

        m->mde = NAN;
        m->mde_abs = NAN;
        m->mde_one_run = NAN;
        m->n_for_2 = m->n_for_5 = m->n_for_twice_band = 0;
        m->twice_band = NAN;
        if (!m->judged)
                return;
        if (m->na > 1 && m->nb > 1) {
                struct stats_summary unit_a = *sa;

                welch = stats_mde(sa, sb, alpha, COMPARE_POWER);
                m->mde = isfinite(welch) ? welch + band_rel : NAN;
                /* Across runs: what one run would have seen, for the
                 * answer's statement of what the offset costs. */
                if (m->run_offset)
                        m->mde_one_run = stats_mde(&m->sa, &m->sb, alpha, COMPARE_POWER) + band_rel;
                /* stats_mde over a mean of 1 is the detectable difference
                 * itself, defined when mean(a) is 0. */
                unit_a.mean = 1;
                if (m->info.floor > 0)
                        m->mde_abs = band + stats_mde(&unit_a, sb, alpha, COMPARE_POWER);
        }
        /* The spread both sides share: the root mean square of their CoVs. */
        if (isfinite(m->sa.cov) && isfinite(m->sb.cov))
                cov = sqrt((m->sa.cov * m->sa.cov + m->sb.cov * m->sb.cov) / 2);
        else if (isfinite(m->sa.cov))
                cov = m->sa.cov;
        m->n_for_2 = n_for(0.02, band_rel, cov, alpha);
        m->n_for_5 = n_for(0.05, band_rel, cov, alpha);
        /* An amount's 2 % of a mean near 0 lies within its floor: what a
         * reader can ask of it is a difference of two bands, as
         * --until-mde does. */
        if (m->info.floor > 0) {
                m->twice_band = 2 * band;
                m->n_for_twice_band = n_for(2 * band_rel, band_rel, cov, alpha);
        }
}

void compare_metric_stats(struct compare_metric *m, double alpha, double noise) {
        static const struct stats_test undefined = { NAN, NAN, NAN, 0 };
        _cleanup_free_ double *ia = NULL, *ib = NULL;
        const double *ta = m->a, *tb = m->b;
        struct stats_summary isa, isb;

        stats_summarize(m->a, m->na, &m->sa);
        stats_summarize(m->b, m->nb, &m->sb);
        isa = m->sa;
        isb = m->sb;
        if (m->run_offset && m->na && m->nb) {
                ia = with_run_offset(m->a, m->na, &m->sa, m->sa.mean);
                ib = with_run_offset(m->b, m->nb, &m->sb, m->sb.mean);
                if (ia && ib) {
                        ta = ia;
                        tb = ib;
                        stats_summarize(ia, m->na, &isa);
                        stats_summarize(ib, m->nb, &isb);
                }
        }
        m->change = m->na && m->nb && m->sa.mean != 0 ? m->sb.mean / m->sa.mean - 1 : NAN;
        m->ratio = (struct stats_interval){ m->change + 1, NAN, NAN };
        if (stats_ratio_ci(ta, m->na, tb, m->nb, COMPARE_LEVEL, &m->ratio) < 0)
                m->ratio = (struct stats_interval){ m->change + 1, NAN, NAN };
        m->trimmed_a = m->trimmed_b = NAN;
        if (m->info.floor > 0) {
                compare_amount_test(m);
                if (m->info.tail > 0)
                        compare_tail_test(m);
        } else {
                if (stats_diff_ci(ta, m->na, tb, m->nb, COMPARE_LEVEL, &m->diff) < 0)
                        m->diff = (struct stats_interval){ m->na && m->nb ? m->sb.mean - m->sa.mean : NAN, NAN,
                                                           NAN };
                if (stats_welch(ta, m->na, tb, m->nb, &m->ttest) < 0)
                        m->ttest = undefined;
        }
        if (stats_mann_whitney(m->a, m->na, m->b, m->nb, &m->mw) < 0)
                m->mw = undefined;
        m->mw_min_p = m->na && m->nb ? stats_mann_whitney_min_p(m->na, m->nb) : 1;
        /* An exact count that never varies on either side (requests, flushes
         * of a fixed workload) has no t test: its difference is what it
         * is, and the exact rank test says how sure a difference of every
         * cell is at these sizes. */
        if (m->info.floor > 0 && !(m->info.tail > 0) && !isfinite(m->ttest.p) && m->na > 1 && m->nb > 1 &&
            m->sa.sd == 0 && m->sb.sd == 0 && m->sa.mean != m->sb.mean)
                m->ttest = m->mw;
        compare_power(m, &isa, &isb, alpha, noise);
        m->q = NAN;
        m->verdict = m->judged ? COMPARE_SAME : COMPARE_INFO;
}

/* Judged, with values on both sides, and sizes at which a rank test can
 * reach alpha: the metrics whose Welch p enters the BH family. */
static int in_family(const struct compare_metric *m, double alpha) {
        return m->judged && !m->withheld && m->na && m->nb && m->mw_min_p <= alpha && isfinite(m->ttest.p);
}

/* What decide/verdict.c's rule reads of a metric: its statistics, with
 * an amount's band computed here, where its mean is. */
static void verdict_input(const struct compare_metric *m, double noise, struct verdict_in *ret) {
        enum verdict_direction d = m->info.direction == METRICS_HIGHER ? VERDICT_HIGHER :
                                   m->info.direction == METRICS_LOWER ? VERDICT_LOWER : VERDICT_NONE;

        *ret = (struct verdict_in){
                .judged = m->judged, .direction = d, .na = m->na, .nb = m->nb,
                .withheld = m->withheld != NULL, .mw_min_p = m->mw_min_p, .p = m->ttest.p,
                .ratio_lo = m->ratio.lo, .ratio_hi = m->ratio.hi, .floor = m->info.floor,
                .band = m->info.floor > 0 ? compare_band(m, noise) : NAN, .diff = m->diff.estimate,
                .diff_lo = m->diff.lo, .diff_hi = m->diff.hi, .tail = m->info.tail, .tail_a = m->tail_a,
                .tail_b = m->tail_b,
        };
}

enum compare_verdict compare_decide(const struct compare_metric *m, double q, double alpha, double noise) {
        struct verdict_in in;

        verdict_input(m, noise, &in);
        return verdict_decide(&in, q, alpha, noise);
}

/* One paired group's verdicts: BH over the group's family (its judged
 * metrics that can give a verdict), then each metric's verdict, the
 * group's counts and geometric mean. The family is the group, not the
 * view: one workload at one set of settings is one question, so a group's
 * verdicts do not depend on which other workloads the selectors or -w
 * brought in (docs/design.md, "kbench compare"). Returns 0 or -ENOMEM. */
static int judge_group(struct compare_group *g, double alpha, double noise) {
        size_t n = 0, k = 0;
        double logsum = 0, *p;

        for (size_t j = 0; j < g->n_m; j++)
                n += in_family(&g->m[j], alpha);
        p = calloc(n + 1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        for (size_t j = 0; j < g->n_m; j++)
                if (in_family(&g->m[j], alpha))
                        p[k++] = g->m[j].ttest.p;
        stats_bh_adjust(p, n, p);
        k = 0;
        g->worse = g->better = g->n_geomean = 0;
        for (size_t j = 0; j < g->n_m; j++) {
                struct compare_metric *m = &g->m[j];

                m->q = in_family(m, alpha) ? p[k++] : NAN;
                m->verdict = compare_decide(m, m->q, alpha, noise);
                g->worse += m->verdict == COMPARE_WORSE;
                g->better += m->verdict == COMPARE_BETTER;
                /* An amount near 0 (seconds waited) has no ratio worth a
                 * vote: 0.02 s against 1.05 s would outweigh every count. */
                if (m->judged && m->info.floor == 0 && m->sa.mean > 0 && m->sb.mean > 0 && isfinite(m->sa.mean) &&
                    isfinite(m->sb.mean)) {
                        double r = m->sb.mean / m->sa.mean;

                        logsum += log(m->info.direction == METRICS_LOWER ? 1 / r : r);
                        g->n_geomean++;
                }
        }
        g->geomean = g->n_geomean ? exp(logsum / (double)g->n_geomean) : NAN;
        free(p);
        return 0;
}

static const char why_apart[] = "A and B were not measured together (kbench compare --across-runs judges them "
                                "across runs)";

int compare_judge(struct compare_view *v) {
        v->worse = v->better = v->judged = 0;
        for (size_t i = 0; i < v->n_groups; i++) {
                struct compare_group *g = &v->groups[i];

                for (size_t j = 0; v->no_verdict && j < g->n_m; j++)
                        if (g->m[j].judged)
                                g->m[j].withheld = why_apart;

                if (judge_group(g, v->alpha, v->noise) < 0)
                        return -ENOMEM;
                for (size_t j = 0; j < g->n_m; j++)
                        v->judged += g->m[j].judged;
                v->worse += g->worse;
                v->better += g->better;
        }
        v->failed_groups = 0;
        for (size_t i = 0; i < v->n_groups; i++) {
                v->groups[i].failed = compare_failed_rule(&v->groups[i].a, &v->groups[i].b);
                v->failed_groups += v->groups[i].failed != COMPARE_FAILED_NONE;
        }
        v->exit_status = v->failed_groups ? COMPARE_EXIT_FAILED : v->worse ? COMPARE_EXIT_WORSE : 0;
        return 0;
}

enum compare_failed compare_failed_rule(const struct compare_side *a, const struct compare_side *b) {
        uint64_t ta = a->ok + a->failed, tb = b->ok + b->failed;

        if (b->ok == 0)
                return COMPARE_FAILED_NO_OK_B;
        if (a->ok == 0)
                return COMPARE_FAILED_NO_OK_A;
        /* failed_b / tb - failed_a / ta > margin / 100, in integers: a
         * share exactly at the margin passes, whatever the rounding. */
        if (100 * ((uint64_t)b->failed * ta) > 100 * ((uint64_t)a->failed * tb) + COMPARE_FAILED_MARGIN_PCT * ta * tb)
                return COMPARE_FAILED_MORE_B;
        return COMPARE_FAILED_NONE;
}

const char *compare_failed_name(enum compare_failed f) {
        switch (f) {
        case COMPARE_FAILED_NONE:
                return "";
        case COMPARE_FAILED_NO_OK_B:
                return "B has no ok cell";
        case COMPARE_FAILED_NO_OK_A:
                return "A has no ok cell";
        case COMPARE_FAILED_MORE_B:
                return "B's cells failed more often than A's";
        }
        return "?";
}

const char *compare_verdict_name(enum compare_verdict v) {
        switch (v) {
        case COMPARE_INFO:
                return "info";
        case COMPARE_SAME:
                return "~";
        case COMPARE_BETTER:
                return "better";
        case COMPARE_WORSE:
                return "worse";
        case COMPARE_N_SMALL:
                return "n too small";
        case COMPARE_UNDEFINED:
                return "undefined";
        case COMPARE_ONE_SIDE:
                return "one side";
        case COMPARE_WITHHELD:
                return "withheld";
        }
        return "?";
}
