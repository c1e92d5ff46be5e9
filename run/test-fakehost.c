/* test-fakehost.c: a scripted host for the pumps' unit tests (see test-fakehost.h). */
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cell/cell.h"
#include "common/insncount-format.h"
#include "common/kprof-format.h"
#include "common/proto.h"
#include "common/test.h"
#include "common/test-scratch.h"
#include "kernels/kimage.h"
#include "kernels/kstore.h"
#include "results/db.h"
#include "run/test-fakehost.h"

/* The fixture's QEMU: one process, whose command line names the domain of
 * the attempt under way (hostload_find_qemu looks for "guest=NAME"). */
#define FAKE_QEMU_PID 4242
#define FAKE_CPUS 2

/* dd's output from tests/data/dd/run-64M-1M.txt, as the agent sends it;
 * the write's line is the attempt's own (DD_WRITE_AT). */
#define DD_WRITE_S 0.413911
#define DD_WRITE_AT 4
/* What the counter counts beside a kernel's write phase: the boot before
 * the first mark, and the read phase after it (the same on every kernel). */
#define BOOT_MINSN 2000.0
#define READ_MINSN 200.0
#define READ_WAIT_S 0.01
/* A kernel without an entry in the counts table. */
#define WRITE_MINSN 1000.0
#define WRITE_WAIT_S 0.02
/* The profile: where this boot put the kernel's text, and its functions
 * (offsets from it) that run dd's phases, the write phase's first
 * WRITE_FIXED_MINSN in vfs_write and the rest in submit_bio. */
#define KTEXT 0xffffffff81000000ull
#define VFS_WRITE 0x1000
#define SUBMIT_BIO 0x2000
#define VFS_READ 0x3000
#define WRITE_FIXED_MINSN 400.0
static const char *const dd_job[] = {
        "vmstat  1  0      0  99000   2000  31000    0    0     0  5000  300  400 10 20 50 20  0  0   4096 0",
        "event phase write", "err 64+0 records in", "err 64+0 records out",
        "err 67108864 bytes (67 MB, 64 MiB) copied, 0.413911 s, 162 MB/s", "event phase read",
        "err 64+0 records in", "err 64+0 records out",
        "err 67108864 bytes (67 MB, 64 MiB) copied, 0.0495558 s, 1.4 GB/s", "event phase end", "done 0", NULL,
};

struct fakevm {
        struct fakehost *h;
        enum fakehost_play play;
        vm_event_fn fn;
        void *userdata;
        char cell[PROTO_CELL_MAX + 1];
        char *console_path;
        double write_s;            /* what its dd's write takes */
        double jit;                /* the attempt's jitter: a factor near 1 */
        char *insns_path;          /* the counter file it writes as QEMU's plugin, or NULL */
        char *prof_path;           /* the profile plugin's file, or NULL */
        uint64_t prof_used;        /* entries written to it */
        int ksyms_asked;           /* the job asked for the kernel's symbols (set ksyms 1) */
        const struct fakehost_counts *counts; /* its kernel's, when insns_path */
        size_t marks;              /* phase marks written so far */
        struct insncount_mark_slot at; /* the totals at the last one */
        uint64_t seq;
        GThread *guest;            /* the job, from "go" on */
};

static void fake_die(const char *what, const char *path) {
        TEST_FAIL("fakehost: cannot %s %s", what, path);
}

