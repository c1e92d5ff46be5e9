/* fuzz-console.c: line framing and the kernel-log scan on arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "host/console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink(void *userdata, const char *line, size_t len) {
        size_t *total = userdata;
        *total += len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct console_lines l;
        struct console_verdict v;
        size_t total = 0;

        memset(&l, 0, sizeof(l));
        /* Feed in two uneven pieces so a split line is exercised. */
        console_lines_feed(&l, (const char *)data, size / 3, sink, &total);
        console_lines_feed(&l, (const char *)data + size / 3, size - size / 3, sink, &total);
        console_scan((const char *)data, size, &v);
        return 0;
}
