/* bench/seqrule-sim.c: the false-alarm and detection rates of `kbench run
 * --until-mde`, simulated against the real code. Each replicate is a run of
 * two kernels, A and B, measured in interleaved rounds (A then B, as the
 * runner plans them) on a host whose speed drifts: a multiplicative random
 * walk, one step per cell, kept within +-20 % (reflected at 0.8 and 1.2),
 * times iid noise of the given CoV per cell. Two judged metrics (higher is
 * better) per cell, independent noise, the same drift. B's first metric is
 * changed by `effect` (0: an A/A run). After each look the rule
 * (report/seqrule.c, seqrule_decide) is asked, exactly as the runner asks
 * it; at its stopping point the verdict is compare's (seqrule_verdict:
 * Benjamini-Hochberg over both metrics, Fieller's interval beyond the noise
 * band), with the noise band at 0 (the test alone) and at compare's 2 %.
 *
 * The runner asks after every round; here the budget's rounds are drawn
 * first and the rule asked once, which gives the answer of the stopping
 * look (each look reads only the rounds before it; report/test-seqrule.c
 * checks that asking later does not change an answer) at a fraction of the
 * cost.
 *
 *   build/bench/seqrule-sim [REPS [SEED [EFFECTS]]]
 *
 * (defaults 2000, 20261202 and 0,-0.02,-0.05,-0.10; EFFECTS is a comma
 * list of B's relative changes, so the A/A rows and the others can run as
 * two processes).
 *
 * Output, one row per scenario: the stop reasons, the mean and the 90th
 * percentile of the rounds run, and the share of runs with a verdict
 * "different" (noise 0 and noise 2 %) and with Welch's p below alpha on the
 * changed metric. Under A/A these are false alarms and must be at most
 * alpha within Monte-Carlo error (+- 2 sqrt(alpha (1 - alpha) / REPS)). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/splitmix64.h"
#include "report/metrics.h"
#include "report/seqrule.h"
#include "report/stats.h"

#define MAX_ROUNDS 60
#define N_METRICS 2

static uint64_t rng_state[4];

static uint64_t rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman, Vigna), seeded through splitmix64. */
static uint64_t rng_next(void) {
        uint64_t *s = rng_state, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
}

static void rng_seed(uint64_t seed) {
        for (int i = 0; i < 4; i++)
                rng_state[i] = splitmix64(&seed);
}

