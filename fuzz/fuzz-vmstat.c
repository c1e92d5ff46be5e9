/* fuzz-vmstat.c: the vmstat parser and everything downstream of it (summary,
 * stalls, JSON, metrics) on arbitrary bytes. The input is fed in two chunks
 * split at a point taken from its first byte, so partial-line buffering is
 * exercised too; the table's invariants are checked after each run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/vmstatout.h"
#include "workloads/vmstat.h"
#include "workloads/vmstat_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct vmstat_parser *p = vmstat_parser_new();
        struct vmstat_table *t;
        struct metric_list ml = { 0 };
        size_t cut = size ? data[0] % (size + 1) : 0;
        json_t *j;

        if (!p)
                return 0;
        vmstat_parser_set_skip_first(p, size > 1 && (data[1] & 1));
        if (vmstat_parser_feed_bytes(p, data, cut) < 0 || vmstat_parser_feed_bytes(p, data + cut, size - cut) < 0) {
                vmstat_parser_free(p);
                return 0;
        }
        t = vmstat_parser_finish(p);
        if (!t)
                return 0;
        if (t->ncols > VMSTAT_COLS_MAX || t->nsamples * (t->ncols ? t->ncols : 1) > VMSTAT_VALUES_MAX)
                abort();
        for (size_t i = 0; i < t->nsamples; i++)
                if (t->samples[i].capture >= t->ncaptures)
                        abort();
        j = vmstatout_json(t, VMSTAT_BO_THRESHOLD, VMSTAT_INTERVAL);
        if (!j)
                abort();
        free(json_dumps(j, JSON_COMPACT));
        json_decref(j);
        if (vmstat_metrics(t, VMSTAT_BO_THRESHOLD, VMSTAT_INTERVAL, NAN, NAN, &ml) < 0)
                abort();
        metric_list_clear(&ml);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
                vmstatout_print(t, VMSTAT_BO_THRESHOLD, VMSTAT_INTERVAL, devnull);
                fclose(devnull);
        }
        vmstat_table_free(t);
        return 0;
}
