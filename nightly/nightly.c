/* nightly.c: the steps of one night (see nightly.h). Each step is a
 * function over struct night; nightly_run() calls them in order. What the
 * night has to say goes to its sink as events (nightly_events.h); what it
 * measures goes through its ops (nightly_ops.h). */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "host/accel.h"
#include "cell/cell.h"
#include "cell/endstate.h"
#include "bisect/bisect.h"
#include "nightly/nightly.h"
#include "nightly/nightly_bisect.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_measured.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_report.h"
#include "nightly/nightly_sources.h"
#include "decide/pairing.h"
#include "run/hosts.h"
#include "run/runner.h"
#include "settings/runopts.h"
#include "kernels/kconfig.h"
#include "kernels/kstore.h"
#include "decide/changepoint.h"
#include "report/explain.h"
#include "report/metrics.h"
#include "report/stats.h"
#include "report/view.h"
#include "results/db.h"
#include "results/bisect.h"
#include "results/nights.h"
#include "results/query.h"
#include "report/text.h"
#include "report/textcompare.h"
#include "web/page.h"
#include "web/regstate.h"
#include "web/site.h"

#define NIGHTLY_TAG "nightly"

/* A kernel measured in a run of this night (or of the night it resumed),
 * to be compared with the baseline. */
struct subject {
        int64_t run;
        char *name;                        /* as reported: a variant's label + the store name */
        char *store_name;                  /* the kernel's name in the run, for compare's selector */
        char *kernel_id;
};

struct night {
        const struct nightly_opts *o;
        const struct nightly_ops *ops;     /* o->ops or the real table */
        struct store_ctx g;               /* the caller's, with the configuration's connect */
        struct nightly_config *cfg;
        struct store_session *s;           /* the caller's: the database, the kernel store, the lock held */
        struct db *db;                     /* s->db, once open */
        struct kstore *ks;                 /* s->ks, once open */
        const char *accel;                 /* what the runs use, and what "measured" is asked for */
        GPtrArray *hosts;                  /* the names the runs store in their cells (run/hosts.c: NAME,
                                              else the URI), one NULL when the night has no hosts */
        double started_at;                 /* unix time: the night's, as the store records it */
        double deadline_at;                /* unix time */
        struct nightly_found *found;
        size_t n_found;
        GArray *cands;                     /* struct nightly_candidate; strings in keep */
        ssize_t *found_cand;               /* per found file: its candidate, or -1 (import failed) */
        struct nightly_plan *plan;
        GArray *subjects;                  /* struct subject */
        GArray *runs;                      /* int64_t: runs of this night (resumed and new) */
        GPtrArray *keep;                   /* strings the candidates point to */
        GPtrArray *measured;               /* names of the kernels run tonight, each once */
        GPtrArray *night_compares;         /* each comparison made tonight: subject, selector A, B */
        GPtrArray *errors;
        struct nightly_report rep;
};

/* Hand ev to the night's sink. Returns the sink's answer. */
static int emit(const struct night *n, const struct nightly_event *ev) {
        return nightly_events_emit(n->o->sink, ev);
}

static void add_run(struct night *n, int64_t id) {
        for (guint i = 0; i < n->runs->len; i++)
                if (g_array_index(n->runs, int64_t, i) == id)
                        return;
        g_array_append_val(n->runs, id);
}

static int is_tonight(const struct night *n, int64_t run) {
        for (guint i = 0; i < n->runs->len; i++)
                if (g_array_index(n->runs, int64_t, i) == run)
                        return 1;
        return 0;
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

/* ---- configuration ---------------------------------------------------- */

static int step_config(struct night *n, struct kb_error *err) {
        int r = nightly_config_load(n->o->config_path, &n->cfg, err);

        if (r < 0)
                return r;
        r = nightly_bisect_check(n->cfg, err);
        if (r < 0)
                return error_prefix(err, r, "%s", n->o->config_path);
        if (n->cfg->run.until_mde_pct > 0 && n->cfg->run.budget_cells <= 0 && n->cfg->run.budget_time_s <= 0)
                return error_setf(err, -EINVAL, "%s: until_mde needs a budget: budget_cells or budget_time",
                                  n->o->config_path);
        if (n->cfg->run.until_mde_pct > 0 && n->cfg->run.until_mde_pct / 100 <= n->cfg->noise)
                return error_setf(err, -EINVAL, "%s: until_mde %g%% lies within noise (%g%%): a verdict needs the "
                                  "whole interval beyond it", n->o->config_path, n->cfg->run.until_mde_pct,
                                  100 * n->cfg->noise);
        if (n->cfg->connect) {
                g_free(n->g.connect);
                n->g.connect = g_strdup(n->cfg->connect);
        }
        /* The configuration's hosts, as kbench run's --connect: a verb
         * that talks to one host takes the first's URI. */
        if (n->cfg->hosts) {
                g_autofree char *name = NULL, *uri = NULL;

                for (size_t i = 0; n->cfg->hosts[i]; i++) {
                        g_clear_pointer(&name, g_free);
                        g_clear_pointer(&uri, g_free);
                        r = run_host_spec_parse(n->cfg->hosts[i], &name, &uri, err);
                        if (r < 0)
                                return error_prefix(err, r, "%s: hosts[%zu]", n->o->config_path, i);
                        if (i == 0) {
                                g_free(n->g.connect);
                                n->g.connect = g_strdup(uri);
                        }
                        /* A cell names its host as the runner does. */
                        g_ptr_array_add(n->hosts, name ? g_steal_pointer(&name) : g_strdup(uri));
                }
                n->g.hosts = n->cfg->hosts;
        } else
                g_ptr_array_add(n->hosts, NULL);
        n->started_at = n->ops->now();
        n->deadline_at = n->started_at + n->cfg->deadline_s;
        n->accel = accel_cached(n->g.home);
        return 0;
}

/* ---- runner ------------------------------------------------------------- */

/* How the night drives the runner: in the night's session, printing its
 * own report, starting no cell past its deadline, and with until_mde
 * stopping where the night's own comparison (its noise band) sees the
 * target. */
static struct runner_drive night_drive(const struct night *n) {
        return (struct runner_drive){ .quiet = 1, .deadline_at = n->deadline_at, .events = n->o->run_events,
                                     .hosts = n->o->hosts, .noise = n->cfg->noise };
}

/* The runner's exit code as the night reads it: 0 and 3 (failed cells,
 * interrupted) leave results to report; 1 and 2 stop the night. */
static int runner_failed(int code) {
        return code != 0 && code != 3;
}

/* After a run that exited 3: failed cells are reported per kernel; only
 * an interrupted run leaves cells for the next night. */
static void note_left(struct night *n, int64_t id, int code) {
        struct query_run *run = NULL;

        if (code != 3)
                return;
        if (query_run(n->db, id, &run, NULL) == 0 && strcmp(run->status, "interrupted") == 0)
                n->rep.incomplete = 1;
        query_runs_free(run, run ? 1 : 0);
}

/* ---- resume ----------------------------------------------------------- */

static int resume_one(struct night *n, int64_t id, struct kb_error *err) {
        g_autoptr(GPtrArray) kern = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) work = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        struct query_kernel *ks = NULL;
        struct run_settings o;
        const struct runner_drive drive = night_drive(n);
        size_t nk = 0;
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
        emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_RESUME, .run = id });
        code = n->ops->run(&o, &drive, &n->g, n->s, NULL, err);
        if (runner_failed(code))
                return error_prefix(err, -EIO, "resuming run %" G_GINT64_FORMAT, id);
        note_left(n, id, code);
        add_run(n, id);
        r = query_run_kernels(n->db, id, &ks, &nk, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < nk; i++) {
                g_autofree char *label = g_strconcat(o.variant ? o.variant : "", ks[i].name, NULL);
                add_subject(n, id, label, ks[i].name, ks[i].id);
        }
        query_kernels_free(ks, nk);
        return 0;
}

