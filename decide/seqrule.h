/* decide/seqrule: how many repeats are enough. A run (or a bisect step)
 * states a target minimum detectable effect and a budget; after each round
 * of interleaved cells its driver asks this rule "enough yet?". The rule is
 * a pure function of the values measured so far, so a resumed run, a
 * simulation (bench/seqrule-sim.c) and a later bisect get the same answers
 * from the same data.
 *
 * The design is a recursive internal pilot (Wittes & Brittain 1990, Stein
 * 1945): the first look is after the pilot's `pilot` rounds; at each look
 * the MDE of every judged metric is computed from the rounds so far, by
 * the verdict's own criterion as compare prints it: the smallest change
 * whose whole interval clears the band (the noise band, an amount's floor)
 * with the rule's power, Welch's MDE (stats_mde) beyond the band. A ratio
 * metric's target is the change given (beyond the band: a target within
 * the noise band is never met); an amount's is SEQRULE_AMOUNT_BANDS bands,
 * so at the stop a difference of twice the floor is called with that
 * power (and one of the floor never: the interval must clear it). When
 * all are at or below the target the
 * answer is ENOUGH, otherwise the next look is put where the spreads seen
 * so far say the target is met (stats_n_for_effect, compare's n@x%), capped
 * by the budget. Between looks the answer is MORE. The rule never looks at
 * the difference of the means, only at the spreads: under normal noise a
 * sample's mean is independent of its variance, so stopping on the spread
 * does not bias the comparison the way stopping on a p-value does; the small
 * dependence left through the t statistic's denominator is measured by
 * bench/seqrule-sim.c (docs/design.md has its figures). A look is never
 * placed where the exact rank test cannot reach alpha (compare's "n too
 * small"), since a verdict could not be given there.
 *
 * Values come per round: a[i] is round i's value (NAN: that round's cell
 * failed or stored no value). The look schedule is replayed from round 0 on
 * every call, so the rule needs no state of its own; and since each look
 * reads only the rounds before it, asking once with more rounds than the
 * stopping look gives the answer the driver would have got at that look. */
#pragma once

#include <stddef.h>

enum seqrule_answer {
        SEQRULE_MORE,              /* run more rounds: ret->next in all, then ask again */
        SEQRULE_ENOUGH,            /* every judged metric's MDE is at or below the target */
        SEQRULE_BUDGET,            /* the budget's rounds are spent before the target was met */
};

/* For bisect: what the rounds so far say about B against A. */
enum seqrule_verdict {
        SEQRULE_NOT_YET,           /* more rounds are wanted, or the budget ran out undecided */
        SEQRULE_SAME,              /* enough rounds, and no judged metric changed */
        SEQRULE_DIFFERENT,         /* at the stopping point, a judged metric is better or worse */
};

/* An amount's target, in bands (its floor, or the noise band of its
 * mean(a) when wider): a verdict needs the whole interval beyond one band,
 * so the difference called with the rule's power at the stop is this many. */
#define SEQRULE_AMOUNT_BANDS 2.0

struct seqrule_params {
        double target;             /* MDE target, a fraction of mean(a) (0.05 for 5 %), > 0; for an
                                      amount, SEQRULE_AMOUNT_BANDS bands whatever it is */
        double alpha;              /* the tests' level (0.05) */
        double power;              /* power the MDE is defined at (0.8) */
        size_t pilot;              /* rounds before the first look, >= 2 */
        size_t max_rounds;         /* rounds the budget allows, >= 1; a look never goes past it */
        double noise;              /* compare's noise band, a fraction in [0, 1): the verdict needs the
                                      whole interval beyond it (0: the test alone) */
};

/* One judged metric of one comparison, per round. b may equal a (a run of
 * one kernel: the MDE of a later comparison with a kernel of the same
 * spread). */
struct seqrule_metric {
        const char *name;          /* for messages; not owned */
        const double *a, *b;       /* [rounds], NAN where a round has no value; not owned */
        double floor;              /* > 0: an amount judged by its difference beyond this floor
                                      (report/metrics.h); its MDE is the difference detectable
                                      beyond its band, over SEQRULE_AMOUNT_BANDS bands, times the
                                      target, so the target's scale holds for every metric */
};

struct seqrule_decision {
        enum seqrule_answer answer;
        size_t look;               /* the rounds the answer was reached at (ENOUGH, BUDGET), or the
                                      last look passed (MORE; 0 before the pilot is complete) */
        size_t next;               /* MORE: rounds to have in all before the next look */
        double worst_mde;          /* at `look`: the largest MDE (fraction), INFINITY when some metric
                                      has too few values, NAN when there is no look yet */
        size_t worst;              /* index of that metric */
        size_t n_undefined;        /* metrics whose MDE is undefined (mean 0): left out */
};

/* The MDE of one metric over its first `rounds` rounds (NAN values
 * skipped), on the target's scale: the smallest change whose whole
 * interval clears the band with p->power (Welch's MDE beyond it); for an
 * amount that difference over SEQRULE_AMOUNT_BANDS bands, times the
 * target. The band alone when neither side has spread; INFINITY when a
 * side has fewer than 2 values; NAN when undefined (mean(a) is 0 or not
 * finite, for a metric without a floor). OUT: *ret_shown (may be NULL),
 * the same MDE in the metric's own terms: a fraction of mean(a), or an
 * amount's difference in its unit. */
double seqrule_mde(const struct seqrule_metric *m, size_t rounds, const struct seqrule_params *p,
                   double *ret_shown);

/* The rule's answer after `rounds` complete rounds, over n_m judged metrics
 * (n_m 0: ENOUGH at the pilot). Returns 0, or -EINVAL for parameters out of
 * range (target <= 0, pilot < 2, max_rounds < 1, alpha or power outside
 * (0, 1), noise outside [0, 1)). A ratio target within the noise band is
 * never met: such a run spends its budget. OUT: *ret, written only on
 * success. */
int seqrule_decide(const struct seqrule_params *p, const struct seqrule_metric *m, size_t n_m, size_t rounds,
                   struct seqrule_decision *ret);

/* The three answers a bisect needs: NOT_YET while seqrule_decide says MORE
 * or when the budget ran out with no change found; otherwise compare's
 * verdict (report/compare.h: Benjamini-Hochberg over these metrics at
 * alpha, the Fieller interval beyond +-noise) over the rounds up to the
 * stopping look (p->noise its band), DIFFERENT when any metric is better
 * or worse. dirs[i] is metric i's direction (METRICS_HIGHER or
 * METRICS_LOWER). Returns 0, -EINVAL as seqrule_decide, -ENOMEM. OUT:
 * *ret, *ret_decision (may be NULL). */
int seqrule_verdict(const struct seqrule_params *p, const struct seqrule_metric *m, const int *dirs, size_t n_m,
                    size_t rounds, enum seqrule_verdict *ret, struct seqrule_decision *ret_decision);

/* seqrule_verdict's second half, for a decision d already made over m:
 * the verdict over d->look rounds at p->noise. Returns 0 or -ENOMEM.
 * OUT: *ret. */
int seqrule_judge(const struct seqrule_params *p, const struct seqrule_metric *m, const int *dirs, size_t n_m,
                  const struct seqrule_decision *d, enum seqrule_verdict *ret);

/* "more", "enough", "budget"; "not yet", "same", "different". */
const char *seqrule_answer_name(enum seqrule_answer a);
const char *seqrule_verdict_name(enum seqrule_verdict v);
