/* pool.c: staging a cell's files through libvirt's storage API (see pool.h).
 * Every call here blocks its caller (a cell's thread, or the runner before
 * the cells) on the host's answer; the event loop is not involved, so the
 * streams are blocking ones. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/pool.h"

struct pool {
        virConnectPtr conn;        /* borrowed from the vm_conn */
        virStoragePoolPtr pool;
        char *dir;
        long qemu_uid, qemu_gid;
        GMutex lock;               /* one content upload at a time: two cells of a host staging one
                                      kernel would otherwise both send it */
};

/* A volume name marking the upload of name complete. */
#define POOL_DONE_SUFFIX ".done"

static const char *last_error(void) {
        const char *m = virGetLastErrorMessage();
        return m && *m ? m : "unknown libvirt error";
}

int pool_name_ok(const char *name) {
        size_t n = strlen(name);

        if (n == 0 || n > 200 || name[0] == '.')
                return 0;
        for (size_t i = 0; i < n; i++)
                if (!g_ascii_isalnum(name[i]) && !strchr("._-", name[i]))
                        return 0;
        return 1;
}

static char *pool_xml(const char *dir) {
        g_autofree char *e = g_markup_escape_text(dir, -1);

        /* 0711: QEMU, another user than the daemon, must reach its
         * volumes by path without listing the others. */
        return g_strdup_printf("<pool type='dir'>\n  <name>" KBENCH_POOL "</name>\n  <target>\n    <path>%s</path>\n"
                               "    <permissions><mode>0711</mode></permissions>\n  </target>\n</pool>\n", e);
}

/* The pool's target path, from its XML (the host's answer: untrusted). */
static char *pool_target(virStoragePoolPtr sp) {
        g_autofree char *xml = virStoragePoolGetXMLDesc(sp, 0);
        const char *a, *b;

        if (!xml || !(a = strstr(xml, "<path>")) || !(b = strstr(a, "</path>")) || b - a - 6 <= 0 ||
            b - a - 6 > 4096)
                return NULL;
        return g_strndup(a + 6, (gsize)(b - a - 6));
}

int pool_open(struct vm_conn *c, const char *dir, long qemu_uid, long qemu_gid, struct pool **ret,
              struct kb_error *err) {
        virConnectPtr conn = vm_conn_virt(c);
        virStoragePoolPtr sp = virStoragePoolLookupByName(conn, KBENCH_POOL);
        struct pool *p;
        char *target;

        if (!sp) {
                g_autofree char *xml = pool_xml(dir ? dir : POOL_DEFAULT_DIR);
                /* Transient: the directory and its volumes stay when the
                 * daemon restarts, and the next run makes the pool again. */
                sp = virStoragePoolCreateXML(conn, xml, VIR_STORAGE_POOL_CREATE_WITH_BUILD);
                if (!sp)
                        return error_setf(err, -EIO, "libvirt host %s: cannot make the storage pool " KBENCH_POOL
                                          " at %s: %s", vm_conn_uri(c), dir ? dir : POOL_DEFAULT_DIR, last_error());
        } else if (virStoragePoolIsActive(sp) != 1 && virStoragePoolCreate(sp, 0) < 0) {
                int r = error_setf(err, -EIO, "libvirt host %s: cannot start the storage pool " KBENCH_POOL ": %s",
                                   vm_conn_uri(c), last_error());
                virStoragePoolFree(sp);
                return r;
        }
        /* What another run (or the host's admin) put there is seen. */
        virStoragePoolRefresh(sp, 0);
        target = pool_target(sp);
        if (!target || target[0] != '/') {
                g_free(target);
                virStoragePoolFree(sp);
                return error_setf(err, -EINVAL, "libvirt host %s: the storage pool " KBENCH_POOL
                                  " is not a directory pool", vm_conn_uri(c));
        }
        p = g_new0(struct pool, 1);
        p->conn = conn;
        p->pool = sp;
        p->dir = target;
        p->qemu_uid = qemu_uid;
        p->qemu_gid = qemu_gid;
        g_mutex_init(&p->lock);
        *ret = p;
        return 0;
}

struct pool *pool_free(struct pool *p) {
        if (!p)
                return NULL;
        if (p->pool)
                virStoragePoolFree(p->pool);
        g_mutex_clear(&p->lock);
        g_free(p->dir);
        g_free(p);
        return NULL;
}

