/* snapshot.c: keys, manifests, listing and removal of warm-start snapshots
 * (see snapshot.h). Nothing here talks to libvirt: making and restoring a
 * snapshot are cell/warm.c and host/vm.c. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "host/snapshot.h"
#include "host/vm.h"

static const char *const suffixes[] = { ".save", ".json", ".console" };

static void put(GChecksum *ck, const char *name, const char *value) {
        g_checksum_update(ck, (const guchar *)name, (gssize)strlen(name));
        g_checksum_update(ck, (const guchar *)"=", 1);
        /* A value never holds a newline that could fake the next field:
         * the command line is one line, the rest are ids and versions. */
        g_checksum_update(ck, (const guchar *)(value ? value : ""), (gssize)strlen(value ? value : ""));
        g_checksum_update(ck, (const guchar *)"\n", 1);
}

static void put_u64(GChecksum *ck, const char *name, uint64_t v) {
        char buf[32];

        snprintf(buf, sizeof(buf), "%" PRIu64, v);
        put(ck, name, buf);
}

void snapshot_key(const struct snapshot_shape *s, char *ret) {
        GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);

        /* The format's own version: a change in what the guest does before
         * its ready (the agent's handshake) must not restore old images. */
        put(ck, "format", "kbench-snapshot-1");
        put(ck, "kernel", s->kernel_id);
        put(ck, "initrd", s->initrd_sha256);
        put_u64(ck, "mem_mb", s->guest->mem_mb);
        put_u64(ck, "cpus", s->guest->cpus);
        put_u64(ck, "disk_bytes", s->guest->disk_bytes);
        put_u64(ck, "swap_bytes", s->guest->swap_bytes);
        put(ck, "bus", s->bus);
        put_u64(ck, "nic", (uint64_t)(s->nic != 0));
        /* The NIC's device arguments are part of the saved machine: an
         * image saved with another model or options must not restore. */
        if (s->nic)
                put(ck, "nic_device", VM_NIC_DEVICE);
        put(ck, "cmdline", s->cmdline);
        put(ck, "accel", s->guest->accel);
        put(ck, "qemu", s->qemu_version);
        put(ck, "libvirt", s->libvirt_version);
        g_strlcpy(ret, g_checksum_get_string(ck), SNAPSHOT_KEY_LEN + 1);
        g_checksum_free(ck);
}

