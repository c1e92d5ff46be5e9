/* runner_images.c: what a run's guests boot and its QEMUs load, made
 * ready before the first cell: each kernel's guest image (the agent, the
 * modules of its disk bus, filesystem and workloads, the workloads' guest
 * binaries and files), the TCG plugins copied where QEMU's user can open
 * them, and all of it sent once to a host reached only through libvirt.
 * Apart from the loop because it is done once per run, not per cell, and
 * it is where a run finds the kbench-built helpers it needs. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/remote.h"
#include "common/diskbus.h"
#include "guest/initramfs.h"
#include "run/runner_int.h"

#ifndef KBENCH_LIBEXECDIR
#define KBENCH_LIBEXECDIR "/usr/local/libexec/kbench"
#endif

/* Modules every guest loads: ext4 (which also mounts ext2/ext3). The disk
 * bus adds its controller's and disk's (common/diskbus.h), workloads
 * theirs (e1000 for FTP). */
static const char *const base_modules[] = { "ext4", NULL };

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

int runner_images_build(struct run *r, struct kb_error *err) {
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
                kb_emit(r->ev, &(struct kb_event){ .kind = KB_EVENT_IMAGE, .label = r->kernels[k]->name,
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
void runner_images_stage_plugins(struct run *r) {
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

/* What a host kbench reaches only through libvirt needs of this run: the
 * kernels, the guest images and the plugin, sent once each (cached there
 * by content), so that no cell's time holds an upload. */
int runner_images_stage_on_host(struct run *r, struct run_host *h, struct kb_error *err) {
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