const char *pool_dir(const struct pool *p) {
        return p->dir;
}

/* A raw volume of capacity bytes; allocated says whether its blocks are
 * reserved at once; owner -1 leaves the daemon's default. */
static virStorageVolPtr vol_create(struct pool *p, const char *name, uint64_t capacity, int allocated,
                                   long uid, long gid, const char *mode, struct kb_error *err) {
        g_autofree char *perms = uid >= 0 && gid >= 0
                                         ? g_strdup_printf("<owner>%ld</owner><group>%ld</group>", uid, gid)
                                         : g_strdup("");
        g_autofree char *xml = g_strdup_printf(
                "<volume type='file'>\n  <name>%s</name>\n  <capacity unit='bytes'>%" G_GUINT64_FORMAT "</capacity>\n"
                "  <allocation unit='bytes'>%" G_GUINT64_FORMAT "</allocation>\n  <target>\n"
                "    <format type='raw'/>\n    <permissions>%s<mode>%s</mode></permissions>\n  </target>\n</volume>\n",
                name, capacity, allocated ? capacity : 0, perms, mode);
        virStorageVolPtr v = virStorageVolCreateXML(p->pool, xml, 0);

        if (!v)
                error_setf(err, -EIO, "libvirt: cannot make the volume %s in %s: %s", name, p->dir, last_error());
        return v;
}

static void vol_remove(struct pool *p, const char *name) {
        virStorageVolPtr v = virStorageVolLookupByName(p->pool, name);

        if (v) {
                virStorageVolDelete(v, 0);
                virStorageVolFree(v);
        }
}

/* ---- uploads ------------------------------------------------------------ */

struct source {
        int fd;
        off_t end;
};

static int source_read(virStreamPtr st, char *data, size_t nbytes, void *opaque) {
        struct source *s = opaque;
        ssize_t n;

        do
                n = read(s->fd, data, nbytes);
        while (n < 0 && errno == EINTR);
        return (int)n;
}

/* Where the file's data and holes are (SEEK_DATA/SEEK_HOLE): *in_data
 * and the length of the section from the current offset. */
