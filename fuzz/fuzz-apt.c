/* fuzz-apt: the apt source's parsers of apt-cache pkgnames, apt-cache
 * madison and apt-get download --print-uris output on arbitrary text. */
#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/source_apt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        g_autofree char *text = g_strndup((const char *)data, size);
        struct kb_error err;
        struct apt_version *v = NULL;
        char **names = NULL;
        size_t n = 0, nn = 0;

        source_apt_parse_pkgnames(text, "linux-image-*", &names, &nn);
        if (source_apt_parse_madison(text, NULL, &v, &n, &err) >= 0) {
                (void)source_apt_parse_print_uris(text, v, n, &err);
                apt_versions_free(v, n);
        }
        g_strfreev(names);
        return 0;
}
