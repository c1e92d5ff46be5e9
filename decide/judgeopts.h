/* decide/judgeopts: what a judging parameter is, as one table. A verdict
 * and the rules built on it (compare's, a bisection's steps, --until-mde's
 * rounds, a night's comparisons and bisections) take the same few numbers:
 * the test level (alpha), the noise band, and for a bisection its pilot,
 * its largest number of rounds and the change its ends must be able to
 * show (target). Each is one row here with its flag, its key in nightly's
 * configuration, its range, unit, default and help, so `kbench compare`,
 * `kbench bisect` and the nightly file parse and check it alike, and a
 * value one of them refuses no other accepts (settings/runopts.c does the
 * same for run options). --until-mde and its budgets are run settings
 * (saved with a run, resumed): their rows are the run option table's, and
 * this table names them only for the one check across fields,
 * judgeopts_check, which every caller makes. */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stddef.h>

#include "common/error.h"
#include "settings/runopts.h"

/* The judging parameters' values, in the units the rules use. */
struct judge_opts {
        double alpha;              /* test level, and the Benjamini-Hochberg q of a group's verdicts */
        double noise;              /* noise band, a fraction (0.02 = 2 %) */
        double target;             /* a bisection's ends' minimum detectable effect, a fraction */
        int pilot;                 /* a bisection step's rounds before its rule first looks */
        int max_rounds;            /* rounds a bisection step may take before it is "cannot tell" */
};

/* A night's bisection aims one point beyond its noise band (its file has
 * no target key): at the default noise that is the table's default target,
 * 3 %. A fraction. */
#define JUDGEOPTS_NIGHT_TARGET_OVER_NOISE 0.01

enum judgeopt_type {
        JUDGEOPT_NUMBER,           /* double field, as written */
        JUDGEOPT_PERCENT,          /* double field holding a fraction; written as a percentage ("2", "2%") */
        JUDGEOPT_INT,              /* int field, a whole number */
        JUDGEOPT_RUN,              /* a run setting: the run option row run_opt (settings/runopts.h) */
};

struct judgeopt {
        const char *name;          /* the long option, without "--" */
        const char *key;           /* the key path in nightly's configuration; NULL: none */
        enum judgeopt_type type;
        size_t offset;             /* of the field in struct judge_opts (not JUDGEOPT_RUN) */
        double min, max;           /* inclusive, as users write it: percent for JUDGEOPT_PERCENT */
        const char *def;           /* default as users type it on the command line */
        const char *unit;          /* what a bare number means on the command line, named in help */
        const char *help;          /* for --help, without the range and default (added from the row) */
        const char *arg;           /* metavariable in --help */
        int file_fraction;         /* JUDGEOPT_PERCENT: in the nightly file a bare number is a fraction
                                      (0.02), as it is documented; "2%" is a percentage there too */
        const char *run_opt;       /* JUDGEOPT_RUN: the run option's name */
};

/* The table, terminated by a row with name == NULL. */
extern const struct judgeopt judgeopt_table[];

/* The row of option name (without "--"), or NULL. */
const struct judgeopt *judgeopt_find(const char *name);

/* The row of a nightly key path ("alpha", "bisect.max_rounds"), or NULL. */
const struct judgeopt *judgeopt_find_key(const char *key);

/* Fill j with every row's default. */
void judgeopts_defaults(struct judge_opts *j);

/* What the row's values are, as messages say it: "a number in
 * 0.0001..0.5", "a percentage in 0..50", "a whole number in 2..1000". */
void judgeopt_describe(const struct judgeopt *opt, char *buf, size_t size);

/* Set opt's field of j from command-line text, range checked ("2", "2%"
 * for a percentage). Returns 0, or -EINVAL with err naming the flag
 * ("--alpha 0.7 is not a number in 0.0001..0.5"). */
int judgeopt_set(struct judge_opts *j, const struct judgeopt *opt, const char *text, struct kb_error *err);

/* The value of a nightly key, range checked, in the field's unit (a
 * fraction for a percentage; an int row's whole number as a double). A
 * JSON number, or for a file_fraction row a number (a fraction) or a
 * string "N%". Errors do not name the key (the caller knows its path):
 * "expected a number", "0.9 is not a number in 0.0001..0.5". OUT: *ret. */
int judgeopt_parse_json(const struct judgeopt *opt, const json_t *v, double *ret, struct kb_error *err);

/* What the row's values are in the nightly file, for its key reference:
 * the kind ("number", "number or percentage", "integer"), the default and
 * the range as the file writes them ("0.02", "0..0.5"). */
void judgeopt_file_terms(const struct judgeopt *opt, const char **ret_kind, char *def, char *range, size_t size);

/* GOption entries for the rows named in names (NULL-terminated), in that
 * order, writing each option's text into texts[i] (g_free). Help is the
 * row's, with its range and default. Caller g_frees the array. */
GOptionEntry *judgeopts_entries(const char *const *names, char **texts);

/* After GOption parsing: apply every given texts[i] of names[i] to j.
 * Returns 0 or the first option's error. */
int judgeopts_apply(struct judge_opts *j, const char *const *names, char *const *texts, struct kb_error *err);

/* How judgeopts_check names a field: as its flag (--budget-cells) or as
 * its key in the nightly file (budget_cells). */
enum judgeopts_spelling {
        JUDGEOPTS_FLAGS,
        JUDGEOPTS_KEYS,
};

/* What judgeopts_check looks at beyond alpha and noise. */
enum {
        JUDGEOPTS_CHECK_BISECT = 1 << 0,   /* pilot, max_rounds and target: a bisection runs with them */
        JUDGEOPTS_CHECK_UNTIL_MDE = 1 << 1,/* run's --until-mde and its budgets */
};

/* The rules across fields, each value already in its range: max_rounds at
 * least the pilot, the target beyond the noise band (a verdict needs the
 * whole interval of a change beyond it); --until-mde with a budget, a
 * budget only with --until-mde, and --until-mde beyond the noise band.
 * run may be NULL when checks has no JUDGEOPTS_CHECK_UNTIL_MDE. Returns 0
 * or -EINVAL with one line naming the fields as spelling says ("--until-mde
 * needs a budget: --budget-cells N or --budget-time S", "until_mde needs a
 * budget: budget_cells or budget_time"). */
int judgeopts_check(const struct judge_opts *j, const struct run_settings *run, unsigned checks,
                    enum judgeopts_spelling spelling, struct kb_error *err);
