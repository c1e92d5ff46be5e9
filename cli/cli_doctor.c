/* cli_doctor.c: `kbench doctor`, one line per thing kbench needs, with what
 * to do about each failure; --json for scripts. Exit 0 when all pass. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "cli/cli.h"
#include "host/pool.h"
#include "run/hosts.h"
#include "store/lock.h"
#include "store/reap.h"
#include "run/runner.h"
#include "host/vm.h"
#include "kernels/kstore.h"
#include "results/db.h"

struct checks {
        json_t *list;
        int failed;
        int json;
};

static void check(struct checks *c, const char *name, int ok, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void check(struct checks *c, const char *name, int ok, const char *fmt, ...) {
        g_autofree char *detail = NULL;
        va_list ap;

        va_start(ap, fmt);
        detail = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        if (!ok)
                c->failed++;
        json_array_append_new(c->list, json_pack("{s:s, s:b, s:s}", "check", name, "ok", ok, "detail", detail));
        if (!c->json)
                printf("%-5s %-12s %s\n", ok ? "ok" : "FAIL", name, detail);
}

static void check_program(struct checks *c, const char *name, const char *hint) {
        g_autofree char *p = g_find_program_in_path(name);

        check(c, name, p != NULL, "%s", p ? p : hint);
}

/* The TCG plugin that gives cells their guest.*_Minsn counts. A missing
 * one is no failure: the cells measure all else, and say so. */
static void check_insn_plugin(struct checks *c) {
        g_autofree char *p = runner_helper_path(RUNNER_INSN_PLUGIN);

        if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
                check(c, "insn-plugin", 1, "%s (under TCG, cells count guest instructions)", p);
        else
                check(c, "insn-plugin", 1, "not built (%s): cells under TCG carry no guest.*_Minsn counts; "
                      "bash tools/setup.sh builds it", p);
}

/* Who QEMU runs as under the embedded driver, whether it can reach the
 * store, and whether libvirt will keep its capability cache (vm.c: it
 * throws it away when that user cannot open /dev/kvm). */
static void check_qemu_user(struct checks *c, const struct store_ctx *g) {
        g_autofree char *scratch = g_build_filename(g->home, "scratch", NULL);
        struct kb_error err = { { 0 } };
        struct vm_qemu_user u;
        struct passwd *pw;
        int kvm;

        if (!g->connect || !strstr(g->connect, "/embed")) {
                check(c, "qemu-user", 1, "decided by the libvirt daemon behind %s (its qemu.conf)", g->connect);
                return;
        }
        if (vm_qemu_user_get(&u, &err) < 0) {
                check(c, "qemu-user", 0, "%s", err.msg);
                return;
        }
        if (!u.set) {
                pw = getpwuid(geteuid());
                check(c, "qemu-user", geteuid() != 0, "QEMU runs as %s (uid %u), kbench's own user",
                      pw ? pw->pw_name : "?", (unsigned)geteuid());
                return;
        }
        kvm = vm_qemu_kvm_usable(&u, VM_KVM_DEV);
        check(c, "qemu-user", 1, "QEMU runs as %s (uid %u, gid %u: %s), not root; %s", VM_QEMU_USER,
              (unsigned)u.uid, (unsigned)u.gid, u.gid_why,
              kvm < 0 ? "no working /dev/kvm" : kvm ? "it can open /dev/kvm" : "it cannot open /dev/kvm");
        check(c, "caps-cache", kvm != 0, "%s", kvm != 0 ? "libvirt's QEMU capability cache is kept between runs"
              : "libvirt will probe QEMU again in every process (~4 s a probe): give /dev/kvm its group's rw "
                "as Debian's udev rule does: bash tools/setup.sh (or: chmod 0660 /dev/kvm)");
        g_mkdir_with_parents(scratch, 0755);
        if (vm_qemu_can_reach(&u, scratch, 0, &err) < 0)
                check(c, "qemu-reach", 0, "%s", err.msg);
        else
                check(c, "qemu-reach", 1, "%s can reach %s", VM_QEMU_USER, scratch);
}