static void fake_write(const char *root, const char *rel, const char *text) {
        g_autofree char *path = g_build_filename(root, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(path);

        if (g_mkdir_with_parents(dir, 0755) < 0 || !g_file_set_contents(path, text, -1, NULL))
                fake_die("write", path);
}

/* /proc/stat with busy user ticks and a fixed idle count, as two CPUs. */
static void fake_write_stat(struct fakehost *f) {
        g_autofree char *text = g_strdup_printf("cpu  %lu 0 30026 500393 1003 0 502 0 0 0\n"
                                                "cpu0 %lu 0 15013 250197 502 0 251 0 0 0\n"
                                                "cpu1 %lu 0 15013 250196 501 0 251 0 0 0\n",
                                                f->busy_ticks, f->busy_ticks / 2, f->busy_ticks - f->busy_ticks / 2);

        fake_write(f->root, "proc/stat", text);
}

/* A process's stat line: utime 2360 and stime 320 ticks, started at 880000. */
static void fake_write_pid(struct fakehost *f, int pid, const char *comm) {
        g_autofree char *rel = g_strdup_printf("proc/%d/stat", pid);
        g_autofree char *text = g_strdup_printf("%d (%s) S 1 %d %d 0 -1 4194560 12000 0 3 0 2360 320 0 0 20 0 6 0 "
                                                "880000 1518256128 61201\n", pid, comm, pid, pid);

        fake_write(f->root, rel, text);
}

void fakehost_init(struct fakehost *f, const char *dir, const char *release, const enum fakehost_play *plays,
                   size_t n) {
        *f = (struct fakehost){ .plays = plays, .n_plays = n, .root = g_build_filename(dir, "fakehost", NULL),
                                .release = g_strdup(release), .busy_ticks = 100376,
                                .domains = g_ptr_array_new_with_free_func(g_free) };
        g_mutex_init(&f->lock);
        fake_write_stat(f);
        fake_write(f->root, "proc/loadavg", "0.61 0.42 0.31 2/151 4301\n");
        fake_write_pid(f, FAKE_QEMU_PID, "qemu-system-x86");
        fake_write_pid(f, (int)getpid(), "test-runner");
        fake_write(f->root, "proc/" G_STRINGIFY(FAKE_QEMU_PID) "/status", "Name:\tqemu-system-x86\n"
                   "Uid:\t64055\t64055\t64055\t64055\n");
}

void fakehost_clear(struct fakehost *f) {
        if (f->root)
                test_rm_tree(f->root);
        g_free(f->root);
        g_free(f->release);
        if (f->domains)
                g_ptr_array_free(f->domains, TRUE);
        g_mutex_clear(&f->lock);
        *f = (struct fakehost){ 0 };
}

static void fake_emit(struct fakevm *v, const char *type, const char *payload) {
        char line[PROTO_LINE_MAX + 1];
        uint64_t seq = v->seq++;
        int n = proto_format(line, sizeof(line), v->cell, seq, seq * 100, type, payload, strlen(payload));

        if (n <= 0)
                fake_die("format a record of", v->cell);
        v->fn(v->userdata, VM_EVENT_DATA, line, (size_t)n);
}

/* "TYPE PAYLOAD" as a record. */
static void fake_emit_step(struct fakevm *v, const char *step) {
        const char *sp = strchr(step, ' ');
        g_autofree char *type = g_strndup(step, sp ? (size_t)(sp - step) : strlen(step));

        fake_emit(v, type, sp ? sp + 1 : "");
}

static void fake_console(struct fakevm *v, const char *text) {
        FILE *c = fopen(v->console_path, "a");

        if (!c)
                fake_die("append to", v->console_path);
        fputs(text, c);
        fclose(c);
}

static void fake_event(struct fakevm *v, enum vm_event ev, const char *detail) {
        v->fn(v->userdata, ev, detail, strlen(detail));
}

/* n bytes of buf into the plugin's file at path, at offset, as the plugin
 * stores them in its shared mapping. */
static void fake_put(const char *path, size_t offset, const void *buf, size_t n) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);

        if (fd < 0 || pwrite(fd, buf, n, (off_t)offset) != (ssize_t)n)
                fake_die("write", path);
        close(fd);
}

/* The plugins loaded: the counter's magic, version and one vCPU; the
 * profile's header, no entry yet. */
