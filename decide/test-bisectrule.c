/* test-bisectrule.c: the search of `kbench bisect` (decide/bisectrule.c)
 * driven through its four callbacks by scripted worlds, one row of a
 * table each: a list of candidates with a metric's mean per candidate, the
 * ones that do not build, whose cells have no value (they do not boot), and
 * which are the same image. Each row states the steps the search must take
 * ("role:candidate:decision", in order) and its answer, so a change of
 * classification, of the order candidates are picked in, of reuse or of
 * the confirmation shows as a different step list. The values are
 * deterministic (a fixed hash, not a generator seeded per run), so a row
 * gives the same steps on every machine; the rates over random worlds are
 * bench/bisect-sim.c's. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "decide/bisectrule.h"
#include "report/metrics.h"

TEST_MAIN();

#define MAX_CAND 9

struct world_row {
        const char *name;
        size_t n;
        double mean[MAX_CAND];     /* the metric's mean per candidate (lower is better) */
        double noise;              /* each cell's value is mean x (1 + noise x u), u in [-1, 1] */
        unsigned no_build;         /* bit i: prepare(i) says it cannot be built */
        unsigned no_value;         /* bit i: its cells have no value (it does not boot) */
        unsigned noisy;            /* bit i: its cells scatter 50 times more */
        int image[MAX_CAND];       /* equal non-zero ids: the same image; 0: an image of its own */
        int flat_confirm;          /* in the "confirm" step every candidate reads as the good end */
        size_t max_rounds;         /* 0: 12 */
        /* what the search must do */
        enum bisect_outcome outcome;
        size_t first_bad, last_good;
        int confirmed;
        size_t skipped_between;
        const char *steps;         /* "role:cand:decision" per step, blank-separated */
};

struct world {
        const struct world_row *row;
        size_t rounds[MAX_CAND];   /* cells measured per candidate */
        size_t longest_step;       /* most rounds asked for in one step */
        size_t step_rounds;
        char steps[1024];
        size_t n_steps;
        int fail_measure;          /* measure returns -EIO */
};

/* u in [-1, 1] from (candidate, round): splitmix64's finaliser. */
static double jitter(size_t cand, size_t round) {
        uint64_t z = (uint64_t)cand * 0x9e3779b97f4a7c15ull + (uint64_t)round * 0xbf58476d1ce4e5b9ull + 1;

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return (double)(z % 2001) / 1000.0 - 1;
}

static int w_prepare(void *ud, size_t i) {
        const struct world *w = ud;

        return (w->row->no_build >> i) & 1;
}

static int w_same_image(void *ud, size_t i, size_t j) {
        const struct world *w = ud;

        return i == j || (w->row->image[i] && w->row->image[i] == w->row->image[j]);
}

static int w_measure(void *ud, const size_t *idx, size_t n, size_t more, const char *role, struct bisect_series *v) {
        struct world *w = ud;

        if (w->fail_measure)
                return -EIO;
        ASSERT_TRUE(more > 0);
        for (size_t r = 0; r < more; r++)
                for (size_t k = 0; k < n; k++) {
                        size_t c = idx[k];
                        double mean = strcmp(role, "confirm") == 0 && w->row->flat_confirm ? w->row->mean[0]
                                                                                             : w->row->mean[c];
                        double amp = w->row->noise * ((w->row->noisy >> c) & 1 ? 50 : 1);
                        double x = (w->row->no_value >> c) & 1 ? NAN : mean * (1 + amp * jitter(c, w->rounds[c]));

                        w->rounds[c]++;
                        ASSERT_EQ(bisect_series_add(&v[k], x), 0);
                }
        w->step_rounds += more;
        return 0;
}

static void w_step(void *ud, const struct bisect_step *s) {
        struct world *w = ud;
        size_t len = strlen(w->steps);

        snprintf(w->steps + len, sizeof(w->steps) - len, "%s%s:%zu:%s", len ? " " : "", s->role, s->cand, s->decision);
        ASSERT_EQ(s->rounds, w->step_rounds);
        if (s->rounds > w->longest_step)
                w->longest_step = s->rounds;
        w->step_rounds = 0;
        w->n_steps++;
        /* A decision taken from another image names it, and costs no cell. */
        if (s->note && strcmp(s->note, "the same image") == 0) {
                ASSERT_EQ(s->rounds, 0);
                ASSERT_TRUE(w_same_image(w, s->cand, s->like) && s->like != s->cand);
        }
}

