/* Unit tests for nightly_plan.c: which kernels a night measures, grouped
 * into runs by their overrides, from tables of recorded facts. */
#include <glib.h>
#include <string.h>

#include "common/test.h"
#include "nightly/nightly_plan.h"

TEST_MAIN();

/* Three sources: plain, a throttled one and a command line variant. */
static struct nightly_source sources[3];
static struct nightly_config cfg = { .sources = sources, .n_sources = 3, .run.repeats = 3 };

static void setup(void) {
        memset(sources, 0, sizeof(sources));
        sources[1].overrides.guest.disk_mbps = 40;
        sources[2].overrides.guest.append = "elevator=none";
}

/* A group's overrides as its run gets them: none is the defaults. */
static uint64_t disk_mbps(const struct nightly_group *g) {
        return g->v.overrides ? g->v.overrides->guest.disk_mbps : 0;
}

static const char *append(const struct nightly_group *g) {
        return g->v.overrides ? g->v.overrides->guest.append : NULL;
}

static char *const *sysctls(const struct nightly_group *g) {
        return g->v.overrides ? g->v.overrides->sysctls : NULL;
}

TEST(new_kernel_and_baseline_share_one_run) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0, NULL },
                { "k47", "id47", 0, 1, 0, NULL },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 1);
        ASSERT_EQ(p->n_new, 1);
        ASSERT_EQ(p->with_baseline, 1);
        ASSERT_EQ(p->groups[0].n_members, 2);
        ASSERT_EQ(p->groups[0].members[0], 1);   /* the baseline leads */
        ASSERT_EQ(p->groups[0].members[1], 0);
        ASSERT_EQ(disk_mbps(&p->groups[0]), 0);
        ASSERT_TRUE(append(&p->groups[0]) == NULL);
        nightly_plan_free(p);
}

TEST(nothing_new_measures_nothing) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 3, NULL },
                { "k47", "id47", 0, 1, 5, NULL },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 0);
        ASSERT_EQ(p->n_new, 0);
        ASSERT_EQ(p->with_baseline, 0);
        nightly_plan_free(p);
}

/* A kernel measured in part is measured again, and the baseline beside it
 * though it has every cell it needs: a verdict compares cells measured
 * together. */
TEST(partly_measured_is_measured_again_beside_the_baseline) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 2, NULL },
                { "k47", "id47", 0, 1, 3, NULL },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 1);
        ASSERT_EQ(p->groups[0].n_members, 2);
        ASSERT_EQ(p->groups[0].members[0], 1);
        ASSERT_EQ(p->groups[0].members[1], 0);
        ASSERT_EQ(p->with_baseline, 1);
        nightly_plan_free(p);
}

/* The baseline alone, short of cells, is not measured: with nothing new
 * there is nothing to compare it with tonight. */
TEST(baseline_alone_is_not_measured) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 3, NULL },
                { "k47", "id47", 0, 1, 0, NULL },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 0);
        ASSERT_EQ(p->with_baseline, 0);
        nightly_plan_free(p);
}

TEST(overrides_get_runs_of_their_own) {
        /* The same image from the plain and the throttled source, a
         * variant with a command line, the baseline up to date. */
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0, NULL },
                { "k57", "id57", 1, 0, 0, NULL },
                { "k58", "id58", 2, 0, 1, NULL },
                { "k47", "id47", 1, 1, 3, NULL },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 4, &p);
        ASSERT_EQ(p->n_groups, 3);
        ASSERT_EQ(p->n_new, 3);
        /* Every run leads with the baseline, measured with its settings. */
        ASSERT_EQ(disk_mbps(&p->groups[0]), 0);
        ASSERT_EQ(p->groups[0].n_members, 2);
        ASSERT_EQ(p->groups[0].members[0], 3);
        ASSERT_EQ(p->groups[0].members[1], 0);
        ASSERT_EQ(disk_mbps(&p->groups[1]), 40);
        ASSERT_EQ(p->groups[1].n_members, 2);
        ASSERT_EQ(p->groups[1].members[0], 3);
        ASSERT_EQ(p->groups[1].members[1], 1);
        ASSERT_STREQ(append(&p->groups[2]), "elevator=none");
        ASSERT_EQ(p->groups[2].members[0], 3);
        ASSERT_EQ(p->groups[2].members[1], 2);
        nightly_plan_free(p);
}

