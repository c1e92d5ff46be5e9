/* stats.c: the statistics of report/stats.h. Everything a comparison says
 * about significance or resolution comes from here, so each definition is
 * written down where it is implemented and checked against SciPy and R by
 * report/test-stats.c (reference values from report/stats-oracle.py).
 *
 * The special functions are written out rather than taken from a library:
 * the report floor links only libm. The Student t distribution goes through
 * the regularised incomplete beta function (modified Lentz continued
 * fraction), its quantile through bisection on the tail, and the power of
 * the two-sided t test through a quadrature of the noncentral t over the
 * distribution of the sample standard deviation.
 *
 * Sums are taken over values divided by the largest magnitude of the sample
 * (and multiplied back), so samples of huge or tiny numbers (bytes, 1e300)
 * neither overflow nor underflow in the squares. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

/* Mann-Whitney uses the exact distribution when both samples have at most
 * this many values and there are no ties. The count table then has at most
 * 51 * 2501 doubles (1 MB) and takes 50^4 additions to fill; every count is
 * a sum of positive numbers, so even the smallest tail probability
 * (2 / C(100, 50), about 2e-29) keeps full relative precision. */
#define MWU_EXACT_MAX 50

/* ---- moments ---------------------------------------------------------- */

static double max_abs(const double *v, size_t n) {
        double m = 0.0;

        for (size_t i = 0; i < n; i++)
                if (fabs(v[i]) > m)
                        m = fabs(v[i]);
        return m;
}

/* Mean and sample variance of v[i] / scale (two passes, n >= 1; the
 * variance is NAN for n < 2). */
static void moments_scaled(const double *v, size_t n, double scale, double *mean, double *var) {
        double sum = 0.0, ss = 0.0, comp = 0.0, m;

        for (size_t i = 0; i < n; i++)
                sum += v[i] / scale;
        m = sum / (double)n;
        for (size_t i = 0; i < n; i++) {
                double d = v[i] / scale - m;
                ss += d * d;
                comp += d;
        }
        *mean = m;
        /* The compensation term removes the rounding error of m from ss. */
        *var = n < 2 ? NAN : (ss - comp * comp / (double)n) / (double)(n - 1);
        if (*var < 0.0)
                *var = 0.0;
}

static int cmp_double(const void *x, const void *y) {
        double a = *(const double *)x, b = *(const double *)y;

        return (a > b) - (a < b);
}

/* The k-th smallest value (0-based) without a copy: O(n^2), used only when
 * the copy cannot be allocated. */
static double select_slow(const double *v, size_t n, size_t k) {
        for (size_t i = 0; i < n; i++) {
                size_t less = 0, equal = 0;

                for (size_t j = 0; j < n; j++) {
                        less += v[j] < v[i];
                        equal += v[j] == v[i];
                }
                if (less <= k && k < less + equal)
                        return v[i];
        }
        return NAN;
}

static double median(const double *v, size_t n) {
        double *s = malloc(n * sizeof(*s)), m;

        if (!s) {
                double lo = select_slow(v, n, (n - 1) / 2), hi = select_slow(v, n, n / 2);
                return lo / 2.0 + hi / 2.0;
        }
        for (size_t i = 0; i < n; i++)
                s[i] = v[i];
        qsort(s, n, sizeof(*s), cmp_double);
        /* Halves first: the sum of two huge values would overflow. */
        m = s[(n - 1) / 2] / 2.0 + s[n / 2] / 2.0;
        free(s);
        return m;
}

void stats_summarize(const double *v, size_t n, struct stats_summary *ret) {
        struct stats_summary s = {
                .n = n, .mean = NAN, .median = NAN, .sd = NAN, .min = NAN, .max = NAN, .cov = NAN,
        };
        double scale, mean, var;

        if (n == 0) {
                *ret = s;
                return;
        }
        s.min = s.max = v[0];
        for (size_t i = 1; i < n; i++) {
                if (v[i] < s.min)
                        s.min = v[i];
                if (v[i] > s.max)
                        s.max = v[i];
        }
        s.median = median(v, n);
        scale = max_abs(v, n);
        if (scale == 0.0) {
                s.mean = 0.0;
                s.sd = n < 2 ? NAN : 0.0;
        } else {
                moments_scaled(v, n, scale, &mean, &var);
                s.mean = mean * scale;
                s.sd = sqrt(var) * scale;
        }
        if (s.mean != 0.0)
                s.cov = s.sd / fabs(s.mean);
        *ret = s;
}

