/* vmstat.c: the vmstat dialect parser (see vmstat.h).
 * Rows are only ever read through the most recent column-name header, so a
 * new dialect needs no code as long as its header names its columns; what is
 * not a header, a group line or a row that matches its header field for field
 * is rejected and counted, never partly used. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "common/vmstat-columns.h"
#include "workloads/vmstat.h"

#define TOKEN_MAX 40              /* longest token considered; longer ones fail every rule */
#define NOTE_MAX 4096             /* bound on the joined absent-column notes of one table */
#define NOTE_PREFIX "absent "     /* "# absent COL...: why", the agent's vmstat-note */

/* Column names of every known dialect: a names line must be mostly these. */
static const char *const known_cols[] = {
        "r", "b", "w", "swpd", "free", "buff", "cache", "inact", "active", "si", "so",
        "bi", "bo", "in", "cs", "us", "sy", "id", "wa", "st", "gu", "dirty", "writeback",
        /* kbench's agent: /proc/vmstat's writeback and reclaim figures, the disk under test */
        "nr_dirty", "nr_writeback", "dirty_thresh", "bg_thresh", "pgscan", "pgsteal", "allocstall",
        "rd", "wr", "rsect", "wsect", "inflight", "util",
};
/* A names line holds at least one of these adjacent pairs, as every vmstat
 * (or a hand cut of one) prints them, so prose made of words like "so in us"
 * is not taken for a header. */
static const char *const anchor_pairs[][2] = {
        { "r", "b" },       { "swpd", "free" }, { "free", "buff" },    { "buff", "cache" },
        { "free", "inact" }, { "inact", "active" }, { "si", "so" },  { "bi", "bo" },
        { "in", "cs" },     { "us", "sy" },     { "sy", "id" },        { "id", "wa" },
        { "wa", "st" },     { "dirty", "writeback" }, { "pgscan", "pgsteal" }, { "rsect", "wsect" },
};
static const char *const group_words[] = {
        "procs", "memory", "swap", "io", "system", "cpu", "timestamp", "kbench", "vm", "disk",
};

struct header {
        size_t n;                  /* columns named */
        int idx[VMSTAT_COLS_MAX];  /* table column of each */
        int tz;                    /* 1: -t header, rows end with "YYYY-MM-DD HH:MM:SS" */
};

struct vmstat_parser {
        struct vmstat_table *t;
        size_t cap;                /* allocated samples */
        struct header h;           /* current header; h.n == 0: none yet */
        int have_header;
        int last_was_row;          /* the previous non-blank line was a row of h */
        int capture_fresh;         /* no row seen yet in the current capture */
        int skip_first;
        char partial[VMSTAT_LINE_MAX + 1];
        size_t partial_len;
        int partial_overflow;      /* the pending line is already too long: reject it at EOL */
};

struct tokens {
        size_t n;
        const char *s[VMSTAT_COLS_MAX + 3];
        size_t len[VMSTAT_COLS_MAX + 3];
};

static int in_list(const char *s, size_t len, const char *const *list, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
                        return 1;
        return 0;
}

/* Split on blanks. Returns 0, or -1 if there are too many tokens or a control
 * byte (NUL included) that is not a blank. */
static int vmstat_tokenize(const char *line, size_t len, struct tokens *tk) {
        size_t i = 0;

        tk->n = 0;
        while (i < len) {
                unsigned char c = (unsigned char)line[i];
                if (c == ' ' || c == '\t') {
                        i++;
                        continue;
                }
                size_t start = i;
                while (i < len && line[i] != ' ' && line[i] != '\t') {
                        c = (unsigned char)line[i];
                        if (c < 0x20 || c == 0x7f)
                                return -1;
                        i++;
                }
                if (tk->n == ELEMENTSOF(tk->s))
                        return -1;
                tk->s[tk->n] = line + start;
                tk->len[tk->n] = i - start;
                tk->n++;
        }
        return 0;
}

