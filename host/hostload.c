/* hostload.c: the host's CPU use beside a cell, from /proc (see hostload.h).
 *
 * The files come from the kernel, but they are parsed as untrusted text all
 * the same: every line that is parsed is copied into a bounded, terminated
 * buffer first so the conversions (strtoull/strtoll/strtod with end
 * pointers) can never run past it, and every error names the file. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/util.h"
#include "host/hostload.h"

static const char *const cpu_field_names[HOSTLOAD_CPU_FIELDS] = {
        "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

/* Copy a line into line[HOSTLOAD_LINE_MAX + 1], NUL-terminated. A NUL byte
 * inside the line would hide the rest of it from the conversions, so it is
 * malformed too. Returns 0 or -EBADMSG. */
static int copy_line(const char *s, size_t n, char *line, const char *name, const char *what,
                     struct kb_error *err) {
        if (n > HOSTLOAD_LINE_MAX)
                return error_setf(err, -EBADMSG, "%s: %s line longer than %d bytes", name, what,
                                  HOSTLOAD_LINE_MAX);
        if (memchr(s, '\0', n))
                return error_setf(err, -EBADMSG, "%s: NUL byte in the %s line", name, what);
        memcpy(line, s, n);
        line[n] = '\0';
        return 0;
}

static const char *skip_blanks(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* An unsigned decimal token at *p (after blanks), ending at a blank or the
 * end of the line. Returns 0 (and advances *p), -EINVAL (no number, or
 * trailing junk) or -ERANGE. */
static int token_u64(const char **p, uint64_t *ret) {
        const char *s = skip_blanks(*p);
        unsigned long long v;
        char *end;

        if (!isdigit((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0' && *end != ' ' && *end != '\t')
                return -EINVAL;
        *ret = v;
        *p = end;
        return 0;
}

/* A signed decimal token (fields such as tpgid and nice may be negative). */
static int token_i64(const char **p) {
        const char *s = skip_blanks(*p), *d = s;
        char *end;

        if (*d == '-')
                d++;
        if (!isdigit((unsigned char)*d))
                return -EINVAL;
        errno = 0;
        (void)strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0' && *end != ' ' && *end != '\t')
                return -EINVAL;
        *p = end;
        return 0;
}

int hostload_parse_stat(const char *buf, size_t len, const char *name, struct hostload_snap *snap,
                        struct kb_error *err) {
        uint64_t cpu[HOSTLOAD_CPU_FIELDS];
        unsigned ncpus = 0;
        int seen = 0;
        size_t pos = 0, n;
        const char *s;

        while (parse_next_line(buf, len, &pos, &s, &n)) {
                char line[HOSTLOAD_LINE_MAX + 1];
                const char *p;
                int r;

                if (n < 4 || memcmp(s, "cpu", 3) != 0)
                        continue;
                if (isdigit((unsigned char)s[3])) {
                        if (ncpus == UINT32_MAX)
                                return error_setf(err, -EBADMSG, "%s: too many cpuN lines", name);
                        ncpus++;
                        continue;
                }
                if (s[3] != ' ' && s[3] != '\t')
                        continue;
                if (seen)
                        return error_setf(err, -EBADMSG, "%s: two aggregate cpu lines", name);
                r = copy_line(s, n, line, name, "cpu", err);
                if (r < 0)
                        return r;
                p = line + 3;
                for (size_t i = 0; i < HOSTLOAD_CPU_FIELDS; i++) {
                        r = token_u64(&p, &cpu[i]);
                        if (r == -ERANGE)
                                return error_setf(err, -EBADMSG, "%s: cpu %s out of range", name,
                                                  cpu_field_names[i]);
                        if (r < 0)
                                return error_setf(err, -EBADMSG, "%s: cpu %s missing or not a number", name,
                                                  cpu_field_names[i]);
                }
                /* guest and guest_nice, when present, must still be numbers. */
                for (size_t i = HOSTLOAD_CPU_FIELDS; *skip_blanks(p); i++) {
                        uint64_t ignored;
                        if (token_u64(&p, &ignored) < 0)
                                return error_setf(err, -EBADMSG, "%s: cpu field %zu not a number", name, i + 1);
                }
                seen = 1;
        }
        if (!seen)
                return error_setf(err, -EBADMSG, "%s: no aggregate cpu line", name);
        if (ncpus == 0)
                return error_setf(err, -EBADMSG, "%s: no cpuN lines", name);
        memcpy(snap->cpu, cpu, sizeof(cpu));
        snap->ncpus = ncpus;
        return 0;
}

/* Fields of /proc/<pid>/stat, numbered from 1 as in proc(5). */
enum { PID_UTIME = 14, PID_STIME = 15, PID_CUTIME = 16, PID_CSTIME = 17, PID_STARTTIME = 22 };

int hostload_parse_pid_stat(const char *buf, size_t len, const char *name, struct hostload_proc *ret_proc,
                            struct kb_error *err) {
        char line[HOSTLOAD_LINE_MAX + 1];
        const char *open, *close, *p;
        uint64_t pid, ticks = 0, starttime = 0;
        size_t pos = 0, n;
        const char *s;
        int r;

        if (!parse_next_line(buf, len, &pos, &s, &n))
                return error_setf(err, -EBADMSG, "%s: empty", name);
        r = copy_line(s, n, line, name, "stat", err);
        if (r < 0)
                return r;
        /* comm is whatever the process called itself, parentheses and blanks
         * included; only the last ')' ends it. */
        open = strchr(line, '(');
        close = strrchr(line, ')');
        if (!open || !close || close < open)
                return error_setf(err, -EBADMSG, "%s: no (comm) field", name);
        p = line;
        if (token_u64(&p, &pid) < 0 || skip_blanks(p) != open || pid == 0 || pid > INT32_MAX)
                return error_setf(err, -EBADMSG, "%s: bad pid field", name);
        p = skip_blanks(close + 1);
        if (!isalpha((unsigned char)*p) || (p[1] != ' ' && p[1] != '\t'))
                return error_setf(err, -EBADMSG, "%s: bad state field", name);
        p++;
        for (int field = 4; field <= PID_STARTTIME; field++) {
                uint64_t v;

                switch (field) {
                case PID_UTIME:
                case PID_STIME:
                case PID_CUTIME:
                case PID_CSTIME:
                case PID_STARTTIME:
                        r = token_u64(&p, &v);
                        break;
                default:
                        r = token_i64(&p);
                        v = 0;
                        break;
                }
                if (r < 0)
                        return error_setf(err, -EBADMSG, "%s: field %d missing or not a number", name, field);
                if (field == PID_STARTTIME)
                        starttime = v;
                else if (field == PID_UTIME || field == PID_STIME) {
                        if (v > UINT64_MAX - ticks)
                                return error_setf(err, -EBADMSG, "%s: cpu times out of range", name);
                        ticks += v;
                }
        }
        *ret_proc = (struct hostload_proc){ .pid = (int)pid, .starttime = starttime, .ticks = ticks };
        return 0;
}

int hostload_parse_loadavg(const char *buf, size_t len, const char *name, double *ret_load1,
                           struct kb_error *err) {
        char line[HOSTLOAD_LINE_MAX + 1];
        size_t pos = 0, n;
        const char *s;
        char *end;
        double v;
        int r;

        if (!parse_next_line(buf, len, &pos, &s, &n))
                return error_setf(err, -EBADMSG, "%s: empty", name);
        r = copy_line(s, n, line, name, "loadavg", err);
        if (r < 0)
                return r;
        if (!isdigit((unsigned char)line[0]))
                return error_setf(err, -EBADMSG, "%s: first load average not a number", name);
        errno = 0;
        v = strtod(line, &end);
        if (end == line || (*end != ' ' && *end != '\t' && *end != '\0') || errno == ERANGE || !isfinite(v))
                return error_setf(err, -EBADMSG, "%s: first load average not a number", name);
        *ret_load1 = v;
        return 0;
}

/* Read a /proc file whole, at most HOSTLOAD_FILE_MAX bytes (their st_size
 * is 0, so the file is read to its end). OUT: *ret_buf (caller frees),
 * *ret_len. ENOENT and ESRCH (the process exited between open and read) are
 * returned as -ESRCH, for the caller to word. */
static int read_proc_file(const char *path, char **ret_buf, size_t *ret_len, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t cap = 4096, len = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return -ESRCH;
                return error_setf(err, -errno, "%s: %s", path, strerror(errno));
        }
        buf = malloc(cap);
        if (!buf)
                return error_setf(err, -ENOMEM, "%s: out of memory", path);
        for (;;) {
                ssize_t got;

                if (len == cap) {
                        char *nb;
                        if (cap >= HOSTLOAD_FILE_MAX)
                                return error_setf(err, -EFBIG, "%s: larger than %d bytes", path,
                                                  HOSTLOAD_FILE_MAX);
                        cap *= 2;
                        nb = realloc(buf, cap);
                        if (!nb)
                                return error_setf(err, -ENOMEM, "%s: out of memory", path);
                        buf = nb;
                }
                got = read(fd, buf + len, cap - len);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0) {
                        if (errno == ESRCH)
                                return -ESRCH;
                        return error_setf(err, -errno, "%s: %s", path, strerror(errno));
                }
                if (got == 0)
                        break;
                len += (size_t)got;
        }
        *ret_buf = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int hostload_read(const char *root, const int *pids, size_t n_pids, double t, struct hostload_snap *ret_snap,
                  struct kb_error *err) {
        struct hostload_snap snap = { .t = t, .n_procs = n_pids };
        char path[4096];
        int r;

        if (n_pids > HOSTLOAD_PIDS_MAX)
                return error_setf(err, -EINVAL, "hostload: %zu processes, at most %d", n_pids, HOSTLOAD_PIDS_MAX);
        for (size_t i = 0; i <= n_pids + 1; i++) {
                _cleanup_free_ char *buf = NULL;
                size_t len = 0;

                if (i == 0)
                        r = snprintf(path, sizeof(path), "%s/proc/stat", root);
                else if (i == 1)
                        r = snprintf(path, sizeof(path), "%s/proc/loadavg", root);
                else
                        r = snprintf(path, sizeof(path), "%s/proc/%d/stat", root, pids[i - 2]);
                if (r < 0 || (size_t)r >= sizeof(path))
                        return error_setf(err, -ENAMETOOLONG, "%s: path too long", root);
                r = read_proc_file(path, &buf, &len, err);
                if (r == -ESRCH && i < 2)
                        return error_setf(err, -ENOENT, "%s: no such file", path);
                if (r == -ESRCH)
                        return error_setf(err, -ESRCH, "%s: the process is gone", path);
                if (r < 0)
                        return r;
                if (i == 0)
                        r = hostload_parse_stat(buf, len, path, &snap, err);
                else if (i == 1)
                        r = hostload_parse_loadavg(buf, len, path, &snap.loadavg1, err);
                else {
                        r = hostload_parse_pid_stat(buf, len, path, &snap.procs[i - 2], err);
                        if (r == 0 && snap.procs[i - 2].pid != pids[i - 2])
                                r = error_setf(err, -EBADMSG, "%s: names pid %d", path, snap.procs[i - 2].pid);
                }
                if (r < 0)
                        return r;
        }
        *ret_snap = snap;
        return 0;
}

int hostload_compute(const struct hostload_snap *start, const struct hostload_snap *end, unsigned clk_tck,
                     struct hostload_figures *ret, struct kb_error *err) {
        double wall = end->t - start->t, busy = 0, excluded = 0, capacity, foreign;

        if (!(wall > 0) || !isfinite(wall))
                return error_setf(err, -EINVAL, "hostload: no time passed between the snapshots");
        if (clk_tck == 0)
                return error_setf(err, -EINVAL, "hostload: clock ticks per second is 0");
        if (start->ncpus != end->ncpus)
                return error_setf(err, -ERANGE, "/proc/stat: CPUs online changed from %u to %u", start->ncpus,
                                  end->ncpus);
        for (size_t i = 0; i < HOSTLOAD_CPU_FIELDS; i++) {
                if (end->cpu[i] < start->cpu[i])
                        return error_setf(err, -ERANGE, "/proc/stat: cpu %s went backwards (%llu -> %llu)",
                                          cpu_field_names[i], (unsigned long long)start->cpu[i],
                                          (unsigned long long)end->cpu[i]);
                if (i != HOSTLOAD_IDLE && i != HOSTLOAD_IOWAIT)
                        busy += (double)(end->cpu[i] - start->cpu[i]);
        }
        if (start->n_procs != end->n_procs || start->n_procs > HOSTLOAD_PIDS_MAX)
                return error_setf(err, -EINVAL, "hostload: the snapshots name different processes");
        for (size_t i = 0; i < start->n_procs; i++) {
                const struct hostload_proc *a = &start->procs[i], *b = &end->procs[i];

                if (a->pid != b->pid)
                        return error_setf(err, -EINVAL, "hostload: the snapshots name different processes");
                if (a->starttime != b->starttime)
                        return error_setf(err, -ESRCH, "/proc/%d/stat: another process took the pid", a->pid);
                if (b->ticks < a->ticks)
                        return error_setf(err, -ERANGE, "/proc/%d/stat: cpu times went backwards (%llu -> %llu)",
                                          a->pid, (unsigned long long)a->ticks, (unsigned long long)b->ticks);
                excluded += (double)(b->ticks - a->ticks);
        }
        capacity = (double)start->ncpus * wall * (double)clk_tck;
        foreign = (busy - excluded) / capacity * 100.0;
        *ret = (struct hostload_figures){
                .foreign_pct = foreign < 0 ? 0 : foreign > 100 ? 100 : foreign,
                .excluded_pct = excluded / capacity * 100.0,
                .loadavg1 = start->loadavg1,
                .wall_s = wall,
        };
        return 0;
}

int hostload_uri_local(const char *uri) {
        if (!uri)
                return 0;
        return strncmp(uri, "qemu:///", 8) == 0 || strncmp(uri, "qemu+unix:///", 13) == 0;
}

/* Whether the NUL-separated arguments in buf[0..len) hold "guest=<name>"
 * exactly or followed by ','. */
static int cmdline_names(const char *buf, size_t len, const char *name) {
        size_t nlen = strlen(name);

        for (size_t i = 0; i < len;) {
                const char *arg = buf + i;
                const char *nul = memchr(arg, '\0', len - i);
                size_t alen = nul ? (size_t)(nul - arg) : len - i;

                if (alen >= 6 + nlen && memcmp(arg, "guest=", 6) == 0 && memcmp(arg + 6, name, nlen) == 0 &&
                    (alen == 6 + nlen || arg[6 + nlen] == ','))
                        return 1;
                i += alen + 1;
        }
        return 0;
}

int hostload_parse_status_uids(const char *buf, size_t len, const char *name, uint64_t ret_uids[4],
                               struct kb_error *err) {
        size_t pos = 0, n;
        const char *l;

        while (parse_next_line(buf, len, &pos, &l, &n)) {
                char line[256], *p, *end;
                uint64_t uids[4];

                if (n < 4 || memcmp(l, "Uid:", 4) != 0)
                        continue;
                if (n >= sizeof(line))
                        return error_setf(err, -EBADMSG, "%s: Uid line longer than %zu bytes", name, sizeof(line) - 1);
                memcpy(line, l, n);
                line[n] = '\0';
                p = line + 4;
                for (int i = 0; i < 4; i++) {
                        while (*p == ' ' || *p == '\t')
                                p++;
                        if (!isdigit((unsigned char)*p))
                                return error_setf(err, -EBADMSG, "%s: Uid field %d is not a number", name, i + 1);
                        errno = 0;
                        uids[i] = strtoull(p, &end, 10);
                        if (errno || end == p || (*end && *end != ' ' && *end != '\t') || uids[i] > UINT32_MAX)
                                return error_setf(err, -EBADMSG, "%s: Uid field %d is not a uid", name, i + 1);
                        p = end;
                }
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p)
                        return error_setf(err, -EBADMSG, "%s: Uid line has more than four fields", name);
                memcpy(ret_uids, uids, sizeof(uids));
                return 0;
        }
        return error_setf(err, -EBADMSG, "%s: no Uid line", name);
}

int hostload_read_uids(const char *root, int pid, uint64_t ret_uids[4], struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        char path[4200];
        size_t len = 0;
        int r;

        r = snprintf(path, sizeof(path), "%s/proc/%d/status", root, pid);
        if (r < 0 || (size_t)r >= sizeof(path))
                return error_setf(err, -ENAMETOOLONG, "%s: path too long", root);
        r = read_proc_file(path, &buf, &len, err);
        if (r == -ESRCH)
                return error_setf(err, -ESRCH, "%s: the process is gone", path);
        if (r < 0)
                return r;
        return hostload_parse_status_uids(buf, len, path, ret_uids, err);
}

int hostload_find_qemu(const char *root, const char *name, int *ret_pid, struct kb_error *err) {
        char dir[4096], path[4200];
        struct dirent *de;
        uint64_t best_start = 0;
        int best = 0, r;
        DIR *d;

        r = snprintf(dir, sizeof(dir), "%s/proc", root);
        if (r < 0 || (size_t)r >= sizeof(dir))
                return error_setf(err, -ENAMETOOLONG, "%s: path too long", root);
        if (!*name || strchr(name, ','))
                return error_setf(err, -EINVAL, "domain name '%s' cannot be searched for", name);
        d = opendir(dir);
        if (!d)
                return error_setf(err, -errno, "%s: %s", dir, strerror(errno));
        while ((de = readdir(d))) {
                _cleanup_free_ char *buf = NULL;
                struct hostload_proc p;
                uint64_t pid;
                size_t len = 0;

                if (parse_u64(de->d_name, &pid) < 0 || pid == 0 || pid > INT32_MAX)
                        continue;
                r = snprintf(path, sizeof(path), "%s/%s/cmdline", dir, de->d_name);
                /* Unreadable or gone: not ours to judge, and not the QEMU we started. */
                if (r < 0 || (size_t)r >= sizeof(path) || read_proc_file(path, &buf, &len, NULL) < 0 ||
                    !cmdline_names(buf, len, name))
                        continue;
                free(buf);
                buf = NULL;
                r = snprintf(path, sizeof(path), "%s/%s/stat", dir, de->d_name);
                if (r < 0 || (size_t)r >= sizeof(path) || read_proc_file(path, &buf, &len, NULL) < 0 ||
                    hostload_parse_pid_stat(buf, len, path, &p, NULL) < 0 || p.pid != (int)pid)
                        continue;
                if (!best || p.starttime > best_start) {
                        best = p.pid;
                        best_start = p.starttime;
                }
        }
        closedir(d);
        if (!best)
                return error_setf(err, -ENOENT, "%s: no QEMU process for domain %s", dir, name);
        *ret_pid = best;
        return 0;
}