static const struct bisect_ops ops = { w_prepare, w_same_image, w_measure, w_step };

static struct bisect_params params(size_t max_rounds) {
        return (struct bisect_params){ .rule = { .target = 0.03, .alpha = 0.05, .power = 0.8, .pilot = 4,
                                                 .max_rounds = max_rounds ? max_rounds : 12 },
                                       .noise = 0.02, .dir = METRICS_LOWER };
}

#define GOOD 100.0
#define BAD 110.0

static const struct world_row worlds[] = {
        { "culprit in the middle", 7, { GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD }, 0.003,
          .outcome = BISECT_FIRST_BAD, .first_bad = 3, .last_good = 2, .confirmed = 1,
          .steps = "ends:6:different probe:3:bad probe:1:good probe:2:good confirm:3:different" },
        { "culprit first after good", 7, { GOOD, BAD, BAD, BAD, BAD, BAD, BAD }, 0.003,
          .outcome = BISECT_FIRST_BAD, .first_bad = 1, .last_good = 0, .confirmed = 1,
          .steps = "ends:6:different probe:3:bad probe:1:bad confirm:1:different" },
        { "culprit is the bad end", 7, { GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, BAD }, 0.003,
          .outcome = BISECT_FIRST_BAD, .first_bad = 6, .last_good = 5, .confirmed = 1,
          .steps = "ends:6:different probe:3:good probe:4:good probe:5:good confirm:6:different" },
        { "two candidates", 2, { GOOD, BAD }, 0.003,
          .outcome = BISECT_FIRST_BAD, .first_bad = 1, .last_good = 0, .confirmed = 1,
          .steps = "ends:1:different confirm:1:different" },
        { "a change for the better is found too", 5, { GOOD, GOOD, 90, 90, 90 }, 0.003,
          .outcome = BISECT_FIRST_BAD, .first_bad = 2, .last_good = 1, .confirmed = 1,
          .steps = "ends:4:different probe:2:bad probe:1:good confirm:2:different" },
        { "the ends are one image", 7, { GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD }, 0.003,
          .image = { 1, 0, 0, 0, 0, 0, 1 }, .outcome = BISECT_NO_CHANGE, .confirmed = -1,
          .steps = "ends:6:same" },
        { "ends measured alike", 7, { GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD }, 0.003,
          .outcome = BISECT_NO_CHANGE, .confirmed = -1, .steps = "ends:6:same" },
        { "a change inside the noise band is no change", 7, { GOOD, GOOD, GOOD, 101, 101, 101, 101 }, 0.001,
          .outcome = BISECT_NO_CHANGE, .confirmed = -1, .steps = "ends:6:same" },
        { "too noisy for the budget: cannot tell", 7, { GOOD, GOOD, GOOD, 103, 103, 103, 103 }, 0.08,
          .outcome = BISECT_CANNOT_TELL, .confirmed = -1, .steps = "ends:6:unknown" },
        { "a larger budget, the same cannot tell", 7, { GOOD, GOOD, GOOD, 103, 103, 103, 103 }, 0.08,
          .max_rounds = 20, .outcome = BISECT_CANNOT_TELL, .confirmed = -1, .steps = "ends:6:unknown" },
        { "the middle does not build", 7, { GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD }, 0.003, .no_build = 1u << 3,
          .outcome = BISECT_FIRST_BAD, .first_bad = 4, .last_good = 2, .confirmed = 1, .skipped_between = 1,
          .steps = "ends:6:different probe:3:skipped probe:2:good probe:4:bad confirm:4:different" },
        { "the middle does not boot", 7, { GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD }, 0.003, .no_value = 1u << 3,
          .outcome = BISECT_FIRST_BAD, .first_bad = 4, .last_good = 2, .confirmed = 1, .skipped_between = 1,
          .steps = "ends:6:different probe:3:skipped probe:2:good probe:4:bad confirm:4:different" },
        { "a skipped candidate after the first bad is not between", 7, { GOOD, GOOD, BAD, BAD, BAD, BAD, BAD },
          0.003, .no_value = 1u << 3, .outcome = BISECT_FIRST_BAD, .first_bad = 2, .last_good = 1, .confirmed = 1,
          .steps = "ends:6:different probe:3:skipped probe:2:bad probe:1:good confirm:2:different" },
        { "identical images take the decided verdict", 9, { GOOD, GOOD, GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD },
          0.003, .image = { 1, 0, 0, 0, 1, 0, 2, 0, 2 }, .outcome = BISECT_FIRST_BAD, .first_bad = 5,
          .last_good = 4, .confirmed = 1,
          .steps = "ends:8:different probe:4:good probe:6:bad probe:5:bad confirm:5:different" },
        { "the first bad does not reproduce against the last good", 7, { GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD },
          0.003, .flat_confirm = 1, .outcome = BISECT_FIRST_BAD, .first_bad = 3, .last_good = 2, .confirmed = 0,
          .steps = "ends:6:different probe:3:bad probe:1:good probe:2:good confirm:3:unknown" },
        { "a step that cannot tell within the budget", 7, { GOOD, GOOD, GOOD, BAD, BAD, BAD, BAD }, 0.003,
          .noisy = 1u << 3, .outcome = BISECT_CANNOT_TELL, .confirmed = -1, .steps = "ends:6:different probe:3:unknown" },
        { "every candidate between is skipped", 5, { GOOD, GOOD, BAD, BAD, BAD }, 0.003,
          .no_build = 1u << 1 | 1u << 2, .no_value = 1u << 3, .outcome = BISECT_FIRST_BAD, .first_bad = 4,
          .last_good = 0, .confirmed = 1, .skipped_between = 3,
          .steps = "ends:4:different probe:2:skipped probe:1:skipped probe:3:skipped confirm:4:different" },
};

