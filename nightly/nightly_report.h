/* nightly/nightly_report: what a night found, as plain data, and its two
 * renderings (the text summary, one line per finding, and JSON) and its
 * exit status. Filled by the night's steps (night_detect.c) from compare's views and the
 * change-point detector; pure here, so the lines and the exit status are
 * tested from tables (test-nightly-report.c). */
#pragma once

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/compare.h"

/* Exit status of `kbench nightly` (compare's 4 keeps its meaning). */
#define NIGHTLY_EXIT_OK 0                  /* nothing regressed */
#define NIGHTLY_EXIT_INCOMPLETE 3          /* nothing regressed, but cells were left (deadline, signal) */
#define NIGHTLY_EXIT_REGRESSED 4           /* a metric worse than the baseline, or a new kernel failed */

/* One judged metric of a new kernel against the baseline. */
struct nightly_finding {
        char *kernel;                      /* the new kernel (owned) */
        char *baseline;                    /* (owned) */
        char *metric;                      /* "dd.write_MBps" (owned) */
        char *across;                      /* settings paired across, "disk_mbps", or NULL (owned) */
        double change;                     /* mean(b) / mean(a) - 1 */
        double p;                          /* Welch's p */
        double q;                          /* BH-adjusted p, what the verdict used */
        size_t na, nb;
        enum compare_verdict verdict;
        char *change_text;                 /* the change as compare prints it, "+4.6%", "+1.05 s"
                                              (an amount); NULL: from change (owned) */
};

/* A new kernel whose cells did not end ok. */
struct nightly_failure {
        char *kernel;                      /* (owned) */
        char *state;                       /* the first failed cell's state, "boot-timeout" (owned) */
        char *stage;                       /* "boot", "workload" or "end" (owned) */
        char *detail;                      /* may be NULL (owned) */
        size_t failed, total;              /* cells */
};

/* A change point in a metric's history, attributed to the first kernel
 * measured after it. */
struct nightly_change {
        char *metric;                      /* (owned) */
        char *workload;                    /* canonical spec (owned) */
        char *kernel;                      /* first kernel of the new level (owned) */
        char *before;                      /* kernel of the point before it (owned) */
        int64_t run;                       /* run of the first point of the new level */
        double rel_change;
        double p;
        int provisional;
        int worse;                         /* the step goes the metric's bad way */
        double mde;                        /* the history's power: the smallest step (a fraction of the
                                              level before) its points show with 80 % power at the change
                                              points' p-value, their scatter being each run's offset;
                                              NAN unknown */
};

/* One comparison that found a metric worse: what a kernel developer needs
 * to act on it, filled by the night's steps (night_detect.c). */
struct nightly_regression {
        char *kernel, *baseline;           /* as the findings name them (owned) */
        char *sel_a, *sel_b;               /* compare's selectors (owned) */
        char *host, *qemu, *libvirt;       /* of the new kernel's run (owned; may be NULL) */
        char **reproduce;                  /* commands, NULL-terminated (owned) */
        char *rows;                        /* the comparison as kbench compare prints it (owned) */
        char *link;                        /* the site's page of it, or NULL (owned) */
        char *cpu_model;                   /* the host's, from the run (owned; may be NULL) */
        uint64_t mem_kib;                  /* the host's RAM, KiB; 0: unknown */
        char *accel;                       /* what the night's cells ran under, "kvm" or "tcg" (owned; may be NULL) */
        char *version_a, *version_b;       /* the kernels' version strings, baseline's first (owned; may be NULL) */
        char **config_diff;                /* kconfig_diff of the two .configs, NULL-terminated; NULL:
                                              the store lacks one of them (owned) */
        char *desc_a, *desc_b;             /* what each resolved to, "6.1.0-47-amd64 in run 12": the run
                                              each side came from (owned; may be NULL) */
        int together;                      /* both sides' cells come from one run, interleaved */
};

/* The bisection a night started for a regression (nightly/nightly_bisect.h),
 * or why it started none. */
struct nightly_bisection {
        char *kernel;                      /* tonight's kernel that regressed, as reported (owned) */
        char *metric;                      /* (owned) */
        char *good;                        /* the good end, or NULL when none was started (owned) */
        size_t candidates;                 /* kernels from good to kernel, both ends counted */
        int64_t id;                        /* kbench show --bisect ID; 0: none was made */
        char *outcome;                     /* "first-bad", "no-change", "cannot-tell"; NULL when
                                              none was started or it failed (owned) */
        char *first_bad;                   /* with "first-bad" (owned) */
        int confirmed;                     /* 1, 0 (not reproduced against the last good), -1 */
        size_t skipped_between;            /* skipped kernels between last good and first bad */
        char *why;                         /* none started, or it failed: one line (owned) */
        char **steps;                      /* one line per step as kbench show --bisect lists them,
                                              NULL-terminated, or NULL (owned) */
        char **where;                      /* where a change of the kernel's instructions went, last good
                                              to first bad (bisect_answer.where's lines), NULL-terminated,
                                              or NULL (owned) */
};

/* A regression of an earlier night that tonight's comparison of its
 * subject no longer finds: the end of its mail thread. */
struct nightly_fixed {
        char *kernel, *baseline;           /* the subject and the baseline it was compared with tonight (owned) */
        char *metric;                      /* (owned) */
        char *sel_a, *sel_b;               /* tonight's comparison (owned) */
        char **thread;                     /* Message-IDs of its earlier messages, oldest first (owned) */
};

