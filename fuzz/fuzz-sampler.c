/* fuzz-sampler: feed arbitrary bytes to the /proc parsers of guest/sampler
 * (each parser sees the whole input, so one corpus file can hold stat,
 * vmstat, meminfo and diskstats lines; the disk under test is "sda") and, when they accept it, run the row arithmetic
 * and formatting on the result so overflow and rounding paths are reached. */
#include <stdint.h>
#include <string.h>

#include "guest/sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct sampler_snapshot s, zero;
        struct sampler_row r;
        char line[SAMPLER_ROW_MAX], note[SAMPLER_NOTE_MAX];
        int ok = 0;

        memset(&s, 0, sizeof(s));
        memset(&zero, 0, sizeof(zero));
        ok += sampler_parse_stat((const char *)data, size, &s) == 0;
        ok += sampler_parse_vmstat((const char *)data, size, &s) == 0;
        ok += sampler_parse_meminfo((const char *)data, size, &s) == 0;
        ok += sampler_parse_diskstats((const char *)data, size, "sda", &s) == 0;
        if (ok == 0)
                return 0;
        if (sampler_absent_note(&s, note, sizeof(note)) < 0)
                __builtin_trap();
        sampler_boot_row(&s, 100, 4, &r);
        if (sampler_format_row(line, sizeof(line), &r) < 0)
                __builtin_trap();
        sampler_delta_row(&zero, &s, 1, 4, &r);
        if (sampler_format_row(line, sizeof(line), &r) < 0)
                __builtin_trap();
        sampler_delta_row(&s, &zero, 0, 4, &r);
        if (sampler_format_row(line, sizeof(line), &r) < 0)
                __builtin_trap();
        return 0;
}
