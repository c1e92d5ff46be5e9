/* harness/nightly_measured.c: the settings fingerprint and the question
 * "measured already?" (see nightly_measured.h). "The same settings" is
 * what `kbench compare` pairs cells by (compare_pairing_key: the run's
 * settings less those that do not shape a measurement, overlaid with the
 * cell's params), so nightly and compare cannot disagree on it. A plan is
 * written in the shape runs store their settings in and keyed the same
 * way; absent and empty options, and the order of sysctls, are spelled one
 * way first. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "common/util.h"
#include "harness/nightly_measured.h"
#include "report/compare.h"
#include "results/query.h"

static int strcmp_p(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sha256 hex of the pairing key of (settings, params). */
static int key_digest(const char *settings_json, const char *params_json, char **ret, struct kb_error *err) {
        _cleanup_free_ char *key = NULL, *spec = NULL;
        int r = compare_pairing_key(settings_json, params_json, "", NULL, &key, &spec, err);

        if (r < 0)
                return r;
        *ret = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key, -1);
        return 0;
}

char *nightly_fingerprint(const struct nightly_settings *s) {
        json_auto_t *j = json_object();
        g_autoptr(GPtrArray) sorted = g_ptr_array_new();
        _cleanup_free_ char *text = NULL;
        char *fp = NULL;

        /* The keys and types harness/runner.c stores (settings_json and
         * params_json); sysctls only when there are some, as runs without
         * them carry no such key. */
        json_object_set_new(j, "workload", json_string(s->workload ? s->workload : ""));
        json_object_set_new(j, "mem_mb", json_integer(s->mem_mb));
        json_object_set_new(j, "cpus", json_integer(s->cpus));
        json_object_set_new(j, "disk_bytes", json_integer((json_int_t)s->disk_bytes));
        json_object_set_new(j, "disk_mbps", json_integer((json_int_t)s->disk_mbps));
        json_object_set_new(j, "fs", json_string(s->fs ? s->fs : ""));
        json_object_set_new(j, "mount_opts", json_string(s->mount_opts ? s->mount_opts : ""));
        json_object_set_new(j, "swap_bytes", json_integer((json_int_t)s->swap_bytes));
        json_object_set_new(j, "accel", json_string(s->accel ? s->accel : ""));
        json_object_set_new(j, "append", s->append && *s->append ? json_string(s->append) : json_null());
        for (char *const *p = s->sysctls; p && *p; p++)
                g_ptr_array_add(sorted, *p);
        if (sorted->len) {
                json_t *sys = json_array();
                g_ptr_array_sort(sorted, strcmp_p);
                for (guint i = 0; i < sorted->len; i++)
                        json_array_append_new(sys, json_string(sorted->pdata[i]));
                json_object_set_new(j, "sysctls", sys);
        }
        text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        if (key_digest(text, NULL, &fp, NULL) < 0)
                abort();   /* an object we just built */
        return fp;
}

int nightly_fingerprint_stored(const char *run_settings_json, const char *cell_params_json, char **ret,
                               struct kb_error *err) {
        json_auto_t *run = json_loads(run_settings_json ? run_settings_json : "", 0, NULL);
        json_auto_t *cell = json_loads(cell_params_json ? cell_params_json : "", 0, NULL);
        json_t *sys;

        if (!json_is_object(run))
                return error_setf(err, -EINVAL, "run settings: not a JSON object");
        if (!json_is_object(cell) || !json_is_string(json_object_get(cell, "workload")))
                return error_setf(err, -EINVAL, "cell params: not the object runs store (no workload)");
        /* Spell the sysctls as a plan does: sorted, and no key when none. */
        sys = json_object_get(run, "sysctls");
        if (json_is_array(sys)) {
                g_autoptr(GPtrArray) sorted = g_ptr_array_new();
                json_t *v, *out = json_array();
                size_t i;
                json_array_foreach(sys, i, v)
                        if (json_is_string(v))
                                g_ptr_array_add(sorted, (char *)json_string_value(v));
                g_ptr_array_sort(sorted, strcmp_p);
                for (guint k = 0; k < sorted->len; k++)
                        json_array_append_new(out, json_string(sorted->pdata[k]));
                if (sorted->len)
                        json_object_set_new(run, "sysctls", out);
                else {
                        json_decref(out);
                        json_object_del(run, "sysctls");
                }
        }
        if (json_is_string(json_object_get(run, "append")) && !*json_string_value(json_object_get(run, "append")))
                json_object_set_new(run, "append", json_null());
        {
                _cleanup_free_ char *settings = json_dumps(run, JSON_COMPACT | JSON_SORT_KEYS);
                return key_digest(settings, cell_params_json, ret, err);
        }
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
