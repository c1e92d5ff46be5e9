/* settings/pairkey.c: the pairing key of a cell (see pairkey.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "settings/pairkey.h"
#include "settings/runopts.h"

/* The settings keys that say how kbench ran, not what the guest was, as
 * runs stored them before each run listed its own (RUNOPTS_HOW_KEYS): two
 * runs differing only in these measure the same thing. Frozen: it
 * describes runs already stored; settings/test-pairkey.c checks that the
 * option table still classifies each of them HOW. */
static const char *const legacy_how_keys[] = {
        "kernels", "workloads", "repeats", "planned_cells", "accel_requested", "accel_why",
        "cell_timeout_s", "hang_timeout_s", "retries", "max_contention_pct", "warm", "cold", NULL,
};

const char *const *pairkey_legacy_how_keys(void) {
        return legacy_how_keys;
}

json_t *pairkey_cell_settings(const json_t *settings, const char *params_json) {
        json_t *o = json_is_object(settings) ? json_deep_copy(settings) : json_object();
        json_t *params = params_json ? json_loads(params_json, 0, NULL) : NULL;
        json_t *how = json_object_get(settings, RUNOPTS_HOW_KEYS);

        if (json_is_object(params))
                json_object_update(o, params);
        else if (params_json)
                json_object_set_new(o, PAIRKEY_PARAMS_RAW, json_string(params_json));
        if (how)
                json_object_set(o, RUNOPTS_HOW_KEYS, how);
        else
                json_object_del(o, RUNOPTS_HOW_KEYS);
        json_decref(params);
        return o;
}

/* Drop the keys of o that the run declared (or, for older runs, are known)
 * not to shape a measurement. */
static void drop_how_keys(json_t *o) {
        json_t *declared = json_object_get(o, RUNOPTS_HOW_KEYS), *k;
        size_t i;

        if (json_is_array(declared)) {
                json_array_foreach(declared, i, k)
                        if (json_is_string(k) && strcmp(json_string_value(k), RUNOPTS_HOW_KEYS) != 0)
                                json_object_del(o, json_string_value(k));
        } else
                for (i = 0; legacy_how_keys[i]; i++)
                        json_object_del(o, legacy_how_keys[i]);
        json_object_del(o, RUNOPTS_HOW_KEYS);
}

static int same_value(const json_t *a, const json_t *b) {
        if (json_is_number(a) && json_is_number(b))
                return json_number_value(a) == json_number_value(b);
        return json_equal(a, b);
}

/* What the option table says holds no setting: an unset option (null, or
 * absent in runs stored before it existed); "" for a string option
 * without a default (no extra command line is null from the runner, ""
 * by hand); and the default of an option added later, which runs stored
 * before it ran with and saved no key for. */
static const json_t *saved_defaults(void) {
        static json_t *saved;

        if (g_once_init_enter(&saved)) {
                struct run_settings defaults;
                json_t *j = json_object();

                runopts_defaults(&defaults);
                runopts_save(&defaults, j);
                g_once_init_leave(&saved, j);
        }
        return saved;
}

static void drop_unset(json_t *o) {
        const json_t *saved = saved_defaults();
        json_t *v;
        const char *k;
        void *tmp;

        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                if (!opt->key || !(v = json_object_get(o, opt->key)))
                        continue;
                if ((opt->type == RUNOPT_STRING && !opt->def && json_is_string(v) && !*json_string_value(v)) ||
                    (opt->added_later && same_value(v, json_object_get(saved, opt->key))))
                        json_object_del(o, opt->key);
        }
        json_object_foreach_safe(o, tmp, k, v)
                if (json_is_null(v))
                        json_object_del(o, k);
}

static int item_cmp(const void *a, const void *b) {
        return strcmp(((const struct pairkey_item *)a)->name, ((const struct pairkey_item *)b)->name);
}

/* The key of the reduced settings o: the canonical text, and the items as
 * that text holds them (so a value prints as it compares). */
static int key_of(const json_t *o, const char *workload, struct pairkey **ret) {
        struct pairkey *k = g_new0(struct pairkey, 1);
        const json_t *spec = json_object_get(o, "workload");
        const char *name;
        json_t *v;
        size_t i = 0;

        k->ref = 1;
        k->canon = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17));
        k->obj = k->canon ? json_loads(k->canon, 0, NULL) : NULL;
        if (!json_is_object(k->obj)) {
                pairkey_unref(k);
                return -ENOMEM;
        }
        k->spec = g_strdup(json_is_string(spec) ? json_string_value(spec) : workload);
        k->n = json_object_size(k->obj);
        k->items = g_new0(struct pairkey_item, k->n + 1);
        json_object_foreach(k->obj, name, v)
                k->items[i++] = (struct pairkey_item){ name, v };
        /* Loaded in the text's order already; sorting states the contract. */
        qsort(k->items, k->n, sizeof(*k->items), item_cmp);
        *ret = k;
        return 0;
}

