/* host/insncount.c: instruction counts from the TCG plugin, read at the
 * job's phase marks (see insncount.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/util.h"
#include "host/insncount.h"
#include "host/vm.h"

/* The header checks every reader makes. */
static int file_check(const void *buf, size_t len, struct insncount_file *f) {
        static const char zero[8];

        if (len < INSNCOUNT_FILE_SIZE)
                return -EBADMSG;
        memcpy(f, buf, INSNCOUNT_FILE_SIZE);
        if (memcmp(f->magic, zero, sizeof(zero)) == 0)
                return -EAGAIN;
        if (memcmp(f->magic, INSNCOUNT_MAGIC, sizeof(f->magic)) != 0 || f->version != INSNCOUNT_VERSION ||
            f->n_vcpus < 1 || f->n_vcpus > INSNCOUNT_VCPUS_MAX)
                return -EBADMSG;
        return 0;
}

int insncount_parse_mark(const void *buf, size_t len, size_t k, struct insncount_totals *ret) {
        struct insncount_file f;
        int r = file_check(buf, len, &f);

        if (r < 0)
                return r;
        if (k >= INSNCOUNT_MARKS_MAX || f.n_marks <= k)
                return -ENOENT;
        *ret = (struct insncount_totals){
                .insns = { f.marks[k].insns[INSNCOUNT_USER], f.marks[k].insns[INSNCOUNT_KERNEL] },
                .pauses = f.marks[k].pauses,
                .spin_ns = f.marks[k].spin_ns,
                .wait_ns = f.marks[k].wait_ns,
                .t_ns = f.marks[k].t_ns,
                .halt_longest_ns = f.marks[k].halt_longest_ns,
        };
        return 0;
}

int insncount_parse(const void *buf, size_t len, struct insncount_totals *ret) {
        struct insncount_file f;
        struct insncount_totals t = { .wait_ns = 0 };
        int r = file_check(buf, len, &f);

        if (r < 0)
                return r;
        /* Unsigned sums wrap rather than overflow; a wrapped total only
         * makes a nonsense metric of a QEMU that wrote nonsense. */
        for (uint32_t i = 0; i < f.n_vcpus; i++) {
                t.insns[INSNCOUNT_USER] += f.vcpu[i].insns[INSNCOUNT_USER];
                t.insns[INSNCOUNT_KERNEL] += f.vcpu[i].insns[INSNCOUNT_KERNEL];
                t.pauses += f.vcpu[i].pauses;
                t.spin_ns += f.vcpu[i].spin_ns;
        }
        t.wait_ns = f.wait_ns;
        *ret = t;
        return 0;
}

int insncount_file_create(const char *path, const struct vm_qemu_user *u, struct kb_error *err) {
        return vm_qemu_file_create(path, INSNCOUNT_FILE_SIZE, u, err);
}

