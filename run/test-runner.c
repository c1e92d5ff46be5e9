/* Unit tests of a whole run without a guest: runner_run over a real
 * kernel store and SQLite database in a scratch store, its hosts the
 * scripted fake of run/test-fakehost.h, whose guests boot and run dd,
 * crash, hang, lose their host or share it with a busy neighbour. Each
 * case checks what the database holds afterwards (cells, attempts, end
 * states, the run's status) and what the run reported as events. */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cell/endstate.h"
#include "common/test.h"
#include "common/test-scratch.h"
#include "kernels/kstore.h"
#include "kernels/test-fixtures.h"
#include "results/db.h"
#include "results/query.h"
#include "run/runner.h"
#include "run/test-fakehost.h"

#include <sqlite3.h>

TEST_MAIN();

/* What a run reported, one line per event, as the test reads it. */
struct heard {
        GPtrArray *lines;
        int64_t result_run;        /* KB_EVENT_RESULT's run, 0: none */
        volatile int *stop_after_end; /* set once a cell has ended (a signal, as it were) */
};

static int heard_event(void *ctx, const struct kb_event *ev) {
        struct heard *h = ctx;
        char *line = NULL;

        switch (ev->kind) {
        case KB_EVENT_NOTE:
                line = g_strdup_printf("note %s", ev->text);
                break;
        case KB_EVENT_IMAGE:
                line = g_strdup_printf("image %s", ev->label);
                break;
        case KB_EVENT_CELLS:
                line = g_strdup_printf("cells %zu", ev->total);
                break;
        case KB_EVENT_CELL_BEGIN:
                line = g_strdup_printf("begin %s", ev->label);
                break;
        case KB_EVENT_CELL_STAGE:
                line = g_strdup_printf("stage %s", ev->stage);
                break;
        case KB_EVENT_STOPPED:
                line = g_strdup_printf("stopped %s run %" PRId64 " held %zu",
                                       ev->stop == RUN_STOP_NO_HOST        ? "no-host"
                                       : ev->stop == RUN_STOP_HOST_FAILED ? "host-failed"
                                                                          : "interrupted",
                                       ev->run_id, ev->total);
                break;
        case KB_EVENT_CELL_KEPT:
                line = g_strdup_printf("kept %s run %" PRId64 " %s: %s in %s", ev->label, ev->run_id, ev->state,
                                       ev->detail, ev->text);
                break;
        case KB_EVENT_CELL_RETRY:
                line = g_strdup_printf("retry %s %s: %s", ev->label, ev->state, ev->detail);
                break;
        case KB_EVENT_CELL_END:
                line = ev->own_line ? g_strdup_printf("end %s: %s: %s", ev->label, ev->state, ev->detail)
                                    : g_strdup_printf("end %s: %s", ev->state, ev->detail);
                if (h->stop_after_end)
                        *h->stop_after_end = 1;
                break;
        case KB_EVENT_RESULT:
                line = g_strdup_printf("result %lld", (long long)ev->run_id);
                h->result_run = ev->run_id;
                break;
        default:
                line = g_strdup_printf("other %d", (int)ev->kind);
        }
        g_ptr_array_add(h->lines, line);
        return 0;
}

/* How many lines start with prefix. */
static size_t heard_count(const struct heard *h, const char *prefix) {
        size_t n = 0;

        for (guint i = 0; i < h->lines->len; i++)
                n += g_str_has_prefix(h->lines->pdata[i], prefix);
        return n;
}

/* The first line that holds text, or NULL. */
static const char *heard_find(const struct heard *h, const char *text) {
        for (guint i = 0; i < h->lines->len; i++)
                if (strstr(h->lines->pdata[i], text))
                        return h->lines->pdata[i];
        return NULL;
}

/* A run's world: the scratch store (one kernel, the fixture's), its
 * database (one per case), the fake host, what the run said. The session
 * is the first member: the runner's store_session_open comes back here. */
struct world {
        struct store_session s;
        struct store_ctx g;
        struct fakehost fake;
        struct run_host_backend backend;
        struct heard heard;
        struct kb_sink sink;
        struct runner_drive drive;
        struct run_settings o;
        char *kernels[2];
        char *workloads[3];
        volatile int stop;
        int opens;                 /* store_session_open calls */
};

static int world_open(struct store_session *s, unsigned parts, struct kb_error *err) {
        ((struct world *)(void *)s)->opens++;
        return fakehost_session_parts(s, &((struct world *)(void *)s)->g, parts, err);
}

