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

/* A "key value..." file's fields: which key fills which snapshot field. */
struct field {
        const char *key;
        size_t off;
        uint32_t bit;
};
#define F(k, f, b) { k, offsetof(struct sampler_snapshot, f), b }

/* Fill the fields of table (n entries) from the lines of buf that start with
 * their key (followed by ':' when colon is set). Returns 0 or -EBADMSG. */
static int parse_fields(const char *buf, size_t len, const struct field *table, size_t n, int colon,
                        struct sampler_snapshot *t) {
        const char *s, *e, *p;
        size_t pos = 0;

        while (next_line(buf, len, &pos, &s, &e)) {
                for (size_t i = 0; i < n; i++) {
                        if (!word_is(s, e, table[i].key, colon, &p))
                                continue;
                        if (read_u64(&p, e, (uint64_t *)((char *)t + table[i].off)) < 0)
                                return -EBADMSG;
                        t->have |= table[i].bit;
                        break;
                }
        }
        return 0;
}

int sampler_parse_stat(const char *buf, size_t len, struct sampler_snapshot *snap) {
        static const struct field keys[] = {
                F("ctxt", ctxt, SAMPLER_HAVE_CTXT),
                F("procs_running", procs_running, SAMPLER_HAVE_RUNNING),
                F("procs_blocked", procs_blocked, SAMPLER_HAVE_BLOCKED),
        };
        struct sampler_snapshot t = *snap;
        const char *s, *e, *p;
        size_t pos = 0;
        unsigned ncpus = 0;
        int r;

        while (next_line(buf, len, &pos, &s, &e)) {
                if (word_is(s, e, "cpu", 0, &p)) {
                        int n = 0;
                        memset(t.cpu, 0, sizeof(t.cpu));
                        while (n < SAMPLER_CPU_FIELDS && read_u64(&p, e, &t.cpu[n]) == 0)
                                n++;
                        if (n < 4)
                                return -EBADMSG;
                        t.have |= SAMPLER_HAVE_CPU;
                        t.have |= (n > SAMPLER_CPU_IOWAIT ? SAMPLER_HAVE_IOWAIT : 0) |
                                  (n > SAMPLER_CPU_STEAL ? SAMPLER_HAVE_STEAL : 0) |
                                  (n > SAMPLER_CPU_GUEST ? SAMPLER_HAVE_GUEST : 0);
                } else if ((size_t)(e - s) > 3 && memcmp(s, "cpu", 3) == 0 && s[3] >= '0' && s[3] <= '9') {
                        if (ncpus < UINT32_MAX)
                                ncpus++;
                } else if (word_is(s, e, "intr", 0, &p)) {
                        /* The first value is the total; per-line counters follow. */
                        if (read_u64(&p, e, &t.intr) < 0)
                                return -EBADMSG;
                        t.have |= SAMPLER_HAVE_INTR;
                } else if (word_is(s, e, "page", 0, &p)) {
                        /* Before /proc/vmstat (2.4, early 2.6): "page IN OUT",
                         * kB like pgpgin/pgpgout (2.4 prints its sector
                         * counts shifted right by one). */
                        if (read_u64(&p, e, &t.pgpgin) < 0 || read_u64(&p, e, &t.pgpgout) < 0)
                                return -EBADMSG;
                        t.have |= SAMPLER_HAVE_PGPGIN | SAMPLER_HAVE_PGPGOUT;
                } else if (word_is(s, e, "swap", 0, &p)) {
                        /* ... and "swap IN OUT" in pages, like pswpin/pswpout. */
                        if (read_u64(&p, e, &t.pswpin) < 0 || read_u64(&p, e, &t.pswpout) < 0)
                                return -EBADMSG;
                        t.have |= SAMPLER_HAVE_PSWPIN | SAMPLER_HAVE_PSWPOUT;
                }
        }
        r = parse_fields(buf, len, keys, ELEMENTSOF(keys), 0, &t);
        if (r < 0)
                return r;
        t.ncpus = ncpus > 0 ? ncpus : 1;
        *snap = t;
        return 0;
}

