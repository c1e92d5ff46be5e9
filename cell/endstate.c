/* endstate.c: the end-state rule (see endstate.h for the precedence). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cell/endstate.h"

static void set(struct endstate *e, const char *state, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(struct endstate *e, const char *state, const char *fmt, ...) {
        va_list ap;

        e->state = state;
        va_start(ap, fmt);
        vsnprintf(e->detail, sizeof(e->detail), fmt, ap);
        va_end(ap);
}

static const char *or(const char *s, const char *dflt) {
        return s && *s ? s : dflt;
}

/* 1. The host's failures. Returns 1 when one applies. */
static int host_failure(const struct endstate_facts *f, struct endstate *e) {
        /* A lost host explains whatever the pump saw last (ttyS1 closing,
         * silence): another host may run the cell. A crash line the
         * kernel printed before is still the kernel's (endstate_decide). */
        if (f->host_lost && !f->crashed) {
                set(e, CELL_INFRA_ERROR, "%s", f->host_lost);
                e->host_failed = 1;
                e->retryable = 1;
                return 1;
        }
        /* libvirt's "failed": QEMU ended without the guest asking (killed,
         * a crash of its own); without a crash line on ttyS0 the kernel is
         * not what failed. */
        if (f->stop == STOP_DOMAIN_ENDED && !f->crashed && f->stop_detail && strcmp(f->stop_detail, "failed") == 0) {
                set(e, CELL_INFRA_ERROR, "QEMU stopped unexpectedly (libvirt: the emulator failed)");
                e->retryable = 1;
                return 1;
        }
        switch (f->stop) {
        case STOP_VM_START_FAILED:
                /* libvirt writing its state onto a full disk: retrying cannot help. */
                if (f->stop_detail && strstr(f->stop_detail, "No space left on device")) {
                        set(e, CELL_INFRA_ERROR, "host disk full: %s%s", f->stop_detail, or(f->host_space, ""));
                        e->host_failed = 1;
                        return 1;
                }
                set(e, CELL_INFRA_ERROR, "%s", or(f->stop_detail, "the domain did not start"));
                e->retryable = 1;
                return 1;
        case STOP_SEND_FAILED:
                set(e, CELL_INFRA_ERROR, "cannot send the job to the agent on ttyS1");
                e->retryable = 1;
                return 1;
        case STOP_RELEASE_MISMATCH:
                set(e, CELL_INFRA_ERROR, "the guest runs release '%s', expected '%s'", or(f->release, "(none)"),
                    or(f->expected_release, "(none)"));
                return 1;
        case STOP_IO_ERROR:
                if (f->stop_detail && strstr(f->stop_detail, "enospc"))
                        set(e, CELL_INFRA_ERROR, "host disk full: the guest was paused, %s%s", f->stop_detail,
                            or(f->host_space, ""));
                else
                        set(e, CELL_INFRA_ERROR, "host I/O error: the guest was paused, %s%s",
                            or(f->stop_detail, "reason unknown"), or(f->host_space, ""));
                e->host_failed = 1;
                return 1;
        case STOP_INTERRUPTED:
                set(e, CELL_INFRA_ERROR, "interrupted");
                return 1;
        case STOP_STALE_DISK:
                /* Not retried: the snapshot that leaked is removed, so the
                 * next cell boots cold. */
                set(e, CELL_INFRA_ERROR, "the guest reads another disk than the cell's: %s",
                    or(f->stop_detail, "disk head differs"));
                return 1;
        default:
                return 0;
        }
}

void endstate_decide(const struct endstate_facts *f, struct endstate *ret) {
        struct endstate e = { .state = CELL_INFRA_ERROR };

        if (host_failure(f, &e))
                goto out;
        /* 2. The kernel crashed: that is the cause of whatever followed. */
        if (f->crashed) {
                set(&e, f->ready && !f->crash_before_ready ? CELL_RUNTIME_CRASH : CELL_BOOT_CRASH, "%s",
                    or(f->crash_line, "kernel crash"));
                goto out;
        }
        /* 3. Why the pump stopped. */
        switch (f->stop) {
        case STOP_DEADLINE:
                set(&e, CELL_HANG, "cell deadline of %.0f s passed (stage: %s)", f->deadline_s,
                    f->ready ? "workload" : "boot");
                goto out;
        case STOP_NO_CONSOLE:
                set(&e, CELL_BOOT_TIMEOUT, "no console output within %.0f s", f->boot_timeout_s / 3);
                goto out;
        case STOP_NO_READY:
                set(&e, CELL_BOOT_TIMEOUT, "%s within %.0f s",
                    f->kernel_started ? "kernel started but no agent ready" : "console output but no kernel start",
                    f->boot_timeout_s);
                goto out;
        case STOP_SILENCE:
                set(&e, CELL_HANG, "no ttyS1 record for %.0f s during the workload", f->silence_timeout_s);
                goto out;
        case STOP_DOMAIN_ENDED:
                if (f->ready)
                        set(&e, CELL_RUNTIME_CRASH, "domain %s before the job finished",
                            or(f->stop_detail, "closed ttyS1"));
                else
                        set(&e, CELL_BOOT_CRASH, "domain %s before the agent was ready (%s)",
                            or(f->stop_detail, "closed ttyS1"), f->kernel_started ? "kernel started" : "no kernel output");
                goto out;
        case STOP_HOST_PHASE_FAILED:
                set(&e, CELL_WORKLOAD_FAILURE, "host phase: %s", or(f->stop_detail, "failed"));
                goto out;
        default:
                break;
        }
        /* 4. The job finished: what it left decides. */
        if (f->rejected > 0) {
                set(&e, CELL_CORRUPT_OUTPUT, "%ld ttyS1 line(s) rejected, first: %s", f->rejected,
                    or(f->first_reject, "(unknown)"));
        } else if (f->exit_code != 0) {
                /* 255 is the agent giving up on its own setup (a mount that
                 * failed, say): its last note says why. */
                int agent = f->exit_code == 255 && f->last_agent_note;
                set(&e, CELL_WORKLOAD_FAILURE, "job exited with %d; last %s: %.300s", f->exit_code,
                    agent ? "agent note" : "output", or(agent ? f->last_agent_note : f->last_output, "(none)"));
        } else {
                e.parse = 1;
                if (f->warnings > 0)
                        set(&e, CELL_OK, "%d kernel WARNING(s) on the console", f->warnings);
                else
                        set(&e, CELL_OK, "%s", "");
        }
out:
        /* Whatever the cell became, a lost host takes no more cells. */
        if (f->host_lost)
                e.host_failed = 1;
        *ret = e;
}
