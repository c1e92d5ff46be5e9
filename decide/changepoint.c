/* changepoint.c: where a metric's nightly history moved to a new level.
 * A comparison of two kernels asks "is b different from a"; a history asks
 * "when did it change", and this file answers that for nightly.
 *
 * The method is e-divisive means (Matteson and James, "A nonparametric
 * approach for multiple change point analysis of multivariate data", 2014)
 * in the windowed form that Hunter (Fleming et al., 2023) and Apache Otava
 * use for performance histories:
 *
 * - Divergence. For two runs of points X and Y (univariate, exponent 1),
 *   E = 2 mean|X - Y| - mean|X - X'| - mean|Y - Y'| (the within means over
 *   distinct pairs) and Q = |X| |Y| / (|X| + |Y|) E. E is 0 when X and Y
 *   come from one distribution; it sees changes of level, spread or shape.
 *   A single wild point w adds about 2 |w| / |Y| to both the cross and the
 *   within term of its side, so it cancels: an outlier does not make a split
 *   (min_size >= 2 keeps it from being a side on its own).
 * - Windowing. A candidate split t in a segment [s, e) is scored on
 *   X = v[max(s, t - W/2) .. t) and Y = v[t .. min(e, t + W/2)), so scoring
 *   a history of n points costs O(n W^2) whatever n is, and an old change
 *   far away does not dilute a new one.
 * - Divisive search. The segment's best candidate (largest Q, the earliest
 *   on a tie) is tested; when significant, the segment is split there and
 *   both halves are searched again; when not, the segment is homogeneous.
 * - Significance: a permutation test on the candidate's window
 *   P = v[a .. b), a = max(s, t - W/2), b = min(e, t + W/2). The statistic
 *   is the largest Q over every split of P with min_size points a side, so
 *   the test accounts for having picked the best split; it is computed for
 *   P and for R random permutations of P, and p = (1 + #{perm >= observed})
 *   / (R + 1). The permutations come from splitmix64 seeded with the
 *   window's bounds, so a window always gets the same p, whatever the
 *   order of the search and however many points follow beyond it. (Hunter
 *   replaced the permutations by a t-test for speed; with a window of W
 *   points the permutations cost R W^2 per test and need no normality.)
 * - Magnitude. Significant splits are all kept as segment bounds; a split
 *   is reported when the means of up to W/2 points either side (not past
 *   the neighbouring splits) differ by at least min_rel_change of the mean
 *   before. A spread-only change therefore splits but is not reported.
 *
 * A slow linear drift has no abrupt change. The search cuts it into a
 * staircase of small steps of one sign, each about the slope times W/2, and
 * reports them only when that reaches min_rel_change: a drift is seen as
 * several small changes or as nothing, never as one step of its full rise.
 *
 * A split needs min_size points on each side, so a new level at the end of
 * the history is placed exactly once it has min_size points; with fewer
 * (two wild last points), the split lands up to min_size - 1 points early.
 * Either way it is provisional while fewer than confirm points follow. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/splitmix64.h"
#include "decide/changepoint.h"

struct detector {
        const double *v;
        size_t n;
        struct changepoint_params par;
        size_t half;               /* W / 2 */
        double *dist;              /* W x W distances of one window */
        size_t *perm;              /* W indices */
        size_t *splits;            /* significant splits found so far */
        double *split_p;
        size_t n_splits;
};

/* ---- the divergence ----------------------------------------------------- */

/* Q of X = v[lo..t) and Y = v[t..hi), both with at least 2 points. */
static double split_q(const double *v, size_t lo, size_t t, size_t hi) {
        double cross = 0.0, wx = 0.0, wy = 0.0, nx = (double)(t - lo), ny = (double)(hi - t), e;

        for (size_t i = lo; i < t; i++)
                for (size_t j = t; j < hi; j++)
                        cross += fabs(v[i] - v[j]);
        for (size_t i = lo; i < t; i++)
                for (size_t j = i + 1; j < t; j++)
                        wx += fabs(v[i] - v[j]);
        for (size_t i = t; i < hi; i++)
                for (size_t j = i + 1; j < hi; j++)
                        wy += fabs(v[i] - v[j]);
        e = 2.0 * cross / (nx * ny) - wx / (nx * (nx - 1.0) / 2.0) - wy / (ny * (ny - 1.0) / 2.0);
        return nx * ny / (nx + ny) * e;
}

