/* nightly_report.c: the lines, JSON and exit status of a night (see
 * nightly_report.h). */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/utf8.h"
#include "host/accel.h"
#include "nightly/nightly_mail.h"
#include "nightly/nightly_report.h"
#include "settings/runopts.h"

void nightly_report_clear(struct nightly_report *r) {
        for (size_t i = 0; i < r->n_findings; i++) {
                g_free(r->findings[i].kernel);
                g_free(r->findings[i].baseline);
                g_free(r->findings[i].metric);
                g_free(r->findings[i].across);
                g_free(r->findings[i].change_text);
        }
        for (size_t i = 0; i < r->n_failures; i++) {
                g_free(r->failures[i].kernel);
                g_free(r->failures[i].state);
                g_free(r->failures[i].stage);
                g_free(r->failures[i].detail);
        }
        for (size_t i = 0; i < r->n_changes; i++) {
                g_free(r->changes[i].metric);
                g_free(r->changes[i].workload);
                g_free(r->changes[i].kernel);
                g_free(r->changes[i].before);
        }
        for (size_t i = 0; i < r->n_regressions; i++) {
                struct nightly_regression *g = &r->regressions[i];

                g_free(g->kernel);
                g_free(g->baseline);
                g_free(g->sel_a);
                g_free(g->desc_a);
                g_free(g->desc_b);
                g_free(g->sel_b);
                g_free(g->host);
                g_free(g->qemu);
                g_free(g->libvirt);
                g_strfreev(g->reproduce);
                g_free(g->rows);
                g_free(g->link);
                g_free(g->cpu_model);
                g_free(g->accel);
                g_free(g->version_a);
                g_free(g->version_b);
                g_strfreev(g->config_diff);
        }
        for (size_t i = 0; i < r->n_fixed; i++) {
                struct nightly_fixed *f = &r->fixed[i];

                g_free(f->kernel);
                g_free(f->baseline);
                g_free(f->metric);
                g_free(f->sel_a);
                g_free(f->sel_b);
                g_strfreev(f->thread);
        }
        g_free(r->fixed);
        g_strfreev(r->thread);
        if (r->bisection) {
                g_free(r->bisection->kernel);
                g_free(r->bisection->metric);
                g_free(r->bisection->good);
                g_free(r->bisection->outcome);
                g_free(r->bisection->first_bad);
                g_free(r->bisection->why);
                g_strfreev(r->bisection->steps);
                g_strfreev(r->bisection->where);
                g_free(r->bisection);
        }
        g_free(r->regressions);
        g_free(r->findings);
        g_free(r->failures);
        g_free(r->changes);
        g_strfreev(r->measured);
        g_strfreev(r->compared);
        g_strfreev(r->errors);
        g_free(r->site);
        memset(r, 0, sizeof(*r));
}

char **nightly_reproduce(const json_t *settings, const char *base_kernel, const char *new_kernel, int64_t run,
                         double alpha, double noise) {
        char **cmds = g_new0(char *, 4);
        g_autofree char *both = runopts_command(settings, (const char *const[]){ base_kernel, new_kernel, NULL },
                                                NULL);

        /* Seconds are enough: the run of one paste takes minutes, so the
         * next paste's date is a later one. */
        cmds[0] = g_strdup("t=$(date +%Y%m%d-%H%M%S)");
        cmds[1] = g_strdup_printf("%s --tag \"repro-%" PRId64 "-$t\"", both, run);
        cmds[2] = g_strdup_printf("kbench compare --alpha %g --noise %g%% \"tag:repro-%" PRId64 "-$t:%s\" "
                                  "\"tag:repro-%" PRId64 "-$t:%s\"", alpha, 100 * noise, run, base_kernel, run,
                                  new_kernel);
        return cmds;
}

char *nightly_finding_line(const struct nightly_finding *f) {
        g_autofree char *pct = f->change_text ? NULL : g_strdup_printf("%+.1f %%", 100 * f->change);

        return g_strdup_printf("%s%s: %s %s vs %s (p=%.2g, n=%zu+%zu)%s%s%s",
                               f->verdict == COMPARE_BETTER ? "better: " : "", f->kernel, f->metric,
                               f->change_text ? f->change_text : pct, f->baseline, f->p, f->na, f->nb,
                               f->across ? " [across " : "", f->across ? f->across : "", f->across ? "]" : "");
}

