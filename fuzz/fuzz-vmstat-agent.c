/* fuzz-vmstat-agent.c: the index reader of the kbench agent's vmstat
 * records (vmstat_agent_feed) and the analysis downstream of it, on
 * arbitrary bytes. Each input line is one record: its first byte picks
 * the type ('0' vmstat-header, '1' vmstat, '2' vmstat-boot, '3'
 * vmstat-note, anything else a type the reader must refuse), the rest is
 * the payload. The table's invariants are checked after each run: its
 * columns are a prefix of common/vmstat-columns.h, within the bounds, and
 * every sample in a capture that exists. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/vmstat-columns.h"
#include "workloads/vmstat.h"
#include "workloads/vmstat_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const types[] = { "vmstat-header", "vmstat", "vmstat-boot", "vmstat-note", "vmstat-x" };
static const char *const cols[KB_VM_NCOLS] = {
#define X(name, width, group) #name,
        KB_VMSTAT_COLUMNS(X)
#undef X
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct vmstat_agent *a = vmstat_agent_new();
        struct vmstat_table *t;
        struct metric_list ml = { 0 };
        const char *p = (const char *)data, *end = p + size;
        double clock = 0;

        if (!a)
                return 0;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
                unsigned k = len && p[0] >= '0' && p[0] <= '3' ? (unsigned)(p[0] - '0') : 4;
                int r = vmstat_agent_feed(a, types[k], len ? p + 1 : p, len ? len - 1 : 0, clock += 0.5);

                if ((r != 1 && r != 0 && r != -EINVAL && r != -ENOMEM) || (r == -EINVAL && !vmstat_agent_why(a)))
                        abort();
                p += len + 1;
        }
        t = vmstat_agent_finish(a);
        if (!t)
                return 0;
        if (t->ncols > KB_VM_NCOLS || t->nsamples * (t->ncols ? t->ncols : 1) > VMSTAT_VALUES_MAX)
                abort();
        for (size_t c = 0; c < t->ncols; c++)
                if (strcmp(t->cols[c], cols[c]) != 0)
                        abort();
        for (size_t i = 0; i < t->nsamples; i++)
                if (t->samples[i].capture >= t->ncaptures)
                        abort();
        if (vmstat_phase_metrics(t, NULL, 1, VMSTAT_BO_THRESHOLD, 0.5, 1.0, 20.0, &ml) < 0)
                abort();
        metric_list_clear(&ml);
        vmstat_table_free(t);
        return 0;
}
