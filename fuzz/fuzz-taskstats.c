/* fuzz-taskstats.c: taskstats' netlink datagrams are the kernel's, but the
 * parser is bounded as if they were hostile: it never reads past the bytes
 * given, keeps at most what it is allowed, and sums what it took without
 * trouble. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "guest/taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct taskstats_task got[8];
        static char buf[65536] __attribute__((aligned(8)));
        struct taskstats_sums s = { 0 };
        size_t n = 0, len = size < sizeof(buf) ? size : sizeof(buf);
        uint64_t dropped = 0;
        int r;

        /* The kernel's datagrams are aligned; the first two bytes choose the family. */
        memcpy(buf, data, len);
        r = taskstats_parse(buf, len, len >= 2 ? (uint16_t)(data[0] | data[1] << 8) : 0, got, 8, &n, &dropped);
        assert(r == -EBADMSG || (r >= 0 && (size_t)r == n + dropped));
        assert(n <= 8);
        taskstats_sum(got, n, &s);
        assert(s.tasks == n && s.waiters <= n);
        return 0;
}
