/* Unit tests for the store lock and the watchdog's cleaning: a second
 * holder is told who holds the store; cleaning kills only live QEMU
 * processes named in pid files and removes only the prefix's scratch. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test.h"
#include "store/lock.h"
#include "store/watchdog.h"

TEST_MAIN();

TEST(second_holder_is_told_who) {
        g_autofree char *home = g_dir_make_tmp("kbench-test-lock-XXXXXX", NULL);
        g_autofree char *file = g_build_filename(home, "lock", NULL);
        g_autofree char *pid = g_strdup_printf("pid %d", (int)getpid());
        struct store_lock *a = NULL, *b = NULL;
        struct kb_error err = { { 0 } };

        ASSERT_EQ(lock_store(home, "run", &a, &err), 0);
        /* flock conflicts between open file descriptions, even in one process. */
        ASSERT_EQ(lock_store(home, "doctor", &b, &err), -EBUSY);
        ASSERT_TRUE(b == NULL);
        ASSERT_TRUE(strstr(err.msg, "in use by kbench run") != NULL);
        ASSERT_TRUE(strstr(err.msg, pid) != NULL);
        ASSERT_TRUE(strstr(err.msg, home) != NULL);
        a = lock_release(a);
        ASSERT_TRUE(a == NULL);
        ASSERT_EQ(lock_store(home, "doctor", &b, &err), 0);
        lock_release(b);
        ASSERT_EQ(g_unlink(file), 0);
        ASSERT_EQ(g_rmdir(home), 0);
}

TEST(garbage_in_the_lock_file_is_not_trusted) {
        g_autofree char *home = g_dir_make_tmp("kbench-test-lock-XXXXXX", NULL);
        g_autofree char *file = g_build_filename(home, "lock", NULL);
        struct store_lock *a = NULL, *b = NULL;
        struct kb_error err = { { 0 } };

        ASSERT_EQ(lock_store(home, "run", &a, &err), 0);
        {
                /* In place: the lock lives on this inode. */
                FILE *f = fopen(file, "r+");
                ASSERT_TRUE(f != NULL);
                ASSERT_TRUE(ftruncate(fileno(f), 0) == 0);
                fputs("%s%s%n 1e9 \x01\n", f);
                fclose(f);
        }
        ASSERT_EQ(lock_store(home, "run", &b, &err), -EBUSY);
        ASSERT_TRUE(strstr(err.msg, "another kbench (pid unknown)") != NULL);
        lock_release(a);
        g_unlink(file);
        g_rmdir(home);
}

/* A child whose argv[0] says QEMU: sleep, called qemu-system-fake. */
static pid_t fake_qemu(void) {
        pid_t pid = fork();

        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                execl("/bin/sleep", "qemu-system-fake", "30", (char *)NULL);
                _exit(127);
        }
        return pid;
}

/* A link planted as the lock file is not followed: its target keeps its
 * bytes. And a lock creates no store. */
TEST(lock_follows_no_link_and_creates_no_store) {
        g_autofree char *home = g_dir_make_tmp("kbench-test-lock-XXXXXX", NULL);
        g_autofree char *file = g_build_filename(home, "lock", NULL);
        g_autofree char *victim = g_build_filename(home, "victim", NULL);
        g_autofree char *nosuch = g_build_filename(home, "no", "such", NULL);
        g_autofree char *text = NULL;
        struct store_lock *a = NULL;
        struct kb_error err = { { 0 } };

        ASSERT_TRUE(g_file_set_contents(victim, "precious\n", -1, NULL));
        ASSERT_EQ(symlink(victim, file), 0);
        ASSERT_EQ(lock_store(home, "kernel", &a, &err), -ELOOP);
        ASSERT_TRUE(a == NULL);
        ASSERT_TRUE(strstr(err.msg, file) && strstr(err.msg, "symbolic link"));
        ASSERT_TRUE(g_file_get_contents(victim, &text, NULL, NULL));
        ASSERT_STREQ(text, "precious\n");
        ASSERT_EQ(lock_store(nosuch, "run", &a, &err), -ENOENT);
        ASSERT_TRUE(!g_file_test(nosuch, G_FILE_TEST_EXISTS));
        g_unlink(file);
        g_unlink(victim);
        g_rmdir(home);
}

