/* decide/verdict: the verdict of one compared metric, the rule every
 * comparison kbench makes ends in (compare, the site, a night, a
 * bisection's steps, --until-mde's replay). It is pure over a narrow input
 * (struct verdict_in: the test's p and its BH q, the interval of the change,
 * the sizes, the floor or the tail) and includes nothing of the project,
 * so the comparison view below it (report/compare.c, which fills the input
 * from its statistics) and the rules above it apply one rule
 * (docs/architecture.md lets report/ include this header alone). Its
 * recorded cases are decide/test-verdict.c's; its error rates are
 * bench/floor-sim.c's, tail-sim.c's and crossrun-sim.c's. */
#pragma once

#include <stddef.h>

enum compare_verdict {
        COMPARE_INFO,              /* informational metric: never judged */
        COMPARE_SAME,              /* "~": no significant change beyond the noise */
        COMPARE_BETTER,
        COMPARE_WORSE,
        COMPARE_N_SMALL,           /* the rank test cannot reach alpha at these sizes */
        COMPARE_UNDEFINED,         /* a side has < 2 values, or no spread at all */
        COMPARE_ONE_SIDE,          /* the metric has values on one side only */
        COMPARE_WITHHELD,          /* judged, but the host was busy beside the cells: no verdict */
};

/* Which way is better, as the metric registry says (report/metrics.h). */
enum verdict_direction {
        VERDICT_NONE,
        VERDICT_HIGHER,            /* higher is better */
        VERDICT_LOWER,             /* lower is better */
};

/* Fewer stalled cells, of A or of B, are strays (the tail rule). */
#define VERDICT_TAIL_MIN_CELLS 2

/* What the verdict of one metric rests on. */
struct verdict_in {
        int judged;                /* a verdict metric (direction and verdict flag) */
        enum verdict_direction direction;
        size_t na, nb;             /* values on each side */
        int withheld;              /* judged, but no verdict (the host was busy, or the sides were not
                                      measured together) */
        double mw_min_p;           /* smallest p the exact rank test can give at na, nb */
        double p;                  /* the test's p (Welch's, an amount's, the tail rule's); NAN if none */
        double ratio_lo, ratio_hi; /* 95 % interval of mean(b) / mean(a); NAN if none */
        double floor;              /* > 0: an amount, judged by its difference beyond band */
        double band;               /* an amount's: the floor, or the noise band of mean(a) when wider */
        double diff, diff_lo, diff_hi; /* an amount's difference b - a and its 95 % interval; NAN if none */
        double tail;               /* > 0: judged by the tail rule (the cells that stalled) */
        size_t tail_a, tail_b;     /* the tail rule: cells of A and of B that stalled */
};

/* The verdict from the input, the metric's BH q (NAN when it is not in
 * its group's family), the level alpha and the noise band (a fraction).
 * Better or worse only when q is at most alpha and the whole interval of
 * the change lies beyond the band (an amount's: beyond its band); the tail
 * rule's when B stalls in more cells than A does and than strays explain.
 * Pure. */
enum compare_verdict verdict_decide(const struct verdict_in *m, double q, double alpha, double noise);
