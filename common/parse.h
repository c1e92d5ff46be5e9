/* Checked number parsing for untrusted text (CLI, config, guest output):
 * whole-string conversions with range checks, never sscanf. */
#pragma once

#include <stddef.h>
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
/* bytes as parse_size reads it back, with the largest suffix that holds
 * it exactly: "2G", "512M", "4k", "1000B"; "0" for 0. buf >= 24. */
void parse_size_text(uint64_t bytes, char *buf, size_t size);

/* Parse "yes/no/true/false/on/off/1/0". Returns 0 or -EINVAL. */
int parse_bool(const char *s, int *ret);

/* The one checked conversion behind every numeric option and key: parse s
 * as kind and require min <= value <= max (for PARSE_SIZE and PARSE_MIB in
 * bytes). PARSE_UINT is a plain decimal, PARSE_SIZE a size with an optional
 * suffix (parse_size), PARSE_MIB a size whose bare numbers are MiB ("160"
 * is 160 MiB, "1G" is 1 GiB), PARSE_REAL a finite double (no inf, no nan).
 * Returns 0; -EINVAL when s is not such a number; -ERANGE when it does not
 * fit 64 bits or lies outside [min, max]. OUT: ret (as a double for
 * PARSE_REAL, else as uint64_t in ret->u) written on success. */
enum parse_kind { PARSE_UINT, PARSE_SIZE, PARSE_MIB, PARSE_REAL };
union parse_value {
        uint64_t u;
        double d;
};
int parse_number(const char *s, enum parse_kind kind, double min, double max, union parse_value *ret);

/* The next line of buf[0..len) from *pos, for parsers of /proc-style text:
 * its start in *ret_s and its length without the newline in *ret_n (the
 * last line may lack one). Advances *pos past the newline. Returns 1, or 0
 * at the end of the buffer. */
int parse_next_line(const char *buf, size_t len, size_t *pos, const char **ret_s, size_t *ret_n);
