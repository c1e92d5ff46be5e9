/* test-treepatch.c: kernels/treepatch on a small tree with real patch(1):
 * one patch set after another in the same tree, each undoing the last
 * (a file a patch created goes, a file it changed comes back byte for
 * byte), the pristine tree for no patches, a build killed while patching
 * undone by the next, a patch that fails to apply, and a patch whose path
 * leaves the tree refused before anything changes. */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test-scratch.h"
#include "common/test.h"
#include "kernels/treepatch.h"

TEST_MAIN();

static const char *READ_WRITE = "int write(void)\n{\n\treturn 0;\n}\n";
static const char *BLOCK = "int submit(void)\n{\n\treturn 1;\n}\n";

static int run(char **argv, const char *cwd, const char *what, void *userdata, struct kb_error *err) {
        int status;
        g_autofree char *out = NULL, *errs = NULL;

        (*(int *)userdata)++;
        if (!g_spawn_sync(cwd, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &errs, &status, NULL))
                return error_setf(err, -EIO, "%s: cannot run", what);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return error_setf(err, -EIO, "%s failed: %s", what, out);
        return 0;
}

static void put(const char *dir, const char *rel, const char *text) {
        g_autofree char *path = g_build_filename(dir, rel, NULL), *parent = g_path_get_dirname(path);

        g_mkdir_with_parents(parent, 0755);
        ASSERT_TRUE(g_file_set_contents(path, text, -1, NULL));
}

