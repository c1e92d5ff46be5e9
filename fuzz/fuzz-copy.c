/* fuzz-copy.c: the copy job's parser takes any output and any phase marks
 * without reading out of bounds, and a successful parse yields finite
 * numbers only. Input: one line per job line; a line "E <seconds> <name>"
 * is an fd-3 event instead (fuzz_split_events). */
#include <assert.h>
#include <math.h>

#include "fuzz/fuzz-workload.h"

#define MAXL 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1);
        const char *lines[MAXL], *events[MAXL];
        double event_t[MAXL];
        struct workload_output out;
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        fuzz_split_events(text, lines, events, event_t, MAXL, &out);
        if (workload_find("copy")->parse(NULL, &out, &ml, &err) == 0) {
                for (size_t i = 0; i < ml.n; i++)
                        assert(!ml.v[i].has_value || isfinite(ml.v[i].value));
        } else
                assert(err.msg[0] != '\0');
        metric_list_clear(&ml);
        free(text);
        return 0;
}
