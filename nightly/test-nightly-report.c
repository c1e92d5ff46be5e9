/* Unit tests for nightly_report.c: the one-line verdicts and the exit
 * status from a table of reports. */
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/test.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_report.h"

TEST_MAIN();

static struct nightly_finding finding(enum compare_verdict v, double change) {
        return (struct nightly_finding){ .kernel = (char *)"6.1.0-58-amd64", .baseline = (char *)"6.1.0-57-amd64",
                                         .metric = (char *)"dd.write_MBps", .change = change, .p = 0.0021,
                                         .q = 0.004, .na = 6, .nb = 6, .verdict = v };
}

TEST(regression_line_reads_like_0day) {
        struct nightly_finding f = finding(COMPARE_WORSE, -0.1234);
        g_autofree char *line = nightly_finding_line(&f);

        ASSERT_STREQ(line, "6.1.0-58-amd64: dd.write_MBps -12.3 % vs 6.1.0-57-amd64 (p=0.0021, n=6+6)");
}

/* An amount reads as its difference, as compare prints it: 26206 % of a
 * wait near 0 says nothing. */
TEST(amount_line_reads_as_a_difference) {
        struct nightly_finding f = finding(COMPARE_WORSE, 262.06);
        g_autofree char *line = NULL;

        f.metric = (char *)"guest.write.wait_s";
        f.change_text = (char *)"+4.19 s";
        line = nightly_finding_line(&f);
        ASSERT_STREQ(line, "6.1.0-58-amd64: guest.write.wait_s +4.19 s vs 6.1.0-57-amd64 (p=0.0021, n=6+6)");
}

TEST(line_names_settings_paired_across_and_improvements) {
        struct nightly_finding f = finding(COMPARE_BETTER, 0.05);
        g_autofree char *line = NULL;

        f.across = (char *)"disk_mbps";
        line = nightly_finding_line(&f);
        ASSERT_STREQ(line, "better: 6.1.0-58-amd64: dd.write_MBps +5.0 % vs 6.1.0-57-amd64 (p=0.0021, n=6+6) "
                           "[across disk_mbps]");
}

TEST(failure_line_names_the_stage) {
        struct nightly_failure f = { (char *)"6.1.0-58-amd64", (char *)"boot-timeout", (char *)"boot",
                                     (char *)"no agent within 120 s", 3, 3 };
        g_autofree char *line = nightly_failure_line(&f);

        ASSERT_STREQ(line, "6.1.0-58-amd64: failed at boot (boot-timeout: no agent within 120 s), 3 of 3 cells");
}

TEST(failure_detail_from_the_guest_cannot_forge_lines) {
        g_autofree char *long_detail = g_strnfill(300, 'x');
        struct nightly_failure f = { (char *)"k", (char *)"boot-crash", (char *)"boot",
                                     (char *)"/init: error\nverdict: no regression\x1b[2J\xff", 1, 3 };
        g_autofree char *line = nightly_failure_line(&f), *cut = NULL;

        /* A byte that is no UTF-8 is shown by its value, as every writer of
         * guest text shows it (common/utf8.h). */
        ASSERT_STREQ(line, "k: failed at boot (boot-crash: /init: error?verdict: no regression?[2J\\xff), 1 of 3 cells");
        /* a right-to-left override would show the lines after it reversed */
        f.detail = (char *)"ok \xe2\x80\xae" "sseccus";
        g_autofree char *bidi = nightly_failure_line(&f);
        ASSERT_STREQ(bidi, "k: failed at boot (boot-crash: ok ?sseccus), 1 of 3 cells");
        f.detail = long_detail;
        cut = nightly_failure_line(&f);
        ASSERT_TRUE(strstr(cut, "xxx...)") != NULL);
        ASSERT_TRUE(strlen(cut) < 200);
}

TEST(change_point_line) {
        struct nightly_change c = { (char *)"dd.write_MBps", (char *)"dd:size=64M,bs=", (char *)"k58",
                                    (char *)"k57", 4, -0.12, 0.005, 1, 1, 0.041 };
        g_autofree char *line = nightly_change_line(&c), *unknown = NULL;

        ASSERT_STREQ(line, "change point across nights: dd.write_MBps -12.0 % from k58 (after k57, run 4, p=0.005; "
                           "history's mde 4.1 %) worse provisional");
        c.mde = NAN;
        unknown = nightly_change_line(&c);
        ASSERT_TRUE(strstr(unknown, "history's mde unknown)") != NULL);
}

