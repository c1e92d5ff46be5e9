/* guest/sampler.c: procps-compatible vmstat rows from /proc (see sampler.h).
 * The kernel's files are trusted in the guest, but the parsers are still
 * bounded and checked because they are fuzzed and reused on captured text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "guest/sampler.h"

const char sampler_header_groups[] =
        "procs -----------memory---------- ---swap-- -----io---- -system-- -------cpu------- ---kbench---";
const char sampler_header_names[] =
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st gu  dirty writeback";

/* One line [*s, *e) of buf at a time; returns 0 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, const char **ret_s, const char **ret_e) {
        const char *s, *nl;

        if (*pos >= len)
                return 0;
        s = buf + *pos;
        nl = memchr(s, '\n', len - *pos);
        *ret_s = s;
        *ret_e = nl ? nl : buf + len;
        *pos = (size_t)(*ret_e - buf) + (nl ? 1 : 0);
        return 1;
}

/* Skip blanks, then read a decimal u64 that must end at a blank, the end, or
 * (for meminfo) anything non-digit. Returns 0 and advances *p, or -1. */
static int read_u64(const char **p, const char *e, uint64_t *ret) {
        const char *q = *p;
        uint64_t v = 0;

        while (q < e && (*q == ' ' || *q == '\t'))
                q++;
        if (q >= e || *q < '0' || *q > '9')
                return -1;
        while (q < e && *q >= '0' && *q <= '9') {
                unsigned d = (unsigned)(*q - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -1;
                v = v * 10 + d;
                q++;
        }
        *p = q;
        *ret = v;
        return 0;
}

/* Does the line start with the word w followed by a blank (or ':' when
 * colon is set)? On a match, *p points just past the word. */
static int word_is(const char *s, const char *e, const char *w, int colon, const char **p) {
        size_t n = strlen(w);

        if ((size_t)(e - s) <= n || memcmp(s, w, n) != 0)
                return 0;
        if (colon ? s[n] != ':' : (s[n] != ' ' && s[n] != '\t'))
                return 0;
        *p = s + n + 1;
        return 1;
}

int sampler_parse_stat(const char *buf, size_t len, struct sampler_snapshot *snap) {
        struct sampler_snapshot t = *snap;
        const char *s, *e, *p;
        size_t pos = 0;
        unsigned seen = 0, ncpus = 0;

        while (next_line(buf, len, &pos, &s, &e)) {
                if (word_is(s, e, "cpu", 0, &p)) {
                        int n = 0;
                        memset(t.cpu, 0, sizeof(t.cpu));
                        while (n < SAMPLER_CPU_FIELDS && read_u64(&p, e, &t.cpu[n]) == 0)
                                n++;
                        if (n < 4)
                                return -EBADMSG;
                        seen |= 1;
                } else if ((size_t)(e - s) > 3 && memcmp(s, "cpu", 3) == 0 && s[3] >= '0' && s[3] <= '9') {
                        if (ncpus < UINT32_MAX)
                                ncpus++;
                } else if (word_is(s, e, "intr", 0, &p)) {
                        /* The first value is the total; per-line counters follow. */
                        if (read_u64(&p, e, &t.intr) < 0)
                                return -EBADMSG;
                        seen |= 2;
                } else if (word_is(s, e, "ctxt", 0, &p)) {
                        if (read_u64(&p, e, &t.ctxt) < 0)
                                return -EBADMSG;
                        seen |= 4;
                } else if (word_is(s, e, "procs_running", 0, &p)) {
                        if (read_u64(&p, e, &t.procs_running) < 0)
                                return -EBADMSG;
                        seen |= 8;
                } else if (word_is(s, e, "procs_blocked", 0, &p)) {
                        if (read_u64(&p, e, &t.procs_blocked) < 0)
                                return -EBADMSG;
                        seen |= 16;
                }
        }
        if (seen != 31)
                return -EBADMSG;
        t.ncpus = ncpus > 0 ? ncpus : 1;
        *snap = t;
        return 0;
}

int sampler_parse_vmstat(const char *buf, size_t len, struct sampler_snapshot *snap) {
        static const struct { const char *key; size_t off; } keys[] = {
                { "pgpgin", offsetof(struct sampler_snapshot, pgpgin) },
                { "pgpgout", offsetof(struct sampler_snapshot, pgpgout) },
                { "pswpin", offsetof(struct sampler_snapshot, pswpin) },
                { "pswpout", offsetof(struct sampler_snapshot, pswpout) },
        };
        struct sampler_snapshot t = *snap;
        const char *s, *e, *p;
        size_t pos = 0;
        unsigned seen = 0;

        while (next_line(buf, len, &pos, &s, &e)) {
                for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                        if (!word_is(s, e, keys[i].key, 0, &p))
                                continue;
                        if (read_u64(&p, e, (uint64_t *)((char *)&t + keys[i].off)) < 0)
                                return -EBADMSG;
                        seen |= 1u << i;
                        break;
                }
        }
        if (seen != (1u << ELEMENTSOF(keys)) - 1)
                return -EBADMSG;
        *snap = t;
        return 0;
}

