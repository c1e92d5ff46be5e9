/* runner.c: the run loop behind `kbench run` (see runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "guest/initramfs.h"
#include "common/diskbus.h"
#include "common/fileio.h"
#include "host/accel.h"
#include "host/snapshot.h"
#include "cell/warm.h"
#include "cell/cell.h"
#include "cell/cellprof.h"
#include "cell/cellrows.h"
#include "host/hostload.h"
#include "report/metrics.h"
#include "run/hosts.h"
#include "run/plan.h"
#include "run/schedule.h"
#include "run/spread.h"
#include "run/runevent.h"
#include "store/reap.h"
#include "run/runner.h"
#include "settings/runopts.h"
#include "run/seqrun.h"
#include "host/vm.h"
#include "store/watchdog.h"
#include "kernels/ksyms.h"
#include "kernels/kconfig.h"
#include "kernels/kstore.h"
#include "results/db.h"
#include "results/query.h"
#include "workloads/vmstat.h"
#include "workloads/workload.h"

#ifndef KBENCH_LIBEXECDIR
#define KBENCH_LIBEXECDIR "/usr/local/libexec/kbench"
#endif

/* Modules every guest loads: ext4 (which also mounts ext2/ext3). The disk
 * bus adds its controller's and disk's (common/diskbus.h), workloads
 * theirs (e1000 for FTP). */
static const char *const base_modules[] = { "ext4", NULL };

struct run {
        struct run_settings set;           /* as given, and guest.accel once resolved */
        const struct runner_drive *d;
        const struct store_ctx *g;
        struct store_session *s;           /* the caller's: the kernel store, the lock held, the database */
        struct kstore *ks;                 /* s->ks, once open */
        struct kstore_kernel **kernels;
        size_t n_kernels;
        struct workload_spec **specs;
        size_t n_specs;
        char **initrds;                    /* per kernel */
        struct db *db;                     /* s->db, once open */
        struct run_host *hosts;            /* where the cells run: the store's own driver, or --connect's */
        size_t n_hosts;
        GMutex lock;                       /* with several hosts: the database, the events, counters */
        struct vm_conn *conn;              /* the first host's (the one of a single-host run) */
        const char *accel;                 /* the first host's accelerator, the run's settings' */
        char *accel_why;
        struct db_run row;
        char *qemu_version, *libvirt_version;
        const struct run_events *ev;       /* d->events: where the run reports */
        const volatile int *stop;          /* d->stop, or cell_interrupted */
        const struct run_host_backend *backend; /* d->hosts, or libvirt */
        int usage;                         /* the error was in the request: exit 2 */
        int stopped;                       /* end the run, resumable: the host's disk is full, a commit
                                              failed, or no host is left for the cells (held); with
                                              several hosts, under lock */
        size_t held;                       /* cells no live host was left to run (several hosts) */
        int past_deadline;                 /* d->deadline_at passed: no more cells, resumable */
        char *reserve;                     /* <store>/reserve, released when a commit fails */
        char **initrd_sha;                 /* per kernel, for snapshot keys; filled when first needed */
        GHashTable *warm_failed;           /* snapshot keys that failed this run: their cells boot cold */
        char *insn_plugin;                 /* the instruction counter in the store's cache, or NULL */
        char *prof_plugin;                 /* the profile plugin there, or NULL (cell/cellprof.h) */
        char *settings_text, *host_info;   /* the run row's (row points to them) */
        char hostname[256];
};

/* A cell's warm start: the snapshot it restores, owned here. */
struct warm_cell {
        char key[SNAPSHOT_KEY_LEN + 1];
        char uuid[37];
        char *save, *console, *cmdline, *domain;
};

static void warm_cell_clear(struct warm_cell *w) {
        g_free(w->save);
        g_free(w->console);
        g_free(w->cmdline);
        g_free(w->domain);
}

static void run_note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line for whoever watches the run (runevent.h). */
static void run_note(struct run *r, const char *fmt, ...) {
        g_autofree char *text = NULL;
        va_list ap;

        if (!r->ev)
                return;
        va_start(ap, fmt);
        text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        runevent_emit(r->ev, &(struct run_event){ .kind = RUN_EVENT_NOTE, .text = text });
}

static void run_stage(struct run *r, const char *stage) {
        runevent_emit(r->ev, &(struct run_event){ .kind = RUN_EVENT_CELL_STAGE, .stage = stage });
}

/* Whether whoever drives the run asked it to stop (a signal, in kbench). */
static int stop_requested(const struct run *r) {
        return *r->stop != 0;
}

/* With --warm, point spec at the snapshot of its shape, making it first
 * when the store has none (the boot it costs is the one cold boot of that
 * shape). A snapshot that cannot be made is said once and its cells boot
 * cold: warm start is an optimisation, never a reason for a cell to fail. */
static void warm_for_cell(struct run *r, const struct plan_cell *pc, struct cell_spec *spec, struct warm_cell *w) {
        const struct kstore_kernel *k = r->kernels[pc->kernel];
        struct snapshot_shape shape;
        struct kb_error err = { { 0 } };

        /* A snapshot is a file of the host that saved it: the store's own
         * driver's, in a run on that host alone. */
        if (!r->set.warm || r->set.cold || r->n_hosts != 1 || r->hosts[0].remote || !r->conn)
                return;
        if (!r->initrd_sha[pc->kernel] &&
            snapshot_file_sha256(r->initrds[pc->kernel], &r->initrd_sha[pc->kernel], &err) < 0) {
                run_note(r, "warm start off for %s: %s", k->name, err.msg);
                return;
        }
        w->cmdline = guest_cmdline(WARM_CELL_ID, r->set.guest.append);
        shape = (struct snapshot_shape){
                .kernel_id = k->id, .initrd_sha256 = r->initrd_sha[pc->kernel], .guest = &r->set.guest,
                .bus = diskbus_get(r->set.guest.disk_bus)->name,
                .nic = r->specs[pc->workload]->ops->n_ports > 0, .cmdline = w->cmdline,
                .qemu_version = r->qemu_version, .libvirt_version = r->libvirt_version,
        };
        snapshot_key(&shape, w->key);
        snapshot_uuid(w->key, w->uuid);
        if (g_hash_table_contains(r->warm_failed, w->key))
                return;
        w->save = snapshot_path(r->g->home, w->key, ".save");
        w->console = snapshot_path(r->g->home, w->key, ".console");
        if (!g_file_test(w->save, G_FILE_TEST_IS_REGULAR)) {
                g_autofree char *name = g_strdup_printf(WATCHDOG_SNAPSHOT_PREFIX "%.16s", w->key);
                struct warm_boot wb = {
                        .store = r->g->home, .key = w->key, .shape = &shape, .domain_name = name,
                        .kernel_path = k->vmlinux_path ? k->vmlinux_path : k->image_path, .kernel_name = k->name,
                        .initrd = r->initrds[pc->kernel], .boot_timeout_s = spec->boot_timeout_s,
                };
                struct warm_made made;

                run_stage(r, "snapshot");
                if (warm_make(r->conn, &wb, &made, &err) < 0) {
                        run_note(r, "no snapshot for %s (%s); its cells boot cold", k->name, err.msg);
                        g_hash_table_add(r->warm_failed, g_strdup(w->key));
                        return;
                }
                run_note(r, "snapshot for %s: booted in %.2f s, saved in %.2f s, %" G_GUINT64_FORMAT
                         " MiB", k->name, made.boot_s, made.save_s, made.bytes >> 20);
        }
        w->domain = g_strdup_printf(WATCHDOG_SNAPSHOT_PREFIX "%.16s", w->key);
        spec->snapshot_domain = w->domain;
        spec->snapshot = w->save;
        spec->snapshot_console = w->console;
        spec->snapshot_uuid = w->uuid;
        spec->snapshot_cmdline = w->cmdline;
}

/* After a cell: a snapshot that failed it is removed, and the run's later
 * cells of its shape boot cold. */
static void warm_after_cell(struct run *r, const struct warm_cell *w, const struct cell_result *res) {
        struct kb_error err = { { 0 } };

        if (!res->snapshot_failed)
                return;
        if (snapshot_remove(r->g->home, w->key, &err) < 0)
                run_note(r, "removing the failed snapshot: %s", err.msg);
        g_hash_table_add(r->warm_failed, g_strdup(w->key));
}

char *runner_helper_path(const char *env, const char *build_rel, const char *name) {
        const char *e = getenv(env);
        g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
        g_autofree char *dir = exe ? g_path_get_dirname(exe) : NULL;
        char *p;

        if (e && *e)
                return g_strdup(e);
        if (dir) {
                p = g_build_filename(dir, "..", build_rel, NULL);
                if (g_file_test(p, G_FILE_TEST_IS_EXECUTABLE))
                        return p;
                g_free(p);
        }
        return g_build_filename(KBENCH_LIBEXECDIR, name, NULL);
}