/* dir/rel's text, or NULL when there is no such file (g_free). */
static char *get(const char *dir, const char *rel) {
        g_autofree char *path = g_build_filename(dir, rel, NULL);
        char *text = NULL;

        return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

static void is(const char *dir, const char *rel, const char *want) {
        g_autofree char *text = get(dir, rel);

        ASSERT_STREQ(text, want);
}

static void absent(const char *dir, const char *rel) {
        g_autofree char *text = get(dir, rel);

        ASSERT_TRUE(text == NULL);
}

static size_t count(const char *dir, const char *rel, const char *needle) {
        g_autofree char *text = get(dir, rel);

        return text ? test_occurrences(text, needle) : 0;
}

/* A tree like a kernel's, made fresh for each case. */
static char *tree(const char *name) {
        char *dir;

        test_scratch("treepatch-XXXXXX");
        dir = test_scratch_path(name);

        put(dir, "fs/read_write.c", READ_WRITE);
        put(dir, "block/blk-core.c", BLOCK);
        return dir;
}

/* fs/read_write.c sleeps; a new file appears. */
static const char *SLEEP_PATCH =
        "--- a/fs/read_write.c\n+++ b/fs/read_write.c\n@@ -1,4 +1,5 @@\n int write(void)\n {\n"
        "+\tsleep();\n \treturn 0;\n }\n"
        "--- /dev/null\n+++ b/fs/plant.h\n@@ -0,0 +1 @@\n+#define PLANT 1\n";
/* block/blk-core.c waits. */
static const char *DELAY_PATCH =
        "--- a/block/blk-core.c\n+++ b/block/blk-core.c\n@@ -1,4 +1,5 @@\n int submit(void)\n {\n"
        "+\tudelay(150);\n \treturn 1;\n }\n";

static char *patch_file(const char *name, const char *text) {
        char *path = test_scratch_path(name);

        ASSERT_TRUE(g_file_set_contents(path, text, -1, NULL));
        return path;
}

static int apply(const char *dir, const char *patch, int *runs, struct kb_error *err) {
        char *patches[] = { (char *)patch, NULL };

        return treepatch_apply(dir, patch ? patches : NULL, run, runs, err);
}

TEST(one_patch_set_after_another) {
        g_autofree char *dir = tree("sets"), *p1 = patch_file("sleep.patch", SLEEP_PATCH),
                        *p2 = patch_file("delay.patch", DELAY_PATCH);
        struct kb_error err = { { 0 } };
        int runs = 0;

        ASSERT_EQ(apply(dir, p1, &runs, &err), 0);
        ASSERT_EQ(runs, 1);
        ASSERT_EQ(count(dir, "fs/read_write.c", "sleep();"), 1);
        is(dir, "fs/plant.h", "#define PLANT 1\n");
        /* The next set: the first undone, whole. */
        ASSERT_EQ(apply(dir, p2, &runs, &err), 0);
        is(dir, "fs/read_write.c", READ_WRITE);
        absent(dir, "fs/plant.h");
        ASSERT_EQ(count(dir, "block/blk-core.c", "udelay(150);"), 1);
        /* No patches: the pristine tree, and no patch run. */
        ASSERT_EQ(apply(dir, NULL, &runs, &err), 0);
        ASSERT_EQ(runs, 2);
        is(dir, "fs/read_write.c", READ_WRITE);
        is(dir, "block/blk-core.c", BLOCK);
        /* The same set twice in a row applies again (it was undone first). */
        ASSERT_EQ(apply(dir, p1, &runs, &err), 0);
        ASSERT_EQ(apply(dir, p1, &runs, &err), 0);
        ASSERT_EQ(count(dir, "fs/read_write.c", "sleep();"), 1);
}

/* Killed while patching: the manifest named the files and their pristine
 * copies were kept before the patch ran, so whatever half-patched state
 * the tree was left in, the next build undoes it. */
TEST(killed_half_way_is_undone_by_the_next) {
        g_autofree char *dir = tree("killed"), *p1 = patch_file("sleep2.patch", SLEEP_PATCH);
        struct kb_error err = { { 0 } };
        int runs = 0;

        ASSERT_EQ(apply(dir, p1, &runs, &err), 0);
        put(dir, "fs/read_write.c", "int write(void)\n{\n\tsle"); /* cut short */
        ASSERT_EQ(treepatch_restore(dir, &err), 0);
        is(dir, "fs/read_write.c", READ_WRITE);
        absent(dir, "fs/plant.h");
        /* A restore is idempotent: killed during one, the next finishes it. */
        ASSERT_EQ(treepatch_restore(dir, &err), 0);
        is(dir, "fs/read_write.c", READ_WRITE);
}

TEST(a_patch_that_does_not_apply) {
        g_autofree char *dir = tree("fails"), *good = patch_file("good.patch", SLEEP_PATCH),
                        *bad = patch_file("bad.patch", "--- a/fs/read_write.c\n+++ b/fs/read_write.c\n"
                                                       "@@ -1,6 +1,7 @@\n zzz1\n zzz2\n zzz3\n+x\n zzz4\n"
                                                       " zzz5\n zzz6\n");
        char *both[] = { good, bad, NULL };
        struct kb_error err = { { 0 } };
        int runs = 0;

        ASSERT_TRUE(treepatch_apply(dir, both, run, &runs, &err) < 0);
        ASSERT_TRUE(strstr(err.msg, "bad.patch"));
        /* The next build (here: none) starts from the pristine tree. */
        ASSERT_EQ(apply(dir, NULL, &runs, &err), 0);
        is(dir, "fs/read_write.c", READ_WRITE);
        absent(dir, "fs/plant.h");
}

TEST(a_path_that_leaves_the_tree) {
        g_autofree char *dir = tree("escape"),
                        *p = patch_file("escape.patch", "--- a/../outside.c\n+++ b/../outside.c\n@@ -0,0 +1 @@\n+x\n");
        struct kb_error err = { { 0 } };
        int runs = 0;

        ASSERT_TRUE(apply(dir, p, &runs, &err) < 0);
        ASSERT_TRUE(strstr(err.msg, "leaves the tree"));
        ASSERT_EQ(runs, 0);
        is(dir, "fs/read_write.c", READ_WRITE);
        /* What follows a NUL byte would go unchecked: refused. */
        {
                g_autofree char *nul = test_scratch_path("nul.patch");

                ASSERT_TRUE(g_file_set_contents(nul, "--- a/x.c\0\n+++ b/../../outside.c\n", 34, NULL));
                ASSERT_TRUE(apply(dir, nul, &runs, &err) < 0);
                ASSERT_TRUE(strstr(err.msg, "NUL byte"));
                ASSERT_EQ(runs, 0);
        }
}
