/* decide/bisectrule.c: the search of a bisection (see bisectrule.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "decide/bisectrule.h"

#define MIN_TARGET 1e-4

int bisect_series_add(struct bisect_series *s, double v) {
        if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 16;
                double *nv = realloc(s->v, cap * sizeof(*nv));

                if (!nv)
                        return -ENOMEM;
                s->v = nv;
                s->cap = cap;
        }
        s->v[s->n++] = v;
        return 0;
}

static void series_clear(struct bisect_series *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(s[i].v);
                s[i] = (struct bisect_series){ 0 };
        }
}

static double mean_of(const struct bisect_series *s) {
        double sum = 0;
        size_t n = 0;

        for (size_t i = 0; i < s->n; i++)
                if (isfinite(s->v[i])) {
                        sum += s->v[i];
                        n++;
                }
        return n ? sum / (double)n : NAN;
}

enum bisect_state bisect_classify(enum seqrule_verdict vs_good, enum seqrule_verdict vs_bad) {
        if (vs_good == SEQRULE_SAME && vs_bad == SEQRULE_DIFFERENT)
                return BISECT_GOOD;
        if (vs_good == SEQRULE_DIFFERENT && (vs_bad == SEQRULE_SAME || vs_bad == SEQRULE_DIFFERENT))
                return BISECT_BAD;
        return BISECT_UNTESTED;
}

/* y against x over the rounds both have. OUT: *next, the rounds the rule
 * wants in all before it looks again (0: it will not look again). */
static enum seqrule_verdict judge(const struct bisect_params *p, const struct bisect_series *x,
                                  const struct bisect_series *y, double target, size_t *next) {
        struct seqrule_params rp = p->rule;
        struct seqrule_metric m = { "metric", x->v, y->v, p->floor };
        struct seqrule_decision d;
        enum seqrule_verdict v = SEQRULE_NOT_YET;
        size_t rounds = x->n < y->n ? x->n : y->n;
        int dirs[1] = { p->dir };

        *next = 0;
        rp.target = target;
        rp.noise = p->noise;
        if (rounds == 0 || seqrule_verdict(&rp, &m, dirs, 1, rounds, &v, &d) < 0)
                return SEQRULE_NOT_YET;
        if (v == SEQRULE_NOT_YET && d.answer == SEQRULE_MORE)
                *next = d.next < rp.max_rounds ? d.next : rp.max_rounds;
        return v;
}

/* y against x, interleaved, until the rule answers or the budget is spent. */
static int pair(const struct bisect_params *p, const struct bisect_ops *ops, void *ud, size_t x, size_t y,
                const char *role, double target, struct bisect_step *st, enum seqrule_verdict *ret) {
        struct bisect_series v[2] = { { 0 } };
        size_t idx[2] = { x, y }, rounds = 0, want = p->rule.pilot, next;
        int r;

        *st = (struct bisect_step){ .role = role, .cand = y, .mean_bad = NAN };
        for (;;) {
                r = ops->measure(ud, idx, 2, want - rounds, role, v);
                if (r < 0)
                        break;
                rounds = want;
                *ret = judge(p, &v[0], &v[1], target, &next);
                if (*ret != SEQRULE_NOT_YET || next <= rounds)
                        break;
                want = next;
        }
        st->rounds = rounds;
        st->vs_good = *ret;
        st->has_vs_good = 1;
        st->mean_good = mean_of(&v[0]);
        st->mean_cand = mean_of(&v[1]);
        series_clear(v, 2);
        return r < 0 ? r : 0;
}

