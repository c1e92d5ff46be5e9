/* test-insncount.c: the counter file's parser, the phase marks and the
 * metrics made from them. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "host/insncount.h"

TEST_MAIN();

static void file_with(struct insncount_file *f, uint32_t n_vcpus) {
        memset(f, 0, sizeof(*f));
        memcpy(f->magic, INSNCOUNT_MAGIC, sizeof(f->magic));
        f->version = INSNCOUNT_VERSION;
        f->n_vcpus = n_vcpus;
}

TEST(parse_sums_vcpus) {
        struct insncount_file f;
        struct insncount_totals t = { .insns = { 7, 7 } };

        file_with(&f, 2);
        f.vcpu[0].insns[INSNCOUNT_USER] = 10;
        f.vcpu[0].insns[INSNCOUNT_KERNEL] = 1000;
        f.vcpu[1].insns[INSNCOUNT_USER] = 5;
        f.vcpu[1].insns[INSNCOUNT_KERNEL] = 500;
        /* A slot beyond n_vcpus is not counted. */
        f.vcpu[2].insns[INSNCOUNT_KERNEL] = 99999;
        f.vcpu[0].pauses = 3;
        f.vcpu[1].pauses = 4;
        f.vcpu[0].spin_ns = 1000;
        f.vcpu[1].spin_ns = 2000;
        f.vcpu[2].spin_ns = 99999;
        f.wait_ns = 123456789;
        ASSERT_EQ(insncount_parse(&f, sizeof(f), &t), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_USER], 15);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 1500);
        ASSERT_EQ(t.pauses, 7);
        ASSERT_EQ(t.spin_ns, 3000);
        ASSERT_EQ(t.wait_ns, 123456789);
        ASSERT_EQ(t.t_ns, 0);
}

TEST(parse_refuses) {
        struct insncount_file f;
        struct insncount_totals t = { .insns = { 7, 7 } };

        memset(&f, 0, sizeof(f));
        ASSERT_EQ(insncount_parse(&f, sizeof(f), &t), -EAGAIN);
        file_with(&f, 1);
        ASSERT_EQ(insncount_parse(&f, sizeof(f) - 1, &t), -EBADMSG);
        f.version = INSNCOUNT_VERSION - 1;
        ASSERT_EQ(insncount_parse(&f, sizeof(f), &t), -EBADMSG);
        file_with(&f, 0);
        ASSERT_EQ(insncount_parse(&f, sizeof(f), &t), -EBADMSG);
        file_with(&f, INSNCOUNT_VCPUS_MAX + 1);
        ASSERT_EQ(insncount_parse(&f, sizeof(f), &t), -EBADMSG);
        file_with(&f, 1);
        f.magic[0] = 'X';
        ASSERT_EQ(insncount_parse(&f, sizeof(f), &t), -EBADMSG);
        ASSERT_EQ(t.insns[0], 7);
}

/* Mark k is read only once the plugin has counted it, and never past the
 * slots, whatever n_marks says. */
TEST(parse_mark) {
        struct insncount_file f;
        struct insncount_totals t = { .insns = { 7, 7 } };

        file_with(&f, 1);
        ASSERT_EQ(insncount_parse_mark(&f, sizeof(f), 0, &t), -ENOENT);
        f.marks[0].insns[INSNCOUNT_USER] = 3;
        f.marks[1].insns[INSNCOUNT_KERNEL] = 9;
        f.marks[1].wait_ns = 5;
        f.marks[1].spin_ns = 6;
        f.marks[1].pauses = 7;
        f.marks[1].t_ns = 8;
        f.marks[1].halt_longest_ns = 10;
        f.n_marks = 2;
        ASSERT_EQ(insncount_parse_mark(&f, sizeof(f), 1, &t), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 9);
        ASSERT_EQ(t.wait_ns, 5);
        ASSERT_EQ(t.spin_ns, 6);
        ASSERT_EQ(t.pauses, 7);
        ASSERT_EQ(t.t_ns, 8);
        ASSERT_EQ(t.halt_longest_ns, 10);
        ASSERT_EQ(insncount_parse_mark(&f, sizeof(f), 2, &t), -ENOENT);
        f.n_marks = UINT64_MAX;
        ASSERT_EQ(insncount_parse_mark(&f, sizeof(f), INSNCOUNT_MARKS_MAX, &t), -ENOENT);
        ASSERT_EQ(insncount_parse_mark(&f, sizeof(f), 0, &t), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_USER], 3);
        f.version = 1;
        ASSERT_EQ(insncount_parse_mark(&f, sizeof(f), 0, &t), -EBADMSG);
}

/* The file kbench makes is what the plugin expects: the size, and all
 * zero, so the host can tell that the plugin never loaded. */
