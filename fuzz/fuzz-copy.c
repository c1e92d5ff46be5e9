/* fuzz-copy.c: the copy job's parser on any output and any phase marks
 * (fuzz_workload_events): no crash, and finite numbers only. */
#include "fuzz/fuzz-workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_workload_events(workload_find("copy"), data, size);
}