/* Candidate i interleaved with both ends until the two verdicts decide. */
static int probe(const struct bisect_params *p, const struct bisect_ops *ops, void *ud, size_t n, size_t i,
                 double target, struct bisect_step *st, enum bisect_state *ret) {
        struct bisect_series v[3] = { { 0 } };
        size_t idx[3] = { 0, i, n - 1 }, rounds = 0, want = p->rule.pilot, ng, nb;
        int r;

        *st = (struct bisect_step){ .role = "probe", .cand = i, .has_vs_good = 1, .has_vs_bad = 1 };
        *ret = BISECT_UNTESTED;
        for (;;) {
                r = ops->measure(ud, idx, 3, want - rounds, "probe", v);
                if (r < 0)
                        break;
                rounds = want;
                if (isnan(mean_of(&v[1]))) {
                        *ret = BISECT_SKIPPED;
                        st->note = "no value: it does not boot or run the workload";
                        break;
                }
                st->vs_good = judge(p, &v[0], &v[1], target, &ng);
                st->vs_bad = judge(p, &v[1], &v[2], target, &nb);
                *ret = bisect_classify(st->vs_good, st->vs_bad);
                if (*ret == BISECT_BAD && st->vs_bad == SEQRULE_DIFFERENT)
                        st->note = "unlike both ends: the change has begun here";
                if (*ret != BISECT_UNTESTED || (ng > nb ? ng : nb) <= rounds)
                        break;
                want = ng > nb ? ng : nb;
        }
        st->rounds = rounds;
        st->decision = bisect_state_name(*ret == BISECT_UNTESTED ? BISECT_UNTESTED : *ret);
        if (*ret == BISECT_UNTESTED)
                st->decision = "unknown";
        st->mean_good = mean_of(&v[0]);
        st->mean_cand = mean_of(&v[1]);
        st->mean_bad = mean_of(&v[2]);
        series_clear(v, 3);
        return r < 0 ? r : 0;
}

/* The untested candidate between lo and hi nearest the middle, or n when
 * every one between is skipped or decided. */
static size_t pick(const enum bisect_state *state, size_t n, size_t lo, size_t hi) {
        size_t mid = lo + (hi - lo) / 2, best = n;

        for (size_t i = lo + 1; i < hi; i++) {
                size_t d = i > mid ? i - mid : mid - i;

                if (state[i] == BISECT_UNTESTED && (best == n || d < (best > mid ? best - mid : mid - best)))
                        best = i;
        }
        return best;
}

/* A candidate whose image equals a decided one takes its decision. */
static int reuse(const struct bisect_ops *ops, void *ud, enum bisect_state *state, size_t n, size_t i,
                 struct bisect_step *st) {
        for (size_t j = 0; j < n; j++)
                if (j != i && (state[j] == BISECT_GOOD || state[j] == BISECT_BAD) && ops->same_image(ud, i, j)) {
                        state[i] = state[j];
                        *st = (struct bisect_step){ .role = "probe", .cand = i, .decision = bisect_state_name(state[i]),
                                                    .note = "the same image", .like = j, .mean_good = NAN,
                                                    .mean_cand = NAN, .mean_bad = NAN };
                        return 1;
                }
        return 0;
}

static void emit(const struct bisect_ops *ops, void *ud, struct bisect_result *res, const struct bisect_step *st) {
        res->steps++;
        res->cells_rounds += st->rounds;
        ops->step(ud, st);
}

/* The ends: is there a change to find? Returns 1 when there is. */
static int ends(const struct bisect_params *p, const struct bisect_ops *ops, void *ud, size_t n,
                struct bisect_result *res) {
        struct bisect_step st;
        enum seqrule_verdict v = SEQRULE_NOT_YET;
        int r;

        if (ops->same_image(ud, 0, n - 1)) {
                st = (struct bisect_step){ .role = "ends", .cand = n - 1, .decision = "same", .note = "the same image",
                                           .mean_good = NAN, .mean_cand = NAN, .mean_bad = NAN };
                emit(ops, ud, res, &st);
                res->outcome = BISECT_NO_CHANGE;
                return 0;
        }
        r = pair(p, ops, ud, 0, n - 1, "ends", p->rule.target, &st, &v);
        if (r < 0)
                return r;
        res->change = st.mean_cand / st.mean_good - 1;
        st.decision = v == SEQRULE_DIFFERENT ? "different" : v == SEQRULE_SAME ? "same" : "unknown";
        emit(ops, ud, res, &st);
        res->outcome = v == SEQRULE_SAME ? BISECT_NO_CHANGE : BISECT_CANNOT_TELL;
        return v == SEQRULE_DIFFERENT;
}

