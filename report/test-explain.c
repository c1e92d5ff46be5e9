/* Unit tests for report/explain.c and its renderings: a comparison of two
 * kernels whose cells carry profiles, stored as cells store them
 * (results/profile.h), explained as compare explains it. B's write phase
 * runs 10 Minsn more a cell than A's: rt_spin_lock, which A's kernel
 * lacks, +6; vfs_write +5; memcpy -1; an ext4 function unchanged. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "report/explain.h"
#include "report/json.h"
#include "report/textcompare.h"
#include "report/view.h"
#include "results/profile.h"

TEST_MAIN();

#define KA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define CELLS 4

struct store {
        char dir[64], path[128];
        struct db *db;
};

/* One ok cell of kernel kid: its write and read instruction counts, and
 * its write phase's profile (n rows), whose sum the write count is. */
static void cell(struct store *s, int64_t run, int i, const char *kid, const struct db_profile_row *rows, size_t n,
                 const char *const *names, size_t n_names) {
        struct kb_error err = { { 0 } };
        char key[8];
        double sum = 0;
        struct db_metric m[2];
        struct db_cell c;

        for (size_t k = 0; k < n; k++)
                sum += (double)rows[k].insns;
        m[0] = (struct db_metric){ .name = "guest.write.kernel_Minsn", .value = sum / 1e6, .has_value = 1,
                                   .unit = "Minsn" };
        m[1] = (struct db_metric){ .name = "guest.read.kernel_Minsn", .value = 50 + i * 0.001, .has_value = 1,
                                   .unit = "Minsn" };
        snprintf(key, sizeof(key), "c%03d", 2 * i + (strcmp(kid, KB) == 0));
        c = (struct db_cell){ .run_id = run, .cell_key = key, .kernel_id = kid, .workload = "dd",
                              .params_json = "{\"size\":\"256M\",\"bs\":\"1M\"}", .iteration = i, .attempt = 1,
                              .state = "ok", .accel = "tcg", .started_at = 1700000300, .boot_s = 1, .workload_s = 9,
                              .total_s = 10, .n_metrics = 2, .metrics = m, .n_profile = n, .profile = rows,
                              .n_kernel_symbols = n_names, .kernel_symbols = names };
        ASSERT_EQ(db_cell_insert(s->db, &c, NULL, &err), 0);
}

static void store_init(struct store *s) {
        static const char *const names_a[] = { "vfs_write", "memcpy", "ext4_write [ext4]" };
        static const char *const names_b[] = { "vfs_write", "memcpy", "ext4_write [ext4]", "rt_spin_lock" };
        struct kb_error err = { { 0 } };
        struct db_kernel ka = { .id = KA, .name = "generic", .added_at = 1700000000 };
        struct db_kernel kb = { .id = KB, .name = "rt", .added_at = 1700000001 };
        struct db_run run = { .settings_json = "{\"mem_mb\":256,\"accel\":\"tcg\"}", .started_at = 1700000200 };

        snprintf(s->dir, sizeof(s->dir), "/tmp/kbench-test-explain-XXXXXX");
        ASSERT_TRUE(mkdtemp(s->dir));
        snprintf(s->path, sizeof(s->path), "%s/results.db", s->dir);
        ASSERT_EQ(db_open(s->path, &s->db, &err), 0);
        ASSERT_EQ(db_kernel_upsert(s->db, &ka, &err), 0);
        ASSERT_EQ(db_kernel_upsert(s->db, &kb, &err), 0);
        ASSERT_EQ(db_run_create(s->db, &run, &err), 0);
        for (int i = 0; i < CELLS; i++) {
                const struct db_profile_row a[] = {
                        { "write", "vfs_write", 60000000 + i * 1000 }, { "write", "ext4_write [ext4]", 30000000 },
                        { "write", "memcpy", 10000000 },
                };
                const struct db_profile_row b[] = {
                        { "write", "vfs_write", 65000000 + i * 1000 }, { "write", "ext4_write [ext4]", 30000000 },
                        { "write", "memcpy", 9000000 }, { "write", "rt_spin_lock", 6000000 },
                };

                cell(s, run.id, i, KA, a, G_N_ELEMENTS(a), names_a, G_N_ELEMENTS(names_a));
                cell(s, run.id, i, KB, b, G_N_ELEMENTS(b), names_b, G_N_ELEMENTS(names_b));
        }
}

static void store_done(struct store *s) {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", s->dir);

        db_close(s->db);
        ASSERT_EQ(system(cmd), 0);
}

static struct compare_view *compared(struct store *s) {
        struct compare_options o = { .a = "run:1:generic", .b = "run:1:rt", .alpha = 0.05, .noise = 0.02 };
        struct kb_error err = { { 0 } };
        struct compare_view *v = NULL;

