/* bench/bisect-sim.c: how often `kbench bisect` names the right candidate,
 * simulated against the real search (decide/bisectrule.c, bisect_search,
 * with decide/seqrule.c's verdicts), exactly as bisect/bisect.c drives it
 * but with simulated measurements in place of runs.
 *
 * Each replicate is a list of N candidates whose metric (lower is better,
 * as an instruction count) steps by `effect` at a candidate drawn
 * uniformly from 1..N-1 (effect 0: no change anywhere, the A/A case).
 * Every cell's value is its candidate's mean times the host's drift times
 * (1 + CoV x a standard normal); the drift is a multiplicative random walk,
 * one step per cell, kept within +-20 %, as bench/seqrule-sim.c models
 * this host. Every tenth replicate also has one candidate that does not
 * build, and candidates are never the same image.
 *
 *   build/bench/bisect-sim [REPS [SEED]]        (defaults 400, 20261202)
 *
 * Output, one row per scenario: the share of searches ending with the
 * right first bad, a wrong one, "no change" and "cannot tell", and the
 * mean rounds measured per search. Under A/A a "first bad" is a false
 * alarm; the ends' verdict, the first decision, holds it near alpha. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/bisectrule.h"
#include "report/metrics.h"

#define N_CAND 7

struct world {
        double mean[N_CAND];
        int broken;                /* index that does not build, or -1 */
        double cov, drift, step;
        unsigned short xs[3];      /* erand48 state */
};

static double normal(struct world *w) {
        /* Box-Muller; erand48 is in [0, 1), so 1 - u is never 0. */
        double u = 1 - erand48(w->xs), v = erand48(w->xs);

        return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double cell(struct world *w, size_t cand) {
        w->drift *= 1 + w->step * normal(w);
        if (w->drift > 1.2)
                w->drift = 2.4 - w->drift;
        if (w->drift < 0.8)
                w->drift = 1.6 - w->drift;
        return w->mean[cand] * w->drift * (1 + w->cov * normal(w));
}

static int sim_prepare(void *ud, size_t i) {
        struct world *w = ud;

        return w->broken == (int)i;
}

static int sim_same_image(void *ud, size_t i, size_t j) {
        (void)ud;
        return i == j;
}

static int sim_measure(void *ud, const size_t *idx, size_t n, size_t more, const char *role, struct bisect_series *v) {
        struct world *w = ud;

        (void)role;
        for (size_t r = 0; r < more; r++)
                for (size_t k = 0; k < n; k++)
                        if (bisect_series_add(&v[k], cell(w, idx[k])) < 0)
                                return -1;
        return 0;
}

static void sim_step(void *ud, const struct bisect_step *s) {
        (void)ud;
        (void)s;
}

static const struct bisect_ops sim_ops = { sim_prepare, sim_same_image, sim_measure, sim_step };

struct scenario {
        double effect, cov;
        double drift_step;         /* the host's random walk per cell: 0 for counts, which it does not move */
};

static void run_scenario(const struct scenario *sc, int reps, unsigned seed) {
        struct bisect_params p = { .rule = { .target = 0.03, .alpha = 0.05, .power = 0.8, .pilot = 4,
                                             .max_rounds = 12 },
                                   .noise = 0.02, .dir = METRICS_LOWER };
        int right = 0, wrong = 0, same = 0, cannot = 0, err = 0;
        double rounds = 0;

        for (int i = 0; i < reps; i++) {
                struct world w = { .cov = sc->cov, .drift = 1, .step = sc->drift_step, .broken = -1,
                                   .xs = { (unsigned short)seed, (unsigned short)(seed >> 16), (unsigned short)i } };
                enum bisect_state state[N_CAND] = { 0 };
                struct bisect_result res;
                size_t at = 1 + (size_t)(erand48(w.xs) * (N_CAND - 1));

                for (size_t k = 0; k < N_CAND; k++)
                        w.mean[k] = 100 * (k >= at ? 1 + sc->effect : 1);
                if (i % 10 == 9)
                        w.broken = 1 + (int)(erand48(w.xs) * (N_CAND - 2));
                if (bisect_search(&p, N_CAND, &sim_ops, &w, state, &res) < 0) {
                        err++;
                        continue;
                }
                rounds += (double)res.cells_rounds;
                if (res.outcome == BISECT_NO_CHANGE)
                        same++;
                else if (res.outcome == BISECT_CANNOT_TELL)
                        cannot++;
                else if (sc->effect != 0 && (res.first_bad == at ||
                                             /* a skipped candidate hides the step: the next good answer */
                                             (w.broken == (int)at && res.first_bad == at + 1 && res.skipped_between)))
                        right++;
                else
                        wrong++;
        }
        printf("| %+5.1f %% | %4.1f %% | %s | %5.1f %% | %5.1f %% | %5.1f %% | %5.1f %% | %5.1f | %d |\n", 100 * sc->effect,
               100 * sc->cov, sc->drift_step > 0 ? "yes" : "no", 100.0 * right / reps, 100.0 * wrong / reps, 100.0 * same / reps, 100.0 * cannot / reps,
               rounds / reps, err);
}

int main(int argc, char **argv) {
        /* Counts (guest.*_Minsn: CoV 0.2-0.5 %, no drift) and rates (CoV 2-5 %, drifting). */
        static const struct scenario scenarios[] = {
                { 0, 0.003, 0 }, { 0.01, 0.003, 0 }, { 0.03, 0.003, 0 }, { 0.10, 0.003, 0 },
                { 0, 0.02, 0.005 }, { 0.05, 0.02, 0.005 }, { 0.10, 0.05, 0.005 },
        };
        int reps = argc > 1 ? atoi(argv[1]) : 400;
        unsigned seed = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20261202u;

        if (reps <= 0) {
                fprintf(stderr, "usage: bisect-sim [REPS [SEED]]\n");
                return 2;
        }
        printf("%d searches per row, %d candidates, pilot 4, at most 12 rounds a step, target 3 %% (the band included), alpha 0.05, "
               "noise band 2 %%\n\n", reps, N_CAND);
        printf("| change | CoV | drift | right first bad | wrong first bad | no change | cannot tell | rounds | errors |\n");
        printf("|---|---|---|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
                run_scenario(&scenarios[i], reps, seed);
        return 0;
}
