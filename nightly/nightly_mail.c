/* nightly_mail.c: the regression report's mail header and its threads
 * across nights (see nightly_mail.h). */
#include <glib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "nightly/nightly_mail.h"

#define ENCODED_WORD_MAX 75        /* RFC 2047 2: an encoded word's characters, at most */

/* text as one line: invalid UTF-8 replaced, every control character (C0
 * with CR and LF, DEL, C1) a blank. Caller g_frees. */
static char *one_line(const char *text) {
        g_autofree char *valid = g_utf8_make_valid(text ? text : "", -1);
        GString *out = g_string_sized_new(strlen(valid));

        for (const char *p = valid; *p; p = g_utf8_next_char(p)) {
                gunichar c = g_utf8_get_char(p);

                if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
                        g_string_append_c(out, ' ');
                else
                        g_string_append_unichar(out, c);
        }
        return g_string_free(out, FALSE);
}

char *nightly_mail_address(const char *text) {
        return one_line(text);
}

/* domain as a host name: letters, digits, '-' and '.'. Caller g_frees. */
static char *host_name(const char *domain) {
        GString *out = g_string_new(NULL);

        for (const char *p = domain ? domain : ""; *p && out->len < 253; p++)
                if (g_ascii_isalnum(*p) || *p == '-' || *p == '.')
                        g_string_append_c(out, *p);
        if (!out->len)
                g_string_append(out, "localhost");
        return g_string_free(out, FALSE);
}

char *nightly_mail_id(const char *subject, const char *baseline, const char *metric, double night_at,
                      const char *domain) {
        g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
        g_autofree char *host = host_name(domain);
        time_t t = isfinite(night_at) && night_at > 0 ? (time_t)night_at : 0;
        char when[32];
        struct tm tm;

        /* The NULs keep ("ab", "c") apart from ("a", "bc"). */
        g_checksum_update(sum, (const guchar *)(subject ? subject : ""), (gssize)strlen(subject ? subject : "") + 1);
        g_checksum_update(sum, (const guchar *)(baseline ? baseline : ""), (gssize)strlen(baseline ? baseline : "") + 1);
        g_checksum_update(sum, (const guchar *)(metric ? metric : ""), (gssize)strlen(metric ? metric : "") + 1);
        gmtime_r(&t, &tm);
        strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
        return g_strdup_printf("<kbench.%s.%.16s@%s>", when, g_checksum_get_string(sum), host);
}

