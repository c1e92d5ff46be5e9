/* Unit tests of a whole cell without booting: cell_run_ops drives the real
 * preparation (disk and mkfs.ext4), event pump and end-state rule against a
 * scripted fake VM that writes a console log and speaks the ttyS1 record
 * protocol like the agent: ready on start, the job's records after "go". */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "common/test.h"
#include "guest/proto.h"
#include "harness/cell.h"

TEST_MAIN();

/* What the fake guest does. A job step is "TYPE PAYLOAD" (a record), or
 * "!console TEXT" (append to ttyS0), "!stop DETAIL" (the domain ends),
 * "!ioerror DETAIL" (paused on a host I/O error), "!replay" (the previous
 * record again, same sequence number), "!skip" (lose a sequence number). */
struct script {
        const char *console;               /* ttyS0 at start */
        const char *release;               /* in ready */
        const char *const *job;            /* NULL-terminated */
        int fail_start;
        int no_ready;
};

struct fake {
        const struct script *sc;
        vm_event_fn fn;
        void *userdata;
        char cell[PROTO_CELL_MAX + 1];
        char *console_path;
        uint64_t seq;
        char last[PROTO_LINE_MAX + 1];
        size_t last_len;
        GString *sent;                     /* everything the host wrote to ttyS1 */
        int go;
};

static struct fake fake;

static void emit(struct fake *f, const char *type, const char *payload) {
        uint64_t seq = f->seq++;
        int n = proto_format(f->last, sizeof(f->last), f->cell, seq, seq * 100, type, payload, strlen(payload));

        ASSERT_TRUE(n > 0);
        f->last_len = (size_t)n;
        f->fn(f->userdata, VM_EVENT_DATA, f->last, f->last_len);
}

static void append_console(struct fake *f, const char *text) {
        FILE *c = fopen(f->console_path, "a");

        ASSERT_TRUE(c != NULL);
        fputs(text, c);
        fclose(c);
}

static void run_job(struct fake *f) {
        for (size_t i = 0; f->sc->job && f->sc->job[i]; i++) {
                const char *step = f->sc->job[i];
                const char *sp = strchr(step, ' ');
                g_autofree char *type = g_strndup(step, sp ? (size_t)(sp - step) : strlen(step));
                const char *arg = sp ? sp + 1 : "";

                if (strcmp(type, "!console") == 0)
                        append_console(f, arg);
                else if (strcmp(type, "!stop") == 0)
                        f->fn(f->userdata, VM_EVENT_STOPPED, arg, strlen(arg));
                else if (strcmp(type, "!ioerror") == 0)
                        f->fn(f->userdata, VM_EVENT_IO_ERROR, arg, strlen(arg));
                else if (strcmp(type, "!replay") == 0)
                        f->fn(f->userdata, VM_EVENT_DATA, f->last, f->last_len);
                else if (strcmp(type, "!skip") == 0)
                        f->seq++;
                else
                        emit(f, type, arg);
        }
}

static int fake_start(void *ctx, const struct vm_config *cfg, vm_event_fn fn, void *userdata, struct vm **ret,
                      struct kb_error *err) {
        struct fake *f = ctx;
        const char *cell = strstr(cfg->cmdline, "kbench.cell=");

        if (f->sc->fail_start)
                return error_setf(err, -EIO, "libvirt: cannot create domain %s: fake failure", cfg->name);
        ASSERT_TRUE(cell != NULL);
        g_strlcpy(f->cell, cell + 12, MIN(sizeof(f->cell), strcspn(cell + 12, " ") + 1));
        f->fn = fn;
        f->userdata = userdata;
        f->console_path = g_strdup(cfg->console_path);
        f->seq = 0;
        f->go = 0;
        f->sent = g_string_new(NULL);
        append_console(f, f->sc->console ? f->sc->console : "[    0.000000] Linux version 6.1.0-57-amd64\n");
        if (!f->sc->no_ready) {
                g_autofree char *ready = g_strdup_printf("release=%s", f->sc->release ? f->sc->release
                                                                                   : "6.1.0-57-amd64");
                emit(f, "ready", ready);
        }
        *ret = (struct vm *)(void *)f;
        return 0;
}

static int fake_send(struct vm *vm, const char *data, size_t len, struct kb_error *err) {
        struct fake *f = (struct fake *)(void *)vm;

        g_string_append_len(f->sent, data, (gssize)len);
        if (!f->go && len == 3 && memcmp(data, "go\n", 3) == 0) {
                f->go = 1;
                run_job(f);
        }
        return 0;
}

static int fake_taints(struct vm *vm, char ***ret, struct kb_error *err) {
        *ret = g_new0(char *, 1);
        return 0;
}

