/* bonnie.c: the bonnie++ workload. Debian's bonnie++ 2.00a runs in the guest
 * with -q, which puts one CSV line (format version 1.98) on stdout and its
 * human-readable table on stderr; both arrive in the job's output, and only
 * the CSV line is parsed. Every rate field has a CPU% field beside it and a
 * latency field (with unit us/ms/s) at the end. bonnie++ prints "+++++"
 * (and "+++" for the CPU) when a test ran under 0.5 s to measure: stored as
 * metrics without a value, never as zeros; empty fields are tests that did
 * not run (-f skips the per-character ones) and produce no metric. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

#define BONNIE_LINE_MAX 2048
#define BONNIE_FIELDS 50           /* format 1.98 */
#define BONNIE_FIELD_MAX 64

struct bonnie_params {
        uint64_t size;             /* bytes, whole MiB; 0: 2x guest RAM */
        uint64_t files;            /* -n, in units of 1024 files */
        uint64_t ram;              /* bytes, whole MiB; 0: guest RAM */
        int fast;                  /* -f */
};

/* bonnie++ takes sizes in MiB (-s, -r), so a bare number is MiB here. */
static const struct workload_key bonnie_keys[] = {
        { "size", WKEY_SIZE, offsetof(struct bonnie_params, size), "", .unit = 1 << 20, .min = 1 << 20,
          .help = "file size for the I/O tests, whole MiB; a bare number is MiB; computed: 2x guest RAM" },
        { "files", WKEY_COUNT, offsetof(struct bonnie_params, files), "16", .max = 1024,
          .help = "files for the create tests, in units of 1024 (-n)" },
        { "ram", WKEY_SIZE, offsetof(struct bonnie_params, ram), "", .unit = 1 << 20, .min = 1 << 20,
          .help = "RAM bonnie++ assumes (size must be >= 2x), whole MiB; a bare number is MiB; computed: guest RAM" },
        { "fast", WKEY_BOOL, offsetof(struct bonnie_params, fast), "no", .help = "skip the per-character tests (-f)" },
        { NULL },
};

static const char *const bonnie_binaries[] = { "/usr/sbin/bonnie++", NULL };
static const char *const bonnie_packages[] = { "bonnie++", NULL };

static const struct metric_def bonnie_metrics[] = {
        { "bonnie.*_KBps", "KiB/s", 1, NULL },
        { "bonnie.*_per_s", "1/s", 1, NULL },
        { "bonnie.*_cpu_pct", "%", 0, NULL },
        { "bonnie.*_lat_us", "us", 0, NULL },
        { NULL },
};

/* One test: where its rate, CPU and latency fields are in the CSV line. */
struct bonnie_test {
        const char *name;          /* metric stem */
        const char *rate_suffix;   /* "_KBps" or "_per_s" */
        const char *rate_unit;
        int rate, cpu, lat;        /* field indexes */
};

static const struct bonnie_test bonnie_tests[] = {
        { "seq_out_char", "_KBps", "KiB/s", 9, 10, 38 },
        { "seq_out_block", "_KBps", "KiB/s", 11, 12, 39 },
        { "rewrite", "_KBps", "KiB/s", 13, 14, 40 },
        { "seq_in_char", "_KBps", "KiB/s", 15, 16, 41 },
        { "seq_in_block", "_KBps", "KiB/s", 17, 18, 42 },
        { "seeks", "_per_s", "1/s", 19, 20, 43 },
        { "seq_create", "_per_s", "1/s", 26, 27, 44 },
        { "seq_stat", "_per_s", "1/s", 28, 29, 45 },
        { "seq_delete", "_per_s", "1/s", 30, 31, 46 },
        { "rand_create", "_per_s", "1/s", 32, 33, 47 },
        { "rand_stat", "_per_s", "1/s", 34, 35, 48 },
        { "rand_delete", "_per_s", "1/s", 36, 37, 49 },
};

/* The computed sizes, as bonnie_script resolves them: twice guest RAM, and
 * guest RAM, in whole MiB as the keys take them. */
static void bonnie_resolve(void *params, const struct workload_env *env) {
        struct bonnie_params *p = params;

        if (p->size == 0 && env->mem_bytes && (env->mem_bytes * 2) % (1 << 20) == 0)
                p->size = env->mem_bytes * 2;
        if (p->ram == 0 && env->mem_bytes && env->mem_bytes % (1 << 20) == 0)
                p->ram = env->mem_bytes;
}

