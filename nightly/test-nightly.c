/* Unit tests for nightly/nightly.c and its rooms (night_*.c): whole
 * nights without a guest. The night reads a real configuration, imports
 * real (synthetic) bzImages from a drop directory into a real kernel
 * store, reads and writes a real SQLite results database, and measures
 * through the runner of `kbench run` itself (runner_run), whose hosts are
 * the scripted fake of run/test-fakehost.h, given to the night as
 * cli/cli_nightly.c gives it libvirt's (nightly_opts.hosts): its guests
 * boot and run dd, panic at boot, hang, lose their host or share it with
 * a busy neighbour, one script entry per attempt, and its QEMU counts each
 * kernel's instructions and waiting in the write phase as the world's
 * table says (and where they ran). The runner in nightly_ops is
 * runner_run behind a wrapper that counts the runs and shortens the
 * silence after which a cell is a hang; the bisection is bisect_run, on
 * the same host. The nights: a good one (runs stored, the site published,
 * no mail), one with a regression (its report and mail, and its mail's
 * thread over three nights), a kernel that panics at boot, a hang that
 * runs past the deadline, a signal, a host lost mid-run, a contended
 * cell, a night cut short by losing its last host that the next night
 * resumes, and a regression bisected. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <utime.h>

#include "cell/cell.h"
#include "cell/endstate.h"
#include "common/test-scratch.h"
#include "common/test.h"
#include "kernels/kstore.h"
#include "kernels/test-fixtures.h"
#include "nightly/nightly.h"
#include "nightly/nightly_events.h"
#include "nightly/nightly_ops.h"
#include "nightly/nightly_report.h"
#include "results/db.h"
#include "results/query.h"
#include "run/runner.h"
#include "run/test-fakehost.h"
#include "settings/runopts.h"
#include "store/store.h"

TEST_MAIN();

#define BASE "6.1.0-47-amd64"
#define NEW "6.1.0-57-amd64"
#define BAD "6.1.0-58-amd64"
#define REPEATS 5
/* The silence after which a night's cell is a hang, rather than the
 * runner's 60 s: within what the runner's options take (--hang-timeout, at
 * least 5 s), so that a run cut short with it stored is resumed
 * (runner_load_resume checks it). */
#define HANG_TIMEOUT_S 10.0
/* The hang's night: its deadline after the test starts it. The hung cell
 * starts before it (after the baseline's first cell: about a second on a
 * busy host, a few under a sanitizer) and its silence outlasts it, as
 * HANG_TIMEOUT_S > HANG_DEADLINE_S. */
#define HANG_DEADLINE_S 8.0

/* ---- a store, its kernels, its host and its configuration ------------------ */

struct world {
        char *home;                        /* KBENCH_HOME of the nights */
        char *drop, *drop_slow;            /* the sources' directories */
        char *site, *mail;                 /* publish_dir, what notify wrote */
        char *config;
        struct store_ctx g;
        struct fakehost host;              /* where the nights' runs boot their guests */
        struct run_host_backend backend;
        enum fakehost_play plays[4 * REPEATS]; /* the host's script, one entry per attempt */
        struct fakehost_counts counts[4];  /* what its QEMU counts of a kernel; ended by a NULL kernel */
        char *count_dirs[4];
        const char *slow[2];               /* the kernel whose dd writes at half the speed, or none */
        char *slow_dir;
        struct nightly_ops ops;            /* the real table, its runner and bisection wrapped */
};

static struct world *session_world;       /* the store session's, for its open(), and the runner's */

/* What the nights asked of the runner and of the bisection. */
static struct fake {
        int n_runs;                        /* runs started or resumed */
        char **hosts_seen;                 /* g->hosts of the last run (copy) */
        char *connect_seen;
        int interrupt_after_run;           /* a signal arrives once a run ended */
        double started_ago_s;              /* > 0: the next night started this long ago (its first reading
                                              of the clock) */
        char **bisected;                   /* the kernels the last bisection was given */
} fake;

/* The runner of `kbench run` as the night drives it: its hosts are the
 * night's (nightly_opts.hosts, the fake host), and what the night asked
 * is run as asked but for the silence after which a cell is a hang
 * (HANG_TIMEOUT_S rather than the runner's 60 s, as run/test-runner.c
 * keeps it short). A signal the test sends arrives after the run, as
 * cli/setup.c's handler would set cell_interrupted. */
static int night_runner(const struct run_settings *o, const struct runner_drive *drive, const struct store_ctx *g,
                        struct store_session *s, int64_t *ret_run_id, struct kb_error *err) {
        struct run_settings quick = *o;
        int code;

        ASSERT_TRUE(drive && drive->quiet && drive->deadline_at > 0 && drive->hosts == &session_world->backend);
        fake.n_runs++;
        g_strfreev(fake.hosts_seen);
        fake.hosts_seen = g_strdupv(g->hosts);
        g_free(fake.connect_seen);
        fake.connect_seen = g_strdup(g->connect);
        quick.hang_timeout_s = HANG_TIMEOUT_S;
        code = runner_run(&quick, drive, g, s, ret_run_id, err);
        if (fake.interrupt_after_run)
                cell_interrupted = 1;
        return code;
}

/* The bisection of `kbench bisect` as the night drives it, on the
 * night's hosts; the kernels it was given are kept for the test. */
static int night_bisect(const struct bisect_opts *o, const struct store_ctx *g, struct store_session *s,
                        struct bisect_answer *ret, struct kb_error *err) {
        ASSERT_TRUE(o->quiet && o->deadline_at > 0 && g_strv_length(o->kernels) >= 2 &&
                    o->hosts == &session_world->backend);
        g_strfreev(fake.bisected);
        fake.bisected = g_strdupv(o->kernels);
        return bisect_run(o, g, s, ret, err);
}

/* The wall clock, but for the night's first reading, its start, which is
 * fake.started_ago_s back: a night that began that long ago, so that its
 * deadline comes within seconds on the wall clock, which the runner reads
 * it against (run/runner_loop.c) as the night does between its runs. */
