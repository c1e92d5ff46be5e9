/* guest/agent_host.c: the host's lines on ttyS1, as the agent reads them.
 * Before `go` the host sends its settings (`set KEY VALUE`, a table of
 * names and buffers), the sysctls the cell runs with, the job script line
 * by line, and for a guest restored from a snapshot the cell's identity
 * (`hello`); during the job, `say` lines for the job's fifo. Every line
 * is untrusted and bounded: one that is too long, unknown or late is
 * logged and dropped, and a setting the job cannot run without ends the
 * cell before the job starts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "guest/agent.h"
#include "guest/ksymlist.h"

#define AGENT_HOST_LINE_MAX (PROTO_LINE_MAX + 64)   /* "script " + an escaped line */
#define AGENT_SCRIPT_MAX (120 * 1024)                /* below MAX_ARG_STRLEN (128 KiB) */

/* The line being assembled from ttyS1's bytes. */
static struct {
        char buf[AGENT_HOST_LINE_MAX];
        size_t len;
        bool overflow;                  /* longer than buf: dropped at its '\n' */
} rx;

static const struct agent_host_setting {
        const char *name;
        size_t offset;
        size_t size;
} agent_host_setting_table[] = {
#define S(f) { #f, offsetof(struct agent_settings, f), sizeof(((struct agent_settings *)0)->f) }
        S(disk), S(mnt), S(fs), S(mount_opts), S(swap), S(net), S(vmstat_interval_ms), S(disk_bus), S(ksyms),
#undef S
};

static void agent_host_set(const char *arg) {
        const char *sp = strchr(arg, ' ');
        size_t klen = sp ? (size_t)(sp - arg) : strlen(arg);
        const char *value = sp ? sp + 1 : "";

        for (size_t i = 0; i < ELEMENTSOF(agent_host_setting_table); i++) {
                const struct agent_host_setting *s = &agent_host_setting_table[i];
                if (strlen(s->name) != klen || strncmp(s->name, arg, klen) != 0)
                        continue;
                if (strlen(value) >= s->size) {
                        agent_recordf("log", "set %s: value longer than %zu bytes, ignored", s->name, s->size - 1);
                        return;
                }
                strcpy((char *)&A.set + s->offset, value);
                return;
        }
        agent_recordf("log", "set: unknown key '%.*s', ignored", (int)(klen > 64 ? 64 : klen), arg);
}

static void agent_host_script_line(const char *escaped) {
        char line[PROTO_LINE_MAX + 1];
        int n = proto_unescape(line, sizeof(line), escaped, strlen(escaped));
        char *s;

        if (A.script_error[0])
                return;
        if (n < 0) {
                snprintf(A.script_error, sizeof(A.script_error), "script line %s", n == -ENOSPC ? "too long" : "badly escaped");
                return;
        }
        if (memchr(line, '\0', (size_t)n)) {
                snprintf(A.script_error, sizeof(A.script_error), "script line holds a NUL byte");
                return;
        }
        if (A.script_len + (size_t)n + 2 > AGENT_SCRIPT_MAX) {
                snprintf(A.script_error, sizeof(A.script_error), "script longer than %d bytes", AGENT_SCRIPT_MAX);
                return;
        }
        s = realloc(A.script, A.script_len + (size_t)n + 2);
        if (!s) {
                snprintf(A.script_error, sizeof(A.script_error), "out of memory for the script");
                return;
        }
        A.script = s;
        memcpy(A.script + A.script_len, line, (size_t)n);
        A.script_len += (size_t)n;
        A.script[A.script_len++] = '\n';
        A.script[A.script_len] = '\0';
}

static void agent_host_say(const char *text) {
        size_t n = strlen(text);
        char buf[AGENT_HOST_LINE_MAX + 1];

        if (A.fifo < 0) {
                agent_recordf("log", "say before the job started, dropped");
                return;
        }
        memcpy(buf, text, n);
        buf[n++] = '\n';
        /* O_NONBLOCK: a job that never reads must not stall PID 1. Lines up to
         * PIPE_BUF are written whole or not at all. */
        if (write(A.fifo, buf, n) != (ssize_t)n)
                agent_recordf("log", "say: %s: %s", AGENT_FIFO, strerror(errno));
}

/* The `ready` record: what the host checks before it sends the job. The
 * kernel's bases go just before it, so the host has them when it answers
 * (guest/ksymlist.h). */
void agent_host_ready(void) {
        struct sampler_snapshot s;
        int r;

        if ((r = sampler_read("", NULL, &s)) < 0)
                agent_fail("reading /proc for vmstat: %s", strerror(-r));
        ksymlist_base("", agent_emit, NULL);
        agent_recordf("ready", "release=%s cpus=%ld mem_kb=%llu", A.release, sysconf(_SC_NPROCESSORS_ONLN),
                      (unsigned long long)s.mem_total);
}

/* "hello CELL UNIX_MS": the cell's identity, given to a guest restored
 * from a snapshot (one saved guest serves every cell, so nothing of the
 * cell can be on its command line). The records start again at seq 0
 * under the new id, the wall clock is set (the saved guest's clock stood
 * still while it was on disk), and a fresh `ready` answers. */
static void agent_host_hello(char *args) {
        char *sp = strchr(args, ' ');
        char cell[PROTO_CELL_MAX + 1];
        uint64_t ms;

        if (!sp || agent_cell_id(args, (size_t)(sp - args), cell) < 0 || parse_u64(sp + 1, &ms) < 0 ||
            ms > UINT64_C(1) << 52) {
                agent_recordf("log", "hello: '%.60s' is not CELL UNIX_MS", args);
                return;
        }
        memcpy(A.cell, cell, sizeof(cell));
        A.seq = 0;
        if (clock_settime(CLOCK_REALTIME, &(struct timespec){ .tv_sec = (time_t)(ms / 1000),
                                                              .tv_nsec = (long)(ms % 1000) * 1000000 }) < 0)
                agent_recordf("log", "hello: clock_settime: %s", strerror(errno));
        agent_host_ready();
}

