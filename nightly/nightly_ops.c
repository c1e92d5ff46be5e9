/* nightly_ops.c: the real table of what a night drives (see
 * nightly_ops.h). */
#include "nightly/nightly_ops.h"

#include "cell/cell.h"

static double nightly_ops_wall_clock(void) {
        return (double)g_get_real_time() / 1e6;
}

/* The runner's SIGINT/SIGTERM handler sets cell_interrupted; the night
 * only reads it. */
static int nightly_ops_cell_interrupted(void) {
        return cell_interrupted != 0;
}

const struct nightly_ops nightly_ops_real = {
        .run = runner_run,
        .load_resume = runner_load_resume,
        .bisect = bisect_run,
        .now = nightly_ops_wall_clock,
        .interrupted = nightly_ops_cell_interrupted,
};

const struct nightly_ops *nightly_ops_or_real(const struct nightly_ops *ops) {
        return ops ? ops : &nightly_ops_real;
}