static void fake_stop(struct vm *vm, int background) {
        struct fake *f = (struct fake *)(void *)vm;

        if (!f)
                return;
        g_free(f->console_path);
        f->console_path = NULL;
}

static const struct cell_vm_ops fake_ops = { fake_start, fake_send, fake_taints, fake_stop };

/* dd's output from tests/data/dd/run-64M-1M.txt, as the agent sends it. */
#define DD_OUTPUT "event phase write", "err 64+0 records in", "err 64+0 records out", \
        "err 67108864 bytes (67 MB, 64 MiB) copied, 0.413911 s, 162 MB/s", "event phase read", \
        "err 64+0 records in", "err 64+0 records out", \
        "err 67108864 bytes (67 MB, 64 MiB) copied, 0.0495558 s, 1.4 GB/s", "event phase end"
#define VMSTAT_ROW "vmstat  1  0      0  99000   2000  31000    0    0     0  5000  300  400 10 20 50 20  0  0   4096 0"

struct outcome {
        struct cell_result res;
        char *sent;
};

/* The cell's hostload_root: NULL (QEMU elsewhere) unless a test sets it. */
static const char *hostload_root;

static void run(const struct script *sc, double silence_s, struct outcome *out) {
        g_autofree char *dir = g_dir_make_tmp("kbench-test-cell-XXXXXX", NULL);
        g_autofree char *work = g_build_filename(dir, "kb1-r1-c007", NULL);
        struct kstore_kernel k = { .id = "f61f", .name = "6.1.0-57-amd64", .release = "6.1.0-57-amd64",
                                   .image_path = "/nonexistent/vmlinuz" };
        struct workload_spec *w = NULL;
        struct kb_error err = { { 0 } };
        static const char *const agent_lines[] = { "set fs ext4", "set mount_opts ", NULL };
        struct cell_spec spec = {
                .key = "c007", .domain_prefix = "kb1-r1", .kernel = &k, .iteration = 0, .accel = "tcg",
                .mem_mb = 160, .cpus = 1, .disk_bytes = 64 << 20, .fs = "ext4", .mount_opts = "",
                .initrd = "/nonexistent/initrd", .work_dir = work, .agent_lines = agent_lines,
                .deadline_s = 20, .boot_timeout_s = 6, .silence_timeout_s = silence_s,
                .hostload_root = hostload_root, .contended_pct = 10,
        };

        ASSERT_EQ(workload_spec_parse("dd:size=4M", &w, &err), 0);
        spec.workload = w;
        fake = (struct fake){ .sc = sc };
        ASSERT_EQ(cell_run_ops(&fake_ops, &fake, &spec, &out->res, NULL, NULL, &err), 0);
        out->sent = fake.sent ? g_string_free(fake.sent, FALSE) : g_strdup("");
        fake.sent = NULL;
        workload_spec_free(w);
        /* Nothing of the cell is left in its scratch directory. */
        ASSERT_EQ(g_rmdir(work), 0);
        ASSERT_EQ(g_rmdir(dir), 0);
}

static void outcome_clear(struct outcome *o) {
        cell_result_clear(&o->res);
        g_free(o->sent);
}

static void expect(const struct outcome *o, const char *state, const char *detail) {
        if (strcmp(o->res.state, state) != 0 || !strstr(o->res.detail, detail))
                TEST_FAIL("got %s \"%s\", want %s \"...%s...\"", o->res.state, o->res.detail, state, detail);
}

TEST(ok_cell_end_to_end) {
        static const char *const job[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_OK, "");
        ASSERT_EQ(o.res.exit_code, 0);
        ASSERT_EQ(o.res.rejected, 0);
        ASSERT_STREQ(o.res.release, "6.1.0-57-amd64");
        ASSERT_TRUE(metric_find(&o.res.metrics, "dd.write_MBps") != NULL);
        ASSERT_NEAR(metric_find(&o.res.metrics, "dd.write_MBps")->value, 67108864 / 0.413911 / 1e6, 0.01);
        ASSERT_EQ(o.res.vmstat->len, 1);
        /* The host sent the run options from the table, the job and go. */
        ASSERT_TRUE(strstr(o.sent, "set disk scsi:0:0:0:0\nset mnt /mnt/test\nset fs ext4\nset mount_opts \n"));
        ASSERT_TRUE(strstr(o.sent, "set net 0\n"));
        ASSERT_TRUE(strstr(o.sent, "script "));
        ASSERT_TRUE(g_str_has_suffix(o.sent, "go\n"));
        ASSERT_TRUE(strstr(o.res.console->str, "Linux version"));
        ASSERT_TRUE(strstr(o.res.output->str, "162 MB/s"));
        /* Where QEMU runs elsewhere its host's load is unknown, never guessed. */
        ASSERT_TRUE(metric_find(&o.res.metrics, "host.foreign_cpu_pct") != NULL);
        ASSERT_EQ(metric_find(&o.res.metrics, "host.foreign_cpu_pct")->has_value, 0);
        ASSERT_STREQ(metric_find(&o.res.metrics, "host.foreign_cpu_pct")->note, "remote host: unknown");
        ASSERT_STREQ(metric_find(&o.res.metrics, "host.loadavg1")->note, "remote host: unknown");
        ASSERT_EQ(o.res.contended, 0);
        outcome_clear(&o);
}

