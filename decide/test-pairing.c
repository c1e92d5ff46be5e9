/* test-pairing.c: which cells a comparison rests on (decide/pairing.c),
 * over a real results database of TCG dd cells (their write phase's
 * kernel instructions judged). By kernel name: the latest run that holds
 * both sides with identical settings, not each kernel's latest run; none:
 * no verdict, and a first line saying why; --across-runs: the latest runs,
 * with the power that costs; run selectors that differ in a setting: paired
 * across it, as selected. */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "decide/pairing.h"
#include "results/db.h"

TEST_MAIN();

#define KA "4747474747474747474747474747474747474747474747474747474747474747"
#define KB "5757575757575757575757575757575757575757575757575757575757575757"

struct store {
        char dir[64], path[128];
        struct db *db;
};

static int64_t add_run(struct store *s, const char *tag, int disk_mbps) {
        struct kb_error err = { { 0 } };
        char settings[256];
        struct db_run run = { .tag = tag, .settings_json = settings, .started_at = 1700000000 };

        snprintf(settings, sizeof(settings),
                 "{\"workloads\":[\"dd:size=,bs=1M\"],\"repeats\":6,\"mem_mb\":256,\"cpus\":1,"
                 "\"disk_bytes\":2147483648,\"disk_mbps\":%d,\"fs\":\"ext4\",\"accel\":\"tcg\"}", disk_mbps);
        ASSERT_EQ(db_run_create(s->db, &run, &err), 0);
        return run.id;
}

/* Six cells of kernel kid in run, their write phase's instructions about
 * minsn (millions, 0.3 % apart). */
static void add_cells(struct store *s, int64_t run, const char *kid, double minsn, int disk_mbps) {
        static const double d[] = { -0.3, 0.2, 0.1, -0.1, 0.3, -0.2 };
        static int key;

        for (size_t i = 0; i < G_N_ELEMENTS(d); i++) {
                struct kb_error err = { { 0 } };
                char params[256], k[16];
                struct db_metric m[] = {
                        { .name = "guest.write.kernel_Minsn", .value = minsn * (1 + d[i] / 100), .has_value = 1,
                          .unit = "Minsn" },
                };
                struct db_cell c = { .run_id = run, .cell_key = k, .kernel_id = kid, .workload = "dd",
                                     .params_json = params, .attempt = 1, .state = "ok", .accel = "tcg",
                                     .started_at = 1700000100, .boot_s = 3.0, .workload_s = 10, .total_s = 14,
                                     .exit_code = 0, .n_metrics = 1, .metrics = m };

                snprintf(k, sizeof(k), "c%03d", key++);
                snprintf(params, sizeof(params),
                         "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_bytes\":2147483648,"
                         "\"disk_mbps\":%d,\"fs\":\"ext4\",\"mount_opts\":\"\",\"swap_bytes\":0,\"accel\":\"tcg\"}",
                         disk_mbps);
                ASSERT_EQ(db_cell_insert(s->db, &c, NULL, &err), 0);
        }
}

