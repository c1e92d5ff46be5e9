/* test-workload.c: "-w" spec parsing, typed getters, the registry and
 * workload_quote. */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "workloads/workload.h"

TEST_MAIN();

static struct workload_spec *parse_ok(const char *text) {
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };

        if (workload_spec_parse(text, &s, &err) < 0)
                TEST_FAIL("%s: %s", text, err.msg);
        return s;
}

static void parse_fails(const char *text, const char *msg) {
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };

        ASSERT_EQ(workload_spec_parse(text, &s, &err), -EINVAL);
        ASSERT_TRUE(s == NULL);
        ASSERT_STREQ(err.msg, msg);
}

TEST(defaults_and_canonical_text) {
        struct workload_spec *s = parse_ok("dd");

        ASSERT_TRUE(s->ops == &dd_ops);
        ASSERT_EQ(s->n, 2);
        ASSERT_STREQ(s->text, "dd:size=,bs=1M");
        ASSERT_EQ(workload_spec_size(s, "size", 12345), 12345);
        ASSERT_EQ(workload_spec_size(s, "bs", 0), 1 << 20);
        workload_spec_free(s);

        s = parse_ok("dd:bs=4k,size=512M");
        ASSERT_STREQ(s->text, "dd:size=512M,bs=4k");
        ASSERT_EQ(workload_spec_size(s, "size", 0), 512ULL << 20);
        ASSERT_EQ(workload_spec_size(s, "bs", 0), 4096);
        workload_spec_free(s);

        /* The canonical text parses to itself. */
        s = parse_ok("dd:size=,bs=1M");
        ASSERT_STREQ(s->text, "dd:size=,bs=1M");
        workload_spec_free(s);
}

TEST(lists_bools_uints) {
        struct workload_spec *s = parse_ok("tiobench:threads=1/2/16,random=100,direct=on");
        uint64_t *v = NULL;
        size_t n = 0;

        ASSERT_EQ(workload_spec_uint_list(s, "threads", &v, &n), 0);
        ASSERT_EQ(n, 3);
        ASSERT_EQ(v[0], 1);
        ASSERT_EQ(v[1], 2);
        ASSERT_EQ(v[2], 16);
        free(v);
        ASSERT_EQ(workload_spec_uint(s, "random", 0), 100);
        ASSERT_EQ(workload_spec_bool(s, "direct"), 1);
        ASSERT_EQ(workload_spec_bool(s, "sync"), 0);
        ASSERT_EQ(workload_spec_bool(s, "drop_caches"), 1);
        ASSERT_STREQ(workload_spec_get(s, "direct"), "yes");
        ASSERT_STREQ(s->text, "tiobench:threads=1/2/16,size=,block=4k,random=100,direct=yes,sync=no,drop_caches=yes");
        workload_spec_free(s);
}

TEST(errors_name_the_key) {
        parse_fails("tiobench:threads=1/x", "workload tiobench: key 'threads': '1/x' is not a list of numbers");
        parse_fails("tiobench:threads=1//2", "workload tiobench: key 'threads': '1//2' is not a list of numbers");
        parse_fails("tiobench:threads=", "workload tiobench: key 'threads': empty value");
        parse_fails("dd:sz=1M", "workload dd: unknown key 'sz' (keys: size, bs)");
        parse_fails("dd:size=lots", "workload dd: key 'size': 'lots' is not a size (e.g. 512M)");
        parse_fails("dd:bs=1M,bs=2M", "workload dd: key 'bs' given twice");
        parse_fails("dd:bs", "workload dd: 'bs' is not key=value");
        parse_fails("dd:", "workload dd: nothing after ':'");
        parse_fails("dd:bs=1M,", "workload dd: '' is not key=value");
        parse_fails("tiobench:direct=maybe", "workload tiobench: key 'direct': 'maybe' is not yes/no");
        parse_fails("bonnie:files=-1", "workload bonnie: key 'files': '-1' is not a number");
        {
                /* the list follows the registry, which other workloads join */
                char msg[512] = "unknown workload 'fio' (workloads: dd, tiobench, bonnie";
                for (size_t i = 3; workload_all[i]; i++) {
                        strcat(msg, ", ");
                        strcat(msg, workload_all[i]->name);
                }
                strcat(msg, ")");
                parse_fails("fio", msg);
        }
        parse_fails(":x=1", "workload: ':x=1' has no workload name");
}

TEST(registry) {
        const struct metric_def *d;

        ASSERT_TRUE(workload_find("dd") == &dd_ops);
        ASSERT_TRUE(workload_find("bonnie") == &bonnie_ops);
        ASSERT_TRUE(workload_find("dd2") == NULL);
        d = workload_metric_def("dd.write_MBps");
        ASSERT_TRUE(d != NULL);
        ASSERT_STREQ(d->unit, "MB/s");
        ASSERT_EQ(d->higher_is_better, 1);
        d = workload_metric_def("dd.read_s");
        ASSERT_STREQ(d->unit, "s");
        ASSERT_EQ(d->higher_is_better, 0);
        d = workload_metric_def("tiobench.seq_read.t4.lat_max_ms");
        ASSERT_STREQ(d->unit, "ms");
        ASSERT_EQ(d->higher_is_better, 0);
        d = workload_metric_def("tiobench.rand_write.t8.cpu_eff");
        ASSERT_EQ(d->higher_is_better, 1);
        d = workload_metric_def("bonnie.seq_create_lat_us");
        ASSERT_STREQ(d->unit, "us");
        ASSERT_TRUE(workload_metric_def("dd") == NULL);
        ASSERT_TRUE(workload_metric_def("ddx.write_MBps") == NULL);
        ASSERT_TRUE(workload_metric_def("dd.bogus") == NULL);

        /* Every workload's defaults are valid and every key has help. */
        for (size_t i = 0; workload_all[i]; i++) {
                struct workload_spec *s = parse_ok(workload_all[i]->name);
                for (size_t k = 0; workload_all[i]->keys[k].name; k++)
                        ASSERT_TRUE(workload_all[i]->keys[k].help && workload_all[i]->keys[k].help[0]);
                workload_spec_free(s);
        }
}

TEST(quote) {
        char buf[256], line[400];

        ASSERT_STREQ(workload_quote("dd: error\x01\xff.", buf, sizeof(buf)), "dd: error??.");
        memset(line, 'a', sizeof(line) - 1);
        line[sizeof(line) - 1] = '\0';
        workload_quote(line, buf, sizeof(buf));
        ASSERT_EQ(strlen(buf), 203);
        ASSERT_STREQ(buf + 200, "...");
}
