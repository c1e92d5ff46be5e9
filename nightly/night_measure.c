/* nightly/night_measure.c: a night's measuring stage (see night_int.h):
 * finish the runs an earlier night left (their cells then count as
 * measured), run each group of the plan through the runner of `kbench
 * run` until the deadline, and mark in the sources' state the files whose
 * kernels are dealt with. Every kernel a run measured becomes a subject
 * for the detecting stage. */
#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "nightly/night_history.h"
#include "nightly/night_int.h"
#include "nightly/nightly_ops.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_sources.h"
#include "run/runner.h"
#include "settings/runopts.h"

static void add_run(struct night *n, int64_t id) {
        for (guint i = 0; i < n->runs->len; i++)
                if (g_array_index(n->runs, int64_t, i) == id)
                        return;
        g_array_append_val(n->runs, id);
}

void night_subject_clear(void *p) {
        struct subject *s = p;

        g_free(s->name);
        g_free(s->store_name);
        g_free(s->kernel_id);
}

static void add_subject(struct night *n, int64_t run, const char *name, const char *store_name,
                        const char *kernel_id) {
        struct subject s;
        gboolean seen = FALSE;

        for (guint i = 0; i < n->measured->len && !seen; i++)
                seen = strcmp(n->measured->pdata[i], name) == 0;
        if (!seen)
                g_ptr_array_add(n->measured, g_strdup(name));

        if (strcmp(name, n->cfg->baseline) == 0)
                return;
        for (guint i = 0; i < n->subjects->len; i++) {
                const struct subject *x = &g_array_index(n->subjects, struct subject, i);
                if (x->run == run && strcmp(x->kernel_id, kernel_id) == 0)
                        return;
        }
        s = (struct subject){ run, g_strdup(name), g_strdup(store_name), g_strdup(kernel_id) };
        g_array_append_val(n->subjects, s);
}

/* How the night drives the runner: in the night's session, printing its
 * own report, starting no cell past its deadline, and with until_mde
 * stopping where the night's own comparison (its noise band) sees the
 * target. */
static struct runner_drive night_drive(const struct night *n) {
        return (struct runner_drive){ .quiet = 1, .deadline_at = n->deadline_at, .events = n->o->events,
                                      .hosts = n->o->hosts, .noise = n->cfg->noise,
                                      .option_name = nightly_config_option_key, .spelling = JUDGEOPTS_KEYS };
}

/* The runner's exit code as the night reads it: 0 and 3 (failed cells,
 * interrupted) leave results to report; 1 and 2 stop the night. */
static int runner_failed(int code) {
        return code != 0 && code != 3;
}

/* After a run that exited 3: failed cells are reported per kernel; only
 * an interrupted run leaves cells for the next night. */
static void note_left(struct night *n, int64_t id, int code) {
        if (code == 3 && night_history_interrupted(n->db, id))
                n->rep.incomplete = 1;
}

static int resume_one(struct night *n, int64_t id, struct kb_error *err) {
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        g_auto(GStrv) ids = NULL;
        g_auto(GStrv) names = NULL;
        struct run_settings o;
        const struct runner_drive drive = night_drive(n);
        int code, r;

        runopts_defaults(&o);
        o.resume_run = id;
        r = n->ops->load_resume(&o, n->db, kern, work, keep, err);
        if (r < 0)
                return r;
        g_ptr_array_add(kern, NULL);
        g_ptr_array_add(work, NULL);
        o.kernels = (char **)kern->pdata;
        o.workloads = (char **)work->pdata;
        night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_RESUME, .run_id = id });
        code = n->ops->run(&o, &drive, &n->g, n->s, NULL, err);
        if (runner_failed(code))
                return error_prefix(err, -EIO, "resuming run %" G_GINT64_FORMAT, id);
        note_left(n, id, code);
        add_run(n, id);
        r = night_history_kernels(n->db, id, &ids, &names, err);
        if (r < 0)
                return r;
        for (size_t i = 0; ids[i]; i++) {
                g_autofree char *label = g_strconcat(o.variant ? o.variant : "", names[i], NULL);
                add_subject(n, id, label, names[i], ids[i]);
        }
        return 0;
}

/* The night's runs that ended before their last cell (a deadline, a
 * signal, a killed kbench: we hold the lock, so a "running" one is dead)
 * are finished first, so their cells count as measured below. */
