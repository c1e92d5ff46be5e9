/* nightly/nightly.c: one night in order (see nightly.h): read the
 * configuration, open the caller's session, then the steps of each
 * stage, each a room of its own over struct night (night_int.h): resume
 * and fetch and import (night_measure.c, night_import.c), plan, run
 * (night_measure.c), compare, bisect and look for change points
 * (night_detect.c), publish, report and notify (night_notify.c). What the
 * night has to say goes to its sink as events (common/event.h); what it
 * measures goes through its ops (nightly_ops.h). */
#include <errno.h>
#include <glib.h>

#include "common/error.h"
#include "host/accel.h"
#include "nightly/night_int.h"
#include "nightly/nightly.h"
#include "nightly/nightly_bisect.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_report.h"
#include "nightly/nightly_sources.h"
#include "run/hosts.h"

static int step_config(struct night *n, struct kb_error *err) {
        int r = nightly_config_load(n->o->config_path, &n->cfg, err);

        if (r < 0)
                return r;
        r = nightly_bisect_check(n->cfg, err);
        if (r < 0)
                return error_prefix(err, r, "%s", n->o->config_path);
        /* until_mde and its budgets were checked with the other judging
         * options as the file was read (decide/judgeopts.h). */
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

/* What the night holds; its arrays may be NULL. */
static void night_free(struct night *n) {
        g_clear_pointer(&n->subjects, g_array_unref);
        g_clear_pointer(&n->runs, g_array_unref);
        g_clear_pointer(&n->cands, g_array_unref);
        g_clear_pointer(&n->keep, g_ptr_array_unref);
        g_clear_pointer(&n->errors, g_ptr_array_unref);
        g_clear_pointer(&n->measured, g_ptr_array_unref);
        g_clear_pointer(&n->hosts, g_ptr_array_unref);
        g_clear_pointer(&n->night_compares, g_ptr_array_unref);
        nightly_plan_free(n->plan);
        nightly_found_free(n->found, n->n_found);
        g_free(n->found_cand);
        nightly_config_free(n->cfg);
        nightly_report_clear(&n->rep);
        g_free(n->g.connect);
}

/* The night's order: what it has before it plans, and after (a dry run
 * stops at the plan); the first step to fail ends the night. */
static int (*const before_plan[])(struct night *, struct kb_error *) = {
        night_step_resume, night_step_fetch, night_step_import,
};
static int (*const after_plan[])(struct night *, struct kb_error *) = {
        night_step_run, night_step_compare, night_step_bisect, night_step_changepoints, night_step_publish,
        night_step_report,
};

int nightly_run(const struct nightly_opts *o, const struct store_ctx *g, struct store_session *s,
                struct kb_error *err) {
        struct night n = { .o = o, .ops = nightly_ops_or_real(o->ops), .g = *g, .s = s };
        int r, code = 1;

        n.g.connect = g_strdup(g->connect);
        n.subjects = g_array_new(FALSE, TRUE, sizeof(struct subject));
        g_array_set_clear_func(n.subjects, night_subject_clear);
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
        for (size_t i = 0; r >= 0 && i < G_N_ELEMENTS(before_plan); i++)
                r = before_plan[i](&n, err);
        if (r < 0)
                goto out;
        nightly_plan_build(n.cfg, (const struct nightly_candidate *)(void *)n.cands->data, n.cands->len, &n.plan);
        if (o->dry_run) {
                /* As a real night's: a source or an import that failed is
                 * exit 1 (the plan then lacks its kernels). */
                code = night_emit_plan(&n) == 0 && n.errors->len == 0 ? 0 : 1;
                goto out;
        }
        for (size_t i = 0; r >= 0 && i < G_N_ELEMENTS(after_plan); i++)
                r = after_plan[i](&n, err);
        if (r < 0)
                goto out;
        night_step_notify(&n);
        code = nightly_report_exit(&n.rep);
out:
        night_free(&n);
        return code;
}
