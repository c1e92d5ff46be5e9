/* results/cellstate: the end states a cell can have, as one table. The
 * database holds a cell's state as a word (cells.state, whose CHECK lists
 * the same words, docs/schema.md); the code that decides a state (cell/)
 * and every reader that asks "did this cell succeed" (report/, web/,
 * decide/, the pumps) name it through this enum or its CELL_* word, never
 * through a string literal of its own, so a word is spelt once. It lives
 * here, beside the column, because every floor that reads cells may use
 * results/ and none below cell/ may use cell/. */
#pragma once

enum cellstate {
        CELLSTATE_OK,                      /* the job finished and its output parsed */
        CELLSTATE_INFRA_ERROR,             /* the host failed the cell: not the kernel's fault */
        CELLSTATE_BOOT_TIMEOUT,
        CELLSTATE_BOOT_CRASH,
        CELLSTATE_RUNTIME_CRASH,
        CELLSTATE_HANG,
        CELLSTATE_WORKLOAD_FAILURE,
        CELLSTATE_CORRUPT_OUTPUT,
        CELLSTATE_N
};

/* The words stored in cells.state, for struct initialisers and
 * cell_result.state (cellstate_name gives the same words). */
#define CELL_OK "ok"
#define CELL_INFRA_ERROR "infra-error"
#define CELL_BOOT_TIMEOUT "boot-timeout"
#define CELL_BOOT_CRASH "boot-crash"
#define CELL_RUNTIME_CRASH "runtime-crash"
#define CELL_HANG "hang"
#define CELL_WORKLOAD_FAILURE "workload-failure"
#define CELL_CORRUPT_OUTPUT "corrupt-output"

/* The stored word of s (a static string); NULL for a value out of range. */
const char *cellstate_name(enum cellstate s);
/* The state word names. Returns 0 with *ret, or -EINVAL for NULL or a
 * word that is no state (a damaged or foreign database). */
int cellstate_parse(const char *word, enum cellstate *ret);
/* Whether word is the word of s; NULL and unknown words are no state. */
int cellstate_is(const char *word, enum cellstate s);
