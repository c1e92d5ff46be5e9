/* bisect/bisect.c: the search (see bisect.h). One function per step of it;
 * bisect_run calls them in order. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "bisect/bisect.h"
#include "common/util.h"
#include "kernels/build.h"
#include "kernels/kstore.h"
#include "decide/bisectrule.h"
#include "decide/pairing.h"
#include "report/explain.h"
#include "report/json.h"
#include "report/textbisect.h"
#include "report/textcompare.h"
#include "report/metrics.h"
#include "results/bisect.h"
#include "results/cellstate.h"
#include "results/query.h"

/* A candidate's own state: built (kernel set) or not buildable. What the
 * search decided of it is decide/bisectrule.c's. */
enum cand_state { CAND_UNTESTED, CAND_SKIPPED };

struct cand {
        char *label;               /* kernel name, or full commit id */
        char *kernel;              /* store name once it exists */
        char *kernel_id;
        enum cand_state state;
};

struct bis {
        const struct bisect_opts *o;
        const struct store_ctx *g;
        struct store_session *s;   /* the caller's: the database, the kernel store, the lock held */
        struct db *db;             /* s->db, once open */
        struct kstore *ks;         /* s->ks, once open */
        int64_t id;
        int step;
        struct cand *c;
        size_t n;
        char *tree;                /* git: the private worktree candidates are built in */
        char *top;                 /* git: the repository's top directory */
        int usage;                 /* the error is the user's request: exit 2 */
        struct kb_error *err;      /* where a callback's error goes */
        struct bisect_row *row;    /* the bisection as it will be stored and reported; its steps: */
        GArray *steps;             /* of struct bisect_step_row, owned strings */
        json_t *step_runs;         /* the runs of the step under way */
};

/* An option of the bisection as its driver's user writes it. */
static const char *option(const struct bis *b, const char *name) {
        return b->o->option_name ? b->o->option_name(name) : name;
}

/* One line of the bisection for whoever watches it (common/event.h). */
#define say(b, ...) kb_note((b)->o->events, KB_ORIGIN_BISECT, __VA_ARGS__)

/* The builds a bisection asks for speak as the bisection: their lines go
 * on to its sink as its own. */
static int build_relay(void *ctx, const struct kb_event *ev) {
        const struct bis *b = ctx;
        struct kb_event own = *ev;

        own.origin = KB_ORIGIN_BISECT;
        return kb_emit(b->o->events, &own);
}

/* argv's standard output in dir (git), trailing newlines cut. */
static int git(const char *dir, char **argv_tail, char **ret, struct kb_error *err) {
        GPtrArray *a = g_ptr_array_new();
        g_autoptr(GError) gerr = NULL;
        g_autofree char *out = NULL, *errs = NULL;
        int status, ok;

        g_ptr_array_add(a, "git");
        g_ptr_array_add(a, "-C");
        g_ptr_array_add(a, (char *)dir);
        for (size_t i = 0; argv_tail[i]; i++)
                g_ptr_array_add(a, argv_tail[i]);
        g_ptr_array_add(a, NULL);
        ok = g_spawn_sync(NULL, (char **)a->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &errs, &status, &gerr);
        g_ptr_array_free(a, TRUE);
        if (!ok)
                return error_setf(err, -ENOENT, "git: %s", gerr->message);
        if (!g_spawn_check_wait_status(status, NULL))
                return error_setf(err, -EINVAL, "git -C %s %s: %s", dir, argv_tail[0],
                                  errs && *errs ? g_strchomp(errs) : "failed");
        if (ret)
                *ret = g_strchomp(TAKE_PTR(out));
        return 0;
}

/* 1 when commit a is an ancestor of commit b (or b itself), 0 when it is
 * not (reversed ends, or a branch that diverged), -errno when git cannot
 * tell (its message in err). */
static int git_is_ancestor(const char *dir, const char *a, const char *b, struct kb_error *err) {
        char *argv[] = { "git", "-C", (char *)dir, "merge-base", "--is-ancestor", (char *)a, (char *)b, NULL };
        g_autoptr(GError) gerr = NULL;
        g_autofree char *errs = NULL;
        int status;

        if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                          &errs, &status, &gerr))
                return error_setf(err, -ENOENT, "git: %s", gerr->message);
        if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
                return WEXITSTATUS(status) == 0;
        return error_setf(err, -EINVAL, "git -C %s merge-base: %s", dir,
                          errs && *errs ? g_strchomp(errs) : "failed");
}

