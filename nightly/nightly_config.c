/* nightly/nightly_config.c: the nightly configuration (see nightly_config.h).
 * One table holds every key. A row's path names where the key lives
 * ("vm.mem", "sources[].overrides.append"); its offset is into the struct of
 * that level (struct nightly_config, or struct nightly_source for rows under
 * "sources[]"). One recursive walk over the JSON object drives everything:
 * a key without a row is unknown, a row whose key is absent gets its default
 * (written as JSON text in the row and stored by the same code that stores a
 * given value, so a default cannot bypass a range check), a required row
 * without a key is an error. A run setting's row names its `kbench run`
 * option (opt) and its offset is the struct run_settings of its level: the
 * value goes through that option's typed setter (runopt_set_json), so its
 * type, range and checks are the option table's; sizes in this file keep
 * their documented form (a string with a unit, or an integer of bytes).
 * A judging key's row (CFG_JUDGE) goes through decide/judgeopts.c's row of
 * the same key, in the spelling the file documents (noise 0.02 or "2%"). */
#include <assert.h>
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "decide/judgeopts.h"
#include "nightly/nightly_config.h"
#include "kernels/source_url.h"
#include "workloads/workload.h"

enum cfg_type {
        CFG_OBJECT,                /* a nested object; its keys are the rows below its path */
        CFG_SOURCES,               /* array of source objects (rows under "sources[]") */
        CFG_SOURCE_TYPE,           /* "dir" | "url" | "apt", read before the other keys of a source */
        CFG_STRING,                /* char *, checked by row->check */
        CFG_INT,                   /* int */
        CFG_NUMBER,                /* double */
        CFG_DURATION,              /* double seconds: "6h", "90m", "30s", "2d" or an integer of seconds */
        CFG_STRV,                  /* char **, NULL-terminated, from an array of strings */
        CFG_RUNOPT,                /* the run option row->opt, into the struct run_settings at offset */
        CFG_RUNOPT_KV,             /* the same for a repeatable "key=value" option, written as an object
                                      of strings or integers ({"vm.dirty_ratio": 5}) */
        CFG_JUDGE,                 /* the judging option whose key is the row's path (decide/judgeopts.h):
                                      its type, range and default are that table's; an int or a double */
};

enum {
        CFG_REQUIRED = 1 << 0,     /* no default: absent is an error (within kinds, for sources) */
        CFG_NONEMPTY = 1 << 1,     /* arrays: at least one element */
        CFG_LOWER = 1 << 2,        /* strings: stored in lower case (hex digests compare as text) */
        CFG_OPTIONAL = 1 << 3,     /* objects: absent, its keys are not read (their defaults and
                                      requirements hold only when it is given) */
};

#define KIND(t) (1u << (t))
#define ALL_KINDS 0u

struct cfg_row {
        const char *path;
        enum cfg_type type;
        size_t offset;             /* into the level's struct */
        unsigned flags;
        double min, max;           /* inclusive range for numbers, sizes, durations */
        const char *def;           /* default as JSON text, or NULL */
        unsigned kinds;            /* rows under sources[]: the source types that take the key; 0 = all */
        const char *(*check)(const char *s);   /* strings: NULL if fine, else why not */
        const char *help;
        const char *opt;           /* CFG_RUNOPT*: the option (settings/runopts.h) */
};

static const char *check_nonempty(const char *s) {
        return *s ? NULL : "must not be empty";
}

static const char *check_line(const char *s) {
        if (strlen(s) > 1024)
                return "is longer than 1024 characters";
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        return "must be one line of printable characters";
        return NULL;
}

static const char *check_text(const char *s) {
        return check_nonempty(s) ?: check_line(s);
}

/* A source's name labels its kernels as `kbench run --variant` would, so
 * it follows that option's rule. */
static const char *check_name_prefix(const char *s) {
        const struct runopt *variant = runopt_find("variant");

        return variant->check(s, NULL) == 0 ? NULL : "must be 1-64 characters of A-Z a-z 0-9 . _ + ~ -";
}

/* A mail header's addresses: one line of printable ASCII (a non-ASCII
 * name would need RFC 2047 in a structured header) with an address in
 * it; never a CR or LF, which would let the file add headers. */
static const char *check_mailbox(const char *s) {
        const char *why = check_text(s);

        if (why)
                return why;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p >= 0x7f)
                        return "must be ASCII";
        return strchr(s, '@') && strlen(s) <= 900 ? NULL : "must hold an address user@host (at most 900 characters)";
}

/* An http(s) URL with a host: a page links it and a mail names it, so
 * javascript:, a blank or a bare "https://" is refused. */
static const char *check_url(const char *s) {
        const char *host = g_str_has_prefix(s, "http://") ? s + 7 : g_str_has_prefix(s, "https://") ? s + 8 : NULL;

        if (!host)
                return "must start with http:// or https:// (an http(s) URL)";
        if (!*host || *host == '/')
                return "must name a host after http(s)://";
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p <= 0x20 || *p >= 0x7f)
                        return "must not contain blanks or non-ASCII characters";
        return strlen(s) > 2048 ? "is longer than 2048 characters" : NULL;
}

