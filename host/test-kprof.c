/* Unit tests for host/kprof.c: the profile plugin's file as QEMU leaves
 * it (common/kprof-format.h), read back into phases, and what is not such
 * a file refused. The files are written as plugin/kbprof.c writes them. */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "host/kprof.h"

TEST_MAIN();

/* A file's bytes: the header, then entries, as the plugin lays them. */
static GByteArray *file_of(const struct kprof_entry *e, size_t n, uint64_t marks) {
        struct kprof_header h = { .version = KPROF_VERSION, .n_vcpus = 1, .capacity = KPROF_CAPACITY, .used = n,
                                  .n_marks = marks };
        GByteArray *b = g_byte_array_new();

        memcpy(h.magic, KPROF_MAGIC, sizeof(h.magic));
        g_byte_array_append(b, (const guint8 *)&h, sizeof(h));
        g_byte_array_append(b, (const guint8 *)e, (guint)(n * sizeof(*e)));
        return b;
}

static const struct kprof_entry two[] = {
        { 0, 1 }, { 0xffffffff81367160, 840000 }, { 0xffffffff81367680, 480000 },
        { 0, 3 }, { 0xffffffffc0400040, 12 },
};

TEST(phases_read_back) {
        g_autoptr(GByteArray) b = file_of(two, G_N_ELEMENTS(two), 4);
        struct kprof_data d;

        ASSERT_EQ(kprof_parse(b->data, b->len, &d), 0);
        ASSERT_EQ(d.n_marks, 4);
        ASSERT_EQ(d.n_seg, 2);
        ASSERT_EQ(d.seg[0].k, 1);
        ASSERT_EQ(d.seg[0].n, 2);
        ASSERT_EQ(d.seg[0].insns, 1320000);
        ASSERT_EQ(d.seg[0].e[1].pc, 0xffffffff81367680);
        ASSERT_TRUE(kprof_segment(&d, 3) == &d.seg[1]);
        ASSERT_EQ(kprof_segment(&d, 3)->insns, 12);
        /* The phase whose segment did not fit (lost) has none. */
        ASSERT_TRUE(kprof_segment(&d, 2) == NULL);
        kprof_data_clear(&d);
}

TEST(what_is_not_a_profile_is_refused) {
        static const struct kprof_entry out_of_order[] = { { 0, 2 }, { 1, 1 }, { 0, 2 } };
        static const struct kprof_entry before_header[] = { { 0xffffffff81000000, 5 }, { 0, 1 } };
        static const struct kprof_entry zero_k[] = { { 0, 0 } };
        static const struct kprof_entry overflow[] = { { 0, 1 }, { 1, UINT64_MAX }, { 2, 1 } };
        g_autoptr(GByteArray) b = file_of(two, G_N_ELEMENTS(two), 4);
        struct kprof_header *h = (struct kprof_header *)(void *)b->data;
        struct kprof_data d;
        uint8_t zero[sizeof(struct kprof_header)] = { 0 };

        ASSERT_EQ(kprof_parse(zero, sizeof(zero), &d), -EAGAIN);
        ASSERT_EQ(kprof_parse(b->data, 10, &d), -EBADMSG);
        /* More entries used than the bytes hold, or than there is room for. */
        ASSERT_EQ(kprof_parse(b->data, b->len - 1, &d), -EBADMSG);
        h->capacity = 7;
        ASSERT_EQ(kprof_parse(b->data, b->len, &d), -EBADMSG);
        h->capacity = KPROF_CAPACITY;
        h->version = KPROF_VERSION + 1;
        ASSERT_EQ(kprof_parse(b->data, b->len, &d), -EBADMSG);
        h->version = KPROF_VERSION;
        h->magic[0] = 'X';
        ASSERT_EQ(kprof_parse(b->data, b->len, &d), -EBADMSG);
        {
                const struct kprof_entry *bad[] = { out_of_order, before_header, zero_k, overflow };
                const size_t n[] = { 3, 2, 1, 3 };

                for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                        g_autoptr(GByteArray) f = file_of(bad[i], n[i], 3);

                        ASSERT_EQ(kprof_parse(f->data, f->len, &d), -EBADMSG);
                }
        }
}

/* The file as the cell reads it: only the entries the header says are
 * used, from a file of the whole size. */
TEST(read_from_disk) {
        char dir[] = "/tmp/kbench-test-kprof-XXXXXX";
        g_autofree char *path = NULL;
        g_autoptr(GByteArray) b = file_of(two, G_N_ELEMENTS(two), 4);
        struct kb_error err = { { 0 } };
        struct kprof_data d;

        ASSERT_TRUE(mkdtemp(dir));
        path = g_build_filename(dir, "kprof.bin", NULL);
        ASSERT_EQ(kprof_file_create(path, NULL, &err), 0);
        ASSERT_EQ(kprof_read(path, &d, &err), -EAGAIN);
        ASSERT_TRUE(strstr(err.msg, "never wrote it") != NULL);
        {
                FILE *f = fopen(path, "r+");

                ASSERT_TRUE(f && fwrite(b->data, 1, b->len, f) == b->len && fclose(f) == 0);
        }
        ASSERT_EQ(kprof_read(path, &d, &err), 0);
        ASSERT_EQ(d.n_seg, 2);
        kprof_data_clear(&d);
        ASSERT_EQ(unlink(path), 0);
        ASSERT_EQ(kprof_read(path, &d, &err), -ENOENT);
        ASSERT_EQ(rmdir(dir), 0);
}
