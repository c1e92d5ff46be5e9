/* fio.c: the fio workload. fio is Jens Axboe's flexible I/O tester, built
 * from Debian's source package (tools/setup.sh: the same version and
 * patches as Debian's fio, without the engines that link the Ceph, Gluster,
 * RDMA, PMDK and NBD libraries: with those 80 MiB the guest image does not
 * even unpack in a guest of 256 MiB, see docs/workloads.md). A job is either one of kbench's presets (a
 * sequential write or read, random 4 KiB reads or writes at queue depth 1
 * or 32, a 70/30 random mix, or all of them in turn) over one file on the
 * disk under test, or a user's job file. fio writes its result as JSON; the
 * parser reads each job's bandwidth, IOPS and completion-latency
 * percentiles per direction from it. That JSON comes from the guest and is
 * parsed as hostile input: bounded in size and depth, every number checked.
 *
 * Each preset runs as its own fio process between phase marks, so the
 * per-phase vmstat figures and instruction counts describe one preset
 * each; a job file runs as one phase, "fio". */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <jansson.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

/* Where tools/setup.sh installs the guest's fio; the guest image has it at
 * the same path, with the libraries it links. */
#define FIO_BIN "/var/cache/kbench/fio/fio"
#define FIO_DIR "kbench-fio"       /* the job's directory on the disk under test */
#define FIO_JOBFILE_MAX (64 << 10) /* a job file travels inside the agent's 120 KiB script */
#define FIO_JSON_MAX (4 << 20)     /* bytes of one JSON result; a preset's is about 8 KiB */
#define FIO_JOBS_MAX 64            /* jobs in all results of one cell */
#define FIO_JOBNAME_MAX 32         /* bytes of a job's name in a metric */
#define FIO_LINE_MAX 2048          /* longer lines are no part of fio's pretty-printed JSON */
#define FIO_VALUE_MAX 1e18         /* above any rate, count or latency fio can report */
#define FIO_HEREDOC "KBENCH_FIO_JOB_END"

struct fio_params {
        char job[WORKLOAD_TEXT_MAX];       /* a preset's name, or a job file's path (has a '/') */
        uint64_t size;                     /* bytes of the presets' file */
        uint64_t runtime;                  /* seconds each preset runs */
        int ioengine;                      /* index into fio_ioengines */
        int direct;                        /* O_DIRECT: the page cache neither serves nor absorbs */
};

static const char *const fio_ioengines[] = { "libaio", "io_uring", "psync", NULL };

/* A preset is one fio job over FIO_DIR/data; its name is the job's name,
 * its phase's name and the middle of its metrics' names. */
struct fio_preset {
        const char *name;
        const char *rw;                    /* fio's rw= */
        const char *bs;
        unsigned iodepth;
        const char *extra;                 /* further options */
};

static const struct fio_preset fio_presets[] = {
        { "seqwrite", "write", "1M", 1, "" },
        { "seqread", "read", "1M", 1, "" },
        { "randread", "randread", "4k", 1, "" },
        { "randread-qd32", "randread", "4k", 32, "" },
        { "randwrite", "randwrite", "4k", 1, "" },
        { "randwrite-qd32", "randwrite", "4k", 32, "" },
        { "randrw", "randrw", "4k", 1, " --rwmixread=70" },
};

static const struct workload_key fio_keys[] = {
        { "job", WKEY_TEXT, offsetof(struct fio_params, job), "all",
          .help = "a preset (all, seqwrite, seqread, randread, randread-qd32, randwrite, randwrite-qd32, "
                  "randrw: 70/30) or the path of a job file (it has a '/')" },
        { "size", WKEY_SIZE, offsetof(struct fio_params, size), "256M", .unit = 1 << 20, .min = 1 << 20,
          .max = 1ULL << 40, .help = "the presets' file; a bare number is MiB" },
        { "runtime", WKEY_COUNT, offsetof(struct fio_params, runtime), "10", .min = 1, .max = 3600,
          .help = "seconds each preset runs" },
        { "ioengine", WKEY_ENUM, offsetof(struct fio_params, ioengine), "libaio", .choices = fio_ioengines,
          .help = "the presets' I/O engine (a kernel without AIO needs psync)" },
        { "direct", WKEY_BOOL, offsetof(struct fio_params, direct), "yes", .help = "the presets' O_DIRECT" },
        { NULL },
};