int sampler_parse_vmstat(const char *buf, size_t len, struct sampler_snapshot *snap) {
        static const struct field keys[] = {
                F("pgpgin", pgpgin, SAMPLER_HAVE_PGPGIN),
                F("pgpgout", pgpgout, SAMPLER_HAVE_PGPGOUT),
                F("pswpin", pswpin, SAMPLER_HAVE_PSWPIN),
                F("pswpout", pswpout, SAMPLER_HAVE_PSWPOUT),
        };
        struct sampler_snapshot t = *snap;
        int r = parse_fields(buf, len, keys, ELEMENTSOF(keys), 0, &t);

        if (r < 0)
                return r;
        *snap = t;
        return 0;
}

int sampler_parse_meminfo(const char *buf, size_t len, struct sampler_snapshot *snap) {
        static const struct field keys[] = {
                F("MemTotal", mem_total, SAMPLER_HAVE_MEMTOTAL),
                F("MemFree", mem_free, SAMPLER_HAVE_MEMFREE),
                F("Buffers", buffers, SAMPLER_HAVE_BUFFERS),
                F("Cached", cached, SAMPLER_HAVE_CACHED),
                F("SwapTotal", swap_total, SAMPLER_HAVE_SWAPTOTAL),
                F("SwapFree", swap_free, SAMPLER_HAVE_SWAPFREE),
                F("Dirty", dirty, SAMPLER_HAVE_DIRTY),
                F("Writeback", writeback, SAMPLER_HAVE_WRITEBACK),
                /* Optional even for procps: cache is Cached alone without it. */
                F("SReclaimable", sreclaimable, 0),
        };
        struct sampler_snapshot t = *snap;
        int r;

        t.sreclaimable = 0;
        r = parse_fields(buf, len, keys, ELEMENTSOF(keys), 1, &t);
        if (r < 0)
                return r;
        *snap = t;
        return 0;
}
#undef F

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
                uint32_t bit;   /* 0: the file must exist; else set when it does */
        } files[] = {
                /* stat before vmstat, so /proc/vmstat's counters win. */
                { "stat", sampler_parse_stat, 0 },
                { "vmstat", sampler_parse_vmstat, SAMPLER_HAVE_VMSTAT_FILE },
                { "meminfo", sampler_parse_meminfo, 0 },
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
                if (r == -ENOENT && files[i].bit)
                        continue;
                if (r < 0)
                        return r;
                t.have |= files[i].bit;
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


/* The snapshot fields each column is computed from. */
static const uint32_t col_needs[KB_VM_NCOLS] = {
        [KB_VM_r] = SAMPLER_HAVE_RUNNING,
        [KB_VM_b] = SAMPLER_HAVE_BLOCKED,
        [KB_VM_swpd] = SAMPLER_HAVE_SWAPTOTAL | SAMPLER_HAVE_SWAPFREE,
        [KB_VM_free] = SAMPLER_HAVE_MEMFREE,
        [KB_VM_buff] = SAMPLER_HAVE_BUFFERS,
        [KB_VM_cache] = SAMPLER_HAVE_CACHED,
        [KB_VM_si] = SAMPLER_HAVE_PSWPIN,
        [KB_VM_so] = SAMPLER_HAVE_PSWPOUT,
        [KB_VM_bi] = SAMPLER_HAVE_PGPGIN,
        [KB_VM_bo] = SAMPLER_HAVE_PGPGOUT,
        [KB_VM_in] = SAMPLER_HAVE_INTR,
        [KB_VM_cs] = SAMPLER_HAVE_CTXT,
        [KB_VM_us] = SAMPLER_HAVE_CPU,
        [KB_VM_sy] = SAMPLER_HAVE_CPU,
        [KB_VM_id] = SAMPLER_HAVE_CPU,
        [KB_VM_wa] = SAMPLER_HAVE_CPU | SAMPLER_HAVE_IOWAIT,
        [KB_VM_st] = SAMPLER_HAVE_CPU | SAMPLER_HAVE_STEAL,
        [KB_VM_gu] = SAMPLER_HAVE_CPU | SAMPLER_HAVE_GUEST,
        [KB_VM_dirty] = SAMPLER_HAVE_DIRTY,
        [KB_VM_writeback] = SAMPLER_HAVE_WRITEBACK,
};
_Static_assert(KB_VM_NCOLS <= 32, "sampler_row.have holds one bit per column");

static const char *const col_names[KB_VM_NCOLS] = {
#define X(name, width, group) #name,
        KB_VMSTAT_COLUMNS(X)
#undef X
};
static const unsigned col_widths[KB_VM_NCOLS] = {
#define X(name, width, group) width,
        KB_VMSTAT_COLUMNS(X)
#undef X
};
static const char *const col_groups[KB_VM_NCOLS] = {
#define X(name, width, group) #group,
        KB_VMSTAT_COLUMNS(X)
#undef X
};

/* Columns whose value is a rate over time (need an elapsed time or uptime). */
#define RATE_COLS ((1u << KB_VM_si) | (1u << KB_VM_so) | (1u << KB_VM_bi) | (1u << KB_VM_bo) | \
                   (1u << KB_VM_in) | (1u << KB_VM_cs))

