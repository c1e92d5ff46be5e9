/* metric.c: the growing list of metrics a parser produces (see workload.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

static int metric_push(struct metric_list *l, const char *name, double value, int has_value,
                       const char *unit, const char *note) {
        struct metric *m;

        if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 16;
                struct metric *v = realloc(l->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                l->v = v;
                l->cap = cap;
        }
        m = &l->v[l->n];
        *m = (struct metric){ .value = has_value ? value : 0, .has_value = has_value };
        m->name = strdup(name);
        m->unit = strdup(unit ? unit : "");
        m->note = note ? strdup(note) : NULL;
        if (!m->name || !m->unit || (note && !m->note)) {
                free(m->name);
                free(m->unit);
                free(m->note);
                return -ENOMEM;
        }
        l->n++;
        return 0;
}

int metric_add(struct metric_list *l, const char *name, double value, const char *unit) {
        return metric_push(l, name, value, 1, unit, NULL);
}

int metric_add_none(struct metric_list *l, const char *name, const char *unit, const char *note) {
        return metric_push(l, name, 0, 0, unit, note);
}

int metric_add_rate(struct metric_list *l, const char *name, double amount, double seconds, double scale,
                    const char *unit) {
        if (!(seconds > 0))
                return metric_add_none(l, name, unit, "too fast to measure");
        return metric_add(l, name, amount / seconds / scale, unit);
}

const struct metric *metric_find(const struct metric_list *l, const char *name) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->v[i].name, name) == 0)
                        return &l->v[i];
        return NULL;
}

void metric_list_clear(struct metric_list *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].name);
                free(l->v[i].unit);
                free(l->v[i].note);
        }
        free(l->v);
        *l = (struct metric_list){ 0 };
}
