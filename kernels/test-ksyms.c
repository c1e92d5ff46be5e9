/* Unit tests for kernels/ksyms.c: the text form a guest sends and the
 * store keeps, a System.map (Debian's placeholder refused), a boot's
 * bases, and putting an address in its function. */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "kernels/ksyms.h"

TEST_MAIN();

static void add(struct ksyms *ks, const char *line) {
        ASSERT_EQ(ksyms_add_line(ks, line, strlen(line)), 0);
}

static void boot(struct ksyms_boot *b, const char *payload) {
        ASSERT_EQ(ksyms_boot_record(b, payload, strlen(payload)), 0);
}

static void expect(const struct ksyms *ks, const struct ksyms_boot *b, uint64_t pc, const char *want) {
        char buf[KSYMS_RESOLVED_MAX + 1];

        ksyms_lookup(ks, b, pc, buf, sizeof(buf));
        ASSERT_STREQ(buf, want);
}

/* The kernel's table as a guest lists it: a name per address (the one
 * with the fewest leading underscores), modules apart, addresses from
 * this boot's bases. */
static struct ksyms *table(void) {
        struct ksyms *ks = ksyms_new("kallsyms");

        add(ks, "core 0 _text 0 startup_64 0 _stext 100 vfs_read 180 vfs_write 300 ksys_write");
        add(ks, "core 800 __indirect_thunk_start 800 __x86_indirect_thunk_rax");
        add(ks, "core 1000 _etext");
        add(ks, "mod ext4 8192 40 ext4_file_write_iter 10 ext4_map_blocks");
        ksyms_finish(ks);
        return ks;
}

TEST(lookup_puts_an_address_in_its_function) {
        struct ksyms *ks = table();
        struct ksyms_boot b = { 0 };

        boot(&b, "text ffffffff9a000000");
        boot(&b, "module ext4 ffffffffc0400000 8192");
        boot(&b, "module jbd2 ffffffffc0500000 4096");
        ASSERT_EQ(ksyms_count(ks), 8);
        expect(ks, &b, 0xffffffff9a000000, "startup_64");
        expect(ks, &b, 0xffffffff9a0001a3, "vfs_write");
        expect(ks, &b, 0xffffffff9a000180, "vfs_write");
        expect(ks, &b, 0xffffffff9a00017f, "vfs_read");
        expect(ks, &b, 0xffffffff9a0007ff, "ksys_write");
        expect(ks, &b, 0xffffffff9a000fff, "__x86_indirect_thunk_rax");
        /* Past the kernel's text, or before it: no function of the table. */
        expect(ks, &b, 0xffffffff9a001000, KSYMS_UNKNOWN);
        expect(ks, &b, 0xffffffff99ffffff, KSYMS_UNKNOWN);
        expect(ks, &b, 0xffffffffc0400012, "ext4_map_blocks [ext4]");
        expect(ks, &b, 0xffffffffc0401fff, "ext4_file_write_iter [ext4]");
        expect(ks, &b, 0xffffffffc0400004, "[ext4]");
        expect(ks, &b, 0xffffffffc0500010, "[jbd2]");
        expect(ks, &b, 0xffffffffc0402000, KSYMS_UNKNOWN);
        ASSERT_EQ(ksyms_covers(ks, &b), 0);            /* jbd2 is not in it */
        b.n_mods = 1;
        ASSERT_EQ(ksyms_covers(ks, &b), 1);
        ksyms_boot_clear(&b);
        /* A boot whose _text is not known resolves nothing of the kernel. */
        boot(&b, "none");
        ASSERT_EQ(b.no_kallsyms, 1);
        expect(ks, &b, 0xffffffff9a000180, KSYMS_UNKNOWN);
        ksyms_boot_clear(&b);
        ksyms_free(ks);
}

TEST(bad_lines_are_refused) {
        static const char *const bad[] = {
                "", "cor 0 x", "core 0", "core zz vfs_write", "core 12345678901234567 x", "core 0 a\tb",
                "mod ext4 0 0 x", "mod ext4 10 10 x", "mod ext/4 100 0 x", "mod ext4 100", "mod ext4 -1 0 x",
                "core 0 x ", "core  0 x",
        };
        struct ksyms *ks = ksyms_new("kallsyms");

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
                ASSERT_EQ(ksyms_add_line(ks, bad[i], strlen(bad[i])), -EBADMSG);
        ksyms_free(ks);
        /* A module seen at another size than before is another module. */
        ks = ksyms_new("kallsyms");
        add(ks, "mod ext4 100 0 a");
        ASSERT_EQ(ksyms_add_line(ks, "mod ext4 200 0 b", 16), -EBADMSG);
        ksyms_free(ks);
}

