/* guest/elfdeps.c: shared-library closure of an ELF binary without executing
 * it (see elfdeps.h). Only the program headers are trusted to lead the way,
 * as in ld.so: PT_INTERP names the loader, PT_DYNAMIC holds the dynamic
 * entries, and DT_STRTAB is a virtual address translated through the PT_LOAD
 * segments. Every offset and length read from the file is checked against
 * the buffer before use. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "guest/elfdeps.h"

#define ELFDEPS_PHNUM_MAX 4096     /* program headers we are willing to walk */
#define ELFDEPS_DYN_MAX 65536      /* dynamic entries we are willing to walk */
#define ELFDEPS_STR_MAX 4096       /* longest name or search path accepted */

/* [off, off+len) lies within size, without overflow. */
static int elfdeps_range_ok(uint64_t off, uint64_t len, size_t size) {
        return off <= size && len <= size - off;
}

struct elfdeps_info *elfdeps_info_free(struct elfdeps_info *info) {
        if (!info)
                return NULL;
        free(info->interp);
        g_strfreev(info->needed);
        g_strfreev(info->runpath);
        g_strfreev(info->rpath);
        free(info);
        return NULL;
}

static void elfdeps_info_freep(struct elfdeps_info **p) {
        elfdeps_info_free(*p);
}

static void elfdeps_info_destroy(gpointer p) {
        elfdeps_info_free(p);
}

/* File offset of the virtual address vaddr via the PT_LOAD segments, such
 * that at least one byte is in the file. -ENOEXEC if no segment maps it. */
static int elfdeps_vaddr_to_off(const uint8_t *data, size_t size, const Elf64_Ehdr *eh,
                                uint64_t vaddr, uint64_t *ret_off, uint64_t *ret_avail) {
        for (unsigned i = 0; i < eh->e_phnum; i++) {
                Elf64_Phdr ph;
                memcpy(&ph, data + eh->e_phoff + (uint64_t)i * eh->e_phentsize, sizeof(ph));
                if (ph.p_type != PT_LOAD)
                        continue;
                if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
                        continue;
                uint64_t delta = vaddr - ph.p_vaddr;
                if (!elfdeps_range_ok(ph.p_offset, ph.p_filesz, size))
                        return -ENOEXEC;
                *ret_off = ph.p_offset + delta;
                *ret_avail = ph.p_filesz - delta;
                return 0;
        }
        return -ENOEXEC;
}

/* Copy the NUL-terminated string at strtab[idx] (strtab is len bytes long,
 * already range-checked) if it is terminated, 1..ELFDEPS_STR_MAX bytes long
 * and free of control characters. NULL otherwise or on ENOMEM. */
static char *elfdeps_str(const uint8_t *strtab, uint64_t len, uint64_t idx) {
        if (idx >= len)
                return NULL;
        const uint8_t *s = strtab + idx;
        uint64_t max = len - idx;
        if (max > ELFDEPS_STR_MAX + 1)
                max = ELFDEPS_STR_MAX + 1;
        const uint8_t *nul = memchr(s, 0, max);
        if (!nul || nul == s)
                return NULL;
        for (const uint8_t *p = s; p < nul; p++)
                if (*p < 0x20 || *p == 0x7f)
                        return NULL;
        return strndup((const char *)s, (size_t)(nul - s));
}

/* Split a search path on ':' dropping empty elements. NULL on ENOMEM. */
static char **elfdeps_split_path(const char *s) {
        g_auto(GStrv) parts = g_strsplit(s, ":", -1);
        GPtrArray *v = g_ptr_array_new();

        for (size_t i = 0; parts[i]; i++)
                if (parts[i][0])
                        g_ptr_array_add(v, g_strdup(parts[i]));
        g_ptr_array_add(v, NULL);
        return (char **)g_ptr_array_free(v, FALSE);
}