static double clock_started_ago(void) {
        double now = (double)g_get_real_time() / 1e6 - fake.started_ago_s;

        fake.started_ago_s = 0;
        return now;
}

/* cli/setup.c's part of the session: the kernel store, then the database. */
static int world_open(struct store_session *s, unsigned parts, struct kb_error *err) {
        return fakehost_session_parts(s, &session_world->g, parts, err);
}

/* The bzImage of release: the same bytes each time (xz, unlike gzip,
 * stores no time). */
static GByteArray *kernel_image(const char *release) {
        g_autofree char *version = g_strdup_printf("%s (kbench@test) #1 SMP PREEMPT_DYNAMIC Debian", release);
        g_autofree char *banner = g_strdup_printf("Linux version %s\n", version);
        GByteArray *elf = fx_elf(1, banner), *z = fx_compress(elf->data, elf->len, "xz");
        GByteArray *img = fx_bzimage(z, elf->len, version);

        g_byte_array_unref(elf);
        g_byte_array_unref(z);
        return img;
}

/* The bzImage of release dropped into dir, old enough to be settled. */
static void drop_kernel(const char *dir, const char *release) {
        g_autofree char *path = g_strdup_printf("%s/vmlinuz-%s", dir, release);
        GByteArray *img = kernel_image(release);
        struct utimbuf old = { time(NULL) - 600, time(NULL) - 600 };

        ASSERT_TRUE(g_file_set_contents(path, (const char *)img->data, img->len, NULL));
        ASSERT_EQ(utime(path, &old), 0);
        g_byte_array_unref(img);
}

/* Where the store keeps the kernel of release once a night imported it:
 * the directory named by its image's SHA-256 (kernels/kstore.h), which
 * the fake host knows a kernel by (its image's path). g_free. */
static char *store_dir_of(const struct world *w, const char *release) {
        g_autofree char *kdir = store_kernels_dir(&w->g);
        GByteArray *img = kernel_image(release);
        g_autofree char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, img->data, img->len);

        g_byte_array_unref(img);
        return g_strconcat(kdir, G_DIR_SEPARATOR_S, sum, G_DIR_SEPARATOR_S, NULL);
}

/* The kernel of release executes write_Minsn million kernel instructions
 * writing, and waits wait_s seconds (release NULL: every kernel). */
static void world_counts(struct world *w, const char *release, double write_Minsn, double wait_s) {
        size_t i = 0;

        while (w->counts[i].kernel)
                i++;
        ASSERT_TRUE(i + 1 < G_N_ELEMENTS(w->counts));
        w->count_dirs[i] = release ? store_dir_of(w, release) : g_strdup("");
        w->counts[i] = (struct fakehost_counts){ w->count_dirs[i], write_Minsn, wait_s };
}

/* The kernel of release writes at half the speed. */
static void world_slow(struct world *w, const char *release) {
        g_free(w->slow_dir);
        w->slow_dir = store_dir_of(w, release);
        w->slow[0] = w->slow_dir;
}

/* The host's script: the attempt after those scripted plays p (an
 * attempt past the script plays OK). */
static void world_play(struct world *w, enum fakehost_play p) {
        ASSERT_TRUE(w->host.n_plays < G_N_ELEMENTS(w->plays));
        w->plays[w->host.n_plays++] = p;
}

/* The host, its guests saying their kernel's release, their times and
 * counts jittered, its kernels' counts and speeds the world's. */
static void world_host_init(struct world *w) {
        fakehost_init(&w->host, w->home, NULL, w->plays, 0);
        w->host.jitter = 1;
        w->host.counts = w->counts;
        w->host.profile = 1;
        w->host.slow = w->slow;
}

/* The host as new: a lost one back, its script done. */
static void world_host_new(struct world *w) {
        fakehost_clear(&w->host);
        world_host_init(w);
}

static struct world *world_new(const char *name) {
        static const char *const plugins[][2] = { { "KBENCH_INSN_PLUGIN", "libkbinsn.so" },
                                                  { "KBENCH_PROF_PLUGIN", "libkbprof.so" } };
        struct world *w = g_new0(struct world, 1);

        test_scratch("nightly-XXXXXX");
        test_scratch_keep_if("TEST_NIGHTLY_KEEP");     /* its stores, for kbench show and compare */
        w->home = test_scratch_path(name);
        w->drop = g_build_filename(w->home, "drop", NULL);
        w->drop_slow = g_build_filename(w->home, "drop-slow", NULL);
        w->site = g_build_filename(w->home, "site", NULL);
        w->mail = g_build_filename(w->home, "mail.txt", NULL);
        w->config = g_build_filename(w->home, "night.json", NULL);
        ASSERT_EQ(g_mkdir_with_parents(w->drop, 0755), 0);
        ASSERT_EQ(g_mkdir_with_parents(w->drop_slow, 0755), 0);
        /* The runner hands QEMU the plugins it finds, built or not: the
         * fake QEMU loads nothing, it counts and profiles itself. */
        for (size_t i = 0; i < G_N_ELEMENTS(plugins); i++) {
                g_autofree char *path = g_build_filename(w->home, plugins[i][1], NULL);

                ASSERT_TRUE(g_file_set_contents(path, "the fake host's QEMU runs without it\n", -1, NULL));
                ASSERT_TRUE(g_setenv(plugins[i][0], path, TRUE));
        }
        w->g.home = w->home;
        w->g.db_path = g_build_filename(w->home, "results.db", NULL);
        world_host_init(w);
        w->backend = fakehost_backend(&w->host);
        w->ops = nightly_ops_real;
        w->ops.run = night_runner;
        w->ops.bisect = night_bisect;
        fake = (struct fake){ 0 };
        cell_interrupted = 0;
        return w;
}