TEST(boot_records) {
        static const char *const bad[] = {
                "", "text", "text xyz", "text 1 2", "module", "module ext4 c0000000", "module ext4 zz 10",
                "module ext4 c0000000 0", "module ext 4 c0000000 10", "none x",
                "module ext4 ffffffffffffff00 4096",
        };
        struct ksyms_boot b = { 0 };

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
                ASSERT_EQ(ksyms_boot_record(&b, bad[i], strlen(bad[i])), -EBADMSG);
        boot(&b, "text ffffffff81000000");
        ASSERT_TRUE(b.has_text && b.text == 0xffffffff81000000);
        for (int i = 0; i < KSYMS_BOOT_MODULES_MAX; i++)
                boot(&b, "module m ffffffffc0000000 10");
        ASSERT_EQ(ksyms_boot_record(&b, "module m ffffffffc0000000 10", 28), -E2BIG);
        ksyms_boot_clear(&b);
}

/* Debian's package ships a one-line placeholder; a build's map is a table
 * relative to its _text. */
TEST(system_map) {
        static const char placeholder[] = "ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg "
                                          "package\n";
        static const char map[] = "0000000000000000 D __per_cpu_start\n"
                                  "ffffffff81000000 T _text\n"
                                  "ffffffff81000000 T startup_64\n"
                                  "ffffffff81000200 t vfs_write\n"
                                  "ffffffff81000300 W weak_fn\n"
                                  "ffffffff81002000 D some_data\n";
        struct kb_error err = { { 0 } };
        struct ksyms_boot b = { .has_text = 1, .text = 0xffffffff81000000 };
        struct ksyms *ks = NULL;

        ASSERT_EQ(ksyms_from_map(placeholder, strlen(placeholder), &ks, &err), -ENODATA);
        ASSERT_EQ(ksyms_from_map("", 0, &ks, &err), -ENODATA);
        ASSERT_EQ(ksyms_from_map("ffffffff81000000 T _text\nnot a line\n", 36, &ks, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "line 2") != NULL);
        ASSERT_EQ(ksyms_from_map(map, strlen(map), &ks, &err), 0);
        ASSERT_STREQ(ksyms_source(ks), "System.map");
        ASSERT_EQ(ksyms_link_text(ks), 0xffffffff81000000);
        ASSERT_EQ(ksyms_count(ks), 3);
        expect(ks, &b, 0xffffffff81000210, "vfs_write");
        expect(ks, &b, 0xffffffff81002010, "weak_fn");      /* data is no function: the text before it */
        ksyms_free(ks);
}

static int collect(const char *name, void *userdata) {
        g_ptr_array_add(userdata, g_strdup(name));
        return 0;
}

/* What the store keeps reads back the same, section by section. */
TEST(save_and_load) {
        char dir[] = "/tmp/kbench-test-ksyms-XXXXXX";
        g_autofree char *path = NULL, *text = NULL;
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        struct ksyms *ks = table(), *back = NULL;
        struct kb_error err = { { 0 } };
        struct ksyms_boot b = { 0 };

        ASSERT_TRUE(mkdtemp(dir));
        path = g_build_filename(dir, "ksyms", NULL);
        ASSERT_EQ(ksyms_save(ks, path, &err), 0);
        ASSERT_EQ(ksyms_load(path, &back, &err), 0);
        ASSERT_EQ(ksyms_count(back), ksyms_count(ks));
        boot(&b, "text ffffffff81000000");
        boot(&b, "module ext4 ffffffffc0400000 8192");
        expect(back, &b, 0xffffffffc0400041, "ext4_file_write_iter [ext4]");
        expect(back, &b, 0xffffffff81000301, "ksys_write");
        ASSERT_EQ(ksyms_each_name(back, collect, names), 0);
        ASSERT_EQ(names->len, 8);
        ASSERT_STREQ(names->pdata[7], "ext4_file_write_iter [ext4]");
        ksyms_boot_clear(&b);
        ksyms_free(back);
        back = NULL;
        ASSERT_TRUE(g_file_set_contents(path, "core 0 x\n", -1, NULL));
        ASSERT_EQ(ksyms_load(path, &back, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "not a kbench symbol table") != NULL);
        ASSERT_TRUE(g_file_set_contents(path, KSYMS_FILE_HEADER "\ncore 0 x\ncore q y\n", -1, NULL));
        ASSERT_EQ(ksyms_load(path, &back, &err), -EBADMSG);
        ASSERT_TRUE(strstr(err.msg, "line 3") != NULL);
        ASSERT_EQ(unlink(path), 0);
        ASSERT_EQ(ksyms_load(path, &back, &err), -ENOENT);
        ASSERT_EQ(rmdir(dir), 0);
        ksyms_free(ks);
}