uint32_t sampler_columns(const struct sampler_snapshot *s) {
        uint32_t m = 0;

        for (int c = 0; c < KB_VM_NCOLS; c++)
                if ((s->have & col_needs[c]) == col_needs[c])
                        m |= 1u << c;
        return m;
}

/* Where each field comes from, to say why a column is absent. */
enum { SRC_STAT, SRC_CPU_LINE, SRC_COUNTERS, SRC_MEMINFO, SRC_N };
static const struct {
        uint32_t bit;
        int src;
        const char *name;          /* as the kernel spells it */
        const char *old_name;      /* SRC_COUNTERS: the /proc/stat line of older kernels */
} sources[] = {
        { SAMPLER_HAVE_CPU, SRC_STAT, "cpu", NULL },
        { SAMPLER_HAVE_INTR, SRC_STAT, "intr", NULL },
        { SAMPLER_HAVE_CTXT, SRC_STAT, "ctxt", NULL },
        { SAMPLER_HAVE_RUNNING, SRC_STAT, "procs_running", NULL },
        { SAMPLER_HAVE_BLOCKED, SRC_STAT, "procs_blocked", NULL },
        { SAMPLER_HAVE_IOWAIT, SRC_CPU_LINE, "iowait", NULL },
        { SAMPLER_HAVE_STEAL, SRC_CPU_LINE, "steal", NULL },
        { SAMPLER_HAVE_GUEST, SRC_CPU_LINE, "guest", NULL },
        { SAMPLER_HAVE_PGPGIN, SRC_COUNTERS, "pgpgin", "page" },
        { SAMPLER_HAVE_PGPGOUT, SRC_COUNTERS, "pgpgout", NULL },
        { SAMPLER_HAVE_PSWPIN, SRC_COUNTERS, "pswpin", "swap" },
        { SAMPLER_HAVE_PSWPOUT, SRC_COUNTERS, "pswpout", NULL },
        { SAMPLER_HAVE_MEMFREE, SRC_MEMINFO, "MemFree", NULL },
        { SAMPLER_HAVE_BUFFERS, SRC_MEMINFO, "Buffers", NULL },
        { SAMPLER_HAVE_CACHED, SRC_MEMINFO, "Cached", NULL },
        { SAMPLER_HAVE_SWAPTOTAL, SRC_MEMINFO, "SwapTotal", NULL },
        { SAMPLER_HAVE_SWAPFREE, SRC_MEMINFO, "SwapFree", NULL },
        { SAMPLER_HAVE_DIRTY, SRC_MEMINFO, "Dirty", NULL },
        { SAMPLER_HAVE_WRITEBACK, SRC_MEMINFO, "Writeback", NULL },
};

/* Append sep and word at *len; sets *len to size on overflow. */
static void note_add(char *buf, size_t size, size_t *len, const char *sep, const char *word) {
        int n;

        if (*len >= size)
                return;
        n = snprintf(buf + *len, size - *len, "%s%s", sep, word);
        *len = n < 0 ? size : *len + (size_t)n;
}

