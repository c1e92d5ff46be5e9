/* test-nightly-bisect.c: what a night decides before it bisects
 * (nightly/nightly_bisect.c): the "bisect" key's metric and workload
 * against the registry and the configuration, and the good end of a
 * source's history from the marks the nights' comparisons left, from a
 * table. The bisection itself is tests/integration/nightly_bisect.py's. */
#include <errno.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "common/test.h"
#include "common/util.h"
#include "nightly/nightly_bisect.h"

TEST_MAIN();

static int check(const char *bisect, const char *workloads, char *msg, size_t size) {
        g_autofree char *text = g_strdup_printf("{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": "
                                                "\"b\", \"workloads\": [%s], \"bisect\": %s}", workloads, bisect);
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };
        int r;

        if (nightly_config_parse(text, strlen(text), &c, &err) < 0)
                TEST_FAIL("%s", err.msg);
        r = nightly_bisect_check(c, &err);
        g_strlcpy(msg, err.msg, size);
        nightly_config_free(c);
        return r;
}

TEST(metric_and_workload) {
        char msg[1024];

        ASSERT_EQ(check("{\"metric\": \"guest.write.kernel_Minsn\"}", "\"dd\"", msg, sizeof(msg)), 0);
        ASSERT_EQ(check("{\"metric\": \"dd.write_MBps\", \"workload\": \"dd:bs=1M\"}", "\"ftp\", \"dd:bs=1M\"", msg,
                        sizeof(msg)), 0);
        /* The same workload written another way is the same workload. */
        ASSERT_EQ(check("{\"metric\": \"dd.write_MBps\", \"workload\": \"dd:bs=1M,size=\"}", "\"dd:bs=1M\"", msg,
                        sizeof(msg)), 0);
        ASSERT_EQ(check("{\"metric\": \"no.such_metric\"}", "\"dd\"", msg, sizeof(msg)), -EINVAL);
        ASSERT_TRUE(g_str_has_prefix(msg, "bisect.metric: no.such_metric is not a metric that gets a verdict"));
        /* A metric without a verdict has no direction to bisect. */
        ASSERT_EQ(check("{\"metric\": \"dd.write_s\"}", "\"dd\"", msg, sizeof(msg)), -EINVAL);
        ASSERT_TRUE(g_str_has_prefix(msg, "bisect.metric: dd.write_s is not"));
        ASSERT_EQ(check("{\"metric\": \"dd.write_MBps\", \"workload\": \"dd:bs=4k\"}", "\"dd:bs=1M\"", msg,
                        sizeof(msg)), -EINVAL);
        ASSERT_STREQ(msg, "bisect.workload: 'dd:bs=4k' is not one of workloads");
        ASSERT_EQ(check("{\"metric\": \"dd.write_MBps\", \"workload\": \"nope\"}", "\"dd\"", msg, sizeof(msg)),
                  -EINVAL);
        ASSERT_STREQ(msg, "bisect.workload: 'nope' is not one of workloads");
}

#define U NIGHTLY_BISECT_UNMEASURED
#define G NIGHTLY_BISECT_GOOD
#define W NIGHTLY_BISECT_WORSE

TEST(good_end_from_the_marks) {
        static const struct {
                enum nightly_bisect_mark marks[6];
                size_t bad;
                size_t want;               /* SIZE_MAX: none */
                const char *why;
        } rows[] = {
                { { G }, 1, 0, NULL },                             /* last night's kernel was good */
                { { G, U, U }, 3, 0, NULL },                       /* kernels never measured lie between */
                { { W, G, U }, 3, 1, NULL },                       /* the nearest measured, not the first */
                { { G, W, U }, 3, SIZE_MAX, "worse already" },     /* the regression is older than tonight */
                { { U, U }, 2, SIZE_MAX, "no kernel before it" },  /* nothing measured before */
                { { G }, 0, SIZE_MAX, "no kernel before it" },     /* tonight's is the source's first */
                { { G, G, G, W, G }, 5, 4, NULL },                 /* a worse kernel further back does not matter */
        };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const char *why = NULL;
                size_t got = nightly_bisect_good_end(rows[i].marks, rows[i].bad, &why);

                if (got != rows[i].want)
                        TEST_FAIL("row %zu: good end %zu, want %zu", i, got, rows[i].want);
                if (rows[i].why && (!why || !strstr(why, rows[i].why)))
                        TEST_FAIL("row %zu: why '%s'", i, why ? why : "(null)");
        }
}
