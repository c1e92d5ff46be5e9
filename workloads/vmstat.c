/* vmstat.c: the vmstat dialect parser and the stall analysis (see vmstat.h).
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

/* ---- analysis --------------------------------------------------------- */

int vmstat_sample_counted(int first, double t, double t_from, double t_to) {
        if (first)
                return 0;
        if (!isnan(t_from) && !(t >= t_from))
                return 0;
        if (!isnan(t_to) && !(t <= t_to))
                return 0;
        return 1;
}

static int vmstat_counted(const struct vmstat_table *t, size_t i, double t_from, double t_to) {
        return vmstat_sample_counted(t->samples[i].first, t->samples[i].t, t_from, t_to);
}

int vmstat_summary(const struct vmstat_table *t, int col, double t_from, double t_to,
                   struct vmstat_summary *ret) {
        struct vmstat_summary s = { .mean = NAN, .min = NAN, .max = NAN, .stddev = NAN, .cov = NAN };
        double sum = 0, m2 = 0, mean = 0;

        if (!t || col < 0 || (size_t)col >= t->ncols)
                return -EINVAL;
        for (size_t i = 0; i < t->nsamples; i++) {
                double v = vmstat_table_value(t, i, col);
                if (isnan(v) || !vmstat_counted(t, i, t_from, t_to))
                        continue;
                /* Welford: stable for long captures of large counters. */
                s.n++;
                double d = v - mean;
                mean += d / (double)s.n;
                m2 += d * (v - mean);
                sum += v;
                if (s.n == 1 || v < s.min)
                        s.min = v;
                if (s.n == 1 || v > s.max)
                        s.max = v;
        }
        if (s.n > 0) {
                s.mean = sum / (double)s.n;
                s.stddev = s.n > 1 ? sqrt(m2 / (double)(s.n - 1)) : 0;
                s.cov = s.mean != 0 ? s.stddev / s.mean : NAN;
        }
        *ret = s;
        return 0;
}

struct vmstat_stalls *vmstat_stalls_free(struct vmstat_stalls *s) {
        if (!s)
                return NULL;
        free(s->runs);
        free(s->pauses);
        free(s);
        return NULL;
}

static int run_push(struct vmstat_run **v, size_t *n, size_t *cap, struct vmstat_run r) {
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 16;
                struct vmstat_run *nv = realloc(*v, c * sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = c;
        }
        (*v)[(*n)++] = r;
        return 0;
}

int vmstat_stall_feed(struct vmstat_stall_scan *s, int end, size_t i, double bo, unsigned capture, double threshold,
                      struct vmstat_stall_run *ret_run) {
        int closed = 0;

        /* A run ends at a non-stall sample, a new capture, or the end. */
        if (s->len > 0 && (end || capture != s->capture || bo > threshold)) {
                *ret_run = (struct vmstat_stall_run){ s->first, s->last, s->len };
                s->len = 0;
                closed = 1;
        }
        if (end)
                return closed;
        if (bo <= threshold) {
                if (s->len++ == 0)
                        s->first = i;
                s->last = i;
        }
        s->capture = capture;
        return closed;
}

void vmstat_phase_window(double from, double to, double interval, double *ret_from, double *ret_to) {
        *ret_from = isnan(from) ? NAN : from + interval / 2;
        *ret_to = isnan(to) ? NAN : to + interval / 2;
}

int vmstat_stall_spans(const struct vmstat_stall_sample *s, size_t n, double threshold, double interval,
                       double t_from, double t_to, struct vmstat_stall_span **ret_spans, size_t *ret_n) {
        struct vmstat_stall_scan scan = { 0 };
        struct vmstat_stall_span *v = NULL;
        size_t nv = 0, cap = 0;

        if (!isfinite(threshold) || !isfinite(interval) || interval <= 0)
                return -EINVAL;
        for (size_t i = 0; i <= n; i++) {
                int end = i == n;
                struct vmstat_stall_run run;

                if (!end && (isnan(s[i].bo) || !vmstat_sample_counted(s[i].first, s[i].t, t_from, t_to)))
                        continue;
                if (!vmstat_stall_feed(&scan, end, i, end ? NAN : s[i].bo, end ? 0 : s[i].capture, threshold, &run))
                        continue;
                if (nv == cap) {
                        size_t c = cap ? cap * 2 : 16;
                        struct vmstat_stall_span *nvp = realloc(v, c * sizeof(*nvp));
                        if (!nvp) {
                                free(v);
                                return -ENOMEM;
                        }
                        v = nvp;
                        cap = c;
                }
                v[nv++] = (struct vmstat_stall_span){ run.first, run.last, run.len, (double)run.len * interval };
        }
        *ret_spans = v;
        *ret_n = nv;
        return 0;
}

