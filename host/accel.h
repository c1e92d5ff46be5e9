/* host/accel: choosing KVM or TCG. Where /dev/kvm exists but KVM hangs
 * (nested hosts: no guest output, 100% sys), trusting it would hang every
 * cell, so `auto` boots a probe kernel under KVM and uses KVM only if the
 * kernel's first line reaches the console within a few seconds. The verdict
 * is cached per host kernel and QEMU version in <home>/accel.json. */
#pragma once

#include <jansson.h>

#include "common/error.h"
#include "host/vm.h"

#define ACCEL_PROBE_S 6.0          /* KVM must print "Linux version" within this */

/* What results measured under TCG mean, for every reader that learns the
 * accelerator (doctor, the nightly mail): one sentence. */
#define ACCEL_TCG_MEANS "under TCG, timed rates are shown but not judged; verdicts come from the guest's " \
        "instruction counts and other measures that do not depend on the host's speed"

/* Resolve requested ("auto", "kvm" or "tcg"). probe_kernel is a bootable
 * kernel image used for the probe; scratch a directory for its console log.
 * OUT: *ret_accel ("kvm" or "tcg", static), *ret_why (one line, g_free). */
int accel_resolve(struct vm_conn *c, const char *requested, const char *home, const char *probe_kernel,
                  const char **ret_accel, char **ret_why, struct kb_error *err);

struct pool;

/* accel_resolve for a host kbench reaches only through libvirt: "auto"
 * asks the host whether its QEMU offers KVM at all and, when it does,
 * boots probe_kernel there (staged into p) under KVM, its console read as
 * a stream into scratch. The verdict is not cached. Same OUT as above. */
int accel_resolve_remote(struct vm_conn *c, struct pool *p, const char *requested, const char *scratch,
                         const char *probe_kernel, const char **ret_accel, char **ret_why, struct kb_error *err);

/* Whether the cached verdict j (the parsed accel.json, may be NULL) applies
 * to this host kernel and QEMU version: a new kernel or QEMU may fix or
 * break KVM, so either change means probing again. Returns 1 with
 * *ret_kvm_works, or 0 (probe again). Pure. */
int accel_cache_verdict(const json_t *j, const char *host_kernel, const char *qemu, int *ret_kvm_works);

/* The reason in a failed KVM probe's message (failure: libvirt's error,
 * maybe several lines; may be NULL) as one short line: QEMU's own words
 * after its last "error: " ("failed to set MSR 0x10a to 0x69"), else the
 * first line. "" when there is none. Caller g_frees. Pure. */
char *accel_failure_reason(const char *failure);

/* The accelerator a run that may not probe would use: "kvm" when /dev/kvm
 * is usable and <home>/accel.json holds a verdict for this host kernel
 * that KVM works, else "tcg" (static string). For kbench nightly, which
 * must know the accelerator to know what was measured already, before any
 * libvirt connection exists. */
const char *accel_cached(const char *home);
