/* Unit tests for cell/cellprof.c: a cell's profile from the plugin's file
 * (written as plugin/kbprof.c writes it), the guest's records (as
 * guest/ksymlist.c sends them) and the kernel's files in the store: which
 * table resolves it, when the guest is asked for its own, and why a cell
 * has no profile. */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "cell/cellprof.h"
#include "common/test.h"
#include "host/kprof.h"

TEST_MAIN();

struct fixture {
        char dir[64];
        char *prof;                        /* the plugin's file */
        struct kstore_kernel k;
        struct insncount_marks marks;
        GPtrArray *notes;
};

/* Four phase marks, write and read counted (write is named twice: its
 * first span only), and the plugin's segments of them: 1 write, 2 read,
 * 3 the second write, which no metric counts. */
static const struct kprof_entry entries[] = {
        { 0, 1 }, { 0xffffffff9a367160, 800 }, { 0xffffffff9a367170, 40 }, { 0xffffffffc0400041, 60 },
        { 0xffffffffc0310000, 5 },
        { 0, 2 }, { 0xffffffff9a100010, 300 }, { 0xffffffff9b000000, 7 },
        { 0, 3 }, { 0xffffffff9a100010, 1 },
};

static void fixture_init(struct fixture *f) {
        static const char *const phases[] = { "write", "read", "write", "end" };
        struct kprof_header h = { .version = KPROF_VERSION, .n_vcpus = 1, .capacity = KPROF_CAPACITY,
                                  .used = G_N_ELEMENTS(entries), .n_marks = 4 };
        g_autoptr(GByteArray) b = g_byte_array_new();
        struct kb_error err = { { 0 } };
        uint64_t at = 1000;

        *f = (struct fixture){ .notes = g_ptr_array_new_with_free_func(g_free) };
        snprintf(f->dir, sizeof(f->dir), "/tmp/kbench-test-cellprof-XXXXXX");
        ASSERT_TRUE(mkdtemp(f->dir));
        f->k.dir = f->dir;
        f->prof = g_build_filename(f->dir, "kprof.bin", NULL);
        ASSERT_EQ(kprof_file_create(f->prof, NULL, &err), 0);
        memcpy(h.magic, KPROF_MAGIC, sizeof(h.magic));
        g_byte_array_append(b, (const guint8 *)&h, sizeof(h));
        g_byte_array_append(b, (const guint8 *)entries, sizeof(entries));
        {
                FILE *fp = fopen(f->prof, "r+");

                ASSERT_TRUE(fp && fwrite(b->data, 1, b->len, fp) == b->len && fclose(fp) == 0);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(phases); i++) {
                strcpy(f->marks.v[i].phase, phases[i]);
                f->marks.v[i].at.insns[INSNCOUNT_KERNEL] = at;
                at += i == 0 ? 905 : i == 1 ? 307 : 1;
        }
        f->marks.n = G_N_ELEMENTS(phases);
}

static void fixture_done(struct fixture *f) {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", f->dir);

        ASSERT_EQ(system(cmd), 0);
        g_free(f->prof);
        g_ptr_array_free(f->notes, TRUE);
}

static void rec(struct cellprof *p, void (*fn)(struct cellprof *, const char *, size_t), const char *payload) {
        fn(p, payload, strlen(payload));
}

/* The guest's bases of one boot: KASLR moved the kernel, modules loaded. */
static void bases(struct cellprof *p) {
        rec(p, cellprof_on_base, "text ffffffff9a000000");
        rec(p, cellprof_on_base, "module ext4 ffffffffc0400000 983040");
        rec(p, cellprof_on_base, "module jbd2 ffffffffc0300000 167936");
}

static void sent_table(struct cellprof *p) {
        rec(p, cellprof_on_sym, "core 0 startup_64 100000 vfs_read 367160 vfs_write");
        rec(p, cellprof_on_sym, "mod ext4 983040 40 ext4_file_write_iter");
        rec(p, cellprof_on_sym, "mod jbd2 167936 20000 jbd2_journal_start");
        rec(p, cellprof_on_end, "5");
}

static uint64_t row(const struct cellprof_result *r, const char *phase, const char *symbol) {
        for (guint i = 0; i < r->rows->len; i++) {
                const struct cell_profile_row *x = &g_array_index(r->rows, struct cell_profile_row, i);

                if (strcmp(x->phase, phase) == 0 && strcmp(x->symbol, symbol) == 0)
                        return x->insns;
        }
        return 0;
}

