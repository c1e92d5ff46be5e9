/* web/page: what every page of the site shares: the frame (doctype,
 * viewport, the inline style sheet, the header with the way back to the
 * index), file names built from untrusted names, and the formatting of
 * numbers, times and states, so a figure reads the same on every page.
 * Pages carry no time of publishing: a page's bytes depend only on the
 * results it shows, which is what lets publishing again write nothing. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "report/html.h"

/* The site's Atom feed of regressions (web/feed.c), at its root. */
#define PAGE_FEED_FILE "feed.xml"

/* What one page or data file holds at most, whatever a cell stored: a
 * workload's real metrics are tens to a thousand (fio's 64 jobs), and a
 * cell with 20 000 names must not make a page of 100 MB. Rows of one table
 * of metrics, and metrics of one list or map of a data file (judged ones
 * first); then a note says how many more and where to see them all. */
#define PAGE_METRICS_MAX 2000
/* Charts of metrics on one page (each a few KiB of SVG). */
#define PAGE_CHARTS_MAX 200

/* What a page's head and header say besides its title. */
struct page_head {
        const char *title;         /* plain text (escaped) */
        const char *crumb;         /* the page's place under the index, or NULL */
        const char *json;          /* the page's data file beside it (page_json_file), or NULL */
        const char *feed;          /* announce this Atom feed (<link rel="alternate">), or NULL */
};

/* Open a page: everything up to and including <main>, with links to the
 * page's data and the feed in the header. */
void page_begin(struct html *h, const struct page_head *head);
/* Close <main>, add the footer. */
void page_end(struct html *h);

/* A file-name piece from an untrusted name: [A-Za-z0-9._-] kept, anything
 * else '_', at most 48 bytes; when anything was changed or cut, "-" and
 * 8 hex digits of a hash of the original follow, so two names never share
 * a file. Caller g_free()s. */
char *page_slug(const char *name);

/* File names of the pages. Caller g_free()s. */
char *page_run_file(int64_t run_id);
char *page_cell_file(int64_t run_id, const char *cell_key);
char *page_kernel_file(const char *kernel_name);
char *page_compare_file(const char *sel_a, const char *sel_b);
char *page_bisect_file(int64_t bisection_id);
/* The data file beside a page: "run-3.html" -> "run-3.json". */
char *page_json_file(const char *html_file);

/* Numbers as `kbench compare` prints them (text_format_num): 84389,
 * 352.2, 3.31, 0.0273; but NAN as "-". buf >= 32. Percentages and
 * p-values: text_format_pct and text_format_p. */
void page_format_num(double v, char *buf, size_t size);
/* A metric's value as every page prints it: seconds scaled to µs, ms or
 * s and carrying that unit ("289 µs", text_format_value); an amount
 * stored in MB (10^6 bytes) in MiB, the unit of the guest's own amounts
 * (vmstat.*_MiB), so the host's and the guest's count of the same bytes
 * read alike; anything else as page_format_num. "-" when not finite.
 * buf >= 48. */
void page_format_value(double v, const char *unit, char *buf, size_t size);
/* The unit page_format_value shows a stored unit in ("MiB" for "MB"),
 * NULL for NULL. */
const char *page_unit(const char *unit);
/* The factor and unit a chart draws values up to maxabs of a stored unit
 * in, so its ticks read as its figures: seconds scaled to µs, ms or s
 * (text_unit_scale), MB in MiB, anything else 1 and as stored.
 * OUT: *ret_unit (static, or unit; NULL for NULL). */
double page_scale(double maxabs, const char *unit, const char **ret_unit);
/* The largest |v| of n values, NAN left out (0 when none). */
double page_maxabs(const double *v, size_t n);
/* The n values (NAN kept) scaled in place to the unit page_scale picks
 * for the largest; returns that unit. */
const char *page_scale_values(double *v, size_t n, const char *unit);
/* UTC, "2026-12-01 07:49" ("-" when unknown). */
void page_format_time(double unix_time, char *buf, size_t size);
/* RFC 3339 in UTC, "2026-12-01T07:49:12Z" (the Unix epoch when unknown):
 * the feed's timestamps. */
void page_format_rfc3339(double unix_time, char *buf, size_t size);

/* <td class="num">v</td> / <td>text</td> ("-" for NULL). */
void page_td_num(struct html *h, double v);
void page_td_text(struct html *h, const char *text);
void page_td_int(struct html *h, long long v);
/* A state as a coloured label: ok green, failures red. */
void page_state(struct html *h, const char *state);
/* <td class="wrap">text</td>, a cell that wraps (free text: a detail, a
 * note); NULL as empty. */
void page_td_wrap(struct html *h, const char *text);
/* <td> holding page_state's label. */
void page_td_state(struct html *h, const char *state);

/* After a table or charts cut at PAGE_METRICS_MAX or PAGE_CHARTS_MAX:
 * "N more WHAT are not shown on this page; WHERE lists them all" (nothing
 * when n is 0). where is a command, "kbench show 3 --all". */
void page_left_out(struct html *h, size_t n, const char *what, const char *where);
