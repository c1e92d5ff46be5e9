/* Table-driven tests of the end-state rule: every state, and the precedence
 * between the facts (see endstate.h). Each row is a cell's recorded facts
 * and the state and detail words it must end with. */
#include <string.h>

#include "common/test.h"
#include "cell/endstate.h"

TEST_MAIN();

#define DONE(...) { .stop = STOP_DONE, .ready = 1, .deadline_s = 1800, .boot_timeout_s = 120, \
                    .silence_timeout_s = 60, __VA_ARGS__ }
#define STOPPED(how, ...) { .stop = how, .deadline_s = 1800, .boot_timeout_s = 120, \
                            .silence_timeout_s = 60, .exit_code = -1, __VA_ARGS__ }

static const struct row {
        const char *name;
        struct endstate_facts f;
        const char *state;
        const char *detail;                /* must appear in the detail */
        int retryable, host_failed, parse;
} rows[] = {
        { "clean finish", DONE(.exit_code = 0), CELL_OK, "", 0, 0, 1 },
        { "warnings counted on ok", DONE(.exit_code = 0, .warnings = 2), CELL_OK, "2 kernel WARNING(s)", 0, 0, 1 },
        { "non-zero exit", DONE(.exit_code = 3, .last_output = "dd: error writing"), CELL_WORKLOAD_FAILURE,
          "job exited with 3; last output: dd: error writing", 0, 0, 0 },
        { "exit 255 quotes the agent", DONE(.exit_code = 255, .last_agent_note = "mount failed: EINVAL",
          .last_output = "x"), CELL_WORKLOAD_FAILURE, "last agent note: mount failed: EINVAL", 0, 0, 0 },
        { "exit 255 without a note", DONE(.exit_code = 255, .last_output = "y"), CELL_WORKLOAD_FAILURE,
          "last output: y", 0, 0, 0 },
        { "rejected line on ok job", DONE(.exit_code = 0, .rejected = 1, .first_reject = "bad crc"),
          CELL_CORRUPT_OUTPUT, "1 ttyS1 line(s) rejected, first: bad crc", 0, 0, 0 },
        { "rejected beats exit code", DONE(.exit_code = 2, .rejected = 4, .first_reject = "sequence gap"),
          CELL_CORRUPT_OUTPUT, "4 ttyS1", 0, 0, 0 },
        { "crash after done", DONE(.exit_code = 0, .crashed = 1, .crash_line = "Oops: 0000 [#1] SMP"),
          CELL_RUNTIME_CRASH, "Oops: 0000", 0, 0, 0 },
        { "crash beats rejected", DONE(.exit_code = 0, .rejected = 2, .crashed = 1, .crash_line = "BUG: x"),
          CELL_RUNTIME_CRASH, "BUG: x", 0, 0, 0 },
        { "crash before ready", STOPPED(STOP_DOMAIN_ENDED, .stop_detail = "destroyed", .crashed = 1,
          .crash_before_ready = 1, .crash_line = "Kernel panic - not syncing"), CELL_BOOT_CRASH,
          "Kernel panic", 0, 0, 0 },
        { "crash line before ready, ready later", STOPPED(STOP_DOMAIN_ENDED, .ready = 1, .crashed = 1,
          .crash_before_ready = 1, .crash_line = "general protection fault"), CELL_BOOT_CRASH,
          "general protection fault", 0, 0, 0 },
        { "crash after ready", STOPPED(STOP_DOMAIN_ENDED, .ready = 1, .crashed = 1,
          .crash_line = "Kernel panic - not syncing: Fatal exception"), CELL_RUNTIME_CRASH, "Fatal exception", 0, 0, 0 },
        { "crash then silence", STOPPED(STOP_SILENCE, .ready = 1, .crashed = 1, .crash_line = "BUG: soft lockup"),
          CELL_RUNTIME_CRASH, "soft lockup", 0, 0, 0 },
        { "crash then no ready", STOPPED(STOP_NO_READY, .kernel_started = 1, .crashed = 1,
          .crash_before_ready = 1, .crash_line = "Oops"), CELL_BOOT_CRASH, "Oops", 0, 0, 0 },
        { "domain ended before ready", STOPPED(STOP_DOMAIN_ENDED, .stop_detail = "shutdown", .kernel_started = 1),
          CELL_BOOT_CRASH, "domain shutdown before the agent was ready (kernel started)", 0, 0, 0 },
        { "domain ended, no kernel output", STOPPED(STOP_DOMAIN_ENDED), CELL_BOOT_CRASH,
          "closed ttyS1 before the agent was ready (no kernel output)", 0, 0, 0 },
        { "domain ended while running", STOPPED(STOP_DOMAIN_ENDED, .ready = 1, .stop_detail = "crashed"),
          CELL_RUNTIME_CRASH, "domain crashed before the job finished", 0, 0, 0 },
        { "QEMU failed, no crash line", STOPPED(STOP_DOMAIN_ENDED, .ready = 1, .stop_detail = "failed"),
          CELL_INFRA_ERROR, "QEMU stopped unexpectedly", 1, 0, 0 },
        { "QEMU failed after a crash line", STOPPED(STOP_DOMAIN_ENDED, .ready = 1, .stop_detail = "failed",
          .crashed = 1, .crash_line = "Oops: 0002"), CELL_RUNTIME_CRASH, "Oops: 0002", 0, 0, 0 },
        { "host lost while running", STOPPED(STOP_DOMAIN_ENDED, .ready = 1,
          .host_lost = "libvirt host h2 lost: end of file"), CELL_INFRA_ERROR, "h2 lost: end of file", 1, 1, 0 },
        { "a crash line before the host was lost", STOPPED(STOP_SILENCE, .ready = 1, .crashed = 1,
          .crash_line = "BUG: x", .host_lost = "libvirt host h2 lost: keepalive timeout"), CELL_RUNTIME_CRASH,
          "BUG: x", 0, 1, 0 },
        { "no console", STOPPED(STOP_NO_CONSOLE), CELL_BOOT_TIMEOUT, "no console output within 40 s", 0, 0, 0 },
        { "no ready, kernel started", STOPPED(STOP_NO_READY, .kernel_started = 1), CELL_BOOT_TIMEOUT,
          "kernel started but no agent ready within 120 s", 0, 0, 0 },
        { "no ready, no kernel", STOPPED(STOP_NO_READY), CELL_BOOT_TIMEOUT,
          "console output but no kernel start within 120 s", 0, 0, 0 },
        { "silence while running", STOPPED(STOP_SILENCE, .ready = 1), CELL_HANG,
          "no ttyS1 record for 60 s during the workload", 0, 0, 0 },
        { "deadline in boot", STOPPED(STOP_DEADLINE), CELL_HANG, "cell deadline of 1800 s passed (stage: boot)", 0, 0, 0 },
        { "deadline in workload", STOPPED(STOP_DEADLINE, .ready = 1), CELL_HANG, "(stage: workload)", 0, 0, 0 },
        { "host phase failed", STOPPED(STOP_HOST_PHASE_FAILED, .ready = 1, .stop_detail = "connect: refused"),
          CELL_WORKLOAD_FAILURE, "host phase: connect: refused", 0, 0, 0 },
        { "vm start failed", STOPPED(STOP_VM_START_FAILED, .stop_detail = "libvirt: no emulator"),
          CELL_INFRA_ERROR, "libvirt: no emulator", 1, 0, 0 },
        { "vm start on a full disk", STOPPED(STOP_VM_START_FAILED, .stop_detail = "libvirt: cannot write "
          "data to file 'x.xml.new': No space left on device"), CELL_INFRA_ERROR, "host disk full: libvirt", 0, 1, 0 },
        { "send failed", STOPPED(STOP_SEND_FAILED, .ready = 1), CELL_INFRA_ERROR, "cannot send the job", 1, 0, 0 },
        { "release mismatch", STOPPED(STOP_RELEASE_MISMATCH, .ready = 1, .release = "6.1.0-47-amd64",
          .expected_release = "6.1.0-57-amd64"), CELL_INFRA_ERROR,
          "the guest runs release '6.1.0-47-amd64', expected '6.1.0-57-amd64'", 0, 0, 0 },
        { "release missing", STOPPED(STOP_RELEASE_MISMATCH, .ready = 1, .expected_release = "6.1.0-57-amd64"),
          CELL_INFRA_ERROR, "release '(none)'", 0, 0, 0 },
        { "host disk full", STOPPED(STOP_IO_ERROR, .ready = 1, .stop_detail = "enospc on /s/disk.img (ide0-0-0)",
          .host_space = "; 0 MiB free in /s"), CELL_INFRA_ERROR,
          "host disk full: the guest was paused, enospc on /s/disk.img (ide0-0-0); 0 MiB free", 0, 1, 0 },
        { "host I/O error", STOPPED(STOP_IO_ERROR, .ready = 1, .stop_detail = "eio on /s/disk.img (ide0-0-0)"),
          CELL_INFRA_ERROR, "host I/O error: the guest was paused, eio", 0, 1, 0 },
        { "disk full beats a crash", STOPPED(STOP_IO_ERROR, .ready = 1, .stop_detail = "enospc on d (a)",
          .crashed = 1, .crash_line = "Oops"), CELL_INFRA_ERROR, "host disk full", 0, 1, 0 },
        { "interrupted beats a crash", STOPPED(STOP_INTERRUPTED, .ready = 1, .crashed = 1, .crash_line = "BUG:"),
          CELL_INFRA_ERROR, "interrupted", 0, 0, 0 },
        { "stale disk beats rejects", STOPPED(STOP_STALE_DISK, .ready = 1, .rejected = 2,
          .stop_detail = "guest head crc32 1234abcd, image 00c0ffee"), CELL_INFRA_ERROR,
          "the guest reads another disk than the cell's: guest head crc32 1234abcd", 0, 0, 0 },
};

TEST(every_state_and_precedence) {
        static const char *const states[] = { CELL_OK, CELL_INFRA_ERROR, CELL_BOOT_TIMEOUT, CELL_BOOT_CRASH,
                                              CELL_RUNTIME_CRASH, CELL_HANG, CELL_WORKLOAD_FAILURE,
                                              CELL_CORRUPT_OUTPUT };
        int seen[8] = { 0 };

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *r = &rows[i];
                struct endstate e;

                endstate_decide(&r->f, &e);
                if (strcmp(e.state, r->state) != 0 || !strstr(e.detail, r->detail))
                        TEST_FAIL("%s: got %s \"%s\", want %s \"...%s...\"", r->name, e.state, e.detail, r->state,
                                  r->detail);
                if (e.retryable != r->retryable || e.host_failed != r->host_failed || e.parse != r->parse)
                        TEST_FAIL("%s: retryable %d host_failed %d parse %d", r->name, e.retryable, e.host_failed,
                                  e.parse);
                for (size_t s = 0; s < 8; s++)
                        if (strcmp(e.state, states[s]) == 0)
                                seen[s] = 1;
        }
        for (size_t s = 0; s < 8; s++)
                if (!seen[s])
                        TEST_FAIL("no row ends in %s", states[s]);
}
