/* Unit tests for the run option table: range checks through parse_number,
 * the saved settings and what --resume reads back. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/test.h"
#include "settings/runopts.h"

TEST_MAIN();

static int set(struct run_settings *o, const char *name, const char *text, struct kb_error *err) {
        const struct runopt *opt = runopt_find(name);

        ASSERT_TRUE(opt != NULL);
        return runopt_set(o, opt, text, err);
}

TEST(defaults) {
        struct run_settings o;

        runopts_defaults(&o);
        ASSERT_EQ(o.repeats, 1);
        ASSERT_EQ(o.guest.mem_mb, 256);
        ASSERT_EQ(o.guest.cpus, 1);
        ASSERT_EQ(o.guest.disk_bytes, 2ull << 30);
        ASSERT_EQ(o.guest.swap_bytes, 0);
        ASSERT_STREQ(o.guest.fs, "ext4");
        ASSERT_STREQ(o.accel, "auto");
        ASSERT_NEAR(o.cell_timeout_s, 1800, 1e-9);
        ASSERT_NEAR(o.hang_timeout_s, 60, 1e-9);
        ASSERT_NEAR(o.vmstat_interval_s, 1, 1e-9);
        ASSERT_EQ(o.retries, 2);
        ASSERT_TRUE(o.guest.append == NULL);
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
        struct run_settings o;
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
                struct run_settings o;
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
                ASSERT_EQ(o.guest.mem_mb, 256);
                ASSERT_NEAR(o.cell_timeout_s, 1800, 1e-9);
        }
}

TEST(numbers_accepted) {
        struct run_settings o;
        struct kb_error err = { { 0 } };

        runopts_defaults(&o);
        ASSERT_EQ(set(&o, "mem", "160", &err), 0);
        ASSERT_EQ(o.guest.mem_mb, 160);
        ASSERT_EQ(set(&o, "mem", "1G", &err), 0);
        ASSERT_EQ(o.guest.mem_mb, 1024);
        ASSERT_EQ(set(&o, "swap", "0", &err), 0);
        ASSERT_EQ(o.guest.swap_bytes, 0);
        ASSERT_EQ(set(&o, "swap", "64M", &err), 0);
        ASSERT_EQ(o.guest.swap_bytes, 64ull << 20);
        ASSERT_EQ(set(&o, "timeout", "12.5", &err), 0);
        ASSERT_NEAR(o.cell_timeout_s, 12.5, 1e-9);
        ASSERT_EQ(set(&o, "resume", "42", &err), 0);
        ASSERT_EQ(o.resume_run, 42);
}

TEST(save_and_load) {
        struct run_settings o, back;
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
        ASSERT_EQ(back.guest.mem_mb, 160);
        ASSERT_NEAR(back.cell_timeout_s, 95.5, 1e-9);
        ASSERT_STREQ(back.guest.fs, "ext3");
        ASSERT_STREQ(back.guest.mount_opts, "data=ordered");
        ASSERT_EQ(back.guest.disk_bytes, 160ull << 20);
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
        struct run_settings o, back;
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
        struct run_settings o;
        struct kb_error err = { { 0 } };
        GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);

        size_t n_agent = 0;

        /* One line per single-valued row the agent takes, in table order
         * (a repeatable one has a line per item, and none by default). */
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                n_agent += opt->agent && opt->type != RUNOPT_STRV;
        runopts_defaults(&o);
        ASSERT_EQ(set(&o, "fs", "ext3", &err), 0);
        ASSERT_EQ(set(&o, "mount-opts", "data=ordered", &err), 0);
        runopts_agent_lines(&o, lines);
        ASSERT_EQ(lines->len, n_agent);
        /* The agent checks the bus's drivers before it waits for the disk. */
        ASSERT_STREQ(lines->pdata[0], "set disk_bus ide");
        ASSERT_STREQ(lines->pdata[1], "set fs ext3");
        ASSERT_STREQ(lines->pdata[2], "set mount_opts data=ordered");
        /* The agent counts its interval in milliseconds. */
        ASSERT_STREQ(lines->pdata[3], "set vmstat_interval_ms 1000");
        g_ptr_array_set_size(lines, 0);
        ASSERT_EQ(set(&o, "vmstat-interval", "0.25", &err), 0);
        runopts_agent_lines(&o, lines);
        ASSERT_STREQ(lines->pdata[3], "set vmstat_interval_ms 250");
        /* 0.1..10 s: faster than the agent's timer is useful, slower than a hang is not. */
        ASSERT_TRUE(set(&o, "vmstat-interval", "0.05", &err) < 0);
        ASSERT_TRUE(set(&o, "vmstat-interval", "11", &err) < 0);
        g_ptr_array_unref(lines);
}

