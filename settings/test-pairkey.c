/* Unit tests for the pairing key: what it keeps and drops, its items, the
 * diff and the line every renderer prints, and the frozen legacy list
 * checked against the option table. */
#include <errno.h>
#include <string.h>

#include "common/test.h"
#include "settings/pairkey.h"
#include "settings/runopts.h"

TEST_MAIN();

static const char settings[] = "{\"kernels\":[{\"name\":\"k\"}],\"workloads\":[\"dd:size=,bs=1M\"],\"repeats\":5,"
                               "\"mem_mb\":256,\"cpus\":1,\"disk_mbps\":0,\"fs\":\"ext4\",\"append\":null,"
                               "\"accel_requested\":\"auto\",\"accel_why\":\"probe\",\"retries\":2,"
                               "\"planned_cells\":10}";
static const char params[] = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_mbps\":0,"
                             "\"fs\":\"ext4\",\"accel\":\"tcg\"}";
static const char params_slow[] = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_mbps\":93,"
                                  "\"fs\":\"ext4\",\"accel\":\"tcg\"}";

static struct pairkey *key(const char *s, const char *p, const char *const *ignored) {
        struct pairkey *k = NULL;
        struct kb_error err = { { 0 } };

        if (pairkey_from_json(s, p, "dd", ignored, &k, &err) < 0)
                TEST_FAIL("pairkey_from_json: %s", err.msg);
        return k;
}

TEST(what_the_key_keeps) {
        struct pairkey *k = key(settings, params, NULL), *k2;

        /* Repeats, the run's size, retries and the accelerator probe do not
         * shape a measurement; an unset option (null) is an absent one. */
        ASSERT_STREQ(k->canon, "{\"accel\":\"tcg\",\"cpus\":1,\"disk_mbps\":0,\"fs\":\"ext4\",\"mem_mb\":256,"
                               "\"workload\":\"dd:size=,bs=1M\"}");
        ASSERT_STREQ(k->spec, "dd:size=,bs=1M");
        ASSERT_EQ(k->n, 6);
        ASSERT_STREQ(k->items[0].name, "accel");
        ASSERT_STREQ(k->items[5].name, "workload");
        ASSERT_EQ(json_integer_value(pairkey_get(k, "mem_mb")->value), 256);
        ASSERT_TRUE(pairkey_get(k, "repeats") == NULL);
        /* A run that lists its own how_keys is read by its list, not the
         * legacy one, in its settings and its cells' params alike; "" is no
         * extra command line. */
        k2 = key("{\"how_keys\":[\"retries\",\"sysctls_applied\",\"how_keys\"],\"retries\":2,"
                 "\"repeats\":5,\"append\":\"\",\"sysctls\":[\"vm.dirty_ratio=7\"]}",
                 "{\"workload\":\"dd\",\"sysctls_applied\":{\"vm.dirty_ratio\":\"7\"}}", NULL);
        ASSERT_STREQ(k2->canon, "{\"repeats\":5,\"sysctls\":[\"vm.dirty_ratio=7\"],\"workload\":\"dd\"}");
        pairkey_unref(k2);
        /* A cell's params cannot say what counts: the run's list stands. */
        k2 = key("{\"how_keys\":[\"retries\"],\"retries\":2}", "{\"how_keys\":[\"mem_mb\"],\"mem_mb\":160}", NULL);
        ASSERT_STREQ(k2->canon, "{\"mem_mb\":160}");
        pairkey_unref(k2);
        pairkey_unref(k);
}

TEST(defaults_of_later_options_pair_with_older_runs) {
        struct pairkey *k = key(settings, "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,"
                                "\"disk_mbps\":0,\"fs\":\"ext4\",\"accel\":\"tcg\",\"vmstat_interval_s\":1.0}", NULL);
        struct pairkey *old = key(settings, params, NULL);

        ASSERT_STREQ(k->canon, old->canon);
        pairkey_unref(k);
        k = key(settings, "{\"vmstat_interval_s\":0.25}", NULL);
        ASSERT_TRUE(strstr(k->canon, "\"vmstat_interval_s\":0.25") != NULL);
        pairkey_unref(k);
        pairkey_unref(old);
}

/* Cells on two buses measured two disk paths: never paired unasked;
 * --ignore-setting disk_bus pairs them on purpose, and runs from before
 * the option (no key) ran on IDE. */
