/* fuzz-nightly-config: the nightly configuration parser on arbitrary bytes.
 * Any input is accepted into a struct that frees cleanly, or rejected with
 * one line; never a read outside the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nightly/nightly_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct kb_error err;
        struct nightly_config *c = NULL;

        if (nightly_config_parse((const char *)data, size, &c, &err) >= 0)
                nightly_config_free(c);
        else if (strchr(err.msg, '\n'))
                __builtin_trap();   /* an error is one line */
        return 0;
}
