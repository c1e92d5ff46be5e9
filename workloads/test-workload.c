/* test-workload.c: "-w" spec parsing into typed params (every key of every
 * workload, bare and with a suffix), the registry and workload_quote. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/test.h"
#include "workloads/testdata-ddtb.h"
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

/* The row of key name in s's workload. */
static const struct workload_key *key_of(const struct workload_ops *ops, const char *name) {
        for (const struct workload_key *k = ops->keys; k && k->name; k++)
                if (strcmp(k->name, name) == 0)
                        return k;
        TEST_FAIL("workload %s has no key %s", ops->name, name);
        return NULL;
}

/* A size or count field of the parsed params, read through the key's row. */
static uint64_t key_u64(const struct workload_spec *s, const char *name) {
        uint64_t v;

        memcpy(&v, (const char *)s->params + key_of(s->ops, name)->off, sizeof(v));
        return v;
}

static int key_int(const struct workload_spec *s, const char *name) {
        int v;

        memcpy(&v, (const char *)s->params + key_of(s->ops, name)->off, sizeof(v));
        return v;
}

TEST(defaults_and_canonical_text) {
        struct workload_spec *s = parse_ok("dd");

        ASSERT_TRUE(s->ops == workload_find("dd"));
        ASSERT_STREQ(s->text, "dd:size=,bs=1M");
        ASSERT_EQ(key_u64(s, "size"), 0);      /* computed by the workload */
        ASSERT_EQ(key_u64(s, "bs"), 1 << 20);
        workload_spec_free(s);

        s = parse_ok("dd:bs=4k,size=512M");
        ASSERT_STREQ(s->text, "dd:size=512M,bs=4k");
        ASSERT_EQ(key_u64(s, "size"), 512ULL << 20);
        ASSERT_EQ(key_u64(s, "bs"), 4096);
        workload_spec_free(s);

        /* The canonical text parses to itself; sizes always carry a suffix. */
        s = parse_ok("dd:size=,bs=1M");
        ASSERT_STREQ(s->text, "dd:size=,bs=1M");
        workload_spec_free(s);
        s = parse_ok("dd:size=1000B,bs=1536B");
        ASSERT_STREQ(s->text, "dd:size=1000B,bs=1536B");
        workload_spec_free(s);
}

/* A label names what ran: the size the guest's RAM decides is spelled out,
 * as the script resolves it (whole blocks), and parses to itself. */
TEST(resolve_spells_out_computed_defaults) {
        struct workload_env env = { .mem_bytes = 256ULL << 20 };
        struct workload_spec *s = parse_ok("dd"), *back;

        ASSERT_EQ(workload_spec_resolve(s, &env), 0);
        ASSERT_STREQ(s->text, "dd:size=512M,bs=1M");
        back = parse_ok(s->text);
        ASSERT_STREQ(back->text, s->text);
        workload_spec_free(back);
        workload_spec_free(s);

        s = parse_ok("dd:bs=3M");
        ASSERT_EQ(workload_spec_resolve(s, &env), 0);
        ASSERT_STREQ(s->text, "dd:size=510M,bs=3M");
        workload_spec_free(s);

        /* A size given stays; an env that decides nothing leaves "". */
        s = parse_ok("dd:size=32M");
        ASSERT_EQ(workload_spec_resolve(s, &env), 0);
        ASSERT_STREQ(s->text, "dd:size=32M,bs=1M");
        workload_spec_free(s);
        s = parse_ok("dd");
        ASSERT_EQ(workload_spec_resolve(s, &(struct workload_env){ 0 }), 0);
        ASSERT_STREQ(s->text, "dd:size=,bs=1M");
        workload_spec_free(s);

        s = parse_ok("bonnie");
        ASSERT_EQ(workload_spec_resolve(s, &env), 0);
        ASSERT_TRUE(strstr(s->text, "size=512M") != NULL && strstr(s->text, "ram=256M") != NULL);
        workload_spec_free(s);
}

/* A bare number means the unit --help names: MiB, for every size of every
 * workload, as for kbench run's sizes; a block size of 4 KiB is "4k". */