        ASSERT_EQ(view_compare_load(s->db, &o, &v, &err), 0);
        ASSERT_EQ(v->n_groups, 1);
        return v;
}

static const struct compare_metric *metric(const struct compare_view *v, const char *name) {
        for (size_t i = 0; i < v->groups[0].n_m; i++)
                if (strcmp(v->groups[0].m[i].name, name) == 0)
                        return &v->groups[0].m[i];
        ASSERT_TRUE(0);
        return NULL;
}

/* The largest differences first, either sign, the rest summed, and the
 * list and the rest adding up to the change of the phase's mean. */
TEST(where_the_change_went) {
        struct store s;
        struct compare_view *v;
        const struct explain *x;
        struct kb_error err = { { 0 } };
        double sum;

        store_init(&s);
        v = compared(&s);
        ASSERT_EQ(metric(v, "guest.write.kernel_Minsn")->verdict, COMPARE_WORSE);
        ASSERT_EQ(explain_load(s.db, v, &(struct explain_options){ .top = 2 }, &err), 0);
        ASSERT_EQ(v->explain->n, 1);            /* read did not change: not judged worse, not explained */
        x = explain_find(v, 0, metric(v, "guest.write.kernel_Minsn"));
        ASSERT_TRUE(x && !x->none);
        ASSERT_STREQ(x->phase, "write");
        ASSERT_EQ(x->na, CELLS);
        ASSERT_EQ(x->nb, CELLS);
        ASSERT_EQ(x->n_top, 2);
        ASSERT_STREQ(x->top[0].symbol, "rt_spin_lock");
        ASSERT_NEAR(x->top[0].delta, 6e6, 1e-3);
        ASSERT_NEAR(x->top[0].a, 0, 0);
        ASSERT_EQ(x->top[0].only, 'B');
        ASSERT_STREQ(x->top[1].symbol, "vfs_write");
        ASSERT_NEAR(x->top[1].delta, 5e6, 1e-3);
        ASSERT_EQ(x->top[1].only, 0);
        ASSERT_EQ(x->n_rest, 2);
        ASSERT_NEAR(x->rest, -1e6, 1e-3);
        sum = x->rest;
        for (size_t i = 0; i < x->n_top; i++)
                sum += x->top[i].delta;
        ASSERT_NEAR(sum, x->total_b - x->total_a, 1e-3);
        ASSERT_NEAR((x->total_b - x->total_a) / 1e6,
                    metric(v, "guest.write.kernel_Minsn")->sb.mean - metric(v, "guest.write.kernel_Minsn")->sa.mean,
                    1e-9);
        compare_view_free(v);
        store_done(&s);
}

/* What compare prints under the change: compact, at most 100 columns;
 * and the JSON of the same numbers. */
TEST(rendered) {
        struct store s;
        struct compare_view *v;
        struct kb_error err = { { 0 } };
        char *text = NULL, *line, *save = NULL;
        size_t len = 0;
        FILE *f;
        json_t *j, *e;

        store_init(&s);
        v = compared(&s);
        ASSERT_EQ(explain_load(s.db, v, &(struct explain_options){ .top = 3 }, &err), 0);
        f = open_memstream(&text, &len);
        textcompare_print(v, &(struct textcompare_opts){ .format = TEXTCOMPARE_TEXT, .width = 100 }, f);
        fclose(f);
        ASSERT_TRUE(strstr(text, "  kernel instructions in dd's write phase: worse +10.0%") != NULL);
        ASSERT_TRUE(strstr(text, "\n    where, Minsn a cell (100.0 -> 110.0, 4 + 4 cells profiled): rt_spin_lock +6 "
                                 "(+6.0%, only in B),\n"
                                 "      vfs_write +5 (+5.0%), memcpy -1 (-1.0%), 1 other 0\n") != NULL);
        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (strstr(line, "where") || strstr(line, "vfs_write"))
                        ASSERT_TRUE(strlen(line) <= 100);
        free(text);
        text = NULL;
        f = open_memstream(&text, &len);
        textcompare_print(v, &(struct textcompare_opts){ .format = TEXTCOMPARE_MARKDOWN, .width = 100 }, f);
        fclose(f);
        ASSERT_TRUE(strstr(text, "  - where, Minsn a cell (100.0 -> 110.0, 4 + 4 cells profiled): rt_spin_lock +6 "
                                 "(+6.0%, only in B),\n    vfs_write +5") != NULL);
        free(text);

        j = json_view_compare(v);
        e = json_array_get(json_object_get(json_array_get(json_object_get(j, "groups"), 0), "explain"), 0);
        ASSERT_STREQ(json_string_value(json_object_get(e, "metric")), "guest.write.kernel_Minsn");
        ASSERT_NEAR(json_real_value(json_object_get(e, "change_Minsn")), 10, 1e-9);
        e = json_array_get(json_object_get(e, "functions"), 0);
        ASSERT_STREQ(json_string_value(json_object_get(e, "symbol")), "rt_spin_lock");
        ASSERT_STREQ(json_string_value(json_object_get(e, "only_in")), "B");
        ASSERT_NEAR(json_real_value(json_object_get(e, "pct_of_phase_a")), 6, 1e-3);
        json_decref(j);
        compare_view_free(v);
        store_done(&s);
}

