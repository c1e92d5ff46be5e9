/* run/test-fakehost: a host backend (run/hosts.h) that boots nothing, for the
 * unit tests of the pumps (run/test-runner.c, bisect/test-bisect.c) and of
 * whole nights (nightly/test-nightly.c). Each attempt of a cell
 * plays the next entry of a script: the fake VM writes a console log and
 * speaks the agent's ttyS1 record protocol (common/proto.h) from a thread
 * of its own once the cell says "go", as a guest does, so cell/cell.c's
 * real pump and end-state rule decide what the attempt was. The host's
 * /proc is a fixture tree it keeps, so a contended cell is measured by
 * host/hostload.c as a real one is. Asked to, it also plays QEMU's
 * instruction counter (plugin/kbinsn.c) and profile (plugin/kbprof.c):
 * it writes their files (common/insncount-format.h, kprof-format.h) at
 * each phase mark of the job, so that the cell reads per-kernel counts
 * and profiles as it reads real ones.
 * Test-only: a broken fixture fails the test. */
#pragma once

#include <glib.h>
#include <stddef.h>

#include "run/hosts.h"
#include "store/store.h"

enum fakehost_play {
        FAKEHOST_OK,               /* boots, runs dd, the host quiet: ok, with dd's metrics */
        FAKEHOST_BOOT_CRASH,       /* the kernel panics before the agent is ready: boot-crash, kept */
        FAKEHOST_KERNEL_CRASH,     /* the kernel oopses during the workload: runtime-crash, kept */
        FAKEHOST_QEMU_CRASH,       /* QEMU dies without a word from the kernel: infra-error, retried */
        FAKEHOST_START_FAIL,       /* libvirt cannot create the domain: infra-error, retried */
        FAKEHOST_HANG,             /* a vmstat row, then silence: hang once the silence timeout passes */
        FAKEHOST_LOST,             /* the libvirt connection closes during the workload: the host failed */
        FAKEHOST_CONTENDED,        /* ok, but other processes took every CPU during the workload */
};

/* What the counter plugin counts in the write phase of a kernel's dd. */
struct fakehost_counts {
        const char *kernel;        /* the start of the kernel's image path (its store directory); "":
                                      every kernel */
        double write_Minsn;        /* kernel instructions, millions */
        double write_wait_s;       /* seconds every vCPU was halted */
};

struct fakehost {
        const enum fakehost_play *plays; /* one per attempt, in the order attempts start; past the end: OK */
        size_t n_plays;
        size_t started;            /* attempts started (domains created or refused) */
        char *root;                /* the fixture tree: <root>/proc */
        char *release;             /* what the guest's ready record says; NULL: the release of the
                                      kernel it boots (its version string) */
        const char *const *slow;   /* kernels whose dd writes at half the speed, named by the start of
                                      their image's path (their store directory); NULL-terminated, or
                                      NULL: none. For the bisection's regression */
        int jitter;                /* 1: each attempt's dd times (and counts) differ by up to 0.4 %, as
                                      measured ones do; 0: every attempt writes in exactly 0.413911 s */
        const struct fakehost_counts *counts; /* NULL: the counter file stays as QEMU without the plugin
                                      leaves it (all zero). Else each attempt's counts are those of the
                                      first entry whose kernel its image path starts with (none: 1000
                                      Minsn, 0.02 s), up to an entry whose kernel is NULL */
        int profile;               /* with counts, 1: it plays the profile plugin (plugin/kbprof.c) too,
                                      and its guests send their kernel's bases and, asked, its symbols:
                                      the write phase runs 400 Minsn in vfs_write, the rest in
                                      submit_bio; the read phase in vfs_read */
        unsigned long busy_ticks;  /* the fixture's /proc/stat user ticks, grown by contended plays */
        int lost;                  /* the connection closed (FAKEHOST_LOST) */
        GPtrArray *domains;        /* char *: the domain names started, in order */
        GMutex lock;               /* the fixture, between the cell's pump and the guest's thread */
};

/* Make f's fixture tree under dir (which must exist) for a guest that
 * says release in its ready (NULL: each kernel's own); the script is
 * plays[0..n). Aborts on
 * failure. Clear with fakehost_clear. */
void fakehost_init(struct fakehost *f, const char *dir, const char *release, const enum fakehost_play *plays,
                   size_t n);
/* Free f's memory and its fixture tree; f may be reused after
 * fakehost_init again. */
void fakehost_clear(struct fakehost *f);

/* The backend of f, for runner_drive.hosts. Its hosts are named by the
 * spec's name as the real ones are, a single host "fake:///" otherwise;
 * they report the fixture's load, QEMU runs as kbench. They have no
 * libvirt connection: a run on them asks for --accel tcg (auto would probe
 * KVM through one) and boots cold (a snapshot is a libvirt file). */
struct run_host_backend fakehost_backend(struct fakehost *f);

/* A test's store_session open(): the parts asked for from g's scratch
 * store, each opened once (the kernel store, then the database), as
 * cli/setup.c provides them to a pump. Returns 0 or -errno with err. */
int fakehost_session_parts(struct store_session *s, const struct store_ctx *g, unsigned parts,
                           struct kb_error *err);
