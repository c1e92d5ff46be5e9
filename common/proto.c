/* proto.c: framing of ttyS1 records (see proto.h). Linked into the static
 * guest agent and the host, so it uses nothing beyond libc. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/crc32.h"
#include "common/proto.h"

static const char hexdig[] = "0123456789abcdef";

int proto_escape(char *dst, size_t size, const void *src, size_t len) {
        const unsigned char *s = src;
        size_t o = 0;

        for (size_t i = 0; i < len; i++) {
                unsigned char c = s[i];
                size_t need = (c == '\\') ? 2 : (c < 0x20 || c > 0x7e) ? 4 : 1;

                if (o + need >= size)
                        return -ENOSPC;
                if (c == '\\') {
                        dst[o++] = '\\';
                        dst[o++] = '\\';
                } else if (need == 4) {
                        dst[o++] = '\\';
                        dst[o++] = 'x';
                        dst[o++] = hexdig[c >> 4];
                        dst[o++] = hexdig[c & 15];
                } else
                        dst[o++] = (char)c;
        }
        if (o >= size)
                return -ENOSPC;
        dst[o] = '\0';
        return (int)o;
}

static int hexval(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int proto_unescape(char *dst, size_t size, const char *src, size_t len) {
        size_t o = 0;

        for (size_t i = 0; i < len; i++) {
                char c = src[i];

                if (o + 1 >= size)
                        return -ENOSPC;
                if (c != '\\') {
                        dst[o++] = c;
                        continue;
                }
                if (i + 1 < len && src[i + 1] == '\\') {
                        dst[o++] = '\\';
                        i++;
                        continue;
                }
                if (i + 3 < len && src[i + 1] == 'x') {
                        int hi = hexval(src[i + 2]), lo = hexval(src[i + 3]);
                        if (hi < 0 || lo < 0)
                                return -EINVAL;
                        dst[o++] = (char)(hi << 4 | lo);
                        i += 3;
                        continue;
                }
                return -EINVAL;
        }
        dst[o] = '\0';
        return (int)o;
}

int proto_format(char *buf, size_t size, const char *cell, uint64_t seq, uint64_t t_ms,
                 const char *type, const void *payload, size_t payload_len) {
        int n, e;
        uint32_t crc;

        n = snprintf(buf, size, "@kb %s %llu %llu %s ", cell, (unsigned long long)seq,
                     (unsigned long long)t_ms, type);
        if (n < 0 || (size_t)n >= size)
                return -ENOSPC;
        e = proto_escape(buf + n, size - (size_t)n, payload, payload_len);
        if (e < 0)
                return e;
        n += e;
        crc = crc32_update(0, buf, (size_t)n);
        if ((size_t)n + 11 >= size)
                return -ENOSPC;
        n += snprintf(buf + n, size - (size_t)n, " *%08x\n", crc);
        return n;
}

/* Take the next space-delimited token of [*p, end) that matches charset
 * rules; returns its length or -1. Advances *p past one following space. */