static const char *check_sha256(const char *s) {
        if (strlen(s) != 64 || strspn(s, "0123456789abcdefABCDEF") != 64)
                return "must be 64 hexadecimal digits";
        return NULL;
}

static const char *check_apt_pattern(const char *s) {
        /* Debian package names are [a-z0-9][a-z0-9+.-]+; the glob adds * ? [ ]. */
        size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+.-*?[]");
        if (!*s || s[n] || n > 128)
                return "must be a package name glob of a-z 0-9 + . - * ? [ ]";
        return NULL;
}

#define C(f) offsetof(struct nightly_config, f)
#define S(f) offsetof(struct nightly_source, f)

/* The one table. Order is the order of docs/nightly.md's key reference. */
static const struct cfg_row rows[] = {
        { "sources", CFG_SOURCES, C(sources), CFG_REQUIRED | CFG_NONEMPTY, .help = "where new kernels come from" },
        { "sources[].type", CFG_SOURCE_TYPE, S(type), CFG_REQUIRED, .help = "dir, url or apt" },
        { "sources[].path", CFG_STRING, S(path), CFG_REQUIRED, .kinds = KIND(NIGHTLY_SOURCE_DIR),
          .check = check_text, .help = "directory watched for .deb packages and kernel images" },
        { "sources[].url", CFG_STRING, S(url), CFG_REQUIRED, .kinds = KIND(NIGHTLY_SOURCE_URL),
          .check = check_url, .help = "a .deb or kernel image, or an index page whose links to .deb are followed" },
        { "sources[].sha256", CFG_STRING, S(sha256), CFG_LOWER, .kinds = KIND(NIGHTLY_SOURCE_URL),
          .check = check_sha256, .help = "expected digest of the file at url; a mismatch is never imported" },
        { "sources[].pattern", CFG_STRING, S(pattern), CFG_REQUIRED, .kinds = KIND(NIGHTLY_SOURCE_APT),
          .check = check_apt_pattern, .help = "package name glob resolved through the host's APT, e.g. linux-image-*-amd64-unsigned" },
        { "sources[].name", CFG_STRING, S(name), 0, .check = check_name_prefix,
          .help = "prefix of the names of this source's kernels (tracks variants apart)" },
        { "sources[].overrides", CFG_OBJECT, 0, 0, .help = "how this source's kernels are measured differently" },
        { "sources[].overrides.append", CFG_RUNOPT, S(overrides), .opt = "append",
          .help = "extra kernel command line, e.g. elevator=none" },
        { "sources[].overrides.sysctls", CFG_RUNOPT_KV, S(overrides), .opt = "sysctl",
          .help = "sysctls the agent sets before the job, {\"vm.dirty_ratio\": 5}" },
        { "sources[].overrides.disk_mbps", CFG_RUNOPT, S(overrides), .opt = "disk-mbps",
          .help = "throttle the disk under test to MB/s (0: unthrottled)" },
        { "baseline", CFG_STRING, C(baseline), CFG_REQUIRED, .check = check_text,
          .help = "name of the kernel every new kernel is compared with" },
        { "workloads", CFG_STRV, C(workloads), CFG_REQUIRED | CFG_NONEMPTY,
          .help = "workload specs as given to kbench run -w, e.g. \"dd:bs=1M\"" },
        /* A night's default differs from kbench run's -n 1: one cell per
         * kernel tells nothing about its noise. */
        { "repeats", CFG_RUNOPT, C(run), .def = "5", .opt = "repeat", .help = "repeats of every (kernel, workload)" },
        { "until_mde", CFG_RUNOPT, C(run), .opt = "until-mde",
          .help = "repeats chosen by the tool: rounds are added to repeats (the pilot) until every judged "
                  "metric's minimum detectable effect, noise included, is at most this, \"5%\" (0: off; needs a "
                  "budget and more than noise)" },
        { "budget_cells", CFG_RUNOPT, C(run), .opt = "budget-cells",
          .help = "with until_mde: cells per run of the night, at most (0: no cell budget)" },
        { "budget_time", CFG_RUNOPT, C(run), .opt = "budget-time",
          .help = "with until_mde: no round of a run starts after this long (0: none; the deadline holds anyway)" },
        { "vm", CFG_OBJECT, 0, 0, .help = "the guest" },
        { "vm.mem", CFG_RUNOPT, C(run), .opt = "mem", .help = "guest RAM" },
        { "vm.cpus", CFG_RUNOPT, C(run), .opt = "cpus", .help = "guest vCPUs" },
        { "vm.disk_size", CFG_RUNOPT, C(run), .opt = "disk-size", .help = "size of the disk under test" },
        { "vm.fs", CFG_RUNOPT, C(run), .opt = "fs", .help = "filesystem made with mkfs.FS" },
        { "vm.mount_opts", CFG_RUNOPT, C(run), .opt = "mount-opts", .help = "mount options, e.g. data=ordered" },
        { "vm.swap", CFG_RUNOPT, C(run), .opt = "swap", .help = "swap disk size (0: none)" },
        { "alpha", CFG_JUDGE, C(alpha), .help = "significance level of a verdict" },
        { "noise", CFG_JUDGE, C(noise),
          .help = "relative noise band: smaller changes are never regressions (\"2%\" or 0.02)" },
        { "changepoint", CFG_OBJECT, 0, 0, .help = "change-point detection over each metric's history" },
        { "changepoint.p_value", CFG_NUMBER, C(cp_p_value), 0, 1e-6, 0.5, "0.001",
          .help = "largest p-value of an accepted change point" },
        { "changepoint.min_magnitude", CFG_NUMBER, C(cp_min_magnitude), 0, 0, 10, "0.05",
          .help = "smallest relative step of an accepted change point" },
        { "changepoint.window", CFG_INT, C(cp_window), 0, 4, 10000, "30", .help = "points of history examined" },
        { "changepoint.confirm", CFG_INT, C(cp_confirm), 0, 1, 100, "3",
          .help = "later points needed before a change point is no longer provisional" },
        { "publish_dir", CFG_STRING, C(publish_dir), 0, .check = check_text,
          .help = "directory of the published site (absent: no publishing)" },
        { "base_url", CFG_STRING, C(base_url), 0, .check = check_url,
          .help = "URL under which publish_dir is served (https://host/kbench): the regression report links "
                  "the comparison's page" },
        { "connect", CFG_STRING, C(connect), 0, .check = check_text,
          .help = "libvirt URI (absent: the store's embedded driver)" },
        { "hosts", CFG_STRV, C(hosts), CFG_NONEMPTY,
          .help = "libvirt hosts the night's cells are spread over, \"[NAME=]URI\" each, as kbench run's "
                  "--connect (absent: connect's one host)" },
        { "slots", CFG_RUNOPT, C(run), .opt = "slots", .help = "cells each of hosts runs at once" },
        { "deadline", CFG_DURATION, C(deadline_s), 0, 60, 7 * 86400, "\"6h\"",
          .help = "whole-run deadline: seconds, or with a unit s, m, h, d" },
        { "notify", CFG_STRING, C(notify), 0, .check = check_text,
          .help = "sh command that receives the report on stdin when something regressed or a reported "
                  "regression is fixed" },
        { "mail_from", CFG_STRING, C(mail_from), 0, .check = check_mailbox,
          .help = "From of the report's mail, \"Name <user@host>\" or user@host (absent: kbench@<hostname>)" },
        { "mail_to", CFG_STRING, C(mail_to), 0, .check = check_mailbox,
          .help = "To of the report's mail, addresses separated by commas (absent: undisclosed-recipients:;)" },
        /* Checked further (a judged metric, one of workloads) by nightly/nightly_bisect.c. */
        { "bisect", CFG_OBJECT, 0, CFG_OPTIONAL,
          .help = "start kbench bisect --kernels when tonight's kernel regressed on this metric and a source "
                  "yields kernels between it and the last one found good (absent: never)" },
        { "bisect.metric", CFG_STRING, C(bisect.metric), CFG_REQUIRED, .check = check_text,
          .help = "the judged metric whose regression is bisected, e.g. guest.write.kernel_Minsn" },
        { "bisect.workload", CFG_STRING, C(bisect.workload), 0, .check = check_text,
          .help = "the workload measured, one of workloads as written (absent: the first)" },
        { "bisect.max_rounds", CFG_JUDGE, C(bisect.max_rounds),
          .help = "rounds a step of the bisection may take (kbench bisect --max-rounds), at least its pilot's 4" },
};

