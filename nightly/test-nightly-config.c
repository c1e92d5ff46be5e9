/* Unit tests for nightly/nightly_config: every bad configuration in the table
 * gets exactly its one-line message, a full configuration is read into every
 * field, defaults fill what is absent, and docs/nightly.md documents every
 * key and carries an example that parses. */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "common/test.h"
#include "nightly/nightly_config.h"

TEST_MAIN();

static const char minimal[] =
        "{\"sources\": [{\"type\": \"dir\", \"path\": \"/srv/kernels\"}],"
        " \"baseline\": \"6.1.0-57-amd64\", \"workloads\": [\"dd\"]}";

/* A minimal config with one more top-level member spliced in. */
#define WITH(member) "{\"sources\": [{\"type\": \"dir\", \"path\": \"/srv/k\"}], \"baseline\": \"b\"," \
        " \"workloads\": [\"dd\"], " member "}"
#define SOURCE(src) "{\"sources\": [{\"type\": \"dir\", \"path\": \"/srv/k\"}, " src "], \"baseline\": \"b\"," \
        " \"workloads\": [\"dd\"]}"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const struct { const char *json, *msg; } bad[] = {
        { "[]", "expected a JSON object at the top" },
        { "{\"sources\": [", "line 1, column 13: ']' expected near end of file" },
        { WITH("\"repeats\": 0"), "repeats: 0 is not a whole number in 1..10000" },
        { WITH("\"repeats\": 10001"), "repeats: 10001 is not a whole number in 1..10000" },
        { WITH("\"repeats\": \"5\""), "repeats: expected an integer" },
        { WITH("\"repeats\": 2.5"), "repeats: expected an integer" },
        { WITH("\"repeat\": 5"), "repeat: unknown key" },
        { WITH("\"repeats\": 5, \"repeats\": 6"), "line 1, column 110: duplicate object key near '\"repeats\"'" },
        { WITH("\"vm\": {\"memory\": \"1G\"}"), "vm.memory: unknown key" },
        { WITH("\"vm\": []"), "vm: expected an object" },
        { WITH("\"vm\": {\"mem\": \"64M\"}"), "vm.mem: '64M' is not a size in 128..65536 MiB" },
        { WITH("\"vm\": {\"mem\": 160}"), "vm.mem: 160 is not a size in 128..65536 MiB" },
        { WITH("\"vm\": {\"mem\": \"lots\"}"), "vm.mem: expected a size such as \"256M\"" },
        { WITH("\"vm\": {\"mem\": -1}"), "vm.mem: -1 is not a size in 128..65536 MiB" },
        { WITH("\"vm\": {\"mem\": \"99999999999999999999\"}"),
          "vm.mem: '99999999999999999999' is not a size in 128..65536 MiB" },
        /* A size the run option refuses (its --resume would too). */
        { WITH("\"vm\": {\"swap\": \"512K\"}"), "vm.swap: '512K' is not a size in 1M..1024G (or 0)" },
        { WITH("\"vm\": {\"cpus\": 0}"), "vm.cpus: 0 is not a whole number in 1..64" },
        { WITH("\"vm\": {\"fs\": \"Ext4\"}"), "vm.fs: 'Ext4' is not a filesystem name" },
        { WITH("\"vm\": {\"mount_opts\": \"data=ordered, noatime\"}"),
          "vm.mount_opts: 'data=ordered, noatime' must not contain blanks or backslashes" },
        { WITH("\"vm\": {\"mount_opts\": \"data=ordered\\u0001\"}"),
          "vm.mount_opts: mount options must not hold control characters (byte 0x01 at 12)" },
        { WITH("\"alpha\": 0.9"), "alpha: 0.9 is not a number in 0.0001..0.5" },
        { WITH("\"alpha\": \"0.05\""), "alpha: expected a number" },
        { WITH("\"noise\": -0.1"), "noise: -0.1 is not a fraction in 0..0.5 or a percentage in 0%..50%" },
        { WITH("\"noise\": \"51%\""), "noise: '51%' is not a fraction in 0..0.5 or a percentage in 0%..50%" },
        /* A percentage as --noise spells it, or a fraction; nothing else. */
        { WITH("\"noise\": \"2\""), "noise: expected a percentage such as \"2%\" or a fraction such as 0.02" },
        { WITH("\"noise\": \"2 %\""), "noise: expected a percentage such as \"2%\" or a fraction such as 0.02" },
        { WITH("\"noise\": true"), "noise: expected a percentage such as \"2%\" or a fraction such as 0.02" },
        { WITH("\"changepoint\": {\"p_value\": 0}"), "changepoint.p_value: 0 is out of range (1e-06..0.5)" },
        { WITH("\"changepoint\": {\"window\": 3}"), "changepoint.window: 3 is out of range (4..10000)" },
        { WITH("\"changepoint\": {\"confirm\": true}"), "changepoint.confirm: expected an integer" },
        { WITH("\"changepoint\": {\"pvalue\": 0.01}"), "changepoint.pvalue: unknown key" },
        { WITH("\"deadline\": \"30s\""), "deadline: 30s is out of range (1m..7d)" },
        { WITH("\"deadline\": \"8d\""), "deadline: 8d is out of range (1m..7d)" },
        { WITH("\"deadline\": \"6 hours\""), "deadline: expected a duration such as \"6h\" or a number of seconds" },
        { WITH("\"deadline\": 1.5"), "deadline: expected a duration such as \"6h\" or a number of seconds" },
        { WITH("\"notify\": \"\""), "notify: must not be empty" },
        { WITH("\"notify\": \"mail -s x\\nroot\""), "notify: must be one line of printable characters" },
        { WITH("\"mail_to\": \"a@example.org\\r\\nBcc: evil@example.org\""),
          "mail_to: must be one line of printable characters" },
        { WITH("\"mail_from\": \"kbench\""), "mail_from: must hold an address user@host (at most 900 characters)" },
        { WITH("\"mail_from\": \"k\u00e9 <k@example.org>\""), "mail_from: must be ASCII" },
        { WITH("\"publish_dir\": 7"), "publish_dir: expected a string" },
        { WITH("\"connect\": null"), "connect: expected a string" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"workloads\": [\"dd\"]}",
          "baseline: missing (required)" },
        { "{\"baseline\": \"b\", \"workloads\": [\"dd\"]}", "sources: missing (required)" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\"}",
          "workloads: missing (required)" },
        { "{\"sources\": [], \"baseline\": \"b\", \"workloads\": [\"dd\"]}", "sources: must not be empty" },
        { "{\"sources\": {}, \"baseline\": \"b\", \"workloads\": [\"dd\"]}", "sources: expected an array" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": []}",
          "workloads: must not be empty" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": \"dd\"}",
          "workloads: expected an array of strings" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": [\"dd\", 3]}",
          "workloads[1]: expected a string" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": [\"dd\", \"dd:sz=1\"]}",
          "workloads[1]: workload dd: unknown key 'sz' (keys: size, bs)" },
        { SOURCE("{\"type\": \"url\", \"url\": 5}"), "sources[1].url: expected a string" },
        { SOURCE("{\"type\": \"url\"}"), "sources[1].url: missing (required)" },
        { SOURCE("{\"url\": \"http://x/\"}"), "sources[1].type: missing (required)" },
        { SOURCE("{\"type\": \"ftp\"}"), "sources[1].type: \"ftp\" is not one of dir, url, apt" },
        { SOURCE("{\"type\": 1}"), "sources[1].type: expected a string" },
        { SOURCE("{\"type\": \"url\", \"url\": \"ftp://x/k.deb\"}"),
          "sources[1].url: must start with http:// or https:// (an http(s) URL)" },
        { SOURCE("{\"type\": \"url\", \"url\": \"https:///k.deb\"}"),
          "sources[1].url: must name a host after http(s)://" },
        { SOURCE("{\"type\": \"url\", \"url\": \"http://x/a b.deb\"}"),
          "sources[1].url: must not contain blanks or non-ASCII characters" },
        { SOURCE("{\"type\": \"url\", \"url\": \"http://x/\", \"sha256\": \"abc\"}"),
          "sources[1].sha256: must be 64 hexadecimal digits" },
        { SOURCE("{\"type\": \"url\", \"url\": \"http://x/kernels/\", \"sha256\": \"" SHA_A "\"}"),
          "sources[1].sha256: names one file, but url is an index page" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"sha256\": \"abc\"}"),
          "sources[1].sha256: not a key of a dir source" },
        { SOURCE("{\"type\": \"apt\", \"pattern\": \"linux-image-*\", \"url\": \"http://x/\"}"),
          "sources[1].url: not a key of an apt source" },
        { SOURCE("{\"type\": \"apt\", \"pattern\": \"linux-image-*; rm -rf /\"}"),
          "sources[1].pattern: must be a package name glob of a-z 0-9 + . - * ? [ ]" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"name\": \"no spaces\"}"),
          "sources[1].name: must be 1-64 characters of A-Z a-z 0-9 . _ + ~ -" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"\"}"), "sources[1].path: must not be empty" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"elevator\": \"none\"}}"),
          "sources[1].overrides.elevator: unknown key" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"append\": [\"x\"]}}"),
          "sources[1].overrides.append: expected a string" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"disk_mbps\": -5}}"),
          "sources[1].overrides.disk_mbps: -5 is not a whole number in 0..100000" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"sysctls\": []}}"),
          "sources[1].overrides.sysctls: expected an object" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"sysctls\": {\"vm.dirty_ratio\": 1.5}}}"),
          "sources[1].overrides.sysctls[\"vm.dirty_ratio\"]: expected a string or an integer" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"sysctls\": {\"vm dirty\": 5}}}"),
          "sources[1].overrides.sysctls: 'vm dirty=5' is not KEY=VALUE: not a sysctl name" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"sysctls\": {\"../../etc\": 5}}}"),
          "sources[1].overrides.sysctls: '../../etc=5' is not KEY=VALUE: not a sysctl name" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"sysctls\": {\"vm.x=y\": 5}}}"),
          "sources[1].overrides.sysctls[\"vm.x=y\"]: not a sysctl name" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"overrides\": {\"sysctls\": {\"vm.x\": \"\"}}}"),
          "sources[1].overrides.sysctls: 'vm.x=' is not KEY=VALUE: empty value" },
        { SOURCE("[\"dir\"]"), "sources[1]: expected an object" },
        /* What kbench run refuses, and a source given twice. */
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": [\"dd\", \"dd:bs=1M\"]}",
          "workloads[1]: 'dd:bs=1M' is the same workload as workloads[0] 'dd' (dd:size=,bs=1M); give each once" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/srv/k\"}"),
          "sources[1]: the same source as sources[0] ('/srv/k'); give it once, or a name to each" },
        { SOURCE("{\"type\": \"dir\", \"path\": \"/d\", \"x\\u0001y\": 1}"), "sources[1].x?y: unknown key" },
        /* base_url is linked from pages and mails: an http(s) URL only. */
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": [\"dd\"], "
          "\"base_url\": \"javascript:alert(1)\"}", "base_url: must start with http:// or https:// (an http(s) URL)" },
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\"}], \"baseline\": \"b\", \"workloads\": [\"dd\"], "
          "\"base_url\": \"http://a b\"}", "base_url: must not contain blanks or non-ASCII characters" },
        /* A NUL: what it is, not the JSON library's flag. */
        { "{\"sources\": [{\"type\": \"dir\", \"path\": \"/k\\u0000\"}], \"baseline\": \"b\", \"workloads\": [\"dd\"]}",
          "line 1, column 47: a string holds \\u0000 (a NUL character), which no key takes: remove it" },
};