static int is_lower_ident(const char *s, size_t len) {
        if (len == 0 || len > TOKEN_MAX || s[0] < 'a' || s[0] > 'z')
                return 0;
        for (size_t i = 1; i < len; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                        return 0;
        return 1;
}

/* A -t header ends in the zone strftime("%Z") printed: "UTC", "CEST", "+03". */
static int is_tz_name(const char *s, size_t len) {
        int upper = 0;

        if (len == 0 || len > 16)
                return 0;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c >= 'A' && c <= 'Z')
                        upper = 1;
                else if (c == '+' || c == '-')
                        upper = upper || i == 0;
                else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '/'))
                        return 0;
        }
        return upper;
}

/* "procs -----memory----- ---swap-- ..." or "procs memory swap io system cpu". */
static int is_group_line(const struct tokens *tk) {
        size_t known = 0;

        if (tk->n < 2)
                return 0;
        for (size_t i = 0; i < tk->n; i++) {
                const char *s = tk->s[i];
                size_t a = 0, b = tk->len[i];
                while (a < b && s[a] == '-')
                        a++;
                while (b > a && s[b - 1] == '-')
                        b--;
                if (a == b || b - a > TOKEN_MAX)
                        return 0;
                for (size_t j = a; j < b; j++)
                        if (!((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
                                return 0;
                known += in_list(s + a, b - a, group_words, ELEMENTSOF(group_words));
        }
        return known >= 2 && known * 2 >= tk->n;
}

/* A names line: lower-case identifiers, no duplicates, at least three (and
 * half) of them known vmstat columns, two adjacent as vmstat prints them; optionally a trailing
 * time zone (-t). Returns the number of column tokens, or 0. OUT: *ret_tz. */
static size_t header_columns(const struct tokens *tk, int *ret_tz) {
        size_t n = tk->n, known = 0;
        int tz = 0, anchor = 0;

        if (n >= 1 && !is_lower_ident(tk->s[n - 1], tk->len[n - 1]) &&
            is_tz_name(tk->s[n - 1], tk->len[n - 1])) {
                tz = 1;
                n--;
        }
        if (n < 3 || n > VMSTAT_COLS_MAX)
                return 0;
        for (size_t i = 0; i < n; i++) {
                if (!is_lower_ident(tk->s[i], tk->len[i]))
                        return 0;
                for (size_t j = 0; j < i; j++)
                        if (tk->len[j] == tk->len[i] && memcmp(tk->s[j], tk->s[i], tk->len[i]) == 0)
                                return 0;
                known += in_list(tk->s[i], tk->len[i], known_cols, ELEMENTSOF(known_cols));
                for (size_t a = 0; i > 0 && a < ELEMENTSOF(anchor_pairs); a++)
                        if (in_list(tk->s[i - 1], tk->len[i - 1], anchor_pairs[a], 1) &&
                            in_list(tk->s[i], tk->len[i], anchor_pairs[a] + 1, 1))
                                anchor = 1;
        }
        if (known < 3 || known * 2 < n || !anchor)
                return 0;
        *ret_tz = tz;
        return n;
}

/* A number as vmstat prints it: [-]digits[.digits]; or "-", a value the
 * kernel did not provide (kbench's agent), which is NAN. */
static int parse_number(const char *s, size_t len, double *ret) {
        char buf[TOKEN_MAX + 1];
        size_t i = 0, digits = 0;

        if (len == 0 || len > TOKEN_MAX)
                return -EINVAL;
        if (len == 1 && s[0] == '-') {
                *ret = NAN;
                return 0;
        }
        if (s[0] == '-')
                i++;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
                digits++;
        if (i < len && s[i] == '.') {
                size_t frac = 0;
                for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
                        frac++;
                if (frac == 0)
                        return -EINVAL;
        }
        if (i != len || digits == 0)
                return -EINVAL;
        memcpy(buf, s, len);
        buf[len] = '\0';
        *ret = strtod(buf, NULL);
        /* -7 blocks in, 10^23 blocks out: no counter reads so. */
        return isfinite(*ret) && *ret >= 0 && *ret <= VMSTAT_VALUE_MAX ? 0 : -ERANGE;
}

static int parse_fixed(const char *s, size_t n, int *ret) {
        int v = 0;

        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (s[i] - '0');
        }
        *ret = v;
        return 0;
}

/* "2026-11-30" "20:02:41" -> seconds since the epoch, the wall clock read as UTC. */
static int parse_timestamp(const char *d, size_t dlen, const char *c, size_t clen, double *ret) {
        int y, mo, da, h, mi, se;
        struct tm tm = { 0 };
        time_t tt;

        if (dlen != 10 || clen != 8 || d[4] != '-' || d[7] != '-' || c[2] != ':' || c[5] != ':')
                return -EINVAL;
        if (parse_fixed(d, 4, &y) < 0 || parse_fixed(d + 5, 2, &mo) < 0 || parse_fixed(d + 8, 2, &da) < 0 ||
            parse_fixed(c, 2, &h) < 0 || parse_fixed(c + 3, 2, &mi) < 0 || parse_fixed(c + 6, 2, &se) < 0)
                return -EINVAL;
        if (mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || se > 60)
                return -EINVAL;
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = da;
        tm.tm_hour = h;
        tm.tm_min = mi;
        tm.tm_sec = se;
        tt = timegm(&tm);
        if (tt == (time_t)-1)
                return -EINVAL;
        *ret = (double)tt;
        return 0;
}

struct vmstat_parser *vmstat_parser_new(void) {
        struct vmstat_parser *p = calloc(1, sizeof(*p));

        if (!p)
                return NULL;
        p->t = calloc(1, sizeof(*p->t));
        if (!p->t) {
                free(p);
                return NULL;
        }
        return p;
}

struct vmstat_table *vmstat_table_free(struct vmstat_table *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->ncols; i++)
                free(t->cols[i]);
        free(t->cols);
        free(t->samples);
        free(t->values);
        free(t->tz);
        free(t->note);
        free(t);
        return NULL;
}

struct vmstat_parser *vmstat_parser_free(struct vmstat_parser *p) {
        if (!p)
                return NULL;
        vmstat_table_free(p->t);
        free(p);
        return NULL;
}

void vmstat_parser_set_skip_first(struct vmstat_parser *p, int skip) {
        p->skip_first = !!skip;
}

int vmstat_table_col(const struct vmstat_table *t, const char *name) {
        if (!t || !name)
                return -1;
        for (size_t i = 0; i < t->ncols; i++)
                if (strcmp(t->cols[i], name) == 0)
                        return (int)i;
        return -1;
}

const char *vmstat_table_absent_note(const struct vmstat_table *t, const char *name) {
        const char *p, *end;
        size_t n;

        if (!t || !name || !t->note)
                return NULL;
        n = strlen(name);
        /* Each note is "absent COL...: why", joined by "; ". */
        for (p = t->note; (p = strstr(p, NOTE_PREFIX)) != NULL; p = end) {
                p += strlen(NOTE_PREFIX);
                end = strchr(p, ':');
                if (!end)
                        break;
                for (const char *w = p; w < end;) {
                        size_t wl = strcspn(w, " :");
                        if (wl == n && memcmp(w, name, n) == 0)
                                return t->note;
                        w += wl;
                        w += strspn(w, " ");
                }
        }
        return NULL;
}

int vmstat_table_has_values(const struct vmstat_table *t, int col) {
        for (size_t i = 0; t && col >= 0 && (size_t)col < t->ncols && i < t->nsamples; i++)
                if (!isnan(t->values[i * t->ncols + (size_t)col]))
                        return 1;
        return 0;
}

double vmstat_table_value(const struct vmstat_table *t, size_t i, int col) {
        if (!t || col < 0 || (size_t)col >= t->ncols || i >= t->nsamples)
                return NAN;
        return t->values[i * t->ncols + (size_t)col];
}

/* Widen t's value matrix to ncols_new columns, filling NAN; the allocation
 * (*cap samples) stays within VMSTAT_VALUES_MAX values. */
static int table_restride(struct vmstat_table *t, size_t *cap_io, size_t ncols_new) {
        size_t cap = *cap_io;
        double *v;

        if (t->nsamples * ncols_new > VMSTAT_VALUES_MAX)
                return -E2BIG;
        if (cap * ncols_new > VMSTAT_VALUES_MAX)
                cap = VMSTAT_VALUES_MAX / ncols_new;
        if (cap == 0)
                return 0;
        v = malloc(cap * ncols_new * sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < t->nsamples; i++) {
                for (size_t c = 0; c < ncols_new; c++)
                        v[i * ncols_new + c] = c < t->ncols ? t->values[i * t->ncols + c] : NAN;
        }
        free(t->values);
        t->values = v;
        *cap_io = cap;
        return 0;
}

/* Make h the current header, adding new names to the table. */
static int vmstat_set_header(struct vmstat_parser *p, const struct tokens *tk, size_t n, int tz) {
        struct vmstat_table *t = p->t;
        struct header h = { .n = n, .tz = tz };
        size_t ncols = t->ncols, added = 0;
        char *names[VMSTAT_COLS_MAX];
        int r;

        for (size_t i = 0; i < n; i++) {
                int found = -1;
                for (size_t c = 0; c < t->ncols; c++)
                        if (strlen(t->cols[c]) == tk->len[i] && memcmp(t->cols[c], tk->s[i], tk->len[i]) == 0)
                                found = (int)c;
                if (found < 0) {
                        if (ncols + added >= VMSTAT_COLS_MAX) {
                                r = -E2BIG;
                                goto fail;
                        }
                        names[added] = strndup(tk->s[i], tk->len[i]);
                        if (!names[added]) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        found = (int)(ncols + added);
                        added++;
                }
                h.idx[i] = found;
        }
        if (added > 0) {
                char **cols = realloc(t->cols, (ncols + added) * sizeof(*cols));
                if (!cols) {
                        r = -ENOMEM;
                        goto fail;
                }
                t->cols = cols;
                r = table_restride(t, &p->cap, ncols + added);
                if (r < 0)
                        goto fail;
                for (size_t i = 0; i < added; i++)
                        t->cols[ncols + i] = names[i];
                t->ncols = ncols + added;
        }
        if (tz) {
                char *z = strndup(tk->s[tk->n - 1], tk->len[tk->n - 1]);
                if (!z)
                        return -ENOMEM;
                free(t->tz);
                t->tz = z;
        }
        /* vmstat repeats its header every screenful: the same header right
         * after its own rows continues the capture. */
        if (!(p->have_header && p->last_was_row && p->h.n == h.n && p->h.tz == h.tz &&
              memcmp(p->h.idx, h.idx, n * sizeof(h.idx[0])) == 0)) {
                t->ncaptures++;
                p->capture_fresh = 1;
        }
        p->h = h;
        p->have_header = 1;
        return 0;
fail:
        for (size_t i = 0; i < added; i++)
                free(names[i]);
        return r;
}

/* Append a sample to t (room for *cap samples, grown as needed) with
 * every value NAN, in capture t->ncaptures - 1. OUT: *ret_row, its
 * t->ncols values to fill. Returns 0, -E2BIG (past VMSTAT_VALUES_MAX),
 * -ENOMEM. */
static int table_new_row(struct vmstat_table *t, size_t *cap_io, double t_s, int first, double **ret_row) {
        size_t nc = t->ncols ? t->ncols : 1;

        if ((t->nsamples + 1) * nc > VMSTAT_VALUES_MAX)
                return -E2BIG;
        if (t->nsamples == *cap_io) {
                size_t cap = *cap_io ? *cap_io * 2 : 64;
                struct vmstat_sample *s;
                double *v;

                if (cap * nc > VMSTAT_VALUES_MAX)
                        cap = VMSTAT_VALUES_MAX / nc;
                s = realloc(t->samples, cap * sizeof(*s));
                if (!s)
                        return -ENOMEM;
                t->samples = s;
                v = realloc(t->values, cap * nc * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                t->values = v;
                *cap_io = cap;
        }
        for (size_t c = 0; c < t->ncols; c++)
                t->values[t->nsamples * t->ncols + c] = NAN;
        t->samples[t->nsamples] = (struct vmstat_sample){
                .t = t_s, .first = !!first, .capture = t->ncaptures ? t->ncaptures - 1 : 0,
        };
        *ret_row = t->values + t->nsamples * t->ncols;
        t->nsamples++;
        return 0;
}

static int vmstat_add_row(struct vmstat_parser *p, const double *vals, double t_s, int first) {
        double *row;
        int r = table_new_row(p->t, &p->cap, t_s, first, &row);

        if (r < 0)
                return r;
        for (size_t i = 0; i < p->h.n; i++)
                row[p->h.idx[i]] = vals[i];
        return 0;
}

/* Keep an "absent COL...: why" note. It ends up in JSON and on terminals,
 * so only printable ASCII is kept; other notes, and notes past NOTE_MAX,
 * are counted as rejected. */
static int table_add_note(struct vmstat_table *t, const char *s, size_t len) {
        size_t have = t->note ? strlen(t->note) : 0, need = have + (have ? 2 : 0) + len + 1;
        char *n;

        for (size_t i = 0; i < len; i++)
                if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) {
                        t->rejected++;
                        return 0;
                }
        if (need > NOTE_MAX) {
                t->rejected++;
                return 0;
        }
        n = realloc(t->note, need);
        if (!n) {
                t->rejected++;
                return -ENOMEM;
        }
        if (have)
                memcpy(n + have, "; ", 2), have += 2;
        memcpy(n + have, s, len);
        n[have + len] = '\0';
        t->note = n;
        return 0;
}

/* Line ends and serial padding are not content. */
static void line_trim(const char **line, size_t *len) {
        while (*len > 0 && ((*line)[*len - 1] == '\n' || (*line)[*len - 1] == '\r' || (*line)[*len - 1] == '\0'))
                (*len)--;
        while (*len > 0 && (*line)[0] == '\0') {
                (*line)++;
                (*len)--;
        }
}

int vmstat_parser_feed(struct vmstat_parser *p, const char *line, size_t len, double t, int first) {
        struct tokens tk;
        double vals[VMSTAT_COLS_MAX];
        size_t n;
        int tz = 0, r;

        line_trim(&line, &len);
        if (len > VMSTAT_LINE_MAX || vmstat_tokenize(line, len, &tk) < 0)
                goto reject;
        if (tk.n == 0)
                return 0;
        if (len > 2 + strlen(NOTE_PREFIX) && memcmp(line, "# " NOTE_PREFIX, 2 + strlen(NOTE_PREFIX)) == 0 &&
            memchr(line, ':', len))
                return table_add_note(p->t, line + 2, len - 2);
        n = header_columns(&tk, &tz);
        if (n > 0) {
                r = vmstat_set_header(p, &tk, n, tz);
                if (r < 0) {
                        /* A header we cannot hold: its rows must not be read
                         * through the previous one. */
                        p->have_header = 0;
                        p->last_was_row = 0;
                        p->t->rejected++;
                        return r == -ENOMEM ? r : 0;
                }
                p->last_was_row = 0;
                return 0;
        }
        if (is_group_line(&tk))
                return 0;
        if (!p->have_header || tk.n != p->h.n + (p->h.tz ? 2 : 0))
                goto reject;
        for (size_t i = 0; i < p->h.n; i++)
                if (parse_number(tk.s[i], tk.len[i], &vals[i]) < 0)
                        goto reject;
        if (p->h.tz) {
                double ts;
                if (parse_timestamp(tk.s[p->h.n], tk.len[p->h.n], tk.s[p->h.n + 1], tk.len[p->h.n + 1],
                                    &ts) < 0)
                        goto reject;
                if (isnan(t))
                        t = ts;
        }
        p->last_was_row = 1;
        if (p->capture_fresh) {
                p->capture_fresh = 0;
                if (p->skip_first && !first) {
                        p->t->skipped++;
                        return 0;
                }
        }
        r = vmstat_add_row(p, vals, t, first);
        if (r < 0) {
                /* A good row past the memory bound is not garbage: count it apart. */
                if (r == -E2BIG)
                        p->t->dropped++;
                else
                        p->t->rejected++;
                p->last_was_row = 0;
                return r == -ENOMEM ? r : 0;
        }
        return 1;
reject:
        p->t->rejected++;
        p->last_was_row = 0;
        return 0;
}

static int vmstat_flush_partial(struct vmstat_parser *p) {
        int r = 0;

        if (p->partial_overflow)
                p->t->rejected++;
        else if (p->partial_len > 0)
                r = vmstat_parser_feed(p, p->partial, p->partial_len, NAN, 0);
        p->partial_len = 0;
        p->partial_overflow = 0;
        return r;
}

int vmstat_parser_feed_bytes(struct vmstat_parser *p, const void *buf, size_t len) {
        const char *s = buf;
        int added = 0;

        for (size_t i = 0; i < len;) {
                const char *eol = NULL;
                size_t n;

                for (size_t j = i; j < len; j++)
                        if (s[j] == '\n' || s[j] == '\r') {
                                eol = s + j;
                                break;
                        }
                n = (eol ? (size_t)(eol - s) : len) - i;
                if (!p->partial_overflow) {
                        if (p->partial_len + n > VMSTAT_LINE_MAX)
                                p->partial_overflow = 1;
                        else {
                                memcpy(p->partial + p->partial_len, s + i, n);
                                p->partial_len += n;
                        }
                }
                if (!eol)
                        break;
                int r = vmstat_flush_partial(p);
                if (r < 0)
                        return r;
                added += r;
                i = (size_t)(eol - s) + 1;
        }
        return added;
}

struct vmstat_table *vmstat_parser_finish(struct vmstat_parser *p) {
        struct vmstat_table *t;

        if (!p)
                return NULL;
        if (vmstat_flush_partial(p) < 0) {
                vmstat_parser_free(p);
                return NULL;
        }
        t = TAKE_PTR(p->t);
        free(p);
        return t;
}

int vmstat_parse_text(const void *buf, size_t len, int skip_first, struct vmstat_table **ret_table) {
        struct vmstat_parser *p = vmstat_parser_new();
        struct vmstat_table *t;

        if (!p)
                return -ENOMEM;
        vmstat_parser_set_skip_first(p, skip_first);
        if (vmstat_parser_feed_bytes(p, buf, len) < 0) {
                vmstat_parser_free(p);
                return -ENOMEM;
        }
        t = vmstat_parser_finish(p);
        if (!t)
                return -ENOMEM;
        *ret_table = t;
        return 0;
}

/* ---- the kbench agent's records ---------------------------------------- */

static const char *const agent_cols[KB_VM_NCOLS] = {
#define X(name, width, group) #name,
        KB_VMSTAT_COLUMNS(X)
#undef X
};

struct vmstat_agent {
        struct vmstat_table *t;    /* column c is agent_cols[c], c < t->ncols */
        size_t cap;                /* allocated samples */
        size_t ncols;              /* the current header's columns; 0: none yet */
        int last_was_row;          /* the previous record was a row of the current header */
        char why[160];             /* the first rejected record's reason, "" if none */
};

struct vmstat_agent *vmstat_agent_new(void) {
        struct vmstat_agent *a = calloc(1, sizeof(*a));

        if (!a)
                return NULL;
        a->t = calloc(1, sizeof(*a->t));
        if (!a->t) {
                free(a);
                return NULL;
        }
        return a;
}

struct vmstat_agent *vmstat_agent_free(struct vmstat_agent *a) {
        if (!a)
                return NULL;
        vmstat_table_free(a->t);
        free(a);
        return NULL;
}

/* Count a rejected record and keep the first reason. Returns -EINVAL. */
static int agent_reject(struct vmstat_agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int agent_reject(struct vmstat_agent *a, const char *fmt, ...) {
        va_list ap;

        a->t->rejected++;
        a->last_was_row = 0;
        if (a->why[0])
                return -EINVAL;
        va_start(ap, fmt);
        vsnprintf(a->why, sizeof(a->why), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* The names header: the first n >= 3 columns of common/vmstat-columns.h in
 * their order (an older agent printed fewer; the list only grows at its
 * end). Widens the table to n columns when it had fewer, and starts a new
 * capture unless it repeats the current header right after its rows. */
static int agent_header(struct vmstat_agent *a, const struct tokens *tk) {
        struct vmstat_table *t = a->t;
        size_t n = tk->n;
        int r;

        if (n < 3 || n > KB_VM_NCOLS)
                return agent_reject(a, "vmstat header of %zu columns, not 3 to %d", n, KB_VM_NCOLS);
        for (size_t i = 0; i < n; i++)
                if (strlen(agent_cols[i]) != tk->len[i] || memcmp(agent_cols[i], tk->s[i], tk->len[i]) != 0)
                        return agent_reject(a, "vmstat header column %zu is '%.*s', not '%s' of "
                                            "common/vmstat-columns.h", i + 1, (int)(tk->len[i] < 32 ? tk->len[i] : 32),
                                            tk->s[i], agent_cols[i]);
        if (n > t->ncols) {
                char **cols = realloc(t->cols, n * sizeof(*cols));
                if (!cols)
                        return -ENOMEM;
                t->cols = cols;
                r = table_restride(t, &a->cap, n);
                if (r < 0)
                        return r == -E2BIG ? agent_reject(a, "vmstat header past the bound of %u values",
                                                          VMSTAT_VALUES_MAX) : r;
                for (size_t c = t->ncols; c < n; c++) {
                        t->cols[c] = strdup(agent_cols[c]);
                        if (!t->cols[c])
                                return -ENOMEM;
                        t->ncols = c + 1;
                }
        }
        if (!(a->ncols == n && a->last_was_row))
                t->ncaptures++;
        a->ncols = n;
        a->last_was_row = 0;
        return 0;
}

/* A row of the current header: exactly its columns, each a number or "-"
 * (a value the guest's kernel does not provide: NAN); value i is column
 * i of common/vmstat-columns.h. */
static int agent_row(struct vmstat_agent *a, const struct tokens *tk, double t_s, int first) {
        double *row, v[KB_VM_NCOLS];
        int r;

        if (a->ncols == 0)
                return agent_reject(a, "vmstat row before any header");
        if (tk->n != a->ncols)
                return agent_reject(a, "vmstat row of %zu fields under a header of %zu columns", tk->n, a->ncols);
        for (size_t i = 0; i < tk->n; i++)
                if (parse_number(tk->s[i], tk->len[i], &v[i]) < 0)
                        return agent_reject(a, "vmstat row field %zu ('%s') is not a number from 0 to 2^53",
                                            i + 1, agent_cols[i]);
        r = table_new_row(a->t, &a->cap, t_s, first, &row);
        if (r == -E2BIG) {
                /* A good row past the memory bound is not garbage: count it apart. */
                a->t->dropped++;
                a->last_was_row = 0;
                return 0;
        }
        if (r < 0)
                return r;
        memcpy(row, v, tk->n * sizeof(*v));
        a->last_was_row = 1;
        return 1;
}

int vmstat_agent_feed(struct vmstat_agent *a, const char *type, const char *text, size_t len, double t) {
        struct tokens tk;

        line_trim(&text, &len);
        if (strcmp(type, "vmstat-note") == 0) {
                /* "# absent COL...: why": as the text parser keeps it */
                if (len > 2 + strlen(NOTE_PREFIX) && memcmp(text, "# " NOTE_PREFIX, 2 + strlen(NOTE_PREFIX)) == 0 &&
                    memchr(text, ':', len))
                        return table_add_note(a->t, text + 2, len - 2) < 0 ? -ENOMEM : 0;
                return agent_reject(a, "vmstat-note that is not \"# absent COL...: why\"");
        }
        if (len > VMSTAT_LINE_MAX || vmstat_tokenize(text, len, &tk) < 0)
                return agent_reject(a, "%s record longer than %u bytes or with control bytes", type,
                                    VMSTAT_LINE_MAX);
        if (tk.n == 0)
                return 0;
        if (strcmp(type, "vmstat-header") == 0)
                return is_group_line(&tk) ? 0 : agent_header(a, &tk);
        if (strcmp(type, "vmstat") == 0 || strcmp(type, "vmstat-boot") == 0)
                return agent_row(a, &tk, t, strcmp(type, "vmstat-boot") == 0);
        return agent_reject(a, "record type '%.16s' is not a vmstat record", type);
}

const char *vmstat_agent_why(const struct vmstat_agent *a) {
        return a->why[0] ? a->why : NULL;
}

struct vmstat_table *vmstat_agent_finish(struct vmstat_agent *a) {
        struct vmstat_table *t;

        if (!a)
                return NULL;
        t = a->t;
        free(a);
        return t;
}