/* ---- the Student t distribution --------------------------------------- */

/* Lentz's guard: a denominator this close to 0 is taken as this. */
#define LENTZ_TINY 1e-300

/* One step of the modified Lentz method: the continued fraction's next
 * coefficient num updates the ratios c and d; returns the factor the
 * fraction's value takes. */
static double lentz_step(double num, double *c, double *d) {
        *d = 1.0 + num * *d;
        if (fabs(*d) < LENTZ_TINY)
                *d = LENTZ_TINY;
        *c = 1.0 + num / *c;
        if (fabs(*c) < LENTZ_TINY)
                *c = LENTZ_TINY;
        *d = 1.0 / *d;
        return *d * *c;
}

/* Continued fraction of the incomplete beta function (DLMF 8.17.22),
 * evaluated with the modified Lentz method; converges fast for
 * x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x) {
        double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

        if (fabs(d) < LENTZ_TINY)
                d = LENTZ_TINY;
        d = 1.0 / d;
        h = d;
        for (int m = 1; m <= 10000; m++) {
                double delta;

                /* even step d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
                h *= lentz_step(m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)), &c, &d);
                /* odd step d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
                delta = lentz_step(-(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)), &c, &d);
                h *= delta;
                if (fabs(delta - 1.0) < 1e-16)
                        break;
        }
        return h;
}

#define LN_SQRT_2PI 0.918938533204672741780329736406 /* log(sqrt(2 pi)) */

/* The correction term of Stirling's series, lgamma(x) - ((x - 1/2) log x
 * - x + log sqrt(2 pi)), for x >= 10: the next term is below 1e-15. */
static double lgamma_corr(double x) {
        double r = 1.0 / (x * x);

        return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r * (1.0 / 1188 - r * 691.0 / 360360))))) / x;
}

/* log B(p, q). lgamma(p) + lgamma(q) - lgamma(p + q) loses about
 * lgamma(q) * DBL_EPSILON to cancellation (1e-10 at q = 5e4, the t with
 * 1e5 df); Stirling's series with the large terms cancelled analytically
 * keeps full precision. */
static double log_beta(double a, double b) {
        double p = fmin(a, b), q = fmax(a, b);

        if (q < 10.0)
                return lgamma(p) + lgamma(q) - lgamma(p + q);
        if (p < 10.0)
                return lgamma(p) + lgamma_corr(q) - lgamma_corr(p + q) + p - p * log(p + q) +
                       (q - 0.5) * log1p(-p / (p + q));
        return -0.5 * log(q) + LN_SQRT_2PI + lgamma_corr(p) + lgamma_corr(q) - lgamma_corr(p + q) +
               (p - 0.5) * log(p / (p + q)) + q * log1p(-p / (p + q));
}

/* The regularised incomplete beta I_x(a, b) given x and y = 1 - x (the
 * caller computes y without cancellation). The tail that is small is
 * computed directly, so *ret_lower = I_x(a, b) and *ret_upper = 1 - I_x(a, b)
 * each keep their relative precision where they are tiny. */
static void beta_inc(double a, double b, double x, double y, double *ret_lower, double *ret_upper) {
        double front;

        if (x <= 0.0) {
                *ret_lower = 0.0;
                *ret_upper = 1.0;
                return;
        }
        if (y <= 0.0) {
                *ret_lower = 1.0;
                *ret_upper = 0.0;
                return;
        }
        /* log x from y when x is near 1, where x itself has lost digits */
        front = exp(a * (x < 0.5 ? log(x) : log1p(-y)) + b * (y < 0.5 ? log(y) : log1p(-x)) - log_beta(a, b));
        if (x < (a + 1.0) / (a + b + 2.0)) {
                *ret_lower = front * beta_cf(a, b, x) / a;
                *ret_upper = 1.0 - *ret_lower;
        } else {
                *ret_upper = front * beta_cf(b, a, y) / b;
                *ret_lower = 1.0 - *ret_upper;
        }
}

/* For t >= 0: *ret_tail = P(T > t) and *ret_central = P(0 < T < t), each
 * computed directly, so the quantile near the median (where P(T > t) is
 * 0.5 minus a little) keeps its relative precision too. */
