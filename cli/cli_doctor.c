/* cli_doctor.c: `kbench doctor`, one line per thing kbench needs, with what
 * to do about each failure; --json for scripts. Each check is ok, warn
 * (kbench works, but not as well as it could, or its results mean less:
 * TCG, a missing plugin, leftovers) or FAIL, and a summary line counts
 * them. Exit 0 when nothing failed, 1 when a check failed, 2 on a usage
 * error. --repair removes what can go without loss: staging directories
 * of killed imports; never a row or a file that holds results. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "cli/cli.h"
#include "common/utf8.h"
#include "common/util.h"
#include "host/pool.h"
#include "run/hosts.h"
#include "store/reap.h"
#include "run/runner.h"
#include "host/vm.h"
#include "kernels/kstore.h"
#include "results/db.h"
#include "results/dbcheck.h"

enum level { LEVEL_OK, LEVEL_WARN, LEVEL_FAIL, LEVEL_N };

static const struct {
        const char *text;          /* the line's first word */
        const char *json;          /* "level" in --json */
} levels[LEVEL_N] = {
        [LEVEL_OK] = { "ok", "ok" },
        [LEVEL_WARN] = { "warn", "warn" },
        [LEVEL_FAIL] = { "FAIL", "fail" },
};

struct checks {
        json_t *list;
        int count[LEVEL_N];
        int json;
        int repair;                /* --repair: remove what can go without loss */
};

static void check(struct checks *c, const char *name, enum level level, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void check(struct checks *c, const char *name, enum level level, const char *fmt, ...) {
        g_autofree char *detail = NULL;
        _cleanup_free_ char *masked = NULL;
        va_list ap;

        va_start(ap, fmt);
        detail = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        c->count[level]++;
        json_array_append_new(c->list, json_pack("{s:s, s:s, s:b, s:s}", "check", name, "level", levels[level].json,
                                                 "ok", level != LEVEL_FAIL, "detail", detail));
        /* Details quote libvirt, the store and the database: one line each. */
        masked = utf8_mask(detail);
        if (!c->json)
                printf("%-5s %-12s %s\n", levels[level].text, name, masked ? masked : "?");
}

/* ok when cond holds, else level. */
static enum level unless(int cond, enum level level) {
        return cond ? LEVEL_OK : level;
}

static void check_program(struct checks *c, const char *name, const char *hint) {
        g_autofree char *p = g_find_program_in_path(name);

        check(c, name, unless(p != NULL, LEVEL_FAIL), "%s", p ? p : hint);
}

/* The TCG plugins that give cells their guest.*_Minsn counts and their
 * profiles. A missing one is no failure: the cells measure all else, and
 * say so. */
static void check_insn_plugin(struct checks *c) {
        g_autofree char *p = runner_helper_path(RUNNER_INSN_PLUGIN);

        g_autofree char *q = runner_helper_path(RUNNER_PROF_PLUGIN);

        if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
                check(c, "insn-plugin", LEVEL_OK, "%s (under TCG, cells count guest instructions)", p);
        else
                check(c, "insn-plugin", LEVEL_WARN, "not built (%s): cells under TCG carry no guest.*_Minsn "
                      "counts, the measure TCG verdicts rest on; bash tools/setup.sh builds it", p);
        if (g_file_test(q, G_FILE_TEST_IS_REGULAR))
                check(c, "prof-plugin", LEVEL_OK, "%s (under TCG, cells profile the kernel's instructions by "
                      "function)", q);
        else
                check(c, "prof-plugin", LEVEL_WARN, "not built (%s): compare cannot say where a change of the "
                      "kernel's instructions went; bash tools/setup.sh builds it", q);
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
                check(c, "qemu-user", LEVEL_OK, "decided by the libvirt daemon behind %s (its qemu.conf)", g->connect);
                return;
        }
        if (vm_qemu_user_get(&u, &err) < 0) {
                check(c, "qemu-user", LEVEL_FAIL, "%s", err.msg);
                return;
        }
        if (!u.set) {
                pw = getpwuid(geteuid());
                check(c, "qemu-user", unless(geteuid() != 0, LEVEL_FAIL), "QEMU runs as %s (uid %u), kbench's own user",
                      pw ? pw->pw_name : "?", (unsigned)geteuid());
                return;
        }
        kvm = vm_qemu_kvm_usable(&u, VM_KVM_DEV);
        check(c, "qemu-user", LEVEL_OK, "QEMU runs as %s (uid %u, gid %u: %s), not root; %s", VM_QEMU_USER,
              (unsigned)u.uid, (unsigned)u.gid, u.gid_why,
              kvm < 0 ? "no working /dev/kvm" : kvm ? "it can open /dev/kvm" : "it cannot open /dev/kvm");
        check(c, "caps-cache", unless(kvm != 0, LEVEL_WARN), "%s", kvm != 0 ? "libvirt's QEMU capability cache is kept between runs"
              : "libvirt will probe QEMU again in every process (~4 s a probe): give /dev/kvm its group's rw "
                "as Debian's udev rule does: bash tools/setup.sh (or: chmod 0660 /dev/kvm)");
        g_mkdir_with_parents(scratch, 0755);
        if (vm_qemu_can_reach(&u, scratch, 0, &err) < 0)
                check(c, "qemu-reach", LEVEL_FAIL, "%s", err.msg);
        else
                check(c, "qemu-reach", LEVEL_OK, "%s can reach %s", VM_QEMU_USER, scratch);
}