char *nightly_failure_line(const struct nightly_failure *f) {
        g_autofree char *detail = utf8_mask_cut(f->detail, 120);

        return g_strdup_printf("%s: failed at %s (%s%s%s), %zu of %zu cells", f->kernel, f->stage, f->state,
                               *detail ? ": " : "", detail, f->failed, f->total);
}

char *nightly_change_line(const struct nightly_change *c) {
        g_autofree char *mde = isfinite(c->mde) ? g_strdup_printf("%.1f %%", 100 * c->mde) : g_strdup("unknown");

        return g_strdup_printf("change point across nights: %s %+.1f %% from %s (after %s, run %" G_GINT64_FORMAT
                               ", p=%.2g; history's mde %s)%s%s", c->metric, 100 * c->rel_change, c->kernel, c->before,
                               c->run, c->p, mde, c->worse ? " worse" : "", c->provisional ? " provisional" : "");
}

int nightly_change_is_news(size_t index, size_t len_before, int provisional, size_t min_size, size_t confirm) {
        size_t after_before = len_before > index ? len_before - index : 0;

        if (after_before < min_size)
                return 1;
        return !provisional && after_before < confirm;
}

int nightly_report_exit(const struct nightly_report *r) {
        for (size_t i = 0; i < r->n_findings; i++)
                if (r->findings[i].verdict == COMPARE_WORSE)
                        return NIGHTLY_EXIT_REGRESSED;
        if (r->n_failures > 0)
                return NIGHTLY_EXIT_REGRESSED;
        if (r->errors && r->errors[0])
                return 1;
        return r->incomplete ? NIGHTLY_EXIT_INCOMPLETE : NIGHTLY_EXIT_OK;
}

char *nightly_bisection_line(const struct nightly_bisection *b) {
        g_autofree char *kernel = utf8_mask_cut(b->kernel, 200), *metric = utf8_mask_cut(b->metric, 200);
        g_autofree char *good = b->good ? utf8_mask_cut(b->good, 200) : NULL, *answer = NULL, *why = NULL;
        g_autofree char *head = good ? g_strdup_printf("bisect: %s %s from %s, %zu kernels", kernel, metric, good,
                                                       b->candidates)
                                     : g_strdup_printf("bisect: %s %s", kernel, metric);
        g_autofree char *show = b->id ? g_strdup_printf(" (kbench show --bisect %" PRId64 ")", b->id) : g_strdup("");

        if (!b->outcome) {
                why = utf8_mask_cut(b->why ? b->why : "?", 600);
                return g_strdup_printf("%s: %s: %s%s", head, good ? "failed" : "not started", why, show);
        }
        if (strcmp(b->outcome, "first-bad") == 0 && b->first_bad) {
                g_autofree char *first = utf8_mask_cut(b->first_bad, 200);

                answer = g_strdup_printf("first bad: %s%s%s", first,
                                         b->skipped_between ? " (kernels skipped before it: it may be one of them)" : "",
                                         b->confirmed == 0 ? " (not reproduced against the last good)" : "");
        } else
                answer = g_strdup(strcmp(b->outcome, "no-change") == 0 ? "no change between the ends"
                                                                        : "cannot tell within the budget");
        return g_strdup_printf("%s: %s%s", head, answer, show);
}