/* The night's runs that ended before their last cell (a deadline, a
 * signal, a killed kbench: we hold the lock, so a "running" one is dead)
 * are finished first, so their cells count as measured below. */
static int step_resume(struct night *n, struct kb_error *err) {
        g_autofree int64_t *ids = NULL;
        size_t nr = 0;
        int r = query_tag_runs(n->db, NIGHTLY_TAG, &ids, &nr, err);

        for (size_t i = 0; r >= 0 && i < nr; i++) {
                struct query_run *run = NULL;
                int resumable;

                r = query_run(n->db, ids[i], &run, err);
                if (r < 0)
                        break;
                resumable = strcmp(run->status, "interrupted") == 0 || strcmp(run->status, "running") == 0;
                query_runs_free(run, 1);
                if (!resumable)
                        continue;
                if (n->o->dry_run)
                        emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_WOULD_RESUME, .run = ids[i] });
                else
                        r = resume_one(n, ids[i], err);
        }
        return r;
}

/* ---- sources and imports ---------------------------------------------- */

static void add_error(struct night *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void add_error(struct night *n, const char *fmt, ...) {
        va_list ap;
        char *msg;

        va_start(ap, fmt);
        msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        g_ptr_array_add(n->errors, msg);
        emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_ERROR, .text = msg });
}

static int step_fetch(struct night *n, struct kb_error *err) {
        g_auto(GStrv) errors = NULL;
        /* A dry run imports nothing, so it need not watch a file for a
         * moment to see it has stopped growing: that pause, 0.2 s a dir
         * source under the store's lock, made 3 000 sources a 10-minute
         * dry run. Files still too young are left out as in a real night. */
        struct source_dir_opts dry_dir = SOURCE_DIR_OPTS_DEFAULT;
        const struct nightly_sources_opts dry = { .dir = &dry_dir };
        int r;

        dry_dir.probe_ms = 0;
        r = nightly_sources_collect(n->cfg, n->g.home, n->o->dry_run ? &dry : NULL, &n->found, &n->n_found, &errors,
                                    err);

        if (r < 0)
                return r;
        for (size_t i = 0; errors && errors[i]; i++)
                add_error(n, "%s", errors[i]);
        return 0;
}

/* Import one found file; a source's name prefix names its kernels apart
 * (prefix + release). OUT: *ret (kstore_kernel_free). */
static int import_one(struct night *n, const struct nightly_found *f, struct kstore_kernel **ret,
                      struct kb_error *err) {
        const struct nightly_source *src = &n->cfg->sources[f->source];
        struct kstore_kernel *k = NULL, *named = NULL;
        g_autofree char *name = NULL;
        int existed = 0, r;

        r = kstore_add(n->ks, f->path, NULL, &k, &existed, err);
        /* A variant's kernel is the image under its own name: its label
         * goes into the run's settings, not into the store. */
        if (r < 0 || !src->name || nightly_source_variant(src)) {
                if (r >= 0)
                        *ret = k;
                return r;
        }
        name = g_strconcat(src->name, k->release ? k->release : k->name, NULL);
        r = kstore_add(n->ks, f->path, name, &named, &existed, err);
        kstore_kernel_free(k);
        if (r >= 0)
                *ret = named;
        return r;
}

/* The runner options of a run of the night measuring variant v: the
 * configuration's run settings (set through the option table when the
 * file was read), the variant's overrides (likewise: each option it sets
 * apart from its default, nightly_override_opts), its label (a
 * source's name, checked by the variant option's rule), the workloads
 * (parsed as kbench run parses them), the night's tag and the store's
 * accelerator verdict. */
static void night_opts(const struct night *n, const struct nightly_variant *v, struct run_settings *o) {
        struct run_settings def;

        runopts_defaults(&def);
        *o = n->cfg->run;
        o->workloads = n->cfg->workloads;
        o->tag = NIGHTLY_TAG;
        o->accel = n->accel;
        for (const struct runopt *const *opt = nightly_override_opts(); v->overrides && *opt; opt++)
                if (!runopt_equal(*opt, v->overrides, &def))
                        runopt_copy(*opt, o, v->overrides);
        o->variant = v->label;
}

/* The fingerprint of workload w measured as variant v on the night's
 * host h (an index into n->hosts): from the very options the night's run
 * would be given. */
static char *fingerprint_for(const struct night *n, size_t w, const struct nightly_variant *v, guint h) {
        struct run_settings o;

        night_opts(n, v, &o);
        return nightly_fingerprint(&o, n->accel, n->cfg->workload_specs[w], n->hosts->pdata[h]);
}

/* How many ok cells the results hold for kernel_id measured as variant v,
 * on any of the night's hosts (a run spreads its cells over them), the
 * fewest over the workloads. */
static int count_measured(struct night *n, const char *kernel_id, const struct nightly_variant *v, size_t *ret,
                          struct kb_error *err) {
        size_t least = SIZE_MAX;

        for (size_t w = 0; n->cfg->workload_specs[w]; w++) {
                size_t ok = 0;

                for (guint h = 0; h < n->hosts->len; h++) {
                        g_autofree char *fp = fingerprint_for(n, w, v, h);
                        size_t on_host = 0;
                        int r = nightly_measured(n->db, kernel_id, fp, &on_host, err);

                        if (r < 0)
                                return r;
                        ok += on_host;
                }
                least = MIN(least, ok);
        }
        *ret = least == SIZE_MAX ? 0 : least;
        return 0;
}

