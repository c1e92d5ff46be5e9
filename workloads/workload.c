/* workload.c: the "-w NAME[:key=value[,key=value...]]" specification. The
 * text comes from the command line (and from stored runs when resuming), so
 * it is parsed with bounds and every value is checked against its key's row
 * (type, unit, range) here, once, into the workload's typed params struct;
 * a bad value is reported as one line naming the workload, the key and the
 * value before any VM is started. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/workload.h"

#define WORKLOAD_SPEC_MAX 4096     /* whole "-w" text, bytes */
#define WORKLOAD_VALUE_MAX 256     /* one value, bytes */

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

/* Split a '/' list of plain numbers into ret. Returns 0 or -EINVAL. */
static int workload_list_parse(const char *value, struct workload_list *ret) {
        const char *p = value;
        struct workload_list l = { 0 };

        for (;;) {
                char num[32];
                size_t len = strcspn(p, "/");

                if (len == 0 || len >= sizeof(num) || l.n >= WORKLOAD_LIST_MAX)
                        return -EINVAL;
                memcpy(num, p, len);
                num[len] = '\0';
                if (parse_u64(num, &l.v[l.n]) < 0)
                        return -EINVAL;
                l.n++;
                if (p[len] == '\0')
                        break;
                p += len + 1;
        }
        *ret = l;
        return 0;
}

const char *workload_key_unit(const struct workload_key *k) {
        if (k->type != WKEY_SIZE)
                return NULL;
        switch (k->unit) {
        case 1ULL << 10: return "KiB";
        case 1ULL << 20: return "MiB";
        case 1ULL << 30: return "GiB";
        default: return "bytes";
        }
}

/* "64 MiB", "4 KiB", "1000 bytes" for messages: v in the largest binary
 * unit that holds it exactly. */
static void workload_size_text(uint64_t v, char *buf, size_t size) {
        static const struct { const char *name; unsigned shift; } units[] = {
                { "GiB", 30 }, { "MiB", 20 }, { "KiB", 10 },
        };

        for (size_t i = 0; v && i < ELEMENTSOF(units); i++)
                if (v % (1ULL << units[i].shift) == 0) {
                        snprintf(buf, size, "%" PRIu64 " %s", v >> units[i].shift, units[i].name);
                        return;
                }
        snprintf(buf, size, "%" PRIu64 " %s", v, v == 1 ? "byte" : "bytes");
}

static int workload_range_check(const struct workload_ops *ops, const struct workload_key *k, uint64_t v,
                                const char *value, struct kb_error *err) {
        char lo[48], hi[48];
        int bare;

        if (v >= k->min && (k->max == 0 || v <= k->max))
                return 0;
        if (k->type == WKEY_SIZE) {
                workload_size_text(k->min, lo, sizeof(lo));
                workload_size_text(k->max, hi, sizeof(hi));
        } else {
                snprintf(lo, sizeof(lo), "%" PRIu64, k->min);
                snprintf(hi, sizeof(hi), "%" PRIu64, k->max);
        }
        /* A bare number too large was most likely meant in bytes. */
        bare = k->type == WKEY_SIZE && k->unit > 1 && v > k->max && k->max && value[strspn(value, "0123456789")] == '\0';
        if (k->max == 0)
                return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is less than %s", ops->name, k->name,
                                  value, lo);
        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not between %s and %s%s", ops->name,
                          k->name, value, lo, hi, bare ? " (a bare number is MiB: give a unit, e.g. 4k)" : "");
}