TEST(bare_numbers_use_the_key_unit) {
        struct workload_spec *s = parse_ok("bonnie:ram=64,size=256");

        ASSERT_EQ(key_u64(s, "ram"), 64ULL << 20);
        ASSERT_EQ(key_u64(s, "size"), 256ULL << 20);
        ASSERT_STREQ(s->text, "bonnie:size=256M,files=16,ram=64M,fast=no");
        ASSERT_TRUE(strstr(key_of(workload_find("bonnie"), "ram")->help, "a bare number is MiB") != NULL);
        ASSERT_STREQ(workload_key_unit(key_of(workload_find("bonnie"), "ram")), "MiB");
        workload_spec_free(s);
        s = parse_ok("bonnie:ram=64M");
        ASSERT_EQ(key_u64(s, "ram"), 64ULL << 20);
        workload_spec_free(s);
        s = parse_ok("dd:bs=1,size=512");
        ASSERT_EQ(key_u64(s, "bs"), 1ULL << 20);
        ASSERT_EQ(key_u64(s, "size"), 512ULL << 20);
        ASSERT_STREQ(workload_key_unit(key_of(workload_find("dd"), "bs")), "MiB");
        workload_spec_free(s);
        s = parse_ok("dd:bs=4k");
        ASSERT_EQ(key_u64(s, "bs"), 4096);
        workload_spec_free(s);
        parse_fails("dd:bs=4096", "workload dd: key 'bs': '4096' is not between 1 byte and 64 MiB (a bare number is MiB: "
                    "give a unit, e.g. 4k)");
}

TEST(lists_bools_counts) {
        struct workload_spec *s = parse_ok("tiobench:threads=1/2/16,random=100,direct=on");
        struct workload_list l;

        memcpy(&l, (const char *)s->params + key_of(s->ops, "threads")->off, sizeof(l));
        ASSERT_EQ(l.n, 3);
        ASSERT_EQ(l.v[0], 1);
        ASSERT_EQ(l.v[1], 2);
        ASSERT_EQ(l.v[2], 16);
        ASSERT_EQ(key_u64(s, "random"), 100);
        ASSERT_EQ(key_int(s, "direct"), 1);
        ASSERT_EQ(key_int(s, "sync"), 0);
        ASSERT_EQ(key_int(s, "drop_caches"), 1);
        ASSERT_STREQ(s->text, "tiobench:threads=1/2/16,size=,block=4k,random=100,direct=yes,sync=no,drop_caches=yes");
        workload_spec_free(s);
}

/* Parse name:key=value and check its canonical text gives the same params. */
static struct workload_spec *parse_round_trip(const struct workload_ops *ops, const char *key, const char *value) {
        char text[512];
        struct workload_spec *s, *again;

        snprintf(text, sizeof(text), "%s:%s=%s", ops->name, key, value);
        s = parse_ok(text);
        again = parse_ok(s->text);
        ASSERT_TRUE(memcmp(s->params, again->params, ops->params_size) == 0);
        ASSERT_STREQ(again->text, s->text);
        workload_spec_free(again);
        return s;
}

static void parse_rejects(const struct workload_ops *ops, const char *key, const char *value) {
        char text[512];
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };

        snprintf(text, sizeof(text), "%s:%s=%s", ops->name, key, value);
        if (workload_spec_parse(text, &s, &err) != -EINVAL)
                TEST_FAIL("%s was accepted", text);
        /* The message names the workload and the key. */
        ASSERT_TRUE(strstr(err.msg, ops->name) != NULL);
        ASSERT_TRUE(strstr(err.msg, key) != NULL);
}

/* Every key of every workload, with a bare number and with a suffix: a size
 * reads a bare number in its unit and a suffix as given, both range-checked;
 * counts, lists and bools take no suffix. */