static void t_parts(double t, double df, double *ret_tail, double *ret_central) {
        double x, y, lower, upper;

        if (isinf(t)) {
                *ret_tail = 0.0;
                *ret_central = 0.5;
                return;
        }
        /* P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
        x = df / (df + t * t);
        y = t * t / (df + t * t);
        beta_inc(df / 2.0, 0.5, x, y, &lower, &upper);
        *ret_tail = lower / 2.0;
        *ret_central = upper / 2.0;
}

/* P(T > t) for Student's t with df degrees of freedom. */
static double t_sf(double t, double df) {
        double tail, central;

        if (isnan(t) || isnan(df) || df <= 0.0)
                return NAN;
        t_parts(fabs(t), df, &tail, &central);
        return t >= 0 ? tail : 0.5 + central;
}

double stats_t_cdf(double t, double df) {
        return t_sf(-t, df);
}

/* Whether t is still below the quantile sought: P(0 < T < t) short of
 * target when central, else P(T > t) above it. */
static int t_below(double t, double df, int central, double target) {
        double tail, mid;

        t_parts(t, df, &tail, &mid);
        return central ? mid < target : tail > target;
}

/* The t > 0 with P(T > t) = q, 0 < q < 1/2, by bisection (monotone, and it
 * cannot wander off for tiny df). For q >= 1/4 the target is stated as
 * P(0 < T < t) = 1/2 - q, exact in floating point (Sterbenz). */
static double t_isf(double q, double df) {
        int central = q >= 0.25;
        double target = central ? 0.5 - q : q, lo = 0.0, hi = 1.0;

        while (t_below(hi, df, central, target)) {
                lo = hi;
                hi *= 2.0;
                if (hi > 1e300)
                        return INFINITY;
        }
        for (int i = 0; i < 2000 && hi - lo > 4 * DBL_EPSILON * hi; i++) {
                double mid = lo + (hi - lo) / 2.0;

                if (t_below(mid, df, central, target))
                        lo = mid;
                else
                        hi = mid;
        }
        return lo + (hi - lo) / 2.0;
}

double stats_t_quantile(double p, double df) {
        if (isnan(p) || isnan(df) || df <= 0.0 || p < 0.0 || p > 1.0)
                return NAN;
        if (p == 0.0)
                return -INFINITY;
        if (p == 1.0)
                return INFINITY;
        if (p == 0.5)
                return 0.0;
        return p > 0.5 ? t_isf(1.0 - p, df) : -t_isf(p, df);
}

/* ---- power of the two-sided t test ------------------------------------ */

/* The standard normal cdf, through erfc so that both tails are precise. */
static double norm_cdf(double x) {
        return 0.5 * erfc(-x / M_SQRT2);
}

struct power_ctx {
        double df, nc, crit, log_norm;
        long budget;               /* integrand evaluations left for refining */
};

/* The power integrand: P(|Z + nc| > crit * s) times the density of
 * S = sqrt(chi2_df / df) at s. */
static double power_integrand(const struct power_ctx *c, double s) {
        double log_f;

        if (s <= 0.0)
                return c->df == 1.0 ? sqrt(2.0 / M_PI) * (norm_cdf(c->nc) + norm_cdf(-c->nc)) : 0.0;
        /* (df - 1) log s - df s^2 / 2 + df / 2, written as
         * z (log1p(w) - w) - log s with z = df / 2, w = s^2 - 1: the terms of
         * size df cancel analytically instead of in floating point, which
         * for df = 1e6 would leave noise of 1e-10 that no quadrature
         * tolerance gets under. */
        if (s < 0.5) /* far from 1, where s^2 - 1 would round s away */
                log_f = c->log_norm + c->df / 2.0 * (2.0 * log(s) - s * s + 1.0) - log(s);
        else
                log_f = c->log_norm + c->df / 2.0 * (log1p(s * s - 1.0) - (s * s - 1.0)) - log(s);
        return (norm_cdf(c->nc - c->crit * s) + norm_cdf(-c->nc - c->crit * s)) * exp(log_f);
}

static double simpson_adapt(struct power_ctx *c, double a, double b, double fa, double fm, double fb,
                            double whole, double tol, int depth) {
        double m = (a + b) / 2.0, lm = (a + m) / 2.0, rm = (m + b) / 2.0;
        double flm = power_integrand(c, lm), frm = power_integrand(c, rm);
        double left = (m - a) / 6.0 * (fa + 4.0 * flm + fm), right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);

        /* The budget bounds the work should rounding keep the error
         * estimate above tol; accurate integrands never come near it. */
        c->budget -= 2;
        if (depth <= 0 || c->budget <= 0 || fabs(left + right - whole) <= 15.0 * tol)
                return left + right + (left + right - whole) / 15.0;
        return simpson_adapt(c, a, m, fa, flm, fm, left, tol / 2.0, depth - 1) +
               simpson_adapt(c, m, b, fm, frm, fb, right, tol / 2.0, depth - 1);
}

