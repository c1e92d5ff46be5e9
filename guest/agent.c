/* guest/agent.c: kbench's PID 1 inside the guest. It mounts the pseudo file
 * systems, loads the modules the initramfs lists, greets the host on ttyS1
 * with a `ready` record, takes its settings and job script from the host
 * (agent_host.c), brings up the network and mounts the disk under test
 * (agent_net.c, agent_disk.c), runs the script while sampling vmstat once
 * per interval (agent_job.c, agent_measure.c), forwards everything as
 * framed records (common/proto.h) and powers the machine off. This file
 * holds that life in order; agent_io.c the records it sends and what
 * every room reads and writes by; guest/agent.h says what the rooms share. It is statically linked against libc only and runs
 * one single-threaded poll() loop. PID 1 must never exit (the kernel would
 * panic), so every failure path ends in a `log` record, `done 255` and a
 * power-off; a failure before ttyS1 is open goes to the console instead. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "guest/agent.h"
#include "guest/ksymlist.h"

#define AGENT_MODULES_LIST KB_GUEST_MODULES_LIST

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
        agent_host_ready();
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
                        agent_host_read();
        }

        agent_net_setup();
        agent_disk_prepare();
        agent_host_apply_sysctls();
        agent_measure_start();
        r = agent_job_run();
        agent_measure_end();
        agent_recordf("done", "%d", r);
        /* After done, so no measured window holds it. */
        if (strcmp(A.set.ksyms, "1") == 0)
                ksymlist_dump("", PROTO_PAYLOAD_MAX, agent_emit_paced, NULL);
        agent_poweroff();
}