static void cand_add(struct bis *b, const char *label) {
        b->c = g_renew(struct cand, b->c, b->n + 1);
        b->c[b->n++] = (struct cand){ .label = g_strdup(label) };
}

/* --kernels: each must be stored already. */
static int cands_from_kernels(struct bis *b, struct kb_error *err) {
        for (size_t i = 0; b->o->kernels[i]; i++) {
                struct kstore_kernel *k = NULL;
                int r = kstore_find(b->ks, b->o->kernels[i], &k, err);

                if (r < 0)
                        return error_prefix(err, r, "%s", option(b, "kernels"));
                cand_add(b, k->name);
                b->c[b->n - 1].kernel = g_strdup(k->name);
                b->c[b->n - 1].kernel_id = g_strdup(k->id);
                kstore_kernel_free(k);
        }
        if (b->n < 2)
                return error_setf(err, -EINVAL, "%s: give at least two kernels, good first, bad last",
                                  option(b, "kernels"));
        return 0;
}

/* The private worktree of repository top, made (again) when git does not
 * know it: its real path, since the O= tree of its builds is keyed by it
 * and a store may reach its build directory through a link. */
static int worktree(struct bis *b, const char *top, const char *digest, const char *good, struct kb_error *err) {
        g_autofree char *build = g_build_filename(b->g->home, "build", NULL), *tree = NULL;
        char *real, *probe[] = { "rev-parse", "--git-dir", NULL }, *prune[] = { "worktree", "prune", NULL };
        struct kb_error ignored = { { 0 } };
        int r;

        if (g_mkdir_with_parents(build, 0755) < 0 || !(real = realpath(build, NULL)))
                return error_setf(err, -errno, "%s: %s", build, strerror(errno));
        tree = g_strdup_printf("%s/git-%.16s", real, digest);
        free(real);
        if (g_file_test(tree, G_FILE_TEST_IS_DIR) && git(tree, probe, NULL, &ignored) == 0) {
                b->tree = TAKE_PTR(tree);
                return 0;
        }
        {
                char *rm[] = { "rm", "-rf", tree, NULL };
                char *add[] = { "worktree", "add", "--detach", "--force", tree, (char *)good, NULL };

                if (!g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL))
                        return error_setf(err, -EIO, "%s: cannot remove", tree);
                r = git(top, prune, NULL, err);
                if (r >= 0)
                        r = git(top, add, NULL, err);
        }
        if (r >= 0)
                b->tree = TAKE_PTR(tree);
        return r;
}

/* --git: good, then the first-parent commits up to bad, oldest first,
 * read from the repository alone (no store yet); the candidates are built
 * in a private worktree (worktree(): the user's checkout is never touched),
 * one per repository, so its O= tree lives on across bisections. */
static int cands_from_git(struct bis *b, struct kb_error *err) {
        g_autofree char *good = NULL, *bad = NULL, *list = NULL, *range = NULL, *top = NULL;
        g_autofree char *gref = g_strconcat(b->o->good, "^{commit}", NULL), *bref = g_strconcat(b->o->bad, "^{commit}", NULL);
        char *rev_good[] = { "rev-parse", "--verify", gref, NULL }, *rev_bad[] = { "rev-parse", "--verify", bref, NULL };
        char *toplevel[] = { "rev-parse", "--show-toplevel", NULL };
        g_auto(GStrv) commits = NULL;
        int r = git(b->o->git_dir, toplevel, &top, err);

        if (r >= 0)
                r = git(b->o->git_dir, rev_good, &good, err);
        if (r >= 0)
                r = git(b->o->git_dir, rev_bad, &bad, err);
        if (r >= 0)
                r = git_is_ancestor(b->o->git_dir, good, bad, err);
        if (r < 0)
                return error_prefix(err, r, "%s %s", option(b, "git"), b->o->git_dir);
        /* Otherwise good..bad lists nothing, or bad's side branch, and the
         * search would name a "first bad" that is not after good. */
        if (r == 0) {
                b->usage = 1;
                return error_setf(err, -EINVAL, "bisect: %s %s is not an ancestor of %s %s (are the ends reversed, or "
                                  "on branches that diverged?)", option(b, "good"), b->o->good, option(b, "bad"),
                                  b->o->bad);
        }
        range = g_strdup_printf("%s..%s", good, bad);
        {
                char *revlist[] = { "rev-list", "--reverse", "--first-parent", range, NULL };

                r = git(b->o->git_dir, revlist, &list, err);
        }
        if (r < 0)
                return r;
        cand_add(b, good);
        commits = g_strsplit(list, "\n", -1);
        for (size_t i = 0; commits[i]; i++)
                if (*commits[i])
                        cand_add(b, commits[i]);
        /* Ends that are one commit: two candidates, one build, the same image. */
        if (b->n == 1)
                cand_add(b, bad);
        if (strcmp(b->c[b->n - 1].label, bad) != 0) {
                b->usage = 1;
                return error_setf(err, -EINVAL, "bisect: %s %s is not a first-parent descendant of %s %s",
                                  option(b, "bad"), b->o->bad, option(b, "good"), b->o->good);
        }
        b->top = TAKE_PTR(top);
        return 0;
}

