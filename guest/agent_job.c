/* guest/agent_job.c: the job, /bin/sh -c SCRIPT in the mounted disk, run to
 * its end by the agent's one poll() loop: its stdout, stderr and fd 3 (the
 * job's events, its phase marks among them) become records line by line,
 * the host's lines are served, the sampler ticks, and every child PID 1
 * inherits is reaped. SIGCHLD comes through a signalfd, or on a kernel
 * without one through a self-pipe. The job may leave its pipes open (a
 * background process): they are drained for AGENT_DRAIN_MS, then closed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/guest-paths.h"
#include "common/insncount-format.h"
#include "common/util.h"
#include "guest/agent.h"

#define AGENT_FIFO_DIR KB_GUEST_RUN_DIR
#define AGENT_DRAIN_MS 5000     /* how long a finished job's pipes may stay open */
#define AGENT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* One line-splitting reader for a job pipe (stdout, stderr or fd 3). */
struct agent_job_stream {
        const char *type;               /* record type: out, err, event */
        int fd;                         /* read end, -1 once at EOF */
        char buf[PROTO_PAYLOAD_MAX];
        size_t len;
};

/* Give fd exactly the number target in the child (clearing close-on-exec). */
static int agent_job_child_fd(int fd, int target) {
        if (fd == target)
                return fcntl(fd, F_SETFD, 0);
        return dup2(fd, target);
}

/* Fork /bin/sh -c <script> in mnt with stdout/stderr/fd 3 on fresh pipes.
 * OUT: the read ends go to streams[0..2]. Returns the child's pid. */
static pid_t agent_job_spawn(struct agent_job_stream streams[3]) {
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
                if (null < 0 || agent_job_child_fd(null, 0) < 0 || agent_job_child_fd(p[0][1], 1) < 0 ||
                    agent_job_child_fd(p[1][1], 2) < 0 || agent_job_child_fd(p[2][1], 3) < 0)
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

/* One line of a job pipe as its record. A phase mark executes the
 * instruction counter's marker first (common/insncount-format.h), so the
 * counts are taken here, in the guest, however late the host reads them. */
static void agent_job_line(struct agent_job_stream *s) {
        if (strcmp(s->type, "event") == 0 && s->len > 6 && memcmp(s->buf, "phase ", 6) == 0) {
                insncount_marker();
                agent_measure_mark();
        }
        agent_record(s->type, s->buf, s->len);
}

static void agent_job_flush(struct agent_job_stream *s) {
        if (s->len > 0)
                agent_job_line(s);
        s->len = 0;
}

/* Read what is available; one record per line, over-long lines split at
 * PROTO_PAYLOAD_MAX; at EOF the last partial line is sent and fd closed. */
static void agent_job_read(struct agent_job_stream *s) {
        char buf[4096];
        ssize_t n = read(s->fd, buf, sizeof(buf));

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                if (n < 0)
                        agent_recordf("log", "read job %s: %s", s->type, strerror(errno));
                agent_job_flush(s);
                close(s->fd);
                s->fd = -1;
                return;
        }
        for (ssize_t i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                        agent_job_line(s);
                        s->len = 0;
                        continue;
                }
                s->buf[s->len++] = buf[i];
                if (s->len == sizeof(s->buf))
                        agent_job_flush(s);
        }
}

