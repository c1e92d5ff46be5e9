/* Unit tests of a whole bisection without a guest: bisect_run over three
 * kernels of a scratch store, each step a run through the runner on the
 * scripted host of run/test-fakehost.h, whose dd writes at half the speed
 * on the kernels a case calls slow. Each case checks the answer, what the
 * database keeps of the bisection, and what it reported as events. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <string.h>

#include "bisect/bisect.h"
#include "common/test.h"
#include "common/util.h"
#include "common/test-scratch.h"
#include "kernels/kstore.h"
#include "kernels/test-fixtures.h"
#include "report/json.h"
#include "report/textbisect.h"
#include "results/bisect.h"
#include "results/db.h"
#include "run/test-fakehost.h"

TEST_MAIN();

/* The store's kernels: one image each (the same kernel, compressed three
 * ways), good first. */
static const char *const names[] = { "k1", "k2", "k3" };
static const char *const filters[] = { "gzip", "xz", "zstd" };

/* What the bisection said: its lines, its answer's JSON text, and the
 * answer's steps in the text layout without the ending. */
struct heard {
        GPtrArray *notes;
        size_t cell_ends;
        char *result;
        char *steps_text;
        size_t candidates;
};

/* text_bisection's lines for b, without an ending. */
static char *bisection_text(const struct bisect_row *b) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        ASSERT_TRUE(f != NULL);
        text_bisection(b, NULL, 100, f);
        fclose(f);
        return text;
}

static int heard_event(void *ctx, const struct kb_event *ev) {
        struct heard *h = ctx;

        if (ev->kind == KB_EVENT_NOTE && ev->origin == KB_ORIGIN_BISECT)
                g_ptr_array_add(h->notes, g_strdup(ev->text));
        if (ev->kind == KB_EVENT_CELL_END)
                h->cell_ends++;
        if (ev->kind == KB_EVENT_BISECT_RESULT) {
                json_t *j = json_bisect_answer(ev->bisection, ev->ending);

                free(h->result);
                free(h->steps_text);
                h->result = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
                h->steps_text = bisection_text(ev->bisection);
                h->candidates = ev->ending->candidates;
                json_decref(j);
        }
        return 0;
}

static int heard_said(const struct heard *h, const char *text) {
        for (guint i = 0; i < h->notes->len; i++)
                if (strstr(h->notes->pdata[i], text))
                        return 1;
        return 0;
}

struct world {
        struct store_session s;            /* first: the pump's store_session_open comes back here */
        struct store_ctx g;
        struct fakehost fake;
        struct run_host_backend backend;
        struct heard heard;
        struct kb_sink sink;
        char *dirs[G_N_ELEMENTS(names)];   /* each kernel's store directory */
        struct bisect_opts o;
};

static int world_open(struct store_session *s, unsigned parts, struct kb_error *err) {
        return fakehost_session_parts(s, &((struct world *)(void *)s)->g, parts, err);
}

/* The kernels in the store, their directories in w. */
static void world_kernels(struct world *w) {
        g_autofree char *kdir = g_build_filename(w->g.home, "kernels", NULL);
        struct kstore *ks = NULL;
        struct kb_error err = { { 0 } };

        ASSERT_EQ(kstore_open(kdir, &ks, &err), 0);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                g_autofree char *img = g_build_filename(w->g.home, filters[i], NULL);
                struct kstore_kernel *k = NULL;
                int existed = 0;

                /* Once per binary: the compressors' output differs from one
                 * call to the next, and a name keeps its first image. */
                if (g_file_test(img, G_FILE_TEST_EXISTS)) {
                        ASSERT_EQ(kstore_find(ks, names[i], &k, &err), 0);
                } else {
                        GByteArray *b = fx_kernel(filters[i]);

                        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, (gssize)b->len, NULL));
                        g_byte_array_unref(b);
                        if (kstore_add(ks, img, names[i], &k, &existed, &err) < 0)
                                TEST_FAIL("kstore_add: %s", err.msg);
                }
                w->dirs[i] = g_strdup(k->dir);
                kstore_kernel_free(k);
        }
        kstore_free(ks);
}

/* A bisection of dd's write rate over k1, k2, k3 in a fresh database. */
static void world_init(struct world *w, const char *name) {
        static char *kernels[] = { "k1", "k2", "k3", NULL };
        const char *home = test_scratch("bisect-XXXXXX");
        g_autofree char *db = g_strdup_printf("%s.db", name);

        *w = (struct world){ .s = { .open = world_open } };
        w->g = (struct store_ctx){ .home = g_strdup(home), .db_path = g_build_filename(home, db, NULL),
                                   .connect = g_strdup("fake:///") };
        world_kernels(w);
        fakehost_init(&w->fake, home, FX_RELEASE, NULL, 0);
        w->fake.jitter = 1;
        w->backend = fakehost_backend(&w->fake);
        w->heard.notes = g_ptr_array_new_with_free_func(g_free);
        w->sink = (struct kb_sink){ .on_event = heard_event, .ctx = &w->heard };
        runopts_defaults(&w->o.run);
        w->o.run.accel = "tcg";
        w->o.run.guest.disk_bytes = 64 << 20;
        w->o = (struct bisect_opts){ .run = w->o.run, .workload = "dd:size=4M", .metric = "dd.write_MBps",
                                     .kernels = kernels, .pilot = 2, .max_rounds = 6, .target = 0.05,
                                     .alpha = 0.05, .noise = 0.02, .events = &w->sink, .hosts = &w->backend };
}

