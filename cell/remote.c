/* remote.c: the cell operations for a host reached only through libvirt
 * (see remote.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "cell/remote.h"
#include "common/insncount-format.h"
#include "common/kprof-format.h"

struct remote_host {
        struct vm_conn *conn;
        struct pool *pool;
        GMutex lock;               /* guards staged and cells */
        GHashTable *staged;        /* local path -> the file on the host */
        GHashTable *cells;         /* struct vm * -> struct remote_cell * */
};

/* What one domain left in the pool, removed when it ends. */
struct remote_cell {
        char *volumes[4];          /* disk, swap, counter file, profile file; NULL: none */
        char *insns_local;         /* where the counter file comes back to; NULL: none */
        char *insns_volume;
        char *prof_local;          /* where the profile file comes back to; NULL: none */
};

static void remote_cell_free(gpointer p) {
        struct remote_cell *rc = p;

        for (size_t i = 0; i < G_N_ELEMENTS(rc->volumes); i++)
                g_free(rc->volumes[i]);
        g_free(rc->insns_local);
        g_free(rc->prof_local);
        g_free(rc);
}

struct remote_host *remote_host_new(struct vm_conn *conn, struct pool *pool) {
        struct remote_host *h = g_new0(struct remote_host, 1);

        h->conn = conn;
        h->pool = pool;
        g_mutex_init(&h->lock);
        h->staged = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        h->cells = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, remote_cell_free);
        return h;
}

struct remote_host *remote_host_free(struct remote_host *h) {
        if (!h)
                return NULL;
        g_hash_table_destroy(h->staged);
        g_hash_table_destroy(h->cells);
        g_mutex_clear(&h->lock);
        g_free(h);
        return NULL;
}

/* The host's path of local, staged now if it was not. OUT: *ret (g_free). */
static int staged_path(struct remote_host *h, const char *local, const char *kind, char **ret, int *ret_uploaded,
                       struct kb_error *err) {
        char *path;
        int r;

        g_mutex_lock(&h->lock);
        path = g_strdup(g_hash_table_lookup(h->staged, local));
        g_mutex_unlock(&h->lock);
        if (ret_uploaded)
                *ret_uploaded = 0;
        if (!path) {
                r = pool_stage_file(h->pool, local, kind, &path, ret_uploaded, err);
                if (r < 0)
                        return r;
                g_mutex_lock(&h->lock);
                g_hash_table_replace(h->staged, g_strdup(local), g_strdup(path));
                g_mutex_unlock(&h->lock);
        }
        *ret = path;
        return 0;
}

int remote_host_stage(struct remote_host *h, const char *local, const char *kind, int *ret_uploaded,
                      struct kb_error *err) {
        g_autofree char *path = NULL;

        return staged_path(h, local, kind, &path, ret_uploaded, err);
}

static void volumes_remove(struct remote_host *h, struct remote_cell *rc) {
        for (size_t i = 0; i < G_N_ELEMENTS(rc->volumes); i++)
                if (rc->volumes[i])
                        pool_remove(h->pool, rc->volumes[i], NULL);
}

/* The profile plugin and its file, as the counter's. */
static int stage_profile(struct remote_host *h, const struct vm_config *cfg, struct vm_config *rcfg,
                         struct remote_cell *rc, GPtrArray *keep, struct kb_error *err) {
        char *path;
        int r = staged_path(h, cfg->prof_plugin, "kbprof", &path, NULL, err);

        if (r < 0)
                return r;
        g_ptr_array_add(keep, path);
        rcfg->prof_plugin = path;
        rc->volumes[3] = g_strdup_printf("%s-kprof.bin", cfg->name);
        r = pool_put_blank(h->pool, rc->volumes[3], KPROF_FILE_SIZE, &path, err);
        if (r < 0)
                return r;
        g_ptr_array_add(keep, path);
        rcfg->prof_out = path;
        rc->prof_local = g_strdup(cfg->prof_out);
        return 0;
}

/* The cell's own files as volumes named after its domain (unique on the
 * host: the runner's prefix names this kbench). */
