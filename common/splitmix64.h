/* splitmix64: the one pseudo-random generator kbench uses where it needs
 * numbers that are reproducible rather than secret (the changepoint
 * permutation test, the FTP workload's published data stream, tiotest's
 * block choice, the simulators' seeds). It is Steele, Lea and Flood's
 * SplitMix64 as given in Vigna's reference (https://prng.di.unimi.it/
 * splitmix64.c): one 64-bit word of state, three lines of mixing, any seed
 * valid, and the same sequence for a seed on every host and compiler, so a
 * run, a test and a stored stream agree. Header-only and free of host
 * libraries, so the static guest binaries can use it too. */
#pragma once

#include <stdint.h>

/* The state's step: 2^64 / phi, odd, so the state walks all 2^64 values. */
#define SPLITMIX64_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* The output function: mixes one state value into one output word. */
static inline uint64_t splitmix64_mix(uint64_t z) {
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Advance *state one step and return the next output word. */
static inline uint64_t splitmix64(uint64_t *state) {
        return splitmix64_mix(*state += SPLITMIX64_GAMMA);
}

/* Output word number i (0-based) of the sequence started at seed, without
 * walking to it: the state after i + 1 steps is seed + (i + 1) * gamma. */
static inline uint64_t splitmix64_at(uint64_t seed, uint64_t i) {
        return splitmix64_mix(seed + (i + 1) * SPLITMIX64_GAMMA);
}
