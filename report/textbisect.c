/* report/textbisect.c: a bisection as text (see textbisect.h). */
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"
#include "common/util.h"
#include "report/text.h"
#include "report/textbisect.h"
#include "report/textcompare.h"
#include "results/bisect.h"

/* A candidate's column: a kernel name, or a commit id, whose first 28
 * characters tell it from its neighbours. */
#define CANDIDATE_COLS 28

static void put_header(const struct bisect_row *b, const struct bisect_ending *e, FILE *out) {
        fprintf(out, "bisection %lld: ", (long long)b->id);
        text_put(out, b->metric, 0);
        fputs(" of ", out);
        text_put(out, b->workload, 0);
        fputs(", good ", out);
        text_put(out, b->good, 0);
        fputs(", bad ", out);
        text_put(out, b->bad, 0);
        fputs(" (", out);
        text_put(out, b->status, 0);
        if (e)
                fprintf(out, ", %zu candidates", e->candidates);
        fputs(")\n", out);
}

static void put_step(const struct bisect_step_row *s, FILE *out) {
        _cleanup_free_ char *cand = utf8_mask_cut(s->candidate ? s->candidate : "-", CANDIDATE_COLS - 3);
        char mean[32];

        text_format_num(s->mean_cand, mean, sizeof(mean));
        fprintf(out, "  %4d ", s->step);
        text_put(out, s->role, 7);
        fputc(' ', out);
        text_put(out, cand, CANDIDATE_COLS);
        fputc(' ', out);
        text_put(out, s->decision, 9);
        fprintf(out, " %6d  ", s->rounds);
        text_put(out, s->vs_good, 9);
        fputc(' ', out);
        text_put(out, s->vs_bad, 9);
        fprintf(out, " %10s", mean);
        if (s->note) {
                fputs("  ", out);
                text_put(out, s->note, 0);
        }
        fputc('\n', out);
}

/* The answer, the last line; nothing while the bisection runs. */
static void put_answer(const struct bisect_row *b, FILE *out) {
        if (b->first_bad) {
                fputs("first bad: ", out);
                text_put(out, b->first_bad, 0);
                fputc('\n', out);
        } else if (b->outcome && strcmp(b->outcome, "no-change") == 0)
                fputs("no change between the ends\n", out);
        else if (b->outcome && strcmp(b->outcome, "cannot-tell") == 0)
                fputs("cannot tell\n", out);
        else if (b->outcome) {
                text_put(out, b->outcome, 0);
                fputc('\n', out);
        }
}

void text_bisection(const struct bisect_row *b, const struct bisect_ending *e, int width, FILE *out) {
        put_header(b, e, out);
        fprintf(out, "  %4s %-7s %-*s %-9s %6s  %-9s %-9s %10s\n", "step", "role", CANDIDATE_COLS, "candidate",
                "decision", "rounds", "vs good", "vs bad", "mean");
        for (size_t i = 0; i < b->n_steps; i++)
                put_step(&b->steps[i], out);
        if (e && e->caution)
                fprintf(out, "%s\n", e->caution);
        if (e && b->first_bad && e->confirmed == 0)
                fputs("the first bad did not reproduce against the last good: treat it with care\n", out);
        if (e && b->first_bad && e->explain) {
                fputs("last good -> first bad:\n", out);
                textcompare_explain(e->explain, 0, 2, width, out);
        }
        put_answer(b, out);
}
