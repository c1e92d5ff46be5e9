/* nightly_plan.c: the grouping of a night's kernels into runs (see
 * nightly_plan.h). */
#include <glib.h>
#include <string.h>

#include "nightly/nightly_plan.h"

const char *nightly_source_variant(const struct nightly_source *src) {
        return src->name && nightly_source_has_overrides(src) ? src->name : NULL;
}

void nightly_candidate_variant(const struct nightly_config *cfg, const struct nightly_candidate *c,
                               struct nightly_variant *ret) {
        const struct nightly_source *src;

        *ret = (struct nightly_variant){ 0 };
        if (c->is_baseline || c->source >= cfg->n_sources)
                return;
        src = &cfg->sources[c->source];
        ret->label = nightly_source_variant(src);
        ret->overrides = nightly_source_has_overrides(src) ? &src->overrides : NULL;
}

int nightly_variant_equal(const struct nightly_variant *a, const struct nightly_variant *b) {
        struct run_settings def;

        if (g_strcmp0(a->label, b->label))
                return 0;
        runopts_defaults(&def);
        for (const struct runopt *const *o = nightly_override_opts(); *o; o++)
                if (!runopt_equal(*o, a->overrides ? a->overrides : &def, b->overrides ? b->overrides : &def))
                        return 0;
        return 1;
}

static struct nightly_group *group_for(GArray *groups, const struct nightly_variant *v) {
        struct nightly_group g = { .v = *v };

        for (guint i = 0; i < groups->len; i++) {
                struct nightly_group *x = &g_array_index(groups, struct nightly_group, i);
                if (nightly_variant_equal(&x->v, v))
                        return x;
        }
        g_array_append_val(groups, g);
        return &g_array_index(groups, struct nightly_group, groups->len - 1);
}

static int already_member(const struct nightly_group *g, const struct nightly_candidate *c, size_t i) {
        for (size_t m = 0; m < g->n_members; m++)
                if (strcmp(c[g->members[m]].kernel_id, c[i].kernel_id) == 0)
                        return 1;
        return 0;
}

/* Put the baseline, c[base], first in g, unless g has its image. */
static void lead_with(struct nightly_group *g, const struct nightly_candidate *c, size_t base) {
        if (already_member(g, c, base))
                return;
        g->members = g_renew(size_t, g->members, g->n_members + 1);
        memmove(g->members + 1, g->members, g->n_members * sizeof(*g->members));
        g->members[0] = base;
        g->n_members++;
}

void nightly_plan_build(const struct nightly_config *cfg, const struct nightly_candidate *c, size_t n,
                        struct nightly_plan **ret) {
        GArray *groups = g_array_new(FALSE, TRUE, sizeof(struct nightly_group));
        struct nightly_plan *p = g_new0(struct nightly_plan, 1);
        size_t base = n;

        /* The base group exists first so that the groups come out in a
         * stable order. */
        group_for(groups, &(struct nightly_variant){ 0 });
        for (size_t i = 0; i < n; i++) {
                struct nightly_group *g;
                struct nightly_variant v;

                if (c[i].is_baseline) {
                        base = i;
                        continue;
                }
                if (c[i].n_ok >= (size_t)cfg->run.repeats)
                        continue;
                nightly_candidate_variant(cfg, &c[i], &v);
                g = group_for(groups, &v);
                if (already_member(g, c, i))
                        continue;
                g->members = g_renew(size_t, g->members, g->n_members + 1);
                g->members[g->n_members++] = i;
                p->n_new++;
        }
        /* Drop the base group when it stayed empty. */
        if (g_array_index(groups, struct nightly_group, 0).n_members == 0)
                g_array_remove_index(groups, 0);
        for (guint gi = 0; base < n && gi < groups->len; gi++) {
                lead_with(&g_array_index(groups, struct nightly_group, gi), c, base);
                p->with_baseline = 1;
        }
        p->n_groups = groups->len;
        p->groups = (struct nightly_group *)(void *)g_array_free(groups, FALSE);
        *ret = p;
}

struct nightly_plan *nightly_plan_free(struct nightly_plan *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_groups; i++)
                g_free(p->groups[i].members);
        g_free(p->groups);
        g_free(p);
        return NULL;
}
