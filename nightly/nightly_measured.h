/* nightly/nightly_measured: "a kernel already measured with the same
 * settings is not measured again". The settings that decide whether an
 * earlier cell counts are those that change what a cell measures: the
 * workload (its canonical spec), the guest (RAM, vCPUs, disk size, disk
 * throttle, filesystem and its mount options, swap), the accelerator, the
 * extra kernel command line and the sysctls: what `kbench compare` pairs
 * cells by (settings/pairkey.h). They are reduced to one
 * fingerprint (sha256 of that pairing key), computed the same way from a
 * nightly plan and from what results/ stored for a cell (the run's
 * settings_json overlaid with the cell's params_json), so the question is
 * answered from the results alone, through results/query.h, without a
 * column of its own. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "settings/runopts.h"
#include "results/db.h"

/* The fingerprint of the cells of workload (its canonical spec, as runs
 * store it) that a run with options o measures with accelerator accel
 * ("tcg" or "kvm", never "auto") on host (the name a run given hosts
 * stores in each cell; NULL: a run on the store's own connection, which
 * names none): o saved as the runner saves a run's settings
 * (runopts_save), less what the option table classifies as how kbench
 * ran. 64 lowercase hex digits (caller frees, g_free). */
char *nightly_fingerprint(const struct run_settings *o, const char *accel, const char *workload, const char *host);

/* The fingerprint of a stored cell, from its run's settings_json and its
 * params_json. Settings that are not a JSON object, or params without a
 * workload, are -EINVAL naming which. OUT: *ret (g_free). */
int nightly_fingerprint_stored(const char *run_settings_json, const char *cell_params_json, char **ret,
                               struct kb_error *err);

/* How many ok cells of kernel_id (a store id) the results hold whose
 * fingerprint is fingerprint, counting each (run, cell key) once. The caller
 * measures a kernel again when this is below the repeats it wants.
 * Returns 0 (OUT: *ret_n_ok) or -errno from results/. */
int nightly_measured(struct db *db, const char *kernel_id, const char *fingerprint, size_t *ret_n_ok,
                     struct kb_error *err);
