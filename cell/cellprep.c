/* cell/cellprep.c: a cell's files and domain configuration, made before
 * its guest starts (see cellprep.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cell/cellprep.h"
#include "common/crc32.h"
#include "common/fileio.h"
#include "common/util.h"
#include "host/insncount.h"
#include "host/kprof.h"

static int run_tool(char **argv, struct kb_error *err) {
        g_autofree char *out = NULL, *errout = NULL;
        g_autoptr(GError) gerr = NULL;
        int status;

        if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &errout, &status, &gerr))
                return error_setf(err, -ENOENT, "%s: %s", argv[0], gerr->message);
        if (!g_spawn_check_wait_status(status, NULL)) {
                g_strchomp(errout);
                return error_setf(err, -EIO, "%s failed: %s", argv[0], errout && *errout ? errout : "(no message)");
        }
        return 0;
}

static int make_disk(const char *path, uint64_t bytes, struct kb_error *err) {
        _cleanup_close_ int fd = -1;
        int r = fileio_create(path, O_TRUNC | O_WRONLY, 0600, &fd, err);

        if (r < 0)
                return r;
        if (ftruncate(fd, (off_t)bytes) < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        return 0;
}

static int format_disk(const struct guest_shape *g, const char *path, struct kb_error *err) {
        g_autofree char *tool = g_strdup_printf("mkfs.%s", g->fs);
        int is_ext = g_str_has_prefix(g->fs, "ext");
        /* Zero inode tables and journal now: lazy init would leave the guest
         * kernel a background writer (ext4lazyinit) that pollutes the I/O
         * being measured. */
        char *argv_ext[] = { tool, "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", (char *)path, NULL };
        char *argv_other[] = { tool, "-f", (char *)path, NULL };

        return run_tool(is_ext ? argv_ext : argv_other, err);
}

/* The agent reports the CRC-32 of the disk's first DISK_HEAD_BYTES as it
 * sees them just before mounting (guest/agent.c); they hold the
 * filesystem's superblock, unique per mkfs, so a match says the guest
 * reads this cell's image and no block cached from another. */
#define DISK_HEAD_BYTES 4096

static int disk_head_crc(const char *path, uint32_t *ret, struct kb_error *err) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        char buf[DISK_HEAD_BYTES];
        size_t got = 0;

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        while (got < sizeof(buf)) {
                ssize_t n = pread(fd, buf + got, sizeof(buf) - got, (off_t)got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        /* A short image reads as zeros beyond its end, as in the guest. */
        memset(buf + got, 0, sizeof(buf) - got);
        *ret = crc32_update(0, buf, sizeof(buf));
        return 0;
}

/* Pick count consecutive free TCP ports on 127.0.0.1 starting with a random base. */
static int pick_ports(uint16_t *ports, int count, struct kb_error *err) {
        for (int attempt = 0; attempt < 200; attempt++) {
                uint16_t base = (uint16_t)g_random_int_range(20000, 60000 - count);
                int ok = 1;

                for (int i = 0; i < count && ok; i++) {
                        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + i)),
                                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
                        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
                                ok = 0;
                        if (fd >= 0)
                                close(fd);
                }
                if (ok) {
                        for (int i = 0; i < count; i++)
                                ports[i] = (uint16_t)(base + i);
                        return 0;
                }
        }
        return error_setf(err, -EADDRINUSE, "no %d consecutive free ports on 127.0.0.1", count);
}