int workload_key_parse(const struct workload_ops *ops, const struct workload_key *k, const char *value,
                       void *params, struct kb_error *err) {
        char *field = (char *)params + k->off;
        uint64_t x;
        int b, r;

        /* An empty value means "computed default" and is allowed only where
         * the default is computed, so the canonical text parses again. */
        if (value[0] == '\0') {
                if (k->def && k->def[0] == '\0') {
                        if (k->type == WKEY_SIZE || k->type == WKEY_COUNT)
                                memset(field, 0, sizeof(uint64_t));
                        return 0;
                }
                return error_setf(err, -EINVAL, "workload %s: key '%s': empty value", ops->name, k->name);
        }
        switch (k->type) {
        case WKEY_SIZE:
                /* A bare number is in the key's unit (--help names it). */
                if (parse_u64(value, &x) == 0) {
                        uint64_t unit = k->unit ? k->unit : 1;
                        if (x > UINT64_MAX / unit)
                                return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' %s is too large",
                                                  ops->name, k->name, value, workload_key_unit(k));
                        x *= unit;
                } else if ((r = parse_size(value, &x)) < 0) {
                        return error_setf(err, -EINVAL, r == -ERANGE ? "workload %s: key '%s': '%s' is too large"
                                                                    : "workload %s: key '%s': '%s' is not a size (e.g. 512M)",
                                          ops->name, k->name, value);
                }
                if ((r = workload_range_check(ops, k, x, value, err)) < 0)
                        return r;
                memcpy(field, &x, sizeof(x));
                return 0;
        case WKEY_COUNT:
                if (parse_u64(value, &x) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not a number",
                                          ops->name, k->name, value);
                if ((r = workload_range_check(ops, k, x, value, err)) < 0)
                        return r;
                memcpy(field, &x, sizeof(x));
                return 0;
        case WKEY_BOOL:
                if (parse_bool(value, &b) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not yes/no",
                                          ops->name, k->name, value);
                memcpy(field, &b, sizeof(b));
                return 0;
        case WKEY_LIST: {
                struct workload_list l;
                if (workload_list_parse(value, &l) < 0)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not a list of numbers",
                                          ops->name, k->name, value);
                for (size_t i = 0; i < l.n; i++) {
                        char one[24];
                        snprintf(one, sizeof(one), "%" PRIu64, l.v[i]);
                        if ((r = workload_range_check(ops, k, l.v[i], one, err)) < 0)
                                return r;
                }
                memcpy(field, &l, sizeof(l));
                return 0;
        }
        case WKEY_TEXT:
                /* The canonical text joins keys with ',' and is printed
                 * and stored: no ',' and nothing a terminal would act on. */
                if (strlen(value) >= WORKLOAD_TEXT_MAX)
                        return error_setf(err, -EINVAL, "workload %s: key '%s': longer than %d bytes", ops->name,
                                          k->name, WORKLOAD_TEXT_MAX - 1);
                for (const char *c = value; *c; c++)
                        if (*c < 0x20 || *c > 0x7e || *c == ',')
                                return error_setf(err, -EINVAL, "workload %s: key '%s': the value has a ',' or "
                                                  "a byte that is not printable ASCII", ops->name, k->name);
                memset(field, 0, WORKLOAD_TEXT_MAX);
                memcpy(field, value, strlen(value));
                return 0;
        case WKEY_ENUM:
                for (int i = 0; k->choices && k->choices[i]; i++)
                        if (strcmp(k->choices[i], value) == 0) {
                                memcpy(field, &i, sizeof(i));
                                return 0;
                        }
                {
                        char list[256];
                        size_t off = 0;
                        list[0] = '\0';
                        for (int i = 0; k->choices && k->choices[i] && off < sizeof(list); i++) {
                                int n = snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", k->choices[i]);
                                if (n < 0)
                                        break;
                                off += (size_t)n;
                        }
                        return error_setf(err, -EINVAL, "workload %s: key '%s': '%s' is not one of %s", ops->name,
                                          k->name, value, list);
                }
        }
        return error_setf(err, -EINVAL, "workload %s: key '%s': unknown type", ops->name, k->name);
}

