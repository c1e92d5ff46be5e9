/* fuzz-ksyms: a kernel's symbols as a guest sends them and a System.map
 * (kernels/ksyms.h), on arbitrary bytes: each line as a line of the text
 * form and as a boot's kbase record, the whole as a System.map, then
 * lookups of addresses around what was read. Nothing may be read outside
 * the input, and nothing stays allocated. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *text = (const char *)data, *line = text, *end = text + size;
        struct ksyms *ks = ksyms_new("kallsyms"), *map = NULL;
        struct ksyms_boot b = { 0 };
        struct kb_error err;
        char buf[KSYMS_RESOLVED_MAX + 1];

        while (line < end) {
                const char *nl = memchr(line, '\n', (size_t)(end - line));
                size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

                (void)ksyms_add_line(ks, line, n);
                (void)ksyms_boot_record(&b, line, n);
                line += n + 1;
        }
        ksyms_finish(ks);
        (void)ksyms_covers(ks, &b);
        for (size_t i = 0; i < b.n_mods; i++) {
                ksyms_lookup(ks, &b, b.mods[i].base, buf, sizeof(buf));
                ksyms_lookup(ks, &b, b.mods[i].base + b.mods[i].size - 1, buf, sizeof(buf));
        }
        ksyms_lookup(ks, &b, b.text, buf, sizeof(buf));
        ksyms_lookup(ks, &b, b.text + 0x180, buf, sizeof(buf));
        if (ksyms_from_map(text, size, &map, &err) == 0) {
                b.text = ksyms_link_text(map);
                b.has_text = 1;
                ksyms_lookup(map, &b, b.text + 0x10, buf, sizeof(buf));
                ksyms_free(map);
        }
        ksyms_boot_clear(&b);
        ksyms_free(ks);
        return 0;
}
