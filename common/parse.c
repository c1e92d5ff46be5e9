/* parse.c: checked conversions for untrusted text (see parse.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/parse.h"

int parse_u64(const char *s, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (!s || !isdigit((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_i64(const char *s, int64_t *ret) {
        long long v;
        char *end;
        const char *d = s;

        if (!s)
                return -EINVAL;
        if (*d == '-' || *d == '+')
                d++;
        if (!isdigit((unsigned char)*d))
                return -EINVAL;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_double(const char *s, double *ret) {
        double v;
        char *end;

        if (!s || !*s || isspace((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (*end != '\0' || end == s)
                return -EINVAL;
        if (errno == ERANGE || !isfinite(v))
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_size(const char *s, uint64_t *ret_bytes) {
        static const struct { const char *suffix; unsigned shift; } units[] = {
                { "", 0 }, { "b", 0 },
                { "k", 10 }, { "kb", 10 }, { "kib", 10 },
                { "m", 20 }, { "mb", 20 }, { "mib", 20 },
                { "g", 30 }, { "gb", 30 }, { "gib", 30 },
                { "t", 40 }, { "tb", 40 }, { "tib", 40 },
        };
        unsigned long long v;
        char *end;

        if (!s || !isdigit((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                if (strcasecmp(end, units[i].suffix) != 0)
                        continue;
                if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
                        return -ERANGE;
                *ret_bytes = (uint64_t)v << units[i].shift;
                return 0;
        }
        return -EINVAL;
}

void parse_size_text(uint64_t bytes, char *buf, size_t size) {
        static const struct { char suffix; unsigned shift; } units[] = {
                { 'T', 40 }, { 'G', 30 }, { 'M', 20 }, { 'k', 10 },
        };

        for (size_t i = 0; bytes && i < sizeof(units) / sizeof(units[0]); i++)
                if (bytes % (1ULL << units[i].shift) == 0) {
                        snprintf(buf, size, "%" PRIu64 "%c", bytes >> units[i].shift, units[i].suffix);
                        return;
                }
        snprintf(buf, size, bytes ? "%" PRIu64 "B" : "%" PRIu64, bytes);
}

int parse_bool(const char *s, int *ret) {
        static const char *const yes[] = { "1", "yes", "true", "on", "y" };
        static const char *const no[] = { "0", "no", "false", "off", "n" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = 1;
                        return 0;
                }
        for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = 0;
                        return 0;
                }
        return -EINVAL;
}

int parse_number(const char *s, enum parse_kind kind, double min, double max, union parse_value *ret) {
        union parse_value v;
        int r;

        switch (kind) {
        case PARSE_REAL:
                r = parse_double(s, &v.d);
                if (r < 0)
                        return r;
                /* Written so that a NaN fails it too. */
                if (!(v.d >= min && v.d <= max))
                        return -ERANGE;
                *ret = v;
                return 0;
        case PARSE_UINT:
                r = parse_u64(s, &v.u);
                break;
        case PARSE_MIB:
                r = parse_u64(s, &v.u);
                if (r == 0) {
                        if (v.u > (UINT64_MAX >> 20))
                                return -ERANGE;
                        v.u <<= 20;
                } else if (r == -EINVAL) {
                        r = parse_size(s, &v.u);
                }
                break;
        case PARSE_SIZE:
                r = parse_size(s, &v.u);
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return r;
        /* Doubles are exact enough here: the bounds come from the option
         * tables and lie far below 2^53, and a value above 2^53 rounds to
         * something above them. */
        if ((double)v.u < min || (double)v.u > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_next_line(const char *buf, size_t len, size_t *pos, const char **ret_s, size_t *ret_n) {
        const char *s, *nl;

        if (*pos >= len)
                return 0;
        s = buf + *pos;
        nl = memchr(s, '\n', len - *pos);
        *ret_s = s;
        *ret_n = nl ? (size_t)(nl - s) : len - *pos;
        *pos += *ret_n + (nl ? 1 : 0);
        return 1;
}
