/* fuzz-copy.c: the copy job's parser takes any output and any phase marks
 * without reading out of bounds, and a successful parse yields finite
 * numbers only. Input: one line per job line; a line "E <seconds> <name>"
 * is an fd-3 event instead (as in fuzz-ftp.c). */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXL 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1), *save = NULL, *tok;
        const char *lines[MAXL], *events[MAXL];
        double event_t[MAXL];
        struct workload_output out = { .lines = lines, .events = events, .event_t = event_t };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        for (tok = strtok_r(text, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
                if (tok[0] == 'E' && tok[1] == ' ' && out.n_events < MAXL) {
                        char *end;
                        event_t[out.n_events] = strtod(tok + 2, &end);
                        events[out.n_events++] = *end == ' ' ? end + 1 : end;
                } else if (out.n_lines < MAXL)
                        lines[out.n_lines++] = tok;
        }
        if (workload_find("copy")->parse(NULL, &out, &ml, &err) == 0) {
                for (size_t i = 0; i < ml.n; i++)
                        assert(!ml.v[i].has_value || isfinite(ml.v[i].value));
        } else
                assert(err.msg[0] != '\0');
        metric_list_clear(&ml);
        free(text);
        return 0;
}