static int noted(const struct fixture *f, const char *text) {
        for (guint i = 0; i < f->notes->len; i++)
                if (strstr(f->notes->pdata[i], text))
                        return 1;
        return 0;
}

/* The first cell of a kernel: the store has no table, so the guest is
 * asked for its own after the job; the rows are resolved with it and it
 * is handed on for the store. A phase's rows sum to its segment. */
TEST(the_guest_sends_its_table) {
        struct fixture f;
        struct cellprof p;
        struct cellprof_result r;

        fixture_init(&f);
        cellprof_init(&p, f.prof, &f.k);
        bases(&p);
        ASSERT_EQ(cellprof_ask(&p), 1);
        sent_table(&p);
        cellprof_conclude(&p, &f.marks, "console=ttyS0", 0, f.notes, &r);
        ASSERT_EQ(r.ksyms_fresh, 1);
        ASSERT_EQ(row(&r, "write", "vfs_write"), 840);
        ASSERT_EQ(row(&r, "write", "ext4_file_write_iter [ext4]"), 60);
        ASSERT_EQ(row(&r, "write", "[jbd2]"), 5);
        ASSERT_EQ(row(&r, "read", "vfs_read"), 300);
        ASSERT_EQ(row(&r, "read", KSYMS_UNKNOWN), 7);
        ASSERT_EQ(r.rows->len, 5);
        ASSERT_TRUE(noted(&f, "profile: 2 phase(s), 5 rows, symbols from kallsyms"));
        ASSERT_TRUE(!noted(&f, "differ"));
        cellprof_result_clear(&r);
        cellprof_clear(&p);
        fixture_done(&f);
}

/* The store keeps a table of every module this boot loaded: no cell asks
 * again. One that lacks a module of this boot is asked again; one that
 * did not arrive whole is not used, and the store's serves. */
TEST(the_store_keeps_the_table) {
        struct fixture f;
        struct cellprof p;
        struct cellprof_result r;
        struct kb_error err = { { 0 } };
        struct ksyms *ks = ksyms_new("kallsyms");
        g_autofree char *file = NULL;

        fixture_init(&f);
        file = g_build_filename(f.dir, CELLPROF_KSYMS_FILE, NULL);
        ASSERT_EQ(ksyms_add_line(ks, "core 367160 vfs_write", 21), 0);
        ASSERT_EQ(ksyms_add_line(ks, "mod ext4 983040 40 ext4_file_write_iter", 39), 0);
        ksyms_finish(ks);
        ASSERT_EQ(ksyms_save(ks, file, &err), 0);
        cellprof_init(&p, f.prof, &f.k);
        bases(&p);
        ASSERT_EQ(cellprof_ask(&p), 1);            /* jbd2 is not in it */
        rec(&p, cellprof_on_sym, "core 0 startup_64");
        rec(&p, cellprof_on_end, "9");
        cellprof_conclude(&p, &f.marks, "", 0, f.notes, &r);
        ASSERT_EQ(r.ksyms_fresh, 0);
        ASSERT_TRUE(noted(&f, "did not arrive whole (a count that differs)"));
        ASSERT_TRUE(noted(&f, "lacks a module"));
        ASSERT_EQ(row(&r, "write", "vfs_write"), 840);
        cellprof_result_clear(&r);
        cellprof_clear(&p);

        ASSERT_EQ(ksyms_add_line(ks, "mod jbd2 167936 0 jbd2_start", 28), 0);
        ksyms_finish(ks);
        ASSERT_EQ(ksyms_save(ks, file, &err), 0);
        cellprof_init(&p, f.prof, &f.k);
        bases(&p);
        ASSERT_EQ(cellprof_ask(&p), 0);
        cellprof_conclude(&p, &f.marks, "", 0, f.notes, &r);
        ASSERT_EQ(row(&r, "write", "jbd2_start [jbd2]"), 5);
        cellprof_result_clear(&r);
        cellprof_clear(&p);
        ksyms_free(ks);
        fixture_done(&f);
}

/* A kernel without kallsyms (the tiny configuration): its System.map,
 * when the kernel cannot have been moved from the map's addresses; and
 * no profile with Debian's placeholder map. */
