/* bench/simrand.h: the random variates the simulations of compare's rules
 * draw cells from (floor-sim, tail-sim, crossrun-sim), written once so
 * that each simulates the same scatter. */
#pragma once

#include <glib.h>
#include <math.h>

/* A standard normal variate (Box-Muller). */
static inline double sim_gauss(GRand *g) {
        double u = g_rand_double_range(g, 1e-12, 1), v = g_rand_double(g);

        return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A gamma variate of mean 1 and coefficient of variation cov (Marsaglia and
 * Tsang; shape k = 1 / cov^2, boosted below 1): the skewed scatter of an
 * amount near 0, never below it. */
static inline double sim_gamma1(GRand *g, double cov) {
        double k = 1 / (cov * cov), boost = 1, d, c, x, v, u;

        if (k < 1) {
                boost = pow(g_rand_double_range(g, 1e-12, 1), 1 / k);
                k += 1;
        }
        d = k - 1.0 / 3;
        c = 1 / sqrt(9 * d);
        for (;;) {
                do {
                        x = sim_gauss(g);
                        v = 1 + c * x;
                } while (v <= 0);
                v = v * v * v;
                u = g_rand_double_range(g, 1e-12, 1);
                if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
                        break;
        }
        return d * v * boost * cov * cov;
}
