/* common/test-scratch: one scratch directory per test binary, removed at
 * exit (see test-scratch.h). Seven test binaries made, named and removed
 * their temporary trees with the same few lines; this is those lines once. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/test-scratch.h"
#include "common/test.h"

static char *scratch;
static const char *keep_env;

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f) {
        return flag == FTW_DP ? rmdir(p) : unlink(p);
}

int test_rm_tree(const char *path) {
        if (access(path, F_OK) < 0)
                return -errno;
        return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -(errno ? errno : EIO);
}

static void scratch_cleanup(void) {
        if (scratch && !(keep_env && getenv(keep_env)))
                test_rm_tree(scratch);
}

const char *test_scratch(const char *template) {
        const char *tmp = getenv("TMPDIR");
        char *dir;

        if (scratch)
                return scratch;
        if (!tmp || !*tmp)
                tmp = "/tmp";
        if (asprintf(&dir, "%s/%s", tmp, template) < 0)
                TEST_FAIL("out of memory");
        if (!mkdtemp(dir))
                TEST_FAIL("cannot make %s: %s", dir, strerror(errno));
        scratch = dir;
        atexit(scratch_cleanup);
        return scratch;
}

char *test_scratch_path(const char *rel) {
        char *p;

        if (!scratch)
                TEST_FAIL("test_scratch_path(\"%s\") before test_scratch()", rel);
        if (asprintf(&p, "%s/%s", scratch, rel) < 0)
                TEST_FAIL("out of memory");
        return p;
}

void test_scratch_keep_if(const char *name) {
        keep_env = name;
}