void nightly_report_text(const struct nightly_report *r, FILE *out) {
        size_t n_worse = 0;

        for (size_t i = 0; i < r->n_findings; i++)
                n_worse += r->findings[i].verdict == COMPARE_WORSE;
        if (!r->measured || !r->measured[0])
                fprintf(out, "nightly: nothing new to measure\n");
        else {
                fprintf(out, "nightly: measured");
                for (size_t i = 0; r->measured[i]; i++)
                        fprintf(out, "%s %s", i ? "," : "", r->measured[i]);
                fputc('\n', out);
        }
        for (size_t i = 0; r->compared && r->compared[i]; i++)
                fprintf(out, "compared: kbench compare %s\n", r->compared[i]);
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < r->n_findings; i++) {
                        g_autofree char *line = NULL;
                        if ((r->findings[i].verdict == COMPARE_WORSE) != (pass == 0))
                                continue;
                        line = nightly_finding_line(&r->findings[i]);
                        fprintf(out, "%s\n", line);
                }
        for (size_t i = 0; i < r->n_failures; i++) {
                g_autofree char *line = nightly_failure_line(&r->failures[i]);
                fprintf(out, "%s\n", line);
        }
        for (size_t i = 0; i < r->n_changes; i++) {
                g_autofree char *line = nightly_change_line(&r->changes[i]);
                fprintf(out, "%s\n", line);
        }
        if (r->bisection) {
                g_autofree char *line = nightly_bisection_line(r->bisection);

                fprintf(out, "%s\n", line);
        }
        for (size_t i = 0; r->errors && r->errors[i]; i++)
                fprintf(out, "error: %s\n", r->errors[i]);
        if (r->incomplete)
                fprintf(out, "incomplete: cells were left (deadline or signal); the next night resumes them\n");
        if (r->site)
                fprintf(out, "site: %s\n", r->site);
        /* An error (a source that failed, a baseline without an ok cell)
         * may have kept something from being judged: then not a plain
         * "no regression", as the exit status is not 0. */
        fprintf(out, "verdict: %s\n", n_worse || r->n_failures ? "REGRESSION"
                                       : r->errors && r->errors[0] ? "no regression found; errors above"
                                                                   : "no regression");
}

static json_t *strv_json(char **v) {
        json_t *a = json_array();

        for (size_t i = 0; v && v[i]; i++)
                json_array_append_new(a, json_string(v[i]));
        return a;
}

/* JSON has no NaN: an undefined number is null. */
static json_t *num(double x) {
        return isfinite(x) ? json_real(x) : json_null();
}

static json_t *bisection_json(const struct nightly_bisection *b) {
        if (!b)
                return json_null();
        json_t *where = b->where ? json_array() : json_null();

        for (size_t i = 0; b->where && b->where[i]; i++)
                json_array_append_new(where, json_string(b->where[i]));
        return json_pack("{s:s, s:s, s:s?, s:I, s:o, s:s?, s:s?, s:o, s:I, s:s?, s:o}", "kernel", b->kernel, "metric",
                         b->metric, "good", b->good, "candidates", (json_int_t)b->candidates,
                         "bisection", b->id ? json_integer(b->id) : json_null(), "outcome", b->outcome, "first_bad",
                         b->first_bad, "confirmed", b->confirmed < 0 ? json_null() : json_boolean(b->confirmed),
                         "skipped_between", (json_int_t)b->skipped_between, "why", b->why, "where", where);
}

json_t *nightly_report_json(const struct nightly_report *r) {
        json_t *j = json_object(), *fs = json_array(), *fl = json_array(), *cs = json_array();

        for (size_t i = 0; i < r->n_findings; i++) {
                const struct nightly_finding *f = &r->findings[i];
                json_array_append_new(fs, json_pack("{s:s, s:s, s:s, s:s, s:o, s:s?, s:o, s:o, s:I, s:I, s:s?}",
                                                    "kernel", f->kernel, "baseline", f->baseline, "metric",
                                                    f->metric, "verdict", compare_verdict_name(f->verdict),
                                                    "change", num(f->change), "change_text", f->change_text,
                                                    "p", num(f->p), "q", num(f->q), "n_a", (json_int_t)f->na,
                                                    "n_b", (json_int_t)f->nb, "across", f->across));
        }
        for (size_t i = 0; i < r->n_failures; i++) {
                const struct nightly_failure *f = &r->failures[i];
                json_array_append_new(fl, json_pack("{s:s, s:s, s:s, s:s?, s:I, s:I}", "kernel", f->kernel,
                                                    "state", f->state, "stage", f->stage, "detail", f->detail,
                                                    "failed", (json_int_t)f->failed, "cells",
                                                    (json_int_t)f->total));
        }
        for (size_t i = 0; i < r->n_changes; i++) {
                const struct nightly_change *c = &r->changes[i];
                json_array_append_new(cs, json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:b, s:b, s:o}", "metric",
                                                    c->metric, "workload", c->workload, "kernel", c->kernel,
                                                    "after", c->before, "run", (json_int_t)c->run, "rel_change",
                                                    num(c->rel_change), "p", num(c->p), "provisional",
                                                    c->provisional, "worse", c->worse, "mde", num(c->mde)));
        }
        json_object_set_new(j, "measured", strv_json(r->measured));
        json_object_set_new(j, "compared", strv_json(r->compared));
        json_object_set_new(j, "findings", fs);
        json_object_set_new(j, "failures", fl);
        json_object_set_new(j, "change_points", cs);
        json_object_set_new(j, "errors", strv_json(r->errors));
        json_object_set_new(j, "incomplete", json_boolean(r->incomplete));
        json_object_set_new(j, "site", r->site ? json_string(r->site) : json_null());
        json_object_set_new(j, "bisection", bisection_json(r->bisection));
        json_object_set_new(j, "exit_status", json_integer(nightly_report_exit(r)));
        return j;
}