/* --disk-bus: IDE unless asked, one of the bus table's names, part of what
 * a run measures and of every cell's params, and the same IDE as runs from
 * before the option (which saved no key). */
TEST(disk_bus) {
        const struct runopt *opt = runopt_find("disk-bus");
        struct run_settings o;
        struct kb_error err = { { 0 } };
        json_t *j = json_object();

        ASSERT_TRUE(opt != NULL);
        ASSERT_EQ(opt->class, RUNOPT_MEASURED);
        ASSERT_TRUE(opt->cell && opt->added_later);
        /* Compare pairs across no bus unasked. */
        ASSERT_TRUE(runopts_key_apart("disk_bus"));
        ASSERT_TRUE(!runopts_key_apart("disk_mbps"));
        runopts_defaults(&o);
        ASSERT_STREQ(o.guest.disk_bus, "ide");
        for (const char *const *b = (const char *const[]){ "ide", "ahci", "virtio-blk", "virtio-scsi", NULL }; *b;
             b++)
                ASSERT_EQ(set(&o, "disk-bus", *b, &err), 0);
        ASSERT_STREQ(o.guest.disk_bus, "virtio-scsi");
        ASSERT_EQ(set(&o, "disk-bus", "nvme", &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "'nvme' is not a disk bus: ide, ahci, virtio-blk, virtio-scsi") != NULL);
        ASSERT_EQ(set(&o, "disk-bus", "virtio-blk", &err), 0);
        runopts_cell_params(&o, j);
        ASSERT_STREQ(json_string_value(json_object_get(j, "disk_bus")), "virtio-blk");
        /* What the guest bound is a record of the cell, not a setting. */
        ASSERT_EQ(runopts_key_class("disk_driver"), RUNOPT_HOW);
        json_decref(j);
}

/* Every option says whether it is part of what a run measures: a new row
 * left unclassified fails here, before it splits (or merges) comparisons. */
TEST(every_option_is_classified) {
        for (const struct runopt *opt = runopt_table; opt->name; opt++)
                if (opt->class != RUNOPT_MEASURED && opt->class != RUNOPT_HOW)
                        TEST_FAIL("--%s: no class (RUNOPT_MEASURED or RUNOPT_HOW)", opt->name);
        for (const struct runopt_extra_key *x = runopt_extra_keys; x->key; x++)
                if (x->class != RUNOPT_MEASURED && x->class != RUNOPT_HOW)
                        TEST_FAIL("settings key %s: no class", x->key);
}

static int has_key(const json_t *a, const char *k) {
        size_t i;
        json_t *v;

        json_array_foreach(a, i, v)
                if (strcmp(json_string_value(v), k) == 0)
                        return 1;
        return 0;
}