/* The power for df >= 1 at the critical value crit = t_{1-alpha/2, df}. */
static double t_power_at(double df, double nc, double crit) {
        struct power_ctx c = { .df = df, .nc = fabs(nc), .crit = crit, .budget = 200000 };
        double z = df / 2.0, corr, mode, sd, lo, hi, width, sum = 0.0;
        const int panels = 64;

        if (isinf(nc))
                return 1.0;
        /* log of 2 z^z e^-z / Gamma(z) by Stirling's series:
         * log 2 + log(z) / 2 - log sqrt(2 pi) - corr(z) */
        corr = z >= 10.0 ? lgamma_corr(z) : lgamma(z) - ((z - 0.5) * log(z) - z + LN_SQRT_2PI);
        c.log_norm = log(2.0) + 0.5 * log(z) - LN_SQRT_2PI - corr;
        /* S has its mode at sqrt((df - 1) / df) and a spread of about
         * 1 / sqrt(2 df); 15 spreads either side hold all but e^-100 of it. */
        mode = sqrt((df - 1.0) / df);
        sd = 1.0 / sqrt(2.0 * df);
        lo = fmax(0.0, mode - 15.0 * sd);
        hi = mode + 15.0 * sd;
        width = (hi - lo) / panels;
        for (int i = 0; i < panels; i++) {
                double a = lo + i * width, b = a + width, m = (a + b) / 2.0;
                double fa = power_integrand(&c, a), fm = power_integrand(&c, m), fb = power_integrand(&c, b);

                /* 1e-11 in all: far above the rounding noise of a panel (so
                 * the recursion ends), far below any power we report. */
                sum += simpson_adapt(&c, a, b, fa, fm, fb, width / 6.0 * (fa + 4.0 * fm + fb), 1e-11 / panels, 30);
        }
        return fmin(1.0, fmax(0.0, sum));
}

double stats_t_power(double df, double nc, double alpha) {
        if (!(df >= 1.0) || !isfinite(df) || isnan(nc) || !(alpha > 0.0 && alpha < 1.0))
                return NAN;
        return t_power_at(df, nc, stats_t_quantile(1.0 - alpha / 2.0, df));
}

/* ---- Welch ------------------------------------------------------------ */

/* Welch-Satterthwaite df for standard errors wa = sa / sqrt(na) and
 * wb = sb / sqrt(nb), normalised first so that the fourth powers of huge
 * spreads do not overflow. */
static double welch_df(double wa, double wb, size_t na, size_t nb) {
        double m = fmax(wa, wb), ra, rb;

        if (!(m > 0.0))
                return NAN;
        ra = (wa / m) * (wa / m);
        rb = (wb / m) * (wb / m);
        return (ra + rb) * (ra + rb) / (ra * ra / (double)(na - 1) + rb * rb / (double)(nb - 1));
}

int stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_test *ret) {
        double scale, ma, va, mb, vb, wa, wb, se, t, df;

        *ret = (struct stats_test){ .statistic = NAN, .df = NAN, .p = NAN, .exact = 0 };
        if (na < 2 || nb < 2)
                return -EDOM;
        scale = fmax(max_abs(a, na), max_abs(b, nb));
        if (scale == 0.0)
                return -EDOM;
        moments_scaled(a, na, scale, &ma, &va);
        moments_scaled(b, nb, scale, &mb, &vb);
        if (va == 0.0 && vb == 0.0)
                return -EDOM;
        wa = sqrt(va / (double)na);
        wb = sqrt(vb / (double)nb);
        se = hypot(wa, wb);
        t = (ma - mb) / se;
        df = welch_df(wa, wb, na, nb);
        ret->statistic = t;
        ret->df = df;
        ret->p = fmin(1.0, 2.0 * t_sf(fabs(t), df));
        return 0;
}

/* ---- Yuen ------------------------------------------------------------- */