static void world_clear(struct world *w) {
        w->s.db = db_close(w->s.db);
        w->s.ks = kstore_free(w->s.ks);
        fakehost_clear(&w->fake);
        g_ptr_array_free(w->heard.notes, TRUE);
        free(w->heard.result);
        free(w->heard.steps_text);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
                g_free(w->dirs[i]);
        g_free(w->g.home);
        g_free(w->g.db_path);
        g_free(w->g.connect);
}

TEST(first_slow_kernel_is_the_first_bad) {
        struct world w;
        struct bisect_answer a = { 0 };
        struct bisect_row *row = NULL;
        struct kb_error err = { { 0 } };
        const char *slow[3];

        world_init(&w, "first-bad");
        slow[0] = w.dirs[1];
        slow[1] = w.dirs[2];
        slow[2] = NULL;
        w.fake.slow = slow;
        /* A night's run settings come with until_mde's budgets, which a
         * step drops with until_mde itself. */
        w.o.run.until_mde_pct = 5;
        w.o.run.budget_cells = 40;
        w.o.run.budget_time_s = 600;
        if (bisect_run(&w.o, &w.g, &w.s, &a, &err) != 0)
                TEST_FAIL("bisect_run: %s", err.msg);
        ASSERT_STREQ(a.outcome, "first-bad");
        ASSERT_STREQ(a.first_bad, "k2");
        ASSERT_EQ(a.confirmed, 1);
        ASSERT_EQ(a.skipped_between, 0);
        /* Kept in the database, every step with it. */
        ASSERT_EQ(db_bisection_get(w.s.db, a.id, &row, &err), 0);
        ASSERT_STREQ(row->status, "done");
        ASSERT_STREQ(row->outcome, "first-bad");
        ASSERT_STREQ(row->first_bad, "k2");
        ASSERT_TRUE(row->n_steps >= 2);
        ASSERT_STREQ(row->steps[0].role, "ends");
        /* Reported: its lines, its runs' cells, and the answer. */
        ASSERT_TRUE(heard_said(&w.heard, "of dd:size=4M over 3 candidates"));
        ASSERT_TRUE(heard_said(&w.heard, "step 0 (ends)"));
        ASSERT_TRUE(w.heard.cell_ends >= 4);
        ASSERT_TRUE(w.heard.result != NULL);
        ASSERT_TRUE(strstr(w.heard.result, "\"first_bad\":\"k2\"") != NULL);
        ASSERT_TRUE(strstr(w.heard.result, "\"outcome\":\"first-bad\"") != NULL);
        ASSERT_TRUE(strstr(w.heard.result, "\"kernel\":\"k2\"") != NULL);
        ASSERT_EQ(w.heard.candidates, 3);
        /* One layout: the answer as it was reported is the stored
         * bisection as `kbench show --bisect` prints it, last line the
         * first bad. */
        {
                _cleanup_free_ char *stored = bisection_text(row);

                ASSERT_STREQ(w.heard.steps_text, stored);
                ASSERT_TRUE(g_str_has_suffix(stored, "\nfirst bad: k2\n"));
        }
        bisect_rows_free(row, 1);
        bisect_answer_clear(&a);
        world_clear(&w);
}

/* Ends that measure the same: nothing to find, said once. A caller that
 * reports the answer itself (quiet) hears no answer event. */
TEST(same_ends_are_no_change) {
        struct world w;
        struct bisect_answer a = { 0 };
        struct kb_error err = { { 0 } };

        world_init(&w, "no-change");
        w.o.quiet = 1;
        if (bisect_run(&w.o, &w.g, &w.s, &a, &err) != 0)
                TEST_FAIL("bisect_run: %s", err.msg);
        ASSERT_STREQ(a.outcome, "no-change");
        ASSERT_TRUE(a.first_bad == NULL);
        ASSERT_TRUE(w.heard.result == NULL);
        ASSERT_TRUE(heard_said(&w.heard, "ends: dd.write_MBps"));
        bisect_answer_clear(&a);
        world_clear(&w);
}

/* An option as kbench bisect spells it (cli_flag_name's rule). */
static const char *flag_name(const char *option) {
        g_autofree char *flag = g_strconcat("--", option, NULL);

        return g_intern_string(flag);
}

/* An unknown kernel is the request's fault: exit 2, nothing run. The
 * error names the option as the driver spells it, or by its name. */
TEST(unknown_kernel_is_usage) {
        static char *kernels[] = { "k1", "nope", NULL };
        struct world w;
        struct kb_error err = { { 0 } };

        world_init(&w, "usage");
        w.o.kernels = kernels;
        w.o.option_name = flag_name;
        ASSERT_EQ(bisect_run(&w.o, &w.g, &w.s, NULL, &err), 2);
        ASSERT_TRUE(g_str_has_prefix(err.msg, "--kernels: "));
        w.o.option_name = NULL;
        err = (struct kb_error){ { 0 } };
        ASSERT_EQ(bisect_run(&w.o, &w.g, &w.s, NULL, &err), 2);
        ASSERT_TRUE(g_str_has_prefix(err.msg, "kernels: "));
        ASSERT_EQ(w.fake.started, 0);
        world_clear(&w);
}
