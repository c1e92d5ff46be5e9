/* run/test-fakehost: a host backend (run/hosts.h) that boots nothing, for the
 * unit tests of the pumps (run/test-runner.c). Each attempt of a cell
 * plays the next entry of a script: the fake VM writes a console log and
 * speaks the agent's ttyS1 record protocol (common/proto.h) from a thread
 * of its own once the cell says "go", as a guest does, so cell/cell.c's
 * real pump and end-state rule decide what the attempt was. The host's
 * /proc is a fixture tree it keeps, so a contended cell is measured by
 * host/hostload.c as a real one is. Test-only: a broken fixture fails the
 * test. */
#pragma once

#include <glib.h>
#include <stddef.h>

#include "run/hosts.h"
#include "store/store.h"

enum fakehost_play {
        FAKEHOST_OK,               /* boots, runs dd, the host quiet: ok, with dd's metrics */
        FAKEHOST_KERNEL_CRASH,     /* the kernel oopses during the workload: runtime-crash, kept */
        FAKEHOST_QEMU_CRASH,       /* QEMU dies without a word from the kernel: infra-error, retried */
        FAKEHOST_START_FAIL,       /* libvirt cannot create the domain: infra-error, retried */
        FAKEHOST_HANG,             /* a vmstat row, then silence: hang once the silence timeout passes */
        FAKEHOST_LOST,             /* the libvirt connection closes during the workload: the host failed */
        FAKEHOST_CONTENDED,        /* ok, but other processes took every CPU during the workload */
};

struct fakehost {
        const enum fakehost_play *plays; /* one per attempt, in the order attempts start; past the end: OK */
        size_t n_plays;
        size_t started;            /* attempts started (domains created or refused) */
        char *root;                /* the fixture tree: <root>/proc */
        char *release;             /* what the guest's ready record says */
        const char *const *slow;   /* kernels whose dd writes at half the speed, named by the start of
                                      their image's path (their store directory); NULL-terminated, or
                                      NULL: none. For the bisection's regression */
        int jitter;                /* 1: each attempt's dd times differ by up to 0.4 %, as measured ones
                                      do; 0: every attempt writes in exactly 0.413911 s */
        unsigned long busy_ticks;  /* the fixture's /proc/stat user ticks, grown by contended plays */
        int lost;                  /* the connection closed (FAKEHOST_LOST) */
        GPtrArray *domains;        /* char *: the domain names started, in order */
        GMutex lock;               /* the fixture, between the cell's pump and the guest's thread */
};

/* Make f's fixture tree under dir (which must exist) for a guest that
 * says release in its ready; the script is plays[0..n). Aborts on
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
