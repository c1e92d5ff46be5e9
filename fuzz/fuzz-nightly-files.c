/* fuzz-nightly-files: nightly configurations that name files, parsed as
 * `kbench nightly --dry-run` parses them, in fuzz-files.h's directory: a
 * workload's fio job file may be ./fifo, ./zero, ./huge, ./dir (each
 * refused at once, never read or waited on), ./bin.fio (refused as not
 * text) or ./ok.fio. An error is one line; a wait is a crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/fuzz-files.h"
#include "nightly/nightly_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct kb_error err = { { 0 } };
        struct nightly_config *c = NULL;

        fuzz_files_enter();
        fuzz_files_arm();
        if (nightly_config_parse((const char *)data, size, &c, &err) >= 0)
                nightly_config_free(c);
        else if (strchr(err.msg, '\n'))
                __builtin_trap();   /* an error is one line */
        fuzz_files_disarm();
        return 0;
}
