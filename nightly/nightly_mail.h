/* nightly/nightly_mail: the header of the regression report as an RFC 5322
 * message, threaded as 0-day's reports are: each message about a
 * regression has a Message-ID made from the regression's identity (the
 * subject, its baseline, the metric) and the night, so the message of a
 * later night can name the earlier ones in In-Reply-To and References
 * without any of them being stored: new, then still, then fixed form one
 * thread in a mail reader. Header values come from the store and the
 * configuration and are hostile: a CR or LF never reaches a header
 * (no header injection), and non-ASCII text in the Subject is an RFC 2047
 * encoded word. A regression's thread is made again each night from what
 * the earlier nights' comparisons said of its metric (web/regstate.h's
 * rule, as the site follows it). Pure: tested from tables
 * (test-nightly-mail.c, and tests/nightly/mail.py with Python's email
 * parser). */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "report/view.h"
#include "web/regstate.h"

struct nightly_mail {
        const char *from;          /* mailbox; NULL: kbench@<domain> */
        const char *to;            /* address list; NULL: undisclosed-recipients:; */
        double date;               /* unix time the message is dated, s */
        const char *subject;       /* UTF-8, any text */
        const char *message_id;    /* "<...>" (nightly_mail_id) */
        const char *const *references; /* the thread's earlier Message-IDs, oldest first, NULL-terminated;
                                          the last is In-Reply-To; NULL or empty: a thread's first */
        const char *domain;        /* the host's name, for the default From */
};

/* The Message-ID of the message of the night at night_at (unix s) about
 * metric of subject against baseline: "<kbench.20261203T014500Z.
 * 1f0c3a9e5b7d2c46@DOMAIN>", the hex the first 64 bits of a SHA-256 of the
 * three names. The same names and night give the same ID. domain is made
 * a host name (letters, digits, '-' and '.'; "localhost" when nothing is
 * left). Caller g_frees. */
char *nightly_mail_id(const char *subject, const char *baseline, const char *metric, double night_at,
                      const char *domain);

/* An RFC 5322 date of unix time t in UTC: "Thu, 03 Dec 2026 01:45:00 +0000".
 * Caller g_frees. */
char *nightly_mail_date(double t);

/* text as an unstructured header value (RFC 5322 2.2.1): one line, any CR,
 * LF or other control character a blank, invalid UTF-8 replaced; ASCII
 * text as it is, other text as RFC 2047 "=?UTF-8?Q?...?=" encoded words of
 * at most 75 characters, each whole characters, folded onto lines of
 * their own (a newline and a blank between them). Caller g_frees. */
char *nightly_mail_encode(const char *text);

/* An address header value (From, To) from the configuration: control
 * characters blanks, so it stays one line. Caller g_frees. */
char *nightly_mail_address(const char *text);

/* The header block of m, ending with the empty line: From, To, Subject,
 * Date, Message-ID, In-Reply-To and References when m has a thread,
 * MIME-Version, Content-Type text/plain; charset=utf-8 and
 * Content-Transfer-Encoding 8bit. Lines end with "\n" (a local mailer
 * such as sendmail -t takes them so). */
void nightly_mail_headers(const struct nightly_mail *m, FILE *out);

/* A regression's mail thread as the nights go: whether it is open, and the
 * Message-IDs of its messages since the night it was new. */
struct nightly_thread {
        int open;                  /* web/regstate.h's */
        GPtrArray *ids;            /* char *, oldest first (owned; NULL until the first night) */
};

/* One night of a regression's thread, by web/regstate.h's rule: in is what
 * the night's comparison says of the metric, id the Message-ID of that
 * night's message about it. New starts the thread with id, still adds id,
 * fixed ends it (ids emptied), nothing changes else. Returns the state. */
enum regstate nightly_thread_step(struct nightly_thread *t, enum regstate_input in, const char *id);
void nightly_thread_clear(struct nightly_thread *t);

/* An open thread's Message-IDs (t may be NULL) as a NULL-terminated copy
 * (g_strfreev), NULL when t is no open thread or has none. */
char **nightly_thread_ids(const struct nightly_thread *t);

/* What comparison v says of each metric it holds (a metric of several
 * paired groups: worse in one is worse), by the site's rule
 * (web/history.c: a side without samples says nothing): name -> enum
 * regstate_input (g_hash_table_unref). */
GHashTable *nightly_thread_inputs(const struct compare_view *v);

/* One comparison of a subject an earlier night made and recorded. */
struct nightly_past {
        double started_at;         /* the night's, unix s */
        char *baseline;            /* what the subject was compared with (owned) */
        GHashTable *inputs;        /* what it said: nightly_thread_inputs (owned) */
};

void nightly_past_free(struct nightly_past *p, size_t n);   /* accepts NULL */

/* The mail threads of subject's regressions through the earlier nights'
 * comparisons past (n of them, oldest first): metric -> struct
 * nightly_thread (g_hash_table_unref), an open one holding the
 * Message-IDs of its messages so far (the night it was new, then each
 * night it was still there). Each ID is made again from the regression
 * and its night (nightly_mail_id, at domain): nothing of a mail is
 * stored. */
GHashTable *nightly_mail_threads(const char *subject, const struct nightly_past *past, size_t n,
                                 const char *domain);