/* A step's target: half the change the ends showed, beyond the noise
 * band (the rule's targets include the band: a verdict needs the whole
 * interval beyond it). */
static double step_target(const struct bisect_params *p, double change) {
        double half = fabs(change) / 2;

        return p->noise + (half > MIN_TARGET ? half : MIN_TARGET);
}

/* Halve [lo, hi]. Returns 1 when a step could not tell. */
static int halve(const struct bisect_params *p, const struct bisect_ops *ops, void *ud, size_t n,
                 enum bisect_state *state, struct bisect_result *res, size_t *lo, size_t *hi) {
        double target = step_target(p, res->change);

        for (;;) {
                size_t i = pick(state, n, *lo, *hi);
                struct bisect_step st;
                int r;

                if (i == n)
                        return 0;
                r = ops->prepare(ud, i);
                if (r < 0)
                        return r;
                if (r > 0) {
                        state[i] = BISECT_SKIPPED;
                        st = (struct bisect_step){ .role = "probe", .cand = i, .decision = "skipped",
                                                   .note = "it does not build", .mean_good = NAN, .mean_cand = NAN,
                                                   .mean_bad = NAN };
                        emit(ops, ud, res, &st);
                        continue;
                }
                if (!reuse(ops, ud, state, n, i, &st)) {
                        r = probe(p, ops, ud, n, i, target, &st, &state[i]);
                        if (r < 0)
                                return r;
                }
                emit(ops, ud, res, &st);
                if (state[i] == BISECT_GOOD)
                        *lo = i;
                else if (state[i] == BISECT_BAD)
                        *hi = i;
                else if (state[i] == BISECT_UNTESTED)
                        return 1;
        }
}

int bisect_search(const struct bisect_params *p, size_t n, const struct bisect_ops *ops, void *ud,
                  enum bisect_state *state, struct bisect_result *ret) {
        struct bisect_result res = { .outcome = BISECT_CANNOT_TELL, .confirmed = -1, .change = NAN };
        size_t lo = 0, hi = n - 1;
        int r;

        if (n < 2 || p->rule.pilot < 2 || p->rule.max_rounds < p->rule.pilot || !(p->rule.target > 0))
                return -EINVAL;
        for (size_t end = 0; end < 2; end++) {
                r = ops->prepare(ud, end ? n - 1 : 0);
                if (r != 0)
                        return r < 0 ? r : -ENOEXEC;
        }
        r = ends(p, ops, ud, n, &res);
        if (r <= 0) {
                *ret = res;
                return r;
        }
        state[0] = BISECT_GOOD;
        state[n - 1] = BISECT_BAD;
        r = halve(p, ops, ud, n, state, &res, &lo, &hi);
        if (r < 0)
                return r;
        if (r == 0) {
                struct bisect_step st;
                enum seqrule_verdict v = SEQRULE_NOT_YET;
                double target = step_target(p, res.change);

                r = pair(p, ops, ud, lo, hi, "confirm", target, &st, &v);
                if (r < 0)
                        return r;
                res.confirmed = v == SEQRULE_DIFFERENT;
                st.decision = res.confirmed ? "different" : "unknown";
                st.note = res.confirmed ? NULL : "not reproduced against the last good";
                emit(ops, ud, &res, &st);
                res.outcome = BISECT_FIRST_BAD;
                res.first_bad = hi;
                res.last_good = lo;
                for (size_t i = lo + 1; i < hi; i++)
                        res.skipped_between += state[i] == BISECT_SKIPPED;
        }
        *ret = res;
        return 0;
}

const char *bisect_state_name(enum bisect_state s) {
        static const char *const names[] = { "untested", "good", "bad", "skipped" };

        return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *bisect_outcome_name(enum bisect_outcome o) {
        static const char *const names[] = { "first-bad", "no-change", "cannot-tell" };

        return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}
