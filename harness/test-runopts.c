/* Unit tests for the run option table: range checks through parse_number,
 * the saved settings and what --resume reads back. */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "harness/runopts.h"

TEST_MAIN();

static int set(struct runner_opts *o, const char *name, const char *text, struct kb_error *err) {
        const struct runopt *opt = runopt_find(name);

        ASSERT_TRUE(opt != NULL);
        return runopt_set(o, opt, text, err);
}

TEST(defaults) {
        struct runner_opts o;

        runopts_defaults(&o);
        ASSERT_EQ(o.repeats, 1);
        ASSERT_EQ(o.mem_mb, 256);
        ASSERT_EQ(o.cpus, 1);
        ASSERT_EQ(o.disk_bytes, 2ull << 30);
        ASSERT_EQ(o.swap_bytes, 0);
        ASSERT_STREQ(o.fs, "ext4");
        ASSERT_STREQ(o.accel, "auto");
        ASSERT_NEAR(o.cell_timeout_s, 1800, 1e-9);
        ASSERT_NEAR(o.hang_timeout_s, 60, 1e-9);
        ASSERT_NEAR(o.vmstat_interval_s, 1, 1e-9);
        ASSERT_EQ(o.retries, 2);
        ASSERT_TRUE(o.append == NULL);
        /* Cells boot cold unless --warm is given. */
        ASSERT_EQ(o.warm, 0);
        ASSERT_EQ(o.cold, 0);
}

static size_t opt_index(const char *name) {
        size_t i = 0;

        while (runopt_table[i].name && strcmp(runopt_table[i].name, name) != 0)
                i++;
        ASSERT_TRUE(runopt_table[i].name != NULL);
        return i;
}

/* A flag not given keeps its default; one given turns it on. */
TEST(flags_keep_defaults) {
        struct runner_opts o;
        char *texts[64] = { 0 };
        int flags[64] = { 0 };
        struct kb_error err = { { 0 } };

        runopts_defaults(&o);
        o.warm = 1;                        /* as a table default of "1" would set it */
        ASSERT_EQ(runopts_apply(&o, texts, flags, &err), 0);
        ASSERT_EQ(o.warm, 1);
        ASSERT_EQ(o.cold, 0);
        ASSERT_EQ(o.json, 0);
        flags[opt_index("cold")] = 1;
        flags[opt_index("json")] = 1;
        ASSERT_EQ(runopts_apply(&o, texts, flags, &err), 0);
        ASSERT_EQ(o.warm, 1);
        ASSERT_EQ(o.cold, 1);
        ASSERT_EQ(o.json, 1);
}

TEST(numbers_refused) {
        static const struct { const char *name, *text; } bad[] = {
                { "timeout", "inf" }, { "timeout", "nan" }, { "timeout", "-inf" }, { "timeout", "1e999" },
                { "timeout", "9" }, { "hang-timeout", "nan" }, { "mem", "4294967424" }, { "mem", "127" },
                { "mem", "65537" }, { "mem", "18446744073709551617" }, { "disk-size", "16000T" },
                { "disk-size", "63M" }, { "swap", "512K" }, { "cpus", "0" }, { "cpus", "4294967297" },
                { "repeat", "0" }, { "repeat", "-1" }, { "retries", "11" }, { "disk-mbps", "1e3" },
                { "resume", "0" }, { "resume", "99999999999999999999" }, { "fs", "ext4;rm" },
                { "mount-opts", "a b" }, { "accel", "hvf" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct runner_opts o;
                struct kb_error err = { { 0 } };
                char want[64];

                runopts_defaults(&o);
                if (set(&o, bad[i].name, bad[i].text, &err) == 0)
                        TEST_FAIL("--%s %s accepted", bad[i].name, bad[i].text);
                snprintf(want, sizeof(want), "--%s", bad[i].name);
                if (strncmp(err.msg, want, strlen(want)) != 0)
                        TEST_FAIL("--%s %s: message does not name the option: %s", bad[i].name, bad[i].text,
                                  err.msg);
                /* A refused value leaves the default in place. */
                ASSERT_EQ(o.mem_mb, 256);
                ASSERT_NEAR(o.cell_timeout_s, 1800, 1e-9);
        }
}

TEST(numbers_accepted) {
        struct runner_opts o;
        struct kb_error err = { { 0 } };

        runopts_defaults(&o);
        ASSERT_EQ(set(&o, "mem", "160", &err), 0);
        ASSERT_EQ(o.mem_mb, 160);
        ASSERT_EQ(set(&o, "mem", "1G", &err), 0);
        ASSERT_EQ(o.mem_mb, 1024);
        ASSERT_EQ(set(&o, "swap", "0", &err), 0);
        ASSERT_EQ(o.swap_bytes, 0);
        ASSERT_EQ(set(&o, "swap", "64M", &err), 0);
        ASSERT_EQ(o.swap_bytes, 64ull << 20);
        ASSERT_EQ(set(&o, "timeout", "12.5", &err), 0);
        ASSERT_NEAR(o.cell_timeout_s, 12.5, 1e-9);
        ASSERT_EQ(set(&o, "resume", "42", &err), 0);
        ASSERT_EQ(o.resume_run, 42);
}

TEST(save_and_load) {
        struct runner_opts o, back;
        struct kb_error err = { { 0 } };
        GPtrArray *keep = g_ptr_array_new_with_free_func(g_free);
        json_t *j = json_object();

        runopts_defaults(&o);
        ASSERT_EQ(set(&o, "mem", "160", &err), 0);
        ASSERT_EQ(set(&o, "timeout", "95.5", &err), 0);
        ASSERT_EQ(set(&o, "fs", "ext3", &err), 0);
        ASSERT_EQ(set(&o, "mount-opts", "data=ordered", &err), 0);
        ASSERT_EQ(set(&o, "disk-size", "160M", &err), 0);
        o.warm = 1;
        runopts_save(&o, j);
        ASSERT_TRUE(json_is_true(json_object_get(j, "warm")));
        ASSERT_TRUE(json_is_false(json_object_get(j, "cold")));
        ASSERT_TRUE(json_object_get(j, "cell_timeout_s") != NULL);
        ASSERT_TRUE(json_object_get(j, "tag") == NULL);

        runopts_defaults(&back);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), 0);
        ASSERT_EQ(back.mem_mb, 160);
        ASSERT_NEAR(back.cell_timeout_s, 95.5, 1e-9);
        ASSERT_STREQ(back.fs, "ext3");
        ASSERT_STREQ(back.mount_opts, "data=ordered");
        ASSERT_EQ(back.disk_bytes, 160ull << 20);
        /* A resumed run starts its cells as the run did. */
        ASSERT_EQ(back.warm, 1);
        ASSERT_EQ(back.cold, 0);
        json_decref(j);
        j = json_pack("{s:i}", "warm", 1);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "warm") != NULL);
        json_decref(j);

        /* Runs saved before a key existed (or whose value jansson could not
         * store, like inf) resume with the default, never with 0 s. */
        j = json_pack("{s:i}", "mem_mb", 160);
        runopts_defaults(&back);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), 0);
        ASSERT_NEAR(back.cell_timeout_s, 1800, 1e-9);
        json_decref(j);

        /* Stored settings are checked like the command line. */
        j = json_pack("{s:f}", "cell_timeout_s", 1.0);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), -ERANGE);
        ASSERT_TRUE(strstr(err.msg, "cell_timeout_s") != NULL);
        json_decref(j);
        j = json_pack("{s:I}", "mem_mb", (json_int_t)4294967424LL);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), -ERANGE);
        json_decref(j);
        j = json_pack("{s:s}", "mem_mb", "lots");
        ASSERT_EQ(runopts_load(&back, j, keep, &err), -EINVAL);
        json_decref(j);
        g_ptr_array_unref(keep);
}