/* The results database: absent (fine), unreadable, or checked in full;
 * open in x->s.db when it could be. */
static void check_database(struct checks *c, struct cli_ctx *x) {
        const struct store_ctx *g = x->g;
        struct kb_error err = { { 0 } };

        if (access(g->db_path, F_OK) < 0 && errno == ENOENT)
                check(c, "database", LEVEL_OK, "none yet at %s (the first kbench run creates it)", g->db_path);
        else if (cli_setup_only(x, CLI_DB, &err) < 0)
                check(c, "database", LEVEL_FAIL, "%s", err.msg);
        else if (db_check(x->s.db, 1, &err) < 0)
                check(c, "database", LEVEL_FAIL, "%s (restore a backup, or copy the runs still readable with "
                      "sqlite3 .recover)", err.msg);
        else
                check(c, "database", LEVEL_OK, "%s (PRAGMA integrity_check: ok)", g->db_path);
}

/* The rows of a database SQLite finds sound: what a crafted or hand-edited
 * file holds that the readers would misread or silently leave out. Never
 * repaired: those rows are results. */
static void check_rows(struct checks *c, struct db *db) {
        struct kb_error err = { { 0 } };
        struct dbcheck_finding *f = NULL;
        size_t n = 0;

        if (dbcheck_rows(db, &f, &n, &err) < 0) {
                check(c, "db-rows", LEVEL_FAIL, "%s", err.msg);
                return;
        }
        if (n == 0)
                check(c, "db-rows", LEVEL_OK, "every value kbench reads is there, a finite number where one is due "
                      "and in range; no row names a kernel, run or cell that is not there");
        for (size_t i = 0; i < n; i++)
                check(c, "db-rows", LEVEL_FAIL, "%s; kbench does not change results: fix the rows with sqlite3 or "
                      "restore a backup", f[i].what);
        dbcheck_findings_free(f, n);
}

/* What a killed kbench left, cleaned now (the caller holds the lock). */
static void check_leftovers(struct checks *c, const struct store_ctx *g, struct db *db) {
        struct kb_error err = { { 0 } };
        struct reap_report reaped;

        if (reap_store(g, db, &reaped, &err) < 0)
                check(c, "leftovers", LEVEL_FAIL, "%s", err.msg);
        else if (reaped.qemu_killed || reaped.scratch_removed || reaped.runs_interrupted)
                check(c, "leftovers", LEVEL_OK, "left by a killed kbench and cleaned now: %d QEMU killed, "
                      "%d scratch entries removed, %d run(s) marked interrupted (resume with "
                      "'kbench run --resume RUN')", reaped.qemu_killed, reaped.scratch_removed,
                      reaped.runs_interrupted);
        else
                check(c, "leftovers", LEVEL_OK, "none (no stale QEMU, scratch file or running run)");
}

