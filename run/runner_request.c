/* runner_request.c: the run's request, checked before any run row
 * exists, so that what no cell could do is refused once instead of failing
 * every cell after its boot: the matrix's axes, the workloads (parsed,
 * resolved against the guest and built once), --until-mde's budget, the
 * kernels, the host's disk and tools and what QEMU's user can reach; and
 * for --resume, what the stored run says (its kernels, workloads,
 * options and hosts, the cells it still has to run). */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <jansson.h>
#include <string.h>
#include <sys/statvfs.h>

#include "cell/cellrows.h"
#include "decide/judgeopts.h"
#include "host/vm.h"
#include "results/query.h"
#include "run/runner_int.h"

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
                return error_setf(err, -ENOENT, "%s %s: %s is not installed on this host", run_option(r, "fs"),
                                  o->guest.fs, mkfs);
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
                                  "%s: %" PRIu64 " MiB of disk%s but only %" PRIu64 " MiB free in %s",
                                  run_option(r, "disk-size"), need >> 20, o->guest.swap_bytes ? " and swap" : "",
                                  avail >> 20, scratch);
        r->usage = 0;
        return 0;
}

/* QEMU runs as another user than kbench (host/vm_qemu.c): refuse, before any run row
 * exists, files it could not open; every cell would fail at its start. */
int runner_request_qemu_reach(struct run *r, struct kb_error *err) {
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
int runner_request_resume_todo(struct run *r, int *ret_todo, struct kb_error *err) {
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
        plan_build(r->n_kernels, r->n_specs, run_rounds(r), &plan, &n);
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
int runner_request_resume_idle(struct run *r, struct kb_error *err) {
        struct query_run *run = NULL;
        int ret = query_run(r->db, r->row.id, &run, err);

        if (ret < 0)
                return ret;
        if (g_strcmp0(run->status, "complete") != 0)
                ret = db_run_finish(r->db, r->row.id, "complete", err);
        query_runs_free(run, 1);
        return ret;
}

/* --until-mde and its budgets as every judging option is checked
 * (decide/judgeopts.h), then what only a run asks of them: one host, and a
 * budget of cells that holds the pilot's rounds. */
static int check_until_mde(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;
        size_t per = r->n_kernels * r->n_specs;
        struct judge_opts j;

        judgeopts_defaults(&j);
        if (o->until_mde_pct > 0)
                j.noise = run_noise(r);
        r->usage = 1;
        if (judgeopts_check(&j, o, JUDGEOPTS_CHECK_UNTIL_MDE, r->d->spelling, err) < 0)
                return -EINVAL;
        if (o->until_mde_pct <= 0) {
                r->usage = 0;
                return 0;
        }
        /* Its rule looks at every round of one run's comparison at once,
         * which the hosts of a spread run would measure apart. */
        if (r->g->hosts && r->g->hosts[1])
                return error_setf(err, -EINVAL, "%s runs on one host, not %u (%s)", run_option(r, "until-mde"),
                                  g_strv_length(r->g->hosts), run_option(r, "connect"));
        if (o->budget_cells > 0 && (size_t)o->budget_cells < per * (size_t)MAX(o->repeats, 2))
                return error_setf(err, -EINVAL, "%s %d is less than the pilot: %d round(s) of %zu cell(s) (%s, at "
                                  "least 2)", run_option(r, "budget-cells"), o->budget_cells, MAX(o->repeats, 2),
                                  per, run_option(r, "repeat"));
        r->usage = 0;
        return 0;
}

/* The matrix's axes are given: a usage error found before the store is
 * looked at (a mistyped --store is then not reported instead). */
int runner_request_axes(struct run *r, struct kb_error *err) {
        const struct run_settings *o = &r->set;

        r->usage = 1;
        for (; o->kernels && o->kernels[r->n_kernels]; r->n_kernels++)
                ;
        for (; o->workloads && o->workloads[r->n_specs]; r->n_specs++)
                ;
        if (r->n_kernels == 0)
                return error_setf(err, -EINVAL, "no kernel given");
        if (r->n_specs == 0) {
                char names[512];

                workload_names(names, sizeof(names));
                return error_setf(err, -EINVAL, "no workload given (workloads: %s)", names);
        }
        /* Two hosts of one name would be one host in the results. */
        for (size_t a = 0; r->g->hosts && r->g->hosts[a]; a++)
                for (size_t b = 0; b < a; b++) {
                        g_autofree char *na = NULL, *ua = NULL, *nb = NULL, *ub = NULL;

                        if (run_host_spec_parse(r->g->hosts[a], &na, &ua, err) < 0 ||
                            run_host_spec_parse(r->g->hosts[b], &nb, &ub, err) < 0)
                                return error_prefix(err, -EINVAL, "%s", run_option(r, "connect"));
                        if (strcmp(na ? na : ua, nb ? nb : ub) == 0)
                                return error_setf(err, -EINVAL, "%s: two hosts named '%.64s'",
                                                  run_option(r, "connect"), na ? na : ua);
                }
        r->usage = 0;
        return 0;
}

/* The workloads, parsed (their job files checked), resolved against the
 * guest and built once, so that keys which do not fit the guest (bonnie's
 * size below twice its RAM) fail before any boot rather than as a failed
 * cell per repeat; and --until-mde's budget. Every error here is the
 * user's request (exit 2), found before the store is looked at. */
int runner_request_workloads(struct run *r, struct kb_error *err) {
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

int runner_check_workloads(const struct run_settings *o, const struct runner_drive *drive, const struct store_ctx *g,
                           struct kb_error *err) {
        static const struct runner_drive none = { 0 };
        struct run r = { .set = *o, .g = g, .d = drive ? drive : &none };
        int ret;

        for (; o->workloads && o->workloads[r.n_specs]; r.n_specs++)
                ;
        ret = runner_request_workloads(&r, err);
        for (size_t w = 0; r.specs && w < r.n_specs; w++)
                workload_spec_free(r.specs[w]);
        g_free(r.specs);
        return ret;
}

/* The kernels, from the kernel store; then what this host can do. */
int runner_request_kernels(struct run *r, struct kb_error *err) {
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

/* The hosts a resumed run spread its cells over, as --connect took them
 * ("NAME=URI", or the bare URI of a host given without a name, which is
 * named by its URI), from its settings' RUNOPTS_HOSTS_KEY; NULL when it
 * named none. */
char **runner_request_resume_hosts(struct run *r) {
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
