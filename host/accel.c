/* accel.c: the KVM probe and its cached verdict (see accel.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <libvirt/libvirt.h>

#include "common/fileio.h"
#include "common/util.h"
#include "host/accel.h"
#include "host/pool.h"

static int kvm_usable(void) {
        int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

        if (fd < 0)
                return 0;
        close(fd);
        return 1;
}

static void ignore_event(void *userdata, enum vm_event ev, const char *data, size_t len) {
}

/* Boot probe_kernel (a path on c's host) under KVM without an initrd and
 * watch its console, which is a file in dir; with remote, a console
 * stream written into it (a host kbench reaches only through libvirt). */
static int probe(struct vm_conn *c, const char *dir, const char *kernel, int remote, int *ret_ok, double *ret_s,
                 char *failure, size_t failure_size) {
        g_autofree char *console = g_build_filename(dir, "kvm-probe-console.log", NULL);
        g_autofree char *name = g_strdup_printf("kb%d-kvm-probe", (int)getpid());
        static const struct guest_shape probe_guest = { .accel = "kvm", .mem_mb = 256, .cpus = 1 };
        struct vm_config vc = {
                .name = name, .guest = &probe_guest, .kernel = kernel,
                .cmdline = "console=ttyS0 panic=-1", .console_path = console, .console_stream = remote,
        };
        struct vm *vm = NULL;
        struct kb_error err = { { 0 } };
        int64_t t0;
        int ok = 0;

        g_mkdir_with_parents(dir, 0755);
        g_unlink(console);
        /* QEMU may run as another user (vm.c): the log is made for it. */
        if (!g_file_set_contents(console, "", 0, NULL) ||
            (!remote && vm_qemu_hand_over(vm_conn_qemu_user(c), console, &err) < 0)) {
                g_snprintf(failure, failure_size, "%s: %s", console, err.msg[0] ? err.msg : "cannot create");
                *ret_s = 0;
                *ret_ok = 0;
                return 0;
        }
        t0 = g_get_monotonic_time();
        if (vm_start(c, &vc, ignore_event, NULL, &vm, &err) < 0) {
                /* A KVM that cannot even start a guest (e.g. "failed to set
                 * MSR" on nested hosts) is a verdict, not an error. */
                g_strlcpy(failure, err.msg, failure_size);
                *ret_s = (double)(g_get_monotonic_time() - t0) / 1e6;
                *ret_ok = 0;
                return 0;
        }
        while (!ok && g_get_monotonic_time() - t0 < (int64_t)(ACCEL_PROBE_S * G_USEC_PER_SEC)) {
                g_autofree char *buf = NULL;
                gsize len = 0;

                g_usleep(100 * 1000);
                if (g_file_get_contents(console, &buf, &len, NULL) && memmem(buf, len, "Linux version", 13))
                        ok = 1;
        }
        *ret_s = (double)(g_get_monotonic_time() - t0) / 1e6;
        vm_stop(vm, !remote);
        if (remote)
                g_unlink(console);
        *ret_ok = ok;
        return 0;
}

char *accel_failure_reason(const char *failure) {
        g_autofree char *line = g_strndup(failure ? failure : "", strcspn(failure ? failure : "", "\r\n"));
        const char *why = line, *p;

        /* libvirt wraps QEMU's words: "cannot create domain ...: internal
         * error: qemu unexpectedly closed the monitor: <time> qemu-system-
         * x86_64: error: failed to set MSR 0x10a to 0x69". The reason is
         * what follows QEMU's last "error: ". */
        for (p = line; (p = strstr(p, "error: ")); p += 7)
                why = p + 7;
        if (!*g_strstrip((char *)why))
                why = g_strstrip(line);
        return g_strdup(why);
}

/* The one-line why of a probe's verdict. */
static char *probe_why(int ok, double secs, const char *failure) {
        g_autofree char *reason = accel_failure_reason(failure);

        if (ok)
                return g_strdup_printf("kvm: probe kernel printed within %.1f s", secs);
        if (reason[0])
                return g_strdup_printf("tcg: KVM probe guest failed to start (%s)", reason);
        return g_strdup_printf("tcg: KVM probe printed no kernel output within %.0f s (KVM hangs here)",
                               ACCEL_PROBE_S);
}

int accel_cache_verdict(const json_t *j, const char *host_kernel, const char *qemu, int *ret_kvm_works) {
        json_t *works = json_object_get(j, "kvm_works");

        if (!json_is_object(j) || !host_kernel || !qemu ||
            g_strcmp0(json_string_value(json_object_get(j, "host_kernel")), host_kernel) != 0 ||
            g_strcmp0(json_string_value(json_object_get(j, "qemu")), qemu) != 0 || !json_is_boolean(works))
                return 0;
        *ret_kvm_works = json_is_true(works);
        return 1;
}

