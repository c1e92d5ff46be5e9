/* kernels/ksyms.c: a kernel's text symbols (see ksyms.h). */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "kernels/ksyms.h"

struct ksyms_sym {
        uint64_t off;
        const char *name;                  /* in the table's names */
};

struct section {
        char *module;                      /* NULL: the kernel proper */
        uint64_t size;                     /* a module's */
        GArray *v;                         /* struct ksyms_sym */
};

struct ksyms {
        GPtrArray *sections;               /* struct section *, the kernel proper's first when present */
        GHashTable *by_module;             /* module name -> struct section * */
        struct section *core;              /* or NULL */
        GStringChunk *names;
        size_t n_syms;
        char *source;
        uint64_t link_text;
};

static void section_free(gpointer p) {
        struct section *s = p;

        g_free(s->module);
        g_array_free(s->v, TRUE);
        g_free(s);
}

struct ksyms *ksyms_new(const char *source) {
        struct ksyms *ks = g_new0(struct ksyms, 1);

        ks->sections = g_ptr_array_new_with_free_func(section_free);
        ks->by_module = g_hash_table_new(g_str_hash, g_str_equal);
        ks->names = g_string_chunk_new(1 << 16);
        ks->source = g_strdup(source);
        return ks;
}

struct ksyms *ksyms_free(struct ksyms *ks) {
        if (!ks)
                return NULL;
        g_hash_table_destroy(ks->by_module);
        g_ptr_array_free(ks->sections, TRUE);
        g_string_chunk_free(ks->names);
        g_free(ks->source);
        g_free(ks);
        return NULL;
}

const char *ksyms_source(const struct ksyms *ks) {
        return ks->source;
}

uint64_t ksyms_link_text(const struct ksyms *ks) {
        return ks->link_text;
}

size_t ksyms_count(const struct ksyms *ks) {
        return ks->n_syms;
}

/* ---- the text form ------------------------------------------------------- */

/* A word of [p, end): up to the next blank. Advances *p past it and one blank. */
static int next_word(const char **p, const char *end, const char **ret, size_t *ret_n) {
        const char *s = *p, *e = s;

        while (e < end && *e != ' ')
                e++;
        if (e == s)
                return 0;
        *ret = s;
        *ret_n = (size_t)(e - s);
        *p = e < end ? e + 1 : e;
        return 1;
}

static int parse_hex(const char *s, size_t n, uint64_t *ret) {
        uint64_t v = 0;

        if (n == 0 || n > 16)
                return -EBADMSG;
        for (size_t i = 0; i < n; i++) {
                int d = g_ascii_xdigit_value(s[i]);

                if (d < 0)
                        return -EBADMSG;
                v = v << 4 | (uint64_t)d;
        }
        *ret = v;
        return 0;
}

/* A symbol's name: printable ASCII without blanks. */
static int name_ok(const char *s, size_t n) {
        if (n == 0 || n > KSYMS_NAME_MAX)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (s[i] <= ' ' || s[i] > '~')
                        return 0;
        return 1;
}

static int module_ok(const char *s, size_t n) {
        if (n == 0 || n > KSYMS_MODULE_MAX)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (!g_ascii_isalnum(s[i]) && s[i] != '_' && s[i] != '-')
                        return 0;
        return 1;
}

/* The section of module (NULL: the kernel proper), made when new. */
static struct section *section_of(struct ksyms *ks, const char *module, uint64_t size) {
        struct section *s = module ? g_hash_table_lookup(ks->by_module, module) : ks->core;

        if (s)
                return s->size == size ? s : NULL;
        s = g_new0(struct section, 1);
        s->module = g_strdup(module);
        s->size = size;
        s->v = g_array_new(FALSE, FALSE, sizeof(struct ksyms_sym));
        g_ptr_array_add(ks->sections, s);
        if (module)
                g_hash_table_insert(ks->by_module, s->module, s);
        else
                ks->core = s;
        return s;
}

static int add_sym(struct ksyms *ks, struct section *s, uint64_t off, const char *name, size_t n) {
        struct ksyms_sym y = { off, g_string_chunk_insert_len(ks->names, name, (gssize)n) };

        if (ks->n_syms >= KSYMS_SYMS_MAX)
                return -E2BIG;
        g_array_append_val(s->v, y);
        ks->n_syms++;
        return 0;
}