int workload_key_format(const struct workload_key *k, const void *params, char *buf, size_t size) {
        static const struct { char suffix; unsigned shift; } units[] = {
                { 'T', 40 }, { 'G', 30 }, { 'M', 20 }, { 'k', 10 },
        };
        const char *field = (const char *)params + k->off;
        uint64_t x;
        int n = -1, b;

        switch (k->type) {
        case WKEY_SIZE:
        case WKEY_COUNT:
                memcpy(&x, field, sizeof(x));
                if (x == 0 && k->def && k->def[0] == '\0') {
                        n = snprintf(buf, size, "%s", "");
                        break;
                }
                if (k->type == WKEY_COUNT || x == 0) {
                        n = snprintf(buf, size, "%" PRIu64, x);
                        break;
                }
                /* Always a suffix: a bare number would be read in the key's unit. */
                for (size_t i = 0; i < ELEMENTSOF(units); i++)
                        if (x % (1ULL << units[i].shift) == 0) {
                                n = snprintf(buf, size, "%" PRIu64 "%c", x >> units[i].shift, units[i].suffix);
                                goto out;
                        }
                n = snprintf(buf, size, "%" PRIu64 "B", x);
                break;
        case WKEY_BOOL:
                memcpy(&b, field, sizeof(b));
                n = snprintf(buf, size, "%s", b ? "yes" : "no");
                break;
        case WKEY_LIST: {
                struct workload_list l;
                size_t off = 0;
                memcpy(&l, field, sizeof(l));
                buf[0] = '\0';
                for (size_t i = 0; i < l.n; i++) {
                        n = snprintf(buf + off, size > off ? size - off : 0, "%s%" PRIu64, i ? "/" : "", l.v[i]);
                        if (n < 0 || (size_t)n >= size - off)
                                return -ENOSPC;
                        off += (size_t)n;
                }
                n = (int)off;
                break;
        }
        case WKEY_ENUM:
                memcpy(&b, field, sizeof(b));
                n = snprintf(buf, size, "%s", k->choices[b]);
                break;
        case WKEY_TEXT:
                n = snprintf(buf, size, "%.*s", (int)strnlen(field, WORKLOAD_TEXT_MAX - 1), field);
                break;
        }
out:
        if (n < 0 || (size_t)n >= size)
                return -ENOSPC;
        return n;
}

struct workload_spec *workload_spec_free(struct workload_spec *s) {
        if (!s)
                return NULL;
        free(s->params);
        free(s->text);
        free(s);
        return NULL;
}

static void workload_spec_freep(struct workload_spec **s) {
        workload_spec_free(*s);
}

static int workload_spec_canon(struct workload_spec *s) {
        GString *t = g_string_new(s->ops->name);
        char value[WORKLOAD_VALUE_MAX * 2];

        for (size_t i = 0; s->ops->keys && s->ops->keys[i].name; i++) {
                if (workload_key_format(&s->ops->keys[i], s->params, value, sizeof(value)) < 0) {
                        g_string_free(t, TRUE);
                        return -ENOSPC;
                }
                g_string_append_printf(t, "%s%s=%s", i ? "," : ":", s->ops->keys[i].name, value);
        }
        s->text = g_string_free(t, FALSE);
        return 0;
}

int workload_spec_resolve(struct workload_spec *s, const struct workload_env *env) {
        char *old = s->text;
        void *saved;
        int r;

        if (!s->ops->resolve)
                return 0;
        saved = g_memdup2(s->params, s->ops->params_size ? s->ops->params_size : 1);
        s->ops->resolve(s->params, env);
        r = workload_spec_canon(s);
        if (r < 0) {
                memcpy(s->params, saved, s->ops->params_size);
                s->text = old;
        } else
                free(old);
        g_free(saved);
        return r;
}

/* The name before ':' picks the workload's row. */
static int spec_ops(const char *text, size_t *ret_len, const struct workload_ops **ret, struct kb_error *err) {
        char name[64], buf[1024];
        size_t len = strcspn(text, ":");

        if (len == 0 || len >= sizeof(name))
                return error_setf(err, -EINVAL, "workload: '%.64s' has no workload name", text);
        memcpy(name, text, len);
        name[len] = '\0';
        *ret = workload_find(name);
        if (!*ret) {
                workload_names(buf, sizeof(buf));
                return error_setf(err, -EINVAL, "unknown workload '%s' (workloads: %s)", name, buf);
        }
        *ret_len = len;
        return 0;
}

/* One "key=value" item of p, ending at ',' or the end; bit k of *given
 * says key k was given, so that a key given twice is refused. */