TEST(host_load_without_qemu) {
        static const char *const job[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        const struct metric *m;
        struct outcome o;

        /* A local URI, but no process on this host runs the fake guest. */
        hostload_root = "";
        run(&sc, 5, &o);
        hostload_root = NULL;
        expect(&o, CELL_OK, "");
        m = metric_find(&o.res.metrics, "host.foreign_cpu_pct");
        ASSERT_TRUE(m != NULL && !m->has_value);
        ASSERT_STREQ(m->note, "/proc: no QEMU process for domain kb1-r1-c007");
        ASSERT_TRUE(metric_find(&o.res.metrics, "host.loadavg1") != NULL);
        outcome_clear(&o);
}

TEST(crash_after_done_is_runtime_crash) {
        static const char *const job[] = { DD_OUTPUT, "done 0",
                                           "!console [   9.1] BUG: unable to handle page fault\n", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_RUNTIME_CRASH, "BUG: unable to handle page fault");
        ASSERT_EQ(o.res.metrics.n, 0);
        outcome_clear(&o);
}

TEST(crash_before_ready_is_boot_crash) {
        static const char *const job[] = { "!stop destroyed", NULL };
        static const struct script sc = {
                .console = "[ 0.0] Linux version 6.1\n[ 1.0] Oops: 0000 [#1] SMP\n", .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_BOOT_CRASH, "Oops: 0000");
        outcome_clear(&o);
}

TEST(replayed_record_is_corrupt_output) {
        static const char *const job[] = { VMSTAT_ROW, "!replay", DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_CORRUPT_OUTPUT, "replayed or backwards");
        ASSERT_EQ(o.res.vmstat->len, 1);           /* the replay was not kept */
        outcome_clear(&o);
}

TEST(gap_is_corrupt_output) {
        static const char *const job[] = { VMSTAT_ROW, "!skip", DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_CORRUPT_OUTPUT, "sequence gap");
        outcome_clear(&o);
}

TEST(release_mismatch_is_infra_error) {
        static const struct script sc = { .release = "6.1.0-47-amd64" };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_INFRA_ERROR, "the guest runs release '6.1.0-47-amd64', expected '6.1.0-57-amd64'");
        ASSERT_TRUE(!strstr(o.sent, "go\n"));      /* the job was never sent */
        outcome_clear(&o);
}

TEST(non_zero_exit_quotes_the_agent) {
        static const char *const job[] = { "log mount /dev/sda on /mnt/test: Invalid argument", "done 255", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_WORKLOAD_FAILURE, "job exited with 255; last agent note: mount /dev/sda");
        outcome_clear(&o);
}

TEST(silence_is_hang) {
        static const char *const job[] = { VMSTAT_ROW, NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 0.5, &o);
        expect(&o, CELL_HANG, "no ttyS1 record for 0 s during the workload");
        outcome_clear(&o);
}

TEST(domain_end_while_running_is_runtime_crash) {
        static const char *const job[] = { VMSTAT_ROW, "!stop crashed", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_RUNTIME_CRASH, "domain crashed before the job finished");
        outcome_clear(&o);
}

TEST(host_disk_full_stops_the_run) {
        static const char *const job[] = { VMSTAT_ROW, "!ioerror enospc on /s/disk.img (ide0-0-0)", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_INFRA_ERROR, "host disk full: the guest was paused, enospc on /s/disk.img");
        ASSERT_EQ(o.res.host_failed, 1);
        ASSERT_EQ(o.res.retryable, 0);
        outcome_clear(&o);
}

TEST(start_failure_is_retryable) {
        static const struct script sc = { .fail_start = 1 };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_INFRA_ERROR, "fake failure");
        ASSERT_EQ(o.res.retryable, 1);
        outcome_clear(&o);
}

TEST(no_ready_is_boot_timeout) {
        static const struct script sc = { .no_ready = 1 };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_BOOT_TIMEOUT, "kernel started but no agent ready within 6 s");
        outcome_clear(&o);
}
