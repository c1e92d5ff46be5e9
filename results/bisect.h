/* results/bisect: the rows of a bisection (bisect/bisect.h): the search
 * itself in bisections, each candidate it measured or skipped in
 * bisect_steps. Written as the search goes, so an interrupted bisection
 * keeps the steps it finished; read back for `kbench show --bisect` and the
 * site. Everything read is untrusted: NULL columns stay NULL. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/db.h"

struct db_bisection {
        int64_t id;                /* set by db_bisection_create */
        const char *workload, *metric;
        const char *source;        /* "kernels" or "git:<dir>" */
        const char *good, *bad;
        const char *settings_json;
        double started_at;
};

struct db_bisect_step {
        int64_t bisection_id;
        int step;
        const char *role;          /* ends, probe, confirm */
        const char *candidate;     /* kernel name or commit id */
        const char *kernel_id;     /* NULL: it did not build */
        const char *run_ids_json;  /* JSON array */
        int rounds;
        const char *vs_good, *vs_bad;   /* seqrule verdict names, or NULL */
        const char *decision;
        double mean_good, mean_cand, mean_bad;   /* NAN: none */
        const char *note;          /* or NULL */
};

int db_bisection_create(struct db *db, struct db_bisection *b, struct kb_error *err);
int db_bisect_step_add(struct db *db, const struct db_bisect_step *s, struct kb_error *err);
int db_bisection_finish(struct db *db, int64_t id, const char *status, const char *outcome, const char *first_bad,
                        const char *summary_json, struct kb_error *err);

/* What is read back (owned strings, NULL where the column is NULL). */
struct bisect_step_row {
        int step, rounds;
        char *role, *candidate, *kernel_id, *run_ids_json, *vs_good, *vs_bad, *decision, *note;
        char *kernel;              /* the kernel's name: known to the bisection that measured it, not stored
                                      (NULL when read back) */
        double mean_good, mean_cand, mean_bad;
};

struct bisect_row {
        int64_t id;
        double started_at, finished_at;    /* finished_at NAN while running */
        char *status, *workload, *metric, *source, *good, *bad, *settings_json, *outcome, *first_bad,
             *summary_json;
        struct bisect_step_row *steps;     /* db_bisection_get only */
        size_t n_steps;
};

/* Every bisection, newest first, without steps. OUT: *ret, *ret_n. */
int db_bisections_list(struct db *db, struct bisect_row **ret, size_t *ret_n, struct kb_error *err);
/* One bisection with its steps; -ENOENT naming id when there is none. */
int db_bisection_get(struct db *db, int64_t id, struct bisect_row **ret, struct kb_error *err);
void bisect_rows_free(struct bisect_row *rows, size_t n);
