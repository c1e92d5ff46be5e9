/* cell/cellrecord: what each record of the agent (common/proto.h) does to
 * a living cell: ready sends the job and opens the measured window, the
 * vmstat, output and event records are kept, the phase marks take the
 * instruction and kernel counters, done closes the window, the symbol
 * records feed the profile. One table, a handler per record type, so a new
 * record is one row and one function. Private to cell/ (cellpump.h). */
#pragma once

#include "cell/cellpump.h"
#include "common/proto.h"

/* Apply rec, which arrived in m, to c. A type no row names is ignored. */
void cellrecord_handle(struct cell *c, const struct cellpump_msg *m, const struct proto_record *rec,
                       const struct workload_env *env);

/* Marks the host could not read while the job ran (the counter file came
 * back only when the domain ended: a host reached through libvirt): the
 * k-th phase event takes the plugin's k-th mark, which the marker made
 * when the guest reached it, so the late read changes no count. */
void cellrecord_marks_late(struct cell *c);