TEST(one_kernel_twice_with_one_setting_is_measured_once) {
        /* Two plain sources yielding the same package. */
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0, NULL },
                { "k57", "id57", 0, 0, 0, NULL },
                { "k47", "id47", 0, 1, 3, NULL },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 3, &p);
        ASSERT_EQ(p->n_groups, 1);
        ASSERT_EQ(p->groups[0].n_members, 2);
        ASSERT_EQ(p->n_new, 1);
        nightly_plan_free(p);
}

TEST(baseline_is_measured_without_overrides) {
        struct nightly_variant v = { "x", &sources[1].overrides };
        const struct nightly_candidate base = { "k47", "id47", 1, 1, 0, NULL };

        setup();
        nightly_candidate_variant(&cfg, &base, &v);
        ASSERT_TRUE(v.overrides == NULL);
        ASSERT_TRUE(v.label == NULL);
}

/* Only the options the configuration's sources[].overrides.* rows name are
 * overrides: a source whose settings differ elsewhere (the guest's RAM,
 * which the configuration sets for every run) has none, and measures with
 * the base settings. */
TEST(overrides_are_the_configuration_rows_only) {
        struct nightly_source src = { .name = (char *)"big-" };
        struct nightly_variant a = { 0 }, b = { 0 };
        size_t n = 0;

        runopts_defaults(&src.overrides);
        src.overrides.guest.mem_mb = 4096;
        ASSERT_TRUE(!nightly_source_has_overrides(&src));
        ASSERT_TRUE(nightly_source_variant(&src) == NULL);
        for (const struct runopt *const *o = nightly_override_opts(); *o; o++)
                n++;
        ASSERT_EQ(n, 3);
        src.overrides.guest.disk_mbps = 40;
        ASSERT_TRUE(nightly_source_has_overrides(&src));
        b.overrides = &src.overrides;
        ASSERT_TRUE(!nightly_variant_equal(&a, &b));
        src.overrides.guest.disk_mbps = 0;
        ASSERT_TRUE(nightly_variant_equal(&a, &b));
}

/* One image from two sources: the plain one and a named one with sysctls.
 * The named source's kernel is a variant, measured in a run of its own;
 * a name without overrides labels nothing. */
TEST(sysctl_variant_is_a_group_of_its_own) {
        static char *sys[] = { "vm.dirty_ratio=7", NULL };
        static char *none[] = { NULL };
        struct nightly_source src[3] = { { 0 } };
        struct nightly_config c3 = { .sources = src, .n_sources = 3, .run.repeats = 2 };
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0, NULL },
                { "dirty7-k57", "id57", 1, 0, 0, "k57" },
                { "k47", "id47", 0, 1, 5, NULL },
        };
        struct nightly_variant a, b;
        struct nightly_plan *p;

        src[0].overrides.sysctls = none;
        src[1].name = (char *)"dirty7-";
        src[1].overrides.sysctls = sys;
        src[2].name = (char *)"plain-";
        src[2].overrides.sysctls = none;
        ASSERT_TRUE(nightly_source_variant(&src[0]) == NULL);
        ASSERT_STREQ(nightly_source_variant(&src[1]), "dirty7-");
        ASSERT_TRUE(nightly_source_variant(&src[2]) == NULL);
        nightly_plan_build(&c3, c, 3, &p);
        ASSERT_EQ(p->n_groups, 2);
        ASSERT_EQ(p->n_new, 2);
        ASSERT_EQ(p->groups[0].n_members, 2);
        ASSERT_TRUE(p->groups[0].v.label == NULL && sysctls(&p->groups[0]) == NULL);
        ASSERT_EQ(p->groups[1].n_members, 2);
        ASSERT_EQ(p->groups[1].members[0], 2);
        ASSERT_EQ(p->groups[1].members[1], 1);
        ASSERT_STREQ(p->groups[1].v.label, "dirty7-");
        ASSERT_STREQ(sysctls(&p->groups[1])[0], "vm.dirty_ratio=7");
        nightly_plan_free(p);

        nightly_candidate_variant(&c3, &c[1], &a);
        nightly_candidate_variant(&c3, &c[1], &b);
        ASSERT_TRUE(nightly_variant_equal(&a, &b));
        b.overrides = &src[0].overrides;
        ASSERT_TRUE(!nightly_variant_equal(&a, &b));
        b = a;
        b.label = NULL;
        ASSERT_TRUE(!nightly_variant_equal(&a, &b));
}
