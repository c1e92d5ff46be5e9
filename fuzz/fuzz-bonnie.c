/* fuzz-bonnie.c: bonnie_ops.parse (and its print hook, if any) on arbitrary job
 * output: the input is split into lines as the harness would hand them over. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
        if (bonnie_ops.parse(NULL, &out, &metrics, &err) == 0 && bonnie_ops.print) {
                FILE *f = fopen("/dev/null", "w");
                if (f) {
                        bonnie_ops.print(&metrics, f);
                        fclose(f);
                }
        }
        metric_list_clear(&metrics);
out:
        free(lines);
        free(text);
        return 0;
}