static void world_free(struct world *w) {
        fakehost_clear(&w->host);
        for (size_t i = 0; i < G_N_ELEMENTS(w->count_dirs); i++)
                g_free(w->count_dirs[i]);
        g_free(w->slow_dir);
        g_free(w->drop);
        g_free(w->drop_slow);
        g_free(w->site);
        g_free(w->mail);
        g_free(w->config);
        g_free(w->g.db_path);
        free(w->home);
        g_free(w);
        g_strfreev(fake.hosts_seen);
        g_free(fake.connect_seen);
        g_strfreev(fake.bisected);
        fake = (struct fake){ 0 };
        cell_interrupted = 0;
}

/* The configuration: the drop directory, dd at REPEATS on the smallest
 * disk, a 1 h deadline, the site and a notify command; extra (may be
 * NULL) is merged in. */
static void world_config(struct world *w, json_t *extra) {
        g_autofree char *notify = g_strdup_printf("cat >> '%s'", w->mail);
        json_t *cfg = json_pack("{s:[{s:s, s:s}], s:s, s:[s], s:i, s:s, s:s, s:s, s:s, s:f, s:{s:s}}",
                                "sources", "type", "dir", "path", w->drop, "baseline", BASE, "workloads",
                                "dd:size=4M", "repeats", REPEATS, "deadline", "1h", "publish_dir", w->site,
                                "base_url", "https://kbench.example.org/nightly", "notify", notify, "alpha", 0.05,
                                "vm", "disk_size", "64M");

        if (extra) {
                json_object_update(cfg, extra);
                json_decref(extra);
        }
        ASSERT_EQ(json_dump_file(cfg, w->config, 0), 0);
        json_decref(cfg);
}

/* ---- the events of a night ------------------------------------------------ */

struct recorded {
        GArray *events;                    /* struct kb_event, strings and pointers cleared */
        GPtrArray *texts;                  /* ERROR and NOTIFY_FAILED texts */
        json_t *report;                    /* the REPORT event's report, as JSON */
        char *report_text;                 /* and as text */
        size_t plan_groups, plan_new;      /* the PLAN event's */
        char *bisect_bad;
};

/* The night's sink. Its runs' and bisections' events come here too; they
 * are kept by kind only, and count_events asks for the night's. */
static int record(void *ctx, const struct kb_event *ev) {
        struct recorded *rec = ctx;
        struct kb_event copy = { .kind = ev->kind, .origin = ev->origin, .run_id = ev->run_id, .total = ev->total,
                                 .group = ev->group, .n_groups = ev->n_groups, .code = ev->code,
                                 .interrupted = ev->interrupted };
        size_t len = 0;
        FILE *f;

        g_array_append_val(rec->events, copy);
        if (ev->kind == KB_EVENT_NIGHT_ERROR || ev->kind == KB_EVENT_NIGHT_NOTIFY_FAILED)
                g_ptr_array_add(rec->texts, g_strdup(ev->text));
        if (ev->kind == KB_EVENT_NIGHT_PLAN) {
                rec->plan_groups = ev->plan->plan->n_groups;
                rec->plan_new = ev->plan->plan->n_new;
        }
        if (ev->kind == KB_EVENT_NIGHT_REPORT) {
                ASSERT_TRUE(!rec->report);
                rec->report = nightly_report_json(ev->report);
                f = open_memstream(&rec->report_text, &len);
                nightly_report_text(ev->report, f);
                fclose(f);
        }
        return 0;
}

static void recorded_clear(struct recorded *rec) {
        if (rec->events)
                g_array_free(rec->events, TRUE);
        if (rec->texts)
                g_ptr_array_unref(rec->texts);
        json_decref(rec->report);
        free(rec->report_text);
        *rec = (struct recorded){ 0 };
}

/* How many events of kind were recorded; *ret (may be NULL) the first. */
static size_t count_events(const struct recorded *rec, enum kb_event_kind kind, struct kb_event *ret) {
        size_t n = 0;

        for (guint i = 0; i < rec->events->len; i++) {
                const struct kb_event *ev = &g_array_index(rec->events, struct kb_event, i);

                if (ev->kind != kind)
                        continue;
                if (n++ == 0 && ret)
                        *ret = *ev;
        }
        return n;
}

/* How many notes of origin were recorded. */
static size_t count_notes(const struct recorded *rec, enum kb_event_origin origin) {
        size_t n = 0;

        for (guint i = 0; i < rec->events->len; i++) {
                const struct kb_event *ev = &g_array_index(rec->events, struct kb_event, i);

                n += ev->kind == KB_EVENT_NOTE && ev->origin == origin;
        }
        return n;
}

/* One night over w's store, as cli/cli_nightly.c runs it: a session
 * opened for it and closed after it, its runs on w's host. */
static int night(struct world *w, int dry_run, struct recorded *rec) {
        struct kb_sink sink = { record, rec };
        struct nightly_opts o = { .config_path = w->config, .dry_run = dry_run, .events = &sink,
                                  .hosts = &w->backend, .ops = &w->ops };
        struct store_session s = { .open = world_open };
        struct kb_error err = { { 0 } };
        int code;

        recorded_clear(rec);
        rec->events = g_array_new(FALSE, TRUE, sizeof(struct kb_event));
        rec->texts = g_ptr_array_new_with_free_func(g_free);
        session_world = w;
        code = nightly_run(&o, &w->g, &s, &err);
        if (code == 1 || code == 2)
                fprintf(stderr, "night: exit %d: %s\n", code, err.msg);
        /* To read what a failing case's nights said. */
        if (getenv("TEST_NIGHTLY_DEBUG") && rec->report_text)
                fprintf(stderr, "%s", rec->report_text);
        kstore_free(s.ks);
        db_close(s.db);
        return code;
}

/* The runs' statuses, "complete,interrupted" (g_free). */
static char *run_statuses(const struct world *w) {
        struct db *db = NULL;
        struct query_run *runs = NULL;
        struct kb_error err = { { 0 } };
        GString *s = g_string_new("");
        size_t n = 0;

        ASSERT_EQ(db_open(w->g.db_path, &db, &err), 0);
        ASSERT_EQ(query_runs(db, &runs, &n, &err), 0);
        for (size_t i = 0; i < n; i++)
                g_string_append_printf(s, "%s%s", i ? "," : "", runs[i].status);
        query_runs_free(runs, n);
        db_close(db);
        return g_string_free(s, FALSE);
}