int stats_trimmed(const double *x, size_t n, double trim, double *ret_mean, double *ret_se2) {
        size_t g = (size_t)floor(trim * (double)n), h = n - 2 * g;
        double *s, scale, mean, wmean, wvar;

        if (!(trim >= 0 && trim < 0.5) || n < 2 || h < 2)
                return -EDOM;
        s = malloc(n * sizeof(*s));
        if (!s)
                return -ENOMEM;
        memcpy(s, x, n * sizeof(*s));
        qsort(s, n, sizeof(*s), cmp_double);
        /* The trimmed mean, then the ends winsorized (set to the nearest
         * kept value) for the variance. Scaled as Welch's moments are. */
        scale = max_abs(s, n);
        if (scale == 0.0)
                scale = 1;
        moments_scaled(s + g, h, scale, &mean, &wvar);
        for (size_t i = 0; i < g; i++) {
                s[i] = s[g];
                s[n - 1 - i] = s[n - 1 - g];
        }
        moments_scaled(s, n, scale, &wmean, &wvar);
        free(s);
        *ret_mean = mean * scale;
        *ret_se2 = (double)(n - 1) * wvar / ((double)h * (double)(h - 1)) * scale * scale;
        return 0;
}

int stats_yuen(const double *a, size_t na, const double *b, size_t nb, double trim, double level,
               struct stats_test *ret_test, struct stats_interval *ret_diff) {
        double ma, da, mb, db, se, df, ha, hb;
        int r;

        *ret_test = (struct stats_test){ .statistic = NAN, .df = NAN, .p = NAN, .exact = 0 };
        *ret_diff = (struct stats_interval){ .estimate = NAN, .lo = NAN, .hi = NAN };
        if (!(level > 0 && level < 1))
                return -EDOM;
        r = stats_trimmed(a, na, trim, &ma, &da);
        if (r >= 0)
                r = stats_trimmed(b, nb, trim, &mb, &db);
        if (r < 0)
                return r;
        ret_diff->estimate = mb - ma;
        se = sqrt(da + db);
        if (!(se > 0.0) || !isfinite(se)) {
                ret_diff->lo = ret_diff->hi = ret_diff->estimate;
                return -EDOM;
        }
        ha = (double)(na - 2 * (size_t)floor(trim * (double)na));
        hb = (double)(nb - 2 * (size_t)floor(trim * (double)nb));
        /* Welch-Satterthwaite on the two squared standard errors, each
         * with h - 1 degrees of freedom. */
        df = welch_df(sqrt(da), sqrt(db), (size_t)ha, (size_t)hb);
        ret_test->statistic = (ma - mb) / se;
        ret_test->df = df;
        ret_test->p = fmin(1.0, 2.0 * t_sf(fabs(ret_test->statistic), df));
        ret_diff->lo = ret_diff->estimate - stats_t_quantile((1.0 + level) / 2.0, df) * se;
        ret_diff->hi = ret_diff->estimate + stats_t_quantile((1.0 + level) / 2.0, df) * se;
        return 0;
}

/* ---- Mann-Whitney U --------------------------------------------------- */

struct tagged {
        double v;
        int from_a;
};

static int cmp_tagged(const void *x, const void *y) {
        const struct tagged *a = x, *b = y;

        return (a->v > b->v) - (a->v < b->v);
}

/* P(U >= u) under the null for sizes m, n without ties. counts[k][.] holds
 * the number of arrangements of k values of a among n' values of b with
 * each U (the number of pairs where a is larger); the largest value of an
 * arrangement is either an a, which beats all n' b values, or a b, which
 * beats none: c(u; k, n') = c(u - n'; k - 1, n') + c(u; k, n' - 1). */
