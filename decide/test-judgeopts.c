/* test-judgeopts.c: the judging parameters' table. Each row's help states
 * its range and default; the command line and the nightly file take the
 * same values and refuse the same ones, each in its documented spelling
 * (a percentage on the command line, a fraction or "N%" in the file); the
 * check across fields names the fields as the caller spells them. */
#include <errno.h>
#include <stdio.h>

#include "common/test.h"
#include "common/util.h"
#include "decide/judgeopts.h"

TEST_MAIN();

/* --help says what is accepted: a row's help holds its range and default. */
TEST(help_states_range_and_default) {
        for (const struct judgeopt *opt = judgeopt_table; opt->name; opt++) {
                char range[64], def[64];

                if (opt->type == JUDGEOPT_RUN) {
                        ASSERT_TRUE(runopt_find(opt->run_opt) != NULL);
                        continue;
                }
                snprintf(range, sizeof(range), "%g..%g", opt->min, opt->max);
                snprintf(def, sizeof(def), "(default %s", opt->def);
                if (!strstr(opt->help, range) || !strstr(opt->help, def))
                        TEST_FAIL("--%s: help \"%s\" does not say %s and %s)", opt->name, opt->help, range, def);
        }
}

TEST(defaults) {
        struct judge_opts j;

        judgeopts_defaults(&j);
        ASSERT_NEAR(j.alpha, 0.05, 1e-12);
        ASSERT_NEAR(j.noise, 0.02, 1e-12);
        ASSERT_NEAR(j.target, 0.03, 1e-12);
        ASSERT_EQ(j.pilot, 4);
        ASSERT_EQ(j.max_rounds, 12);
        /* A night's target at the default noise is the table's default. */
        ASSERT_NEAR(j.noise + JUDGEOPTS_NIGHT_TARGET_OVER_NOISE, j.target, 1e-12);
}

TEST(command_line) {
        static const struct { const char *name, *text; double want; } ok[] = {
                { "alpha", "0.01", 0.01 }, { "alpha", "0.5", 0.5 }, { "alpha", "0.0001", 0.0001 },
                { "noise", "2", 0.02 }, { "noise", "2%", 0.02 }, { "noise", "0", 0 }, { "noise", "50%", 0.5 },
                { "target", "5", 0.05 }, { "target", "0.5%", 0.005 },
                { "pilot", "2", 2 }, { "max-rounds", "1000", 1000 },
        };
        static const struct { const char *name, *text, *msg; } bad[] = {
                { "alpha", "0", "--alpha 0 is not a number in 0.0001..0.5" },
                { "alpha", "0.7", "--alpha 0.7 is not a number in 0.0001..0.5" },
                { "alpha", "nan", "--alpha nan is not a number in 0.0001..0.5" },
                { "noise", "60%", "--noise 60% is not a percentage in 0..50" },
                { "noise", "-1", "--noise -1 is not a percentage in 0..50" },
                { "noise", "2 %", "--noise 2 % is not a percentage in 0..50" },
                { "noise", "%", "--noise % is not a percentage in 0..50" },
                { "pilot", "0", "--pilot 0 is not a whole number in 2..1000" },
                { "pilot", "4.5", "--pilot 4.5 is not a whole number in 2..1000" },
                { "max-rounds", "1001", "--max-rounds 1001 is not a whole number in 2..1000" },
                { "target", "0", "--target 0 is not a percentage in 0.1..100" },
        };
        struct judge_opts j;
        struct kb_error err = { { 0 } };

        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                const struct judgeopt *opt = judgeopt_find(ok[i].name);
                judgeopts_defaults(&j);
                ASSERT_EQ(judgeopt_set(&j, opt, ok[i].text, &err), 0);
                if (opt->type == JUDGEOPT_INT)
                        ASSERT_EQ(*(int *)(void *)((char *)&j + opt->offset), (int)ok[i].want);
                else
                        ASSERT_NEAR(*(double *)(void *)((char *)&j + opt->offset), ok[i].want, 1e-12);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                judgeopts_defaults(&j);
                ASSERT_EQ(judgeopt_set(&j, judgeopt_find(bad[i].name), bad[i].text, &err), -EINVAL);
                ASSERT_STREQ(err.msg, bad[i].msg);
        }
}

/* The nightly file's keys, as docs/nightly.md has always spelled them. */
TEST(nightly_file) {
        static const struct { const char *key, *json; double want; } ok[] = {
                { "alpha", "0.01", 0.01 }, { "noise", "0.03", 0.03 }, { "noise", "\"3%\"", 0.03 },
                { "noise", "0", 0 }, { "bisect.max_rounds", "20", 20 }, { "bisect.max_rounds", "2", 2 },
        };
        static const struct { const char *key, *json, *msg; } bad[] = {
                { "alpha", "0.9", "0.9 is not a number in 0.0001..0.5" },
                { "alpha", "\"0.05\"", "expected a number" },
                { "noise", "-0.1", "-0.1 is not a fraction in 0..0.5 or a percentage in 0%..50%" },
                { "noise", "\"60%\"", "'60%' is not a fraction in 0..0.5 or a percentage in 0%..50%" },
                { "noise", "\"2\"", "expected a percentage such as \"2%\" or a fraction such as 0.02" },
                { "noise", "true", "expected a percentage such as \"2%\" or a fraction such as 0.02" },
                { "bisect.max_rounds", "1", "1 is not a whole number in 2..1000" },
                { "bisect.max_rounds", "12.5", "expected an integer" },
        };
        struct kb_error err = { { 0 } };
        double x;

        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                json_auto_t *v = json_loads(ok[i].json, JSON_DECODE_ANY, NULL);
                ASSERT_EQ(judgeopt_parse_json(judgeopt_find_key(ok[i].key), v, &x, &err), 0);
                ASSERT_NEAR(x, ok[i].want, 1e-12);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                json_auto_t *v = json_loads(bad[i].json, JSON_DECODE_ANY, NULL);
                ASSERT_EQ(judgeopt_parse_json(judgeopt_find_key(bad[i].key), v, &x, &err), -EINVAL);
                ASSERT_STREQ(err.msg, bad[i].msg);
        }
}

