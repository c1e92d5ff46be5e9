/* tiobench.c: the tiobench workload, run by our own guest tester tiotest
 * (tiotest.c): threaded sequential and random writes and reads at several
 * thread counts. This file builds the tiotest command line from the
 * workload keys, parses tiotest's one self-describing line per (phase,
 * thread count) into metrics, and prints tiobench's classic four-section
 * table for `kbench show`. Rates are MB/s of 10^6 bytes, like dd's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

#define TIOBENCH_LINE_MAX 1024
#define TIOBENCH_THREADS_MAX 256   /* tiotest's limits */
#define TIOBENCH_COUNTS_MAX 32
#define TIOBENCH_BLOCK_MAX (16ULL << 20)

struct tiobench_params {
        struct workload_list threads;  /* thread counts, each run in turn */
        uint64_t size;             /* bytes over all threads; 0: 2x guest RAM */
        uint64_t block;            /* bytes per read/write */
        uint64_t random;           /* random operations per phase */
        int direct, sync, drop_caches;
};

#define K(f) offsetof(struct tiobench_params, f)
static const struct workload_key tiobench_keys[] = {
        { "threads", WKEY_LIST, K(threads), "1/2/4/8", .min = 1, .max = TIOBENCH_THREADS_MAX,
          .help = "thread counts, each run in turn" },
        { "size", WKEY_SIZE, K(size), "", .unit = 1 << 20, .min = 1,
          .help = "total bytes over all threads; a bare number is MiB; computed: 2x guest RAM" },
        { "block", WKEY_SIZE, K(block), "4k", .unit = 1 << 20, .min = 1, .max = TIOBENCH_BLOCK_MAX,
          .help = "bytes per read/write; a bare number is MiB (4k: 4 KiB)" },
        { "random", WKEY_COUNT, K(random), "4000", .min = 1, .help = "random operations per phase over all threads" },
        { "direct", WKEY_BOOL, K(direct), "no", .help = "O_DIRECT (block must be a multiple of 512)" },
        { "sync", WKEY_BOOL, K(sync), "no", .help = "O_SYNC writes" },
        { "drop_caches", WKEY_BOOL, K(drop_caches), "yes", .help = "drop the page cache before the read phases" },
        { NULL },
};
#undef K

static const char *const tiobench_files[] = { "kbench:tiotest", NULL };

static const struct metric_def tiobench_metrics[] = {
        { "tiobench.*.MBps", "MB/s", 1, NULL },
        { "tiobench.*.lat_avg_ms", "ms", 0, NULL },
        { "tiobench.*.lat_max_ms", "ms", 0, NULL },
        { "tiobench.*.lat_pct_gt2s", "%", 0, NULL },
        { "tiobench.*.lat_pct_gt10s", "%", 0, NULL },
        { "tiobench.*.cpu_pct", "%", 0, NULL },
        { "tiobench.*.cpu_eff", "MB/s per CPU", 1, NULL },
        { "tiobench.size_MiB", "MiB", -1, NULL },
        { "tiobench.block_bytes", "B", -1, NULL },
        { NULL },
};

static const char *const tiobench_phases[] = { "seq_write", "rand_write", "seq_read", "rand_read" };

/* The computed size, as tiobench_script resolves it: twice guest RAM. */
static void tiobench_resolve(void *params, const struct workload_env *env) {
        struct tiobench_params *p = params;

        if (p->size == 0)
                p->size = env->mem_bytes * 2;
}