static const char *json_str(const json_t *j, const char *path0, size_t i, const char *path1) {
        const json_t *v = json_object_get(j, path0);

        if (json_is_array(v))
                v = json_array_get(v, i);
        if (path1)
                v = json_object_get(v, path1);
        return json_string_value(v);
}

static size_t json_len(const json_t *j, const char *key) {
        return json_array_size(json_object_get(j, key));
}

static char *read_text(const char *path) {
        char *text = NULL;

        return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

/* ---- the nights ------------------------------------------------------------ */

/* Both kernels measured alike: one complete run of 2 x REPEATS cells,
 * one comparison that finds nothing, the site published, no mail; the
 * next night has nothing new and adds no run. */
TEST(good_night) {
        struct world *w = world_new("good");
        struct recorded rec = { 0 };
        struct kb_event ev;
        g_autofree char *statuses = NULL, *index = NULL;

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, NULL);

        ASSERT_EQ(night(w, 1, &rec), 0);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_PLAN, NULL), 1);
        ASSERT_EQ(rec.plan_groups, 1);
        ASSERT_EQ(rec.plan_new, 1);
        ASSERT_EQ(fake.n_runs, 0);
        ASSERT_TRUE(!rec.report);

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 1);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_RUN_DONE, &ev), 1);
        ASSERT_EQ(ev.code, 0);
        ASSERT_EQ(ev.n_groups, 1);
        /* The run spoke to the night's sink, once a cell; its result is
         * the night's report, not a summary of its own. */
        ASSERT_EQ(count_events(&rec, KB_EVENT_CELLS, &ev), 1);
        ASSERT_EQ(ev.total, 2 * REPEATS);
        ASSERT_EQ(count_events(&rec, KB_EVENT_CELL_END, NULL), 2 * REPEATS);
        ASSERT_EQ(count_events(&rec, KB_EVENT_RESULT, NULL), 0);
        statuses = run_statuses(w);
        ASSERT_STREQ(statuses, "complete");
        ASSERT_EQ(json_len(rec.report, "measured"), 2);
        ASSERT_EQ(json_len(rec.report, "compared"), 1);
        ASSERT_EQ(json_len(rec.report, "findings"), 0);
        ASSERT_EQ(json_len(rec.report, "failures"), 0);
        ASSERT_EQ(json_len(rec.report, "errors"), 0);
        ASSERT_TRUE(strstr(rec.report_text, "verdict: no regression\n"));
        index = g_build_filename(w->site, "index.html", NULL);
        ASSERT_TRUE(g_file_test(index, G_FILE_TEST_IS_REGULAR));
        ASSERT_TRUE(!g_file_test(w->mail, G_FILE_TEST_EXISTS));
        /* No runner was given hosts: the store's own connection. */
        ASSERT_TRUE(!fake.hosts_seen);

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 1);
        ASSERT_TRUE(strstr(rec.report_text, "nightly: nothing new to measure\n"));
        recorded_clear(&rec);
        world_free(w);
}

/* A kernel that spends 30 % more instructions writing: the finding, the regression with the
 * commands that reproduce it and its page, the mail to notify. */
TEST(regression_is_reported_and_mailed) {
        struct world *w = world_new("regression");
        struct recorded rec = { 0 };
        g_autofree char *mail = NULL;

        world_counts(w, BAD, 1300, 0.02);
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, BAD);
        world_config(w, NULL);

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_STREQ(json_str(rec.report, "findings", 0, "kernel"), BAD);
        ASSERT_STREQ(json_str(rec.report, "findings", 0, "metric"), "guest.write.kernel_Minsn");
        ASSERT_STREQ(json_str(rec.report, "findings", 0, "verdict"), "worse");
        ASSERT_TRUE(strstr(rec.report_text, BAD ": guest.write.kernel_Minsn +30.0 % vs " BASE " (p="));
        ASSERT_TRUE(strstr(rec.report_text, "verdict: REGRESSION\n"));
        mail = read_text(w->mail);
        ASSERT_TRUE(mail);
        ASSERT_TRUE(strstr(mail, "Subject: [kbench] " BAD ": guest.write.kernel_Minsn +30.0% regression vs " BASE
                                 "\n"));
        ASSERT_TRUE(strstr(mail, "kbench run "));
        ASSERT_TRUE(strstr(mail, "page: https://kbench.example.org/nightly/"));
        /* The host line: what the fake host's QEMU and libvirt say they are. */
        ASSERT_TRUE(strstr(mail, "\n  host ") && strstr(mail, " RAM, tcg, QEMU 8.2.0, libvirt 10.0.0\n"));
        /* The mail says where the kernel's extra instructions went. */
        ASSERT_TRUE(strstr(mail, "    where, Minsn a cell (1000 -> 1300, 5 + 5 cells profiled): submit_bio +300 "
                                 "(+30.0%),\n      vfs_write 0"));
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_NOTIFY_FAILED, NULL), 0);
        recorded_clear(&rec);
        world_free(w);
}

/* The Message-ID of the last message in mail (text from after), or NULL. */
static char *last_message_id(const char *mail, size_t after) {
        const char *at = NULL;

        for (const char *p = mail + after; (p = strstr(p, "Message-ID: ")); p++)
                at = p;
        return at ? g_strndup(at + 12, strcspn(at + 12, "\n")) : NULL;
}

/* The file of release in dir dropped again (the same bytes, age_s old):
 * its source finds it again. */
static void drop_again(const char *dir, const char *release, time_t age_s) {
        g_autofree char *path = g_strdup_printf("%s/vmlinuz-%s", dir, release);
        struct utimbuf old = { time(NULL) - age_s, time(NULL) - age_s };

        ASSERT_EQ(utime(path, &old), 0);
}

/* Once the wall clock's next second has come: a night's mail is named by
 * the second the night began (nightly_mail_id), and nights a day apart
 * never share one. */
static void next_second(void) {
        g_usleep((gulong)(G_USEC_PER_SEC - g_get_real_time() % G_USEC_PER_SEC) + 1000);
}