/* The staging directories of kernel imports that were killed: named, and
 * with --repair removed, each named before it goes. They hold only a half
 * copy of a file the user still has. */
static void check_staging(struct checks *c, struct kstore *ks, const char *kdir) {
        g_auto(GStrv) stale = NULL;
        g_autofree char *names = NULL;
        struct kb_error err = { { 0 } };
        size_t n;

        if (kstore_staging_stale(ks, &stale, &err) < 0) {
                check(c, "staging", LEVEL_FAIL, "%s", err.msg);
                return;
        }
        n = stale ? g_strv_length(stale) : 0;
        if (n == 0) {
                check(c, "staging", LEVEL_OK, "none (no half import left by a killed 'kernel add')");
                return;
        }
        names = g_strjoinv(", ", stale);
        if (!c->repair) {
                check(c, "staging", LEVEL_WARN, "%zu staging director%s of a killed 'kernel add' in %s: %s; "
                      "'kbench doctor --repair' removes them", n, n == 1 ? "y" : "ies", kdir, names);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                g_autofree char *path = g_build_filename(kdir, stale[i], NULL);

                if (!c->json)
                        printf("removing %s (a half import of a killed 'kernel add')\n", path);
                if (kstore_staging_remove(ks, stale[i], &err) < 0)
                        check(c, "staging", LEVEL_FAIL, "%s", err.msg);
                else
                        check(c, "staging", LEVEL_OK, "removed %s", path);
        }
}

/* The level and line of the accelerator a host gets: KVM is ok; TCG works
 * but its results mean less, so it is a warning that says what it means. */
static void check_accel(struct checks *c, const char *label, int resolved, const char *accel, const char *why,
                        const char *error) {
        if (!resolved)
                check(c, label, LEVEL_FAIL, "%s", error);
        else if (strcmp(accel, "kvm") == 0)
                check(c, label, LEVEL_OK, "%s", why);
        else
                check(c, label, LEVEL_WARN, "%s; " ACCEL_TCG_MEANS, why);
}

/* libvirt and the accelerator, probed with the store's first kernel (k,
 * may be NULL). OUT: *ret_conn, the connection when there is one. */
/* Up to DAMAGED_SHOWN entries of a list in one check's line. */
#define DAMAGED_SHOWN 3

/* The stored kernels, and what kernel list would show as damaged (a name
 * whose image is gone, a kernel.json that does not read) and what no
 * name reaches (an image directory without a name): each a finding, with
 * what to do about it. OUT: *ret, *ret_n, the sound kernels. Returns 0, or
 * -1 when the kernel store cannot be read (said as a FAIL). */
static int check_kernels(struct checks *c, struct kstore *ks, const char *kdir, struct kstore_kernel ***ret,
                         size_t *ret_n) {
        struct kstore_damaged *bad = NULL;
        g_auto(GStrv) unnamed = NULL;
        g_autoptr(GString) list = g_string_new(NULL);
        struct kb_error err = { { 0 } };
        size_t nd = 0, nu;

        if (kstore_list_all(ks, ret, ret_n, &bad, &nd, &err) < 0 || kstore_unnamed(ks, &unnamed, &err) < 0) {
                check(c, "kernels", LEVEL_FAIL, "%s", err.msg);
                return -1;
        }
        nu = g_strv_length(unnamed);
        check(c, "kernels", LEVEL_OK, "%zu kernel(s) in %s", *ret_n, kdir);
        for (size_t i = 0; i < nd && i < DAMAGED_SHOWN; i++)
                g_string_append_printf(list, "%s%.64s (%s)", i ? ", " : "", bad[i].name, bad[i].why);
        if (nd)
                check(c, "damaged", LEVEL_FAIL, "%zu damaged kernel name(s) in %s/names: %s%s; remove each with "
                      "'kbench kernel remove NAME' (kbench kernel list shows them)", nd, kdir, list->str,
                      nd > DAMAGED_SHOWN ? ", ..." : "");
        g_string_truncate(list, 0);
        for (size_t i = 0; i < nu && i < DAMAGED_SHOWN; i++)
                g_string_append_printf(list, "%s%.12s", i ? ", " : "", unnamed[i]);
        if (nu)
                check(c, "unnamed", LEVEL_WARN, "%zu image director%s in %s that no name reaches: %s%s; name one "
                      "with 'kbench kernel add --name NAME %s/ID/image', or remove its directory", nu,
                      nu == 1 ? "y" : "ies", kdir, list->str, nu > DAMAGED_SHOWN ? ", ..." : "", kdir);
        kstore_damaged_free(bad, nd);
        return 0;
}

