/* fuzz-proto.c: every byte string is either a record or rejected, never read
 * out of bounds; a parsed record re-formats to a line that parses the same. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "common/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct proto_record r, r2;
        static char buf[PROTO_LINE_MAX + 1];

        if (proto_parse((const char *)data, size, &r) != PROTO_OK)
                return 0;
        int n = proto_format(buf, sizeof(buf), r.cell, r.seq, r.t_ms, r.type, r.payload, r.payload_len);
        assert(n > 0);
        assert(proto_parse(buf, (size_t)n, &r2) == PROTO_OK);
        assert(r2.payload_len == r.payload_len && memcmp(r2.payload, r.payload, r.payload_len) == 0);
        return 0;
}