/* One regression over three nights, each measuring its kernel again (its
 * file dropped again, more repeats wanted): new (a thread's first message), still there (a reply
 * to night 1's), then gone (a message that ends the thread, a reply to
 * both). The thread is made again each night from the comparisons the
 * store recorded: nothing of a mail is stored. */
TEST(regression_threads_its_mail_across_nights) {
        struct world *w = world_new("thread");
        struct recorded rec = { 0 };
        g_autofree char *mail = NULL, *id1 = NULL, *id2 = NULL, *refs = NULL;
        size_t seen;

        world_counts(w, BAD, 1300, 0.02);
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, BAD);
        world_config(w, NULL);
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        mail = read_text(w->mail);
        ASSERT_TRUE(mail && !strstr(mail, "In-Reply-To:"));
        id1 = last_message_id(mail, 0);
        ASSERT_TRUE(id1);
        seen = strlen(mail);

        next_second();
        drop_again(w->drop, BAD, 700);
        world_config(w, json_pack("{s:i}", "repeats", 2 * REPEATS));
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(fake.n_runs, 2);
        g_free(mail);
        mail = read_text(w->mail);
        refs = g_strdup_printf("In-Reply-To: %s\nReferences: %s\n", id1, id1);
        ASSERT_TRUE(strstr(mail + seen, refs));
        ASSERT_TRUE(strstr(mail + seen, "Subject: Re: [kbench] " BAD ": guest.write.kernel_Minsn +30.0% regression"));
        id2 = last_message_id(mail, seen);
        ASSERT_TRUE(id2 && strcmp(id1, id2) != 0);
        seen = strlen(mail);

        w->counts[0].write_Minsn = 1000;
        next_second();
        drop_again(w->drop, BAD, 800);
        world_config(w, json_pack("{s:i}", "repeats", 4 * REPEATS));   /* 5 + 10 cells measured */
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 3);
        g_free(mail);
        mail = read_text(w->mail);
        g_free(refs);
        refs = g_strdup_printf("In-Reply-To: %s\nReferences: %s\n %s\n", id2, id1, id2);
        ASSERT_TRUE(strstr(mail + seen, refs));
        ASSERT_TRUE(strstr(mail + seen, "Subject: Re: [kbench] " BAD ": guest.write.kernel_Minsn regression vs " BASE
                                        " fixed\n"));
        recorded_clear(&rec);
        world_free(w);
}

/* A kernel that panics at boot: each of its cells fails; the night says
 * where and how, and mails it. */
TEST(kernel_that_crashes_at_boot) {
        struct world *w = world_new("crash");
        struct recorded rec = { 0 };
        g_autofree char *mail = NULL;
        const json_t *f;

        for (size_t i = 0; i < REPEATS; i++) {         /* the cells of a round: the baseline's, then BAD's */
                world_play(w, FAKEHOST_OK);
                world_play(w, FAKEHOST_BOOT_CRASH);
        }
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, BAD);
        world_config(w, NULL);

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(json_len(rec.report, "failures"), 1);
        f = json_array_get(json_object_get(rec.report, "failures"), 0);
        ASSERT_STREQ(json_string_value(json_object_get(f, "kernel")), BAD);
        ASSERT_STREQ(json_string_value(json_object_get(f, "state")), CELL_BOOT_CRASH);
        ASSERT_STREQ(json_string_value(json_object_get(f, "stage")), "boot");
        ASSERT_EQ(json_integer_value(json_object_get(f, "failed")), REPEATS);
        ASSERT_EQ(json_integer_value(json_object_get(f, "cells")), REPEATS);
        ASSERT_EQ(w->host.started, 2 * REPEATS);       /* a crash is the kernel's: never retried */
        mail = read_text(w->mail);
        ASSERT_TRUE(mail && strstr(mail, "Subject: [kbench] " BAD ": failed at boot (boot-crash)"));
        recorded_clear(&rec);
        world_free(w);
}

/* A baseline whose every cell crashes: the new kernel cannot be judged,
 * and the night says so instead of "no regression" (the baseline's own
 * failures are reported too). */
TEST(baseline_without_an_ok_cell_judges_nothing) {
        struct world *w = world_new("base-crash");
        struct recorded rec = { 0 };
        const json_t *errors;
        int said = 0;

        for (size_t i = 0; i < REPEATS; i++) {
                world_play(w, FAKEHOST_BOOT_CRASH);
                world_play(w, FAKEHOST_OK);
        }
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, NULL);

        ASSERT_TRUE(night(w, 0, &rec) != NIGHTLY_EXIT_OK);
        errors = json_object_get(rec.report, "errors");
        for (size_t i = 0; i < json_array_size(errors); i++)
                said += strstr(json_string_value(json_array_get(errors, i)), "the baseline has no ok cell in run ") != NULL;
        ASSERT_EQ(said, 1);
        ASSERT_TRUE(!strstr(rec.report_text, "verdict: no regression\n"));
        recorded_clear(&rec);
        world_free(w);
}

/* A second source measures the kernels again with a throttled disk: two
 * runs in the plan. */
static json_t *two_sources(const struct world *w) {
        return json_pack("{s:[{s:s, s:s}, {s:s, s:s, s:s, s:{s:i}}]}", "sources", "type", "dir", "path", w->drop,
                         "type", "dir", "path", w->drop_slow, "name", "slow-", "overrides", "disk_mbps", 50);
}

/* A kernel whose first cell hangs until past the deadline: its run stops
 * (interrupted, exit 3), the plan's second run is not started, the report
 * says the night is incomplete and names the hang; the next night resumes
 * the run and measures what is left. The night started almost an hour
 * ago: its 1 h deadline comes HANG_DEADLINE_S after the test starts it,
 * once the hung cell started and before its silence timeout
 * (HANG_TIMEOUT_S) ends it. */
