/* host/guestcount.c: the guest kernel's counters at phase marks, and its
 * memory at the job's start and end (see guestcount.h). */
#include <errno.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "host/guestcount.h"

#define GC_WORD_MAX 64                     /* "reclaim_ns=18446744073709551615" fits */
#define GC_PAGE_BYTES 4096.0               /* x86-64's page: nr_file_pages counts them */
#define GC_SECTOR_BYTES 512.0              /* /proc/diskstats' sectors */
#define MIB (1024.0 * 1024.0)

static const char *const gc_keys[GC_N] = {
        [GC_ALLOCSTALL] = "allocstall", [GC_PGSCAN] = "pgscan", [GC_PGSTEAL] = "pgsteal",
        [GC_FILE_PAGES] = "file_pages", [GC_RD_IOS] = "rd_ios", [GC_RD_SECT] = "rd_sect",
        [GC_WR_IOS] = "wr_ios", [GC_WR_SECT] = "wr_sect", [GC_FLUSH_IOS] = "flush_ios",
        [GC_TASKS] = "tasks", [GC_WAITERS] = "waiters", [GC_SLEEP_NS] = "sleep_ns", [GC_RUN_NS] = "run_ns",
        [GC_DELAY_NS] = "delay_ns",
        [GC_BLKIO_NS] = "blkio_ns", [GC_RECLAIM_NS] = "reclaim_ns", [GC_LOST] = "lost",
};

static const char *const gm_keys[GM_N] = {
        [GM_TOTAL] = "mem_total_kb", [GM_FREE] = "mem_free_kb", [GM_AVAILABLE] = "mem_available_kb",
        [GM_BUFFERS] = "buffers_kb", [GM_CACHED] = "cached_kb", [GM_ANON] = "anon_kb", [GM_SHMEM] = "shmem_kb",
        [GM_SLAB] = "slab_kb", [GM_SRECLAIMABLE] = "sreclaimable_kb", [GM_SUNRECLAIM] = "sunreclaim_kb",
        [GM_KERNEL_STACK] = "kernel_stack_kb", [GM_PAGE_TABLES] = "page_tables_kb", [GM_PERCPU] = "percpu_kb",
        [GM_VMALLOC] = "vmalloc_used_kb",
};

/* Parse "key=N" words of p[0..len) into v[] by keys (n of them), setting
 * *have's bits. Returns 0 or -EBADMSG. */
static int parse_words(const char *p, size_t len, const char *const *keys, size_t n, uint64_t *v, uint32_t *have) {
        size_t i = 0;

        while (i < len) {
                char word[GC_WORD_MAX];
                size_t wl = 0;
                char *eq;

                while (i < len && p[i] == ' ')
                        i++;
                while (i < len && p[i] != ' ') {
                        if (wl + 1 >= sizeof(word))
                                return -EBADMSG;
                        word[wl++] = p[i++];
                }
                if (wl == 0)
                        continue;
                word[wl] = '\0';
                if (strlen(word) != wl || !(eq = strchr(word, '=')))
                        return -EBADMSG;
                *eq = '\0';
                for (size_t k = 0; k < n; k++) {
                        if (strcmp(word, keys[k]) != 0)
                                continue;
                        if ((*have & (1u << k)) || parse_u64(eq + 1, &v[k]) < 0)
                                return -EBADMSG;
                        *have |= 1u << k;
                }
        }
        return 0;
}

int guestcount_parse(const char *payload, size_t len, struct guestcount_totals *ret) {
        struct guestcount_totals t = { { 0 }, 0 };
        int r = parse_words(payload, len, gc_keys, GC_N, t.v, &t.have);

        if (r < 0)
                return r;
        *ret = t;
        return 0;
}

int guestcount_mark(struct guestcount_marks *m, const char *text, size_t len, const struct guestcount_totals *at) {
        if (m->n >= INSNCOUNT_PHASES_MAX || !insncount_phase_mark(text, len, m->v[m->n].phase))
                return 0;
        m->v[m->n++].at = at ? *at : (struct guestcount_totals){ { 0 }, 0 };
        return 1;
}

/* One figure of a phase: its counter's difference over the phase, times
 * scale. */
struct gc_figure {
        const char *what, *unit;
        enum guestcount_field f;
        double scale;
};

static const struct gc_figure gc_figures[] = {
        { "allocstalls", "stalls", GC_ALLOCSTALL, 1 },
        { "pgscan", "pages", GC_PGSCAN, 1 },
        { "pgsteal", "pages", GC_PGSTEAL, 1 },
        { "disk_reads", "requests", GC_RD_IOS, 1 },
        { "disk_read_MiB", "MiB", GC_RD_SECT, GC_SECTOR_BYTES / MIB },
        { "disk_writes", "requests", GC_WR_IOS, 1 },
        { "disk_written_MiB", "MiB", GC_WR_SECT, GC_SECTOR_BYTES / MIB },
        { "disk_flushes", "flushes", GC_FLUSH_IOS, 1 },
        { "tasks", "tasks", GC_TASKS, 1 },
        { "sleep_s", "s", GC_SLEEP_NS, 1e-9 },
        { "run_delay_s", "s", GC_DELAY_NS, 1e-9 },
        { "blkio_s", "s", GC_BLKIO_NS, 1e-9 },
        { "reclaim_s", "s", GC_RECLAIM_NS, 1e-9 },
};

static int has(const struct guestcount_totals *t, enum guestcount_field f) {
        return (t->have >> f) & 1;
}

