/* A minimal test harness: TEST() registers a function, main() runs them all.
 * Exit 0 = all passed, 1 = a failure, 77 = skipped (meson's convention). */
#pragma once

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*test_fn)(void);
struct test_case { const char *name; test_fn fn; };

#define TEST_MAX 256
extern struct test_case test_cases[TEST_MAX];
extern int test_count;
extern jmp_buf test_skip_jump;             /* TEST_SKIP returns to main() through it */

#define TEST(name)                                                              \
        static void test_##name(void);                                          \
        __attribute__((constructor)) static void test_register_##name(void) {   \
                if (test_count < TEST_MAX)                                      \
                        test_cases[test_count++] = (struct test_case){ #name, test_##name }; \
        }                                                                       \
        static void test_##name(void)

#define TEST_FAIL(...) do {                                                     \
                fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                 \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
                exit(1);                                                        \
        } while (0)

#define ASSERT_TRUE(e) do { if (!(e)) TEST_FAIL("assertion failed: %s", #e); } while (0)
/* 1 when x has a floating type: ASSERT_EQ refuses those at compile time,
 * since casting 2.9 to an integer makes it "equal" 2. */
#define TEST_IS_FLOAT(x) _Generic((x), float: 1, double: 1, long double: 1, default: 0)
#define ASSERT_EQ(a, b) do {                                                    \
                _Static_assert(!TEST_IS_FLOAT(a) && !TEST_IS_FLOAT(b),          \
                               "ASSERT_EQ on a floating-point value: use ASSERT_NEAR"); \
                long long _a = (long long)(a), _b = (long long)(b);             \
                if (_a != _b) TEST_FAIL("%s == %s: %lld != %lld", #a, #b, _a, _b); \
        } while (0)
#define ASSERT_STREQ(a, b) do {                                                 \
                const char *_a = (a), *_b = (b);                                \
                if (!_a || !_b || strcmp(_a, _b) != 0)                          \
                        TEST_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
        } while (0)
#define ASSERT_NEAR(a, b, eps) do {                                             \
                double _a = (a), _b = (b);                                      \
                if (!(fabs(_a - _b) <= (eps)))                                  \
                        TEST_FAIL("%s ~= %s: %.9g != %.9g", #a, #b, _a, _b);    \
        } while (0)

/* Read the fixture at path and append its lines to v[*n...] (at most max
 * entries in all), splitting in place at '\n'. Returns the buffer the lines
 * live in (caller frees). Fails the test when the file cannot be read. */
static inline char *test_read_lines(const char *path, const char **v, size_t *n, size_t max) {
        FILE *f = fopen(path, "r");
        char *text;
        long size;

        if (!f)
                TEST_FAIL("cannot open %s", path);
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        rewind(f);
        text = calloc(1, (size_t)size + 1);
        if (!text || fread(text, 1, (size_t)size, f) != (size_t)size)
                TEST_FAIL("cannot read %s", path);
        fclose(f);
        for (char *p = text, *nl; *p && *n < max; p = nl + 1) {
                v[(*n)++] = p;
                nl = strchr(p, '\n');
                if (!nl)
                        break;
                *nl = '\0';
        }
        return text;
}

/* How many times needle occurs in hay, overlapping ones included. */
static inline size_t test_occurrences(const char *hay, const char *needle) {
        size_t n = 0;

        for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

/* Define once per test binary (in exactly one file): TEST_MAIN(); A skipped
 * case ends only itself; the binary reports 77 (skipped) only when every
 * case skipped. */
#define TEST_MAIN()                                                             \
        struct test_case test_cases[TEST_MAX];                                  \
        int test_count;                                                         \
        jmp_buf test_skip_jump;                                                 \
        int main(void) {                                                        \
                volatile int skipped = 0;                                       \
                for (volatile int i = 0; i < test_count; i++) {                 \
                        fprintf(stderr, "== %s\n", test_cases[i].name);         \
                        if (setjmp(test_skip_jump) == 0)                        \
                                test_cases[i].fn();                             \
                        else                                                    \
                                skipped++;                                      \
                }                                                               \
                fprintf(stderr, "%d tests passed, %d skipped\n", test_count - skipped, skipped); \
                return test_count > 0 && skipped == test_count ? 77 : 0;        \
        }
#define TEST_SKIP(...) do {                                                     \
                fprintf(stderr, "skip: " __VA_ARGS__);                          \
                fputc('\n', stderr);                                            \
                longjmp(test_skip_jump, 1);                                     \
        } while (0)