static int add_candidate(struct night *n, const struct kstore_kernel *k, size_t source, int is_baseline,
                         struct kb_error *err) {
        struct nightly_candidate c = { .source = source, .is_baseline = is_baseline };
        struct nightly_variant v;
        int r;

        nightly_candidate_variant(n->cfg, &c, &v);
        c.name = g_strconcat(v.label ? v.label : "", k->name, NULL);
        c.store_name = g_strdup(k->name);
        c.kernel_id = g_strdup(k->id);
        g_ptr_array_add(n->keep, (char *)c.name);
        g_ptr_array_add(n->keep, (char *)c.store_name);
        g_ptr_array_add(n->keep, (char *)c.kernel_id);
        r = count_measured(n, c.kernel_id, &v, &c.n_ok, err);
        if (r < 0)
                return r;
        g_array_append_val(n->cands, c);
        return 0;
}

static int step_import(struct night *n, struct kb_error *err) {
        struct kstore_kernel *base = NULL;
        int r;

        n->found_cand = g_new(ssize_t, n->n_found + 1);
        /* The files first: the baseline may be among them. */
        for (size_t i = 0; i < n->n_found; i++) {
                const struct nightly_source *src = &n->cfg->sources[n->found[i].source];
                struct kstore_kernel *k = NULL;
                struct kb_error ierr = { { 0 } };

                n->found_cand[i] = -1;
                if (import_one(n, &n->found[i], &k, &ierr) < 0) {
                        add_error(n, "importing %s: %s", n->found[i].path, ierr.msg);
                        continue;
                }
                /* The baseline from a source without overrides is the store's baseline, below. */
                if (strcmp(k->name, n->cfg->baseline) != 0 || nightly_source_has_overrides(src)) {
                        r = add_candidate(n, k, n->found[i].source, 0, err);
                        if (r < 0) {
                                kstore_kernel_free(k);
                                return r;
                        }
                        n->found_cand[i] = (ssize_t)n->cands->len - 1;
                } else
                        n->found_cand[i] = SSIZE_MAX;   /* imported; measured as the baseline */
                kstore_kernel_free(k);
        }
        r = kstore_find(n->ks, n->cfg->baseline, &base, err);
        if (r < 0)
                return error_prefix(err, r, "%s: baseline '%s' is not in the store (import it with 'kbench kernel "
                                    "add' or put it in a source)", n->o->config_path, n->cfg->baseline);
        r = add_candidate(n, base, 0, 1, err);
        kstore_kernel_free(base);
        return r;
}

/* ---- plan --------------------------------------------------------------- */

/* A dry run's answer: the plan, for the caller to show. */
static int emit_plan(const struct night *n) {
        const struct nightly_plan_event p = { .plan = n->plan,
                                              .cands = (const struct nightly_candidate *)(void *)n->cands->data,
                                              .n_cands = n->cands->len, .cfg = n->cfg, .accel = n->accel };

        return emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_PLAN, .plan = &p });
}

/* ---- run ---------------------------------------------------------------- */

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
                emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_NOT_STARTED, .group = gi,
                                                 .n_groups = n->plan->n_groups,
                                                 .interrupted = n->ops->interrupted() });
                *ret_run = 0;
                return 0;
        }
        code = n->ops->run(&o, &drive, &n->g, n->s, &id, err);
        if (runner_failed(code))
                return error_prefix(err, -EIO, "run %zu of the night", gi + 1);
        emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_RUN_DONE, .group = gi, .n_groups = n->plan->n_groups,
                                         .run = id, .code = code });
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

static int step_run(struct night *n, struct kb_error *err) {
        g_autofree int64_t *group_run = g_new0(int64_t, n->plan->n_groups + 1);
        int r = 0;

        for (size_t gi = 0; gi < n->plan->n_groups && r >= 0; gi++)
                r = run_group(n, gi, &group_run[gi], err);
        if (r < 0)
                return r;
        return mark_found(n, group_run, err);
}

/* ---- detect: against the baseline ------------------------------------- */

static void add_finding(struct night *n, const struct subject *s, const struct compare_view *v,
                        const struct compare_metric *m) {
        char change[64], ci[64], mde[64];
        struct nightly_finding f = {
                .kernel = g_strdup(s->name), .baseline = g_strdup(n->cfg->baseline), .metric = g_strdup(m->name),
                .across = v->ignored && v->ignored[0] ? g_strjoinv(",", v->ignored) : NULL,
                .change = m->change, .p = m->ttest.p, .q = m->q, .na = m->na, .nb = m->nb, .verdict = m->verdict,
        };

        /* An amount reads as its difference ("+1.05 s"), as compare prints it. */
        if (m->info.floor > 0) {
                text_format_change(m, change, ci, mde, sizeof(change));
                f.change_text = g_strdup(change);
        }

        n->rep.findings = g_renew(struct nightly_finding, n->rep.findings, n->rep.n_findings + 1);
        n->rep.findings[n->rep.n_findings++] = f;
}

/* A stored run's settings (new reference), host and versions. OUT: *ret
 * (free with query_runs_free(*ret, 1)); NULL when the run is gone. */
static json_t *run_settings(struct night *n, int64_t run_id, struct query_run **ret) {
        struct kb_error err = { { 0 } };

        *ret = NULL;
        if (query_run(n->db, run_id, ret, &err) < 0)
                return NULL;
        return json_loads((*ret)->settings_json, 0, NULL);
}

#define CONFIG_DIFF_LINES 60           /* options the report lists of a config difference */

/* The versions of kernels a (the baseline) and b from the kernel store,
 * and how their configurations differ when the store has both. */
static void kernel_facts(struct night *n, const char *a, const char *b, struct nightly_regression *g) {
        struct kstore_kernel *ka = NULL, *kb = NULL;
        struct kb_error err = { { 0 } };
        g_autofree char *ca = NULL, *cb = NULL;

        if (kstore_find(n->ks, a, &ka, &err) < 0)
                ka = NULL;
        if (kstore_find(n->ks, b, &kb, &err) < 0)
                kb = NULL;
        g->version_a = g_strdup(ka ? ka->version : NULL);
        g->version_b = g_strdup(kb ? kb->version : NULL);
        ca = kconfig_read(ka ? ka->config_path : NULL);
        cb = kconfig_read(kb ? kb->config_path : NULL);
        if (ca && cb)
                g->config_diff = kconfig_diff(ca, cb, CONFIG_DIFF_LINES, NULL);
        kstore_kernel_free(ka);
        kstore_kernel_free(kb);
}

