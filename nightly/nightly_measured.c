/* nightly/nightly_measured.c: the settings fingerprint and the question
 * "measured already?" (see nightly_measured.h). "The same settings" is
 * what `kbench compare` pairs cells by (settings/pairkey.h: the run's
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
#include "results/cellstate.h"
#include "results/query.h"
#include "settings/pairkey.h"
#include "settings/runopts.h"

/* sha256 hex of a cell's pairing key, from its settings (params over its
 * run's settings, pairkey_cell_settings): NULL when they are not a cell's
 * as runs store them (unreadable params, or no workload). */
static char *digest(const json_t *cell_settings) {
        struct pairkey *k = NULL;
        char *fp;

        if (json_object_get(cell_settings, PAIRKEY_PARAMS_RAW) ||
            !json_is_string(json_object_get(cell_settings, "workload")) ||
            pairkey_new(cell_settings, "", NULL, &k, NULL) < 0)
                return NULL;
        fp = g_compute_checksum_for_string(G_CHECKSUM_SHA256, k->canon, -1);
        pairkey_unref(k);
        return fp;
}

char *nightly_fingerprint(const struct run_settings *o, const char *accel, const char *workload, const char *host) {
        json_auto_t *cell = json_object();
        char *fp;

        /* What run/runner_store.c stores for such a cell, params over settings:
         * the saved options, the accelerator the cells run with, the list
         * of keys that are how it ran, and the workload. */
        runopts_save(o, cell);
        json_object_set_new(cell, RUNOPTS_ACCEL_KEY, json_string(accel ? accel : ""));
        json_object_set_new(cell, RUNOPTS_HOW_KEYS, runopts_how_keys());
        json_object_set_new(cell, "workload", json_string(workload ? workload : ""));
        if (host)
                json_object_set_new(cell, RUNOPTS_HOST_KEY, json_string(host));
        fp = digest(cell);
        if (!fp)
                abort();   /* an object we just built */
        return fp;
}

int nightly_fingerprint_stored(const char *run_settings_json, const char *cell_params_json, char **ret,
                               struct kb_error *err) {
        json_auto_t *run = json_loads(run_settings_json ? run_settings_json : "", 0, NULL), *cell = NULL;
        char *fp;

        if (!json_is_object(run))
                return error_setf(err, -EINVAL, "run settings: not a JSON object");
        cell = pairkey_cell_settings(run, cell_params_json ? cell_params_json : "");
        fp = digest(cell);
        if (!fp)
                return error_setf(err, -EINVAL, "cell params: not the object runs store (no workload)");
        *ret = fp;
        return 0;
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
                json_auto_t *settings = NULL;
                struct query_cell *cells = NULL;
                size_t n_cells = 0;

                if (runs[i].n_ok == 0)
                        continue;
                /* Unreadable settings (an older layout) measured nothing
                 * with these settings. */
                settings = json_loads(runs[i].settings_json ? runs[i].settings_json : "", 0, NULL);
                if (!json_is_object(settings))
                        continue;
                r = query_cells(db, runs[i].id, &cells, &n_cells, err);
                if (r < 0)
                        break;
                counted = g_hash_table_new(g_str_hash, g_str_equal);
                for (size_t c = 0; c < n_cells; c++) {
                        g_autofree char *fp = NULL;
                        json_auto_t *cell = NULL;
                        struct query_cell *qc = &cells[c];

                        if (!cellstate_is(qc->state, CELLSTATE_OK) || strcmp(qc->kernel_id, kernel_id) != 0 ||
                            g_hash_table_contains(counted, qc->cell_key))
                                continue;
                        /* A row this build cannot read (older layout) is not a
                         * measurement with these settings. */
                        cell = pairkey_cell_settings(settings, qc->params_json ? qc->params_json : "");
                        fp = digest(cell);
                        if (!fp || strcmp(fp, fingerprint) != 0)
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