TEST(disk_bus_splits_the_key) {
        const char *const ignore[] = { "disk_bus", NULL };
        json_t *how = runopts_how_keys();
        g_autofree char *how_text = json_dumps(how, JSON_COMPACT);
        g_autofree char *run = g_strdup_printf("{\"how_keys\":%s}", how_text);
        struct pairkey *ide = key(run, "{\"workload\":\"dd\",\"disk_bus\":\"ide\",\"disk_driver\":\"sd ata_piix\"}",
                                  NULL);
        struct pairkey *old = key(run, "{\"workload\":\"dd\"}", NULL);
        struct pairkey *vblk = key(run, "{\"workload\":\"dd\",\"disk_bus\":\"virtio-blk\","
                                   "\"disk_driver\":\"virtio_blk virtio-pci\"}", NULL);
        g_autoptr(GString) text = g_string_new(NULL);

        ASSERT_STREQ(ide->canon, old->canon);
        ASSERT_TRUE(strcmp(ide->canon, vblk->canon) != 0);
        ASSERT_EQ(pairkey_diff(ide, vblk, NULL, text), 1);
        /* IDE, the default, reads as an absent key, as in older runs. */
        ASSERT_STREQ(text->str, "disk_bus (none) | \"virtio-blk\"");
        pairkey_unref(vblk);
        pairkey_unref(ide);
        ide = key(run, "{\"workload\":\"dd\",\"disk_bus\":\"ide\"}", ignore);
        vblk = key(run, "{\"workload\":\"dd\",\"disk_bus\":\"virtio-blk\"}", ignore);
        ASSERT_STREQ(ide->canon, vblk->canon);
        pairkey_unref(vblk);
        pairkey_unref(ide);
        pairkey_unref(old);
        json_decref(how);
}

TEST(unreadable_input) {
        struct pairkey *k = key(settings, "{oops", NULL);
        struct kb_error err = { { 0 } };

        /* Unreadable params pair only with the same bytes. */
        ASSERT_TRUE(strstr(k->canon, "\"params_raw\":\"{oops\"") != NULL);
        ASSERT_STREQ(k->spec, "dd");
        pairkey_unref(k);
        k = NULL;
        ASSERT_EQ(pairkey_from_json("[1]", params, "dd", NULL, &k, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "run settings are not a JSON object");
        ASSERT_TRUE(k == NULL);
}

TEST(diff_line_and_json) {
        const char *const ignore[] = { "disk_mbps", NULL };
        struct pairkey *a = key(settings, params, NULL), *b = key(settings, params_slow, NULL);
        struct pairkey *c = key("{}", "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,"
                                "\"fs\":\"ext4\",\"accel\":\"tcg\",\"swap_bytes\":0}", NULL);
        g_autoptr(GPtrArray) names = g_ptr_array_new();
        g_autoptr(GString) text = g_string_new(NULL);
        g_autofree char *line = pairkey_line(a), *dumped = NULL;
        json_t *j;

        ASSERT_EQ(pairkey_diff(a, b, names, text), 1);
        ASSERT_STREQ(text->str, "disk_mbps 0 | 93");
        ASSERT_STREQ(g_ptr_array_index(names, 0), "disk_mbps");
        ASSERT_EQ(pairkey_diff(a, a, NULL, NULL), 0);
        /* A's keys first, in order, then B's that A lacks. */
        g_string_truncate(text, 0);
        ASSERT_EQ(pairkey_diff(a, c, NULL, text), 2);
        ASSERT_STREQ(text->str, "disk_mbps 0 | (none), swap_bytes (none) | 0");
        pairkey_unref(b);
        b = key(settings, params_slow, ignore);
        pairkey_unref(a);
        a = key(settings, params, ignore);
        ASSERT_STREQ(a->canon, b->canon);
        ASSERT_STREQ(line, "accel=\"tcg\" cpus=1 disk_mbps=0 fs=\"ext4\" mem 256 MiB");
        j = pairkey_json(c);
        dumped = json_dumps(j, JSON_COMPACT);
        ASSERT_STREQ(dumped, c->canon);
        json_decref(j);
        pairkey_unref(a);
        pairkey_unref(b);
        pairkey_unref(c);
}

/* Runs stored before they listed their own how_keys are read with the
 * frozen legacy list: each of its keys must still be how kbench ran in
 * the option table, or old and new runs would stop pairing. */
TEST(legacy_how_keys_agree_with_the_table) {
        const char *const *legacy = pairkey_legacy_how_keys();

        for (size_t i = 0; legacy[i]; i++)
                if (runopts_key_class(legacy[i]) != RUNOPT_HOW)
                        TEST_FAIL("%s: the legacy list drops it, the option table measures it", legacy[i]);
}

/* The refcount: a key shared by a group and a lonely entry is freed once. */
TEST(shared_keys) {
        struct pairkey *k = key(settings, params, NULL);

        ASSERT_TRUE(pairkey_ref(k) == k);
        ASSERT_TRUE(pairkey_unref(k) == NULL);
        ASSERT_EQ(k->ref, 1);
        pairkey_unref(k);
        ASSERT_TRUE(pairkey_unref(NULL) == NULL);
}