static int stage_cell(struct remote_host *h, const struct vm_config *cfg, struct vm_config *rcfg,
                      struct remote_cell *rc, GPtrArray *keep, struct kb_error *err) {
        char *path;
        int r;

        rc->volumes[0] = g_strdup_printf("%s-disk.img", cfg->name);
        r = pool_put_sparse(h->pool, cfg->disk, rc->volumes[0], &path, err);
        if (r < 0)
                return r;
        g_ptr_array_add(keep, path);
        rcfg->disk = path;
        if (cfg->swap_disk) {
                rc->volumes[1] = g_strdup_printf("%s-swap.img", cfg->name);
                r = pool_put_sparse(h->pool, cfg->swap_disk, rc->volumes[1], &path, err);
                if (r < 0)
                        return r;
                g_ptr_array_add(keep, path);
                rcfg->swap_disk = path;
        }
        if (cfg->plugin && cfg->plugin_out) {
                r = staged_path(h, cfg->plugin, "kbinsn", &path, NULL, err);
                if (r < 0)
                        return r;
                g_ptr_array_add(keep, path);
                rcfg->plugin = path;
                rc->volumes[2] = g_strdup_printf("%s-insns.bin", cfg->name);
                r = pool_put_blank(h->pool, rc->volumes[2], INSNCOUNT_FILE_SIZE, &path, err);
                if (r < 0)
                        return r;
                g_ptr_array_add(keep, path);
                rcfg->plugin_out = path;
                rc->insns_local = g_strdup(cfg->plugin_out);
                rc->insns_volume = rc->volumes[2];
        }
        return cfg->plugin && cfg->prof_plugin && cfg->prof_out ? stage_profile(h, cfg, rcfg, rc, keep, err) : 0;
}

static int remote_start(void *ctx, const struct vm_config *cfg, vm_event_fn fn, void *userdata, struct vm **ret,
                        struct kb_error *err) {
        struct remote_host *h = ctx;
        struct vm_config rcfg = *cfg;
        struct remote_cell *rc = g_new0(struct remote_cell, 1);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        char *path;
        int r;

        r = staged_path(h, cfg->kernel, "kernel", &path, NULL, err);
        if (r == 0) {
                g_ptr_array_add(keep, path);
                rcfg.kernel = path;
                if (cfg->initrd) {
                        r = staged_path(h, cfg->initrd, "initrd", &path, NULL, err);
                        if (r == 0) {
                                g_ptr_array_add(keep, path);
                                rcfg.initrd = path;
                        }
                }
        }
        if (r == 0)
                r = stage_cell(h, cfg, &rcfg, rc, keep, err);
        /* Both consoles travel through libvirt: the host's files and
         * sockets are not kbench's to open. */
        rcfg.serial_socket = NULL;
        rcfg.console_stream = 1;
        if (r == 0)
                r = vm_start(h->conn, &rcfg, fn, userdata, ret, err);
        if (r < 0) {
                volumes_remove(h, rc);
                remote_cell_free(rc);
                return r;
        }
        g_mutex_lock(&h->lock);
        g_hash_table_insert(h->cells, *ret, rc);
        g_mutex_unlock(&h->lock);
        return 0;
}

/* The counter file comes back over the local one the cell reads. */
static void fetch_counts(struct remote_host *h, const struct remote_cell *rc) {
        char buf[INSNCOUNT_FILE_SIZE];
        size_t len = 0;
        int fd;

        if (!rc->insns_local || pool_get(h->pool, rc->insns_volume, buf, sizeof(buf), &len, NULL) < 0)
                return;
        fd = open(rc->insns_local, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return;
        if (pwrite(fd, buf, len, 0) != (ssize_t)len)
                (void)ftruncate(fd, 0);  /* half a file is no file: no counts, said by the cell */
        close(fd);
}

/* The profile file comes back over the local one the cell reads. */
static void fetch_profile(struct remote_host *h, const struct remote_cell *rc) {
        g_autofree char *buf = NULL;
        size_t len = 0;
        int fd;

        if (!rc->prof_local)
                return;
        buf = g_malloc(KPROF_FILE_SIZE);
        if (pool_get(h->pool, rc->volumes[3], buf, KPROF_FILE_SIZE, &len, NULL) < 0)
                return;
        fd = open(rc->prof_local, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return;
        if (pwrite(fd, buf, len, 0) != (ssize_t)len)
                (void)ftruncate(fd, 0);  /* half a file is no file: no profile, said by the cell */
        close(fd);
}

/* The domain goes first (its QEMU holds the volumes), then its files. */
static void remote_stop(void *ctx, struct vm *vm, int background) {
        struct remote_host *h = ctx;
        struct remote_cell *rc = NULL;

        if (!vm)
                return;
        g_mutex_lock(&h->lock);
        g_hash_table_steal_extended(h->cells, vm, NULL, (gpointer *)&rc);
        g_mutex_unlock(&h->lock);
        /* In the foreground whatever the cell asked: the counter file is
         * complete, and the volumes free, only once QEMU is gone. */
        (void)background;
        vm_stop(vm, 0);
        if (!rc)
                return;
        fetch_counts(h, rc);
        fetch_profile(h, rc);
        volumes_remove(h, rc);
        remote_cell_free(rc);
}

static int remote_lost(void *ctx, const char **ret_why) {
        struct remote_host *h = ctx;

        return vm_conn_lost(h->conn, ret_why);
}

const struct cell_vm_ops remote_vm_ops = {
        .start = remote_start, .send = vm_send, .taints = vm_taints, .block_stats = vm_block_stats,
        .stop = remote_stop, .times = vm_get_times, .lost = remote_lost,
};
