/* decide/judgeopts.c: the judging parameters' table and what it drives
 * (see judgeopts.h). One range per parameter, the widest that still means
 * something for every rule that reads it: a test level over 0.5 is no
 * test, a noise band over 50 % hides any change a run could show, and a
 * bisection step needs two rounds before it has a spread to look at. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "decide/judgeopts.h"

#define OFF(f) offsetof(struct judge_opts, f)
#define FIELD(j, opt, type) ((type *)(void *)((char *)(j) + (opt)->offset))

const struct judgeopt judgeopt_table[] = {
        { "alpha", "alpha", JUDGEOPT_NUMBER, OFF(alpha), 0.0001, 0.5, "0.05",
          .help = "Test level, and the false discovery rate (Benjamini-Hochberg q) over a group's judged metrics; "
                  "0.0001..0.5 (default 0.05)", .arg = "Q" },
        { "noise", "noise", JUDGEOPT_PERCENT, OFF(noise), 0, 50, "2", .unit = "%", .file_fraction = 1,
          .help = "Noise band, %: a verdict needs the whole 95% CI of a change beyond it; 0..50 (default 2%)",
          .arg = "PCT" },
        { "pilot", NULL, JUDGEOPT_INT, OFF(pilot), 2, 1000, "4",
          .help = "Rounds of a step before the rule first looks; 2..1000 (default 4)", .arg = "N" },
        { "max-rounds", "bisect.max_rounds", JUDGEOPT_INT, OFF(max_rounds), 2, 1000, "12",
          .help = "Rounds a step may take before it is 'cannot tell'; 2..1000, at least --pilot (default 12)",
          .arg = "N" },
        { "target", NULL, JUDGEOPT_PERCENT, OFF(target), 0.1, 100, "3", .unit = "%",
          .help = "Change the ends must be able to show with 80% power, the noise band included, %; a step's is "
                  "the band plus half the ends' change; 0.1..100, beyond --noise (default 3)", .arg = "PCT" },
        /* Run settings: their rows are the run option table's. */
        { "until-mde", "until_mde", JUDGEOPT_RUN, .run_opt = "until-mde" },
        { "budget-cells", "budget_cells", JUDGEOPT_RUN, .run_opt = "budget-cells" },
        { "budget-time", "budget_time", JUDGEOPT_RUN, .run_opt = "budget-time" },
        { NULL },
};

const struct judgeopt *judgeopt_find(const char *name) {
        for (const struct judgeopt *opt = judgeopt_table; opt->name; opt++)
                if (strcmp(opt->name, name) == 0)
                        return opt;
        return NULL;
}

const struct judgeopt *judgeopt_find_key(const char *key) {
        for (const struct judgeopt *opt = judgeopt_table; opt->name; opt++)
                if (opt->key && strcmp(opt->key, key) == 0)
                        return opt;
        return NULL;
}

void judgeopt_describe(const struct judgeopt *opt, char *buf, size_t size) {
        static const char *const kinds[] = { [JUDGEOPT_NUMBER] = "a number", [JUDGEOPT_PERCENT] = "a percentage",
                                             [JUDGEOPT_INT] = "a whole number" };

        if (opt->type == JUDGEOPT_RUN)
                runopt_describe(runopt_find(opt->run_opt), buf, size);
        else
                snprintf(buf, size, "%s in %g..%g", kinds[opt->type], opt->min, opt->max);
}

/* The number of a command-line text, in the unit users write, not yet
 * range checked: a percentage may end in '%'. Returns 0 or -EINVAL. */
static int parse_text(const struct judgeopt *opt, const char *text, double *ret) {
        char num[64];
        size_t len = strlen(text);
        union parse_value v;
        int r;

        if (opt->type == JUDGEOPT_PERCENT && len >= 2 && len < sizeof(num) && text[len - 1] == '%') {
                snprintf(num, sizeof(num), "%.*s", (int)(len - 1), text);
                text = num;
        }
        r = parse_number(text, opt->type == JUDGEOPT_INT ? PARSE_UINT : PARSE_REAL,
                         opt->type == JUDGEOPT_INT ? 0 : -HUGE_VAL, HUGE_VAL, &v);
        if (r < 0)
                return -EINVAL;
        *ret = opt->type == JUDGEOPT_INT ? (double)v.u : v.d;
        return 0;
}

/* Written so that a NaN fails it too. */
static int in_range(const struct judgeopt *opt, double x) {
        return x >= opt->min && x <= opt->max;
}