TEST(bad_configs_name_their_path) {
        int failed = 0;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct nightly_config *c = NULL;
                struct kb_error err = { { 0 } };
                int r = nightly_config_parse(bad[i].json, strlen(bad[i].json), &c, &err);

                if (r != -EINVAL || c)
                        TEST_FAIL("case %zu (%s): r=%d, expected -EINVAL", i, bad[i].msg, r);
                if (strcmp(err.msg, bad[i].msg) != 0) {
                        fprintf(stderr, "case %zu: got \"%s\", expected \"%s\"\n", i, err.msg, bad[i].msg);
                        failed++;
                }
        }
        ASSERT_EQ(failed, 0);
}

static const char full[] =
        "{\n"
        "  \"sources\": [\n"
        "    {\"type\": \"dir\", \"path\": \"/srv/drop\", \"name\": \"drop-\"},\n"
        "    {\"type\": \"url\", \"url\": \"https://kernels.example.org/nightly/linux-image-6.1.0-58-amd64_6.1.200-1_amd64.deb\",\n"
        "     \"sha256\": \"ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789\"},\n"
        "    {\"type\": \"apt\", \"pattern\": \"linux-image-*-amd64-unsigned\", \"name\": \"slow-\",\n"
        "     \"overrides\": {\"append\": \"elevator=none\", \"disk_mbps\": 70,\n"
        "                   \"sysctls\": {\"vm.dirty_ratio\": 5, \"vm.swappiness\": \"10\"}}}\n"
        "  ],\n"
        "  \"baseline\": \"6.1.0-57-amd64\",\n"
        "  \"workloads\": [\"dd:bs=1M\", \"ftp:size=64M\"],\n"
        "  \"repeats\": 6,\n"
        "  \"vm\": {\"mem\": \"160M\", \"cpus\": 2, \"disk_size\": \"4G\", \"fs\": \"ext3\",\n"
        "         \"mount_opts\": \"data=ordered\", \"swap\": \"256M\"},\n"
        "  \"alpha\": 0.01, \"noise\": \"3%\",\n"
        "  \"changepoint\": {\"p_value\": 0.005, \"min_magnitude\": 0.1, \"window\": 40, \"confirm\": 2},\n"
        "  \"publish_dir\": \"/var/www/kbench\",\n"
        "  \"connect\": \"qemu:///system\",\n"
        "  \"deadline\": \"5h\",\n"
        "  \"notify\": \"mail -s 'kbench regression' root\"\n"
        "}\n";

