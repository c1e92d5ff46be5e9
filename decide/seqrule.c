/* decide/seqrule.c: the stopping rule of runs that choose their own number
 * of repeats (see seqrule.h). The MDE and the n for an effect are
 * compare's (report/stats.c), so what the run stops on is what compare
 * will print. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "report/compare.h"
#include "decide/seqrule.h"
#include "report/stats.h"

/* The summary of the non-NAN values among the first `rounds`. buf holds
 * at least `rounds` doubles. */
static void summarize_prefix(const double *v, size_t rounds, double *buf, struct stats_summary *ret, size_t *ret_n) {
        size_t n = 0;

        for (size_t i = 0; i < rounds; i++)
                if (!isnan(v[i]))
                        buf[n++] = v[i];
        stats_summarize(buf, n, ret);
        *ret_n = n;
}

/* One metric at a look: its MDE in its own terms and on the target's
 * scale, and what its spread says of the rounds the target needs
 * (stats_n_for_effect(cov, effect)). */
struct look {
        double shown;              /* a fraction of mean(a), or an amount's difference in its unit */
        double scaled;             /* on the target's scale: at most target when the target is met */
        double cov, effect;        /* the spread and the change beyond the band, in one unit */
};

/* An amount: the difference whose whole interval clears its band (the
 * floor, or the noise band of mean(a) when wider) with the rule's power is
 * the band plus Welch's detectable difference (stats_mde over a mean of 1
 * is the difference itself); its target is SEQRULE_AMOUNT_BANDS bands, so
 * the part beyond the band must come down to one band. */
static void amount_look(const struct stats_summary *sa, const struct stats_summary *sb, double floor,
                        const struct seqrule_params *p, struct look *ret) {
        struct stats_summary unit_a = *sa;
        double band = fmax(floor, p->noise * fabs(sa->mean)), w;

        ret->cov = sqrt((sa->sd * sa->sd + sb->sd * sb->sd) / 2) / band;
        ret->effect = SEQRULE_AMOUNT_BANDS - 1;
        unit_a.mean = 1;
        w = sa->sd == 0.0 && sb->sd == 0.0 ? 0.0 : stats_mde(&unit_a, sb, p->alpha, p->power);
        ret->shown = isnan(w) ? INFINITY : band + w;
        ret->scaled = ret->shown / (SEQRULE_AMOUNT_BANDS * band) * p->target;
}

/* A ratio metric: Welch's detectable change beyond the noise band, on the
 * target's own scale; the part of the target beyond the band is what the
 * spread must resolve (nothing, when the target lies within the band). */
static void ratio_look(const struct stats_summary *sa, const struct stats_summary *sb,
                       const struct seqrule_params *p, struct look *ret) {
        double w;

        ret->cov = sqrt((sa->cov * sa->cov + sb->cov * sb->cov) / 2);
        ret->effect = p->target - p->noise;
        w = sa->sd == 0.0 && sb->sd == 0.0 ? 0.0 : stats_mde(sa, sb, p->alpha, p->power);
        ret->shown = isnan(w) ? INFINITY : p->noise + w;
        ret->scaled = ret->shown;
}

static void look_with(const struct seqrule_metric *m, size_t rounds, const struct seqrule_params *p, double *buf,
                      struct look *ret) {
        struct stats_summary sa, sb;
        size_t na, nb;

        summarize_prefix(m->a, rounds, buf, &sa, &na);
        summarize_prefix(m->b, rounds, buf, &sb, &nb);
        *ret = (struct look){ INFINITY, INFINITY, NAN, NAN };
        if (na < 2 || nb < 2)
                return;
        if (m->floor > 0) {
                amount_look(&sa, &sb, m->floor, p, ret);
                return;
        }
        if (!isfinite(sa.mean) || sa.mean == 0.0) {
                *ret = (struct look){ NAN, NAN, NAN, NAN };
                return;
        }
        ratio_look(&sa, &sb, p, ret);
}