static void strv_add_unique(GPtrArray *a, const char *s) {
        for (guint i = 0; i < a->len; i++)
                if (strcmp(a->pdata[i], s) == 0)
                        return;
        g_ptr_array_add(a, g_strdup(s));
}

static int build_images(struct run *r, struct kb_error *err) {
        g_autofree char *agent = runner_helper_path("KBENCH_AGENT", "guest/kbench-agent", "kbench-agent");
        g_autofree char *cache = store_cache_dir(r->g);
        g_autoptr(GPtrArray) modules = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) binaries = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

        if (!g_file_test(agent, G_FILE_TEST_IS_EXECUTABLE))
                return error_setf(err, -ENOENT, "guest agent not found at %s (set KBENCH_AGENT)", agent);
        for (const char *const *m = diskbus_get(r->set.guest.disk_bus)->modules; *m; m++)
                strv_add_unique(modules, *m);
        for (size_t i = 0; base_modules[i]; i++)
                strv_add_unique(modules, base_modules[i]);
        if (!g_str_has_prefix(r->set.guest.fs, "ext"))
                strv_add_unique(modules, r->set.guest.fs);
        /* Only what this run's workloads need: every megabyte of initramfs
         * costs boot time under TCG. The cache key covers the content, so
         * each (kernel, workload set) gets its own image once. */
        for (size_t w = 0; w < r->n_specs; w++) {
                const struct workload_ops *ops = r->specs[w]->ops;
                for (size_t i = 0; ops->guest_modules && ops->guest_modules[i]; i++)
                        strv_add_unique(modules, ops->guest_modules[i]);
                for (size_t i = 0; ops->guest_binaries && ops->guest_binaries[i]; i++) {
                        if (!g_file_test(ops->guest_binaries[i], G_FILE_TEST_IS_EXECUTABLE))
                                return error_setf(err, -ENOENT, "workload %s needs %s on this host "
                                                  "(tools/setup.sh installs it)", ops->name,
                                                  ops->guest_binaries[i]);
                        strv_add_unique(binaries, ops->guest_binaries[i]);
                }
                for (size_t i = 0; ops->guest_files && ops->guest_files[i]; i++) {
                        const char *f = ops->guest_files[i];
                        g_autofree char *env = NULL, *rel = NULL, *path = NULL;
                        if (f[0] == '/') {
                                g_autofree char *same = g_strdup_printf("%s=%s", f, f);
                                if (!g_file_test(f, G_FILE_TEST_IS_REGULAR))
                                        return error_setf(err, -ENOENT, "workload %s needs %s on this host "
                                                          "(tools/setup.sh installs its packages)", ops->name, f);
                                strv_add_unique(files, same);
                                continue;
                        }
                        if (!g_str_has_prefix(f, "kbench:"))
                                continue;
                        env = g_ascii_strup(f + 7, -1);
                        env = g_strconcat("KBENCH_", (char *)g_steal_pointer(&env), NULL);
                        rel = g_strdup_printf("workloads/%s", f + 7);
                        path = runner_helper_path(env, rel, f + 7);
                        if (!g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
                                return error_setf(err, -ENOENT, "guest helper %s not found at %s (set %s)",
                                                  f + 7, path, env);
                        g_autofree char *entry = g_strdup_printf("%s=/bin/%s", path, f + 7);
                        strv_add_unique(files, entry);
                }
        }
        g_ptr_array_add(modules, NULL);
        g_ptr_array_add(binaries, NULL);
        g_ptr_array_add(files, NULL);

        r->initrds = g_new0(char *, r->n_kernels + 1);
        r->initrd_sha = g_new0(char *, r->n_kernels + 1);
        for (size_t k = 0; k < r->n_kernels; k++) {
                struct initramfs_spec spec = {
                        .agent_path = agent, .busybox_path = "/bin/busybox",
                        .modules_dir = r->kernels[k]->modules_dir,
                        .modules = r->kernels[k]->modules_dir ? (const char *const *)modules->pdata : NULL,
                        .binaries = (const char *const *)binaries->pdata,
                        .files = (const char *const *)files->pdata,
                };
                int cached = 0, ret;
                int64_t t0 = g_get_monotonic_time();

                ret = initramfs_build(&spec, cache, &r->initrds[k], &cached, err);
                if (ret < 0)
                        return error_prefix(err, ret, "guest image for kernel %s", r->kernels[k]->name);
                runevent_emit(r->ev, &(struct run_event){ .kind = RUN_EVENT_IMAGE, .label = r->kernels[k]->name,
                                                           .cached = cached,
                                                           .seconds = (double)(g_get_monotonic_time() - t0) / 1e6 });
        }
        return 0;
}

/* A plugin as a file QEMU can open: a copy in the store's cache named by
 * its content (prefix-<sha>.so), since QEMU runs as VM_QEMU_USER and the
 * build tree need not be reachable by it. NULL, said once with what, when
 * it is not built or cannot be copied. Caller g_frees. */
static char *stage_plugin(struct run *r, const char *env, const char *rel, const char *name, const char *prefix,
                          const char *what) {
        g_autofree char *src = runner_helper_path(env, rel, name);
        g_autofree char *cache = store_cache_dir(r->g), *bytes = NULL, *sum = NULL, *file = NULL, *dst = NULL;
        gsize len = 0;

        if (!g_file_get_contents(src, &bytes, &len, NULL)) {
                run_note(r, "no %s: the plugin is not built (%s; tools/setup.sh builds it)", what, src);
                return NULL;
        }
        sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)bytes, len);
        file = g_strdup_printf("%s-%.16s.so", prefix, sum);
        dst = g_build_filename(cache, file, NULL);
        g_mkdir_with_parents(cache, 0755);
        if (!g_file_test(dst, G_FILE_TEST_EXISTS)) {
                g_autofree char *tmp = g_strconcat(dst, ".tmp", NULL);
                if (!g_file_set_contents_full(tmp, bytes, (gssize)len, G_FILE_SET_CONTENTS_CONSISTENT, 0644, NULL) ||
                    rename(tmp, dst) < 0) {
                        g_unlink(tmp);
                        run_note(r, "no %s: cannot write %s", what, dst);
                        return NULL;
                }
        }
        return g_steal_pointer(&dst);
}

/* The instruction counter (plugin/kbinsn.c) and, unless --no-profile, the
 * profile plugin beside it (plugin/kbprof.c). Both are TCG's: under KVM
 * cells count with the guest's PMU and have no profile, which the run
 * says once. */
static void stage_plugins(struct run *r) {
        if (strcmp(r->accel, "kvm") == 0) {
                if (!r->set.no_profile)
                        run_note(r, "no profile of the kernel's instructions: it needs TCG's plugin (the cells run "
                                 "under KVM)");
                return;
        }
        r->insn_plugin = stage_plugin(r, RUNNER_INSN_PLUGIN, "kbinsn", "instruction counts");
        if (r->insn_plugin && !r->set.no_profile)
                r->prof_plugin = stage_plugin(r, RUNNER_PROF_PLUGIN, "kbprof", "profile of the kernel's instructions");
}

