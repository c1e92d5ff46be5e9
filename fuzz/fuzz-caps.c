/* fuzz-caps: the parser of a libvirt host's capabilities (host/vm_caps.c's
 * vm_caps_parse) on arbitrary bytes: a host kbench only reaches over the
 * network says what it is in this document. */
#include <stdint.h>
#include <string.h>

#include "host/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct vm_caps c;

        if (vm_caps_parse((const char *)data, size, &c) == 0 &&
            (strlen(c.cpu_model) >= sizeof(c.cpu_model) || strlen(c.cpu_vendor) >= sizeof(c.cpu_vendor)))
                __builtin_trap();
        return 0;
}