/* The stall runs of t's bo column in [t_from, t_to] into s->runs. */
static int stalls_runs(const struct vmstat_table *t, int bo, double t_from, double t_to, struct vmstat_stalls *s) {
        struct vmstat_stall_sample *in = malloc((t->nsamples ? t->nsamples : 1) * sizeof(*in));
        struct vmstat_stall_span *spans = NULL;
        size_t n = 0;
        int r;

        if (!in)
                return -ENOMEM;
        for (size_t i = 0; i < t->nsamples; i++)
                in[i] = (struct vmstat_stall_sample){ t->samples[i].t, vmstat_table_value(t, i, bo),
                                                      t->samples[i].first, t->samples[i].capture };
        r = vmstat_stall_spans(in, t->nsamples, s->threshold, s->interval, t_from, t_to, &spans, &n);
        free(in);
        if (r < 0)
                return r;
        s->runs = n ? calloc(n, sizeof(*s->runs)) : NULL;
        if (n && !s->runs) {
                free(spans);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                s->runs[i] = (struct vmstat_run){ spans[i].first, spans[i].len, spans[i].seconds };
                s->total_s += spans[i].seconds;
                if (spans[i].seconds > s->longest_s)
                        s->longest_s = spans[i].seconds;
        }
        s->count = n;
        free(spans);
        return 0;
}

/* The output pauses of t's counted samples with a bo value in [t_from,
 * t_to], and the counts behind the fractions, into s. */
static int stalls_pauses(const struct vmstat_table *t, int bo, double t_from, double t_to, struct vmstat_stalls *s) {
        size_t pcap = 0, stalled = 0, ntimes = 0, prev_t = SIZE_MAX;
        double t_min = NAN, t_max = NAN;

        for (size_t i = 0; i < t->nsamples; i++) {
                double v = vmstat_table_value(t, i, bo), ti;

                if (isnan(v) || !vmstat_counted(t, i, t_from, t_to))
                        continue;
                s->n++;
                if (v <= s->threshold)
                        stalled++;
                ti = t->samples[i].t;
                if (isnan(ti))
                        continue;
                ntimes++;
                if (isnan(t_min) || ti < t_min)
                        t_min = ti;
                if (isnan(t_max) || ti > t_max)
                        t_max = ti;
                if (prev_t != SIZE_MAX && t->samples[prev_t].capture == t->samples[i].capture) {
                        double gap = ti - t->samples[prev_t].t;
                        if (gap > 1.5 * s->interval) {
                                double missing = floor(gap / s->interval + 0.5) - 1;
                                struct vmstat_run pr = { prev_t, missing >= 1 ? (size_t)missing : 1, gap };
                                if (run_push(&s->pauses, &s->pause_count, &pcap, pr) < 0)
                                        return -ENOMEM;
                        }
                }
                prev_t = i;
        }
        s->fraction = s->n ? (double)stalled / (double)s->n : 0;
        s->have_times = ntimes >= 2;
        for (size_t i = 0; i < s->pause_count; i++) {
                s->pause_total_s += s->pauses[i].seconds;
                if (s->pauses[i].seconds > s->pause_longest_s)
                        s->pause_longest_s = s->pauses[i].seconds;
        }
        s->pause_fraction = s->have_times && t_max > t_min ? s->pause_total_s / (t_max - t_min) : 0;
        return 0;
}