#undef C
#undef S

const struct runopt *const *nightly_override_opts(void) {
        static const struct runopt *opts[ELEMENTSOF(rows) + 1];
        static gsize done;

        if (g_once_init_enter(&done)) {
                size_t n = 0;

                for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                        if ((rows[i].type == CFG_RUNOPT || rows[i].type == CFG_RUNOPT_KV) &&
                            g_str_has_prefix(rows[i].path, "sources[].overrides."))
                                opts[n++] = runopt_find(rows[i].opt);
                g_once_init_leave(&done, 1);
        }
        return opts;
}

int nightly_source_has_overrides(const struct nightly_source *src) {
        struct run_settings def;

        runopts_defaults(&def);
        for (const struct runopt *const *o = nightly_override_opts(); *o; o++)
                if (!runopt_equal(*o, &src->overrides, &def))
                        return 1;
        return 0;
}

static const char *const source_type_names[] = { "dir", "url", "apt" };

const char *nightly_source_type_name(enum nightly_source_type t) {
        return (unsigned)t < ELEMENTSOF(source_type_names) ? source_type_names[t] : "?";
}

static void strv_free(char **v) {
        g_strfreev(v);
}

struct nightly_config *nightly_config_free(struct nightly_config *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_sources; i++) {
                struct nightly_source *s = &c->sources[i];
                g_free(s->path);
                g_free(s->url);
                g_free(s->pattern);
                g_free(s->sha256);
                g_free(s->name);
        }
        g_free(c->sources);
        g_free(c->baseline);
        strv_free(c->workloads);
        strv_free(c->workload_specs);
        if (c->keep)
                g_ptr_array_unref(c->keep);
        g_free(c->publish_dir);
        g_free(c->base_url);
        g_free(c->connect);
        g_strfreev(c->hosts);
        g_free(c->notify);
        g_free(c->mail_from);
        g_free(c->mail_to);
        g_free(c->bisect.metric);
        g_free(c->bisect.workload);
        g_free(c);
        return NULL;
}