static const char *const fio_binaries[] = { FIO_BIN, NULL };
/* The libraries the built fio links beyond libc (tools/setup.sh builds it). */
static const char *const fio_packages[] = { "libaio1", "zlib1g", NULL };

static const struct metric_def fio_metrics[] = {
        { "fio.*_MBps", "MB/s", 1, NULL },
        { "fio.*_iops", "IO/s", 1, "the same I/Os over the same seconds as fio.*_MBps" },
        { "fio.*_p50_us", "us", 0, NULL },
        { "fio.*_p99_us", "us", 0, NULL },
        { "fio.*_p99_9_us", "us", 0, NULL },
        { "fio.*.ios", "ios", 1, "the same I/Os as fio.*_iops, counted over the job's runtime" },
        { NULL },
};

/* The latency percentiles kept, as fio's JSON keys them and as metrics end. */
static const struct {
        double pct;
        const char *suffix;
} fio_percentiles[] = {
        { 50.0, "p50_us" },
        { 99.0, "p99_us" },
        { 99.9, "p99_9_us" },
};

static const struct fio_preset *fio_preset_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(fio_presets); i++)
                if (strcmp(fio_presets[i].name, name) == 0)
                        return &fio_presets[i];
        return NULL;
}

static void fio_preset_line(GString *s, const struct fio_params *p, const struct fio_preset *x) {
        int writes = strcmp(x->rw, "read") != 0 && strcmp(x->rw, "randread") != 0;

        g_string_append_printf(s,
                               "echo phase %s >&3\n"
                               FIO_BIN " --eta=never --output-format=json --output=" FIO_DIR "/%s.json "
                               "--name=%s --filename=" FIO_DIR "/data --size=%" PRIu64 " --rw=%s --bs=%s "
                               "--iodepth=%u --ioengine=%s --direct=%d --time_based --runtime=%" PRIu64
                               "%s%s\n",
                               x->name, x->name, x->name, p->size, x->rw, x->bs, x->iodepth,
                               fio_ioengines[p->ioengine], p->direct ? 1 : 0, p->runtime,
                               writes ? " --end_fsync=1" : "", x->extra);
}

/* The presets' job: lay the file out once (not measured), then each preset
 * between its phase marks, then the results in the order run. */
static int fio_preset_script(const struct fio_params *p, const struct workload_env *env, char **ret_script,
                             struct kb_error *err) {
        const struct fio_preset *one = strcmp(p->job, "all") == 0 ? NULL : fio_preset_find(p->job);
        g_autoptr(GString) s = g_string_new(NULL);

        if (!one && strcmp(p->job, "all") != 0)
                return error_setf(err, -EINVAL, "workload fio: key 'job': '%s' is neither a preset (all, seqwrite, "
                                  "seqread, randread, randread-qd32, randwrite, randwrite-qd32, randrw) nor a "
                                  "job file's path (one with a '/')", p->job);
        if (env->disk_bytes && p->size > env->disk_bytes / 100 * 90)
                return error_setf(err, -EINVAL, "workload fio: key 'size': %" PRIu64 " MiB does not fit on the "
                                  "%" PRIu64 " MiB test disk (use a smaller size or a larger --disk-size)",
                                  p->size >> 20, env->disk_bytes >> 20);
        g_string_append_printf(s,
                               "set -e\n"
                               "rm -rf " FIO_DIR "\n"
                               "mkdir " FIO_DIR "\n"
                               "echo phase layout >&3\n"
                               FIO_BIN " --eta=never --output=/dev/null --name=layout --filename=" FIO_DIR "/data "
                               "--size=%" PRIu64 " --create_only=1\n"
                               "sync\n"
                               "echo 3 > /proc/sys/vm/drop_caches\n",
                               p->size);
        for (size_t i = 0; i < ELEMENTSOF(fio_presets); i++)
                if (!one || one == &fio_presets[i])
                        fio_preset_line(s, p, &fio_presets[i]);
        g_string_append(s, "echo phase end >&3\n");
        for (size_t i = 0; i < ELEMENTSOF(fio_presets); i++)
                if (!one || one == &fio_presets[i])
                        g_string_append_printf(s, "cat " FIO_DIR "/%s.json\n", fio_presets[i].name);
        g_string_append(s, "rm -rf " FIO_DIR "\n");
        *ret_script = g_string_free(g_steal_pointer(&s), FALSE);
        return 0;
}

