/* report/textcompare: `kbench compare` as text for a terminal and as
 * markdown for a mail or a forge. The answer first (per paired group what
 * got worse or better, in the workload's terms), then per group its
 * sides, settings and notes and a table of the judged metrics: by default
 * metric, A, B, change, 95 % CI and verdict, fitted to the reader's width
 * (a row wider than it puts the metric on a line of its own); with wide
 * also the spread, medians, both tests' p, n, the MDE and the cells a side
 * needs. The informational metrics are counted, or listed with all (or a
 * --metric glob). Markdown is the same text, its tables in code blocks, so
 * that it reads as plain text in a mail. Renders only: every number comes
 * from the view. */
#pragma once

#include <stdio.h>

#include "report/compare.h"

struct textcompare_opts {
        enum { TEXTCOMPARE_TEXT, TEXTCOMPARE_MARKDOWN } format;
        int all;                   /* the informational metrics too, and every column */
        int wide;                  /* the statistics' columns */
        int width;                 /* columns to fit in; 0: no limit */
};

/* The width compare fits its tables to when the reader's is not known
 * (not a terminal, no COLUMNS). */
#define TEXTCOMPARE_WIDTH 100

void textcompare_print(const struct compare_view *v, const struct textcompare_opts *o, FILE *out);

struct explain;
/* Where a change of the kernel's instructions went (report/explain.h), as
 * compare prints it under the change: a line indented by indent, "where,
 * Minsn a cell (A -> B, na + nb cells profiled):", then each listed
 * function's difference of the means and its share of A's phase, "only in
 * B" for one the other kernel lacks, and the others summed, wrapped at
 * width columns (0: no limit), a function and its figures never apart; as
 * markdown, one list item. Or why it is not known. */
void textcompare_explain(const struct explain *x, int md, int indent, int width, FILE *out);