static double uniform(void) {
        return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void) {
        return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

struct scenario {
        double cov;                /* iid noise per cell */
        double drift;              /* sd of the log speed's step per cell; 0: a steady host */
        double effect;             /* B's first metric: mean * (1 + effect) */
};

struct tally {
        size_t enough, budget, diff0, diff2, welch;
        size_t rounds[MAX_ROUNDS + 1];
        double rounds_sum;
};

struct host {
        double speed;
};

static double host_step(struct host *h, double drift) {
        if (drift > 0) {
                h->speed *= exp(drift * gauss());
                /* reflect at the +-20 % walls */
                if (h->speed > 1.2)
                        h->speed = 1.44 / h->speed;
                if (h->speed < 0.8)
                        h->speed = 0.64 / h->speed;
        }
        return h->speed;
}

static void one_run(const struct scenario *sc, const struct seqrule_params *p, struct tally *t) {
        static double a[N_METRICS][MAX_ROUNDS], b[N_METRICS][MAX_ROUNDS];
        struct seqrule_metric m[N_METRICS];
        struct host h = { 0.8 + 0.4 * uniform() };
        int dirs[N_METRICS];
        struct seqrule_decision d;
        enum seqrule_verdict v0, v2;
        struct stats_test w;
        size_t rounds = 0;

        for (int k = 0; k < N_METRICS; k++) {
                m[k] = (struct seqrule_metric){ k ? "y" : "x", a[k], b[k], 0 };
                dirs[k] = METRICS_HIGHER;
        }
        /* A round's values do not depend on when the run stops, and each
         * look reads only the rounds before it: one call over the budget's
         * rounds answers what the runner, asking after every round, hears
         * at the stopping look (seqrule.h). */
        for (; rounds < p->max_rounds; rounds++) {
                double sa = host_step(&h, sc->drift), sb = host_step(&h, sc->drift);

                for (int k = 0; k < N_METRICS; k++) {
                        a[k][rounds] = 100 * sa * (1 + sc->cov * gauss());
                        b[k][rounds] = 100 * (k ? 1 : 1 + sc->effect) * sb * (1 + sc->cov * gauss());
                }
        }
        if (seqrule_decide(p, m, N_METRICS, rounds, &d) < 0 || d.answer == SEQRULE_MORE ||
            seqrule_judge(p, m, dirs, N_METRICS, &d, 0.0, &v0) < 0 ||
            seqrule_judge(p, m, dirs, N_METRICS, &d, 0.02, &v2) < 0)
                abort();
        t->enough += d.answer == SEQRULE_ENOUGH;
        t->budget += d.answer == SEQRULE_BUDGET;
        t->diff0 += v0 == SEQRULE_DIFFERENT;
        t->diff2 += v2 == SEQRULE_DIFFERENT;
        if (stats_welch(a[0], d.look, b[0], d.look, &w) == 0 && w.p < p->alpha)
                t->welch++;
        t->rounds[d.look]++;
        t->rounds_sum += (double)d.look;
}

static size_t percentile(const struct tally *t, size_t reps, double q) {
        size_t c = 0;

        for (size_t n = 0; n <= MAX_ROUNDS; n++) {
                c += t->rounds[n];
                if ((double)c >= q * (double)reps)
                        return n;
        }
        return MAX_ROUNDS;
}

int main(int argc, char **argv) {
        static const double covs[] = { 0.02, 0.05, 0.10, 0.15 };
        static const double drifts[] = { 0, 0.04 };
        double effects[16] = { 0, -0.02, -0.05, -0.10 };
        size_t n_effects = 4;
        size_t reps = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
        uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261202;
        struct seqrule_params p = { .target = 0.05, .alpha = 0.05, .power = 0.8, .pilot = 3,
                                    .max_rounds = MAX_ROUNDS };
        clock_t t0 = clock();

        if (reps == 0)
                reps = 1;
        if (argc > 3) {
                char *s = argv[3], *end;

                for (n_effects = 0; n_effects < 16 && *s; n_effects++) {
                        effects[n_effects] = strtod(s, &end);
                        if (end == s || !isfinite(effects[n_effects]) || effects[n_effects] <= -1) {
                                fprintf(stderr, "seqrule-sim: bad effect list '%s'\n", argv[3]);
                                return 2;
                        }
                        s = *end == ',' ? end + 1 : end;
                }
        }
        rng_seed(seed);
        printf("seqrule-sim: target MDE %.0f%%, alpha %.2f, power %.1f, pilot %zu, budget %zu rounds, %zu runs "
               "per row, seed %llu\n", p.target * 100, p.alpha, p.power, p.pilot, p.max_rounds, reps,
               (unsigned long long)seed);
        printf("two kernels interleaved, two judged metrics; drift: log-speed random walk, sd per cell, within "
               "+-20%%\n");
        printf("A/A: 'diff' and 'welch' are false alarms; MC error of a 5%% rate: +-%.1f%% (2 se)\n\n",
               200 * sqrt(0.05 * 0.95 / (double)reps));
        printf("%5s %6s %7s | %7s %7s %6s %4s | %7s %7s %7s\n", "cov", "drift", "effect", "enough", "budget",
               "rounds", "p90", "diff@0", "diff@2%", "welch");
        for (size_t e = 0; e < n_effects; e++)
                for (size_t dr = 0; dr < sizeof(drifts) / sizeof(drifts[0]); dr++)
                        for (size_t c = 0; c < sizeof(covs) / sizeof(covs[0]); c++) {
                                struct scenario sc = { covs[c], drifts[dr], effects[e] };
                                struct tally t;

                                memset(&t, 0, sizeof(t));
                                for (size_t i = 0; i < reps; i++)
                                        one_run(&sc, &p, &t);
                                printf("%4.0f%% %6.2f %6.0f%% | %6.1f%% %6.1f%% %6.1f %4zu | %6.2f%% %6.2f%% %6.2f%%\n",
                                       sc.cov * 100, sc.drift, sc.effect * 100, 100.0 * (double)t.enough / (double)reps,
                                       100.0 * (double)t.budget / (double)reps, t.rounds_sum / (double)reps,
                                       percentile(&t, reps, 0.9), 100.0 * (double)t.diff0 / (double)reps,
                                       100.0 * (double)t.diff2 / (double)reps, 100.0 * (double)t.welch / (double)reps);
                                fflush(stdout);
                        }
        fprintf(stderr, "seqrule-sim: %.1f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
        return 0;
}