static int tiobench_script(const struct workload_spec *spec, const struct workload_env *env,
                           char **ret_script, struct kb_error *err) {
        const struct tiobench_params *p = spec->params;
        const uint64_t *threads = p->threads.v;
        size_t n = p->threads.n;
        uint64_t size, block, random, tmax = 0;
        int direct = p->direct;
        char list[WORKLOAD_LIST_MAX * 21];
        char *script;

        if (n > TIOBENCH_COUNTS_MAX)
                return error_setf(err, -EINVAL, "workload tiobench: key 'threads': more than %d thread counts",
                                  TIOBENCH_COUNTS_MAX);
        for (size_t i = 0; i < n; i++)
                if (threads[i] > tmax)
                        tmax = threads[i];
        block = p->block;
        if (direct && block % 512 != 0)
                return error_setf(err, -EINVAL, "workload tiobench: key 'block': %" PRIu64
                                  " is not a multiple of 512, which direct=yes needs", block);
        if (env->mem_bytes && tmax * block > env->mem_bytes / 4)
                return error_setf(err, -EINVAL, "workload tiobench: key 'threads': %" PRIu64 " threads x %" PRIu64
                                  " byte blocks need more than a quarter of guest RAM", tmax, block);
        size = p->size ? p->size : env->mem_bytes * 2;
        if (size / tmax < block)
                return error_setf(err, -EINVAL, "workload tiobench: key 'size': %" PRIu64
                                  " bytes give %" PRIu64 " threads less than one block each", size, tmax);
        if (env->disk_bytes && size > env->disk_bytes / 100 * 92)
                return error_setf(err, -EINVAL, "workload tiobench: key 'size': %" PRIu64 " MiB does not fit on the %"
                                  PRIu64 " MiB test disk (use a smaller size or a larger --disk-size)",
                                  size >> 20, env->disk_bytes >> 20);
        random = p->random;
        if (workload_key_format(&tiobench_keys[0], p, list, sizeof(list)) < 0)
                return -ENOMEM;
        if (random < tmax)
                return error_setf(err, -EINVAL, "workload tiobench: key 'random': %" PRIu64
                                  " operations leave some of the %" PRIu64 " threads nothing to do", random, tmax);

        if (asprintf(&script,
                     "set -e\n"
                     "/bin/tiotest -d . -s %" PRIu64 " -b %" PRIu64 " -t %s -r %" PRIu64 "%s%s%s -x %" PRIu64 " -e 3\n"
                     "echo phase end >&3\n",
                     size, block, list, random, direct ? " -D" : "", p->sync ? " -S" : "",
                     p->drop_caches ? " -c" : "", env->seed) < 0)
                return -ENOMEM;
        *ret_script = script;
        return 0;
}

struct tiobench_line {
        int phase;                 /* index into tiobench_phases */
        uint64_t threads, size, block, ops, bytes, gt2, gt10;
        double wall_s, lat_avg_ms, lat_max_ms, user_s, sys_s;
};

enum { F_PHASE, F_THREADS, F_SIZE, F_BLOCK, F_OPS, F_BYTES, F_WALL, F_LAT_AVG, F_LAT_MAX,
       F_GT2, F_GT10, F_USER, F_SYS, N_FIELDS };

static const char *const tiobench_fields[N_FIELDS] = {
        "phase", "threads", "size", "block", "ops", "bytes", "wall_s", "lat_avg_ms",
        "lat_max_ms", "lat_gt2s", "lat_gt10s", "cpu_user_s", "cpu_sys_s",
};

/* Parse one "tiotest phase=... " line. Returns 0, -ENOENT (not a tiotest
 * line) or -EINVAL (a tiotest line that is malformed or inconsistent). */
