/* registry.c: the table of workloads. A workload is its file
 * workloads/<name>.c, which defines <name>_ops, plus one row here; the
 * harness finds workloads, their keys, guest packages and the units and
 * directions of their metrics only through this table. workloads/meson.build
 * reads these rows too, so the file's source, test and fuzz target join the
 * build without another list. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "workloads/workload.h"

/* One row per workload, in --help order. Keep the form X(name): meson
 * parses it. */
#define WORKLOAD_ROWS(X) \
        X(dd)            \
        X(tiobench)      \
        X(bonnie)        \
        X(ftp)           \
        X(dbench)        \
        X(copy)          \
        X(fio)

#define WORKLOAD_DECLARE(name) extern const struct workload_ops name##_ops;
WORKLOAD_ROWS(WORKLOAD_DECLARE)

#define WORKLOAD_ROW(name) &name##_ops,
const struct workload_ops *const workload_all[] = {
        WORKLOAD_ROWS(WORKLOAD_ROW)
        NULL,
};

const struct workload_ops *workload_find(const char *name) {
        for (size_t i = 0; workload_all[i]; i++)
                if (strcmp(workload_all[i]->name, name) == 0)
                        return workload_all[i];
        return NULL;
}

void workload_names(char *buf, size_t size) {
        size_t off = 0;

        buf[0] = '\0';
        for (size_t i = 0; workload_all[i] && off < size; i++) {
                int n = snprintf(buf + off, size - off, "%s%s", i ? ", " : "", workload_all[i]->name);
                if (n < 0)
                        break;
                off += (size_t)n;
        }
}

const struct metric_def *workload_metric_def(const char *metric_name) {
        size_t len = strcspn(metric_name, ".");

        if (metric_name[len] != '.')
                return NULL;
        for (size_t i = 0; workload_all[i]; i++) {
                const struct workload_ops *ops = workload_all[i];

                if (strlen(ops->name) != len || strncmp(ops->name, metric_name, len) != 0)
                        continue;
                for (size_t j = 0; ops->metrics && ops->metrics[j].pattern; j++)
                        if (fnmatch(ops->metrics[j].pattern, metric_name, 0) == 0)
                                return &ops->metrics[j];
                return NULL;
        }
        return NULL;
}