/* A git candidate's kernel: checked out in the worktree and built; a
 * commit that does not build is skipped, with the build's error line. */
static int cand_build(struct bis *b, struct cand *c, struct kb_error *err) {
        g_autofree char *work = g_build_filename(b->g->home, "build", NULL);
        g_autofree char *name = g_strdup_printf("bisect%lld-%.12s", (long long)b->id, c->label);
        char *checkout[] = { "checkout", "--detach", "--quiet", "--force", c->label, NULL };
        const struct kb_sink relay = { build_relay, b };
        struct kbuild_opts bo = { .source = b->tree, .config = b->o->config, .fragments = b->o->fragments,
                                  .name = name, .work_dir = work, .jobs = b->o->jobs, .events = &relay };
        struct kbuild_result res = { 0 };
        struct kb_error berr = { { 0 } };
        int r;

        if (c->kernel || c->state == CAND_SKIPPED)
                return 0;
        for (size_t i = 0; i < b->n; i++)
                if (&b->c[i] != c && b->c[i].kernel && strcmp(b->c[i].label, c->label) == 0) {
                        c->kernel = g_strdup(b->c[i].kernel);
                        c->kernel_id = g_strdup(b->c[i].kernel_id);
                        return 0;
                }
        r = git(b->tree, checkout, NULL, err);
        if (r < 0)
                return r;
        say(b, "building %.12s", c->label);
        if (kbuild_run(b->ks, &bo, &res, &berr) < 0) {
                say(b, "%.12s does not build, skipped: %s", c->label, berr.msg);
                c->state = CAND_SKIPPED;
                return 0;
        }
        c->kernel = g_strdup(res.kernel->name);
        c->kernel_id = g_strdup(res.kernel->id);
        say(b, "%.12s: %s%s", c->label, res.cache_hit ? "cache hit, " : "", res.kernel->name);
        kbuild_result_clear(&res);
        return 0;
}

/* The metric's value of every cell of kernel_id in run, appended to out
 * (NAN for a cell that failed or stored none). */
static int values(struct bis *b, int64_t run, const char *kernel_id, struct bisect_series *out,
                  struct kb_error *err) {
        struct query_selection *sel = NULL;
        int r = query_selection(b->db, run, kernel_id, NULL, &sel, err);

        if (r < 0)
                return r;
        for (size_t k = 0; r >= 0 && k < sel->n_cells; k++) {
                const struct query_sel_cell *cell = &sel->cells[k];
                double v = NAN;

                for (size_t m = 0; cellstate_is(cell->state, CELLSTATE_OK) && m < cell->n_metrics; m++)
                        if (strcmp(cell->metrics[m].name, b->o->metric) == 0 && cell->metrics[m].has_value)
                                v = cell->metrics[m].value;
                if (bisect_series_add(out, v) < 0)
                        r = error_setf(err, -ENOMEM, "out of memory");
        }
        query_selection_free(sel);
        return r;
}

static int run_interrupted(struct bis *b, int64_t id) {
        struct query_run *run = NULL;
        int interrupted = query_run(b->db, id, &run, NULL) == 0 && strcmp(run->status, "interrupted") == 0;

        query_runs_free(run, run ? 1 : 0);
        return interrupted;
}

/* The settings of a step's run: the bisection's cells' over workloads.
 * A step chooses its own rounds; --until-mde and its budgets, the
 * runner's way of choosing them, are dropped (a night hands its runs'
 * settings, budgets and all). */