/* A job file's text, checked to travel in a here-document of the script:
 * text only (tabs and line ends allowed), and no line that would end it. */
static int fio_jobfile_check(const char *path, const char *text, size_t len, struct kb_error *err) {
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)text[i];
                if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
                        return error_setf(err, -EINVAL, "workload fio: key 'job': job file %s: byte %zu is not "
                                          "text (give a fio job file, text of at most %d KiB)", path, i,
                                          FIO_JOBFILE_MAX >> 10);
        }
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, FIO_HEREDOC, strlen(FIO_HEREDOC)) == 0)
                        return error_setf(err, -EINVAL, "workload fio: key 'job': job file %s: a line begins "
                                          "with " FIO_HEREDOC, path);
        return 0;
}

/* A user's job file, read and checked: a regular file (a FIFO is never
 * waited on, /dev/zero never read), refused by its size before a byte is
 * read, then text that travels in the script. OUT: *ret_text (NUL-
 * terminated, caller frees), *ret_len. */
static int fio_jobfile_read(const char *path, char **ret_text, size_t *ret_len, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        char *text;
        int r = fileio_read(path, FIO_JOBFILE_MAX, &buf, &len, NULL, err);

        if (r == -EFBIG)
                return error_setf(err, r, "workload fio: key 'job': job file %s: larger than %d KiB (a job file "
                                  "travels inside the guest's script)", path, FIO_JOBFILE_MAX >> 10);
        if (r < 0)
                return error_prefix(err, r, "workload fio: key 'job'");
        /* fileio_read's buffer holds len bytes, no terminator: the check's
         * line scan needs one after them (a NUL among them it refuses). */
        text = malloc(len + 1);
        if (!text)
                return error_setf(err, -ENOMEM, "out of memory");
        memcpy(text, buf, len);
        text[len] = '\0';
        r = fio_jobfile_check(path, text, len, err);
        if (r < 0) {
                free(text);
                return r;
        }
        *ret_text = text;
        *ret_len = len;
        return 0;
}

/* When the spec is parsed: a job file that cannot run is a usage error of
 * -w (or of a nightly configuration's workloads), not a failed cell. */
static int fio_check(const void *params, struct kb_error *err) {
        const struct fio_params *p = params;
        _cleanup_free_ char *text = NULL;
        size_t len;

        if (!strchr(p->job, '/'))
                return 0;        /* a preset: fio_preset_script says which are known */
        return fio_jobfile_read(p->job, &text, &len, err);
}

/* A user's job file: read on the host when the cell's script is made,
 * written into FIO_DIR in the guest and run there as one phase, so files
 * its jobs name by relative paths land on the disk under test. */
static int fio_jobfile_script(const struct fio_params *p, char **ret_script, struct kb_error *err) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = fio_jobfile_read(p->job, &text, &len, err);

        if (r < 0)
                return r;
        if (asprintf(ret_script,
                     "set -e\n"
                     "rm -rf " FIO_DIR "\n"
                     "mkdir " FIO_DIR "\n"
                     "cd " FIO_DIR "\n"
                     "cat > job.fio <<'" FIO_HEREDOC "'\n"
                     "%s%s"
                     FIO_HEREDOC "\n"
                     "echo phase fio >&3\n"
                     FIO_BIN " --eta=never --output-format=json --output=result.json job.fio\n"
                     "echo phase end >&3\n"
                     "cat result.json\n"
                     "cd ..\n"
                     "rm -rf " FIO_DIR "\n",
                     text, len && text[len - 1] != '\n' ? "\n" : "") < 0)
                return -ENOMEM;
        return 0;
}

/* A job file's path made absolute (against the current directory, the
 * file need not exist yet), so the label says which file ran wherever
 * kbench was started. */
static void fio_resolve(void *params, const struct workload_env *env) {
        struct fio_params *p = params;
        g_autofree char *abs = NULL;

        (void)env;
        if (!strchr(p->job, '/') || p->job[0] == '/')
                return;
        abs = g_canonicalize_filename(p->job, NULL);
        if (strlen(abs) >= sizeof(p->job))
                return;
        /* What WKEY_TEXT accepts, so the canonical text parses again. */
        for (const char *c = abs; *c; c++)
                if (*c < 0x20 || *c > 0x7e || *c == ',')
                        return;
        strcpy(p->job, abs);
}

