/* host/vm_serial.c: the domain's two serial ports as kbench reads them.
 * ttyS1, kbench's channel to the agent, is a unix socket that libvirt
 * creates and kbench connects to, on a local connection; a pty opened with
 * virDomainOpenConsole over a remote one. The pty costs a restored guest
 * most of a second: QEMU reads a pty the host opened only after its
 * once-a-second poll for the other end (chardev/char-pty.c), and a
 * restored guest's first input is the hello. A socket is accepted at
 * once. ttyS0, the kernel's console, is read here only from a host whose
 * files kbench cannot read (vm_config.console_stream), into the console
 * log. Both are watched on the event loop and delivered to the domain's
 * callback under its lock (host/vm_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <libvirt/libvirt.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host/vm.h"
#include "host/vm_internal.h"

static void stream_cb(virStreamPtr st, int events, void *opaque) {
        struct vm *vm = opaque;
        char buf[16384];

        g_mutex_lock(&vm->lock);
        while (!vm->closing && vm->st) {
                int n = virStreamRecv(vm->st, buf, sizeof(buf));
                if (n == -2)
                        break;
                if (n <= 0) {
                        /* EOF or error: stop watching, tell the owner once. */
                        virStreamEventRemoveCallback(vm->st);
                        vm->fn(vm->userdata, VM_EVENT_EOF, NULL, 0);
                        break;
                }
                vm->fn(vm->userdata, VM_EVENT_DATA, buf, (size_t)n);
        }
        g_mutex_unlock(&vm->lock);
}

/* ttyS1's socket is readable (or hung up): hand what it holds to the owner. */
static void sock_cb(int watch, int fd, int events, void *opaque) {
        struct vm *vm = opaque;
        char buf[16384];

        g_mutex_lock(&vm->lock);
        while (!vm->closing && vm->sock >= 0) {
                ssize_t n = read(vm->sock, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        break;
                if (n <= 0) {
                        /* EOF or error: stop watching, tell the owner once. */
                        virEventRemoveHandle(watch);
                        vm->sock_watch = -1;
                        vm->fn(vm->userdata, VM_EVENT_EOF, NULL, 0);
                        break;
                }
                vm->fn(vm->userdata, VM_EVENT_DATA, buf, (size_t)n);
        }
        g_mutex_unlock(&vm->lock);
}

int vm_serial_socket_fits(const char *path) {
        return strlen(path) < sizeof(((struct sockaddr_un *)0)->sun_path);
}

/* Connect to the socket libvirt made for ttyS1 (it listens before QEMU
 * runs) and watch it on the event loop. */
static int sock_open(struct vm *vm, const char *path, struct kb_error *err) {
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        int fd;

        if (!vm_serial_socket_fits(path))
                return error_setf(err, -ENAMETOOLONG, "%s: longer than a unix socket's path may be", path);
        g_strlcpy(a.sun_path, path, sizeof(a.sun_path));
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
                int e = errno;
                if (fd >= 0)
                        close(fd);
                return error_setf(err, -e, "cannot connect to ttyS1 of %s at %s: %s", vm->name, path, g_strerror(e));
        }
        g_mutex_lock(&vm->lock);
        vm->sock = fd;
        vm->sock_watch = virEventAddHandle(fd, VIR_EVENT_HANDLE_READABLE | VIR_EVENT_HANDLE_ERROR |
                                           VIR_EVENT_HANDLE_HANGUP, sock_cb, vm_ref(vm), vm_unref);
        g_mutex_unlock(&vm->lock);
        if (vm->sock_watch < 0) {
                vm_unref(vm);
                return error_setf(err, -EIO, "libvirt: cannot watch ttyS1 of %s: %s", vm->name, vm_last_error());
        }
        return 0;
}

/* Open ttyS1 of the pty domain as a libvirt stream watched on the event loop. */
static int pty_open(struct vm *vm, struct kb_error *err) {
        vm->st = virStreamNew(vm->c->conn, VIR_STREAM_NONBLOCK);
        if (!vm->st || virDomainOpenConsole(vm->dom, "serial1", vm->st, VIR_DOMAIN_CONSOLE_FORCE) < 0)
                return error_setf(err, -EIO, "libvirt: cannot open serial1 of %s: %s", vm->name, vm_last_error());
        if (virStreamEventAddCallback(vm->st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
                                      VIR_STREAM_EVENT_HANGUP, stream_cb, vm_ref(vm), vm_unref) < 0) {
                vm_unref(vm);
                return error_setf(err, -EIO, "libvirt: cannot watch serial1 of %s: %s", vm->name, vm_last_error());
        }
        return 0;
}

