/* report/compare: the comparison view of `kbench compare` (and, later,
 * nightly): two selections of cells, A and B, paired like with like, and per
 * metric the statistics and a verdict a kernel developer can act on.
 *
 * Pairing: cells are grouped by their pairing key (settings/pairkey.h:
 * every guest and workload setting, the cell's params_json over the run's
 * settings_json, less the keys that do not shape the measurement: kernels,
 * workloads, repeats, timeouts, retries, the accelerator request). Only
 * groups with the same key on both sides are compared; a group on one side
 * only is listed with the settings that keep it apart. ignore_settings
 * names keys to leave out of the key, for a comparison across them on
 * purpose (a throttled disk against an unthrottled one); the view lists
 * them and their values per side.
 *
 * Verdict: Welch's p drives it (consistent with the ratio-of-means CI and
 * the MDE, both built on the same means and variances); Mann-Whitney's p is
 * shown beside it, and decides "n too small": when the exact rank test of
 * these sizes cannot reach alpha at all (stats_mann_whitney_min_p > alpha),
 * the samples are too few for any verdict. A verdict metric (report/metrics)
 * is `better` or `worse` only when its Benjamini-Hochberg adjusted Welch p
 * (q, over the verdict metrics of its paired group: one workload at one set
 * of settings is one family, so what else was selected does not move a
 * group's verdicts) is at most alpha AND the whole 95 % Fieller interval of
 * the change lies
 * beyond the noise band (+-noise); otherwise `~`. A metric with a floor
 * (an amount that is 0 without a regression: seconds waited or spun, MiB
 * swapped) is judged by its difference instead: the whole 95 % Welch
 * interval of mean(b) - mean(a) must lie beyond the floor and beyond the
 * noise band of mean(a), so 0.01 s against 0 s is never a verdict however
 * steady. Informational metrics are shown and never judged. The view is
 * plain data: renderers only lay it out. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "decide/verdict.h"
#include "report/metrics.h"
#include "report/stats.h"
#include "settings/pairkey.h"

/* Exit status of `kbench compare` when at least one metric is worse (1 is
 * an error, 2 a usage error, 3 is `kbench run`'s "some cells failed"). */
#define COMPARE_EXIT_WORSE 4
/* Exit status when a group's cells failed the comparison (compare_failed):
 * it wins over COMPARE_EXIT_WORSE, since what the cells that did not fail
 * measured does not vouch for a kernel whose cells failed. */
#define COMPARE_EXIT_FAILED 5
/* How far B's share of failed cells may exceed A's, in percentage points of
 * each side's cells, before B's cells fail the comparison: one failed cell
 * in 10 against none passes, one in 3 or 2 in 10 does not. */
#define COMPARE_FAILED_MARGIN_PCT 10

/* Whether a paired group's cells failed the comparison, whatever its
 * metrics say. */
enum compare_failed {
        COMPARE_FAILED_NONE,
        COMPARE_FAILED_NO_OK_B,    /* B has no ok cell: nothing of B was measured */
        COMPARE_FAILED_NO_OK_A,    /* A has no ok cell: nothing to compare B with */
        COMPARE_FAILED_MORE_B,     /* B's share of failed cells exceeds A's by more than
                                      COMPARE_FAILED_MARGIN_PCT points */
};