TEST(hang_reaches_the_deadline_and_the_next_night_resumes) {
        struct world *w = world_new("hang");
        struct recorded rec = { 0 };
        struct kb_event ev;
        g_autofree char *after1 = NULL, *after2 = NULL;
        const json_t *f;

        world_play(w, FAKEHOST_OK);                    /* the baseline's first cell */
        world_play(w, FAKEHOST_HANG);                  /* BAD's */
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, BAD);
        drop_kernel(w->drop_slow, BAD);
        world_config(w, two_sources(w));
        w->ops.now = clock_started_ago;
        fake.started_ago_s = 3600 - HANG_DEADLINE_S;

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_RUN_DONE, &ev), 1);
        ASSERT_EQ(ev.code, 3);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_NOT_STARTED, &ev), 1);
        ASSERT_EQ(ev.group, 1);
        ASSERT_EQ(ev.n_groups, 2);
        ASSERT_EQ(ev.interrupted, 0);
        ASSERT_TRUE(json_is_true(json_object_get(rec.report, "incomplete")));
        f = json_array_get(json_object_get(rec.report, "failures"), 0);
        ASSERT_STREQ(json_string_value(json_object_get(f, "state")), CELL_HANG);
        ASSERT_STREQ(json_string_value(json_object_get(f, "stage")), "workload");
        ASSERT_EQ(json_integer_value(json_object_get(f, "failed")), 1);
        ASSERT_TRUE(strstr(rec.report_text, "incomplete: cells were left"));
        after1 = run_statuses(w);
        ASSERT_STREQ(after1, "interrupted");
        /* No cell was started past the deadline. */
        ASSERT_EQ(w->host.started, 2);

        /* The hang is gone: the cut-short run is finished first, then the
         * slow source's run that was never started. */
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_RESUME, &ev), 1);
        ASSERT_EQ(ev.run_id, 1);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_NOT_STARTED, NULL), 0);
        after2 = run_statuses(w);
        ASSERT_STREQ(after2, "complete,complete");
        ASSERT_TRUE(!json_is_true(json_object_get(rec.report, "incomplete")));
        ASSERT_EQ(json_len(rec.report, "failures"), 0);
        recorded_clear(&rec);
        world_free(w);
}

/* A signal during the first run: the second is not started, and says why. */
TEST(signal_leaves_the_rest_for_the_next_night) {
        struct world *w = world_new("signal");
        struct recorded rec = { 0 };
        struct kb_event ev;

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        drop_kernel(w->drop_slow, NEW);
        world_config(w, two_sources(w));
        fake.interrupt_after_run = 1;

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_INCOMPLETE);
        ASSERT_EQ(fake.n_runs, 1);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_NOT_STARTED, &ev), 1);
        ASSERT_EQ(ev.interrupted, 1);
        ASSERT_EQ(ev.group, 1);
        recorded_clear(&rec);
        world_free(w);
}

/* Two hosts from the configuration reach the runner (the first is the
 * connection of one-host verbs); the host in use is lost at the third
 * cell, which is tried again on the other: its infra error is not a
 * failure of the kernel. */
TEST(lost_host_moves_its_cells) {
        struct world *w = world_new("lost-host");
        struct recorded rec = { 0 };
        g_autofree char *statuses = NULL;
        int code;

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, json_pack("{s:[s, s]}", "hosts", "h1=test:///default", "h2=test:///second"));
        world_play(w, FAKEHOST_OK);
        world_play(w, FAKEHOST_OK);
        world_play(w, FAKEHOST_LOST);

        code = night(w, 0, &rec);
        ASSERT_TRUE(code == NIGHTLY_EXIT_OK || code == NIGHTLY_EXIT_REGRESSED);
        ASSERT_TRUE(fake.hosts_seen && g_strv_length(fake.hosts_seen) == 2);
        ASSERT_STREQ(fake.hosts_seen[1], "h2=test:///second");
        ASSERT_STREQ(fake.connect_seen, "test:///default");
        statuses = run_statuses(w);
        ASSERT_STREQ(statuses, "complete");
        ASSERT_EQ(json_len(rec.report, "failures"), 0);
        ASSERT_EQ(json_len(rec.report, "measured"), 2);
        ASSERT_EQ(w->host.started, 2 * REPEATS + 1);   /* every cell, and the lost attempt */
        recorded_clear(&rec);
        world_free(w);
}

/* A night on named hosts stores each cell with its host: the next night
 * finds those cells measured (with the same hosts) and runs nothing. */
TEST(hosts_night_measures_each_kernel_once) {
        struct world *w = world_new("hosts-once");
        struct recorded rec = { 0 };

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, json_pack("{s:[s, s]}", "hosts", "h1=test:///default", "h2=test:///second"));

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 1);
        ASSERT_EQ(json_len(rec.report, "measured"), 2);
        ASSERT_EQ(json_len(rec.report, "compared"), 1);

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 1);
        ASSERT_TRUE(strstr(rec.report_text, "nightly: nothing new to measure\n"));
        recorded_clear(&rec);
        world_free(w);
}

/* The only host is lost mid-run: its cells are held, the run stops, the
 * night is incomplete (exit 3, nothing regressed); the next night resumes
 * that run rather than starting another. */
TEST(last_host_lost_then_resumed) {
        struct world *w = world_new("last-host");
        struct recorded rec = { 0 };
        g_autofree char *after1 = NULL, *after2 = NULL;
        struct kb_event ev;

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, json_pack("{s:[s]}", "hosts", "h1=test:///default"));
        for (size_t i = 0; i < 4; i++)
                world_play(w, FAKEHOST_OK);
        world_play(w, FAKEHOST_LOST);                  /* the fifth cell */

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_INCOMPLETE);
        after1 = run_statuses(w);
        ASSERT_STREQ(after1, "interrupted");
        ASSERT_EQ(json_len(rec.report, "failures"), 0);
        ASSERT_EQ(w->host.started, 5);

        /* A dry run only says it would resume it. */
        world_host_new(w);                             /* the host is back */
        ASSERT_EQ(night(w, 1, &rec), 0);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_WOULD_RESUME, &ev), 1);
        ASSERT_EQ(ev.run_id, 1);
        ASSERT_EQ(fake.n_runs, 1);

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_RESUME, &ev), 1);
        ASSERT_EQ(ev.run_id, 1);
        /* The held cell again, and the five never started. */
        ASSERT_EQ(w->host.started, 2 * REPEATS - 4);
        after2 = run_statuses(w);
        ASSERT_TRUE(g_str_has_prefix(after2, "complete"));
        /* The new kernel's cells are those of the resumed run. */
        ASSERT_EQ(json_len(rec.report, "compared"), 1);
        ASSERT_TRUE(g_str_has_suffix(json_str(rec.report, "compared", 0, NULL), " run:1:" NEW));
        recorded_clear(&rec);
        world_free(w);
}