static int spec_item(struct workload_spec *s, const char *p, size_t item, uint64_t *given, struct kb_error *err) {
        const struct workload_ops *ops = s->ops;
        size_t klen = strcspn(p, "=,");
        char value[WORKLOAD_VALUE_MAX], buf[1024];
        int k;

        if (klen == 0 || p[klen] != '=')
                return error_setf(err, -EINVAL, "workload %s: '%.*s' is not key=value", ops->name,
                                  (int)(item > 64 ? 64 : item), p);
        k = workload_key_index(ops, p, klen);
        if (k < 0) {
                workload_key_names(ops, buf, sizeof(buf));
                return error_setf(err, -EINVAL, "workload %s: unknown key '%.*s' (keys: %s)", ops->name,
                                  (int)(klen > 64 ? 64 : klen), p, buf);
        }
        if (*given & (1ULL << k))
                return error_setf(err, -EINVAL, "workload %s: key '%s' given twice", ops->name, ops->keys[k].name);
        if (item - klen - 1 >= sizeof(value))
                return error_setf(err, -EINVAL, "workload %s: key '%s': value too long", ops->name,
                                  ops->keys[k].name);
        memcpy(value, p + klen + 1, item - klen - 1);
        value[item - klen - 1] = '\0';
        *given |= 1ULL << k;
        return workload_key_parse(ops, &ops->keys[k], value, s->params, err);
}

static int spec_items(struct workload_spec *s, const char *p, uint64_t *given, struct kb_error *err) {
        if (*p == '\0')
                return error_setf(err, -EINVAL, "workload %s: nothing after ':'", s->ops->name);
        for (;;) {
                size_t item = strcspn(p, ",");
                int r = spec_item(s, p, item, given, err);

                if (r < 0)
                        return r;
                if (p[item] == '\0')
                        return 0;
                p += item + 1;
        }
}

/* Defaults are checked too: a bad default is a bug we want to see in the
 * unit tests, not in a guest. */
static int spec_defaults(struct workload_spec *s, uint64_t given, struct kb_error *err) {
        const struct workload_ops *ops = s->ops;

        for (size_t i = 0; i < workload_nkeys(ops); i++) {
                int r;

                if (given & (1ULL << i))
                        continue;
                r = workload_key_parse(ops, &ops->keys[i], ops->keys[i].def ? ops->keys[i].def : "", s->params,
                                       err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int workload_spec_parse(const char *text, struct workload_spec **ret, struct kb_error *err) {
        _cleanup_(workload_spec_freep) struct workload_spec *s = NULL;
        const struct workload_ops *ops;
        uint64_t given = 0;
        size_t len;
        int r;

        if (!text || strnlen(text, WORKLOAD_SPEC_MAX + 1) > WORKLOAD_SPEC_MAX)
                return error_setf(err, -EINVAL, "workload: specification too long (max %d bytes)",
                                  WORKLOAD_SPEC_MAX);
        r = spec_ops(text, &len, &ops, err);
        if (r < 0)
                return r;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->ops = ops;
        s->params = calloc(1, ops->params_size ? ops->params_size : 1);
        if (!s->params)
                return -ENOMEM;
        if (workload_nkeys(ops) > sizeof(given) * 8)
                return error_setf(err, -EINVAL, "workload %s: more than %zu keys", ops->name, sizeof(given) * 8);
        if (text[len] == ':' && (r = spec_items(s, text + len + 1, &given, err)) < 0)
                return r;
        r = spec_defaults(s, given, err);
        if (r < 0)
                return r;
        r = workload_spec_canon(s);
        if (r < 0)
                return r;
        if (ops->check && (r = ops->check(s->params, err)) < 0)
                return r;
        *ret = TAKE_PTR(s);
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

int workload_event_time(const struct workload_output *out, const char *name, const char *who, double *ret_t,
                        struct kb_error *err) {
        int found = 0;
        double t = 0;

        for (size_t i = 0; i < out->n_events; i++) {
                if (!out->events[i] || strcmp(out->events[i], name) != 0)
                        continue;
                if (found++)
                        return error_setf(err, -EINVAL, "%s: event '%s' twice", who, name);
                t = out->event_t[i];
        }
        if (!found)
                return error_setf(err, -EINVAL, "%s: the job never reported '%s'", who, name);
        if (!isfinite(t))
                return error_setf(err, -EINVAL, "%s: bad time of event '%s'", who, name);
        *ret_t = t;
        return 0;
}