struct nightly_report {
        char **measured;                   /* kernels measured tonight, NULL-terminated (owned) */
        char **compared;                   /* "A B" selector pairs compare was given, NULL-terminated (owned) */
        struct nightly_finding *findings;  /* worse and better verdicts only */
        size_t n_findings;
        struct nightly_failure *failures;
        size_t n_failures;
        struct nightly_change *changes;
        size_t n_changes;
        char **errors;                     /* sources that failed, imports that failed (owned) */
        int incomplete;                    /* cells were left for the next night */
        char *site;                        /* published index.html, or NULL (owned) */
        struct nightly_regression *regressions;
        size_t n_regressions;
        struct nightly_bisection *bisection;   /* NULL: none was asked for (owned) */
        struct nightly_fixed *fixed;       /* regressions of earlier nights that tonight no longer finds */
        size_t n_fixed;
        char **thread;                     /* Message-IDs of the earlier messages of the worst regression's
                                              thread, oldest first; NULL: it is new tonight (owned) */
};

void nightly_report_clear(struct nightly_report *r);

/* The commands that measure both sides of a regression again and compare
 * them, for a user to paste into a shell: one `kbench run` of both kernels,
 * interleaved as the night measured them, with the night's run's measured
 * settings (settings/runopts.h: runopts_command), then `kbench compare` of
 * the two in that run at the night's alpha and noise (a fraction). The
 * first line sets the shell variable t to the time of the paste and the
 * tag carries it ("repro-RUN-$t"), so a second paste measures a run of its
 * own and its comparison selects only that: a tag of fixed text would
 * collect the cells of every attempt. NULL-terminated (g_strfreev). */
char **nightly_reproduce(const json_t *settings, const char *base_kernel, const char *new_kernel, int64_t run,
                         double alpha, double noise);

/* "6.1.0-58-amd64: dd.write_MBps -12.3 % vs 6.1.0-57-amd64 (p=0.002, n=6+6)",
 * with " [across disk_mbps]" when the cells were paired across settings and
 * a leading "better: " for an improvement. Caller g_frees. */
char *nightly_finding_line(const struct nightly_finding *f);
/* "bisect: 6.1.0-58-amd64 dd.write_MBps from 6.1.0-55-amd64, 4 kernels:
 * first bad: 6.1.0-57-amd64 (kbench show --bisect 3)", or "...: no change
 * between the ends ...", "...: cannot tell within the budget ...", "...:
 * not started: WHY", "...: failed: WHY". Caller g_frees. */
char *nightly_bisection_line(const struct nightly_bisection *b);
/* "6.1.0-58-amd64: failed at boot (boot-timeout: detail), 3 of 3 cells". */
char *nightly_failure_line(const struct nightly_failure *f);
/* "change point across nights: dd.write_MBps -12.0 % from 6.1.0-58-amd64
 * (after 6.1.0-57-amd64, run 4, p=0.005; history's mde 4.1 %)[ worse][
 * provisional]": a trend, from runs measured on different nights, not a
 * verdict. */
char *nightly_change_line(const struct nightly_change *c);

/* Whether a change point at index of a history whose first len_before
 * points are from earlier nights is news tonight: the earlier history had
 * fewer than min_size points after it (so it could not show it), or it is
 * confirmed now (not provisional) and the earlier history had fewer than
 * confirm points after it. Earlier nights reported the rest. Pure. */
int nightly_change_is_news(size_t index, size_t len_before, int provisional, size_t min_size, size_t confirm);

/* The exit status of a report: REGRESSED when a finding is worse or a new
 * kernel failed; else 1 when something could not be done (a source or an
 * import failed, errors non-empty); else INCOMPLETE when cells were left;
 * else OK. */
int nightly_report_exit(const struct nightly_report *r);

void nightly_report_text(const struct nightly_report *r, FILE *out);

/* The subject of the regression report: "[kbench] NEW: METRIC -13.1% regression
 * vs BASE" (an amount: "+0.207 s") for the worse finding with the largest
 * change ("(+N more)" when
 * there are others), "[kbench] NEW: failed at STAGE (STATE)" when only cells
 * failed, NULL when nothing regressed. Caller g_frees. */
char *nightly_report_subject(const struct nightly_report *r);

/* The worse finding with the largest change, what the subject and the
 * mail thread are about; NULL when none is worse. */
const struct nightly_finding *nightly_report_worst(const struct nightly_report *r);

/* The report the notify command reads when something regressed, as a mail
 * message (nightly/nightly_mail.h): m's header with the Subject of
 * nightly_report_subject ("Re: " when r->thread continues a thread), and a
 * body of, per regressed comparison, what was compared (kernels and their
 * versions, the difference of their configurations, runs, host with its
 * CPU, RAM and accelerator, QEMU and libvirt), the kbench commands that
 * reproduce it, its rows as kbench compare prints them and the site's
 * page; the bisection's steps when there was one; then the night's text
 * report (nightly_report_text). m->subject is not used. */
struct nightly_mail;
void nightly_report_notify(const struct nightly_report *r, const struct nightly_mail *m, FILE *out);

/* The message that closes the thread of a regression f no longer found
 * tonight, in reply to its last message. */
void nightly_report_notify_fixed(const struct nightly_fixed *f, const struct nightly_mail *m, FILE *out);
json_t *nightly_report_json(const struct nightly_report *r);   /* new reference */
