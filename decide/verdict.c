/* decide/verdict.c: the verdict of one compared metric (see verdict.h). */
#include <math.h>

#include "decide/verdict.h"

/* Which way the change went, as a verdict: up is b over a. */
static enum compare_verdict oriented(enum verdict_direction d, int up) {
        if (d == VERDICT_HIGHER)
                return up ? COMPARE_BETTER : COMPARE_WORSE;
        if (d == VERDICT_LOWER)
                return up ? COMPARE_WORSE : COMPARE_BETTER;
        return COMPARE_INFO;
}

/* B stalls in more cells than a host's hiccups explain. */
static enum compare_verdict tail_verdict(const struct verdict_in *m, double q, double alpha) {
        if (!isfinite(m->p) || !isfinite(q))
                return COMPARE_UNDEFINED;
        if (q > alpha || m->tail_b < VERDICT_TAIL_MIN_CELLS || m->tail_b * m->na <= m->tail_a * m->nb)
                return COMPARE_SAME;
        return oriented(m->direction, 1);
}

enum compare_verdict verdict_decide(const struct verdict_in *m, double q, double alpha, double noise) {
        double lo, hi;

        if (!m->judged)
                return COMPARE_INFO;
        if (m->na == 0 || m->nb == 0)
                return COMPARE_ONE_SIDE;
        if (m->withheld)
                return COMPARE_WITHHELD;
        if (m->mw_min_p > alpha)
                return COMPARE_N_SMALL;
        if (m->tail > 0)
                return tail_verdict(m, q, alpha);
        if (m->floor > 0) {
                /* Both sides steady (the interval has no width): a
                 * difference within the band is no change, whatever a test
                 * of no spread would say. */
                if (isfinite(m->diff) && fabs(m->diff) <= m->band && m->diff_lo == m->diff_hi)
                        return COMPARE_SAME;
                if (!isfinite(m->p) || !isfinite(q))
                        return COMPARE_UNDEFINED;
                if (q > alpha || !isfinite(m->diff_lo) || !isfinite(m->diff_hi))
                        return COMPARE_SAME;
                lo = m->diff_lo;
                hi = m->diff_hi;
                noise = m->band;
        } else {
                if (!isfinite(m->p) || !isfinite(q))
                        return COMPARE_UNDEFINED;
                if (q > alpha || !isfinite(m->ratio_lo) || !isfinite(m->ratio_hi))
                        return COMPARE_SAME;
                lo = m->ratio_lo - 1;
                hi = m->ratio_hi - 1;
        }
        if (lo > noise)
                return oriented(m->direction, 1);
        if (hi < -noise)
                return oriented(m->direction, 0);
        return COMPARE_SAME;
}