int sampler_parse_meminfo(const char *buf, size_t len, struct sampler_snapshot *snap) {
        static const struct { const char *key; size_t off; int optional; } keys[] = {
                { "MemTotal", offsetof(struct sampler_snapshot, mem_total), 0 },
                { "MemFree", offsetof(struct sampler_snapshot, mem_free), 0 },
                { "Buffers", offsetof(struct sampler_snapshot, buffers), 0 },
                { "Cached", offsetof(struct sampler_snapshot, cached), 0 },
                { "SwapTotal", offsetof(struct sampler_snapshot, swap_total), 0 },
                { "SwapFree", offsetof(struct sampler_snapshot, swap_free), 0 },
                { "Dirty", offsetof(struct sampler_snapshot, dirty), 0 },
                { "Writeback", offsetof(struct sampler_snapshot, writeback), 0 },
                { "SReclaimable", offsetof(struct sampler_snapshot, sreclaimable), 1 },
        };
        struct sampler_snapshot t = *snap;
        const char *s, *e, *p;
        size_t pos = 0;
        unsigned seen = 0, want = 0;

        t.sreclaimable = 0;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (!keys[i].optional)
                        want |= 1u << i;
        while (next_line(buf, len, &pos, &s, &e)) {
                for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                        if (!word_is(s, e, keys[i].key, 1, &p))
                                continue;
                        if (read_u64(&p, e, (uint64_t *)((char *)&t + keys[i].off)) < 0)
                                return -EBADMSG;
                        seen |= 1u << i;
                        break;
                }
        }
        if ((seen & want) != want)
                return -EBADMSG;
        *snap = t;
        return 0;
}

/* Read a whole (proc) file into a malloc'ed, NUL-terminated buffer. */
static int read_file(const char *path, char **ret_buf, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t cap = 16384, len = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n;

                if (len + 1 >= cap) {
                        char *nb;
                        if (cap >= SAMPLER_FILE_MAX)
                                return -EFBIG;
                        cap *= 2;
                        nb = realloc(buf, cap);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                }
                n = read(fd, buf + len, cap - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        buf[len] = '\0';
        *ret_len = len;
        *ret_buf = TAKE_PTR(buf);
        return 0;
}

int sampler_read(const char *root, struct sampler_snapshot *ret_snap) {
        static const struct {
                const char *name;
                int (*parse)(const char *, size_t, struct sampler_snapshot *);
        } files[] = {
                { "stat", sampler_parse_stat },
                { "vmstat", sampler_parse_vmstat },
                { "meminfo", sampler_parse_meminfo },
        };
        struct sampler_snapshot t;

        memset(&t, 0, sizeof(t));
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *buf = NULL;
                char path[4096];
                size_t len = 0;
                int r;

                r = snprintf(path, sizeof(path), "%s/proc/%s", root, files[i].name);
                if (r < 0 || (size_t)r >= sizeof(path))
                        return -ENAMETOOLONG;
                r = read_file(path, &buf, &len);
                if (r < 0)
                        return r;
                r = files[i].parse(buf, len, &t);
                if (r < 0)
                        return r;
        }
        *ret_snap = t;
        return 0;
}

/* a * b / c rounded to nearest, without overflow for any u64 inputs that
 * fit the result; c == 0 gives 0. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c) {
        unsigned __int128 v;

        if (c == 0)
                return 0;
        v = ((unsigned __int128)a * b + c / 2) / c;
        return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static uint64_t sub0(uint64_t a, uint64_t b) {
        return a > b ? a - b : 0;
}

/* Memory and procs columns: instantaneous, same for both row kinds. */
static void fill_instant(const struct sampler_snapshot *s, struct sampler_row *r) {
        r->r = s->procs_running;
        r->b = s->procs_blocked;
        r->swpd = sub0(s->swap_total, s->swap_free);
        r->free = s->mem_free;
        r->buff = s->buffers;
        r->cache = s->cached + s->sreclaimable;
        r->dirty = s->dirty;
        r->writeback = s->writeback;
}

/* cpu percentages from jiffy counts (deltas or totals). /proc/stat counts
 * guest time inside user/nice too; like procps-ng's gu column it is moved
 * out of us so the six columns partition the time. */
