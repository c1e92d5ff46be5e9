/* fuzz-tiobench.c: tiobench_ops.parse and its print hook on arbitrary job output. */
#include "fuzz/fuzz-workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_workload(workload_find("tiobench"), data, size);
}
