/* cell/cellprof.c: a cell's profile of its kernel's instructions by
 * function (see cellprof.h). */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "cell/cellprof.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "host/kprof.h"

#define MAP_MAX (64u << 20)                /* bytes of a System.map read */

void cellprof_init(struct cellprof *p, const char *path, const struct kstore_kernel *kernel) {
        *p = (struct cellprof){ .path = g_strdup(path), .kernel = kernel };
}

void cellprof_reset(struct cellprof *p) {
        ksyms_boot_clear(&p->boot);
        p->sent = ksyms_free(p->sent);
        p->boot_bad = p->asked = p->ended = p->sent_bad = 0;
        p->sent_count = 0;
}

void cellprof_clear(struct cellprof *p) {
        cellprof_reset(p);
        ksyms_free(p->stored);
        g_free(p->path);
        *p = (struct cellprof){ 0 };
}

void cellprof_on_base(struct cellprof *p, const char *payload, size_t len) {
        if (p->path && ksyms_boot_record(&p->boot, payload, len) < 0)
                p->boot_bad = 1;
}

void cellprof_on_sym(struct cellprof *p, const char *payload, size_t len) {
        if (!p->path || !p->asked || p->ended || p->sent_bad)
                return;
        if (!p->sent)
                p->sent = ksyms_new("kallsyms");
        if (ksyms_add_line(p->sent, payload, len) < 0)
                p->sent_bad = 1;
}

void cellprof_on_end(struct cellprof *p, const char *payload, size_t len) {
        char num[24];

        if (!p->path || !p->asked || p->ended)
                return;
        p->ended = 1;
        if (len == 0 || len >= sizeof(num)) {
                p->sent_bad = 1;
                return;
        }
        memcpy(num, payload, len);
        num[len] = '\0';
        if (parse_u64(num, &p->sent_count) < 0)
                p->sent_bad = 1;
}

/* The store's table of the kernel, loaded once; NULL when it has none or
 * it does not read (a damaged file is sent again by the next cell). */
static struct ksyms *stored_table(struct cellprof *p) {
        g_autofree char *file = NULL;
        struct kb_error err = { { 0 } };

        if (!p->stored && p->kernel && p->kernel->dir) {
                file = g_build_filename(p->kernel->dir, CELLPROF_KSYMS_FILE, NULL);
                if (ksyms_load(file, &p->stored, &err) < 0)
                        p->stored = NULL;
        }
        return p->stored;
}

int cellprof_ask(struct cellprof *p) {
        struct ksyms *ks;

        p->asked = 0;
        if (!p->path || p->boot_bad || !p->boot.has_text)
                return 0;
        ks = stored_table(p);
        p->asked = !ks || !ksyms_covers(ks, &p->boot);
        return p->asked;
}

void cellprof_result_clear(struct cellprof_result *r) {
        if (r->rows) {
                for (guint i = 0; i < r->rows->len; i++) {
                        struct cell_profile_row *row = &g_array_index(r->rows, struct cell_profile_row, i);
                        g_free(row->phase);
                        g_free(row->symbol);
                }
                g_array_free(r->rows, TRUE);
        }
        ksyms_free(r->ksyms);
        *r = (struct cellprof_result){ 0 };
}

/* Whether a kernel booted so cannot have been moved from its System.map's
 * addresses: from its PVH vmlinux (no decompressor, so no KASLR), a
 * configuration without CONFIG_RANDOMIZE_BASE, or `nokaslr`. */
static int not_relocated(const struct kstore_kernel *k, const char *cmdline, int booted_vmlinux) {
        g_autofree char *config = NULL;
        g_auto(GStrv) words = g_strsplit(cmdline ? cmdline : "", " ", -1);

        if (booted_vmlinux)
                return 1;
        for (size_t i = 0; words[i]; i++)
                if (strcmp(words[i], "nokaslr") == 0)
                        return 1;
        if (!k->config_path || !g_file_get_contents(k->config_path, &config, NULL, NULL))
                return 0;
        return !strstr(config, "\nCONFIG_RANDOMIZE_BASE=y\n");
}

/* The kernel's System.map as a table, its _text put into boot when the
 * guest did not list one and the kernel cannot have moved. NULL with the
 * reason in notes. */
static struct ksyms *map_table(struct cellprof *p, const char *cmdline, int booted_vmlinux, GPtrArray *notes) {
        _cleanup_free_ char *buf = NULL;
        struct kb_error err = { { 0 } };
        struct ksyms *ks = NULL;
        size_t len = 0;

        if (!p->kernel || !p->kernel->system_map_path || fileio_read(p->kernel->system_map_path, MAP_MAX, &buf, &len, NULL, &err) < 0 ||
            ksyms_from_map(buf, len, &ks, &err) < 0) {
                g_ptr_array_add(notes, g_strdup_printf("no profile: the kernel lists no symbols (no /proc/kallsyms) and "
                                                       "has no System.map of its own%s%s",
                                                       err.msg[0] ? ": " : "", err.msg));
                return NULL;
        }
        if (!p->boot.has_text && !not_relocated(p->kernel, cmdline, booted_vmlinux)) {
                g_ptr_array_add(notes, g_strdup("no profile: the kernel may have been relocated (KASLR) and lists no "
                                                "_text; boot it with --append nokaslr"));
                return ksyms_free(ks);
        }
        if (!p->boot.has_text) {
                p->boot.text = ksyms_link_text(ks);
                p->boot.has_text = 1;
        }
        return ks;
}

/* The table to resolve with: the one the guest sent now (whole), the
 * store's, or the System.map's. OUT: *ret_fresh. NULL with notes. */
