/* web/page: the frame and the shared formatting of the site's pages (see
 * page.h). The style sheet is inline so a page is one self-contained file
 * that works from file:// and from any server, with no request leaving it;
 * it is written for a table-heavy page: tabular figures, right-aligned
 * numbers. On a phone (600 px and less) nothing scrolls sideways: a chart
 * shows its narrow variant (report/svg.h), metric names break after '.'
 * and '_', a cell's figures stack, a table of records (class "cards")
 * becomes one block of labelled lines per row, and a comparison's table
 * leaves out its second-reading columns (.opt). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/crc32.h"
#include "report/svg.h"
#include "report/text.h"
#include "results/cellstate.h"
#include "web/page.h"

/* A macro, not a variable: html_literal takes string literals only. */
#define STYLE \
        "<style>" \
        ":root{--fg:#1d232a;--muted:#5b6570;--line:#d9dee3;--bg:#fff;--head:#f3f5f7;" \
        "--worse:#fbe3e1;--worse-fg:#a4160c;--better:#dff3e4;--better-fg:#116329;--accent:#0b5cad}" \
        "*{box-sizing:border-box}" \
        "body{margin:0;font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);" \
        "background:var(--bg)}" \
        "header.site{background:#1d2b3a;color:#fff;padding:.55rem 1rem;display:flex;gap:1rem;align-items:baseline;" \
        "flex-wrap:wrap}" \
        "header.site a{color:#fff;font-weight:600;text-decoration:none}" \
        "header.site .crumb{color:#c9d4df}" \
        "header.site .data{margin-left:auto;font-size:.85rem}header.site .data a{font-weight:400}" \
        "main{max-width:1340px;margin:0 auto;padding:1rem}" \
        "h1{font-size:1.45rem;margin:.3rem 0 .6rem}" \
        "h2{font-size:1.15rem;margin:1.6rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}" \
        "h3{font-size:1rem;margin:1.1rem 0 .4rem}" \
        "a{color:var(--accent)}" \
        "p.lead{color:var(--muted);margin:.2rem 0 .8rem}" \
        ".scroll{overflow-x:auto;max-width:100%}" \
        "table{border-collapse:collapse;margin:.3rem 0 .8rem;font-variant-numeric:tabular-nums}" \
        "th,td{border-bottom:1px solid var(--line);padding:.28rem .6rem;text-align:left;vertical-align:top;" \
        "white-space:nowrap}" \
        "th{background:var(--head);font-weight:600;font-size:.88rem}" \
        "td.num,th.num{text-align:right}" \
        "table.cmp{font-size:.86rem}table.cmp th,table.cmp td{padding:.24rem .42rem}" \
        /* a metric's name breaks after '.' and '_' (<wbr>) where its table is short of room */ \
        "td.metric,table.cmp td:first-child{white-space:normal;min-width:7rem}th.metric{white-space:normal}" \
        "table.cmp td.ci{white-space:normal;min-width:7rem}" \
        "td.wrap{white-space:normal;min-width:14rem}" \
        "td.sum{white-space:normal}th.kernel{white-space:normal}td.muted.wrap{min-width:10rem}" \
        "td.run{white-space:normal;min-width:9rem}" \
        "tbody tr:hover{background:#f7f9fb}" \
        /* a table of more columns than any screen holds (a kernel's every metric by run): a block per row, \
           its cells flowing as "label value" lines in as many columns as fit */ \
        "table.flow,table.flow tbody{display:block}table.flow thead{display:none}" \
        "table.flow tr{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,22rem),1fr));" \
        "column-gap:1.5rem;padding:.3rem 0;border-bottom:1px solid var(--line)}" \
        "table.flow td{display:block;border:0;padding:.08rem .3rem;white-space:normal;text-align:left;min-width:0}" \
        "table.flow td[data-label]::before{content:attr(data-label);display:inline-block;width:58%;" \
        "padding-right:.5rem;vertical-align:top;color:var(--muted)}" \
        "table.flow td:first-child{grid-column:1/-1;display:block}table.flow td:first-child::before{content:none}" \
        ".cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr));gap:0 2rem}" \
        ".cols h3{margin-top:.2rem}" \
        "dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.3rem 0 1rem}" \
        "dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;overflow-wrap:anywhere}" \
        ".state{display:inline-block;padding:0 .4rem;border-radius:3px;font-size:.85rem;font-weight:600}" \
        ".state.ok{background:var(--better);color:var(--better-fg)}" \
        ".state.bad{background:var(--worse);color:var(--worse-fg)}" \
        "td.worse{background:var(--worse);color:var(--worse-fg);font-weight:600}" \
        "td.better{background:var(--better);color:var(--better-fg);font-weight:600}" \
        "td.none{color:var(--muted)}" \
        ".muted{color:var(--muted)}" \
        /* two charts side by side from 2 x 580 px on; a chart is never drawn narrower than its viewBox \
           (report/svg.h), so its 12-unit labels stay 12 px: a phone shows the narrow variant */ \
        ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,580px),1fr));gap:1rem;" \
        "margin:.5rem 0 1rem}" \
        "figure{margin:0;border:1px solid var(--line);border-radius:4px;padding:.4rem;overflow-x:auto}" \
        "figcaption{font-size:.85rem;color:var(--muted);padding:.2rem .3rem}" \
        "svg.chart{width:100%;height:auto;display:block}" \
        "svg.wide{min-width:" G_STRINGIFY(SVG_WIDTH) "px}" \
        "svg.narrow{display:none;min-width:" G_STRINGIFY(SVG_NARROW) "px;max-width:440px}" \
        ".pairs{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,600px),1fr));gap:0 1.5rem}" \
        ".pair{border-left:4px solid var(--line);padding:.1rem 0 .1rem .8rem;margin:.7rem 0}" \
        ".overview{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,600px),1fr));gap:0 2rem}" \
        ".summary figure{margin-bottom:.8rem}" \
        ".pair.worse{border-left-color:var(--worse-fg)}.pair.better{border-left-color:var(--better-fg)}" \
        ".pair h3{margin:.1rem 0}.pair p{margin:.1rem 0 .3rem;font-size:.85rem}" \
        ".pair ul{margin:.2rem 0;padding-left:1.2rem}.pair li{margin:.2rem 0}" \
        "table.facts th{background:none;color:var(--muted);font-weight:400}table.facts td.wrap{min-width:8rem}" \
        "li code,dd{overflow-wrap:anywhere}" \
        "pre.log{background:#f6f8fa;border:1px solid var(--line);padding:.6rem;max-height:32rem;overflow:auto;" \
        "font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre}" \
        "details{margin:.4rem 0}summary{cursor:pointer;font-weight:600}" \
        "footer{max-width:1340px;margin:2rem auto 1rem;padding:0 1rem;color:var(--muted);font-size:.85rem}" \
        "@media (max-width:700px){body{font-size:14px}main{padding:.6rem}th,td{padding:.22rem .4rem}" \
        "h1{font-size:1.2rem}" \
        /* on a phone a table drops the columns a second reading needs (spread, tests, repeats) */ \
        ".opt{display:none}td.wrap,td.muted.wrap{min-width:8rem}}" \
        /* where a wide chart (560 px and the figure's frame) no longer fits: the narrow one, and a \
           record per block of "label value" lines */ \
        "@media (max-width:600px){svg.wide{display:none}svg.narrow{display:block}" \
        "td.metric{min-width:5rem}" \
        "table.cards,table.cards tbody,table.cards tr,table.cards td{display:block}" \
        "table.cards thead{display:none}" \
        "table.cards tr{border-bottom:1px solid var(--line);padding:.3rem 0}" \
        "table.cards td{border:0;padding:.05rem .3rem;white-space:normal;text-align:left;min-width:0;" \
        "overflow-wrap:anywhere}" \
        "table.cards td:empty,table.cards td.opt{display:none}" \
        "table.cards td[data-label]::before{content:attr(data-label);display:inline-block;width:42%;" \
        "padding-right:.5rem;vertical-align:top;color:var(--muted);font-size:.85rem;overflow-wrap:normal}" \
        /* a comparison's row: the metric on a line of its own, its figures in aligned columns below */ \
        "table.cmp,table.info,table.cmp thead,table.cmp tbody,table.info thead,table.info tbody{display:block}" \
        "table.cmp tr{display:grid;grid-template-columns:.9fr .9fr 1fr 1.5fr 1fr}" \
        "table.info tr{display:grid;grid-template-columns:1fr 1fr 1fr 2fr}" \
        "table.cmp th,table.cmp td,table.info th,table.info td{white-space:normal;min-width:0}" \
        "table.cmp td,table.info td{overflow-wrap:anywhere}" \
        "table.cmp :is(td,th):first-child,table.info :is(td,th):first-child{grid-column:1/-1;border-bottom:0}}" \
        "</style>"

void page_begin(struct html *h, const struct page_head *head) {
        html_literal(h, "<!DOCTYPE html>\n");
        html_start(h, "html");
        html_attr(h, "lang", "en");
        html_start(h, "head");
        html_start(h, "meta");
        html_attr(h, "charset", "utf-8");
        html_end_void(h);
        html_start(h, "meta");
        html_attr(h, "name", "viewport");
        html_attr(h, "content", "width=device-width, initial-scale=1");
        html_end_void(h);
        /* No script, no request: say so to the browser as well. */
        html_start(h, "meta");
        html_attr(h, "http-equiv", "Content-Security-Policy");
        html_attr(h, "content", "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
        html_end_void(h);
        html_start(h, "title");
        html_textf(h, "%s - kbench", head->title);
        html_end(h);
        /* Not fetched by the page: feed readers and browsers find the feed here. */
        if (head->feed) {
                html_start(h, "link");
                html_attr(h, "rel", "alternate");
                html_attr(h, "type", "application/atom+xml");
                html_attr(h, "title", "kbench regressions");
                html_attr(h, "href", head->feed);
                html_end_void(h);
        }
        html_literal(h, STYLE);
        html_end(h);
        html_start(h, "body");
        html_start(h, "header");
        html_attr(h, "class", "site");
        html_link(h, "index.html", "kbench results");
        if (head->crumb) {
                html_start(h, "span");
                html_attr(h, "class", "crumb");
                html_text(h, head->crumb);
                html_end(h);
        }
        if (head->json || head->feed) {
                html_start(h, "span");
                html_attr(h, "class", "data");
                if (head->feed)
                        html_link(h, head->feed, "Atom feed");
                if (head->feed && head->json)
                        html_text(h, " \u00b7 ");
                if (head->json)
                        html_link(h, head->json, "data (JSON)");
                html_end(h);
        }
        html_end(h);
        html_start(h, "main");
        html_elem(h, "h1", head->title);
}

void page_end(struct html *h) {
        html_end(h); /* main */
        html_start(h, "footer");
        html_text(h, "Published by kbench publish. Static page: no script, no external resources. ");
        html_text(h, "Statistics use ok cells only; the full samples stay in the results database.");
        html_end(h);
        html_end(h); /* body */
        html_end(h); /* html */
}

char *page_slug(const char *name) {
        GString *s = g_string_new(NULL);
        int changed = 0;
        size_t len = strlen(name);

        for (size_t i = 0; i < len; i++) {
                char c = name[i];
                int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                         c == '_' || (c == '.' && i > 0);

                if (s->len >= 48) {
                        changed = 1;
                        break;
                }
                g_string_append_c(s, ok ? c : '_');
                changed |= !ok;
        }
        if (s->len == 0)
                changed = 1;
        if (changed)
                g_string_append_printf(s, "-%08x", crc32_update(0, name, len));
        return g_string_free(s, FALSE);
}

char *page_run_file(int64_t run_id) {
        return g_strdup_printf("run-%lld.html", (long long)run_id);
}

char *page_cell_file(int64_t run_id, const char *cell_key) {
        g_autofree char *k = page_slug(cell_key);

        return g_strdup_printf("cell-%lld-%s.html", (long long)run_id, k);
}

char *page_kernel_file(const char *kernel_name) {
        g_autofree char *k = page_slug(kernel_name);

        return g_strdup_printf("kernel-%s.html", k);
}

char *page_compare_file(const char *sel_a, const char *sel_b) {
        g_autofree char *a = page_slug(sel_a), *b = page_slug(sel_b);

        return g_strdup_printf("compare-%s-vs-%s.html", a, b);
}

char *page_bisect_file(int64_t bisection_id) {
        return g_strdup_printf("bisect-%lld.html", (long long)bisection_id);
}

char *page_json_file(const char *html_file) {
        size_t n = strlen(html_file);

        if (n > 5 && strcmp(html_file + n - 5, ".html") == 0)
                n -= 5;
        return g_strdup_printf("%.*s.json", (int)n, html_file);
}

void page_format_num(double v, char *buf, size_t size) {
        if (!isfinite(v))
                snprintf(buf, size, "-");
        else
                text_format_num(v, buf, size);
}

/* Stored units the site shows in another: amounts of bytes in MiB. Rates
 * stay in MB/s, dd's own unit, which the host's rates share. */
static const struct {
        const char *stored, *shown;
        double factor;
} shown_units[] = {
        { "MB", "MiB", 1e6 / (1024.0 * 1024.0) },
};

/* The factor from a stored unit to the one the site shows it in
 * (OUT: *ret_shown; unit itself and 1 when it is shown as stored). */
static double shown_factor(const char *unit, const char **ret_shown) {
        *ret_shown = unit;
        for (size_t i = 0; unit && i < G_N_ELEMENTS(shown_units); i++)
                if (strcmp(unit, shown_units[i].stored) == 0) {
                        *ret_shown = shown_units[i].shown;
                        return shown_units[i].factor;
                }
        return 1;
}

const char *page_unit(const char *unit) {
        const char *shown;

        shown_factor(unit, &shown);
        return shown;
}

double page_scale(double maxabs, const char *unit, const char **ret_unit) {
        if (unit && strcmp(unit, "s") == 0)
                return text_unit_scale(maxabs, unit, ret_unit);
        return shown_factor(unit, ret_unit);
}

double page_maxabs(const double *v, size_t n) {
        double maxabs = 0;

        for (size_t i = 0; i < n; i++)
                if (isfinite(v[i]))
                        maxabs = fmax(maxabs, fabs(v[i]));
        return maxabs;
}

const char *page_scale_values(double *v, size_t n, const char *unit) {
        const char *shown;
        double k = page_scale(page_maxabs(v, n), unit, &shown);

        for (size_t i = 0; i < n && k != 1; i++)
                v[i] *= k;
        return shown;
}

void page_format_value(double v, const char *unit, char *buf, size_t size) {
        const char *shown;
        int seconds = unit && strcmp(unit, "s") == 0;

        v *= shown_factor(unit, &shown);
        if (!isfinite(v))
                snprintf(buf, size, "-");
        else if (seconds && fabs(v) < 1e6)
                text_format_value(v, unit, 1, buf, size);
        else if (seconds) {
                /* no store's time is this long: digits as text_format_num keeps them, never cut */
                char num[40];

                text_format_num(v, num, sizeof(num));
                snprintf(buf, size, "%s s", num);
        } else
                text_format_num(v, buf, size);
}

void page_format_time(double unix_time, char *buf, size_t size) {
        struct tm tm;
        time_t t;

        if (!isfinite(unix_time) || unix_time <= 0) {
                snprintf(buf, size, "-");
                return;
        }
        t = (time_t)unix_time;
        gmtime_r(&t, &tm);
        strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm);
}

void page_format_rfc3339(double unix_time, char *buf, size_t size) {
        struct tm tm;
        time_t t = isfinite(unix_time) && unix_time > 0 ? (time_t)unix_time : 0;

        gmtime_r(&t, &tm);
        strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void page_td_num(struct html *h, double v) {
        char b[64];

        page_format_num(v, b, sizeof(b));
        html_start(h, "td");
        html_attr(h, "class", "num");
        html_text(h, b);
        html_end(h);
}

void page_td_text(struct html *h, const char *text) {
        html_elem(h, "td", text ? text : "-");
}

void page_td_int(struct html *h, long long v) {
        html_start(h, "td");
        html_attr(h, "class", "num");
        html_textf(h, "%lld", v);
        html_end(h);
}

void page_state(struct html *h, const char *state) {
        html_start(h, "span");
        html_attr(h, "class", cellstate_is(state, CELLSTATE_OK) ? "state ok" : "state bad");
        html_text(h, state ? state : "?");
        html_end(h);
}

void page_td_wrap(struct html *h, const char *text) {
        html_start(h, "td");
        html_attr(h, "class", "wrap");
        html_text(h, text ? text : "");
        html_end(h);
}

void page_td_state(struct html *h, const char *state) {
        html_start(h, "td");
        page_state(h, state);
        html_end(h);
}

void page_left_out(struct html *h, size_t n, const char *what, const char *where) {
        if (!n)
                return;
        html_start(h, "p");
        html_attr(h, "class", "muted");
        html_textf(h, "%zu more %s are not shown on this page (at most %d a table, %d charts); ", n, what,
                   PAGE_METRICS_MAX, PAGE_CHARTS_MAX);
        html_start(h, "code");
        html_text(h, where);
        html_end(h);
        html_text(h, " lists them all.");
        html_end(h);
}
