/* fuzz-fio-jobfile: a fio job file's bytes through `-w fio:job=FILE` as
 * run, bisect and nightly parse it (workload_spec_parse, whose check reads
 * the file), then the cell's script made from it. The first byte picks
 * what the spec names: the input's own bytes as a file (most of the
 * time), or one of fuzz-files.h's files, which must be refused at once,
 * never read (a FIFO, /dev/zero, a 1 GiB file, a directory) or accepted
 * and read (a text job file), or refused as not text. An error is one
 * line; a special file accepted, or a wait, is a crash. */
#include <stdint.h>
#include <string.h>

#include "fuzz/fuzz-files.h"
#include "workloads/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const named[] = { "./fifo", "./zero", "./huge", "./dir", "./bin.fio", "./ok.fio",
                                             "./missing.fio" };
        struct workload_env env = { .mem_bytes = 256ULL << 20, .cpus = 1, .disk_bytes = 2ULL << 30,
                                    .mnt = "/mnt/test" };
        struct workload_spec *s = NULL;
        struct kb_error err = { { 0 } };
        const char *path = "./input";
        char spec[64];
        int pick = size ? data[0] : 255, r;

        fuzz_files_enter();
        if (pick < (int)(sizeof(named) / sizeof(named[0])))
                path = named[pick];
        else
                fuzz_files_put("input", size ? data + 1 : data, size ? size - 1 : 0);
        snprintf(spec, sizeof(spec), "fio:job=%s", path);
        fuzz_files_arm();
        r = workload_spec_parse(spec, &s, &err);
        if (r >= 0) {
                char *script = NULL;

                /* What may be read is a regular file of text only. */
                if (pick < 5)
                        __builtin_trap();
                if (workload_spec_resolve(s, &env) == 0 && s->ops->script(s, &env, &script, &err) == 0)
                        free(script);
                workload_spec_free(s);
        } else if (strchr(err.msg, '\n') || pick == 5) {
                __builtin_trap();   /* an error is one line; the text job file parses */
        }
        fuzz_files_disarm();
        return 0;
}
