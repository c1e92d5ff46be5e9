/* copy.c: the copy workload, "just copying files", which the project's
 * first kernel-regression report named beside dbench. The job creates a
 * tree of files on the disk under test (many small files, a few large, from
 * the workload's seed key, so every cell copies the same tree), makes it
 * cold (sync, drop caches), copies it with `cp -a` to another directory on
 * the same disk, syncs, drops the caches again and reads the copy back
 * with `tar cf - | cat` (through a pipe: a tar writing to /dev/null may skip
 * reading). Only busybox tools run: the guest has no others.
 *
 * The phases are timed by their marks (the agent stamps each fd-3 event
 * with the guest's clock), so copy, sync and read are the same windows the
 * per-phase vmstat and instruction counts describe. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/parse.h"
#include "common/splitmix64.h"
#include "common/util.h"
#include "workloads/workload.h"

#define COPY_SIZE_MAX (1ULL << 30) /* the tree's sizes must fit the agent's 120 KiB script */
#define COPY_PER_DIR 64            /* files per directory of the tree */
#define COPY_PRINTF_MAX (256 << 10)/* files up to this are written by the shell's builtin
                                      printf (no fork); larger ones by head */
#define COPY_LINE_MAX 128

struct copy_params {
        uint64_t size;             /* bytes in the tree */
        uint64_t seed;             /* the tree's shape */
};

static const struct workload_key copy_keys[] = {
        { "size", WKEY_SIZE, offsetof(struct copy_params, size), "64M", .unit = 1 << 20, .min = 1 << 20,
          .max = COPY_SIZE_MAX, .help = "bytes in the generated tree; a bare number is MiB" },
        /* Fixed by default, unlike the per-cell seed: the number and sizes
         * of the files set how long a copy takes, so every cell compared
         * must copy the same tree. */
        { "seed", WKEY_COUNT, offsetof(struct copy_params, seed), "1", .min = 1,
          .help = "seed of the tree's file sizes; the same seed, the same tree" },
        { NULL },
};

static const struct metric_def copy_metrics[] = {
        { "copy.copy_MBps", "MB/s", 1, NULL },
        { "copy.copy_s", "s", 0, "the same measurement as copy.copy_MBps" },
        { "copy.copy_files_per_s", "1/s", 1, "the same seconds as copy.copy_MBps" },
        { "copy.sync_s", "s", 0, NULL },
        { "copy.read_MBps", "MB/s", 1, NULL },
        { "copy.read_s", "s", 0, "the same measurement as copy.read_MBps" },
        { "copy.read_files_per_s", "1/s", 1, "the same seconds as copy.read_MBps" },
        { "copy.files", "", -1, NULL },
        { "copy.size_MiB", "MiB", -1, NULL },
        { NULL },
};

/* The size of file i of the tree for seed, at most left bytes: one in 64 is
 * large (1 to 16 MiB), the rest small (512 bytes to 64 KiB), each spread
 * evenly over its powers of two so that every scale is represented.
 * Integer arithmetic only: the same tree on every host. */
static uint64_t copy_file_size(uint64_t seed, uint64_t i, uint64_t left) {
        uint64_t w = splitmix64_at(seed, i), s;
        unsigned e = (w & 63) == 0 ? 20 + (unsigned)((w >> 8) % 4) : 9 + (unsigned)((w >> 8) % 7);

        s = (1ULL << e) + (w >> 16) % (1ULL << e);
        return s < left ? s : left;
}

static int copy_script(const struct workload_spec *spec, const struct workload_env *env, char **ret_script,
                       struct kb_error *err) {
        const struct copy_params *p = spec->params;
        g_autoptr(GString) s = g_string_new(NULL);
        uint64_t left = p->size, n = 0;

        /* cp -a doubles the tree; ext4 keeps a few percent for itself. */
        if (env->disk_bytes && 2 * p->size > env->disk_bytes / 100 * 90)
                return error_setf(err, -EINVAL, "workload copy: key 'size': twice %" PRIu64 " MiB does not fit on "
                                  "the %" PRIu64 " MiB test disk (use a smaller size or a larger --disk-size)",
                                  p->size >> 20, env->disk_bytes >> 20);
        g_string_append_printf(s,
                               "set -e\n"
                               "rm -rf kbench-copy\n"
                               "mkdir -p kbench-copy/src\n"
                               "echo phase create >&3\n"
                               "i=0\n"
                               "while read s; do\n"
                               "  d=kbench-copy/src/d$((i / %d))\n"
                               "  [ $((i %% %d)) -ne 0 ] || mkdir $d\n"
                               "  if [ $s -le %d ]; then printf \"%%${s}s\" '' > $d/f$i\n"
                               "  else head -c $s /dev/zero > $d/f$i; fi\n"
                               "  i=$((i + 1))\n"
                               "done <<'EOF'\n",
                               COPY_PER_DIR, COPY_PER_DIR, COPY_PRINTF_MAX);
        while (left > 0) {
                uint64_t size = copy_file_size(p->seed, n++, left);

                g_string_append_printf(s, "%" PRIu64 "\n", size);
                left -= size;
        }
        g_string_append_printf(s,
                               "EOF\n"
                               "[ $i -eq %" PRIu64 " ]\n"
                               "sync\n"
                               "echo 3 > /proc/sys/vm/drop_caches\n"
                               "echo 'copy: files %" PRIu64 " bytes %" PRIu64 "'\n"
                               "echo phase copy >&3\n"
                               "cp -a kbench-copy/src kbench-copy/dst\n"
                               "echo phase sync >&3\n"
                               "sync\n"
                               "echo phase drop-caches >&3\n"
                               "echo 3 > /proc/sys/vm/drop_caches\n"
                               "echo phase read >&3\n"
                               "tar cf - -C kbench-copy dst | cat > /dev/null\n"
                               "echo phase end >&3\n"
                               "rm -rf kbench-copy\n",
                               n, n, p->size);
        *ret_script = g_string_free(g_steal_pointer(&s), FALSE);
        return 0;
}

