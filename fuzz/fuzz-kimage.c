/* fuzz-kimage: the bzImage/ELF inspector on arbitrary bytes. kimage_parse
 * must reject or accept any input without reading outside it; decompression
 * is bounded by KIMAGE_MAX_VMLINUX. */
#include <stddef.h>
#include <stdint.h>

#include "kernels/kimage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct kb_error err;
        struct kimage_info *info = NULL;
        int pvh;
        uint64_t entry;

        if (kimage_parse(data, size, "fuzz", &info, &err) >= 0)
                kimage_info_free(info);
        (void)kimage_elf_pvh(data, size, &pvh, &entry, &err);
        return 0;
}