/* The results database: absent (fine), unreadable, or checked in full.
 * OUT: *ret_db, open when it could be. */
static void check_database(struct checks *c, const struct store_ctx *g, struct db **ret_db) {
        struct kb_error err = { { 0 } };

        if (access(g->db_path, F_OK) < 0 && errno == ENOENT)
                check(c, "database", 1, "none yet at %s (the first kbench run creates it)", g->db_path);
        else if (db_open_existing(g->db_path, ret_db, &err) < 0)
                check(c, "database", 0, "%s", err.msg);
        else if (db_check(*ret_db, 1, &err) < 0)
                check(c, "database", 0, "%s (restore a backup, or copy the runs still readable with "
                      "sqlite3 .recover)", err.msg);
        else
                check(c, "database", 1, "%s (PRAGMA integrity_check: ok)", g->db_path);
}

/* What a killed kbench left, cleaned now (the caller holds the lock). */
static void check_leftovers(struct checks *c, const struct store_ctx *g, struct db *db) {
        struct kb_error err = { { 0 } };
        struct reap_report reaped;

        if (reap_store(g, db, &reaped, &err) < 0)
                check(c, "leftovers", 0, "%s", err.msg);
        else if (reaped.qemu_killed || reaped.scratch_removed || reaped.runs_interrupted)
                check(c, "leftovers", 1, "left by a killed kbench and cleaned now: %d QEMU killed, "
                      "%d scratch entries removed, %d run(s) marked interrupted (resume with "
                      "'kbench run --resume RUN')", reaped.qemu_killed, reaped.scratch_removed,
                      reaped.runs_interrupted);
        else
                check(c, "leftovers", 1, "none (no stale QEMU, scratch file or running run)");
}

/* libvirt and the accelerator, probed with the store's first kernel (k,
 * may be NULL). OUT: *ret_conn, the connection when there is one. */
static void check_libvirt(struct checks *c, const struct store_ctx *g, const struct kstore_kernel *k,
                          struct vm_conn **ret_conn) {
        g_autofree char *qv = NULL, *lv = NULL, *why = NULL;
        struct kb_error err = { { 0 } };
        const char *accel = NULL;
        const char *probe = k ? (k->vmlinux_path ? k->vmlinux_path : k->image_path) : NULL;

        if (vm_conn_new(g->connect, ret_conn, &err) < 0) {
                check(c, "libvirt", 0, "%s", err.msg);
                return;
        }
        if (vm_conn_versions(*ret_conn, &qv, &lv, &err) == 0)
                check(c, "libvirt", 1, "%s (libvirt %s, QEMU %s)", g->connect, lv, qv);
        if (access("/dev/kvm", F_OK) != 0)
                check(c, "accel", 1, "tcg: no /dev/kvm");
        else if (accel_resolve(*ret_conn, "auto", g->home, probe, &accel, &why, &err) == 0)
                check(c, "accel", 1, "%s", why);
        else
                check(c, "accel", 0, "%s", err.msg);
}

/* Each host of --connect: reachable, what it is, its storage pool, its
 * accelerator (probed there with the store's first kernel, k). */
static void check_hosts(struct checks *c, const struct store_ctx *g, const struct kstore_kernel *k) {
        g_autofree char *scratch = g_build_filename(g->home, "scratch", NULL);
        const char *probe = k ? (k->vmlinux_path ? k->vmlinux_path : k->image_path) : NULL;

        for (size_t i = 0; g->hosts && g->hosts[i]; i++) {
                struct run_host h;
                struct kb_error err = { { 0 } };
                const char *accel = NULL;
                g_autofree char *why = NULL, *label = g_strdup_printf("host %zu", i + 1);

                if (run_host_open(g->hosts[i], g->connect, 1, NULL, &h, &err) < 0) {
                        check(c, label, 0, "%s", err.msg);
                        continue;
                }
                check(c, label, 1, "%s (%s): %s, %s, QEMU %s, libvirt %s%s%s", h.name ? h.name : h.uri, h.uri,
                      h.info.hostname, h.info.cpu_model, h.info.qemu_version, h.info.libvirt_version,
                      h.pool ? ", storage pool " : "", h.pool ? pool_dir(h.pool) : "");
                /* The embedded driver's accelerator is this machine's (check_libvirt). */
                if (h.pool) {
                        int ok = accel_resolve_remote(h.conn, h.pool, "auto", scratch, probe, &accel, &why, &err) == 0;

                        check(c, label, ok, "%s: %s%s", h.name, ok ? "accelerator " : "", ok ? why : err.msg);
                }
                run_host_clear(&h);
        }
}

