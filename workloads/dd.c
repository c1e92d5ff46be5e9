/* dd.c: the dd workload, the simplest streaming test: GNU dd writes a file
 * of zeros with fsync, the page cache is dropped, and dd reads it back. The
 * metrics come from dd's own report lines, recomputed from the exact byte
 * count and seconds, because the rate dd prints is rounded to two or three
 * digits and switches units (kB/s ... GB/s). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

#define DD_LINE_MAX 512            /* longer lines are not dd's report */
#define DD_BS_MAX (64ULL << 20)    /* a larger block only measures memory copies */

struct dd_params {
        uint64_t size;             /* bytes written then read; 0: 2x guest RAM */
        uint64_t bs;               /* bytes per read/write */
};

static const struct workload_key dd_keys[] = {
        { "size", WKEY_SIZE, offsetof(struct dd_params, size), "", .unit = 1 << 20, .min = 1,
          .help = "bytes written then read; a bare number is MiB; computed: 2x guest RAM" },
        { "bs", WKEY_SIZE, offsetof(struct dd_params, bs), "1M", .unit = 1 << 20, .min = 1, .max = DD_BS_MAX,
          .help = "block size of each read/write; a bare number is MiB (4k: 4 KiB)" },
        { NULL },
};

static const char *const dd_binaries[] = { "/usr/bin/dd", NULL };
static const char *const dd_packages[] = { "coreutils", NULL };

static const struct metric_def dd_metrics[] = {
        { "dd.*_MBps", "MB/s", 1, NULL },
        { "dd.*_s", "s", 0, .restates = "the same measurement as dd.*_MBps" },
        { NULL },
};

/* The computed size, as dd_script resolves it: twice guest RAM, whole
 * blocks. */
static void dd_resolve(void *params, const struct workload_env *env) {
        struct dd_params *p = params;

        if (p->size == 0 && p->bs && env->mem_bytes * 2 >= p->bs)
                p->size = env->mem_bytes * 2 - env->mem_bytes * 2 % p->bs;
}

static int dd_script(const struct workload_spec *spec, const struct workload_env *env,
                     char **ret_script, struct kb_error *err) {
        const struct dd_params *p = spec->params;
        uint64_t bs = p->bs, size, count;
        int explicit_size = p->size != 0;
        char *script;

        if (env->mem_bytes && bs > env->mem_bytes / 4)
                return error_setf(err, -EINVAL, "workload dd: key 'bs': %" PRIu64 " bytes is more than a quarter of guest RAM",
                                  bs);
        size = explicit_size ? p->size : env->mem_bytes * 2;
        if (!explicit_size)
                size -= size % bs;
        if (size == 0)
                return error_setf(err, -EINVAL, "workload dd: key 'size': must be at least one block (%" PRIu64 " bytes)",
                                  bs);
        if (size % bs != 0)
                return error_setf(err, -EINVAL, "workload dd: key 'size': %" PRIu64 " is not a multiple of bs (%" PRIu64 ")",
                                  size, bs);
        /* ext4's metadata and journal take a few percent of the disk. */
        if (env->disk_bytes && size > env->disk_bytes / 100 * 92)
                return error_setf(err, -EINVAL, "workload dd: key 'size': %" PRIu64 " MiB does not fit on the %" PRIu64
                                  " MiB test disk (use a smaller size or a larger --disk-size)",
                                  size >> 20, env->disk_bytes >> 20);
        count = size / bs;

        if (asprintf(&script,
                     "set -e\n"
                     "echo phase write >&3\n"
                     "/usr/bin/dd if=/dev/zero of=kbench-dd.data bs=%" PRIu64 " count=%" PRIu64 " conv=fsync\n"
                     "echo phase drop-caches >&3\n"
                     "sync\n"
                     "echo 3 > /proc/sys/vm/drop_caches\n"
                     "echo phase read >&3\n"
                     "/usr/bin/dd if=kbench-dd.data of=/dev/null bs=%" PRIu64 "\n"
                     "echo phase end >&3\n"
                     "rm -f kbench-dd.data\n",
                     bs, count, bs) < 0)
                return -ENOMEM;
        *ret_script = script;
        return 0;
}

/* Copy the next space-delimited token of *p into buf; advance *p past it. */
static int dd_token(const char **p, char *buf, size_t size) {
        size_t len = strcspn(*p, " ");

        if (len == 0 || len >= size)
                return -EINVAL;
        memcpy(buf, *p, len);
        buf[len] = '\0';
        *p += len;
        return 0;
}

static int dd_skip(const char **p, const char *lit) {
        size_t len = strlen(lit);

        if (strncmp(*p, lit, len) != 0)
                return -EINVAL;
        *p += len;
        return 0;
}

