/* test-nightly-mail.c: the regression report's mail header: a Message-ID
 * that the regression and the night determine, an RFC 5322 date, RFC 2047
 * for a Subject that is not ASCII, and no CR or LF from data in a header.
 * With $KBENCH_MAIL_OUT set to a directory, the messages of three nights
 * about one regression (new, still, fixed) are written there as
 * night1.eml .. night3.eml for tests/nightly/mail.py, which parses them
 * with Python's email package and follows the thread. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "common/test.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_report.h"

TEST_MAIN();

#define NIGHT1 1796263200.0        /* Thu, 03 Dec 2026 02:00:00 UTC */
#define DAY 86400.0

TEST(message_id_is_the_regression_and_the_night) {
        g_autofree char *a = nightly_mail_id("6.1.0-58-amd64", "6.1.0-57-amd64", "dd.write_MBps", NIGHT1, "vm");
        g_autofree char *b = nightly_mail_id("6.1.0-58-amd64", "6.1.0-57-amd64", "dd.write_MBps", NIGHT1, "vm");
        g_autofree char *c = nightly_mail_id("6.1.0-58-amd64", "6.1.0-57-amd64", "dd.write_MBps", NIGHT1 + DAY, "vm");
        g_autofree char *d = nightly_mail_id("6.1.0-58-amd64", "6.1.0-57-amd64", "dd.read_MBps", NIGHT1, "vm");
        g_autofree char *e = nightly_mail_id("6.1.0-58-amd6", "46.1.0-57-amd64", "dd.write_MBps", NIGHT1, "vm");
        g_autofree char *h = nightly_mail_id("k", "b", "m", NIGHT1, "evil>\r\nBcc: x@y");

        ASSERT_TRUE(g_str_has_prefix(a, "<kbench.20261203T020000Z."));
        ASSERT_TRUE(g_str_has_suffix(a, "@vm>"));
        ASSERT_EQ(strlen(a), strlen("<kbench.20261203T020000Z.") + 16 + strlen("@vm>"));
        ASSERT_STREQ(a, b);
        ASSERT_TRUE(strcmp(a, c) != 0 && strcmp(a, d) != 0 && strcmp(a, e) != 0);
        ASSERT_TRUE(g_str_has_suffix(h, "@evilBccx.y>") || g_str_has_suffix(h, "@evilBcc.y>") ||
                    strpbrk(h, "\r\n ") == NULL);
        ASSERT_TRUE(strpbrk(h, "\r\n :") == NULL);
}

TEST(date_is_rfc5322) {
        g_autofree char *d = nightly_mail_date(NIGHT1);
        g_autofree char *e = nightly_mail_date(NIGHT1 + 40 * DAY + 3661);

        ASSERT_STREQ(d, "Thu, 03 Dec 2026 02:00:00 +0000");
        ASSERT_STREQ(e, "Tue, 12 Jan 2027 03:01:01 +0000");
}

TEST(subject_encoding) {
        g_autofree char *ascii = nightly_mail_encode("[kbench] k: dd.write_MBps -13.1% regression");
        g_autofree char *broken = nightly_mail_encode("one\r\nBcc: evil@example.org\ttwo");
        g_autofree char *utf8 = nightly_mail_encode("[kbench] café: dd.write_MBps -13.1% régression");
        g_autofree char *longer = NULL;
        g_autoptr(GString) many = g_string_new(NULL);

        ASSERT_STREQ(ascii, "[kbench] k: dd.write_MBps -13.1% regression");
        ASSERT_STREQ(broken, "one  Bcc: evil@example.org two");
        ASSERT_STREQ(utf8, "=?UTF-8?Q?=5Bkbench=5D_caf=C3=A9=3A_dd=2Ewrite=5FMBps_-13=2E1=25_r=C3=A9g?=\n"
                           " =?UTF-8?Q?ression?=");
        for (int i = 0; i < 40; i++)
                g_string_append(many, "é");
        longer = nightly_mail_encode(many->str);
        /* Each word whole characters and at most 75 long, one a line. */
        {
                g_auto(GStrv) words = g_strsplit(longer, "\n ", -1);

                ASSERT_TRUE(g_strv_length(words) >= 2);
                for (size_t i = 0; words[i]; i++) {
                        ASSERT_TRUE(strlen(words[i]) <= 75);
                        ASSERT_TRUE(g_str_has_prefix(words[i], "=?UTF-8?Q?") && g_str_has_suffix(words[i], "?="));
                        ASSERT_TRUE(g_str_has_suffix(words[i], "=A9?="));
                }
        }
}

/* The finding, regression and report of one night's comparison. */
static struct nightly_finding finding = { (char *)"6.1.0-58-café", (char *)"6.1.0-57-amd64", (char *)"dd.write_MBps",
                                          NULL, -0.131, 0.001, 0.002, 6, 6, COMPARE_WORSE, NULL };