TEST(full_config_read_into_every_field) {
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };
        const struct nightly_source *s;

        if (nightly_config_parse(full, strlen(full), &c, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(c->n_sources, 3);
        s = &c->sources[0];
        ASSERT_EQ(s->type, NIGHTLY_SOURCE_DIR);
        ASSERT_STREQ(s->path, "/srv/drop");
        ASSERT_STREQ(s->name, "drop-");
        ASSERT_TRUE(!s->url && !s->pattern && !s->sha256 && !s->overrides.guest.append);
        ASSERT_TRUE(!s->overrides.sysctls);
        ASSERT_EQ(s->overrides.guest.disk_mbps, 0);
        s = &c->sources[1];
        ASSERT_EQ(s->type, NIGHTLY_SOURCE_URL);
        ASSERT_STREQ(s->url, "https://kernels.example.org/nightly/linux-image-6.1.0-58-amd64_6.1.200-1_amd64.deb");
        ASSERT_STREQ(s->sha256, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
        ASSERT_TRUE(!s->name && !s->path);
        s = &c->sources[2];
        ASSERT_EQ(s->type, NIGHTLY_SOURCE_APT);
        ASSERT_STREQ(s->pattern, "linux-image-*-amd64-unsigned");
        ASSERT_STREQ(s->name, "slow-");
        ASSERT_STREQ(s->overrides.guest.append, "elevator=none");
        ASSERT_EQ(s->overrides.guest.disk_mbps, 70);
        ASSERT_EQ(g_strv_length(s->overrides.sysctls), 2);
        ASSERT_STREQ(s->overrides.sysctls[0], "vm.dirty_ratio=5");
        ASSERT_STREQ(s->overrides.sysctls[1], "vm.swappiness=10");
        ASSERT_STREQ(c->baseline, "6.1.0-57-amd64");
        ASSERT_EQ(g_strv_length(c->workloads), 2);
        ASSERT_STREQ(c->workloads[0], "dd:bs=1M");
        ASSERT_STREQ(c->workloads[1], "ftp:size=64M");
        ASSERT_STREQ(c->workload_specs[0], "dd:size=,bs=1M");
        ASSERT_TRUE(g_str_has_prefix(c->workload_specs[1], "ftp:size=64M"));
        ASSERT_TRUE(!c->workload_specs[2]);
        ASSERT_EQ(c->run.repeats, 6);
        ASSERT_EQ(c->run.guest.mem_mb, 160);
        ASSERT_EQ(c->run.guest.cpus, 2);
        ASSERT_EQ(c->run.guest.disk_bytes, 4ull << 30);
        ASSERT_STREQ(c->run.guest.fs, "ext3");
        ASSERT_STREQ(c->run.guest.mount_opts, "data=ordered");
        ASSERT_EQ(c->run.guest.swap_bytes, 256u << 20);
        ASSERT_NEAR(c->alpha, 0.01, 1e-12);
        ASSERT_NEAR(c->noise, 0.03, 1e-12);
        ASSERT_NEAR(c->cp_p_value, 0.005, 1e-12);
        ASSERT_NEAR(c->cp_min_magnitude, 0.1, 1e-12);
        ASSERT_EQ(c->cp_window, 40);
        ASSERT_EQ(c->cp_confirm, 2);
        ASSERT_STREQ(c->publish_dir, "/var/www/kbench");
        ASSERT_STREQ(c->connect, "qemu:///system");
        ASSERT_NEAR(c->deadline_s, 5 * 3600, 1e-9);
        ASSERT_STREQ(c->notify, "mail -s 'kbench regression' root");
        nightly_config_free(c);
}

TEST(defaults_fill_what_is_absent) {
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };

        if (nightly_config_parse(minimal, strlen(minimal), &c, &err) < 0)
                TEST_FAIL("%s", err.msg);
        ASSERT_EQ(c->run.repeats, 5);
        ASSERT_EQ(c->run.guest.mem_mb, 256);
        ASSERT_EQ(c->run.guest.cpus, 1);
        ASSERT_EQ(c->run.guest.disk_bytes, 2ull << 30);
        ASSERT_STREQ(c->run.guest.fs, "ext4");
        ASSERT_STREQ(c->run.guest.mount_opts, "");
        ASSERT_EQ(c->run.guest.swap_bytes, 0);
        ASSERT_NEAR(c->alpha, 0.05, 1e-12);
        ASSERT_NEAR(c->noise, 0.02, 1e-12);
        ASSERT_NEAR(c->cp_p_value, 0.001, 1e-12);
        ASSERT_NEAR(c->cp_min_magnitude, 0.05, 1e-12);
        ASSERT_EQ(c->cp_window, 30);
        ASSERT_EQ(c->cp_confirm, 3);
        ASSERT_NEAR(c->deadline_s, 6 * 3600, 1e-9);
        ASSERT_TRUE(!c->publish_dir && !c->connect && !c->notify);
        ASSERT_TRUE(!c->sources[0].overrides.sysctls);
        nightly_config_free(c);
}

TEST(durations_and_sizes) {
        static const struct { const char *json; double deadline_s; } d[] = {
                { WITH("\"deadline\": 3600"), 3600 }, { WITH("\"deadline\": \"90m\""), 5400 },
                { WITH("\"deadline\": \"2d\""), 172800 }, { WITH("\"deadline\": \"600s\""), 600 },
                { WITH("\"deadline\": \"120\""), 120 },
        };
        for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
                struct nightly_config *c = NULL;
                struct kb_error err = { { 0 } };
                if (nightly_config_parse(d[i].json, strlen(d[i].json), &c, &err) < 0)
                        TEST_FAIL("case %zu: %s", i, err.msg);
                ASSERT_NEAR(c->deadline_s, d[i].deadline_s, 1e-9);
                nightly_config_free(c);
        }
}