static char *host_info_json(void) {
        g_autofree char *cpuinfo = NULL, *meminfo = NULL;
        const char *model = "unknown";
        char *line, *save = NULL;
        struct utsname u;
        long mem_kb = 0;
        json_t *j;
        char *s;

        uname(&u);
        if (g_file_get_contents("/proc/cpuinfo", &cpuinfo, NULL, NULL))
                for (line = strtok_r(cpuinfo, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                        if (g_str_has_prefix(line, "model name") && strchr(line, ':')) {
                                model = g_strstrip(strchr(line, ':') + 1);
                                break;
                        }
        if (g_file_get_contents("/proc/meminfo", &meminfo, NULL, NULL))
                mem_kb = strtol(meminfo + strcspn(meminfo, "0123456789"), NULL, 10);
        j = json_pack("{s:s, s:s, s:i, s:I, s:s}", "cpu", model, "kernel", u.release,
                      "cores", (int)sysconf(_SC_NPROCESSORS_ONLN), "mem_kb", (json_int_t)mem_kb,
                      "machine", u.machine);
        s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(j);
        return s;
}

/* With --until-mde no round starts without a time budget beyond this. */
#define UNTIL_MDE_MAX_ROUNDS 1000
/* The level and power --until-mde's MDE is defined at: compare's defaults. */
#define SEQ_ALPHA 0.05
#define SEQ_POWER 0.8

/* The rounds the plan holds: -n, or with --until-mde as many as the budget
 * allows (the rule decides how many of them run). */
static int plan_rounds(const struct run *r) {
        size_t per = r->n_kernels * r->n_specs;

        if (r->set.until_mde_pct <= 0)
                return r->set.repeats;
        if (r->set.budget_cells > 0)
                return (int)MIN((size_t)r->set.budget_cells / MAX(per, 1), UNTIL_MDE_MAX_ROUNDS);
        return UNTIL_MDE_MAX_ROUNDS;
}

static char *settings_json(const struct run *r) {
        const struct run_settings *o = &r->set;
        json_t *j = json_object(), *ks = json_array(), *ws = json_array();
        char *s;

        for (size_t k = 0; k < r->n_kernels; k++) {
                /* The upstream version, for the pages: the store may have
                 * lost the kernel by the time they are written. */
                g_autofree char *up = kconfig_upstream(r->kernels[k]->version, r->kernels[k]->release);

                json_array_append_new(ks, json_pack("{s:s, s:s, s:s?, s:s?}", "name", r->kernels[k]->name, "id",
                                                    r->kernels[k]->id, "release", r->kernels[k]->release,
                                                    "upstream", up));
        }
        for (size_t w = 0; w < r->n_specs; w++)
                json_array_append_new(ws, json_string(r->specs[w]->text));
        json_object_set_new(j, "kernels", ks);
        json_object_set_new(j, "workloads", ws);
        runopts_save(o, j);
        /* What the run's header counts against, also while it is unfinished. */
        json_object_set_new(j, "planned_cells", json_integer((json_int_t)(r->n_kernels * r->n_specs) *
                                                             plan_rounds(r)));
        json_object_set_new(j, "accel", json_string(r->accel));
        json_object_set_new(j, "accel_why", json_string(r->accel_why));
        if (r->g->hosts) {
                json_t *hs = json_array();

                for (size_t h = 0; h < r->n_hosts; h++)
                        json_array_append_new(hs, json_pack("{s:s, s:s, s:i}", "name", r->hosts[h].name, "uri",
                                                            r->hosts[h].uri, "slots", (int)r->hosts[h].slots));
                json_object_set_new(j, RUNOPTS_HOSTS_KEY, hs);
        }
        /* Which of these keys compare and nightly leave out of "the same
         * settings", as the option table classified them for this run. */
        json_object_set_new(j, RUNOPTS_HOW_KEYS, runopts_how_keys());
        s = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return s;
}

/* A cell's params: its workload, the settings the option table keeps per
 * cell (and the accelerator), and the sysctls its guest read back after
 * writing them (res may be NULL: none known). */
static char *cell_params_json(const struct run *r, const struct run_host *h, const struct plan_cell *pc,
                              const struct cell_result *res) {
        json_t *j = json_pack("{s:s}", "workload", r->specs[pc->workload]->text);
        char *s;

        runopts_cell_params(&r->set, j);
        /* A host's cells are its own comparison (settings/runopts.c). */
        json_object_set_new(j, RUNOPTS_ACCEL_KEY, json_string(h->accel));
        if (h->name)
                json_object_set_new(j, RUNOPTS_HOST_KEY, json_string(h->name));
        if (res && res->sysctls && res->sysctls->len) {
                json_t *applied = json_object();
                for (guint i = 0; i < res->sysctls->len; i++) {
                        const char *kv = res->sysctls->pdata[i], *eq = strchr(kv, '=');
                        g_autofree char *k = g_strndup(kv, (size_t)(eq - kv));
                        json_object_set_new(applied, k, json_string(eq + 1));
                }
                json_object_set_new(j, "sysctls_applied", applied);
        }
        if (res && res->disk_driver[0])
                json_object_set_new(j, "disk_driver", json_string(res->disk_driver));
        s = json_dumps(j, JSON_COMPACT);

        json_decref(j);
        return s;
}

#define RESERVE_BYTES (64u << 20)

/* Keep RESERVE_BYTES of the store's filesystem in a file, so that a commit
 * that fails on a full disk can be retried once the reserve is given back.
 * Best effort: a store without room for it runs without it. */
static void reserve_take(struct run *r) {
        int fd = -1;

        r->reserve = g_build_filename(r->g->home, "reserve", NULL);
        /* Not through a link someone put there: it would fill its target. */
        if (fileio_create(r->reserve, O_WRONLY, 0600, &fd, NULL) < 0)
                return;
        if (posix_fallocate(fd, 0, RESERVE_BYTES) != 0)
                run_note(r, "no room for the %u MiB reserve in %s", RESERVE_BYTES >> 20, r->g->home);
        close(fd);
}

/* Give the reserve back; returns 1 when there was one to give. */
static int reserve_release(struct run *r) {
        return r->reserve && g_unlink(r->reserve) == 0;
}

/* A kernel's symbol table its guest sent in a cell goes into the kernel
 * store, so the kernel's later cells need not send it again
 * (cell/cellprof.h). Not being able to is said, not fatal: the next cell
 * sends it again. */
static void keep_ksyms(struct run *r, const struct kstore_kernel *k, const struct cell_result *res) {
        g_autofree char *tmp = NULL;
        struct kb_error err = { { 0 } };
        int multi = r->n_hosts > 1, fd;

        if (!res->ksyms_fresh || !res->ksyms)
                return;
        tmp = g_build_filename(r->g->home, "scratch", "ksyms-XXXXXX", NULL);
        fd = g_mkstemp(tmp);
        if (fd < 0) {
                run_note(r, "%s: its symbol table is not kept: %s: %s", k->name, tmp, g_strerror(errno));
                return;
        }
        close(fd);
        if (multi)
                g_mutex_lock(&r->lock);
        if (ksyms_save(res->ksyms, tmp, &err) < 0 || kstore_attach(r->ks, k, "ksyms", tmp, CELLPROF_KSYMS_FILE, &err) < 0)
                run_note(r, "%s: its symbol table is not kept: %s", k->name, err.msg);
        if (multi)
                g_mutex_unlock(&r->lock);
        g_unlink(tmp);
}

/* Store one finished attempt. A failed commit (a full host disk, mostly)
 * first gives back the store's reserve and tries again; if that fails too
 * the cell goes to <store>/pending as JSON, said in a note with its key,
 * and --resume stores it. Returns 0 when the cell is safe (in the database
 * or pending), or the error (the run must stop). */
static int store_cell(struct run *r, const struct run_host *h, const struct plan_cell *pc, int attempt,
                      struct cell_result *res, int *ret_pending, struct kb_error *err) {
        g_autofree char *params = cell_params_json(r, h, pc, res);
        g_autofree char *dir = g_build_filename(r->g->home, "pending", NULL);
        g_autofree char *path = NULL;
        struct cellrows_ctx ctx = { .run_id = r->row.id, .cell_key = pc->key,
                                    .kernel_id = r->kernels[pc->kernel]->id, .workload = r->specs[pc->workload],
                                    .iteration = pc->iteration, .attempt = attempt, .accel = h->accel,
                                    .params_json = params, .vmstat_interval_s = r->set.vmstat_interval_s };
        struct kb_error perr = { { 0 } };
        struct cellrows rows;
        int ret;

        *ret_pending = 0;
        cellrows_build(&ctx, res, &rows);
        rows.cell.host_id = h->db_id;
        ret = db_cell_insert(r->db, &rows.cell, NULL, err);
        if (ret < 0 && reserve_release(r))
                ret = db_cell_insert(r->db, &rows.cell, NULL, err);
        if (ret < 0 && cellrows_save_pending(dir, &rows.cell, &path, &perr) == 0) {
                run_note(r, "kbench: cell %s (run %" G_GINT64_FORMAT ", %s) not stored: %s; kept in %s "
                         "for 'kbench run --resume %" G_GINT64_FORMAT "'", pc->key, r->row.id, res->state,
                         err->msg, path, r->row.id);
                *ret_pending = 1;
                ret = 0;
        } else if (ret < 0) {
                error_prefix(err, ret, "cell %s (run %" G_GINT64_FORMAT ", %s: %s) is lost: %s; storing it",
                             pc->key, r->row.id, res->state, res->detail, perr.msg);
        }
        cellrows_clear(&rows);
        return ret;
}

static void on_stage(void *userdata, const char *stage) {
        run_stage(userdata, stage);
}

/* --until-mde: what the run loop keeps between rounds. The rule itself is
 * stateless (decide/seqrule.h): a resumed run asks it about the stored
 * cells and hears what the interrupted run would have heard. */
struct seq {
        int on;
        int asked;                         /* the rounds last asked about; -1 none */
        int done;                          /* the outcome is recorded */
        int ran_here;                      /* a cell started in this invocation's current round */
        size_t rounds_here;                /* rounds this invocation ran a cell in */
        int64_t t0_us;                     /* this invocation's start, monotonic */
        struct seqrun_ctx ctx;
        const char **kernel_ids, **kernel_names, **spec_names;
};

static void seq_init(struct run *r, const struct plan_cell *plan, size_t n, struct seq *s) {
        const struct run_settings *o = &r->set;

        *s = (struct seq){ .on = o->until_mde_pct > 0, .asked = -1, .t0_us = g_get_monotonic_time() };
        if (!s->on)
                return;
        s->kernel_ids = g_new0(const char *, r->n_kernels + 1);
        s->kernel_names = g_new0(const char *, r->n_kernels + 1);
        s->spec_names = g_new0(const char *, r->n_specs + 1);
        for (size_t k = 0; k < r->n_kernels; k++) {
                s->kernel_ids[k] = r->kernels[k]->id;
                s->kernel_names[k] = r->kernels[k]->name;
        }
        for (size_t w = 0; w < r->n_specs; w++)
                s->spec_names[w] = r->specs[w]->text;
        s->ctx = (struct seqrun_ctx){
                .db = r->db, .run_id = r->row.id, .plan = plan, .n_plan = n, .n_kernels = r->n_kernels,
                .n_specs = r->n_specs, .kernel_ids = s->kernel_ids, .kernel_names = s->kernel_names,
                .spec_names = s->spec_names,
                .params = { .target = o->until_mde_pct / 100, .alpha = SEQ_ALPHA, .power = SEQ_POWER,
                            .pilot = (size_t)MAX(o->repeats, 2), .max_rounds = n / MAX(r->n_kernels * r->n_specs, 1) },
        };
}

static void seq_clear(struct seq *s) {
        g_free(s->kernel_ids);
        g_free(s->kernel_names);
        g_free(s->spec_names);
}

/* Record why the run stopped: the outcome, and the cells it planned now
 * that the rule has chosen them. */
static int seq_record(struct run *r, struct seq *s, const struct seqrun_answer *a, const char *why, size_t rounds,
                      struct kb_error *err) {
        g_autofree char *outcome = seqrun_outcome_json(&s->ctx, a, why, rounds);
        g_autofree char *planned = g_strdup_printf("%zu", rounds * r->n_kernels * r->n_specs);
        int ret;

        if (!outcome)
                return error_setf(err, -ENOMEM, "out of memory");
        ret = db_run_set_setting(r->db, r->row.id, RUNOPTS_UNTIL_MDE_OUTCOME, outcome, err);
        if (ret >= 0)
                ret = db_run_set_setting(r->db, r->row.id, "planned_cells", planned, err);
        s->done = ret >= 0;
        return ret;
}

/* After `rounds` complete rounds: the rule's answer as a progress line, and
 * whether the run stops here (the rule's answer, or --budget-time: no
 * round starts that the time left would not finish, judged by this
 * invocation's mean round). OUT: *ret_stop. */
static int seq_round_done(struct run *r, struct seq *s, size_t rounds, int *ret_stop, struct kb_error *err) {
        struct seqrun_answer a;
        double elapsed = (double)(g_get_monotonic_time() - s->t0_us) / 1e6, mean;
        const char *why = NULL;
        int ret;

        s->asked = (int)rounds;
        s->rounds_here += s->ran_here;
        s->ran_here = 0;
        ret = seqrun_ask(&s->ctx, rounds, &a, err);
        if (ret < 0)
                return ret;
        mean = s->rounds_here ? elapsed / (double)s->rounds_here : 0;
        if (a.d.answer == SEQRULE_ENOUGH)
                why = "enough";
        else if (a.d.answer == SEQRULE_BUDGET)
                why = "budget";
        else if (r->set.budget_time_s > 0 && elapsed + mean > r->set.budget_time_s)
                why = "time";
        if (a.d.answer == SEQRULE_MORE)
                run_note(r, "round %zu: mde %s (target %g%%): %s, next look at %zu rounds", rounds,
                         a.n_metrics ? a.mdes : "(no judged metric yet)", r->set.until_mde_pct,
                         why ? "time budget spent" : "more", a.d.next);
        else
                run_note(r, "round %zu: mde %s (target %g%%): %s at %zu rounds%s%s", rounds,
                         a.n_metrics ? a.mdes : "(no judged metric)", r->set.until_mde_pct,
                         a.d.answer == SEQRULE_ENOUGH ? "enough" : "budget spent", a.d.look,
                         a.worst ? ", worst " : "", a.worst ? a.worst : "");
        *ret_stop = why != NULL;
        if (why)
                ret = seq_record(r, s, &a, why, rounds, err);
        seqrun_answer_clear(&a);
        return ret;
}

/* How a cell's attempts are named in the run's events: by its key under
 * the progress line of a run on one host; by its whole label, on a line of
 * its own, when several hosts run cells at once. */
struct cell_line {
        char label[160];
        int64_t t0_us;
};

static void cell_note(struct run *r, const char *key, const struct cell_line *l, const char *state,
                      const char *detail, int again) {
        int multi = r->n_hosts > 1;
        struct run_event ev = { .kind = again ? RUN_EVENT_CELL_RETRY : RUN_EVENT_CELL_END,
                                .label = multi ? l->label : key, .state = state, .detail = detail,
                                .own_line = multi,
                                .seconds = (double)(g_get_monotonic_time() - l->t0_us) / 1e6 };

        if (multi)
                g_mutex_lock(&r->lock);
        runevent_emit(r->ev, &ev);
        if (multi)
                g_mutex_unlock(&r->lock);
}

/* The attempts of one cell on host h: each through its warm start (if
 * any), the cell and the store, until one is not retried. *ret_failed
 * counts the cell when its last attempt is not ok. With several hosts, a
 * host that fails stops the attempts here: *ret_host_failed, and
 * *ret_again when another host is to make the next one. */
static int run_attempts(struct run *r, struct run_host *h, const struct plan_cell *pc, struct cell_spec *spec,
                        int first_attempt, const struct cell_line *line, int *ret_failed, int *ret_host_failed,
                        int *ret_again, struct kb_error *err) {
        int multi = r->n_hosts > 1;
        void *ctx;
        const struct cell_vm_ops *ops = r->backend->vm_ops(r->backend->ctx, h, &ctx);

        for (int attempt = first_attempt;; attempt++) {
                struct cell_result res;
                struct warm_cell warm;
                int again, pending, stopped, ret;

                memset(&warm, 0, sizeof(warm));
                spec->snapshot = spec->snapshot_console = spec->snapshot_uuid = spec->snapshot_cmdline = NULL;
                spec->snapshot_domain = NULL;
                warm_for_cell(r, pc, spec, &warm);
                spec->attempt = attempt;
                ret = cell_run_ops(ops, ctx, spec, &res, multi ? NULL : on_stage, r, err);
                if (ret == 0) {
                        warm_after_cell(r, &warm, &res);
                        keep_ksyms(r, spec->kernel, &res);
                }
                warm_cell_clear(&warm);
                if (ret < 0)
                        return ret;
                if (multi)
                        g_mutex_lock(&r->lock);
                ret = store_cell(r, h, pc, attempt, &res, &pending, err);
                /* One host: its full disk stops the run, since every later
                 * cell would meet it too (--resume continues once there is
                 * room). Several: the others take its cells. A commit that
                 * failed stops the run either way. */
                if (ret >= 0 && (pending || (res.host_failed && !multi)))
                        r->stopped = 1;
                stopped = r->stopped;
                if (multi)
                        g_mutex_unlock(&r->lock);
                g_rmdir(spec->work_dir);
                /* A cell measured beside a busy host is re-run from
                 * the same budget as an infra error. */
                again = ret >= 0 && plan_retry(res.retryable || (res.contended && r->set.max_contention_pct > 0),
                                               attempt, first_attempt, r->set.retries,
                                               stop_requested(r) || stopped);
                cell_note(r, pc->key, line, res.state, res.detail, again);
                if (ret >= 0 && !again && strcmp(res.state, CELL_OK) != 0)
                        (*ret_failed)++;
                if (ret >= 0 && multi && res.host_failed) {
                        *ret_host_failed = 1;
                        *ret_again = again;
                        cell_result_clear(&res);
                        return 0;
                }
                cell_result_clear(&res);
                if (ret < 0 || !again)
                        return ret;
        }
}

/* One cell of the plan on host h: its spec (the run's guest with h's
 * accelerator, timeouts, host load and instruction counts), its attempts
 * numbered on from earlier ones (a resumed run's, another host's), under
 * its progress line. */
static int run_one_cell(struct run *r, struct run_host *h, const struct plan_cell *pc, const char *prefix,
                        GPtrArray *agent_lines, int *ret_failed, int *ret_host_failed, int *ret_again,
                        struct kb_error *err) {
        const struct kstore_kernel *k = r->kernels[pc->kernel];
        g_autofree char *work = g_strdup_printf("%s/scratch/%s-%s", r->g->home, prefix, pc->key);
        int first_attempt = 1, multi = r->n_hosts > 1, ret;
        struct cell_line line = { .t0_us = g_get_monotonic_time() };
        struct cell_spec spec = {
                .key = pc->key, .domain_prefix = prefix, .kernel = k, .workload = r->specs[pc->workload],
                .iteration = pc->iteration, .guest = &h->guest, .initrd = r->initrds[pc->kernel],
                .work_dir = work, .qemu_user = h->qemu_user,
                .agent_lines = (const char *const *)agent_lines->pdata,
                .deadline_s = r->set.cell_timeout_s, .boot_timeout_s = strcmp(h->accel, "kvm") == 0 ? 60 : 120,
                .silence_timeout_s = r->set.hang_timeout_s,
                .hostload_root = h->hostload_root, .stop = r->stop,
                .contended_pct = r->set.max_contention_pct > 0 ? r->set.max_contention_pct : METRICS_CONTENDED_PCT,
                .insn_plugin = r->insn_plugin, .prof_plugin = r->prof_plugin,
        };

        /* The name results will show: a variant's label first; and where. */
        g_snprintf(line.label, sizeof(line.label), "%s %s%s %s #%d%s%s", pc->key, r->set.variant ? r->set.variant : "",
                   k->name, r->specs[pc->workload]->ops->name, pc->iteration + 1, multi ? " on " : "",
                   multi ? h->name : "");
        /* A resumed run continues the attempt numbering of its cells. */
        if (multi)
                g_mutex_lock(&r->lock);
        ret = db_cell_next_attempt(r->db, r->row.id, pc->key, &first_attempt, err);
        if (multi)
                g_mutex_unlock(&r->lock);
        if (ret < 0)
                return ret;
        if (!multi)
                runevent_emit(r->ev, &(struct run_event){ .kind = RUN_EVENT_CELL_BEGIN, .label = line.label });
        return run_attempts(r, h, pc, &spec, first_attempt, &line, ret_failed, ret_host_failed, ret_again, err);
}

/* Whether another cell may start: no interrupt, no failed commit, and the
 * caller's deadline (a night's) not passed. */
static int run_goes_on(struct run *r) {
        if (stop_requested(r) || r->stopped)
                return 0;
        if (r->d->deadline_at > 0 && (double)g_get_real_time() / 1e6 >= r->d->deadline_at) {
                if (!r->past_deadline)
                        run_note(r, "deadline reached: the remaining cells are not started");
                r->past_deadline = 1;
                return 0;
        }
        return 1;
}

/* The cells on one host, in plan order, with --until-mde's rule asked
 * after each round. */
static int run_cells_here(struct run *r, const struct plan_cell *plan, size_t n, const char *const *done,
                          const char *prefix, GPtrArray *agent_lines, int *ret_failed, struct kb_error *err) {
        struct seq seq __attribute__((cleanup(seq_clear))) = { 0 };
        int ret, host_failed = 0, again = 0;

        seq_init(r, plan, n, &seq);
        for (size_t i = 0; i < n && !stop_requested(r) && !r->stopped; i++) {
                const struct plan_cell *pc = &plan[i];

                /* --until-mde: a round is over; ask whether it was the last. */
                if (seq.on && pc->iteration > 0 && pc->iteration != seq.asked) {
                        int stop = 0;

                        ret = seq_round_done(r, &seq, (size_t)pc->iteration, &stop, err);
                        if (ret < 0)
                                return ret;
                        if (stop)
                                break;
                }
                if (plan_is_done(pc, done))
                        continue;
                if (!run_goes_on(r))
                        break;
                seq.ran_here = 1;
                ret = run_one_cell(r, &r->hosts[0], pc, prefix, agent_lines, ret_failed, &host_failed, &again, err);
                if (ret < 0)
                        return ret;
        }
        /* The budget's last round: the rule's last word. */
        if (seq.on && !seq.done && !stop_requested(r) && !r->stopped && !r->past_deadline) {
                int stop = 0;

                ret = seq_round_done(r, &seq, seq.ctx.params.max_rounds, &stop, err);
                if (ret < 0)
                        return ret;
        }
        return 0;
}

/* What the slots of several hosts share (spread.h's callbacks). */
struct spread_ctx {
        struct run *r;
        const struct plan_cell *plan;
        const char *prefix;
        GPtrArray *agent_lines;
        int failed;                        /* guarded by r->lock */
};

static int spread_cell(void *userdata, size_t host, size_t cell, int *ret_host_failed, int *ret_again,
                       struct kb_error *err) {
        struct spread_ctx *sc = userdata;
        int failed = 0, r = run_one_cell(sc->r, &sc->r->hosts[host], &sc->plan[cell], sc->prefix, sc->agent_lines,
                                         &failed, ret_host_failed, ret_again, err);

        g_mutex_lock(&sc->r->lock);
        sc->failed += failed;
        g_mutex_unlock(&sc->r->lock);
        return r;
}

static int spread_go_on(void *userdata) {
        return run_goes_on(((struct spread_ctx *)userdata)->r);
}

static void spread_host_failed(void *userdata, size_t host, long to, size_t held) {
        struct run *r = ((struct spread_ctx *)userdata)->r;

        if (to >= 0) {
                run_note(r, "host %s failed: its cells go to %s", run_host_label(&r->hosts[host]),
                         run_host_label(&r->hosts[to]));
                return;
        }
        run_note(r, "host %s failed and no host is left for its %zu cell(s): they are held",
                 run_host_label(&r->hosts[host]), held);
        r->stopped = 1;
}

/* The cells over several hosts: one comparison's cells on one host
 * (schedule.h), the hosts at once (spread.h). */
static int run_cells_spread(struct run *r, const struct plan_cell *plan, size_t n, const char *const *done,
                            const char *prefix, GPtrArray *agent_lines, int *ret_failed, struct kb_error *err) {
        static const struct spread_ops ops = { spread_cell, spread_go_on, spread_host_failed };
        struct spread_ctx sc = { .r = r, .plan = plan, .prefix = prefix, .agent_lines = agent_lines };
        g_autofree size_t *group = g_new0(size_t, n ? n : 1);
        g_autofree int *todo = g_new0(int, n ? n : 1);
        g_autofree unsigned *slots = g_new0(unsigned, r->n_hosts);
        struct schedule *s = NULL;
        int ret;

        for (size_t i = 0; i < n; i++) {
                group[i] = plan[i].workload;
                todo[i] = !plan_is_done(&plan[i], done);
        }
        for (size_t h = 0; h < r->n_hosts; h++)
                slots[h] = r->hosts[h].slots;
        ret = schedule_new(n, group, todo, r->n_specs, slots, r->n_hosts, &s);
        if (ret < 0)
                return error_setf(err, ret, "cannot schedule the run's cells");
        for (size_t w = 0; w < r->n_specs; w++)
                run_note(r, "%s on %s", r->specs[w]->text, r->hosts[schedule_group_host(s, w)].name);
        ret = spread_run(&ops, &sc, s, slots, r->n_hosts, &r->lock, err);
        r->held = schedule_held(s);
        if (ret >= 0 && r->held > 0)
                r->stopped = 1;
        schedule_free(s);
        *ret_failed = sc.failed;
        return ret;
}

static int run_cells(struct run *r, int *ret_failed, struct kb_error *err) {
        g_autofree struct plan_cell *plan = NULL;
        g_autofree char *prefix = g_strdup_printf("kb%d-r%" G_GINT64_FORMAT, (int)getpid(), r->row.id);
        g_auto(GStrv) done = NULL;
        size_t n;
        int ret;
        g_autoptr(GPtrArray) agent_lines = g_ptr_array_new_with_free_func(g_free);

        runopts_agent_lines(&r->set, agent_lines);
        g_ptr_array_add(agent_lines, NULL);
        plan_build(r->n_kernels, r->n_specs, plan_rounds(r), &plan, &n);
        if (r->set.resume_run > 0) {
                ret = db_run_done_keys(r->db, r->row.id, &done, err);
                if (ret < 0)
                        return ret;
        }
        runevent_emit(r->ev, &(struct run_event){ .kind = RUN_EVENT_CELLS,
                                                   .total = plan_todo(plan, n, (const char *const *)done) });
        *ret_failed = 0;
        if (r->n_hosts == 1)
                return run_cells_here(r, plan, n, (const char *const *)done, prefix, agent_lines, ret_failed, err);
        return run_cells_spread(r, plan, n, (const char *const *)done, prefix, agent_lines, ret_failed, err);
}

/* Refuse, before any run row exists, what this host cannot do: every cell
 * would fail the same way after its boot was paid for. */
static int check_host(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;
        g_autofree char *mkfs = g_strdup_printf("mkfs.%s", o->guest.fs);
        g_autofree char *found = g_find_program_in_path(mkfs);
        g_autofree char *scratch = g_build_filename(r->g->home, "scratch", NULL);
        struct statvfs st;
        uint64_t need = o->guest.disk_bytes + o->guest.swap_bytes, avail;

        r->usage = 1;
        if (!found)
                return error_setf(err, -ENOENT, "--fs %s: %s is not installed on this host", o->guest.fs, mkfs);
        if (g_mkdir_with_parents(scratch, 0755) < 0) {
                r->usage = 0;
                return error_setf(err, -errno, "%s: %s", scratch, g_strerror(errno));
        }
        if (statvfs(scratch, &st) < 0) {
                r->usage = 0;
                return error_setf(err, -errno, "%s: %s", scratch, g_strerror(errno));
        }
        /* The images are sparse, but a workload may fill them: a disk the
         * host cannot back ends as a guest paused on an I/O error. */
        avail = (uint64_t)st.f_bavail * st.f_frsize;
        if (need > avail)
                return error_setf(err, -ENOSPC,
                                  "--disk-size: %" PRIu64 " MiB of disk%s but only %" PRIu64
                                  " MiB free in %s", need >> 20, o->guest.swap_bytes ? " and swap" : "",
                                  avail >> 20, scratch);
        r->usage = 0;
        return 0;
}

/* QEMU runs as another user than kbench (vm.c): refuse, before any run row
 * exists, files it could not open; every cell would fail at its start. */
static int check_qemu_reach(struct run *r, struct kb_error *err) {
        const struct vm_qemu_user *u = r->hosts[0].qemu_user;
        g_autofree char *scratch = g_build_filename(r->g->home, "scratch", NULL);
        int ret = u ? vm_qemu_can_reach(u, scratch, 0, err) : 0;

        /* A host reached through libvirt gets its files by upload. */
        if (!u)
                return 0;

        for (size_t k = 0; ret == 0 && k < r->n_kernels; k++) {
                const struct kstore_kernel *kk = r->kernels[k];

                ret = vm_qemu_can_reach(u, kk->vmlinux_path ? kk->vmlinux_path : kk->image_path, 1, err);
                if (ret == 0 && r->initrds && r->initrds[k])
                        ret = vm_qemu_can_reach(u, r->initrds[k], 1, err);
        }
        if (ret == 0 && r->insn_plugin)
                ret = vm_qemu_can_reach(u, r->insn_plugin, 1, err);
        if (ret == 0 && r->prof_plugin)
                ret = vm_qemu_can_reach(u, r->prof_plugin, 1, err);
        return ret;
}

/* For --resume: store the run's pending cells, then count the planned
 * cells not yet stored ok. OUT: *ret_todo. */
static int resume_todo(struct run *r, int *ret_todo, struct kb_error *err) {
        g_autofree struct plan_cell *plan = NULL;
        g_autofree char *pending = g_build_filename(r->g->home, "pending", NULL);
        g_auto(GStrv) done = NULL;
        size_t n;
        int stored = 0, ret;

        ret = cellrows_store_pending(r->db, pending, r->row.id, &stored, err);
        if (ret < 0)
                return ret;
        if (stored)
                run_note(r, "stored %d cell(s) kept in %s", stored, pending);
        ret = db_run_done_keys(r->db, r->row.id, &done, err);
        if (ret < 0)
                return ret;
        plan_build(r->n_kernels, r->n_specs, plan_rounds(r), &plan, &n);
        *ret_todo = (int)plan_todo(plan, n, (const char *const *)done);
        /* A run that chose its repeats ran fewer than its plan: it is done
         * when it recorded why it stopped. */
        if (r->set.until_mde_pct > 0 && *ret_todo > 0) {
                struct query_run *run = NULL;

                ret = query_run(r->db, r->row.id, &run, err);
                if (ret < 0)
                        return ret;
                json_t *settings = run->settings_json ? json_loads(run->settings_json, 0, NULL) : NULL;

                /* The key itself, not its name in how_keys. */
                if (json_is_object(json_object_get(settings, RUNOPTS_UNTIL_MDE_OUTCOME)))
                        *ret_todo = 0;
                json_decref(settings);
                query_runs_free(run, 1);
        }
        return 0;
}

/* A resumed run with nothing left: finish it unless it already is. */
static int resume_finish_idle(struct run *r, struct kb_error *err) {
        struct query_run *run = NULL;
        int ret = query_run(r->db, r->row.id, &run, err);

        if (ret < 0)
                return ret;
        if (g_strcmp0(run->status, "complete") != 0)
                ret = db_run_finish(r->db, r->row.id, "complete", err);
        query_runs_free(run, 1);
        return ret;
}

/* --until-mde needs a budget, a budget needs --until-mde, and the budget
 * must hold the pilot. */
static int check_until_mde(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;
        size_t per = r->n_kernels * r->n_specs;

        r->usage = 1;
        if (o->until_mde_pct <= 0 && (o->budget_cells > 0 || o->budget_time_s > 0))
                return error_setf(err, -EINVAL, "--budget-cells and --budget-time are budgets of --until-mde");
        if (o->until_mde_pct <= 0) {
                r->usage = 0;
                return 0;
        }
        if (o->budget_cells <= 0 && o->budget_time_s <= 0)
                return error_setf(err, -EINVAL, "--until-mde needs a budget: --budget-cells N or --budget-time S");
        /* Its rule looks at every round of one run's comparison at once,
         * which the hosts of a spread run would measure apart. */
        if (r->g->hosts && r->g->hosts[1])
                return error_setf(err, -EINVAL, "--until-mde runs on one host: give one --connect");
        if (o->budget_cells > 0 && (size_t)o->budget_cells < per * (size_t)MAX(o->repeats, 2))
                return error_setf(err, -EINVAL, "--budget-cells %d is less than the pilot: %d round(s) of %zu cell(s) "
                                  "(-n, at least 2)", o->budget_cells, MAX(o->repeats, 2), per);
        r->usage = 0;
        return 0;
}

/* The matrix's axes are given: a usage error found before the store is
 * looked at (a mistyped --store is then not reported instead). */
static int count_axes(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;

        r->usage = 1;
        for (; o->kernels && o->kernels[r->n_kernels]; r->n_kernels++)
                ;
        for (; o->workloads && o->workloads[r->n_specs]; r->n_specs++)
                ;
        if (r->n_kernels == 0)
                return error_setf(err, -EINVAL, "no kernel given (-k NAME; see 'kbench kernel list')");
        if (r->n_specs == 0) {
                char names[512];

                workload_names(names, sizeof(names));
                return error_setf(err, -EINVAL, "no workload given (-w NAME; workloads: %s)", names);
        }
        /* Two hosts of one name would be one host in the results. */
        for (size_t a = 0; r->g->hosts && r->g->hosts[a]; a++)
                for (size_t b = 0; b < a; b++) {
                        g_autofree char *na = NULL, *ua = NULL, *nb = NULL, *ub = NULL;

                        if (run_host_spec_parse(r->g->hosts[a], &na, &ua, err) < 0 ||
                            run_host_spec_parse(r->g->hosts[b], &nb, &ub, err) < 0)
                                return -EINVAL;
                        if (strcmp(na ? na : ua, nb ? nb : ub) == 0)
                                return error_setf(err, -EINVAL, "--connect: two hosts named '%.64s'",
                                                  na ? na : ua);
                }
        r->usage = 0;
        return 0;
}

/* The workloads, parsed (their job files checked), resolved against the
 * guest and built once, so that keys which do not fit the guest (bonnie's
 * size below twice its RAM) fail before any boot rather than as a failed
 * cell per repeat; and --until-mde's budget. Every error here is the
 * user's request (exit 2), found before the store is looked at. */
static int parse_workloads(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;
        int ret;

        r->usage = 1;
        r->specs = g_new0(struct workload_spec *, r->n_specs);
        for (size_t w = 0; w < r->n_specs; w++) {
                struct workload_env env = { 0 };
                g_autofree char *script = NULL;

                cell_workload_env(&o->guest, &env);
                ret = workload_spec_parse(o->workloads[w], &r->specs[w], err);
                if (ret < 0)
                        return ret;
                /* The defaults the guest decides spelled out, so every
                 * label says what ran (dd:size=512M, not dd:size=). */
                ret = workload_spec_resolve(r->specs[w], &env);
                if (ret < 0)
                        return error_setf(err, ret, "-w '%.128s': cannot spell out its defaults", o->workloads[w]);
                /* Compared by the canonical text (every key resolved): dd
                 * and dd:bs=1M are the same workload; more repeats are -n. */
                for (size_t j = 0; j < w; j++)
                        if (strcmp(r->specs[j]->text, r->specs[w]->text) == 0)
                                return error_setf(err, -EINVAL, "-w '%.128s' is the same workload as -w '%.128s' "
                                                  "(%.200s); give each once, and repeats with -n", o->workloads[w],
                                                  o->workloads[j], r->specs[w]->text);
                env.nports = MIN(r->specs[w]->ops->n_ports, (int)G_N_ELEMENTS(env.ports));
                for (int i = 0; i < env.nports; i++)
                        env.ports[i] = (uint16_t)(40000 + i);
                ret = r->specs[w]->ops->script(r->specs[w], &env, &script, err);
                if (ret < 0)
                        return ret;
        }
        return check_until_mde(r, err);
}

int runner_check_workloads(const struct run_settings *o, const struct store_ctx *g, struct kb_error *err) {
        struct run r = { .set = *o, .g = g };
        int ret;

        for (; o->workloads && o->workloads[r.n_specs]; r.n_specs++)
                ;
        ret = parse_workloads(&r, err);
        for (size_t w = 0; r.specs && w < r.n_specs; w++)
                workload_spec_free(r.specs[w]);
        g_free(r.specs);
        return ret;
}

/* The kernels, from the kernel store; then what this host can do. */
static int resolve_kernels(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;
        int ret;

        r->usage = 0;
        r->kernels = g_new0(struct kstore_kernel *, r->n_kernels);
        for (size_t k = 0; k < r->n_kernels; k++) {
                ret = kstore_find(r->ks, o->kernels[k], &r->kernels[k], err);
                if (ret < 0) {
                        r->usage = ret == -ENOENT;
                        return ret;
                }
                /* The same image twice (a name and its id prefix, two names)
                 * would be one kernel's cells planned as two kernels' and
                 * compared with themselves. */
                for (size_t j = 0; j < k; j++)
                        if (strcmp(r->kernels[j]->id, r->kernels[k]->id) == 0) {
                                r->usage = 1;
                                return error_setf(err, -EINVAL, "-k '%.128s' is the same kernel as -k '%.128s' "
                                                  "(%.12s); give each kernel once", o->kernels[k], o->kernels[j],
                                                  r->kernels[k]->id);
                        }
        }
        return check_host(r, err);
}

static void run_free(struct run *r) {
        for (size_t k = 0; r->kernels && k < r->n_kernels; k++)
                kstore_kernel_free(r->kernels[k]);
        g_free(r->kernels);
        for (size_t w = 0; r->specs && w < r->n_specs; w++)
                workload_spec_free(r->specs[w]);
        g_free(r->specs);
        if (r->initrds)
                g_strfreev(r->initrds);
        if (r->initrd_sha)
                g_strfreev(r->initrd_sha);
        if (r->warm_failed)
                g_hash_table_destroy(r->warm_failed);
        for (size_t h = 0; h < r->n_hosts; h++)
                run_host_clear(&r->hosts[h]);
        g_free(r->hosts);
        g_free(r->accel_why);
        g_free(r->insn_plugin);
        g_free(r->prof_plugin);
        g_free(r->reserve);
        g_free(r->qemu_version);
        g_free(r->libvirt_version);
        g_free(r->settings_text);
        g_free(r->host_info);
        g_mutex_clear(&r->lock);
}

/* The plan of a resumed run must be the one it was started with. */
int runner_load_resume(struct run_settings *o, struct db *db, GPtrArray *kern, GPtrArray *work, GPtrArray *keep,
                       struct kb_error *err) {
        struct query_run *run = NULL;
        json_t *j = NULL, *v;
        size_t i;
        int r;

        r = query_run(db, o->resume_run, &run, err);
        if (r < 0)
                goto out;
        j = json_loads(run->settings_json ? run->settings_json : "", 0, NULL);
        if (!j || !json_is_array(json_object_get(j, "kernels")) || !json_is_array(json_object_get(j, "workloads"))) {
                r = error_setf(err, -EINVAL, "run %" G_GINT64_FORMAT ": stored settings are unreadable", o->resume_run);
                goto out;
        }
        json_array_foreach(json_object_get(j, "kernels"), i, v)
                if (json_is_string(json_object_get(v, "id")))
                        g_ptr_array_add(kern, g_strdup(json_string_value(json_object_get(v, "id"))));
        json_array_foreach(json_object_get(j, "workloads"), i, v)
                if (json_is_string(v))
                        g_ptr_array_add(work, g_strdup(json_string_value(v)));
        r = runopts_load(o, j, keep, err);
        if (r < 0)
                error_prefix(err, r, "run %" G_GINT64_FORMAT, o->resume_run);
out:
        json_decref(j);
        query_runs_free(run, run ? 1 : 0);
        return r;
}

/* The store side of a run: the database (checked before anything is
 * added to it), what a killed kbench left (reaped), the reserve, the
 * watchdog, the kernels' rows. */
static int prepare_store(struct run *r, struct kb_error *err) {
        g_autofree char *prefix = g_strdup_printf("kb%d-", (int)getpid());
        g_autofree char *run_dir = reap_run_dir(r->g);
        g_autofree char *scratch = g_build_filename(r->g->home, "scratch", NULL);
        struct reap_report reaped;
        int ret = store_session_open(r->s, STORE_PART_DB, err);

        if (ret < 0)
                return ret;
        r->db = r->s->db;
        /* Appending to a damaged file buries new results in it; the quick
         * check reads the whole file: 1.7 s warm, 7 s cold for 1 GB (docs/design.md). */
        ret = db_check(r->db, 0, err);
        if (ret < 0)
                return error_prefix(err, ret, "refusing to add a run (see 'kbench doctor')");
        ret = reap_store(r->g, r->db, &reaped, err);
        if (ret < 0)
                return ret;
        if (reaped.qemu_killed || reaped.scratch_removed || reaped.runs_interrupted)
                run_note(r, "left by a killed kbench: %d QEMU killed, %d scratch entries removed, "
                         "%d run(s) marked interrupted", reaped.qemu_killed, reaped.scratch_removed,
                         reaped.runs_interrupted);
        reserve_take(r);
        /* Before the first thread (libvirt's event loop) exists. */
        ret = watchdog_start(prefix, run_dir ? run_dir : "/nonexistent", scratch, err);
        for (size_t k = 0; ret >= 0 && k < r->n_kernels; k++) {
                struct db_kernel dk = { r->kernels[k]->id, r->kernels[k]->name, r->kernels[k]->release,
                                        r->kernels[k]->source, r->kernels[k]->added_at };
                ret = db_kernel_upsert(r->db, &dk, err);
        }
        return ret;
}

/* The hosts a resumed run spread its cells over, as --connect took them
 * ("NAME=URI", or the bare URI of a host given without a name, which is
 * named by its URI), from its settings' RUNOPTS_HOSTS_KEY; NULL when it
 * named none. */
static char **stored_hosts(struct run *r) {
        struct query_run *run = NULL;
        json_t *j, *v;
        GPtrArray *a;
        size_t i;

        if (query_run(r->db, r->set.resume_run, &run, NULL) < 0)
                return NULL;
        j = run->settings_json ? json_loads(run->settings_json, 0, NULL) : NULL;
        query_runs_free(run, 1);
        if (!json_is_array(json_object_get(j, RUNOPTS_HOSTS_KEY))) {
                json_decref(j);
                return NULL;
        }
        a = g_ptr_array_new();
        json_array_foreach(json_object_get(j, RUNOPTS_HOSTS_KEY), i, v) {
                const char *name = json_string_value(json_object_get(v, "name"));
                const char *uri = json_string_value(json_object_get(v, "uri"));

                if (name && uri)
                        g_ptr_array_add(a, strcmp(name, uri) == 0 ? g_strdup(uri)
                                                                  : g_strdup_printf("%s=%s", name, uri));
        }
        json_decref(j);
        g_ptr_array_add(a, NULL);
        return (char **)g_ptr_array_free(a, FALSE);
}

/* The hosts of the run: --connect's, or the store's own driver. One that
 * cannot be reached is said and left out while another can be. */
static int open_hosts(struct run *r, struct kb_error *err) {
        g_auto(GStrv) resumed = !r->g->hosts && r->set.resume_run > 0 ? stored_hosts(r) : NULL;
        const char *const *specs = (const char *const *)(r->g->hosts ? r->g->hosts : resumed);
        size_t n = specs ? g_strv_length((char **)specs) : 1;

        r->hosts = g_new0(struct run_host, n);
        for (size_t i = 0; i < n; i++) {
                struct kb_error herr = { { 0 } };
                int ret = r->backend->open(r->backend->ctx, specs ? specs[i] : NULL, r->g->connect,
                                           (unsigned)r->set.slots, NULL, &r->hosts[r->n_hosts], &herr);

                if (ret < 0 && n == 1) {
                        *err = herr;
                        return ret;
                }
                if (ret < 0) {
                        run_note(r, "%s; the run goes on without it", herr.msg);
                        continue;
                }
                r->n_hosts++;
        }
        if (r->n_hosts == 0)
                return error_setf(err, -EHOSTUNREACH, "none of the %zu hosts could be reached", n);
        return 0;
}

/* A host's accelerator (completing its guest's shape) and its row. */
static int prepare_one_host(struct run *r, struct run_host *h, struct kb_error *err) {
        const struct kstore_kernel *k0 = r->kernels[0];
        const char *probe = k0->vmlinux_path ? k0->vmlinux_path : k0->image_path;
        g_autofree char *scratch = g_build_filename(r->g->home, "scratch", NULL);
        g_autofree char *info = g_strdup_printf("{\"cpus\":%u,\"mem_kib\":%" G_GUINT64_FORMAT "}", h->info.cpus,
                                                h->info.mem_kib);
        struct db_host row = { .name = h->name ? h->name : r->hostname, .uri = h->uri,
                               .hostname = h->info.hostname, .cpu_model = h->info.cpu_model,
                               .qemu_version = h->info.qemu_version, .libvirt_version = h->info.libvirt_version,
                               .info_json = info };
        int ret = h->remote ? accel_resolve_remote(h->conn, h->pool, r->set.accel, scratch, probe, &h->accel,
                                                   &h->accel_why, err)
                            : accel_resolve(h->conn, r->set.accel, r->g->home, probe, &h->accel, &h->accel_why, err);

        if (ret < 0)
                return error_prefix(err, ret, "host %s", row.name);
        h->guest = r->set.guest;
        h->guest.accel = h->accel;
        if (h->name)
                run_note(r, "host %s: %s, %s, QEMU %s, libvirt %s; accelerator: %s", h->name,
                         h->info.hostname, h->info.cpu_model, h->info.qemu_version, h->info.libvirt_version,
                         h->accel_why);
        else
                run_note(r, "accelerator: %s", h->accel_why);
        return db_host_upsert(r->db, &row, &h->db_id, err);
}

/* What a host kbench reaches only through libvirt needs of this run: the
 * kernels, the guest images and the plugin, sent once each (cached there
 * by content), so that no cell's time holds an upload. */
static int stage_on_host(struct run *r, struct run_host *h, struct kb_error *err) {
        for (size_t k = 0; k < r->n_kernels; k++) {
                const struct kstore_kernel *kk = r->kernels[k];
                int64_t t0 = g_get_monotonic_time();
                int sent = 0, sent_i = 0, ret;

                ret = remote_host_stage(h->remote, kk->vmlinux_path ? kk->vmlinux_path : kk->image_path, "kernel",
                                        &sent, err);
                if (ret >= 0)
                        ret = remote_host_stage(h->remote, r->initrds[k], "initrd", &sent_i, err);
                if (ret < 0)
                        return error_prefix(err, ret, "host %s", run_host_label(h));
                if (sent || sent_i)
                        run_note(r, "host %s: %s and its guest image uploaded (%.1f s)",
                                 run_host_label(h), kk->name, (double)(g_get_monotonic_time() - t0) / 1e6);
        }
        int ret = r->insn_plugin ? remote_host_stage(h->remote, r->insn_plugin, "kbinsn", NULL, err) : 0;

        if (ret >= 0 && r->prof_plugin)
                ret = remote_host_stage(h->remote, r->prof_plugin, "kbprof", NULL, err);
        return ret;
}

/* The host side: libvirt, each host's accelerator (which completes the
 * guest's shape), the guest images and the instruction counter. */
static int prepare_host(struct run *r, struct kb_error *err) {
        int ret = open_hosts(r, err);

        if (ret < 0)
                return ret;
        gethostname(r->hostname, sizeof(r->hostname) - 1);
        /* A workload's host phase reaches the guest through a port forward
         * bound to the host's 127.0.0.1: only this machine's. */
        for (size_t w = 0; w < r->n_specs; w++)
                for (size_t h = 0; h < r->n_hosts; h++)
                        if (r->specs[w]->ops->n_ports > 0 && !hostload_uri_local(r->hosts[h].uri)) {
                                r->usage = 1;
                                return error_setf(err, -EINVAL, "-w %s: its host phase reaches the guest through "
                                                  "this machine's loopback, which host %s does not share",
                                                  r->specs[w]->ops->name, run_host_label(&r->hosts[h]));
                        }
        r->conn = r->hosts[0].conn;
        r->qemu_version = g_strdup(r->hosts[0].info.qemu_version);
        r->libvirt_version = g_strdup(r->hosts[0].info.libvirt_version);
        /* The kernels before the KVM probe boots one (the initramfs
         * images once they are built): a verdict from a QEMU that could
         * not open its kernel would be cached as KVM's. */
        ret = check_qemu_reach(r, err);
        for (size_t h = 0; ret >= 0 && h < r->n_hosts; h++)
                ret = prepare_one_host(r, &r->hosts[h], err);
        if (ret < 0)
                return ret;
        r->accel = r->hosts[0].accel;
        r->accel_why = g_strdup(r->hosts[0].accel_why);
        r->set.guest.accel = r->accel;
        ret = build_images(r, err);
        if (ret < 0)
                return ret;
        stage_plugins(r);
        ret = check_qemu_reach(r, err);
        for (size_t h = 0; ret >= 0 && h < r->n_hosts; h++)
                if (r->hosts[h].remote)
                        ret = stage_on_host(r, &r->hosts[h], err);
        return ret;
}

/* The run's row: created, or with --resume reopened. OUT: *ret_idle, 1
 * when a resumed run had nothing left (then finished, not reopened). */
static int open_run_row(struct run *r, int *ret_idle, struct kb_error *err) {
        int todo = 0, ret;

        r->settings_text = settings_json(r);
        r->host_info = host_info_json();
        r->row = (struct db_run){ .tag = r->set.tag, .settings_json = r->settings_text, .host = r->hostname,
                                  .host_info_json = r->host_info, .qemu_version = r->qemu_version,
                                  .libvirt_version = r->libvirt_version, .kbench_version = KBENCH_VERSION,
                                  .started_at = (double)g_get_real_time() / 1e6 };
        *ret_idle = 0;
        if (r->set.resume_run <= 0)
                return db_run_create(r->db, &r->row, err);
        r->row.id = r->set.resume_run;
        ret = resume_todo(r, &todo, err);
        if (ret < 0)
                return ret;
        if (todo > 0)
                return db_run_reopen(r->db, r->row.id, err);
        /* Nothing to run: a finished run keeps its finish time; one killed
         * after its last cell is finished now. */
        run_note(r, "run %" G_GINT64_FORMAT ": every cell is stored, nothing to resume", r->row.id);
        *ret_idle = 1;
        return resume_finish_idle(r, err);
}

/* After the cells: the run's status and, when it stopped early, how to
 * go on. */
static int close_run_row(struct run *r, struct kb_error *err) {
        int ret = db_run_finish(r->db, r->row.id, stop_requested(r) || r->stopped || r->past_deadline ?
                                "interrupted" : "complete", err);

        if (ret < 0)
                return ret;
        if (r->held)
                run_note(r, "stopped: no host is left for %zu cell(s); resume with 'kbench run "
                         "--resume %" G_GINT64_FORMAT "' once a host is back", r->held, r->row.id);
        else if (r->stopped)
                run_note(r, "stopped: the host failed (see the last cell); make room and resume "
                         "with 'kbench run --resume %" G_GINT64_FORMAT "'", r->row.id);
        else if (stop_requested(r) || r->past_deadline)
                run_note(r, "interrupted: resume with 'kbench run --resume %" G_GINT64_FORMAT "'",
                         r->row.id);
        return 0;
}

/* The run's result is ready: unless its driver reports it itself. */
static void run_result(struct run *r) {
        if (!r->d->quiet)
                runevent_emit(r->ev, &(struct run_event){ .kind = RUN_EVENT_RESULT, .run_id = r->row.id,
                                                           .db = r->db });
}

int runner_run(const struct run_settings *o, const struct runner_drive *drive, const struct store_ctx *g,
               struct store_session *s, int64_t *ret_run_id, struct kb_error *err) {
        static const struct runner_drive as_kbench_run = { 0 };
        const struct runner_drive *d = drive ? drive : &as_kbench_run;
        struct run r = { .set = *o, .d = d, .g = g, .s = s, .ev = d->events,
                         .stop = d->stop ? d->stop : &cell_interrupted,
                         .backend = d->hosts ? d->hosts : &run_host_libvirt,
                         .warm_failed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
        int failed = 0, idle = 0, ret, code = 1;

        g_mutex_init(&r.lock);
        ret = count_axes(&r, err);
        if (ret >= 0)
                ret = parse_workloads(&r, err);
        if (ret >= 0) {
                r.usage = 0;
                ret = store_session_open(s, STORE_PART_STORE, err);
        }
        if (ret >= 0) {
                r.ks = s->ks;
                ret = resolve_kernels(&r, err);
        }
        if (ret < 0) {
                code = r.usage ? 2 : 1;
                goto out;
        }
        ret = prepare_store(&r, err);
        if (ret >= 0)
                ret = prepare_host(&r, err);
        if (ret >= 0)
                ret = open_run_row(&r, &idle, err);
        if (ret < 0)
                goto out;
        if (idle) {
                run_result(&r);
                code = 0;
                goto out;
        }
        run_note(&r, "run %" G_GINT64_FORMAT ": %zu kernel(s) x %zu workload(s) x %d repeat(s)", r.row.id,
                 r.n_kernels, r.n_specs, o->repeats);
        /* What came before (a kernel build, the guest images just written)
         * leaves dirty pages that the host would write back during the
         * first cells: the first cell after building kernels waited
         * 0.11-0.32 s in dd's write phase where the others waited
         * 0.01-0.03 s. */
        sync();
        ret = run_cells(&r, &failed, err);
        if (ret < 0) {
                db_run_finish(r.db, r.row.id, "failed", NULL);
                goto out;
        }
        ret = close_run_row(&r, err);
        if (ret < 0)
                goto out;
        run_result(&r);
        code = failed > 0 || stop_requested(&r) || r.stopped || r.past_deadline ? 3 : 0;
out:
        if (ret_run_id)
                *ret_run_id = r.row.id;
        run_free(&r);
        return code;
}