TEST(every_key_bare_and_suffixed) {
        size_t checked = 0, rows = 0;
        char old[512], dir[] = "/tmp/test-workload-XXXXXX";
        FILE *f;

        /* A text value with a '/' is a path to some workloads (fio's job
         * file), checked when parsed: let it name a file. */
        ASSERT_TRUE(getcwd(old, sizeof(old)) != NULL);
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        ASSERT_EQ(chdir(dir), 0);
        ASSERT_EQ(mkdir("x", 0755), 0);
        f = fopen("x/y.z", "w");
        ASSERT_TRUE(f != NULL);
        fputs("[j]\nrw=read\n", f);
        fclose(f);
        for (size_t w = 0; workload_all[w]; w++) {
                const struct workload_ops *ops = workload_all[w];

                ASSERT_TRUE(ops->params_size > 0);
                for (const struct workload_key *k = ops->keys; k->name; k++) {
                        struct workload_spec *s;
                        char v[64];

                        ASSERT_TRUE(k->off < ops->params_size);
                        /* A computed default is stored as 0, so 0 must not be a value. */
                        if (k->def && k->def[0] == '\0')
                                ASSERT_TRUE(k->min >= 1);
                        switch (k->type) {
                        case WKEY_SIZE: {
                                uint64_t unit = k->unit ? k->unit : 1, n = (k->min + unit - 1) / unit;
                                uint64_t kib = (k->min + 1023) / 1024;
                                if (n == 0)
                                        n = 1;
                                if (kib == 0)
                                        kib = 1;
                                /* --help names the unit a bare number means. */
                                ASSERT_TRUE(strstr(k->help, workload_key_unit(k)) != NULL);
                                snprintf(v, sizeof(v), "%" PRIu64, n);
                                s = parse_round_trip(ops, k->name, v);
                                ASSERT_EQ(key_u64(s, k->name), n * unit);
                                workload_spec_free(s);
                                snprintf(v, sizeof(v), "%" PRIu64 "k", kib);
                                s = parse_round_trip(ops, k->name, v);
                                ASSERT_EQ(key_u64(s, k->name), kib * 1024);
                                workload_spec_free(s);
                                if (k->max) {
                                        snprintf(v, sizeof(v), "%" PRIu64 "B", k->max + 1);
                                        parse_rejects(ops, k->name, v);
                                }
                                if (k->min) {
                                        snprintf(v, sizeof(v), "%" PRIu64 "B", k->min - 1);
                                        parse_rejects(ops, k->name, v);
                                }
                                parse_rejects(ops, k->name, "18446744073709551615T");
                                parse_rejects(ops, k->name, "1x");
                                break;
                        }
                        case WKEY_COUNT: {
                                uint64_t n = k->min ? k->min : 1;
                                snprintf(v, sizeof(v), "%" PRIu64, n);
                                s = parse_round_trip(ops, k->name, v);
                                ASSERT_EQ(key_u64(s, k->name), n);
                                workload_spec_free(s);
                                snprintf(v, sizeof(v), "%" PRIu64 "k", n);
                                parse_rejects(ops, k->name, v);
                                if (k->max) {
                                        snprintf(v, sizeof(v), "%" PRIu64, k->max + 1);
                                        parse_rejects(ops, k->name, v);
                                }
                                break;
                        }
                        case WKEY_BOOL:
                                s = parse_round_trip(ops, k->name, "1");
                                ASSERT_EQ(key_int(s, k->name), 1);
                                workload_spec_free(s);
                                s = parse_round_trip(ops, k->name, "0");
                                ASSERT_EQ(key_int(s, k->name), 0);
                                workload_spec_free(s);
                                parse_rejects(ops, k->name, "1k");
                                break;
                        case WKEY_LIST: {
                                struct workload_list l;
                                uint64_t n = k->min ? k->min : 1;
                                snprintf(v, sizeof(v), "%" PRIu64 "/%" PRIu64, n, n);
                                s = parse_round_trip(ops, k->name, v);
                                memcpy(&l, (const char *)s->params + k->off, sizeof(l));
                                ASSERT_EQ(l.n, 2);
                                ASSERT_EQ(l.v[1], n);
                                workload_spec_free(s);
                                snprintf(v, sizeof(v), "%" PRIu64 "k", n);
                                parse_rejects(ops, k->name, v);
                                if (k->max) {
                                        snprintf(v, sizeof(v), "%" PRIu64 "/%" PRIu64, n, k->max + 1);
                                        parse_rejects(ops, k->name, v);
                                }
                                break;
                        }
                        case WKEY_ENUM:
                                ASSERT_TRUE(k->choices && k->choices[0]);
                                s = parse_round_trip(ops, k->name, k->choices[0]);
                                ASSERT_EQ(key_int(s, k->name), 0);
                                workload_spec_free(s);
                                parse_rejects(ops, k->name, "1");
                                break;
                        case WKEY_TEXT: {
                                char text[WORKLOAD_TEXT_MAX + 1];
                                s = parse_round_trip(ops, k->name, "x/y.z");
                                ASSERT_STREQ((const char *)s->params + k->off, "x/y.z");
                                workload_spec_free(s);
                                parse_rejects(ops, k->name, "a\tb");
                                memset(text, 'a', WORKLOAD_TEXT_MAX);
                                text[WORKLOAD_TEXT_MAX] = '\0';
                                parse_rejects(ops, k->name, text);
                                break;
                        }
                        }
                        checked++;
                }
        }
        /* Every key of every row was tried: at least dd's 2, tiobench's 7, bonnie's 4 and ftp's 4. */
        for (size_t w = 0; workload_all[w]; w++)
                for (const struct workload_key *k = workload_all[w]->keys; k && k->name; k++)
                        rows++;
        ASSERT_EQ(checked, rows);
        ASSERT_TRUE(rows >= 17);
        ASSERT_EQ(unlink("x/y.z"), 0);
        ASSERT_EQ(rmdir("x"), 0);
        ASSERT_EQ(chdir(old), 0);
        ASSERT_EQ(rmdir(dir), 0);
}