static void fake_plugins_load(struct fakevm *v) {
        const struct insncount_file insns = { .magic = INSNCOUNT_MAGIC, .version = INSNCOUNT_VERSION, .n_vcpus = 1 };
        const struct kprof_header prof = { .magic = KPROF_MAGIC, .version = KPROF_VERSION, .n_vcpus = 1,
                                           .capacity = KPROF_CAPACITY };

        fake_put(v->insns_path, 0, &insns, offsetof(struct insncount_file, n_marks));
        if (v->prof_path)
                fake_put(v->prof_path, 0, &prof, sizeof(prof));
}

/* The profile's segment of the phase that ended at marker execution k
 * (>= 1): where its kernel instructions (insns, all of them) ran, then
 * the count of entries, stored after them, and of marks. */
static void fake_prof_segment(struct fakevm *v, uint64_t k, uint64_t insns) {
        uint64_t fixed = MIN(insns, (uint64_t)llround(WRITE_FIXED_MINSN * 1e6 * v->jit));
        struct kprof_entry e[3] = { { 0, k } };
        size_t n = 1;

        if (k == 1) {
                e[n++] = (struct kprof_entry){ KTEXT + VFS_WRITE, fixed };
                e[n++] = (struct kprof_entry){ KTEXT + SUBMIT_BIO, insns - fixed };
        } else {
                e[n++] = (struct kprof_entry){ KTEXT + VFS_READ, insns };
        }
        fake_put(v->prof_path, sizeof(struct kprof_header) + v->prof_used * sizeof(e[0]), e, n * sizeof(e[0]));
        v->prof_used += n;
        k++;
        fake_put(v->prof_path, offsetof(struct kprof_header, used), &v->prof_used, sizeof(v->prof_used));
        fake_put(v->prof_path, offsetof(struct kprof_header, n_marks), &k, sizeof(k));
}

/* What ran before the phase mark k of dd's job (write, read, end): the
 * boot, then the write phase (as the kernel's counts say), then the read. */
static void fake_phase_before(const struct fakevm *v, size_t k, double *ret_minsn, double *ret_wait_s) {
        *ret_minsn = k == 0 ? BOOT_MINSN : k == 2 ? READ_MINSN : 0;
        *ret_wait_s = k == 2 ? READ_WAIT_S : 0;
        if (k == 1) {
                *ret_minsn = v->counts ? v->counts->write_Minsn : WRITE_MINSN;
                *ret_wait_s = v->counts ? v->counts->write_wait_s : WRITE_WAIT_S;
        }
}

/* The agent executed the marker of its next phase record: the totals of
 * that instant in marks[k], then n_marks counting it, as the counter
 * writes them; with a profile, where the phase before ran. */
static void fake_insns_mark(struct fakevm *v) {
        struct insncount_mark_slot slot;
        double minsn, wait_s;
        uint64_t n, insns;

        if (!v->insns_path || v->marks >= INSNCOUNT_MARKS_MAX)
                return;
        fake_phase_before(v, v->marks, &minsn, &wait_s);
        insns = (uint64_t)llround(minsn * 1e6 * v->jit);
        if (v->prof_path && v->marks >= 1)
                fake_prof_segment(v, v->marks, insns);
        v->at.insns[INSNCOUNT_KERNEL] += insns;
        v->at.insns[INSNCOUNT_USER] += 1000000;
        v->at.wait_ns += (uint64_t)llround(wait_s * 1e9 * v->jit);
        v->at.t_ns = (uint64_t)g_get_monotonic_time() * 1000;
        slot = v->at;              /* a copy: GCC 12 reads &v->at as its first member (stringop-overread) */
        fake_put(v->insns_path, offsetof(struct insncount_file, marks) + v->marks * sizeof(slot), &slot,
                 sizeof(slot));
        n = ++v->marks;
        fake_put(v->insns_path, offsetof(struct insncount_file, n_marks), &n, sizeof(n));
}

/* The guest after "go": what its play says, a little later, as a guest
 * answers from its own thread. */