int sampler_absent_note(const struct sampler_snapshot *s, char *buf, size_t size) {
        static const uint32_t counters = SAMPLER_HAVE_PGPGIN | SAMPLER_HAVE_PGPGOUT |
                                         SAMPLER_HAVE_PSWPIN | SAMPLER_HAVE_PSWPOUT;
        uint32_t cols = sampler_columns(s), used = 0;
        size_t len = 0;
        int clauses = 0;

        if (size == 0)
                return -ENOSPC;
        buf[0] = '\0';
        for (int c = 0; c < KB_VM_NCOLS; c++)
                if (!(cols & (1u << c)))
                        used |= col_needs[c];
        used &= ~s->have;
        /* Without a cpu line, its missing values need no clause of their own. */
        if (!(s->have & SAMPLER_HAVE_CPU))
                used &= ~(SAMPLER_HAVE_IOWAIT | SAMPLER_HAVE_STEAL | SAMPLER_HAVE_GUEST);
        if (used == 0)
                return 0;
        note_add(buf, size, &len, "", "# absent");
        for (int c = 0; c < KB_VM_NCOLS; c++)
                if (!(cols & (1u << c)))
                        note_add(buf, size, &len, " ", col_names[c]);
        note_add(buf, size, &len, "", ":");
        for (int src = 0; src < SRC_N; src++) {
                static const char *const intro[SRC_N] = {
                        " /proc/stat has no", " the cpu line of /proc/stat has no",
                        " /proc/vmstat has no", " /proc/meminfo has no",
                };
                int any = 0;

                for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                        any |= sources[i].src == src && (used & sources[i].bit);
                if (!any)
                        continue;
                note_add(buf, size, &len, "", clauses++ ? ";" : "");
                if (src == SRC_COUNTERS && !(s->have & SAMPLER_HAVE_VMSTAT_FILE)) {
                        /* Kernels before /proc/vmstat kept the counters in /proc/stat. */
                        note_add(buf, size, &len, "", " there is no /proc/vmstat and /proc/stat has no");
                        for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                                if (sources[i].old_name && (used & sources[i].bit))
                                        note_add(buf, size, &len, " ", sources[i].old_name);
                        note_add(buf, size, &len, "", " line");
                        continue;
                }
                note_add(buf, size, &len, "", intro[src]);
                for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                        if (sources[i].src == src && (used & sources[i].bit))
                                note_add(buf, size, &len, " ", sources[i].name);
                if (src == SRC_COUNTERS && (used & counters) == counters)
                        note_add(buf, size, &len, "", " (a kernel without CONFIG_VM_EVENT_COUNTERS)");
        }
        if (len >= size) {
                buf[0] = '\0';
                return -ENOSPC;
        }
        return (int)len;
}

/* Memory and procs columns: instantaneous, same for both row kinds. */
static void fill_instant(const struct sampler_snapshot *s, struct sampler_row *r) {
        r->v[KB_VM_r] = s->procs_running;
        r->v[KB_VM_b] = s->procs_blocked;
        r->v[KB_VM_swpd] = sub0(s->swap_total, s->swap_free);
        r->v[KB_VM_free] = s->mem_free;
        r->v[KB_VM_buff] = s->buffers;
        r->v[KB_VM_cache] = s->cached + s->sreclaimable;
        r->v[KB_VM_dirty] = s->dirty;
        r->v[KB_VM_writeback] = s->writeback;
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
                r->v[KB_VM_us] = r->v[KB_VM_sy] = r->v[KB_VM_wa] = r->v[KB_VM_st] = r->v[KB_VM_gu] = 0;
                r->v[KB_VM_id] = 100;
                return;
        }
        r->v[KB_VM_us] = muldiv(us, 100, total);
        r->v[KB_VM_sy] = muldiv(sy, 100, total);
        r->v[KB_VM_id] = muldiv(id, 100, total);
        r->v[KB_VM_wa] = muldiv(wa, 100, total);
        r->v[KB_VM_st] = muldiv(st, 100, total);
        r->v[KB_VM_gu] = muldiv(gu, 100, total);
}