/* One metric of one paired group. */
struct compare_metric {
        char *name;                /* owned */
        char *unit;                /* owned */
        struct metrics_info info;  /* from the registry; unknown names informational */
        int judged;                /* 1: a verdict metric (direction and verdict flag) */
        double *a, *b;             /* values, ok cells with a value (owned) */
        size_t na, nb;
        size_t a_missing, b_missing;   /* ok cells that stored the metric without a value */
        struct stats_summary sa, sb;
        double change;             /* mean(b) / mean(a) - 1; NAN when undefined */
        struct stats_interval ratio;   /* Fieller 95 % CI of mean(b) / mean(a); lo/hi NAN if none */
        struct stats_interval diff;    /* Welch 95 % CI of mean(b) - mean(a); for an amount with
                                          trimmed set, Yuen's of trimmed(b) - trimmed(a); lo/hi NAN
                                          if none */
        double trimmed_a, trimmed_b;   /* an amount's 20 % trimmed means, else NAN */
        int trimmed;               /* an amount's test, interval and p are Yuen's (else Welch's) */
        struct stats_test ttest, mw;   /* ttest: Welch's; for an amount Welch's or Yuen's (trimmed), its p
                                          doubled (compare_amount_test) */
        double mw_min_p;           /* smallest p the exact rank test can give at na, nb */
        double q;                  /* BH-adjusted Welch p; NAN when not in the family */
        double mde;                /* minimum detectable change (fraction of mean(a)): the smallest
                                      change whose whole interval clears the band (compare_band)
                                      with 80 % power at alpha, Welch's MDE beyond the band;
                                      judged metrics only, else NAN */
        double mde_abs;            /* the same as a difference, in unit; judged metrics with a
                                      floor only (their mean(a) may be 0), else NAN */
        size_t n_for_2, n_for_5;   /* repeats per side for a change of 2 % / 5 % of mean(a) to get
                                      a verdict with 80 % power (its part beyond the band, from
                                      the RMS of both sides' CoV); a change within the band never
                                      does (1001); judged metrics only; 0 unknown */
        double twice_band;         /* an amount (a floor): twice compare_band, the difference
                                      --until-mde aims at (seqrule's SEQRULE_AMOUNT_BANDS), in
                                      unit; else NAN */
        size_t n_for_twice_band;   /* an amount: repeats per side for a difference of twice_band to
                                      get a verdict with 80 % power; 0 unknown or not an amount */
        int run_offset;            /* set before compare_metric_stats: the sides come from
                                      different runs, so each side's mean also carries that run's
                                      offset (see compare_metric_stats) */
        double mde_one_run;        /* with run_offset: mde as the same cells would give measured
                                      in one run (the cells' own spread); else NAN */
        const char *withheld;      /* why a judged metric gets no verdict (static), or NULL */
        size_t tail_a, tail_b;     /* the tail rule (info.tail > 0): cells of A and of B beyond
                                      median(A) + info.tail, which stalled */
        enum compare_verdict verdict;
};

/* One side of a group: how many cells, and how the failed ones ended. */
struct compare_side {
        size_t ok;
        size_t failed;             /* cells whose latest attempt is not ok */
        char *failed_states;       /* "1 hang, 2 boot-timeout", or NULL (owned) */
        size_t n_runs;
        int64_t *runs;             /* run ids the cells come from, ascending (owned) */
        size_t n_cells;
        int64_t *cells;            /* the ok cells' ids, for what is read of them later (their
                                      profiles, report/explain.h) (owned) */
};

struct compare_group {
        struct pairkey *key;       /* pairing key (a reference) */
        char *workload;            /* workload name, "dd" (owned) */
        char *spec;                /* canonical spec, "dd:size=,bs=1M" (owned) */
        struct compare_side a, b;
        struct compare_metric *m;  /* sorted by name (owned) */
        size_t n_m;
        double geomean;            /* geometric mean over judged ratio metrics (not amounts with a
                                      floor) of the B-vs-A ratio,
                                      oriented so that > 1 is better (lower-is-better metrics
                                      contribute mean(a)/mean(b)); NAN when none */
        size_t n_geomean;
        size_t worse, better;
        enum compare_failed failed;/* compare_failed_rule of its sides */
        char *notes[5];            /* what limits the group's verdicts, one line each, NULL-
                                      terminated (owned): contended cells, different runs, timed
                                      metrics paced by the emulator */
};

/* A group found on one side only. */
struct compare_lonely {
        char side;                 /* 'A' or 'B' */
        struct pairkey *key;       /* a reference */
        char *workload, *spec;     /* owned */
        struct compare_side s;
        char *differs;             /* the settings that differ from the nearest group of the
                                      same workload on the other side, "disk_mbps 0 | 140",
                                      or NULL when the other side has no such workload (owned) */
};

struct compare_options {
        const char *a, *b;         /* selectors as given */
        const char *workload;      /* -w: workload name, or NULL */
        const char *metric_glob;   /* --metric: fnmatch pattern, or NULL */
        double alpha;              /* BH q level, and the tests' alpha (0.05) */
        double noise;              /* noise band, a fraction (0.02) */
        int all_runs;              /* a kernel selector takes every run, not the latest */
        int across_runs;           /* a kernel selector takes its latest run even when the other side's
                                      lies elsewhere (decide/pairing.h): a verdict across runs */
        const char *const *ignore_settings;   /* NULL-terminated, or NULL */
};