static int mwu_exact_sf(size_t m, size_t n, size_t u, double *ret_p) {
        size_t len = m * n + 1;
        double *c = calloc((m + 1) * len, sizeof(*c)), tail = 0.0, total = 0.0;

        if (!c)
                return -ENOMEM;
        for (size_t k = 0; k <= m; k++)
                c[k * len] = 1.0;
        for (size_t nn = 1; nn <= n; nn++)
                for (size_t k = 1; k <= m; k++)
                        for (size_t v = k * nn; v >= nn; v--)
                                c[k * len + v] += c[(k - 1) * len + v - nn];
        /* From the far end: the smallest counts first, so none is lost. */
        for (size_t v = m * n; v >= u && v != SIZE_MAX; v--)
                tail += c[m * len + v];
        for (size_t v = 0; v < len; v++)
                total += c[m * len + v];
        free(c);
        *ret_p = tail / total;
        return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct stats_test *ret) {
        size_t n = na + nb;
        struct tagged *all;
        double r1 = 0.0, tie_term = 0.0, u1, u2, u, p;
        int ties = 0, r;

        *ret = (struct stats_test){ .statistic = NAN, .df = NAN, .p = NAN, .exact = 0 };
        if (na == 0 || nb == 0)
                return -EDOM;
        all = malloc(n * sizeof(*all));
        if (!all)
                return -ENOMEM;
        for (size_t i = 0; i < na; i++)
                all[i] = (struct tagged){ a[i], 1 };
        for (size_t i = 0; i < nb; i++)
                all[na + i] = (struct tagged){ b[i], 0 };
        qsort(all, n, sizeof(*all), cmp_tagged);
        for (size_t i = 0, j; i < n; i = j) {
                double rank, t;
                size_t in_a = 0;

                for (j = i; j < n && all[j].v == all[i].v; j++)
                        in_a += all[j].from_a;
                /* positions i..j-1 (0-based) share the mid-rank */
                rank = (double)(i + j + 1) / 2.0;
                r1 += rank * (double)in_a;
                t = (double)(j - i);
                if (t > 1) {
                        ties = 1;
                        tie_term += t * t * t - t;
                }
        }
        free(all);
        u1 = r1 - (double)na * (double)(na + 1) / 2.0;
        u2 = (double)na * (double)nb - u1;
        u = fmax(u1, u2);
        ret->statistic = u1;
        if (!ties && na <= MWU_EXACT_MAX && nb <= MWU_EXACT_MAX) {
                /* SciPy's method="exact": 2 P(U >= max(U1, U2)), capped at 1 */
                r = mwu_exact_sf(na, nb, (size_t)llround(u), &p);
                if (r < 0)
                        return r;
                ret->exact = 1;
                ret->p = fmin(1.0, 2.0 * p);
        } else {
                /* SciPy's method="asymptotic", use_continuity=True */
                double nd = (double)n, mu = (double)na * (double)nb / 2.0;
                double s = sqrt((double)na * (double)nb / 12.0 * ((nd + 1.0) - tie_term / (nd * (nd - 1.0))));

                ret->exact = 0;
                /* All values tied: no evidence either way (SciPy gives 1 too). */
                ret->p = s > 0.0 ? fmin(1.0, 2.0 * norm_cdf(-(u - mu - 0.5) / s)) : 1.0;
        }
        return 0;
}

double stats_mann_whitney_min_p(size_t na, size_t nb) {
        /* C(na + nb, na) as a product of ratios: exact for small sizes,
         * overflows to inf (min p 0) only beyond any real sample. */
        double c = 1.0;

        for (size_t i = 1; i <= na; i++)
                c = c * (double)(nb + i) / (double)i;
        return fmin(1.0, 2.0 / c);
}

/* ---- Benjamini-Hochberg ----------------------------------------------- */

struct indexed {
        double p;
        size_t i;
};

static int cmp_indexed_desc(const void *x, const void *y) {
        const struct indexed *a = x, *b = y;

        if (a->p != b->p)
                return (a->p < b->p) - (a->p > b->p);
        return (a->i > b->i) - (a->i < b->i);
}

void stats_bh_adjust(const double *p, size_t n, double *ret_q) {
        struct indexed *s = malloc((n ? n : 1) * sizeof(*s));
        size_t m = 0;
        double run = INFINITY;

        if (!s) {
                /* Without memory there is no honest answer; NAN is never
                 * taken for significance. */
                for (size_t i = 0; i < n; i++)
                        ret_q[i] = NAN;
                return;
        }
        for (size_t i = 0; i < n; i++)
                if (!isnan(p[i]))
                        s[m++] = (struct indexed){ p[i], i };
        qsort(s, m, sizeof(*s), cmp_indexed_desc);
        /* R: pmin(1, cummin(n / i * p[o])) with o the decreasing order and
         * i = n .. 1; tied p-values come out equal whatever their order.
         * All p are read (into s) before ret_q, which may alias p, is written. */
        for (size_t k = 0; k < m; k++) {
                double q = (double)m / (double)(m - k) * s[k].p;

                if (q < run)
                        run = q;
                s[k].p = fmin(1.0, run);
        }
        for (size_t i = 0; i < n; i++)
                if (isnan(p[i]))
                        ret_q[i] = NAN;
        for (size_t k = 0; k < m; k++)
                ret_q[s[k].i] = s[k].p;
        free(s);
}

/* ---- Welch's interval of a difference ----------------------------------- */

