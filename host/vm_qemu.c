/* host/vm_qemu.c: who QEMU runs as (see vm.h). As root, kbench never
 * lets QEMU run as root: it runs as VM_QEMU_USER in /dev/kvm's group, and
 * kbench checks that this user can reach the store, hands it each cell's
 * own files and nothing else, and makes the files a plugin writes for it.
 * Why the group is the device's own, and why a /dev/kvm of group root is
 * refused, is said at vm_qemu_user_lookup (docs/design.md, "QEMU does not
 * run as root"). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/vm.h"

/* A device node with no driver behind it (a container's /dev/kvm on a host
 * without the kvm module) opens with ENODEV or ENXIO even for root. libvirt's
 * probe then finds no KVM, so QEMU must run in a group that cannot open the
 * node either, or the cache check would disagree with the probe. */
static int kvm_dev_dead(const char *kvm_dev) {
        int fd;

        if (geteuid() != 0)
                return 0;
        fd = open(kvm_dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0) {
                close(fd);
                return 0;
        }
        return errno == ENODEV || errno == ENXIO;
}

int vm_qemu_user_lookup(const char *name, const char *kvm_dev, struct vm_qemu_user *ret, struct kb_error *err) {
        struct vm_qemu_user u = { 0 };
        struct passwd *pw;
        struct group *gr;
        struct stat st;

        pw = getpwnam(name);
        if (!pw)
                return error_setf(err, -ENOENT, "the user %s does not exist: kbench runs QEMU as it, never as "
                                  "root (run tools/setup.sh, or: useradd --system --no-create-home "
                                  "--shell /usr/sbin/nologin %s)", name, name);
        if (pw->pw_uid == 0)
                return error_setf(err, -EPERM, "the user %s has uid 0: QEMU would run as root (give it a "
                                  "uid of its own: tools/setup.sh)", name);
        u.set = 1;
        u.uid = pw->pw_uid;
        /* The group is /dev/kvm's own. libvirt probes QEMU with
         * CAP_DAC_OVERRIDE, so the probe always finds KVM; its cache check
         * (virQEMUCapsIsValid) then asks whether user:group may open
         * /dev/kvm and, when not, throws the cache away and probes again,
         * in every process and on every domain start (~4 s a probe). Taking
         * the device's group here makes the two agree whatever the host
         * calls that group and whether or not setup.sh added the user to
         * it (usermod -aG kvm would depend on both).
         * A /dev/kvm of group root (a host without udev leaves it
         * root:root 0600) is refused rather than worked around: QEMU in
         * its own group could not open it, and libvirt would then probe
         * again in every process (docs/design.md, "Who QEMU runs as"). */
        if (stat(kvm_dev, &st) == 0 && !kvm_dev_dead(kvm_dev)) {
                u.gid = st.st_gid;
                gr = getgrgid(st.st_gid);
                if (gr)
                        g_snprintf(u.gid_why, sizeof(u.gid_why), "%s's group %s", kvm_dev, gr->gr_name);
                else
                        g_snprintf(u.gid_why, sizeof(u.gid_why), "%s's group %u", kvm_dev, (unsigned)st.st_gid);
        } else {
                u.gid = pw->pw_gid;
                g_snprintf(u.gid_why, sizeof(u.gid_why), "%s's group", name);
        }
        if (u.gid == 0)
                return error_setf(err, -EPERM, "%s belongs to group root (mode %04o): QEMU would run in group "
                                  "root; give it the kvm group as Debian's udev rule does: bash tools/setup.sh "
                                  "(or: groupadd --system kvm; chgrp kvm %s; chmod 0660 %s)", kvm_dev,
                                  (unsigned)(st.st_mode & 07777), kvm_dev, kvm_dev);
        *ret = u;
        return 0;
}

int vm_qemu_user_get(struct vm_qemu_user *ret, struct kb_error *err) {
        if (geteuid() != 0) {
                *ret = (struct vm_qemu_user){ 0 };
                return 0;
        }
        return vm_qemu_user_lookup(VM_QEMU_USER, VM_KVM_DEV, ret, err);
}

