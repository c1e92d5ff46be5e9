/* dbench.c: the dbench workload. Debian's dbench 4.0 replays a recorded
 * Samba file-server trace (its client.txt: creates, writes, reads, renames,
 * unlinks, stats, locks) from N client processes for a fixed time against
 * the disk under test. It is the load the project's first kernel-regression
 * report named. dbench runs a warm-up (a fifth of the time) before it
 * measures, prints a progress line per second through both, and then one
 * result table and one "Throughput" line over the measured part only: the
 * parser reads only those, so the warm-up never enters a metric. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

#define DBENCH_LINE_MAX 512        /* longer lines are not dbench's result table */
#define DBENCH_OPS_MAX 32          /* rows of the result table (client.txt has 14 kinds) */
#define DBENCH_OP_NAME_MAX 32
#define DBENCH_LOADFILE_DIR "/usr/share/dbench/"

struct dbench_params {
        uint64_t clients;          /* client processes */
        uint64_t duration;         /* seconds, warm-up included */
        int loadfile;              /* index into dbench_loadfiles */
};

/* The load files Debian's package ships (in DBENCH_LOADFILE_DIR). */
static const char *const dbench_loadfiles[] = { "client.txt", NULL };

static const struct workload_key dbench_keys[] = {
        { "clients", WKEY_COUNT, offsetof(struct dbench_params, clients), "2", .min = 1, .max = 128,
          .help = "client processes replaying the load at once" },
        { "duration", WKEY_COUNT, offsetof(struct dbench_params, duration), "20", .min = 5, .max = 86400,
          .help = "seconds dbench runs (-t), its warm-up (a fifth) included" },
        { "loadfile", WKEY_ENUM, offsetof(struct dbench_params, loadfile), "client.txt",
          .choices = dbench_loadfiles, .help = "load file from " DBENCH_LOADFILE_DIR " (-c)" },
        { NULL },
};

static const char *const dbench_binaries[] = { "/usr/bin/dbench", NULL };
/* Plain data, copied to the same path in the guest (26 MB, 2 MB in the
 * compressed image). */
static const char *const dbench_files[] = { DBENCH_LOADFILE_DIR "client.txt", NULL };
static const char *const dbench_packages[] = { "dbench", NULL };

static const struct metric_def dbench_metrics[] = {
        { "dbench.MBps", "MB/s", 1, NULL },
        { "dbench.max_latency_ms", "ms", 0, NULL },
        { "dbench.*.avg_ms", "ms", 0, NULL },
        { "dbench.*.max_ms", "ms", 0, NULL },
        { "dbench.ops", "ops", 1, "the same operations as dbench.MBps, counted over the measured time" },
        { NULL },
};

static int dbench_script(const struct workload_spec *spec, const struct workload_env *env,
                         char **ret_script, struct kb_error *err) {
        const struct dbench_params *p = spec->params;
        char *script;

        if (asprintf(&script,
                     "set -e\n"
                     "mkdir -p kbench-dbench\n"
                     "echo phase dbench >&3\n"
                     "/usr/bin/dbench -t %" PRIu64 " -c " DBENCH_LOADFILE_DIR "%s -D kbench-dbench %" PRIu64 "\n"
                     "echo phase end >&3\n"
                     "rm -rf kbench-dbench\n",
                     p->duration, dbench_loadfiles[p->loadfile], p->clients) < 0)
                return -ENOMEM;
        *ret_script = script;
        return 0;
}

/* The next blank-separated field of *p into buf (at most size - 1 bytes);
 * advances *p past it. Returns 0 or -EINVAL (none, or too long). */
static int dbench_field(const char **p, char *buf, size_t size) {
        size_t len;

        *p += strspn(*p, " \t");
        len = strcspn(*p, " \t");
        if (len == 0 || len >= size)
                return -EINVAL;
        memcpy(buf, *p, len);
        buf[len] = '\0';
        *p += len;
        return 0;
}