static gpointer fake_guest(gpointer data) {
        struct fakevm *v = data;
        struct fakehost *f = v->h;

        /* A contended guest's neighbours start well after the cell has
         * taken the load window's first reading, right after its "go". */
        g_usleep(v->play == FAKEHOST_CONTENDED ? 200 * 1000 : 5 * 1000);
        switch (v->play) {
        case FAKEHOST_KERNEL_CRASH:
                fake_emit_step(v, dd_job[0]);
                fake_console(v, "[    9.100000] BUG: unable to handle page fault for address: 0000000000000008\n");
                fake_event(v, VM_EVENT_STOPPED, "crashed");
                break;
        case FAKEHOST_QEMU_CRASH:
                fake_emit_step(v, dd_job[0]);
                fake_event(v, VM_EVENT_STOPPED, "failed");
                break;
        case FAKEHOST_HANG:
                fake_emit_step(v, dd_job[0]);
                break;
        case FAKEHOST_LOST:
                fake_emit_step(v, dd_job[0]);
                g_mutex_lock(&f->lock);
                f->lost = 1;
                g_mutex_unlock(&f->lock);
                fake_event(v, VM_EVENT_HOST_LOST, "the connection to the host was closed");
                break;
        case FAKEHOST_CONTENDED:
                /* Other processes take more than every CPU of the window. */
                g_mutex_lock(&f->lock);
                f->busy_ticks += 100000;
                fake_write_stat(f);
                g_mutex_unlock(&f->lock);
                /* fall through */
        default:
                for (size_t i = 0; dd_job[i]; i++) {
                        g_autofree char *w = g_strdup_printf("err 67108864 bytes (67 MB, 64 MiB) copied, %.6f s, "
                                                             "%.0f MB/s", v->write_s, 67.108864 / v->write_s);

                        if (g_str_has_prefix(dd_job[i], "event phase "))
                                fake_insns_mark(v);
                        fake_emit_step(v, i == DD_WRITE_AT ? w : dd_job[i]);
                }
                /* Asked, the agent lists its kernel's text symbols after done. */
                if (v->ksyms_asked) {
                        g_autofree char *core = g_strdup_printf("core 0 _text %x vfs_write %x submit_bio %x vfs_read",
                                                                VFS_WRITE, SUBMIT_BIO, VFS_READ);

                        fake_emit(v, "ksym", core);
                        fake_emit(v, "ksyms-end", "4");
                }
        }
        return NULL;
}

/* A kernel that panics before its agent is up: the panic on the console,
 * then the domain's end, from a thread of its own as QEMU's end comes. */
static gpointer fake_boot_crash(gpointer data) {
        struct fakevm *v = data;

        g_usleep(30 * 1000);
        fake_console(v, "[    1.200000] Kernel panic - not syncing: VFS: Unable to mount root fs on "
                        "unknown-block(0,0)\n");
        fake_event(v, VM_EVENT_STOPPED, "crashed");
        return NULL;
}

/* What a guest of the kernel at path says it runs: the release in the
 * kernel's own version string, as uname -r would. */
static char *fake_release_of(const char *path) {
        struct kimage_info *info = NULL;
        struct kb_error err = { { 0 } };
        char *release;

        if (kimage_inspect(path, &info, &err) < 0 || !info->release)
                fake_die("read the release of", path);
        release = g_strdup(info->release);
        kimage_info_free(info);
        return release;
}

/* The counts of the kernel whose image is at path, or NULL: the default's. */
static const struct fakehost_counts *fake_counts_of(const struct fakehost *f, const char *path) {
        for (size_t i = 0; f->counts && f->counts[i].kernel; i++)
                if (g_str_has_prefix(path, f->counts[i].kernel))
                        return &f->counts[i];
        return NULL;
}

/* The next attempt's play, and what its dd's write takes: twice as long
 * on a slow kernel, with the attempt's own jitter (*ret_jit, which its
 * counts share). */
