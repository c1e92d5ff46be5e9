/* fuzz-kprof: the profile plugin's file (host/kprof.h), which QEMU writes,
 * on arbitrary bytes: kprof_parse must refuse or accept any input without
 * reading outside it, and every segment it gives must lie inside what it
 * kept. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "host/kprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct kprof_data d;
        uint64_t sum = 0;

        if (kprof_parse(data, size, &d) < 0)
                return 0;
        for (size_t i = 0; i < d.n_seg; i++) {
                for (size_t k = 0; k < d.seg[i].n; k++)
                        sum += d.seg[i].e[k].insns;
                if (kprof_segment(&d, d.seg[i].k) != &d.seg[i])
                        abort();
        }
        (void)sum;
        kprof_data_clear(&d);
        return 0;
}
