/* fuzz-ftp.c: the FTP job's output parser and the halt reduction take any
 * input without reading out of bounds; a successful parse yields exactly
 * the two metrics, both finite. Input: one line per job line; a line
 * "E <seconds> <name>" is an fd-3 event instead. The first byte selects
 * verify=0/1. The raw bytes also go through ftp_halts as (t, bytes) pairs. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz-workload.h"
#include "workloads/ftp.h"

#define MAXL 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1);
        const char *lines[MAXL], *events[MAXL];
        double event_t[MAXL], pairs[2][MAXL];
        struct ftp_params params = { .size = 1 << 20, .verify = size && (data[0] & 1) };
        struct workload_spec spec = { .ops = &ftp_ops, .params = &params };
        struct workload_output out;
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_halts h;
        size_t np = 0;

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        fuzz_split_events(text, lines, events, event_t, MAXL, &out);
        if (ftp_ops.parse(&spec, &out, &ml, &err) == 0) {
                assert(ml.n == 2);
                assert(isfinite(ml.v[0].value) && isfinite(ml.v[1].value));
        } else
                assert(err.msg[0] != '\0');
        metric_list_clear(&ml);
        free(text);

        for (size_t off = 0; off + 16 <= size && np < MAXL; off += 16, np++) {
                memcpy(&pairs[0][np], data + off, 8);
                memcpy(&pairs[1][np], data + off + 8, 8);
        }
        if (ftp_halts(pairs[0], pairs[1], np, 1.0, &h) == 0) {
                assert(h.count <= np);
                assert(h.longest_s <= h.total_s || h.count == 0);
        }
        return 0;
}