static struct run_settings step_settings(const struct bis *b, char **workloads) {
        struct run_settings o = b->o->run;

        o.workloads = workloads;
        o.until_mde_pct = 0;
        o.budget_cells = 0;
        o.budget_time_s = 0;
        return o;
}

/* How a step's run is driven. A step is the bisection's: it runs in the
 * bisection's session and prints its own lines; a night's deadline holds
 * for it too. */
static struct runner_drive step_drive(const struct bis *b) {
        return (struct runner_drive){ .quiet = 1, .deadline_at = b->o->deadline_at, .events = b->o->events,
                                      .hosts = b->o->hosts, .option_name = b->o->option_name };
}

/* bisect_ops.measure: `more` rounds of the candidates, interleaved, as one
 * run through the runner, with the bisection's cell settings. */
static int op_measure(void *ud, const size_t *idx, size_t n, size_t more, const char *role, struct bisect_series *v) {
        struct bis *b = ud;
        g_autofree char *tag = g_strdup_printf(BISECT_TAG_PREFIX "%lld step %d (%s)", (long long)b->id, b->step, role);
        char *names[4] = { NULL };
        char *workloads[2] = { (char *)b->o->workload, NULL };
        struct run_settings o = step_settings(b, workloads);
        const struct runner_drive drive = step_drive(b);
        int64_t run = 0;
        int code, r = 0;

        for (size_t i = 0; i < n && i < 3; i++)
                names[i] = b->c[idx[i]].kernel;
        say(b, "step %d (%s): %s, %zu round(s)", b->step, role, b->c[idx[n > 2 ? 1 : n - 1]].kernel, more);
        o.kernels = names;
        o.repeats = (int)more;
        o.tag = tag;
        o.json = 0;
        code = runner_run(&o, &drive, b->g, b->s, &run, b->err);
        if (code != 0 && code != 3)
                return error_prefix(b->err, -EIO, "step %d", b->step);
        /* Exit 3 is failed cells (a candidate that does not boot: no
         * value) or an interrupted run, whose missing cells would read as
         * that too. */
        if (code == 3 && run_interrupted(b, run))
                return error_setf(b->err, -EINTR, "step %d: run %lld was interrupted (a signal or the deadline)",
                                  b->step, (long long)run);
        json_array_append_new(b->step_runs, json_integer(run));
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = values(b, run, b->c[idx[i]].kernel_id, &v[i], b->err);
        return r;
}

static int op_prepare(void *ud, size_t i) {
        struct bis *b = ud;

        if (!b->tree)
                return 0;
        if (cand_build(b, &b->c[i], b->err) < 0)
                return -EIO;
        return b->c[i].state == CAND_SKIPPED;
}

static int op_same_image(void *ud, size_t i, size_t j) {
        struct bis *b = ud;

        return b->c[i].kernel_id && b->c[j].kernel_id && strcmp(b->c[i].kernel_id, b->c[j].kernel_id) == 0;
}

/* The step as the bisection's answer lists it: a copy of its stored row,
 * with the kernel's name. */
static void keep_step(struct bis *b, const struct db_bisect_step *row, const char *kernel) {
        struct bisect_step_row st = {
                .step = row->step, .rounds = row->rounds, .role = g_strdup(row->role),
                .candidate = g_strdup(row->candidate), .kernel_id = g_strdup(row->kernel_id),
                .run_ids_json = g_strdup(row->run_ids_json), .vs_good = g_strdup(row->vs_good),
                .vs_bad = g_strdup(row->vs_bad), .decision = g_strdup(row->decision), .note = g_strdup(row->note),
                .kernel = g_strdup(kernel), .mean_good = row->mean_good, .mean_cand = row->mean_cand,
                .mean_bad = row->mean_bad,
        };

        g_array_append_val(b->steps, st);
}