const struct nightly_finding *nightly_report_worst(const struct nightly_report *r) {
        const struct nightly_finding *worst = NULL;

        for (size_t i = 0; i < r->n_findings; i++) {
                const struct nightly_finding *f = &r->findings[i];

                if (f->verdict == COMPARE_WORSE && (!worst || fabs(f->change) > fabs(worst->change)))
                        worst = f;
        }
        return worst;
}

char *nightly_report_subject(const struct nightly_report *r) {
        const struct nightly_finding *worst = nightly_report_worst(r);
        size_t n_worse = 0;

        for (size_t i = 0; i < r->n_findings; i++)
                n_worse += r->findings[i].verdict == COMPARE_WORSE;
        if (worst) {
                g_autofree char *more = n_worse > 1 ? g_strdup_printf(" (+%zu more)", n_worse - 1) : g_strdup("");
                /* An amount's change is its difference, as the report prints it. */
                g_autofree char *change = worst->change_text ? g_strdup(worst->change_text)
                                                             : g_strdup_printf("%+.1f%%", 100 * worst->change);

                return g_strdup_printf("[kbench] %s: %s %s regression vs %s%s", worst->kernel, worst->metric, change,
                                       worst->baseline, more);
        }
        if (r->n_failures)
                return g_strdup_printf("[kbench] %s: failed at %s (%s)%s", r->failures[0].kernel,
                                       r->failures[0].stage, r->failures[0].state,
                                       r->n_failures > 1 ? " and more" : "");
        return NULL;
}

/* The header of a message of r's thread: the Subject, "Re: " when it
 * answers an earlier one. */
static void mail_header(const struct nightly_mail *m, const char *subject, char *const *thread, FILE *out) {
        struct nightly_mail h = *m;
        g_autofree char *re = thread && thread[0] ? g_strconcat("Re: ", subject, NULL) : NULL;

        h.subject = re ? re : subject;
        h.references = (const char *const *)thread;
        nightly_mail_headers(&h, out);
}

/* What a regression's reader needs first of the two kernels: their
 * versions and how their configurations differ, and the machine. */
static void regression_facts(const struct nightly_regression *g, FILE *out) {
        g_autofree char *host = utf8_mask_cut(g->host, 120), *qemu = utf8_mask_cut(g->qemu, 60),
                        *libvirt = utf8_mask_cut(g->libvirt, 60), *cpu = utf8_mask_cut(g->cpu_model, 120),
                        *va = utf8_mask_cut(g->version_a, 300), *vb = utf8_mask_cut(g->version_b, 300);

        fprintf(out, "  host %s: %s, %.1f GiB RAM, %s, QEMU %s, libvirt %s\n", *host ? host : "?", *cpu ? cpu : "CPU ?",
                (double)g->mem_kib / (1024 * 1024), g->accel ? g->accel : "accelerator ?", *qemu ? qemu : "?",
                *libvirt ? libvirt : "?");
        if (g->accel && strcmp(g->accel, "tcg") == 0)
                fputs("  (" ACCEL_TCG_MEANS ")\n", out);
        fprintf(out, "  %s: %s\n  %s: %s\n", "baseline", *va ? va : "version unknown", "kernel", *vb ? vb : "version unknown");
        if (!g->config_diff)
                fputs("  config difference: unknown (the store lacks the .config of one of them)\n", out);
        else if (!g->config_diff[0])
                fputs("  config difference: none\n", out);
        else {
                fputs("  config difference (baseline -> kernel):\n", out);
                for (size_t i = 0; g->config_diff[i]; i++)
                        fprintf(out, "    %s\n", g->config_diff[i]);
        }
}