static struct ksyms *pick_table(struct cellprof *p, const char *cmdline, int booted_vmlinux, GPtrArray *notes,
                                int *ret_fresh) {
        struct ksyms *ks;

        *ret_fresh = 0;
        if (p->asked && p->ended && !p->sent_bad && p->sent && ksyms_count(p->sent) == p->sent_count) {
                ksyms_finish(p->sent);
                *ret_fresh = 1;
                ks = p->sent;
                p->sent = NULL;
                return ks;
        }
        if (p->asked)
                g_ptr_array_add(notes, g_strdup_printf("profile: the guest's symbol table did not arrive whole (%s)",
                                                       !p->ended ? "no ksyms-end" : p->sent_bad ? "a bad record"
                                                                                                : "a count that differs"));
        if (p->boot.has_text && stored_table(p)) {
                ks = p->stored;
                p->stored = NULL;
                if (!ksyms_covers(ks, &p->boot))
                        g_ptr_array_add(notes, g_strdup("profile: the store's symbol table lacks a module this boot "
                                                        "loaded; its functions show as [module]"));
                return ks;
        }
        return map_table(p, cmdline, booted_vmlinux, notes);
}

/* One phase's segment as rows: the instructions of each function. */
static void resolve_segment(const struct ksyms *ks, const struct ksyms_boot *boot, const char *phase,
                            const struct kprof_segment *seg, GArray *rows, uint64_t *ret_unknown) {
        g_autoptr(GHashTable) at = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        guint first = rows->len;

        *ret_unknown = 0;
        for (size_t i = 0; i < seg->n; i++) {
                char name[KSYMS_RESOLVED_MAX + 1];
                gpointer idx;

                ksyms_lookup(ks, boot, seg->e[i].pc, name, sizeof(name));
                if (strcmp(name, KSYMS_UNKNOWN) == 0)
                        *ret_unknown += seg->e[i].insns;
                if (g_hash_table_lookup_extended(at, name, NULL, &idx)) {
                        g_array_index(rows, struct cell_profile_row, first + GPOINTER_TO_UINT(idx)).insns +=
                                seg->e[i].insns;
                        continue;
                }
                g_hash_table_insert(at, g_strdup(name), GUINT_TO_POINTER(rows->len - first));
                g_array_append_val(rows, ((struct cell_profile_row){ g_strdup(phase), g_strdup(name),
                                                                     seg->e[i].insns }));
        }
}

/* The phases insncount_metrics gives metrics: every named mark followed by
 * another, but "end", each name once (its first span). */
static int phase_counted(const struct insncount_marks *m, size_t i) {
        if (i + 1 >= m->n || !m->v[i].phase[0] || strcmp(m->v[i].phase, "end") == 0)
                return 0;
        for (size_t j = 0; j < i; j++)
                if (strcmp(m->v[j].phase, m->v[i].phase) == 0)
                        return 0;
        return 1;
}

static void resolve(const struct ksyms *ks, const struct ksyms_boot *boot, const struct kprof_data *d,
                    const struct insncount_marks *marks, GArray *rows, GPtrArray *notes) {
        size_t phases = 0, lost = 0, differ = 0;
        uint64_t unknown = 0, total = 0;

        for (size_t i = 0; i < marks->n; i++) {
                const struct kprof_segment *seg;
                uint64_t u;

                if (!phase_counted(marks, i))
                        continue;
                seg = kprof_segment(d, i + 1);
                if (!seg) {
                        lost++;
                        continue;
                }
                resolve_segment(ks, boot, marks->v[i].phase, seg, rows, &u);
                unknown += u;
                total += seg->insns;
                phases++;
                differ += seg->insns != marks->v[i + 1].at.insns[INSNCOUNT_KERNEL] -
                                        marks->v[i].at.insns[INSNCOUNT_KERNEL];
        }
        g_ptr_array_add(notes, g_strdup_printf("profile: %zu phase(s), %u rows, symbols from %s; %.3f %% of the "
                                               "kernel's instructions in no known function", phases, rows->len,
                                               ksyms_source(ks), total ? 100.0 * (double)unknown / (double)total : 0));
        if (lost)
                g_ptr_array_add(notes, g_strdup_printf("profile: %zu phase(s) missing (the plugin's file was full)", lost));
        if (differ)
                g_ptr_array_add(notes, g_strdup_printf("profile: %zu phase(s) differ from the instruction count (several "
                                                       "vCPUs count on while one takes the mark)", differ));
}

void cellprof_conclude(struct cellprof *p, const struct insncount_marks *marks, const char *cmdline,
                       int booted_vmlinux, GPtrArray *notes, struct cellprof_result *ret) {
        struct kprof_data d = { 0 };
        struct kb_error err = { { 0 } };
        int r;

        *ret = (struct cellprof_result){ .rows = g_array_new(FALSE, FALSE, sizeof(struct cell_profile_row)) };
        if (!p->path || marks->n < 2 || marks->insns_only)
                return;
        r = kprof_read(p->path, &d, &err);
        if (r < 0) {
                g_ptr_array_add(notes, g_strdup_printf("no profile: %s", err.msg));
                return;
        }
        if (p->boot_bad)
                g_ptr_array_add(notes, g_strdup("no profile: the guest's kbase records were not what it sends"));
        else if ((ret->ksyms = pick_table(p, cmdline, booted_vmlinux, notes, &ret->ksyms_fresh)))
                resolve(ret->ksyms, &p->boot, &d, marks, ret->rows, notes);
        kprof_data_clear(&d);
}
