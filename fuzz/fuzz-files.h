/* fuzz/fuzz-files.h: files an input may name that kbench must never read:
 * a FIFO without a writer (a read would wait forever), /dev/zero (a read
 * never ends), a sparse file of 1 GiB (refused by its size, never read
 * whole), a directory; and two it may read, a job file of text and one of
 * binary bytes. fuzz_files_enter() makes them once in a scratch directory
 * and moves there, so an input names them ./fifo, ./zero, ./huge, ./dir,
 * ./ok.fio, ./bin.fio; fuzz_files_arm() before each input turns a read
 * that waits into a crash (SIGALRM) instead of a hang. */
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_FILES_ALARM_S 5       /* an input's whole budget: a parse takes milliseconds */

static char fuzz_files_dir[64];

static void fuzz_files_put(const char *name, const void *data, size_t len) {
        FILE *f = fopen(name, "wb");

        if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
                abort();
}

static void fuzz_files_remove(void) {
        static const char *const names[] = { "fifo", "zero", "huge", "ok.fio", "bin.fio", "input", NULL };

        if (!fuzz_files_dir[0] || chdir(fuzz_files_dir) < 0)
                return;
        for (size_t i = 0; names[i]; i++)
                unlink(names[i]);
        rmdir("dir");
        if (chdir("/") == 0)
                rmdir(fuzz_files_dir);
}

static inline void fuzz_files_enter(void) {
        static const char ok[] = "[global]\nioengine=psync\n[r]\nrw=randread\nsize=8m\n";
        static const unsigned char bin[] = { '[', 'r', ']', '\n', 0x00, 0x01, 0xff, '\n' };
        int fd;

        if (fuzz_files_dir[0])
                return;
        snprintf(fuzz_files_dir, sizeof(fuzz_files_dir), "/tmp/kbench-fuzz-files-XXXXXX");
        if (!mkdtemp(fuzz_files_dir) || chdir(fuzz_files_dir) < 0)
                abort();
        atexit(fuzz_files_remove);
        if (mkfifo("fifo", 0600) < 0 || symlink("/dev/zero", "zero") < 0 || mkdir("dir", 0700) < 0)
                abort();
        fd = open("huge", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ftruncate(fd, 1LL << 30) < 0 || close(fd) < 0)
                abort();
        fuzz_files_put("ok.fio", ok, sizeof(ok) - 1);
        fuzz_files_put("bin.fio", bin, sizeof(bin));
}

/* Before each input: a read that waits on the FIFO, or reads on and on,
 * ends the process (SIGALRM) within FUZZ_FILES_ALARM_S. */
static inline void fuzz_files_arm(void) {
        signal(SIGALRM, SIG_DFL);
        alarm(FUZZ_FILES_ALARM_S);
}

static inline void fuzz_files_disarm(void) {
        alarm(0);
}