static int fio_script(const struct workload_spec *spec, const struct workload_env *env, char **ret_script,
                      struct kb_error *err) {
        const struct fio_params *p = spec->params;

        if (strchr(p->job, '/'))
                return fio_jobfile_script(p, ret_script, err);
        return fio_preset_script(p, env, ret_script, err);
}

/* ---- the JSON result ---------------------------------------------------- */

/* The finite number in o[key], 0 <= v <= FIO_VALUE_MAX; where is the path
 * to o ("read.clat_ns.percentile", "" for the job itself). Returns 0 or
 * -EBADMSG with err naming the job and the field. */
static int fio_number(const json_t *o, const char *key, const char *job, const char *where, double *ret,
                      struct kb_error *err) {
        const json_t *v = json_object_get(o, key);
        double x;

        if (!json_is_number(v))
                return error_setf(err, -EBADMSG, "fio: job %s: %s%s%s is %s", job, where, where[0] ? "." : "", key,
                                  v ? "not a number" : "missing");
        x = json_number_value(v);
        if (!isfinite(x) || x < 0 || x > FIO_VALUE_MAX)
                return error_setf(err, -EBADMSG, "fio: job %s: %s%s%s is out of range", job, where,
                                  where[0] ? "." : "", key);
        *ret = x;
        return 0;
}

/* The percentile pct of a latency object's "percentile" map (keys such as
 * "99.900000", values in ns). Returns 0, -ENOENT when fio did not report
 * that percentile, -EBADMSG with err on a malformed entry. */
static int fio_percentile(const json_t *lat, double pct, const char *job, double *ret_ns, struct kb_error *err) {
        const json_t *map = json_object_get(lat, "percentile");
        const char *key;
        json_t *v;

        if (!json_is_object(map))
                return -ENOENT;
        json_object_foreach((json_t *)map, key, v) {
                double k;

                if (parse_double(key, &k) < 0 || !(fabs(k - pct) < 1e-6))
                        continue;
                return fio_number(map, key, job, "percentile", ret_ns, err);
        }
        return -ENOENT;
}

/* fio.<job>.<dir>_<suffix>, or fio.<job>.<suffix> for dir "". */
static int fio_add(struct metric_list *m, const char *job, const char *dir, const char *suffix, double v,
                   const char *unit, struct kb_error *err) {
        char name[128];

        snprintf(name, sizeof(name), "fio.%s.%s%s%s", job, dir, dir[0] ? "_" : "", suffix);
        if (metric_add(m, name, v, unit) < 0)
                return error_setf(err, -ENOMEM, "fio: out of memory");
        return 0;
}

/* One direction (read, write, trim) of a job: nothing when it did no I/O.
 * Its I/Os are added to *ios. Returns 1 when it added metrics, 0 when
 * none, or -errno with err. */
static int fio_direction(const json_t *jobj, const char *job, const char *dir, struct metric_list *m, double *ios_sum,
                         struct kb_error *err) {
        const json_t *d = json_object_get(jobj, dir), *lat;
        const char *latname = "clat";
        double ios, bw, iops;
        int r;

        if (!d)
                return 0;
        if (!json_is_object(d))
                return error_setf(err, -EBADMSG, "fio: job %s: %s is not an object", job, dir);
        if ((r = fio_number(d, "total_ios", job, dir, &ios, err)) < 0)
                return r;
        if (ios == 0)
                return 0;
        *ios_sum += ios;
        if ((r = fio_number(d, "bw_bytes", job, dir, &bw, err)) < 0 ||
            (r = fio_number(d, "iops", job, dir, &iops, err)) < 0 ||
            (r = fio_add(m, job, dir, "MBps", bw / 1e6, "MB/s", err)) < 0 ||
            (r = fio_add(m, job, dir, "iops", iops, "IO/s", err)) < 0)
                return r;
        /* fio puts the percentiles on the completion latency, or on the
         * total latency when a job file asks for lat_percentiles. */
        lat = json_object_get(d, "clat_ns");
        if (!json_is_object(json_object_get(lat, "percentile"))) {
                lat = json_object_get(d, "lat_ns");
                latname = "lat";
        }
        for (size_t i = 0; i < ELEMENTSOF(fio_percentiles); i++) {
                char suffix[32];
                double ns;

                r = fio_percentile(lat, fio_percentiles[i].pct, job, &ns, err);
                if (r == -ENOENT)
                        continue;
                snprintf(suffix, sizeof(suffix), "%s_%s", latname, fio_percentiles[i].suffix);
                if (r < 0 || (r = fio_add(m, job, dir, suffix, ns / 1e3, "us", err)) < 0)
                        return r;
        }
        return 1;
}

