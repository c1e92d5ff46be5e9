/* cell/cellprep: a cell's preparation, before its guest starts: the
 * workload's environment and host ports, the job script, fresh disks
 * (made, formatted on the host and handed to QEMU's user), the console log,
 * the files of the instruction counter and the profile, and the domain's
 * configuration. A preparation that fails is the cell's result, not an
 * error: the same settings would fail the same way, so the cell ends
 * there with its state and the reason. */
#pragma once

#include <stdint.h>

#include "cell/cell.h"

/* Paths and the domain's configuration, owned by one cell_run (cellprep_clear). */
struct cellprep {
        char *disk, *swap, *console, *serial, *name, *cmdline;
        char *insns;                       /* the plugin's counter file, NULL: no counts */
        char *prof;                        /* the profile plugin's file, NULL: no profile */
        char prof_why[300];                /* why there is none though the run asked, or "" */
        uint32_t disk_head;                /* CRC-32 of the image's first 4 KiB (its superblock) */
        struct workload_env env;
        struct vm_config vc;
};

/* Prepare the cell of s: the guest's environment and ports, the job
 * script, fresh disks, the domain configuration. Returns 1 when the cell
 * can start, 0 when it already has its end state in res (a preparation
 * failure is a result, not an error), -errno with err when it cannot be
 * attempted. OUT: *f (cellprep_clear, also after a failure). */
int cellprep_make(const struct cell_spec *s, struct cell_result *res, struct cellprep *f,
                  const struct kb_sink *events, struct kb_error *err);
/* Free f's strings (its files stay). */
void cellprep_clear(struct cellprep *f);
