/* test-regstate.c: the state of a regression across nights, from tables:
 * a row is one subject's metric over its nights (W worse, C clear: not
 * worse, U unknown: not compared or no verdict possible) and the states
 * those nights must show (N new, S still, F fixed, . nothing); and each
 * of compare's verdicts with the input it gives. */
#include <string.h>

#include "common/test.h"
#include "web/regstate.h"

TEST_MAIN();

static const struct {
        const char *nights, *states;
} table[] = {
        { "", "" },
        { "C", "." },
        { "W", "N" },
        { "WC", "NF" },                   /* the scenario of the nightly-site test: new, then fixed */
        { "CWC", ".NF" },
        { "WWW", "NSS" },
        { "WWC", "NSF" },
        { "WCC", "NF." },                 /* fixed once, then nothing */
        { "WCW", "NFN" },                 /* worse again is a new regression */
        { "WUW", "N.S" },                 /* a night that cannot tell keeps it open */
        { "WUC", "N.F" },
        { "UUW", "..N" },
        { "CUC", "..." },
        { "WWUUWCUW", "NS..SF.N" },
};

static char letter(enum regstate s) {
        switch (s) {
        case REGSTATE_NEW: return 'N';
        case REGSTATE_STILL: return 'S';
        case REGSTATE_FIXED: return 'F';
        case REGSTATE_NONE: break;
        }
        return '.';
}

TEST(nights_to_states) {
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                char got[32] = "";
                int open = 0;
                size_t n = strlen(table[i].nights);

                for (size_t k = 0; k < n; k++) {
                        char c = table[i].nights[k];
                        enum regstate_input in = c == 'W' ? REGSTATE_WORSE : c == 'C' ? REGSTATE_CLEAR : REGSTATE_UNKNOWN;

                        got[k] = letter(regstate_step(&open, in));
                }
                got[n] = '\0';
                if (strcmp(got, table[i].states) != 0)
                        TEST_FAIL("nights %s: states %s, want %s", table[i].nights, got, table[i].states);
        }
}

TEST(verdicts_to_inputs) {
        static const struct {
                enum compare_verdict v;
                enum regstate_input in;
        } rows[] = {
                { COMPARE_WORSE, REGSTATE_WORSE },
                { COMPARE_SAME, REGSTATE_CLEAR },
                { COMPARE_BETTER, REGSTATE_CLEAR },
                { COMPARE_INFO, REGSTATE_CLEAR },       /* not judged at these settings: nothing worse found */
                { COMPARE_N_SMALL, REGSTATE_UNKNOWN },
                { COMPARE_UNDEFINED, REGSTATE_UNKNOWN },
                { COMPARE_ONE_SIDE, REGSTATE_UNKNOWN },
                { COMPARE_WITHHELD, REGSTATE_UNKNOWN },
        };

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                ASSERT_EQ(regstate_input(rows[i].v), rows[i].in);
}

TEST(names) {
        ASSERT_STREQ(regstate_name(REGSTATE_NEW), "new");
        ASSERT_STREQ(regstate_name(REGSTATE_STILL), "still");
        ASSERT_STREQ(regstate_name(REGSTATE_FIXED), "fixed");
        ASSERT_STREQ(regstate_name(REGSTATE_NONE), "");
}
