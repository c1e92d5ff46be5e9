/* workload.c: the "-w NAME[:key=value[,key=value...]]" specification. The
 * text comes from the command line (and from stored runs when resuming), so
 * it is parsed with bounds and every value is checked against its key's type
 * here, once: the typed getters below can then trust the stored strings, and
 * a bad value is reported as one line naming the workload, the key and the
 * value before any VM is started. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

#define WORKLOAD_SPEC_MAX 4096     /* whole "-w" text, bytes */
#define WORKLOAD_VALUE_MAX 256     /* one value, bytes */
#define WORKLOAD_LIST_MAX 64       /* entries of a '/' list */

static size_t workload_nkeys(const struct workload_ops *ops) {
        size_t n = 0;

        while (ops->keys && ops->keys[n].name)
                n++;
        return n;
}

static int workload_key_index(const struct workload_ops *ops, const char *name, size_t len) {
        for (size_t i = 0; ops->keys && ops->keys[i].name; i++)
                if (strlen(ops->keys[i].name) == len && strncmp(ops->keys[i].name, name, len) == 0)
                        return (int)i;
        return -ENOENT;
}

/* "size, bs" for error messages. */
static void workload_key_names(const struct workload_ops *ops, char *buf, size_t size) {
        size_t off = 0;

        buf[0] = '\0';
        for (size_t i = 0; ops->keys && ops->keys[i].name && off < size; i++) {
                int n = snprintf(buf + off, size - off, "%s%s", i ? ", " : "", ops->keys[i].name);
                if (n < 0)
                        break;
                off += (size_t)n;
        }
}

static void workload_names(char *buf, size_t size) {
        size_t off = 0;

        buf[0] = '\0';
        for (size_t i = 0; workload_all[i] && off < size; i++) {
                int n = snprintf(buf + off, size - off, "%s%s", i ? ", " : "", workload_all[i]->name);
                if (n < 0)
                        break;
                off += (size_t)n;
        }
}

/* Split a '/' list into numbers. value must be validated or is checked here.
 * Returns the count (>= 1) or -EINVAL. OUT: v (caller's array of
 * WORKLOAD_LIST_MAX entries) may be NULL to only validate. */
static int workload_list_parse(const char *value, uint64_t *v) {
        const char *p = value;
        int n = 0;

        for (;;) {
                char num[32];
                size_t len = strcspn(p, "/");
                uint64_t x;

                if (len == 0 || len >= sizeof(num) || n >= WORKLOAD_LIST_MAX)
                        return -EINVAL;
                memcpy(num, p, len);
                num[len] = '\0';
                if (parse_u64(num, &x) < 0)
                        return -EINVAL;
                if (v)
                        v[n] = x;
                n++;
                if (p[len] == '\0')
                        return n;
                p += len + 1;
        }
}

static int workload_value_check(const struct workload_ops *ops, const struct workload_key *k,
                                const char *value, char **ret_canon, struct kb_error *err) {
        uint64_t x;
        int b;

        /* An empty value means "computed default" and is allowed only where
         * the default is computed, so the canonical text parses again. */
        if (value[0] == '\0') {
                if (k->def && k->def[0] == '\0')
                        goto ok;
                return error_setf(err, -EINVAL, "workload %s: key '%s': empty value", ops->name, k->name);
        }
        switch (k->type) {
        case WKEY_SIZE:
                if (parse_size(value, &x) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not a size (e.g. 512M)",
                                          ops->name, k->name, value);
                break;
        case WKEY_UINT:
                if (parse_u64(value, &x) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not a number",
                                          ops->name, k->name, value);
                break;
        case WKEY_BOOL:
                if (parse_bool(value, &b) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not yes/no",
                                          ops->name, k->name, value);
                /* Canonical spelling, so equal settings compare equal. */
                value = b ? "yes" : "no";
                break;
        case WKEY_UINT_LIST:
                if (workload_list_parse(value, NULL) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not a list of numbers",
                                          ops->name, k->name, value);
                break;
        case WKEY_STRING:
                for (const char *p = value; *p; p++)
                        if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
                                return error_setf(err, -EINVAL,
                                                  "workload %s: key '%s': '%s' may hold only letters, digits, '.', '_' and '-'",
                                                  ops->name, k->name, value);
                break;
        }
ok:
        *ret_canon = strdup(value);
        return *ret_canon ? 0 : -ENOMEM;
}

struct workload_spec *workload_spec_free(struct workload_spec *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; s->values && i < s->n; i++)
                free(s->values[i]);
        free(s->values);
        free(s->text);
        free(s);
        return NULL;
}

static void workload_spec_freep(struct workload_spec **s) {
        workload_spec_free(*s);
}

static int workload_spec_canon(struct workload_spec *s) {
        size_t len = strlen(s->ops->name) + 2;
        char *t;

        for (size_t i = 0; i < s->n; i++)
                len += strlen(s->ops->keys[i].name) + strlen(s->values[i]) + 2;
        t = malloc(len);
        if (!t)
                return -ENOMEM;
        strcpy(t, s->ops->name);
        for (size_t i = 0; i < s->n; i++) {
                strcat(t, i ? "," : ":");
                strcat(t, s->ops->keys[i].name);
                strcat(t, "=");
                strcat(t, s->values[i]);
        }
        s->text = t;
        return 0;
}

