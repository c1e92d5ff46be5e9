/* report/vmstatout.c: `kbench vmstat`'s output, a renderer beside text.c
 * and json.c: the table the vmstat parser made (workloads/vmstat.h), its
 * per-column summary and its stall and pause runs, as text or as the JSON
 * object docs/vmstat.md describes. The parsing and the analysis stay in
 * workloads/vmstat.c and vmstat_metrics.c; this file only writes what they found. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "common/util.h"
#include "report/vmstatout.h"

/* Counters stay integers in JSON; NAN (no value) is null. */
static json_t *num_json(double v) {
        if (isnan(v) || isinf(v))
                return json_null();
        if (v == floor(v) && fabs(v) < 9007199254740992.0)
                return json_integer((json_int_t)v);
        return json_real(v);
}

static int jset(json_t *o, const char *k, json_t *v) {
        return v && json_object_set_new(o, k, v) == 0 ? 0 : -ENOMEM;
}

static json_t *runs_json(const struct vmstat_run *runs, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++) {
                json_t *o = json_object();
                if (!o || jset(o, "start", json_integer((json_int_t)runs[i].start)) < 0 ||
                    jset(o, "length", json_integer((json_int_t)runs[i].length)) < 0 ||
                    jset(o, "seconds", num_json(runs[i].seconds)) < 0 || json_array_append_new(a, o) < 0) {
                        json_decref(o);
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static json_t *stalls_json(const struct vmstat_stalls *s) {
        json_t *o = json_object(), *p = NULL;

        if (!o || jset(o, "threshold", num_json(s->threshold)) < 0 ||
            jset(o, "interval", num_json(s->interval)) < 0 ||
            jset(o, "count", json_integer((json_int_t)s->count)) < 0 ||
            jset(o, "longest_s", num_json(s->longest_s)) < 0 || jset(o, "total_s", num_json(s->total_s)) < 0 ||
            jset(o, "fraction", num_json(s->fraction)) < 0 || jset(o, "runs", runs_json(s->runs, s->count)) < 0)
                goto fail;
        if (s->have_times) {
                p = json_object();
                if (!p || jset(p, "threshold", num_json(1.5 * s->interval)) < 0 ||
                    jset(p, "interval", num_json(s->interval)) < 0 ||
                    jset(p, "count", json_integer((json_int_t)s->pause_count)) < 0 ||
                    jset(p, "longest_s", num_json(s->pause_longest_s)) < 0 ||
                    jset(p, "total_s", num_json(s->pause_total_s)) < 0 ||
                    jset(p, "fraction", num_json(s->pause_fraction)) < 0 ||
                    jset(p, "runs", runs_json(s->pauses, s->pause_count)) < 0 ||
                    jset(o, "pauses", TAKE_PTR(p)) < 0)
                        goto fail;
        }
        return o;
fail:
        json_decref(p);
        json_decref(o);
        return NULL;
}

/* Sample i as {"col": value, ..., "t": ..., "first": true}. Returns a new
 * reference or NULL on -ENOMEM. */
static json_t *sample_json(const struct vmstat_table *t, size_t i) {
        json_t *o = json_object();

        for (size_t c = 0; o && c < t->ncols; c++) {
                double v = t->values[i * t->ncols + c];
                if (!isnan(v) && jset(o, t->cols[c], num_json(v)) < 0)
                        goto fail;
        }
        if (o && !isnan(t->samples[i].t) && jset(o, "t", num_json(t->samples[i].t)) < 0)
                goto fail;
        if (o && t->samples[i].first && jset(o, "first", json_true()) < 0)
                goto fail;
        return o;
fail:
        json_decref(o);
        return NULL;
}

/* The JSON object of vmstatout_json(), with its "samples" array only when
 * with_samples. Returns a new reference or NULL on -ENOMEM/-EINVAL. */
static json_t *json_build(const struct vmstat_table *t, double threshold, double interval,
                                 int with_samples) {
        json_t *root, *cols, *samples, *summary;
        struct vmstat_stalls *st = NULL;
        int r;

        if (!t)
                return NULL;
        root = json_object();
        cols = json_array();
        samples = json_array();
        summary = json_object();
        if (!root || !cols || !samples || !summary)
                goto fail;
        for (size_t c = 0; c < t->ncols; c++)
                if (json_array_append_new(cols, json_string(t->cols[c])) < 0)
                        goto fail;
        for (size_t i = 0; with_samples && i < t->nsamples; i++)
                if (json_array_append_new(samples, sample_json(t, i)) < 0)
                        goto fail;
        for (size_t c = 0; c < t->ncols; c++) {
                struct vmstat_summary s;
                json_t *o;
                vmstat_summary(t, (int)c, NAN, NAN, &s);
                o = json_object();
                if (!o || json_object_set_new(summary, t->cols[c], o) < 0 ||
                    jset(o, "n", json_integer((json_int_t)s.n)) < 0 || jset(o, "mean", num_json(s.mean)) < 0 ||
                    jset(o, "min", num_json(s.min)) < 0 || jset(o, "max", num_json(s.max)) < 0 ||
                    jset(o, "stddev", num_json(s.stddev)) < 0 || jset(o, "cov", num_json(s.cov)) < 0)
                        goto fail;
        }
        if (jset(root, "columns", TAKE_PTR(cols)) < 0 ||
            (with_samples && jset(root, "samples", TAKE_PTR(samples)) < 0) ||
            jset(root, "rejected", json_integer((json_int_t)t->rejected)) < 0 ||
            jset(root, "dropped", json_integer((json_int_t)t->dropped)) < 0 ||
            jset(root, "summary", TAKE_PTR(summary)) < 0 ||
            jset(root, "note", t->note ? json_string(t->note) : json_null()) < 0)
                goto fail;
        r = vmstat_stalls(t, threshold, interval, NAN, NAN, &st);
        if (r == 0 && !vmstat_table_has_values(t, vmstat_table_col(t, "bo"))) {
                st = vmstat_stalls_free(st);
                r = -ENOENT;
        }
        if (r == -ENOENT) {
                /* No bo values: nothing to call a stall. */
                if (jset(root, "stalls", json_null()) < 0)
                        goto fail;
        } else if (r < 0 || jset(root, "stalls", stalls_json(st)) < 0)
                goto fail;
        vmstat_stalls_free(st);
        json_decref(samples);
        return root;
fail:
        vmstat_stalls_free(st);
        json_decref(cols);
        json_decref(samples);
        json_decref(summary);
        json_decref(root);
        return NULL;
}

json_t *vmstatout_json(const struct vmstat_table *t, double threshold, double interval) {
        return json_build(t, threshold, interval, 1);
}

int vmstatout_json_dumpf(const struct vmstat_table *t, double threshold, double interval, FILE *f) {
        static const char *const keys[] = { "rejected", "dropped", "note", "summary", "stalls" };
        json_t *root = json_build(t, threshold, interval, 0);
        int r = -ENOMEM;

        if (!root)
                return -ENOMEM;
        if (fputs("{\n  \"columns\": ", f) < 0 ||
            json_dumpf(json_object_get(root, "columns"), f, JSON_COMPACT | KB_JSON_OUT) < 0 ||
            fputs(",\n  \"samples\": [", f) < 0)
                goto out_io;
        for (size_t i = 0; i < t->nsamples; i++) {
                json_t *o = sample_json(t, i);
                int w;
                if (!o)
                        goto out;
                w = fputs(i ? ",\n    " : "\n    ", f) < 0 || json_dumpf(o, f, JSON_COMPACT | KB_JSON_OUT) < 0;
                json_decref(o);
                if (w)
                        goto out_io;
        }
        if (fputs(t->nsamples ? "\n  ]" : "]", f) < 0)
                goto out_io;
        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                if (fprintf(f, ",\n  \"%s\": ", keys[k]) < 0 ||
                    json_dumpf(json_object_get(root, keys[k]), f, JSON_INDENT(2) | JSON_ENCODE_ANY | KB_JSON_OUT) < 0)
                        goto out_io;
        if (fputs("\n}\n", f) < 0)
                goto out_io;
        r = 0;
        goto out;
out_io:
        r = -EIO;
out:
        json_decref(root);
        return r;
}

/* A statistic, or "n/a" where there is none (no samples, a mean of 0). */
static void print_num(char *buf, size_t size, int width, int precision, double v) {
        if (isnan(v))
                snprintf(buf, size, "%*s", width, "n/a");
        else
                snprintf(buf, size, "%*.*g", width, precision, v);
}

static void print_runs(FILE *f, const char *what, const struct vmstat_run *runs, size_t n) {
        if (n == 0)
                return;
        fprintf(f, "  %8s %8s %9s\n", "start", what, "seconds");
        for (size_t i = 0; i < n; i++)
                fprintf(f, "  %8zu %8zu %9.6g\n", runs[i].start, runs[i].length, runs[i].seconds);
}

int vmstatout_print(const struct vmstat_table *t, double threshold, double interval, FILE *f) {
        struct vmstat_stalls *s = NULL;
        int r;

        fputs("columns:", f);
        for (size_t c = 0; c < t->ncols; c++)
                fprintf(f, " %s", t->cols[c]);
        fprintf(f, "\nsamples: %zu  rejected: %zu  captures: %u", t->nsamples, t->rejected, t->ncaptures);
        if (t->dropped)
                fprintf(f, "  dropped past the %u-value bound: %zu", VMSTAT_VALUES_MAX, t->dropped);
        if (t->skipped)
                fprintf(f, "  skipped first rows: %zu", t->skipped);
        if (t->note)
                fprintf(f, "\nnote: %s", t->note);
        fprintf(f, "\n\n%-10s %8s %12s %12s %12s %12s %8s\n", "column", "n", "mean", "min", "max", "stddev",
                "cov");
        for (size_t c = 0; c < t->ncols; c++) {
                struct vmstat_summary sm;
                char v[5][24];
                vmstat_summary(t, (int)c, NAN, NAN, &sm);
                print_num(v[0], sizeof(v[0]), 12, 6, sm.mean);
                print_num(v[1], sizeof(v[1]), 12, 6, sm.min);
                print_num(v[2], sizeof(v[2]), 12, 6, sm.max);
                print_num(v[3], sizeof(v[3]), 12, 6, sm.stddev);
                print_num(v[4], sizeof(v[4]), 8, 3, sm.cov);
                fprintf(f, "%-10s %8zu %12s %12s %12s %12s %8s\n", t->cols[c], sm.n, v[0], v[1], v[2], v[3], v[4]);
        }
        r = vmstat_stalls(t, threshold, interval, NAN, NAN, &s);
        if (r == 0 && !vmstat_table_has_values(t, vmstat_table_col(t, "bo"))) {
                s = vmstat_stalls_free(s);
                r = -ENOENT;
        }
        if (r == -ENOENT) {
                fputs("\nstalls: no bo values\n", f);
                return 0;
        }
        if (r < 0)
                return r;
        fprintf(f, "\nstalls (bo <= %g, interval %g s): %zu runs, longest %g s, total %g s, %.1f%% of %zu samples\n",
                s->threshold, s->interval, s->count, s->longest_s, s->total_s, 100.0 * s->fraction, s->n);
        print_runs(f, "length", s->runs, s->count);
        if (s->have_times) {
                fprintf(f, "\npauses (gap > %g s): %zu, longest %g s, total %g s, %.1f%% of the time\n",
                        1.5 * s->interval, s->pause_count, s->pause_longest_s, s->pause_total_s,
                        100.0 * s->pause_fraction);
                print_runs(f, "missed", s->pauses, s->pause_count);
        }
        vmstat_stalls_free(s);
        return 0;
}