static void store(struct judge_opts *j, const struct judgeopt *opt, double x) {
        if (opt->type == JUDGEOPT_INT)
                *FIELD(j, opt, int) = (int)x;
        else
                *FIELD(j, opt, double) = opt->type == JUDGEOPT_PERCENT ? x / 100 : x;
}

int judgeopt_set(struct judge_opts *j, const struct judgeopt *opt, const char *text, struct kb_error *err) {
        char what[96];
        double x;

        if (opt->type == JUDGEOPT_RUN)
                return error_setf(err, -EINVAL, "--%s is a run option", opt->name);
        if (parse_text(opt, text, &x) < 0 || !in_range(opt, x)) {
                judgeopt_describe(opt, what, sizeof(what));
                return error_setf(err, -EINVAL, "--%s " ERROR_VAL " is not %s", opt->name, ERROR_VALARG(text), what);
        }
        store(j, opt, x);
        return 0;
}

void judgeopts_defaults(struct judge_opts *j) {
        *j = (struct judge_opts){ 0 };
        for (const struct judgeopt *opt = judgeopt_table; opt->name; opt++)
                if (opt->type != JUDGEOPT_RUN) {
                        int r = judgeopt_set(j, opt, opt->def, NULL);
                        g_assert(r == 0);      /* the table's own defaults pass its checks */
                }
}

/* In the nightly file a percentage row's bare number is a fraction, as the
 * file has always been documented; its bounds there are the same. */
static double file_scale(const struct judgeopt *opt) {
        return opt->type == JUDGEOPT_PERCENT && opt->file_fraction ? 100 : 1;
}

void judgeopt_file_terms(const struct judgeopt *opt, const char **ret_kind, char *def, char *range, size_t size) {
        double s = file_scale(opt), d = 0;

        *ret_kind = opt->type == JUDGEOPT_INT ? "integer" : opt->file_fraction ? "number or percentage" : "number";
        (void)parse_text(opt, opt->def, &d);
        snprintf(def, size, "%g", d / s);
        snprintf(range, size, "%g..%g", opt->min / s, opt->max / s);
}

/* A file value as a number in the unit users write on the command line.
 * Returns 0 or -EINVAL with what was expected. */
static int json_number_of(const struct judgeopt *opt, const json_t *v, double *ret, struct kb_error *err) {
        const char *t = json_is_string(v) ? json_string_value(v) : NULL;
        size_t len = t ? strlen(t) : 0;

        if (opt->type == JUDGEOPT_INT) {
                if (!json_is_integer(v))
                        return error_setf(err, -EINVAL, "expected an integer");
                *ret = (double)json_integer_value(v);
                return 0;
        }
        if (opt->file_fraction && t && len >= 2 && t[len - 1] == '%' && len == json_string_length(v) &&
            parse_text(opt, t, ret) == 0 && isfinite(*ret))
                return 0;
        if (opt->file_fraction && !json_is_number(v))
                return error_setf(err, -EINVAL, "expected a percentage such as \"2%%\" or a fraction such as 0.02");
        if (!json_is_number(v))
                return error_setf(err, -EINVAL, "expected a number");
        *ret = json_number_value(v) * file_scale(opt);
        return 0;
}

