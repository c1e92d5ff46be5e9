/* plugin/outfile.h: the file a kbench plugin counts into, as both plugins
 * (kbinsn.c, kbprof.c) take it: the `out=FILE` argument of -plugin, a
 * regular file of exactly the size kbench made it, mapped shared. kbench
 * made it and handed it to the QEMU user beforehand: a plugin never
 * creates one, never follows a link, and refuses anything else. Header
 * only: each plugin is a shared object of its own. */
#pragma once

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mapping of out=FILE among argv, size bytes; NULL when there is no
 * such argument or the file is not the one kbench made. */
static inline void *outfile_map(int argc, char **argv, size_t size) {
        const char *out = NULL;
        struct stat st;
        void *p;
        int fd;

        for (int i = 0; i < argc; i++)
                if (strncmp(argv[i], "out=", 4) == 0)
                        out = argv[i] + 4;
        if (!out)
                return NULL;
        fd = open(out, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return NULL;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != size) {
                close(fd);
                return NULL;
        }
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        return p == MAP_FAILED ? NULL : p;
}