double seqrule_mde(const struct seqrule_metric *m, size_t rounds, const struct seqrule_params *p,
                   double *ret_shown) {
        double *buf = malloc((rounds ? rounds : 1) * sizeof(*buf));
        struct look l = { NAN, NAN, NAN, NAN };

        if (buf)
                look_with(m, rounds, p, buf, &l);
        free(buf);
        if (ret_shown)
                *ret_shown = l.shown;
        return l.scaled;
}

/* The smallest n per side at which the exact rank test can reach alpha:
 * below it compare says "n too small", so no look is placed there. */
static size_t verdict_floor(double alpha) {
        size_t n = 2;

        while (n < 64 && stats_mann_whitney_min_p(n, n) > alpha)
                n++;
        return n;
}

static int params_ok(const struct seqrule_params *p) {
        return p->target > 0 && isfinite(p->target) && p->pilot >= 2 && p->max_rounds >= 1 && p->alpha > 0 &&
               p->alpha < 1 && p->power > p->alpha && p->power < 1 && p->noise >= 0 && p->noise < 1;
}

/* Evaluate the look at `look` rounds. OUT: the worst MDE and its metric,
 * and the rounds the spreads seen say the target needs (the largest over
 * the metrics). */
static void evaluate(const struct seqrule_params *p, const struct seqrule_metric *m, size_t n_m, size_t look,
                     double *buf, struct seqrule_decision *d, size_t *ret_need) {
        size_t need = look;

        d->worst_mde = 0;
        d->worst = 0;
        d->n_undefined = 0;
        for (size_t i = 0; i < n_m; i++) {
                struct look l;
                size_t n;

                look_with(&m[i], look, p, buf, &l);
                if (isnan(l.scaled)) {
                        d->n_undefined++;
                        continue;
                }
                if (l.scaled > d->worst_mde) {
                        d->worst_mde = l.scaled;
                        d->worst = i;
                }
                if (l.scaled <= p->target)
                        continue;
                /* Too few values (failed cells): one more round at least.
                 * A target within the band is never met: the budget. */
                if (!isfinite(l.cov))
                        n = look + 1;
                else if (!(l.effect > 0))
                        n = p->max_rounds + 1;
                else
                        n = stats_n_for_effect(l.cov, l.effect, p->alpha, p->power, p->max_rounds);
                if (n > need)
                        need = n;
        }
        *ret_need = need;
}

int seqrule_decide(const struct seqrule_params *p, const struct seqrule_metric *m, size_t n_m, size_t rounds,
                   struct seqrule_decision *ret) {
        struct seqrule_decision d = { .answer = SEQRULE_MORE, .worst_mde = NAN };
        size_t look, floor_n, cap, need;
        double *buf;

        if (!params_ok(p))
                return -EINVAL;
        cap = p->max_rounds;
        floor_n = verdict_floor(p->alpha);
        look = p->pilot > floor_n ? p->pilot : floor_n;
        if (look > cap)
                look = cap;
        if (rounds < look) {
                d.next = look;
                *ret = d;
                return 0;
        }
        buf = malloc(rounds * sizeof(*buf));
        if (!buf)
                return -ENOMEM;
        /* Replay the looks: each depends only on the rounds before it. */
        for (;;) {
                evaluate(p, m, n_m, look, buf, &d, &need);
                d.look = look;
                if (d.worst_mde <= p->target) {
                        d.answer = SEQRULE_ENOUGH;
                        break;
                }
                if (look >= cap) {
                        d.answer = SEQRULE_BUDGET;
                        break;
                }
                if (need <= look)
                        need = look + 1;
                look = need < cap ? need : cap;
                if (rounds < look) {
                        d.answer = SEQRULE_MORE;
                        d.next = look;
                        break;
                }
        }
        free(buf);
        *ret = d;
        return 0;
}