/* The store's one kernel, added on first use: a PVH bzImage of FX_RELEASE. */
static void world_kernel(const char *home) {
        g_autofree char *kdir = g_build_filename(home, "kernels", NULL);
        g_autofree char *img = g_build_filename(home, "bzImage", NULL);
        struct kstore *ks = NULL;
        struct kstore_kernel *k = NULL;
        struct kb_error err = { { 0 } };
        GByteArray *b;
        int existed = 0;

        if (g_file_test(img, G_FILE_TEST_EXISTS))
                return;
        b = fx_kernel("gzip");
        ASSERT_TRUE(g_file_set_contents(img, (const char *)b->data, (gssize)b->len, NULL));
        g_byte_array_unref(b);
        ASSERT_EQ(kstore_open(kdir, &ks, &err), 0);
        if (kstore_add(ks, img, "fake", &k, &existed, &err) < 0)
                TEST_FAIL("kstore_add: %s", err.msg);
        kstore_kernel_free(k);
        kstore_free(ks);
}

/* A world for one case: name gives its database, plays the fake's script.
 * The run's settings are the defaults for one kernel and a small dd, under
 * TCG, with a 64 MiB disk; a case changes what it tests. */
static void world_init(struct world *w, const char *name, const enum fakehost_play *plays, size_t n) {
        const char *home = test_scratch("runner-XXXXXX");
        g_autofree char *db = g_strdup_printf("%s.db", name);

        *w = (struct world){ .s = { .open = world_open } };
        world_kernel(home);
        w->g = (struct store_ctx){ .home = g_strdup(home), .db_path = g_build_filename(home, db, NULL),
                                   .connect = g_strdup("fake:///") };
        g_unlink(w->g.db_path);
        fakehost_init(&w->fake, home, FX_RELEASE, plays, n);
        w->backend = fakehost_backend(&w->fake);
        w->heard.lines = g_ptr_array_new_with_free_func(g_free);
        w->sink = (struct kb_sink){ .on_event = heard_event, .ctx = &w->heard };
        w->drive = (struct runner_drive){ .events = &w->sink, .stop = &w->stop, .hosts = &w->backend };
        runopts_defaults(&w->o);
        w->kernels[0] = "fake";
        w->workloads[0] = "dd:size=4M";
        w->o.kernels = w->kernels;
        w->o.workloads = w->workloads;
        w->o.accel = "tcg";
        w->o.repeats = 1;
        w->o.guest.disk_bytes = 64 << 20;
        w->o.guest.swap_bytes = 0;
}

static void world_clear(struct world *w) {
        w->s.db = db_close(w->s.db);
        w->s.ks = kstore_free(w->s.ks);
        fakehost_clear(&w->fake);
        g_ptr_array_free(w->heard.lines, TRUE);
        g_free(w->g.home);
        g_free(w->g.db_path);
        g_free(w->g.connect);
}

/* Run w's settings. Returns the exit code. OUT: *ret_run. */
static int world_run(struct world *w, int64_t *ret_run) {
        struct kb_error err = { { 0 } };
        int code = runner_run(&w->o, &w->drive, &w->g, &w->s, ret_run, &err);

        if ((code == 1 || code == 2) && err.msg[0])
                fprintf(stderr, "runner_run: %s\n", err.msg);
        return code;
}

/* The stored attempts of run, in order. OUT: *ret (query_cells_free). */
static size_t world_cells(struct world *w, int64_t run, struct query_cell **ret) {
        struct kb_error err = { { 0 } };
        size_t n = 0;

        if (query_cells(w->s.db, run, ret, &n, &err) < 0)
                TEST_FAIL("query_cells: %s", err.msg);
        return n;
}

/* The run's status: "complete", "interrupted", ... (g_free). */
static char *world_status(struct world *w, int64_t run) {
        struct query_run *r = NULL;
        struct kb_error err = { { 0 } };
        char *status;

        if (query_run(w->s.db, run, &r, &err) < 0)
                TEST_FAIL("query_run: %s", err.msg);
        status = g_strdup(r->status);
        query_runs_free(r, 1);
        return status;
}

/* Make w's settings --resume run's, as `kbench run --resume` loads them;
 * the strings go into kern, work and keep. */
