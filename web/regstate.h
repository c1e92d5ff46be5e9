/* web/regstate: the state of a regression across nights, as a pure rule.
 * A regression of metric M for subject S (a kernel, or a variant's label +
 * kernel, against the night's baseline) is "new" the first night M is
 * judged worse, "still" on each later night it is compared and still
 * worse, and "fixed" the first night it is compared and no longer worse;
 * after that, worse again is new again. A night that does not compare S,
 * or whose comparison cannot say anything of M (M missing on a side, too
 * few samples, the host too busy), changes nothing. The site (web/model.c)
 * feeds it each night's verdicts in night order, from the comparisons it
 * loads again from the cells: the state is never stored. */
#pragma once

#include "report/compare.h"

/* What one night's comparison says of M. */
enum regstate_input {
        REGSTATE_UNKNOWN,          /* not compared, or no verdict possible */
        REGSTATE_CLEAR,            /* compared and not worse: ~, better, or not judged at these settings */
        REGSTATE_WORSE,
};

enum regstate {
        REGSTATE_NONE,             /* nothing to say tonight */
        REGSTATE_NEW,
        REGSTATE_STILL,
        REGSTATE_FIXED,
};

/* The input of a metric's verdict in a comparison. "Not judged" (an
 * informational metric, or a rate paced by the emulator) is clear: the
 * comparison measured M and no longer finds it worse. */
enum regstate_input regstate_input(enum compare_verdict v);

/* One night: the state it gives, from whether a regression is open
 * (*open, updated). */
enum regstate regstate_step(int *open, enum regstate_input in);

/* "new", "still", "fixed", "" for REGSTATE_NONE. */
const char *regstate_name(enum regstate s);
