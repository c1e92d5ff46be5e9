/* Unit tests of a whole cell without booting: cell_run_ops drives the real
 * preparation (disk and mkfs.ext4), event pump and end-state rule against a
 * scripted fake VM that writes a console log and speaks the ttyS1 record
 * protocol like the agent: ready on start (or, restored from a snapshot,
 * on the host's hello), the job's records after "go". */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "common/crc32.h"
#include "common/test.h"
#include "common/proto.h"
#include "cell/cell.h"

TEST_MAIN();

/* What the fake guest does. A job step is "TYPE PAYLOAD" (a record), or
 * "!console TEXT" (append to ttyS0), "!stop DETAIL" (the domain ends),
 * "!ioerror DETAIL" (paused on a host I/O error), "!replay" (the previous
 * record again, same sequence number), "!skip" (lose a sequence number),
 * "!disk-head" (the CRC-32 of the first 4 KiB of the disk as configured,
 * as the agent reports it before mounting). */
struct script {
        const char *console;               /* ttyS0 at start */
        const char *release;               /* in ready */
        const char *const *job;            /* NULL-terminated */
        int fail_start;
        int fail_restore;
        int no_ready;
        const char *const *before_ready;   /* records the guest sends before its ready (kbase) */
};

struct fake {
        const struct script *sc;
        vm_event_fn fn;
        void *userdata;
        char cell[PROTO_CELL_MAX + 1];
        char *console_path;
        char *disk;
        int restored;                      /* came from fake_restore */
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
                else if (strcmp(type, "!disk-head") == 0) {
                        g_autofree char *buf = NULL;
                        gsize len = 0;
                        char head[4096] = { 0 }, crc[9];
                        ASSERT_TRUE(g_file_get_contents(f->disk, &buf, &len, NULL));
                        memcpy(head, buf, MIN(len, sizeof(head)));
                        snprintf(crc, sizeof(crc), "%08x", crc32_update(0, head, sizeof(head)));
                        emit(f, "disk-head", crc);
                }
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
        f->disk = g_strdup(cfg->disk);
        f->restored = 0;
        f->seq = 0;
        f->go = 0;
        f->sent = g_string_new(NULL);
        append_console(f, f->sc->console ? f->sc->console : "[    0.000000] Linux version 6.1.0-57-amd64\n");
        for (size_t i = 0; f->sc->before_ready && f->sc->before_ready[i]; i++) {
                const char *sp = strchr(f->sc->before_ready[i], ' ');
                g_autofree char *type = g_strndup(f->sc->before_ready[i], (size_t)(sp - f->sc->before_ready[i]));

                emit(f, type, sp + 1);
        }
        if (!f->sc->no_ready) {
                g_autofree char *ready = g_strdup_printf("release=%s", f->sc->release ? f->sc->release
                                                                                   : "6.1.0-57-amd64");
                emit(f, "ready", ready);
        }
        *ret = (struct vm *)(void *)f;
        return 0;
}

/* A guest saved after its ready under the snapshot's id: it says nothing
 * until the hello, as the agent waits in its poll. */
static int fake_restore(void *ctx, const char *path, const struct vm_config *cfg, vm_event_fn fn, void *userdata,
                        struct vm **ret, struct kb_error *err) {
        struct fake *f = ctx;

        if (f->sc->fail_restore)
                return error_setf(err, -EIO, "libvirt: cannot restore %s as %s: fake failure", path, cfg->name);
        ASSERT_TRUE(strstr(cfg->cmdline, "kbench.cell=snapshot") != NULL);
        ASSERT_STREQ(cfg->uuid, "01234567-89ab-cdef-0123-456789abcdef");
        ASSERT_STREQ(cfg->name, "kbsnap-0123456789abcdef");
        g_strlcpy(f->cell, "snapshot", sizeof(f->cell));
        f->fn = fn;
        f->userdata = userdata;
        f->console_path = g_strdup(cfg->console_path);
        f->disk = g_strdup(cfg->disk);
        f->restored = 1;
        f->seq = 7;
        f->go = 0;
        f->sent = g_string_new(NULL);
        *ret = (struct vm *)(void *)f;
        return 0;
}

