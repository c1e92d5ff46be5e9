/* Checked number parsing for untrusted text (CLI, config, guest output):
 * whole-string conversions with range checks, never sscanf. */
#pragma once

#include <stdint.h>

/* Parse a decimal unsigned integer; the whole string must be consumed.
 * Returns 0, or -EINVAL (not a number) / -ERANGE. OUT: ret written on success. */
int parse_u64(const char *s, uint64_t *ret);
int parse_i64(const char *s, int64_t *ret);

/* Parse a finite double (strtod syntax, whole string). Returns 0 or -EINVAL/-ERANGE. */
int parse_double(const char *s, double *ret);

/* Parse a size with an optional binary suffix: "512", "64K", "512M", "2G",
 * "1T" (also "KiB"/"MiB"/... and "k"/"m"/"g"). Bytes out. Returns 0 or
 * -EINVAL/-ERANGE. */
int parse_size(const char *s, uint64_t *ret_bytes);

/* Parse "yes/no/true/false/on/off/1/0". Returns 0 or -EINVAL. */
int parse_bool(const char *s, int *ret);
