/* fuzz-guestcount.c: the agent's `counters` and `memory` records are
 * untrusted. Their parsers never read past the bytes they are given and
 * write nothing on failure; what they accept parses again the same; marks
 * and metrics made from them are bounded and named as the registry expects
 * (guest.<phase>.<figure>, mem.<figure>). */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/guestcount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct guestcount_marks marks;
        struct guestcount_totals t, t2;
        struct guestcount_memory mem, mem2, zero = { { 0 }, 0 };
        struct metric_list ml = { 0 };
        char *copy = malloc(size + 1);
        int r = guestcount_parse((const char *)data, size, &t), end = -1, end2 = -1;

        assert(copy);
        assert(r == 0 || r == -EBADMSG);
        if (r == 0) {
                assert(guestcount_parse((const char *)data, size, &t2) == 0);
                assert(memcmp(&t, &t2, sizeof(t)) == 0);
        }
        /* The same bytes as the phase mark's payload, with and without. */
        marks.n = 0;
        guestcount_mark(&marks, (const char *)data, size, r == 0 ? &t : NULL);
        memcpy(copy, "phase x", 7);
        guestcount_mark(&marks, copy, 7, r == 0 ? &t : NULL);
        guestcount_mark(&marks, "phase end", 9, NULL);
        assert(guestcount_metrics(&marks, &ml) == 0);
        for (size_t i = 0; i < ml.n; i++)
                assert(strncmp(ml.v[i].name, "guest.", 6) == 0 && strlen(ml.v[i].name) < 96);
        metric_list_clear(&ml);

        r = guestcount_memory_parse((const char *)data, size, &end, &mem);
        assert(r == 0 || r == -EBADMSG);
        if (r == 0) {
                assert(end == 0 || end == 1);
                assert(guestcount_memory_parse((const char *)data, size, &end2, &mem2) == 0 && end2 == end);
                assert(guestcount_memory_metrics(&zero, &mem, &ml) == 0 && ml.n == 0);
                assert(guestcount_memory_metrics(&mem, &mem2, &ml) == 0);
                for (size_t i = 0; i < ml.n; i++)
                        assert(strncmp(ml.v[i].name, "mem.", 4) == 0 && ml.v[i].has_value &&
                               ml.v[i].value == 0);
                metric_list_clear(&ml);
        }
        free(copy);
        return 0;
}