static int tiobench_parse_line(const char *line, struct tiobench_line *ret) {
        struct tiobench_line l = { .phase = -1 };
        unsigned seen = 0;
        const char *p;

        if (strncmp(line, "tiotest ", 8) != 0)
                return -ENOENT;
        if (strnlen(line, TIOBENCH_LINE_MAX + 1) > TIOBENCH_LINE_MAX)
                return -EINVAL;
        p = line + 8;
        while (*p) {
                char key[32], val[64];
                size_t klen = strcspn(p, "= "), vlen;
                int f = -1, r = 0;

                if (klen == 0 || klen >= sizeof(key) || p[klen] != '=')
                        return -EINVAL;
                memcpy(key, p, klen);
                key[klen] = '\0';
                p += klen + 1;
                vlen = strcspn(p, " ");
                if (vlen == 0 || vlen >= sizeof(val))
                        return -EINVAL;
                memcpy(val, p, vlen);
                val[vlen] = '\0';
                p += vlen;
                if (*p == ' ' && *++p == '\0')
                        return -EINVAL;
                for (int i = 0; i < N_FIELDS; i++)
                        if (strcmp(key, tiobench_fields[i]) == 0)
                                f = i;
                /* Unknown keys are an error: a newer tiotest must be paired with its parser. */
                if (f < 0 || (seen & (1u << f)))
                        return -EINVAL;
                seen |= 1u << f;
                switch (f) {
                case F_PHASE:
                        for (size_t i = 0; i < ELEMENTSOF(tiobench_phases); i++)
                                if (strcmp(val, tiobench_phases[i]) == 0)
                                        l.phase = (int)i;
                        r = l.phase < 0 ? -EINVAL : 0;
                        break;
                case F_THREADS: r = parse_u64(val, &l.threads); break;
                case F_SIZE: r = parse_u64(val, &l.size); break;
                case F_BLOCK: r = parse_u64(val, &l.block); break;
                case F_OPS: r = parse_u64(val, &l.ops); break;
                case F_BYTES: r = parse_u64(val, &l.bytes); break;
                case F_GT2: r = parse_u64(val, &l.gt2); break;
                case F_GT10: r = parse_u64(val, &l.gt10); break;
                case F_WALL: r = parse_double(val, &l.wall_s); break;
                case F_LAT_AVG: r = parse_double(val, &l.lat_avg_ms); break;
                case F_LAT_MAX: r = parse_double(val, &l.lat_max_ms); break;
                case F_USER: r = parse_double(val, &l.user_s); break;
                case F_SYS: r = parse_double(val, &l.sys_s); break;
                }
                if (r < 0)
                        return -EINVAL;
        }
        if (seen != (1u << N_FIELDS) - 1)
                return -EINVAL;
        if (l.threads == 0 || l.threads > TIOBENCH_THREADS_MAX || l.block == 0 ||
            l.wall_s < 0 || l.lat_avg_ms < 0 || l.lat_max_ms < 0 || l.user_s < 0 || l.sys_s < 0 ||
            l.gt2 > l.ops || l.gt10 > l.gt2 || l.lat_avg_ms > l.lat_max_ms ||
            l.ops > UINT64_MAX / l.block || l.bytes != l.ops * l.block)
                return -EINVAL;
        *ret = l;
        return 0;
}

static int tiobench_add(struct metric_list *m, const char *prefix, const char *what, double v,
                        int has_value, const char *unit, const char *note) {
        char name[96];

        snprintf(name, sizeof(name), "%s.%s", prefix, what);
        return has_value ? metric_add(m, name, v, unit) : metric_add_none(m, name, unit, note);
}

static int tiobench_metrics_of(const struct tiobench_line *l, struct metric_list *m) {
        char prefix[64];
        double rate = 0, cpu = 0;
        int have_rate = l->wall_s > 0, have_cpu = 0, r = 0;

        snprintf(prefix, sizeof(prefix), "tiobench.%s.t%" PRIu64, tiobench_phases[l->phase], l->threads);
        if (have_rate) {
                rate = (double)l->bytes / l->wall_s / 1e6;
                cpu = (l->user_s + l->sys_s) / l->wall_s * 100;
                have_cpu = 1;
        }
        r |= tiobench_add(m, prefix, "MBps", rate, have_rate, "MB/s", "too fast to measure");
        r |= tiobench_add(m, prefix, "lat_avg_ms", l->lat_avg_ms, l->ops > 0, "ms", "no operations");
        r |= tiobench_add(m, prefix, "lat_max_ms", l->lat_max_ms, l->ops > 0, "ms", "no operations");
        r |= tiobench_add(m, prefix, "lat_pct_gt2s", l->ops ? (double)l->gt2 / (double)l->ops * 100 : 0,
                          l->ops > 0, "%", "no operations");
        r |= tiobench_add(m, prefix, "lat_pct_gt10s", l->ops ? (double)l->gt10 / (double)l->ops * 100 : 0,
                          l->ops > 0, "%", "no operations");
        r |= tiobench_add(m, prefix, "cpu_pct", cpu, have_cpu, "%", "too fast to measure");
        r |= tiobench_add(m, prefix, "cpu_eff", cpu > 0 ? rate / (cpu / 100) : 0, have_cpu && cpu > 0,
                          "MB/s per CPU", "no CPU time measured");
        return r < 0 ? -ENOMEM : 0;
}