static void world_resume(struct world *w, int64_t run, GPtrArray *kern, GPtrArray *work, GPtrArray *keep) {
        struct kb_error err = { { 0 } };

        runopts_defaults(&w->o);
        w->o.resume_run = run;
        if (runner_load_resume(&w->o, w->s.db, kern, work, keep, &err) < 0)
                TEST_FAIL("runner_load_resume: %s", err.msg);
        g_ptr_array_add(kern, NULL);
        g_ptr_array_add(work, NULL);
        w->o.kernels = (char **)kern->pdata;
        w->o.workloads = (char **)work->pdata;
}

/* The stored attempt c is cell key, ended as state. */
static void assert_cell(const struct query_cell *c, const char *key, const char *state) {
        ASSERT_STREQ(c->cell_key, key);
        ASSERT_STREQ(c->state, state);
}

/* Whether the cell row has the metric, with a value. */
static int cell_has_metric(struct world *w, const struct query_cell *c, const char *name, double *ret_value) {
        struct query_metric *m = NULL;
        struct kb_error err = { { 0 } };
        size_t n = 0;
        int found = 0;

        ASSERT_EQ(query_cell_metrics(w->s.db, c->id, &m, &n, &err), 0);
        for (size_t i = 0; i < n; i++)
                if (strcmp(m[i].name, name) == 0 && m[i].has_value) {
                        found = 1;
                        if (ret_value)
                                *ret_value = m[i].value;
                }
        query_metrics_free(m, n);
        return found;
}

TEST(all_cells_ok) {
        struct world w;
        struct query_cell *c = NULL;
        g_autofree char *status = NULL;
        g_autofree char *want = NULL;
        int64_t run = 0;
        double mbps = 0;
        size_t n;

        world_init(&w, "all-ok", NULL, 0);
        w.o.repeats = 2;
        ASSERT_EQ(world_run(&w, &run), 0);
        ASSERT_TRUE(run > 0);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 2);
        for (size_t i = 0; i < n; i++) {
                ASSERT_STREQ(c[i].state, CELL_OK);
                ASSERT_EQ(c[i].attempt, 1);
                ASSERT_EQ(c[i].iteration, (int)i);
                ASSERT_STREQ(c[i].kernel_name, "fake");
                ASSERT_STREQ(c[i].accel, "tcg");
                ASSERT_TRUE(cell_has_metric(&w, &c[i], "dd.write_MBps", &mbps));
                ASSERT_NEAR(mbps, 67108864 / 0.413911 / 1e6, 0.01);
                /* A quiet fixture host: its load is known, and nothing. */
                ASSERT_TRUE(cell_has_metric(&w, &c[i], "host.foreign_cpu_pct", &mbps));
                ASSERT_NEAR(mbps, 0, 1e-9);
        }
        status = world_status(&w, run);
        ASSERT_STREQ(status, "complete");
        /* The events: the plan, each cell's life, the result, no retry. */
        want = g_strdup_printf("note run %lld: 1 kernel(s) x 1 workload(s) x 2 repeat(s)", (long long)run);
        ASSERT_TRUE(heard_find(&w.heard, want) != NULL);
        ASSERT_TRUE(heard_find(&w.heard, "image fake") != NULL);
        ASSERT_TRUE(heard_find(&w.heard, "note accelerator: tcg as requested") != NULL);
        ASSERT_EQ(heard_count(&w.heard, "cells 2"), 1);
        ASSERT_EQ(heard_count(&w.heard, "begin c000 fake dd #1"), 1);
        ASSERT_EQ(heard_count(&w.heard, "begin c001 fake dd #2"), 1);
        ASSERT_EQ(heard_count(&w.heard, "stage boot"), 2);
        ASSERT_EQ(heard_count(&w.heard, "stage run"), 2);
        ASSERT_EQ(heard_count(&w.heard, "end ok"), 2);
        ASSERT_EQ(heard_count(&w.heard, "retry"), 0);
        ASSERT_EQ(w.heard.result_run, run);
        ASSERT_EQ(w.fake.started, 2);
        query_cells_free(c, n);
        world_clear(&w);
}

/* QEMU dying under a guest is the host's failure: the attempt is kept as
 * an infra-error and the cell runs again, its next attempt numbered on. */