int seqrule_judge(const struct seqrule_params *p, const struct seqrule_metric *m, const int *dirs, size_t n_m,
                  const struct seqrule_decision *d, enum seqrule_verdict *ret) {
        struct compare_metric *cm;
        double *q;
        int r = 0, different = 0;

        if (d->answer == SEQRULE_MORE) {
                *ret = SEQRULE_NOT_YET;
                return 0;
        }
        cm = calloc(n_m + 1, sizeof(*cm));
        q = calloc(n_m + 1, sizeof(*q));
        if (!cm || !q) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < n_m; i++) {
                struct compare_metric *c = &cm[i];

                c->a = malloc((d->look + 1) * sizeof(double));
                c->b = malloc((d->look + 1) * sizeof(double));
                if (!c->a || !c->b) {
                        r = -ENOMEM;
                        goto out;
                }
                for (size_t k = 0; k < d->look; k++) {
                        if (!isnan(m[i].a[k]))
                                c->a[c->na++] = m[i].a[k];
                        if (!isnan(m[i].b[k]))
                                c->b[c->nb++] = m[i].b[k];
                }
                c->judged = 1;
                c->info.direction = dirs[i];
                c->info.verdict = 1;
                c->info.floor = m[i].floor;
                /* What compare_decide reads, computed as compare_metric_stats
                 * does; not its MDE and n@x%, which cost a power search each
                 * and decide nothing (the simulation runs this 10^5 times). */
                /* An amount is judged by its difference (Welch's of means or
                 * Yuen's of trimmed means), beyond its floor and the noise
                 * band of A's mean. */
                if (c->info.floor > 0) {
                        stats_summarize(c->a, c->na, &c->sa);
                        stats_summarize(c->b, c->nb, &c->sb);
                        compare_amount_test(c);
                } else {
                        if (stats_welch(c->a, c->na, c->b, c->nb, &c->ttest) < 0)
                                c->ttest.p = NAN;
                        if (stats_ratio_ci(c->a, c->na, c->b, c->nb, 0.95, &c->ratio) < 0)
                                c->ratio.lo = c->ratio.hi = NAN;
                }
                c->mw_min_p = c->na && c->nb ? stats_mann_whitney_min_p(c->na, c->nb) : 1;
                /* compare_judge's family: the judged metrics with a defined test. */
                q[i] = c->na && c->nb && c->mw_min_p <= p->alpha && isfinite(c->ttest.p) ? c->ttest.p : NAN;
        }
        stats_bh_adjust(q, n_m, q);
        for (size_t i = 0; i < n_m; i++) {
                enum compare_verdict v = compare_decide(&cm[i], q[i], p->alpha, p->noise);

                different |= v == COMPARE_BETTER || v == COMPARE_WORSE;
        }
        *ret = different ? SEQRULE_DIFFERENT : d->answer == SEQRULE_ENOUGH ? SEQRULE_SAME : SEQRULE_NOT_YET;
out:
        for (size_t i = 0; cm && i < n_m; i++) {
                free(cm[i].a);
                free(cm[i].b);
        }
        free(cm);
        free(q);
        return r;
}

int seqrule_verdict(const struct seqrule_params *p, const struct seqrule_metric *m, const int *dirs, size_t n_m,
                    size_t rounds, enum seqrule_verdict *ret, struct seqrule_decision *ret_decision) {
        struct seqrule_decision d;
        enum seqrule_verdict v;
        int r = seqrule_decide(p, m, n_m, rounds, &d);

        if (r >= 0)
                r = seqrule_judge(p, m, dirs, n_m, &d, &v);
        if (r < 0)
                return r;
        *ret = v;
        if (ret_decision)
                *ret_decision = d;
        return 0;
}

const char *seqrule_answer_name(enum seqrule_answer a) {
        switch (a) {
        case SEQRULE_MORE:
                return "more";
        case SEQRULE_ENOUGH:
                return "enough";
        case SEQRULE_BUDGET:
                return "budget";
        }
        return "?";
}

const char *seqrule_verdict_name(enum seqrule_verdict v) {
        switch (v) {
        case SEQRULE_NOT_YET:
                return "not yet";
        case SEQRULE_SAME:
                return "same";
        case SEQRULE_DIFFERENT:
                return "different";
        }
        return "?";
}