static int dbench_number(const char **p, double *ret) {
        char f[40];
        double v;

        if (dbench_field(p, f, sizeof(f)) < 0 || parse_double(f, &v) < 0 || v < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int dbench_at_end(const char *p) {
        return p[strspn(p, " \t\r")] == '\0';
}

/* " NTCreateX      22078     0.082    28.109": an operation (letters), its
 * count and its average and maximum latency in ms. */
static int dbench_row(const char *line, char *ret_name, double *ret_count, double *ret_avg, double *ret_max) {
        const char *p = line;
        char name[DBENCH_OP_NAME_MAX];
        double count, avg, max;

        if (dbench_field(&p, name, sizeof(name)) < 0)
                return -EINVAL;
        for (const char *c = name; *c; c++)
                if (!isalpha((unsigned char)*c))
                        return -EINVAL;
        if (dbench_number(&p, &count) < 0 || dbench_number(&p, &avg) < 0 || dbench_number(&p, &max) < 0 ||
            !dbench_at_end(p) || avg > max)
                return -EINVAL;
        strcpy(ret_name, name);
        *ret_count = count;
        *ret_avg = avg;
        *ret_max = max;
        return 0;
}

/* "Throughput 111.809 MB/sec  2 clients  2 procs  max_latency=52.900 ms". */
static int dbench_throughput(const char *line, double *ret_mbps, double *ret_max_ms) {
        const char *p = line + strlen("Throughput");
        char f[40];
        double mbps, max;

        if (dbench_number(&p, &mbps) < 0 || dbench_field(&p, f, sizeof(f)) < 0 || strcmp(f, "MB/sec") != 0)
                return -EINVAL;
        p = strstr(p, "max_latency=");
        if (!p)
                return -EINVAL;
        p += strlen("max_latency=");
        if (dbench_number(&p, &max) < 0 || dbench_field(&p, f, sizeof(f)) < 0 || strcmp(f, "ms") != 0 ||
            !dbench_at_end(p))
                return -EINVAL;
        *ret_mbps = mbps;
        *ret_max_ms = max;
        return 0;
}

static int dbench_is_header(const char *line) {
        const char *p = line;
        char f[16];
        static const char *const words[] = { "Operation", "Count", "AvgLat", "MaxLat" };

        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (dbench_field(&p, f, sizeof(f)) < 0 || strcmp(f, words[i]) != 0)
                        return 0;
        return dbench_at_end(p);
}

/* Where the parser is in dbench's output. */
enum dbench_state {
        DBENCH_PROGRESS,           /* banner and per-second lines (warm-up and measured): skipped */
        DBENCH_RULE,               /* after the table header, before its "-----" rule */
        DBENCH_ROWS,               /* table rows until a blank line */
        DBENCH_AFTER,              /* table done; the Throughput line follows */
        DBENCH_DONE,
};

static int dbench_parse(const struct workload_spec *spec, const struct workload_output *out,
                        struct metric_list *metrics, struct kb_error *err) {
        enum dbench_state st = DBENCH_PROGRESS;
        char seen[DBENCH_OPS_MAX][DBENCH_OP_NAME_MAX];
        size_t n_ops = 0;
        double ops = 0;
        const char *last = NULL;
        char q[256];
        int r = 0;

        for (size_t i = 0; i < out->n_lines && r >= 0; i++) {
                const char *line = out->lines[i];
                char name[DBENCH_OP_NAME_MAX], metric[80];
                double count, avg, max, mbps;

                if (strnlen(line, DBENCH_LINE_MAX + 1) > DBENCH_LINE_MAX) {
                        if (st == DBENCH_PROGRESS)
                                continue;
                        return error_setf(err, -EBADMSG, "dbench: line too long in the result table: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                }
                if (dbench_at_end(line)) {
                        if (st == DBENCH_ROWS)
                                st = DBENCH_AFTER;
                        continue;
                }
                last = line;
                switch (st) {
                case DBENCH_PROGRESS:
                        if (dbench_is_header(line))
                                st = DBENCH_RULE;
                        break;
                case DBENCH_RULE:
                        if (line[strspn(line, " -")] != '\0' || !strchr(line, '-'))
                                return error_setf(err, -EBADMSG, "dbench: expected the table's rule: \"%s\"",
                                                  workload_quote(line, q, sizeof(q)));
                        st = DBENCH_ROWS;
                        break;
                case DBENCH_ROWS:
                        if (dbench_row(line, name, &count, &avg, &max) < 0)
                                return error_setf(err, -EBADMSG, "dbench: bad result row: \"%s\"",
                                                  workload_quote(line, q, sizeof(q)));
                        for (size_t k = 0; k < n_ops; k++)
                                if (strcmp(seen[k], name) == 0)
                                        return error_setf(err, -EBADMSG, "dbench: operation %s twice: \"%s\"",
                                                          name, workload_quote(line, q, sizeof(q)));
                        if (n_ops == DBENCH_OPS_MAX)
                                return error_setf(err, -EBADMSG, "dbench: more than %d result rows",
                                                  DBENCH_OPS_MAX);
                        strcpy(seen[n_ops++], name);
                        ops += count;
                        snprintf(metric, sizeof(metric), "dbench.%s.avg_ms", name);
                        r = metric_add(metrics, metric, avg, "ms");
                        snprintf(metric, sizeof(metric), "dbench.%s.max_ms", name);
                        if (r >= 0)
                                r = metric_add(metrics, metric, max, "ms");
                        break;
                case DBENCH_AFTER:
                        if (strncmp(line, "Throughput ", strlen("Throughput ")) != 0 ||
                            dbench_throughput(line, &mbps, &max) < 0)
                                return error_setf(err, -EBADMSG, "dbench: expected the Throughput line: \"%s\"",
                                                  workload_quote(line, q, sizeof(q)));
                        r = metric_add(metrics, "dbench.MBps", mbps, "MB/s");
                        if (r >= 0)
                                r = metric_add(metrics, "dbench.max_latency_ms", max, "ms");
                        /* The operations the result table counts: what the
                         * phase's figures per operation divide by. */
                        if (r >= 0)
                                r = metric_add(metrics, "dbench.ops", ops, "ops");
                        st = DBENCH_DONE;
                        break;
                case DBENCH_DONE:
                        /* Nothing of dbench's follows its result; another
                         * result would be a second run in one job. */
                        if (dbench_is_header(line) || strncmp(line, "Throughput ", 11) == 0)
                                return error_setf(err, -EBADMSG, "dbench: a second result: \"%s\"",
                                                  workload_quote(line, q, sizeof(q)));
                        break;
                }
        }
        if (r < 0)
                return error_setf(err, r, "dbench: out of memory");
        if (st != DBENCH_DONE)
                return error_setf(err, -EBADMSG, "dbench: no %s; last output: \"%s\"",
                                  st == DBENCH_PROGRESS ? "result table" : "Throughput line",
                                  last ? workload_quote(last, q, sizeof(q)) : "");
        if (n_ops == 0)
                return error_setf(err, -EBADMSG, "dbench: the result table has no rows");
        return 0;
}

static const struct workload_phase dbench_vmstat_phases[] = { { "dbench", 1 }, { NULL } };

/* dbench runs for its -t seconds: its phase's figures are per operation.
 * The phase holds the warm-up and the cleanup too, the table's counts the
 * measured part only; both grow with the operations the time held. */
static const struct workload_phase_kind_row dbench_phase_kinds[] = { { "dbench", WORKLOAD_PHASE_TIMED }, { NULL } };

static double dbench_phase_ops(const struct metric_list *metrics, const char *phase) {
        const struct metric *m = metric_find(metrics, "dbench.ops");

        return strcmp(phase, "dbench") == 0 && m && m->has_value ? m->value : NAN;
}

const struct workload_ops dbench_ops = {
        .name = "dbench",
        .summary = "dbench 4.0: N clients replay a file-server trace (client.txt) for a fixed time",
        .keys = dbench_keys,
        .params_size = sizeof(struct dbench_params),
        .guest_binaries = dbench_binaries,
        .guest_files = dbench_files,
        .packages = dbench_packages,
        .script = dbench_script,
        .parse = dbench_parse,
        .metrics = dbench_metrics,
        .vmstat_phases = dbench_vmstat_phases,
        .vmstat_main = "dbench",
        .phase_kinds = dbench_phase_kinds,
        .phase_ops = dbench_phase_ops,
};
