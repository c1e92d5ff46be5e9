/* registry.c: the table of workloads. Adding a workload is one file plus a
 * line here; the harness finds workloads, and the units and directions of
 * their metrics, only through this table. */
#include <fnmatch.h>
#include <string.h>

#include "workloads/ftp.h"
#include "workloads/workload.h"

const struct workload_ops *const workload_all[] = {
        &dd_ops,
        &tiobench_ops,
        &bonnie_ops,
        &ftp_ops,
        NULL,
};

const struct workload_ops *workload_find(const char *name) {
        for (size_t i = 0; workload_all[i]; i++)
                if (strcmp(workload_all[i]->name, name) == 0)
                        return workload_all[i];
        return NULL;
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