/* The largest Q over the splits t in [min_size, m - min_size] of the
 * window whose distances are d (m x m) taken in the order perm. O(m^2):
 * the within sums move by one row as t advances. */
static double window_max_q(const struct detector *dt, size_t m, const size_t *perm) {
        const double *d = dt->dist;
        double total = 0.0, left = 0.0, right, best = -INFINITY;
        size_t k = dt->par.min_size;

#define D(i, j) d[perm[i] * m + perm[j]]
        for (size_t i = 0; i < m; i++)
                for (size_t j = i + 1; j < m; j++)
                        total += D(i, j);
        right = total;
        /* left = pairs within [0, t), right = pairs within [t, m) */
        for (size_t t = 1; t <= m - k; t++) {
                double to_left = 0.0, to_right = 0.0;
                size_t p = t - 1;      /* the point moving from right to left */

                for (size_t i = 0; i < p; i++)
                        to_left += D(i, p);
                for (size_t j = t; j < m; j++)
                        to_right += D(p, j);
                left += to_left;
                right -= to_right;
                if (t >= k) {
                        double nx = (double)t, ny = (double)(m - t);
                        double cross = total - left - right;
                        double e = 2.0 * cross / (nx * ny) - left / (nx * (nx - 1.0) / 2.0) -
                                   right / (ny * (ny - 1.0) / 2.0);
                        double q = nx * ny / (nx + ny) * e;

                        if (q > best)
                                best = q;
                }
        }
#undef D
        return best;
}

/* ---- the permutation test ---------------------------------------------- */

/* Uniform in [0, bound), without the bias of a plain modulo. */
static size_t uniform_below(uint64_t *state, size_t bound) {
        uint64_t limit = UINT64_MAX - UINT64_MAX % bound, r;

        do
                r = splitmix64(state);
        while (r >= limit);
        return (size_t)(r % bound);
}

/* p-value of "no change in v[a..b)". */
static double window_p(struct detector *dt, size_t a, size_t b) {
        size_t m = b - a, exceed = 0;
        uint64_t state = 0x6b62656e63680000ull ^ ((uint64_t)a << 20) ^ (uint64_t)b;
        double observed, slack;

        for (size_t i = 0; i < m; i++) {
                for (size_t j = 0; j < m; j++)
                        dt->dist[i * m + j] = fabs(dt->v[a + i] - dt->v[a + j]);
                dt->perm[i] = i;
        }
        observed = window_max_q(dt, m, dt->perm);
        /* A permutation that reproduces the observed order (or its mirror
         * image) must count as reaching it, whatever the rounding of the
         * sums in another order. */
        slack = 1e-12 * fabs(observed);
        for (size_t r = 0; r < dt->par.permutations; r++) {
                for (size_t i = m - 1; i > 0; i--) {
                        size_t j = uniform_below(&state, i + 1), tmp = dt->perm[i];

                        dt->perm[i] = dt->perm[j];
                        dt->perm[j] = tmp;
                }
                if (window_max_q(dt, m, dt->perm) >= observed - slack)
                        exceed++;
        }
        return (double)(1 + exceed) / (double)(dt->par.permutations + 1);
}

/* ---- the divisive search ------------------------------------------------ */

static void add_split(struct detector *dt, size_t t, double p) {
        size_t i = dt->n_splits;

        /* at most n / min_size splits: the arrays were sized for that */
        while (i > 0 && dt->splits[i - 1] > t) {
                dt->splits[i] = dt->splits[i - 1];
                dt->split_p[i] = dt->split_p[i - 1];
                i--;
        }
        dt->splits[i] = t;
        dt->split_p[i] = p;
        dt->n_splits++;
}

/* Search [s, e) and, when it splits, its halves. The work list holds the
 * segments still to search, so a long history cannot overflow the stack. */