static int fake_send(struct vm *vm, const char *data, size_t len, struct kb_error *err) {
        struct fake *f = (struct fake *)(void *)vm;

        g_string_append_len(f->sent, data, (gssize)len);
        if (f->restored && len > 6 && memcmp(data, "hello ", 6) == 0) {
                g_strlcpy(f->cell, data + 6, MIN(sizeof(f->cell), strcspn(data + 6, " ") + 1));
                f->seq = 0;
                emit(f, "ready", f->sc->release ? f->sc->release : "release=6.1.0-57-amd64");
                return 0;
        }
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

/* The host's block statistics: 1 MiB more written at each reading, reads
 * not reported; or, with blk_fail set, libvirt's refusal. */
static int blk_fail, blk_calls;
/* The disk under test's target as the domain names it on the test's bus. */
static const char *blk_dev = "hda";

static int fake_block_stats(struct vm *vm, const char *dev, struct vm_block_stats *ret, struct kb_error *err) {
        ASSERT_STREQ(dev, blk_dev);
        if (blk_fail)
                return error_setf(err, -EIO, "kb1-r1-c007: cannot read block statistics of hda: fake refusal");
        blk_calls++;
        *ret = (struct vm_block_stats){ .rd_bytes = -1, .wr_bytes = (int64_t)blk_calls << 20, .rd_reqs = -1,
                                        .wr_reqs = blk_calls };
        return 0;
}

static void fake_stop(void *ctx, struct vm *vm, int background) {
        struct fake *f = (struct fake *)(void *)vm;

        if (!f)
                return;
        g_free(f->console_path);
        f->console_path = NULL;
        g_clear_pointer(&f->disk, g_free);
}

static const struct cell_vm_ops fake_ops = {
        .start = fake_start, .restore = fake_restore, .send = fake_send, .taints = fake_taints,
        .block_stats = fake_block_stats, .stop = fake_stop,
};

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
/* The plugins the cell loads: none unless a test sets them (the files are
 * made, and stay empty: the fake runs no QEMU). */
static const char *test_insn_plugin, *test_prof_plugin;
/* The run options' agent lines: the fs ones unless a test sets others. */
static const char *const *test_agent_lines;
/* The guest's disk bus: NULL (IDE) unless a test sets one. */
static const char *test_disk_bus;
static void run_spec(const struct script *sc, double silence_s, const char *snapshot, struct outcome *out);

static void run(const struct script *sc, double silence_s, struct outcome *out) {
        run_spec(sc, silence_s, NULL, out);
}

static void run_spec(const struct script *sc, double silence_s, const char *snapshot, struct outcome *out) {
        g_autofree char *dir = g_dir_make_tmp("kbench-test-cell-XXXXXX", NULL);
        g_autofree char *work = g_build_filename(dir, "kb1-r1-c007", NULL);
        struct kstore_kernel k = { .id = "f61f", .name = "6.1.0-57-amd64", .release = "6.1.0-57-amd64",
                                   .image_path = "/nonexistent/vmlinuz" };
        struct workload_spec *w = NULL;
        struct kb_error err = { { 0 } };
        static const char *const agent_lines[] = { "set fs ext4", "set mount_opts ", NULL };
        const struct guest_shape guest = { .accel = "tcg", .mem_mb = 160, .cpus = 1, .disk_bytes = 64 << 20,
                                           .fs = "ext4", .mount_opts = "", .disk_bus = test_disk_bus };
        struct cell_spec spec = {
                .key = "c007", .domain_prefix = "kb1-r1", .kernel = &k, .iteration = 0, .guest = &guest,
                .initrd = "/nonexistent/initrd", .work_dir = work,
                .agent_lines = test_agent_lines ? test_agent_lines : agent_lines,
                .deadline_s = 20, .boot_timeout_s = 6, .silence_timeout_s = silence_s,
                .hostload_root = hostload_root, .contended_pct = 10,
                .insn_plugin = test_insn_plugin, .prof_plugin = test_prof_plugin,
        };
        g_autofree char *snap_console = g_build_filename(dir, "snap.console", NULL);

        if (snapshot) {
                ASSERT_TRUE(g_file_set_contents(snap_console, "[    0.000000] Linux version 6.1.0-57-amd64\n"
                                                "[    1.000000] WARNING: CPU: 0 PID: 1 at boot\n", -1, NULL));
                spec.snapshot = snapshot;
                spec.snapshot_console = snap_console;
                spec.snapshot_uuid = "01234567-89ab-cdef-0123-456789abcdef";
                spec.snapshot_cmdline = "console=ttyS0,115200 panic=-1 rdinit=/init kbench.cell=snapshot";
                spec.snapshot_domain = "kbsnap-0123456789abcdef";
        }

        ASSERT_EQ(workload_spec_parse("dd:size=4M", &w, &err), 0);
        spec.workload = w;
        fake = (struct fake){ .sc = sc };
        ASSERT_EQ(cell_run_ops(&fake_ops, &fake, &spec, &out->res, NULL, &err), 0);
        out->sent = fake.sent ? g_string_free(fake.sent, FALSE) : g_strdup("");
        fake.sent = NULL;
        workload_spec_free(w);
        /* Nothing of the cell is left in its scratch directory. */
        g_unlink(snap_console);
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

TEST(sysctls_read_back_are_kept_when_asked_for) {
        static const char *const lines[] = { "set fs ext4", "sysctl vm.dirty_ratio 7", NULL };
        static const char *const job[] = { "sysctl vm.dirty_ratio=7", "sysctl vm.swappiness=60",
                                           "sysctl vm.dirty_ratio=8", "sysctl ../etc=1",
                                           VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        test_agent_lines = lines;
        run(&sc, 5, &o);
        test_agent_lines = NULL;
        expect(&o, CELL_OK, "");
        ASSERT_TRUE(strstr(o.sent, "sysctl vm.dirty_ratio 7\n") != NULL);
        /* Only what the cell sent, once: the guest's word on others is not a setting. */
        ASSERT_EQ(o.res.sysctls->len, 1);
        ASSERT_STREQ(o.res.sysctls->pdata[0], "vm.dirty_ratio=7");
        outcome_clear(&o);
}

/* The host reads the disk's statistics at the go and at the done (and once
 * a second between, which a job that ends at once never reaches), on the
 * clock of the vmstat rows. */
TEST(host_block_readings_span_the_workload) {
        static const char *const job[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        const struct cell_hostblk *a, *b;
        struct outcome o;

        blk_calls = 0;
        run(&sc, 5, &o);
        expect(&o, CELL_OK, "");
        ASSERT_EQ(o.res.hostblk->len, 2);
        ASSERT_STREQ(o.res.hostblk_note, "");
        a = &g_array_index(o.res.hostblk, struct cell_hostblk, 0);
        b = &g_array_index(o.res.hostblk, struct cell_hostblk, 1);
        ASSERT_EQ(a->s.wr_bytes, 1 << 20);
        ASSERT_EQ(b->s.wr_bytes, 2 << 20);
        ASSERT_EQ(a->s.rd_bytes, -1);
        ASSERT_TRUE(a->t >= o.res.boot_s && b->t >= a->t && b->t <= o.res.total_s);
        outcome_clear(&o);
}

/* A refused read leaves the figures unknown with libvirt's words, and the
 * cell ok. */
TEST(host_block_refused_is_unknown_not_an_error) {
        static const char *const job[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        blk_fail = 1;
        run(&sc, 5, &o);
        blk_fail = 0;
        expect(&o, CELL_OK, "");
        ASSERT_EQ(o.res.hostblk->len, 0);
        ASSERT_STREQ(o.res.hostblk_note, "kb1-r1-c007: cannot read block statistics of hda: fake refusal");
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
        /* No workload figure, only how the guest started. */
        ASSERT_EQ(o.res.metrics.n, 1);
        ASSERT_TRUE(metric_find(&o.res.metrics, CELL_METRIC_WARM) != NULL);
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

TEST(disk_head_matches_the_cells_image) {
        static const char *const job[] = { "!disk-head", VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_OK, "");
        ASSERT_TRUE(strstr(o.res.output->str, "disk head as the guest reads it matches the image"));
        ASSERT_EQ(o.res.warm, 0);
        outcome_clear(&o);
}

/* Off IDE the agent is sent the disk's serial, the host reads the
 * statistics of the bus's target, and the drivers the guest reports bound
 * are kept; a report holding anything but driver names is dropped. */
TEST(disk_bus_and_bound_driver) {
        static const char *const job[] = { "disk-driver virtio_blk virtio-pci", VMSTAT_ROW, DD_OUTPUT, "done 0",
                                           NULL };
        static const char *const hostile[] = { "disk-driver sd;reboot", VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job }, sc_hostile = { .job = hostile };
        struct outcome o;

        test_disk_bus = "virtio-blk";
        blk_dev = "vda";
        run(&sc, 5, &o);
        expect(&o, CELL_OK, "");
        ASSERT_STREQ(o.res.disk_driver, "virtio_blk virtio-pci");
        ASSERT_TRUE(strstr(o.sent, "set disk serial:kbench-disk\n"));
        outcome_clear(&o);
        run(&sc_hostile, 5, &o);
        expect(&o, CELL_OK, "");
        ASSERT_STREQ(o.res.disk_driver, "");
        outcome_clear(&o);
        test_disk_bus = NULL;
        blk_dev = "hda";
}

TEST(stale_disk_head_is_infra_error) {
        static const char *const job[] = { "disk-head 00c0ffee", VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run(&sc, 5, &o);
        expect(&o, CELL_INFRA_ERROR, "the guest reads another disk than the cell's: guest head crc32 00c0ffee");
        /* No workload figure, only how the guest started. */
        ASSERT_EQ(o.res.metrics.n, 1);
        ASSERT_TRUE(metric_find(&o.res.metrics, CELL_METRIC_WARM) != NULL);
        outcome_clear(&o);
}

TEST(warm_cell_takes_its_identity_in_the_hello) {
        static const char *const job[] = { "!disk-head", VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job };
        struct outcome o;

        run_spec(&sc, 5, "/nonexistent/snap.save", &o);
        expect(&o, CELL_OK, "1 kernel WARNING(s) on the console");
        ASSERT_EQ(o.res.warm, 1);
        ASSERT_NEAR(metric_find(&o.res.metrics, CELL_METRIC_WARM)->value, 1, 0);
        ASSERT_EQ(o.res.snapshot_failed, 0);
        ASSERT_EQ(o.res.rejected, 0);
        ASSERT_TRUE(g_str_has_prefix(o.sent, "hello c007 "));
        ASSERT_TRUE(g_str_has_suffix(o.sent, "go\n"));
        ASSERT_TRUE(!isnan(o.res.boot_s) && o.res.boot_s < 5);
        /* The skipped boot heads the console: its warnings count as in a cold cell. */
        ASSERT_TRUE(g_str_has_prefix(o.res.console->str, "[    0.000000] Linux version"));
        ASSERT_TRUE(strstr(o.res.console->str, "restored from snapshot"));
        ASSERT_TRUE(metric_find(&o.res.metrics, "dd.write_MBps") != NULL);
        outcome_clear(&o);
}

TEST(failed_restore_boots_cold) {
        static const char *const job[] = { "!disk-head", VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job, .fail_restore = 1 };
        struct outcome o;

        run_spec(&sc, 5, "/nonexistent/snap.save", &o);
        expect(&o, CELL_OK, "");
        ASSERT_EQ(o.res.warm, 0);
        ASSERT_NEAR(metric_find(&o.res.metrics, CELL_METRIC_WARM)->value, 0, 0);
        ASSERT_EQ(o.res.snapshot_failed, 1);
        ASSERT_TRUE(strstr(o.res.output->str, "warm start failed"));
        ASSERT_TRUE(strstr(o.res.output->str, "fake failure"));
        ASSERT_TRUE(!strstr(o.sent, "hello "));
        ASSERT_TRUE(!strstr(o.res.console->str, "restored from snapshot"));
        outcome_clear(&o);
}

TEST(restored_guest_of_another_release_boots_cold) {
        static const char *const job[] = { "!disk-head", VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
        static const struct script sc = { .job = job, .release = "release=6.1.0-47-amd64" };
        struct outcome o;

        /* The cold boot that follows names it too (and ends infra-error);
         * what matters here is that the snapshot is given up. */
        run_spec(&sc, 5, "/nonexistent/snap.save", &o);
        ASSERT_EQ(o.res.warm, 0);
        ASSERT_EQ(o.res.snapshot_failed, 1);
        ASSERT_TRUE(strstr(o.res.output->str, "another release"));
        outcome_clear(&o);
}

/* A guest whose kernel's symbol table the store lacks is asked for it
 * (set ksyms 1); it lists it after done, and the cell ends with the
 * list's last record, ok: the job's window ended at done. A guest that
 * ends before the list does (or falls silent) ends the cell ok too. */
TEST(the_symbol_table_comes_after_done) {
        static const char *const bases[] = { "kbase text ffffffff81000000", NULL };
        static const char *const job[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", "ksym core 0 startup_64 100 vfs_write",
                                           "ksyms-end 2", NULL };
        static const char *const cut[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", "ksym core 0 startup_64",
                                           "!stop shutdown", NULL };
        static const struct script sc = { .job = job, .before_ready = bases };
        static const struct script sc_cut = { .job = cut, .before_ready = bases };
        struct outcome o;

        test_insn_plugin = test_prof_plugin = "/nonexistent/plugin.so";
        run(&sc, 5, &o);
        expect(&o, CELL_OK, "");
        ASSERT_TRUE(strstr(o.sent, "set ksyms 1\n") != NULL);
        ASSERT_TRUE(metric_find(&o.res.metrics, "dd.write_MBps") != NULL);
        ASSERT_TRUE(o.res.workload_s < 1);
        outcome_clear(&o);
        run(&sc_cut, 5, &o);
        expect(&o, CELL_OK, "");
        outcome_clear(&o);
        /* Silent after part of the list: the cell waits for it, not for
         * ever, and not as for a hang. */
        {
                static const char *const silent[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", "ksym core 0 startup_64",
                                                      NULL };
                static const struct script sc_silent = { .job = silent, .before_ready = bases };

                run(&sc_silent, 30, &o);
                expect(&o, CELL_OK, "");
                ASSERT_TRUE(o.res.total_s > 9.5 && o.res.total_s < 15);
                outcome_clear(&o);
        }
        /* A kernel with no kallsyms is not asked. */
        {
                static const char *const none[] = { "kbase none", NULL };
                static const char *const plain[] = { VMSTAT_ROW, DD_OUTPUT, "done 0", NULL };
                static const struct script sc_none = { .job = plain, .before_ready = none };

                run(&sc_none, 5, &o);
                expect(&o, CELL_OK, "");
                ASSERT_TRUE(strstr(o.sent, "set ksyms") == NULL);
                outcome_clear(&o);
        }
        test_insn_plugin = test_prof_plugin = NULL;
}