/* The host's "sysctl KEY VALUE" lines, applied in order before the job. */
static struct {
        char key[PROTO_SYSCTL_MAX][PROTO_SYSCTL_KEY_MAX + 1];
        char value[PROTO_SYSCTL_MAX][PROTO_SYSCTL_VALUE_MAX + 1];
        size_t n;
        char error[PROTO_SYSCTL_KEY_MAX + 64];   /* a line refused: the job must not run without it */
} sysctls;

static void agent_host_sysctl(const char *arg) {
        const char *sp = strchr(arg, ' '), *why = NULL;
        size_t klen = sp ? (size_t)(sp - arg) : strlen(arg);
        char key[PROTO_SYSCTL_KEY_MAX + 1];

        if (sysctls.error[0])
                return;
        snprintf(key, sizeof(key), "%.*s", (int)(klen < sizeof(key) ? klen : sizeof(key) - 1), arg);
        if (!sp || klen > PROTO_SYSCTL_KEY_MAX || proto_sysctl_check(key, sp + 1, &why) < 0)
                snprintf(sysctls.error, sizeof(sysctls.error), "sysctl %s: %s", key, why ? why : "no value");
        else if (sysctls.n == PROTO_SYSCTL_MAX)
                snprintf(sysctls.error, sizeof(sysctls.error), "sysctl %s: more than %d sysctls", key,
                         PROTO_SYSCTL_MAX);
        else {
                strcpy(sysctls.key[sysctls.n], key);
                strcpy(sysctls.value[sysctls.n], sp + 1);
                sysctls.n++;
        }
}

/* Write each sysctl, read it back and record what the kernel holds. A
 * sysctl this kernel lacks, or a value it refuses, ends the cell before
 * the job: the job would measure other settings than the cell says. */
void agent_host_apply_sysctls(void) {
        if (sysctls.error[0])
                agent_fail("%s", sysctls.error);
        for (size_t i = 0; i < sysctls.n; i++) {
                const char *key = sysctls.key[i];
                char path[PROTO_SYSCTL_KEY_MAX + 16], line[PROTO_SYSCTL_VALUE_MAX + 2],
                        back[PROTO_SYSCTL_READBACK_MAX + 1];
                int fd, n, w;
                ssize_t len;

                if (proto_sysctl_path(key, path, sizeof(path)) < 0)
                        agent_fail("sysctl %s: not a sysctl name", key);
                fd = open(path, O_WRONLY | O_CLOEXEC);
                if (fd < 0)
                        agent_fail("sysctl %s: %s", key,
                                   errno == ENOENT ? "this kernel has no such sysctl" : strerror(errno));
                n = snprintf(line, sizeof(line), "%s\n", sysctls.value[i]);
                w = fileio_write_all(fd, line, (size_t)n);
                close(fd);
                if (w < 0)
                        agent_fail("sysctl %s: writing '%s': %s", key, sysctls.value[i], strerror(-w));
                len = agent_read_small(path, back, sizeof(back));
                if (len < 0)
                        agent_fail("sysctl %s: reading it back: %s", key, strerror((int)-len));
                while (len > 0 && (back[len - 1] == '\n' || back[len - 1] == ' '))
                        back[--len] = '\0';
                agent_recordf("sysctl", "%s=%s", key, back);
        }
}

/* One complete line from the host. */
static void agent_host_line(char *l) {
        size_t n = strlen(l);

        while (n > 0 && l[n - 1] == '\r')
                l[--n] = '\0';
        if (n == 0)
                return;
        if (strncmp(l, "set ", 4) == 0 && !A.go)
                agent_host_set(l + 4);
        else if (strncmp(l, "sysctl ", 7) == 0 && !A.go)
                agent_host_sysctl(l + 7);
        else if (strncmp(l, "script ", 7) == 0 && !A.go)
                agent_host_script_line(l + 7);
        else if (strcmp(l, "script") == 0 && !A.go)
                agent_host_script_line("");
        else if (strncmp(l, "hello ", 6) == 0 && !A.go)
                agent_host_hello(l + 6);
        else if (strcmp(l, "go") == 0 && !A.go)
                A.go = true;
        else if (strncmp(l, "say ", 4) == 0 || strcmp(l, "say") == 0)
                agent_host_say(l[3] ? l + 4 : "");
        else
                agent_recordf("log", "unexpected host line '%.60s'%s", l, A.go ? " after go" : "");
}

/* Consume whatever the host sent; complete lines go to agent_host_line. */
void agent_host_read(void) {
        char buf[4096];
        ssize_t n = read(A.tty, buf, sizeof(buf));

        if (n < 0) {
                if (errno != EINTR && errno != EAGAIN)
                        agent_fail("read %s: %s", AGENT_TTY, strerror(errno));
                return;
        }
        for (ssize_t i = 0; i < n; i++) {
                char c = buf[i];
                if (c == '\n') {
                        if (rx.overflow)
                                agent_recordf("log", "host line longer than %d bytes, dropped", AGENT_HOST_LINE_MAX - 1);
                        else {
                                rx.buf[rx.len] = '\0';
                                agent_host_line(rx.buf);
                        }
                        rx.len = 0;
                        rx.overflow = false;
                } else if (rx.len + 1 < sizeof(rx.buf))
                        rx.buf[rx.len++] = c;
                else
                        rx.overflow = true;
        }
}