/* Key text from the file, fit for a message: bounded, control bytes as '?'. */
static char *display_join(const char *display, const char *key) {
        g_autofree char *k = g_strndup(key, 64);

        for (char *p = k; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
        return *display ? g_strdup_printf("%s.%s", display, k) : g_strdup(k);
}

static char *schema_join(const char *schema, const char *key) {
        return *schema ? g_strdup_printf("%s.%s", schema, key) : g_strdup(key);
}

/* Is row a direct child of the level at schema ("" is the top)? */
static bool row_in_level(const struct cfg_row *r, const char *schema) {
        const char *rest = r->path;
        size_t n = strlen(schema);

        if (n) {
                if (strncmp(r->path, schema, n) != 0 || r->path[n] != '.')
                        return false;
                rest = r->path + n + 1;
        }
        return !strchr(rest, '.');
}

static const char *row_key(const struct cfg_row *r) {
        const char *dot = strrchr(r->path, '.');
        return dot ? dot + 1 : r->path;
}

static const struct cfg_row *row_find(const char *path) {
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (strcmp(rows[i].path, path) == 0)
                        return &rows[i];
        return NULL;
}

static void format_size(double v, char *buf, size_t size) {
        static const char units[] = "KMGT";
        uint64_t b = (uint64_t)v;
        int u = -1;

        while (u < 3 && b && b % 1024 == 0) {
                b /= 1024;
                u++;
        }
        if (u < 0)
                snprintf(buf, size, "%llu", (unsigned long long)b);
        else
                snprintf(buf, size, "%llu%c", (unsigned long long)b, units[u]);
}

static void format_duration(double v, char *buf, size_t size) {
        static const struct { char unit; unsigned s; } units[] = { { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 } };
        uint64_t s = (uint64_t)v;

        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (s && s % units[i].s == 0) {
                        snprintf(buf, size, "%llu%c", (unsigned long long)(s / units[i].s), units[i].unit);
                        return;
                }
        snprintf(buf, size, "%llus", (unsigned long long)s);
}

static void format_bound(const struct cfg_row *r, double v, char *buf, size_t size) {
        if (r->type == CFG_DURATION)
                format_duration(v, buf, size);
        else
                snprintf(buf, size, "%g", v);
}

/* The value as the file wrote it, for "X is out of range" messages. */
static void format_given(const json_t *v, char *buf, size_t size) {
        if (json_is_string(v)) {
                snprintf(buf, size, "%.64s", json_string_value(v));
                for (char *p = buf; *p; p++)
                        if ((unsigned char)*p < 0x20 || *p == 0x7f)
                                *p = '?';
        } else if (json_is_integer(v))
                snprintf(buf, size, "%lld", (long long)json_integer_value(v));
        else
                snprintf(buf, size, "%g", json_number_value(v));
}

static int check_range(const struct cfg_row *r, const json_t *v, double x, const char *dpath,
                       struct kb_error *err) {
        char given[80], lo[32], hi[32];

        if (x >= r->min && x <= r->max)
                return 0;
        format_given(v, given, sizeof(given));
        format_bound(r, r->min, lo, sizeof(lo));
        format_bound(r, r->max, hi, sizeof(hi));
        return error_setf(err, -EINVAL, "%s: %s is out of range (%s..%s)", dpath, given, lo, hi);
}

/* "6h", "90m", "30s", "2d", "45" (seconds), or an integer. */
static int parse_duration(const json_t *v, double *ret) {
        uint64_t n, mult = 1;
        g_autofree char *num = NULL;
        const char *s;
        size_t len;

        if (json_is_integer(v)) {
                if (json_integer_value(v) < 0)
                        return -ERANGE;
                *ret = (double)json_integer_value(v);
                return 0;
        }
        if (!json_is_string(v))
                return -EINVAL;
        s = json_string_value(v);
        len = strlen(s);
        if (len == 0)
                return -EINVAL;
        switch (s[len - 1]) {
        case 's': mult = 1; len--; break;
        case 'm': mult = 60; len--; break;
        case 'h': mult = 3600; len--; break;
        case 'd': mult = 86400; len--; break;
        default: break;
        }
        num = g_strndup(s, len);
        if (parse_u64(num, &n) < 0 || n > UINT64_MAX / mult)
                return -EINVAL;
        *ret = (double)(n * mult);
        return 0;
}

/* A JSON string with no NUL inside, as C text; NULL if v is anything else. */
static const char *plain_string(const json_t *v) {
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
                return NULL;
        return json_string_value(v);
}

static int walk_object(const json_t *obj, const char *schema, const char *display, void *base,
                       int kind, GPtrArray *keep, struct kb_error *err);

static int set_sources(const struct cfg_row *r, const json_t *v, const char *dpath, void *base,
                       GPtrArray *keep, struct kb_error *err) {
        struct nightly_config *c = base;
        size_t i;
        json_t *el;

        if (!json_is_array(v))
                return error_setf(err, -EINVAL, "%s: expected an array", dpath);
        if (json_array_size(v) == 0)
                return error_setf(err, -EINVAL, "%s: must not be empty", dpath);
        /* Owned by c from here on, so a failure below frees what was read. */
        c->sources = g_new0(struct nightly_source, json_array_size(v));
        c->n_sources = json_array_size(v);
        json_array_foreach(v, i, el) {
                g_autofree char *d = g_strdup_printf("%s[%zu]", dpath, i);
                g_autofree char *schema = g_strdup_printf("%s[]", r->path);
                int ret;

                runopts_defaults(&c->sources[i].overrides);
                ret = walk_object(el, schema, d, &c->sources[i], -1, keep, err);
                if (ret < 0)
                        return ret;
        }
        return 0;
}

static int set_strv(const struct cfg_row *r, const json_t *v, const char *dpath, char ***dst,
                    struct kb_error *err) {
        g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);
        size_t i;
        json_t *el;

        if (!json_is_array(v))
                return error_setf(err, -EINVAL, "%s: expected an array of strings", dpath);
        if ((r->flags & CFG_NONEMPTY) && json_array_size(v) == 0)
                return error_setf(err, -EINVAL, "%s: must not be empty", dpath);
        json_array_foreach(v, i, el) {
                const char *s = plain_string(el), *why;
                if (!s)
                        return error_setf(err, -EINVAL, "%s[%zu]: expected a string", dpath, i);
                why = check_text(s);
                if (why)
                        return error_setf(err, -EINVAL, "%s[%zu]: %s", dpath, i, why);
                g_ptr_array_add(a, g_strdup(s));
        }
        g_ptr_array_add(a, NULL);
        strv_free(*dst);
        *dst = (char **)g_ptr_array_free(TAKE_PTR(a), FALSE);
        return 0;
}