static int tiobench_parse(const struct workload_spec *spec, const struct workload_output *out,
                          struct metric_list *metrics, struct kb_error *err) {
        /* Seen (phase, thread count) pairs, to reject duplicates. */
        uint64_t seen[TIOBENCH_COUNTS_MAX * 4][2];
        size_t n_seen = 0;
        uint64_t size = 0, block = 0;
        char q[256];

        for (size_t i = 0; i < out->n_lines; i++) {
                const char *line = out->lines[i];
                struct tiobench_line l;
                int r;

                if (line[strspn(line, " \t\r")] == '\0')
                        continue;
                r = tiobench_parse_line(line, &l);
                if (r < 0)
                        return error_setf(err, -EBADMSG, "tiobench: %s: \"%s\"",
                                          r == -ENOENT ? "unexpected output" : "malformed tiotest line",
                                          workload_quote(line, q, sizeof(q)));
                for (size_t j = 0; j < n_seen; j++)
                        if (seen[j][0] == (uint64_t)l.phase && seen[j][1] == l.threads)
                                return error_setf(err, -EBADMSG, "tiobench: repeated result: \"%s\"",
                                                  workload_quote(line, q, sizeof(q)));
                if (n_seen == ELEMENTSOF(seen))
                        return error_setf(err, -EBADMSG, "tiobench: too many results: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                if (block && l.block != block)
                        return error_setf(err, -EBADMSG, "tiobench: block size changed: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                seen[n_seen][0] = (uint64_t)l.phase;
                seen[n_seen][1] = l.threads;
                n_seen++;
                block = l.block;
                if (l.size > size)
                        size = l.size;
                if (tiobench_metrics_of(&l, metrics) < 0)
                        return error_setf(err, -ENOMEM, "tiobench: out of memory");
        }
        if (n_seen == 0)
                return error_setf(err, -EBADMSG, "tiobench: tiotest printed no results");
        if (metric_add(metrics, "tiobench.size_MiB", (double)size / (1 << 20), "MiB") < 0 ||
            metric_add(metrics, "tiobench.block_bytes", (double)block, "B") < 0)
                return error_setf(err, -ENOMEM, "tiobench: out of memory");
        return 0;
}

static int tiobench_cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

static void tiobench_cell(FILE *out, const struct metric_list *m, const char *prefix, const char *what,
                          int width, int prec) {
        char name[96];
        const struct metric *x;

        snprintf(name, sizeof(name), "%s.%s", prefix, what);
        x = metric_find(m, name);
        if (x && x->has_value)
                fprintf(out, " %*.*f", width, prec, x->value);
        else
                fprintf(out, " %*s", width, "-");
}

static void tiobench_print(const struct metric_list *m, FILE *out) {
        static const struct { const char *phase, *title; } sections[] = {
                { "seq_read", "Sequential Reads" },
                { "rand_read", "Random Reads" },
                { "seq_write", "Sequential Writes" },
                { "rand_write", "Random Writes" },
        };
        const struct metric *size = metric_find(m, "tiobench.size_MiB");
        const struct metric *block = metric_find(m, "tiobench.block_bytes");

        fprintf(out, "Unit information: File Size = MiB over all threads, Blk Size = bytes, Rate = MB/s (10^6 B),\n"
                     "CPU%% = user+sys CPU over wall time, Latency = ms, Lat%% = share of operations slower\n"
                     "than 2 s / 10 s, CPU Eff = Rate / (CPU%% / 100)\n");
        for (size_t s = 0; s < ELEMENTSOF(sections); s++) {
                uint64_t threads[TIOBENCH_COUNTS_MAX];
                size_t n = 0;
                size_t plen = strlen("tiobench.") + strlen(sections[s].phase) + 2;

                for (size_t i = 0; i < m->n && n < ELEMENTSOF(threads); i++) {
                        const char *name = m->v[i].name, *t, *dot;
                        char num[24];
                        uint64_t v;

                        if (strncmp(name, "tiobench.", 9) != 0 ||
                            strncmp(name + 9, sections[s].phase, strlen(sections[s].phase)) != 0 ||
                            strncmp(name + plen - 2, ".t", 2) != 0)
                                continue;
                        t = name + plen;
                        dot = strchr(t, '.');
                        if (!dot || strcmp(dot, ".MBps") != 0 || (size_t)(dot - t) >= sizeof(num))
                                continue;
                        memcpy(num, t, (size_t)(dot - t));
                        num[dot - t] = '\0';
                        if (parse_u64(num, &v) == 0)
                                threads[n++] = v;
                }
                if (n == 0)
                        continue;
                qsort(threads, n, sizeof(threads[0]), tiobench_cmp_u64);
                fprintf(out, "\n%s\n", sections[s].title);
                fprintf(out, "%8s %7s %4s %9s %7s %10s %11s %9s %9s %8s\n", "File", "Blk", "Num", "", "",
                        "Avg", "Maximum", "Lat%", "Lat%", "CPU");
                fprintf(out, "%8s %7s %4s %9s %7s %10s %11s %9s %9s %8s\n", "Size", "Size", "Thr", "Rate",
                        "(CPU%)", "Latency", "Latency", ">2s", ">10s", "Eff");
                fprintf(out, "-------- ------- ---- --------- ------- ---------- ----------- --------- --------- --------\n");
                for (size_t i = 0; i < n; i++) {
                        char prefix[64];

                        snprintf(prefix, sizeof(prefix), "tiobench.%s.t%" PRIu64, sections[s].phase, threads[i]);
                        if (size && size->has_value)
                                fprintf(out, "%8.0f", size->value);
                        else
                                fprintf(out, "%8s", "-");
                        if (block && block->has_value)
                                fprintf(out, " %7.0f", block->value);
                        else
                                fprintf(out, " %7s", "-");
                        fprintf(out, " %4" PRIu64, threads[i]);
                        tiobench_cell(out, m, prefix, "MBps", 9, 2);
                        tiobench_cell(out, m, prefix, "cpu_pct", 6, 2);
                        fputc('%', out);
                        tiobench_cell(out, m, prefix, "lat_avg_ms", 10, 3);
                        tiobench_cell(out, m, prefix, "lat_max_ms", 11, 3);
                        tiobench_cell(out, m, prefix, "lat_pct_gt2s", 9, 5);
                        tiobench_cell(out, m, prefix, "lat_pct_gt10s", 9, 5);
                        tiobench_cell(out, m, prefix, "cpu_eff", 8, 1);
                        fputc('\n', out);
                }
        }
}

/* Every (phase, thread count): seq_write.t1 ... rand_read.t8. */
static const struct workload_phase tiobench_vmstat_phases[] = {
        { "*_write.*", 1 },
        { "*_read.*", 0 },
        { NULL },
};

/* tiotest's sync and drop of the caches before each read phase, marked
 * apart (drop-caches.t2): kbench's method, not the workload. */
static const struct workload_phase_kind_row tiobench_phase_kinds[] = {
        { "drop-caches.*", WORKLOAD_PHASE_STEP },
        { NULL },
};

const struct workload_ops tiobench_ops = {
        .name = "tiobench",
        .summary = "threaded sequential/random write and read (kbench's tiotest, tiobench's method)",
        .keys = tiobench_keys,
        .params_size = sizeof(struct tiobench_params),
        .guest_files = tiobench_files,
        .script = tiobench_script,
        .resolve = tiobench_resolve,
        .parse = tiobench_parse,
        .metrics = tiobench_metrics,
        .vmstat_phases = tiobench_vmstat_phases,
        .phase_kinds = tiobench_phase_kinds,
        .print = tiobench_print,
};