TEST(until_mde_and_budgets) {
        static const struct { const char *json; double pct; int cells; double time_s; } ok[] = {
                { WITH("\"until_mde\": \"5%\", \"budget_cells\": 40"), 5, 40, 0 },
                { WITH("\"until_mde\": 2.5, \"budget_time\": \"30m\""), 2.5, 0, 1800 },
                { WITH("\"until_mde\": \"10\", \"budget_cells\": 8"), 10, 8, 0 },
        };
        static const struct { const char *json, *msg; } no[] = {
                { WITH("\"until_mde\": \"101%\""), "until_mde: '101%' is not a percentage in 0..100" },
                { WITH("\"until_mde\": \"5 %\""), "until_mde: expected a percentage such as \"5%\" or a number" },
                { WITH("\"until_mde\": true"), "until_mde: expected a percentage such as \"5%\" or a number" },
                { WITH("\"budget_cells\": -1"), "budget_cells: -1 is not a whole number in 0..100000" },
                /* Across fields, as kbench run checks them (decide/judgeopts.h). */
                { WITH("\"until_mde\": \"10\""), "until_mde needs a budget: budget_cells or budget_time" },
                { WITH("\"budget_cells\": 8"), "budget_cells and budget_time are budgets of until_mde" },
                { WITH("\"until_mde\": \"3%\", \"budget_cells\": 8, \"noise\": \"3%\""),
                  "until_mde 3% lies within noise (3%): a verdict needs the whole interval of a change beyond it, "
                  "so the target must be larger" },
        };

        for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
                struct nightly_config *c = NULL;
                struct kb_error err = { { 0 } };
                if (nightly_config_parse(ok[i].json, strlen(ok[i].json), &c, &err) < 0)
                        TEST_FAIL("case %zu: %s", i, err.msg);
                ASSERT_NEAR(c->run.until_mde_pct, ok[i].pct, 1e-12);
                ASSERT_EQ(c->run.budget_cells, ok[i].cells);
                ASSERT_NEAR(c->run.budget_time_s, ok[i].time_s, 1e-9);
                nightly_config_free(c);
        }
        for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
                struct nightly_config *c = NULL;
                struct kb_error err = { { 0 } };
                ASSERT_EQ(nightly_config_parse(no[i].json, strlen(no[i].json), &c, &err), -EINVAL);
                ASSERT_STREQ(err.msg, no[i].msg);
        }
}

