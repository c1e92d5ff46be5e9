/* bench-vmstat.c: how fast `kbench vmstat` parses a large capture. A 100 MB
 * file must take seconds, not minutes; reported is the median of repeated
 * parses of one in-memory procps-ng text (one kernel line per 50 rows) in
 * MB/s and rows/s. `meson test --benchmark`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "workloads/vmstat.h"

#define BENCH_ROUNDS 7
#define BENCH_ROWS 200000

int main(void) {
        static const char head[] =
                "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n"
                " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n";
        size_t cap = sizeof(head) + (size_t)BENCH_ROWS * 128, len = 0;
        char *buf = malloc(cap);
        double secs[BENCH_ROUNDS];
        size_t rows = 0;
        unsigned x = 12345;

        if (!buf)
                return 1;
        memcpy(buf, head, sizeof(head) - 1);
        len = sizeof(head) - 1;
        for (size_t i = 0; i < BENCH_ROWS; i++) {
                x = x * 1103515245u + 12345u;
                if (i % 50 == 49)
                        len += (size_t)snprintf(buf + len, cap - len, "[%5zu.%06u] EXT4-fs (sda): recovery complete\n",
                                                i / 10, x % 1000000);
                else
                        len += (size_t)snprintf(buf + len, cap - len,
                                                " %u  %u %6u %6u %6u %6u %4u %4u %5u %5u %4u %4u %2u %2u %2u %2u %2u\n",
                                                x % 4, x % 3, x % 9000, 180000 + x % 70000, x % 4000, 30000 + x % 90000,
                                                x % 7, x % 5, x % 20000, (x >> 8) % 30000, 300 + x % 900, 400 + x % 3000,
                                                x % 50, x % 40, x % 100, x % 60, 0u);
        }
        for (int r = 0; r < BENCH_ROUNDS; r++) {
                struct vmstat_table *t = NULL;
                double t0 = bench_now();
                if (vmstat_parse_text(buf, len, 0, &t) < 0) {
                        fprintf(stderr, "bench-vmstat: parse failed\n");
                        free(buf);
                        return 1;
                }
                secs[r] = bench_now() - t0;
                rows = t->nsamples;
                vmstat_table_free(t);
        }
        qsort(secs, BENCH_ROUNDS, sizeof(secs[0]), bench_cmp_double);
        printf("vmstat parse: %.1f MB/s, %.0f rows/s (median of %d, %zu rows, %.1f MB)\n",
               (double)len / 1e6 / secs[BENCH_ROUNDS / 2], (double)rows / secs[BENCH_ROUNDS / 2], BENCH_ROUNDS, rows,
               (double)len / 1e6);
        free(buf);
        return 0;
}
