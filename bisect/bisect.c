/* bisect/bisect.c: the search (see bisect.h). One function per step of it;
 * bisect_run calls them in order. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bisect/bisect.h"
#include "common/util.h"
#include "kernels/build.h"
#include "kernels/kstore.h"
#include "report/metrics.h"
#include "report/seqrule.h"
#include "results/bisect.h"
#include "results/query.h"
#include "store/lock.h"

enum cand_state { CAND_UNTESTED, CAND_GOOD, CAND_BAD, CAND_SKIPPED };

static const char *const state_names[] = { "untested", "good", "bad", "skipped" };

struct cand {
        char *label;               /* kernel name, or full commit id */
        char *kernel;              /* store name once it exists */
        char *kernel_id;
        enum cand_state state;
};

struct bis {
        const struct bisect_opts *o;
        const struct store_ctx *g;
        struct db *db;
        struct kstore *ks;
        struct store_lock *lock;
        int64_t id;
        int step;
        struct cand *c;
        size_t n;
        char *tree;                /* git: the private worktree candidates are built in */
        enum metrics_direction dir;
        double change;             /* mean(bad) / mean(good) - 1 at the ends */
        json_t *steps;             /* what --json prints */
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        fputs("bisect: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
}

static void build_progress(const char *line, void *userdata) {
        (void)userdata;
        say("  %s", line);
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
                        return error_prefix(err, r, "--kernels");
                cand_add(b, k->name);
                b->c[b->n - 1].kernel = g_strdup(k->name);
                b->c[b->n - 1].kernel_id = g_strdup(k->id);
                kstore_kernel_free(k);
        }
        if (b->n < 2)
                return error_setf(err, -EINVAL, "--kernels: give at least two kernels, good first, bad last");
        return 0;
}

/* --git: good, then the first-parent commits up to bad, oldest first; the
 * candidates are built in a private worktree (the user's checkout is never
 * touched), one per repository, so its O= tree lives on across bisections. */
