/* fuzz-hostload: the host /proc parsers of host/hostload on arbitrary
 * bytes (each parser sees the whole input, so one corpus file can serve
 * /proc/stat, /proc/<pid>/stat and /proc/loadavg), and, when the stat parser
 * accepts it, the window arithmetic between that snapshot and one built from
 * the second half of the input, so the checks on wrap and reuse are reached. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "host/hostload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *text = (const char *)data;
        struct hostload_snap a = { .t = 0.0 }, b = { .t = 1.5 };
        struct hostload_figures f;
        struct kb_error err;
        size_t half = size / 2;

        if (hostload_parse_pid_stat(text, size, "fuzz", &a.procs[0], &err) == 0)
                a.n_procs = 1;
        (void)hostload_parse_loadavg(text, size, "fuzz", &a.loadavg1, &err);
        if (hostload_parse_stat(text, size, "fuzz", &a, &err) < 0)
                return 0;
        b = a;
        b.t = 1.5;
        /* Either parser leaves b as it was when it refuses the half. */
        (void)hostload_parse_stat(text + half, size - half, "fuzz", &b, &err);
        if (hostload_parse_pid_stat(text + half, size - half, "fuzz", &b.procs[0], &err) < 0)
                b.procs[0] = a.procs[0];
        b.n_procs = a.n_procs;
        if (hostload_compute(&a, &b, 100, &f, &err) == 0 &&
            (!(f.foreign_pct >= 0 && f.foreign_pct <= 100) || !isfinite(f.excluded_pct)))
                __builtin_trap();
        (void)hostload_compute(&b, &a, 100, &f, &err);
        return 0;
}
