/* bench/seqrule-sim.c: the false-alarm and detection rates of `kbench run
 * --until-mde`, simulated against the real code. Each replicate is a run of
 * two kernels, A and B, measured in interleaved rounds (A then B, as the
 * runner plans them) on a host whose speed drifts: a multiplicative random
 * walk, one step per cell, kept within +-20 % (reflected at 0.8 and 1.2),
 * times iid noise of the given CoV per cell. Two judged metrics (higher is
 * better) per cell, independent noise, the same drift. B's first metric is
 * changed by `effect` (0: an A/A run). After each look the rule
 * (decide/seqrule.c, seqrule_decide) is asked, exactly as the runner asks
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
#include "decide/seqrule.h"
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
        struct seqrule_params p0;
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
        p0 = *p;
        p0.noise = 0;
        if (seqrule_decide(p, m, N_METRICS, rounds, &d) < 0 || d.answer == SEQRULE_MORE ||
            seqrule_judge(&p0, m, dirs, N_METRICS, &d, &v0) < 0 || seqrule_judge(p, m, dirs, N_METRICS, &d, &v2) < 0)
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

/* A gamma variate of mean 1 and coefficient of variation cov (Marsaglia and
 * Tsang; shape 1 / cov^2, boosted below 1): an amount's scatter, skewed and
 * never below 0, as bench/floor-sim.c draws it. */
static double gamma1(double cov) {
        double k = 1 / (cov * cov), boost = 1, d, c, x, v;

        if (k < 1) {
                boost = pow(uniform(), 1 / k);
                k += 1;
        }
        d = k - 1.0 / 3;
        c = 1 / sqrt(9 * d);
        for (;;) {
                do {
                        x = gauss();
                        v = 1 + c * x;
                } while (v <= 0);
                v = v * v * v;
                if (log(uniform()) < 0.5 * x * x + d - d * v + d * log(v))
                        break;
        }
        return d * v * boost * cov * cov;
}

/* An amount's run: A and B interleaved, A waiting level * gamma(cov) a
 * cell, B that plus plant * gamma(plant_cov); a cell in stray_p waits
 * stray seconds more (a host's hiccup). */
struct amount {
        double level, cov, stray_p, stray, plant, plant_cov;
};

static void amount_run(const struct amount *am, const struct seqrule_params *p, struct tally *t) {
        static double a[MAX_ROUNDS], b[MAX_ROUNDS];
        struct seqrule_metric m = { "guest.write.wait_s", a, b, metrics_floor("guest.write.wait_s") };
        int dirs[1] = { METRICS_LOWER };
        struct seqrule_decision d;
        enum seqrule_verdict v;

        for (size_t i = 0; i < p->max_rounds; i++) {
                a[i] = am->level * gamma1(am->cov) + (uniform() < am->stray_p ? am->stray : 0);
                b[i] = am->level * gamma1(am->cov) + (am->plant > 0 ? am->plant * gamma1(am->plant_cov) : 0) +
                       (uniform() < am->stray_p ? am->stray : 0);
        }
        if (seqrule_decide(p, &m, 1, p->max_rounds, &d) < 0 || d.answer == SEQRULE_MORE ||
            seqrule_judge(p, &m, dirs, 1, &d, &v) < 0)
                abort();
        t->enough += d.answer == SEQRULE_ENOUGH;
        t->budget += d.answer == SEQRULE_BUDGET;
        t->diff2 += v == SEQRULE_DIFFERENT;
        t->rounds[d.look]++;
        t->rounds_sum += (double)d.look;
}

static size_t percentile(const struct tally *t, size_t reps, double q);

/* `seqrule-sim amounts [REPS [SEED]]`: an amount's stopping point (its
 * target: SEQRULE_AMOUNT_BANDS floors beyond which the whole interval lies
 * with 80 % power) and how often compare's verdict at that point calls a
 * plant of 1, 1.5, 2 and 3 floors worse. */
static int amounts_main(size_t reps, uint64_t seed) {
        static const struct amount bases[] = {
                { 0.03, 0.3, 0, 0, 0, 0.15 },
                { 0.03, 0.6, 0, 0, 0, 0.15 },
                { 0.015, 0.2, 0.06, 0.3, 0, 0.08 },
        };
        static const double plants[] = { 0, 1, 1.5, 2, 3 };
        double floor = metrics_floor("guest.write.wait_s");
        struct seqrule_params p = { .target = 0.05, .alpha = 0.05, .power = 0.8, .pilot = 4,
                                    .max_rounds = MAX_ROUNDS, .noise = 0.02 };

        rng_seed(seed);
        printf("seqrule-sim amounts: guest.write.wait_s (floor %g s), target %g floors, alpha %.2f, power %.1f, "
               "pilot %zu, budget %zu rounds, noise %.0f%%, %zu runs per row, seed %llu\n", floor,
               SEQRULE_AMOUNT_BANDS, p.alpha, p.power, p.pilot, p.max_rounds, p.noise * 100, reps,
               (unsigned long long)seed);
        printf("%7s %5s %11s %7s | %7s %7s %6s %4s | %7s\n", "level", "CoV", "stray", "plant", "enough", "budget",
               "rounds", "p90", "worse");
        for (size_t bi = 0; bi < sizeof(bases) / sizeof(bases[0]); bi++)
                for (size_t pi = 0; pi < sizeof(plants) / sizeof(plants[0]); pi++) {
                        struct amount am = bases[bi];
                        struct tally t;

                        am.plant = plants[pi] * floor;
                        memset(&t, 0, sizeof(t));
                        for (size_t i = 0; i < reps; i++)
                                amount_run(&am, &p, &t);
                        printf("%6.3gs %4.0f%% %4.0f%% +%4.2gs %4.2gfl | %6.1f%% %6.1f%% %6.1f %4zu | %6.1f%%\n",
                               am.level, am.cov * 100, am.stray_p * 100, am.stray, plants[pi],
                               100.0 * (double)t.enough / (double)reps, 100.0 * (double)t.budget / (double)reps,
                               t.rounds_sum / (double)reps, percentile(&t, reps, 0.9),
                               100.0 * (double)t.diff2 / (double)reps);
                        fflush(stdout);
                }
        return 0;
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
        size_t reps;
        uint64_t seed;
        struct seqrule_params p = { .target = 0.05, .alpha = 0.05, .power = 0.8, .pilot = 3,
                                    .max_rounds = MAX_ROUNDS, .noise = 0.02 };
        clock_t t0 = clock();

        if (argc > 1 && strcmp(argv[1], "amounts") == 0)
                return amounts_main(argc > 2 ? strtoul(argv[2], NULL, 10) : 2000,
                                    argc > 3 ? strtoull(argv[3], NULL, 10) : 20261206);
        reps = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
        seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261202;

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
        printf("seqrule-sim: target MDE %.0f%% (noise band %.0f%% included), alpha %.2f, power %.1f, pilot %zu, "
               "budget %zu rounds, %zu runs per row, seed %llu\n", p.target * 100, p.noise * 100, p.alpha, p.power,
               p.pilot, p.max_rounds, reps, (unsigned long long)seed);
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