/* --explain: every instruction count, judged or not; a side without
 * profiles says why there is no explanation. */
TEST(every_count_on_asking) {
        struct store s;
        struct compare_view *v;
        const struct explain *x;
        struct kb_error err = { { 0 } };

        store_init(&s);
        v = compared(&s);
        ASSERT_EQ(explain_load(s.db, v, &(struct explain_options){ .all = 1 }, &err), 0);
        ASSERT_EQ(v->explain->n, 2);
        x = explain_find(v, 0, metric(v, "guest.read.kernel_Minsn"));
        ASSERT_TRUE(x && x->none && strstr(x->none, "no profile of the phase"));
        ASSERT_EQ(explain_load(s.db, v, &(struct explain_options){ .metric = "guest.read.kernel_Minsn" }, &err), 0);
        ASSERT_EQ(v->explain->n, 1);
        compare_view_free(v);
        store_done(&s);
}

TEST(metric_phase) {
        char phase[16];

        ASSERT_EQ(explain_metric_phase("guest.seq_read.t2.kernel_Minsn", phase, sizeof(phase)), 1);
        ASSERT_STREQ(phase, "seq_read.t2");
        ASSERT_EQ(explain_metric_phase("guest.write.user_Minsn", phase, sizeof(phase)), 0);
        ASSERT_EQ(explain_metric_phase("guest..kernel_Minsn", phase, sizeof(phase)), 0);
        ASSERT_EQ(explain_metric_phase("guest.a-very-long-phase-name.kernel_Minsn", phase, sizeof(phase)), 0);
}

/* A function's name comes from a guest (its kallsyms): it is printed as
 * text in every form, never as markup or a terminal's control. */
TEST(hostile_names_are_text) {
        static const char hostile[] = "<img_src=x>\x1b[31m*[x](y)|`";
        struct store s;
        struct compare_view *v;
        struct kb_error err = { { 0 } };
        char *text = NULL;
        size_t len = 0;
        FILE *f;
        json_t *j;

        store_init(&s);
        ASSERT_EQ(sqlite3_exec(db_handle(s.db), "UPDATE symbols SET name = 'x' WHERE name = 'rt_spin_lock'", NULL,
                               NULL, NULL), SQLITE_OK);
        {
                sqlite3_stmt *st;

                ASSERT_EQ(sqlite3_prepare_v2(db_handle(s.db), "UPDATE symbols SET name = ?1 WHERE name = 'x'", -1, &st,
                                             NULL), SQLITE_OK);
                sqlite3_bind_text(st, 1, hostile, -1, SQLITE_STATIC);
                ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
                sqlite3_finalize(st);
        }
        v = compared(&s);
        ASSERT_EQ(explain_load(s.db, v, &(struct explain_options){ 0 }, &err), 0);
        f = open_memstream(&text, &len);
        textcompare_print(v, &(struct textcompare_opts){ .format = TEXTCOMPARE_TEXT, .width = 100 }, f);
        fclose(f);
        ASSERT_TRUE(strstr(text, "\x1b") == NULL);
        ASSERT_TRUE(strstr(text, "<img_src=x>?[31m*[x](y)|`") != NULL);
        free(text);
        text = NULL;
        f = open_memstream(&text, &len);
        textcompare_print(v, &(struct textcompare_opts){ .format = TEXTCOMPARE_MARKDOWN, .width = 100 }, f);
        fclose(f);
        ASSERT_TRUE(strstr(text, "&lt;img_src=x>?\\[31m\\*\\[x\\](y)\\|\\`") != NULL);
        free(text);
        j = json_view_compare(v);
        text = json_dumps(j, JSON_ENSURE_ASCII);
        ASSERT_TRUE(strstr(text, "\"symbol\": \"<img_src=x>\\u001B[31m*[x](y)|`\"") != NULL);
        free(text);
        json_decref(j);
        compare_view_free(v);
        store_done(&s);
}
