/* guest/agent.c: kbench's PID 1 inside the guest. It mounts the pseudo file
 * systems, loads the modules the initramfs lists, greets the host on ttyS1
 * with a `ready` record, takes its settings and job script from the host,
 * mounts the disk under test, runs the script while sampling vmstat once per
 * interval, forwards everything as framed records (common/proto.h) and powers
 * the machine off. It is statically linked against libc only and runs one
 * single-threaded poll() loop. PID 1 must never exit (the kernel would
 * panic), so every failure path ends in a `log` record, `done 255` and a
 * power-off; a failure before ttyS1 is open goes to the console instead. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/crc32.h"
#include "common/diskbus.h"
#include "common/insncount-format.h"
#include "common/parse.h"
#include "common/util.h"
#include "common/guest-paths.h"
#include "common/proto.h"
#include "guest/counters.h"
#include "guest/ksymlist.h"
#include "guest/pmu.h"
#include "guest/sampler.h"
#include "guest/taskstats.h"

#define AGENT_TTY "/dev/ttyS1"
#define AGENT_MODULES_LIST KB_GUEST_MODULES_LIST
#define AGENT_FIFO_DIR KB_GUEST_RUN_DIR
#define AGENT_FIFO KB_GUEST_HOST_FIFO
#define AGENT_HOST_LINE_MAX (PROTO_LINE_MAX + 64)   /* "script " + an escaped line */
#define AGENT_SCRIPT_MAX (120 * 1024)                /* below MAX_ARG_STRLEN (128 KiB) */
#define AGENT_DEV_WAIT_MS 10000 /* how long a disk may take to show up */
#define AGENT_DRAIN_MS 5000     /* how long a finished job's pipes may stay open */
#define AGENT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Settings the host may `set` before `go`, as a table: name -> buffer. */
struct agent_settings {
        char disk[256];
        char mnt[256];
        char fs[32];
        char mount_opts[1024];
        char swap[256];
        char net[8];
        char vmstat_interval_ms[16];
        char disk_bus[DISKBUS_NAME_MAX + 1];
        char ksyms[4];                  /* "1": list the kernel's symbols after the job (guest/ksymlist.h) */
};

static const struct agent_setting {
        const char *name;
        size_t offset;
        size_t size;
} agent_setting_table[] = {
#define S(f) { #f, offsetof(struct agent_settings, f), sizeof(((struct agent_settings *)0)->f) }
        S(disk), S(mnt), S(fs), S(mount_opts), S(swap), S(net), S(vmstat_interval_ms), S(disk_bus), S(ksyms),
#undef S
};

/* One line-splitting reader for a job pipe (stdout, stderr or fd 3). */
struct agent_stream {
        const char *type;               /* record type: out, err, event */
        int fd;                         /* read end, -1 once at EOF */
        char buf[PROTO_PAYLOAD_MAX];
        size_t len;
};

static struct {
        char cell[PROTO_CELL_MAX + 1];
        uint64_t seq;                   /* next record's sequence number */
        int tty;                        /* ttyS1, -1 until open */
        struct agent_settings set;
        char *script;                   /* the job, '\n'-joined, malloc'ed */
        size_t script_len;
        char script_error[128];         /* why the script is unusable, "" if fine */
        char release[65];
        bool mounted, swapped;
        char swap_dev[300];             /* resolved swap device node */
        /* host line assembly */
        char line[AGENT_HOST_LINE_MAX];
        size_t line_len;
        bool line_overflow;
        bool go;
        /* during the job */
        int fifo;                       /* /run/kbench/host, O_RDWR */
        int timer;                      /* timerfd driving the sampler; -1: paced by poll (sampler_pace) */
        uint64_t tick_ms;               /* the sampling interval */
        uint64_t next_tick_ms;          /* without a timerfd: CLOCK_MONOTONIC of the next sample */
        struct sampler_snapshot last;   /* previous vmstat reading */
        char disk_name[SAMPLER_DISK_NAME_MAX + 1]; /* the disk under test in /proc/diskstats */
        uint64_t last_ms;               /* CLOCK_MONOTONIC of that reading */
        bool sampling;
        unsigned page_kb;
        struct pmu pmu;                 /* the guest's own instruction counts (KVM with a vPMU) */
        struct taskstats_listener ts;   /* the job's exiting tasks; fd -1: not listening */
        struct taskstats_sums ts_sums;  /* summed since the job started */
} A = { .tty = -1, .fifo = -1, .timer = -1, .ts = { .fd = -1 } };

static uint64_t agent_now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Write all of buf, retrying partial writes and EINTR/EAGAIN. */
static int agent_write_all(int fd, const void *buf, size_t len) {
        const char *p = buf;

        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN) {
                                struct pollfd pfd = { .fd = fd, .events = POLLOUT };
                                poll(&pfd, 1, 1000);
                                continue;
                        }
                        return -errno;
                }
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

static void agent_console(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void agent_console(const char *fmt, ...) {
        char msg[1024];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t)n > sizeof(msg) - 2)
                n = (int)sizeof(msg) - 2;
        msg[n++] = '\n';
        (void)!write(STDERR_FILENO, "kbench-agent: ", 14);
        (void)!write(STDERR_FILENO, msg, (size_t)n);
}

/* Send one framed record on ttyS1; payloads over PROTO_PAYLOAD_MAX are cut. */
static void agent_record(const char *type, const void *payload, size_t len) {
        static char buf[PROTO_LINE_MAX + 1];
        int n;

        if (A.tty < 0)
                return;
        if (len > PROTO_PAYLOAD_MAX)
                len = PROTO_PAYLOAD_MAX;
        n = proto_format(buf, sizeof(buf), A.cell, A.seq, agent_now_ms(), type, payload, len);
        if (n < 0)
                return;
        A.seq++;
        if (agent_write_all(A.tty, buf, (size_t)n) < 0)
                agent_console("write %s: %s", AGENT_TTY, strerror(errno));
}