TEST(file_terms) {
        const char *kind;
        char def[32], range[32];

        judgeopt_file_terms(judgeopt_find_key("noise"), &kind, def, range, sizeof(def));
        ASSERT_STREQ(kind, "number or percentage");
        ASSERT_STREQ(def, "0.02");
        ASSERT_STREQ(range, "0..0.5");
        judgeopt_file_terms(judgeopt_find_key("alpha"), &kind, def, range, sizeof(def));
        ASSERT_STREQ(kind, "number");
        ASSERT_STREQ(range, "0.0001..0.5");
        judgeopt_file_terms(judgeopt_find_key("bisect.max_rounds"), &kind, def, range, sizeof(def));
        ASSERT_STREQ(kind, "integer");
        ASSERT_STREQ(def, "12");
}

TEST(entries_and_apply) {
        static const char *const names[] = { "alpha", "noise", NULL };
        char *texts[2] = { NULL, g_strdup("3%") };
        g_autofree GOptionEntry *e = judgeopts_entries(names, texts);
        struct judge_opts j;
        struct kb_error err = { { 0 } };

        ASSERT_STREQ(e[0].long_name, "alpha");
        ASSERT_STREQ(e[1].long_name, "noise");
        ASSERT_TRUE(e[2].long_name == NULL);
        judgeopts_defaults(&j);
        ASSERT_EQ(judgeopts_apply(&j, names, texts, &err), 0);
        ASSERT_NEAR(j.alpha, 0.05, 1e-12);
        ASSERT_NEAR(j.noise, 0.03, 1e-12);
        g_free(texts[1]);
}

TEST(across_fields) {
        static const struct {
                int pilot, max_rounds;
                double target, noise, until_mde;
                int cells;
                double time_s;
                unsigned checks;
                enum judgeopts_spelling sp;
                const char *msg;           /* NULL: accepted */
        } cases[] = {
                { 4, 12, 0.03, 0.02, 0, 0, 0, JUDGEOPTS_CHECK_BISECT, JUDGEOPTS_FLAGS, NULL },
                { 4, 4, 0.03, 0.02, 0, 0, 0, JUDGEOPTS_CHECK_BISECT, JUDGEOPTS_FLAGS, NULL },
                { 4, 3, 0.03, 0.02, 0, 0, 0, JUDGEOPTS_CHECK_BISECT, JUDGEOPTS_FLAGS,
                  "--max-rounds 3 is less than the pilot (--pilot 4)" },
                { 4, 3, 0.03, 0.02, 0, 0, 0, JUDGEOPTS_CHECK_BISECT, JUDGEOPTS_KEYS,
                  "bisect.max_rounds 3 is less than the pilot (4 rounds, kbench bisect's default)" },
                { 4, 12, 0.02, 0.02, 0, 0, 0, JUDGEOPTS_CHECK_BISECT, JUDGEOPTS_FLAGS,
                  "--target 2% lies within the noise band (--noise 2%): a verdict needs the whole interval of a "
                  "change beyond it, so the target must be larger" },
                /* A compare or a run never looks at the bisection's. */
                { 4, 3, 0.01, 0.02, 0, 0, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_FLAGS, NULL },
                { 4, 12, 0.03, 0.02, 5, 40, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_FLAGS, NULL },
                { 4, 12, 0.03, 0.02, 5, 0, 1800, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_KEYS, NULL },
                { 4, 12, 0.03, 0.02, 5, 0, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_FLAGS,
                  "--until-mde needs a budget: --budget-cells N or --budget-time S" },
                { 4, 12, 0.03, 0.02, 5, 0, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_KEYS,
                  "until_mde needs a budget: budget_cells or budget_time" },
                { 4, 12, 0.03, 0.02, 0, 8, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_KEYS,
                  "budget_cells and budget_time are budgets of until_mde" },
                { 4, 12, 0.03, 0.02, 0, 0, 60, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_FLAGS,
                  "--budget-cells and --budget-time are budgets of --until-mde" },
                { 4, 12, 0.03, 0.05, 5, 40, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_KEYS,
                  "until_mde 5% lies within noise (5%): a verdict needs the whole interval of a change beyond "
                  "it, so the target must be larger" },
                { 4, 12, 0.03, 0.02, 2, 40, 0, JUDGEOPTS_CHECK_UNTIL_MDE, JUDGEOPTS_FLAGS,
                  "--until-mde 2% lies within compare's noise band (2%): a verdict needs the whole interval of a "
                  "change beyond it, so the target must be larger" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct judge_opts j = { .alpha = 0.05, .noise = cases[i].noise, .target = cases[i].target,
                                        .pilot = cases[i].pilot, .max_rounds = cases[i].max_rounds };
                struct run_settings run;
                struct kb_error err = { { 0 } };
                int r;

                runopts_defaults(&run);
                run.until_mde_pct = cases[i].until_mde;
                run.budget_cells = cases[i].cells;
                run.budget_time_s = cases[i].time_s;
                r = judgeopts_check(&j, &run, cases[i].checks, cases[i].sp, &err);
                if (!cases[i].msg) {
                        if (r != 0)
                                TEST_FAIL("case %zu refused: %s", i, err.msg);
                        continue;
                }
                ASSERT_EQ(r, -EINVAL);
                ASSERT_STREQ(err.msg, cases[i].msg);
        }
}