/* The exit status from a table of (findings, failures, errors, incomplete). */
TEST(exit_status_table) {
        static const struct {
                enum compare_verdict v[2];
                size_t n_v;
                size_t failures;
                int error, incomplete;
                int want;
        } table[] = {
                { { 0 }, 0, 0, 0, 0, NIGHTLY_EXIT_OK },
                { { COMPARE_BETTER }, 1, 0, 0, 0, NIGHTLY_EXIT_OK },
                { { COMPARE_SAME, COMPARE_N_SMALL }, 2, 0, 0, 0, NIGHTLY_EXIT_OK },
                { { COMPARE_BETTER, COMPARE_WORSE }, 2, 0, 0, 0, NIGHTLY_EXIT_REGRESSED },
                { { COMPARE_WORSE }, 1, 0, 1, 1, NIGHTLY_EXIT_REGRESSED },
                { { 0 }, 0, 1, 0, 0, NIGHTLY_EXIT_REGRESSED },
                { { 0 }, 0, 0, 1, 0, 1 },
                { { 0 }, 0, 0, 1, 1, 1 },
                { { 0 }, 0, 0, 0, 1, NIGHTLY_EXIT_INCOMPLETE },
                { { COMPARE_BETTER }, 1, 0, 0, 1, NIGHTLY_EXIT_INCOMPLETE },
        };
        char *errors[] = { (char *)"sources[0] (dir /x): gone", NULL };
        struct nightly_failure fail = { 0 };

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                struct nightly_finding f[2] = { finding(table[i].v[0], -0.1), finding(table[i].v[1], -0.1) };
                struct nightly_report r = { .findings = f, .n_findings = table[i].n_v, .failures = &fail,
                                            .n_failures = table[i].failures,
                                            .errors = table[i].error ? errors : NULL,
                                            .incomplete = table[i].incomplete };
                ASSERT_EQ(nightly_report_exit(&r), table[i].want);
        }
}

TEST(json_has_every_finding_and_the_exit_status) {
        struct nightly_finding f[2] = { finding(COMPARE_WORSE, -0.2), finding(COMPARE_BETTER, 0.1) };
        char *measured[] = { (char *)"6.1.0-58-amd64", NULL };
        struct nightly_report r = { .measured = measured, .findings = f, .n_findings = 2 };
        json_t *j;

        f[1].p = NAN;
        j = nightly_report_json(&r);
        ASSERT_EQ(json_array_size(json_object_get(j, "findings")), 2);
        ASSERT_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(j, "findings"), 0),
                                                       "verdict")), "worse");
        ASSERT_NEAR(json_real_value(json_object_get(json_array_get(json_object_get(j, "findings"), 0), "change")),
                    -0.2, 1e-12);
        ASSERT_TRUE(json_is_null(json_object_get(json_array_get(json_object_get(j, "findings"), 1), "p")));
        ASSERT_EQ(json_integer_value(json_object_get(j, "exit_status")), NIGHTLY_EXIT_REGRESSED);
        json_decref(j);
}