/* A job's name as a metric's middle: letters, digits, '_' and '-' kept,
 * any other byte '_', at most FIO_JOBNAME_MAX - 1 bytes. */
static int fio_jobname(const json_t *jobj, char *ret, struct kb_error *err) {
        const char *s = json_string_value(json_object_get(jobj, "jobname"));
        size_t n;

        if (!s || !s[0])
                return error_setf(err, -EBADMSG, "fio: a job without a jobname");
        n = strnlen(s, FIO_JOBNAME_MAX);
        if (n >= FIO_JOBNAME_MAX)
                return error_setf(err, -EBADMSG, "fio: a jobname longer than %d bytes", FIO_JOBNAME_MAX - 1);
        for (size_t i = 0; i < n; i++)
                ret[i] = g_ascii_isalnum(s[i]) || s[i] == '_' || s[i] == '-' ? s[i] : '_';
        ret[n] = '\0';
        return 0;
}

/* The jobs of one JSON result. names holds the names seen so far (*n_names
 * of them) so that no two jobs of a cell give the same metrics. */
static int fio_result(const json_t *root, char (*names)[FIO_JOBNAME_MAX], size_t *n_names, struct metric_list *m,
                      struct kb_error *err) {
        static const char *const dirs[] = { "read", "write", "trim" };
        const json_t *jobs = json_object_get(root, "jobs");
        size_t i;
        json_t *jobj;

        if (!json_is_array(jobs) || json_array_size(jobs) == 0)
                return error_setf(err, -EBADMSG, "fio: a result without jobs");
        json_array_foreach(jobs, i, jobj) {
                char job[FIO_JOBNAME_MAX];
                double error, ios = 0;
                int r, any = 0;

                if (!json_is_object(jobj))
                        return error_setf(err, -EBADMSG, "fio: a job is not an object");
                if ((r = fio_jobname(jobj, job, err)) < 0)
                        return r;
                for (size_t k = 0; k < *n_names; k++)
                        if (strcmp(names[k], job) == 0)
                                return error_setf(err, -EBADMSG, "fio: job %s twice (jobs of one cell need "
                                                  "names of their own)", job);
                if (*n_names == FIO_JOBS_MAX)
                        return error_setf(err, -EBADMSG, "fio: more than %d jobs", FIO_JOBS_MAX);
                strcpy(names[(*n_names)++], job);
                if ((r = fio_number(jobj, "error", job, "", &error, err)) < 0)
                        return r;
                if (error != 0)
                        return error_setf(err, -EBADMSG, "fio: job %s failed with error %.0f", job, error);
                for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                        if ((r = fio_direction(jobj, job, dirs[d], m, &ios, err)) < 0)
                                return r;
                        any |= r;
                }
                if (!any)
                        return error_setf(err, -EBADMSG, "fio: job %s did no I/O", job);
                /* The job's operations: what its phase's figures per
                 * operation divide by (fio_phase_ops). */
                if ((r = fio_add(m, job, "", "ios", ios, "ios", err)) < 0)
                        return r;
        }
        return 0;
}

/* The output holds fio's JSON results (each from a line "{" to a line "}"),
 * and whatever fio wrote to stderr (warnings, notes) between them. */