int cellprep_make(const struct cell_spec *s, struct cell_result *res, struct cellprep *f,
                  const struct kb_sink *events, struct kb_error *err) {
        const struct workload_ops *ops = s->workload->ops;
        struct kb_error verr = { { 0 } };

        f->disk = g_build_filename(s->work_dir, "disk.img", NULL);
        f->swap = g_build_filename(s->work_dir, "swap.img", NULL);
        f->console = g_build_filename(s->work_dir, "console.log", NULL);
        /* One per attempt: libvirt removes a domain's socket when it ends,
         * and the previous attempt's may end in the background (vm_stop)
         * after this one's listens. */
        f->serial = g_strdup_printf("%s/ttyS1-a%d.sock", s->work_dir, s->attempt);
        /* The previous attempt's domain may still be being destroyed in the
         * background (vm_stop): a retry must not ask for the same name. */
        f->name = s->attempt > 1 ? g_strdup_printf("%s-%s-a%d", s->domain_prefix, s->key, s->attempt)
                                 : g_strdup_printf("%s-%s", s->domain_prefix, s->key);
        if (g_mkdir_with_parents(s->work_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", s->work_dir, g_strerror(errno));

        cell_workload_env(s->guest, &f->env);
        f->env.seed = g_str_hash(s->key) ^ ((uint64_t)s->iteration << 32) ^ (uint64_t)g_get_real_time();
        if (ops->n_ports > 0) {
                f->env.nports = MIN(ops->n_ports, (int)G_N_ELEMENTS(f->env.ports));
                if (pick_ports(f->env.ports, f->env.nports, &verr) < 0) {
                        g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                        res->retryable = 1;
                        return 0;
                }
        }
        if (ops->script(s->workload, &f->env, &res->script, &verr) < 0) {
                res->state = CELL_WORKLOAD_FAILURE;
                g_snprintf(res->detail, sizeof(res->detail), "%s", verr.msg);
                return 0;
        }

        kb_stage(events, "disk");
        if (make_disk(f->disk, s->guest->disk_bytes, &verr) < 0 || format_disk(s->guest, f->disk, &verr) < 0 ||
            disk_head_crc(f->disk, &f->disk_head, &verr) < 0 ||
            (s->guest->swap_bytes && make_disk(f->swap, s->guest->swap_bytes, &verr) < 0) ||
            (s->guest->swap_bytes && run_tool((char *[]){ "mkswap", "-q", f->swap, NULL }, &verr) < 0) ||
            vm_qemu_hand_over(s->qemu_user, f->disk, &verr) < 0 ||
            (s->guest->swap_bytes && vm_qemu_hand_over(s->qemu_user, f->swap, &verr) < 0)) {
                /* Not retried: the same settings would fail the same way. */
                g_snprintf(res->detail, sizeof(res->detail), "disk: %s", verr.msg);
                g_unlink(f->disk);
                g_unlink(f->swap);
                return 0;
        }
        /* An empty console log of QEMU's, in a directory that stays
         * kbench's: QEMU may write the file but cannot swap it for a link
         * to something kbench would then read as root. */
        g_unlink(f->console);
        if (!g_file_set_contents(f->console, "", 0, NULL) || vm_qemu_hand_over(s->qemu_user, f->console, &verr) < 0) {
                g_snprintf(res->detail, sizeof(res->detail), "console: %s", verr.msg[0] ? verr.msg : f->console);
                res->retryable = 1;
                g_unlink(f->disk);
                g_unlink(f->swap);
                return 0;
        }

        /* The instruction counter: without it the cell still measures
         * everything else, and says why it has no counts. */
        if (s->insn_plugin && strcmp(s->guest->accel, "kvm") != 0) {
                f->insns = g_build_filename(s->work_dir, "insns.bin", NULL);
                if (!vm_plugin_path_ok(s->insn_plugin) || !vm_plugin_path_ok(f->insns) ||
                    insncount_file_create(f->insns, s->qemu_user, &verr) < 0) {
                        g_snprintf(res->detail, sizeof(res->detail), "instruction counter: %s",
                                   verr.msg[0] ? verr.msg : "a path holds a comma");
                        g_unlink(f->disk);
                        g_unlink(f->swap);
                        g_unlink(f->console);
                        return 0;
                }
        }

        /* The profile rides with the counter; without it the cell still
         * measures everything, and says why it has no profile. */
        if (f->insns && s->prof_plugin) {
                f->prof = g_build_filename(s->work_dir, "kprof.bin", NULL);
                if (!vm_plugin_path_ok(s->prof_plugin) || !vm_plugin_path_ok(f->prof) ||
                    kprof_file_create(f->prof, s->qemu_user, &verr) < 0) {
                        g_snprintf(f->prof_why, sizeof(f->prof_why), "%s",
                                   verr.msg[0] ? verr.msg : "a path holds a comma");
                        g_clear_pointer(&f->prof, g_free);
                }
        }

        /* A restored guest keeps the command line it booted with; the
         * cell's id reaches it in the hello. */
        f->cmdline = s->snapshot ? g_strdup(s->snapshot_cmdline) : guest_cmdline(s->key, s->guest->append);
        f->vc = (struct vm_config){
                .name = s->snapshot ? s->snapshot_domain : f->name, .uuid = s->snapshot ? s->snapshot_uuid : NULL,
                .guest = s->guest, .kernel = s->kernel->vmlinux_path ? s->kernel->vmlinux_path : s->kernel->image_path,
                .initrd = s->initrd, .cmdline = f->cmdline, .disk = f->disk,
                .swap_disk = s->guest->swap_bytes ? f->swap : NULL,
                .console_path = f->console, .serial_socket = f->serial,
                .plugin = f->insns ? s->insn_plugin : NULL, .plugin_out = f->insns,
                .prof_plugin = f->prof ? s->prof_plugin : NULL, .prof_out = f->prof,
        };
        for (int i = 0; i < f->env.nports; i++)
                f->vc.forwards[i] = (struct vm_forward){ f->env.ports[i],
                                                         ops->guest_ports[i] ? ops->guest_ports[i] : f->env.ports[i] };
        f->vc.n_forwards = (size_t)f->env.nports;
        return 1;
}

void cellprep_clear(struct cellprep *f) {
        g_free(f->disk);
        g_free(f->swap);
        g_free(f->console);
        g_free(f->serial);
        g_free(f->name);
        g_free(f->cmdline);
        g_free(f->insns);
        g_free(f->prof);
}
