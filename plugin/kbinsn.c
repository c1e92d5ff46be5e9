/* plugin/kbinsn.c: a QEMU TCG plugin that counts the guest instructions
 * every vCPU executes, kernel and user apart. Under TCG every timed figure
 * is the emulator's speed as much as the kernel's, and the host's speed
 * drifts by tens of percent from one day, or one minute, to the next; the
 * number of instructions the guest's kernel executes to write a file does
 * not. QEMU loads it with
 *
 *   -plugin file=libkbinsn.so,out=FILE
 *
 * FILE is common/insncount-format.h's, made by kbench beforehand; the
 * counters live in a shared mapping of it, so counting costs no system call.
 * When the guest's agent executes the marker instruction at a phase mark,
 * the totals of that instant are copied into the file's marks[]. A
 * translation block is kernel code when its first address lies in x86-64's
 * upper half: a block never crosses from one half to the other.
 *
 * Instructions are the guest's work; two kinds of guest time are not, and
 * the plugin measures both in the host's real time, which the emulator's
 * speed does not set:
 * - waiting: while every vCPU is halted (QEMU's idle and resume
 *   callbacks bracket the vCPU thread's sleep), the guest waits on a
 *   timer, the disk or another wake-up. A kernel that sleeps in a write
 *   path halts the guest for that long on any host.
 * - spinning: a time-based busy-wait (udelay, ndelay, most polling loops)
 *   executes `pause` on each turn and ends at a TSC deadline, which under
 *   TCG is the host's clock. How many turns fit in it follows the host's
 *   speed; the time between the first and last turn does not.
 *
 * Built with KBINSN_INSNS_ONLY it counts instructions and marks only, as
 * the plugin did before it timed waiting and spinning: bench/plugin-cost.py
 * loads that build beside this one to measure what the timing costs. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <qemu-plugin.h>

#include "common/insncount-format.h"
#include "plugin/outfile.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#ifdef KBINSN_INSNS_ONLY
#define TIMES_GUEST 0
#else
#define TIMES_GUEST 1                      /* time waiting and spinning */
#endif

static struct insncount_file *counts;
static int one_vcpu;                       /* a single vCPU: inline adds, no callback */

/* Halted vCPUs, and since when all of them are (valid while n_idle ==
 * n_vcpus). Under multi-threaded TCG the callbacks come from every vCPU
 * thread; they are rare (a halt is a guest idle entry), so a mutex. */
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t n_idle;
static uint64_t all_idle_since_ns;

/* The stall under way (halts joined across the ticks between them,
 * INSNCOUNT_HALT_JOIN_INSNS) and the longest since the last mark. */
static uint64_t stall_since_ns, insns_at_resume, halt_longest_ns;
static int stall_open;

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Every vCPU's instructions so far. */
static uint64_t insns_now(void) {
        uint64_t n = 0;

        for (uint32_t i = 0; i < counts->n_vcpus && i < INSNCOUNT_VCPUS_MAX; i++)
                n += counts->vcpu[i].insns[INSNCOUNT_USER] + counts->vcpu[i].insns[INSNCOUNT_KERNEL];
        return n;
}

static void vcpu_idle(qemu_plugin_id_t id, unsigned int vcpu) {
        (void)id;
        (void)vcpu;
        pthread_mutex_lock(&idle_lock);
        if (++n_idle == counts->n_vcpus) {
                all_idle_since_ns = now_ns();
                if (!stall_open || insns_now() - insns_at_resume >= INSNCOUNT_HALT_JOIN_INSNS)
                        stall_since_ns = all_idle_since_ns;
                stall_open = 1;
        }
        pthread_mutex_unlock(&idle_lock);
}

static void vcpu_resume(qemu_plugin_id_t id, unsigned int vcpu) {
        (void)id;
        (void)vcpu;
        pthread_mutex_lock(&idle_lock);
        /* A resume without its idle (the plugin loaded while halted) counts nothing. */
        if (n_idle > 0) {
                if (n_idle == counts->n_vcpus) {
                        uint64_t t = now_ns();

                        counts->wait_ns += t - all_idle_since_ns;
                        if (t - stall_since_ns > halt_longest_ns)
                                halt_longest_ns = t - stall_since_ns;
                        insns_at_resume = insns_now();
                }
                n_idle--;
        }
        pthread_mutex_unlock(&idle_lock);
}

