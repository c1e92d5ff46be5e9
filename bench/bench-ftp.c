/* bench-ftp.c: how fast the FTP upload generator fills buffers (it must stay
 * well above any transfer rate the guest reaches, many hundred MB/s), and
 * the cost of the sha256 that verify=1 adds. `meson test --benchmark`. */
#include <glib.h>
#include <stdio.h>
#include <time.h>

#include "bench/bench.h"
#include "workloads/ftp.h"

int main(void) {
        static char buf[256 * 1024];
        const size_t total = (size_t)1 << 30;
        struct ftp_gen g;
        GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
        double t0, t1, t2;
        unsigned x = 0;

        ftp_gen_init(&g, 42);
        t0 = bench_now();
        for (size_t n = 0; n < total; n += sizeof(buf)) {
                ftp_gen_fill(&g, buf, sizeof(buf));
                x += (unsigned char)buf[n % sizeof(buf)];
        }
        t1 = bench_now();
        for (size_t n = 0; n < total / 4; n += sizeof(buf)) {
                ftp_gen_fill(&g, buf, sizeof(buf));
                g_checksum_update(sum, (const guchar *)buf, sizeof(buf));
        }
        t2 = bench_now();
        printf("ftp generator: %.0f MB/s (check %u)\n", total / 1e6 / (t1 - t0), x);
        printf("ftp generator + sha256: %.0f MB/s\n", total / 4 / 1e6 / (t2 - t1));
        g_checksum_free(sum);
        return 0;
}