/* The section a line opens: "core" or "mod MODULE SIZE". */
static int line_section(struct ksyms *ks, const char **p, const char *end, struct section **ret) {
        char module[KSYMS_MODULE_MAX + 1], num[24];
        const char *w;
        size_t n;
        uint64_t size;

        if (!next_word(p, end, &w, &n))
                return -EBADMSG;
        if (n == 4 && memcmp(w, "core", 4) == 0) {
                *ret = section_of(ks, NULL, 0);
                return 0;
        }
        if (n != 3 || memcmp(w, "mod", 3) != 0 || !next_word(p, end, &w, &n) || !module_ok(w, n))
                return -EBADMSG;
        memcpy(module, w, n);
        module[n] = '\0';
        if (!next_word(p, end, &w, &n) || n >= sizeof(num))
                return -EBADMSG;
        memcpy(num, w, n);
        num[n] = '\0';
        if (parse_u64(num, &size) < 0 || size == 0 || size > UINT32_MAX)
                return -EBADMSG;
        *ret = section_of(ks, module, size);
        return *ret ? 0 : -EBADMSG;  /* a module seen before at another size */
}

int ksyms_add_line(struct ksyms *ks, const char *line, size_t len) {
        const char *p = line, *end = line + len, *w, *name;
        struct section *s;
        size_t n, nn;
        int r = len && line[len - 1] != ' ' ? line_section(ks, &p, end, &s) : -EBADMSG;

        while (r == 0 && p < end) {
                uint64_t off;

                if (!next_word(&p, end, &w, &n) || parse_hex(w, n, &off) < 0 || !next_word(&p, end, &name, &nn) ||
                    !name_ok(name, nn))
                        return -EBADMSG;
                if (s->module && off >= s->size)
                        return -EBADMSG;
                r = add_sym(ks, s, off, name, nn);
        }
        return r;
}

/* How a name at an address several share ranks, lowest first: a
 * function before a marker of where a section starts or ends
 * (__indirect_thunk_start shares its address with
 * __x86_indirect_thunk_rax), then the fewest leading underscores
 * (startup_64 before _stext). */
static int name_rank(const char *s) {
        size_t n = strlen(s);
        int u = 0;

        while (s[u] == '_')
                u++;
        if ((n > 6 && strcmp(s + n - 6, "_start") == 0) || (n > 4 && strcmp(s + n - 4, "_end") == 0) ||
            strcmp(s, "_stext") == 0 || strcmp(s, "_text") == 0)
                u += 1000;
        return u;
}

static gint sym_cmp(gconstpointer a, gconstpointer b) {
        const struct ksyms_sym *x = a, *y = b;
        int rx, ry;

        if (x->off != y->off)
                return x->off < y->off ? -1 : 1;
        rx = name_rank(x->name);
        ry = name_rank(y->name);
        if (rx != ry)
                return rx - ry;
        return strcmp(x->name, y->name);
}

void ksyms_finish(struct ksyms *ks) {
        ks->n_syms = 0;
        for (guint i = 0; i < ks->sections->len; i++) {
                struct section *s = ks->sections->pdata[i];
                struct ksyms_sym *v = (struct ksyms_sym *)(void *)s->v->data;
                guint o = 0;

                g_array_sort(s->v, sym_cmp);
                for (guint k = 0; k < s->v->len; k++)
                        if (o == 0 || v[o - 1].off != v[k].off)
                                v[o++] = v[k];
                g_array_set_size(s->v, o);
                ks->n_syms += o;
        }
}

/* ---- System.map ---------------------------------------------------------- */

/* "HEX TYPE NAME" into its parts; 0 when the line is not one. */
static int map_line(const char *s, size_t n, uint64_t *addr, char *type, const char **name, size_t *name_n) {
        const char *p = s, *end = s + n, *w;
        size_t wn;

        if (!next_word(&p, end, &w, &wn) || parse_hex(w, wn, addr) < 0 || !next_word(&p, end, &w, &wn) || wn != 1)
                return 0;
        *type = w[0];
        if (!next_word(&p, end, name, name_n) || p != end)
                return 0;
        return 1;
}

