/* runner.c: a run from its start to its end (see runner.h): the request
 * checked (runner_request.c), the store side (the database checked, what
 * a killed kbench left reaped, the reserve, the watchdog), the hosts
 * opened and their accelerators resolved, the guest images built
 * (runner_images.c), the run's row created or reopened, the cells run
 * (runner_loop.c) and the row closed with how to go on. */
#include <errno.h>
#include <glib.h>
#include <unistd.h>

#include "host/accel.h"
#include "host/hostload.h"
#include "run/runner_int.h"
#include "store/reap.h"
#include "store/watchdog.h"

static void run_free(struct run *r) {
        for (size_t k = 0; r->kernels && k < r->n_kernels; k++)
                kstore_kernel_free(r->kernels[k]);
        g_free(r->kernels);
        for (size_t w = 0; r->specs && w < r->n_specs; w++)
                workload_spec_free(r->specs[w]);
        g_free(r->specs);
        if (r->initrds)
                g_strfreev(r->initrds);
        warm_run_clear(&r->warm);
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
        runner_store_reserve(r);
        /* Before the first thread (libvirt's event loop) exists. */
        ret = watchdog_start(prefix, run_dir ? run_dir : "/nonexistent", scratch, err);
        for (size_t k = 0; ret >= 0 && k < r->n_kernels; k++) {
                struct db_kernel dk = { r->kernels[k]->id, r->kernels[k]->name, r->kernels[k]->release,
                                        r->kernels[k]->source, r->kernels[k]->added_at };
                ret = db_kernel_upsert(r->db, &dk, err);
        }
        return ret;
}

/* The hosts of the run: --connect's, or the store's own driver. One that
 * cannot be reached is said and left out while another can be. */
static int open_hosts(struct run *r, struct kb_error *err) {
        g_auto(GStrv) resumed = !r->g->hosts && r->set.resume_run > 0 ? runner_request_resume_hosts(r) : NULL;
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
        ret = runner_request_qemu_reach(r, err);
        for (size_t h = 0; ret >= 0 && h < r->n_hosts; h++)
                ret = prepare_one_host(r, &r->hosts[h], err);
        if (ret < 0)
                return ret;
        r->accel = r->hosts[0].accel;
        r->accel_why = g_strdup(r->hosts[0].accel_why);
        r->set.guest.accel = r->accel;
        ret = runner_images_build(r, err);
        if (ret < 0)
                return ret;
        runner_images_stage_plugins(r);
        ret = runner_request_qemu_reach(r, err);
        for (size_t h = 0; ret >= 0 && h < r->n_hosts; h++)
                if (r->hosts[h].remote)
                        ret = runner_images_stage_on_host(r, &r->hosts[h], err);
        return ret;
}

/* The run's row: created, or with --resume reopened. OUT: *ret_idle, 1
 * when a resumed run had nothing left (then finished, not reopened). */
static int open_run_row(struct run *r, int *ret_idle, struct kb_error *err) {
        int todo = 0, ret;

        r->settings_text = runner_store_settings(r);
        r->host_info = runner_store_host_info();
        r->row = (struct db_run){ .tag = r->set.tag, .settings_json = r->settings_text, .host = r->hostname,
                                  .host_info_json = r->host_info, .qemu_version = r->qemu_version,
                                  .libvirt_version = r->libvirt_version, .kbench_version = KBENCH_VERSION,
                                  .started_at = (double)g_get_real_time() / 1e6 };
        *ret_idle = 0;
        if (r->set.resume_run <= 0)
                return db_run_create(r->db, &r->row, err);
        r->row.id = r->set.resume_run;
        ret = runner_request_resume_todo(r, &todo, err);
        if (ret < 0)
                return ret;
        if (todo > 0)
                return db_run_reopen(r->db, r->row.id, err);
        /* Nothing to run: a finished run keeps its finish time; one killed
         * after its last cell is finished now. */
        run_note(r, "run %" G_GINT64_FORMAT ": every cell is stored, nothing to resume", r->row.id);
        *ret_idle = 1;
        return runner_request_resume_idle(r, err);
}

/* After the cells: the run's status and, when it stopped early, why
 * (whoever watches says how to go on). */
static int close_run_row(struct run *r, struct kb_error *err) {
        int ret = db_run_finish(r->db, r->row.id, run_stop_requested(r) || r->stopped || r->past_deadline ?
                                "interrupted" : "complete", err);

        if (ret < 0)
                return ret;
        if (r->held || r->stopped || run_stop_requested(r) || r->past_deadline)
                kb_emit(r->ev, &(struct kb_event){ .kind = KB_EVENT_STOPPED, .run_id = r->row.id,
                                                   .total = r->held,
                                                   .stop = r->held      ? RUN_STOP_NO_HOST
                                                           : r->stopped ? RUN_STOP_HOST_FAILED
                                                                        : RUN_STOP_INTERRUPTED });
        return 0;
}

/* The run's result is ready: unless its driver reports it itself. */
static void run_result(struct run *r) {
        if (!r->d->quiet)
                kb_emit(r->ev, &(struct kb_event){ .kind = KB_EVENT_RESULT, .run_id = r->row.id,
                                                   .db = r->db });
}

int runner_run(const struct run_settings *o, const struct runner_drive *drive, const struct store_ctx *g,
               struct store_session *s, int64_t *ret_run_id, struct kb_error *err) {
        static const struct runner_drive as_kbench_run = { 0 };
        const struct runner_drive *d = drive ? drive : &as_kbench_run;
        struct run r = { .set = *o, .d = d, .g = g, .s = s, .ev = d->events,
                         .stop = d->stop ? d->stop : &cell_interrupted,
                         .backend = d->hosts ? d->hosts : &run_host_libvirt };
        int failed = 0, idle = 0, ret, code = 1;

        g_mutex_init(&r.lock);
        warm_run_init(&r.warm, g->home, WATCHDOG_SNAPSHOT_PREFIX);
        ret = runner_request_axes(&r, err);
        if (ret >= 0)
                ret = runner_request_workloads(&r, err);
        if (ret >= 0) {
                r.usage = 0;
                ret = store_session_open(s, STORE_PART_STORE, err);
        }
        if (ret >= 0) {
                r.ks = s->ks;
                ret = runner_request_kernels(&r, err);
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
        ret = runner_loop_cells(&r, &failed, err);
        if (ret < 0) {
                db_run_finish(r.db, r.row.id, "failed", NULL);
                goto out;
        }
        ret = close_run_row(&r, err);
        if (ret < 0)
                goto out;
        run_result(&r);
        code = failed > 0 || run_stop_requested(&r) || r.stopped || r.past_deadline ? 3 : 0;
out:
        if (ret_run_id)
                *ret_run_id = r.row.id;
        run_free(&r);
        return code;
}
