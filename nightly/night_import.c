/* nightly/night_import.c: a night's first stage (see night_int.h):
 * fetch what the sources offer, import each file into the kernel store,
 * and make each kernel a candidate with how often the results hold it
 * measured already at the settings the night would measure it with. The
 * runner options of a run of the night, and the fingerprint of what it
 * measures, are made here for the later stages too: one function, so a
 * plan, a history and a bisection cannot disagree on the settings. */
#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "kernels/kstore.h"
#include "nightly/night_history.h"
#include "nightly/night_int.h"
#include "nightly/nightly_config.h"
#include "nightly/nightly_measured.h"
#include "nightly/nightly_plan.h"
#include "nightly/nightly_sources.h"
#include "settings/runopts.h"

int night_step_fetch(struct night *n, struct kb_error *err) {
        g_auto(GStrv) errors = NULL;
        /* A dry run imports nothing, so it need not watch a file for a
         * moment to see it has stopped growing: that pause, 0.2 s a dir
         * source under the store's lock, made 3 000 sources a 10-minute
         * dry run. Files still too young are left out as in a real night. */
        struct source_dir_opts dry_dir = SOURCE_DIR_OPTS_DEFAULT;
        const struct nightly_sources_opts dry = { .dir = &dry_dir };
        int r;

        dry_dir.probe_ms = 0;
        r = nightly_sources_collect(n->cfg, n->g.home, n->o->dry_run ? &dry : NULL, &n->found, &n->n_found, &errors,
                                    err);

        if (r < 0)
                return r;
        for (size_t i = 0; errors && errors[i]; i++)
                night_add_error(n, "%s", errors[i]);
        return 0;
}

/* Import one found file; a source's name prefix names its kernels apart
 * (prefix + release). OUT: *ret (kstore_kernel_free). */
static int import_one(struct night *n, const struct nightly_found *f, struct kstore_kernel **ret,
                      struct kb_error *err) {
        const struct nightly_source *src = &n->cfg->sources[f->source];
        struct kstore_kernel *k = NULL, *named = NULL;
        g_autofree char *name = NULL;
        int existed = 0, r;

        r = kstore_add(n->ks, f->path, NULL, &k, &existed, err);
        /* A variant's kernel is the image under its own name: its label
         * goes into the run's settings, not into the store. */
        if (r < 0 || !src->name || nightly_source_variant(src)) {
                if (r >= 0)
                        *ret = k;
                return r;
        }
        name = g_strconcat(src->name, k->release ? k->release : k->name, NULL);
        r = kstore_add(n->ks, f->path, name, &named, &existed, err);
        kstore_kernel_free(k);
        if (r >= 0)
                *ret = named;
        return r;
}

/* The runner options of a run of the night measuring variant v: the
 * configuration's run settings (set through the option table when the
 * file was read), the variant's overrides (likewise: each option it sets
 * apart from its default, nightly_override_opts), its label (a
 * source's name, checked by the variant option's rule), the workloads
 * (parsed as kbench run parses them), the night's tag and the store's
 * accelerator verdict. */
void night_opts(const struct night *n, const struct nightly_variant *v, struct run_settings *o) {
        struct run_settings def;

        runopts_defaults(&def);
        *o = n->cfg->run;
        o->workloads = n->cfg->workloads;
        o->tag = NIGHTLY_TAG;
        o->accel = n->accel;
        for (const struct runopt *const *opt = nightly_override_opts(); v->overrides && *opt; opt++)
                if (!runopt_equal(*opt, v->overrides, &def))
                        runopt_copy(*opt, o, v->overrides);
        o->variant = v->label;
}

/* The fingerprint of workload w measured as variant v on the night's
 * host h (an index into n->hosts): from the very options the night's run
 * would be given. */
char *night_fingerprint(const struct night *n, size_t w, const struct nightly_variant *v, guint h) {
        struct run_settings o;

        night_opts(n, v, &o);
        return nightly_fingerprint(&o, n->accel, n->cfg->workload_specs[w], n->hosts->pdata[h]);
}

/* How many ok cells the results hold for kernel_id measured as variant v,
 * on any of the night's hosts (a run spreads its cells over them), the
 * fewest over the workloads. */
static int count_measured(struct night *n, const char *kernel_id, const struct nightly_variant *v, size_t *ret,
                          struct kb_error *err) {
        size_t least = SIZE_MAX;

        for (size_t w = 0; n->cfg->workload_specs[w]; w++) {
                g_auto(GStrv) fps = g_new0(char *, n->hosts->len + 1);
                size_t ok = 0;
                int r;

                for (guint h = 0; h < n->hosts->len; h++)
                        fps[h] = night_fingerprint(n, w, v, h);
                r = night_history_count_ok(n->db, kernel_id, fps, &ok, err);
                if (r < 0)
                        return r;
                least = MIN(least, ok);
        }
        *ret = least == SIZE_MAX ? 0 : least;
        return 0;
}

static int add_candidate(struct night *n, const struct kstore_kernel *k, size_t source, int is_baseline,
                         struct kb_error *err) {
        struct nightly_candidate c = { .source = source, .is_baseline = is_baseline };
        struct nightly_variant v;
        int r;

        nightly_candidate_variant(n->cfg, &c, &v);
        c.name = g_strconcat(v.label ? v.label : "", k->name, NULL);
        c.store_name = g_strdup(k->name);
        c.kernel_id = g_strdup(k->id);
        g_ptr_array_add(n->keep, (char *)c.name);
        g_ptr_array_add(n->keep, (char *)c.store_name);
        g_ptr_array_add(n->keep, (char *)c.kernel_id);
        r = count_measured(n, c.kernel_id, &v, &c.n_ok, err);
        if (r < 0)
                return r;
        g_array_append_val(n->cands, c);
        return 0;
}

int night_step_import(struct night *n, struct kb_error *err) {
        struct kstore_kernel *base = NULL;
        int r;

        n->found_cand = g_new(ssize_t, n->n_found + 1);
        /* The files first: the baseline may be among them. */
        for (size_t i = 0; i < n->n_found; i++) {
                const struct nightly_source *src = &n->cfg->sources[n->found[i].source];
                struct kstore_kernel *k = NULL;
                struct kb_error ierr = { { 0 } };

                n->found_cand[i] = -1;
                if (import_one(n, &n->found[i], &k, &ierr) < 0) {
                        night_add_error(n, "importing %s: %s", n->found[i].path, ierr.msg);
                        continue;
                }
                /* The baseline from a source without overrides is the store's baseline, below. */
                if (strcmp(k->name, n->cfg->baseline) != 0 || nightly_source_has_overrides(src)) {
                        r = add_candidate(n, k, n->found[i].source, 0, err);
                        if (r < 0) {
                                kstore_kernel_free(k);
                                return r;
                        }
                        n->found_cand[i] = (ssize_t)n->cands->len - 1;
                } else
                        n->found_cand[i] = SSIZE_MAX;   /* imported; measured as the baseline */
                kstore_kernel_free(k);
        }
        r = kstore_find(n->ks, n->cfg->baseline, &base, err);
        if (r < 0)
                return error_prefix(err, r, "%s: baseline '%s' is not in the store (import it with 'kbench kernel "
                                    "add' or put it in a source)", n->o->config_path, n->cfg->baseline);
        r = add_candidate(n, base, 0, 1, err);
        kstore_kernel_free(base);
        return r;
}