static void check_libvirt(struct checks *c, const struct store_ctx *g, const struct kstore_kernel *k,
                          struct vm_conn **ret_conn) {
        g_autofree char *qv = NULL, *lv = NULL, *why = NULL;
        struct kb_error err = { { 0 } };
        const char *accel = NULL;
        const char *probe = k ? (k->vmlinux_path ? k->vmlinux_path : k->image_path) : NULL;

        if (vm_conn_new(g->connect, ret_conn, &err) < 0) {
                check(c, "libvirt", LEVEL_FAIL, "%s", err.msg);
                return;
        }
        if (vm_conn_versions(*ret_conn, &qv, &lv, &err) == 0)
                check(c, "libvirt", LEVEL_OK, "%s (libvirt %s, QEMU %s)", g->connect, lv, qv);
        if (access("/dev/kvm", F_OK) != 0) {
                check_accel(c, "accel", 1, "tcg", "tcg: no /dev/kvm", NULL);
        } else if (accel_resolve(*ret_conn, "auto", g->home, probe, &accel, &why, &err) == 0) {
                check_accel(c, "accel", 1, accel, why, NULL);
        } else if (!probe) {
                /* Nothing to boot the probe with is no fault of the host. */
                check(c, "accel", LEVEL_WARN, "not known yet: /dev/kvm exists, but KVM is tried by booting a kernel "
                      "of the store and there is none ('kbench kernel add' one); if KVM proves unusable, " ACCEL_TCG_MEANS);
        } else {
                check_accel(c, "accel", 0, NULL, NULL, err.msg);
        }
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
                        check(c, label, LEVEL_FAIL, "%s", err.msg);
                        continue;
                }
                check(c, label, LEVEL_OK, "%s (%s): %s, %s, QEMU %s, libvirt %s%s%s", h.name ? h.name : h.uri, h.uri,
                      h.info.hostname, h.info.cpu_model, h.info.qemu_version, h.info.libvirt_version,
                      h.pool ? ", storage pool " : "", h.pool ? pool_dir(h.pool) : "");
                /* The embedded driver's accelerator is this machine's (check_libvirt). */
                if (h.pool) {
                        int ok = accel_resolve_remote(h.conn, h.pool, "auto", scratch, probe, &accel, &why, &err) == 0;
                        g_autofree char *line = g_strdup_printf("%s: accelerator %s", h.name, ok ? why : "");

                        check_accel(c, label, ok, accel, line, err.msg);
                }
                run_host_clear(&h);
        }
}

/* Each part in turn, the store's parts in cli_setup's order; a part that
 * cannot be opened is a finding, and what needs it is not looked at. */