/* What tells the two sides' kernels apart for a reader, from the kernel
 * store: filled by a caller that has one (cli/cli_compare.c), never
 * judged. Each NULL where unknown. */
struct compare_kernels {
        char *upstream_a, *upstream_b;  /* the upstream version, "6.1.170" (owned) */
        char **config_diff;        /* how B's .config differs from A's (kconfig_diff's lines, the last
                                      perhaps "... and N more"), NULL-terminated; NULL: a side has none (owned) */
        size_t config_differ;      /* options that differ */
};

struct compare_view {
        char *sel_a, *sel_b;       /* as given (owned) */
        char *desc_a, *desc_b;     /* what they resolved to, "6.1.0-57-amd64 in run 1 (tag a1)" */
        char *kernel_a, *kernel_b; /* the kernel id each side resolved to (a selector names one) */
        int same_cells;            /* 1: A and B resolved to the same kernel in the same runs, so
                                      every sample is compared with itself (not an A/A test) */
        double alpha, noise;
        char *metric_glob;         /* --metric, or NULL (owned) */
        char *workload;            /* -w, or NULL (owned) */
        char **ignored;            /* NULL-terminated (owned) */
        unsigned char *ignored_found;  /* per ignored key: 1 when a selected cell has that setting
                                          (in its run's settings or its params) (owned) */
        struct compare_group *groups;
        size_t n_groups;
        struct compare_lonely *lonely;
        size_t n_lonely;
        size_t worse, better, judged;  /* over all groups */
        size_t failed_groups;      /* groups whose cells failed (compare_failed_rule) */
        int exit_status;           /* 0; COMPARE_EXIT_WORSE when worse > 0; COMPARE_EXIT_FAILED
                                      when failed_groups > 0 */
        struct compare_kernels kernels;
        struct explain_view *explain;  /* where changes of the kernel's instructions went, when
                                          explain_load asked (report/explain.h), else NULL (owned) */
        char *first;               /* the answer's first line when the selection bounds it, or NULL
                                      (owned; decide/pairing.c): the run chosen by kernel name, why
                                      there is no verdict, or the power of a comparison across runs */
        int no_verdict;            /* 1: the sides were not measured together and no comparison
                                      across runs was asked for: every judged metric is withheld */
};

struct explain_view;
struct explain_view *explain_view_free(struct explain_view *x);

struct compare_view *compare_view_free(struct compare_view *v);

/* A parsed selector: a kernel name, run:ID, run:ID:KERNEL, tag:NAME or
 * tag:NAME:KERNEL. */
struct compare_selector {
        enum { COMPARE_SEL_KERNEL, COMPARE_SEL_RUN, COMPARE_SEL_TAG } kind;
        int64_t run;               /* COMPARE_SEL_RUN */
        char tag[128];             /* COMPARE_SEL_TAG */
        char kernel[256];          /* "" when the selector names none */
};

/* Parse a selector (pure). A tag may hold ':'; tag:NAME:KERNEL splits at
 * the last one (kernel names hold none), and the resolver tries the whole
 * rest as a tag first. Returns 0 or -EINVAL with "bad selector 'x' (a
 * kernel name, run:ID, run:ID:KERNEL or tag:NAME[:KERNEL])". OUT: *ret. */
int compare_selector_parse(const char *text, struct compare_selector *ret, struct kb_error *err);

/* The statistics of one metric from its values (m->a, m->b, na, nb, judged
 * and run_offset set): summaries, change, Fieller CI, both tests, and for
 * judged metrics the MDE beyond the band (with a floor, also mde_abs)
 * and the repeats for 2 %/5 %, which need the noise band.
 * With run_offset, Welch's test, the CI and the MDE take each side's mean
 * to vary by sd^2 / n plus one run's offset: the host's drift between runs,
 * estimated from the drift the side's cells show in their order, and never
 * narrower than their scatter sd^2 (docs/design.md, "Comparisons across
 * runs"). The shown summaries stay the cells' own. An amount (a metric
 * with a floor) is tested by compare_amount_test. Leaves q and verdict to
 * compare_judge(). */