static int source_hole(virStreamPtr st, int *in_data, long long *length, void *opaque) {
        struct source *s = opaque;
        off_t cur = lseek(s->fd, 0, SEEK_CUR), data, hole;

        if (cur < 0)
                return -1;
        if (cur >= s->end) {
                *in_data = 0;
                *length = 0;
                return 0;
        }
        data = lseek(s->fd, cur, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
                data = s->end;             /* only a hole is left */
        if (data < 0)
                return -1;
        if (data > cur) {
                *in_data = 0;
                *length = data - cur;
        } else {
                hole = lseek(s->fd, cur, SEEK_HOLE);
                if (hole < 0)
                        return -1;
                *in_data = 1;
                *length = hole - cur;
        }
        return lseek(s->fd, cur, SEEK_SET) < 0 ? -1 : 0;
}

static int source_skip(virStreamPtr st, long long length, void *opaque) {
        struct source *s = opaque;

        return lseek(s->fd, (off_t)length, SEEK_CUR) < 0 ? -1 : 0;
}

/* Send the file local into the volume v, sparse or whole. */
static int upload(struct pool *p, virStorageVolPtr v, const char *local, int sparse, struct kb_error *err) {
        struct source s = { .fd = open(local, O_RDONLY | O_CLOEXEC) };
        struct stat st;
        virStreamPtr stream;
        int r;

        if (s.fd < 0)
                return error_setf(err, -errno, "%s: %s", local, g_strerror(errno));
        if (fstat(s.fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(s.fd);
                return error_setf(err, -EINVAL, "%s: not a regular file", local);
        }
        s.end = st.st_size;
        stream = virStreamNew(p->conn, 0);
        r = stream && virStorageVolUpload(v, stream, 0, (unsigned long long)st.st_size,
                                          sparse ? VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM : 0) == 0
                    ? (sparse ? virStreamSparseSendAll(stream, source_read, source_hole, source_skip, &s)
                              : virStreamSendAll(stream, source_read, &s))
                    : -1;
        if (r == 0)
                r = virStreamFinish(stream);
        else if (stream)
                virStreamAbort(stream);
        if (stream)
                virStreamFree(stream);
        close(s.fd);
        if (r < 0)
                return error_setf(err, -EIO, "libvirt: cannot upload %s to %s: %s", local, p->dir, last_error());
        return 0;
}

static char *vol_path(virStorageVolPtr v) {
        char *path = virStorageVolGetPath(v);
        char *r = path ? g_strdup(path) : NULL;

        free(path);
        return r;
}

static int file_sha256(const char *path, char out[65], struct kb_error *err) {
        g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
        char buf[1 << 16];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                g_checksum_update(sum, (const guchar *)buf, n);
        close(fd);
        if (n < 0)
                return error_setf(err, -EIO, "%s: cannot read", path);
        g_strlcpy(out, g_checksum_get_string(sum), 65);
        return 0;
}

int pool_stage_file(struct pool *p, const char *local, const char *kind, char **ret_path, int *ret_uploaded,
                    struct kb_error *err) {
        char sha[65];
        g_autofree char *name = NULL, *done = NULL;
        virStorageVolPtr v = NULL, marker;
        struct stat st;
        int r = file_sha256(local, sha, err);

        if (r < 0)
                return r;
        if (stat(local, &st) < 0)
                return error_setf(err, -errno, "%s: %s", local, g_strerror(errno));
        name = g_strdup_printf("%s-%.32s", kind, sha);
        done = g_strconcat(name, POOL_DONE_SUFFIX, NULL);
        g_mutex_lock(&p->lock);
        marker = virStorageVolLookupByName(p->pool, done);
        if (marker)
                v = virStorageVolLookupByName(p->pool, name);
        if (ret_uploaded)
                *ret_uploaded = !v;
        if (!v) {
                /* A volume without its marker is a cut upload: again. */
                vol_remove(p, name);
                v = vol_create(p, name, (uint64_t)st.st_size, 0, -1, -1, "0644", err);
                r = v ? upload(p, v, local, 0, err) : -EIO;
                if (r == 0 && !marker) {
                        marker = vol_create(p, done, 0, 0, -1, -1, "0600", err);
                        r = marker ? 0 : -EIO;
                }
        }
        g_mutex_unlock(&p->lock);
        if (r == 0) {
                *ret_path = vol_path(v);
                if (!*ret_path)
                        r = error_setf(err, -EIO, "libvirt: no path for the volume %s: %s", name, last_error());
        }
        if (marker)
                virStorageVolFree(marker);
        if (v)
                virStorageVolFree(v);
        return r;
}

int pool_put_sparse(struct pool *p, const char *local, const char *name, char **ret_path, struct kb_error *err) {
        struct stat st;
        virStorageVolPtr v;
        int r;

        if (!pool_name_ok(name))
                return error_setf(err, -EINVAL, "'%s' is not a volume name", name);
        if (stat(local, &st) < 0)
                return error_setf(err, -errno, "%s: %s", local, g_strerror(errno));
        vol_remove(p, name);
        /* The daemon gives a disk to QEMU itself when the domain starts. */
        v = vol_create(p, name, (uint64_t)st.st_size, 0, -1, -1, "0600", err);
        if (!v)
                return -EIO;
        r = upload(p, v, local, 1, err);
        if (r == 0) {
                *ret_path = vol_path(v);
                if (!*ret_path)
                        r = error_setf(err, -EIO, "libvirt: no path for the volume %s: %s", name, last_error());
        }
        if (r < 0)
                virStorageVolDelete(v, 0);
        virStorageVolFree(v);
        return r;
}

int pool_put_blank(struct pool *p, const char *name, uint64_t bytes, char **ret_path, struct kb_error *err) {
        virStorageVolPtr v;

        if (!pool_name_ok(name))
                return error_setf(err, -EINVAL, "'%s' is not a volume name", name);
        vol_remove(p, name);
        /* Not a disk: QEMU opens it through -plugin, which the daemon does
         * not relabel, so it is made QEMU's here. */
        v = vol_create(p, name, bytes, 1, p->qemu_uid, p->qemu_gid, "0600", err);
        if (!v)
                return -EIO;
        *ret_path = vol_path(v);
        virStorageVolFree(v);
        if (!*ret_path)
                return error_setf(err, -EIO, "libvirt: no path for the volume %s: %s", name, last_error());
        return 0;
}

struct sink {
        char *buf;
        size_t cap, len;
};

static int sink_write(virStreamPtr st, const char *data, size_t nbytes, void *opaque) {
        struct sink *s = opaque;

        /* The host decides what comes: never more than asked for. */
        if (nbytes > s->cap - s->len)
                return -1;
        memcpy(s->buf + s->len, data, nbytes);
        s->len += nbytes;
        return (int)nbytes;
}

int pool_get(struct pool *p, const char *name, void *buf, size_t cap, size_t *ret_len, struct kb_error *err) {
        virStorageVolPtr v = virStorageVolLookupByName(p->pool, name);
        struct sink s = { .buf = buf, .cap = cap };
        virStreamPtr st;
        int r;

        if (!v)
                return error_setf(err, -ENOENT, "libvirt: no volume %s in %s: %s", name, p->dir, last_error());
        st = virStreamNew(p->conn, 0);
        r = st && virStorageVolDownload(v, st, 0, cap, 0) == 0 ? virStreamRecvAll(st, sink_write, &s) : -1;
        if (r == 0)
                r = virStreamFinish(st);
        else if (st)
                virStreamAbort(st);
        if (st)
                virStreamFree(st);
        virStorageVolFree(v);
        if (r < 0)
                return error_setf(err, -EIO, "libvirt: cannot download %s from %s: %s", name, p->dir, last_error());
        *ret_len = s.len;
        return 0;
}

int pool_remove(struct pool *p, const char *name, struct kb_error *err) {
        virStorageVolPtr v = virStorageVolLookupByName(p->pool, name);
        int r = 0;

        if (!v)
                return 0;
        if (virStorageVolDelete(v, 0) < 0)
                r = error_setf(err, -EIO, "libvirt: cannot remove %s from %s: %s", name, p->dir, last_error());
        virStorageVolFree(v);
        return r;
}

int pool_vol_mtime(const char *xml, int64_t *ret_s) {
        g_autoptr(GRegex) re = g_regex_new("<mtime>([0-9]{1,18})(\\.[0-9]{1,9})?</mtime>", 0, 0, NULL);
        g_autoptr(GMatchInfo) m = NULL;
        g_autofree char *digits = NULL;

        if (!xml || !re || !g_regex_match(re, xml, 0, &m))
                return -EINVAL;
        digits = g_match_info_fetch(m, 1);
        *ret_s = g_ascii_strtoll(digits, NULL, 10);
        return 0;
}

/* Whether the cell volume v is a leftover: its domain is gone (libvirt
 * says no such domain, not some other failure) and it is older than any
 * cell still being staged, whose domain does not exist yet. */
static int vol_stale(struct pool *p, virStorageVolPtr v, const char *name, int64_t now) {
        g_autofree char *domain = g_strndup(name, (gsize)(strrchr(name, '-') - name));
        virDomainPtr d = virDomainLookupByName(p->conn, domain);
        char *xml;
        int64_t mtime;
        int r;

        if (d) {
                virDomainFree(d);
                return 0;
        }
        if (virGetLastErrorCode() != VIR_ERR_NO_DOMAIN)
                return 0;
        xml = virStorageVolGetXMLDesc(v, 0);
        r = pool_vol_mtime(xml, &mtime) == 0 && now - mtime > POOL_REAP_AGE_S;
        free(xml);
        return r;
}

int pool_reap(struct pool *p, struct kb_error *err) {
        virStorageVolPtr *vols = NULL;
        int n = virStoragePoolListAllVolumes(p->pool, &vols, 0), removed = 0;
        int64_t now = g_get_real_time() / G_USEC_PER_SEC;

        if (n < 0)
                return error_setf(err, -EIO, "libvirt: cannot list the volumes of %s: %s", p->dir, last_error());
        for (int i = 0; i < n; i++) {
                const char *name = virStorageVolGetName(vols[i]);

                if (name && g_regex_match_simple("^kb[0-9]+-r[0-9]+-c[0-9]+(-a[0-9]+)?-(disk\\.img|swap\\.img|"
                                                 "insns\\.bin|kprof\\.bin)$", name, 0, 0) &&
                    vol_stale(p, vols[i], name, now) && virStorageVolDelete(vols[i], 0) == 0)
                        removed++;
                virStorageVolFree(vols[i]);
        }
        free(vols);
        return removed;
}