int vmstat_stalls(const struct vmstat_table *t, double threshold, double interval, double t_from,
                  double t_to, struct vmstat_stalls **ret) {
        struct vmstat_stalls *s;
        int bo, r;

        if (!t || !isfinite(threshold) || !isfinite(interval) || interval <= 0)
                return -EINVAL;
        bo = vmstat_table_col(t, "bo");
        if (bo < 0)
                return -ENOENT;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->threshold = threshold;
        s->interval = interval;
        r = stalls_runs(t, bo, t_from, t_to, s);
        if (r >= 0)
                r = stalls_pauses(t, bo, t_from, t_to, s);
        if (r < 0) {
                vmstat_stalls_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

/* ---- output ----------------------------------------------------------- */

/* Counters stay integers in JSON; NAN (no value) is null. */
static json_t *num_json(double v) {
        if (isnan(v) || isinf(v))
                return json_null();
        if (v == floor(v) && fabs(v) < 9007199254740992.0)
                return json_integer((json_int_t)v);
        return json_real(v);
}

static int jset(json_t *o, const char *k, json_t *v) {
        return v && json_object_set_new(o, k, v) == 0 ? 0 : -ENOMEM;
}

static json_t *runs_json(const struct vmstat_run *runs, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++) {
                json_t *o = json_object();
                if (!o || jset(o, "start", json_integer((json_int_t)runs[i].start)) < 0 ||
                    jset(o, "length", json_integer((json_int_t)runs[i].length)) < 0 ||
                    jset(o, "seconds", num_json(runs[i].seconds)) < 0 || json_array_append_new(a, o) < 0) {
                        json_decref(o);
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static json_t *stalls_json(const struct vmstat_stalls *s) {
        json_t *o = json_object(), *p = NULL;

        if (!o || jset(o, "threshold", num_json(s->threshold)) < 0 ||
            jset(o, "interval", num_json(s->interval)) < 0 ||
            jset(o, "count", json_integer((json_int_t)s->count)) < 0 ||
            jset(o, "longest_s", num_json(s->longest_s)) < 0 || jset(o, "total_s", num_json(s->total_s)) < 0 ||
            jset(o, "fraction", num_json(s->fraction)) < 0 || jset(o, "runs", runs_json(s->runs, s->count)) < 0)
                goto fail;
        if (s->have_times) {
                p = json_object();
                if (!p || jset(p, "threshold", num_json(1.5 * s->interval)) < 0 ||
                    jset(p, "interval", num_json(s->interval)) < 0 ||
                    jset(p, "count", json_integer((json_int_t)s->pause_count)) < 0 ||
                    jset(p, "longest_s", num_json(s->pause_longest_s)) < 0 ||
                    jset(p, "total_s", num_json(s->pause_total_s)) < 0 ||
                    jset(p, "fraction", num_json(s->pause_fraction)) < 0 ||
                    jset(p, "runs", runs_json(s->pauses, s->pause_count)) < 0 ||
                    jset(o, "pauses", TAKE_PTR(p)) < 0)
                        goto fail;
        }
        return o;
fail:
        json_decref(p);
        json_decref(o);
        return NULL;
}

/* Sample i as {"col": value, ..., "t": ..., "first": true}. Returns a new
 * reference or NULL on -ENOMEM. */
static json_t *sample_json(const struct vmstat_table *t, size_t i) {
        json_t *o = json_object();

        for (size_t c = 0; o && c < t->ncols; c++) {
                double v = t->values[i * t->ncols + c];
                if (!isnan(v) && jset(o, t->cols[c], num_json(v)) < 0)
                        goto fail;
        }
        if (o && !isnan(t->samples[i].t) && jset(o, "t", num_json(t->samples[i].t)) < 0)
                goto fail;
        if (o && t->samples[i].first && jset(o, "first", json_true()) < 0)
                goto fail;
        return o;
fail:
        json_decref(o);
        return NULL;
}

/* The JSON object of vmstat_json(), with its "samples" array only when
 * with_samples. Returns a new reference or NULL on -ENOMEM/-EINVAL. */
static json_t *vmstat_json_build(const struct vmstat_table *t, double threshold, double interval,
                                 int with_samples) {
        json_t *root, *cols, *samples, *summary;
        struct vmstat_stalls *st = NULL;
        int r;

        if (!t)
                return NULL;
        root = json_object();
        cols = json_array();
        samples = json_array();
        summary = json_object();
        if (!root || !cols || !samples || !summary)
                goto fail;
        for (size_t c = 0; c < t->ncols; c++)
                if (json_array_append_new(cols, json_string(t->cols[c])) < 0)
                        goto fail;
        for (size_t i = 0; with_samples && i < t->nsamples; i++)
                if (json_array_append_new(samples, sample_json(t, i)) < 0)
                        goto fail;
        for (size_t c = 0; c < t->ncols; c++) {
                struct vmstat_summary s;
                json_t *o;
                vmstat_summary(t, (int)c, NAN, NAN, &s);
                o = json_object();
                if (!o || json_object_set_new(summary, t->cols[c], o) < 0 ||
                    jset(o, "n", json_integer((json_int_t)s.n)) < 0 || jset(o, "mean", num_json(s.mean)) < 0 ||
                    jset(o, "min", num_json(s.min)) < 0 || jset(o, "max", num_json(s.max)) < 0 ||
                    jset(o, "stddev", num_json(s.stddev)) < 0 || jset(o, "cov", num_json(s.cov)) < 0)
                        goto fail;
        }
        if (jset(root, "columns", TAKE_PTR(cols)) < 0 ||
            (with_samples && jset(root, "samples", TAKE_PTR(samples)) < 0) ||
            jset(root, "rejected", json_integer((json_int_t)t->rejected)) < 0 ||
            jset(root, "dropped", json_integer((json_int_t)t->dropped)) < 0 ||
            jset(root, "summary", TAKE_PTR(summary)) < 0 ||
            jset(root, "note", t->note ? json_string(t->note) : json_null()) < 0)
                goto fail;
        r = vmstat_stalls(t, threshold, interval, NAN, NAN, &st);
        if (r == 0 && !vmstat_table_has_values(t, vmstat_table_col(t, "bo"))) {
                st = vmstat_stalls_free(st);
                r = -ENOENT;
        }
        if (r == -ENOENT) {
                /* No bo values: nothing to call a stall. */
                if (jset(root, "stalls", json_null()) < 0)
                        goto fail;
        } else if (r < 0 || jset(root, "stalls", stalls_json(st)) < 0)
                goto fail;
        vmstat_stalls_free(st);
        json_decref(samples);
        return root;
fail:
        vmstat_stalls_free(st);
        json_decref(cols);
        json_decref(samples);
        json_decref(summary);
        json_decref(root);
        return NULL;
}

json_t *vmstat_json(const struct vmstat_table *t, double threshold, double interval) {
        return vmstat_json_build(t, threshold, interval, 1);
}

int vmstat_json_dumpf(const struct vmstat_table *t, double threshold, double interval, FILE *f) {
        static const char *const keys[] = { "rejected", "dropped", "note", "summary", "stalls" };
        json_t *root = vmstat_json_build(t, threshold, interval, 0);
        int r = -ENOMEM;

        if (!root)
                return -ENOMEM;
        if (fputs("{\n  \"columns\": ", f) < 0 ||
            json_dumpf(json_object_get(root, "columns"), f, JSON_COMPACT | KB_JSON_OUT) < 0 ||
            fputs(",\n  \"samples\": [", f) < 0)
                goto out_io;
        for (size_t i = 0; i < t->nsamples; i++) {
                json_t *o = sample_json(t, i);
                int w;
                if (!o)
                        goto out;
                w = fputs(i ? ",\n    " : "\n    ", f) < 0 || json_dumpf(o, f, JSON_COMPACT | KB_JSON_OUT) < 0;
                json_decref(o);
                if (w)
                        goto out_io;
        }
        if (fputs(t->nsamples ? "\n  ]" : "]", f) < 0)
                goto out_io;
        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                if (fprintf(f, ",\n  \"%s\": ", keys[k]) < 0 ||
                    json_dumpf(json_object_get(root, keys[k]), f, JSON_INDENT(2) | JSON_ENCODE_ANY | KB_JSON_OUT) < 0)
                        goto out_io;
        if (fputs("\n}\n", f) < 0)
                goto out_io;
        r = 0;
        goto out;
out_io:
        r = -EIO;
out:
        json_decref(root);
        return r;
}

static const struct {
        const char *col, *unit;
} metric_cols[] = {
        { "bi", "blocks/s" }, { "bo", "blocks/s" }, { "si", "kB/s" }, { "so", "kB/s" },
        { "us", "%" },        { "sy", "%" },        { "wa", "%" },
};

/* The figures of the agent's vm and disk columns (common/vmstat-columns.h):
 * a level (the mean of the rows), a peak (their max), or a total: rows hold
 * rates per second over their interval, so the count over the window is
 * the sum of rate x the row's interval (vmstat_total), times scale (sectors
 * to MiB). */
enum deep_kind { DEEP_MEAN, DEEP_MAX, DEEP_TOTAL };
static const struct {
        const char *col, *metric, *unit;
        enum deep_kind kind;
        double scale;
} deep_cols[] = {
        { "util", "vmstat.util_pct_mean", "%", DEEP_MEAN, 1 },
        { "util", "vmstat.util_pct_max", "%", DEEP_MAX, 1 },
        { "rd", "vmstat.disk_reads_per_s", "/s", DEEP_MEAN, 1 },
        { "wr", "vmstat.disk_writes_per_s", "/s", DEEP_MEAN, 1 },
        { "rsect", "vmstat.disk_read_MiB", "MiB", DEEP_TOTAL, 512.0 / (1024 * 1024) },
        { "wsect", "vmstat.disk_written_MiB", "MiB", DEEP_TOTAL, 512.0 / (1024 * 1024) },
        { "inflight", "vmstat.inflight_max", "requests", DEEP_MAX, 1 },
        { "nr_dirty", "vmstat.nr_dirty_max", "pages", DEEP_MAX, 1 },
        { "nr_writeback", "vmstat.nr_writeback_max", "pages", DEEP_MAX, 1 },
        { "dirty_thresh", "vmstat.dirty_thresh_mean", "pages", DEEP_MEAN, 1 },
        { "pgscan", "vmstat.pgscan_per_s", "pages/s", DEEP_MEAN, 1 },
        { "pgsteal", "vmstat.pgsteal_per_s", "pages/s", DEEP_MEAN, 1 },
        { "allocstall", "vmstat.allocstall_total", "stalls", DEEP_TOTAL, 1 },
        /* What reclaim did, as amounts (the seeds' swapping during a dd). */
        { "pgscan", "vmstat.pgscan_total", "pages", DEEP_TOTAL, 1 },
        { "si", "vmstat.swap_in_MiB", "MiB", DEEP_TOTAL, 1.0 / 1024 },
        { "so", "vmstat.swap_out_MiB", "MiB", DEEP_TOTAL, 1.0 / 1024 },
};

/* Sum over the counted rows of col of value x the row's interval: the time
 * since the previous row of its capture when both times are known and the
 * gap is within 1.5 x interval (the agent's last row, sent when the job
 * ends, covers less than an interval), else interval (a pause, or no
 * times). */
static double vmstat_total(const struct vmstat_table *t, int col, double interval, double t_from, double t_to) {
        double sum = 0;

        for (size_t i = 0; i < t->nsamples; i++) {
                double v = vmstat_table_value(t, i, col), dt = interval;

                if (isnan(v) || !vmstat_counted(t, i, t_from, t_to))
                        continue;
                if (i > 0 && t->samples[i - 1].capture == t->samples[i].capture) {
                        double gap = t->samples[i].t - t->samples[i - 1].t;
                        if (isfinite(gap) && gap > 0 && gap <= 1.5 * interval)
                                dt = gap;
                }
                sum += v * dt;
        }
        return sum;
}

/* metric_add/metric_add_none under the phase's name: "vmstat.stall_count"
 * becomes "vmstat.<phase>.stall_count"; phase NULL keeps the name. */
static int phase_metric_add(struct metric_list *out, const char *name, const char *phase, int has_value,
                            double value, const char *unit, const char *note) {
        char buf[128];

        if (phase) {
                const char *rest = name + strlen("vmstat.");
                if (snprintf(buf, sizeof(buf), "vmstat.%s.%s", phase, rest) >= (int)sizeof(buf))
                        return -EINVAL;
                name = buf;
        }
        return has_value ? metric_add(out, name, value, unit) : metric_add_none(out, name, unit, note);
}

/* A metric with a number, for a table of them. */
struct named_value {
        const char *name;
        double value;
        const char *unit;
};

static int phase_metrics_add(struct metric_list *out, const char *phase, const struct named_value *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = phase_metric_add(out, v[i].name, phase, 1, v[i].value, v[i].unit, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The stall metrics of a window the samples cannot judge, each without a
 * number and with why. */
static int stall_metrics_none(const struct vmstat_table *t, const char *phase, const char *why_none,
                              struct metric_list *out) {
        static const char *const names[][2] = {
                { "vmstat.stall_count", "runs" }, { "vmstat.stall_longest_s", "s" },
                { "vmstat.stall_total_s", "s" }, { "vmstat.stall_fraction", "ratio" },
        };
        const char *why = why_none ? why_none : vmstat_table_absent_note(t, "bo");

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                int r = phase_metric_add(out, names[i][0], phase, 0, NAN, names[i][1],
                                         why ? why : "no bo column in the vmstat capture");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The stall metrics (for a workload that writes) and the pauses (when the
 * samples carry times). */
static int stall_metrics(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double t_from, double t_to, struct metric_list *out) {
        struct vmstat_stalls *s = NULL;
        const char *why_none = NULL;
        int r;

        r = vmstat_stalls(t, bo_threshold, interval, t_from, t_to, &s);
        if (r == 0 && (!vmstat_table_has_values(t, vmstat_table_col(t, "bo")) || s->n == 0)) {
                /* A bo column the kernel never filled is no column, and a
                 * window no row falls in (a phase shorter than half an
                 * interval) has no samples: "no stall" would be a claim
                 * the samples cannot make. */
                why_none = s->n == 0 && vmstat_table_has_values(t, vmstat_table_col(t, "bo"))
                                   ? "no vmstat sample with a bo value in the window"
                                   : NULL;
                s = vmstat_stalls_free(s);
                r = -ENOENT;
        }
        if (r == -ENOENT)
                return writes ? stall_metrics_none(t, phase, why_none, out) : 0;
        if (r < 0)
                return r;
        {
                const struct named_value stalls[] = {
                        { "vmstat.stall_count", (double)s->count, "runs" },
                        { "vmstat.stall_longest_s", s->longest_s, "s" },
                        { "vmstat.stall_total_s", s->total_s, "s" },
                        { "vmstat.stall_fraction", s->fraction, "ratio" },
                };
                const struct named_value pauses[] = {
                        { "vmstat.pause_count", (double)s->pause_count, "pauses" },
                        { "vmstat.pause_longest_s", s->pause_longest_s, "s" },
                        { "vmstat.pause_total_s", s->pause_total_s, "s" },
                };

                if (writes)
                        r = phase_metrics_add(out, phase, stalls, ELEMENTSOF(stalls));
                if (r >= 0 && s->have_times)
                        r = phase_metrics_add(out, phase, pauses, ELEMENTSOF(pauses));
        }
        vmstat_stalls_free(s);
        return r;
}

/* The levels of metric_cols: a mean, and outside a phase its cov. */
static int level_metrics(const struct vmstat_table *t, const char *phase, double t_from, double t_to,
                         struct metric_list *out) {
        int r;

        for (size_t i = 0; i < ELEMENTSOF(metric_cols); i++) {
                struct vmstat_summary sm;
                char name[64];
                int col = vmstat_table_col(t, metric_cols[i].col);
                const char *why = vmstat_table_absent_note(t, metric_cols[i].col);

                if (why && !vmstat_table_has_values(t, col)) {
                        /* Absent, and the agent said why: say so, with no number. */
                        snprintf(name, sizeof(name), "vmstat.%s_mean", metric_cols[i].col);
                        if ((r = phase_metric_add(out, name, phase, 0, NAN, metric_cols[i].unit, why)) < 0)
                                return r;
                        if (phase)
                                continue;
                        snprintf(name, sizeof(name), "vmstat.%s_cov", metric_cols[i].col);
                        if ((r = phase_metric_add(out, name, phase, 0, NAN, "ratio", why)) < 0)
                                return r;
                        continue;
                }
                if (col < 0 || vmstat_summary(t, col, t_from, t_to, &sm) < 0 || sm.n == 0)
                        continue;
                snprintf(name, sizeof(name), "vmstat.%s_mean", metric_cols[i].col);
                if ((r = phase_metric_add(out, name, phase, 1, sm.mean, metric_cols[i].unit, NULL)) < 0)
                        return r;
                /* A phase keeps levels, not spreads: seven covs per phase
                 * would bury a tiobench cell's figures. */
                if (phase)
                        continue;
                snprintf(name, sizeof(name), "vmstat.%s_cov", metric_cols[i].col);
                r = phase_metric_add(out, name, phase, !isnan(sm.cov), sm.cov, "ratio", "mean is 0");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The writeback, reclaim and disk columns of deep_cols: a mean, a peak or
 * a total each. */
static int deep_metrics(const struct vmstat_table *t, const char *phase, double interval, double t_from,
                        double t_to, struct metric_list *out) {
        int r;

        for (size_t i = 0; i < ELEMENTSOF(deep_cols); i++) {
                struct vmstat_summary sm;
                int col = vmstat_table_col(t, deep_cols[i].col);
                const char *why = vmstat_table_absent_note(t, deep_cols[i].col);
                double v;

                if (why && !vmstat_table_has_values(t, col)) {
                        if ((r = phase_metric_add(out, deep_cols[i].metric, phase, 0, NAN, deep_cols[i].unit,
                                                  why)) < 0)
                                return r;
                        continue;
                }
                /* A capture from before these columns has none: no claim. */
                if (col < 0 || vmstat_summary(t, col, t_from, t_to, &sm) < 0 || sm.n == 0)
                        continue;
                v = deep_cols[i].kind == DEEP_MEAN ? sm.mean
                    : deep_cols[i].kind == DEEP_MAX ? sm.max
                    : vmstat_total(t, col, interval, t_from, t_to) * deep_cols[i].scale;
                if ((r = phase_metric_add(out, deep_cols[i].metric, phase, 1, v, deep_cols[i].unit, NULL)) < 0)
                        return r;
        }
        return 0;
}

static int metrics_named(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double t_from, double t_to, struct metric_list *out) {
        size_t n = 0;
        int r;

        if (!t || !out)
                return -EINVAL;
        for (size_t i = 0; i < t->nsamples; i++)
                n += vmstat_counted(t, i, t_from, t_to);
        r = phase_metric_add(out, "vmstat.samples", phase, 1, (double)n, "samples", NULL);
        if (r >= 0)
                r = stall_metrics(t, phase, writes, bo_threshold, interval, t_from, t_to, out);
        if (r >= 0)
                r = level_metrics(t, phase, t_from, t_to, out);
        if (r >= 0)
                r = deep_metrics(t, phase, interval, t_from, t_to, out);
        return r < 0 ? r : 0;
}

int vmstat_metrics(const struct vmstat_table *t, double bo_threshold, double interval, double t_from,
                   double t_to, struct metric_list *out) {
        return metrics_named(t, NULL, 1, bo_threshold, interval, t_from, t_to, out);
}

int vmstat_phase_metrics(const struct vmstat_table *t, const char *phase, int writes, double bo_threshold,
                         double interval, double from, double to, struct metric_list *out) {
        if (!isfinite(interval) || interval <= 0 || (phase && !vmstat_phase_name_ok(phase)))
                return -EINVAL;
        vmstat_phase_window(from, to, interval, &from, &to);
        return metrics_named(t, phase, writes, bo_threshold, interval, from, to, out);
}

/* ---- phases ----------------------------------------------------------- */

int vmstat_phase_name_ok(const char *name) {
        size_t len = strlen(name);

        if (len == 0 || len >= VMSTAT_PHASE_NAME_MAX || name[0] == '.' || name[len - 1] == '.')
                return 0;
        for (size_t i = 0; i < len; i++)
                if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
                      (name[i] == '.' && name[i + 1] != '.')))
                        return 0;
        return 1;
}

/* Copy a word of an event into buf as a phase name part ('-' becomes '_').
 * Returns 0, or -EINVAL when it is empty, too long or holds other bytes. */
static int phase_word(const char *p, size_t len, char *buf, size_t size) {
        if (len == 0 || len >= size)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                char c = p[i] == '-' ? '_' : p[i];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                        return -EINVAL;
                buf[i] = c;
        }
        buf[len] = '\0';
        return 0;
}

static struct vmstat_phase *phase_find(struct vmstat_phase *v, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i].name, name) == 0)
                        return &v[i];
        return NULL;
}

size_t vmstat_phases_from_events(const char *const *events, const double *t, size_t n, struct vmstat_phase *ret,
                                 size_t max) {
        size_t np = 0;
        struct vmstat_phase *open = NULL;      /* the phase a "phase NAME" event opened */

        for (size_t i = 0; i < n; i++) {
                const char *e = events[i];
                char name[VMSTAT_PHASE_NAME_MAX], arg[VMSTAT_PHASE_NAME_MAX];
                size_t len = strnlen(e, VMSTAT_PHASE_NAME_MAX * 2);

                if (!isfinite(t[i]) || len >= VMSTAT_PHASE_NAME_MAX * 2)
                        continue;
                if (strncmp(e, "phase ", 6) == 0) {
                        const char *w = e + 6, *sp = strchr(w, ' ');
                        size_t wl = sp ? (size_t)(sp - w) : strlen(w);
                        if (phase_word(w, wl, name, sizeof(name)) < 0 ||
                            (sp && (strchr(sp + 1, ' ') || phase_word(sp + 1, strlen(sp + 1), arg, sizeof(arg)) < 0)))
                                continue;
                        if (open && open->to > t[i])
                                open->to = t[i];
                        open = NULL;
                        if (strcmp(name, "end") == 0)
                                continue;
                        if (sp) {
                                size_t nl = strlen(name);
                                if (nl + 1 + strlen(arg) >= sizeof(name))
                                        continue;
                                name[nl] = '.';
                                strcpy(name + nl + 1, arg);
                        }
                        if (np == max || phase_find(ret, np, name))
                                continue;
                        ret[np] = (struct vmstat_phase){ .from = t[i], .to = INFINITY };
                        strcpy(ret[np].name, name);
                        open = &ret[np++];
                        continue;
                }
                /* "NAME-start" ... "NAME-end" */
                const char *dash = strrchr(e, '-');
                if (!dash || dash == e || strchr(e, ' '))
                        continue;
                if (phase_word(e, (size_t)(dash - e), name, sizeof(name)) < 0)
                        continue;
                if (strcmp(dash + 1, "start") == 0) {
                        if (np == max || phase_find(ret, np, name))
                                continue;
                        ret[np] = (struct vmstat_phase){ .from = t[i], .to = INFINITY };
                        strcpy(ret[np].name, name);
                        np++;
                } else if (strcmp(dash + 1, "end") == 0) {
                        struct vmstat_phase *ph = phase_find(ret, np, name);
                        if (ph && ph != open && isinf(ph->to) && t[i] >= ph->from)
                                ph->to = t[i];
                }
        }
        return np;
}

/* A statistic, or "n/a" where there is none (no samples, a mean of 0). */
static void print_num(char *buf, size_t size, int width, int precision, double v) {
        if (isnan(v))
                snprintf(buf, size, "%*s", width, "n/a");
        else
                snprintf(buf, size, "%*.*g", width, precision, v);
}

static void print_runs(FILE *f, const char *what, const struct vmstat_run *runs, size_t n) {
        if (n == 0)
                return;
        fprintf(f, "  %8s %8s %9s\n", "start", what, "seconds");
        for (size_t i = 0; i < n; i++)
                fprintf(f, "  %8zu %8zu %9.6g\n", runs[i].start, runs[i].length, runs[i].seconds);
}

int vmstat_print(const struct vmstat_table *t, double threshold, double interval, FILE *f) {
        struct vmstat_stalls *s = NULL;
        int r;

        fputs("columns:", f);
        for (size_t c = 0; c < t->ncols; c++)
                fprintf(f, " %s", t->cols[c]);
        fprintf(f, "\nsamples: %zu  rejected: %zu  captures: %u", t->nsamples, t->rejected, t->ncaptures);
        if (t->dropped)
                fprintf(f, "  dropped past the %u-value bound: %zu", VMSTAT_VALUES_MAX, t->dropped);
        if (t->skipped)
                fprintf(f, "  skipped first rows: %zu", t->skipped);
        if (t->note)
                fprintf(f, "\nnote: %s", t->note);
        fprintf(f, "\n\n%-10s %8s %12s %12s %12s %12s %8s\n", "column", "n", "mean", "min", "max", "stddev",
                "cov");
        for (size_t c = 0; c < t->ncols; c++) {
                struct vmstat_summary sm;
                char v[5][24];
                vmstat_summary(t, (int)c, NAN, NAN, &sm);
                print_num(v[0], sizeof(v[0]), 12, 6, sm.mean);
                print_num(v[1], sizeof(v[1]), 12, 6, sm.min);
                print_num(v[2], sizeof(v[2]), 12, 6, sm.max);
                print_num(v[3], sizeof(v[3]), 12, 6, sm.stddev);
                print_num(v[4], sizeof(v[4]), 8, 3, sm.cov);
                fprintf(f, "%-10s %8zu %12s %12s %12s %12s %8s\n", t->cols[c], sm.n, v[0], v[1], v[2], v[3], v[4]);
        }
        r = vmstat_stalls(t, threshold, interval, NAN, NAN, &s);
        if (r == 0 && !vmstat_table_has_values(t, vmstat_table_col(t, "bo"))) {
                s = vmstat_stalls_free(s);
                r = -ENOENT;
        }
        if (r == -ENOENT) {
                fputs("\nstalls: no bo values\n", f);
                return 0;
        }
        if (r < 0)
                return r;
        fprintf(f, "\nstalls (bo <= %g, interval %g s): %zu runs, longest %g s, total %g s, %.1f%% of %zu samples\n",
                s->threshold, s->interval, s->count, s->longest_s, s->total_s, 100.0 * s->fraction, s->n);
        print_runs(f, "length", s->runs, s->count);
        if (s->have_times) {
                fprintf(f, "\npauses (gap > %g s): %zu, longest %g s, total %g s, %.1f%% of the time\n",
                        1.5 * s->interval, s->pause_count, s->pause_longest_s, s->pause_total_s,
                        100.0 * s->pause_fraction);
                print_runs(f, "missed", s->pauses, s->pause_count);
        }
        vmstat_stalls_free(s);
        return 0;
}