/* What a kernel developer needs to act on a comparison that found a metric
 * worse: which run each side came from, the host and versions it ran on,
 * the commands that measure both again in one run and compare them (with
 * the run's measured settings, so a variant keeps its overrides), the rows
 * as kbench compare prints them, and the site's page. */
static int add_regression(struct night *n, const struct subject *s, const struct compare_view *v) {
        struct nightly_regression g = { .kernel = g_strdup(s->name), .baseline = g_strdup(n->cfg->baseline),
                                        .sel_a = g_strdup(v->sel_a), .sel_b = g_strdup(v->sel_b),
                                        .desc_a = g_strdup(v->desc_a), .desc_b = g_strdup(v->desc_b),
                                        .together = v->n_groups && v->groups[0].a.n_runs == 1 &&
                                                    v->groups[0].b.n_runs == 1 &&
                                                    v->groups[0].a.runs[0] == v->groups[0].b.runs[0] };
        struct query_run *rb = NULL;
        json_t *sb = run_settings(n, s->run, &rb);
        char *rows = NULL;
        size_t len = 0;
        FILE *f;

        if (rb) {
                json_t *info = rb->host_info_json ? json_loads(rb->host_info_json, 0, NULL) : NULL;
                json_int_t mem = json_integer_value(json_object_get(info, "mem_kb"));

                g.host = g_strdup(rb->host);
                g.qemu = g_strdup(rb->qemu_version);
                g.libvirt = g_strdup(rb->libvirt_version);
                g.cpu_model = g_strdup(json_string_value(json_object_get(info, "cpu")));
                g.mem_kib = mem > 0 ? (uint64_t)mem : 0;
                json_decref(info);
        }
        g.accel = g_strdup(n->accel);
        kernel_facts(n, n->cfg->baseline, s->store_name, &g);
        g.reproduce = sb ? nightly_reproduce(sb, n->cfg->baseline, s->store_name, s->run, n->cfg->alpha,
                                             n->cfg->noise)
                         : g_new0(char *, 1);
        json_decref(sb);
        query_runs_free(rb, rb ? 1 : 0);
        f = open_memstream(&rows, &len);
        if (!f) {
                g.rows = NULL;
        } else {
                textcompare_print(v, &(struct textcompare_opts){ .width = TEXTCOMPARE_WIDTH }, f);
                fclose(f);
                g.rows = g_strdup(rows);
                free(rows);
        }
        if (n->cfg->base_url && n->cfg->publish_dir) {
                g_autofree char *page = page_compare_file(v->sel_a, v->sel_b);
                size_t bl = strlen(n->cfg->base_url);

                g.link = g_strdup_printf("%s%s%s", n->cfg->base_url,
                                         bl && n->cfg->base_url[bl - 1] == '/' ? "" : "/", page);
        }
        n->rep.regressions = g_renew(struct nightly_regression, n->rep.regressions, n->rep.n_regressions + 1);
        n->rep.regressions[n->rep.n_regressions++] = g;
        return 0;
}

/* The night and what it compared go into the store (results/nights.h), so
 * the site can follow each regression from night to night; the verdicts
 * are loaded again from the cells there. Not being able to record it is
 * reported, not fatal: the night's report stands. */
static void record_night(struct night *n) {
        size_t nc = n->night_compares->len / 3;
        g_autofree struct db_night_compare *c = g_new0(struct db_night_compare, nc + 1);
        struct db_night row = { .started_at = n->started_at, .baseline = n->cfg->baseline, .alpha = n->cfg->alpha,
                                .noise = n->cfg->noise };
        struct kb_error err = { { 0 } };

        for (size_t i = 0; i < nc; i++)
                c[i] = (struct db_night_compare){ n->night_compares->pdata[3 * i], n->night_compares->pdata[3 * i + 1],
                                                  n->night_compares->pdata[3 * i + 2] };
        if (db_night_add(n->db, &row, c, nc, &err) < 0)
                add_error(n, "the night's comparisons are not recorded for the site: %s", err.msg);
}

/* ---- mail threads: a regression's messages across nights --------------- */

/* The mail threads of subject's regressions before tonight
 * (nightly_mail_threads), from the comparisons the store recorded,
 * loaded again from the cells as the site loads them. A night that
 * cannot be loaded again says nothing, as on the site. */
static GHashTable *open_threads(struct night *n, const char *subject) {
        GArray *past = g_array_new(FALSE, TRUE, sizeof(struct nightly_past));
        struct night_row *nights = NULL;
        struct kb_error err = { { 0 } };
        size_t nn = 0, np;
        struct nightly_past *p;
        GHashTable *threads;

        if (db_nights_list(n->db, &nights, &nn, &err) < 0)
                nn = 0;
        for (size_t i = 0; i < nn; i++) {
                const struct night_row *nr = &nights[i];

                if (nr->started_at == n->started_at)
                        continue;        /* tonight, recorded already */
                for (size_t c = 0; c < nr->n_compares; c++) {
                        const struct night_compare_row *cr = &nr->compares[c];
                        struct compare_options o = { .a = cr->sel_a, .b = cr->sel_b, .alpha = nr->alpha,
                                                     .noise = nr->noise };
                        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
                        struct compare_view *v = NULL;
                        struct nightly_past one;

                        if (g_strcmp0(cr->subject, subject) != 0 || !cr->sel_a || !cr->sel_b || !nr->baseline)
                                continue;
                        g_ptr_array_add(ignored, NULL);
                        if (pairing_compare_load(n->db, &o, ignored, &v, &err) < 0)
                                continue;
                        one = (struct nightly_past){ nr->started_at, g_strdup(nr->baseline), nightly_thread_inputs(v) };
                        compare_view_free(v);
                        g_array_append_val(past, one);
                }
        }
        night_rows_free(nights, nn);
        np = past->len;
        p = (struct nightly_past *)(void *)g_array_free(past, FALSE);
        threads = nightly_mail_threads(subject, p, np, g_get_host_name());
        nightly_past_free(p, np);
        return threads;
}

/* The regressions of s that earlier nights reported and tonight's
 * comparison v no longer finds: their threads end tonight. */