TEST(clean_kills_qemu_only_and_removes_the_prefix) {
        g_autofree char *top = g_dir_make_tmp("kbench-test-wd-XXXXXX", NULL);
        g_autofree char *run = g_build_filename(top, "run", NULL);
        g_autofree char *scratch = g_build_filename(top, "scratch", NULL);
        g_autofree char *mine = g_build_filename(scratch, "kb7-r1-c000", NULL);
        g_autofree char *other = g_build_filename(scratch, "kb77-r1-c000", NULL);
        g_autofree char *disk = g_build_filename(mine, "disk.img", NULL);
        g_autofree char *qpid = g_build_filename(run, "kb7-r1-c000.pid", NULL);
        g_autofree char *selfpid = g_build_filename(run, "kb7-r1-c001.pid", NULL);
        g_autofree char *otherpid = g_build_filename(run, "kb77-r1-c000.pid", NULL);
        g_autofree char *text = NULL;
        pid_t q = fake_qemu(), q2 = fake_qemu();
        int removed = -1, status;

        ASSERT_EQ(g_mkdir_with_parents(run, 0755), 0);
        ASSERT_EQ(g_mkdir_with_parents(mine, 0755), 0);
        ASSERT_EQ(g_mkdir_with_parents(other, 0755), 0);
        ASSERT_TRUE(g_file_set_contents(disk, "x", 1, NULL));
        g_usleep(200 * 1000);      /* let the children exec */
        text = g_strdup_printf("%d\n", (int)q);
        ASSERT_TRUE(g_file_set_contents(qpid, text, -1, NULL));
        g_free(text);
        /* A pid file naming a process that is not QEMU (this test). */
        text = g_strdup_printf("%d\n", (int)getpid());
        ASSERT_TRUE(g_file_set_contents(selfpid, text, -1, NULL));
        g_free(text);
        /* Another kbench's QEMU. */
        text = g_strdup_printf("%d\n", (int)q2);
        ASSERT_TRUE(g_file_set_contents(otherpid, text, -1, NULL));

        ASSERT_EQ(watchdog_clean("kb7-", run, scratch, &removed), 1);
        ASSERT_EQ(removed, 1);
        ASSERT_EQ(waitpid(q, &status, 0), q);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        ASSERT_EQ(waitpid(q2, &status, WNOHANG), 0);      /* still running */
        ASSERT_TRUE(!g_file_test(mine, G_FILE_TEST_EXISTS));
        ASSERT_TRUE(g_file_test(other, G_FILE_TEST_IS_DIR));

        /* Prefix "" (reaping at the next start) takes everything. */
        ASSERT_EQ(watchdog_clean("", run, scratch, &removed), 1);
        ASSERT_EQ(removed, 1);
        ASSERT_EQ(waitpid(q2, &status, 0), q2);
        g_unlink(qpid);
        g_unlink(selfpid);
        g_unlink(otherpid);
        ASSERT_EQ(g_rmdir(run), 0);
        ASSERT_EQ(g_rmdir(scratch), 0);
        ASSERT_EQ(g_rmdir(top), 0);
}

TEST(watchdog_cleans_when_its_process_dies) {
        g_autofree char *top = g_dir_make_tmp("kbench-test-wd-XXXXXX", NULL);
        g_autofree char *run = g_build_filename(top, "run", NULL);
        g_autofree char *scratch = g_build_filename(top, "scratch", NULL);
        g_autofree char *mine = g_build_filename(scratch, "kb9-r1-c000", NULL);
        g_autofree char *qpid = g_build_filename(run, "kb9-r1-c000.pid", NULL);
        g_autofree char *text = NULL;
        pid_t q = fake_qemu(), kbench;
        int status;

        ASSERT_EQ(g_mkdir_with_parents(run, 0755), 0);
        ASSERT_EQ(g_mkdir_with_parents(mine, 0755), 0);
        g_usleep(200 * 1000);
        text = g_strdup_printf("%d\n", (int)q);
        ASSERT_TRUE(g_file_set_contents(qpid, text, -1, NULL));
        /* "kbench": starts its watchdog, runs a while, dies without cleaning. */
        kbench = fork();
        ASSERT_TRUE(kbench >= 0);
        if (kbench == 0) {
                struct kb_error err = { { 0 } };
                if (watchdog_start("kb9-", run, scratch, &err) < 0)
                        _exit(2);
                g_usleep(300 * 1000);
                /* Still there while "kbench" lives. */
                _exit(g_file_test(mine, G_FILE_TEST_IS_DIR) && kill(q, 0) == 0 ? 0 : 3);
        }
        ASSERT_EQ(waitpid(kbench, &status, 0), kbench);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ASSERT_EQ(waitpid(q, &status, 0), q);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        for (int i = 0; i < 100 && g_file_test(mine, G_FILE_TEST_EXISTS); i++)
                g_usleep(50 * 1000);
        ASSERT_TRUE(!g_file_test(mine, G_FILE_TEST_EXISTS));
        g_unlink(qpid);
        ASSERT_EQ(g_rmdir(run), 0);
        ASSERT_EQ(g_rmdir(scratch), 0);
        ASSERT_EQ(g_rmdir(top), 0);
}
