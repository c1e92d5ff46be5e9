/* results/cellstate.c: the end states of a cell and their stored words
 * (see cellstate.h). */
#include <errno.h>
#include <string.h>

#include "common/util.h"
#include "results/cellstate.h"

static const char *const cellstate_names[] = {
        [CELLSTATE_OK] = CELL_OK,
        [CELLSTATE_INFRA_ERROR] = CELL_INFRA_ERROR,
        [CELLSTATE_BOOT_TIMEOUT] = CELL_BOOT_TIMEOUT,
        [CELLSTATE_BOOT_CRASH] = CELL_BOOT_CRASH,
        [CELLSTATE_RUNTIME_CRASH] = CELL_RUNTIME_CRASH,
        [CELLSTATE_HANG] = CELL_HANG,
        [CELLSTATE_WORKLOAD_FAILURE] = CELL_WORKLOAD_FAILURE,
        [CELLSTATE_CORRUPT_OUTPUT] = CELL_CORRUPT_OUTPUT,
};
_Static_assert(ELEMENTSOF(cellstate_names) == CELLSTATE_N, "one word per cell state");

const char *cellstate_name(enum cellstate s) {
        return (unsigned)s < CELLSTATE_N ? cellstate_names[s] : NULL;
}

int cellstate_parse(const char *word, enum cellstate *ret) {
        for (size_t i = 0; word && i < CELLSTATE_N; i++)
                if (strcmp(word, cellstate_names[i]) == 0) {
                        *ret = (enum cellstate)i;
                        return 0;
                }
        return -EINVAL;
}

int cellstate_is(const char *word, enum cellstate s) {
        enum cellstate got;

        return cellstate_parse(word, &got) == 0 && got == s;
}
