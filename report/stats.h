/* report/stats: the statistics behind `kbench show`, `kbench compare`,
 * nightly and the site. Pure functions over arrays of doubles: no I/O, no
 * allocation visible to the caller, deterministic. Two-sided tests follow
 * SciPy's conventions (scipy.stats.ttest_ind(a, b, equal_var=False),
 * scipy.stats.mannwhitneyu(a, b)) so the reference values computed by
 * report/stats-oracle.py can be compared one to one. Non-finite inputs are
 * the caller's bug: views filter NULL metrics out before calling. */
#pragma once

#include <stddef.h>

/* Descriptive statistics of one sample. */
struct stats_summary {
        size_t n;
        double mean;               /* NAN when n == 0 */
        double median;             /* NAN when n == 0 */
        double sd;                 /* sample stddev (n - 1); NAN when n < 2 */
        double min, max;           /* NAN when n == 0 */
        double cov;                /* sd / |mean|, a fraction; NAN when undefined */
};

void stats_summarize(const double *v, size_t n, struct stats_summary *ret);

/* Result of a two-sample test. */
struct stats_test {
        double statistic;          /* Welch: t of a minus b; Mann-Whitney: U of a (U1) */
        double df;                 /* Welch: Welch-Satterthwaite df; Mann-Whitney: NAN */
        double p;                  /* two-sided p-value; NAN when the test is undefined */
        int exact;                 /* Mann-Whitney: 1 exact distribution, 0 normal approx. */
};

/* Welch's unequal-variances t-test. Undefined (p = NAN, returns -EDOM) when
 * a side has fewer than 2 values or both variances are 0. On -EDOM *ret
 * is still written, all NAN, so a view can print it as undefined. */
int stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_test *ret);

/* Mann-Whitney U, two-sided. Exact distribution when there are no ties and
 * both samples are small (see stats.c for the bound); otherwise the normal
 * approximation with tie correction and continuity correction (SciPy's
 * method="asymptotic", use_continuity=True). -EDOM when a side is empty,
 * -ENOMEM when the rank or count table cannot be allocated. */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct stats_test *ret);

/* The smallest two-sided p-value the exact Mann-Whitney test can give for
 * sizes na, nb (2 / C(na + nb, na)): when it exceeds alpha, no rank test of
 * this comparison can ever reach significance. */
double stats_mann_whitney_min_p(size_t na, size_t nb);

/* Benjamini-Hochberg adjusted p-values (R's p.adjust(p, "BH")): q[i] for
 * p[i], in the input order. NAN p-values are left out of the family and
 * come back as NAN. ret_q may alias p. */
void stats_bh_adjust(const double *p, size_t n, double *ret_q);

/* A confidence interval of mean(b) / mean(a), or of mean(b) - mean(a). */
struct stats_interval {
        double estimate;           /* mean(b) / mean(a), or mean(b) - mean(a) */
        double lo, hi;             /* NAN, NAN when unbounded or undefined */
};

/* Fieller's interval for the ratio of two independent means, at confidence
 * level (0.95), with Welch-Satterthwaite degrees of freedom. -EDOM when the
 * interval is unbounded (mean(a) not significantly different from 0) or a
 * side has fewer than 2 values. */
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level,
                   struct stats_interval *ret);

/* Welch's interval for the difference mean(b) - mean(a) at confidence
 * level (0.95): the difference -+ t_{(1 + level) / 2, df} se, with se and
 * df those of Welch's test (R's t.test(b, a, var.equal = FALSE)$conf.int).
 * Defined when mean(a) is 0, which a ratio is not: an amount that is 0
 * without a regression (seconds spent spinning) is judged by this. When
 * neither side has spread the interval is the point. -EDOM when a side has
 * fewer than 2 values or level is outside (0, 1); *ret is still written,
 * lo and hi NAN. */
int stats_diff_ci(const double *a, size_t na, const double *b, size_t nb, double level,
                  struct stats_interval *ret);

/* Yuen's test of trimmed means: trim (0.2) of each sorted side cut from
 * each end (g = floor(trim n) values), the trimmed means compared with
 * Welch's test on the winsorized variances (Yuen 1974; SciPy's
 * ttest_ind(equal_var=False, trim=...)). One stray value per end of six
 * no longer sets the interval. With g = 0 (n < 5 at 0.2) it is Welch's
 * test. Writes *ret_test (statistic: t of a minus b) and *ret_diff (the
 * trimmed mean of b minus that of a, its interval at level). -EDOM, t
 * and p NAN, when a side keeps fewer than 2 values (then all is NAN) or
 * neither side has spread once winsorized (then the interval is the
 * estimate); -ENOMEM. */
int stats_yuen(const double *a, size_t na, const double *b, size_t nb, double trim, double level,
               struct stats_test *ret_test, struct stats_interval *ret_diff);

/* The trimmed mean of x (trim as stats_yuen), and its squared standard
 * error (n - 1) s_w^2 / (h (h - 1)), s_w^2 the winsorized variance and h
 * the values kept. -EDOM when fewer than 2 are kept; -ENOMEM. */
int stats_trimmed(const double *x, size_t n, double trim, double *ret_mean, double *ret_se2);

/* Student's t interval of one sample's mean at confidence level (0.95):
 * mean -+ t_{(1 + level) / 2, n - 1} sd / sqrt(n) (SciPy's
 * stats.t.interval(level, n - 1, mean, sd / sqrt(n))); the point itself
 * when sd is 0. -EDOM when n < 2 or level is outside (0, 1); on -EDOM
 * *ret_lo and *ret_hi are still written, NAN, so a page can draw no bar. */
int stats_mean_ci(const struct stats_summary *s, double level, double *ret_lo, double *ret_hi);

/* Minimum detectable effect: the smallest relative change of the mean
 * (a fraction of mean(a)) that a two-sided Welch test at alpha detects with
 * the given power (0.8), for these spreads and sizes. NAN when undefined. */
double stats_mde(const struct stats_summary *a, const struct stats_summary *b, double alpha, double power);

/* Repeats per side needed to detect a relative change `effect` (0.02 for
 * 2 %) with the given power at alpha, assuming both sides have the
 * coefficient of variation cov. 0 when cov is not finite; capped at
 * max_n (returns max_n + 1 when even max_n is not enough). cov 0 (no
 * spread) needs the 2 values per side a t test is defined on. */
size_t stats_n_for_effect(double cov, double effect, double alpha, double power, size_t max_n);

/* The Student t distribution with df > 0 degrees of freedom (df need not
 * be an integer): P(T <= t), and the t with P(T <= t) = p (-inf and inf at
 * p = 0 and 1). NAN for a NAN argument, df <= 0 or p outside [0, 1]. */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

/* Power of the two-sided t test at alpha when the statistic is noncentral
 * t with df >= 1 degrees of freedom and noncentrality nc (the true
 * difference over its standard error): P(|T| > t_{1-alpha/2, df}). NAN for
 * df < 1 or alpha outside (0, 1). stats_mde and stats_n_for_effect solve
 * this for the effect and for n. */
double stats_t_power(double df, double nc, double alpha);

/* The binomial upper tail P(X >= k) for X ~ Binomial(n, p): the chance
 * that at least k of n independent cells, each with probability p, do
 * something. 1 for k = 0, 0 for k > n; NAN for p outside [0, 1] or NAN.
 * Checked against SciPy's binom.sf(k - 1, n, p). */
double stats_binom_sf(size_t k, size_t n, double p);