int night_step_resume(struct night *n, struct kb_error *err) {
        g_autofree int64_t *ids = NULL;
        size_t nr = 0;
        int r = night_history_resumable(n->db, NIGHTLY_TAG, &ids, &nr, err);

        for (size_t i = 0; r >= 0 && i < nr; i++) {
                if (n->o->dry_run)
                        night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_WOULD_RESUME, .run_id = ids[i] });
                else
                        r = resume_one(n, ids[i], err);
        }
        return r;
}

/* A dry run's answer: the plan, for the caller to show. */
int night_emit_plan(const struct night *n) {
        const struct nightly_plan_event p = { .plan = n->plan,
                                              .cands = (const struct nightly_candidate *)(void *)n->cands->data,
                                              .n_cands = n->cands->len, .cfg = n->cfg, .accel = n->accel };

        return night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_PLAN, .plan = &p });
}

static int run_group(struct night *n, size_t gi, int64_t *ret_run, struct kb_error *err) {
        const struct nightly_group *gr = &n->plan->groups[gi];
        const struct nightly_candidate *c = (const struct nightly_candidate *)(void *)n->cands->data;
        g_autofree char **kernels = g_new0(char *, gr->n_members + 1);
        const struct runner_drive drive = night_drive(n);
        struct run_settings o;
        int64_t id = 0;
        int code;

        for (size_t m = 0; m < gr->n_members; m++)
                kernels[m] = (char *)c[gr->members[m]].kernel_id;
        night_opts(n, &gr->v, &o);
        o.kernels = kernels;
        /* A signal during an earlier run of the night ends the night too. */
        if (n->ops->now() >= n->deadline_at || n->ops->interrupted()) {
                n->rep.incomplete = 1;
                night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_NOT_STARTED, .group = gi,
                                                  .n_groups = n->plan->n_groups,
                                                  .interrupted = n->ops->interrupted() });
                *ret_run = 0;
                return 0;
        }
        code = n->ops->run(&o, &drive, &n->g, n->s, &id, err);
        if (runner_failed(code))
                return error_prefix(err, -EIO, "run %zu of the night", gi + 1);
        night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_RUN_DONE, .group = gi,
                                          .n_groups = n->plan->n_groups, .run_id = id, .code = code });
        note_left(n, id, code);
        add_run(n, id);
        for (size_t m = 0; m < gr->n_members; m++) {
                const struct nightly_candidate *cm = &c[gr->members[m]];

                add_subject(n, id, cm->name, cm->store_name ? cm->store_name : cm->name, cm->kernel_id);
        }
        *ret_run = id;
        return 0;
}

/* Mark the files whose kernels are dealt with: measured already, or in a
 * run that exists (an interrupted one is resumed). A file whose run was
 * never started is found again the next night. */
static int mark_found(struct night *n, const int64_t *group_run, struct kb_error *err) {
        const struct nightly_candidate *c = (const struct nightly_candidate *)(void *)n->cands->data;
        const char *base_id = NULL;

        for (guint k = 0; k < n->cands->len; k++)
                if (c[k].is_baseline)
                        base_id = c[k].kernel_id;
        for (size_t i = 0; i < n->n_found; i++) {
                ssize_t ci = n->found_cand[i];
                int done = ci == SSIZE_MAX;
                int r;

                if (ci >= 0 && ci != SSIZE_MAX) {
                        done = c[ci].n_ok >= (size_t)n->cfg->run.repeats;
                        for (size_t gi = 0; !done && gi < n->plan->n_groups; gi++)
                                for (size_t m = 0; m < n->plan->groups[gi].n_members; m++)
                                        if (n->plan->groups[gi].members[m] == (size_t)ci && group_run[gi] > 0)
                                                done = 1;
                }
                if (!done)
                        continue;
                r = nightly_sources_mark(n->cfg, n->g.home, &n->found[i],
                                         ci == SSIZE_MAX ? base_id : c[ci].kernel_id, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int night_step_run(struct night *n, struct kb_error *err) {
        g_autofree int64_t *group_run = g_new0(int64_t, n->plan->n_groups + 1);
        int r = 0;

        for (size_t gi = 0; gi < n->plan->n_groups && r >= 0; gi++)
                r = run_group(n, gi, &group_run[gi], err);
        if (r < 0)
                return r;
        return mark_found(n, group_run, err);
}

