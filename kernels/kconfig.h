/* kernels/kconfig: what tells two kernels apart for a reader: the
 * upstream version a distribution's kernel is built from, and how two
 * .config files differ. compare and a night's regression mail print
 * them beside a verdict; neither is judged. */
#pragma once

#include <stddef.h>

#define KCONFIG_MAX ((size_t)8 << 20)  /* bytes of a .config read at most */

/* The upstream version of a kernel, "6.1.170", from its version string
 * (a Debian build names it: "... Debian 6.1.170-3 (...)") or
 * else the leading numbers of its release ("6.1.0-tiny" -> "6.1.0").
 * Either may be NULL. Returns a new string, or NULL when neither has one. */
char *kconfig_upstream(const char *version, const char *release);

/* The .config at path (a file of the store: read bounded, through
 * fileio), or NULL when it cannot be read. */
char *kconfig_read(const char *path);

/* How config_b differs from config_a: "CONFIG_X: a -> b" per option whose
 * value differs ("(unset)" for an option one side lacks or has "is not
 * set"), sorted by name, at most max lines, then "... and N more" when
 * there are more; an empty list when they agree. Each line is printable
 * text of 300 characters at most. OUT: *ret_total, the options that
 * differ (may be NULL). Returns a NULL-terminated array (free with
 * g_strfreev). */
char **kconfig_diff(const char *config_a, const char *config_b, size_t max, size_t *ret_total);