int judgeopt_parse_json(const struct judgeopt *opt, const json_t *v, double *ret, struct kb_error *err) {
        char what[96], given[80];
        double x;
        int r;

        if (opt->type == JUDGEOPT_RUN)
                return error_setf(err, -EINVAL, "a run setting");
        r = json_number_of(opt, v, &x, err);
        if (r < 0)
                return r;
        if (!in_range(opt, x)) {
                if (json_is_string(v))
                        snprintf(given, sizeof(given), "'" ERROR_VAL "'", ERROR_VALARG(json_string_value(v)));
                else if (json_is_integer(v))
                        snprintf(given, sizeof(given), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                else
                        snprintf(given, sizeof(given), "%g", json_number_value(v));
                if (opt->file_fraction)
                        return error_setf(err, -EINVAL, "%s is not a fraction in %g..%g or a percentage in %g%%..%g%%",
                                          given, opt->min / 100, opt->max / 100, opt->min, opt->max);
                judgeopt_describe(opt, what, sizeof(what));
                return error_setf(err, -EINVAL, "%s is not %s", given, what);
        }
        /* A fraction as the file wrote it, not through a percentage. */
        *ret = opt->file_fraction && json_is_number(v) ? json_number_value(v) :
               opt->type == JUDGEOPT_PERCENT ? x / 100 : x;
        return 0;
}

GOptionEntry *judgeopts_entries(const char *const *names, char **texts) {
        size_t n = g_strv_length((char **)names);
        GOptionEntry *e = g_new0(GOptionEntry, n + 1);

        for (size_t i = 0; i < n; i++) {
                const struct judgeopt *opt = judgeopt_find(names[i]);

                g_assert(opt && opt->type != JUDGEOPT_RUN);   /* a verb names rows of the table */
                e[i] = (GOptionEntry){ .long_name = opt->name, .arg = G_OPTION_ARG_STRING, .arg_data = &texts[i],
                                       .description = opt->help, .arg_description = opt->arg };
        }
        return e;
}

int judgeopts_apply(struct judge_opts *j, const char *const *names, char *const *texts, struct kb_error *err) {
        for (size_t i = 0; names[i]; i++) {
                int r = texts[i] ? judgeopt_set(j, judgeopt_find(names[i]), texts[i], err) : 0;

                if (r < 0)
                        return r;
        }
        return 0;
}

/* A field's name in a message: "--pilot" or "bisect.max_rounds"; a field
 * the file has no key for (the pilot, set by the night) by its flag. */
static const char *named(const char *name, enum judgeopts_spelling spelling, char *buf, size_t size) {
        const struct judgeopt *opt = judgeopt_find(name);

        if (spelling == JUDGEOPTS_KEYS && opt->key)
                snprintf(buf, size, "%s", opt->key);
        else
                snprintf(buf, size, "--%s", opt->name);
        return buf;
}

static int check_bisect(const struct judge_opts *j, enum judgeopts_spelling sp, struct kb_error *err) {
        char a[32], b[32];

        /* The nightly file has no pilot: a night's is the table's. */
        if (j->max_rounds < j->pilot && sp == JUDGEOPTS_KEYS)
                return error_setf(err, -EINVAL, "%s %d is less than the pilot (%d rounds, kbench bisect's default)",
                                  named("max-rounds", sp, a, sizeof(a)), j->max_rounds, j->pilot);
        if (j->max_rounds < j->pilot)
                return error_setf(err, -EINVAL, "%s %d is less than the pilot (%s %d)",
                                  named("max-rounds", sp, a, sizeof(a)), j->max_rounds,
                                  named("pilot", sp, b, sizeof(b)), j->pilot);
        if (j->target <= j->noise)
                return error_setf(err, -EINVAL, "%s %g%% lies within the noise band (%s %g%%): a verdict needs the "
                                  "whole interval of a change beyond it, so the target must be larger",
                                  named("target", sp, a, sizeof(a)), 100 * j->target,
                                  named("noise", sp, b, sizeof(b)), 100 * j->noise);
        return 0;
}

static int check_until_mde(const struct judge_opts *j, const struct run_settings *run, enum judgeopts_spelling sp,
                           struct kb_error *err) {
        char u[32], c[32], t[32];

        named("until-mde", sp, u, sizeof(u));
        named("budget-cells", sp, c, sizeof(c));
        named("budget-time", sp, t, sizeof(t));
        if (run->until_mde_pct <= 0 && (run->budget_cells > 0 || run->budget_time_s > 0))
                return error_setf(err, -EINVAL, "%s and %s are budgets of %s", c, t, u);
        if (run->until_mde_pct <= 0)
                return 0;
        if (run->budget_cells <= 0 && run->budget_time_s <= 0)
                return error_setf(err, -EINVAL, "%s needs a budget: %s%s or %s%s", u, c,
                                  sp == JUDGEOPTS_FLAGS ? " N" : "", t, sp == JUDGEOPTS_FLAGS ? " S" : "");
        /* No change within the band is ever called, so no run could meet
         * a target inside it. */
        if (run->until_mde_pct / 100 <= j->noise)
                return error_setf(err, -EINVAL, "%s %g%% lies within %s (%g%%): a verdict needs the whole "
                                  "interval of a change beyond it, so the target must be larger", u,
                                  run->until_mde_pct, sp == JUDGEOPTS_KEYS ? "noise" : "compare's noise band",
                                  100 * j->noise);
        return 0;
}

int judgeopts_check(const struct judge_opts *j, const struct run_settings *run, unsigned checks,
                    enum judgeopts_spelling spelling, struct kb_error *err) {
        int r = 0;

        if (checks & JUDGEOPTS_CHECK_BISECT)
                r = check_bisect(j, spelling, err);
        if (r == 0 && (checks & JUDGEOPTS_CHECK_UNTIL_MDE))
                r = check_until_mde(j, run, spelling, err);
        return r;
}
