/* Unit tests for guest/ksymlist.c: what the agent sends of its kernel's
 * symbols, read from a /proc of fixtures in the kernel's own formats
 * (/proc/kallsyms lines as a 6.1 kernel prints them, per-CPU symbols
 * first, module symbols with a tab and [module]; /proc/modules). */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "guest/ksymlist.h"

TEST_MAIN();

static const char kallsyms[] =
        "0000000000000000 A fixed_percpu_data\n"
        "0000000000001000 A cpu_debug_store\n"
        "ffffffff9a000000 T startup_64\n"
        "ffffffff9a000000 T _stext\n"
        "ffffffff9a000000 T _text\n"
        "ffffffff9a367160 T vfs_write\n"
        "ffffffff9a367680 t ksys_write\n"
        "ffffffff9b000000 D some_data\n"
        "ffffffff9a400000 W weak_fn\n"
        "ffffffffc0400040 t ext4_file_write_iter\t[ext4]\n"
        "ffffffffc0400010 T ext4_map_blocks\t[ext4]\n"
        "ffffffffc0500010 T not_loaded_fn\t[gone]\n"
        "ffffffffc0400080 d ext4_data\t[ext4]\n";
static const char modules[] =
        "ext4 983040 1 - Live 0xffffffffc0400000\n"
        "jbd2 167936 1 ext4, Live 0xffffffffc0300000 (E)\n"
        "hidden 4096 0 - Live 0x0000000000000000\n";

struct sink {
        GPtrArray *types, *payloads;
};

static void emit(const char *type, const char *payload, size_t len, void *userdata) {
        struct sink *s = userdata;

        g_ptr_array_add(s->types, g_strdup(type));
        g_ptr_array_add(s->payloads, g_strndup(payload, len));
}

/* A /proc with the fixtures (kallsyms NULL: none). Returns its root. */
static char *proc_root(const char *syms) {
        char *root = g_strdup("/tmp/kbench-test-ksymlist-XXXXXX");
        g_autofree char *proc = NULL, *ks = NULL, *mods = NULL;

        ASSERT_TRUE(g_mkdtemp(root) != NULL);
        proc = g_build_filename(root, "proc", NULL);
        ASSERT_EQ(g_mkdir_with_parents(proc, 0755), 0);
        ks = g_build_filename(proc, "kallsyms", NULL);
        mods = g_build_filename(proc, "modules", NULL);
        if (syms)
                ASSERT_TRUE(g_file_set_contents(ks, syms, -1, NULL));
        ASSERT_TRUE(g_file_set_contents(mods, modules, -1, NULL));
        return root;
}

static void proc_done(char *root) {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", root);

        ASSERT_EQ(system(cmd), 0);
        g_free(root);
}

TEST(bases_of_the_boot) {
        char *root = proc_root(kallsyms);
        struct sink s = { g_ptr_array_new_with_free_func(g_free), g_ptr_array_new_with_free_func(g_free) };

        ksymlist_base(root, emit, &s);
        ASSERT_EQ(s.payloads->len, 3);
        ASSERT_STREQ(s.types->pdata[0], "kbase");
        ASSERT_STREQ(s.payloads->pdata[0], "text ffffffff9a000000");
        ASSERT_STREQ(s.payloads->pdata[1], "module ext4 ffffffffc0400000 983040");
        ASSERT_STREQ(s.payloads->pdata[2], "module jbd2 ffffffffc0300000 167936");
        g_ptr_array_set_size(s.types, 0);
        g_ptr_array_set_size(s.payloads, 0);
        proc_done(root);

        /* Without kallsyms (a tiny kernel), or with its addresses hidden. */
        root = proc_root(NULL);
        ksymlist_base(root, emit, &s);
        ASSERT_EQ(s.payloads->len, 1);
        ASSERT_STREQ(s.payloads->pdata[0], "none");
        proc_done(root);
        root = proc_root("0000000000000000 T _text\n0000000000000000 T vfs_write\n");
        ksymlist_base(root, emit, &s);
        ASSERT_STREQ(s.payloads->pdata[1], "none");
        proc_done(root);
        g_ptr_array_free(s.types, TRUE);
        g_ptr_array_free(s.payloads, TRUE);
}

/* Text symbols only, the kernel's from its _text, a loaded module's from
 * its base, in records no longer than asked, and the count at the end. */
TEST(the_whole_table) {
        char *root = proc_root(kallsyms);
        struct sink s = { g_ptr_array_new_with_free_func(g_free), g_ptr_array_new_with_free_func(g_free) };

        ksymlist_dump(root, 2048, emit, &s);
        ASSERT_EQ(s.payloads->len, 3);
        ASSERT_STREQ(s.types->pdata[0], "ksym");
        ASSERT_STREQ(s.payloads->pdata[0], "core 0 startup_64 0 _stext 0 _text 367160 vfs_write 367680 ksys_write "
                                           "400000 weak_fn");
        ASSERT_STREQ(s.payloads->pdata[1], "mod ext4 983040 40 ext4_file_write_iter 10 ext4_map_blocks");
        ASSERT_STREQ(s.types->pdata[2], "ksyms-end");
        ASSERT_STREQ(s.payloads->pdata[2], "8");
        g_ptr_array_set_size(s.types, 0);
        g_ptr_array_set_size(s.payloads, 0);

        /* Small records: each a whole line of its section. */
        ksymlist_dump(root, 40, emit, &s);
        ASSERT_EQ(s.payloads->len, 6);
        ASSERT_STREQ(s.payloads->pdata[0], "core 0 startup_64 0 _stext 0 _text");
        ASSERT_STREQ(s.payloads->pdata[1], "core 367160 vfs_write 367680 ksys_write");
        ASSERT_STREQ(s.payloads->pdata[2], "core 400000 weak_fn");
        ASSERT_STREQ(s.payloads->pdata[5], "8");
        for (guint i = 0; i + 1 < s.payloads->len; i++)
                ASSERT_TRUE(strlen(s.payloads->pdata[i]) <= 40);
        proc_done(root);
        g_ptr_array_set_size(s.types, 0);
        g_ptr_array_set_size(s.payloads, 0);

        root = proc_root(NULL);
        ksymlist_dump(root, 2048, emit, &s);
        ASSERT_EQ(s.payloads->len, 1);
        ASSERT_STREQ(s.payloads->pdata[0], "0");
        proc_done(root);
        g_ptr_array_free(s.types, TRUE);
        g_ptr_array_free(s.payloads, TRUE);
}