static int cands_from_git(struct bis *b, struct kb_error *err) {
        g_autofree char *good = NULL, *bad = NULL, *list = NULL, *range = NULL, *top = NULL, *digest = NULL;
        g_autofree char *gref = g_strconcat(b->o->good, "^{commit}", NULL), *bref = g_strconcat(b->o->bad, "^{commit}", NULL);
        char *rev_good[] = { "rev-parse", "--verify", gref, NULL }, *rev_bad[] = { "rev-parse", "--verify", bref, NULL };
        char *toplevel[] = { "rev-parse", "--show-toplevel", NULL };
        g_auto(GStrv) commits = NULL;
        int r = git(b->o->git_dir, toplevel, &top, err);

        if (r >= 0)
                r = git(b->o->git_dir, rev_good, &good, err);
        if (r >= 0)
                r = git(b->o->git_dir, rev_bad, &bad, err);
        if (r < 0)
                return error_prefix(err, r, "--git %s", b->o->git_dir);
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
        if (strcmp(b->c[b->n - 1].label, bad) != 0)
                return error_setf(err, -EINVAL, "--git: %s is not a first-parent descendant of %s", b->o->bad,
                                  b->o->good);
        digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, top, -1);
        b->tree = g_strdup_printf("%s/build/git-%.16s", b->g->home, digest);
        if (!g_file_test(b->tree, G_FILE_TEST_IS_DIR)) {
                char *prune[] = { "worktree", "prune", NULL };
                char *add[] = { "worktree", "add", "--detach", "--force", b->tree, good, NULL };

                r = git(top, prune, NULL, err);
                if (r >= 0)
                        r = git(top, add, NULL, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A git candidate's kernel: checked out in the worktree and built; a
 * commit that does not build is skipped, with the build's error line. */
static int cand_build(struct bis *b, struct cand *c, struct kb_error *err) {
        g_autofree char *work = g_build_filename(b->g->home, "build", NULL);
        g_autofree char *name = g_strdup_printf("bisect%lld-%.12s", (long long)b->id, c->label);
        char *checkout[] = { "checkout", "--detach", "--quiet", "--force", c->label, NULL };
        struct kbuild_opts bo = { .source = b->tree, .config = b->o->config, .fragments = b->o->fragments,
                                  .name = name, .work_dir = work, .jobs = b->o->jobs, .progress = build_progress };
        struct kbuild_result res = { 0 };
        struct kb_error berr = { { 0 } };
        int r;

        if (c->kernel || c->state == CAND_SKIPPED)
                return 0;
        r = git(b->tree, checkout, NULL, err);
        if (r < 0)
                return r;
        say("building %.12s", c->label);
        if (kbuild_run(b->ks, &bo, &res, &berr) < 0) {
                say("%.12s does not build, skipped: %s", c->label, berr.msg);
                c->state = CAND_SKIPPED;
                return 0;
        }
        c->kernel = g_strdup(res.kernel->name);
        c->kernel_id = g_strdup(res.kernel->id);
        say("%.12s: %s%s", c->label, res.cache_hit ? "cache hit, " : "", res.kernel->name);
        kbuild_result_clear(&res);
        return 0;
}

/* One metric's values per kernel over the step's runs, cell by cell. */
static int values(struct bis *b, GArray *runs, const char *kernel_id, GArray *out, size_t *failed,
                  struct kb_error *err) {
        for (guint i = 0; i < runs->len; i++) {
                struct query_selection *sel = NULL;
                int r = query_selection(b->db, g_array_index(runs, int64_t, i), kernel_id, NULL, &sel, err);

                if (r < 0)
                        return r;
                for (size_t k = 0; k < sel->n_cells; k++) {
                        const struct query_sel_cell *cell = &sel->cells[k];
                        double v = NAN;

                        if (strcmp(cell->state, "ok") != 0) {
                                (*failed)++;
                                continue;
                        }
                        for (size_t m = 0; m < cell->n_metrics; m++)
                                if (strcmp(cell->metrics[m].name, b->o->metric) == 0 && cell->metrics[m].has_value)
                                        v = cell->metrics[m].value;
                        g_array_append_val(out, v);
                }
                query_selection_free(sel);
        }
        return 0;
}

static double mean_of(const GArray *v) {
        double s = 0;
        size_t n = 0;

        for (guint i = 0; i < v->len; i++)
                if (isfinite(g_array_index(v, double, i))) {
                        s += g_array_index(v, double, i);
                        n++;
                }
        return n ? s / (double)n : NAN;
}

/* One measured set: kernels interleaved in runs, values per kernel. */
struct measured {
        GArray *runs;              /* int64_t */
        GArray *v[3];              /* double per kernel */
        size_t failed[3];
        size_t n, rounds;
};

static void measured_clear(struct measured *m) {
        g_array_free(m->runs, TRUE);
        for (size_t i = 0; i < m->n; i++)
                g_array_free(m->v[i], TRUE);
}

/* `more` rounds of kernels[0..n) interleaved, as one run; then every
 * value of the step so far, per kernel. */
static int measure_more(struct bis *b, const struct cand *const *k, struct measured *m, size_t more,
                        const char *role, struct kb_error *err) {
        g_autofree char *tag = g_strdup_printf("bisect %lld step %d (%s)", (long long)b->id, b->step, role);
        char *names[4] = { NULL };
        char *workloads[2] = { (char *)b->o->workload, NULL };
        struct runner_opts o = b->o->run;
        int64_t run = 0;
        int code;

        for (size_t i = 0; i < m->n; i++)
                names[i] = k[i]->kernel;
        o.kernels = names;
        o.workloads = workloads;
        o.repeats = (int)more;
        o.tag = tag;
        o.quiet = 1;
        o.json = 0;
        o.lock_held = 1;
        o.until_mde_pct = 0;
        code = runner_run(&o, b->g, &run, err);
        if (code != 0 && code != 3)
                return error_prefix(err, -EIO, "step %d", b->step);
        g_array_append_val(m->runs, run);
        m->rounds += more;
        for (size_t i = 0; i < m->n; i++) {
                int r;

                g_array_set_size(m->v[i], 0);
                m->failed[i] = 0;
                r = values(b, m->runs, k[i]->kernel_id, m->v[i], &m->failed[i], err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The rule's verdict of y against x over the rounds so far; *next: the
 * rounds it wants in all before it looks again (0: it will not). */
static enum seqrule_verdict judge(const struct bis *b, const GArray *x, const GArray *y, double target,
                                  size_t *next) {
        size_t rounds = MIN(x->len, y->len);
        struct seqrule_params p = { .target = target, .alpha = b->o->alpha, .power = 0.8,
                                    .pilot = (size_t)b->o->pilot, .max_rounds = (size_t)b->o->max_rounds };
        struct seqrule_metric m = { b->o->metric, (const double *)(void *)x->data, (const double *)(void *)y->data };
        struct seqrule_decision d;
        enum seqrule_verdict v = SEQRULE_NOT_YET;
        int dirs[1] = { b->dir };

        *next = 0;
        if (seqrule_verdict(&p, &m, dirs, 1, rounds, b->o->noise, &v, &d) < 0)
                return SEQRULE_NOT_YET;
        if (v == SEQRULE_NOT_YET && d.answer == SEQRULE_MORE)
                *next = MIN(d.next, (size_t)b->o->max_rounds);
        return v;
}

static void put_step(struct bis *b, const char *role, const struct cand *c, const struct measured *m,
                     const char *vs_good, const char *vs_bad, const char *decision, const char *note,
                     struct kb_error *err) {
        json_t *runs = json_array();
        g_autofree char *runs_text = NULL;
        double mg = m && m->n > 0 ? mean_of(m->v[0]) : NAN;
        double mc = m && m->n == 3 ? mean_of(m->v[1]) : m && m->n == 2 ? mean_of(m->v[1]) : NAN;
        double mb = m && m->n == 3 ? mean_of(m->v[2]) : NAN;
        struct db_bisect_step st;
        char *t;

        for (guint i = 0; m && i < m->runs->len; i++)
                json_array_append_new(runs, json_integer(g_array_index(m->runs, int64_t, i)));
        t = json_dumps(runs, JSON_COMPACT);
        runs_text = g_strdup(t);
        free(t);
        st = (struct db_bisect_step){ .bisection_id = b->id, .step = b->step, .role = role, .candidate = c->label,
                                      .kernel_id = c->kernel_id, .run_ids_json = runs_text,
                                      .rounds = m ? (int)m->rounds : 0, .vs_good = vs_good, .vs_bad = vs_bad,
                                      .decision = decision, .mean_good = mg, .mean_cand = mc, .mean_bad = mb,
                                      .note = note };
        if (db_bisect_step_add(b->db, &st, err) < 0)
                say("warning: step %d not stored: %s", b->step, err->msg);
        json_array_append_new(b->steps, json_pack("{s:i, s:s, s:s, s:s?, s:o, s:i, s:s?, s:s?, s:s, s:o, s:o, s:o, "
                                                  "s:s?}",
                                                  "step", b->step, "role", role, "candidate", c->label,
                                                  "kernel", c->kernel, "runs", runs, "rounds", st.rounds,
                                                  "vs_good", vs_good, "vs_bad", vs_bad, "decision", decision,
                                                  "mean_good", isfinite(mg) ? json_real(mg) : json_null(),
                                                  "mean_candidate", isfinite(mc) ? json_real(mc) : json_null(),
                                                  "mean_bad", isfinite(mb) ? json_real(mb) : json_null(),
                                                  "note", note));
        b->step++;
}

/* y against x, interleaved, until the rule answers or the budget is
 * spent: the ends, and the last check of the first bad against its parent. */
static int measure_pair(struct bis *b, struct cand *x, struct cand *y, const char *role, double target,
                        enum seqrule_verdict *ret, struct measured *m, struct kb_error *err) {
        const struct cand *k[2] = { x, y };
        size_t want = (size_t)b->o->pilot, next;
        int r;

        *m = (struct measured){ .runs = g_array_new(FALSE, FALSE, sizeof(int64_t)), .n = 2 };
        for (size_t i = 0; i < 2; i++)
                m->v[i] = g_array_new(FALSE, FALSE, sizeof(double));
        for (;;) {
                say("step %d (%s): %s against %s, rounds %zu to %zu", b->step, role, y->kernel, x->kernel,
                    m->rounds + 1, want);
                r = measure_more(b, k, m, want - m->rounds, role, err);
                if (r < 0)
                        return r;
                *ret = judge(b, m->v[0], m->v[1], target, &next);
                if (*ret != SEQRULE_NOT_YET || next <= m->rounds)
                        return 0;
                want = next;
        }
}

/* The ends: is there a change to find? */
static int step_ends(struct bis *b, int *ret_found, struct kb_error *err) {
        struct cand *good = &b->c[0], *bad = &b->c[b->n - 1];
        struct measured m;
        enum seqrule_verdict v;
        int r;

        *ret_found = 0;
        if (strcmp(good->kernel_id, bad->kernel_id) == 0) {
                say("the ends are the same image (%.12s): no change between them", good->kernel_id);
                put_step(b, "ends", bad, NULL, "same", NULL, "same", "the same image", err);
                return 0;
        }
        r = measure_pair(b, good, bad, "ends", b->o->target, &v, &m, err);
        if (r < 0) {
                measured_clear(&m);
                return r;
        }
        b->change = mean_of(m.v[1]) / mean_of(m.v[0]) - 1;
        say("ends: %s %+.2f %% against %s over %zu rounds: %s", b->o->metric, 100 * b->change, good->kernel,
            m.rounds, seqrule_verdict_name(v));
        put_step(b, "ends", bad, &m, seqrule_verdict_name(v), NULL,
                 v == SEQRULE_DIFFERENT ? "different" : v == SEQRULE_SAME ? "same" : "unknown", NULL, err);
        measured_clear(&m);
        good->state = CAND_GOOD;
        bad->state = CAND_BAD;
        *ret_found = v == SEQRULE_DIFFERENT ? 1 : v == SEQRULE_SAME ? 0 : -1;
        return 0;
}

/* Candidate c interleaved with both ends until the two verdicts decide. */
static int probe(struct bis *b, struct cand *c, struct kb_error *err) {
        const struct cand *k[3] = { &b->c[0], c, &b->c[b->n - 1] };
        double target = fmax(fabs(b->change) / 2, 1e-4);
        size_t want = (size_t)b->o->pilot, ng, nb;
        enum seqrule_verdict vg = SEQRULE_NOT_YET, vb = SEQRULE_NOT_YET;
        struct measured m = { .runs = g_array_new(FALSE, FALSE, sizeof(int64_t)), .n = 3 };
        const char *decision = "unknown", *note = NULL;
        int r = 0;

        for (size_t i = 0; i < 3; i++)
                m.v[i] = g_array_new(FALSE, FALSE, sizeof(double));
        for (;;) {
                say("step %d: %s, rounds %zu to %zu", b->step, c->kernel, m.rounds + 1, want);
                r = measure_more(b, k, &m, want - m.rounds, "probe", err);
                if (r < 0)
                        break;
                if (m.failed[1] && isnan(mean_of(m.v[1]))) {
                        c->state = CAND_SKIPPED;
                        decision = "skipped";
                        note = "no cell of it ended ok: it does not boot or run the workload";
                        break;
                }
                vg = judge(b, m.v[0], m.v[1], target, &ng);
                vb = judge(b, m.v[1], m.v[2], target, &nb);
                if (vg == SEQRULE_SAME && vb == SEQRULE_DIFFERENT)
                        c->state = CAND_GOOD;
                else if (vg == SEQRULE_DIFFERENT && vb == SEQRULE_SAME)
                        c->state = CAND_BAD;
                else if (vg == SEQRULE_DIFFERENT && vb == SEQRULE_DIFFERENT) {
                        c->state = CAND_BAD;
                        note = "unlike both ends: the change has begun here";
                }
                if (c->state != CAND_UNTESTED || MAX(ng, nb) <= m.rounds)
                        break;
                want = MAX(ng, nb);
        }
        if (r >= 0) {
                if (c->state == CAND_GOOD || c->state == CAND_BAD)
                        decision = state_names[c->state];
                say("step %d: %s is %s (against good: %s, against bad: %s)", b->step, c->kernel, decision,
                    seqrule_verdict_name(vg), seqrule_verdict_name(vb));
                put_step(b, "probe", c, &m, seqrule_verdict_name(vg), seqrule_verdict_name(vb), decision, note, err);
        }
        measured_clear(&m);
        return r;
}

/* The next candidate between lo and hi: the untested one nearest the
 * middle, or SIZE_MAX when every one between is skipped. */
static size_t pick(const struct bis *b, size_t lo, size_t hi) {
        size_t mid = lo + (hi - lo) / 2, best = SIZE_MAX;

        for (size_t i = lo + 1; i < hi; i++)
                if (b->c[i].state != CAND_SKIPPED &&
                    (best == SIZE_MAX || (i > mid ? i - mid : mid - i) < (best > mid ? best - mid : mid - best)))
                        best = i;
        return best;
}

/* A candidate whose image equals one already decided takes its decision. */
static int reuse(struct bis *b, struct cand *c, struct kb_error *err) {
        for (size_t i = 0; i < b->n; i++)
                if (&b->c[i] != c && b->c[i].kernel_id && c->kernel_id &&
                    (b->c[i].state == CAND_GOOD || b->c[i].state == CAND_BAD) &&
                    strcmp(b->c[i].kernel_id, c->kernel_id) == 0) {
                        g_autofree char *note = g_strdup_printf("the same image as %s", b->c[i].label);

                        c->state = b->c[i].state;
                        say("step %d: %s is %s: %s", b->step, c->kernel, state_names[c->state], note);
                        put_step(b, "probe", c, NULL, NULL, NULL, state_names[c->state], note, err);
                        return 1;
                }
        return 0;
}

/* Halve [lo, hi] until the first bad is next to the last good. OUT: *lo,
 * *hi; returns 1 when a step could not tell. */
static int search(struct bis *b, size_t *lo, size_t *hi, struct kb_error *err) {
        *lo = 0;
        *hi = b->n - 1;
        for (;;) {
                size_t i = pick(b, *lo, *hi);
                struct cand *c;
                int r;

                if (i == SIZE_MAX)
                        return 0;
                c = &b->c[i];
                r = b->tree ? cand_build(b, c, err) : 0;
                if (r < 0)
                        return r;
                if (c->state == CAND_SKIPPED) {
                        put_step(b, "probe", c, NULL, NULL, NULL, "skipped", "it does not build", err);
                        continue;
                }
                if (!reuse(b, c, err)) {
                        r = probe(b, c, err);
                        if (r < 0)
                                return r;
                }
                if (c->state == CAND_GOOD)
                        *lo = i;
                else if (c->state == CAND_BAD)
                        *hi = i;
                else if (c->state == CAND_UNTESTED)
                        return 1;
        }
}

static json_t *result_json(const struct bis *b, const char *outcome, const struct cand *first, int confirmed) {
        return json_pack("{s:I, s:s, s:s, s:s, s:s?, s:s?, s:o, s:o, s:O}", "bisection", (json_int_t)b->id,
                         "workload", b->o->workload, "metric", b->o->metric, "outcome", outcome,
                         "first_bad", first ? first->label : NULL, "first_bad_kernel", first ? first->kernel : NULL,
                         "confirmed", confirmed < 0 ? json_null() : json_boolean(confirmed),
                         "change", isfinite(b->change) ? json_real(b->change) : json_null(), "steps", b->steps);
}

/* The last word: store it, print it. */
static int finish(struct bis *b, const char *outcome, const struct cand *first, int confirmed, const char *why,
                  struct kb_error *err) {
        json_auto_t *j = result_json(b, outcome, first, confirmed);
        char *summary = json_dumps(j, JSON_COMPACT);
        int r = db_bisection_finish(b->db, b->id, "done", outcome, first ? first->label : NULL, summary, err);

        free(summary);
        if (r < 0)
                return r;
        if (b->o->json) {
                json_dumpf(j, stdout, JSON_INDENT(2));
                putchar('\n');
                return 0;
        }
        printf("bisection %lld: %s over %zu candidates, %d steps (kbench show --bisect %lld)\n", (long long)b->id,
               b->o->metric, b->n, b->step, (long long)b->id);
        for (size_t i = 0; i < json_array_size(b->steps); i++) {
                json_t *s = json_array_get(b->steps, i);
                const char *note = json_string_value(json_object_get(s, "note"));

                printf("  %-7s %-28.28s %-8s rounds %-3lld%s%s\n", json_string_value(json_object_get(s, "role")),
                       json_string_value(json_object_get(s, "kernel")) ? json_string_value(json_object_get(s, "kernel"))
                                                                      : json_string_value(json_object_get(s, "candidate")),
                       json_string_value(json_object_get(s, "decision")),
                       (long long)json_integer_value(json_object_get(s, "rounds")), note ? ": " : "", note ? note : "");
        }
        if (why)
                printf("%s\n", why);
        if (first)
                printf("first bad: %s\n", first->label);
        else
                printf("%s\n", strcmp(outcome, "no-change") == 0 ? "no change between the ends" : "cannot tell");
        return 0;
}

/* The first bad against its parent, once more, as KernelCI asks a culprit
 * to reproduce. */
static int confirm(struct bis *b, size_t lo, size_t hi, int *ret, struct kb_error *err) {
        struct measured m;
        enum seqrule_verdict v;
        double target = fmax(fabs(b->change) / 2, 1e-4);
        int r;

        if (strcmp(b->c[lo].kernel_id, b->c[hi].kernel_id) == 0) {
                *ret = 0;
                return 0;
        }
        r = measure_pair(b, &b->c[lo], &b->c[hi], "confirm", target, &v, &m, err);
        if (r >= 0) {
                *ret = v == SEQRULE_DIFFERENT;
                put_step(b, "confirm", &b->c[hi], &m, seqrule_verdict_name(v), NULL, *ret ? "different" : "unknown",
                         *ret ? NULL : "not reproduced against its parent", err);
        }
        measured_clear(&m);
        return r;
}

static int start(struct bis *b, struct kb_error *err) {
        g_autofree char *kdir = store_kernels_dir(b->g);
        json_auto_t *settings = json_pack("{s:i, s:i, s:f, s:f, s:f}", "pilot", b->o->pilot, "max_rounds",
                                          b->o->max_rounds, "target", b->o->target, "alpha", b->o->alpha, "noise",
                                          b->o->noise);
        g_autofree char *source = b->o->git_dir ? g_strconcat("git:", b->o->git_dir, NULL) : g_strdup("kernels");
        char *text;
        struct db_bisection row;
        int r = store_prepare(b->g, 1, err);

        if (r >= 0)
                r = lock_store(b->g->home, "bisect", &b->lock, err);
        if (r >= 0)
                r = kstore_open(kdir, &b->ks, err);
        if (r >= 0)
                r = db_open(b->g->db_path, &b->db, err);
        if (r >= 0)
                r = b->o->git_dir ? cands_from_git(b, err) : cands_from_kernels(b, err);
        if (r < 0)
                return r;
        text = json_dumps(settings, JSON_COMPACT);
        row = (struct db_bisection){ .workload = b->o->workload, .metric = b->o->metric, .source = source,
                                     .good = b->c[0].label, .bad = b->c[b->n - 1].label, .settings_json = text };
        r = db_bisection_create(b->db, &row, err);
        free(text);
        b->id = row.id;
        say("bisection %lld: %s of %s over %zu candidates", (long long)b->id, b->o->metric, b->o->workload, b->n);
        if (r >= 0 && b->tree)
                r = cand_build(b, &b->c[0], err);
        if (r >= 0 && b->tree)
                r = cand_build(b, &b->c[b->n - 1], err);
        if (r >= 0 && (b->c[0].state == CAND_SKIPPED || b->c[b->n - 1].state == CAND_SKIPPED))
                r = error_setf(err, -EINVAL, "an end does not build: nothing to bisect");
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
        json_decref(b->steps);
        db_close(b->db);
        kstore_free(b->ks);
        lock_release(b->lock);
}

int bisect_run(const struct bisect_opts *o, const struct store_ctx *g, struct kb_error *err) {
        struct bis b = { .o = o, .g = g, .steps = json_array(), .change = NAN };
        size_t lo = 0, hi = 0;
        int r, found = 0, undecided = 0, confirmed = -1, code = 1;

        b.dir = metrics_direction(o->metric);
        r = start(&b, err);
        if (r >= 0)
                r = step_ends(&b, &found, err);
        if (r >= 0 && found == 0)
                r = finish(&b, "no-change", NULL, -1, NULL, err);
        else if (r >= 0 && found < 0)
                r = finish(&b, "cannot-tell", NULL, -1, "the ends: the rule could not tell within the budget", err);
        else if (r >= 0) {
                r = search(&b, &lo, &hi, err);
                undecided = r == 1;
                if (r == 0)
                        r = confirm(&b, lo, hi, &confirmed, err);
                if (r >= 0 && undecided)
                        r = finish(&b, "cannot-tell", NULL, -1, "a step could not tell within the budget", err);
                else if (r >= 0) {
                        g_autofree char *why = NULL;

                        for (size_t i = lo + 1; i < hi; i++)
                                if (b.c[i].state == CAND_SKIPPED) {
                                        why = g_strdup_printf("%s lies between the last good and the first bad, "
                                                              "skipped: the first bad may be it", b.c[i].label);
                                        break;
                                }
                        r = finish(&b, "first-bad", &b.c[hi], confirmed, why, err);
                }
        }
        if (r >= 0)
                code = found < 0 || undecided ? BISECT_EXIT_UNDECIDED : 0;
        else if (b.db && b.id)
                db_bisection_finish(b.db, b.id, "failed", NULL, NULL, NULL, &(struct kb_error){ { 0 } });
        bis_free(&b);
        return code;
}