/* Check the ELF header and that its program headers lie inside the file. */
static int elfdeps_header(const uint8_t *data, size_t size, Elf64_Ehdr *ret, struct kb_error *err) {
        Elf64_Ehdr eh;

        if (size < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG) != 0)
                return error_setf(err, -ENOEXEC, "not an ELF file");
        if (data[EI_CLASS] != ELFCLASS64 || data[EI_DATA] != ELFDATA2LSB)
                return error_setf(err, -EPROTONOSUPPORT, "not a 64-bit little-endian ELF file");
        if (size < sizeof(eh))
                return error_setf(err, -ENOEXEC, "truncated ELF header");
        memcpy(&eh, data, sizeof(eh));
        if (eh.e_phnum == 0 || eh.e_phnum > ELFDEPS_PHNUM_MAX)
                return error_setf(err, -ENOEXEC, "bad program header count %u", eh.e_phnum);
        if (eh.e_phentsize < sizeof(Elf64_Phdr))
                return error_setf(err, -ENOEXEC, "bad program header size %u", eh.e_phentsize);
        if (!elfdeps_range_ok(eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize, size))
                return error_setf(err, -ENOEXEC, "program headers outside the file");
        *ret = eh;
        return 0;
}

/* Where the dynamic section is, when there is one (the first PT_DYNAMIC). */
struct elfdeps_dyn_loc {
        int have;
        uint64_t off, size;        /* bytes, inside the file */
};

/* Walk the program headers: the interpreter (the first PT_INTERP) into
 * info, the dynamic section into *ret_dyn. */
static int elfdeps_phdrs(const uint8_t *data, size_t size, const Elf64_Ehdr *eh, struct elfdeps_info *info,
                         struct elfdeps_dyn_loc *ret_dyn, struct kb_error *err) {
        for (unsigned i = 0; i < eh->e_phnum; i++) {
                Elf64_Phdr ph;

                memcpy(&ph, data + eh->e_phoff + (uint64_t)i * eh->e_phentsize, sizeof(ph));
                if (ph.p_type == PT_INTERP && !info->interp) {
                        if (!elfdeps_range_ok(ph.p_offset, ph.p_filesz, size))
                                return error_setf(err, -ENOEXEC, "PT_INTERP outside the file");
                        info->interp = elfdeps_str(data + ph.p_offset, ph.p_filesz, 0);
                        if (!info->interp || info->interp[0] != '/')
                                return error_setf(err, -ENOEXEC, "bad PT_INTERP string");
                } else if (ph.p_type == PT_DYNAMIC && !ret_dyn->have) {
                        if (!elfdeps_range_ok(ph.p_offset, ph.p_filesz, size))
                                return error_setf(err, -ENOEXEC, "PT_DYNAMIC outside the file");
                        *ret_dyn = (struct elfdeps_dyn_loc){ 1, ph.p_offset, ph.p_filesz };
                }
        }
        return 0;
}

/* One dynamic entry's value, and whether the file had the entry. */
struct elfdeps_word {
        uint64_t v;
        int have;
};

/* The dynamic entries kbench reads: string table offsets, not yet strings. */
struct elfdeps_dyn {
        GArray *needed;            /* uint64_t offsets of DT_NEEDED names (owned) */
        struct elfdeps_word strtab, strsz, runpath, rpath;
};

/* Where an entry of one value goes (the last of a tag wins); NULL: not read. */
static struct elfdeps_word *elfdeps_dyn_word(struct elfdeps_dyn *d, int64_t tag) {
        switch (tag) {
        case DT_STRTAB: return &d->strtab;
        case DT_STRSZ: return &d->strsz;
        case DT_RUNPATH: return &d->runpath;
        case DT_RPATH: return &d->rpath;
        default: return NULL;
        }
}