int accel_resolve(struct vm_conn *c, const char *requested, const char *home, const char *probe_kernel,
                  const char **ret_accel, char **ret_why, struct kb_error *err) {
        g_autofree char *cache = g_build_filename(home, "accel.json", NULL);
        g_autofree char *qemu = NULL, *lv = NULL;
        struct utsname u;
        json_t *j;
        char failure[512] = "";
        double secs = 0;
        int ok = 0, r;

        if (strcmp(requested, "tcg") == 0 || strcmp(requested, "kvm") == 0) {
                *ret_accel = strcmp(requested, "kvm") == 0 ? "kvm" : "tcg";
                *ret_why = g_strdup_printf("%s as requested", *ret_accel);
                return 0;
        }
        if (strcmp(requested, "auto") != 0)
                return error_setf(err, -EINVAL, "--accel: '%s' is not auto, kvm or tcg", requested);
        if (!kvm_usable()) {
                *ret_accel = "tcg";
                *ret_why = g_strdup("tcg: /dev/kvm is not usable");
                return 0;
        }
        uname(&u);
        r = vm_conn_versions(c, &qemu, &lv, err);
        if (r < 0)
                return r;
        j = json_load_file(cache, 0, NULL);
        if (accel_cache_verdict(j, u.release, qemu, &ok)) {
                g_autofree char *reason = accel_failure_reason(json_string_value(json_object_get(j, "failure")));

                json_decref(j);
                *ret_accel = ok ? "kvm" : "tcg";
                /* The probe's reason, not only that there was one: a reader
                 * of doctor must learn why KVM is not used. */
                *ret_why = ok || !reason[0]
                        ? g_strdup_printf("%s: KVM probe cached in %s (delete it to probe again)",
                                          *ret_accel, cache)
                        : g_strdup_printf("tcg: KVM probed unusable here (%s); cached verdict in %s (delete it to "
                                          "probe again)", reason, cache);
                return 0;
        }
        json_decref(j);
        if (!probe_kernel)
                return error_setf(err, -ENOENT, "--accel auto: no kernel to probe KVM with; use --accel tcg or kvm");
        {
                g_autofree char *dir = g_build_filename(home, "cache", NULL);
                probe(c, dir, probe_kernel, 0, &ok, &secs, failure, sizeof(failure));
        }
        *ret_accel = ok ? "kvm" : "tcg";
        *ret_why = probe_why(ok, secs, failure);
        j = json_pack("{s:s, s:s, s:b, s:f, s:I, s:s}", "host_kernel", u.release, "qemu", qemu, "kvm_works", ok,
                      "probe_s", secs, "probed_at", (json_int_t)(g_get_real_time() / G_USEC_PER_SEC),
                      "failure", failure);
        {
                /* Best effort, replaced and never written through a link. */
                _cleanup_free_ char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;

                if (text)
                        fileio_write_atomic(cache, text, strlen(text), 0644, NULL);
        }
        json_decref(j);
        return 0;
}

int accel_resolve_remote(struct vm_conn *c, struct pool *p, const char *requested, const char *scratch,
                         const char *probe_kernel, const char **ret_accel, char **ret_why, struct kb_error *err) {
        g_autofree char *kernel = NULL;
        char failure[512] = "", *caps;
        double secs = 0;
        int ok = 0, r;

        if (strcmp(requested, "auto") != 0)
                return accel_resolve(c, requested, scratch, NULL, ret_accel, ret_why, err);
        /* A host whose QEMU offers no KVM domain needs no probe. */
        caps = virConnectGetDomainCapabilities(vm_conn_virt(c), NULL, "x86_64", "pc", "kvm", 0);
        /* No answer from a connection that went is no verdict on KVM. */
        if (!caps && virConnectIsAlive(vm_conn_virt(c)) != 1)
                return error_setf(err, -EIO, "libvirt: lost the connection to %s while asking for its KVM domain",
                                  vm_conn_uri(c));
        if (!caps) {
                *ret_accel = "tcg";
                *ret_why = g_strdup("tcg: the host offers no KVM");
                return 0;
        }
        free(caps);
        if (!probe_kernel)
                return error_setf(err, -ENOENT, "--accel auto: no kernel to probe KVM with; use --accel tcg or kvm");
        r = pool_stage_file(p, probe_kernel, "kernel", &kernel, NULL, err);
        if (r < 0)
                return r;
        /* Not cached: the verdict is the host's, and this store keeps one
         * for its own host only (accel.json). */
        probe(c, scratch, kernel, 1, &ok, &secs, failure, sizeof(failure));
        *ret_accel = ok ? "kvm" : "tcg";
        *ret_why = probe_why(ok, secs, failure);
        return 0;
}

const char *accel_cached(const char *home) {
        g_autofree char *cache = g_build_filename(home, "accel.json", NULL);
        json_t *j, *works;
        struct utsname u;
        int ok = 0;

        if (!kvm_usable())
                return "tcg";
        uname(&u);
        j = json_load_file(cache, 0, NULL);
        works = json_object_get(j, "kvm_works");
        ok = json_is_object(j) && g_strcmp0(json_string_value(json_object_get(j, "host_kernel")), u.release) == 0 &&
             json_is_true(works);
        json_decref(j);
        return ok ? "kvm" : "tcg";
}
