/* cli/kfacts.c: the kernel store's facts for compare and show (see
 * kfacts.h). */
#include <glib.h>

#include "cli/kfacts.h"
#include "kernels/kconfig.h"
#include "kernels/kstore.h"

#define CONFIG_DIFF_LINES 200       /* differing options kept of two .configs; the rest counted */

/* The stored kernel with this id, or NULL when there is no store or no
 * such kernel. */
static struct kstore_kernel *find(struct cli_ctx *c, const char *kernel_id) {
        struct kb_error err = { { 0 } };
        struct kstore_kernel *k = NULL;

        if (!kernel_id || cli_setup_only(c, CLI_STORE | CLI_KSTORE, &err) < 0 ||
            kstore_find(c->s.ks, kernel_id, &k, &err) < 0)
                return NULL;
        return k;
}

char *kfacts_upstream(void *ctx, const char *kernel_id) {
        struct kstore_kernel *k = find(ctx, kernel_id);
        char *up = k ? kconfig_upstream(k->version, k->release) : NULL;

        kstore_kernel_free(k);
        return up;
}

void kfacts_compare(struct cli_ctx *c, struct compare_view *v) {
        struct kstore_kernel *ka = find(c, v->kernel_a), *kb = ka ? find(c, v->kernel_b) : NULL;
        g_autofree char *ca = NULL, *cb = NULL;

        if (ka && kb) {
                v->kernels.upstream_a = kconfig_upstream(ka->version, ka->release);
                v->kernels.upstream_b = kconfig_upstream(kb->version, kb->release);
                ca = kconfig_read(ka->config_path);
                cb = kconfig_read(kb->config_path);
        }
        if (ca && cb)
                v->kernels.config_diff = kconfig_diff(ca, cb, CONFIG_DIFF_LINES, &v->kernels.config_differ);
        kstore_kernel_free(ka);
        kstore_kernel_free(kb);
}