static int elfdeps_dyn_scan(const uint8_t *data, const struct elfdeps_dyn_loc *loc, struct elfdeps_dyn *d,
                            struct kb_error *err) {
        uint64_t n = loc->size / sizeof(Elf64_Dyn);

        if (n > ELFDEPS_DYN_MAX)
                n = ELFDEPS_DYN_MAX;
        for (uint64_t i = 0; i < n; i++) {
                struct elfdeps_word *w;
                Elf64_Dyn e;

                memcpy(&e, data + loc->off + i * sizeof(e), sizeof(e));
                if (e.d_tag == DT_NULL)
                        break;
                if (e.d_tag == DT_NEEDED) {
                        if (d->needed->len >= ELFDEPS_NEEDED_MAX)
                                return error_setf(err, -ENOEXEC, "more than %d DT_NEEDED entries",
                                                  ELFDEPS_NEEDED_MAX);
                        g_array_append_val(d->needed, e.d_un.d_val);
                } else if ((w = elfdeps_dyn_word(d, e.d_tag))) {
                        /* d_ptr (DT_STRTAB) and d_val share the union's bits. */
                        *w = (struct elfdeps_word){ e.d_un.d_val, 1 };
                }
        }
        return 0;
}

/* A search path from the string table, split; what names it in errors. */
static int elfdeps_dyn_path(const uint8_t *strtab, uint64_t strsz, uint64_t idx, const char *what,
                            char ***ret, struct kb_error *err) {
        _cleanup_free_ char *s = elfdeps_str(strtab, strsz, idx);

        if (!s)
                return error_setf(err, -ENOEXEC, "bad %s string", what);
        *ret = elfdeps_split_path(s);
        return 0;
}

/* Resolve the dynamic entries' strings into info: the needed names (bare
 * names or absolute paths), DT_RUNPATH and DT_RPATH. */
static int elfdeps_dyn_strings(const uint8_t *data, size_t size, const Elf64_Ehdr *eh, struct elfdeps_dyn *d,
                               struct elfdeps_info *info, struct kb_error *err) {
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(free);
        uint64_t off = 0, avail, strsz = d->strsz.v;
        int r = 0;

        if (d->needed->len > 0 || d->runpath.have || d->rpath.have) {
                if (!d->strtab.have || !d->strsz.have ||
                    elfdeps_vaddr_to_off(data, size, eh, d->strtab.v, &off, &avail) < 0)
                        return error_setf(err, -ENOEXEC, "DT_STRTAB missing or not in a PT_LOAD segment");
                if (strsz > avail)
                        strsz = avail; /* the segment's file part bounds the table */
                for (guint i = 0; i < d->needed->len; i++) {
                        char *s = elfdeps_str(data + off, strsz, g_array_index(d->needed, uint64_t, i));
                        if (!s || (strchr(s, '/') && s[0] != '/')) {
                                free(s);
                                return error_setf(err, -ENOEXEC, "bad DT_NEEDED string");
                        }
                        g_ptr_array_add(names, s);
                }
                if (d->runpath.have)
                        r = elfdeps_dyn_path(data + off, strsz, d->runpath.v, "DT_RUNPATH", &info->runpath, err);
                if (r >= 0 && d->rpath.have)
                        r = elfdeps_dyn_path(data + off, strsz, d->rpath.v, "DT_RPATH", &info->rpath, err);
                if (r < 0)
                        return r;
        }
        /* Hand the strings to a GStrv (g_strfreev frees with g_free,
         * which is free() in GLib >= 2.46). */
        g_ptr_array_set_free_func(names, NULL);
        g_ptr_array_add(names, NULL);
        info->needed = (char **)g_ptr_array_free(TAKE_PTR(names), FALSE);
        return 0;
}

int elfdeps_parse(const uint8_t *data, size_t size, struct elfdeps_info **ret,
                  struct kb_error *err) {
        _cleanup_(elfdeps_info_freep) struct elfdeps_info *info = NULL;
        struct elfdeps_dyn_loc loc = { 0 };
        Elf64_Ehdr eh = { 0 };     /* set on success; zeroed for the compiler's flow check */
        int r;

        r = elfdeps_header(data, size, &eh, err);
        if (r < 0)
                return r;
        info = calloc(1, sizeof(*info));
        if (!info)
                return error_setf(err, -ENOMEM, "out of memory");
        info->machine = eh.e_machine;
        info->type = eh.e_type;
        r = elfdeps_phdrs(data, size, &eh, info, &loc, err);
        if (r < 0)
                return r;
        if (loc.have) {
                g_autoptr(GArray) needed = g_array_new(FALSE, FALSE, sizeof(uint64_t));
                struct elfdeps_dyn d = { .needed = needed };

                info->dynamic = 1;
                r = elfdeps_dyn_scan(data, &loc, &d, err);
                if (r >= 0)
                        r = elfdeps_dyn_strings(data, size, &eh, &d, info, err);
                if (r < 0)
                        return r;
        } else {
                info->needed = g_new0(char *, 1);
        }

        *ret = TAKE_PTR(info);
        return 0;
}

