/* fuzz-elfdeps: feeds arbitrary bytes to the ELF dynamic-section parser that
 * reads host binaries and libraries for the guest initramfs closure. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guest/elfdeps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct elfdeps_info *info = NULL;
        struct kb_error err;
        size_t n = 0;

        if (elfdeps_parse(data, size, &info, &err) < 0)
                return 0;
        /* Touch every string so the sanitizers see any bad pointer. */
        if (info->interp)
                n += strlen(info->interp);
        for (size_t i = 0; info->needed[i]; i++)
                n += strlen(info->needed[i]);
        for (size_t i = 0; info->runpath && info->runpath[i]; i++)
                n += strlen(info->runpath[i]);
        for (size_t i = 0; info->rpath && info->rpath[i]; i++)
                n += strlen(info->rpath[i]);
        elfdeps_info_free(info);
        if (n == SIZE_MAX) /* keeps the reads above from being optimised away */
                abort();
        return 0;
}