int pairkey_new(const json_t *cell_settings, const char *workload, const char *const *ignored,
                struct pairkey **ret, struct kb_error *err) {
        json_t *o = json_deep_copy(cell_settings);
        int r;

        if (!json_is_object(o)) {
                json_decref(o);
                return error_setf(err, -EINVAL, "cell settings are not a JSON object");
        }
        drop_how_keys(o);
        drop_unset(o);
        for (size_t i = 0; ignored && ignored[i]; i++)
                json_object_del(o, ignored[i]);
        r = key_of(o, workload, ret);
        json_decref(o);
        return r < 0 ? error_setf(err, r, "out of memory") : 0;
}

int pairkey_from_json(const char *settings_json, const char *params_json, const char *workload,
                      const char *const *ignored, struct pairkey **ret, struct kb_error *err) {
        json_t *settings = json_loads(settings_json ? settings_json : "{}", 0, NULL), *cs;
        int r;

        if (!json_is_object(settings)) {
                json_decref(settings);
                return error_setf(err, -EINVAL, "run settings are not a JSON object");
        }
        cs = pairkey_cell_settings(settings, params_json);
        r = pairkey_new(cs, workload, ignored, ret, err);
        json_decref(cs);
        json_decref(settings);
        return r;
}

struct pairkey *pairkey_ref(struct pairkey *k) {
        if (k)
                k->ref++;
        return k;
}

struct pairkey *pairkey_unref(struct pairkey *k) {
        if (!k || --k->ref > 0)
                return NULL;
        free(k->canon);
        g_free(k->spec);
        g_free(k->items);
        json_decref(k->obj);
        g_free(k);
        return NULL;
}

const struct pairkey_item *pairkey_get(const struct pairkey *k, const char *name) {
        struct pairkey_item want = { name, NULL };

        return bsearch(&want, k->items, k->n, sizeof(*k->items), item_cmp);
}

static void diff_item(const char *name, const json_t *va, const json_t *vb, GPtrArray *names, GString *text) {
        char *a, *b;

        if (names)
                g_ptr_array_add(names, (char *)name);
        if (!text)
                return;
        a = va ? json_dumps(va, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        b = vb ? json_dumps(vb, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        g_string_append_printf(text, "%s%s %s | %s", text->len ? ", " : "", name, a ? a : "(none)", b ? b : "(none)");
        free(a);
        free(b);
}

size_t pairkey_diff(const struct pairkey *a, const struct pairkey *b, GPtrArray *names, GString *text) {
        size_t n = 0;

        for (size_t i = 0; i < a->n; i++) {
                const struct pairkey_item *other = pairkey_get(b, a->items[i].name);

                if (other && json_equal(a->items[i].value, other->value))
                        continue;
                diff_item(a->items[i].name, a->items[i].value, other ? other->value : NULL, names, text);
                n++;
        }
        for (size_t i = 0; i < b->n; i++)
                if (!pairkey_get(a, b->items[i].name)) {
                        diff_item(b->items[i].name, NULL, b->items[i].value, names, text);
                        n++;
                }
        return n;
}

/* An amount in bytes as people read it: "2 GiB", "1.5 GiB", "512 KiB". */
static void append_bytes(GString *t, double bytes) {
        static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
        size_t u = 0;

        while (u + 1 < G_N_ELEMENTS(unit) && fabs(bytes) >= 1024) {
                bytes /= 1024;
                u++;
        }
        g_string_append_printf(t, "%.4g %s", bytes, unit[u]);
}

/* A setting whose name carries its unit ("disk_bytes", "mem_mb"): its
 * name without the unit and the amount in binary units ("disk 2 GiB");
 * 0 if the item is not such an amount. */
static int append_amount(GString *t, const char *name, const json_t *value) {
        static const struct { const char *suffix; double scale; } amounts[] = {
                { "_bytes", 1 }, { "_mb", 1 << 20 },
        };
        size_t len = strlen(name);

        if (!json_is_number(value))
                return 0;
        for (size_t i = 0; i < G_N_ELEMENTS(amounts); i++) {
                size_t sl = strlen(amounts[i].suffix);

                if (len <= sl || strcmp(name + len - sl, amounts[i].suffix) != 0)
                        continue;
                g_string_append_printf(t, "%s%.*s ", t->len ? " " : "", (int)(len - sl), name);
                if (json_number_value(value) == 0)
                        g_string_append(t, "0");
                else
                        append_bytes(t, json_number_value(value) * amounts[i].scale);
                return 1;
        }
        return 0;
}

char *pairkey_line(const struct pairkey *k) {
        GString *t = g_string_new(NULL);

        for (size_t i = 0; i < k->n; i++) {
                char *v;

                if (strcmp(k->items[i].name, "workload") == 0 ||
                    append_amount(t, k->items[i].name, k->items[i].value))
                        continue;
                v = json_dumps(k->items[i].value, JSON_ENCODE_ANY | JSON_COMPACT);
                g_string_append_printf(t, "%s%s=%s", t->len ? " " : "", k->items[i].name, v ? v : "?");
                free(v);
        }
        return g_string_free(t, FALSE);
}

json_t *pairkey_json(const struct pairkey *k) {
        json_t *o = json_object();

        for (size_t i = 0; i < k->n; i++)
                json_object_set_new(o, k->items[i].name, json_deep_copy(k->items[i].value));
        return o;
}