int elfdeps_parse_file(const char *path, struct elfdeps_info **ret, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r;

        r = fileio_read(path, ELFDEPS_FILE_MAX, &buf, &len, NULL, err);
        if (r < 0)
                return r == -EINVAL ? error_setf(err, -ENOEXEC, "%s: not a regular file", path) : r;
        r = elfdeps_parse((const uint8_t *)buf, len, ret, err);
        if (r < 0)
                return error_prefix(err, r, "%s", path);
        return 0;
}

/* The Debian multiarch triplet for an ELF machine, NULL if unknown. */
static const char *elfdeps_triplet(uint16_t machine) {
        switch (machine) {
        case EM_X86_64:
                return "x86_64-linux-gnu";
        case EM_AARCH64:
                return "aarch64-linux-gnu";
        case EM_RISCV:
                return "riscv64-linux-gnu";
        case EM_PPC64:
                return "powerpc64le-linux-gnu";
        case EM_S390:
                return "s390x-linux-gnu";
        default:
                return NULL;
        }
}

/* Add the directories of a DT_RUNPATH/DT_RPATH vector to dirs, expanding
 * $ORIGIN / ${ORIGIN} to origin; elements with other $ tokens are skipped
 * (ld.so would substitute $LIB/$PLATFORM, which we do not need). */
static void elfdeps_add_search(GPtrArray *dirs, char **v, const char *origin) {
        for (size_t i = 0; v && v[i]; i++) {
                g_autoptr(GString) s = g_string_new(v[i]);
                g_string_replace(s, "${ORIGIN}", origin, 0);
                g_string_replace(s, "$ORIGIN", origin, 0);
                if (strchr(s->str, '$') || s->str[0] != '/')
                        continue;
                g_ptr_array_add(dirs, g_strdup(s->str));
        }
}

/* The directories ld.so searches for the DT_NEEDED of obj, found at
 * obj_path, in its order: obj's DT_RUNPATH, else its DT_RPATH and the
 * executable's (exe, NULL when obj is the executable; exe_origin its
 * directory) unless the executable has a DT_RUNPATH; then the multiarch
 * directories of triplet (may be NULL) and the default ones. Caller
 * frees (g_ptr_array_unref). */
static GPtrArray *elfdeps_search_dirs(const struct elfdeps_info *obj, const struct elfdeps_info *exe,
                                      const char *obj_path, const char *exe_origin, const char *triplet) {
        GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *origin = g_path_get_dirname(obj_path);

        if (obj->runpath)
                elfdeps_add_search(dirs, obj->runpath, origin);
        else {
                elfdeps_add_search(dirs, obj->rpath, origin);
                if (exe && !exe->runpath)
                        elfdeps_add_search(dirs, exe->rpath, exe_origin);
        }
        if (triplet) {
                g_ptr_array_add(dirs, g_strdup_printf("/lib/%s", triplet));
                g_ptr_array_add(dirs, g_strdup_printf("/usr/lib/%s", triplet));
        }
        g_ptr_array_add(dirs, g_strdup("/lib64"));
        g_ptr_array_add(dirs, g_strdup("/usr/lib64"));
        g_ptr_array_add(dirs, g_strdup("/lib"));
        g_ptr_array_add(dirs, g_strdup("/usr/lib"));
        return dirs;
}

/* Find name for an object of machine m along dirs. OUT: *ret_path, *ret_info
 * of the candidate. -ENOENT if no directory holds a matching object. */