/* The enum type, which no workload uses yet, through a key table of its own. */
TEST(enum_keys) {
        struct params { int mode; uint64_t n; } p = { 0 };
        static const char *const modes[] = { "ordered", "writeback", "journal", NULL };
        static const struct workload_key keys[] = {
                { "mode", WKEY_ENUM, offsetof(struct params, mode), "ordered", .choices = modes, .help = "h" },
                { NULL },
        };
        static const struct workload_ops ops = { .name = "t", .keys = keys, .params_size = sizeof(struct params) };
        struct kb_error err = { "" };
        char buf[32];

        ASSERT_EQ(workload_key_parse(&ops, &keys[0], "journal", &p, &err), 0);
        ASSERT_EQ(p.mode, 2);
        ASSERT_EQ(workload_key_format(&keys[0], &p, buf, sizeof(buf)), 7);
        ASSERT_STREQ(buf, "journal");
        ASSERT_EQ(workload_key_parse(&ops, &keys[0], "data", &p, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "workload t: key 'mode': 'data' is not one of ordered, writeback, journal");
        ASSERT_EQ(p.mode, 2);
        ASSERT_EQ(workload_key_format(&keys[0], &p, buf, 4), -ENOSPC);
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
        parse_fails("bonnie:files=2000", "workload bonnie: key 'files': '2000' is not between 0 and 1024");
        parse_fails("bonnie:ram=0", "workload bonnie: key 'ram': '0' is less than 1 MiB");
        parse_fails("dd:bs=128M", "workload dd: key 'bs': '128M' is not between 1 byte and 64 MiB");
        parse_fails("tiobench:threads=1/300", "workload tiobench: key 'threads': '300' is not between 1 and 256");
        parse_fails("bonnie:ram=18446744073709551615", "workload bonnie: key 'ram': '18446744073709551615' MiB is too large");
        {
                /* the list follows the registry, which other workloads join */
                char msg[512] = "unknown workload 'iozone' (workloads: dd, tiobench, bonnie";
                for (size_t i = 3; workload_all[i]; i++) {
                        strcat(msg, ", ");
                        strcat(msg, workload_all[i]->name);
                }
                strcat(msg, ")");
                parse_fails("iozone", msg);
        }
        parse_fails(":x=1", "workload: ':x=1' has no workload name");
}

TEST(registry) {
        const struct metric_def *d;

        ASSERT_STREQ(workload_find("dd")->name, "dd");
        ASSERT_STREQ(workload_find("bonnie")->name, "bonnie");
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

/* Every key of every workload's table, bare and with a suffix. A size key's
 * bare number is the unit its row declares (workload_key_unit), and its
 * help says "a bare number is <unit>"; a size with a suffix means the same
 * bytes whatever the key's unit; a count or a list takes no size suffix.
 * The tables are walked, so a new workload or key is covered as it is
 * added. */
TEST(every_key_bare_and_suffixed_in_its_unit) {
        size_t sizes = 0;

        for (size_t w = 0; workload_all[w]; w++) {
                const struct workload_ops *ops = workload_all[w];

                for (const struct workload_key *k = ops->keys; k && k->name; k++) {
                        struct kb_error err = { { 0 } };
                        char text[64], phrase[64];
                        void *params = calloc(1, ops->params_size ? ops->params_size : 1);
                        uint64_t got, unit = k->unit ? k->unit : 1, g, want, n;

                        ASSERT_TRUE(params != NULL);
                        if (k->type == WKEY_SIZE) {
                                sizes++;
                                snprintf(phrase, sizeof(phrase), "a bare number is %s", workload_key_unit(k));
                                if (!k->help || !strstr(k->help, phrase))
                                        TEST_FAIL("%s:%s: help \"%s\" does not say \"%s\"", ops->name, k->name,
                                                  k->help ? k->help : "", phrase);
                                /* The smallest size the key takes that is a whole number of
                                 * its unit and of KiB, so every spelling below is exact. */
                                g = unit > 1024 ? unit : 1024;
                                want = ((k->min > 1 ? k->min : 1) + g - 1) / g * g;
                                if (k->max && want > k->max)
                                        TEST_FAIL("%s:%s: no whole %s in its range", ops->name, k->name,
                                                  workload_key_unit(k));
                                snprintf(text, sizeof(text), "%" PRIu64, want / unit);
                                ASSERT_EQ(workload_key_parse(ops, k, text, params, &err), 0);
                                memcpy(&got, (char *)params + k->off, sizeof(got));
                                if (got != want)
                                        TEST_FAIL("%s:%s=%s: %" PRIu64 " bytes, want %s %s", ops->name, k->name,
                                                  text, got, text, workload_key_unit(k));
                                for (int s = 0; s < 2; s++) {
                                        if (s == 1 && want % (1 << 20))
                                                continue;
                                        snprintf(text, sizeof(text), "%" PRIu64 "%s", want >> (s ? 20 : 10),
                                                 s ? "M" : "K");
                                        memset(params, 0, ops->params_size);
                                        ASSERT_EQ(workload_key_parse(ops, k, text, params, &err), 0);
                                        memcpy(&got, (char *)params + k->off, sizeof(got));
                                        if (got != want)
                                                TEST_FAIL("%s:%s=%s: %" PRIu64 " bytes, want %" PRIu64, ops->name,
                                                          k->name, text, got, want);
                                }
                        } else if (k->type == WKEY_COUNT || k->type == WKEY_LIST) {
                                ASSERT_TRUE(workload_key_unit(k) == NULL);
                                n = k->min > 1 ? k->min : 1;
                                snprintf(text, sizeof(text), "%" PRIu64, n);
                                ASSERT_EQ(workload_key_parse(ops, k, text, params, &err), 0);
                                if (k->type == WKEY_COUNT) {
                                        memcpy(&got, (char *)params + k->off, sizeof(got));
                                        ASSERT_EQ(got, n);
                                }
                                snprintf(text, sizeof(text), "%" PRIu64 "K", n);
                                if (workload_key_parse(ops, k, text, params, &err) == 0)
                                        TEST_FAIL("%s:%s=%s: a count took a size suffix", ops->name, k->name, text);
                                ASSERT_TRUE(strstr(err.msg, k->name) != NULL);
                        }
                        free(params);
                }
        }
        /* dd size and bs, tiobench size and block, bonnie size and ram, ftp size and rate. */
        ASSERT_TRUE(sizes >= 8);
}

/* What the registry promises of each row: help and --help come from the
 * rows, so each workload must document itself there, in docs/, and name
 * its metrics under its own prefix with a unit. */
TEST(registry_rows_complete) {
        const char *lines[4096];
        size_t n = 0;
        char *doc = test_read_lines(KB_TESTDATA_DIR "/../../docs/workloads.md", lines, &n, 4096);

        for (size_t w = 0; workload_all[w]; w++) {
                const struct workload_ops *ops = workload_all[w];
                char heading[80], own[128], prefix[80];
                int documented = 0;
                FILE *f;

                ASSERT_TRUE(ops->summary && ops->summary[0]);
                ASSERT_TRUE(ops->script && ops->parse && ops->metrics && ops->metrics[0].pattern);
                snprintf(heading, sizeof(heading), "## %s", ops->name);
                for (size_t i = 0; i < n; i++)
                        if (strcmp(lines[i], heading) == 0)
                                documented = 1;
                /* A workload with a page of its own (docs/ftp.md). */
                snprintf(own, sizeof(own), "%s/../../docs/%s.md", KB_TESTDATA_DIR, ops->name);
                if (!documented && (f = fopen(own, "r"))) {
                        documented = 1;
                        fclose(f);
                }
                if (!documented)
                        TEST_FAIL("workload %s has no '%s' in docs/workloads.md and no docs/%s.md", ops->name,
                                  heading, ops->name);
                snprintf(prefix, sizeof(prefix), "%s.", ops->name);
                for (const struct metric_def *d = ops->metrics; d->pattern; d++) {
                        ASSERT_TRUE(strncmp(d->pattern, prefix, strlen(prefix)) == 0);
                        ASSERT_TRUE(d->unit != NULL);
                        ASSERT_TRUE(d->higher_is_better >= -1 && d->higher_is_better <= 1);
                }
        }
        free(doc);
}

/* A phase's kind by its name in every workload; a timed phase's figures
 * per operation from its totals and the workload's operations. */
TEST(phase_kinds_and_per_op) {
        extern const struct workload_ops fio_ops, dd_ops;
        struct metric_list m = { 0 };

        ASSERT_EQ(workload_phase_kind("drop-caches"), WORKLOAD_PHASE_STEP);
        ASSERT_EQ(workload_phase_kind("drop-caches.t2"), WORKLOAD_PHASE_STEP);
        ASSERT_EQ(workload_phase_kind("layout"), WORKLOAD_PHASE_STEP);
        ASSERT_EQ(workload_phase_kind("randwrite-qd32"), WORKLOAD_PHASE_TIMED);
        ASSERT_EQ(workload_phase_kind("dbench"), WORKLOAD_PHASE_TIMED);
        ASSERT_EQ(workload_phase_kind("write"), WORKLOAD_PHASE_WORK);
        ASSERT_EQ(workload_phase_kind("seq_write.t2"), WORKLOAD_PHASE_WORK);
        /* A name means one kind in every workload that names it. */
        for (size_t a = 0; workload_all[a]; a++)
                for (size_t i = 0; workload_all[a]->phase_kinds && workload_all[a]->phase_kinds[i].pattern; i++)
                        ASSERT_EQ(workload_phase_kind(workload_all[a]->phase_kinds[i].pattern),
                                  workload_all[a]->phase_kinds[i].kind);

        ASSERT_EQ(metric_add(&m, "guest.randwrite.kernel_Minsn", 400, "Minsn"), 0);
        ASSERT_EQ(metric_add(&m, "guest.randwrite.wait_s", 4, "s"), 0);
        ASSERT_EQ(metric_add(&m, "guest.randwrite.disk_flushes", 6, "flushes"), 0);
        ASSERT_EQ(metric_add_none(&m, "guest.randwrite.sleep_s", "s", "dropped"), 0);
        ASSERT_EQ(metric_add(&m, "guest.layout.kernel_Minsn", 700, "Minsn"), 0);
        ASSERT_EQ(metric_add(&m, "fio.randwrite.ios", 20000, "ios"), 0);
        ASSERT_EQ(workload_per_op_metrics(&fio_ops, &m), 0);
        ASSERT_NEAR(metric_find(&m, "guest.randwrite.kernel_insn_per_op")->value, 20000, 1e-9);
        ASSERT_NEAR(metric_find(&m, "guest.randwrite.wait_us_per_op")->value, 200, 1e-9);
        ASSERT_NEAR(metric_find(&m, "guest.randwrite.disk_flushes_per_kop")->value, 0.3, 1e-12);
        /* No value, no figure; a step has none; dd has no timed phase. */
        ASSERT_TRUE(metric_find(&m, "guest.randwrite.sleep_us_per_op") == NULL);
        ASSERT_TRUE(metric_find(&m, "guest.layout.kernel_insn_per_op") == NULL);
        ASSERT_EQ(m.n, 9);
        ASSERT_EQ(workload_per_op_metrics(&dd_ops, &m), 0);
        ASSERT_EQ(m.n, 9);
        metric_list_clear(&m);
}