static void add_fixed(struct night *n, const struct subject *s, const struct compare_view *v) {
        g_autoptr(GHashTable) threads = open_threads(n, s->name);
        g_autoptr(GHashTable) in = nightly_thread_inputs(v);
        GHashTableIter it;
        gpointer key, val;

        g_hash_table_iter_init(&it, threads);
        while (g_hash_table_iter_next(&it, &key, &val)) {
                struct nightly_fixed f;

                if (GPOINTER_TO_INT(g_hash_table_lookup(in, key)) != REGSTATE_CLEAR ||
                    !((const struct nightly_thread *)val)->open)
                        continue;
                f = (struct nightly_fixed){ g_strdup(s->name), g_strdup(n->cfg->baseline), g_strdup(key),
                                            g_strdup(v->sel_a), g_strdup(v->sel_b), nightly_thread_ids(val) };
                n->rep.fixed = g_renew(struct nightly_fixed, n->rep.fixed, n->rep.n_fixed + 1);
                n->rep.fixed[n->rep.n_fixed++] = f;
        }
}

/* A kernel measured tonight against the baseline measured beside it, in
 * its run: a verdict from cells measured together, interleaved. A run
 * without the baseline's cells (one an older kbench started, resumed
 * tonight) gives no verdict: the error says so. */
static int compare_subject(struct night *n, const struct subject *s, GPtrArray *compared, struct kb_error *err) {
        g_autofree char *a = g_strdup_printf("run:%" G_GINT64_FORMAT ":%s", s->run, n->cfg->baseline);
        g_autofree char *b = g_strdup_printf("run:%" G_GINT64_FORMAT ":%s", s->run, s->store_name);
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        struct compare_options o = { .a = a, .b = b, .alpha = n->cfg->alpha, .noise = n->cfg->noise };
        struct compare_view *v = NULL;
        int r;

        g_ptr_array_add(ignored, NULL);
        r = pairing_compare_load(n->db, &o, ignored, &v, err);
        if (r == -ENOENT) {
                add_error(n, "%s: run %" G_GINT64_FORMAT " holds no ok cell of the baseline %s, so no verdict (a "
                          "night compares cells measured together): %s", s->name, s->run, n->cfg->baseline, err->msg);
                *err = (struct kb_error){ { 0 } };
                return 0;
        }
        if (r < 0)
                return r;
        /* A regression's rows say where its kernel instructions went. */
        if (v->worse && explain_load(n->db, v, &(struct explain_options){ 0 }, err) < 0)
                add_error(n, "%s: where its change went is not known: %s", s->name, err->msg);
        g_ptr_array_add(compared, g_strdup_printf("%s %s", a, b));
        g_ptr_array_add(n->night_compares, g_strdup(s->name));
        g_ptr_array_add(n->night_compares, g_strdup(a));
        g_ptr_array_add(n->night_compares, g_strdup(b));
        if (v->worse)
                r = add_regression(n, s, v);
        add_fixed(n, s, v);
        if (r < 0) {
                compare_view_free(v);
                return error_setf(err, r, "nightly: out of memory");
        }
        for (size_t gi = 0; gi < v->n_groups; gi++)
                for (size_t i = 0; i < v->groups[gi].n_m; i++) {
                        const struct compare_metric *m = &v->groups[gi].m[i];
                        if (m->verdict == COMPARE_WORSE || m->verdict == COMPARE_BETTER)
                                add_finding(n, s, v, m);
                }
        if (v->n_groups == 0)
                add_error(n, "%s: nothing pairs with the baseline's cells in run %" G_GINT64_FORMAT, s->name, s->run);
        /* A kernel's own failed cells are failures_of's; a baseline
         * without one ok cell leaves the kernel unjudged, which must not
         * read as "no regression". */
        for (size_t gi = 0; gi < v->n_groups; gi++)
                if (v->groups[gi].failed == COMPARE_FAILED_NO_OK_A)
                        add_error(n, "%s: %s: the baseline has no ok cell in run %" G_GINT64_FORMAT
                                  " (%zu failed: %s), nothing judged", s->name, v->groups[gi].spec, s->run,
                                  v->groups[gi].a.failed,
                                  v->groups[gi].a.failed_states ? v->groups[gi].a.failed_states : "");
        compare_view_free(v);
        return 0;
}

/* The failed cells of a subject, by the latest attempt of each cell. */
static int failures_of(struct night *n, const struct subject *s, struct kb_error *err) {
        struct query_cell *cells = NULL;
        struct nightly_failure f = { 0 };
        const struct query_cell *first = NULL;
        size_t nc = 0;
        int r = query_cells(n->db, s->run, &cells, &nc, err);

        if (r < 0)
                return r;
        for (size_t i = 0; i < nc; i++) {
                const struct query_cell *c = &cells[i];
                int latest = 1;

                if (strcmp(c->kernel_id, s->kernel_id) != 0)
                        continue;
                for (size_t j = 0; j < nc; j++)
                        if (strcmp(cells[j].cell_key, c->cell_key) == 0 && cells[j].attempt > c->attempt)
                                latest = 0;
                if (!latest)
                        continue;
                f.total++;
                if (strcmp(c->state, CELL_OK) == 0)
                        continue;
                f.failed++;
                if (!first)
                        first = c;
        }
        if (first) {
                f.kernel = g_strdup(s->name);
                f.state = g_strdup(first->state);
                f.detail = g_strdup(first->detail);
                f.stage = g_strdup(isnan(first->boot_s) ? "boot" : isnan(first->workload_s) ? "workload" : "end");
                n->rep.failures = g_renew(struct nightly_failure, n->rep.failures, n->rep.n_failures + 1);
                n->rep.failures[n->rep.n_failures++] = f;
        }
        query_cells_free(cells, nc);
        return 0;
}

static int step_compare(struct night *n, struct kb_error *err) {
        g_autoptr(GPtrArray) compared = g_ptr_array_new_with_free_func(g_free);
        const struct nightly_candidate *c = (const struct nightly_candidate *)(void *)n->cands->data;
        const char *base_id = NULL;
        int r = 0;

        for (guint k = 0; k < n->cands->len; k++)
                if (c[k].is_baseline)
                        base_id = c[k].kernel_id;
        for (guint i = 0; r >= 0 && i < n->subjects->len; i++) {
                const struct subject *s = &g_array_index(n->subjects, struct subject, i);

                /* The baseline measured beside a variant's kernels is the
                 * other side of their comparison, not a subject. */
                if (base_id && strcmp(s->kernel_id, base_id) == 0)
                        continue;
                r = failures_of(n, s, err);
                if (r >= 0)
                        r = compare_subject(n, s, compared, err);
        }
        if (r >= 0)
                record_night(n);
        g_ptr_array_add(compared, NULL);
        n->rep.compared = (char **)g_ptr_array_free(g_steal_pointer(&compared), FALSE);
        return r;
}

/* ---- bisect: tonight's regression between two kernels of a source ------ */

/* A subject's variant label: what its reported name adds to the store's. */
static char *subject_label(const struct subject *s) {
        size_t ln = strlen(s->name), ls = strlen(s->store_name);

        return ln > ls && strcmp(s->name + ln - ls, s->store_name) == 0 ? g_strndup(s->name, ln - ls) : NULL;
}