/* {"vm.dirty_ratio": 5, "vm.swappiness": "10"} as the items of a
 * repeatable "key=value" option. OUT: *ret (a JSON array, new reference). */
static int kv_items(const json_t *v, const char *dpath, json_t **ret, struct kb_error *err) {
        json_t *a, *val;
        const char *key;

        if (!json_is_object(v))
                return error_setf(err, -EINVAL, "%s: expected an object", dpath);
        a = json_array();
        json_object_foreach((json_t *)v, key, val) {
                g_autofree char *d = display_join("", key), *text = NULL;
                const char *s;

                /* An item splits at its first '=': a key holding one would
                 * name another sysctl than the one written. */
                if (strchr(key, '=')) {
                        json_decref(a);
                        return error_setf(err, -EINVAL, "%s[\"%s\"]: not a sysctl name", dpath, d);
                }
                if (json_is_integer(val))
                        text = g_strdup_printf("%s=%lld", key, (long long)json_integer_value(val));
                else if ((s = plain_string(val)))
                        text = g_strdup_printf("%s=%s", key, s);
                else {
                        json_decref(a);
                        return error_setf(err, -EINVAL, "%s[\"%s\"]: expected a string or an integer", dpath, d);
                }
                json_array_append_new(a, json_string(text));
        }
        *ret = a;
        return 0;
}

/* A run setting: v through its option's typed setter into the level's
 * struct run_settings s, so its type, range and checks are the option
 * table's. */
static int set_runopt(const struct cfg_row *r, const json_t *v, const char *dpath, struct run_settings *s,
                      GPtrArray *keep, struct kb_error *err) {
        const struct runopt *opt = runopt_find(r->opt);
        json_auto_t *items = NULL;
        int ret;

        assert(opt);   /* the rows name options of the table */
        if (r->type == CFG_RUNOPT_KV) {
                ret = kv_items(v, dpath, &items, err);
                if (ret < 0)
                        return ret;
                v = items;
        }
        ret = runopt_set_json(s, opt, v, RUNOPT_INTS_BYTES, keep, err);
        return ret < 0 ? error_prefix(err, -EINVAL, "%s", dpath) : 0;
}

/* A judging option: v through its row of decide/judgeopts.c, so its range
 * is compare's and bisect's; into the int or double field at dst. */
static int set_judge(const struct cfg_row *r, const json_t *v, const char *dpath, void *dst, struct kb_error *err) {
        const struct judgeopt *opt = judgeopt_find_key(r->path);
        double x;
        int ret;

        assert(opt);   /* the rows name keys of the table */
        ret = judgeopt_parse_json(opt, v, &x, err);
        if (ret < 0)
                return error_prefix(err, ret, "%s", dpath);
        if (opt->type == JUDGEOPT_INT)
                *(int *)dst = (int)x;
        else
                *(double *)dst = x;
        return 0;
}