static enum fakehost_play fake_next_play(struct fakehost *f, const struct vm_config *cfg, double *ret_write_s,
                                         double *ret_jit) {
        enum fakehost_play p;
        double s = DD_WRITE_S, jit = 1;

        for (size_t i = 0; f->slow && f->slow[i]; i++)
                if (g_str_has_prefix(cfg->kernel, f->slow[i]))
                        s *= 2;
        g_mutex_lock(&f->lock);
        p = f->started < f->n_plays ? f->plays[f->started] : FAKEHOST_OK;
        if (f->jitter)
                jit = 1 + 0.001 * (double)((int)(f->started % 5) - 2);
        f->started++;
        g_ptr_array_add(f->domains, g_strdup(cfg->name));
        g_mutex_unlock(&f->lock);
        *ret_write_s = s * jit;
        *ret_jit = jit;
        return p;
}

static int fake_start(void *ctx, const struct vm_config *cfg, vm_event_fn fn, void *userdata, struct vm **ret,
                      struct kb_error *err) {
        struct fakehost *f = ctx;
        double write_s = DD_WRITE_S, jit = 1;
        enum fakehost_play play = fake_next_play(f, cfg, &write_s, &jit);
        const char *cell = strstr(cfg->cmdline, "kbench.cell=");
        g_autofree char *guest = g_strdup_printf("guest=%s,debug-threads=on", cfg->name);
        g_autoptr(GString) argv = g_string_new(NULL);
        g_autofree char *release = f->release ? g_strdup(f->release) : fake_release_of(cfg->kernel);
        g_autofree char *ready = g_strdup_printf("release=%s", release);
        g_autofree char *banner = g_strdup_printf("[    0.000000] Linux version %s\n", release);
        g_autofree char *path = g_build_filename(f->root, "proc/" G_STRINGIFY(FAKE_QEMU_PID) "/cmdline", NULL);
        struct fakevm *v;

        if (play == FAKEHOST_START_FAIL)
                return error_setf(err, -EIO, "libvirt: cannot create domain %s: fake failure", cfg->name);
        if (!cell)
                fake_die("find kbench.cell= in", cfg->cmdline);
        /* The whole argv, each argument ended by a NUL, as /proc shows it. */
        g_string_append_len(argv, "qemu-system-x86_64", sizeof("qemu-system-x86_64"));
        g_string_append_len(argv, "-name", sizeof("-name"));
        g_string_append_len(argv, guest, (gssize)strlen(guest) + 1);
        if (!g_file_set_contents(path, argv->str, (gssize)argv->len, NULL))
                fake_die("write", path);
        v = g_new0(struct fakevm, 1);
        *v = (struct fakevm){ .h = f, .play = play, .fn = fn, .userdata = userdata,
                              .console_path = g_strdup(cfg->console_path), .write_s = write_s, .jit = jit };
        g_strlcpy(v->cell, cell + 12, MIN(sizeof(v->cell), strcspn(cell + 12, " ") + 1));
        if (f->counts && cfg->plugin && cfg->plugin_out) {
                v->insns_path = g_strdup(cfg->plugin_out);
                v->prof_path = f->profile && cfg->prof_plugin && cfg->prof_out ? g_strdup(cfg->prof_out) : NULL;
                v->counts = fake_counts_of(f, cfg->kernel);
                fake_plugins_load(v);
        }
        fake_console(v, banner);
        *ret = (struct vm *)(void *)v;
        if (play == FAKEHOST_BOOT_CRASH) {
                v->guest = g_thread_new("fakeboot", fake_boot_crash, v);
                return 0;
        }
        /* The agent's bases just before every ready (guest/ksymlist.h). */
        if (v->prof_path) {
                g_autofree char *base = g_strdup_printf("text %llx", KTEXT);

                fake_emit(v, "kbase", base);
        }
        fake_emit(v, "ready", ready);
        return 0;
}