/* May u (its uid, group and supplementary groups) do what mask asks of st,
 * by the mode bits (ACLs are not read: a refusal names the directory). */
static int mode_allows(const struct vm_qemu_user *u, const struct stat *st, mode_t mask) {
        struct passwd *pw = getpwuid(u->uid);
        gid_t groups[256];
        int n = G_N_ELEMENTS(groups), in_group = st->st_gid == u->gid;

        if (st->st_uid == u->uid)
                return (st->st_mode & (mask << 6)) == (mask << 6);
        if (!in_group && pw && getgrouplist(pw->pw_name, u->gid, groups, &n) >= 0)
                for (int i = 0; i < n && !in_group; i++)
                        in_group = groups[i] == st->st_gid;
        if (in_group)
                return (st->st_mode & (mask << 3)) == (mask << 3);
        return (st->st_mode & mask) == mask;
}

static int deny(const struct vm_qemu_user *u, const char *path, const char *what, const char *dir,
                const struct stat *st, struct kb_error *err) {
        struct passwd *pw = getpwuid(st->st_uid);

        return error_setf(err, -EACCES, "%s: QEMU runs as %s, which cannot %s %s (mode %04o, owner %s); "
                          "keep the store where %s can reach it (--store DIR or KBENCH_HOME; as root the "
                          "default is /var/lib/kbench)", path, VM_QEMU_USER, what, dir,
                          (unsigned)(st->st_mode & 07777), pw ? pw->pw_name : "?", VM_QEMU_USER);
}

int vm_qemu_can_reach(const struct vm_qemu_user *u, const char *path, int need_file, struct kb_error *err) {
        char real[PATH_MAX];
        struct stat st;
        char *p;

        if (!u || !u->set)
                return 0;
        if (!realpath(path, real))
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        /* Every directory from / down, the path itself when it is one. */
        for (p = real;; p++) {
                if (*p == '/' || *p == '\0') {
                        char c = *p;

                        *p = '\0';
                        if (stat(*real ? real : "/", &st) < 0)
                                return error_setf(err, -errno, "%s: %s", *real ? real : "/", g_strerror(errno));
                        if (S_ISDIR(st.st_mode) && !mode_allows(u, &st, S_IXOTH))
                                return deny(u, path, "enter", *real ? real : "/", &st, err);
                        if (!S_ISDIR(st.st_mode) && need_file && !mode_allows(u, &st, S_IROTH))
                                return deny(u, path, "read", real, &st, err);
                        *p = c;
                        if (c == '\0')
                                break;
                }
        }
        return 0;
}

int vm_qemu_hand_over(const struct vm_qemu_user *u, const char *path, struct kb_error *err) {
        if (!u || !u->set)
                return 0;
        if (chown(path, u->uid, u->gid) < 0)
                return error_setf(err, -errno, "%s: cannot hand it to %s: %s", path, VM_QEMU_USER, g_strerror(errno));
        return 0;
}

int vm_qemu_file_create(const char *path, size_t size, const struct vm_qemu_user *u, struct kb_error *err) {
        int fd, e;

        if (unlink(path) < 0 && errno != ENOENT)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", path, g_strerror(errno));
        e = posix_fallocate(fd, 0, (off_t)size);
        close(fd);
        if (e != 0) {
                unlink(path);
                return error_setf(err, -e, "%s: %s", path, g_strerror(e));
        }
        return vm_qemu_hand_over(u, path, err);
}

int vm_qemu_kvm_usable(const struct vm_qemu_user *u, const char *kvm_dev) {
        struct stat st;

        if (stat(kvm_dev, &st) < 0 || kvm_dev_dead(kvm_dev))
                return -1;
        if (!u || !u->set)
                return access(kvm_dev, R_OK | W_OK) == 0;
        return mode_allows(u, &st, S_IROTH | S_IWOTH);
}