char *nightly_mail_date(double t) {
        static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
        static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
        time_t s = isfinite(t) && t > 0 ? (time_t)t : 0;
        struct tm tm;

        /* Names of the C locale whatever the environment's (strftime's %a
         * would follow LC_TIME). */
        gmtime_r(&s, &tm);
        return g_strdup_printf("%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday], tm.tm_mday,
                               months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* The Q encoding of one character's bytes (RFC 2047 4.2, with 5(3)'s
 * rule for a Subject: only letters, digits and ! * + - / stay). */
static void q_char(GString *out, const char *p, const char *end) {
        for (; p < end; p++) {
                unsigned char c = (unsigned char)*p;

                if (c == ' ')
                        g_string_append_c(out, '_');
                else if (g_ascii_isalnum(c) || strchr("!*+-/", c))
                        g_string_append_c(out, (char)c);
                else
                        g_string_append_printf(out, "=%02X", c);
        }
}

char *nightly_mail_encode(const char *text) {
        g_autofree char *line = one_line(text);
        GString *out, *word;
        const char *p;
        int ascii = 1;

        for (p = line; *p; p++)
                if ((unsigned char)*p >= 0x80)
                        ascii = 0;
        if (ascii)
                return g_steal_pointer(&line);
        out = g_string_new(NULL);
        word = g_string_new(NULL);
        for (p = line; *p;) {
                const char *next = g_utf8_next_char(p);
                gsize before = word->len;

                q_char(word, p, next);
                /* "=?UTF-8?Q?" and "?=" take 12 of the 75. */
                if (word->len + 12 > ENCODED_WORD_MAX) {
                        g_string_truncate(word, before);
                        g_string_append_printf(out, "%s=?UTF-8?Q?%s?=", out->len ? "\n " : "", word->str);
                        g_string_truncate(word, 0);
                        continue;        /* the character starts the next word */
                }
                p = next;
        }
        if (word->len)
                g_string_append_printf(out, "%s=?UTF-8?Q?%s?=", out->len ? "\n " : "", word->str);
        g_string_free(word, TRUE);
        return g_string_free(out, FALSE);
}

void nightly_mail_headers(const struct nightly_mail *m, FILE *out) {
        g_autofree char *host = host_name(m->domain);
        g_autofree char *from = m->from ? nightly_mail_address(m->from) : g_strdup_printf("kbench@%s", host);
        g_autofree char *to = m->to ? nightly_mail_address(m->to) : g_strdup("undisclosed-recipients:;");
        g_autofree char *subject = nightly_mail_encode(m->subject);
        g_autofree char *date = nightly_mail_date(m->date);
        g_autofree char *id = one_line(m->message_id);
        size_t n = 0;

        while (m->references && m->references[n])
                n++;
        fprintf(out, "From: %s\nTo: %s\nSubject: %s\nDate: %s\nMessage-ID: %s\n", from, to, subject, date, id);
        if (n) {
                g_autofree char *parent = one_line(m->references[n - 1]);

                fprintf(out, "In-Reply-To: %s\nReferences:", parent);
                for (size_t i = 0; i < n; i++) {
                        g_autofree char *ref = one_line(m->references[i]);

                        /* One ID a line: a long thread stays within 998 columns. */
                        fprintf(out, " %s\n", ref);
                }
        }
        fputs("MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n", out);
}

enum regstate nightly_thread_step(struct nightly_thread *t, enum regstate_input in, const char *id) {
        enum regstate st = regstate_step(&t->open, in);

        if (!t->ids)
                t->ids = g_ptr_array_new_with_free_func(g_free);
        if (st == REGSTATE_NEW || st == REGSTATE_FIXED)
                g_ptr_array_set_size(t->ids, 0);
        if (st == REGSTATE_NEW || st == REGSTATE_STILL)
                g_ptr_array_add(t->ids, g_strdup(id));
        return st;
}

void nightly_thread_clear(struct nightly_thread *t) {
        if (t->ids)
                g_ptr_array_unref(t->ids);
        *t = (struct nightly_thread){ 0 };
}

char **nightly_thread_ids(const struct nightly_thread *t) {
        char **v;

        if (!t || !t->open || !t->ids || !t->ids->len)
                return NULL;
        v = g_new0(char *, t->ids->len + 1);
        for (guint i = 0; i < t->ids->len; i++)
                v[i] = g_strdup(t->ids->pdata[i]);
        return v;
}

GHashTable *nightly_thread_inputs(const struct compare_view *v) {
        GHashTable *in = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        for (size_t gi = 0; gi < v->n_groups; gi++)
                for (size_t i = 0; i < v->groups[gi].n_m; i++) {
                        const struct compare_metric *m = &v->groups[gi].m[i];
                        enum regstate_input was = GPOINTER_TO_INT(g_hash_table_lookup(in, m->name));
                        enum regstate_input now = m->na && m->nb ? regstate_input(m->verdict) : REGSTATE_UNKNOWN;

                        if (now > was)
                                g_hash_table_replace(in, g_strdup(m->name), GINT_TO_POINTER(now));
                }
        return in;
}

void nightly_past_free(struct nightly_past *p, size_t n) {
        for (size_t i = 0; p && i < n; i++) {
                g_free(p[i].baseline);
                if (p[i].inputs)
                        g_hash_table_unref(p[i].inputs);
        }
        g_free(p);
}

static void thread_free(void *p) {
        nightly_thread_clear(p);
        g_free(p);
}

GHashTable *nightly_mail_threads(const char *subject, const struct nightly_past *past, size_t n,
                                 const char *domain) {
        GHashTable *threads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, thread_free);

        for (size_t i = 0; i < n; i++) {
                GHashTableIter it;
                gpointer key, val;

                g_hash_table_iter_init(&it, past[i].inputs);
                while (g_hash_table_iter_next(&it, &key, &val)) {
                        struct nightly_thread *t = g_hash_table_lookup(threads, key);
                        g_autofree char *id = nightly_mail_id(subject, past[i].baseline, key, past[i].started_at,
                                                              domain);

                        if (!t) {
                                t = g_new0(struct nightly_thread, 1);
                                g_hash_table_insert(threads, g_strdup(key), t);
                        }
                        nightly_thread_step(t, GPOINTER_TO_INT(val), id);
                }
        }
        return threads;
}
