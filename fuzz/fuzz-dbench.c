/* fuzz-dbench.c: dbench_ops.parse on arbitrary job output. */
#include "fuzz/fuzz-workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_workload(workload_find("dbench"), data, size);
}
