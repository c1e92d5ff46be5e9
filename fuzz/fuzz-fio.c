/* fuzz-fio.c: fio_ops.parse on arbitrary job output: fio's JSON results,
 * and anything fio or the guest wrote around them. */
#include "fuzz/fuzz-workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_workload(workload_find("fio"), data, size);
}
