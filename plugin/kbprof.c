/* plugin/kbprof.c: a QEMU TCG plugin that counts the guest kernel's
 * instructions per translation block start address, phase by phase, so
 * the host can say in which of the kernel's functions a phase's work went.
 * The instruction counter (plugin/kbinsn.c) says how much work; this says
 * where, from the same exact counts: each block's instructions are added
 * at execution by an inline add into the block's own counter (one vCPU),
 * or atomically by a callback (several), and at each phase mark of the
 * guest's agent the growth of every block since the previous mark goes
 * into the file kbench gave (common/kprof-format.h). QEMU loads it beside
 * the counter with
 *
 *   -plugin file=libkbprof.so,out=FILE
 *
 * Counting per block start and resolving on the host keeps the plugin
 * free of symbols: the host knows the kernel's symbol table and where this
 * boot loaded the kernel and its modules (KASLR), the plugin need not. A
 * block's instructions go to the function its first instruction belongs
 * to; a block ends at every branch, so it never spans two functions but
 * for a function that falls through into the next. User-mode blocks are
 * not counted: only the marker is looked for in them. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "common/insncount-format.h"
#include "common/kprof-format.h"
#include "plugin/outfile.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* The kernel's block start addresses, in chunks that never move (the
 * generated code adds into a block's counter by address). Each chunk
 * holds its blocks' counters side by side, apart from their addresses
 * and their counts at the last mark, so that the counters of blocks
 * translated together, and mostly run together, share cache lines: the
 * one thing execution touches. */
#define CHUNK_BLKS 4096

struct chunk {
        struct chunk *next;
        size_t n;
        uint64_t insns[CHUNK_BLKS];        /* instructions executed in the block */
        uint64_t pc[CHUNK_BLKS];           /* its first address */
        uint64_t at_mark[CHUNK_BLKS];      /* insns at the last mark */
};

/* A block: its chunk and its index there. */
struct blk {
        struct chunk *c;
        size_t i;
};

/* Translation may run on several vCPU threads at once, and a mark walks
 * every block: one lock for the table and the chunks (both rare next to
 * execution, which takes no lock). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;               /* newest first */
static struct blk *table;                  /* open addressing by pc; c NULL: free */
static size_t table_size, table_used;      /* size a power of two, at most half used */
static struct kprof_header *file;
static struct kprof_entry *entries;
static int one_vcpu;
static uint64_t marks_seen;                /* marker executions so far */