/* bisect_ops.step: store the step, keep it for the answer, say it. */
static void op_step(void *ud, const struct bisect_step *st) {
        struct bis *b = ud;
        struct cand *c = &b->c[st->cand];
        const char *vg = st->has_vs_good ? seqrule_verdict_name(st->vs_good) : NULL;
        const char *vb = st->has_vs_bad ? seqrule_verdict_name(st->vs_bad) : NULL;
        g_autofree char *note = st->note && strcmp(st->note, "the same image") == 0
                                        ? g_strdup_printf("the same image as %s", b->c[st->like].label)
                                        : g_strdup(st->note);
        char *runs = json_dumps(b->step_runs, JSON_COMPACT);
        struct db_bisect_step row = { .bisection_id = b->id, .step = b->step, .role = st->role, .candidate = c->label,
                                      .kernel_id = c->kernel_id, .run_ids_json = runs, .rounds = (int)st->rounds,
                                      .vs_good = vg, .vs_bad = vb, .decision = st->decision,
                                      .mean_good = st->mean_good, .mean_cand = st->mean_cand,
                                      .mean_bad = st->mean_bad, .note = note };
        struct kb_error err = { { 0 } };

        if (st->rounds && strcmp(st->role, "ends") == 0)
                say(b, "ends: %s %+.2f %% against %s over %zu rounds: %s", b->o->metric,
                    100 * (st->mean_cand / st->mean_good - 1), b->c[0].kernel, st->rounds, vg);
        else
                say(b, "step %d: %s is %s%s%s", b->step, c->kernel ? c->kernel : c->label, st->decision,
                    note ? ": " : "", note ? note : "");
        if (db_bisect_step_add(b->db, &row, &err) < 0)
                say(b, "warning: step %d not stored: %s", b->step, err.msg);
        keep_step(b, &row, c->kernel);
        free(runs);
        json_decref(b->step_runs);
        b->step_runs = json_array();
        b->step++;
}

/* The step that measured the first bad against the last good once more
 * (decide/bisectrule.h), or -1. */
static int confirm_step(const struct bis *b) {
        for (size_t i = b->steps->len; i-- > 0;) {
                const struct bisect_step_row *s = &g_array_index(b->steps, struct bisect_step_row, i);

                if (strcmp(s->role, "confirm") == 0)
                        return s->step;
        }
        return -1;
}

/* Where a change of the kernel's instructions went between the last good
 * and the first bad, from the profiles of the confirming step's cells, as
 * compare explains it (report/explain.h). NULL when the metric is no
 * kernel instruction count, or nothing could be read (said). Caller frees
 * with compare_view_free. */
static struct compare_view *where(struct bis *b, const struct bisect_result *res) {
        int step = confirm_step(b);
        g_autofree char *a = NULL, *bs = NULL;
        g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func(g_free);
        struct compare_options o = { .alpha = b->o->alpha, .noise = b->o->noise };
        struct kb_error err = { { 0 } };
        struct compare_view *v = NULL;
        char phase[64];

        if (res->outcome != BISECT_FIRST_BAD || step < 0 || !b->c[res->last_good].kernel ||
            !b->c[res->first_bad].kernel || !explain_metric_phase(b->o->metric, phase, sizeof(phase)))
                return NULL;
        a = g_strdup_printf("tag:" BISECT_TAG_PREFIX "%lld step %d (confirm):%s", (long long)b->id, step,
                            b->c[res->last_good].kernel);
        bs = g_strdup_printf("tag:" BISECT_TAG_PREFIX "%lld step %d (confirm):%s", (long long)b->id, step,
                             b->c[res->first_bad].kernel);
        o.a = a;
        o.b = bs;
        g_ptr_array_add(ignored, NULL);
        if (pairing_compare_load(b->db, &o, ignored, &v, &err) < 0 ||
            explain_load(b->db, v, &(struct explain_options){ .metric = b->o->metric }, &err) < 0) {
                say(b, "where the change went is not known: %s", err.msg);
                return compare_view_free(v);
        }
        if (!v->explain || !v->explain->n)
                return compare_view_free(v);
        return v;
}

/* The explanation as the lines nightly prints (textcompare_explain), or NULL. */
static char *where_text(const struct compare_view *v) {
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        if (!v || !(f = open_memstream(&text, &len)))
                return NULL;
        textcompare_explain(&v->explain->v[0], 0, 0, TEXTCOMPARE_WIDTH, f);
        fclose(f);
        return text;
}

/* The bisection's row as it ends: its answer and its steps (borrowed
 * from b->steps until bis_free). */