void snapshot_uuid(const char *key, char *ret) {
        snprintf(ret, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", key, key + 8, key + 12, key + 16, key + 20);
}

int snapshot_file_sha256(const char *path, char **ret, struct kb_error *err) {
        GChecksum *ck;
        guchar buf[65536];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        ck = g_checksum_new(G_CHECKSUM_SHA256);
        while ((n = read(fd, buf, sizeof(buf))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int e = errno;
                        g_checksum_free(ck);
                        close(fd);
                        return error_setf(err, -e, "%s: %s", path, g_strerror(e));
                }
                g_checksum_update(ck, buf, n);
        }
        close(fd);
        *ret = g_strdup(g_checksum_get_string(ck));
        g_checksum_free(ck);
        return 0;
}

char *snapshot_path(const char *store, const char *key, const char *suffix) {
        g_autofree char *name = g_strconcat(key, suffix, NULL);
        return g_build_filename(store, "snapshots", name, NULL);
}

int snapshot_write_manifest(const char *store, const char *key, const struct snapshot_shape *s,
                            const char *kernel_name, double boot_s, struct kb_error *err) {
        g_autofree char *path = snapshot_path(store, key, ".json");
        _cleanup_free_ char *text = NULL;
        json_t *j = json_pack("{s:s, s:s, s:s?, s:s?, s:i, s:i, s:I, s:I, s:s?, s:b, s:s?, s:s?, s:s?, s:s?, s:f, s:f}",
                              "key", key, "kernel_id", s->kernel_id, "kernel_name", kernel_name,
                              "initrd_sha256", s->initrd_sha256, "mem_mb", (int)s->guest->mem_mb,
                              "cpus", (int)s->guest->cpus, "disk_bytes", (json_int_t)s->guest->disk_bytes,
                              "swap_bytes", (json_int_t)s->guest->swap_bytes, "bus", s->bus, "nic", s->nic,
                              "cmdline", s->cmdline, "accel", s->guest->accel,
                              "qemu_version", s->qemu_version, "libvirt_version", s->libvirt_version,
                              "created_at", (double)g_get_real_time() / 1e6, "boot_s", boot_s);
        int r = 0;

        if (!j)
                return error_setf(err, -ENOMEM, "%s: cannot build the manifest", path);
        text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
        json_decref(j);
        if (!text)
                return error_setf(err, -ENOMEM, "%s: cannot build the manifest", path);
        /* Replaced, never written through a link put in the store. */
        r = fileio_write_atomic(path, text, strlen(text), 0644, err);
        return r;
}

static uint64_t allocated(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

static int is_key(const char *s, size_t n) {
        if (n != SNAPSHOT_KEY_LEN)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (!g_ascii_isxdigit(s[i]) || g_ascii_isupper(s[i]))
                        return 0;
        return 1;
}

static int cmp_info(const void *a, const void *b) {
        return strcmp(((const struct snapshot_info *)a)->key, ((const struct snapshot_info *)b)->key);
}

static void read_manifest(const char *store, struct snapshot_info *si) {
        g_autofree char *path = snapshot_path(store, si->key, ".json");
        json_t *j = json_load_file(path, 0, NULL);
        json_t *v;

        si->kernel_id = g_strdup("");
        si->kernel_name = g_strdup("");
        if (!j || !json_is_object(j)) {
                json_decref(j);
                return;
        }
        /* The manifest is ours, but a truncated or edited one must only
         * make the entry unknown, never crash the listing. */
        if (json_is_string(v = json_object_get(j, "kernel_id"))) {
                g_free(si->kernel_id);
                si->kernel_id = g_strdup(json_string_value(v));
        }
        if (json_is_string(v = json_object_get(j, "kernel_name"))) {
                g_free(si->kernel_name);
                si->kernel_name = g_strdup(json_string_value(v));
        }
        if (json_is_integer(v = json_object_get(j, "mem_mb")) && json_integer_value(v) > 0 &&
            json_integer_value(v) < (1 << 30))
                si->mem_mb = (unsigned)json_integer_value(v);
        if (json_is_integer(v = json_object_get(j, "cpus")) && json_integer_value(v) > 0 &&
            json_integer_value(v) < 4096)
                si->cpus = (unsigned)json_integer_value(v);
        if (json_is_number(v = json_object_get(j, "created_at")))
                si->created_at = json_number_value(v);
        if (json_is_number(v = json_object_get(j, "boot_s")))
                si->boot_s = json_number_value(v);
        json_decref(j);
}

int snapshot_list(const char *store, struct snapshot_info **ret, size_t *ret_n, struct kb_error *err) {
        g_autofree char *dir = g_build_filename(store, "snapshots", NULL);
        g_autoptr(GError) gerr = NULL;
        GDir *d = g_dir_open(dir, 0, &gerr);
        GArray *v = g_array_new(FALSE, TRUE, sizeof(struct snapshot_info));
        GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        const char *name;

        if (!d && !g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
                int r = error_setf(err, -EIO, "%s: %s", dir, gerr->message);
                g_array_free(v, TRUE);
                g_hash_table_destroy(seen);
                return r;
        }
        while (d && (name = g_dir_read_name(d))) {
                size_t n = strcspn(name, ".");
                struct snapshot_info si;

                char key[SNAPSHOT_KEY_LEN + 1];

                if (!is_key(name, n))
                        continue;
                memcpy(key, name, n);
                key[n] = '\0';
                /* Each snapshot has up to three files; list it once. */
                if (!g_hash_table_add(seen, g_strdup(key)))
                        continue;
                memset(&si, 0, sizeof(si));
                memcpy(si.key, key, n + 1);
                g_array_append_val(v, si);
        }
        if (d)
                g_dir_close(d);
        g_hash_table_destroy(seen);
        for (guint i = 0; i < v->len; i++) {
                struct snapshot_info *si = &g_array_index(v, struct snapshot_info, i);
                g_autofree char *save = snapshot_path(store, si->key, ".save");
                g_autofree char *man = snapshot_path(store, si->key, ".json");

                read_manifest(store, si);
                for (size_t k = 0; k < G_N_ELEMENTS(suffixes); k++) {
                        g_autofree char *p = snapshot_path(store, si->key, suffixes[k]);
                        si->bytes += allocated(p);
                }
                si->complete = g_file_test(save, G_FILE_TEST_IS_REGULAR) && g_file_test(man, G_FILE_TEST_IS_REGULAR);
        }
        g_array_sort(v, cmp_info);
        *ret_n = v->len;
        *ret = (struct snapshot_info *)(void *)g_array_free(v, FALSE);
        return 0;
}

void snapshot_info_free(struct snapshot_info *v, size_t n) {
        for (size_t i = 0; v && i < n; i++) {
                g_free(v[i].kernel_id);
                g_free(v[i].kernel_name);
        }
        g_free(v);
}

int snapshot_remove(const char *store, const char *key, struct kb_error *err) {
        int r = 0;

        for (size_t k = 0; k < G_N_ELEMENTS(suffixes); k++) {
                g_autofree char *p = snapshot_path(store, key, suffixes[k]);
                if (g_unlink(p) < 0 && errno != ENOENT && r == 0)
                        r = error_setf(err, -errno, "%s: %s", p, g_strerror(errno));
        }
        return r;
}

int snapshot_remove_kernel(const char *store, const char *kernel_id, int *ret_removed, uint64_t *ret_bytes,
                           struct kb_error *err) {
        struct snapshot_info *v = NULL;
        size_t n = 0;
        uint64_t bytes = 0;
        int removed = 0, r;

        r = snapshot_list(store, &v, &n, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r == 0; i++) {
                if (v[i].kernel_id[0] && strcmp(v[i].kernel_id, kernel_id) != 0)
                        continue;
                r = snapshot_remove(store, v[i].key, err);
                if (r == 0) {
                        removed++;
                        bytes += v[i].bytes;
                }
        }
        snapshot_info_free(v, n);
        if (r < 0)
                return r;
        *ret_removed = removed;
        *ret_bytes = bytes;
        return 0;
}