TEST(load_prefixes_the_file) {
        char path[] = "/tmp/test-nightly-config-XXXXXX";
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };
        g_autofree char *expect = NULL;
        int fd = mkstemp(path);
        const char *text = WITH("\"repeats\": 0");

        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, text, strlen(text)), (long)strlen(text));
        close(fd);
        ASSERT_EQ(nightly_config_load(path, &c, &err), -EINVAL);
        expect = g_strdup_printf("%s: repeats: 0 is not a whole number in 1..10000", path);
        ASSERT_STREQ(err.msg, expect);
        unlink(path);
}

/* docs/nightly.md is the user's reference: every key of the table must be
 * in it, and the example configuration it shows must be accepted. */
static char *read_docs(void) {
        const char *src = getenv("KBENCH_SOURCE_ROOT");
        g_autofree char *path = NULL;
        char *text = NULL;

        if (!src)
                TEST_FAIL("KBENCH_SOURCE_ROOT is not set (meson sets it)");
        path = g_build_filename(src, "docs", "nightly.md", NULL);
        if (!g_file_get_contents(path, &text, NULL, NULL))
                TEST_FAIL("cannot read %s", path);
        return text;
}

TEST(docs_list_every_key) {
        g_autofree char *docs = read_docs(), *keys = nightly_config_keys_text();
        g_auto(GStrv) lines = NULL;

        lines = g_strsplit(keys, "\n", -1);
        for (char **l = lines; *l && **l; l++) {
                g_autofree char *key = g_strndup(*l, strcspn(*l, " "));
                g_autofree char *quoted = g_strdup_printf("`%s`", key);
                if (!strstr(docs, quoted))
                        TEST_FAIL("docs/nightly.md does not document %s", quoted);
        }
}