TEST(qemu_crash_then_retry) {
        static const enum fakehost_play plays[] = { FAKEHOST_QEMU_CRASH, FAKEHOST_OK };
        struct world w;
        struct query_cell *c = NULL;
        int64_t run = 0;
        size_t n;

        world_init(&w, "qemu-crash", plays, G_N_ELEMENTS(plays));
        ASSERT_EQ(world_run(&w, &run), 0);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(c[0].cell_key, "c000");
        ASSERT_EQ(c[0].attempt, 1);
        ASSERT_STREQ(c[0].state, CELL_INFRA_ERROR);
        ASSERT_TRUE(strstr(c[0].detail, "QEMU stopped unexpectedly") != NULL);
        ASSERT_STREQ(c[1].cell_key, "c000");
        ASSERT_EQ(c[1].attempt, 2);
        ASSERT_STREQ(c[1].state, CELL_OK);
        ASSERT_EQ(heard_count(&w.heard, "retry c000 infra-error: QEMU stopped unexpectedly"), 1);
        ASSERT_EQ(heard_count(&w.heard, "end ok"), 1);
        /* Two attempts, one progress line. */
        ASSERT_EQ(heard_count(&w.heard, "begin "), 1);
        query_cells_free(c, n);
        world_clear(&w);
}

/* A domain libvirt will not create, --retries times: the cell fails after
 * 1 + retries attempts, the run ends with exit 3. */
TEST(start_failures_use_up_the_retries) {
        static const enum fakehost_play plays[] = { FAKEHOST_START_FAIL, FAKEHOST_START_FAIL };
        struct world w;
        struct query_cell *c = NULL;
        g_autofree char *status = NULL;
        int64_t run = 0;
        size_t n;

        world_init(&w, "start-fail", plays, G_N_ELEMENTS(plays));
        w.o.retries = 1;
        ASSERT_EQ(world_run(&w, &run), 3);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(c[1].state, CELL_INFRA_ERROR);
        ASSERT_TRUE(strstr(c[1].detail, "fake failure") != NULL);
        ASSERT_EQ(heard_count(&w.heard, "retry c000"), 1);
        ASSERT_EQ(heard_count(&w.heard, "end infra-error"), 1);
        /* The run itself went through: failed cells, not an interruption. */
        status = world_status(&w, run);
        ASSERT_STREQ(status, "complete");
        query_cells_free(c, n);
        world_clear(&w);
}

/* A kernel that crashes is the result, never retried. */
TEST(kernel_crash_is_kept_not_retried) {
        static const enum fakehost_play plays[] = { FAKEHOST_KERNEL_CRASH };
        struct world w;
        struct query_cell *c = NULL;
        int64_t run = 0;
        size_t n;

        world_init(&w, "kernel-crash", plays, G_N_ELEMENTS(plays));
        w.o.retries = 2;
        ASSERT_EQ(world_run(&w, &run), 3);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(c[0].state, CELL_RUNTIME_CRASH);
        ASSERT_TRUE(strstr(c[0].detail, "BUG: unable to handle page fault") != NULL);
        ASSERT_EQ(w.fake.started, 1);
        ASSERT_EQ(heard_count(&w.heard, "retry"), 0);
        ASSERT_EQ(heard_count(&w.heard, "end runtime-crash"), 1);
        ASSERT_EQ(w.heard.result_run, run);
        query_cells_free(c, n);
        world_clear(&w);
}

/* A guest that goes silent is a hang once the silence timeout passes. */
TEST(hang_after_the_silence_timeout) {
        static const enum fakehost_play plays[] = { FAKEHOST_HANG };
        struct world w;
        struct query_cell *c = NULL;
        int64_t run = 0, t0 = g_get_monotonic_time();
        size_t n;

        world_init(&w, "hang", plays, G_N_ELEMENTS(plays));
        w.o.hang_timeout_s = 1;
        ASSERT_EQ(world_run(&w, &run), 3);
        ASSERT_TRUE(g_get_monotonic_time() - t0 >= 1000 * 1000);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(c[0].state, CELL_HANG);
        ASSERT_EQ(w.fake.started, 1);
        ASSERT_EQ(heard_count(&w.heard, "end hang"), 1);
        query_cells_free(c, n);
        world_clear(&w);
}

/* The host is lost during the second of three cells: the run stops there
 * (exit 3, status interrupted), keeps what it measured and the lost
 * attempt, and a resumed run finishes only what is missing. */