static size_t slot_of(uint64_t pc, size_t size) {
        return (size_t)((pc * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (size - 1);
}

static int table_grow(void) {
        size_t size = table_size ? table_size * 2 : 1u << 14;
        struct blk *t = calloc(size, sizeof(*t));

        if (!t)
                return -1;
        for (size_t i = 0; i < table_size; i++) {
                size_t s;

                if (!table[i].c)
                        continue;
                for (s = slot_of(table[i].c->pc[table[i].i], size); t[s].c; s = (s + 1) & (size - 1))
                        ;
                t[s] = table[i];
        }
        free(table);
        table = t;
        table_size = size;
        return 0;
}

/* The counter of the block at pc, the block made when new; NULL when out
 * of memory. Under lock. */
static uint64_t *blk_get(uint64_t pc) {
        size_t s;

        if (table_used * 2 >= table_size && table_grow() < 0)
                return NULL;
        for (s = slot_of(pc, table_size); table[s].c; s = (s + 1) & (table_size - 1))
                if (table[s].c->pc[table[s].i] == pc)
                        return &table[s].c->insns[table[s].i];
        if (!chunks || chunks->n == CHUNK_BLKS) {
                struct chunk *c = calloc(1, sizeof(*c));

                if (!c)
                        return NULL;
                c->next = chunks;
                chunks = c;
        }
        table[s] = (struct blk){ chunks, chunks->n++ };
        chunks->pc[table[s].i] = pc;
        table_used++;
        return &chunks->insns[table[s].i];
}

/* Several vCPUs: udata is the block's counter's address with the block's
 * instruction count in its top 16 bits (x86-64 user addresses fit in 48;
 * a block holds at most 512 instructions). */
static void tb_exec(unsigned int vcpu, void *udata) {
        uintptr_t v = (uintptr_t)udata;
        uint64_t *insns = (uint64_t *)(v & ((UINT64_C(1) << 48) - 1));

        (void)vcpu;
        __atomic_fetch_add(insns, v >> 48, __ATOMIC_RELAXED);
}

/* The marker ran: the segment of the phase it ends, each block's growth
 * since the last mark, which becomes the new base. The first mark ends the
 * boot, which is not written; a segment that does not fit is not written
 * either, and counted as lost (its growth is taken as the base all the
 * same, so the next segment holds its own phase only). */
static void mark_exec(unsigned int vcpu, void *udata) {
        uint64_t k, used, at;
        int fits;

        (void)vcpu;
        (void)udata;
        pthread_mutex_lock(&lock);
        k = marks_seen++;
        used = file->used;
        at = used + 1;
        fits = k > 0 && at <= file->capacity;
        for (struct chunk *c = chunks; c; c = c->next)
                for (size_t i = 0; i < c->n; i++) {
                        uint64_t now = __atomic_load_n(&c->insns[i], __ATOMIC_RELAXED);

                        if (now == c->at_mark[i])
                                continue;
                        if (fits && at < file->capacity)
                                entries[at++] = (struct kprof_entry){ c->pc[i], now - c->at_mark[i] };
                        else
                                fits = 0;
                        c->at_mark[i] = now;
                }
        if (fits) {
                entries[used] = (struct kprof_entry){ 0, k };
                __atomic_store_n(&file->used, at, __ATOMIC_RELEASE);
        } else if (k > 0) {
                file->lost_marks++;
        }
        file->n_marks = marks_seen;
        pthread_mutex_unlock(&lock);
}

/* The marker in a user block: a callback on its execution. */
static void find_marker(struct qemu_plugin_tb *tb, size_t n) {
        for (size_t i = 0; i < n; i++) {
                struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

                if (qemu_plugin_insn_size(insn) == INSNCOUNT_MARKER_LEN &&
                    memcmp(qemu_plugin_insn_data(insn), INSNCOUNT_MARKER_BYTES, INSNCOUNT_MARKER_LEN) == 0)
                        qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
        uint64_t pc = qemu_plugin_tb_vaddr(tb);
        size_t n = qemu_plugin_tb_n_insns(tb);
        uint64_t *insns;

        (void)id;
        if (!(pc >> 63)) {
                find_marker(tb, n);
                return;
        }
        pthread_mutex_lock(&lock);
        insns = blk_get(pc);
        pthread_mutex_unlock(&lock);
        if (!insns || n == 0)
                return;
        /* One vCPU thread: a plain add in the generated code. Several: an
         * atomic add in a callback. */
        if (one_vcpu)
                qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, insns, n);
        else
                qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                                     (void *)((uintptr_t)insns | (uintptr_t)n << 48));
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
        void *p;

        if (!info->system_emulation || info->system.max_vcpus < 1 || !(p = outfile_map(argc, argv, KPROF_FILE_SIZE)))
                return -1;
        file = p;
        entries = (struct kprof_entry *)(file + 1);
        /* A QEMU started again on the file (a cell's cold boot after a
         * failed restore) starts it again. */
        file->used = file->n_marks = file->lost_marks = 0;
        file->version = KPROF_VERSION;
        file->n_vcpus = (uint32_t)info->system.max_vcpus;
        file->capacity = KPROF_CAPACITY;
        memcpy(file->magic, KPROF_MAGIC, sizeof(file->magic));
        one_vcpu = info->system.max_vcpus == 1;
        qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
        return 0;
}