/* Bisect s's regression in the first source that yielded s's kernel at
 * s's settings. */
static int bisect_subject(struct night *n, const struct subject *s, struct kb_error *err) {
        struct nightly_bisection *b = g_new0(struct nightly_bisection, 1);
        g_autofree char *label = subject_label(s);
        struct query_kernel *base = NULL;
        int r = query_kernel_by_name(n->db, n->cfg->baseline, &base, err);

        b->kernel = g_strdup(s->name);
        b->metric = g_strdup(n->cfg->bisect.metric);
        b->confirmed = -1;
        n->rep.bisection = b;
        for (size_t si = 0; r == 0 && si < n->cfg->n_sources; si++) {
                struct nightly_candidate c = { .source = si };
                struct nightly_variant v;
                struct run_settings o;
                struct nightly_bisect_in in;

                nightly_candidate_variant(n->cfg, &c, &v);
                if (g_strcmp0(v.label, label) != 0)
                        continue;
                night_opts(n, &v, &o);
                in = (struct nightly_bisect_in){ .cfg = n->cfg, .g = &n->g, .s = n->s, .ops = n->ops,
                                                 .sink = n->o->sink, .run_events = n->o->run_events,
                                                 .hosts = n->o->hosts, .baseline_id = base->id,
                                                 .source = si, .label = v.label, .kernel_id = s->kernel_id,
                                                 .run = &o, .deadline_at = n->deadline_at };
                r = nightly_bisect_source(&in, b, err);
        }
        query_kernels_free(base, base ? 1 : 0);
        if (r == 0)
                b->why = g_strdup("no source's history holds it (kernels imported before histories were kept "
                                  "are not listed)");
        return r < 0 ? r : 0;
}

/* The steps of bisection b made, one line each, for the mail: what each
 * measured and what it decided. */
static void bisection_steps(struct night *n, struct nightly_bisection *b) {
        struct bisect_row *row = NULL;
        struct kb_error err = { { 0 } };
        GPtrArray *lines;

        if (!b->id || db_bisection_get(n->db, b->id, &row, &err) < 0)
                return;
        lines = g_ptr_array_new();
        for (size_t i = 0; i < row->n_steps; i++) {
                const struct bisect_step_row *st = &row->steps[i];

                g_ptr_array_add(lines, g_strdup_printf("step %d, %s %s: %s (%d rounds)%s%s", st->step,
                                                       st->role ? st->role : "?", st->candidate ? st->candidate : "?",
                                                       st->decision ? st->decision : "?", st->rounds,
                                                       st->note ? "; " : "", st->note ? st->note : ""));
        }
        g_ptr_array_add(lines, NULL);
        b->steps = (char **)g_ptr_array_free(lines, FALSE);
        bisect_rows_free(row, 1);
}

/* One bisection a night, of the first kernel whose comparison found the
 * configured metric worse: each costs rounds of cells the night may not
 * have. */
static int step_bisect(struct night *n, struct kb_error *err) {
        if (!n->cfg->bisect.metric)
                return 0;
        for (guint i = 0; i < n->subjects->len; i++) {
                const struct subject *s = &g_array_index(n->subjects, struct subject, i);

                for (size_t k = 0; k < n->rep.n_findings; k++) {
                        const struct nightly_finding *f = &n->rep.findings[k];

                        if (f->verdict == COMPARE_WORSE && strcmp(f->kernel, s->name) == 0 &&
                            strcmp(f->metric, n->cfg->bisect.metric) == 0) {
                                int r = bisect_subject(n, s, err);

                                bisection_steps(n, n->rep.bisection);
                                return r;
                        }
                }
        }
        return 0;
}

/* ---- detect: change points over history ------------------------------- */

struct point {
        double v;
        int64_t run;
        char *kernel;                      /* borrowed from the points' owner */
};

/* Add the means of the judged metrics of one (run, kernel) selection's ok
 * cells measured with fingerprint fp to series (metric -> GArray of points). */
static void add_points(const struct query_selection *sel, const char *fp, GHashTable *series, GPtrArray *names) {
        g_autoptr(GHashTable) sums = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        GHashTableIter it;
        gpointer key, val;

        for (size_t i = 0; i < sel->n_cells; i++) {
                g_autofree char *cfp = NULL;
                if (strcmp(sel->cells[i].state, CELL_OK) != 0 ||
                    nightly_fingerprint_stored(sel->settings_json, sel->cells[i].params_json, &cfp, NULL) < 0 ||
                    strcmp(cfp, fp) != 0)
                        continue;
                for (size_t k = 0; k < sel->cells[i].n_metrics; k++) {
                        const struct query_metric *m = &sel->cells[i].metrics[k];
                        double *acc;
                        if (!m->has_value || !metrics_verdict(m->name))
                                continue;
                        acc = g_hash_table_lookup(sums, m->name);
                        if (!acc) {
                                acc = g_new0(double, 2);
                                g_hash_table_insert(sums, m->name, acc);
                        }
                        acc[0] += m->value;
                        acc[1] += 1;
                }
        }
        g_hash_table_iter_init(&it, sums);
        while (g_hash_table_iter_next(&it, &key, &val)) {
                const double *acc = val;
                GArray *pts = g_hash_table_lookup(series, key);
                struct point p = { acc[0] / acc[1], sel->run_id, NULL };

                if (!pts) {
                        char *name = g_strdup(key);
                        g_ptr_array_add(names, name);
                        pts = g_array_new(FALSE, FALSE, sizeof(struct point));
                        g_hash_table_insert(series, name, pts);
                }
                p.kernel = g_strdup(sel->kernel_name ? sel->kernel_name : sel->kernel_id);
                g_array_append_val(pts, p);
        }
}

static void free_points(gpointer p) {
        GArray *a = p;

        for (guint i = 0; i < a->len; i++)
                g_free(g_array_index(a, struct point, i).kernel);
        g_array_free(a, TRUE);
}

/* Enough permutations that the configured p-value can be reached at all
 * (the smallest p of R permutations is 1 / (R + 1)). */
static struct changepoint_params cp_params(const struct nightly_config *cfg) {
        struct changepoint_params p = CHANGEPOINT_PARAMS_DEFAULT;
        double want = ceil(2.0 / cfg->cp_p_value) - 1;

        p.p_threshold = cfg->cp_p_value;
        p.min_rel_change = cfg->cp_min_magnitude;
        p.window = MIN((size_t)cfg->cp_window, 1024);
        p.min_size = MIN((size_t)3, p.window / 2);
        p.permutations = (size_t)MIN(100000, MAX(199, want));
        p.confirm = (size_t)cfg->cp_confirm;
        return p;
}