/* A history of 22 points, 20 from earlier nights, min_size 3, confirm 5. */
TEST(change_point_is_news_once) {
        static const struct {
                size_t index, len_before;
                int provisional, want;
        } table[] = {
                { 20, 20, 1, 1 },      /* starts with tonight's points */
                { 18, 20, 0, 1 },      /* two earlier points after it: too few to show before */
                { 17, 20, 1, 0 },      /* three earlier points after it: shown, provisional, before */
                { 17, 20, 0, 1 },      /* ... and confirmed tonight */
                { 15, 20, 0, 0 },      /* confirmed before tonight already */
                { 10, 20, 0, 0 },
                { 10, 20, 1, 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
                if (nightly_change_is_news(table[i].index, table[i].len_before, table[i].provisional, 3, 5) !=
                    table[i].want)
                        TEST_FAIL("row %zu", i);
}

/* The regression report's subject names the kernel, the metric and the
 * change of the worst finding, as 0-day's do; the text cannot forge a
 * header line. */
TEST(notify_subject_and_body) {
        struct nightly_finding fs[] = { finding(COMPARE_WORSE, -0.05), finding(COMPARE_BETTER, 0.3),
                                        finding(COMPARE_WORSE, -0.131) };
        char *cmds[] = { (char *)"kbench run -k 6.1.0-57-amd64 -k 6.1.0-58-amd64 -w dd:size=64M -n 6 --accel tcg "
                                 "--tag repro-4",
                         (char *)"kbench compare tag:repro-4:6.1.0-57-amd64 tag:repro-4:6.1.0-58-amd64", NULL };
        struct nightly_regression g = { (char *)"6.1.0-58-amd64", (char *)"6.1.0-57-amd64",
                                        (char *)"run:4:6.1.0-57-amd64", (char *)"run:4:6.1.0-58-amd64",
                                        (char *)"vm\nSubject: forged", (char *)"7.2.22", (char *)"9.0.0", cmds,
                                        (char *)"dd:size=64M,bs=\nmetric  A  B\n",
                                        (char *)"https://ci.example/kbench/compare-x.html", NULL, 0, NULL, NULL, NULL,
                                        NULL, (char *)"6.1.0-57-amd64 in run 4", (char *)"6.1.0-58-amd64 in run 4",
                                        1 };
        struct nightly_report r = { .findings = fs, .n_findings = 3, .regressions = &g, .n_regressions = 1 };
        g_autofree char *subject = nightly_report_subject(&r), *text = NULL;
        size_t len = 0;
        FILE *f;

        fs[2].metric = (char *)"dd.read_MBps";
        g_free(subject);
        subject = nightly_report_subject(&r);
        ASSERT_STREQ(subject, "[kbench] 6.1.0-58-amd64: dd.read_MBps -13.1% regression vs 6.1.0-57-amd64 (+1 more)");
        g.cpu_model = (char *)"AMD EPYC 7B13";
        g.mem_kib = 24683568;
        g.accel = (char *)"tcg";
        g.version_a = (char *)"Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP";
        g.config_diff = (char *[]){ (char *)"CONFIG_HZ_250: y -> (unset)", NULL };
        f = open_memstream(&text, &len);
        ASSERT_TRUE(f);
        nightly_report_notify(&r, &(struct nightly_mail){ .date = 1796263200, .message_id = "<m1@vm>",
                                                          .domain = "vm" }, f);
        fclose(f);
        fputs(text, stderr);
        ASSERT_TRUE(g_str_has_prefix(text, "From: kbench@vm\nTo: undisclosed-recipients:;\n"
                                           "Subject: [kbench] 6.1.0-58-amd64: dd.read_MBps -13.1% regression vs "
                                           "6.1.0-57-amd64 (+1 more)\nDate: "));
        ASSERT_TRUE(strstr(text, "\nSubject:") == strstr(text, "\nSubject: [kbench]"));
        ASSERT_TRUE(strstr(strstr(text, "\n\n"), "\nSubject:") == NULL);
        ASSERT_TRUE(strstr(text, "  host vm?Subject: forged: AMD EPYC 7B13, 23.5 GiB RAM, tcg, QEMU 7.2.22, "
                                 "libvirt 9.0.0\n") != NULL);
        ASSERT_TRUE(strstr(text, "  baseline: Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP\n"
                                 "  kernel: version unknown\n") != NULL);
        ASSERT_TRUE(strstr(text, "  config difference (baseline -> kernel):\n    CONFIG_HZ_250: y -> (unset)\n"));
        ASSERT_TRUE(strstr(text, "  compared: kbench compare run:4:6.1.0-57-amd64 run:4:6.1.0-58-amd64\n"
                                 "  A: 6.1.0-57-amd64 in run 4\n  B: 6.1.0-58-amd64 in run 4 (measured together, "
                                 "interleaved)\n") != NULL);
        ASSERT_TRUE(strstr(text, "  page: https://ci.example/kbench/compare-x.html\n") != NULL);
        ASSERT_TRUE(strstr(text, "\n  kbench compare tag:repro-4:6.1.0-57-amd64 tag:repro-4:6.1.0-58-amd64\n") != NULL);
        ASSERT_TRUE(strstr(text, "\ndd:size=64M,bs=\nmetric  A  B\n") != NULL);
        ASSERT_TRUE(strstr(text, "-- the night --\n") != NULL && strstr(text, "verdict: REGRESSION\n") != NULL);

        /* Only failures: the subject says where the kernel failed. */
        {
                struct nightly_failure fl = { (char *)"k58", (char *)"boot-timeout", (char *)"boot", NULL, 3, 3 };
                struct nightly_report r2 = { .failures = &fl, .n_failures = 1 };
                g_autofree char *s2 = nightly_report_subject(&r2);

                ASSERT_STREQ(s2, "[kbench] k58: failed at boot (boot-timeout)");
        }
        {
                struct nightly_report r3 = { .findings = &fs[1], .n_findings = 1 };
                ASSERT_TRUE(nightly_report_subject(&r3) == NULL);
        }
        /* An amount: its difference, not a ratio of two near-zero means. */
        {
                struct nightly_finding w = finding(COMPARE_WORSE, 18.692);
                struct nightly_report r4 = { .findings = &w, .n_findings = 1 };
                g_autofree char *s4 = NULL;

                w.metric = (char *)"guest.write.wait_s";
                w.change_text = (char *)"+0.207 s";
                s4 = nightly_report_subject(&r4);
                ASSERT_STREQ(s4, "[kbench] 6.1.0-58-amd64: guest.write.wait_s +0.207 s regression vs 6.1.0-57-amd64");
        }
}

/* The lines of one paste, run by sh with kbench a function that prints its
 * arguments one a line and a blank line after each command. */
static char *paste(char **cmds) {
        g_autofree char *script = NULL;
        g_autofree char *joined = g_strjoinv("\n", cmds);
        g_autofree char *out = NULL;
        char *argv[] = { (char *)"sh", (char *)"-c", NULL, NULL };
        int status;

        script = g_strconcat("kbench() { printf '%s\\n' \"$@\"; echo; }\n", joined, "\n", NULL);
        argv[2] = script;
        ASSERT_TRUE(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, NULL));
        ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
        return g_steal_pointer(&out);
}

/* The argument after `opt` in the n-th command of a paste's output. */
static char *arg_after(const char *out, size_t n, const char *opt) {
        g_auto(GStrv) cmds = g_strsplit(out, "\n\n", -1);
        g_auto(GStrv) args = NULL;

        ASSERT_TRUE(g_strv_length(cmds) > n);
        args = g_strsplit(cmds[n], "\n", -1);
        for (size_t i = 0; args[i] && args[i + 1]; i++)
                if (strcmp(args[i], opt) == 0)
                        return g_strdup(args[i + 1]);
        TEST_FAIL("no %s in command %zu: %s", opt, n, cmds[n]);
}

/* Pasted twice, the reproduction makes a run of its own each time, of
 * both kernels interleaved (so the comparison is within one run, as the
 * night's was), and each comparison selects that paste's run only: a fixed
 * tag would mix the cells of both attempts in `compare tag:...`. */
TEST(reproduce_commands_select_their_own_run) {
        json_auto_t *st = json_pack("{s:[s], s:i, s:s, s:i}", "workloads", "dd:size=64M", "repeats", 5, "accel",
                                    "tcg", "disk_mbps", 36);
        g_auto(GStrv) cmds = nightly_reproduce(st, "6.1.0-47-amd64", "6.1.0-57-amd64", 7, 0.2, 0.02);
        g_autofree char *one = NULL, *two = NULL, *tag1 = NULL, *tag2 = NULL, *sel_a = NULL, *sel_b = NULL;
        g_autofree char *k = NULL;

        ASSERT_EQ(g_strv_length(cmds), 3);
        for (size_t i = 0; cmds[i]; i++)
                fprintf(stderr, "  %s\n", cmds[i]);
        ASSERT_TRUE(g_str_has_prefix(cmds[1], "kbench run -k 6.1.0-47-amd64 -k 6.1.0-57-amd64 -w dd:size=64M -n 5 "
                                              "--accel tcg --disk-mbps 36"));
        one = paste(cmds);
        g_usleep(1100 * 1000);
        two = paste(cmds);
        k = arg_after(one, 0, "-k");
        ASSERT_STREQ(k, "6.1.0-47-amd64");
        tag1 = arg_after(one, 0, "--tag");
        tag2 = arg_after(two, 0, "--tag");
        ASSERT_TRUE(g_str_has_prefix(tag1, "repro-7-2"));
        ASSERT_TRUE(strcmp(tag1, tag2) != 0);
        /* compare's two selectors are this paste's run, one kernel each. */
        {
                g_auto(GStrv) c = g_strsplit(one, "\n\n", -1);
                g_auto(GStrv) args = g_strsplit(c[1], "\n", -1);
                size_t n = g_strv_length(args);

                ASSERT_STREQ(args[0], "compare");
                ASSERT_STREQ(args[2], "0.2");
                ASSERT_STREQ(args[4], "2%");
                sel_a = g_strconcat("tag:", tag1, ":6.1.0-47-amd64", NULL);
                sel_b = g_strconcat("tag:", tag1, ":6.1.0-57-amd64", NULL);
                ASSERT_STREQ(args[n - 2], sel_a);
                ASSERT_STREQ(args[n - 1], sel_b);
        }
}

/* The bisection's line names the first bad kernel, or says why there is
 * none; it is in the text report and in the JSON. */
TEST(bisection_line) {
        struct nightly_bisection b = { (char *)"6.1.0-58-amd64", (char *)"guest.write.kernel_Minsn",
                                       (char *)"6.1.0-55-amd64", 4, 3, (char *)"first-bad", (char *)"6.1.0-57-amd64", 1,
                                       0, NULL, NULL, NULL };
        struct nightly_report r = { .bisection = &b };
        g_autofree char *line = nightly_bisection_line(&b), *text = NULL;
        json_t *j;
        size_t len = 0;
        FILE *f;

        ASSERT_STREQ(line, "bisect: 6.1.0-58-amd64 guest.write.kernel_Minsn from 6.1.0-55-amd64, 4 kernels: "
                           "first bad: 6.1.0-57-amd64 (kbench show --bisect 3)");
        f = open_memstream(&text, &len);
        nightly_report_text(&r, f);
        fclose(f);
        ASSERT_TRUE(strstr(text, line) != NULL);
        j = nightly_report_json(&r);
        ASSERT_STREQ(json_string_value(json_object_get(json_object_get(j, "bisection"), "first_bad")),
                     "6.1.0-57-amd64");
        ASSERT_EQ(json_integer_value(json_object_get(json_object_get(j, "bisection"), "bisection")), 3);
        json_decref(j);

        b.skipped_between = 1;
        b.confirmed = 0;
        g_free(line);
        line = nightly_bisection_line(&b);
        ASSERT_TRUE(g_str_has_suffix(line, "first bad: 6.1.0-57-amd64 (kernels skipped before it: it may be one of "
                                           "them) (not reproduced against the last good) (kbench show --bisect 3)"));
        b.outcome = (char *)"no-change";
        g_free(line);
        line = nightly_bisection_line(&b);
        ASSERT_TRUE(g_str_has_suffix(line, ", 4 kernels: no change between the ends (kbench show --bisect 3)"));
        b.outcome = (char *)"cannot-tell";
        g_free(line);
        line = nightly_bisection_line(&b);
        ASSERT_TRUE(g_str_has_suffix(line, ": cannot tell within the budget (kbench show --bisect 3)"));
        /* Started but failed: the error, one line whatever it quotes. */
        b.outcome = NULL;
        b.why = (char *)"step 2: run 9 was interrupted\nforged: line";
        g_free(line);
        line = nightly_bisection_line(&b);
        ASSERT_TRUE(strstr(line, ": failed: step 2: run 9 was interrupted?forged: line") != NULL);
        /* Never started: no good end, no id. */
        b = (struct nightly_bisection){ (char *)"6.1.0-58-amd64", (char *)"m", NULL, 0, 0, NULL, NULL, -1, 0,
                                        (char *)"no kernel before it in its source was measured", NULL, NULL };
        g_free(line);
        line = nightly_bisection_line(&b);
        ASSERT_STREQ(line, "bisect: 6.1.0-58-amd64 m: not started: no kernel before it in its source was measured");
        j = nightly_report_json(&(struct nightly_report){ .bisection = &b });
        ASSERT_TRUE(json_is_null(json_object_get(json_object_get(j, "bisection"), "bisection")));
        json_decref(j);
        j = nightly_report_json(&(struct nightly_report){ 0 });
        ASSERT_TRUE(json_is_null(json_object_get(j, "bisection")));
        json_decref(j);
}
