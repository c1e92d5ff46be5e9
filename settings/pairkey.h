/* settings/pairkey: what `kbench compare` pairs cells by, parsed once.
 * A cell's pairing key is its params over its run's settings, less the
 * keys that say how kbench ran rather than what it measured (those the run
 * lists under RUNOPTS_HOW_KEYS, or, for runs stored before it did, the
 * legacy list below), less unset values and what the caller pairs across
 * on purpose. It is kept as its items (key -> canonical value, sorted by
 * key) and their canonical JSON text, so equality is one string compare
 * and every renderer, the pairing rule and nightly's fingerprint read the
 * items, never the text again. The option table (settings/runopts.h) says
 * which keys are HOW and which defaults pair with runs that saved no key. */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stddef.h>

#include "common/error.h"

/* The key under which a cell whose params are not a JSON object keeps
 * them, so that it pairs only with the same bytes, never silently with
 * its run's settings alone. */
#define PAIRKEY_PARAMS_RAW "params_raw"

struct pairkey_item {
        const char *name;                  /* a settings key (borrowed from the pairkey) */
        const json_t *value;               /* its value as the canonical text holds it (borrowed) */
};

struct pairkey {
        char *canon;                       /* canonical JSON: sorted keys, compact, ASCII, reals to 17
                                              digits; two keys are equal when these are */
        char *spec;                        /* the "workload" value (the canonical spec), or the workload
                                              name the cell was stored under when it has none */
        struct pairkey_item *items;        /* sorted by name */
        size_t n;
        json_t *obj;                       /* owns the items */
        int ref;
};

/* A cell's settings: params_json (may be NULL) over the run's settings (a
 * JSON object; NULL for none), the run's own RUNOPTS_HOW_KEYS kept (a
 * cell's params cannot say what counts). Params that are not a JSON object
 * are kept as PAIRKEY_PARAMS_RAW. New reference. */
json_t *pairkey_cell_settings(const json_t *settings, const char *params_json);

/* The pairing key of a cell's settings (pairkey_cell_settings), with the
 * keys in ignored (NULL-terminated, or NULL) left out too; workload is the
 * spec when the settings hold none. OUT: *ret (pairkey_unref). Returns 0
 * or -ENOMEM. */
int pairkey_new(const json_t *cell_settings, const char *workload, const char *const *ignored,
                struct pairkey **ret, struct kb_error *err);

/* pairkey_new from stored texts: a run's settings_json (NULL: none) and a
 * cell's params_json (NULL: none). Errors: -EINVAL "run settings are not a
 * JSON object". */
int pairkey_from_json(const char *settings_json, const char *params_json, const char *workload,
                      const char *const *ignored, struct pairkey **ret, struct kb_error *err);

struct pairkey *pairkey_ref(struct pairkey *k);
struct pairkey *pairkey_unref(struct pairkey *k);      /* accepts NULL, returns NULL */

/* The item called name, or NULL. */
const struct pairkey_item *pairkey_get(const struct pairkey *k, const char *name);

/* The settings whose values differ between a and b: first each item of a
 * that b lacks or holds otherwise, in a's order, then each item of b that
 * a lacks. Returns how many. With names, appends each key (borrowed from
 * a or b); with text, appends "key A | B" per key, ", " between them (a
 * side without the key shows "(none)"). */
size_t pairkey_diff(const struct pairkey *a, const struct pairkey *b, GPtrArray *names, GString *text);

/* The settings as "key=value key=value" (values as compact JSON), the
 * workload left out (it is shown apart); an amount whose name carries its
 * unit in binary units under its name without it ("disk_bytes":
 * 2147483648 as "disk 2 GiB", "mem_mb": 256 as "mem 256 MiB"). Caller
 * g_frees. */
char *pairkey_line(const struct pairkey *k);

/* The items as a JSON object, in their order (new reference). */
json_t *pairkey_json(const struct pairkey *k);

/* The keys dropped from the settings of runs that do not list their own
 * RUNOPTS_HOW_KEYS (runs stored before they did), NULL-terminated. */
const char *const *pairkey_legacy_how_keys(void);