int stats_diff_ci(const double *a, size_t na, const double *b, size_t nb, double level,
                  struct stats_interval *ret) {
        struct stats_summary sa, sb;
        double wa, wb, se, half;

        *ret = (struct stats_interval){ .estimate = NAN, .lo = NAN, .hi = NAN };
        if (na < 2 || nb < 2 || !(level > 0 && level < 1))
                return -EDOM;
        stats_summarize(a, na, &sa);
        stats_summarize(b, nb, &sb);
        ret->estimate = sb.mean - sa.mean;
        wa = sa.sd * sa.sd / (double)na;
        wb = sb.sd * sb.sd / (double)nb;
        se = sqrt(wa + wb);
        if (se == 0.0) {
                ret->lo = ret->hi = ret->estimate;
                return 0;
        }
        half = stats_t_quantile((1.0 + level) / 2.0, (wa + wb) * (wa + wb) /
                                (wa * wa / (double)(na - 1) + wb * wb / (double)(nb - 1))) * se;
        ret->lo = ret->estimate - half;
        ret->hi = ret->estimate + half;
        return 0;
}

/* ---- Fieller's interval ----------------------------------------------- */

int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level,
                   struct stats_interval *ret) {
        double sa, sb, ma, va, mb, vb, v11, v22, rho, df, t, g, half;

        *ret = (struct stats_interval){ .estimate = NAN, .lo = NAN, .hi = NAN };
        if (na == 0 || nb == 0)
                return -EDOM;
        /* Each side in its own scale; the ratio is rescaled at the end. */
        sa = max_abs(a, na);
        sb = max_abs(b, nb);
        if (sa == 0.0)
                return -EDOM;
        if (sb == 0.0)
                sb = 1.0;
        moments_scaled(a, na, sa, &ma, &va);
        moments_scaled(b, nb, sb, &mb, &vb);
        rho = mb / ma;
        ret->estimate = rho * (sb / sa);
        if (na < 2 || nb < 2 || !(level > 0.0 && level < 1.0))
                return -EDOM;
        v11 = va / (double)na;
        v22 = vb / (double)nb;
        if (v11 == 0.0 && v22 == 0.0) {
                /* No spread on either side: the interval is the point. */
                ret->lo = ret->hi = ret->estimate;
                return 0;
        }
        /* Satterthwaite df of the pivot mean(b) - rho mean(a), whose variance
         * is v22 + rho^2 v11, with rho at its estimate. (The df of the plain
         * difference b - a would change when b alone is rescaled, which a
         * ratio must not.) */
        {
                double x = rho * rho * v11, y = v22, m = fmax(x, y);

                /* b without spread and mean 0: the pivot is exactly 0 at rho = 0 */
                if (m == 0.0) {
                        ret->lo = ret->hi = ret->estimate;
                        return 0;
                }
                x /= m;
                y /= m;
                df = (x + y) * (x + y) / (x * x / (double)(na - 1) + y * y / (double)(nb - 1));
        }
        t = stats_t_quantile((1.0 + level) / 2.0, df);
        /* (mb - rho ma)^2 = t^2 (v22 + rho^2 v11) has two finite roots only
         * when ma is significantly non-zero: g = t^2 v11 / ma^2 < 1. */
        g = t * t * v11 / (ma * ma);
        if (!(g < 1.0))
                return -EDOM;
        half = t / fabs(ma) * sqrt(v22 * (1.0 - g) + rho * rho * v11);
        ret->lo = (rho - half) / (1.0 - g) * (sb / sa);
        ret->hi = (rho + half) / (1.0 - g) * (sb / sa);
        return 0;
}

/* ---- the mean's interval ---------------------------------------------- */

int stats_mean_ci(const struct stats_summary *s, double level, double *ret_lo, double *ret_hi) {
        double half;

        *ret_lo = *ret_hi = NAN;
        if (s->n < 2 || !isfinite(s->sd) || !(level > 0.0 && level < 1.0))
                return -EDOM;
        half = stats_t_quantile((1.0 + level) / 2.0, (double)(s->n - 1)) * s->sd / sqrt((double)s->n);
        *ret_lo = s->mean - half;
        *ret_hi = s->mean + half;
        return 0;
}

/* ---- resolution ------------------------------------------------------- */

/* The noncentrality at which the two-sided t test at alpha with df degrees
 * of freedom reaches the power. Power grows with the noncentrality from
 * alpha at 0: bracket by doubling, then regula falsi with the Illinois
 * modification (a handful of power evaluations, where bisection to the
 * same precision takes 45). */