TEST(lost_host_stops_the_run_resumably) {
        static const enum fakehost_play plays[] = { FAKEHOST_OK, FAKEHOST_LOST };
        struct world w;
        struct query_cell *c = NULL;
        g_autofree char *status = NULL, *status2 = NULL;
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        int64_t run = 0, run2 = 0;
        size_t n;

        world_init(&w, "lost", plays, G_N_ELEMENTS(plays));
        w.o.repeats = 3;
        ASSERT_EQ(world_run(&w, &run), 3);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(c[0].state, CELL_OK);
        ASSERT_STREQ(c[1].state, CELL_INFRA_ERROR);
        ASSERT_TRUE(strstr(c[1].detail, "connection to the host was lost") != NULL);
        /* Not retried on a host that is gone, and no third cell. */
        ASSERT_EQ(w.fake.started, 2);
        ASSERT_EQ(heard_count(&w.heard, "retry"), 0);
        ASSERT_TRUE(heard_find(&w.heard, "stopped host-failed run ") != NULL);
        status = world_status(&w, run);
        ASSERT_STREQ(status, "interrupted");
        query_cells_free(c, n);

        /* The host is back: --resume runs c001 and c002 only. */
        fakehost_clear(&w.fake);
        fakehost_init(&w.fake, w.g.home, FX_RELEASE, NULL, 0);
        world_resume(&w, run, kern, work, keep);
        ASSERT_EQ(w.o.repeats, 3);
        ASSERT_EQ(world_run(&w, &run2), 0);
        ASSERT_EQ(run2, run);
        ASSERT_EQ(w.fake.started, 2);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 4);
        assert_cell(&c[2], "c001", CELL_OK);
        ASSERT_EQ(c[2].attempt, 2);
        assert_cell(&c[3], "c002", CELL_OK);
        status2 = world_status(&w, run);
        ASSERT_STREQ(status2, "complete");
        query_cells_free(c, n);
        world_clear(&w);
}

/* With --max-contention, a cell beside a busy host is measured again, up
 * to --retries more times; the last attempt stands whatever it saw. */
TEST(contended_cell_retried_up_to_the_bound) {
        static const enum fakehost_play plays[] = { FAKEHOST_CONTENDED, FAKEHOST_CONTENDED, FAKEHOST_CONTENDED,
                                                    FAKEHOST_OK };
        struct world w;
        struct query_cell *c = NULL;
        double pct = 0;
        int64_t run = 0;
        size_t n;

        world_init(&w, "contended", plays, G_N_ELEMENTS(plays));
        w.o.max_contention_pct = 50;
        w.o.retries = 2;
        ASSERT_EQ(world_run(&w, &run), 0);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 3);
        for (size_t i = 0; i < n; i++) {
                ASSERT_STREQ(c[i].state, CELL_OK);
                ASSERT_EQ(c[i].attempt, (int)i + 1);
                ASSERT_TRUE(strstr(c[i].detail, "contended:") != NULL);
                ASSERT_TRUE(cell_has_metric(&w, &c[i], "host.foreign_cpu_pct", &pct));
                ASSERT_TRUE(pct > 50);
        }
        ASSERT_EQ(w.fake.started, 3);
        ASSERT_EQ(heard_count(&w.heard, "retry c000 ok: contended:"), 2);
        ASSERT_EQ(heard_count(&w.heard, "end ok: contended:"), 1);
        query_cells_free(c, n);
        world_clear(&w);
}

/* Without --max-contention a busy host is recorded, not retried. */
TEST(contention_without_a_bound_is_recorded_only) {
        static const enum fakehost_play plays[] = { FAKEHOST_CONTENDED };
        struct world w;
        struct query_cell *c = NULL;
        int64_t run = 0;
        size_t n;

        world_init(&w, "contended-free", plays, G_N_ELEMENTS(plays));
        ASSERT_EQ(world_run(&w, &run), 0);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 1);
        ASSERT_TRUE(cell_has_metric(&w, &c[0], "host.foreign_cpu_pct", NULL));
        ASSERT_EQ(w.fake.started, 1);
        query_cells_free(c, n);
        world_clear(&w);
}

/* A stop request (kbench's signal handler sets it) after the first cell:
 * no other cell starts, the run is interrupted and says how to resume. */
TEST(stop_request_ends_the_run_resumably) {
        struct world w;
        struct query_cell *c = NULL;
        g_autofree char *status = NULL;
        int64_t run = 0;
        size_t n;

        world_init(&w, "stop", NULL, 0);
        w.o.repeats = 3;
        w.heard.stop_after_end = &w.stop;
        ASSERT_EQ(world_run(&w, &run), 3);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 1);
        ASSERT_STREQ(c[0].state, CELL_OK);
        status = world_status(&w, run);
        ASSERT_STREQ(status, "interrupted");
        ASSERT_TRUE(heard_find(&w.heard, "stopped interrupted run ") != NULL);
        query_cells_free(c, n);
        world_clear(&w);
}

