/* guest/counters.c: the `counters` and `memory` payloads (see counters.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "guest/counters.h"

/* Append " key=value" (no blank before the first) at *len; *len becomes
 * size when it does not fit. */
static void put(char *buf, size_t size, size_t *len, const char *key, uint64_t v) {
        int n;

        if (*len >= size)
                return;
        n = snprintf(buf + *len, size - *len, "%s%s=%" PRIu64, *len ? " " : "", key, v);
        *len = n < 0 || (size_t)n >= size - *len ? size : *len + (size_t)n;
}

int counters_phase(const struct sampler_snapshot *s, const struct taskstats_sums *t, char *buf, size_t size) {
        static const struct {
                const char *key;
                size_t off;
                uint32_t need;
        } fields[] = {
#define S(k, f, b) { k, offsetof(struct sampler_snapshot, f), b }
                S("allocstall", allocstall, SAMPLER_HAVE_ALLOCSTALL),
                S("pgscan", pgscan, SAMPLER_HAVE_PGSCAN),
                S("pgsteal", pgsteal, SAMPLER_HAVE_PGSTEAL),
                S("file_pages", file_pages, SAMPLER_HAVE_FILE_PAGES),
                S("rd_ios", dk.rd_ios, SAMPLER_HAVE_DISK),
                S("rd_sect", dk.rd_sectors, SAMPLER_HAVE_DISK),
                S("wr_ios", dk.wr_ios, SAMPLER_HAVE_DISK),
                S("wr_sect", dk.wr_sectors, SAMPLER_HAVE_DISK),
                S("flush_ios", dk.flush_ios, SAMPLER_HAVE_DISK_FLUSH),
#undef S
        };
        size_t len = 0;

        if (size == 0)
                return -ENOSPC;
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                if ((s->have & fields[i].need) == fields[i].need)
                        put(buf, size, &len, fields[i].key, *(const uint64_t *)(const void *)((const char *)s + fields[i].off));
        if (t) {
                put(buf, size, &len, "tasks", t->tasks);
                put(buf, size, &len, "waiters", t->waiters);
                put(buf, size, &len, "sleep_ns", t->sleep_ns);
                put(buf, size, &len, "run_ns", t->run_ns);
                put(buf, size, &len, "delay_ns", t->delay_ns);
                put(buf, size, &len, "blkio_ns", t->blkio_ns);
                put(buf, size, &len, "reclaim_ns", t->reclaim_ns);
                put(buf, size, &len, "lost", t->lost);
        }
        if (len >= size) {
                buf[0] = '\0';
                return -ENOSPC;
        }
        return (int)len;
}

/* The meminfo lines sent, as the kernel names them and as the payload does. */
static const struct {
        const char *line, *key;
} mem_fields[] = {
        { "MemTotal", "mem_total_kb" }, { "MemFree", "mem_free_kb" }, { "MemAvailable", "mem_available_kb" },
        { "Buffers", "buffers_kb" }, { "Cached", "cached_kb" }, { "AnonPages", "anon_kb" },
        { "Shmem", "shmem_kb" }, { "Slab", "slab_kb" }, { "SReclaimable", "sreclaimable_kb" },
        { "SUnreclaim", "sunreclaim_kb" }, { "KernelStack", "kernel_stack_kb" },
        { "PageTables", "page_tables_kb" }, { "Percpu", "percpu_kb" }, { "VmallocUsed", "vmalloc_used_kb" },
};

/* "Key:   123 kB" -> 123 when the line is key's. Returns 1, 0 (another
 * line), or -EBADMSG. */
static int mem_line(const char *s, size_t n, const char *key, uint64_t *ret) {
        size_t kl = strlen(key), i;
        char num[24];
        size_t nl = 0;

        if (n <= kl || memcmp(s, key, kl) != 0 || s[kl] != ':')
                return 0;
        for (i = kl + 1; i < n && s[i] == ' '; i++)
                ;
        while (i < n && s[i] >= '0' && s[i] <= '9' && nl + 1 < sizeof(num))
                num[nl++] = s[i++];
        num[nl] = '\0';
        if (nl == 0 || (i < n && s[i] != ' ') || parse_u64(num, ret) < 0)
                return -EBADMSG;
        return 1;
}

int counters_memory(const char *when, const char *meminfo, size_t len, char *buf, size_t size) {
        size_t out;
        int n = snprintf(buf, size, "%s", when);

        if (n < 0 || (size_t)n >= size)
                return -ENOSPC;
        out = (size_t)n;
        for (size_t f = 0; f < ELEMENTSOF(mem_fields); f++) {
                size_t pos = 0, ln;
                const char *s;

                while (parse_next_line(meminfo, len, &pos, &s, &ln)) {
                        uint64_t v;
                        int r = mem_line(s, ln, mem_fields[f].line, &v);

                        if (r < 0)
                                return r;
                        if (r == 0)
                                continue;
                        put(buf, size, &out, mem_fields[f].key, v);
                        break;
                }
        }
        if (out >= size) {
                buf[0] = '\0';
                return -ENOSPC;
        }
        return (int)out;
}