int cli_doctor(int argc, char **argv, const struct store_ctx *g) {
        int json = 0;
        GOptionEntry entries[] = {
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the checks as JSON", NULL },
                { NULL },
        };
        g_autoptr(GOptionContext) ctx = g_option_context_new("- check QEMU, libvirt, the accelerator and the store");
        g_autofree char *kdir = store_kernels_dir(g);
        struct checks c = { .list = json_array() };
        struct vm_conn *conn = NULL;
        struct kstore *ks = NULL;
        struct kstore_kernel **kernels = NULL;
        struct db *db = NULL;
        struct store_lock *lock = NULL;
        struct kb_error err = { { 0 } };
        size_t nk = 0;

        g_option_context_add_main_entries(ctx, entries, NULL);
        if (cli_parse(ctx, (const GOptionEntry *const[]){ entries, NULL }, "doctor", &argc, &argv))
                return 2;
        c.json = json;

        check_program(&c, "qemu-system-x86_64", "not found: apt-get install -y qemu-system-x86");
        check_program(&c, "mkfs.ext4", "not found: apt-get install -y e2fsprogs");
        check_program(&c, "depmod", "not found: apt-get install -y kmod");
        check_insn_plugin(&c);
        check(&c, "busybox", g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE),
              "%s", g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE) ? "/bin/busybox"
                                                                            : "missing: apt-get install -y busybox-static");
        /* doctor looks and never creates: a mistyped --store must not
         * become a store that then reports ok. Without a store, nothing of
         * it can be checked, and libvirt's embedded root would be made in it. */
        if (store_prepare(g, 0, &err) < 0) {
                check(&c, "store", 0, "%s", err.msg);
                goto report;
        }
        check(&c, "store", access(g->home, W_OK) == 0, "%s%s", g->home,
              access(g->home, W_OK) == 0 ? "" : " (not writable: run cannot use it)");
        check_qemu_user(&c, g);
        if (kstore_open_existing(kdir, &ks, &err) == 0 && kstore_list(ks, &kernels, &nk, &err) == 0)
                check(&c, "kernels", 1, "%zu kernel(s) in %s", nk, kdir);
        else
                check(&c, "kernels", 0, "%s", err.msg);
        check_database(&c, g, &db);

        /* A store in use is fine, but its libvirt root is then taken: the
         * embedded driver allows one process per root. */
        if (lock_store(g->home, "doctor", &lock, &err) < 0) {
                check(&c, "lock", 0, "%s", err.msg);
                goto report;
        }
        check_leftovers(&c, g, db);
        if (g->hosts)
                check_hosts(&c, g, nk > 0 ? kernels[0] : NULL);
        else
                check_libvirt(&c, g, nk > 0 ? kernels[0] : NULL, &conn);
report:
        if (json) {
                json_t *o = json_pack("{s:o, s:b, s:s, s:s, s:s}", "checks", c.list, "ok", c.failed == 0,
                                      "store", g->home, "db", g->db_path, "connect", g->connect);
                json_dumpf(o, stdout, JSON_INDENT(2));
                putchar('\n');
                json_decref(o);
        } else {
                json_decref(c.list);
        }
        kstore_kernel_list_free(kernels, nk);
        kstore_free(ks);
        db_close(db);
        vm_conn_free(conn);
        lock_release(lock);
        return c.failed ? 1 : 0;
}
