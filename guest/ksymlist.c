/* guest/ksymlist.c: the kernel's symbols as the agent sends them (see
 * ksymlist.h). Reads /proc/kallsyms line by line through a buffer: a
 * Debian kernel lists about 94,000 symbols, half of them text. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/ksymlist.h"

#define LINE_MAX_BYTES 1024
#define MODULES_MAX 1024
#define MODULE_NAME_MAX 63

struct reader {
        int fd;
        char buf[1 << 16];
        size_t pos, len;
        char line[LINE_MAX_BYTES];
};

struct module {
        char name[MODULE_NAME_MAX + 1];
        uint64_t base, size;
};

static int reader_open(struct reader *r, const char *root, const char *path) {
        char full[512];

        snprintf(full, sizeof(full), "%s%s", root, path);
        r->fd = open(full, O_RDONLY | O_CLOEXEC);
        r->pos = r->len = 0;
        return r->fd < 0 ? -errno : 0;
}

/* The next line, without its newline, in r->line (an over-long line is
 * cut); 0 at the end. */
static int reader_line(struct reader *r) {
        size_t n = 0;

        for (;;) {
                if (r->pos == r->len) {
                        ssize_t got = read(r->fd, r->buf, sizeof(r->buf));

                        if (got < 0 && errno == EINTR)
                                continue;
                        if (got <= 0) {
                                r->line[n] = '\0';
                                return n > 0;
                        }
                        r->pos = 0;
                        r->len = (size_t)got;
                }
                char c = r->buf[r->pos++];
                if (c == '\n') {
                        r->line[n] = '\0';
                        return 1;
                }
                if (n + 1 < sizeof(r->line))
                        r->line[n++] = c;
        }
}

static void reader_close(struct reader *r) {
        if (r->fd >= 0)
                close(r->fd);
        r->fd = -1;
}

/* "ADDR TYPE NAME[\t[MODULE]]" into its parts (pointing into line). */
static int kallsyms_line(char *line, uint64_t *addr, char *type, char **name, char **module) {
        char *end, *sp = strchr(line, ' '), *tab;

        if (!sp || sp[1] == '\0' || sp[2] != ' ')
                return 0;
        errno = 0;
        *addr = strtoull(line, &end, 16);
        if (end != sp || errno)
                return 0;
        *type = sp[1];
        *name = sp + 3;
        *module = NULL;
        tab = strchr(*name, '\t');
        if (tab) {
                *tab = '\0';
                if (tab[1] == '[' && tab[2] && tab[strlen(tab + 1)] == ']') {
                        *module = tab + 2;
                        tab[strlen(tab + 1)] = '\0';
                }
        }
        return **name != '\0';
}

/* The kernel's _text from /proc/kallsyms: its first lines (the per-CPU
 * symbols, then _text). 0 when absent or hidden (kptr_restrict). */
static uint64_t text_base(const char *root) {
        static struct reader r;
        uint64_t addr, found = 0;
        char type, *name, *module;

        if (reader_open(&r, root, "/proc/kallsyms") < 0)
                return 0;
        while (!found && reader_line(&r))
                if (kallsyms_line(r.line, &addr, &type, &name, &module) && !module && strcmp(name, "_text") == 0)
                        found = addr;
        reader_close(&r);
        return found;
}

/* /proc/modules: "NAME SIZE REFS DEPS STATE 0xADDR [TAINTS]". Returns the
 * modules read (whose address is not hidden). */
static size_t read_modules(const char *root, struct module *m, size_t max) {
        static struct reader r;
        size_t n = 0;

        if (reader_open(&r, root, "/proc/modules") < 0)
                return 0;
        while (n < max && reader_line(&r)) {
                char *save = NULL, *w[6], *end;
                size_t k = 0;

                for (char *t = strtok_r(r.line, " ", &save); t && k < 6; t = strtok_r(NULL, " ", &save))
                        w[k++] = t;
                if (k < 6 || strlen(w[0]) > MODULE_NAME_MAX || strncmp(w[5], "0x", 2) != 0)
                        continue;
                errno = 0;
                m[n].size = strtoull(w[1], &end, 10);
                if (*end || errno || m[n].size == 0)
                        continue;
                m[n].base = strtoull(w[5] + 2, &end, 16);
                if (*end || errno || m[n].base == 0)
                        continue;
                strcpy(m[n].name, w[0]);
                n++;
        }
        reader_close(&r);
        return n;
}