static int agent_job_fifo(void) {
        int fd;

        if (mkdir(AGENT_FIFO_DIR, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mkfifo(AGENT_FIFO, 0666) < 0 && errno != EEXIST)
                return -errno;
        /* O_RDWR: opening never blocks and the job's reads never see EOF. */
        fd = open(AGENT_FIFO, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static int agent_job_sigchld_wr = -1;

static void agent_job_on_sigchld(int sig) {
        int saved = errno;
        char b = 0;

        (void)sig;
        if (write(agent_job_sigchld_wr, &b, 1) < 0) {
                /* full pipe: a wake-up is pending anyway */
        }
        errno = saved;
}

/* The self-pipe for SIGCHLD where signalfd is missing. Returns its read end
 * or -errno. */
static int agent_job_sigchld_pipe(void) {
        struct sigaction sa = { .sa_handler = agent_job_on_sigchld, .sa_flags = SA_RESTART | SA_NOCLDSTOP };
        int p[2];

        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
                return -errno;
        agent_job_sigchld_wr = p[1];
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGCHLD, &sa, NULL) < 0)
                return -errno;
        return p[0];
}

/* A descriptor that becomes readable on SIGCHLD: a signalfd, or without
 * CONFIG_SIGNALFD a self-pipe its handler writes to (poll() sees the pipe).
 * OUT: *ret_self_pipe, true for the pipe. Fails the agent if neither works. */
static int agent_job_child_signals(bool *ret_self_pipe) {
        sigset_t chld;
        int sfd;

        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigprocmask(SIG_BLOCK, &chld, NULL);
        sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
        *ret_self_pipe = false;
        if (sfd < 0 && errno == ENOSYS) {
                sfd = agent_job_sigchld_pipe();
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
static bool agent_job_drained(struct agent_job_stream *streams, int open_streams, uint64_t exited_at, int *ret_timeout) {
        uint64_t waited = agent_now_ms() - exited_at;

        if (open_streams == 0)
                return true;
        if (waited >= AGENT_DRAIN_MS) {
                agent_recordf("log", "job exited but its output stayed open %d ms (a background process?); not waiting",
                              AGENT_DRAIN_MS);
                for (int i = 0; i < 3; i++)
                        if (streams[i].fd >= 0) {
                                agent_job_flush(&streams[i]);
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
static void agent_job_reap(int sfd, pid_t pid, int *code, uint64_t *exited_at) {
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
int agent_job_run(void) {
        struct agent_job_stream streams[3] = {
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
        if ((r = agent_job_fifo()) < 0)
                agent_fail("%s: %s", AGENT_FIFO, strerror(-r));
        A.fifo = r;
        sfd = agent_job_child_signals(&self_pipe);

        pid = agent_job_spawn(streams);
        for (;;) {
                struct pollfd pfd[7];
                int nfd = 0, timeout = -1, open_streams = 0;

                pfd[nfd++] = (struct pollfd){ .fd = A.tty, .events = POLLIN };
                pfd[nfd++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
                pfd[nfd++] = (struct pollfd){ .fd = agent_measure_timer_fd(), .events = POLLIN };
                for (int i = 0; i < 3; i++) {
                        pfd[nfd++] = (struct pollfd){ .fd = streams[i].fd, .events = POLLIN };
                        open_streams += streams[i].fd >= 0;
                }
                pfd[nfd++] = (struct pollfd){ .fd = agent_measure_tasks_fd(), .events = POLLIN };
                if (code >= 0 && agent_job_drained(streams, open_streams, exited_at, &timeout))
                        break;
                timeout = agent_measure_pace(timeout);
                if (poll(pfd, (nfds_t)nfd, timeout) < 0) {
                        if (errno == EINTR)
                                continue;
                        agent_fail("poll: %s", strerror(errno));
                }
                if (pfd[0].revents)
                        agent_host_read();
                if (pfd[2].revents)
                        agent_measure_tick();
                /* Streams before SIGCHLD so output precedes the exit in time. */
                for (int i = 0; i < 3; i++)
                        if (streams[i].fd >= 0 && pfd[3 + i].revents)
                                agent_job_read(&streams[i]);
                if (pfd[1].revents)
                        agent_job_reap(sfd, pid, &code, &exited_at);
                if (pfd[6].revents)
                        agent_measure_tasks();
        }
        if (self_pipe) {
                signal(SIGCHLD, SIG_DFL);
                close(agent_job_sigchld_wr);
                agent_job_sigchld_wr = -1;
        }
        close(sfd);
        return code;
}
