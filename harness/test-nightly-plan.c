/* Unit tests for nightly_plan.c: which kernels a night measures, grouped
 * into runs by their overrides, from tables of recorded facts. */
#include <glib.h>
#include <string.h>

#include "common/test.h"
#include "harness/nightly_plan.h"

TEST_MAIN();

/* Three sources: plain, a throttled one and a command line variant. */
static struct nightly_source sources[3];
static struct nightly_config cfg = { .sources = sources, .n_sources = 3, .repeats = 3 };

static void setup(void) {
        memset(sources, 0, sizeof(sources));
        sources[1].overrides.disk_mbps = 40;
        sources[2].overrides.append = (char *)"elevator=none";
}

TEST(new_kernel_and_stale_baseline_share_one_run) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0 },
                { "k47", "id47", 0, 1, 0 },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 1);
        ASSERT_EQ(p->n_new, 1);
        ASSERT_EQ(p->baseline_stale, 1);
        ASSERT_EQ(p->groups[0].n_members, 2);
        ASSERT_EQ(p->groups[0].members[0], 1);   /* the baseline leads */
        ASSERT_EQ(p->groups[0].members[1], 0);
        ASSERT_EQ(p->groups[0].disk_mbps, 0);
        ASSERT_TRUE(p->groups[0].append == NULL);
        nightly_plan_free(p);
}

TEST(nothing_new_measures_nothing) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 3 },
                { "k47", "id47", 0, 1, 5 },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 0);
        ASSERT_EQ(p->n_new, 0);
        ASSERT_EQ(p->baseline_stale, 0);
        nightly_plan_free(p);
}

TEST(partly_measured_is_measured_again) {
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 2 },
                { "k47", "id47", 0, 1, 3 },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 2, &p);
        ASSERT_EQ(p->n_groups, 1);
        ASSERT_EQ(p->groups[0].n_members, 1);
        ASSERT_EQ(p->groups[0].members[0], 0);
        ASSERT_EQ(p->baseline_stale, 0);
        nightly_plan_free(p);
}

TEST(overrides_get_runs_of_their_own) {
        /* The same image from the plain and the throttled source, a
         * variant with a command line, the baseline up to date. */
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0 },
                { "k57", "id57", 1, 0, 0 },
                { "k58", "id58", 2, 0, 1 },
                { "k47", "id47", 1, 1, 3 },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 4, &p);
        ASSERT_EQ(p->n_groups, 3);
        ASSERT_EQ(p->n_new, 3);
        ASSERT_EQ(p->groups[0].disk_mbps, 0);
        ASSERT_EQ(p->groups[0].members[0], 0);
        ASSERT_EQ(p->groups[1].disk_mbps, 40);
        ASSERT_EQ(p->groups[1].n_members, 1);
        ASSERT_EQ(p->groups[1].members[0], 1);
        ASSERT_STREQ(p->groups[2].append, "elevator=none");
        ASSERT_EQ(p->groups[2].members[0], 2);
        nightly_plan_free(p);
}

TEST(one_kernel_twice_with_one_setting_is_measured_once) {
        /* Two plain sources yielding the same package. */
        const struct nightly_candidate c[] = {
                { "k57", "id57", 0, 0, 0 },
                { "k57", "id57", 0, 0, 0 },
                { "k47", "id47", 0, 1, 3 },
        };
        struct nightly_plan *p;

        setup();
        nightly_plan_build(&cfg, c, 3, &p);
        ASSERT_EQ(p->n_groups, 1);
        ASSERT_EQ(p->groups[0].n_members, 1);
        ASSERT_EQ(p->n_new, 1);
        nightly_plan_free(p);
}

TEST(baseline_is_measured_without_overrides) {
        const char *append = "x";
        uint64_t mbps = 7;
        const struct nightly_candidate base = { "k47", "id47", 1, 1, 0 };

        setup();
        nightly_candidate_overrides(&cfg, &base, &append, &mbps);
        ASSERT_TRUE(append == NULL);
        ASSERT_EQ(mbps, 0);
}