static void end_row(struct bis *b, const struct bisect_result *res) {
        struct bisect_row *row = b->row;

        row->id = b->id;
        row->finished_at = (double)time(NULL);
        g_free(row->status), g_free(row->outcome), g_free(row->first_bad);
        row->status = g_strdup("done");
        row->outcome = g_strdup(bisect_outcome_name(res->outcome));
        row->first_bad = res->outcome == BISECT_FIRST_BAD ? g_strdup(b->c[res->first_bad].label) : NULL;
        row->steps = (struct bisect_step_row *)(void *)b->steps->data;
        row->n_steps = b->steps->len;
}

/* The last word: store it, and hand it to whoever reports it, with where
 * the change went. OUT: *ret_where (free()), the explanation's lines. */
static int finish(struct bis *b, const struct bisect_result *res, const char *why, char **ret_where,
                  struct kb_error *err) {
        const struct cand *first = res->outcome == BISECT_FIRST_BAD ? &b->c[res->first_bad] : NULL;
        struct compare_view *v = where(b, res);
        struct bisect_ending e = { .candidates = b->n, .caution = why, .confirmed = res->confirmed,
                                   .change = res->change, .first_bad_kernel = first ? first->kernel : NULL,
                                   .explain = v ? &v->explain->v[0] : NULL };
        json_auto_t *j = NULL;
        char *summary;
        int r;

        end_row(b, res);
        j = json_bisect_answer(b->row, &e);
        summary = j ? json_dumps(j, JSON_COMPACT) : NULL;
        r = db_bisection_finish(b->db, b->id, "done", b->row->outcome, b->row->first_bad, summary, err);
        free(summary);
        *ret_where = where_text(v);
        if (r >= 0 && !b->o->quiet)
                kb_emit(b->o->events, &(struct kb_event){ .kind = KB_EVENT_BISECT_RESULT,
                                                          .origin = KB_ORIGIN_BISECT,
                                                          .bisection = b->row, .ending = &e });
        compare_view_free(v);
        return r;
}

/* What the user asked for, checked before anything is made: the
 * workload, the files a build is given, and with --git the commits (with --kernels, the kernels
 * are looked up once the store is open). */
static int check_request(struct bis *b, struct kb_error *err) {
        struct kbuild_opts bo = { .source = b->o->git_dir, .config = b->o->config, .fragments = b->o->fragments };
        char *workloads[2] = { (char *)b->o->workload, NULL };
        const struct run_settings run = step_settings(b, workloads);
        const struct runner_drive drive = step_drive(b);
        int r;

        /* The workload as each step's run will check it, before the store. */
        r = runner_check_workloads(&run, &drive, b->g, err);
        if (r < 0) {
                b->usage = 1;
                return r;
        }
        if (!b->o->git_dir)
                return 0;
        r = kbuild_check_inputs(&bo, err);
        if (r < 0)
                return r;
        r = cands_from_git(b, err);
        b->usage = r == -EINVAL;        /* a ref git does not know, or not a descendant */
        return r;
}

/* The session opened (by the caller: only a bisection that builds may
 * create a store), the candidates: the kernels looked up, or the worktree
 * of the good end. */
static int open_store(struct bis *b, struct kb_error *err) {
        int r = store_session_open(b->s, STORE_PART_STORE, err);

        b->ks = b->s->ks;
        if (r >= 0 && !b->o->git_dir) {
                r = cands_from_kernels(b, err);
                b->usage = r == -ENOENT || r == -EINVAL;        /* as run's unknown kernel */
        }
        if (r >= 0 && b->o->git_dir) {
                g_autofree char *digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, b->top, -1);

                r = worktree(b, b->top, digest, b->c[0].label, err);
        }
        return r;
}

static int start(struct bis *b, struct kb_error *err) {
        json_auto_t *settings = json_pack("{s:i, s:i, s:f, s:f, s:f}", "pilot", b->o->pilot, "max_rounds",
                                          b->o->max_rounds, "target", b->o->target, "alpha", b->o->alpha, "noise",
                                          b->o->noise);
        g_autofree char *source = b->o->git_dir ? g_strconcat("git:", b->o->git_dir, NULL) : g_strdup("kernels");
        char *text;
        struct db_bisection row;
        int r = check_request(b, err);

        if (r >= 0)
                r = open_store(b, err);
        if (r >= 0)
                r = store_session_open(b->s, STORE_PART_DB, err);
        b->db = b->s->db;
        if (r < 0)
                return r;
        text = json_dumps(settings, JSON_COMPACT);
        row = (struct db_bisection){ .workload = b->o->workload, .metric = b->o->metric, .source = source,
                                     .good = b->c[0].label, .bad = b->c[b->n - 1].label, .settings_json = text };
        r = db_bisection_create(b->db, &row, err);
        free(text);
        b->id = row.id;
        *b->row = (struct bisect_row){ .id = row.id, .started_at = (double)time(NULL), .finished_at = NAN,
                                       .status = g_strdup("running"), .workload = g_strdup(b->o->workload),
                                       .metric = g_strdup(b->o->metric), .source = g_strdup(source),
                                       .good = g_strdup(row.good), .bad = g_strdup(row.bad) };
        say(b, "bisection %lld: %s of %s over %zu candidates", (long long)b->id, b->o->metric, b->o->workload, b->n);
        return r;
}

