/* report/textbisect: a bisection as text, in the one layout both
 * `kbench bisect` ends with and `kbench show --bisect ID` prints: a header,
 * one line a step, and the answer as the last line ("first bad: X", "no
 * change between the ends" or "cannot tell"), which scripts read. The
 * rows are the store's (results/bisect.h) or those of the bisection that
 * just ended; what it adds when it has just ended (the caution, the
 * confirmation, where the change went) is a struct bisect_ending. */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct bisect_row;
struct explain;

/* What a bisection knows as it ends, beyond its stored rows. */
struct bisect_ending {
        size_t candidates;         /* how many the search was over */
        const char *caution;       /* why the answer is weak (skipped candidates, the budget), or NULL */
        int confirmed;             /* the first bad reproduced against the last good: 1, 0; -1 not asked */
        double change;             /* the ends' change of the metric, a fraction; NAN: none */
        const char *first_bad_kernel; /* the first bad's kernel name, or NULL */
        const struct explain *explain; /* where a change of the kernel's instructions went, last good to
                                      first bad, or NULL */
};

/* b as text, lines at most width columns where the step table allows
 * (an explanation wraps to width); e may be NULL (a stored bisection).
 * Everything of b is untrusted: it goes out through text_put. */
void text_bisection(const struct bisect_row *b, const struct bisect_ending *e, int width, FILE *out);
