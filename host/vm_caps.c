/* host/vm_caps.c: the parts of a libvirt capabilities document kbench uses
 * (the host's CPU, and who the daemon runs QEMU as), read with GMarkup.
 * The document comes from the host, so it is untrusted: texts are
 * bounded, paths too deep to matter match nothing, and numbers are
 * checked (fuzz/fuzz-caps.c). */
#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "host/vm.h"

struct caps_parse {
        struct vm_caps *caps;
        char path[256];            /* element names from the root, '/'-joined, cut when deeper */
        int dac;                   /* inside a <secmodel> whose <model> was dac */
        int in_qemu_label;         /* inside <baselabel type='qemu'> of such a secmodel */
        char model[16];            /* the current secmodel's <model> text */
        GString *text;             /* the current element's text, bounded */
};

static void caps_start(GMarkupParseContext *ctx, const char *name, const char **attr_names,
                       const char **attr_values, gpointer data, GError **error) {
        struct caps_parse *p = data;
        size_t len = strlen(p->path);

        if (len + 1 + strlen(name) < sizeof(p->path))
                g_snprintf(p->path + len, sizeof(p->path) - len, "/%s", name);
        else
                g_strlcat(p->path, "/-", sizeof(p->path));  /* too deep to matter: matches nothing */
        if (strcmp(p->path, "/capabilities/host/secmodel") == 0) {
                p->dac = 0;
                p->model[0] = '\0';
        }
        if (strcmp(p->path, "/capabilities/host/secmodel/baselabel") == 0)
                for (int i = 0; attr_names[i]; i++)
                        if (strcmp(attr_names[i], "type") == 0 && strcmp(attr_values[i], "qemu") == 0)
                                p->in_qemu_label = 1;
        g_string_truncate(p->text, 0);
}

/* "+64055:+994" -> 64055, 994; anything else leaves them unknown. */
static void caps_label(const char *t, struct vm_caps *caps) {
        char *end;
        long uid, gid;

        if (*t != '+')
                return;
        uid = strtol(t + 1, &end, 10);
        if (end == t + 1 || *end != ':' || end[1] != '+')
                return;
        t = end + 2;
        gid = strtol(t, &end, 10);
        if (end == t || *end || uid < 0 || gid < 0 || uid > INT_MAX || gid > INT_MAX)
                return;
        caps->qemu_uid = uid;
        caps->qemu_gid = gid;
}

static void caps_end(GMarkupParseContext *ctx, const char *name, gpointer data, GError **error) {
        struct caps_parse *p = data;
        const char *t = g_strstrip(p->text->str);
        char *slash;

        if (strcmp(p->path, "/capabilities/host/cpu/model") == 0)
                g_strlcpy(p->caps->cpu_model, t, sizeof(p->caps->cpu_model));
        else if (strcmp(p->path, "/capabilities/host/cpu/vendor") == 0)
                g_strlcpy(p->caps->cpu_vendor, t, sizeof(p->caps->cpu_vendor));
        else if (strcmp(p->path, "/capabilities/host/secmodel/model") == 0)
                p->dac = strcmp(t, "dac") == 0;
        else if (strcmp(p->path, "/capabilities/host/secmodel/baselabel") == 0) {
                if (p->in_qemu_label && p->dac)
                        caps_label(t, p->caps);
                p->in_qemu_label = 0;
        }
        g_string_truncate(p->text, 0);
        slash = strrchr(p->path, '/');
        if (slash)
                *slash = '\0';
}

static void caps_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer data, GError **error) {
        struct caps_parse *p = data;

        /* Only short leaf texts matter; a huge one is cut, never grown. */
        if (p->text->len < 256)
                g_string_append_len(p->text, text, (gssize)MIN(len, 256 - p->text->len));
}

int vm_caps_parse(const char *xml, size_t len, struct vm_caps *ret) {
        static const GMarkupParser parser = { caps_start, caps_end, caps_text, NULL, NULL };
        struct vm_caps caps = { .qemu_uid = -1, .qemu_gid = -1 };
        struct caps_parse p = { .caps = &caps, .text = g_string_new(NULL) };
        GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &p, NULL);
        int ok = len <= G_MAXSSIZE && g_markup_parse_context_parse(ctx, xml, (gssize)len, NULL) &&
                 g_markup_parse_context_end_parse(ctx, NULL);

        g_markup_parse_context_free(ctx);
        g_string_free(p.text, TRUE);
        if (!ok)
                return -EINVAL;
        *ret = caps;
        return 0;
}