static void store_init(struct store *s) {
        struct kb_error err = { { 0 } };

        snprintf(s->dir, sizeof(s->dir), "/tmp/kbench-test-pairing-XXXXXX");
        ASSERT_TRUE(mkdtemp(s->dir));
        snprintf(s->path, sizeof(s->path), "%s/results.db", s->dir);
        ASSERT_EQ(db_open(s->path, &s->db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(s->db, &(struct db_kernel){ KA, "6.1.0-47-amd64", "6.1.0-47-amd64", NULL, 1 },
                                   &err), 0);
        ASSERT_EQ(db_kernel_upsert(s->db, &(struct db_kernel){ KB, "6.1.0-57-amd64", "6.1.0-57-amd64", NULL, 1 },
                                   &err), 0);
}

static void store_done(struct store *s) {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", s->dir);

        db_close(s->db);
        ASSERT_EQ(system(cmd), 0);
}

static struct compare_view *load(struct store *s, const char *a, const char *b, int across,
                                 const char *ignore) {
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        struct compare_options o = { .a = a, .b = b, .alpha = 0.05, .noise = 0.02, .across_runs = across };
        struct compare_view *v = NULL;
        struct kb_error err = { { 0 } };

        if (ignore)
                g_ptr_array_add(ignored, g_strdup(ignore));
        g_ptr_array_add(ignored, NULL);
        if (pairing_compare_load(s->db, &o, ignored, &v, &err) < 0)
                TEST_FAIL("compare %s %s: %s", a, b, err.msg);
        return v;
}

static const struct compare_metric *insns(const struct compare_view *v) {
        ASSERT_EQ(v->n_groups, 1);
        ASSERT_EQ(v->groups[0].n_m, 2);      /* the count and the cell's boot_s */
        for (size_t i = 0; i < v->groups[0].n_m; i++)
                if (strcmp(v->groups[0].m[i].name, "guest.write.kernel_Minsn") == 0)
                        return &v->groups[0].m[i];
        TEST_FAIL("no guest.write.kernel_Minsn");
}

/* Runs 1 and 2 hold both kernels alike; run 3 holds B alone, its disk
 * throttled (its latest), run 4 A alone (its latest). By name the
 * comparison is run 2's, though neither kernel's latest run is run 2: B
 * is 5 % worse there, and so it is called. */
TEST(by_name_takes_the_latest_run_holding_both) {
        struct store s;
        struct compare_view *v;

        store_init(&s);
        for (int r = 0; r < 2; r++) {
                int64_t id = add_run(&s, "both", 0);

                add_cells(&s, id, KA, 1000, 0);
                add_cells(&s, id, KB, r ? 1050 : 1000, 0);
        }
        add_cells(&s, add_run(&s, "throttled", 20), KB, 1200, 20);
        add_cells(&s, add_run(&s, "alone", 0), KA, 900, 0);

        v = load(&s, "6.1.0-47-amd64", "6.1.0-57-amd64", 0, NULL);
        ASSERT_STREQ(v->first, "by kernel name: run 2, the latest run that holds A and B with identical settings "
                               "(cells measured together)");
        ASSERT_STREQ(v->sel_a, "6.1.0-47-amd64");
        ASSERT_STREQ(v->desc_b, "6.1.0-57-amd64 in run 2");
        ASSERT_EQ(v->groups[0].a.n_runs, 1);
        ASSERT_EQ(v->groups[0].a.runs[0], 2);
        ASSERT_EQ(v->groups[0].b.runs[0], 2);
        ASSERT_EQ(insns(v)->verdict, COMPARE_WORSE);
        ASSERT_EQ(v->no_verdict, 0);
        v = compare_view_free(v);

        /* Across runs, asked: each kernel's latest (4 and 3), whose settings
         * differ: nothing pairs, and the first line says what would. */
        v = load(&s, "6.1.0-47-amd64", "6.1.0-57-amd64", 1, NULL);
        ASSERT_EQ(v->n_groups, 0);
        ASSERT_STREQ(v->first, "across runs: nothing pairs: the cells differ in disk_mbps 0 | 20 (--ignore-setting "
                               "disk_mbps pairs across it)");
        v = compare_view_free(v);
        store_done(&s);
}

/* No run holds both: no verdict, however large the change, every judged
 * metric withheld, and the first line names each side's run and the
 * setting that keeps them apart. With identical settings in two runs the
 * same, and --across-runs then judges them with each run's offset, its
 * first line stating the power that costs. */
TEST(no_shared_run_no_verdict) {
        struct store s;
        struct compare_view *v;
        const struct compare_metric *m;

        store_init(&s);
        add_cells(&s, add_run(&s, "a", 0), KA, 1000, 0);
        add_cells(&s, add_run(&s, "b", 20), KB, 1200, 20);
        v = load(&s, "6.1.0-47-amd64", "6.1.0-57-amd64", 0, NULL);
        ASSERT_EQ(v->no_verdict, 1);
        ASSERT_EQ(v->n_groups, 0);
        ASSERT_STREQ(v->first, "no verdict: no run holds A and B with identical settings (A: 6.1.0-47-amd64 in run "
                               "1; B: 6.1.0-57-amd64 in run 2; their cells differ in disk_mbps 0 | 20): measure "
                               "them together (kbench run -k A -k B), or kbench compare --across-runs judges these "
                               "runs, each side's mean carrying its run's offset");
        v = compare_view_free(v);

        /* A third run, B at A's settings: still no run holds both. */
        add_cells(&s, add_run(&s, "b-again", 0), KB, 1200, 0);
        v = load(&s, "6.1.0-47-amd64", "6.1.0-57-amd64", 0, NULL);
        m = insns(v);
        ASSERT_EQ(v->no_verdict, 1);
        ASSERT_EQ(m->verdict, COMPARE_WITHHELD);
        ASSERT_EQ(v->worse, 0);
        ASSERT_EQ(v->exit_status, 0);
        ASSERT_TRUE(g_str_has_prefix(v->first, "no verdict: "));
        v = compare_view_free(v);

        v = load(&s, "6.1.0-47-amd64", "6.1.0-57-amd64", 1, NULL);
        m = insns(v);
        ASSERT_EQ(v->no_verdict, 0);
        ASSERT_EQ(m->run_offset, 1);
        ASSERT_EQ(m->verdict, COMPARE_WORSE);
        ASSERT_TRUE(m->mde > m->mde_one_run);
        ASSERT_TRUE(g_str_has_prefix(v->first, "across runs (A: 6.1.0-47-amd64 in run 1; B: 6.1.0-57-amd64 in run "
                                               "3): each side's mean carries its run's offset"));
        v = compare_view_free(v);
        store_done(&s);
}

/* Selected by run, the runs are the caller's: two that differ only in a
 * setting are a comparison of that setting, paired across it. A kernel
 * name beside a run takes that run when it holds the kernel. */
TEST(run_selectors_pair_across_what_they_select) {
        struct store s;
        struct compare_view *v;

        store_init(&s);
        add_cells(&s, add_run(&s, "a", 0), KA, 1000, 0);
        add_cells(&s, add_run(&s, "b", 20), KA, 1000, 20);
        v = load(&s, "run:1", "run:2", 0, NULL);
        ASSERT_EQ(v->n_groups, 1);
        ASSERT_STREQ(v->ignored[0], "disk_mbps");
        ASSERT_TRUE(v->first == NULL);
        v = compare_view_free(v);

        add_cells(&s, 2, KB, 1000, 20);
        v = load(&s, "run:2:6.1.0-47-amd64", "6.1.0-57-amd64", 0, NULL);
        ASSERT_EQ(v->groups[0].b.runs[0], 2);
        ASSERT_TRUE(v->ignored[0] == NULL);
        ASSERT_TRUE(g_str_has_prefix(v->first, "by kernel name: run 2,"));
        v = compare_view_free(v);
        store_done(&s);
}
