/* web/regstate: the regression state rule (see regstate.h). */
#include "web/regstate.h"

enum regstate_input regstate_input(enum compare_verdict v) {
        switch (v) {
        case COMPARE_WORSE:
                return REGSTATE_WORSE;
        case COMPARE_SAME:
        case COMPARE_BETTER:
        case COMPARE_INFO:
                return REGSTATE_CLEAR;
        case COMPARE_N_SMALL:
        case COMPARE_UNDEFINED:
        case COMPARE_ONE_SIDE:
        case COMPARE_WITHHELD:
                break;
        }
        return REGSTATE_UNKNOWN;
}

enum regstate regstate_step(int *open, enum regstate_input in) {
        switch (in) {
        case REGSTATE_WORSE:
                if (*open)
                        return REGSTATE_STILL;
                *open = 1;
                return REGSTATE_NEW;
        case REGSTATE_CLEAR:
                if (!*open)
                        return REGSTATE_NONE;
                *open = 0;
                return REGSTATE_FIXED;
        case REGSTATE_UNKNOWN:
                break;
        }
        return REGSTATE_NONE;
}

const char *regstate_name(enum regstate s) {
        switch (s) {
        case REGSTATE_NEW: return "new";
        case REGSTATE_STILL: return "still";
        case REGSTATE_FIXED: return "fixed";
        case REGSTATE_NONE: break;
        }
        return "";
}