/* A kernel `pause` ran: one more turn of a spin loop. */
static void pause_exec(unsigned int vcpu, void *udata) {
        struct insncount_vcpu *v;
        uint64_t t;

        (void)udata;
        if (vcpu >= INSNCOUNT_VCPUS_MAX)
                return;
        v = &counts->vcpu[vcpu];
        t = now_ns();
        v->pauses++;
        if (v->last_pause_ns && t - v->last_pause_ns < INSNCOUNT_SPIN_GAP_NS)
                v->spin_ns += t - v->last_pause_ns;
        v->last_pause_ns = t;
}

/* udata: the block's instruction count << 1 | its mode. */
static void tb_exec(unsigned int vcpu, void *udata) {
        uintptr_t v = (uintptr_t)udata;

        if (vcpu < INSNCOUNT_VCPUS_MAX)
                counts->vcpu[vcpu].insns[v & 1] += v >> 1;
}

/* The marker ran: the totals now, over every vCPU (with several, the others
 * count on meanwhile; with one, its block was counted on entry, a few
 * instructions past the marker). marks[] is written before n_marks counts
 * it, so a reader that sees n_marks > k finds mark k whole. */
static void mark_exec(unsigned int vcpu, void *udata) {
        uint64_t k = counts->n_marks;
        struct insncount_mark_slot m = { .t_ns = 0 };

        (void)vcpu;
        (void)udata;
        if (k >= INSNCOUNT_MARKS_MAX)
                return;
        for (uint32_t i = 0; i < counts->n_vcpus && i < INSNCOUNT_VCPUS_MAX; i++) {
                m.insns[INSNCOUNT_USER] += counts->vcpu[i].insns[INSNCOUNT_USER];
                m.insns[INSNCOUNT_KERNEL] += counts->vcpu[i].insns[INSNCOUNT_KERNEL];
                m.pauses += counts->vcpu[i].pauses;
                m.spin_ns += counts->vcpu[i].spin_ns;
        }
        /* This vCPU runs, so no span of all halted is open. */
        pthread_mutex_lock(&idle_lock);
        m.wait_ns = counts->wait_ns;
        m.halt_longest_ns = halt_longest_ns;
        halt_longest_ns = 0;
        pthread_mutex_unlock(&idle_lock);
        m.t_ns = now_ns();
        counts->marks[k] = m;
        __atomic_store_n(&counts->n_marks, k + 1, __ATOMIC_RELEASE);
}

/* The block's instructions that are bytes (len of them): a callback on each. */
static void find_insns(struct qemu_plugin_tb *tb, size_t n, const char *bytes, size_t len,
                       void (*cb)(unsigned int, void *)) {
        for (size_t i = 0; i < n; i++) {
                struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

                if (qemu_plugin_insn_size(insn) == len && memcmp(qemu_plugin_insn_data(insn), bytes, len) == 0)
                        qemu_plugin_register_vcpu_insn_exec_cb(insn, cb, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
        uint64_t n = qemu_plugin_tb_n_insns(tb);
        int mode = qemu_plugin_tb_vaddr(tb) >> 63 ? INSNCOUNT_KERNEL : INSNCOUNT_USER;

        if (mode == INSNCOUNT_USER)
                find_insns(tb, n, INSNCOUNT_MARKER_BYTES, INSNCOUNT_MARKER_LEN, mark_exec);
        else if (TIMES_GUEST)
                find_insns(tb, n, "\xf3\x90", 2, pause_exec);
        /* One vCPU thread: a plain add in the generated code, the cheapest
         * way to count. Several: a callback that knows which vCPU runs. */
        if (one_vcpu)
                qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                                         &counts->vcpu[0].insns[mode], n);
        else
                qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                                     (void *)(uintptr_t)(n << 1 | (uint64_t)mode));
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
        void *p;

        if (!info->system_emulation || info->system.max_vcpus < 1 || info->system.max_vcpus > INSNCOUNT_VCPUS_MAX ||
            !(p = outfile_map(argc, argv, INSNCOUNT_FILE_SIZE)))
                return -1;
        counts = p;
        counts->version = INSNCOUNT_VERSION;
        counts->n_vcpus = (uint32_t)info->system.max_vcpus;
        memcpy(counts->magic, INSNCOUNT_MAGIC, sizeof(counts->magic));
        one_vcpu = info->system.max_vcpus == 1;
        qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
        if (TIMES_GUEST) {
                qemu_plugin_register_vcpu_idle_cb(id, vcpu_idle);
                qemu_plugin_register_vcpu_resume_cb(id, vcpu_resume);
        }
        return 0;
}
