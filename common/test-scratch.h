/* common/test-scratch: the scratch directory of a test binary, made on
 * first use and removed with everything below it when the binary exits,
 * so a failing case (which exits at once) leaves nothing behind either.
 * Test-only (libcommon-test); libc only, like the rest of common/. */
#pragma once

/* The binary's scratch directory, made on the first call from template (a
 * name ending in XXXXXX, e.g. "kstore-XXXXXX") under $TMPDIR or /tmp and
 * removed at exit. Later calls return the same directory whatever their
 * template. Fails the test when it cannot be made. Owned by the module. */
const char *test_scratch(const char *template);

/* rel below the scratch directory (made with test_scratch() first, else
 * the test fails). Caller frees (free() or g_free()). */
char *test_scratch_path(const char *rel);

/* Keep the scratch directory at exit when the environment variable name is
 * set then (a failed integration run can be looked at). */
void test_scratch_keep_if(const char *name);

/* Remove path and everything below it, not following links. Returns 0 or
 * -errno (-ENOENT when path does not exist). */
int test_rm_tree(const char *path);