/* "copy: files N bytes B", the tree the job made. */
static int copy_tree_line(const char *line, uint64_t *ret_files, uint64_t *ret_bytes) {
        char num[2][24];
        const char *p = line, *lit[] = { "copy: files ", " bytes " };
        uint64_t v[2];

        if (strnlen(line, COPY_LINE_MAX + 1) > COPY_LINE_MAX)
                return -EINVAL;
        for (int k = 0; k < 2; k++) {
                size_t len;

                if (strncmp(p, lit[k], strlen(lit[k])) != 0)
                        return -EINVAL;
                p += strlen(lit[k]);
                len = strspn(p, "0123456789");
                if (len == 0 || len >= sizeof(num[k]))
                        return -EINVAL;
                memcpy(num[k], p, len);
                num[k][len] = '\0';
                if (parse_u64(num[k], &v[k]) < 0)
                        return -EINVAL;
                p += len;
        }
        if (*p != '\0' || v[0] == 0)
                return -EINVAL;
        *ret_files = v[0];
        *ret_bytes = v[1];
        return 0;
}

/* copy.<phase>_s, and its rates over those seconds. */
static int copy_add_phase(struct metric_list *m, const char *phase, double seconds, uint64_t files,
                          uint64_t bytes) {
        char name[64];
        int r;

        snprintf(name, sizeof(name), "copy.%s_s", phase);
        if ((r = metric_add(m, name, seconds, "s")) < 0)
                return r;
        snprintf(name, sizeof(name), "copy.%s_MBps", phase);
        if ((r = metric_add_rate(m, name, (double)bytes, seconds, 1e6, "MB/s")) < 0)
                return r;
        snprintf(name, sizeof(name), "copy.%s_files_per_s", phase);
        return metric_add_rate(m, name, (double)files, seconds, 1, "1/s");
}

static int copy_parse(const struct workload_spec *spec, const struct workload_output *out,
                      struct metric_list *metrics, struct kb_error *err) {
        static const char *const marks[] = { "phase copy", "phase sync", "phase drop-caches", "phase read",
                                              "phase end" };
        double t[ELEMENTSOF(marks)];
        uint64_t files = 0, bytes = 0;
        int found = 0, r;
        char q[256];

        for (size_t i = 0; i < out->n_lines; i++) {
                const char *line = out->lines[i];

                if (line[strspn(line, " \t\r")] == '\0')
                        continue;
                if (strncmp(line, "copy: ", 6) != 0)
                        return error_setf(err, -EBADMSG, "copy: unexpected output: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                if (found++)
                        return error_setf(err, -EBADMSG, "copy: a second tree line: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
                if (copy_tree_line(line, &files, &bytes) < 0)
                        return error_setf(err, -EBADMSG, "copy: bad tree line: \"%s\"",
                                          workload_quote(line, q, sizeof(q)));
        }
        if (!found)
                return error_setf(err, -EBADMSG, "copy: the job never reported its tree");
        for (size_t i = 0; i < ELEMENTSOF(marks); i++) {
                if ((r = workload_event_time(out, marks[i], "copy", &t[i], err)) < 0)
                        return r;
                if (i > 0 && !(t[i] >= t[i - 1] && isfinite(t[i] - t[i - 1])))
                        return error_setf(err, -EBADMSG, "copy: '%s' not after '%s'", marks[i], marks[i - 1]);
        }
        if ((r = copy_add_phase(metrics, "copy", t[1] - t[0], files, bytes)) < 0 ||
            (r = metric_add(metrics, "copy.sync_s", t[2] - t[1], "s")) < 0 ||
            (r = copy_add_phase(metrics, "read", t[4] - t[3], files, bytes)) < 0 ||
            (r = metric_add(metrics, "copy.files", (double)files, "")) < 0 ||
            (r = metric_add(metrics, "copy.size_MiB", (double)bytes / (1 << 20), "MiB")) < 0)
                return error_setf(err, r, "copy: out of memory");
        return 0;
}

/* The read writes nothing by design: its bo of 0 is no stall. */
static const struct workload_phase copy_vmstat_phases[] = {
        { "copy", 1 }, { "sync", 1 }, { "read", 0 }, { NULL },
};

/* Making the tree (and writing it back and dropping it, so the copy starts
 * cold) and dropping the caches before the read are kbench's method; the
 * sync after the copy is the copy's own cost. */
static const struct workload_phase_kind_row copy_phase_kinds[] = {
        { "create", WORKLOAD_PHASE_STEP }, { "drop-caches", WORKLOAD_PHASE_STEP }, { NULL },
};

const struct workload_ops copy_ops = {
        .name = "copy",
        .summary = "copy a generated tree (many small files, a few large) with cp -a, sync, read it back",
        .keys = copy_keys,
        .params_size = sizeof(struct copy_params),
        .script = copy_script,
        .parse = copy_parse,
        .metrics = copy_metrics,
        .vmstat_phases = copy_vmstat_phases,
        .vmstat_main = "copy",
        .phase_kinds = copy_phase_kinds,
};