TEST(docs_example_parses) {
        g_autofree char *docs = read_docs();
        const char *start = strstr(docs, "<!-- example-config -->"), *end;
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };

        ASSERT_TRUE(start);
        start = strstr(start, "```json\n");
        ASSERT_TRUE(start);
        start += strlen("```json\n");
        end = strstr(start, "```");
        ASSERT_TRUE(end);
        if (nightly_config_parse(start, (size_t)(end - start), &c, &err) < 0)
                TEST_FAIL("docs/nightly.md example: %s", err.msg);
        ASSERT_TRUE(c->n_sources >= 3);
        nightly_config_free(c);
}

/* The cron line: five time fields of digits, '*', ',', '-', '/' in range,
 * then the user (cron.d format) and a command that runs kbench nightly. */
TEST(docs_cron_line_is_well_formed) {
        static const int max[5] = { 59, 23, 31, 12, 7 };
        g_autofree char *docs = read_docs();
        const char *start = strstr(docs, "<!-- cron -->"), *end;
        g_autofree char *line = NULL;
        g_auto(GStrv) f = NULL;

        ASSERT_TRUE(start);
        start = strstr(start, "```\n");
        ASSERT_TRUE(start);
        start += 4;
        end = strchr(start, '\n');
        ASSERT_TRUE(end);
        line = g_strndup(start, (size_t)(end - start));
        f = g_strsplit_set(line, " ", 8);
        ASSERT_TRUE(g_strv_length(f) == 8);
        for (int i = 0; i < 5; i++) {
                g_auto(GStrv) parts = g_strsplit_set(f[i], ",-/", -1);
                if (strspn(f[i], "0123456789*,-/") != strlen(f[i]))
                        TEST_FAIL("cron field %d '%s' is not a time field", i + 1, f[i]);
                for (char **p = parts; *p; p++)
                        if (**p != '*' && (!**p || atoi(*p) > max[i]))
                                TEST_FAIL("cron field %d '%s' is out of range", i + 1, f[i]);
        }
        ASSERT_STREQ(f[5], "root");
        ASSERT_TRUE(strstr(f[7], "kbench nightly /etc/kbench/nightly.json") != NULL);
}