static int elfdeps_find(const char *name, uint16_t m, GPtrArray *dirs,
                        char **ret_path, struct elfdeps_info **ret_info) {
        for (guint i = 0; i < dirs->len; i++) {
                g_autofree char *p = g_build_filename(dirs->pdata[i], name, NULL);
                struct elfdeps_info *info = NULL;
                struct kb_error e;

                if (access(p, F_OK) < 0)
                        continue;
                if (elfdeps_parse_file(p, &info, &e) < 0)
                        continue; /* wrong class or not ELF: ld.so skips it too */
                if (info->machine != m) {
                        elfdeps_info_free(info);
                        continue;
                }
                *ret_path = g_steal_pointer(&p);
                *ret_info = info;
                return 0;
        }
        return -ENOENT;
}

int elfdeps_closure(const char *path, char ***ret_paths, struct kb_error *err) {
        _cleanup_(elfdeps_info_freep) struct elfdeps_info *exe = NULL;
        g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) queue_path = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) queue_info = g_ptr_array_new_with_free_func(elfdeps_info_destroy);
        g_autoptr(GHashTable) seen_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GHashTable) seen_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autofree char *exe_origin = NULL;
        const char *triplet;
        int r;

        r = elfdeps_parse_file(path, &exe, err);
        if (r < 0)
                return r;
        exe_origin = g_path_get_dirname(path);
        triplet = elfdeps_triplet(exe->machine);
        if (exe->interp) {
                g_ptr_array_add(out, g_strdup(exe->interp));
                g_hash_table_add(seen_path, g_strdup(exe->interp));
                /* libc's DT_NEEDED on ld-linux-x86-64.so.2 is satisfied by
                 * the loader already mapped, matched by name as ld.so does. */
                g_hash_table_add(seen_name, g_path_get_basename(exe->interp));
        }

        /* Breadth first: queue_path[i] / queue_info[i] are the objects whose
         * DT_NEEDED still has to be resolved; the executable goes first. */
        g_ptr_array_add(queue_path, g_strdup(path));
        g_ptr_array_add(queue_info, TAKE_PTR(exe));
        for (guint q = 0; q < queue_info->len; q++) {
                struct elfdeps_info *obj = queue_info->pdata[q];
                g_autoptr(GPtrArray) dirs = elfdeps_search_dirs(obj, q == 0 ? NULL : queue_info->pdata[0],
                                                                queue_path->pdata[q], exe_origin, triplet);

                for (size_t i = 0; obj->needed[i]; i++) {
                        const char *name = obj->needed[i];
                        char *found = NULL;
                        struct elfdeps_info *info = NULL;

                        if (g_hash_table_contains(seen_name, name))
                                continue;
                        if (name[0] == '/') {
                                struct kb_error e;
                                if (elfdeps_parse_file(name, &info, &e) < 0)
                                        return error_setf(err, -ENOENT, "%s: needed by %s: %s",
                                                          name, (char *)queue_path->pdata[q], e.msg);
                                found = g_strdup(name);
                        } else if (elfdeps_find(name, obj->machine, dirs, &found, &info) < 0)
                                return error_setf(err, -ENOENT, "%s: shared library %s not found (needed by %s)",
                                                  path, name, (char *)queue_path->pdata[q]);
                        g_hash_table_add(seen_name, g_strdup(name));
                        if (g_hash_table_contains(seen_path, found)) {
                                g_free(found);
                                elfdeps_info_free(info);
                                continue;
                        }
                        if (out->len >= ELFDEPS_CLOSURE_MAX) {
                                g_free(found);
                                elfdeps_info_free(info);
                                return error_setf(err, -E2BIG, "%s: more than %d libraries", path,
                                                  ELFDEPS_CLOSURE_MAX);
                        }
                        g_hash_table_add(seen_path, g_strdup(found));
                        g_ptr_array_add(out, g_strdup(found));
                        g_ptr_array_add(queue_path, found);
                        g_ptr_array_add(queue_info, info);
                }
        }

        g_ptr_array_add(out, NULL);
        *ret_paths = (char **)g_ptr_array_steal(out, NULL);
        return 0;
}