/* Zero the columns outside have, so an absent column never carries a number. */
static void keep_only(struct sampler_row *r, uint32_t have) {
        r->have = have;
        for (int c = 0; c < KB_VM_NCOLS; c++)
                if (!(have & (1u << c)))
                        r->v[c] = 0;
}

void sampler_boot_row(const struct sampler_snapshot *s, unsigned hz, unsigned page_kb,
                      struct sampler_row *ret_row) {
        struct sampler_row r;
        uint32_t have = sampler_columns(s);
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
                r.v[KB_VM_si] = muldiv(s->pswpin * page_kb, scale, jiffies);
                r.v[KB_VM_so] = muldiv(s->pswpout * page_kb, scale, jiffies);
                r.v[KB_VM_bi] = muldiv(s->pgpgin, scale, jiffies);
                r.v[KB_VM_bo] = muldiv(s->pgpgout, scale, jiffies);
                r.v[KB_VM_in] = muldiv(s->intr, scale, jiffies);
                r.v[KB_VM_cs] = muldiv(s->ctxt, scale, jiffies);
        }
        if (!(s->have & SAMPLER_HAVE_CPU))
                have &= ~RATE_COLS;
        keep_only(&r, have);
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
        r.v[KB_VM_si] = muldiv(sub0(cur->pswpin, prev->pswpin) * page_kb, 1000, elapsed_ms);
        r.v[KB_VM_so] = muldiv(sub0(cur->pswpout, prev->pswpout) * page_kb, 1000, elapsed_ms);
        r.v[KB_VM_bi] = muldiv(sub0(cur->pgpgin, prev->pgpgin), 1000, elapsed_ms);
        r.v[KB_VM_bo] = muldiv(sub0(cur->pgpgout, prev->pgpgout), 1000, elapsed_ms);
        r.v[KB_VM_in] = muldiv(sub0(cur->intr, prev->intr), 1000, elapsed_ms);
        r.v[KB_VM_cs] = muldiv(sub0(cur->ctxt, prev->ctxt), 1000, elapsed_ms);
        keep_only(&r, sampler_columns(prev) & sampler_columns(cur));
        *ret_row = r;
}

int sampler_format_row(char *buf, size_t size, const struct sampler_row *r) {
        size_t len = 0;

        for (int c = 0; c < KB_VM_NCOLS; c++) {
                int n;
                if (r->have & (1u << c))
                        n = snprintf(buf + len, size - len, "%s%*llu", c ? " " : "", (int)col_widths[c],
                                     (unsigned long long)r->v[c]);
                else
                        n = snprintf(buf + len, size - len, "%s%*s", c ? " " : "", (int)col_widths[c], "-");
                if (n < 0 || (size_t)n >= size - len)
                        return -ENOSPC;
                len += (size_t)n;
        }
        return (int)len;
}

int sampler_format_names(char *buf, size_t size) {
        size_t len = 0;

        for (int c = 0; c < KB_VM_NCOLS; c++) {
                int n = snprintf(buf + len, size - len, "%s%*s", c ? " " : "", (int)col_widths[c], col_names[c]);
                if (n < 0 || (size_t)n >= size - len)
                        return -ENOSPC;
                len += (size_t)n;
        }
        return (int)len;
}

int sampler_format_groups(char *buf, size_t size) {
        size_t len = 0;

        for (int c = 0; c < KB_VM_NCOLS;) {
                size_t span = 0, name = strlen(col_groups[c]), dashes;
                int g = c, n;

                /* A group spans its columns and the blanks between them. */
                while (c < KB_VM_NCOLS && strcmp(col_groups[c], col_groups[g]) == 0)
                        span += col_widths[c++] + (span ? 1 : 0);
                dashes = span > name ? span - name : 0;
                n = snprintf(buf + len, size - len, "%s%.*s%s%.*s", g ? " " : "", (int)((dashes + 1) / 2),
                             "--------------------------------", col_groups[g], (int)(dashes / 2),
                             "--------------------------------");
                if (n < 0 || (size_t)n >= size - len)
                        return -ENOSPC;
                len += (size_t)n;
        }
        return (int)len;
}