/* "bisect": absent, nothing is read and the night never bisects; given,
 * its metric is required and its keys are checked like the others. */
TEST(bisect_key) {
        static const struct { const char *json, *msg; } no[] = {
                { WITH("\"bisect\": {}"), "bisect.metric: missing (required)" },
                { WITH("\"bisect\": {\"workload\": \"dd\"}"), "bisect.metric: missing (required)" },
                { WITH("\"bisect\": {\"metric\": \"m\", \"max_rounds\": 1}"),
                  "bisect.max_rounds: 1 is not a whole number in 2..1000" },
                /* The night's bisection starts with the judging table's pilot. */
                { WITH("\"bisect\": {\"metric\": \"m\", \"max_rounds\": 3}"),
                  "bisect.max_rounds 3 is less than the pilot (4 rounds, kbench bisect's default)" },
                { WITH("\"bisect\": {\"metric\": \"m\", \"rounds\": 5}"), "bisect.rounds: unknown key" },
                { WITH("\"bisect\": {\"metric\": \"\"}"), "bisect.metric: must not be empty" },
                { WITH("\"bisect\": \"guest.write.kernel_Minsn\""), "bisect: expected an object" },
        };
        struct nightly_config *c = NULL;
        struct kb_error err = { { 0 } };
        const char *given = WITH("\"bisect\": {\"metric\": \"guest.write.kernel_Minsn\"}");
        const char *full_b = WITH("\"bisect\": {\"metric\": \"dd.write_MBps\", \"workload\": \"dd\", \"max_rounds\": 20}");

        ASSERT_EQ(nightly_config_parse(minimal, strlen(minimal), &c, &err), 0);
        ASSERT_TRUE(!c->bisect.metric && !c->bisect.workload);
        c = nightly_config_free(c);
        ASSERT_EQ(nightly_config_parse(given, strlen(given), &c, &err), 0);
        ASSERT_STREQ(c->bisect.metric, "guest.write.kernel_Minsn");
        ASSERT_TRUE(!c->bisect.workload);
        ASSERT_EQ(c->bisect.max_rounds, 12);
        c = nightly_config_free(c);
        ASSERT_EQ(nightly_config_parse(full_b, strlen(full_b), &c, &err), 0);
        ASSERT_STREQ(c->bisect.metric, "dd.write_MBps");
        ASSERT_STREQ(c->bisect.workload, "dd");
        ASSERT_EQ(c->bisect.max_rounds, 20);
        c = nightly_config_free(c);
        for (size_t i = 0; i < G_N_ELEMENTS(no); i++) {
                err.msg[0] = '\0';
                ASSERT_EQ(nightly_config_parse(no[i].json, strlen(no[i].json), &c, &err), -EINVAL);
                ASSERT_STREQ(err.msg, no[i].msg);
        }
}

/* The runner names the options of a night's runs in its errors as the
 * file names them. */
TEST(option_keys) {
        static const char *const pairs[][2] = {
                { "fs", "vm.fs" },           { "disk-size", "vm.disk_size" },  { "until-mde", "until_mde" },
                { "budget-cells", "budget_cells" }, { "repeat", "repeats" },  { "connect", "hosts" },
                { "slots", "slots" },        { "max-rounds", "bisect.max_rounds" }, { "alpha", "alpha" },
                { "kernel", "kernel" },      /* no key sets it: its name */
        };

        for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++)
                ASSERT_STREQ(nightly_config_option_key(pairs[i][0]), pairs[i][1]);
}