void nightly_report_notify(const struct nightly_report *r, const struct nightly_mail *m, FILE *out) {
        g_autofree char *subject = nightly_report_subject(r);

        mail_header(m, subject ? subject : "[kbench] nightly report", r->thread, out);
        for (size_t i = 0; i < r->n_regressions; i++) {
                const struct nightly_regression *g = &r->regressions[i];
                g_autofree char *kernel = utf8_mask_cut(g->kernel, 200), *base = utf8_mask_cut(g->baseline, 200),
                                *sa = utf8_mask_cut(g->sel_a, 300), *sb = utf8_mask_cut(g->sel_b, 300);

                fprintf(out, "%s against %s\n", kernel, base);
                fprintf(out, "  compared: kbench compare %s %s\n", sa, sb);
                if (g->desc_a && g->desc_b) {
                        g_autofree char *da = utf8_mask_cut(g->desc_a, 300), *db = utf8_mask_cut(g->desc_b, 300);

                        fprintf(out, "  A: %s\n  B: %s%s\n", da, db,
                                g->together ? " (measured together, interleaved)" : "");
                }
                regression_facts(g, out);
                if (g->link)
                        fprintf(out, "  page: %s\n", g->link);
                fputs("\nreproduce (paste into a shell: one run of both, interleaved, then their comparison;\n"
                      "t makes each paste's run its own):\n", out);
                for (size_t k = 0; g->reproduce && g->reproduce[k]; k++) {
                        g_autofree char *cmd = utf8_mask_cut(g->reproduce[k], 2000);

                        fprintf(out, "  %s\n", cmd);
                }
                fputc('\n', out);
                if (g->rows)
                        fputs(g->rows, out);
                fputs("\n", out);
        }
        if (r->bisection && r->bisection->where && r->bisection->where[0]) {
                fputs("bisection: last good -> first bad:\n", out);
                for (size_t i = 0; r->bisection->where[i]; i++) {
                        g_autofree char *line = utf8_mask_cut(r->bisection->where[i], 400);

                        fprintf(out, "  %s\n", line);
                }
                fputc('\n', out);
        }
        if (r->bisection && r->bisection->steps && r->bisection->steps[0]) {
                fputs("bisection steps:\n", out);
                for (size_t i = 0; r->bisection->steps[i]; i++) {
                        g_autofree char *step = utf8_mask_cut(r->bisection->steps[i], 400);

                        fprintf(out, "  %s\n", step);
                }
                fputc('\n', out);
        }
        fputs("-- the night --\n", out);
        nightly_report_text(r, out);
}

void nightly_report_notify_fixed(const struct nightly_fixed *f, const struct nightly_mail *m, FILE *out) {
        g_autofree char *subject = g_strdup_printf("[kbench] %s: %s regression vs %s fixed", f->kernel, f->metric,
                                                   f->baseline);
        g_autofree char *kernel = utf8_mask_cut(f->kernel, 200), *metric = utf8_mask_cut(f->metric, 200),
                        *base = utf8_mask_cut(f->baseline, 200), *sa = utf8_mask_cut(f->sel_a, 300),
                        *sb = utf8_mask_cut(f->sel_b, 300);

        mail_header(m, subject, f->thread, out);
        fprintf(out, "%s: %s is no longer worse than %s tonight.\n  compared: kbench compare %s %s\n", kernel, metric,
                base, sa, sb);
}