TEST(entries_cover_table) {
        size_t n = 0;
        char *texts[64] = { 0 };
        int flags[64] = { 0 };
        GOptionEntry *e;

        while (runopt_table[n].name)
                n++;
        ASSERT_TRUE(n < 64);
        e = runopts_entries(texts, flags);
        for (size_t i = 0; i < n; i++)
                ASSERT_STREQ(e[i].long_name, runopt_table[i].name);
        ASSERT_TRUE(e[n].long_name == NULL);
        g_free(e);
}

TEST(max_contention) {
        static const char *const bad[] = { "101", "-1", "nan", "inf", "10%", "" };
        struct runner_opts o, back;
        struct kb_error err = { { 0 } };
        GPtrArray *keep = g_ptr_array_new_with_free_func(g_free);
        json_t *j = json_object();

        runopts_defaults(&o);
        ASSERT_NEAR(o.max_contention_pct, 0, 1e-12);           /* never re-run unless asked */
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (set(&o, "max-contention", bad[i], &err) == 0)
                        TEST_FAIL("--max-contention %s accepted", bad[i]);
                ASSERT_TRUE(strstr(err.msg, "--max-contention: ") == err.msg);
                ASSERT_TRUE(strstr(err.msg, "a percentage in 0..100") != NULL);
        }
        ASSERT_EQ(set(&o, "max-contention", "12.5", &err), 0);
        ASSERT_NEAR(o.max_contention_pct, 12.5, 1e-12);
        /* --resume re-runs contended cells as the run did. */
        runopts_save(&o, j);
        runopts_defaults(&back);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), 0);
        ASSERT_NEAR(back.max_contention_pct, 12.5, 1e-12);
        json_decref(j);
        /* The default survives the round trip too (saved as 0). */
        j = json_object();
        runopts_defaults(&o);
        runopts_save(&o, j);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), 0);
        ASSERT_NEAR(back.max_contention_pct, 0, 1e-12);
        json_decref(j);
        g_ptr_array_unref(keep);
}

TEST(agent_lines_from_the_table) {
        struct runner_opts o;
        struct kb_error err = { { 0 } };
        GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);

        runopts_defaults(&o);
        ASSERT_EQ(set(&o, "fs", "ext3", &err), 0);
        ASSERT_EQ(set(&o, "mount-opts", "data=ordered", &err), 0);
        runopts_agent_lines(&o, lines);
        ASSERT_EQ(lines->len, 3);
        ASSERT_STREQ(lines->pdata[0], "set fs ext3");
        ASSERT_STREQ(lines->pdata[1], "set mount_opts data=ordered");
        /* The agent counts its interval in milliseconds. */
        ASSERT_STREQ(lines->pdata[2], "set vmstat_interval_ms 1000");
        g_ptr_array_set_size(lines, 0);
        ASSERT_EQ(set(&o, "vmstat-interval", "0.25", &err), 0);
        runopts_agent_lines(&o, lines);
        ASSERT_STREQ(lines->pdata[2], "set vmstat_interval_ms 250");
        /* 0.1..10 s: faster than the agent's timer is useful, slower than a hang is not. */
        ASSERT_TRUE(set(&o, "vmstat-interval", "0.05", &err) < 0);
        ASSERT_TRUE(set(&o, "vmstat-interval", "11", &err) < 0);
        g_ptr_array_unref(lines);
}