TEST(file_create_and_read) {
        g_autofree char *dir = g_dir_make_tmp("kbench-insn-XXXXXX", NULL);
        g_autofree char *path = g_build_filename(dir, "insns.bin", NULL);
        struct kb_error err = { "" };
        struct insncount_totals t;
        struct insncount_file f;
        int fd, marker;

        ASSERT_EQ(insncount_file_create(path, NULL, &err), 0);
        fd = open(path, O_RDWR);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(lseek(fd, 0, SEEK_END), (long long)INSNCOUNT_FILE_SIZE);
        ASSERT_EQ(insncount_read(fd, 0, &t, &marker), -EAGAIN);
        file_with(&f, 1);
        f.vcpu[0].insns[INSNCOUNT_KERNEL] = 42;
        ASSERT_EQ(pwrite(fd, &f, sizeof(f), 0), (long long)sizeof(f));
        ASSERT_EQ(insncount_read(fd, 0, &t, &marker), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 42);
        ASSERT_EQ(marker, 0);
        /* Running totals are read now, so they carry the time of the read. */
        ASSERT_TRUE(t.t_ns > 0);
        /* Once the guest executed the marker, mark 0 is its totals, not the running ones. */
        f.marks[0].insns[INSNCOUNT_KERNEL] = 40;
        f.n_marks = 1;
        ASSERT_EQ(pwrite(fd, &f, sizeof(f), 0), (long long)sizeof(f));
        ASSERT_EQ(insncount_read(fd, 0, &t, &marker), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 40);
        ASSERT_EQ(marker, 1);
        ASSERT_EQ(insncount_read(fd, 1, &t, &marker), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 42);
        ASSERT_EQ(marker, 0);
        close(fd);
        /* Made again, it is zero again. */
        ASSERT_EQ(insncount_file_create(path, NULL, &err), 0);
        fd = open(path, O_RDONLY);
        ASSERT_EQ(insncount_read(fd, 0, &t, &marker), -EAGAIN);
        close(fd);
        g_unlink(path);
        ASSERT_EQ(insncount_file_create("/nonexistent/kbench/insns.bin", NULL, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "/nonexistent/kbench/insns.bin") != NULL);
        g_rmdir(dir);
}

static struct insncount_totals at(uint64_t user, uint64_t kernel) {
        return (struct insncount_totals){ .insns = { [INSNCOUNT_USER] = user, [INSNCOUNT_KERNEL] = kernel } };
}

static double value(const struct metric_list *ml, const char *name) {
        const struct metric *m = metric_find(ml, name);

        if (!m)
                TEST_FAIL("no metric %s", name);
        return m->has_value ? m->value : -1;
}

/* dd's marks: write, drop-caches, read, end; each phase is the span to the
 * next mark, in millions. */
TEST(metrics_per_phase) {
        struct insncount_marks m = { .n = 0 };
        struct metric_list ml = { 0 };
        struct insncount_totals t;

        t = at(1000000, 2000000);
        t.t_ns = 1000000000;
        t.wait_ns = 100000000;
        ASSERT_EQ(insncount_mark(&m, "phase write", 11, &t), 1);
        t = at(3000000, 502000000);
        t.t_ns = 4500000000;
        t.wait_ns = 850000000;
        t.spin_ns = 20000000;
        t.pauses = 4000;
        t.halt_longest_ns = 250000000;
        ASSERT_EQ(insncount_mark(&m, "phase drop-caches", 17, &t), 1);
        t = at(3500000, 512000000);
        ASSERT_EQ(insncount_mark(&m, "sync-start", 10, &t), 0);
        ASSERT_EQ(insncount_mark(&m, "phase read", 10, &t), 1);
        t = at(4500000, 812000000);
        ASSERT_EQ(insncount_mark(&m, "phase end", 9, &t), 1);
        t = at(9000000, 999000000);
        ASSERT_EQ(insncount_mark(&m, "phase after", 11, &t), 1);
        ASSERT_EQ(insncount_metrics(&m, &ml), 0);
        ASSERT_NEAR(value(&ml, "guest.write.kernel_Minsn"), 500.0, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.user_Minsn"), 2.0, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.wait_s"), 0.75, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.spin_s"), 0.02, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.kernel_pauses"), 4000, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.wall_s"), 3.5, 1e-9);
        /* The longest stall is the next mark's, not a difference. */
        ASSERT_NEAR(value(&ml, "guest.write.halt_longest_s"), 0.25, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.read.halt_longest_s"), 0, 1e-9);
        /* The next mark carries no time: that phase has no length. */
        ASSERT_EQ(metric_find(&ml, "guest.drop-caches.wall_s")->has_value, 0);
        ASSERT_NEAR(value(&ml, "guest.drop-caches.kernel_Minsn"), 10.0, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.read.kernel_Minsn"), 300.0, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.read.user_Minsn"), 1.0, 1e-9);
        /* "end" is what follows the job, and the last mark has no span. */
        ASSERT_TRUE(metric_find(&ml, "guest.end.kernel_Minsn") == NULL);
        ASSERT_TRUE(metric_find(&ml, "guest.after.kernel_Minsn") == NULL);
        ASSERT_EQ(ml.n, 21);
        metric_list_clear(&ml);
}