/* ttyS0's bytes, read through libvirt from a host whose files kbench
 * cannot read, go to the console log the cell reads as it would QEMU's. */
static void con_stream_cb(virStreamPtr st, int events, void *opaque) {
        struct vm *vm = opaque;
        char buf[16384];

        g_mutex_lock(&vm->lock);
        while (!vm->closing && vm->con_st) {
                int n = virStreamRecv(vm->con_st, buf, sizeof(buf));
                if (n == -2)
                        break;
                if (n <= 0) {
                        virStreamEventRemoveCallback(vm->con_st);
                        break;
                }
                /* A console log that cannot be written loses console text,
                 * not the cell: ttyS1 carries the measurement. */
                if (vm->con_fd >= 0 && write(vm->con_fd, buf, (size_t)n) < 0) {
                        close(vm->con_fd);
                        vm->con_fd = -1;
                }
        }
        g_mutex_unlock(&vm->lock);
}

static int console_open(struct vm *vm, const char *path, struct kb_error *err) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        g_mutex_lock(&vm->lock);
        vm->con_fd = fd;
        vm->con_st = virStreamNew(vm->c->conn, VIR_STREAM_NONBLOCK);
        g_mutex_unlock(&vm->lock);
        if (!vm->con_st || virDomainOpenConsole(vm->dom, "serial0", vm->con_st, VIR_DOMAIN_CONSOLE_FORCE) < 0)
                return error_setf(err, -EIO, "libvirt: cannot open serial0 of %s: %s", vm->name, vm_last_error());
        if (virStreamEventAddCallback(vm->con_st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
                                      VIR_STREAM_EVENT_HANGUP, con_stream_cb, vm_ref(vm), vm_unref) < 0) {
                vm_unref(vm);
                return error_setf(err, -EIO, "libvirt: cannot watch serial0 of %s: %s", vm->name, vm_last_error());
        }
        return 0;
}

int vm_serial_open(struct vm *vm, const struct vm_config *cfg, struct kb_error *err) {
        int r = cfg->serial_socket ? sock_open(vm, cfg->serial_socket, err) : pty_open(vm, err);

        if (r < 0 || !cfg->console_stream)
                return r;
        return console_open(vm, cfg->console_path, err);
}

void vm_serial_close(struct vm *vm) {
        virStreamPtr st, con_st;
        int fd, watch, con_fd;

        g_mutex_lock(&vm->lock);
        vm->closing = 1;
        st = vm->st;
        vm->st = NULL;
        con_st = vm->con_st;
        vm->con_st = NULL;
        con_fd = vm->con_fd;
        vm->con_fd = -1;
        fd = vm->sock;
        watch = vm->sock_watch;
        vm->sock = vm->sock_watch = -1;
        g_mutex_unlock(&vm->lock);
        if (st) {
                virStreamEventRemoveCallback(st);
                virStreamAbort(st);
                virStreamFree(st);
        }
        if (con_st) {
                virStreamEventRemoveCallback(con_st);
                virStreamAbort(con_st);
                virStreamFree(con_st);
        }
        if (con_fd >= 0)
                close(con_fd);
        if (watch >= 0)
                virEventRemoveHandle(watch);
        if (fd >= 0)
                close(fd);
}

/* One write to ttyS1's socket, with virStreamSend's results: bytes taken,
 * -2 when it would block, -1 on an error (errno). */
static int sock_send(int fd, const char *data, size_t len) {
        ssize_t n = send(fd, data, MIN(len, (size_t)INT_MAX), MSG_NOSIGNAL);

        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? -2 : -1;
        return (int)n;
}

int vm_send(struct vm *vm, const char *data, size_t len, struct kb_error *err) {
        int64_t deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

        while (len > 0) {
                int n, e = 0;

                g_mutex_lock(&vm->lock);
                if (vm->closing)
                        n = -1;
                else if (vm->sock >= 0) {
                        n = sock_send(vm->sock, data, len);
                        e = n == -1 ? errno : 0;
                } else
                        n = vm->st ? virStreamSend(vm->st, data, len) : -1;
                g_mutex_unlock(&vm->lock);
                if (n == -2) {
                        if (g_get_monotonic_time() > deadline)
                                return error_setf(err, -ETIMEDOUT, "%s: ttyS1 does not take input", vm->name);
                        g_usleep(1000);
                        continue;
                }
                if (n < 0)
                        return error_setf(err, -EIO, "%s: cannot write to ttyS1: %s", vm->name,
                                          e ? g_strerror(e) : vm_last_error());
                data += n;
                len -= (size_t)n;
        }
        return 0;
}
