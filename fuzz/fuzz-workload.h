/* fuzz-workload.h: the body shared by the workload parser fuzz targets. The
 * input is split into lines as the harness hands them over, parsed by the
 * workload's pure parser, and, when that succeeds, printed by its print
 * hook (if any): neither may crash or read out of bounds on any bytes. */
#pragma once

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline int fuzz_workload(const struct workload_ops *ops, const uint8_t *data, size_t size) {
        struct metric_list metrics = { 0 };
        struct kb_error err;
        struct workload_output out = { 0 };
        const char **lines;
        char *text;
        size_t n = 0;

        if (size > 1 << 20)
                return 0;
        text = malloc(size + 1);
        lines = calloc(size + 1, sizeof(*lines));
        if (!text || !lines)
                goto out;
        memcpy(text, data, size);
        text[size] = '\0';
        for (char *p = text, *nl; p; p = nl) {
                nl = memchr(p, '\n', (size_t)(text + size - p));
                if (nl)
                        *nl++ = '\0';
                lines[n++] = p;
                if (nl && nl == text + size)
                        break;
        }
        out.n_lines = n;
        out.lines = lines;
        if (ops->parse(NULL, &out, &metrics, &err) == 0 && ops->print) {
                FILE *f = fopen("/dev/null", "w");
                if (f) {
                        ops->print(&metrics, f);
                        fclose(f);
                }
        }
        metric_list_clear(&metrics);
out:
        free(lines);
        free(text);
        return 0;
}

/* Split text (modified in place) into job lines and fd-3 events, for the
 * parsers that read phase marks: a line "E <seconds> <name>" is an event,
 * any other a line of output. At most max of each are kept; out points
 * into lines, events and t. */
static inline void fuzz_split_events(char *text, const char **lines, const char **events, double *t, size_t max,
                                     struct workload_output *out) {
        char *save = NULL;

        *out = (struct workload_output){ .lines = lines, .events = events, .event_t = t };
        for (char *tok = strtok_r(text, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
                if (tok[0] == 'E' && tok[1] == ' ' && out->n_events < max) {
                        char *end;
                        t[out->n_events] = strtod(tok + 2, &end);
                        events[out->n_events++] = *end == ' ' ? end + 1 : end;
                } else if (out->n_lines < max)
                        lines[out->n_lines++] = tok;
        }
}

#define FUZZ_EVENTS_MAX 256        /* lines and marks kept of one input */

/* The body of the targets whose parser reads phase marks as well as lines
 * (fuzz_split_events' input form): no crash on any input, an error message
 * for every failure, and only finite values on success. */
static inline int fuzz_workload_events(const struct workload_ops *ops, const uint8_t *data, size_t size) {
        const char *lines[FUZZ_EVENTS_MAX], *events[FUZZ_EVENTS_MAX];
        double t[FUZZ_EVENTS_MAX];
        struct workload_output out;
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        char *text = malloc(size + 1);

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        fuzz_split_events(text, lines, events, t, FUZZ_EVENTS_MAX, &out);
        if (ops->parse(NULL, &out, &ml, &err) == 0) {
                for (size_t i = 0; i < ml.n; i++)
                        assert(!ml.v[i].has_value || isfinite(ml.v[i].value));
        } else
                assert(err.msg[0] != '\0');
        metric_list_clear(&ml);
        free(text);
        return 0;
}
