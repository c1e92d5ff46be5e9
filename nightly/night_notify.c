/* nightly/night_notify.c: what a night says (see night_int.h): each
 * error it goes on after, as it comes and again in the report; the site
 * with tonight's comparisons; the report as an event for the caller to
 * render; and the mail to the notify command, threaded with the earlier
 * nights' messages about the same regression. */
#include <errno.h>
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "nightly/night_history.h"
#include "nightly/night_int.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_report.h"
#include "web/site.h"

void night_add_error(struct night *n, const char *fmt, ...) {
        va_list ap;
        char *msg;

        va_start(ap, fmt);
        msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        g_ptr_array_add(n->errors, msg);
        night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_ERROR, .text = msg });
}

int night_step_publish(struct night *n, struct kb_error *err) {
        struct site_options opt = { .dir = n->cfg->publish_dir };
        struct site_result res = { 0 };
        g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func(g_free);
        int r;

        if (!n->cfg->publish_dir)
                return 0;
        /* Tonight's comparisons get their pages, which the regression
         * report links (base_url). */
        for (size_t i = 0; n->rep.compared && n->rep.compared[i]; i++) {
                g_autofree char *pair = g_strdup(n->rep.compared[i]);
                char *sp = strchr(pair, ' ');

                if (sp) {
                        *sp = ':';
                        g_ptr_array_add(pairs, g_steal_pointer(&pair));
                }
        }
        opt.compares = (const char **)pairs->pdata;
        opt.n_compares = pairs->len;
        opt.with_defaults = 1;
        r = site_publish(n->db, &opt, &res, err);
        if (r < 0)
                return error_prefix(err, r, "publishing into %s", n->cfg->publish_dir);
        n->rep.site = g_build_filename(n->cfg->publish_dir, "index.html", NULL);
        return 0;
}

/* The notify command did not take a message: said, not fatal. */
static void notify_failed(struct night *n, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void notify_failed(struct night *n, const char *fmt, ...) {
        g_autofree char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_NOTIFY_FAILED, .text = msg });
}

/* One message to the notify command (sh -c) on its stdin: the night's
 * report (fixed NULL) or the end of a fixed regression's thread. Its
 * failure is said, not fatal: the report event came before. The sink
 * rendered that report and flushed it, so the command's own output follows
 * it. */
static void notify_send(struct night *n, const struct nightly_fixed *fixed, const struct nightly_mail *m) {
        FILE *p;
        int status;

        p = popen(n->cfg->notify, "w");
        if (!p) {
                notify_failed(n, "notify: %s", g_strerror(errno));
                return;
        }
        if (fixed)
                nightly_report_notify_fixed(fixed, m, p);
        else
                nightly_report_notify(&n->rep, m, p);
        status = pclose(p);
        if (status != 0)
                notify_failed(n, "notify command exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Mail the report when something regressed, in the thread of the worst
 * regression (a reply to its earlier nights' messages), and one message
 * for each regression of earlier nights that is fixed tonight. */
void night_step_notify(struct night *n) {
        const struct nightly_finding *worst = nightly_report_worst(&n->rep);
        struct nightly_mail m = { .from = n->cfg->mail_from, .to = n->cfg->mail_to, .date = n->started_at,
                                  .domain = g_get_host_name() };

        if (!n->cfg->notify)
                return;
        if (nightly_report_exit(&n->rep) == NIGHTLY_EXIT_REGRESSED) {
                g_autofree char *id = NULL;

                if (worst) {
                        g_autoptr(GHashTable) threads = night_history_threads(n->db, worst->kernel, n->started_at,
                                                                              m.domain);

                        n->rep.thread = nightly_thread_ids(g_hash_table_lookup(threads, worst->metric));
                        id = nightly_mail_id(worst->kernel, worst->baseline, worst->metric, n->started_at, m.domain);
                } else {
                        g_autofree char *what = g_strdup_printf("failed at %s", n->rep.failures[0].stage);

                        id = nightly_mail_id(n->rep.failures[0].kernel, n->cfg->baseline, what, n->started_at,
                                             m.domain);
                }
                m.message_id = id;
                notify_send(n, NULL, &m);
        }
        for (size_t i = 0; i < n->rep.n_fixed; i++) {
                const struct nightly_fixed *f = &n->rep.fixed[i];
                g_autofree char *id = nightly_mail_id(f->kernel, f->baseline, f->metric, n->started_at, m.domain);

                m.message_id = id;
                notify_send(n, f, &m);
        }
}

int night_step_report(struct night *n, struct kb_error *err) {
        int r;

        g_ptr_array_add(n->measured, NULL);
        n->rep.measured = g_strdupv((char **)n->measured->pdata);
        g_ptr_array_remove_index(n->measured, n->measured->len - 1);
        g_ptr_array_add(n->errors, NULL);
        n->rep.errors = g_strdupv((char **)n->errors->pdata);
        g_ptr_array_remove_index(n->errors, n->errors->len - 1);
        r = night_emit(n, &(struct kb_event){ .kind = KB_EVENT_NIGHT_REPORT, .report = &n->rep });
        if (r < 0)
                return error_setf(err, r, "nightly: cannot write the report");
        return 0;
}