static int is_task_field(enum guestcount_field f) {
        return f >= GC_TASKS && f <= GC_LOST;
}

static int add(struct metric_list *metrics, const char *phase, const char *what, const char *unit, const char *none,
               double v) {
        char name[96];

        snprintf(name, sizeof(name), "guest.%s.%s", phase, what);
        return none ? metric_add_none(metrics, name, unit, none) : metric_add(metrics, name, v, unit);
}

/* Why a phase has no task figures with a value (NULL: they have one). */
static const char *tasks_none(const struct guestcount_totals *a, const struct guestcount_totals *b) {
        if (!has(a, GC_LOST) || !has(b, GC_LOST))
                return NULL;
        if (b->v[GC_LOST] != a->v[GC_LOST])
                return "taskstats dropped reports of exiting tasks";
        return NULL;
}

static int phase_metrics(const char *phase, const struct guestcount_totals *a, const struct guestcount_totals *b,
                         struct metric_list *metrics) {
        const char *lost = tasks_none(a, b);
        int r = 0;

        for (size_t i = 0; i < ELEMENTSOF(gc_figures) && r >= 0; i++) {
                const struct gc_figure *g = &gc_figures[i];

                if (!has(a, g->f) || !has(b, g->f))
                        continue;
                if (b->v[g->f] < a->v[g->f])
                        r = add(metrics, phase, g->what, g->unit, "the counter went backwards", 0);
                else
                        r = add(metrics, phase, g->what, g->unit, is_task_field(g->f) ? lost : NULL,
                                (double)(b->v[g->f] - a->v[g->f]) * g->scale);
        }
        if (r >= 0 && has(a, GC_FILE_PAGES) && has(b, GC_FILE_PAGES))
                r = add(metrics, phase, "cache_MiB", "MiB", NULL,
                        ((double)b->v[GC_FILE_PAGES] - (double)a->v[GC_FILE_PAGES]) * GC_PAGE_BYTES / MIB);
        return r;
}

static int span_metrics(const void *marks, size_t i, struct metric_list *metrics) {
        const struct guestcount_marks *m = marks;

        return phase_metrics(m->v[i].phase, &m->v[i].at, &m->v[i + 1].at, metrics);
}

int guestcount_metrics(const struct guestcount_marks *m, struct metric_list *metrics) {
        /* The spans insncount_metrics counts, so both name the same phases. */
        return insncount_each_span(m->v[0].phase, sizeof(m->v[0]), m->n, span_metrics, m, metrics);
}

int guestcount_memory_parse(const char *payload, size_t len, int *ret_end, struct guestcount_memory *ret) {
        struct guestcount_memory m = { { 0 }, 0 };
        int end;

        if (len >= 5 && memcmp(payload, "start", 5) == 0 && (len == 5 || payload[5] == ' '))
                end = 0;
        else if (len >= 3 && memcmp(payload, "end", 3) == 0 && (len == 3 || payload[3] == ' '))
                end = 1;
        else
                return -EBADMSG;
        payload += end ? 3 : 5;
        len -= end ? 3 : 5;
        if (parse_words(payload, len, gm_keys, GM_N, m.kb, &m.have) < 0)
                return -EBADMSG;
        *ret_end = end;
        *ret = m;
        return 0;
}

/* The sum of the fields of mask (bits of enum guestcount_mem_field) minus
 * those of minus, in kB; 0 with *ok cleared when m lacks one. */
static double mem_sum(const struct guestcount_memory *m, uint32_t plus, uint32_t minus, int *ok) {
        double v = 0;

        if ((m->have & (plus | minus)) != (plus | minus)) {
                *ok = 0;
                return 0;
        }
        for (int f = 0; f < GM_N; f++)
                v += (plus >> f & 1) ? (double)m->kb[f] : (minus >> f & 1) ? -(double)m->kb[f] : 0;
        return v;
}

#define B(f) (1u << (f))

int guestcount_memory_metrics(const struct guestcount_memory *start, const struct guestcount_memory *end,
                              struct metric_list *metrics) {
        static const struct {
                const char *name;
                uint32_t plus, minus;
        } figs[] = {
                { "mem.held_MiB", B(GM_TOTAL), B(GM_FREE) | B(GM_ANON) | B(GM_SHMEM) },
                { "mem.available_MiB", B(GM_AVAILABLE), 0 },
                { "mem.unreclaimable_MiB",
                  B(GM_SUNRECLAIM) | B(GM_KERNEL_STACK) | B(GM_PAGE_TABLES) | B(GM_PERCPU) | B(GM_VMALLOC), 0 },
                { "mem.slab_MiB", B(GM_SLAB), 0 },
                { "mem.sunreclaim_MiB", B(GM_SUNRECLAIM), 0 },
                { "mem.page_tables_MiB", B(GM_PAGE_TABLES), 0 },
                { "mem.kernel_stack_MiB", B(GM_KERNEL_STACK), 0 },
                { "mem.percpu_MiB", B(GM_PERCPU), 0 },
                { "mem.vmalloc_MiB", B(GM_VMALLOC), 0 },
                { "mem.cached_MiB", B(GM_CACHED), 0 },
        };

        if (!start->have || !end->have)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(figs); i++) {
                int ok = 1;
                double a = mem_sum(start, figs[i].plus, figs[i].minus, &ok);
                double b = mem_sum(end, figs[i].plus, figs[i].minus, &ok);

                if (ok && metric_add(metrics, figs[i].name, (b - a) / 1024.0, "MiB") < 0)
                        return -ENOMEM;
        }
        return 0;
}
