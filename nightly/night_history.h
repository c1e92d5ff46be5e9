/* nightly/night_history: what a night reads from the results database and
 * writes into it, in the night's terms: the runs an earlier night left
 * unfinished, how often a kernel was measured already, the kernels and
 * failed cells of a run, a comparison of two selections, a judged
 * metric's history of run means, the earlier nights' comparisons that
 * thread tonight's mail, a bisection's steps, and tonight's record for
 * the site. The steps of a night (night_int.h) reach results/ only
 * through here, so what a night asks of the store is one list. */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_report.h"
#include "report/view.h"
#include "results/db.h"

/* The runs tagged tag that ended before their last cell: "interrupted",
 * or "running" (the caller holds the store's lock, so such a run's kbench
 * is dead). OUT: *ret_ids (g_free), *ret_n. Returns 0 or -errno. */
int night_history_resumable(struct db *db, const char *tag, int64_t **ret_ids, size_t *ret_n, struct kb_error *err);

/* Whether run ended interrupted (1), leaving cells for the next night;
 * 0 otherwise or when it cannot be read. */
int night_history_interrupted(struct db *db, int64_t run);

/* The kernels run measured, by first cell: their store ids and names,
 * each NULL-terminated. OUT: *ret_ids, *ret_names (g_strfreev). Returns 0
 * or -errno. */
int night_history_kernels(struct db *db, int64_t run, char ***ret_ids, char ***ret_names, struct kb_error *err);

/* How many ok cells of kernel_id the results hold over the fingerprints
 * fps (NULL-terminated, nightly_measured.h: one per host the cells may
 * have run on), summed. OUT: *ret. Returns 0 or -errno. */
int night_history_count_ok(struct db *db, const char *kernel_id, char *const *fps, size_t *ret,
                           struct kb_error *err);

/* What a regression's report says of where its subject ran: g's host,
 * qemu, libvirt, cpu_model and mem_kib from stored run. Returns the run's
 * settings (new reference) for the commands that measure it again; NULL
 * (g untouched) when the run is gone. */
json_t *night_history_run_host(struct db *db, int64_t run, struct nightly_regression *g);

/* Compare's view of selectors a (the baseline's) and b at alpha and
 * noise (a fraction), paired as kbench compare pairs them
 * (decide/pairing.h). OUT: *ret (compare_view_free). Returns 0, -ENOENT
 * when a side has no ok cell, or -errno. */
int night_history_compare(struct db *db, const char *a, const char *b, double alpha, double noise,
                          struct compare_view **ret, struct kb_error *err);

/* Where v's change went (report/explain.h), loaded into v. Returns 0 or
 * -errno. */
int night_history_explain(struct db *db, struct compare_view *v, struct kb_error *err);

/* The latest attempt of each cell of kernel_id in run: r's total and
 * failed, and the first failed cell's state, detail and stage ("boot",
 * "workload" or "end"); r's kernel is left to the caller. Returns 0 or
 * -errno. */
int night_history_failures(struct db *db, int64_t run, const char *kernel_id, struct nightly_failure *r,
                           struct kb_error *err);

/* The store id of the kernel named name. OUT: *ret (g_free). Returns 0,
 * -ENOENT or -errno. */
int night_history_kernel_id(struct db *db, const char *name, char **ret, struct kb_error *err);

/* The stored steps of bisection id, one line each for the mail: what each
 * measured and what it decided. NULL-terminated (g_strfreev); NULL when
 * there is none (id 0: no bisection started) or it cannot be read. */
char **night_history_bisection_steps(struct db *db, int64_t id);

/* One point of a metric's history: one (run, kernel)'s mean. */
struct night_point {
        double v;
        int64_t run;
        char *kernel;                      /* the kernel's name, else its id (owned) */
};

/* The history of the judged metrics of the cells measured with
 * fingerprint fp, in run order: every (run, kernel) with ok cells of that
 * fingerprint is a point (a bisection's runs, which measure older kernels
 * after newer ones, are not history). */
struct night_series {
        GPtrArray *metrics;                /* char *: metric names in the order first seen (owned) */
        GHashTable *points;                /* metric -> GArray of struct night_point (owned) */
};

/* OUT: *ret (night_series_free). Returns 0 or -errno. */
int night_history_series(struct db *db, const char *fp, struct night_series **ret, struct kb_error *err);
struct night_series *night_series_free(struct night_series *s);   /* accepts NULL; returns NULL */

/* The mail threads of subject's regressions before the night started at
 * tonight (unix s), as nightly_mail_threads makes them from the nights
 * the store recorded, each of their comparisons of subject loaded again
 * from the cells as the site loads them; a night or a comparison that
 * cannot be loaded again says nothing, as on the site. domain: the
 * Message-IDs' (nightly_mail_id). Returns metric -> struct
 * nightly_thread (g_hash_table_unref). */
GHashTable *night_history_threads(struct db *db, const char *subject, double tonight, const char *domain);

/* Tonight and the comparisons it made (compares: subject, selector A,
 * selector B, three strings each) into the store (results/nights.h), so
 * the site and later nights follow each regression. Returns 0 or -errno. */
int night_history_record(struct db *db, double started_at, const char *baseline, double alpha, double noise,
                         const GPtrArray *compares, struct kb_error *err);