/* A history's power at a change point: the step between the points
 * before it and those after that Welch's test would show with 80 % power
 * at the detector's p-value, as a fraction of the level before. Each
 * point is one run's mean, so its scatter is the runs' offsets as much as
 * the cells'. */
static double history_mde(const double *v, size_t len, size_t at, double p_value) {
        struct stats_summary before, after;

        stats_summarize(v, at, &before);
        stats_summarize(v + at, len - at, &after);
        return stats_mde(&before, &after, p_value, 0.8);
}

static void detect_series(struct night *n, const char *workload, const char *metric, GArray *pts) {
        struct changepoint_params p = cp_params(n->cfg);
        size_t off = pts->len > p.window ? pts->len - p.window : 0, len = pts->len - off, count = 0;
        g_autofree double *v = g_new(double, len + 1);
        struct changepoint *cps = NULL;

        size_t len_before = 0;

        for (size_t i = 0; i < len; i++) {
                v[i] = g_array_index(pts, struct point, off + i).v;
                len_before += !is_tonight(n, g_array_index(pts, struct point, off + i).run);
        }
        if (len < 2 * p.min_size || changepoint_detect(v, len, &p, &cps, &count) < 0)
                return;
        for (size_t i = 0; i < count; i++) {
                const struct point *at = &g_array_index(pts, struct point, off + cps[i].index);
                const struct point *before = &g_array_index(pts, struct point, off + cps[i].index - 1);
                struct nightly_change c;

                if (!nightly_change_is_news(cps[i].index, len_before, cps[i].provisional, p.min_size, p.confirm))
                        continue;
                c = (struct nightly_change){
                        .metric = g_strdup(metric), .workload = g_strdup(workload), .kernel = g_strdup(at->kernel),
                        .before = g_strdup(before->kernel), .run = at->run, .rel_change = cps[i].rel_change,
                        .p = cps[i].p, .provisional = cps[i].provisional,
                        .worse = metrics_direction(metric) * cps[i].rel_change < 0,
                        .mde = history_mde(v, len, cps[i].index, p.p_threshold),
                };
                n->rep.changes = g_renew(struct nightly_change, n->rep.changes, n->rep.n_changes + 1);
                n->rep.changes[n->rep.n_changes++] = c;
        }
        free(cps);
}

/* One workload's history as one variant (the base settings, or a
 * source's overrides) on the night's host h: every (run, kernel) with ok
 * cells of that fingerprint is a point, in run order; a variant's points
 * are named with its label (results/query.c). Each host is its own
 * history, as each is its own comparison. */
static int history_of(struct night *n, size_t w, const struct nightly_variant *v, guint h,
                      const struct query_run *runs, size_t nr, struct kb_error *err) {
        g_autofree char *fp = fingerprint_for(n, w, v, h);
        g_autoptr(GHashTable) series = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_points);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        int r = 0;

        for (size_t i = 0; i < nr && r >= 0; i++) {
                struct query_kernel *ks = NULL;
                size_t nk = 0;

                /* A bisection measures older kernels after newer ones: not history. */
                if (runs[i].tag && g_str_has_prefix(runs[i].tag, BISECT_TAG_PREFIX))
                        continue;
                r = query_run_kernels(n->db, runs[i].id, &ks, &nk, err);
                for (size_t k = 0; r >= 0 && k < nk; k++) {
                        struct query_selection *sel = NULL;
                        r = query_selection(n->db, runs[i].id, ks[k].id, NULL, &sel, err);
                        if (r >= 0)
                                add_points(sel, fp, series, names);
                        query_selection_free(sel);
                }
                query_kernels_free(ks, nk);
        }
        for (guint i = 0; r >= 0 && i < names->len; i++)
                detect_series(n, n->cfg->workload_specs[w], names->pdata[i],
                              g_hash_table_lookup(series, names->pdata[i]));
        return r;
}

static int step_changepoints(struct night *n, struct kb_error *err) {
        g_autoptr(GArray) variants = g_array_new(FALSE, TRUE, sizeof(struct nightly_variant));
        const struct nightly_variant base = { 0 };
        struct query_run *runs = NULL;
        size_t nr = 0;
        int r;

        if (n->runs->len == 0)
                return 0;
        /* The base settings first, then each source's variant once. */
        g_array_append_val(variants, base);
        for (size_t si = 0; si < n->cfg->n_sources; si++) {
                struct nightly_candidate c = { .source = si };
                struct nightly_variant v;
                int seen = 0;

                nightly_candidate_variant(n->cfg, &c, &v);
                for (guint i = 0; i < variants->len && !seen; i++)
                        seen = nightly_variant_equal(&g_array_index(variants, struct nightly_variant, i), &v);
                if (!seen)
                        g_array_append_val(variants, v);
        }
        r = query_runs(n->db, &runs, &nr, err);
        for (size_t w = 0; r >= 0 && n->cfg->workload_specs[w]; w++)
                for (guint i = 0; r >= 0 && i < variants->len; i++)
                        for (guint h = 0; r >= 0 && h < n->hosts->len; h++)
                                r = history_of(n, w, &g_array_index(variants, struct nightly_variant, i), h, runs,
                                               nr, err);
        query_runs_free(runs, nr);
        return r;
}

/* ---- report, notify, publish ------------------------------------------ */

static int step_publish(struct night *n, struct kb_error *err) {
        struct site_options opt = { .dir = n->cfg->publish_dir };
        struct site_result res = { 0 };
        g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func(g_free);
        int r;

        if (!n->cfg->publish_dir)
                return 0;
        /* Tonight's comparisons get their pages, which the regression
         * report links (base_url). */
        for (size_t i = 0; n->rep.compared && n->rep.compared[i]; i++) {
                g_autofree char *pair = g_strdup(n->rep.compared[i]);
                char *sp = strchr(pair, ' ');

                if (sp) {
                        *sp = ':';
                        g_ptr_array_add(pairs, g_steal_pointer(&pair));
                }
        }
        opt.compares = (const char **)pairs->pdata;
        opt.n_compares = pairs->len;
        opt.with_defaults = 1;
        r = site_publish(n->db, &opt, &res, err);
        if (r < 0)
                return error_prefix(err, r, "publishing into %s", n->cfg->publish_dir);
        n->rep.site = g_build_filename(n->cfg->publish_dir, "index.html", NULL);
        return 0;
}

/* The notify command did not take a message: said, not fatal. */
static void notify_failed(struct night *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void notify_failed(struct night *n, const char *fmt, ...) {
        g_autofree char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_NOTIFY_FAILED, .text = msg });
}