/* A cell measured beside a busy host (foreign CPU above 50 %) keeps its state
 * but not its rates: the comparison of a kernel that writes slower on a
 * throttled disk (a source's override: its run measures the baseline
 * beside it on the same throttled disk, so their rates are judged, like
 * with like) counts one sample less on that side. */
TEST(contended_cell_is_left_out_of_rates) {
        struct world *w = world_new("contended");
        struct recorded rec = { 0 };
        const json_t *f;

        world_slow(w, BAD);
        world_play(w, FAKEHOST_OK);                    /* the baseline's first cell */
        world_play(w, FAKEHOST_CONTENDED);             /* BAD's */
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop_slow, BAD);
        world_config(w, two_sources(w));

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(json_len(rec.report, "failures"), 0);
        ASSERT_EQ(json_len(rec.report, "findings"), 1);
        f = json_array_get(json_object_get(rec.report, "findings"), 0);
        ASSERT_STREQ(json_string_value(json_object_get(f, "kernel")), "slow-" BAD);
        ASSERT_TRUE(json_is_null(json_object_get(f, "across")));
        ASSERT_STREQ(json_str(rec.report, "compared", 0, NULL), "run:1:" BASE " run:1:" BAD);
        ASSERT_STREQ(json_string_value(json_object_get(f, "metric")), "dd.write_MBps");
        ASSERT_EQ(json_integer_value(json_object_get(f, "n_a")), REPEATS);
        ASSERT_EQ(json_integer_value(json_object_get(f, "n_b")), REPEATS - 1);
        recorded_clear(&rec);
        world_free(w);
}

/* A kernel that only a source with overrides brings: the night compares
 * it (under its store name, in its run) and publishes that comparison,
 * though no run shows it without its source's label. */
TEST(variant_only_kernel_is_compared_and_published) {
        struct world *w = world_new("variant-only");
        struct recorded rec = { 0 };
        g_autofree char *index = NULL;

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop_slow, NEW);
        world_config(w, two_sources(w));

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(json_len(rec.report, "errors"), 0);
        ASSERT_EQ(json_len(rec.report, "compared"), 1);
        ASSERT_TRUE(strstr(rec.report_text, "site: "));
        index = g_build_filename(w->site, "index.html", NULL);
        ASSERT_TRUE(g_file_test(index, G_FILE_TEST_IS_REGULAR));
        recorded_clear(&rec);
        world_free(w);
}

/* A notify command that fails is said, and the night's verdict stands. */
TEST(failing_notify_is_said) {
        struct world *w = world_new("notify");
        struct recorded rec = { 0 };

        world_counts(w, BAD, 1300, 0.02);
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, BAD);
        world_config(w, json_pack("{s:s}", "notify", "cat > /dev/null; exit 7"));

        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_NOTIFY_FAILED, NULL), 1);
        ASSERT_STREQ(rec.texts->pdata[rec.texts->len - 1], "notify command exited with status 7");
        recorded_clear(&rec);
        world_free(w);
}

/* A file in the drop directory that is not a kernel: an error event, in
 * the report too; the night goes on with the others and exits 1. */
TEST(bad_file_is_an_error_not_the_end) {
        struct world *w = world_new("badfile");
        struct recorded rec = { 0 };
        g_autofree char *junk = NULL;
        struct utimbuf old = { time(NULL) - 600, time(NULL) - 600 };

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        junk = g_build_filename(w->drop, "linux-image-junk.deb", NULL);
        ASSERT_TRUE(g_file_set_contents(junk, "!<arch>\ndebian-binary   junk\n", -1, NULL));
        ASSERT_EQ(utime(junk, &old), 0);
        world_config(w, NULL);

        ASSERT_EQ(night(w, 0, &rec), 1);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_ERROR, NULL), 1);
        ASSERT_TRUE(g_str_has_prefix(rec.texts->pdata[0], "importing "));
        ASSERT_EQ(json_len(rec.report, "errors"), 1);
        ASSERT_EQ(json_len(rec.report, "measured"), 2);
        recorded_clear(&rec);
        world_free(w);
}

/* With "bisect" configured, a regression of tonight's kernel is bisected
 * between it and the source's kernel before it, which an earlier night
 * found not worse: the bisection measures both again on the fake host
 * and finds tonight's the first bad, kept as bisection 1. */
TEST(regression_is_bisected_from_the_last_good_kernel) {
        struct world *w = world_new("bisect");
        struct recorded rec = { 0 };
        g_autofree char *line = NULL;

        world_counts(w, BAD, 1300, 0.02);
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, json_pack("{s:{s:s}}", "bisect", "metric", "guest.write.kernel_Minsn"));
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_TRUE(!fake.bisected);

        drop_kernel(w->drop, BAD);
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_BISECT, NULL), 1);
        ASSERT_TRUE(count_notes(&rec, KB_ORIGIN_BISECT) > 0);      /* its steps, to the night's sink */
        ASSERT_EQ(count_events(&rec, KB_EVENT_BISECT_RESULT, NULL), 0); /* the night reports it */
        ASSERT_TRUE(fake.bisected && g_strv_length(fake.bisected) == 2);
        ASSERT_STREQ(fake.bisected[0], NEW);
        ASSERT_STREQ(fake.bisected[1], BAD);
        line = g_strdup_printf("bisect: %s guest.write.kernel_Minsn from %s, 2 kernels: first bad: %s "
                               "(kbench show --bisect 1)\n", BAD, NEW, BAD);
        ASSERT_TRUE(strstr(rec.report_text, line));
        recorded_clear(&rec);
        world_free(w);
}

