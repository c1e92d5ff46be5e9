/* Unit tests for the progress display written to a file instead of a
 * terminal: every finished cell leaves one permanent line with its state,
 * notes go above, and the counters follow the cells. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "cli/progress.h"

TEST_MAIN();

TEST(lines_for_finished_cells) {
        char path[] = "/tmp/kbench-test-progress-XXXXXX";
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);
        struct progress p;
        char text[4096] = "";
        FILE *f;
        size_t n;

        ASSERT_TRUE(fd >= 0 && saved >= 0);
        fflush(stderr);
        ASSERT_TRUE(dup2(fd, STDERR_FILENO) >= 0);
        progress_init(&p, 2);
        progress_note(&p, "run %d: %s", 7, "1 kernel(s)");
        progress_begin(&p, 0, "c000 6.1.0-57-amd64 dd #1");
        progress_stage(&p, "boot");
        progress_stage(&p, "run");
        progress_end(&p, "ok", "");
        progress_begin(&p, 1, "c001 6.1.0-57-amd64 dd #2");
        progress_end(&p, "hang", "no ttyS1 record for 60 s during the workload");
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        ASSERT_EQ(p.finished, 2);
        ASSERT_EQ(p.tty, 0);
        f = fopen(path, "r");
        ASSERT_TRUE(f != NULL);
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        fclose(f);
        unlink(path);
        close(fd);
        ASSERT_TRUE(strstr(text, "run 7: 1 kernel(s)\n") != NULL);
        ASSERT_TRUE(strstr(text, "[1/2] c000 6.1.0-57-amd64 dd #1: ok") != NULL);
        ASSERT_TRUE(strstr(text, "[2/2] c001 6.1.0-57-amd64 dd #2: hang") != NULL);
        ASSERT_TRUE(strstr(text, "no ttyS1 record for 60 s") != NULL);
        /* Not a terminal: no carriage returns, no escape sequences. */
        ASSERT_TRUE(strchr(text, '\r') == NULL && strchr(text, '\033') == NULL);
}