static const struct world_row *row_named(const char *name) {
        for (size_t k = 0; k < ELEMENTSOF(worlds); k++)
                if (strcmp(worlds[k].name, name) == 0)
                        return &worlds[k];
        TEST_FAIL("no world named '%s'", name);
}

TEST(worlds) {
        for (size_t k = 0; k < ELEMENTSOF(worlds); k++) {
                const struct world_row *row = &worlds[k];
                struct world w = { .row = row };
                struct bisect_params p = params(row->max_rounds);
                enum bisect_state state[MAX_CAND] = { 0 };
                struct bisect_result res;

                fprintf(stderr, "-- %s\n", row->name);
                ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), 0);
                fprintf(stderr, "   steps: %s\n", w.steps);
                ASSERT_STREQ(w.steps, row->steps);
                ASSERT_EQ(res.outcome, row->outcome);
                ASSERT_EQ(res.confirmed, row->confirmed);
                ASSERT_EQ(res.steps, w.n_steps);
                if (row->outcome == BISECT_FIRST_BAD) {
                        ASSERT_EQ(res.first_bad, row->first_bad);
                        ASSERT_EQ(res.last_good, row->last_good);
                        ASSERT_EQ(res.skipped_between, row->skipped_between);
                        ASSERT_EQ(state[res.first_bad], BISECT_BAD);
                        ASSERT_EQ(state[res.last_good], BISECT_GOOD);
                        ASSERT_NEAR(res.change, row->mean[row->n - 1] / row->mean[0] - 1, 3 * row->noise);
                }
                /* "Cannot tell" only once the budget is spent, each step within it. */
                if (row->outcome == BISECT_CANNOT_TELL)
                        ASSERT_EQ(w.longest_step, p.rule.max_rounds);
                ASSERT_TRUE(w.longest_step <= p.rule.max_rounds);
                for (size_t i = 0; i < row->n; i++)
                        if ((row->no_build >> i) & 1)
                                ASSERT_EQ(w.rounds[i], 0);
        }
}