TEST(a_kernel_without_kallsyms) {
        static const char map[] = "ffffffff9a000000 T _text\nffffffff9a367160 T vfs_write\nffffffff9a100000 t vfs_read\n";
        struct fixture f;
        struct cellprof p;
        struct cellprof_result r;
        g_autofree char *map_path = NULL, *config = NULL;

        fixture_init(&f);
        map_path = g_build_filename(f.dir, "System.map", NULL);
        config = g_build_filename(f.dir, "config", NULL);
        ASSERT_TRUE(g_file_set_contents(map_path, map, -1, NULL));
        ASSERT_TRUE(g_file_set_contents(config, "CONFIG_64BIT=y\nCONFIG_RANDOMIZE_BASE=y\n", -1, NULL));
        f.k.system_map_path = map_path;
        f.k.config_path = config;
        for (int pass = 0; pass < 4; pass++) {
                const char *cmdline = pass == 2 ? "console=ttyS0 nokaslr" : "console=ttyS0";

                cellprof_init(&p, f.prof, &f.k);
                rec(&p, cellprof_on_base, "none");
                ASSERT_EQ(cellprof_ask(&p), 0);
                if (pass == 3)
                        ASSERT_TRUE(g_file_set_contents(config, "CONFIG_64BIT=y\n", -1, NULL));
                g_ptr_array_set_size(f.notes, 0);
                cellprof_conclude(&p, &f.marks, cmdline, pass == 1, f.notes, &r);
                /* Booted from its bzImage with CONFIG_RANDOMIZE_BASE: it may have moved. */
                if (pass == 0)
                        ASSERT_TRUE(noted(&f, "may have been relocated (KASLR)") && r.rows->len == 0);
                else
                        ASSERT_EQ(row(&r, "write", "vfs_write"), 840);
                ASSERT_EQ(r.ksyms_fresh, 0);
                cellprof_result_clear(&r);
                cellprof_clear(&p);
        }
        ASSERT_TRUE(g_file_set_contents(map_path, "ffffffffffffffff B The real System.map is in the "
                                        "linux-image-<version>-dbg package\n", -1, NULL));
        cellprof_init(&p, f.prof, &f.k);
        rec(&p, cellprof_on_base, "none");
        g_ptr_array_set_size(f.notes, 0);
        cellprof_conclude(&p, &f.marks, "", 1, f.notes, &r);
        ASSERT_TRUE(noted(&f, "no profile: the kernel lists no symbols") && r.rows->len == 0);
        cellprof_result_clear(&r);
        cellprof_clear(&p);
        fixture_done(&f);
}

/* What the guest says that is not what it sends, and a plugin that never
 * wrote its file: no profile, and the cell says why. */
TEST(no_profile_and_why) {
        struct fixture f;
        struct cellprof p;
        struct cellprof_result r;
        struct kb_error err = { { 0 } };

        fixture_init(&f);
        cellprof_init(&p, f.prof, &f.k);
        rec(&p, cellprof_on_base, "text ffffffff9a000000 junk");
        ASSERT_EQ(cellprof_ask(&p), 0);
        cellprof_conclude(&p, &f.marks, "", 0, f.notes, &r);
        ASSERT_TRUE(noted(&f, "kbase records were not what it sends") && r.rows->len == 0);
        cellprof_result_clear(&r);
        cellprof_clear(&p);

        ASSERT_EQ(kprof_file_create(f.prof, NULL, &err), 0);
        cellprof_init(&p, f.prof, &f.k);
        bases(&p);
        g_ptr_array_set_size(f.notes, 0);
        cellprof_conclude(&p, &f.marks, "", 0, f.notes, &r);
        ASSERT_TRUE(noted(&f, "never wrote it") && r.rows->len == 0);
        cellprof_result_clear(&r);
        cellprof_clear(&p);

        /* No file: a cell without the plugin (KVM) says nothing. */
        cellprof_init(&p, NULL, &f.k);
        bases(&p);
        ASSERT_EQ(cellprof_ask(&p), 0);
        g_ptr_array_set_size(f.notes, 0);
        cellprof_conclude(&p, &f.marks, "", 0, f.notes, &r);
        ASSERT_EQ(f.notes->len, 0);
        ASSERT_EQ(r.rows->len, 0);
        cellprof_result_clear(&r);
        cellprof_clear(&p);
        fixture_done(&f);
}
