/* nightly_plan.c: the grouping of a night's kernels into runs (see
 * nightly_plan.h). */
#include <glib.h>
#include <string.h>

#include "harness/nightly_plan.h"

void nightly_candidate_overrides(const struct nightly_config *cfg, const struct nightly_candidate *c,
                                 const char **ret_append, uint64_t *ret_disk_mbps) {
        const struct nightly_overrides *ov;

        if (c->is_baseline || c->source >= cfg->n_sources) {
                *ret_append = NULL;
                *ret_disk_mbps = 0;
                return;
        }
        ov = &cfg->sources[c->source].overrides;
        *ret_append = ov->append && *ov->append ? ov->append : NULL;
        *ret_disk_mbps = ov->disk_mbps;
}

static struct nightly_group *group_for(GArray *groups, const char *append, uint64_t disk_mbps) {
        struct nightly_group g = { .append = append, .disk_mbps = disk_mbps };

        for (guint i = 0; i < groups->len; i++) {
                struct nightly_group *x = &g_array_index(groups, struct nightly_group, i);
                if (x->disk_mbps == disk_mbps && g_strcmp0(x->append, append) == 0)
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

void nightly_plan_build(const struct nightly_config *cfg, const struct nightly_candidate *c, size_t n,
                        struct nightly_plan **ret) {
        GArray *groups = g_array_new(FALSE, TRUE, sizeof(struct nightly_group));
        struct nightly_plan *p = g_new0(struct nightly_plan, 1);

        /* The base group exists first so that the baseline leads its run
         * and the groups come out in a stable order. */
        group_for(groups, NULL, 0);
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < n; i++) {
                        struct nightly_group *g;
                        const char *append;
                        uint64_t mbps;

                        if (!!c[i].is_baseline != (pass == 0) || c[i].n_ok >= (size_t)cfg->repeats)
                                continue;
                        nightly_candidate_overrides(cfg, &c[i], &append, &mbps);
                        g = group_for(groups, append, mbps);
                        if (already_member(g, c, i))
                                continue;
                        g->members = g_renew(size_t, g->members, g->n_members + 1);
                        g->members[g->n_members++] = i;
                        if (c[i].is_baseline)
                                p->baseline_stale = 1;
                        else
                                p->n_new++;
                }
        /* Drop the base group when it stayed empty. */
        if (g_array_index(groups, struct nightly_group, 0).n_members == 0)
                g_array_remove_index(groups, 0);
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