static int bonnie_script(const struct workload_spec *spec, const struct workload_env *env,
                         char **ret_script, struct kb_error *err) {
        const struct bonnie_params *p = spec->params;
        uint64_t size = p->size ? p->size : env->mem_bytes * 2;
        uint64_t ram = p->ram ? p->ram : env->mem_bytes;
        uint64_t files = p->files;
        char *script;

        if (size == 0 || size % (1 << 20) != 0)
                return error_setf(err, -EINVAL, "workload bonnie: key 'size': %" PRIu64
                                  " bytes is not a whole number of MiB", size);
        if (ram == 0 || ram % (1 << 20) != 0)
                return error_setf(err, -EINVAL, "workload bonnie: key 'ram': %" PRIu64
                                  " bytes is not a whole number of MiB", ram);
        /* bonnie++ itself refuses a file smaller than twice the RAM. */
        if (size < 2 * ram)
                return error_setf(err, -EINVAL, "workload bonnie: key 'size': %" PRIu64
                                  " MiB is less than twice ram (%" PRIu64 " MiB)", size >> 20, ram >> 20);
        if (env->disk_bytes && size > env->disk_bytes / 100 * 92)
                return error_setf(err, -EINVAL, "workload bonnie: key 'size': %" PRIu64 " MiB does not fit on the %"
                                  PRIu64 " MiB test disk (use a smaller size or a larger --disk-size)",
                                  size >> 20, env->disk_bytes >> 20);
        if (asprintf(&script,
                     "set -e\n"
                     "mkdir -p kbench-bonnie\n"
                     "echo phase bonnie >&3\n"
                     "/usr/sbin/bonnie++ -q -u root -d kbench-bonnie -s %" PRIu64 " -n %" PRIu64
                     " -r %" PRIu64 " -m kbench%s\n"
                     "echo phase end >&3\n"
                     "rm -rf kbench-bonnie\n",
                     size >> 20, files, ram >> 20, p->fast ? " -f" : "") < 0)
                return -ENOMEM;
        *ret_script = script;
        return 0;
}

/* "1.98,...": a CSV result line starts with a "digits.digits," version. */
static int bonnie_is_csv(const char *line) {
        size_t n = strspn(line, "0123456789");

        if (n == 0 || line[n] != '.')
                return 0;
        line += n + 1;
        n = strspn(line, "0123456789");
        return n > 0 && line[n] == ',';
}

static int bonnie_too_fast(const char *f) {
        size_t n = strspn(f, "+");

        return n > 0 && f[n] == '\0';
}

/* "1799us", "12ms", "3s" -> microseconds. */
static int bonnie_latency(const char *f, double *ret_us) {
        char num[BONNIE_FIELD_MAX];
        size_t n = strspn(f, "0123456789.");
        double v, scale;

        if (n == 0 || n >= sizeof(num))
                return -EINVAL;
        if (strcmp(f + n, "us") == 0)
                scale = 1;
        else if (strcmp(f + n, "ms") == 0)
                scale = 1e3;
        else if (strcmp(f + n, "s") == 0)
                scale = 1e6;
        else
                return -EINVAL;
        memcpy(num, f, n);
        num[n] = '\0';
        if (parse_double(num, &v) < 0 || v < 0)
                return -EINVAL;
        *ret_us = v * scale;
        return 0;
}

/* Add one rate or CPU field. Returns 0, -EINVAL (bad field) or -ENOMEM. */
static int bonnie_add(struct metric_list *m, const char *name, const char *unit, const char *f) {
        double v;

        if (f[0] == '\0')
                return 0;
        if (bonnie_too_fast(f))
                return metric_add_none(m, name, unit, "too fast to measure");
        if (parse_double(f, &v) < 0 || v < 0)
                return -EINVAL;
        return metric_add(m, name, v, unit);
}

