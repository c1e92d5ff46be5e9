/* runner_loop.c: the loop over a run's cells. The plan's cells in order
 * on one host, with --until-mde's rule asked after each round, or spread
 * over several hosts (schedule.h, spread.h); each cell's attempts, each
 * through its warm start (cell/warm.h) and stored (runner_store.c), until
 * one is not retried; and whether another cell may start (a stop request,
 * a failed commit, the driver's deadline). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "report/metrics.h"
#include "results/cellstate.h"
#include "run/runner_int.h"
#include "run/schedule.h"
#include "run/seqrun.h"
#include "run/spread.h"

/* The level and power --until-mde's MDE is defined at: compare's defaults. */
#define SEQ_ALPHA 0.05
#define SEQ_POWER 0.8

/* With --warm, a cell restores the snapshot of its shape (cell/warm.h),
 * on a run's single host and only the store's own driver: a snapshot is a
 * file of the host that saved it. Why a cell boots cold instead is said,
 * never a reason for the cell to fail. */
static void warm_for_cell(struct run *r, const struct plan_cell *pc, struct cell_spec *spec, struct warm_cell *w) {
        const struct kstore_kernel *k = r->kernels[pc->kernel];
        const struct warm_want want = {
                .kernel = k, .initrd = r->initrds[pc->kernel], .guest = &r->set.guest,
                .nic = r->specs[pc->workload]->ops->n_ports > 0, .qemu_version = r->qemu_version,
                .libvirt_version = r->libvirt_version, .boot_timeout_s = spec->boot_timeout_s,
        };
        struct kb_error err = { { 0 } };
        struct warm_made made;

        if (!r->set.warm || r->set.cold || r->n_hosts != 1 || r->hosts[0].remote || !r->conn)
                return;
        switch (warm_cell_start(&r->warm, r->conn, &want, spec, w, r->ev, &made, &err)) {
        case WARM_START_NO_HASH:
                run_note(r, "warm start off for %s: %s", k->name, err.msg);
                break;
        case WARM_START_NO_SNAPSHOT:
                run_note(r, "no snapshot for %s (%s); its cells boot cold", k->name, err.msg);
                break;
        case WARM_START_MADE:
                run_note(r, "snapshot for %s: booted in %.2f s, saved in %.2f s, %" G_GUINT64_FORMAT " MiB",
                         k->name, made.boot_s, made.save_s, made.bytes >> 20);
                break;
        case WARM_START_RESTORE:
        case WARM_START_COLD:
                break;
        }
}

/* After a cell: a snapshot that failed it is gone, and the run's later
 * cells of its shape boot cold. */
static void warm_after_cell(struct run *r, const struct warm_cell *w, const struct cell_result *res) {
        struct kb_error err = { { 0 } };

        if (warm_cell_after(&r->warm, w, res, &err) < 0)
                run_note(r, "removing the failed snapshot: %s", err.msg);
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
                            .pilot = (size_t)MAX(o->repeats, 2), .max_rounds = n / MAX(r->n_kernels * r->n_specs, 1),
                            .noise = run_noise(r) },
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
        struct kb_event ev = { .kind = again ? KB_EVENT_CELL_RETRY : KB_EVENT_CELL_END,
                                .label = multi ? l->label : key, .state = state, .detail = detail,
                                .own_line = multi,
                                .seconds = (double)(g_get_monotonic_time() - l->t0_us) / 1e6 };

        if (multi)
                g_mutex_lock(&r->lock);
        kb_emit(r->ev, &ev);
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
                ret = cell_run_ops(ops, ctx, spec, &res, multi ? NULL : r->ev, err);
                if (ret == 0) {
                        warm_after_cell(r, &warm, &res);
                        runner_store_ksyms(r, spec->kernel, &res);
                }
                warm_cell_clear(&warm);
                if (ret < 0)
                        return ret;
                if (multi)
                        g_mutex_lock(&r->lock);
                ret = runner_store_cell(r, h, pc, attempt, &res, &pending, err);
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
                                               run_stop_requested(r) || stopped);
                cell_note(r, pc->key, line, res.state, res.detail, again);
                if (ret >= 0 && !again && !cellstate_is(res.state, CELLSTATE_OK))
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
                kb_emit(r->ev, &(struct kb_event){ .kind = KB_EVENT_CELL_BEGIN, .label = line.label });
        return run_attempts(r, h, pc, &spec, first_attempt, &line, ret_failed, ret_host_failed, ret_again, err);
}

/* Whether another cell may start: no interrupt, no failed commit, and the
 * caller's deadline (a night's) not passed. */
static int run_goes_on(struct run *r) {
        if (run_stop_requested(r) || r->stopped)
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
        for (size_t i = 0; i < n && !run_stop_requested(r) && !r->stopped; i++) {
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
        if (seq.on && !seq.done && !run_stop_requested(r) && !r->stopped && !r->past_deadline) {
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

int runner_loop_cells(struct run *r, int *ret_failed, struct kb_error *err) {
        g_autofree struct plan_cell *plan = NULL;
        g_autofree char *prefix = g_strdup_printf("kb%d-r%" G_GINT64_FORMAT, (int)getpid(), r->row.id);
        g_auto(GStrv) done = NULL;
        size_t n;
        int ret;
        g_autoptr(GPtrArray) agent_lines = g_ptr_array_new_with_free_func(g_free);

        runopts_agent_lines(&r->set, agent_lines);
        g_ptr_array_add(agent_lines, NULL);
        plan_build(r->n_kernels, r->n_specs, run_rounds(r), &plan, &n);
        if (r->set.resume_run > 0) {
                ret = db_run_done_keys(r->db, r->row.id, &done, err);
                if (ret < 0)
                        return ret;
        }
        kb_emit(r->ev, &(struct kb_event){ .kind = KB_EVENT_CELLS,
                                           .total = plan_todo(plan, n, (const char *const *)done) });
        *ret_failed = 0;
        if (r->n_hosts == 1)
                return run_cells_here(r, plan, n, (const char *const *)done, prefix, agent_lines, ret_failed, err);
        return run_cells_spread(r, plan, n, (const char *const *)done, prefix, agent_lines, ret_failed, err);
}