static double nc_for_power(double df, double alpha, double power) {
        double crit = stats_t_quantile(1.0 - alpha / 2.0, df);
        double lo = 0.0, hi = 4.0, flo = alpha - power, fhi;
        int side = 0;

        while ((fhi = t_power_at(df, hi, crit) - power) < 0.0) {
                lo = hi;
                flo = fhi;
                hi *= 2.0;
                if (hi > 1e12)
                        return NAN;
        }
        for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
                double mid = (lo * fhi - hi * flo) / (fhi - flo), fmid;

                if (!(mid > lo && mid < hi))
                        mid = lo + (hi - lo) / 2.0;
                fmid = t_power_at(df, mid, crit) - power;
                if (fmid == 0.0)
                        return mid;
                if (fmid < 0.0) {
                        lo = mid;
                        flo = fmid;
                        if (side == -1)
                                fhi /= 2.0;
                        side = -1;
                } else {
                        hi = mid;
                        fhi = fmid;
                        if (side == 1)
                                flo /= 2.0;
                        side = 1;
                }
        }
        return lo + (hi - lo) / 2.0;
}

/* Definition: the Welch statistic for a true difference of means D is
 * taken as noncentral t with the Welch-Satterthwaite df of these sample
 * spreads and noncentrality D / se, se = sqrt(sa^2 / na + sb^2 / nb). The
 * MDE is the D at which P(|T| > t_{1-alpha/2, df}) equals the power,
 * divided by |mean(a)|. (The textbook (t_{1-alpha/2} + t_{power}) se is a
 * normal-theory shortcut that overstates the power for few repeats.) */
double stats_mde(const struct stats_summary *a, const struct stats_summary *b, double alpha, double power) {
        double wa, wb, se, df, nc;

        if (a->n < 2 || b->n < 2 || !isfinite(a->mean) || a->mean == 0.0 || !isfinite(a->sd) ||
            !isfinite(b->sd) || !(alpha > 0.0 && alpha < 1.0) || !(power > alpha && power < 1.0))
                return NAN;
        wa = a->sd / sqrt((double)a->n);
        wb = b->sd / sqrt((double)b->n);
        se = hypot(wa, wb);
        if (!(se > 0.0))
                return NAN;
        df = welch_df(wa, wb, a->n, b->n);
        nc = nc_for_power(df, alpha, power);
        return nc * (se / fabs(a->mean));
}

/* Power with n repeats per side, both sides with sd = cov * |mean(a)|:
 * df = 2 (n - 1), noncentrality effect / (cov sqrt(2 / n)). */
static double power_at_n(double cov, double effect, double alpha, size_t n) {
        return stats_t_power(2.0 * (double)(n - 1), effect / (cov * sqrt(2.0 / (double)n)), alpha);
}

size_t stats_n_for_effect(double cov, double effect, double alpha, double power, size_t max_n) {
        size_t lo, hi;

        if (!isfinite(cov) || cov < 0.0 || isnan(effect) || !(alpha > 0.0 && alpha < 1.0) ||
            !(power > alpha && power < 1.0))
                return 0;
        effect = fabs(effect);
        if (max_n < 2)
                return max_n + 1;
        /* No spread: the smallest sample the test is defined on suffices. */
        if (cov == 0.0)
                return effect > 0.0 ? 2 : max_n + 1;
        if (effect == 0.0 || power_at_n(cov, effect, alpha, max_n) < power)
                return max_n + 1;
        /* Power grows with n (more df, larger noncentrality): find the first
         * n that reaches it by doubling, then bisection. */
        lo = 1;
        hi = 2;
        while (hi < max_n && power_at_n(cov, effect, alpha, hi) < power) {
                lo = hi;
                hi = hi > max_n / 2 ? max_n : hi * 2;
        }
        /* invariant: power(hi) >= power, and lo < 2 or power(lo) < power */
        while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;

                if (power_at_n(cov, effect, alpha, mid) < power)
                        lo = mid;
                else
                        hi = mid;
        }
        return hi;
}

double stats_binom_sf(size_t k, size_t n, double p) {
        double sum = 0;

        if (!(p >= 0 && p <= 1))
                return NAN;
        if (k == 0)
                return 1;
        if (k > n)
                return 0;
        if (p == 0 || p == 1)
                return p;
        /* Term by term in logs: C(n, i) p^i (1 - p)^(n - i), i = k..n. */
        for (size_t i = k; i <= n; i++)
                sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
                           (double)i * log(p) + (double)(n - i) * log1p(-p));
        return fmin(1, sum);
}
