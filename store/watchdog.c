/* watchdog.c: kill this kbench's QEMU when kbench dies (see watchdog.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/parse.h"
#include "store/watchdog.h"

static int has_prefix(const char *name, const char *prefix) {
        return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Whether pid is alive and a QEMU (argv[0] names qemu-system): a recycled
 * pid must not be killed. */
static int is_qemu(pid_t pid) {
        char path[64], cmd[4096];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, cmd, sizeof(cmd) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        cmd[n] = '\0';
        /* argv[0] only (the string up to the first NUL): an editor open on
         * qemu.conf must not count. */
        return strstr(cmd, "qemu-system") != NULL;
}

static void remove_tree(const char *path) {
        DIR *d = opendir(path);
        struct dirent *e;

        if (d) {
                while ((e = readdir(d))) {
                        g_autofree char *p = NULL;
                        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                                continue;
                        p = g_build_filename(path, e->d_name, NULL);
                        if (e->d_type == DT_DIR)
                                remove_tree(p);
                        else
                                unlink(p);
                }
                closedir(d);
        }
        if (rmdir(path) < 0 && errno == ENOTDIR)
                unlink(path);
}

int watchdog_clean(const char *prefix, const char *run_dir, const char *scratch_dir, int *ret_removed) {
        DIR *d = opendir(run_dir);
        struct dirent *e;
        int killed = 0, removed = 0;

        while (d && (e = readdir(d))) {
                g_autofree char *p = NULL, *text = NULL;
                uint64_t pid;

                if (!has_prefix(e->d_name, prefix) || !g_str_has_suffix(e->d_name, ".pid"))
                        continue;
                p = g_build_filename(run_dir, e->d_name, NULL);
                if (!g_file_get_contents(p, &text, NULL, NULL))
                        continue;
                g_strstrip(text);
                if (parse_u64(text, &pid) < 0 || pid < 2 || pid > INT32_MAX || !is_qemu((pid_t)pid))
                        continue;
                if (kill((pid_t)pid, SIGKILL) == 0) {
                        killed++;
                        /* Gone before anyone reconnects to it: libvirt would
                         * otherwise find a live pid with a dead monitor. */
                        for (int i = 0; i < 500 && kill((pid_t)pid, 0) == 0 && is_qemu((pid_t)pid); i++)
                                g_usleep(10 * 1000);
                }
        }
        if (d)
                closedir(d);
        d = opendir(scratch_dir);
        while (d && (e = readdir(d))) {
                g_autofree char *p = NULL;
                if (e->d_name[0] == '.' || !has_prefix(e->d_name, prefix))
                        continue;
                p = g_build_filename(scratch_dir, e->d_name, NULL);
                remove_tree(p);
                removed++;
        }
        if (d)
                closedir(d);
        if (ret_removed)
                *ret_removed = removed;
        return killed;
}

int watchdog_start(const char *prefix, const char *run_dir, const char *scratch_dir, struct kb_error *err) {
        int fds[2];
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return error_setf(err, -errno, "watchdog: pipe: %s", g_strerror(errno));
        pid = fork();
        if (pid < 0) {
                int e = errno;
                close(fds[0]);
                close(fds[1]);
                return error_setf(err, -e, "watchdog: fork: %s", g_strerror(e));
        }
        if (pid == 0) {
                char c;
                /* Ctrl-C goes to the whole process group: kbench handles it
                 * and ends its cell; the watchdog must outlive kbench. */
                signal(SIGINT, SIG_IGN);
                signal(SIGTERM, SIG_IGN);
                signal(SIGHUP, SIG_IGN);
                close(fds[1]);
                /* Holding kbench's stdout (a pipe, say) would keep its
                 * reader waiting for the watchdog: it prints nothing. */
                {
                        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                        if (null >= 0) {
                                dup2(null, STDIN_FILENO);
                                dup2(null, STDOUT_FILENO);
                                dup2(null, STDERR_FILENO);
                        }
                }
                for (int fd = 3; fd < 1024; fd++)
                        if (fd != fds[0])
                                close(fd);
                prctl(PR_SET_NAME, "kbench-watchdog");
                while (read(fds[0], &c, 1) < 0 && errno == EINTR)
                        ;
                watchdog_clean(prefix, run_dir, scratch_dir, NULL);
                watchdog_clean(WATCHDOG_SNAPSHOT_PREFIX, run_dir, "/nonexistent", NULL);
                _exit(0);
        }
        /* The write end stays open, unused, for the life of this process. */
        close(fds[0]);
        return 0;
}