static void doctor_checks(struct checks *c, struct cli_ctx *x, struct kstore_kernel ***kernels, size_t *nk,
                          struct vm_conn **conn) {
        const struct store_ctx *g = x->g;
        g_autofree char *kdir = store_kernels_dir(g);
        struct kb_error err = { { 0 } };

        check_program(c, "qemu-system-x86_64", "not found: apt-get install -y qemu-system-x86");
        check_program(c, "mkfs.ext4", "not found: apt-get install -y e2fsprogs");
        check_program(c, "depmod", "not found: apt-get install -y kmod");
        check_insn_plugin(c);
        check(c, "busybox", unless(g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE), LEVEL_FAIL),
              "%s", g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE) ? "/bin/busybox"
                                                                            : "missing: apt-get install -y busybox-static");
        /* doctor looks and never creates: a mistyped --store must not
         * become a store that then reports ok. Without a store, nothing of
         * it can be checked, and libvirt's embedded root would be made in it. */
        if (cli_setup_only(x, CLI_STORE, &err) < 0) {
                check(c, "store", LEVEL_FAIL, "%s", err.msg);
                return;
        }
        check(c, "store", unless(access(g->home, W_OK) == 0, LEVEL_FAIL), "%s%s", g->home,
              access(g->home, W_OK) == 0 ? "" : " (not writable: run cannot use it)");
        check_qemu_user(c, g);
        if (cli_setup_only(x, CLI_KSTORE, &err) == 0 && check_kernels(c, x->s.ks, kdir, kernels, nk) == 0)
                check_staging(c, x->s.ks, kdir);
        check_database(c, x);
        if (x->s.db)
                check_rows(c, x->s.db);

        /* A store in use is fine, but its libvirt root is then taken: the
         * embedded driver allows one process per root. */
        if (cli_setup_only(x, CLI_LOCK, &err) < 0) {
                check(c, "lock", LEVEL_FAIL, "%s", err.msg);
                return;
        }
        check_leftovers(c, g, x->s.db);
        if (g->hosts)
                check_hosts(c, g, *nk > 0 ? (*kernels)[0] : NULL);
        else
                check_libvirt(c, g, *nk > 0 ? (*kernels)[0] : NULL, conn);
}

static void doctor_report(struct checks *c, int json, const struct store_ctx *g) {
        if (json) {
                json_t *o = json_pack("{s:o, s:b, s:{s:i, s:i, s:i}, s:s, s:s, s:s}", "checks", c->list,
                                      "ok", c->count[LEVEL_FAIL] == 0, "summary", "ok", c->count[LEVEL_OK], "warn",
                                      c->count[LEVEL_WARN], "fail", c->count[LEVEL_FAIL], "store", g->home, "db",
                                      g->db_path, "connect", g->connect);
                json_dumpf(o, stdout, JSON_INDENT(2) | KB_JSON_OUT);
                putchar('\n');
                json_decref(o);
        } else {
                printf("doctor: %d ok, %d warn, %d fail\n", c->count[LEVEL_OK], c->count[LEVEL_WARN],
                       c->count[LEVEL_FAIL]);
                json_decref(c->list);
        }
}

int cli_doctor(int argc, char **argv, struct cli_ctx *x) {
        static const struct cli_usage usage = {
                .verb = "doctor",
                .params = "- check QEMU, libvirt, the accelerator and the store",
                .description = "Each check is ok, warn (kbench works, but its results mean less or "
                               "it runs slower)\nor FAIL. Exit status: 0 no check failed, 1 a check "
                               "failed, 2 usage error.",
        };
        const struct store_ctx *g = x->g;
        int json = 0, repair = 0;
        GOptionEntry entries[] = {
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the checks as JSON (each with its level)", NULL },
                { "repair", 0, 0, G_OPTION_ARG_NONE, &repair,
                  "Remove what can go without loss (staging directories of killed kernel imports), naming each "
                  "first; nothing that holds results", NULL },
                { NULL },
        };
        struct checks c = { .list = json_array() };
        struct vm_conn *conn = NULL;
        struct kstore_kernel **kernels = NULL;
        size_t nk = 0;

        if (cli_options(&usage, entries, &argc, &argv)) {
                json_decref(c.list);
                return 2;
        }
        if (argc > 1) {
                json_decref(c.list);
                return cli_errorf("doctor: unexpected argument " CLI_Q " (try 'kbench doctor --help')",
                                  CLI_QARG(argv[1])) + 1;
        }
        c.json = json;
        c.repair = repair;

        doctor_checks(&c, x, &kernels, &nk, &conn);
        doctor_report(&c, json, g);
        kstore_kernel_list_free(kernels, nk);
        vm_conn_free(conn);
        return c.count[LEVEL_FAIL] ? 1 : 0;
}