static int dd_parse_report(const char *line, uint64_t *ret_bytes, double *ret_seconds) {
        static const char *const units[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s", NULL };
        const char *p = line;
        char tok[64];
        uint64_t bytes;
        double seconds, rate;
        int ok = 0;

        if (strnlen(line, DD_LINE_MAX + 1) > DD_LINE_MAX)
                return -EINVAL;
        if (dd_token(&p, tok, sizeof(tok)) < 0 || parse_u64(tok, &bytes) < 0)
                return -EINVAL;
        if (dd_skip(&p, bytes == 1 ? " byte" : " bytes") < 0)
                return -EINVAL;
        /* " (537 MB, 512 MiB)": human-readable sizes, present from 1000 bytes on. */
        if (p[0] == ' ' && p[1] == '(') {
                const char *close = strchr(p, ')');
                if (!close)
                        return -EINVAL;
                p = close + 1;
        }
        if (dd_skip(&p, " copied, ") < 0)
                return -EINVAL;
        if (dd_token(&p, tok, sizeof(tok)) < 0 || parse_double(tok, &seconds) < 0 || seconds < 0)
                return -EINVAL;
        if (dd_skip(&p, " s, ") < 0)
                return -EINVAL;
        /* The printed rate is only validated: "Infinity" when no time elapsed. */
        if (dd_token(&p, tok, sizeof(tok)) < 0)
                return -EINVAL;
        if (strcmp(tok, "Infinity") != 0 && (parse_double(tok, &rate) < 0 || rate < 0))
                return -EINVAL;
        if (dd_skip(&p, " ") < 0)
                return -EINVAL;
        for (size_t i = 0; units[i]; i++)
                if (strcmp(p, units[i]) == 0)
                        ok = 1;
        if (!ok)
                return -EINVAL;
        *ret_bytes = bytes;
        *ret_seconds = seconds;
        return 0;
}

/* "12+0 records in", "0+1 records out", "1 truncated record(s)". */
static int dd_is_records_line(const char *line) {
        const char *p = line;
        size_t n = strspn(p, "0123456789");

        if (n == 0 || n > 20)
                return 0;
        p += n;
        if (strcmp(p, " truncated record") == 0 || strcmp(p, " truncated records") == 0)
                return 1;
        if (*p++ != '+')
                return 0;
        n = strspn(p, "0123456789");
        if (n == 0 || n > 20)
                return 0;
        p += n;
        return strcmp(p, " records in") == 0 || strcmp(p, " records out") == 0;
}

static int dd_add(struct metric_list *metrics, const char *phase, uint64_t bytes, double seconds) {
        char name[64];
        int r;

        snprintf(name, sizeof(name), "dd.%s_s", phase);
        r = metric_add(metrics, name, seconds, "s");
        if (r < 0)
                return r;
        snprintf(name, sizeof(name), "dd.%s_MBps", phase);
        return metric_add_rate(metrics, name, (double)bytes, seconds, 1e6, "MB/s");
}

static int dd_parse(const struct workload_spec *spec, const struct workload_output *out,
                    struct metric_list *metrics, struct kb_error *err) {
        static const char *const phases[] = { "write", "read" };
        size_t found = 0;
        char q[256];

        for (size_t i = 0; i < out->n_lines; i++) {
                const char *line = out->lines[i];
                uint64_t bytes;
                double seconds;
                int r;

                if (line[strspn(line, " \t\r")] == '\0' || dd_is_records_line(line))
                        continue;
                if (dd_parse_report(line, &bytes, &seconds) < 0)
                        return error_setf(err, -EBADMSG, "dd: unexpected output: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                if (found >= ELEMENTSOF(phases))
                        return error_setf(err, -EBADMSG, "dd: more than two report lines: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                r = dd_add(metrics, phases[found], bytes, seconds);
                if (r < 0)
                        return error_setf(err, r, "dd: out of memory");
                found++;
        }
        if (found != ELEMENTSOF(phases))
                return error_setf(err, -EBADMSG, "dd: expected two report lines (write, read), found %zu", found);
        return 0;
}

/* The read phase writes nothing by design: its bo of 0 is no stall. */
static const struct workload_phase dd_vmstat_phases[] = { { "write", 1 }, { "read", 0 }, { NULL } };

/* Syncing and dropping the caches between the write and the read is
 * kbench's method: a kernel that left less to drop is not faster at it. */
static const struct workload_phase_kind_row dd_phase_kinds[] = { { "drop-caches", WORKLOAD_PHASE_STEP }, { NULL } };

const struct workload_ops dd_ops = {
        .name = "dd",
        .summary = "GNU dd: sequential write with fsync, drop caches, sequential read",
        .keys = dd_keys,
        .params_size = sizeof(struct dd_params),
        .guest_binaries = dd_binaries,
        .packages = dd_packages,
        .script = dd_script,
        .resolve = dd_resolve,
        .parse = dd_parse,
        .metrics = dd_metrics,
        .vmstat_phases = dd_vmstat_phases,
        .vmstat_main = "write",
        .phase_kinds = dd_phase_kinds,
};
