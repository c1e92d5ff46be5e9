/* harness/nightly_measured.c: the settings fingerprint and the question
 * "measured already?" (see nightly_measured.h). The canonical JSON has
 * sorted keys, compact separators, no optional values left out (absent and
 * empty append / mount options are both null) and sorted sysctls, so two
 * spellings of the same settings give one fingerprint. */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "common/util.h"
#include "harness/nightly_measured.h"
#include "results/query.h"

static json_t *text_or_null(const char *s) {
        return s && *s ? json_string(s) : json_null();
}

static int strcmp_p(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

char *nightly_fingerprint(const struct nightly_settings *s) {
        json_auto_t *j = json_object();
        json_t *sys = json_array();
        g_autoptr(GPtrArray) sorted = g_ptr_array_new();
        _cleanup_free_ char *text = NULL;

        for (char *const *p = s->sysctls; p && *p; p++)
                g_ptr_array_add(sorted, *p);
        g_ptr_array_sort(sorted, strcmp_p);
        for (guint i = 0; i < sorted->len; i++)
                json_array_append_new(sys, json_string(sorted->pdata[i]));
        json_object_set_new(j, "workload", json_string(s->workload ? s->workload : ""));
        json_object_set_new(j, "mem_mb", json_integer(s->mem_mb));
        json_object_set_new(j, "cpus", json_integer(s->cpus));
        json_object_set_new(j, "disk_bytes", json_integer((json_int_t)s->disk_bytes));
        json_object_set_new(j, "disk_mbps", json_integer((json_int_t)s->disk_mbps));
        json_object_set_new(j, "fs", json_string(s->fs ? s->fs : ""));
        json_object_set_new(j, "mount_opts", text_or_null(s->mount_opts));
        json_object_set_new(j, "swap_bytes", json_integer((json_int_t)s->swap_bytes));
        json_object_set_new(j, "accel", json_string(s->accel ? s->accel : ""));
        json_object_set_new(j, "append", text_or_null(s->append));
        json_object_set_new(j, "sysctls", sys);
        text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        return g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
}

static int get_uint(json_t *o, const char *key, uint64_t *ret) {
        json_t *v = json_object_get(o, key);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
                return -EINVAL;
        *ret = (uint64_t)json_integer_value(v);
        return 0;
}

int nightly_fingerprint_stored(const char *run_settings_json, const char *cell_params_json, char **ret,
                               struct kb_error *err) {
        json_auto_t *run = json_loads(run_settings_json ? run_settings_json : "", 0, NULL);
        json_auto_t *cell = json_loads(cell_params_json ? cell_params_json : "", 0, NULL);
        g_autoptr(GPtrArray) sysctls = g_ptr_array_new();
        uint64_t mem, cpus, disk, mbps, swap;
        struct nightly_settings s;
        json_t *sys, *v;
        size_t i;

        if (!json_is_object(run))
                return error_setf(err, -EINVAL, "run settings: not a JSON object");
        if (!json_is_object(cell) || get_uint(cell, "mem_mb", &mem) < 0 || get_uint(cell, "cpus", &cpus) < 0 ||
            get_uint(cell, "disk_bytes", &disk) < 0 || get_uint(cell, "disk_mbps", &mbps) < 0 ||
            get_uint(cell, "swap_bytes", &swap) < 0 || !json_is_string(json_object_get(cell, "workload")) ||
            !json_is_string(json_object_get(cell, "fs")) || !json_is_string(json_object_get(cell, "accel")) ||
            mem > UINT32_MAX || cpus > UINT32_MAX)
                return error_setf(err, -EINVAL, "cell params: not the object runs store "
                                  "(workload, mem_mb, cpus, disk_bytes, disk_mbps, fs, mount_opts, swap_bytes, accel)");
        /* Sysctls are a run setting once the runner applies them; runs
         * without the key had none. */
        sys = json_object_get(run, "sysctls");
        json_array_foreach(sys, i, v)
                if (json_is_string(v))
                        g_ptr_array_add(sysctls, (char *)json_string_value(v));
        g_ptr_array_add(sysctls, NULL);
        s = (struct nightly_settings){
                .workload = json_string_value(json_object_get(cell, "workload")),
                .mem_mb = (unsigned)mem, .cpus = (unsigned)cpus, .disk_bytes = disk, .disk_mbps = mbps,
                .fs = json_string_value(json_object_get(cell, "fs")),
                .mount_opts = json_string_value(json_object_get(cell, "mount_opts")),
                .swap_bytes = swap,
                .accel = json_string_value(json_object_get(cell, "accel")),
                .append = json_string_value(json_object_get(run, "append")),
                .sysctls = (char *const *)sysctls->pdata,
        };
        *ret = nightly_fingerprint(&s);
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
