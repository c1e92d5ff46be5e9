/* host/kprof.c: the profile plugin's file, read on the host (see kprof.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "host/kprof.h"
#include "host/vm.h"

void kprof_data_clear(struct kprof_data *d) {
        g_free(d->entries);
        g_free(d->seg);
        *d = (struct kprof_data){ 0 };
}

/* The header's checks: -EAGAIN for a file the plugin never wrote. */
static int header_check(const void *buf, size_t len, struct kprof_header *h) {
        static const char zero[8];

        if (len < sizeof(*h))
                return -EBADMSG;
        memcpy(h, buf, sizeof(*h));
        if (memcmp(h->magic, zero, sizeof(zero)) == 0)
                return -EAGAIN;
        if (memcmp(h->magic, KPROF_MAGIC, sizeof(h->magic)) != 0 || h->version != KPROF_VERSION ||
            h->capacity != KPROF_CAPACITY || h->used > h->capacity ||
            h->used > (len - sizeof(*h)) / sizeof(struct kprof_entry))
                return -EBADMSG;
        return 0;
}

/* The segments of the entries: each starts at a header, k increasing. */
static int segments(struct kprof_data *d, size_t n) {
        struct kprof_segment *cur = NULL;

        for (size_t i = 0; i < n; i++) {
                const struct kprof_entry *e = &d->entries[i];

                if (e->pc == 0) {
                        if (e->insns == 0 || (cur && e->insns <= cur->k))
                                return -EBADMSG;
                        d->seg = g_renew(struct kprof_segment, d->seg, d->n_seg + 1);
                        cur = &d->seg[d->n_seg++];
                        *cur = (struct kprof_segment){ .k = e->insns, .e = e + 1 };
                        continue;
                }
                if (!cur || cur->insns + e->insns < cur->insns)
                        return -EBADMSG;
                cur->n++;
                cur->insns += e->insns;
        }
        return 0;
}

int kprof_parse(const void *buf, size_t len, struct kprof_data *ret) {
        struct kprof_data d = { 0 };
        struct kprof_header h;
        int r = header_check(buf, len, &h);

        if (r < 0)
                return r;
        d.n_marks = h.n_marks;
        d.lost_marks = h.lost_marks;
        d.entries = g_memdup2((const char *)buf + sizeof(h), h.used * sizeof(struct kprof_entry));
        r = segments(&d, h.used);
        if (r < 0) {
                kprof_data_clear(&d);
                return r;
        }
        *ret = d;
        return 0;
}

int kprof_read(const char *path, struct kprof_data *ret, struct kb_error *err) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        g_autofree char *buf = NULL;
        struct kprof_header h;
        size_t len;
        ssize_t n;
        int r;

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        n = pread(fd, &h, sizeof(h), 0);
        if (n < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        /* Only what the header says is used; kprof_parse checks the rest. */
        if ((size_t)n < sizeof(h) || h.used > KPROF_CAPACITY)
                h.used = 0;
        len = sizeof(h) + h.used * sizeof(struct kprof_entry);
        buf = g_malloc(len);
        n = pread(fd, buf, len, 0);
        if (n < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        r = kprof_parse(buf, (size_t)n, ret);
        if (r < 0)
                return error_setf(err, r, "%s: %s", path,
                                  r == -EAGAIN ? "the profile plugin never wrote it" : "not a profile file");
        return 0;
}

const struct kprof_segment *kprof_segment(const struct kprof_data *d, uint64_t k) {
        for (size_t i = 0; i < d->n_seg; i++)
                if (d->seg[i].k == k)
                        return &d->seg[i];
        return NULL;
}

int kprof_file_create(const char *path, const struct vm_qemu_user *u, struct kb_error *err) {
        return vm_qemu_file_create(path, KPROF_FILE_SIZE, u, err);
}