/* A caller's deadline (a night's) that has passed starts no cell. */
TEST(deadline_passed_starts_no_cell) {
        struct world w;
        struct query_cell *c = NULL;
        g_autofree char *status = NULL;
        int64_t run = 0;
        size_t n;

        world_init(&w, "deadline", NULL, 0);
        w.drive.deadline_at = 1;
        ASSERT_EQ(world_run(&w, &run), 3);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 0);
        ASSERT_EQ(w.fake.started, 0);
        status = world_status(&w, run);
        ASSERT_STREQ(status, "interrupted");
        ASSERT_TRUE(heard_find(&w.heard, "note deadline reached") != NULL);
        query_cells_free(c, n);
        world_clear(&w);
}

/* Resuming a run that has every cell: nothing runs, its result is shown. */
TEST(resume_with_nothing_left) {
        struct world w;
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        int64_t run = 0, run2 = 0;

        world_init(&w, "idle", NULL, 0);
        ASSERT_EQ(world_run(&w, &run), 0);
        world_resume(&w, run, kern, work, keep);
        g_ptr_array_set_size(w.heard.lines, 0);
        w.heard.result_run = 0;
        ASSERT_EQ(world_run(&w, &run2), 0);
        ASSERT_EQ(run2, run);
        ASSERT_EQ(w.fake.started, 1);
        ASSERT_TRUE(heard_find(&w.heard, "every cell is stored, nothing to resume") != NULL);
        ASSERT_EQ(w.heard.result_run, run);
        /* A driver that reports the run itself hears no result. */
        w.drive.quiet = 1;
        w.heard.result_run = 0;
        ASSERT_EQ(world_run(&w, &run2), 0);
        ASSERT_EQ(w.heard.result_run, 0);
        world_clear(&w);
}

/* What the request gets wrong is a usage error (exit 2) before anything
 * is stored; no sink, nothing reported. */
TEST(request_errors_are_usage) {
        struct world w;
        struct kb_error err = { { 0 } };

        world_init(&w, "usage", NULL, 0);
        w.kernels[0] = NULL;
        ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
        ASSERT_TRUE(strstr(err.msg, "no kernel given") != NULL);
        w.kernels[0] = "no-such-kernel";
        err = (struct kb_error){ { 0 } };
        ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
        w.kernels[0] = "fake";
        w.workloads[1] = "dd:size=4M";
        err = (struct kb_error){ { 0 } };
        ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
        ASSERT_TRUE(strstr(err.msg, "is the same workload") != NULL);
        w.workloads[1] = NULL;
        w.o.budget_cells = 4;
        err = (struct kb_error){ { 0 } };
        ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
        ASSERT_TRUE(strstr(err.msg, "budgets of --until-mde") != NULL);
        ASSERT_EQ(w.fake.started, 0);
        ASSERT_EQ(heard_count(&w.heard, "cells"), 0);
        world_clear(&w);
}

/* A workload the runner cannot run is the request's error, said before
 * the store is looked at (a mistyped --store must not hide it, nor an
 * unknown kernel). */
TEST(workload_errors_before_the_store) {
        static const char *const bad[][2] = {
                { "nosuch", "unknown workload 'nosuch'" },
                { "dd:bogus=1", "workload dd: unknown key 'bogus'" },
                { "fio:runtime=0", "workload fio: key 'runtime': '0' is not between 1 and 3600" },
                { "fio:job=/dev/zero", "workload fio: key 'job': /dev/zero: a character device" },
        };
        struct world w;

        world_init(&w, "usage-store", NULL, 0);
        w.kernels[0] = "no-such-kernel";
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                struct kb_error err = { { 0 } };

                w.workloads[0] = (char *)bad[i][0];
                ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
                ASSERT_TRUE(strstr(err.msg, bad[i][1]) == err.msg);
        }
        ASSERT_EQ(w.opens, 0);
        world_clear(&w);
}

/* Two named hosts: each workload's cells on one of them, the hosts at
 * once, every cell on a line of its own naming its host. */
