/* common/nearest: the names closest to one a user mistyped, for error
 * lines that suggest instead of listing everything ("did you mean
 * 6.1.0-57-amd64?"): the edit distance (Levenshtein) between short
 * strings. */
#pragma once

#include <stddef.h>

/* Strings longer than this compare by their first NEAREST_MAX bytes. */
#define NEAREST_MAX 256

/* The edit distance between a and b (insertions, deletions and
 * substitutions of one byte each), over at most NEAREST_MAX bytes of
 * each. */
size_t nearest_distance(const char *a, const char *b);

/* Sort names in place, nearest to want first (equal distances keep
 * their order). Returns how many are near enough to suggest: within a
 * third of want's length, at least 2. */
size_t nearest_sort(const char *want, const char **names, size_t n);