/* Names come from the guest: only [a-z0-9_-] words make a metric; another
 * mark still ends the phase before it. A phase seen twice counts once. */
TEST(metrics_hostile_marks) {
        struct insncount_marks m = { .n = 0 };
        struct metric_list ml = { 0 };
        struct insncount_totals t = at(0, 0);
        char longname[80];

        insncount_mark(&m, "phase seq_read t2", 17, &t);
        t = at(0, 100000000);
        insncount_mark(&m, "phase Bad<b>", 12, &t);
        t = at(0, 300000000);
        insncount_mark(&m, "phase seq_read t2", 17, &t);
        t = at(0, 400000000);
        insncount_mark(&m, "phase x\0y", 9, &t);
        memset(longname, 'a', sizeof(longname));
        memcpy(longname, "phase ", 6);
        insncount_mark(&m, longname, sizeof(longname), &t);
        insncount_mark(&m, "phase  two", 10, &t);
        insncount_mark(&m, "phase", 5, &t);
        ASSERT_EQ(insncount_metrics(&m, &ml), 0);
        ASSERT_NEAR(value(&ml, "guest.seq_read.t2.kernel_Minsn"), 100.0, 1e-9);
        ASSERT_EQ(ml.n, 7);
        metric_list_clear(&ml);
        /* A counter that goes back is no number. */
        m.n = 0;
        t = at(5, 5);
        insncount_mark(&m, "phase write", 11, &t);
        t = at(4, 6);
        insncount_mark(&m, "phase end", 9, &t);
        ASSERT_EQ(insncount_metrics(&m, &ml), 0);
        ASSERT_EQ(metric_find(&ml, "guest.write.user_Minsn")->has_value, 0);
        ASSERT_EQ(metric_find(&ml, "guest.write.kernel_Minsn")->has_value, 1);
        metric_list_clear(&ml);
        /* Marks beyond the bound are ignored. */
        m.n = 0;
        for (int i = 0; i < INSNCOUNT_PHASES_MAX + 5; i++)
                insncount_mark(&m, "phase w", 7, &t);
        ASSERT_EQ(m.n, INSNCOUNT_PHASES_MAX);
}

/* The guest PMU's record (KVM): two counts, nothing else; from the guest,
 * so everything else is refused. */
TEST(parse_pmu) {
        struct insncount_totals t = { .pauses = 7 };

        ASSERT_EQ(insncount_parse_pmu("user=12 kernel=3400", 19, &t), 0);
        ASSERT_EQ(t.insns[INSNCOUNT_USER], 12);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 3400);
        ASSERT_EQ(t.pauses, 0);
        ASSERT_EQ(insncount_parse_pmu("lost", 4, &t), -EIO);
        ASSERT_EQ(insncount_parse_pmu("user=12 kernel=3400\0x", 21, &t), -EBADMSG);
        ASSERT_EQ(insncount_parse_pmu("user=12", 7, &t), -EBADMSG);
        ASSERT_EQ(insncount_parse_pmu("user=-1 kernel=3", 16, &t), -EBADMSG);
        ASSERT_EQ(insncount_parse_pmu("user=1 kernel=3 ", 16, &t), -EBADMSG);
        ASSERT_EQ(insncount_parse_pmu("user=1 kernel=99999999999999999999", 34, &t), -EBADMSG);
        ASSERT_EQ(insncount_parse_pmu("kernel=3 user=1", 15, &t), -EBADMSG);
        ASSERT_EQ(t.insns[INSNCOUNT_KERNEL], 3400);
}

/* From the PMU the marks carry instructions only: no waiting, spinning
 * or phase length is made up from zeros. */
TEST(metrics_insns_only) {
        struct insncount_marks m = { .n = 0, .insns_only = 1 };
        struct metric_list ml = { 0 };
        struct insncount_totals t = at(1000000, 2000000);

        insncount_mark(&m, "phase write", 11, &t);
        t = at(3000000, 502000000);
        insncount_mark(&m, "phase end", 9, &t);
        ASSERT_EQ(insncount_metrics(&m, &ml), 0);
        ASSERT_EQ(ml.n, 2);
        ASSERT_NEAR(value(&ml, "guest.write.kernel_Minsn"), 500.0, 1e-9);
        ASSERT_NEAR(value(&ml, "guest.write.user_Minsn"), 2.0, 1e-9);
        ASSERT_TRUE(metric_find(&ml, "guest.write.wait_s") == NULL);
        metric_list_clear(&ml);
}