static int fake_restore(void *ctx, const char *path, const struct vm_config *cfg, vm_event_fn fn, void *userdata,
                        struct vm **ret, struct kb_error *err) {
        (void)ctx, (void)cfg, (void)fn, (void)userdata, (void)ret;
        return error_setf(err, -ENOTSUP, "fakehost: no snapshot to restore from %s", path);
}

static int fake_send(struct vm *vm, const char *data, size_t len, struct kb_error *err) {
        struct fakevm *v = (struct fakevm *)(void *)vm;

        (void)err;
        if (len == 12 && memcmp(data, "set ksyms 1\n", 12) == 0)
                v->ksyms_asked = 1;
        if (!v->guest && len == 3 && memcmp(data, "go\n", 3) == 0)
                v->guest = g_thread_new("fakeguest", fake_guest, v);
        return 0;
}

static int fake_taints(struct vm *vm, char ***ret, struct kb_error *err) {
        (void)vm, (void)err;
        *ret = g_new0(char *, 1);
        return 0;
}

static void fake_stop(void *ctx, struct vm *vm, int background) {
        struct fakevm *v = (struct fakevm *)(void *)vm;

        (void)ctx, (void)background;
        if (!v)
                return;
        /* Nothing of the guest may reach the cell after its end. */
        if (v->guest)
                g_thread_join(v->guest);
        g_free(v->console_path);
        g_free(v->insns_path);
        g_free(v->prof_path);
        g_free(v);
}

static int fake_lost(void *ctx, const char **ret_why) {
        struct fakehost *f = ctx;
        int lost;

        g_mutex_lock(&f->lock);
        lost = f->lost;
        g_mutex_unlock(&f->lock);
        if (lost)
                *ret_why = "libvirt: the connection to the host was lost (fake)";
        return lost;
}

static const struct cell_vm_ops fake_vm_ops = {
        .start = fake_start, .restore = fake_restore, .send = fake_send, .taints = fake_taints, .stop = fake_stop,
        .lost = fake_lost,
};

static int fake_open(void *ctx, const char *spec, const char *default_uri, unsigned slots, const char *pool_dir,
                     struct run_host *ret, struct kb_error *err) {
        struct fakehost *f = ctx;
        struct run_host h = { .slots = slots ? slots : 1 };

        (void)default_uri, (void)pool_dir;
        if (spec && run_host_spec_parse(spec, &h.name, &h.uri, err) < 0)
                return -EINVAL;
        if (spec && !h.name)
                h.name = g_strdup(h.uri);
        if (!spec)
                h.uri = g_strdup("fake:///");
        h.info = (struct vm_host_info){ .hostname = g_strdup("fakehost"), .cpu_model = g_strdup("Fake CPU"),
                                        .qemu_version = g_strdup("8.2.0"), .libvirt_version = g_strdup("10.0.0"),
                                        .cpus = FAKE_CPUS, .mem_kib = 4 << 20, .qemu_uid = -1, .qemu_gid = -1 };
        h.hostload_root = g_strdup(f->root);
        *ret = h;
        return 0;
}

static const struct cell_vm_ops *fake_host_vm_ops(void *ctx, const struct run_host *h, void **ret_ctx) {
        (void)h;
        *ret_ctx = ctx;
        return &fake_vm_ops;
}

struct run_host_backend fakehost_backend(struct fakehost *f) {
        return (struct run_host_backend){ .open = fake_open, .vm_ops = fake_host_vm_ops, .ctx = f };
}

int fakehost_session_parts(struct store_session *s, const struct store_ctx *g, unsigned parts,
                           struct kb_error *err) {
        g_autofree char *kdir = store_kernels_dir(g);
        int r = 0;

        if ((parts & STORE_PART_STORE) && !s->ks)
                r = kstore_open(kdir, &s->ks, err);
        if (r >= 0 && (parts & STORE_PART_DB) && !s->db)
                r = db_open(g->db_path, &s->db, err);
        return r;
}