/* One message to the notify command (sh -c) on its stdin: the night's
 * report (fixed NULL) or the end of a fixed regression's thread. Its
 * failure is said, not fatal: the report event came before. The sink
 * rendered that report and flushed it, so the command's own output follows
 * it. */
static void notify_send(struct night *n, const struct nightly_fixed *fixed, const struct nightly_mail *m) {
        FILE *p;
        int status;

        p = popen(n->cfg->notify, "w");
        if (!p) {
                notify_failed(n, "notify: %s", g_strerror(errno));
                return;
        }
        if (fixed)
                nightly_report_notify_fixed(fixed, m, p);
        else
                nightly_report_notify(&n->rep, m, p);
        status = pclose(p);
        if (status != 0)
                notify_failed(n, "notify command exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Mail the report when something regressed, in the thread of the worst
 * regression (a reply to its earlier nights' messages), and one message
 * for each regression of earlier nights that is fixed tonight. */
static void step_notify(struct night *n) {
        const struct nightly_finding *worst = nightly_report_worst(&n->rep);
        struct nightly_mail m = { .from = n->cfg->mail_from, .to = n->cfg->mail_to, .date = n->started_at,
                                  .domain = g_get_host_name() };

        if (!n->cfg->notify)
                return;
        if (nightly_report_exit(&n->rep) == NIGHTLY_EXIT_REGRESSED) {
                g_autofree char *id = NULL;

                if (worst) {
                        g_autoptr(GHashTable) threads = open_threads(n, worst->kernel);

                        n->rep.thread = nightly_thread_ids(g_hash_table_lookup(threads, worst->metric));
                        id = nightly_mail_id(worst->kernel, worst->baseline, worst->metric, n->started_at, m.domain);
                } else {
                        g_autofree char *what = g_strdup_printf("failed at %s", n->rep.failures[0].stage);

                        id = nightly_mail_id(n->rep.failures[0].kernel, n->cfg->baseline, what, n->started_at,
                                             m.domain);
                }
                m.message_id = id;
                notify_send(n, NULL, &m);
        }
        for (size_t i = 0; i < n->rep.n_fixed; i++) {
                const struct nightly_fixed *f = &n->rep.fixed[i];
                g_autofree char *id = nightly_mail_id(f->kernel, f->baseline, f->metric, n->started_at, m.domain);

                m.message_id = id;
                notify_send(n, f, &m);
        }
}

static int step_report(struct night *n, struct kb_error *err) {
        int r;

        g_ptr_array_add(n->measured, NULL);
        n->rep.measured = g_strdupv((char **)n->measured->pdata);
        g_ptr_array_remove_index(n->measured, n->measured->len - 1);
        g_ptr_array_add(n->errors, NULL);
        n->rep.errors = g_strdupv((char **)n->errors->pdata);
        g_ptr_array_remove_index(n->errors, n->errors->len - 1);
        r = emit(n, &(struct nightly_event){ .kind = NIGHTLY_EVENT_REPORT, .report = &n->rep });
        if (r < 0)
                return error_setf(err, r, "nightly: cannot write the report");
        return 0;
}

static void night_free(struct night *n) {
        for (guint i = 0; n->subjects && i < n->subjects->len; i++) {
                g_free(g_array_index(n->subjects, struct subject, i).name);
                g_free(g_array_index(n->subjects, struct subject, i).store_name);
                g_free(g_array_index(n->subjects, struct subject, i).kernel_id);
        }
        if (n->subjects)
                g_array_free(n->subjects, TRUE);
        if (n->runs)
                g_array_free(n->runs, TRUE);
        if (n->cands)
                g_array_free(n->cands, TRUE);
        if (n->keep)
                g_ptr_array_unref(n->keep);
        if (n->errors)
                g_ptr_array_unref(n->errors);
        if (n->measured)
                g_ptr_array_unref(n->measured);
        if (n->hosts)
                g_ptr_array_unref(n->hosts);
        if (n->night_compares)
                g_ptr_array_unref(n->night_compares);
        nightly_plan_free(n->plan);
        nightly_found_free(n->found, n->n_found);
        g_free(n->found_cand);
        nightly_config_free(n->cfg);
        nightly_report_clear(&n->rep);
        g_free(n->g.connect);
}

int nightly_run(const struct nightly_opts *o, const struct store_ctx *g, struct store_session *s,
                struct kb_error *err) {
        struct night n = { .o = o, .ops = nightly_ops_or_real(o->ops), .g = *g, .s = s };
        int r, code = 1;

        n.g.connect = g_strdup(g->connect);
        n.subjects = g_array_new(FALSE, TRUE, sizeof(struct subject));
        n.runs = g_array_new(FALSE, TRUE, sizeof(int64_t));
        n.cands = g_array_new(FALSE, TRUE, sizeof(struct nightly_candidate));
        n.keep = g_ptr_array_new_with_free_func(g_free);
        n.errors = g_ptr_array_new_with_free_func(g_free);
        n.measured = g_ptr_array_new_with_free_func(g_free);
        n.hosts = g_ptr_array_new_with_free_func(g_free);
        n.night_compares = g_ptr_array_new_with_free_func(g_free);

        /* The configuration is the user's input: its errors are usage
         * errors (exit 2), found before the store is touched. */
        r = step_config(&n, err);
        if (r < 0) {
                code = 2;
                goto out;
        }
        r = store_session_open(s, STORE_PART_STORE | STORE_PART_DB, err);
        n.db = s->db;
        n.ks = s->ks;
        if (r >= 0)
                r = step_resume(&n, err);
        if (r >= 0)
                r = step_fetch(&n, err);
        if (r >= 0)
                r = step_import(&n, err);
        if (r < 0)
                goto out;
        nightly_plan_build(n.cfg, (const struct nightly_candidate *)(void *)n.cands->data, n.cands->len, &n.plan);
        if (o->dry_run) {
                /* As a real night's: a source or an import that failed is
                 * exit 1 (the plan then lacks its kernels). */
                code = emit_plan(&n) == 0 && n.errors->len == 0 ? 0 : 1;
                goto out;
        }
        r = step_run(&n, err);
        if (r >= 0)
                r = step_compare(&n, err);
        if (r >= 0)
                r = step_bisect(&n, err);
        if (r >= 0)
                r = step_changepoints(&n, err);
        if (r >= 0)
                r = step_publish(&n, err);
        if (r >= 0)
                r = step_report(&n, err);
        if (r < 0)
                goto out;
        step_notify(&n);
        code = nightly_report_exit(&n.rep);
out:
        night_free(&n);
        return code;
}