void compare_metric_stats(struct compare_metric *m, double alpha, double noise);

/* An amount's test (m->a, m->b, na, nb, sa, sb and run_offset set): Welch's
 * test of the means and Yuen's of the 20 % trimmed means, each with its
 * interval of the difference; the one with the smaller p decides, its p
 * doubled (Bonferroni; below 5 cells a side, where nothing is trimmed,
 * Welch's alone), into m->ttest, m->diff and m->trimmed. Yuen's
 * keeps a stray cell (a host's hiccup adding 0.3 s of waiting to one cell
 * in twenty) from setting the interval; Welch's keeps its power where
 * trimming costs degrees of freedom. With run_offset each side's squared
 * standard error grows by the run's offset in both. Sets m->trimmed_a/b.
 * (An amount that never varies on either side, an exact count, has no t
 * test: compare_metric_stats takes the exact rank test's p then.) */
void compare_amount_test(struct compare_metric *m);

/* One test alone for an amount (m as compare_amount_test wants it):
 * Welch's (trimmed 0) or Yuen's (1), its p not doubled, into m->ttest,
 * m->diff and m->trimmed. For bench/floor-sim.c, which shows what each
 * test alone would decide beside the pair. */
void compare_amount_test_alone(struct compare_metric *m, int trimmed);

/* The tail rule, for a metric whose registry row sets a tail (the longest
 * stall of a phase): a kernel that stalls in some cells, not all. A cell
 * stalled when it lies beyond A's median by more than the tail; Welch's and
 * Yuen's tests of the means see few such cells as a stray to ignore, and at
 * 6 cells a side a kernel stalling in half of them went unseen. (Beyond
 * twice A's median too, when that is further: a phase whose halts chain,
 * I/O at depth 1, has long ones anyway.) Its p is
 * the chance that at least tail_b of B's cells stall when each does with
 * COMPARE_TAIL_STRAY (a host's hiccup: measured in A/A runs,
 * docs/detection.md), or the share of A's cells that did when that is
 * larger and at least COMPARE_TAIL_MIN_CELLS of them did (a host
 * hiccuping more often says so in A too; one stalled cell of A is a
 * hiccup): binomial, one-sided (B stalls more). It
 * replaces m->ttest (statistic tail_b, df NAN); m->diff stays the
 * amount's interval, shown beside it. Sets tail_a, tail_b. */
#define COMPARE_TAIL_STRAY 0.05
#define COMPARE_TAIL_MIN_CELLS VERDICT_TAIL_MIN_CELLS   /* fewer stalled cells, of A or of B, are strays */
void compare_tail_test(struct compare_metric *m);

/* What a metric with a floor must change by, beyond its interval, to be a
 * verdict: the floor, or the noise band of mean(a) when that is wider. */
double compare_band(const struct compare_metric *m, double noise);

/* The verdict of one metric from its statistics and its BH q: decide/
 * verdict.c's rule (verdict_decide) over what m holds (pure; that rule's
 * recorded cases are decide/test-verdict.c's, its use on computed
 * statistics report/test-compare.c's). */
enum compare_verdict compare_decide(const struct compare_metric *m, double q, double alpha, double noise);

/* Per paired group, BH over the Welch p of its judged metrics with enough
 * samples, then each metric's verdict, the group's geometric mean and
 * counts, and its failed cells (compare_failed_rule); the view's counts
 * and exit status. With v->no_verdict every judged metric is withheld
 * first. Returns 0 or -ENOMEM. */
int compare_judge(struct compare_view *v);

/* Whether a group's cells failed the comparison (pure): B with no ok cell,
 * A with none, or B's share of failed cells (any state but ok) over A's
 * by more than COMPARE_FAILED_MARGIN_PCT percentage points. */
enum compare_failed compare_failed_rule(const struct compare_side *a, const struct compare_side *b);

/* The failure in words, "B has no ok cell"; "" for COMPARE_FAILED_NONE. */
const char *compare_failed_name(enum compare_failed f);

/* "better", "worse", "~", "info", "n too small", "undefined", "one side". */
const char *compare_verdict_name(enum compare_verdict v);