void ksymlist_base(const char *root, ksymlist_emit_fn emit, void *userdata) {
        static struct module mods[MODULES_MAX];
        uint64_t text = text_base(root);
        size_t n = text ? read_modules(root, mods, MODULES_MAX) : 0;
        char buf[160];
        int len;

        len = text ? snprintf(buf, sizeof(buf), "text %llx", (unsigned long long)text) : snprintf(buf, sizeof(buf), "none");
        emit("kbase", buf, (size_t)len, userdata);
        for (size_t i = 0; i < n; i++) {
                len = snprintf(buf, sizeof(buf), "module %.63s %llx %llu", mods[i].name, (unsigned long long)mods[i].base,
                               (unsigned long long)mods[i].size);
                emit("kbase", buf, (size_t)len, userdata);
        }
}

/* The records being filled: one section's "core ..." or "mod NAME SIZE ...". */
struct out {
        char buf[4096];
        size_t len, max;
        char head[MODULE_NAME_MAX + 40];   /* the section's opening words */
        unsigned long long sent;
        ksymlist_emit_fn emit;
        void *userdata;
};

static void out_flush(struct out *o) {
        if (o->len > strlen(o->head))
                o->emit("ksym", o->buf, o->len, o->userdata);
        o->len = 0;
}

static void out_add(struct out *o, const char *head, uint64_t off, const char *name) {
        char pair[300];
        int n = snprintf(pair, sizeof(pair), " %llx %s", (unsigned long long)off, name);

        if (n <= 0 || (size_t)n >= sizeof(pair))
                return;
        if (strcmp(o->head, head) != 0 || o->len + (size_t)n > o->max) {
                out_flush(o);
                snprintf(o->head, sizeof(o->head), "%s", head);
        }
        if (o->len == 0) {
                o->len = strlen(o->head);
                memcpy(o->buf, o->head, o->len);
        }
        memcpy(o->buf + o->len, pair, (size_t)n);
        o->len += (size_t)n;
        o->sent++;
}

static const struct module *module_of(const struct module *m, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(m[i].name, name) == 0)
                        return &m[i];
        return NULL;
}

void ksymlist_dump(const char *root, size_t payload_max, ksymlist_emit_fn emit, void *userdata) {
        static struct module mods[MODULES_MAX];
        static struct reader r;
        static struct out o;
        uint64_t text = text_base(root), addr;
        size_t n = text ? read_modules(root, mods, MODULES_MAX) : 0;
        char type, *name, *module, head[MODULE_NAME_MAX + 40], end[32];
        int len;

        o = (struct out){ .max = payload_max < sizeof(o.buf) ? payload_max : sizeof(o.buf), .emit = emit,
                          .userdata = userdata };
        if (text && reader_open(&r, root, "/proc/kallsyms") == 0) {
                while (reader_line(&r)) {
                        const struct module *m;

                        if (!kallsyms_line(r.line, &addr, &type, &name, &module) ||
                            !strchr("tTwW", type) || strlen(name) > 255)
                                continue;
                        if (!module && addr >= text) {
                                out_add(&o, "core", addr - text, name);
                        } else if (module && (m = module_of(mods, n, module)) && addr >= m->base &&
                                   addr - m->base < m->size) {
                                snprintf(head, sizeof(head), "mod %.63s %llu", m->name, (unsigned long long)m->size);
                                out_add(&o, head, addr - m->base, name);
                        }
                }
                reader_close(&r);
                out_flush(&o);
        }
        len = snprintf(end, sizeof(end), "%llu", o.sent);
        emit("ksyms-end", end, (size_t)len, userdata);
}
