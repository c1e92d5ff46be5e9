/* test-build.c: the source identity of kernels/build.c (kbuild_source_id),
 * which names a build's cache entry: a git tree is its commit, plus a
 * digest of what is not committed. Anything a build would compile must
 * move it, an untracked file git does not ignore included (git diff does
 * not show those), and nothing else may: an ignored file, or a change
 * reverted, gives the committed id back. A real git repository in the
 * scratch directory; no kernel is built. */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "common/test-scratch.h"
#include "common/test.h"
#include "kernels/build.h"

TEST_MAIN();

static void git(const char *dir, const char *cmd) {
        g_autofree char *line = g_strdup_printf("git -C '%s' %s", dir, cmd);
        int status;

        ASSERT_TRUE(g_spawn_command_line_sync(line, NULL, NULL, &status, NULL));
        ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
}

static void put(const char *dir, const char *rel, const char *text) {
        g_autofree char *path = g_build_filename(dir, rel, NULL), *parent = g_path_get_dirname(path);

        g_mkdir_with_parents(parent, 0755);
        ASSERT_TRUE(g_file_set_contents(path, text, -1, NULL));
}

static char *source_id(const char *dir, char **ret_commit) {
        char *id = NULL, *commit = NULL;
        struct kb_error err = { { 0 } };

        if (kbuild_source_id(dir, &id, &commit, &err) < 0)
                TEST_FAIL("%s", err.msg);
        if (ret_commit)
                *ret_commit = commit;
        else
                g_free(commit);
        return id;
}

TEST(git_source_id_follows_what_would_be_built) {
        g_autofree char *dir = NULL, *commit = NULL, *clean = NULL, *untracked = NULL, *edited = NULL,
                        *ignored = NULL, *tracked = NULL, *back = NULL, *link = NULL;

        test_scratch("kbuild-XXXXXX");
        dir = test_scratch_path("linux");
        put(dir, "Kconfig", "mainmenu \"test\"\n");
        put(dir, "block/blk-core.c", "int x;\n");
        put(dir, ".gitignore", "*.o\n");
        git(dir, "init -q");
        git(dir, "-c user.name=k -c user.email=k@localhost add -A");
        git(dir, "-c user.name=k -c user.email=k@localhost commit -q -m base");

        clean = source_id(dir, &commit);
        ASSERT_EQ(strlen(commit), 40);
        ASSERT_STREQ(clean, commit);

        /* A new source file: built, so a source of its own. */
        put(dir, "block/new.c", "int y;\n");
        untracked = source_id(dir, NULL);
        ASSERT_TRUE(g_str_has_prefix(untracked, commit) && untracked[40] == '+');
        /* Its content, not only its name. */
        put(dir, "block/new.c", "int z;\n");
        edited = source_id(dir, NULL);
        ASSERT_TRUE(g_str_has_prefix(edited, commit) && strcmp(edited, untracked) != 0);
        /* What git ignores is not a source. */
        put(dir, "block/blk-core.o", "object\n");
        ignored = source_id(dir, NULL);
        ASSERT_STREQ(ignored, edited);
        /* A symbolic link is its target. */
        {
                g_autofree char *at = g_build_filename(dir, "block/link.c", NULL);

                ASSERT_EQ(symlink("new.c", at), 0);
                link = source_id(dir, NULL);
                ASSERT_TRUE(strcmp(link, edited) != 0);
                ASSERT_EQ(unlink(at), 0);
        }
        /* A change to a tracked file too, and both together differ from each alone. */
        {
                g_autofree char *path = g_build_filename(dir, "block/new.c", NULL);

                ASSERT_EQ(unlink(path), 0);
        }
        put(dir, "block/blk-core.c", "int x2;\n");
        tracked = source_id(dir, NULL);
        ASSERT_TRUE(g_str_has_prefix(tracked, commit) && strcmp(tracked, untracked) != 0 &&
                    strcmp(tracked, edited) != 0);
        /* Everything back as committed: the commit alone. */
        put(dir, "block/blk-core.c", "int x;\n");
        back = source_id(dir, NULL);
        ASSERT_STREQ(back, clean);
}