int workload_spec_parse(const char *text, struct workload_spec **ret, struct kb_error *err) {
        _cleanup_(workload_spec_freep) struct workload_spec *s = NULL;
        const struct workload_ops *ops;
        char name[64], buf[1024];
        const char *p;
        size_t len;
        int r;

        if (!text || strnlen(text, WORKLOAD_SPEC_MAX + 1) > WORKLOAD_SPEC_MAX)
                return error_setf(err, -EINVAL, "workload: specification too long (max %d bytes)",
                                  WORKLOAD_SPEC_MAX);
        len = strcspn(text, ":");
        if (len == 0 || len >= sizeof(name))
                return error_setf(err, -EINVAL, "workload: '%.64s' has no workload name", text);
        memcpy(name, text, len);
        name[len] = '\0';
        ops = workload_find(name);
        if (!ops) {
                workload_names(buf, sizeof(buf));
                return error_setf(err, -EINVAL, "unknown workload '%s' (workloads: %s)", name, buf);
        }

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->ops = ops;
        s->n = workload_nkeys(ops);
        s->values = calloc(s->n ? s->n : 1, sizeof(char *));
        if (!s->values)
                return -ENOMEM;

        p = text + len;
        if (*p == ':') {
                p++;
                if (*p == '\0')
                        return error_setf(err, -EINVAL, "workload %s: nothing after ':'", ops->name);
                for (;;) {
                        size_t item = strcspn(p, ","), klen = strcspn(p, "=,");
                        char value[WORKLOAD_VALUE_MAX];
                        int k;

                        if (klen == 0 || p[klen] != '=')
                                return error_setf(err, -EINVAL, "workload %s: '%.*s' is not key=value",
                                                  ops->name, (int)(item > 64 ? 64 : item), p);
                        k = workload_key_index(ops, p, klen);
                        if (k < 0) {
                                workload_key_names(ops, buf, sizeof(buf));
                                return error_setf(err, -EINVAL, "workload %s: unknown key '%.*s' (keys: %s)",
                                                  ops->name, (int)(klen > 64 ? 64 : klen), p, buf);
                        }
                        if (s->values[k])
                                return error_setf(err, -EINVAL, "workload %s: key '%s' given twice",
                                                  ops->name, ops->keys[k].name);
                        if (item - klen - 1 >= sizeof(value))
                                return error_setf(err, -EINVAL, "workload %s: key '%s': value too long",
                                                  ops->name, ops->keys[k].name);
                        memcpy(value, p + klen + 1, item - klen - 1);
                        value[item - klen - 1] = '\0';
                        r = workload_value_check(ops, &ops->keys[k], value, &s->values[k], err);
                        if (r < 0)
                                return r;
                        if (p[item] == '\0')
                                break;
                        p += item + 1;
                }
        }

        for (size_t i = 0; i < s->n; i++) {
                if (s->values[i])
                        continue;
                /* Defaults are checked too: a bad default is a bug we want to see
                 * in the unit tests, not in a guest. */
                r = workload_value_check(ops, &ops->keys[i], ops->keys[i].def ? ops->keys[i].def : "",
                                         &s->values[i], err);
                if (r < 0)
                        return r;
        }
        r = workload_spec_canon(s);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

const char *workload_spec_get(const struct workload_spec *s, const char *key) {
        int k = workload_key_index(s->ops, key, strlen(key));

        assert(k >= 0 && (size_t)k < s->n);
        return s->values[k];
}

uint64_t workload_spec_size(const struct workload_spec *s, const char *key, uint64_t def) {
        const char *v = workload_spec_get(s, key);
        uint64_t x;

        if (v[0] == '\0' || parse_size(v, &x) < 0)
                return def;
        return x;
}

uint64_t workload_spec_uint(const struct workload_spec *s, const char *key, uint64_t def) {
        const char *v = workload_spec_get(s, key);
        uint64_t x;

        if (v[0] == '\0' || parse_u64(v, &x) < 0)
                return def;
        return x;
}

int workload_spec_bool(const struct workload_spec *s, const char *key) {
        int b;

        if (parse_bool(workload_spec_get(s, key), &b) < 0)
                return 0;
        return b;
}

int workload_spec_uint_list(const struct workload_spec *s, const char *key, uint64_t **ret_v,
                            size_t *ret_n) {
        uint64_t tmp[WORKLOAD_LIST_MAX], *v;
        int n = workload_list_parse(workload_spec_get(s, key), tmp);

        if (n < 0)
                return n;
        v = malloc((size_t)n * sizeof(*v));
        if (!v)
                return -ENOMEM;
        memcpy(v, tmp, (size_t)n * sizeof(*v));
        *ret_v = v;
        *ret_n = (size_t)n;
        return 0;
}

char *workload_quote(const char *line, char *buf, size_t size) {
        size_t i = 0, max = size < 204 ? (size > 4 ? size - 4 : 0) : 200;

        for (; line[i] && i < max; i++)
                buf[i] = (line[i] >= 0x20 && line[i] < 0x7f) ? line[i] : '?';
        if (line[i] && size >= 4) {
                memcpy(buf + i, "...", 3);
                i += 3;
        }
        buf[i < size ? i : size - 1] = '\0';
        return buf;
}