static int is_text_type(char t) {
        return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

int ksyms_from_map(const char *text, size_t len, struct ksyms **ret, struct kb_error *err) {
        struct ksyms *ks = ksyms_new("System.map");
        const char *line, *name;
        size_t pos = 0, n, nn, lineno = 0;
        uint64_t addr = 0, base;
        int found = 0, r = 0;
        char type;

        /* _text first: every offset is from it. */
        while (!found && parse_next_line(text, len, &pos, &line, &n))
                found = map_line(line, n, &addr, &type, &name, &nn) && nn == 5 && memcmp(name, "_text", 5) == 0;
        base = addr;
        for (pos = 0; found && r == 0 && parse_next_line(text, len, &pos, &line, &n);) {
                lineno++;
                if (n == 0)
                        continue;
                if (!map_line(line, n, &addr, &type, &name, &nn) || !name_ok(name, nn))
                        r = error_setf(err, -EBADMSG, "System.map line %zu is not 'ADDRESS TYPE NAME'", lineno);
                else if (is_text_type(type) && addr >= base)
                        r = add_sym(ks, section_of(ks, NULL, 0), addr - base, name, nn);
        }
        if (r == 0 && (!found || ks->n_syms == 0))
                r = error_setf(err, -ENODATA, "System.map lists no text symbol or no _text");
        if (r == -E2BIG)
                error_setf(err, r, "System.map lists more than %u symbols", KSYMS_SYMS_MAX);
        if (r < 0) {
                ksyms_free(ks);
                return r;
        }
        ks->link_text = base;
        ksyms_finish(ks);
        *ret = ks;
        return 0;
}

/* ---- the store's file ---------------------------------------------------- */

int ksyms_load(const char *path, struct ksyms **ret, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, pos = 0, n, lineno = 1;
        const char *line;
        struct ksyms *ks;
        int r = fileio_read(path, KSYMS_FILE_MAX, &buf, &len, NULL, err);

        if (r < 0)
                return r;
        if (!parse_next_line(buf, len, &pos, &line, &n) || n != strlen(KSYMS_FILE_HEADER) ||
            memcmp(line, KSYMS_FILE_HEADER, n) != 0)
                return error_setf(err, -EBADMSG, "%s: not a kbench symbol table (no '%s' line)", path,
                                  KSYMS_FILE_HEADER);
        ks = ksyms_new("kallsyms");
        while (r == 0 && parse_next_line(buf, len, &pos, &line, &n)) {
                lineno++;
                r = ksyms_add_line(ks, line, n);
        }
        if (r < 0) {
                ksyms_free(ks);
                return error_setf(err, r, "%s: line %zu: %s", path, lineno,
                                  r == -E2BIG ? "too many symbols" : "not a section of symbols");
        }
        ksyms_finish(ks);
        *ret = ks;
        return 0;
}

/* One section as lines of at most about 2000 bytes, as the agent sends them. */
static void format_section(const struct section *s, GString *out) {
        const struct ksyms_sym *v = (const struct ksyms_sym *)(const void *)s->v->data;
        size_t start = out->len;

        for (guint k = 0; k < s->v->len; k++) {
                if (k == 0 || out->len - start > 2000) {
                        if (k > 0)
                                g_string_append_c(out, '\n');
                        start = out->len;
                        if (s->module)
                                g_string_append_printf(out, "mod %s %" G_GUINT64_FORMAT, s->module, s->size);
                        else
                                g_string_append(out, "core");
                }
                g_string_append_printf(out, " %" G_GINT64_MODIFIER "x %s", v[k].off, v[k].name);
        }
        if (s->v->len)
                g_string_append_c(out, '\n');
}

int ksyms_save(const struct ksyms *ks, const char *path, struct kb_error *err) {
        g_autoptr(GString) out = g_string_new(KSYMS_FILE_HEADER "\n");

        for (guint i = 0; i < ks->sections->len; i++)
                format_section(ks->sections->pdata[i], out);
        return fileio_write_atomic(path, out->str, out->len, 0644, err);
}

int ksyms_each_name(const struct ksyms *ks, int (*fn)(const char *name, void *userdata), void *userdata) {
        for (guint i = 0; i < ks->sections->len; i++) {
                const struct section *s = ks->sections->pdata[i];
                const struct ksyms_sym *v = (const struct ksyms_sym *)(const void *)s->v->data;

                for (guint k = 0; k < s->v->len; k++) {
                        char buf[KSYMS_RESOLVED_MAX + 1];
                        int r;

                        if (s->module)
                                snprintf(buf, sizeof(buf), "%s [%s]", v[k].name, s->module);
                        r = fn(s->module ? buf : v[k].name, userdata);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* ---- a boot -------------------------------------------------------------- */

int ksyms_boot_record(struct ksyms_boot *b, const char *payload, size_t len) {
        const char *p = payload, *end = payload + len, *w, *name;
        size_t n, nn;
        uint64_t v, size;
        char num[24];

        if (!next_word(&p, end, &w, &n))
                return -EBADMSG;
        if (n == 4 && memcmp(w, "none", 4) == 0 && p == end) {
                b->no_kallsyms = 1;
                return 0;
        }
        if (n == 4 && memcmp(w, "text", 4) == 0) {
                if (!next_word(&p, end, &w, &n) || p != end || parse_hex(w, n, &v) < 0)
                        return -EBADMSG;
                b->text = v;
                b->has_text = 1;
                return 0;
        }
        if (n != 6 || memcmp(w, "module", 6) != 0 || !next_word(&p, end, &name, &nn) || !module_ok(name, nn) ||
            !next_word(&p, end, &w, &n) || parse_hex(w, n, &v) < 0 || !next_word(&p, end, &w, &n) || p != end ||
            n >= sizeof(num))
                return -EBADMSG;
        memcpy(num, w, n);
        num[n] = '\0';
        if (parse_u64(num, &size) < 0 || size == 0 || size > UINT32_MAX || v + size < v)
                return -EBADMSG;
        if (b->n_mods >= KSYMS_BOOT_MODULES_MAX)
                return -E2BIG;
        b->mods = g_renew(struct ksyms_module, b->mods, b->n_mods + 1);
        b->mods[b->n_mods] = (struct ksyms_module){ .base = v, .size = size };
        memcpy(b->mods[b->n_mods].name, name, nn);
        b->mods[b->n_mods].name[nn] = '\0';
        b->n_mods++;
        return 0;
}

void ksyms_boot_clear(struct ksyms_boot *b) {
        g_free(b->mods);
        *b = (struct ksyms_boot){ 0 };
}

int ksyms_covers(const struct ksyms *ks, const struct ksyms_boot *b) {
        if (!ks->core || ks->core->v->len == 0)
                return 0;
        for (size_t i = 0; i < b->n_mods; i++) {
                const struct section *s = g_hash_table_lookup(ks->by_module, b->mods[i].name);

                if (!s || s->size != b->mods[i].size)
                        return 0;
        }
        return 1;
}

/* The last symbol of s at or before off, or NULL. */
static const struct ksyms_sym *sym_at(const struct section *s, uint64_t off) {
        const struct ksyms_sym *v = (const struct ksyms_sym *)(const void *)s->v->data;
        size_t lo = 0, hi = s->v->len;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (v[mid].off <= off)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo ? &v[lo - 1] : NULL;
}

void ksyms_lookup(const struct ksyms *ks, const struct ksyms_boot *b, uint64_t pc, char *buf, size_t size) {
        const struct ksyms_sym *y;

        for (size_t i = 0; i < b->n_mods; i++) {
                const struct ksyms_module *m = &b->mods[i];
                const struct section *s;

                if (pc < m->base || pc - m->base >= m->size)
                        continue;
                s = g_hash_table_lookup(ks->by_module, m->name);
                y = s && s->size == m->size ? sym_at(s, pc - m->base) : NULL;
                if (y)
                        snprintf(buf, size, "%s [%s]", y->name, m->name);
                else
                        snprintf(buf, size, "[%s]", m->name);
                return;
        }
        y = b->has_text && ks->core && pc >= b->text ? sym_at(ks->core, pc - b->text) : NULL;
        /* Past the end of the kernel's text, or of the init text freed
         * after the boot: no function of the table. */
        if (!y || pc - b->text - y->off > KSYMS_FUNC_MAX || strcmp(y->name, "_etext") == 0 ||
            strcmp(y->name, "_einittext") == 0)
                snprintf(buf, size, "%s", KSYMS_UNKNOWN);
        else
                snprintf(buf, size, "%s", y->name);
}