TEST(cells_spread_over_two_hosts) {
        static const char *const hosts[] = { "a=fake:///a", "b=fake:///b", NULL };
        struct world w;
        struct query_cell *c = NULL;
        int64_t run = 0;
        size_t n, on_a = 0;

        world_init(&w, "spread", NULL, 0);
        w.g.hosts = (char **)hosts;
        w.workloads[1] = "dd:size=8M";
        w.o.repeats = 2;
        ASSERT_EQ(world_run(&w, &run), 0);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 4);
        for (size_t i = 0; i < n; i++) {
                ASSERT_STREQ(c[i].state, CELL_OK);
                on_a += strstr(c[i].params_json, "\"a\"") != NULL;
        }
        ASSERT_EQ(on_a, 2);
        /* Which host runs each workload's cells is said first. */
        ASSERT_EQ(heard_count(&w.heard, "note dd:"), 2);
        ASSERT_EQ(heard_count(&w.heard, "end c0"), 4);
        ASSERT_TRUE(heard_find(&w.heard, " on a: ok") != NULL);
        ASSERT_TRUE(heard_find(&w.heard, " on b: ok") != NULL);
        /* No shared progress line beside other hosts. */
        ASSERT_EQ(heard_count(&w.heard, "begin"), 0);
        w.g.hosts = NULL;
        query_cells_free(c, n);
        world_clear(&w);
}

/* --until-mde: rounds until the rule says enough, within the budget; the
 * rule's answer is said after each round it looks at. */
TEST(until_mde_stops_when_the_rule_says) {
        struct world w;
        struct query_cell *c = NULL;
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        int64_t run = 0, run2 = 0;
        size_t n, started;

        world_init(&w, "until-mde", NULL, 0);
        w.o.until_mde_pct = 10;
        w.o.budget_cells = 6;
        w.o.repeats = 2;
        ASSERT_EQ(world_run(&w, &run), 0);
        n = world_cells(&w, run, &c);
        ASSERT_TRUE(n >= 2 && n <= 6);
        ASSERT_TRUE(heard_find(&w.heard, "note round 2: mde ") != NULL);
        query_cells_free(c, n);
        /* The rule's answer is stored: resumed, the run has nothing left,
         * though its plan (the budget's rounds) holds more cells. */
        world_resume(&w, run, kern, work, keep);
        started = w.fake.started;
        ASSERT_EQ(world_run(&w, &run2), 0);
        ASSERT_EQ(run2, run);
        ASSERT_EQ(w.fake.started, started);
        ASSERT_TRUE(heard_find(&w.heard, "every cell is stored, nothing to resume") != NULL);
        world_clear(&w);
}

/* A run option as a night's file spells it (nightly_config_option_key's
 * rule for these; run/ cannot reach nightly/). */
static const char *nightly_like_key(const char *option) {
        static const char *const keys[][2] = { { "until-mde", "until_mde" }, { "budget-cells", "budget_cells" },
                                               { "repeat", "repeats" }, { "connect", "hosts" } };

        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
                if (strcmp(option, keys[i][0]) == 0)
                        return keys[i][1];
        return option;
}

/* A run option as kbench run spells it (cli_flag_name's rule). */
static const char *flag_name(const char *option) {
        g_autofree char *flag = g_strconcat("--", option, NULL);

        return g_intern_string(flag);
}

/* What --until-mde's request gets wrong is a usage error found before the
 * store is opened: a budget without it, none with it, a target inside
 * compare's noise band, several hosts, a budget smaller than the pilot. */