static int set_source_type(const json_t *v, const char *dpath, enum nightly_source_type *dst,
                           struct kb_error *err) {
        const char *s = plain_string(v);

        if (!s)
                return error_setf(err, -EINVAL, "%s: expected a string", dpath);
        for (size_t i = 0; i < ELEMENTSOF(source_type_names); i++)
                if (strcmp(s, source_type_names[i]) == 0) {
                        *dst = (enum nightly_source_type)i;
                        return 0;
                }
        return error_setf(err, -EINVAL, "%s: \"%.32s\" is not one of dir, url, apt", dpath, s);
}

/* Store v (given or the row's default) into base. */
static int set_value(const struct cfg_row *r, const json_t *v, const char *dpath, void *base, int kind,
                     GPtrArray *keep, struct kb_error *err) {
        void *dst = (char *)base + r->offset;
        const char *s, *why;
        double d = 0;
        int ret;

        switch (r->type) {
        case CFG_OBJECT:
                return walk_object(v, r->path, dpath, base, kind, keep, err);
        case CFG_SOURCES:
                return set_sources(r, v, dpath, base, keep, err);
        case CFG_RUNOPT:
        case CFG_RUNOPT_KV:
                return set_runopt(r, v, dpath, dst, keep, err);
        case CFG_SOURCE_TYPE:
                return set_source_type(v, dpath, dst, err);
        case CFG_STRING:
                s = plain_string(v);
                if (!s)
                        return error_setf(err, -EINVAL, "%s: expected a string", dpath);
                why = r->check ? r->check(s) : NULL;
                if (why)
                        return error_setf(err, -EINVAL, "%s: %s", dpath, why);
                g_free(*(char **)dst);
                *(char **)dst = r->flags & CFG_LOWER ? g_ascii_strdown(s, -1) : g_strdup(s);
                return 0;
        case CFG_INT:
                if (!json_is_integer(v))
                        return error_setf(err, -EINVAL, "%s: expected an integer", dpath);
                ret = check_range(r, v, (double)json_integer_value(v), dpath, err);
                if (ret < 0)
                        return ret;
                *(int *)dst = (int)json_integer_value(v);
                return 0;
        case CFG_NUMBER:
                if (!json_is_number(v))
                        return error_setf(err, -EINVAL, "%s: expected a number", dpath);
                ret = check_range(r, v, json_number_value(v), dpath, err);
                if (ret < 0)
                        return ret;
                *(double *)dst = json_number_value(v);
                return 0;
        case CFG_JUDGE:
                return set_judge(r, v, dpath, dst, err);
        case CFG_DURATION:
                ret = parse_duration(v, &d);
                if (ret == -EINVAL)
                        return error_setf(err, -EINVAL,
                                          "%s: expected a duration such as \"6h\" or a number of seconds", dpath);
                ret = check_range(r, v, ret < 0 ? -1 : d, dpath, err);
                if (ret < 0)
                        return ret;
                *(double *)dst = d;
                return 0;
        case CFG_STRV:
                return set_strv(r, v, dpath, dst, err);
        }
        return error_setf(err, -EINVAL, "%s: unhandled key type", dpath);
}

/* A judging row's default as the file writes it (JSON text in buf). */
static const char *judge_default(const struct cfg_row *r, char *buf, size_t size) {
        const char *kind;
        char range[32];

        judgeopt_file_terms(judgeopt_find_key(r->path), &kind, buf, range, MIN(size, sizeof(range)));
        return buf;
}

