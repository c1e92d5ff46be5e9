/* hosts.c: the hosts a run's cells run on (see hosts.h). */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "host/hostload.h"
#include "run/hosts.h"

int run_host_uri_embedded(const char *uri) {
        return g_str_has_prefix(uri, "qemu:///embed");
}

int run_host_spec_parse(const char *text, char **ret_name, char **ret_uri, struct kb_error *err) {
        const char *eq = strchr(text, '='), *colon = strchr(text, ':');
        g_autofree char *name = NULL;

        /* A URI's query may hold '=' (socket=...), never before its scheme. */
        if (eq && (!colon || eq < colon)) {
                name = g_strndup(text, (size_t)(eq - text));
                if (!g_regex_match_simple("^[A-Za-z0-9._-]{1,64}$", name, 0, 0))
                        return error_setf(err, -EINVAL, "'%.80s': a host's name is 1-64 of A-Za-z0-9._- "
                                          "before '='", text);
                text = eq + 1;
        }
        if (!*text || !strstr(text, ":"))
                return error_setf(err, -EINVAL, "'%.80s': not a libvirt URI", text);
        *ret_name = g_steal_pointer(&name);
        *ret_uri = g_strdup(text);
        return 0;
}

int run_host_open(const char *spec, const char *default_uri, unsigned slots, const char *pool_dir,
                  struct run_host *ret, struct kb_error *err) {
        struct run_host h = { .slots = slots ? slots : 1 };
        int r;

        if (spec) {
                r = run_host_spec_parse(spec, &h.name, &h.uri, err);
                if (r < 0)
                        return r;
                if (!h.name)
                        h.name = g_strdup(h.uri);
        } else
                h.uri = g_strdup(default_uri);
        r = vm_conn_new(h.uri, &h.conn, err);
        if (r >= 0 && h.name)
                vm_conn_set_name(h.conn, h.name);
        if (r >= 0)
                r = vm_conn_host_info(h.conn, &h.info, err);
        if (r >= 0 && !run_host_uri_embedded(h.uri)) {
                r = pool_open(h.conn, pool_dir, h.info.qemu_uid, h.info.qemu_gid, &h.pool, err);
                if (r >= 0)
                        h.remote = remote_host_new(h.conn, h.pool);
                /* What a killed kbench left there (best effort: a host
                 * that will not list its volumes fails later, clearly). */
                if (r >= 0)
                        pool_reap(h.pool, NULL);
        }
        /* Only where QEMU shares this host is its /proc the right one. */
        h.hostload_root = hostload_uri_local(h.uri) ? g_strdup("") : NULL;
        if (r >= 0 && !h.remote)
                h.qemu_user = vm_conn_qemu_user(h.conn);
        if (r < 0) {
                error_prefix(err, r, "host %s", run_host_label(&h));
                run_host_clear(&h);
                return r;
        }
        *ret = h;
        return 0;
}

void run_host_clear(struct run_host *h) {
        h->remote = remote_host_free(h->remote);
        h->pool = pool_free(h->pool);
        h->conn = vm_conn_free(h->conn);
        vm_host_info_clear(&h->info);
        g_free(h->name);
        g_free(h->uri);
        g_free(h->accel_why);
        g_free(h->hostload_root);
        *h = (struct run_host){ 0 };
}

const char *run_host_label(const struct run_host *h) {
        return h->name ? h->name : h->uri;
}

const struct cell_vm_ops *run_host_ops(const struct run_host *h, void **ret_ctx) {
        if (h->remote) {
                *ret_ctx = h->remote;
                return &remote_vm_ops;
        }
        *ret_ctx = h->conn;
        return &cell_local_vm_ops;
}

static int libvirt_open(void *ctx, const char *spec, const char *default_uri, unsigned slots, const char *pool_dir,
                        struct run_host *ret, struct kb_error *err) {
        (void)ctx;
        return run_host_open(spec, default_uri, slots, pool_dir, ret, err);
}

static const struct cell_vm_ops *libvirt_vm_ops(void *ctx, const struct run_host *h, void **ret_ctx) {
        (void)ctx;
        return run_host_ops(h, ret_ctx);
}

const struct run_host_backend run_host_libvirt = { .open = libvirt_open, .vm_ops = libvirt_vm_ops };
