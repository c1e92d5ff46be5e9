/* guest/agent_disk.c: the disk under test, from the host's name for it to
 * a mounted file system. The host names disks by SCSI address or serial
 * number (common/diskbus.h), since the kernel hands out sda/sdb in probe
 * order; the agent waits for the node, checks the bus has its drivers,
 * reports which drivers it really drove and the CRC-32 of its head as this
 * kernel reads it, drops what the kernel remembers of it (a restored guest
 * probed another disk), mounts it and turns the swap disk on. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

#include "common/crc32.h"
#include "common/util.h"
#include "guest/agent.h"

#define AGENT_DEV_WAIT_MS 10000 /* how long a disk may take to show up */

static int agent_disk_mkdir_p(const char *path) {
        char p[256];
        size_t n = strlen(path);

        if (n == 0 || n >= sizeof(p))
                return -EINVAL;
        memcpy(p, path, n + 1);
        for (size_t i = 1; i <= n; i++) {
                if (p[i] != '/' && p[i] != '\0')
                        continue;
                p[i] = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -errno;
                p[i] = i < n ? '/' : '\0';
        }
        return 0;
}

/* Whether disk name's serial number is serial: virtio_blk shows it as
 * /sys/block/NAME/serial; a SCSI disk (and libata's, translated) in its
 * unit serial number page, VPD 0x80: a 4-byte header, then the serial,
 * padded with blanks. */
static int agent_disk_serial_is(const char *name, const char *serial) {
        char path[320], buf[256];
        size_t len = strlen(serial), page;
        const char *p = buf;
        ssize_t n;

        snprintf(path, sizeof(path), "/sys/block/%s/serial", name);
        if ((n = agent_read_small(path, buf, sizeof(buf))) < 0) {
                snprintf(path, sizeof(path), "/sys/block/%s/device/vpd_pg80", name);
                if ((n = agent_read_small(path, buf, sizeof(buf))) < 4 || (unsigned char)buf[1] != 0x80)
                        return 0;
                page = 4 + ((size_t)(unsigned char)buf[2] << 8 | (unsigned char)buf[3]);
                if (page < (size_t)n)
                        buf[page] = '\0';
                p = buf + 4;
        }
        while (*p == ' ')
                p++;
        return strncmp(p, serial, len) == 0 && strspn(p + len, " \n") == strlen(p + len);
}

/* The disk a spec names, once: "scsi:H:C:T:L" by SCSI address, "serial:S"
 * by serial number (common/diskbus.h says which bus uses which), else a
 * node path. Returns 1 with ret_path, 0 not (yet) there, or -ENAMETOOLONG. */
static int agent_disk_find(const char *spec, char *ret_path, size_t size) {
        char dir[320];
        DIR *d = NULL;
        struct dirent *de;
        struct stat st;
        int found = 0, by_serial = strncmp(spec, "serial:", 7) == 0;

        if (strncmp(spec, "scsi:", 5) == 0) {
                snprintf(dir, sizeof(dir), "/sys/bus/scsi/devices/%s/block", spec + 5);
                d = opendir(dir);
        } else if (by_serial)
                d = opendir("/sys/block");
        else {
                if ((size_t)snprintf(ret_path, size, "%s", spec) >= size)
                        return -ENAMETOOLONG;
                return stat(spec, &st) == 0;
        }
        while (d && !found && (de = readdir(d)))
                if (de->d_name[0] != '.' && (!by_serial || agent_disk_serial_is(de->d_name, spec + 7))) {
                        if ((size_t)snprintf(ret_path, size, "/dev/%s", de->d_name) >= size) {
                                closedir(d);
                                return -ENAMETOOLONG;
                        }
                        found = 1;
                }
        if (d)
                closedir(d);
        return found && stat(ret_path, &st) == 0;
}

/* Turn a device setting into a node path and wait for it to appear: sd_mod
 * probes disks asynchronously, so right after module loading /dev/sda may not
 * exist yet, and with two disks sda/sdb are handed out in probe order, which
 * is why the host names disks by SCSI address (0:0:0:0 is the IDE primary
 * master, 0:0:1:0 the primary slave) or by serial number. Polls every 10 ms,
 * at most AGENT_DEV_WAIT_MS. Returns 0 or -ENOENT/-ENAMETOOLONG. */
static int agent_disk_resolve(const char *spec, char *ret_path, size_t size) {
        uint64_t start = agent_now_ms();
        int r;

        while ((r = agent_disk_find(spec, ret_path, size)) == 0) {
                if (agent_now_ms() - start >= AGENT_DEV_WAIT_MS)
                        return -ENOENT;
                nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
        }
        return r < 0 ? r : 0;
}

/* Fail at once, in one line naming the bus and the driver, when the kernel
 * has no driver the bus needs (built in or among the image's modules):
 * the disk would never appear, and waiting for it says less. */
static void agent_disk_check_bus(void) {
        const struct diskbus *bus;
        char path[128], missing[128] = "";
        size_t len = 0;
        struct stat st;

        if (!A.set.disk_bus[0])
                return;
        if (!(bus = diskbus_find(A.set.disk_bus)))
                agent_fail("set disk_bus: '%s' is not a disk bus this agent knows", A.set.disk_bus);
        for (const char *const *d = bus->drivers; *d && len < sizeof(missing); d++) {
                const char *slash = strchr(*d, '/');
                snprintf(path, sizeof(path), "/sys/bus/%.*s/drivers/%s", (int)(slash - *d), *d, slash + 1);
                if (stat(path, &st) < 0)
                        len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? ", " : "",
                                                slash + 1);
        }
        if (missing[0])
                agent_fail("disk bus %s: kernel %s has no %s driver (neither built in nor a module in the guest "
                           "image)", bus->name, A.release, missing);
}