static int walk_object(const json_t *obj, const char *schema, const char *display, void *base,
                       int kind, GPtrArray *keep, struct kb_error *err) {
        bool seen[ELEMENTSOF(rows)] = { false };
        const char *key;
        json_t *v;
        int r;

        if (!json_is_object(obj))
                return *display ? error_setf(err, -EINVAL, "%s: expected an object", display)
                                : error_setf(err, -EINVAL, "expected a JSON object at the top");

        /* A source's type decides which of its other keys exist. */
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const struct cfg_row *row = &rows[i];
                g_autofree char *d = NULL;

                if (row->type != CFG_SOURCE_TYPE || !row_in_level(row, schema))
                        continue;
                d = display_join(display, row_key(row));
                v = json_object_get(obj, row_key(row));
                if (!v)
                        return error_setf(err, -EINVAL, "%s: missing (required)", d);
                r = set_value(row, v, d, base, kind, keep, err);
                if (r < 0)
                        return r;
                kind = (int)*(enum nightly_source_type *)((char *)base + row->offset);
                seen[i] = true;
        }

        json_object_foreach((json_t *)obj, key, v) {
                g_autofree char *path = schema_join(schema, key), *d = display_join(display, key);
                const struct cfg_row *row = row_find(path);

                if (!row)
                        return error_setf(err, -EINVAL, "%s: unknown key", d);
                if (seen[row - rows])
                        continue;
                if (row->kinds && kind >= 0 && !(row->kinds & (1u << kind)))
                        return error_setf(err, -EINVAL, "%s: not a key of a%s %s source", d,
                                          kind == NIGHTLY_SOURCE_APT ? "n" : "",
                                          nightly_source_type_name((enum nightly_source_type)kind));
                r = set_value(row, v, d, base, kind, keep, err);
                if (r < 0)
                        return r;
                seen[row - rows] = true;
        }

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const struct cfg_row *row = &rows[i];
                g_autofree char *d = NULL;
                json_auto_t *def = NULL;
                char text[32];

                if (seen[i] || !row_in_level(row, schema))
                        continue;
                if (row->kinds && kind >= 0 && !(row->kinds & (1u << kind)))
                        continue;
                d = display_join(display, row_key(row));
                if (row->flags & CFG_REQUIRED)
                        return error_setf(err, -EINVAL, "%s: missing (required)", d);
                if (row->def || row->type == CFG_JUDGE) {
                        def = json_loads(row->def ? row->def : judge_default(row, text, sizeof(text)),
                                         JSON_DECODE_ANY, NULL);
                        assert(def);   /* the tables' own text */
                } else if (row->type == CFG_OBJECT && !(row->flags & CFG_OPTIONAL))
                        def = json_object();
                else
                        continue;      /* optional, stays NULL */
                r = set_value(row, def, d, base, kind, keep, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Each workload spec must parse as kbench run would parse it; its canonical
 * text is what results store, so keep it for matching earlier runs. */
static int check_workloads(struct nightly_config *c, struct kb_error *err) {
        size_t n = g_strv_length(c->workloads);

        c->workload_specs = g_new0(char *, n + 1);
        for (size_t i = 0; i < n; i++) {
                struct workload_spec *spec = NULL;
                struct kb_error e = { { 0 } };
                int r = workload_spec_parse(c->workloads[i], &spec, &e);

                if (r < 0)
                        return error_setf(err, r, "workloads[%zu]: %s", i, e.msg);
                c->workload_specs[i] = g_strdup(spec->text);
                workload_spec_free(spec);
                /* As kbench run refuses it: dd and dd:bs=1M resolve alike,
                 * and would be measured twice as two workloads. */
                for (size_t j = 0; j < i; j++)
                        if (strcmp(c->workload_specs[j], c->workload_specs[i]) == 0)
                                return error_setf(err, -EINVAL, "workloads[%zu]: '%.128s' is the same workload as "
                                                  "workloads[%zu] '%.128s' (%.200s); give each once", i,
                                                  c->workloads[i], j, c->workloads[j], c->workload_specs[i]);
        }
        return 0;
}

static const char *source_where(const struct nightly_source *s) {
        return s->type == NIGHTLY_SOURCE_DIR ? s->path : s->type == NIGHTLY_SOURCE_URL ? s->url : s->pattern;
}

/* Two sources of one type, place and name yield the same kernels under
 * the same names: one would import and measure what the other did. (The
 * same place under two names is two sets of kernels, told apart.) */
static int check_sources(const struct nightly_config *c, struct kb_error *err) {
        for (size_t i = 0; i < c->n_sources; i++)
                for (size_t j = 0; j < i; j++) {
                        const struct nightly_source *a = &c->sources[j], *b = &c->sources[i];

                        if (a->type == b->type && g_strcmp0(source_where(a), source_where(b)) == 0 &&
                            g_strcmp0(a->name, b->name) == 0)
                                return error_setf(err, -EINVAL, "sources[%zu]: the same source as sources[%zu] "
                                                  "('%.128s'%s%.64s); give it once, or a name to each", i, j,
                                                  source_where(b), b->name ? ", name " : "", b->name ? b->name : "");
                }
        return 0;
}

void nightly_config_judge(const struct nightly_config *c, struct judge_opts *ret) {
        judgeopts_defaults(ret);
        ret->alpha = c->alpha;
        ret->noise = c->noise;
        if (c->bisect.metric)
                ret->max_rounds = c->bisect.max_rounds;
        ret->target = c->noise + JUDGEOPTS_NIGHT_TARGET_OVER_NOISE;
}

/* The judging options across fields, as compare, bisect and kbench run
 * check them; a bisection's only when the night bisects. */
static int check_judging(const struct nightly_config *c, struct kb_error *err) {
        struct judge_opts j;

        nightly_config_judge(c, &j);
        return judgeopts_check(&j, &c->run, JUDGEOPTS_CHECK_UNTIL_MDE | (c->bisect.metric ? JUDGEOPTS_CHECK_BISECT : 0),
                               JUDGEOPTS_KEYS, err);
}

int nightly_config_parse(const char *text, size_t len, struct nightly_config **ret,
                         struct kb_error *err) {
        struct nightly_config *c;
        json_error_t jerr;
        json_auto_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        int r;

        /* jansson names its flag for a NUL; no key takes one anyway. */
        if (!root && json_error_code(&jerr) == json_error_null_character)
                return error_setf(err, -EINVAL, "line %d, column %d: a string holds \\u0000 (a NUL character), "
                                  "which no key takes: remove it", jerr.line, jerr.column);
        if (!root)
                return error_setf(err, -EINVAL, "line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
        c = g_new0(struct nightly_config, 1);
        c->keep = g_ptr_array_new_with_free_func(g_free);
        runopts_defaults(&c->run);
        r = walk_object(root, "", "", c, -1, c->keep, err);
        if (r >= 0)
                r = check_workloads(c, err);
        if (r >= 0)
                r = check_sources(c, err);
        for (size_t i = 0; r >= 0 && i < c->n_sources; i++)
                if (c->sources[i].sha256 && !source_url_is_file(c->sources[i].url))
                        r = error_setf(err, -EINVAL, "sources[%zu].sha256: names one file, but url is an index page",
                                       i);
        if (r >= 0)
                r = check_judging(c, err);
        if (r < 0) {
                nightly_config_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

int nightly_config_load(const char *path, struct nightly_config **ret, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = fileio_read(path, NIGHTLY_CONFIG_MAX, &buf, &len, NULL, err);

        if (r < 0)
                return r;
        r = nightly_config_parse(buf, len, ret, err);
        if (r < 0)
                return error_prefix(err, r, "%s", path);
        return 0;
}

static const char *const type_names[] = {
        [CFG_OBJECT] = "object", [CFG_SOURCES] = "array of objects", [CFG_SOURCE_TYPE] = "string",
        [CFG_STRING] = "string", [CFG_INT] = "integer", [CFG_NUMBER] = "number",
        [CFG_DURATION] = "duration",
        [CFG_STRV] = "array of strings", [CFG_RUNOPT_KV] = "object",
};

/* A number of the option's as this file writes it: sizes and durations
 * with their unit. */
static void format_runopt_value(const struct runopt *opt, double v, char *buf, size_t size) {
        if (opt->type == RUNOPT_MIB)
                format_size(v * 1024 * 1024, buf, size);
        else if (opt->type == RUNOPT_SIZE)
                format_size(v, buf, size);
        else if (opt->type == RUNOPT_SECONDS && opt->suffix && v > 0)
                format_duration(v, buf, size);
        else
                snprintf(buf, size, "%g", v);
}

/* A run setting's line: its type, default and range are its option's
 * (a row's own default first). */
static void runopt_key_line(GString *out, const struct cfg_row *r) {
        const struct runopt *opt = runopt_find(r->opt);
        struct run_settings d;
        json_auto_t *saved = json_object();
        const json_t *v;
        char lo[32], hi[32];

        runopts_defaults(&d);
        runopts_save(&d, saved);
        v = json_object_get(saved, opt->key);
        g_string_append_printf(out, "%-30s %-16s", r->path,
                               r->type == CFG_RUNOPT_KV ? type_names[r->type] : runopt_kind(opt));
        if (r->def)
                g_string_append_printf(out, " default %s", r->def);
        else if (json_is_string(v))
                g_string_append_printf(out, " default \"%s\"", json_string_value(v));
        else if (json_is_number(v)) {
                format_runopt_value(opt, json_number_value(v), lo, sizeof(lo));
                g_string_append_printf(out, strpbrk(lo, "KMGTsmhd") ? " default \"%s\"" : " default %s", lo);
        }
        if (opt->min < opt->max) {
                format_runopt_value(opt, opt->min, lo, sizeof(lo));
                format_runopt_value(opt, opt->max, hi, sizeof(hi));
                g_string_append_printf(out, " range %s..%s%s", lo, hi, opt->zero_ok ? " or 0" : "");
        }
        g_string_append_printf(out, "  %s\n", r->help);
}

const char *nightly_config_option_key(const char *option) {
        const struct judgeopt *j = judgeopt_find(option);

        /* A run's hosts are the file's hosts (or its one connect). */
        if (strcmp(option, "connect") == 0)
                return "hosts";
        if (j && j->key)
                return j->key;
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (rows[i].opt && strcmp(rows[i].opt, option) == 0 && !g_str_has_prefix(rows[i].path, "sources[]"))
                        return rows[i].path;
        return option;
}

char *nightly_config_keys_text(void) {
        GString *out = g_string_new("");

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const struct cfg_row *r = &rows[i];
                char lo[32], hi[32];

                if (r->type == CFG_RUNOPT || r->type == CFG_RUNOPT_KV) {
                        runopt_key_line(out, r);
                        continue;
                }
                if (r->type == CFG_JUDGE) {
                        const char *kind;

                        judgeopt_file_terms(judgeopt_find_key(r->path), &kind, lo, hi, sizeof(lo));
                        g_string_append_printf(out, "%-30s %-16s default %s range %s  %s\n", r->path, kind, lo, hi,
                                               r->help);
                        continue;
                }
                g_string_append_printf(out, "%-30s %-16s", r->path, type_names[r->type]);
                if (r->flags & CFG_REQUIRED)
                        g_string_append_printf(out, " required%s", r->kinds ? " for its source type" : "");
                else if (r->def)
                        g_string_append_printf(out, " default %s", r->def);
                if (r->min < r->max) {
                        format_bound(r, r->min, lo, sizeof(lo));
                        format_bound(r, r->max, hi, sizeof(hi));
                        g_string_append_printf(out, " range %s..%s", lo, hi);
                }
                g_string_append_printf(out, "  %s\n", r->help);
        }
        return g_string_free(out, FALSE);
}
