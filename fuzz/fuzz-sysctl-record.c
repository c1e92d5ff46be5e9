/* fuzz-sysctl-record.c: the host's reading of a `sysctl` record's payload
 * (proto_sysctl_record_parse) never writes past its buffers, and what it
 * accepts is a key proto_sysctl_check accepts and a printable value that
 * reads back the same. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static char key[PROTO_SYSCTL_KEY_MAX + 1], value[PROTO_SYSCTL_READBACK_MAX + 1];
        static char key2[PROTO_SYSCTL_KEY_MAX + 1], value2[PROTO_SYSCTL_READBACK_MAX + 1];
        static char line[PROTO_SYSCTL_KEY_MAX + PROTO_SYSCTL_READBACK_MAX + 2];
        int n;

        if (proto_sysctl_record_parse((const char *)data, size, key, value) < 0)
                return 0;
        assert(proto_sysctl_check(key, NULL, NULL) == 0);
        assert(strlen(value) <= PROTO_SYSCTL_READBACK_MAX);
        for (const char *p = value; *p; p++)
                assert(*p >= 0x20 && *p <= 0x7e);
        n = snprintf(line, sizeof(line), "%s=%s", key, value);
        assert(n > 0 && (size_t)n < sizeof(line));
        assert(proto_sysctl_record_parse(line, (size_t)n, key2, value2) == 0);
        assert(strcmp(key, key2) == 0 && strcmp(value, value2) == 0);
        return 0;
}