/* The reused candidates of "identical images" were never measured; the
 * last good was, in the confirmation only. */
TEST(reuse_measures_nothing) {
        const struct world_row *row = row_named("identical images take the decided verdict");
        struct world w = { .row = row };
        struct bisect_params p = params(0);
        enum bisect_state state[MAX_CAND] = { 0 };
        struct bisect_result res;

        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), 0);
        ASSERT_EQ(w.rounds[6], 0);
        ASSERT_TRUE(w.rounds[4] > 0 && w.rounds[5] > 0);
        ASSERT_EQ(state[4], BISECT_GOOD);
        ASSERT_EQ(state[6], BISECT_BAD);
        ASSERT_EQ(state[5], BISECT_BAD);
        ASSERT_EQ(state[1], BISECT_UNTESTED);
}

TEST(the_same_ends_measure_nothing) {
        const struct world_row *row = row_named("the ends are one image");
        struct world w = { .row = row };
        struct bisect_params p = params(0);
        enum bisect_state state[MAX_CAND] = { 0 };
        struct bisect_result res;

        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), 0);
        ASSERT_EQ(res.cells_rounds, 0);
        for (size_t i = 0; i < row->n; i++)
                ASSERT_EQ(w.rounds[i], 0);
        ASSERT_TRUE(isnan(res.change));
}

TEST(errors) {
        const struct world_row *row = &worlds[0];
        struct world w = { .row = row };
        struct bisect_params p = params(0);
        enum bisect_state state[MAX_CAND] = { 0 };
        struct bisect_result res;
        struct world_row broken_end = *row;

        /* Parameters the rule cannot work with. */
        ASSERT_EQ(bisect_search(&p, 1, &ops, &w, state, &res), -EINVAL);
        p.rule.pilot = 1;
        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), -EINVAL);
        p = params(0);
        p.rule.max_rounds = 3;
        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), -EINVAL);
        p = params(0);
        p.rule.target = 0;
        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), -EINVAL);
        /* An end that cannot be built: nothing to bisect. */
        p = params(0);
        broken_end.no_build = 1u << (row->n - 1);
        w = (struct world){ .row = &broken_end };
        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), -ENOEXEC);
        ASSERT_EQ(w.n_steps, 0);
        /* A measurement that fails stops the search with its error. */
        w = (struct world){ .row = row, .fail_measure = 1 };
        ASSERT_EQ(bisect_search(&p, row->n, &ops, &w, state, &res), -EIO);
}

TEST(classify) {
        static const struct {
                enum seqrule_verdict vs_good, vs_bad;
                enum bisect_state want;
        } rows[] = {
                { SEQRULE_SAME, SEQRULE_DIFFERENT, BISECT_GOOD },
                { SEQRULE_DIFFERENT, SEQRULE_SAME, BISECT_BAD },
                { SEQRULE_DIFFERENT, SEQRULE_DIFFERENT, BISECT_BAD },
                { SEQRULE_SAME, SEQRULE_SAME, BISECT_UNTESTED },
                { SEQRULE_NOT_YET, SEQRULE_DIFFERENT, BISECT_UNTESTED },
                { SEQRULE_DIFFERENT, SEQRULE_NOT_YET, BISECT_UNTESTED },
                { SEQRULE_SAME, SEQRULE_NOT_YET, BISECT_UNTESTED },
                { SEQRULE_NOT_YET, SEQRULE_SAME, BISECT_UNTESTED },
                { SEQRULE_NOT_YET, SEQRULE_NOT_YET, BISECT_UNTESTED },
        };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                ASSERT_EQ(bisect_classify(rows[i].vs_good, rows[i].vs_bad), rows[i].want);
}

TEST(names) {
        ASSERT_STREQ(bisect_outcome_name(BISECT_FIRST_BAD), "first-bad");
        ASSERT_STREQ(bisect_outcome_name(BISECT_NO_CHANGE), "no-change");
        ASSERT_STREQ(bisect_outcome_name(BISECT_CANNOT_TELL), "cannot-tell");
        ASSERT_STREQ(bisect_state_name(BISECT_SKIPPED), "skipped");
}
