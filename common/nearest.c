/* common/nearest.c: the names closest to a mistyped one (see nearest.h). */
#include <stdlib.h>
#include <string.h>

#include "common/nearest.h"

size_t nearest_distance(const char *a, const char *b) {
        size_t la = strnlen(a, NEAREST_MAX), lb = strnlen(b, NEAREST_MAX);
        size_t row[NEAREST_MAX + 1];

        /* One row of the dynamic programme, rewritten in place. */
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];

                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

                        if (up + 1 < best)
                                best = up + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        diag = up;
                        row[j] = best;
                }
        }
        return row[lb];
}

size_t nearest_sort(const char *want, const char **names, size_t n) {
        size_t *d = malloc((n ? n : 1) * sizeof(*d)), limit = strnlen(want, NEAREST_MAX) / 3, near = 0;

        if (!d)
                return 0;
        if (limit < 2)
                limit = 2;
        for (size_t i = 0; i < n; i++)
                d[i] = nearest_distance(want, names[i]);
        /* Insertion sort: stable, and n is a store's kernel names. */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && d[j - 1] > d[j]; j--) {
                        size_t t = d[j];
                        const char *s = names[j];

                        d[j] = d[j - 1];
                        names[j] = names[j - 1];
                        d[j - 1] = t;
                        names[j - 1] = s;
                }
        while (near < n && d[near] <= limit)
                near++;
        free(d);
        return near;
}