/* Report the drivers bound to the disk node dev and the devices above it,
 * the disk's first ("sd ata_piix", "virtio_blk virtio-pci"): which
 * controller the guest really drove, for the cell's params. */
static void agent_disk_report_driver(const char *dev) {
        const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
        char path[320], real[PATH_MAX], link[PATH_MAX], list[128] = "";
        size_t len = 0;

        snprintf(path, sizeof(path), "/sys/block/%s/device", base);
        if (!realpath(path, real))
                return;
        while (strncmp(real, "/sys/devices/", 13) == 0 && len < sizeof(list)) {
                char *slash;
                ssize_t n;

                snprintf(path, sizeof(path), "%.300s/driver", real);
                if ((n = readlink(path, link, sizeof(link) - 1)) > 0) {
                        link[n] = '\0';
                        slash = strrchr(link, '/');
                        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? " " : "",
                                                slash ? slash + 1 : link);
                }
                *strrchr(real, '/') = '\0';
        }
        if (list[0])
                agent_recordf("disk-driver", "%s", list);
}

/* Report the CRC-32 of the disk's first AGENT_DISK_HEAD bytes as this
 * kernel reads them (through the block device's cache, as the filesystem
 * will): the host compares it with the image it made for the cell. */
#define AGENT_DISK_HEAD 4096

static void agent_disk_head(int fd, const char *dev) {
        static char buf[AGENT_DISK_HEAD];
        size_t got = 0;

        while (got < sizeof(buf)) {
                ssize_t n = pread(fd, buf + got, sizeof(buf) - got, (off_t)got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        agent_recordf("log", "read %s head: %s", dev, n < 0 ? strerror(errno) : "end of device");
                        return;
                }
                got += (size_t)n;
        }
        agent_recordf("disk-head", "%08x", crc32_update(0, buf, sizeof(buf)));
}

/* Drop whatever the kernel remembers of the disk under test: its buffered
 * blocks (BLKFLSBUF) and its partition table (BLKRRPART). A guest restored
 * from a snapshot probed the snapshot's disk at boot; the cell's disk is
 * another file behind the same device. The snapshot is saved before
 * anything opens the disk, so the kernel already dropped those blocks;
 * this makes it hold whatever the kernel version does. Cold boots do the
 * same, so warm and cold cells run the same steps. */
static void agent_disk_forget(const char *dev) {
        _cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);

        if (fd < 0) {
                agent_recordf("log", "open %s to flush it: %s", dev, strerror(errno));
                return;
        }
        if (ioctl(fd, BLKFLSBUF, 0) < 0)
                agent_recordf("log", "BLKFLSBUF %s: %s", dev, strerror(errno));
        /* A disk without partitions has nothing to re-read; EINVAL says so. */
        if (ioctl(fd, BLKRRPART, 0) < 0 && errno != EINVAL)
                agent_recordf("log", "BLKRRPART %s: %s", dev, strerror(errno));
        agent_disk_head(fd, dev);
}

void agent_disk_prepare(void) {
        char disk[300];
        int r;

        if ((r = agent_disk_mkdir_p(A.set.mnt)) < 0)
                agent_fail("mkdir %s: %s", A.set.mnt, strerror(-r));
        if (A.set.fs[0] == '\0')
                agent_fail("no file system type given (set fs)");
        agent_disk_check_bus();
        if ((r = agent_disk_resolve(A.set.disk, disk, sizeof(disk))) < 0)
                agent_fail("disk %s did not appear within %d ms: %s", A.set.disk, AGENT_DEV_WAIT_MS, strerror(-r));
        agent_disk_report_driver(disk);
        agent_disk_forget(disk);
        /* The sampler finds the disk's line of /proc/diskstats by the node's
         * name ("/dev/sda" is "sda"); a longer name leaves its columns absent. */
        {
                const char *base = strrchr(disk, '/') ? strrchr(disk, '/') + 1 : disk;
                if (strlen(base) <= SAMPLER_DISK_NAME_MAX)
                        strcpy(A.disk_name, base);
        }
        if (mount(disk, A.set.mnt, A.set.fs, 0, A.set.mount_opts[0] ? A.set.mount_opts : NULL) < 0)
                agent_fail("mount %s (%s) on %s (%s, '%s'): %s", disk, A.set.disk, A.set.mnt, A.set.fs,
                           A.set.mount_opts, strerror(errno));
        A.mounted = true;
        if (A.set.swap[0]) {
                if ((r = agent_disk_resolve(A.set.swap, A.swap_dev, sizeof(A.swap_dev))) < 0)
                        agent_fail("swap %s did not appear within %d ms: %s", A.set.swap, AGENT_DEV_WAIT_MS, strerror(-r));
                if (swapon(A.swap_dev, 0) < 0)
                        agent_fail("swapon %s (%s): %s", A.swap_dev, A.set.swap, strerror(errno));
                A.swapped = true;
        }
        agent_record("event", "mounted", 7);
}