static void bis_free(struct bis *b) {
        for (size_t i = 0; i < b->n; i++) {
                g_free(b->c[i].label);
                g_free(b->c[i].kernel);
                g_free(b->c[i].kernel_id);
        }
        g_free(b->c);
        g_free(b->tree);
        g_free(b->top);
        b->row->n_steps = b->steps->len;
        b->row->steps = (struct bisect_step_row *)(void *)g_array_free(b->steps, FALSE);
        bisect_rows_free(b->row, 1);
        json_decref(b->step_runs);
}

static const struct bisect_ops real_ops = { op_prepare, op_same_image, op_measure, op_step };

void bisect_answer_clear(struct bisect_answer *a) {
        g_free(a->first_bad);
        free(a->where);
        *a = (struct bisect_answer){ 0 };
}

int bisect_run(const struct bisect_opts *o, const struct store_ctx *g, struct store_session *s,
               struct bisect_answer *ret, struct kb_error *err) {
        struct bis b = { .o = o, .g = g, .s = s, .err = err, .row = g_new0(struct bisect_row, 1),
                         .steps = g_array_new(FALSE, TRUE, sizeof(struct bisect_step_row)),
                         .step_runs = json_array() };
        struct bisect_params p = { .rule = { .target = o->target, .alpha = o->alpha, .power = 0.8,
                                             .pilot = (size_t)o->pilot, .max_rounds = (size_t)o->max_rounds },
                                   .noise = o->noise, .dir = metrics_direction(o->metric),
                                   .floor = metrics_floor(o->metric) };
        struct bisect_result res = { 0 };
        g_autofree enum bisect_state *state = NULL;
        g_autofree char *why = NULL;
        _cleanup_free_ char *where_lines = NULL;
        int r, code = 1;

        r = start(&b, err);
        if (r >= 0) {
                state = g_new0(enum bisect_state, b.n);
                r = bisect_search(&p, b.n, &real_ops, &b, state, &res);
                if (r == -ENOEXEC)
                        r = error_setf(err, -EINVAL, "an end does not build or boot: nothing to bisect");
                else if (r < 0 && !err->msg[0])
                        r = error_setf(err, r, "bisect: %s", g_strerror(-r));
        }
        if (r >= 0 && res.outcome == BISECT_FIRST_BAD && res.skipped_between)
                why = g_strdup_printf("%zu candidate(s) between the last good (%s) and the first bad were skipped: "
                                      "the first bad may be one of them", res.skipped_between,
                                      b.c[res.last_good].label);
        if (r >= 0 && res.outcome == BISECT_CANNOT_TELL)
                why = g_strdup_printf("the rule could not tell within the budget (%s)", option(&b, "max-rounds"));
        if (r >= 0)
                r = finish(&b, &res, why, &where_lines, err);
        if (r >= 0 && ret)
                *ret = (struct bisect_answer){ .id = b.id, .outcome = bisect_outcome_name(res.outcome),
                                               .first_bad = res.outcome == BISECT_FIRST_BAD
                                                                    ? g_strdup(b.c[res.first_bad].label) : NULL,
                                               .confirmed = res.confirmed, .skipped_between = res.skipped_between,
                                               .where = g_steal_pointer(&where_lines) };
        if (r >= 0)
                code = res.outcome == BISECT_CANNOT_TELL ? BISECT_EXIT_UNDECIDED : 0;
        else if (b.usage)
                code = 2;
        else if (b.db && b.id)
                db_bisection_finish(b.db, b.id, "failed", NULL, NULL, NULL, &(struct kb_error){ { 0 } });
        bis_free(&b);
        return code;
}
