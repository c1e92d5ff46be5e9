/* nightly/nightly_measured.c: the settings fingerprint and the question
 * "measured already?" (see nightly_measured.h). "The same settings" is
 * what `kbench compare` pairs cells by (compare_pairing_key: the run's
 * settings less those that do not shape a measurement, overlaid with the
 * cell's params), so nightly and compare cannot disagree on it. A plan is
 * the runner options the night would run with, saved as the runner saves
 * them and keyed the same way: the option table, not this file, says which
 * settings count. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "common/util.h"
#include "nightly/nightly_measured.h"
#include "settings/runopts.h"
#include "report/compare.h"
#include "results/query.h"

/* sha256 hex of the pairing key of (settings, params). */
static int key_digest(const char *settings_json, const char *params_json, char **ret, struct kb_error *err) {
        _cleanup_free_ char *key = NULL, *spec = NULL;
        int r = compare_pairing_key(settings_json, params_json, "", NULL, &key, &spec, err);

        if (r < 0)
                return r;
        *ret = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key, -1);
        return 0;
}

char *nightly_fingerprint(const struct run_settings *o, const char *accel, const char *workload) {
        json_auto_t *j = json_object(), *params = json_object();
        _cleanup_free_ char *settings = NULL, *ptext = NULL;
        char *fp = NULL;

        /* What run/runner.c stores: the saved options, the accelerator
         * the cells run with, and the list of keys that are how it ran. */
        runopts_save(o, j);
        json_object_set_new(j, "accel", json_string(accel ? accel : ""));
        json_object_set_new(j, RUNOPTS_HOW_KEYS, runopts_how_keys());
        json_object_set_new(params, "workload", json_string(workload ? workload : ""));
        settings = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        ptext = json_dumps(params, JSON_COMPACT);
        if (key_digest(settings, ptext, &fp, NULL) < 0)
                abort();   /* an object we just built */
        return fp;
}

int nightly_fingerprint_stored(const char *run_settings_json, const char *cell_params_json, char **ret,
                               struct kb_error *err) {
        json_auto_t *run = json_loads(run_settings_json ? run_settings_json : "", 0, NULL);
        json_auto_t *cell = json_loads(cell_params_json ? cell_params_json : "", 0, NULL);

        if (!json_is_object(run))
                return error_setf(err, -EINVAL, "run settings: not a JSON object");
        if (!json_is_object(cell) || !json_is_string(json_object_get(cell, "workload")))
                return error_setf(err, -EINVAL, "cell params: not the object runs store (no workload)");
        return key_digest(run_settings_json, cell_params_json, ret, err);
}

int nightly_measured(struct db *db, const char *kernel_id, const char *fingerprint, size_t *ret_n_ok,
                     struct kb_error *err) {
        struct query_run *runs = NULL;
        size_t n_runs = 0, n_ok = 0;
        int r = query_runs(db, &runs, &n_runs, err);

        if (r < 0)
                return r;
        for (size_t i = 0; i < n_runs && r >= 0; i++) {
                g_autoptr(GHashTable) counted = NULL;
                struct query_cell *cells = NULL;
                size_t n_cells = 0;

                if (runs[i].n_ok == 0)
                        continue;
                r = query_cells(db, runs[i].id, &cells, &n_cells, err);
                if (r < 0)
                        break;
                counted = g_hash_table_new(g_str_hash, g_str_equal);
                for (size_t c = 0; c < n_cells; c++) {
                        g_autofree char *fp = NULL;
                        struct query_cell *qc = &cells[c];

                        if (strcmp(qc->state, "ok") != 0 || strcmp(qc->kernel_id, kernel_id) != 0 ||
                            g_hash_table_contains(counted, qc->cell_key))
                                continue;
                        /* A row this build cannot read (older layout) is not a
                         * measurement with these settings. */
                        if (nightly_fingerprint_stored(runs[i].settings_json, qc->params_json, &fp, NULL) < 0 ||
                            strcmp(fp, fingerprint) != 0)
                                continue;
                        g_hash_table_add(counted, qc->cell_key);
                        n_ok++;
                }
                query_cells_free(cells, n_cells);
        }
        query_runs_free(runs, n_runs);
        if (r < 0)
                return r;
        *ret_n_ok = n_ok;
        return 0;
}