static void fill_cpu(const uint64_t *c, struct sampler_row *r) {
        uint64_t gu = c[SAMPLER_CPU_GUEST] + c[SAMPLER_CPU_GUEST_NICE];
        uint64_t us = sub0(c[SAMPLER_CPU_USER] + c[SAMPLER_CPU_NICE], gu);
        uint64_t sy = c[SAMPLER_CPU_SYSTEM] + c[SAMPLER_CPU_IRQ] + c[SAMPLER_CPU_SOFTIRQ];
        uint64_t id = c[SAMPLER_CPU_IDLE], wa = c[SAMPLER_CPU_IOWAIT], st = c[SAMPLER_CPU_STEAL];
        uint64_t total = us + sy + id + wa + st + gu;

        if (total == 0) {
                /* No time passed (or a bogus reading): call it idle, like procps. */
                r->us = r->sy = r->wa = r->st = r->gu = 0;
                r->id = 100;
                return;
        }
        r->us = (unsigned)muldiv(us, 100, total);
        r->sy = (unsigned)muldiv(sy, 100, total);
        r->id = (unsigned)muldiv(id, 100, total);
        r->wa = (unsigned)muldiv(wa, 100, total);
        r->st = (unsigned)muldiv(st, 100, total);
        r->gu = (unsigned)muldiv(gu, 100, total);
}

void sampler_boot_row(const struct sampler_snapshot *s, unsigned hz, unsigned page_kb,
                      struct sampler_row *ret_row) {
        struct sampler_row r;
        uint64_t jiffies = 0;

        memset(&r, 0, sizeof(r));
        fill_instant(s, &r);
        fill_cpu(s->cpu, &r);
        for (int i = 0; i < SAMPLER_CPU_FIELDS; i++)
                if (i != SAMPLER_CPU_GUEST && i != SAMPLER_CPU_GUEST_NICE)
                        jiffies += s->cpu[i];
        /* rate = count / uptime, uptime = jiffies / ncpus / hz */
        {
                uint64_t scale = (uint64_t)hz * (s->ncpus ? s->ncpus : 1);
                r.si = muldiv(s->pswpin * page_kb, scale, jiffies);
                r.so = muldiv(s->pswpout * page_kb, scale, jiffies);
                r.bi = muldiv(s->pgpgin, scale, jiffies);
                r.bo = muldiv(s->pgpgout, scale, jiffies);
                r.in = muldiv(s->intr, scale, jiffies);
                r.cs = muldiv(s->ctxt, scale, jiffies);
        }
        *ret_row = r;
}

void sampler_delta_row(const struct sampler_snapshot *prev, const struct sampler_snapshot *cur,
                       uint64_t elapsed_ms, unsigned page_kb, struct sampler_row *ret_row) {
        struct sampler_row r;
        uint64_t d[SAMPLER_CPU_FIELDS];

        if (elapsed_ms == 0)
                elapsed_ms = 1;
        memset(&r, 0, sizeof(r));
        fill_instant(cur, &r);
        for (int i = 0; i < SAMPLER_CPU_FIELDS; i++)
                d[i] = sub0(cur->cpu[i], prev->cpu[i]);
        fill_cpu(d, &r);
        r.si = muldiv(sub0(cur->pswpin, prev->pswpin) * page_kb, 1000, elapsed_ms);
        r.so = muldiv(sub0(cur->pswpout, prev->pswpout) * page_kb, 1000, elapsed_ms);
        r.bi = muldiv(sub0(cur->pgpgin, prev->pgpgin), 1000, elapsed_ms);
        r.bo = muldiv(sub0(cur->pgpgout, prev->pgpgout), 1000, elapsed_ms);
        r.in = muldiv(sub0(cur->intr, prev->intr), 1000, elapsed_ms);
        r.cs = muldiv(sub0(cur->ctxt, prev->ctxt), 1000, elapsed_ms);
        *ret_row = r;
}

int sampler_format_row(char *buf, size_t size, const struct sampler_row *r) {
        int n = snprintf(buf, size,
                         "%2llu %2llu %6llu %6llu %6llu %6llu %4llu %4llu %5llu %5llu %4llu %4llu"
                         " %2u %2u %2u %2u %2u %2u %6llu %9llu",
                         (unsigned long long)r->r, (unsigned long long)r->b,
                         (unsigned long long)r->swpd, (unsigned long long)r->free,
                         (unsigned long long)r->buff, (unsigned long long)r->cache,
                         (unsigned long long)r->si, (unsigned long long)r->so,
                         (unsigned long long)r->bi, (unsigned long long)r->bo,
                         (unsigned long long)r->in, (unsigned long long)r->cs,
                         r->us, r->sy, r->id, r->wa, r->st, r->gu,
                         (unsigned long long)r->dirty, (unsigned long long)r->writeback);
        if (n < 0 || (size_t)n >= size)
                return -ENOSPC;
        return n;
}