static void agent_recordf(const char *type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void agent_recordf(const char *type, const char *fmt, ...) {
        char msg[PROTO_PAYLOAD_MAX + 1];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        agent_record(type, msg, strlen(msg));
        if (strcmp(type, "log") == 0)
                agent_console("%s", msg);
}

/* The end of every path: flush ttyS1, sync, unmount, power off. Never returns. */
static __attribute__((noreturn)) void agent_poweroff(void) {
        if (A.tty >= 0)
                tcdrain(A.tty);
        sync();
        if (A.swapped)
                swapoff(A.swap_dev);
        if (A.mounted && umount2(A.set.mnt, 0) < 0)
                agent_console("umount %s: %s", A.set.mnt, strerror(errno));
        sync();
        reboot(RB_POWER_OFF);
        agent_console("reboot(RB_POWER_OFF): %s", strerror(errno));
        for (;;)
                pause();
}

static __attribute__((noreturn)) void agent_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static __attribute__((noreturn)) void agent_fail(const char *fmt, ...) {
        char msg[PROTO_PAYLOAD_MAX + 1];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        agent_console("%s", msg);
        agent_record("log", msg, strlen(msg));
        agent_record("done", "255", 3);
        agent_poweroff();
}

/* Read a small text file into buf (NUL-terminated). Returns length or -errno. */
static ssize_t agent_read_small(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t len = 0;

        if (fd < 0)
                return -errno;
        while (len + 1 < size) {
                ssize_t n = read(fd, buf + len, size - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        buf[len] = '\0';
        return (ssize_t)len;
}

static void agent_mount_early(void) {
        static const struct { const char *src, *dir, *type; unsigned long flags; } m[] = {
                { "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
                { "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
                { "devtmpfs", "/dev", "devtmpfs", MS_NOSUID },
                { "tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV },
                { "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV },
        };

        for (size_t i = 0; i < ELEMENTSOF(m); i++) {
                mkdir(m[i].dir, 0755);
                if (mount(m[i].src, m[i].dir, m[i].type, m[i].flags, NULL) < 0 && errno != EBUSY)
                        agent_console("mount %s: %s", m[i].dir, strerror(errno));
        }
        /* The kernel opened /dev/console for us only if the initramfs had the node. */
        if (fcntl(STDERR_FILENO, F_GETFD) < 0) {
                int fd = open("/dev/console", O_RDWR | O_NOCTTY);
                if (fd >= 0) {
                        dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
                        if (fd > 2)
                                close(fd);
                }
        }
}

/* Copy the cell id v (n bytes) if it fits the record format. Returns 0
 * or -EINVAL. */
static int agent_cell_id(const char *v, size_t n, char *ret_cell) {
        if (n == 0 || n > PROTO_CELL_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                char c = v[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '-'))
                        return -EINVAL;
        }
        memcpy(ret_cell, v, n);
        ret_cell[n] = '\0';
        return 0;
}

/* Find kbench.cell=ID on the kernel command line; ID must fit the record
 * format. Returns 0 or -ENOENT/-EINVAL. */
static int agent_parse_cmdline(const char *cmdline, char *ret_cell) {
        const char *key = "kbench.cell=";
        const char *p = cmdline;

        while (*p) {
                size_t n;
                while (*p == ' ' || *p == '\n' || *p == '\t')
                        p++;
                n = strcspn(p, " \n\t");
                if (n > strlen(key) && strncmp(p, key, strlen(key)) == 0)
                        return agent_cell_id(p + strlen(key), n - strlen(key), ret_cell);
                p += n;
        }
        return -ENOENT;
}

/* Load every module in AGENT_MODULES_LIST; failures are collected in
 * msgs (one per line) so they can be sent once ttyS1 is up. */
static void agent_load_modules(char *msgs, size_t msgs_size) {
        _cleanup_free_ char *list = malloc(65536);
        size_t used = 0;
        ssize_t len;
        char *save = NULL;

        msgs[0] = '\0';
        if (!list)
                return;
        len = agent_read_small(AGENT_MODULES_LIST, list, 65536);
        if (len < 0) {
                if (len != -ENOENT)
                        snprintf(msgs, msgs_size, "%s: %s\n", AGENT_MODULES_LIST, strerror((int)-len));
                return;
        }
        for (char *l = strtok_r(list, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char path[512];
                const char *err = NULL;
                int fd, n;

                l += strspn(l, " \t");
                l[strcspn(l, " \t\r")] = '\0';
                if (!*l || *l == '#')
                        continue;
                n = snprintf(path, sizeof(path), "/lib/modules/%s/%s", A.release, l);
                if (n < 0 || (size_t)n >= sizeof(path)) {
                        err = "path too long";
                } else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
                        err = strerror(errno);
                } else {
                        if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
                                err = strerror(errno);
                        close(fd);
                }
                if (err && used < msgs_size) {
                        n = snprintf(msgs + used, msgs_size - used, "module %s: %s\n", l, err);
                        if (n > 0)
                                used = used + (size_t)n < msgs_size ? used + (size_t)n : msgs_size - 1;
                }
        }
}

static int agent_open_tty(void) {
        struct termios t;
        int fd = open(AGENT_TTY, O_RDWR | O_NOCTTY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        if (tcgetattr(fd, &t) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        cfmakeraw(&t);
        cfsetispeed(&t, B115200);
        cfsetospeed(&t, B115200);
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        if (tcsetattr(fd, TCSANOW, &t) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        tcflush(fd, TCIFLUSH);
        return fd;
}

static void agent_set(const char *arg) {
        const char *sp = strchr(arg, ' ');
        size_t klen = sp ? (size_t)(sp - arg) : strlen(arg);
        const char *value = sp ? sp + 1 : "";

        for (size_t i = 0; i < ELEMENTSOF(agent_setting_table); i++) {
                const struct agent_setting *s = &agent_setting_table[i];
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

static void agent_script_line(const char *escaped) {
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

static void agent_say(const char *text) {
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

static void agent_emit(const char *type, const char *payload, size_t len, void *userdata) {
        (void)userdata;
        agent_record(type, payload, len);
}

#define AGENT_BURST_BYTES (32 * 1024)
#define AGENT_BURST_PAUSE_MS 150

/* The kernel's symbol table, some 1.5 MB, in bursts. Under TCG the UART
 * interrupts about once a byte, and a PREEMPT_RT kernel's threaded
 * handler finds nearly all of them served already; after 99,900 such of
 * 100,000 the kernel disables the IRQ ("irq 3: nobody cared") and ttyS1
 * falls silent. The count starts again after 100 ms without one: a pause
 * after each burst, its bytes drained first, keeps it far below. */
static void agent_emit_paced(const char *type, const char *payload, size_t len, void *userdata) {
        static size_t burst;

        agent_emit(type, payload, len, userdata);
        burst += len;
        if (burst >= AGENT_BURST_BYTES) {
                tcdrain(A.tty);
                nanosleep(&(struct timespec){ .tv_nsec = AGENT_BURST_PAUSE_MS * 1000000L }, NULL);
                burst = 0;
        }
}

/* The `ready` record: what the host checks before it sends the job. The
 * kernel's bases go just before it, so the host has them when it answers
 * (guest/ksymlist.h). */
static void agent_ready(void) {
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
static void agent_hello(char *args) {
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
        agent_ready();
}

/* The host's "sysctl KEY VALUE" lines, applied in order before the job. */
static struct {
        char key[PROTO_SYSCTL_MAX][PROTO_SYSCTL_KEY_MAX + 1];
        char value[PROTO_SYSCTL_MAX][PROTO_SYSCTL_VALUE_MAX + 1];
        size_t n;
        char error[PROTO_SYSCTL_KEY_MAX + 64];   /* a line refused: the job must not run without it */
} sysctls;

static void agent_sysctl(const char *arg) {
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
static void agent_apply_sysctls(void) {
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
                w = agent_write_all(fd, line, (size_t)n);
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
                agent_set(l + 4);
        else if (strncmp(l, "sysctl ", 7) == 0 && !A.go)
                agent_sysctl(l + 7);
        else if (strncmp(l, "script ", 7) == 0 && !A.go)
                agent_script_line(l + 7);
        else if (strcmp(l, "script") == 0 && !A.go)
                agent_script_line("");
        else if (strncmp(l, "hello ", 6) == 0 && !A.go)
                agent_hello(l + 6);
        else if (strcmp(l, "go") == 0 && !A.go)
                A.go = true;
        else if (strncmp(l, "say ", 4) == 0 || strcmp(l, "say") == 0)
                agent_say(l[3] ? l + 4 : "");
        else
                agent_recordf("log", "unexpected host line '%.60s'%s", l, A.go ? " after go" : "");
}

/* Consume whatever the host sent; complete lines go to agent_host_line. */
static void agent_read_tty(void) {
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
                        if (A.line_overflow)
                                agent_recordf("log", "host line longer than %d bytes, dropped", AGENT_HOST_LINE_MAX - 1);
                        else {
                                A.line[A.line_len] = '\0';
                                agent_host_line(A.line);
                        }
                        A.line_len = 0;
                        A.line_overflow = false;
                } else if (A.line_len + 1 < sizeof(A.line))
                        A.line[A.line_len++] = c;
                else
                        A.line_overflow = true;
        }
}

static int agent_ifreq_addr(int sock, unsigned long req, const char *ifname, const char *ip) {
        struct ifreq ifr;
        struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        sin->sin_family = AF_INET;
        inet_pton(AF_INET, ip, &sin->sin_addr);
        return ioctl(sock, req, &ifr) < 0 ? -errno : 0;
}

static int agent_if_up(int sock, const char *ifname) {
        struct ifreq ifr;

        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
                return -errno;
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        return ioctl(sock, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/* QEMU user-mode networking: 10.0.2.15/24, gateway 10.0.2.2. The UDP packet
 * to the gateway's discard port is meant to teach slirp the guest's MAC
 * early; e1000's link comes up about 2 s after eth0 does, so it waits in the
 * queue until then. What removed the ~6 s stall of the first forwarded
 * connection is the FTP job waiting for the carrier (docs/ftp.md). */
static void agent_net_up(void) {
        _cleanup_close_ int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct rtentry rt;
        struct sockaddr_in *sin;
        int r;

        if (sock < 0)
                agent_fail("net: socket: %s", strerror(errno));
        if ((r = agent_if_up(sock, "lo")) < 0)
                agent_recordf("log", "net: lo up: %s", strerror(-r));
        if ((r = agent_ifreq_addr(sock, SIOCSIFADDR, "eth0", "10.0.2.15")) < 0 ||
            (r = agent_ifreq_addr(sock, SIOCSIFNETMASK, "eth0", "255.255.255.0")) < 0 ||
            (r = agent_if_up(sock, "eth0")) < 0)
                agent_fail("net: configure eth0: %s", strerror(-r));

        memset(&rt, 0, sizeof(rt));
        sin = (struct sockaddr_in *)&rt.rt_dst;
        sin->sin_family = AF_INET;
        sin = (struct sockaddr_in *)&rt.rt_genmask;
        sin->sin_family = AF_INET;
        sin = (struct sockaddr_in *)&rt.rt_gateway;
        sin->sin_family = AF_INET;
        inet_pton(AF_INET, "10.0.2.2", &sin->sin_addr);
        rt.rt_flags = RTF_UP | RTF_GATEWAY;
        rt.rt_dev = (char *)"eth0";
        if (ioctl(sock, SIOCADDRT, &rt) < 0 && errno != EEXIST)
                agent_fail("net: default route via 10.0.2.2: %s", strerror(errno));

        {
                struct sockaddr_in gw = { .sin_family = AF_INET, .sin_port = htons(9) };
                inet_pton(AF_INET, "10.0.2.2", &gw.sin_addr);
                if (sendto(sock, "kbench", 6, 0, (struct sockaddr *)&gw, sizeof(gw)) < 0)
                        agent_recordf("log", "net: hello to 10.0.2.2:9: %s", strerror(errno));
        }
}

static int agent_mkdir_p(const char *path) {
        char p[256];
        size_t n = strlen(path);

        if (n == 0 || n >= sizeof(p))
                return -EINVAL;
        memcpy(p, path, n + 1);
        for (size_t i = 1; i <= n; i++) {
                if (p[i] != '/' && p[i] != '\0')
                        continue;
                p[i] = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -errno;
                p[i] = i < n ? '/' : '\0';
        }
        return 0;
}

/* Whether disk name's serial number is serial: virtio_blk shows it as
 * /sys/block/NAME/serial; a SCSI disk (and libata's, translated) in its
 * unit serial number page, VPD 0x80: a 4-byte header, then the serial,
 * padded with blanks. */
static int agent_serial_is(const char *name, const char *serial) {
        char path[320], buf[256];
        size_t len = strlen(serial), page;
        const char *p = buf;
        ssize_t n;

        snprintf(path, sizeof(path), "/sys/block/%s/serial", name);
        if ((n = agent_read_small(path, buf, sizeof(buf))) < 0) {
                snprintf(path, sizeof(path), "/sys/block/%s/device/vpd_pg80", name);
                if ((n = agent_read_small(path, buf, sizeof(buf))) < 4 || (unsigned char)buf[1] != 0x80)
                        return 0;
                page = 4 + ((size_t)(unsigned char)buf[2] << 8 | (unsigned char)buf[3]);
                if (page < (size_t)n)
                        buf[page] = '\0';
                p = buf + 4;
        }
        while (*p == ' ')
                p++;
        return strncmp(p, serial, len) == 0 && strspn(p + len, " \n") == strlen(p + len);
}

/* The disk a spec names, once: "scsi:H:C:T:L" by SCSI address, "serial:S"
 * by serial number (common/diskbus.h says which bus uses which), else a
 * node path. Returns 1 with ret_path, 0 not (yet) there, or -ENAMETOOLONG. */
static int agent_find_dev(const char *spec, char *ret_path, size_t size) {
        char dir[320];
        DIR *d = NULL;
        struct dirent *de;
        struct stat st;
        int found = 0, by_serial = strncmp(spec, "serial:", 7) == 0;

        if (strncmp(spec, "scsi:", 5) == 0) {
                snprintf(dir, sizeof(dir), "/sys/bus/scsi/devices/%s/block", spec + 5);
                d = opendir(dir);
        } else if (by_serial)
                d = opendir("/sys/block");
        else {
                if ((size_t)snprintf(ret_path, size, "%s", spec) >= size)
                        return -ENAMETOOLONG;
                return stat(spec, &st) == 0;
        }
        while (d && !found && (de = readdir(d)))
                if (de->d_name[0] != '.' && (!by_serial || agent_serial_is(de->d_name, spec + 7))) {
                        if ((size_t)snprintf(ret_path, size, "/dev/%s", de->d_name) >= size) {
                                closedir(d);
                                return -ENAMETOOLONG;
                        }
                        found = 1;
                }
        if (d)
                closedir(d);
        return found && stat(ret_path, &st) == 0;
}

/* Turn a device setting into a node path and wait for it to appear: sd_mod
 * probes disks asynchronously, so right after module loading /dev/sda may not
 * exist yet, and with two disks sda/sdb are handed out in probe order, which
 * is why the host names disks by SCSI address (0:0:0:0 is the IDE primary
 * master, 0:0:1:0 the primary slave) or by serial number. Polls every 10 ms,
 * at most AGENT_DEV_WAIT_MS. Returns 0 or -ENOENT/-ENAMETOOLONG. */
static int agent_resolve_dev(const char *spec, char *ret_path, size_t size) {
        uint64_t start = agent_now_ms();
        int r;

        while ((r = agent_find_dev(spec, ret_path, size)) == 0) {
                if (agent_now_ms() - start >= AGENT_DEV_WAIT_MS)
                        return -ENOENT;
                nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
        }
        return r < 0 ? r : 0;
}

/* Fail at once, in one line naming the bus and the driver, when the kernel
 * has no driver the bus needs (built in or among the image's modules):
 * the disk would never appear, and waiting for it says less. */
static void agent_check_bus(void) {
        const struct diskbus *bus;
        char path[128], missing[128] = "";
        size_t len = 0;
        struct stat st;

        if (!A.set.disk_bus[0])
                return;
        if (!(bus = diskbus_find(A.set.disk_bus)))
                agent_fail("set disk_bus: '%s' is not a disk bus this agent knows", A.set.disk_bus);
        for (const char *const *d = bus->drivers; *d && len < sizeof(missing); d++) {
                const char *slash = strchr(*d, '/');
                snprintf(path, sizeof(path), "/sys/bus/%.*s/drivers/%s", (int)(slash - *d), *d, slash + 1);
                if (stat(path, &st) < 0)
                        len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? ", " : "",
                                                slash + 1);
        }
        if (missing[0])
                agent_fail("disk bus %s: kernel %s has no %s driver (neither built in nor a module in the guest "
                           "image)", bus->name, A.release, missing);
}

/* Report the drivers bound to the disk node dev and the devices above it,
 * the disk's first ("sd ata_piix", "virtio_blk virtio-pci"): which
 * controller the guest really drove, for the cell's params. */
static void agent_report_driver(const char *dev) {
        const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
        char path[320], real[PATH_MAX], link[PATH_MAX], list[128] = "";
        size_t len = 0;

        snprintf(path, sizeof(path), "/sys/block/%s/device", base);
        if (!realpath(path, real))
                return;
        while (strncmp(real, "/sys/devices/", 13) == 0 && len < sizeof(list)) {
                char *slash;
                ssize_t n;

                snprintf(path, sizeof(path), "%.300s/driver", real);
                if ((n = readlink(path, link, sizeof(link) - 1)) > 0) {
                        link[n] = '\0';
                        slash = strrchr(link, '/');
                        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? " " : "",
                                                slash ? slash + 1 : link);
                }
                *strrchr(real, '/') = '\0';
        }
        if (list[0])
                agent_recordf("disk-driver", "%s", list);
}

/* Report the CRC-32 of the disk's first AGENT_DISK_HEAD bytes as this
 * kernel reads them (through the block device's cache, as the filesystem
 * will): the host compares it with the image it made for the cell. */
#define AGENT_DISK_HEAD 4096

static void agent_disk_head(int fd, const char *dev) {
        static char buf[AGENT_DISK_HEAD];
        size_t got = 0;

        while (got < sizeof(buf)) {
                ssize_t n = pread(fd, buf + got, sizeof(buf) - got, (off_t)got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        agent_recordf("log", "read %s head: %s", dev, n < 0 ? strerror(errno) : "end of device");
                        return;
                }
                got += (size_t)n;
        }
        agent_recordf("disk-head", "%08x", crc32_update(0, buf, sizeof(buf)));
}

/* Drop whatever the kernel remembers of the disk under test: its buffered
 * blocks (BLKFLSBUF) and its partition table (BLKRRPART). A guest restored
 * from a snapshot probed the snapshot's disk at boot; the cell's disk is
 * another file behind the same device. The snapshot is saved before
 * anything opens the disk, so the kernel already dropped those blocks;
 * this makes it hold whatever the kernel version does. Cold boots do the
 * same, so warm and cold cells run the same steps. */
static void agent_forget_disk(const char *dev) {
        _cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);

        if (fd < 0) {
                agent_recordf("log", "open %s to flush it: %s", dev, strerror(errno));
                return;
        }
        if (ioctl(fd, BLKFLSBUF, 0) < 0)
                agent_recordf("log", "BLKFLSBUF %s: %s", dev, strerror(errno));
        /* A disk without partitions has nothing to re-read; EINVAL says so. */
        if (ioctl(fd, BLKRRPART, 0) < 0 && errno != EINVAL)
                agent_recordf("log", "BLKRRPART %s: %s", dev, strerror(errno));
        agent_disk_head(fd, dev);
}

static void agent_prepare_disk(void) {
        char disk[300];
        int r;

        if (strcmp(A.set.net, "") != 0) {
                int on;
                if (parse_bool(A.set.net, &on) < 0)
                        agent_fail("set net: '%s' is not 0 or 1", A.set.net);
                if (on)
                        agent_net_up();
        }
        if ((r = agent_mkdir_p(A.set.mnt)) < 0)
                agent_fail("mkdir %s: %s", A.set.mnt, strerror(-r));
        if (A.set.fs[0] == '\0')
                agent_fail("no file system type given (set fs)");
        agent_check_bus();
        if ((r = agent_resolve_dev(A.set.disk, disk, sizeof(disk))) < 0)
                agent_fail("disk %s did not appear within %d ms: %s", A.set.disk, AGENT_DEV_WAIT_MS, strerror(-r));
        agent_report_driver(disk);
        agent_forget_disk(disk);
        /* The sampler finds the disk's line of /proc/diskstats by the node's
         * name ("/dev/sda" is "sda"); a longer name leaves its columns absent. */
        {
                const char *base = strrchr(disk, '/') ? strrchr(disk, '/') + 1 : disk;
                if (strlen(base) <= SAMPLER_DISK_NAME_MAX)
                        strcpy(A.disk_name, base);
        }
        if (mount(disk, A.set.mnt, A.set.fs, 0, A.set.mount_opts[0] ? A.set.mount_opts : NULL) < 0)
                agent_fail("mount %s (%s) on %s (%s, '%s'): %s", disk, A.set.disk, A.set.mnt, A.set.fs,
                           A.set.mount_opts, strerror(errno));
        A.mounted = true;
        if (A.set.swap[0]) {
                if ((r = agent_resolve_dev(A.set.swap, A.swap_dev, sizeof(A.swap_dev))) < 0)
                        agent_fail("swap %s did not appear within %d ms: %s", A.set.swap, AGENT_DEV_WAIT_MS, strerror(-r));
                if (swapon(A.swap_dev, 0) < 0)
                        agent_fail("swapon %s (%s): %s", A.swap_dev, A.set.swap, strerror(errno));
                A.swapped = true;
        }
        agent_record("event", "mounted", 7);
}

static void agent_sample(bool first) {
        struct sampler_snapshot s;
        struct sampler_row row;
        char line[SAMPLER_ROW_MAX];
        uint64_t now;
        int r, n;

        r = sampler_read("", A.disk_name, &s);
        now = agent_now_ms();
        if (r < 0) {
                agent_recordf("log", "vmstat: reading /proc: %s", strerror(-r));
                return;
        }
        if (first)
                sampler_boot_row(&s, (unsigned)sysconf(_SC_CLK_TCK), A.page_kb, &row);
        else
                sampler_delta_row(&A.last, &s, now - A.last_ms, A.page_kb, &row);
        n = sampler_format_row(line, sizeof(line), &row);
        if (n > 0)
                agent_record(first ? "vmstat-boot" : "vmstat", line, (size_t)n);
        A.last = s;
        A.last_ms = now;
}

/* The header lines, then what this kernel cannot give: its columns are "-"
 * in every row, and the note tells the host (and a reader of the raw log)
 * why. The cell stays ok; vmstat analysis skips what is absent. */
static void agent_vmstat_header(void) {
        struct sampler_snapshot s;
        char line[SAMPLER_NOTE_MAX];
        int n;

        if ((n = sampler_format_groups(line, sizeof(line))) > 0)
                agent_record("vmstat-header", line, (size_t)n);
        if ((n = sampler_format_names(line, sizeof(line))) > 0)
                agent_record("vmstat-header", line, (size_t)n);
        if (sampler_read("", A.disk_name, &s) == 0 && (n = sampler_absent_note(&s, line, sizeof(line))) > 0)
                agent_record("vmstat-note", line, (size_t)n);
}

static void agent_start_sampler(void) {
        uint64_t ms;
        struct itimerspec its;

        if (parse_u64(A.set.vmstat_interval_ms, &ms) < 0 || ms < 10 || ms > 3600000)
                agent_fail("set vmstat_interval_ms: '%s' is not 10..3600000", A.set.vmstat_interval_ms);
        A.tick_ms = ms;
        A.timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        /* A kernel without CONFIG_TIMERFD (a tinyconfig without EXPERT)
         * answers ENOSYS: poll()'s own timeout paces the samples instead,
         * and the cell says so. */
        if (A.timer < 0 && errno != ENOSYS)
                agent_fail("timerfd_create: %s", strerror(errno));
        if (A.timer < 0)
                agent_recordf("log", "timerfd_create: %s: this kernel lacks CONFIG_TIMERFD; vmstat is paced by "
                              "poll() timeouts instead", strerror(ENOSYS));
        agent_vmstat_header();
        agent_sample(true);
        its.it_interval.tv_sec = (time_t)(ms / 1000);
        its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000;
        its.it_value = its.it_interval;
        if (A.timer >= 0 && timerfd_settime(A.timer, 0, &its, NULL) < 0)
                agent_fail("timerfd_settime: %s", strerror(errno));
        A.next_tick_ms = agent_now_ms() + ms;
        A.sampling = true;
}

/* Give fd exactly the number target in the child (clearing close-on-exec). */
static int agent_child_fd(int fd, int target) {
        if (fd == target)
                return fcntl(fd, F_SETFD, 0);
        return dup2(fd, target);
}

/* Fork /bin/sh -c <script> in mnt with stdout/stderr/fd 3 on fresh pipes.
 * OUT: the read ends go to streams[0..2]. Returns the child's pid. */
static pid_t agent_spawn(struct agent_stream streams[3]) {
        int p[3][2];
        sigset_t all;
        pid_t pid;

        for (int i = 0; i < 3; i++)
                if (pipe2(p[i], O_CLOEXEC) < 0)
                        agent_fail("pipe: %s", strerror(errno));
        pid = fork();
        if (pid < 0)
                agent_fail("fork: %s", strerror(errno));
        if (pid == 0) {
                /* The child of PID 1 starts with PID 1's signal state: undo it. */
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                char *envp[] = { (char *)AGENT_PATH, (char *)"HOME=/root", (char *)"TERM=dumb",
                                 (char *)"KBENCH_HOST_FIFO=" AGENT_FIFO, NULL };
                sigemptyset(&all);
                sigprocmask(SIG_SETMASK, &all, NULL);
                signal(SIGPIPE, SIG_DFL);
                setsid();
                if (null < 0 || agent_child_fd(null, 0) < 0 || agent_child_fd(p[0][1], 1) < 0 ||
                    agent_child_fd(p[1][1], 2) < 0 || agent_child_fd(p[2][1], 3) < 0)
                        _exit(126);
                if (chdir(A.set.mnt) < 0) {
                        dprintf(2, "kbench-agent: chdir %s: %s\n", A.set.mnt, strerror(errno));
                        _exit(126);
                }
                execle("/bin/sh", "sh", "-c", A.script, (char *)NULL, envp);
                dprintf(2, "kbench-agent: exec /bin/sh: %s\n", strerror(errno));
                _exit(127);
        }
        for (int i = 0; i < 3; i++) {
                close(p[i][1]);
                streams[i].fd = p[i][0];
                streams[i].len = 0;
                fcntl(p[i][0], F_SETFL, O_NONBLOCK);
        }
        return pid;
}

/* Under KVM with a vPMU: count the guest's instructions from the go on. A
 * guest without a PMU (TCG emulates none: ENOENT) sends nothing, and the
 * host's plugin counts instead; any other failure is said once. */
static void agent_pmu_start(void) {
        int r = pmu_open(&A.pmu, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

        if (r < 0 && r != -ENOENT && r != -EOPNOTSUPP)
                agent_recordf("log", "no instruction counts from the guest's PMU: perf_event_open: %s", strerror(-r));
}

/* The PMU's totals at a phase mark, as the record just before the mark's
 * own: the host pairs the two (cell/cell.c). */
static void agent_pmu_mark(void) {
        uint64_t v[2];

        if (A.pmu.n_cpus == 0)
                return;
        if (pmu_read(&A.pmu, v) < 0) {
                agent_recordf("pmu", "lost");
                return;
        }
        agent_recordf("pmu", "user=%llu kernel=%llu", (unsigned long long)v[PMU_USER],
                      (unsigned long long)v[PMU_KERNEL]);
}

/* The kernel's counters at a phase mark (guest/counters.h), as the record
 * just before the mark's own, like the PMU's: the job's exited tasks as
 * the socket holds them now, reclaim, the page cache and the disk. */
static void agent_counters_mark(void) {
        struct sampler_snapshot s;
        char payload[COUNTERS_PAYLOAD_MAX];
        int n = A.ts.fd >= 0 ? taskstats_drain(&A.ts, &A.ts_sums) : 0;

        if (n < 0)
                agent_recordf("log", "taskstats: %s", strerror(-n));
        taskstats_mark(&A.ts, &A.ts_sums);
        if (sampler_read("", A.disk_name, &s) < 0)
                return;
        n = counters_phase(&s, A.ts.fd >= 0 ? &A.ts_sums : NULL, payload, sizeof(payload));
        if (n > 0)
                agent_record("counters", payload, (size_t)n);
}

/* One line of a job pipe as its record. A phase mark executes the
 * instruction counter's marker first (common/insncount-format.h), so the
 * counts are taken here, in the guest, however late the host reads them. */
static void agent_stream_line(struct agent_stream *s) {
        if (strcmp(s->type, "event") == 0 && s->len > 6 && memcmp(s->buf, "phase ", 6) == 0) {
                insncount_marker();
                agent_pmu_mark();
                agent_counters_mark();
        }
        agent_record(s->type, s->buf, s->len);
}

/* What the kernel holds, as the `memory` record of when ("start", "end"):
 * written back and its clean caches dropped first, so page cache and
 * dentries the job left behind do not count, and a kernel that keeps what
 * it should have freed does (host/guestcount.h). */
static void agent_memory(const char *when) {
        static char meminfo[16384];
        char payload[COUNTERS_PAYLOAD_MAX];
        int fd, n;
        ssize_t len;

        sync();
        fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || agent_write_all(fd, "3\n", 2) < 0)
                agent_recordf("log", "memory %s: /proc/sys/vm/drop_caches: %s", when, strerror(errno));
        if (fd >= 0)
                close(fd);
        if ((len = agent_read_small("/proc/meminfo", meminfo, sizeof(meminfo))) < 0)
                return;
        n = counters_memory(when, meminfo, (size_t)len, payload, sizeof(payload));
        if (n > 0)
                agent_record("memory", payload, (size_t)n);
}

/* From the job's start: the kernel's memory, and its tasks as they exit
 * (with delay accounting, which 5.14+ leaves off until asked, their
 * waiting on I/O and in reclaim). A kernel without taskstats sends no task
 * sums; the cell says nothing of its tasks then. */
static void agent_counters_start(void) {
        int fd = open("/proc/sys/kernel/task_delayacct", O_WRONLY | O_CLOEXEC), r;

        if (fd >= 0) {
                (void)agent_write_all(fd, "1\n", 2);
                close(fd);
        }
        agent_memory("start");
        r = taskstats_open(&A.ts);
        if (r < 0 && r != -ENOENT && r != -EPROTONOSUPPORT && r != -EAFNOSUPPORT)
                agent_recordf("log", "no task figures: taskstats: %s", strerror(-r));
}

static void agent_stream_flush(struct agent_stream *s) {
        if (s->len > 0)
                agent_stream_line(s);
        s->len = 0;
}

/* Read what is available; one record per line, over-long lines split at
 * PROTO_PAYLOAD_MAX; at EOF the last partial line is sent and fd closed. */
static void agent_stream_read(struct agent_stream *s) {
        char buf[4096];
        ssize_t n = read(s->fd, buf, sizeof(buf));

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                if (n < 0)
                        agent_recordf("log", "read job %s: %s", s->type, strerror(errno));
                agent_stream_flush(s);
                close(s->fd);
                s->fd = -1;
                return;
        }
        for (ssize_t i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                        agent_stream_line(s);
                        s->len = 0;
                        continue;
                }
                s->buf[s->len++] = buf[i];
                if (s->len == sizeof(s->buf))
                        agent_stream_flush(s);
        }
}

static int agent_make_fifo(void) {
        int fd;

        if (mkdir(AGENT_FIFO_DIR, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mkfifo(AGENT_FIFO, 0666) < 0 && errno != EEXIST)
                return -errno;
        /* O_RDWR: opening never blocks and the job's reads never see EOF. */
        fd = open(AGENT_FIFO, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static int agent_sigchld_wr = -1;

static void agent_on_sigchld(int sig) {
        int saved = errno;
        char b = 0;

        (void)sig;
        if (write(agent_sigchld_wr, &b, 1) < 0) {
                /* full pipe: a wake-up is pending anyway */
        }
        errno = saved;
}

/* The self-pipe for SIGCHLD where signalfd is missing. Returns its read end
 * or -errno. */
static int agent_sigchld_pipe(void) {
        struct sigaction sa = { .sa_handler = agent_on_sigchld, .sa_flags = SA_RESTART | SA_NOCLDSTOP };
        int p[2];

        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
                return -errno;
        agent_sigchld_wr = p[1];
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGCHLD, &sa, NULL) < 0)
                return -errno;
        return p[0];
}

/* A descriptor that becomes readable on SIGCHLD: a signalfd, or without
 * CONFIG_SIGNALFD a self-pipe its handler writes to (poll() sees the pipe).
 * OUT: *ret_self_pipe, true for the pipe. Fails the agent if neither works. */
static int agent_child_signals(bool *ret_self_pipe) {
        sigset_t chld;
        int sfd;

        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigprocmask(SIG_BLOCK, &chld, NULL);
        sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
        *ret_self_pipe = false;
        if (sfd < 0 && errno == ENOSYS) {
                sfd = agent_sigchld_pipe();
                if (sfd < 0)
                        agent_fail("signalfd: %s, and its fallback: %s", strerror(ENOSYS), strerror(-sfd));
                *ret_self_pipe = true;
                agent_recordf("log", "signalfd: %s: this kernel lacks CONFIG_SIGNALFD; SIGCHLD through "
                              "sigaction and a self-pipe instead", strerror(ENOSYS));
                sigprocmask(SIG_UNBLOCK, &chld, NULL);
        }
        if (sfd < 0)
                agent_fail("signalfd: %s", strerror(errno));
        return sfd;
}

/* After the job exited: true when its streams are closed, or have stayed
 * open AGENT_DRAIN_MS (then they are flushed and closed); else how long
 * to wait for them. OUT: *ret_timeout, ms. */
static bool agent_drained(struct agent_stream *streams, int open_streams, uint64_t exited_at, int *ret_timeout) {
        uint64_t waited = agent_now_ms() - exited_at;

        if (open_streams == 0)
                return true;
        if (waited >= AGENT_DRAIN_MS) {
                agent_recordf("log", "job exited but its output stayed open %d ms (a background process?); not waiting",
                              AGENT_DRAIN_MS);
                for (int i = 0; i < 3; i++)
                        if (streams[i].fd >= 0) {
                                agent_stream_flush(&streams[i]);
                                close(streams[i].fd);
                                streams[i].fd = -1;
                        }
                return true;
        }
        *ret_timeout = (int)(AGENT_DRAIN_MS - waited);
        return false;
}

/* Drain sfd and reap every exited child; the job's exit sets *code and
 * *exited_at. */
static void agent_reap(int sfd, pid_t pid, int *code, uint64_t *exited_at) {
        struct signalfd_siginfo si;

        /* A signalfd gives whole records, the self-pipe bytes:
         * both are drained until they would block. */
        while (read(sfd, &si, sizeof(si)) > 0)
                ;
        /* PID 1 reaps every orphan, not only the job. */
        for (;;) {
                int status;
                pid_t w = waitpid(-1, &status, WNOHANG);
                if (w <= 0)
                        break;
                if (w != pid)
                        continue;
                *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                *exited_at = agent_now_ms();
        }
}

/* Run the job to completion while serving the host, the sampler and the
 * job's pipes. Returns the job's exit code (128 + signal if killed). */
static int agent_run_job(void) {
        struct agent_stream streams[3] = {
                { .type = "out", .fd = -1 }, { .type = "err", .fd = -1 }, { .type = "event", .fd = -1 },
        };
        bool self_pipe;
        int sfd, r, code = -1;
        pid_t pid;
        uint64_t exited_at = 0;

        if (A.script_error[0])
                agent_fail("%s", A.script_error);
        if (A.script_len == 0)
                agent_fail("no job script was given before go");
        if ((r = agent_make_fifo()) < 0)
                agent_fail("%s: %s", AGENT_FIFO, strerror(-r));
        A.fifo = r;
        sfd = agent_child_signals(&self_pipe);

        pid = agent_spawn(streams);
        for (;;) {
                struct pollfd pfd[7];
                int nfd = 0, timeout = -1, open_streams = 0;

                pfd[nfd++] = (struct pollfd){ .fd = A.tty, .events = POLLIN };
                pfd[nfd++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
                pfd[nfd++] = (struct pollfd){ .fd = A.timer, .events = POLLIN };
                for (int i = 0; i < 3; i++) {
                        pfd[nfd++] = (struct pollfd){ .fd = streams[i].fd, .events = POLLIN };
                        open_streams += streams[i].fd >= 0;
                }
                pfd[nfd++] = (struct pollfd){ .fd = A.ts.fd, .events = POLLIN };
                if (code >= 0 && agent_drained(streams, open_streams, exited_at, &timeout))
                        break;
                if (A.timer < 0) {
                        int until_tick;

                        if (sampler_pace(agent_now_ms(), A.tick_ms, &A.next_tick_ms, &until_tick))
                                agent_sample(false);
                        if (timeout < 0 || until_tick < timeout)
                                timeout = until_tick;
                }
                if (poll(pfd, (nfds_t)nfd, timeout) < 0) {
                        if (errno == EINTR)
                                continue;
                        agent_fail("poll: %s", strerror(errno));
                }
                if (pfd[0].revents)
                        agent_read_tty();
                if (pfd[2].revents) {
                        uint64_t ticks;
                        if (read(A.timer, &ticks, sizeof(ticks)) == sizeof(ticks))
                                agent_sample(false);
                }
                /* Streams before SIGCHLD so output precedes the exit in time. */
                for (int i = 0; i < 3; i++)
                        if (streams[i].fd >= 0 && pfd[3 + i].revents)
                                agent_stream_read(&streams[i]);
                if (pfd[1].revents)
                        agent_reap(sfd, pid, &code, &exited_at);
                /* Keep the socket from overflowing between two marks. */
                if (pfd[6].revents && (r = taskstats_drain(&A.ts, &A.ts_sums)) < 0)
                        agent_recordf("log", "taskstats: %s", strerror(-r));
        }
        if (self_pipe) {
                signal(SIGCHLD, SIG_DFL);
                close(agent_sigchld_wr);
                agent_sigchld_wr = -1;
        }
        close(sfd);
        return code;
}

int main(void) {
        char cmdline[4096], modmsgs[4096];
        struct utsname u;
        int r;

        agent_mount_early();
        signal(SIGPIPE, SIG_IGN);
        if (uname(&u) == 0)
                snprintf(A.release, sizeof(A.release), "%s", u.release);
        if (agent_read_small("/proc/cmdline", cmdline, sizeof(cmdline)) < 0 ||
            (r = agent_parse_cmdline(cmdline, A.cell)) < 0) {
                agent_console("no valid kbench.cell=ID on the kernel command line; powering off");
                agent_poweroff();
        }
        agent_load_modules(modmsgs, sizeof(modmsgs));

        A.tty = agent_open_tty();
        if (A.tty < 0) {
                agent_console("open %s: %s; powering off", AGENT_TTY, strerror(-A.tty));
                A.tty = -1;
                agent_poweroff();
        }
        strcpy(A.set.disk, KB_GUEST_DISK);
        strcpy(A.set.mnt, KB_GUEST_MNT);
        strcpy(A.set.net, "0");
        strcpy(A.set.vmstat_interval_ms, "1000");
        A.page_kb = (unsigned)(sysconf(_SC_PAGESIZE) / 1024);
        agent_ready();
        for (char *save = NULL, *l = strtok_r(modmsgs, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                agent_recordf("log", "%s", l);
        /* Everything before the wait is out of the UART: a guest saved here
         * (warm start) carries nothing of this boot into a restored cell.
         * Nothing has opened the disk under test yet, and nothing will
         * before the host's go: the kernel holds none of its blocks. */
        tcdrain(A.tty);

        while (!A.go) {
                struct pollfd pfd = { .fd = A.tty, .events = POLLIN };
                if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
                        agent_fail("poll: %s", strerror(errno));
                if (pfd.revents)
                        agent_read_tty();
        }

        agent_prepare_disk();
        agent_apply_sysctls();
        agent_counters_start();
        agent_pmu_start();
        agent_start_sampler();
        r = agent_run_job();
        agent_sample(false);
        taskstats_close(&A.ts);
        agent_memory("end");
        agent_recordf("done", "%d", r);
        /* After done, so no measured window holds it. */
        if (strcmp(A.set.ksyms, "1") == 0)
                ksymlist_dump("", PROTO_PAYLOAD_MAX, agent_emit_paced, NULL);
        agent_poweroff();
}