static char *night_message(int night, char **thread) {
        char *cmds[] = { (char *)"t=$(date +%Y%m%d-%H%M%S)", NULL };
        char *diff[] = { (char *)"CONFIG_HZ: 250 -> 1000", NULL };
        char *steps[] = { (char *)"1 ends 6.1.0-55-amd64..6.1.0-58-café: different (4 rounds)",
                          (char *)"2 probe 6.1.0-57-amd64: good (6 rounds)", NULL };
        struct nightly_bisection b = { .kernel = finding.kernel, .metric = finding.metric,
                                       .good = (char *)"6.1.0-55-amd64", .candidates = 4, .id = 3,
                                       .outcome = (char *)"first-bad", .first_bad = (char *)"6.1.0-58-café",
                                       .confirmed = 1, .steps = steps };
        struct nightly_regression g = { .kernel = finding.kernel, .baseline = finding.baseline,
                                        .sel_a = (char *)"run:1:6.1.0-57-amd64", .sel_b = (char *)"run:4:6.1.0-58-café",
                                        .host = (char *)"vm", .qemu = (char *)"7.2.22", .libvirt = (char *)"9.0.0",
                                        .cpu_model = (char *)"AMD EPYC 7B13", .mem_kib = 24683568, .accel = (char *)"tcg",
                                        .version_a = (char *)"Linux version 6.1.0-57-amd64", .version_b = NULL,
                                        .config_diff = diff, .reproduce = cmds, .rows = (char *)"metric A B\n" };
        struct nightly_report r = { .findings = &finding, .n_findings = 1, .regressions = &g, .n_regressions = 1,
                                    .bisection = night == 1 ? &b : NULL, .thread = thread };
        double at = NIGHT1 + (night - 1) * DAY;
        g_autofree char *id = nightly_mail_id(finding.kernel, finding.baseline, finding.metric, at, "vm");
        struct nightly_mail m = { .from = "kbench <kbench@ci.example.org>\r\nBcc: evil@example.org",
                                  .to = "kernel-team@example.org", .date = at, .message_id = id, .domain = "vm" };
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        ASSERT_TRUE(f);
        if (night < 3) {
                nightly_report_notify(&r, &m, f);
        } else {
                struct nightly_fixed fx = { finding.kernel, finding.baseline, finding.metric,
                                            (char *)"run:1:6.1.0-57-amd64", (char *)"run:9:6.1.0-58-café", thread };

                nightly_report_notify_fixed(&fx, &m, f);
        }
        fclose(f);
        return text;
}

/* A thread across nights from what each night's comparison says (W
 * worse, C clear, U nothing): the IDs it holds after each night. */
TEST(thread_follows_the_regression_state) {
        static const struct {
                const char *nights;        /* one letter a night */
                const char *states;        /* n new, s still, f fixed, - none */
                const char *ids;           /* after each night: the nights whose IDs the thread holds */
        } table[] = {
                { "WWC", "nsf", "1|12|" },
                { "WUWC", "n-sf", "1|1|13|" },
                { "CWCW", "-nfn", "|2||4" },
                { "UU", "--", "||" },
        };

        for (size_t r = 0; r < G_N_ELEMENTS(table); r++) {
                struct nightly_thread t = { 0 };
                g_auto(GStrv) want = g_strsplit(table[r].ids, "|", -1);

                for (size_t i = 0; table[r].nights[i]; i++) {
                        char c = table[r].nights[i], id[24];
                        enum regstate_input in = c == 'W' ? REGSTATE_WORSE : c == 'C' ? REGSTATE_CLEAR
                                                                                     : REGSTATE_UNKNOWN;
                        enum regstate st;
                        g_autoptr(GString) got = g_string_new(NULL);

                        snprintf(id, sizeof(id), "%zu", i + 1);
                        st = nightly_thread_step(&t, in, id);
                        if ("-nsf"[st] != table[r].states[i])
                                TEST_FAIL("row %zu night %zu: state %d", r, i + 1, (int)st);
                        for (guint k = 0; k < t.ids->len; k++)
                                g_string_append(got, t.ids->pdata[k]);
                        if (strcmp(got->str, want[i]) != 0)
                                TEST_FAIL("row %zu night %zu: ids %s, want %s", r, i + 1, got->str, want[i]);
                }
                nightly_thread_clear(&t);
        }
}

/* Three nights of one regression, threaded by nightly_thread_step as
 * nightly.c threads them: worse, worse, then clear (fixed). */
TEST(three_nights_thread) {
        static const enum regstate_input nights[] = { REGSTATE_WORSE, REGSTATE_WORSE, REGSTATE_CLEAR };
        const char *dir = getenv("KBENCH_MAIL_OUT");
        struct nightly_thread t = { 0 };

        for (int night = 1; night <= 3; night++) {
                g_autofree char *text = NULL, *head = NULL;
                g_autofree char *id = nightly_mail_id(finding.kernel, finding.baseline, finding.metric,
                                                      NIGHT1 + (night - 1) * DAY, "vm");
                g_autoptr(GPtrArray) before = g_ptr_array_new();
                char *eoh;

                /* The thread before tonight: what tonight's message answers. */
                for (guint i = 0; t.open && t.ids && i < t.ids->len; i++)
                        g_ptr_array_add(before, t.ids->pdata[i]);
                g_ptr_array_add(before, NULL);
                ASSERT_EQ(night == 3, nights[night - 1] == REGSTATE_CLEAR && t.open);
                text = night_message(night, before->len > 1 ? (char **)before->pdata : NULL);
                nightly_thread_step(&t, nights[night - 1], id);
                eoh = strstr(text, "\n\n");
                ASSERT_TRUE(eoh != NULL);
                head = g_strndup(text, (gsize)(eoh - text + 1));
                /* The injected Bcc is inside the From line, never a header. */
                ASSERT_TRUE(strstr(head, "\nBcc:") == NULL);
                ASSERT_TRUE((strstr(head, "\nIn-Reply-To: ") != NULL) == (night > 1));
                ASSERT_TRUE(strstr(head, "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                                         "Content-Transfer-Encoding: 8bit\n") != NULL);
                if (night == 1)
                        ASSERT_TRUE(strstr(text, "bisection steps:\n  1 ends") != NULL);
                if (dir) {
                        g_autofree char *name = g_strdup_printf("night%d.eml", night);
                        g_autofree char *path = g_build_filename(dir, name, NULL);

                        ASSERT_TRUE(g_file_set_contents(path, text, -1, NULL));
                }
        }
        ASSERT_TRUE(!t.open);
        nightly_thread_clear(&t);
}