static int token(const char **p, const char *end, size_t maxlen, int (*ok)(char)) {
        const char *s = *p;
        size_t n = 0;

        while (s + n < end && s[n] != ' ') {
                if (!ok(s[n]) || ++n > maxlen)
                        return -1;
        }
        if (n == 0 || s + n >= end)
                return -1;
        *p = s + n + 1;
        return (int)n;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_cell(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}
static int is_type(char c) { return (c >= 'a' && c <= 'z') || c == '-'; }

static int to_u64(const char *s, int n, uint64_t *ret) {
        uint64_t v = 0;

        if (n > 19)
                return -1;
        for (int i = 0; i < n; i++)
                v = v * 10 + (uint64_t)(s[i] - '0');
        *ret = v;
        return 0;
}

int proto_parse(const char *line, size_t len, struct proto_record *ret) {
        struct proto_record r;
        const char *p, *end, *star;
        uint32_t crc = 0, want;
        int n;

        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                len--;
        if (len < 4 || memcmp(line, "@kb ", 4) != 0)
                return PROTO_NOT_RECORD;
        if (len > PROTO_LINE_MAX || len < 4 + 10)
                return PROTO_MALFORMED;

        /* Trailer: " *" + 8 hex digits. */
        star = line + len - 10;
        if (star[0] != ' ' || star[1] != '*')
                return PROTO_MALFORMED;
        for (int i = 2; i < 10; i++) {
                int h = hexval(star[i]);
                if (h < 0 || (star[i] >= 'A' && star[i] <= 'F'))
                        return PROTO_MALFORMED;
                crc = crc << 4 | (uint32_t)h;
        }
        end = star;

        memset(&r, 0, sizeof(r));
        p = line + 4;
        n = token(&p, end, PROTO_CELL_MAX, is_cell);
        if (n < 0)
                return PROTO_MALFORMED;
        memcpy(r.cell, p - n - 1, (size_t)n);
        n = token(&p, end, 19, is_digit);
        if (n < 0 || to_u64(p - n - 1, n, &r.seq) < 0)
                return PROTO_MALFORMED;
        n = token(&p, end, 19, is_digit);
        if (n < 0 || to_u64(p - n - 1, n, &r.t_ms) < 0)
                return PROTO_MALFORMED;
        /* The type is followed by one space and the (possibly empty) payload. */
        {
                const char *s = p;
                size_t k = 0;
                while (s + k < end && s[k] != ' ') {
                        if (!is_type(s[k]) || ++k > PROTO_TYPE_MAX)
                                return PROTO_MALFORMED;
                }
                if (k == 0 || s + k >= end)
                        return PROTO_MALFORMED;
                memcpy(r.type, s, k);
                p = s + k + 1;
        }
        for (const char *q = p; q < end; q++)
                if (*q < 0x20 || *q > 0x7e)
                        return PROTO_MALFORMED;
        want = crc32_update(0, line, (size_t)(end - line));
        if (want != crc)
                return PROTO_BAD_CRC;
        n = proto_unescape(r.payload, sizeof(r.payload), p, (size_t)(end - p));
        if (n < 0)
                return PROTO_MALFORMED;
        r.payload_len = (size_t)n;
        *ret = r;
        return PROTO_OK;
}

const char *proto_status_str(int status) {
        switch (status) {
        case PROTO_OK: return "ok";
        case PROTO_NOT_RECORD: return "not a record";
        case PROTO_MALFORMED: return "malformed record";
        case PROTO_BAD_CRC: return "checksum mismatch";
        default: return "unknown";
        }
}

int proto_sysctl_check(const char *key, const char *value, const char **ret_why) {
        size_t n = strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_.");
        const char *why = NULL;

        if (!*key || key[n] || n > PROTO_SYSCTL_KEY_MAX || key[0] == '.' || key[n - 1] == '.' || strstr(key, ".."))
                why = "not a sysctl name";
        else if (value && !*value)
                why = "empty value";
        else if (value && strlen(value) > PROTO_SYSCTL_VALUE_MAX)
                why = "value longer than 256 bytes";
        else
                for (const char *p = value; p && *p && !why; p++)
                        if (*p < 0x20 || *p > 0x7e)
                                why = "value holds a control character";
        if (why) {
                if (ret_why)
                        *ret_why = why;
                return -EINVAL;
        }
        return 0;
}

int proto_sysctl_record_parse(const char *payload, size_t len, char *key, char *value) {
        const char *eq = memchr(payload, '=', len);
        size_t klen, vlen;

        if (!eq || memchr(payload, '\0', len))
                return -EINVAL;
        klen = (size_t)(eq - payload);
        vlen = len - klen - 1;
        if (klen > PROTO_SYSCTL_KEY_MAX || vlen > PROTO_SYSCTL_READBACK_MAX)
                return -EINVAL;
        memcpy(key, payload, klen);
        key[klen] = '\0';
        if (proto_sysctl_check(key, NULL, NULL) < 0)
                return -EINVAL;
        for (size_t i = 0; i < vlen; i++) {
                unsigned char c = (unsigned char)eq[1 + i];

                if (c == '\t')
                        c = ' ';
                else if (c < 0x20 || c > 0x7e)
                        return -EINVAL;
                value[i] = (char)c;
        }
        value[vlen] = '\0';
        return 0;
}

int proto_sysctl_path(const char *key, char *buf, size_t size) {
        static const char root[] = "/proc/sys/";
        size_t n;

        if (proto_sysctl_check(key, NULL, NULL) < 0)
                return -EINVAL;
        n = strlen(key);
        if (sizeof(root) - 1 + n >= size)
                return -ENOSPC;
        memcpy(buf, root, sizeof(root) - 1);
        for (size_t i = 0; i <= n; i++)
                buf[sizeof(root) - 1 + i] = key[i] == '.' ? '/' : key[i];
        return (int)(sizeof(root) - 1 + n);
}