TEST(how_keys_follow_the_classes) {
        json_t *how = runopts_how_keys();

        ASSERT_TRUE(has_key(how, "retries"));
        ASSERT_TRUE(has_key(how, "warm"));
        ASSERT_TRUE(has_key(how, "cold"));
        ASSERT_TRUE(has_key(how, "accel_requested"));
        ASSERT_TRUE(has_key(how, "how_keys"));
        ASSERT_TRUE(has_key(how, "sysctls_applied"));
        ASSERT_TRUE(!has_key(how, "mem_mb"));
        ASSERT_TRUE(!has_key(how, "sysctls"));
        ASSERT_TRUE(!has_key(how, "variant"));
        ASSERT_TRUE(!has_key(how, "accel"));
        ASSERT_TRUE(!has_key(how, "vmstat_interval_s"));
        json_decref(how);
}

static int apply_sysctls(struct run_settings *o, char **items, struct kb_error *err) {
        char *texts[64] = { 0 };
        int flags[64] = { 0 };
        size_t i = 0;

        while (strcmp(runopt_table[i].name, "sysctl") != 0)
                i++;
        texts[i] = (char *)(void *)items;
        return runopts_apply(o, texts, flags, err);
}

TEST(sysctls_checked_saved_and_sent) {
        static char *ok[] = { "vm.swappiness=10", "vm.dirty_ratio=7", "net.ipv4.tcp_rmem=4096 87380 6291456", NULL };
        static char *bad_name[] = { "vm.dirty-ratio=5", NULL }, *no_eq[] = { "vm.dirty_ratio", NULL };
        static char *twice[] = { "vm.dirty_ratio=5", "vm.dirty_ratio=6", NULL };
        static char *newline[] = { "vm.dirty_ratio=5\n6", NULL }, *empty[] = { "vm.dirty_ratio=", NULL };
        struct run_settings o, back;
        struct kb_error err = { { 0 } };
        GPtrArray *keep = g_ptr_array_new_with_free_func(g_free);
        GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
        json_t *j = json_object(), *a;

        runopts_defaults(&o);
        ASSERT_EQ(apply_sysctls(&o, bad_name, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "--sysctl: 'vm.dirty-ratio=5' is not KEY=VALUE: not a sysctl name");
        ASSERT_EQ(apply_sysctls(&o, no_eq, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "--sysctl: 'vm.dirty_ratio' is not KEY=VALUE: no '='");
        ASSERT_EQ(apply_sysctls(&o, twice, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "--sysctl: vm.dirty_ratio is given twice");
        ASSERT_EQ(apply_sysctls(&o, newline, &err), -EINVAL);
        ASSERT_EQ(apply_sysctls(&o, empty, &err), -EINVAL);
        ASSERT_TRUE(o.sysctls == NULL);

        ASSERT_EQ(apply_sysctls(&o, ok, &err), 0);
        /* Saved sorted, so the order they were given in is no setting. */
        runopts_save(&o, j);
        a = json_object_get(j, "sysctls");
        ASSERT_EQ(json_array_size(a), 3);
        ASSERT_STREQ(json_string_value(json_array_get(a, 0)), "net.ipv4.tcp_rmem=4096 87380 6291456");
        ASSERT_STREQ(json_string_value(json_array_get(a, 1)), "vm.dirty_ratio=7");
        runopts_defaults(&back);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), 0);
        ASSERT_EQ(g_strv_length(back.sysctls), 3);
        ASSERT_STREQ(back.sysctls[2], "vm.swappiness=10");
        /* One "sysctl KEY VALUE" line each, in the order given. */
        runopts_agent_lines(&o, lines);
        ASSERT_STREQ(lines->pdata[3], "sysctl vm.swappiness 10");
        ASSERT_STREQ(lines->pdata[4], "sysctl vm.dirty_ratio 7");
        ASSERT_STREQ(lines->pdata[5], "sysctl net.ipv4.tcp_rmem 4096 87380 6291456");
        json_decref(j);

        /* None: no key at all, as runs stored before --sysctl existed. */
        j = json_object();
        runopts_defaults(&o);
        runopts_save(&o, j);
        ASSERT_TRUE(json_object_get(j, "sysctls") == NULL);
        json_decref(j);
        j = json_pack("{s:[s]}", "sysctls", "vm.x=1\n");
        ASSERT_EQ(runopts_load(&back, j, keep, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "stored settings: sysctls") == err.msg);
        json_decref(j);
        g_ptr_array_unref(lines);
        g_ptr_array_unref(keep);
}

/* The bytes a bare number of unit means, or 0 for a unit that is not a
 * size (a rate such as MB/s takes no size suffix). */
static uint64_t unit_bytes(const char *unit) {
        if (strcmp(unit, "bytes") == 0)
                return 1;
        if (strcmp(unit, "KiB") == 0)
                return 1 << 10;
        if (strcmp(unit, "MiB") == 0)
                return 1 << 20;
        if (strcmp(unit, "GiB") == 0)
                return 1ull << 30;
        return 0;
}

/* The option's field as bytes (size rows) or as stored (rate rows). */
static uint64_t field_value(const struct run_settings *o, const struct runopt *opt) {
        const char *p = (const char *)o + opt->offset;

        if (opt->type == RUNOPT_MIB)
                return (uint64_t)*(const unsigned *)(const void *)p << 20;
        return *(const uint64_t *)(const void *)p;
}

/* Every size and rate row of the table, bare and with a suffix: a bare
 * number is the unit the row declares, and its --help says so; a size with
 * a suffix means the same bytes whatever the row's unit; a rate refuses a
 * size suffix (what would "25M" MB/s be?). Rows are found by their type,
 * so a new size or rate option is covered without touching this test. */
TEST(every_size_and_rate_option_in_its_unit) {
        size_t covered = 0;

        for (const struct runopt *opt = runopt_table; opt->name; opt++) {
                double min_field = opt->min > 0 ? opt->min : 1;
                struct kb_error err = { { 0 } };
                struct run_settings o;
                char text[64];
                uint64_t ub, want;

                if (opt->type != RUNOPT_MIB && opt->type != RUNOPT_SIZE && opt->type != RUNOPT_U64)
                        continue;
                covered++;
                if (!opt->unit)
                        TEST_FAIL("--%s: a size or rate option without a unit", opt->name);
                if (!strstr(opt->help, opt->unit))
                        TEST_FAIL("--%s: help \"%s\" does not name its unit %s", opt->name, opt->help, opt->unit);
                ub = unit_bytes(opt->unit);
                runopts_defaults(&o);
                if (ub == 0) {
                        /* A rate: the bare number is stored as it is. */
                        uint64_t n = (uint64_t)min_field + 24;
                        snprintf(text, sizeof(text), "%" PRIu64, n);
                        ASSERT_EQ(runopt_set(&o, opt, text, &err), 0);
                        ASSERT_EQ(field_value(&o, opt), n);
                        snprintf(text, sizeof(text), "%" PRIu64 "M", n);
                        if (runopt_set(&o, opt, text, &err) == 0)
                                TEST_FAIL("--%s %s: a rate took a size suffix", opt->name, text);
                        ASSERT_TRUE(strncmp(err.msg, "--", 2) == 0 && strstr(err.msg, opt->name));
                        continue;
                }
                /* The smallest whole MiB the row takes (min is in the field's unit). */
                want = (uint64_t)(opt->type == RUNOPT_MIB ? min_field * 1048576.0 : min_field);
                want = (want + (1u << 20) - 1) >> 20 << 20;
                if (want == 0)
                        want = 1 << 20;
                if (want % ub)
                        TEST_FAIL("--%s: %" PRIu64 " bytes is no whole %s", opt->name, want, opt->unit);
                snprintf(text, sizeof(text), "%" PRIu64, want / ub);
                ASSERT_EQ(runopt_set(&o, opt, text, &err), 0);
                if (field_value(&o, opt) != want)
                        TEST_FAIL("--%s %s: %" PRIu64 " bytes, want %s %s = %" PRIu64, opt->name, text,
                                  field_value(&o, opt), text, opt->unit, want);
                for (int s = 0; s < 2; s++) {
                        runopts_defaults(&o);
                        snprintf(text, sizeof(text), "%" PRIu64 "%s", want >> (s ? 10 : 20), s ? "K" : "M");
                        ASSERT_EQ(runopt_set(&o, opt, text, &err), 0);
                        if (field_value(&o, opt) != want)
                                TEST_FAIL("--%s %s: %" PRIu64 " bytes, want %" PRIu64, opt->name, text,
                                          field_value(&o, opt), want);
                }
        }
        /* mem, disk-size, disk-mbps, swap at least. */
        ASSERT_TRUE(covered >= 4);
}

TEST(until_mde_and_budgets) {
        static const char *const bad_mde[] = { "101", "-1", "nan", "5%%", "%", "5 %", "" };
        static const char *const bad_time[] = { "30x", "-1m", "31d", "m", "1e999s", "nan" };
        struct run_settings o, back;
        struct kb_error err = { { 0 } };
        GPtrArray *keep = g_ptr_array_new_with_free_func(g_free);
        json_t *j = json_object();

        runopts_defaults(&o);
        ASSERT_NEAR(o.until_mde_pct, 0, 0);                    /* off unless asked */
        ASSERT_EQ(o.budget_cells, 0);
        ASSERT_NEAR(o.budget_time_s, 0, 0);
        ASSERT_EQ(set(&o, "until-mde", "5%", &err), 0);
        ASSERT_NEAR(o.until_mde_pct, 5, 1e-12);
        ASSERT_EQ(set(&o, "until-mde", "2.5", &err), 0);
        ASSERT_NEAR(o.until_mde_pct, 2.5, 1e-12);
        for (size_t i = 0; i < sizeof(bad_mde) / sizeof(bad_mde[0]); i++)
                if (set(&o, "until-mde", bad_mde[i], &err) == 0)
                        TEST_FAIL("--until-mde %s accepted", bad_mde[i]);
        ASSERT_EQ(set(&o, "budget-time", "30m", &err), 0);
        ASSERT_NEAR(o.budget_time_s, 1800, 1e-9);
        ASSERT_EQ(set(&o, "budget-time", "1.5h", &err), 0);
        ASSERT_NEAR(o.budget_time_s, 5400, 1e-9);
        ASSERT_EQ(set(&o, "budget-time", "90", &err), 0);
        ASSERT_NEAR(o.budget_time_s, 90, 1e-9);
        for (size_t i = 0; i < sizeof(bad_time) / sizeof(bad_time[0]); i++)
                if (set(&o, "budget-time", bad_time[i], &err) == 0)
                        TEST_FAIL("--budget-time %s accepted", bad_time[i]);
        /* Only the rows that say so take a suffix. */
        ASSERT_TRUE(set(&o, "timeout", "30m", &err) < 0);
        ASSERT_EQ(set(&o, "budget-cells", "40", &err), 0);
        ASSERT_EQ(set(&o, "until-mde", "5%", &err), 0);
        /* --resume goes on choosing as the run did. */
        runopts_save(&o, j);
        runopts_defaults(&back);
        ASSERT_EQ(runopts_load(&back, j, keep, &err), 0);
        ASSERT_NEAR(back.until_mde_pct, 5, 1e-12);
        ASSERT_EQ(back.budget_cells, 40);
        ASSERT_NEAR(back.budget_time_s, 90, 1e-9);
        json_decref(j);
        g_ptr_array_unref(keep);
}

/* The command a regression report prints to measure a stored run again:
 * read back through the option table, it gives the same measured settings
 * (so its cells pair with the stored ones), and it names no default. */
TEST(command_reproduces_the_measured_settings) {
        static const char *const settings_text =
                "{\"workloads\":[\"dd:size=64M\"],\"repeats\":6,\"accel\":\"tcg\",\"mem_mb\":160,\"cpus\":1,"
                "\"disk_mbps\":40,\"fs\":\"ext4\",\"mount_opts\":\"data=ordered,noatime\",\"swap_bytes\":0,"
                "\"disk_bytes\":1073741824,\"sysctls\":[\"vm.dirty_ratio=7\",\"vm.swappiness=1\"],"
                "\"variant\":\"thr-\",\"append\":\"elevator=none quiet\",\"vmstat_interval_s\":0.5,\"cell_timeout_s\":99,"
                "\"accel_requested\":\"auto\"}";
        json_t *settings = json_loads(settings_text, 0, NULL), *saved = json_object(), *v;
        g_autofree char *cmd = runopts_command(settings, "6.1.0-57-amd64", "repro-4-new");
        g_auto(GStrv) argv = NULL;
        g_autofree char **texts = NULL;
        g_autofree int *flags = NULL;
        g_autofree GOptionEntry *entries = NULL;
        g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
        struct run_settings o;
        struct kb_error err = { { 0 } };
        const char *key;
        int argc;
        size_t n = 0;

        ASSERT_TRUE(settings != NULL);
        fprintf(stderr, "%s\n", cmd);
        ASSERT_STREQ(cmd, "kbench run -k 6.1.0-57-amd64 -w dd:size=64M -n 6 --accel tcg --mem 160 --disk-size "
                          "1G --disk-mbps 40 --mount-opts data=ordered,noatime --sysctl vm.dirty_ratio=7 "
                          "--sysctl vm.swappiness=1 --variant thr- --append 'elevator=none quiet' --vmstat-interval 0.5 "
                          "--tag repro-4-new");
        ASSERT_TRUE(g_shell_parse_argv(cmd, &argc, &argv, NULL));
        while (runopt_table[n].name)
                n++;
        texts = g_new0(char *, n);
        flags = g_new0(int, n);
        entries = runopts_entries(texts, flags);
        g_option_context_add_main_entries(ctx, entries, NULL);
        argc--;                            /* "kbench": "run" is the program name GOption skips */
        {
                /* GOption drops what it parses from the array it is given
                 * without freeing it: parse a shallow copy, so argv still
                 * holds (and frees) every string. */
                g_autofree char **args = g_memdup2(argv + 1, sizeof(char *) * ((size_t)argc + 1));
                char **view = args;

                ASSERT_TRUE(g_option_context_parse(ctx, &argc, &view, NULL));
                ASSERT_EQ(argc, 1);
        }
        runopts_defaults(&o);
        if (runopts_apply(&o, texts, flags, &err) < 0)
                TEST_FAIL("the command does not parse: %s", err.msg);
        runopts_save(&o, saved);
        json_object_foreach(settings, key, v) {
                const struct runopt *opt = NULL;

                for (size_t i = 0; i < n; i++)
                        if (runopt_table[i].key && strcmp(runopt_table[i].key, key) == 0)
                                opt = &runopt_table[i];
                if (!opt || opt->class != RUNOPT_MEASURED)
                        continue;
                if (!json_equal(v, json_object_get(saved, key)) && !(json_is_null(v) && !json_object_get(saved, key)))
                        TEST_FAIL("%s: saved %s, the command gives %s", key, json_dumps(v, JSON_ENCODE_ANY),
                                  json_dumps(json_object_get(saved, key), JSON_ENCODE_ANY));
        }
        ASSERT_STREQ(o.tag, "repro-4-new");
        ASSERT_EQ(o.repeats, 6);
        ASSERT_STREQ(o.accel, "tcg");
        json_decref(settings);
        json_decref(saved);
        /* What GOption parsed into texts, as cli_run frees it. */
        for (size_t i = 0; i < n; i++)
                if (runopt_table[i].type == RUNOPT_STRV)
                        g_strfreev((char **)(void *)texts[i]);
                else
                        g_free(texts[i]);
}
