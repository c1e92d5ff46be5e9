/* common/diskbus.c: the disk bus table (see diskbus.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/diskbus.h"

/* IDE: PIIX's primary master and slave by SCSI address, since sd names are
 * handed out asynchronously and with two disks "sda" may be either. The
 * other buses name each disk by a serial number the domain gives it: a
 * SCSI host's number depends on which other controllers probed first
 * (AHCI has one host per port), and a serial does not. */
static const char *const ide_modules[] = { "ata_piix", "sd_mod", NULL };
static const char *const ide_drivers[] = { "pci/ata_piix", "scsi/sd", NULL };
static const char *const ahci_modules[] = { "ahci", "sd_mod", NULL };
static const char *const ahci_drivers[] = { "pci/ahci", "scsi/sd", NULL };
static const char *const vblk_modules[] = { "virtio_pci", "virtio_blk", NULL };
static const char *const vblk_drivers[] = { "pci/virtio-pci", "virtio/virtio_blk", NULL };
static const char *const vscsi_modules[] = { "virtio_pci", "virtio_scsi", "sd_mod", NULL };
static const char *const vscsi_drivers[] = { "pci/virtio-pci", "virtio/virtio_scsi", "scsi/sd", NULL };

#define SERIALS .serial_disk = "kbench-disk", .serial_swap = "kbench-swap", \
        .disk = "serial:kbench-disk", .swap = "serial:kbench-swap"

const struct diskbus diskbus_table[] = {
        { "ide", "ide", "hd", NULL, "scsi:0:0:0:0", "scsi:0:0:1:0", NULL, NULL, ide_modules, ide_drivers },
        { "ahci", "sata", "sd", "<controller type='sata' index='0'/>", SERIALS, .modules = ahci_modules,
          .drivers = ahci_drivers },
        { "virtio-blk", "virtio", "vd", NULL, SERIALS, .modules = vblk_modules, .drivers = vblk_drivers },
        { "virtio-scsi", "scsi", "sd", "<controller type='scsi' index='0' model='virtio-scsi'/>", SERIALS,
          .modules = vscsi_modules, .drivers = vscsi_drivers },
        { NULL },
};

const struct diskbus *diskbus_find(const char *name) {
        for (const struct diskbus *b = diskbus_table; name && b->name; b++)
                if (strcmp(b->name, name) == 0)
                        return b;
        return NULL;
}

const struct diskbus *diskbus_get(const char *name) {
        const struct diskbus *b = diskbus_find(name);

        return b ? b : &diskbus_table[0];
}

char *diskbus_names(const char *sep, char *buf, size_t size) {
        size_t n = 0;

        if (size)
                buf[0] = '\0';
        for (const struct diskbus *b = diskbus_table; b->name && n < size; b++) {
                int w = snprintf(buf + n, size - n, "%s%s", b == diskbus_table ? "" : sep, b->name);
                if (w < 0)
                        break;
                n += (size_t)w;
        }
        return buf;
}
