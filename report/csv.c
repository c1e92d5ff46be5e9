/* report/csv.c: views as CSV (see csv.h). */
#include <math.h>
#include <string.h>

#include "report/csv.h"

/* One text field: quoted when it holds a separator, a quote or a line
 * end; a leading = + - @ (or tab, carriage return) gets a ' first, as
 * spreadsheets advise, since such a field is a formula to them. */
static void put_field(FILE *out, const char *s) {
        int quote, guard;

        if (!s)
                s = "";
        quote = strpbrk(s, ",\"\r\n") != NULL;
        guard = *s && strchr("=+-@\t\r", *s);
        if (quote || guard)
                fputc('"', out);
        if (guard)
                fputc('\'', out);
        for (; *s; s++) {
                if (*s == '"')
                        fputc('"', out);
                fputc(*s, out);
        }
        if (quote || guard)
                fputc('"', out);
}

/* A number in full precision, or an empty field when it is not finite. */
static void put_num(FILE *out, double v) {
        if (isfinite(v))
                fprintf(out, "%.10g", v);
}

static void put_sep(FILE *out) {
        fputc(',', out);
}

static void compare_row(const struct compare_group *g, const struct compare_metric *m, FILE *out) {
        int amount = m->info.floor > 0;

        put_field(out, g->spec);
        put_sep(out);
        put_field(out, g->workload);
        put_sep(out);
        put_field(out, m->name);
        put_sep(out);
        put_field(out, m->unit);
        fprintf(out, ",%d,%zu,", m->judged, m->na);
        put_num(out, m->sa.mean);
        put_sep(out);
        put_num(out, m->sa.sd);
        fprintf(out, ",%zu,", m->nb);
        put_num(out, m->sb.mean);
        put_sep(out);
        put_num(out, m->sb.sd);
        put_sep(out);
        put_num(out, amount ? m->diff.estimate : m->change);
        put_sep(out);
        put_num(out, amount ? m->diff.lo : m->ratio.lo - 1);
        put_sep(out);
        put_num(out, amount ? m->diff.hi : m->ratio.hi - 1);
        put_sep(out);
        put_num(out, m->ttest.p);
        put_sep(out);
        put_num(out, m->q);
        put_sep(out);
        put_field(out, m->verdict == COMPARE_INFO ? "" : compare_verdict_name(m->verdict));
        fputs("\r\n", out);
}

void csv_compare(const struct compare_view *v, FILE *out) {
        fputs("group,workload,metric,unit,judged,a_n,a_mean,a_sd,b_n,b_mean,b_sd,change,ci_lo,ci_hi,p,q,verdict\r\n",
              out);
        for (size_t i = 0; i < v->n_groups; i++)
                for (size_t j = 0; j < v->groups[i].n_m; j++)
                        compare_row(&v->groups[i], &v->groups[i].m[j], out);
}

void csv_run(const struct view_run *v, FILE *out) {
        fputs("run,cell,kernel,workload,iteration,attempt,state,metric,value,unit\r\n", out);
        for (size_t i = 0; i < v->n_cells; i++) {
                const struct query_cell *c = &v->cells[i];

                for (size_t k = 0; k < v->n_metrics[i]; k++) {
                        const struct query_metric *m = &v->metrics[i][k];

                        fprintf(out, "%lld,", (long long)c->run_id);
                        put_field(out, c->cell_key);
                        put_sep(out);
                        put_field(out, c->kernel_name);
                        put_sep(out);
                        put_field(out, c->workload);
                        fprintf(out, ",%d,%d,", c->iteration + 1, c->attempt);
                        put_field(out, c->state);
                        put_sep(out);
                        put_field(out, m->name);
                        put_sep(out);
                        put_num(out, m->has_value ? m->value : NAN);
                        put_sep(out);
                        put_field(out, m->unit);
                        fputs("\r\n", out);
                }
        }
}