/* Four nights on one host, as a kernel team would see them: nights 1 and 2
 * bring kernels that do what the baseline does, night 2 on a host whose
 * disk makes every cell of its run wait 0.3 s longer; night 3 a kernel
 * that executes 3 % more instructions writing, night 4 one that waits
 * 0.2 s longer. Each night measures the baseline beside its kernel, in one
 * run, and compares within it: verdicts on nights 3 and 4 only, each from
 * one run (compared across nights, night 2's slow disk would read as a
 * regression of its kernel). The mail names the run of each side. */
TEST(each_night_compares_within_its_run) {
        struct world *w = world_new("within");
        struct recorded rec = { 0 };
        g_autofree char *mail = NULL;

        world_counts(w, "6.1.0-63-amd64", 1030, 0.02);
        world_counts(w, "6.1.0-64-amd64", 1000, 0.22);
        world_counts(w, NULL, 1000, 0.02);             /* every other kernel, as the default */
        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, "6.1.0-61-amd64");
        world_config(w, NULL);
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 1);
        ASSERT_STREQ(json_str(rec.report, "compared", 0, NULL), "run:1:" BASE " run:1:6.1.0-61-amd64");
        ASSERT_EQ(json_len(rec.report, "findings"), 0);

        w->counts[2].write_wait_s = 0.32;
        drop_kernel(w->drop, "6.1.0-62-amd64");
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_OK);
        ASSERT_EQ(fake.n_runs, 2);
        ASSERT_EQ(json_len(rec.report, "measured"), 2);
        ASSERT_STREQ(json_str(rec.report, "compared", 0, NULL), "run:2:" BASE " run:2:6.1.0-62-amd64");
        ASSERT_EQ(json_len(rec.report, "findings"), 0);

        w->counts[2].write_wait_s = 0.02;
        drop_kernel(w->drop, "6.1.0-63-amd64");
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_STREQ(json_str(rec.report, "compared", 0, NULL), "run:3:" BASE " run:3:6.1.0-63-amd64");
        ASSERT_EQ(json_len(rec.report, "findings"), 1);
        ASSERT_STREQ(json_str(rec.report, "findings", 0, "metric"), "guest.write.kernel_Minsn");
        ASSERT_STREQ(json_str(rec.report, "findings", 0, "verdict"), "worse");

        drop_kernel(w->drop, "6.1.0-64-amd64");
        ASSERT_EQ(night(w, 0, &rec), NIGHTLY_EXIT_REGRESSED);
        ASSERT_EQ(fake.n_runs, 4);
        ASSERT_STREQ(json_str(rec.report, "compared", 0, NULL), "run:4:" BASE " run:4:6.1.0-64-amd64");
        ASSERT_EQ(json_len(rec.report, "findings"), 1);
        ASSERT_STREQ(json_str(rec.report, "findings", 0, "metric"), "guest.write.wait_s");
        mail = read_text(w->mail);
        ASSERT_TRUE(mail && strstr(mail, "  A: " BASE " in run 4\n  B: 6.1.0-64-amd64 in run 4 (measured together, "
                                         "interleaved)\n"));
        ASSERT_TRUE(strstr(mail, "kbench run -k " BASE " -k 6.1.0-64-amd64 "));
        recorded_clear(&rec);
        world_free(w);
}

/* A night resumes a run an older kbench started without the baseline: its
 * kernel gets no verdict (the baseline's cells of another run are not
 * compared with it), and the night says why. */
TEST(run_without_the_baseline_gives_no_verdict) {
        struct world *w = world_new("no-baseline");
        struct recorded rec = { 0 };
        struct store_session s = { .open = world_open };
        struct kb_error err = { { 0 } };
        struct run_settings o;
        char *kernels[] = { (char *)NEW, NULL };
        /* A deadline long passed: the run is made, and cut short before its first cell. */
        const struct runner_drive drive = { .quiet = 1, .deadline_at = 1, .hosts = &w->backend };

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, NULL);
        ASSERT_EQ(night(w, 1, &rec), 0);           /* imports both */
        /* A nightly run of the new kernel alone, cut short. */
        runopts_defaults(&o);
        o.kernels = kernels;
        o.workloads = (char *[]){ (char *)"dd:size=4M", NULL };
        o.repeats = REPEATS;
        o.tag = "nightly";
        o.accel = "tcg";
        o.guest.disk_bytes = 64 << 20;
        session_world = w;
        ASSERT_EQ(runner_run(&o, &drive, &w->g, &s, NULL, &err), 3);
        ASSERT_EQ(w->host.started, 0);
        kstore_free(s.ks);
        db_close(s.db);

        ASSERT_EQ(night(w, 0, &rec), 1);
        ASSERT_EQ(count_events(&rec, KB_EVENT_NIGHT_RESUME, NULL), 1);
        ASSERT_EQ(json_len(rec.report, "findings"), 0);
        ASSERT_TRUE(strstr(rec.report_text, NEW ": run 1 holds no ok cell of the baseline " BASE ", so no verdict"));
        recorded_clear(&rec);
        world_free(w);
}

/* Without a sink a night says nothing and still answers; without ops it
 * reads the wall clock (a dry run starts no runner). */
TEST(quiet_dry_run_with_the_real_ops) {
        struct world *w = world_new("quiet");
        struct nightly_opts o = { .dry_run = 1 };
        struct store_session s = { .open = world_open };
        struct kb_error err = { { 0 } };

        drop_kernel(w->drop, BASE);
        drop_kernel(w->drop, NEW);
        world_config(w, NULL);
        o.config_path = w->config;
        session_world = w;
        ASSERT_EQ(nightly_run(&o, &w->g, &s, &err), 0);
        ASSERT_EQ(fake.n_runs, 0);
        kstore_free(s.ks);
        db_close(s.db);
        world_free(w);
}
