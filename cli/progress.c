/* progress.c: the run's progress display (see progress.h). */
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "common/utf8.h"
#include "common/util.h"
#include "cli/progress.h"

static void fmt_dur(char *buf, size_t size, double s) {
        int t = (int)(s + 0.5);

        if (t >= 3600)
                g_snprintf(buf, size, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
        else
                g_snprintf(buf, size, "%d:%02d", t / 60, t % 60);
}

void progress_init(struct progress *p, size_t total) {
        *p = (struct progress){ .tty = isatty(STDERR_FILENO), .total = total, .t0_us = g_get_monotonic_time() };
}

void progress_begin(struct progress *p, size_t index, const char *label) {
        p->cell_t0_us = g_get_monotonic_time();
        g_snprintf(p->label, sizeof(p->label), "[%zu/%zu] %s", index + 1, p->total, label);
        progress_stage(p, "prepare");
}

void progress_stage(struct progress *p, const char *stage) {
        char el[32], eta[32] = "?";
        double elapsed = (double)(g_get_monotonic_time() - p->t0_us) / 1e6;

        if (!p->tty)
                return;
        fmt_dur(el, sizeof(el), elapsed);
        if (p->finished > 0)
                fmt_dur(eta, sizeof(eta), p->finished_s / (double)p->finished * (double)(p->total - p->finished));
        {
                _cleanup_free_ char *label = utf8_mask(p->label);

                fprintf(stderr, "\r\033[K%s: %s  elapsed %s  ETA %s", label, stage, el, eta);
        }
        fflush(stderr);
}

/* A cell's label names its kernel (the store's names/) and its detail
 * quotes the guest's console: both in the terminal-safe form. */
void progress_end(struct progress *p, const char *state, const char *detail) {
        double s = (double)(g_get_monotonic_time() - p->cell_t0_us) / 1e6;
        _cleanup_free_ char *label = utf8_mask(p->label), *shown = utf8_mask(detail ? detail : "");

        p->finished++;
        p->finished_s += s;
        fprintf(stderr, "%s%s: %s (%.1f s)%s%s\n", p->tty ? "\r\033[K" : "", label, state, s,
                *shown ? ": " : "", shown);
}

void progress_end_line(struct progress *p, const char *label, double seconds, const char *state, const char *detail) {
        _cleanup_free_ char *lshown = utf8_mask(label), *shown = utf8_mask(detail ? detail : "");

        p->finished++;
        p->finished_s += seconds;
        fprintf(stderr, "[%zu/%zu] %s: %s (%.1f s)%s%s\n", p->finished, p->total, lshown, state, seconds,
                *shown ? ": " : "", shown);
}

void progress_note(struct progress *p, const char *fmt, ...) {
        va_list ap;

        if (p->tty)
                fputs("\r\033[K", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}
