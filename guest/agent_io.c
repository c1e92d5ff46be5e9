/* guest/agent_io.c: what every room of the agent writes and reads by: the
 * one state A (guest/agent.h), the clock, the console, the framed records
 * on ttyS1 (common/proto.h), small files of /proc and /sys, and the end of
 * every failure (a `log` record, `done 255`, the power-off). agent.c holds
 * the agent's life in order; its rooms and it come here, and this file
 * goes back to none of them. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/swap.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "guest/agent.h"

struct agent A = { .tty = -1, .fifo = -1 };

uint64_t agent_now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void agent_console(const char *fmt, ...) {
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

void agent_record(const char *type, const void *payload, size_t len) {
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
        if (fileio_write_all(A.tty, buf, (size_t)n) < 0)
                agent_console("write %s: %s", AGENT_TTY, strerror(errno));
}

void agent_recordf(const char *type, const char *fmt, ...) {
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

__attribute__((noreturn)) void agent_poweroff(void) {
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

__attribute__((noreturn)) void agent_fail(const char *fmt, ...) {
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

ssize_t agent_read_small(const char *path, char *buf, size_t size) {
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

int agent_cell_id(const char *v, size_t n, char *ret_cell) {
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

void agent_emit(const char *type, const char *payload, size_t len, void *userdata) {
        (void)userdata;
        agent_record(type, payload, len);
}
