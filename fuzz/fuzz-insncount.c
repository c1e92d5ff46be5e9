/* fuzz-insncount.c: the counter file QEMU writes is untrusted. Its parser
 * never reads past the bytes it is given, and what it accepts re-parses the
 * same; a phase mark built from the same bytes never makes a metric name
 * the registry's patterns would not expect; the guest PMU's record is
 * parsed as strictly. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/insncount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct insncount_marks marks;
        struct insncount_totals t, t2;
        struct metric_list ml = { 0 };
        int r = insncount_parse(data, size, &t);

        assert(r == 0 || r == -EAGAIN || r == -EBADMSG);
        if (r == 0) {
                assert(insncount_parse(data, size, &t2) == 0);
                assert(memcmp(&t, &t2, sizeof(t)) == 0);
        } else
                memset(&t, 0, sizeof(t));
        /* A mark is read only from a file the totals' parser accepts. */
        for (size_t k = 0; k < 3; k++) {
                struct insncount_totals m;
                int rm = insncount_parse_mark(data, size, size ? (data[0] + k) % (INSNCOUNT_MARKS_MAX + 2) : k, &m);

                assert(rm == 0 || rm == -ENOENT || rm == r);
                assert(rm != 0 || r == 0);
        }
        /* The same bytes as a phase mark's payload, twice, then an end. */
        marks.n = 0;
        insncount_mark(&marks, (const char *)data, size, &t);
        t.insns[0]++;
        insncount_mark(&marks, (const char *)data, size, &t);
        insncount_mark(&marks, "phase end", 9, &t);
        assert(insncount_metrics(&marks, &ml) == 0);
        for (size_t i = 0; i < ml.n; i++) {
                const char *name = ml.v[i].name;
                assert(strncmp(name, "guest.", 6) == 0);
                for (const char *p = name; *p; p++)
                        assert((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
                               *p == '.' || *p == 'M');
        }
        metric_list_clear(&ml);
        /* The same bytes as the guest PMU's record: what it accepts
         * prints back the same. */
        r = insncount_parse_pmu((const char *)data, size, &t);
        assert(r == 0 || r == -EIO || r == -EBADMSG);
        if (r == 0) {
                char back[64];
                int n = snprintf(back, sizeof(back), "user=%llu kernel=%llu",
                                 (unsigned long long)t.insns[INSNCOUNT_USER],
                                 (unsigned long long)t.insns[INSNCOUNT_KERNEL]);
                assert(n > 0 && (size_t)n <= size && t.pauses == 0 && t.wait_ns == 0);
        }
        return 0;
}