int insncount_read(int fd, size_t k, struct insncount_totals *ret, int *ret_at_marker) {
        char buf[INSNCOUNT_FILE_SIZE];
        ssize_t n = pread(fd, buf, sizeof(buf), 0);
        struct timespec ts;
        int r;

        if (n < 0)
                return -errno;
        r = insncount_parse_mark(buf, (size_t)n, k, ret);
        *ret_at_marker = r == 0;
        if (r == 0)
                return 0;
        /* The running totals are read now: their time is now (the plugin's
         * clock is the same CLOCK_MONOTONIC). */
        r = insncount_parse(buf, (size_t)n, ret);
        if (r == 0 && clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
                ret->t_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        return r;
}

int insncount_phase_name(const char *s, size_t len, char *out) {
        size_t o = 0;
        int word = 0;

        for (size_t i = 0; i < len; i++) {
                char ch = s[i];

                if (ch == ' ') {
                        if (!word)
                                return 0;
                        word = 0;
                        continue;
                }
                if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
                        return 0;
                if (!word && o > 0)
                        out[o++] = '.';
                if (o >= INSNCOUNT_PHASE_NAME_MAX)
                        return 0;
                out[o++] = ch;
                word = 1;
        }
        out[o] = '\0';
        return o > 0 && word;
}

int insncount_phase_mark(const char *text, size_t len, char *out) {
        if (len < 7 || memcmp(text, "phase ", 6) != 0)
                return 0;
        if (!insncount_phase_name(text + 6, len - 6, out))
                out[0] = '\0';
        return 1;
}

int insncount_mark(struct insncount_marks *m, const char *text, size_t len, const struct insncount_totals *at) {
        if (m->n >= INSNCOUNT_PHASES_MAX || !insncount_phase_mark(text, len, m->v[m->n].phase))
                return 0;
        m->v[m->n++].at = *at;
        return 1;
}

int insncount_parse_pmu(const char *payload, size_t len, struct insncount_totals *ret) {
        char buf[64], *kernel;
        uint64_t u, k;

        if (len == 4 && memcmp(payload, "lost", 4) == 0)
                return -EIO;
        if (len < 7 || len >= sizeof(buf) || memcmp(payload, "user=", 5) != 0)
                return -EBADMSG;
        memcpy(buf, payload, len);
        buf[len] = '\0';
        if (strlen(buf) != len)
                return -EBADMSG;
        kernel = strstr(buf, " kernel=");
        if (!kernel)
                return -EBADMSG;
        *kernel = '\0';
        if (parse_u64(buf + 5, &u) < 0 || parse_u64(kernel + 8, &k) < 0)
                return -EBADMSG;
        *ret = (struct insncount_totals){ .insns = { [INSNCOUNT_USER] = u, [INSNCOUNT_KERNEL] = k } };
        return 0;
}

/* One phase's figures from the totals at its mark (a) and the next (b).
 * Totals only grow; a smaller one is a QEMU that restarted or lied, and
 * that figure is stored without a value. */
static int phase_metrics(const char *phase, const struct insncount_totals *a, const struct insncount_totals *b,
                         int insns_only, struct metric_list *metrics) {
        const struct {
                const char *what, *unit;
                uint64_t from, to;
                double scale;
        } figs[] = {
                { "user_Minsn", "Minsn", a->insns[INSNCOUNT_USER], b->insns[INSNCOUNT_USER], 1e-6 },
                { "kernel_Minsn", "Minsn", a->insns[INSNCOUNT_KERNEL], b->insns[INSNCOUNT_KERNEL], 1e-6 },
                { "wait_s", "s", a->wait_ns, b->wait_ns, 1e-9 },
                { "spin_s", "s", a->spin_ns, b->spin_ns, 1e-9 },
                { "kernel_pauses", "pauses", a->pauses, b->pauses, 1 },
                { "wall_s", "s", a->t_ns, b->t_ns, 1e-9 },
        };

        /* The instruction counts come first in figs[]. */
        for (size_t f = 0; f < (insns_only ? 2 : ELEMENTSOF(figs)); f++) {
                char name[96];
                int r;

                snprintf(name, sizeof(name), "guest.%s.%s", phase, figs[f].what);
                if (strcmp(figs[f].what, "wall_s") == 0 && (a->t_ns == 0 || b->t_ns == 0))
                        r = metric_add_none(metrics, name, figs[f].unit, "no time at a phase mark");
                else if (figs[f].to < figs[f].from)
                        r = metric_add_none(metrics, name, figs[f].unit, "the counter went backwards");
                else
                        r = metric_add(metrics, name, (double)(figs[f].to - figs[f].from) * figs[f].scale,
                                       figs[f].unit);
                if (r < 0)
                        return r;
        }
        /* Not a running total: the next mark holds the phase's longest stall. */
        if (!insns_only) {
                char name[96];

                snprintf(name, sizeof(name), "guest.%s.halt_longest_s", phase);
                return metric_add(metrics, name, (double)b->halt_longest_ns * 1e-9, "s");
        }
        return 0;
}

int insncount_each_span(const char *phases, size_t stride, size_t n,
                        int (*fn)(const void *marks, size_t i, struct metric_list *metrics), const void *marks,
                        struct metric_list *metrics) {
        for (size_t i = 0; i + 1 < n; i++) {
                const char *phase = phases + i * stride;
                int seen = 0, r;

                if (!phase[0] || strcmp(phase, "end") == 0)
                        continue;
                for (size_t j = 0; j < i; j++)
                        seen |= strcmp(phases + j * stride, phase) == 0;
                if (seen)
                        continue;
                r = fn(marks, i, metrics);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int span_metrics(const void *marks, size_t i, struct metric_list *metrics) {
        const struct insncount_marks *m = marks;

        return phase_metrics(m->v[i].phase, &m->v[i].at, &m->v[i + 1].at, m->insns_only, metrics);
}

int insncount_metrics(const struct insncount_marks *m, struct metric_list *metrics) {
        return insncount_each_span(m->v[0].phase, sizeof(m->v[0]), m->n, span_metrics, m, metrics);
}
