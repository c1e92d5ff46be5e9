/* fuzz-source-index: the url source's HTML index parser on arbitrary bytes
 * (a hostile server chooses them): links come out resolved, http(s) only. */
#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/source_url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct kb_error err;
        char **links = NULL;
        size_t n;

        if (source_url_index_links((const char *)data, size, "http://k.example.org/dir/", &links, &n, &err) >= 0) {
                for (size_t i = 0; i < n; i++)
                        if (strncmp(links[i], "http://", 7) != 0 && strncmp(links[i], "https://", 8) != 0)
                                __builtin_trap();
                g_strfreev(links);
        }
        return 0;
}
