/* bisect/bisect: `kbench bisect`, from "this kernel regressed" to the
 * change that did it, measured the way compare measures.
 *
 * The candidates are an ordered list: kernels of the store (the first good,
 * the last bad), or the first-parent commits of a git history between a
 * good and a bad ref, each built on demand (kernels/build.h: one O= tree,
 * so a step's build is incremental). First the ends are measured against
 * each other, interleaved, with decide/seqrule.h's sequential rule (more
 * rounds while the answer is "not yet", up to a maximum): when they are the
 * same, there is nothing to find; when the rule cannot tell within the
 * budget, the bisection says so. Otherwise each step measures one candidate
 * interleaved with both ends and asks the rule twice, candidate against the
 * good end and against the bad one: like good and unlike bad is good, the
 * reverse is bad, unlike both is bad (the change has begun there), and
 * anything else is "cannot tell". A candidate whose image equals one
 * already decided takes its decision; one that does not build or boot is
 * skipped. The first bad candidate is measured once more against its
 * parent, and the bisection ends with one line, `first bad: <commit or
 * kernel>`. Every step is kept in the store (results/bisect.h); its cells
 * are ordinary runs. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "run/runner.h"
#include "store/store.h"

struct bisect_opts {
        struct run_settings run;   /* the cells' settings; kernels, workloads, repeats are set per step */
        const char *workload;      /* one -w text */
        const char *metric;        /* the metric searched (a name of the registry that enters verdicts) */
        char **kernels;            /* --kernels: ordered, first good, last bad; or NULL */
        const char *git_dir, *good, *bad;      /* --git DIR --good REF --bad REF */
        const char *config;        /* builds: --config, NULL defconfig */
        char **fragments;          /* builds: --fragment */
        int jobs;                  /* builds: make -j */
        int pilot;                 /* rounds before the rule's first look */
        int max_rounds;            /* rounds a step may take */
        double target;             /* the ends' minimum detectable effect, a fraction */
        double alpha, noise;       /* compare's --alpha and --noise */
        int json;
        int quiet;                 /* no KB_EVENT_BISECT_RESULT: the caller reports the answer itself */
        const struct kb_sink *events; /* where the bisection and its runs report (common/event.h):
                                      its steps, builds, cells and answer; NULL: nowhere */
        const struct run_host_backend *hosts; /* how its runs reach their hosts; NULL: libvirt */
        const char *(*option_name)(const char *option); /* how its driver's user writes an option, its
                                      own ("kernels", "git", "good", "bad", "max-rounds") and its runs'
                                      (runner_drive) */
        double deadline_at;        /* unix time after which no step's cell starts (a night's); 0: none */
};

/* What a bisection answered, for a caller that reports it (nightly). */
struct bisect_answer {
        int64_t id;                /* the bisection's row (kbench show --bisect ID); 0: not created */
        const char *outcome;       /* "first-bad", "no-change", "cannot-tell" (static) */
        char *first_bad;           /* commit id or kernel name, or NULL (owned: bisect_answer_clear) */
        int confirmed;             /* 1 reproduced against the last good, 0 not, -1 not asked */
        size_t skipped_between;    /* candidates between last good and first bad that were skipped */
        char *where;               /* where a change of the kernel's instructions went, last good to
                                      first bad, as textcompare_explain's lines (report/textcompare.h), or NULL
                                      (owned: bisect_answer_clear) */
};

void bisect_answer_clear(struct bisect_answer *a);

/* The tag of every run a bisection makes starts with this; nightly leaves
 * such runs out of its histories (they measure old kernels after new ones). */
#define BISECT_TAG_PREFIX "bisect "

/* Exit codes beyond 0 (an answer: first bad, or no change between the
 * ends), 1 (error) and 2 (usage). */
#define BISECT_EXIT_UNDECIDED 3    /* the rule could not tell within the budget */

/* Run the bisection, reporting its progress and its answer through
 * o->events (the answer not with o->quiet). Returns an exit code; on 1 and 2 err says why.
 * Once the request is checked, s is opened (store_session_open): the
 * database, the kernel store, the store lock held; the caller owns it.
 * OUT: *ret (may be NULL), filled when the exit code is 0 or 3. */
int bisect_run(const struct bisect_opts *o, const struct store_ctx *g, struct store_session *s,
               struct bisect_answer *ret, struct kb_error *err);
