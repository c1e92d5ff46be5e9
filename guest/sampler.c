/* guest/sampler.c: procps-compatible vmstat rows from /proc (see sampler.h).
 * The kernel's files are trusted in the guest, but the parsers are still
 * bounded and checked because they are fuzzed and reused on captured text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/util.h"
#include "guest/sampler.h"

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
        size_t pos = 0, ln;

        while (parse_next_line(buf, len, &pos, &s, &ln)) {
                e = s + ln;
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
        size_t pos = 0, ln;
        unsigned ncpus = 0;
        int r;

        while (parse_next_line(buf, len, &pos, &s, &ln)) {
                e = s + ln;
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

/* The counters /proc/vmstat splits by source, summed into one field: the
 * lines starting with prefix, but not those named in skip (NULL-ended). */
struct sum_field {
        const char *prefix;
        const char *const *skip;
        size_t off;
        uint32_t bit;
};

static uint64_t add_sat(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Add each line of buf that starts with one of the table's prefixes to its
 * field (each field restarts at 0). Returns 0 or -EBADMSG. */
static int parse_sums(const char *buf, size_t len, const struct sum_field *table, size_t n,
                      struct sampler_snapshot *t) {
        const char *s, *e;
        size_t pos = 0, ln;

        for (size_t i = 0; i < n; i++)
                *(uint64_t *)((char *)t + table[i].off) = 0;
        while (parse_next_line(buf, len, &pos, &s, &ln)) {
                e = s + ln;
                const char *name_end = s;

                while (name_end < e && *name_end != ' ' && *name_end != '\t')
                        name_end++;
                for (size_t i = 0; i < n; i++) {
                        size_t pl = strlen(table[i].prefix), nl = (size_t)(name_end - s);
                        const char *p = name_end;
                        uint64_t v, *sum;
                        int skipped = 0;

                        if (nl < pl || memcmp(s, table[i].prefix, pl) != 0 || name_end == e)
                                continue;
                        for (const char *const *k = table[i].skip; k && *k; k++)
                                skipped |= strlen(*k) == nl && memcmp(s, *k, nl) == 0;
                        if (skipped)
                                break;
                        if (read_u64(&p, e, &v) < 0)
                                return -EBADMSG;
                        sum = (uint64_t *)((char *)t + table[i].off);
                        *sum = add_sat(*sum, v);
                        t->have |= table[i].bit;
                        break;
                }
        }
        return 0;
}

int sampler_parse_vmstat(const char *buf, size_t len, struct sampler_snapshot *snap) {
        static const struct field keys[] = {
                F("pgpgin", pgpgin, SAMPLER_HAVE_PGPGIN),
                F("pgpgout", pgpgout, SAMPLER_HAVE_PGPGOUT),
                F("pswpin", pswpin, SAMPLER_HAVE_PSWPIN),
                F("pswpout", pswpout, SAMPLER_HAVE_PSWPOUT),
                F("nr_dirty", nr_dirty, SAMPLER_HAVE_NR_DIRTY),
                F("nr_writeback", nr_writeback, SAMPLER_HAVE_NR_WRITEBACK),
                F("nr_dirty_threshold", dirty_thresh, SAMPLER_HAVE_DIRTY_THRESH),
                F("nr_dirty_background_threshold", bg_thresh, SAMPLER_HAVE_BG_THRESH),
                F("nr_file_pages", file_pages, SAMPLER_HAVE_FILE_PAGES),
        };
        /* pgscan_direct_throttle counts throttling events, not pages; the
         * _anon/_file lines (5.8+) split the same pages a second time. */
        static const char *const scan_skip[] = { "pgscan_direct_throttle", "pgscan_anon", "pgscan_file", NULL };
        static const char *const steal_skip[] = { "pgsteal_anon", "pgsteal_file", NULL };
        static const struct sum_field sums[] = {
                { "pgscan_", scan_skip, offsetof(struct sampler_snapshot, pgscan), SAMPLER_HAVE_PGSCAN },
                { "pgsteal_", steal_skip, offsetof(struct sampler_snapshot, pgsteal), SAMPLER_HAVE_PGSTEAL },
                /* "allocstall" before 4.10, "allocstall_<zone>" since */
                { "allocstall", NULL, offsetof(struct sampler_snapshot, allocstall), SAMPLER_HAVE_ALLOCSTALL },
        };
        struct sampler_snapshot t = *snap;
        int r = parse_fields(buf, len, keys, ELEMENTSOF(keys), 0, &t);

        if (r < 0)
                return r;
        r = parse_sums(buf, len, sums, ELEMENTSOF(sums), &t);
        if (r < 0)
                return r;
        *snap = t;
        return 0;
}

int sampler_parse_diskstats(const char *buf, size_t len, const char *disk, struct sampler_snapshot *snap) {
        struct sampler_snapshot t = *snap;
        size_t dl = strlen(disk), pos = 0, ln;
        const char *s, *e;

        if (dl > SAMPLER_DISK_NAME_MAX)
                return -EINVAL;
        memcpy(t.disk, disk, dl + 1);
        while (parse_next_line(buf, len, &pos, &s, &ln)) {
                e = s + ln;
                /* "MAJOR MINOR NAME" then the counters; other lines are not ours */
                const char *p = s, *name;
                uint64_t major, minor, f[17];
                size_t nf = 0;

                if (read_u64(&p, e, &major) < 0 || read_u64(&p, e, &minor) < 0)
                        continue;
                while (p < e && (*p == ' ' || *p == '\t'))
                        p++;
                name = p;
                while (p < e && *p != ' ' && *p != '\t')
                        p++;
                if ((size_t)(p - name) != dl || dl == 0 || memcmp(name, disk, dl) != 0)
                        continue;
                while (nf < ELEMENTSOF(f) && read_u64(&p, e, &f[nf]) == 0)
                        nf++;
                /* reads, reads merged, sectors read, ms reading, writes,
                 * writes merged, sectors written, ms writing, in flight,
                 * io_ticks, weighted ms; 4.18 appends four of discards,
                 * 5.5 flushes completed and ms flushing. */
                if (nf < 11)
                        return -EBADMSG;
                t.dk = (struct sampler_disk){ .rd_ios = f[0], .rd_sectors = f[2], .wr_ios = f[4],
                                              .wr_sectors = f[6], .inflight = f[8], .io_ticks = f[9],
                                              .flush_ios = nf >= 16 ? f[15] : 0 };
                t.have |= SAMPLER_HAVE_DISK | (nf >= 16 ? SAMPLER_HAVE_DISK_FLUSH : 0);
                break;
        }
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

int sampler_read(const char *root, const char *disk, struct sampler_snapshot *ret_snap) {
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
        if (disk && disk[0]) {
                _cleanup_free_ char *buf = NULL;
                char path[4096];
                size_t len = 0;
                int r;

                if (strlen(disk) > SAMPLER_DISK_NAME_MAX)
                        return -EINVAL;
                r = snprintf(path, sizeof(path), "%s/proc/diskstats", root);
                if (r < 0 || (size_t)r >= sizeof(path))
                        return -ENAMETOOLONG;
                r = read_file(path, &buf, &len);
                if (r == -ENOENT) {
                        /* 2.4: the disk's figures are in /proc/partitions */
                        memcpy(t.disk, disk, strlen(disk) + 1);
                } else if (r < 0) {
                        return r;
                } else {
                        t.have |= SAMPLER_HAVE_DISKSTATS_FILE;
                        r = sampler_parse_diskstats(buf, len, disk, &t);
                        if (r < 0)
                                return r;
                }
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

/* cur - prev of a counter the kernel keeps in an unsigned long (32 bits on
 * a 32-bit kernel) or unsigned int (diskstats' io_ticks): one that went
 * backwards from at most UINT32_MAX wrapped at 32 bits; one that went
 * backwards from higher was reset, and counts as 0. */
static uint64_t counter_delta(uint64_t prev, uint64_t cur) {
        if (cur >= prev)
                return cur - prev;
        if (prev <= UINT32_MAX && cur <= UINT32_MAX)
                return (uint64_t)UINT32_MAX - prev + cur + 1;
        return 0;
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
        [KB_VM_nr_dirty] = SAMPLER_HAVE_NR_DIRTY,
        [KB_VM_nr_writeback] = SAMPLER_HAVE_NR_WRITEBACK,
        [KB_VM_dirty_thresh] = SAMPLER_HAVE_DIRTY_THRESH,
        [KB_VM_bg_thresh] = SAMPLER_HAVE_BG_THRESH,
        [KB_VM_pgscan] = SAMPLER_HAVE_PGSCAN,
        [KB_VM_pgsteal] = SAMPLER_HAVE_PGSTEAL,
        [KB_VM_allocstall] = SAMPLER_HAVE_ALLOCSTALL,
        [KB_VM_rd] = SAMPLER_HAVE_DISK,
        [KB_VM_wr] = SAMPLER_HAVE_DISK,
        [KB_VM_rsect] = SAMPLER_HAVE_DISK,
        [KB_VM_wsect] = SAMPLER_HAVE_DISK,
        [KB_VM_inflight] = SAMPLER_HAVE_DISK,
        [KB_VM_util] = SAMPLER_HAVE_DISK,
};
_Static_assert(KB_VM_NCOLS <= 64, "sampler_row.have holds one bit per column");

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

#define BIT(c) (1ull << (c))
/* Columns whose value is a rate over time (need an elapsed time or uptime). */
#define RATE_COLS (BIT(KB_VM_si) | BIT(KB_VM_so) | BIT(KB_VM_bi) | BIT(KB_VM_bo) | BIT(KB_VM_in) | \
                   BIT(KB_VM_cs) | BIT(KB_VM_pgscan) | BIT(KB_VM_pgsteal) | BIT(KB_VM_allocstall) | \
                   BIT(KB_VM_rd) | BIT(KB_VM_wr) | BIT(KB_VM_rsect) | BIT(KB_VM_wsect) | BIT(KB_VM_util))

uint64_t sampler_columns(const struct sampler_snapshot *s) {
        uint64_t m = 0;

        for (int c = 0; c < KB_VM_NCOLS; c++)
                if ((s->have & col_needs[c]) == col_needs[c])
                        m |= BIT(c);
        return m;
}

/* Where each field comes from, to say why a column is absent. */
enum { SRC_STAT, SRC_CPU_LINE, SRC_COUNTERS, SRC_MEMINFO, SRC_DISK, SRC_N };
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
        { SAMPLER_HAVE_NR_DIRTY, SRC_COUNTERS, "nr_dirty", NULL },
        { SAMPLER_HAVE_NR_WRITEBACK, SRC_COUNTERS, "nr_writeback", NULL },
        { SAMPLER_HAVE_DIRTY_THRESH, SRC_COUNTERS, "nr_dirty_threshold", NULL },
        { SAMPLER_HAVE_BG_THRESH, SRC_COUNTERS, "nr_dirty_background_threshold", NULL },
        { SAMPLER_HAVE_PGSCAN, SRC_COUNTERS, "pgscan_*", NULL },
        { SAMPLER_HAVE_PGSTEAL, SRC_COUNTERS, "pgsteal_*", NULL },
        { SAMPLER_HAVE_ALLOCSTALL, SRC_COUNTERS, "allocstall*", NULL },
        { SAMPLER_HAVE_MEMFREE, SRC_MEMINFO, "MemFree", NULL },
        { SAMPLER_HAVE_BUFFERS, SRC_MEMINFO, "Buffers", NULL },
        { SAMPLER_HAVE_CACHED, SRC_MEMINFO, "Cached", NULL },
        { SAMPLER_HAVE_SWAPTOTAL, SRC_MEMINFO, "SwapTotal", NULL },
        { SAMPLER_HAVE_SWAPFREE, SRC_MEMINFO, "SwapFree", NULL },
        { SAMPLER_HAVE_DIRTY, SRC_MEMINFO, "Dirty", NULL },
        { SAMPLER_HAVE_WRITEBACK, SRC_MEMINFO, "Writeback", NULL },
        { SAMPLER_HAVE_DISK, SRC_DISK, "disk", NULL },
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
        uint64_t cols = sampler_columns(s);
        uint32_t used = 0;
        size_t len = 0;
        int clauses = 0;

        if (size == 0)
                return -ENOSPC;
        buf[0] = '\0';
        for (int c = 0; c < KB_VM_NCOLS; c++)
                if (!(cols & BIT(c)))
                        used |= col_needs[c];
        used &= ~s->have;
        /* Without a cpu line, its missing values need no clause of their own. */
        if (!(s->have & SAMPLER_HAVE_CPU))
                used &= ~(SAMPLER_HAVE_IOWAIT | SAMPLER_HAVE_STEAL | SAMPLER_HAVE_GUEST);
        if (used == 0)
                return 0;
        note_add(buf, size, &len, "", "# absent");
        for (int c = 0; c < KB_VM_NCOLS; c++)
                if (!(cols & BIT(c)))
                        note_add(buf, size, &len, " ", col_names[c]);
        note_add(buf, size, &len, "", ":");
        for (int src = 0; src < SRC_N; src++) {
                static const char *const intro[SRC_N] = {
                        " /proc/stat has no", " the cpu line of /proc/stat has no",
                        " /proc/vmstat has no", " /proc/meminfo has no", NULL,
                };
                int any = 0, old = 0;

                for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                        any |= sources[i].src == src && (used & sources[i].bit);
                if (!any)
                        continue;
                note_add(buf, size, &len, "", clauses++ ? ";" : "");
                if (src == SRC_COUNTERS && !(s->have & SAMPLER_HAVE_VMSTAT_FILE)) {
                        /* Kernels before /proc/vmstat kept some counters in /proc/stat. */
                        note_add(buf, size, &len, "", " there is no /proc/vmstat");
                        for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                                if (sources[i].old_name && (used & sources[i].bit))
                                        note_add(buf, size, &len, old++ ? " " : " and /proc/stat has no ",
                                                 sources[i].old_name);
                        if (old)
                                note_add(buf, size, &len, "", " line");
                        continue;
                }
                if (src == SRC_DISK) {
                        if (!s->disk[0])
                                note_add(buf, size, &len, "", " no disk under test was named");
                        else if (!(s->have & SAMPLER_HAVE_DISKSTATS_FILE))
                                note_add(buf, size, &len, "", " there is no /proc/diskstats");
                        else {
                                note_add(buf, size, &len, "", " /proc/diskstats has no ");
                                note_add(buf, size, &len, "", s->disk);
                        }
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
        r->v[KB_VM_nr_dirty] = s->nr_dirty;
        r->v[KB_VM_nr_writeback] = s->nr_writeback;
        r->v[KB_VM_dirty_thresh] = s->dirty_thresh;
        r->v[KB_VM_bg_thresh] = s->bg_thresh;
        r->v[KB_VM_inflight] = s->dk.inflight;
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
static void keep_only(struct sampler_row *r, uint64_t have) {
        r->have = have;
        for (int c = 0; c < KB_VM_NCOLS; c++)
                if (!(have & BIT(c)))
                        r->v[c] = 0;
}

void sampler_boot_row(const struct sampler_snapshot *s, unsigned hz, unsigned page_kb,
                      struct sampler_row *ret_row) {
        struct sampler_row r;
        uint64_t have = sampler_columns(s);
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
                r.v[KB_VM_pgscan] = muldiv(s->pgscan, scale, jiffies);
                r.v[KB_VM_pgsteal] = muldiv(s->pgsteal, scale, jiffies);
                r.v[KB_VM_allocstall] = muldiv(s->allocstall, scale, jiffies);
                r.v[KB_VM_rd] = muldiv(s->dk.rd_ios, scale, jiffies);
                r.v[KB_VM_wr] = muldiv(s->dk.wr_ios, scale, jiffies);
                r.v[KB_VM_rsect] = muldiv(s->dk.rd_sectors, scale, jiffies);
                r.v[KB_VM_wsect] = muldiv(s->dk.wr_sectors, scale, jiffies);
                /* io_ticks ms over the uptime: ms * scale / jiffies / 1000 * 100 */
                r.v[KB_VM_util] = muldiv(muldiv(s->dk.io_ticks, scale, jiffies), 1, 10);
                if (r.v[KB_VM_util] > 100)
                        r.v[KB_VM_util] = 100;
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
        r.v[KB_VM_pgscan] = muldiv(counter_delta(prev->pgscan, cur->pgscan), 1000, elapsed_ms);
        r.v[KB_VM_pgsteal] = muldiv(counter_delta(prev->pgsteal, cur->pgsteal), 1000, elapsed_ms);
        r.v[KB_VM_allocstall] = muldiv(counter_delta(prev->allocstall, cur->allocstall), 1000, elapsed_ms);
        r.v[KB_VM_rd] = muldiv(counter_delta(prev->dk.rd_ios, cur->dk.rd_ios), 1000, elapsed_ms);
        r.v[KB_VM_wr] = muldiv(counter_delta(prev->dk.wr_ios, cur->dk.wr_ios), 1000, elapsed_ms);
        r.v[KB_VM_rsect] = muldiv(counter_delta(prev->dk.rd_sectors, cur->dk.rd_sectors), 1000, elapsed_ms);
        r.v[KB_VM_wsect] = muldiv(counter_delta(prev->dk.wr_sectors, cur->dk.wr_sectors), 1000, elapsed_ms);
        /* io_ticks and the elapsed time are both ms; timer jitter can make
         * the busy time a little longer than the interval. */
        r.v[KB_VM_util] = muldiv(counter_delta(prev->dk.io_ticks, cur->dk.io_ticks), 100, elapsed_ms);
        if (r.v[KB_VM_util] > 100)
                r.v[KB_VM_util] = 100;
        keep_only(&r, sampler_columns(prev) & sampler_columns(cur));
        *ret_row = r;
}

int sampler_format_row(char *buf, size_t size, const struct sampler_row *r) {
        size_t len = 0;

        for (int c = 0; c < KB_VM_NCOLS; c++) {
                int n;
                if (r->have & BIT(c))
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
                             "----------------------------------------------------------------", col_groups[g], (int)(dashes / 2),
                             "----------------------------------------------------------------");
                if (n < 0 || (size_t)n >= size - len)
                        return -ENOSPC;
                len += (size_t)n;
        }
        return (int)len;
}

int sampler_pace(uint64_t now_ms, uint64_t interval_ms, uint64_t *next_ms, int *ret_timeout_ms) {
        int due = 0;

        if (interval_ms == 0)
                interval_ms = 1;
        if (now_ms >= *next_ms) {
                due = 1;
                *next_ms += interval_ms * ((now_ms - *next_ms) / interval_ms + 1);
        }
        *ret_timeout_ms = (int)(*next_ms - now_ms > (uint64_t)INT32_MAX ? INT32_MAX : *next_ms - now_ms);
        return due;
}