static int search(struct detector *dt) {
        size_t cap = dt->n / dt->par.min_size + 2, len = 0;
        size_t (*todo)[2] = malloc(cap * sizeof(*todo));
        size_t k = dt->par.min_size, h = dt->half;

        if (!todo)
                return -ENOMEM;
        todo[len][0] = 0;
        todo[len][1] = dt->n;
        len++;
        while (len > 0) {
                size_t s = todo[len - 1][0], e = todo[len - 1][1], best_t = 0;
                double best = -INFINITY, p;

                len--;
                if (e - s < 2 * k)
                        continue;
                for (size_t t = s + k; t <= e - k; t++) {
                        size_t lo = t - s > h ? t - h : s, hi = e - t > h ? t + h : e;
                        double q = split_q(dt->v, lo, t, hi);

                        if (q > best) {
                                best = q;
                                best_t = t;
                        }
                }
                p = window_p(dt, best_t - s > h ? best_t - h : s, e - best_t > h ? best_t + h : e);
                if (p > dt->par.p_threshold)
                        continue;
                add_split(dt, best_t, p);
                /* each half is at least k long, so at most n / k segments
                 * are ever waiting */
                todo[len][0] = s;
                todo[len][1] = best_t;
                len++;
                todo[len][0] = best_t;
                todo[len][1] = e;
                len++;
        }
        free(todo);
        return 0;
}

static double mean_of(const double *v, size_t lo, size_t hi) {
        double sum = 0.0;

        for (size_t i = lo; i < hi; i++)
                sum += v[i];
        return sum / (double)(hi - lo);
}

static int params_valid(const struct changepoint_params *p) {
        return p->p_threshold > 0.0 && p->p_threshold <= 1.0 && isfinite(p->min_rel_change) &&
               p->min_rel_change >= 0.0 && p->min_size >= 2 && p->window >= 2 * p->min_size &&
               p->window <= 1024 && p->permutations >= 1 && p->permutations <= 100000;
}

int changepoint_detect(const double *v, size_t n, const struct changepoint_params *params,
                       struct changepoint **ret_points, size_t *ret_count) {
        struct detector dt = { .v = v, .n = n, .par = *params, .half = params->window / 2 };
        struct changepoint *out = NULL;
        size_t count = 0;
        int r;

        if (!params_valid(params))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!isfinite(v[i]))
                        return -EINVAL;
        dt.dist = malloc(params->window * params->window * sizeof(*dt.dist));
        dt.perm = malloc(params->window * sizeof(*dt.perm));
        dt.splits = malloc((n / params->min_size + 1) * sizeof(*dt.splits));
        dt.split_p = malloc((n / params->min_size + 1) * sizeof(*dt.split_p));
        r = -ENOMEM;
        if (!dt.dist || !dt.perm || !dt.splits || !dt.split_p)
                goto out;
        r = search(&dt);
        if (r < 0)
                goto out;
        if (dt.n_splits > 0) {
                out = calloc(dt.n_splits, sizeof(*out));
                r = -ENOMEM;
                if (!out)
                        goto out;
        }
        for (size_t i = 0; i < dt.n_splits; i++) {
                size_t t = dt.splits[i], prev = i > 0 ? dt.splits[i - 1] : 0;
                size_t next = i + 1 < dt.n_splits ? dt.splits[i + 1] : n;
                size_t lo = t - prev > dt.half ? t - dt.half : prev, hi = next - t > dt.half ? t + dt.half : next;
                double before = mean_of(v, lo, t), after = mean_of(v, t, hi), rel;

                if (before != 0.0)
                        rel = (after - before) / fabs(before);
                else
                        rel = after == before ? 0.0 : copysign(INFINITY, after);
                if (!(fabs(rel) >= params->min_rel_change))
                        continue;
                out[count++] = (struct changepoint){
                        .index = t, .mean_before = before, .mean_after = after, .rel_change = rel,
                        .p = dt.split_p[i], .provisional = n - t < params->confirm,
                };
        }
        if (count == 0) {
                free(out);
                out = NULL;
        }
        *ret_points = out;
        *ret_count = count;
        out = NULL;
        r = 0;
out:
        free(out);
        free(dt.dist);
        free(dt.perm);
        free(dt.splits);
        free(dt.split_p);
        return r;
}