TEST(until_mde_request_errors_are_usage) {
        static const char *const two[] = { "a=fake:///a", "b=fake:///b", NULL };
        static const struct {
                double pct, time_s;
                int cells, hosts;
                const char *says;
        } bad[] = {
                { 0, 60, 0, 0, "--budget-cells and --budget-time are budgets of --until-mde" },
                { 10, 0, 0, 0, "--until-mde needs a budget" },
                { 2, 0, 6, 0, "--until-mde 2% lies within compare's noise band (2%)" },
                { 10, 0, 6, 1, "--until-mde runs on one host" },
                { 10, 0, 1, 0, "--budget-cells 1 is less than the pilot: 2 round(s) of 1 cell(s) (--repeat, at "
                               "least 2)" },
        };
        static const struct {
                double pct;
                int cells, hosts;
                const char *says;
        } bad_keys[] = {
                { 10, 0, 0, "until_mde needs a budget: budget_cells or budget_time" },
                { 10, 6, 1, "until_mde runs on one host, not 2 (hosts)" },
                { 10, 1, 0, "budget_cells 1 is less than the pilot: 2 round(s) of 1 cell(s) (repeats, at least 2)" },
        };
        struct world w;

        world_init(&w, "until-mde-usage", NULL, 0);
        w.drive.option_name = flag_name;
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                struct kb_error err = { { 0 } };

                w.o.until_mde_pct = bad[i].pct;
                w.o.budget_time_s = bad[i].time_s;
                w.o.budget_cells = bad[i].cells;
                w.g.hosts = bad[i].hosts ? (char **)two : NULL;
                ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
                ASSERT_TRUE(strstr(err.msg, bad[i].says) == err.msg);
        }
        /* A night's driver names them as its file does. */
        w.drive = (struct runner_drive){ .option_name = nightly_like_key, .spelling = JUDGEOPTS_KEYS,
                                         .events = w.drive.events, .hosts = w.drive.hosts, .stop = w.drive.stop };
        for (size_t i = 0; i < G_N_ELEMENTS(bad_keys); i++) {
                struct kb_error err = { { 0 } };

                w.o.until_mde_pct = bad_keys[i].pct;
                w.o.budget_time_s = 0;
                w.o.budget_cells = bad_keys[i].cells;
                w.g.hosts = bad_keys[i].hosts ? (char **)two : NULL;
                ASSERT_EQ(runner_run(&w.o, &w.drive, &w.g, &w.s, NULL, &err), 2);
                ASSERT_STREQ(err.msg, bad_keys[i].says);
        }
        w.g.hosts = NULL;
        ASSERT_EQ(w.opens, 0);
        world_clear(&w);
}

/* The files in <home>/pending, where a cell the database refused waits. */
static size_t pending_files(const struct world *w) {
        g_autofree char *dir = g_build_filename(w->g.home, "pending", NULL);
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        size_t n = 0;

        while (d && g_dir_read_name(d))
                n++;
        return n;
}

/* A commit that fails (a full disk, as it were) even once the store's
 * reserve is given back: the attempt is kept as a pending file, said with
 * how to go on, and the run stops resumably; --resume stores the kept
 * cell first, then runs only the cells left. */
TEST(failed_commit_kept_pending_until_resume) {
        struct world w;
        struct query_cell *c = NULL;
        struct db *db = NULL;
        struct kb_error err = { { 0 } };
        sqlite3 *h = NULL;
        g_autofree char *reserve = NULL, *status = NULL, *status2 = NULL;
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        int64_t run = 0, run2 = 0;
        size_t n;

        world_init(&w, "pending", NULL, 0);
        w.o.repeats = 2;
        reserve = g_build_filename(w.g.home, "reserve", NULL);
        /* The database exists before the run and refuses every cell. */
        ASSERT_EQ(db_open(w.g.db_path, &db, &err), 0);
        db_close(db);
        ASSERT_EQ(sqlite3_open(w.g.db_path, &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "CREATE TRIGGER refuse BEFORE INSERT ON cells "
                                  "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END", NULL, NULL, NULL),
                  SQLITE_OK);
        ASSERT_EQ(world_run(&w, &run), 3);
        ASSERT_EQ(w.fake.started, 1);
        ASSERT_TRUE(heard_find(&w.heard, "kept c000 run ") != NULL);
        ASSERT_TRUE(heard_find(&w.heard, "stopped host-failed run ") != NULL);
        /* The reserve was given back for a second try. */
        ASSERT_TRUE(!g_file_test(reserve, G_FILE_TEST_EXISTS));
        ASSERT_EQ(pending_files(&w), 1);
        ASSERT_EQ(world_cells(&w, run, &c), 0);
        query_cells_free(c, 0);
        status = world_status(&w, run);
        ASSERT_STREQ(status, "interrupted");

        /* Room again: the kept cell is stored, and only c001 runs. */
        ASSERT_EQ(sqlite3_exec(h, "DROP TRIGGER refuse", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        world_resume(&w, run, kern, work, keep);
        ASSERT_EQ(world_run(&w, &run2), 0);
        ASSERT_EQ(run2, run);
        ASSERT_TRUE(heard_find(&w.heard, "note stored 1 cell(s) kept in ") != NULL);
        ASSERT_EQ(w.fake.started, 2);
        ASSERT_EQ(pending_files(&w), 0);
        n = world_cells(&w, run, &c);
        ASSERT_EQ(n, 2);
        assert_cell(&c[0], "c000", CELL_OK);
        assert_cell(&c[1], "c001", CELL_OK);
        status2 = world_status(&w, run);
        ASSERT_STREQ(status2, "complete");
        query_cells_free(c, n);
        world_clear(&w);
}