static int bonnie_parse_csv(const char *line, struct metric_list *m, struct kb_error *err) {
        char fields[BONNIE_FIELDS][BONNIE_FIELD_MAX];
        size_t n = 0;
        const char *p = line;
        char q[256];

        if (strnlen(line, BONNIE_LINE_MAX + 1) > BONNIE_LINE_MAX)
                return error_setf(err, -EBADMSG, "bonnie: CSV line too long: \"%s\"", workload_quote(line, q, sizeof(q)));
        for (;;) {
                size_t len = strcspn(p, ",");

                if (n == BONNIE_FIELDS || len >= BONNIE_FIELD_MAX)
                        return error_setf(err, -EBADMSG, "bonnie: %s: \"%s\"",
                                          n == BONNIE_FIELDS ? "more than 50 CSV fields" : "CSV field too long",
                                          workload_quote(line, q, sizeof(q)));
                memcpy(fields[n], p, len);
                fields[n][len] = '\0';
                for (size_t i = 0; i < len; i++)
                        if (!isprint((unsigned char)fields[n][i]))
                                return error_setf(err, -EBADMSG, "bonnie: unprintable byte in CSV: \"%s\"",
                                                  workload_quote(line, q, sizeof(q)));
                n++;
                if (p[len] == '\0')
                        break;
                p += len + 1;
        }
        if (strcmp(fields[0], "1.98") != 0)
                return error_setf(err, -EBADMSG, "bonnie: CSV format '%s' is not 1.98 (bonnie++ 2.00a): \"%s\"",
                                  fields[0], workload_quote(line, q, sizeof(q)));
        if (n != BONNIE_FIELDS)
                return error_setf(err, -EBADMSG, "bonnie: %zu CSV fields, expected 50: \"%s\"", n,
                                  workload_quote(line, q, sizeof(q)));
        for (size_t i = 0; i < ELEMENTSOF(bonnie_tests); i++) {
                const struct bonnie_test *t = &bonnie_tests[i];
                char name[64];
                double us;
                int r;

                snprintf(name, sizeof(name), "bonnie.%s%s", t->name, t->rate_suffix);
                r = bonnie_add(m, name, t->rate_unit, fields[t->rate]);
                if (r == 0) {
                        snprintf(name, sizeof(name), "bonnie.%s_cpu_pct", t->name);
                        r = bonnie_add(m, name, "%", fields[t->cpu]);
                }
                if (r == 0 && fields[t->lat][0]) {
                        snprintf(name, sizeof(name), "bonnie.%s_lat_us", t->name);
                        r = bonnie_latency(fields[t->lat], &us);
                        if (r == 0)
                                r = metric_add(m, name, us, "us");
                }
                if (r == -ENOMEM)
                        return error_setf(err, r, "bonnie: out of memory");
                if (r < 0)
                        return error_setf(err, -EBADMSG, "bonnie: bad %s field: \"%s\"", t->name,
                                          workload_quote(line, q, sizeof(q)));
        }
        return 0;
}

static int bonnie_parse(const struct workload_spec *spec, const struct workload_output *out,
                        struct metric_list *metrics, struct kb_error *err) {
        const char *csv = NULL, *last = NULL;
        char q[256];

        /* The human-readable table (stderr under -q) is skipped; only the
         * CSV line carries results, and there must be exactly one. */
        for (size_t i = 0; i < out->n_lines; i++) {
                const char *line = out->lines[i];

                if (line[strspn(line, " \t\r")] == '\0')
                        continue;
                last = line;
                if (!bonnie_is_csv(line))
                        continue;
                if (csv)
                        return error_setf(err, -EBADMSG, "bonnie: more than one CSV line: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                csv = line;
        }
        if (!csv)
                return error_setf(err, -EBADMSG, "bonnie: no CSV result line; last output: \"%s\"",
                                  last ? workload_quote(last, q, sizeof(q)) : "");
        return bonnie_parse_csv(csv, metrics, err);
}

static void bonnie_print(const struct metric_list *m, FILE *out) {
        fprintf(out, "%-14s %12s %6s %12s\n", "bonnie++", "rate", "CPU%", "latency us");
        for (size_t i = 0; i < ELEMENTSOF(bonnie_tests); i++) {
                const struct bonnie_test *t = &bonnie_tests[i];
                const struct metric *x[3];
                char name[64];

                snprintf(name, sizeof(name), "bonnie.%s%s", t->name, t->rate_suffix);
                x[0] = metric_find(m, name);
                snprintf(name, sizeof(name), "bonnie.%s_cpu_pct", t->name);
                x[1] = metric_find(m, name);
                snprintf(name, sizeof(name), "bonnie.%s_lat_us", t->name);
                x[2] = metric_find(m, name);
                if (!x[0] && !x[1] && !x[2])
                        continue;
                fprintf(out, "%-14s", t->name);
                for (int k = 0; k < 3; k++) {
                        int w = k == 1 ? 6 : 12;
                        if (!x[k])
                                fprintf(out, " %*s", w, "");
                        else if (!x[k]->has_value)
                                fprintf(out, " %*s", w, k == 1 ? "+++" : "+++++");
                        else
                                fprintf(out, " %*.0f", w, x[k]->value);
                }
                fprintf(out, " %s\n", strcmp(t->rate_suffix, "_KBps") == 0 ? "KiB/s" : "/s");
        }
}

const struct workload_ops bonnie_ops = {
        .name = "bonnie",
        .summary = "bonnie++ 2.00a: sequential char/block I/O, rewrite, seeks, file create/stat/delete",
        .keys = bonnie_keys,
        .params_size = sizeof(struct bonnie_params),
        .guest_binaries = bonnie_binaries,
        .packages = bonnie_packages,
        .script = bonnie_script,
        .resolve = bonnie_resolve,
        .parse = bonnie_parse,
        .metrics = bonnie_metrics,
        .print = bonnie_print,
};