static int fio_parse(const struct workload_spec *spec, const struct workload_output *out,
                     struct metric_list *metrics, struct kb_error *err) {
        char names[FIO_JOBS_MAX][FIO_JOBNAME_MAX];
        size_t n_names = 0, results = 0;
        g_autoptr(GString) doc = g_string_new(NULL);
        const char *last = NULL;
        int in_doc = 0, r;
        char q[256];

        (void)spec;
        for (size_t i = 0; i < out->n_lines; i++) {
                const char *line = out->lines[i];
                size_t len = strnlen(line, FIO_LINE_MAX + 1);
                json_t *root;
                json_error_t jerr;

                if (line[strspn(line, " \t\r")] != '\0')
                        last = line;
                if (!in_doc) {
                        in_doc = strcmp(line, "{") == 0;
                        if (in_doc)
                                g_string_assign(doc, "{\n");
                        continue;
                }
                if (len > FIO_LINE_MAX || doc->len + len + 1 > FIO_JSON_MAX)
                        return error_setf(err, -EBADMSG, "fio: a result larger than %d MiB or a line longer than %d "
                                          "bytes: \"%s\"", FIO_JSON_MAX >> 20, FIO_LINE_MAX,
                                          workload_quote(line, q, sizeof(q)));
                g_string_append_len(doc, line, (gssize)len);
                g_string_append_c(doc, '\n');
                if (strcmp(line, "}") != 0)
                        continue;
                in_doc = 0;
                root = json_loadb(doc->str, doc->len, JSON_REJECT_DUPLICATES, &jerr);
                if (!root)
                        return error_setf(err, -EBADMSG, "fio: result %zu is not JSON: %s (its line %d)",
                                          results + 1, jerr.text, jerr.line);
                r = fio_result(root, names, &n_names, metrics, err);
                json_decref(root);
                if (r < 0)
                        return r;
                results++;
        }
        if (in_doc)
                return error_setf(err, -EBADMSG, "fio: a result that never ends; last output: \"%s\"",
                                  last ? workload_quote(last, q, sizeof(q)) : "");
        if (results == 0)
                return error_setf(err, -EBADMSG, "fio: no JSON result; last output: \"%s\"",
                                  last ? workload_quote(last, q, sizeof(q)) : "");
        return 0;
}

/* The operations of a timed phase: a preset's phase is its job's; a job
 * file's one phase, "fio", holds all its jobs. */
static double fio_phase_ops(const struct metric_list *metrics, const char *phase) {
        char name[128];
        const struct metric *m;
        double sum = 0;
        int any = 0;

        snprintf(name, sizeof(name), "fio.%s.ios", phase);
        if ((m = metric_find(metrics, name)) && m->has_value)
                return m->value;
        if (strcmp(phase, "fio") != 0)
                return NAN;
        for (size_t i = 0; i < metrics->n; i++) {
                const char *n = metrics->v[i].name;
                size_t len = strlen(n);

                if (strncmp(n, "fio.", 4) == 0 && len > 8 && strcmp(n + len - 4, ".ios") == 0 &&
                    metrics->v[i].has_value) {
                        sum += metrics->v[i].value;
                        any = 1;
                }
        }
        return any ? sum : NAN;
}

/* Every preset runs for its runtime, and a job file is assumed to (most
 * set time_based); laying the presets' file out is kbench's step. */
static const struct workload_phase_kind_row fio_phase_kinds[] = {
        { "layout", WORKLOAD_PHASE_STEP },
        { "seqwrite", WORKLOAD_PHASE_TIMED }, { "seqread", WORKLOAD_PHASE_TIMED },
        { "randread*", WORKLOAD_PHASE_TIMED }, { "randwrite*", WORKLOAD_PHASE_TIMED },
        { "randrw", WORKLOAD_PHASE_TIMED }, { "fio", WORKLOAD_PHASE_TIMED },
        { NULL },
};

/* The reading phases write nothing by design: their bo of 0 is no stall. */
static const struct workload_phase fio_vmstat_phases[] = {
        { "seqwrite", 1 }, { "seqread", 0 }, { "randread*", 0 }, { "randwrite*", 1 }, { "randrw", 1 },
        { "fio", 1 }, { NULL },
};

const struct workload_ops fio_ops = {
        .name = "fio",
        .summary = "fio 3.33: kbench's presets (sequential, random 4 KiB at depth 1 and 32, 70/30 mix) or a job file",
        .keys = fio_keys,
        .params_size = sizeof(struct fio_params),
        .guest_binaries = fio_binaries,
        .packages = fio_packages,
        .check = fio_check,
        .script = fio_script,
        .resolve = fio_resolve,
        .parse = fio_parse,
        .metrics = fio_metrics,
        .vmstat_phases = fio_vmstat_phases,
        .vmstat_main = "fio",
        .phase_kinds = fio_phase_kinds,
        .phase_ops = fio_phase_ops,
};
