/* report/show.c: `kbench show` and the summary `kbench run` ends with, as
 * glue between the CLI and the read side: load a view (report/view.c),
 * hand it to the text or JSON renderer (report/text.c, report/json.c). */
#include <errno.h>
#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "report/show.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/text.h"
#include "report/textbisect.h"
#include "report/textcompare.h"
#include "report/textrun.h"
#include "report/view.h"
#include "results/bisect.h"

int show_runs(struct db *db, int json, FILE *out, struct kb_error *err) {
        struct view_runs *v = NULL;
        int r;

        r = view_runs_load(db, &v, err);
        if (r < 0)
                return r;
        if (json) {
                json_t *j = json_view_runs(v);
                r = json_view_print(j, out, err);
                json_decref(j);
        } else
                textrun_runs(v, out);
        view_runs_free(v);
        return r;
}

int show_tags(struct db *db, FILE *out, struct kb_error *err) {
        struct view_runs *v = NULL;
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        int r;

        r = view_runs_load(db, &v, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < v->n; i++) {
                const char *t = v->runs[i].tag;
                int clean = t && *t && g_utf8_validate(t, -1, NULL);

                /* One tag a line for the shell: a tag with a control
                 * character (a newline would forge a second tag) is left
                 * out rather than masked into a tag no run has. */
                for (const char *p = t; clean && *p; p++)
                        clean = (unsigned char)*p >= 0x20 && *p != 0x7f;
                if (!clean || !g_hash_table_add(seen, (gpointer)t))
                        continue;
                fprintf(out, "%s\n", t);
        }
        view_runs_free(v);
        return 0;
}

int show_resolve_run(struct db *db, const char *text, int64_t *ret_id, struct kb_error *err) {
        return view_resolve_run(db, text, ret_id, err);
}

int show_run(struct db *db, int64_t run_id, const struct show_opts *o, FILE *out, struct kb_error *err) {
        struct textrun_opts t = { .all = o->all, .width = o->width, .upstream = o->upstream,
                                  .upstream_ctx = o->upstream_ctx };
        struct view_run *v = NULL;
        int r;

        r = view_run_load(db, run_id, &v, err);
        if (r < 0)
                return r;
        if (o->format == SHOW_JSON) {
                json_t *j = json_view_run(v);
                r = json_view_print(j, out, err);
                json_decref(j);
        } else if (o->format == SHOW_CSV)
                csv_run(v, out);
        else if (o->brief)
                textrun_brief(v, &t, out);
        else
                textrun_run(v, &t, out);
        view_run_free(v);
        return r;
}

/* One cell, through one of its renderings (JSON or text). */
static int show_cell_as(struct db *db, int64_t run_id, const char *cell_key, int json, FILE *out,
                        json_t *(*to_json)(const struct view_cell *), void (*to_text)(const struct view_cell *, FILE *),
                        struct kb_error *err) {
        struct view_cell *v = NULL;
        int r;

        r = view_cell_load(db, run_id, cell_key, &v, err);
        if (r < 0)
                return r;
        if (json) {
                json_t *j = to_json(v);
                r = j ? json_view_print(j, out, err) : error_setf(err, -ENOMEM, "out of memory");
                json_decref(j);
        } else
                to_text(v, out);
        view_cell_free(v);
        return r;
}

int show_cell(struct db *db, int64_t run_id, const char *cell_key, int json, FILE *out,
              struct kb_error *err) {
        return show_cell_as(db, run_id, cell_key, json, out, json_view_cell, text_cell, err);
}

int show_cell_vmstat(struct db *db, int64_t run_id, const char *cell_key, int json, FILE *out,
                     struct kb_error *err) {
        return show_cell_as(db, run_id, cell_key, json, out, json_view_cell_vmstat, text_cell_vmstat, err);
}

int show_cell_log(struct db *db, int64_t run_id, const char *cell_key, const char *stream, int terminal,
                  FILE *out, struct kb_error *err) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r;

        r = view_cell_log(db, run_id, cell_key, stream, &text, &len, err);
        if (r < 0)
                return r;
        /* A failed write stays in out's error flag, for the verb's one
         * check of its output. */
        text_log(text, len, terminal, out);
        return 0;
}

static int put_json(json_t *j, FILE *out, struct kb_error *err) {
        int r = json_view_print(j, out, err);

        json_decref(j);
        return r;
}

int show_bisections(struct db *db, int json, FILE *out, struct kb_error *err) {
        struct bisect_row *rows = NULL;
        size_t n = 0;
        int r = db_bisections_list(db, &rows, &n, err);

        if (r < 0)
                return r;
        if (json) {
                json_t *a = json_array();

                for (size_t i = 0; i < n; i++)
                        json_array_append_new(a, json_bisection(&rows[i]));
                bisect_rows_free(rows, n);
                return put_json(a, out, err);
        }
        if (n == 0)
                fprintf(out, "no bisections (kbench bisect starts one)\n");
        for (size_t i = 0; i < n; i++) {
                fprintf(out, "%-4lld ", (long long)rows[i].id);
                text_put(out, rows[i].metric, 28);
                fputc(' ', out);
                text_put(out, rows[i].status, 8);
                fputc(' ', out);
                text_put(out, rows[i].outcome, 12);
                fputc(' ', out);
                text_put(out, rows[i].first_bad, 0);
                fputc('\n', out);
        }
        bisect_rows_free(rows, n);
        return 0;
}

int show_bisection(struct db *db, int64_t id, int json, FILE *out, struct kb_error *err) {
        struct bisect_row *b = NULL;
        int r = db_bisection_get(db, id, &b, err);

        if (r < 0)
                return r;
        if (json) {
                r = put_json(json_bisection(b), out, err);
                bisect_rows_free(b, 1);
                return r;
        }
        text_bisection(b, NULL, TEXTCOMPARE_WIDTH, out);
        bisect_rows_free(b, 1);
        return 0;
}
