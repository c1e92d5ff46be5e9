/* host/vm_xml.c: the libvirt domain XML of a struct vm_config, built in
 * parts: the kernel booted directly with its command line, the disks on
 * the guest's bus, the serial ports, and what goes to QEMU beside libvirt
 * (the loopback NIC's forwards, the TCG plugins). Pure: every value from
 * the configuration is escaped, and test-vm.c checks the document. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/diskbus.h"
#include "host/vm.h"

static void xml_text(GString *s, const char *text) {
        g_autofree char *e = g_markup_escape_text(text, -1);
        g_string_append(s, e);
}

int vm_plugin_path_ok(const char *path) {
        return path && *path == '/' && !strchr(path, ',');
}

/* Plugins are a TCG feature: under KVM the guest runs on the host's CPU. */
static int plugin_on(const struct vm_config *cfg) {
        return cfg->plugin && cfg->plugin_out && strcmp(cfg->guest->accel, "kvm") != 0 &&
               vm_plugin_path_ok(cfg->plugin) && vm_plugin_path_ok(cfg->plugin_out);
}

/* ttyS0, the kernel console: a file QEMU writes, or a pty read through
 * libvirt; ttyS1, kbench's channel to the agent: a socket libvirt makes,
 * or a pty. */
static void xml_serials(GString *s, const struct vm_config *cfg) {
        if (cfg->console_stream)
                g_string_append(s, "    <serial type='pty'>\n      <target port='0'/>\n    </serial>\n");
        else {
                g_string_append(s, "    <serial type='file'>\n      <source path='");
                xml_text(s, cfg->console_path);
                g_string_append(s, "'/>\n      <target port='0'/>\n    </serial>\n");
        }
        if (cfg->serial_socket) {
                g_string_append(s, "    <serial type='unix'>\n      <source mode='bind' path='");
                xml_text(s, cfg->serial_socket);
                g_string_append(s, "'/>\n      <target port='1'/>\n    </serial>\n");
        } else
                g_string_append(s, "    <serial type='pty'>\n      <target port='1'/>\n    </serial>\n");
}

void vm_disk_target(const struct guest_shape *g, int index, char ret[VM_DISK_TARGET_MAX]) {
        const struct diskbus *bus = diskbus_get(g->disk_bus);

        snprintf(ret, VM_DISK_TARGET_MAX, "%s%c", bus->target_prefix, 'a' + index);
}

/* <os>, then <features> and <cpu>: the kernel booted directly, with its
 * command line. */
static void xml_os(GString *s, const struct vm_config *cfg) {
        g_string_append(s, "  <os>\n    <type arch='x86_64' machine='pc'>hvm</type>\n    <kernel>");
        xml_text(s, cfg->kernel);
        g_string_append(s, "</kernel>\n");
        if (cfg->initrd) {
                g_string_append(s, "    <initrd>");
                xml_text(s, cfg->initrd);
                g_string_append(s, "</initrd>\n");
        }
        g_string_append(s, "    <cmdline>");
        xml_text(s, cfg->cmdline);
        g_string_append(s, "</cmdline>\n  </os>\n");
        /* Under KVM the guest counts its own instructions with a virtual
         * PMU (guest/pmu.h), as the plugin does under TCG. */
        if (strcmp(cfg->guest->accel, "kvm") == 0)
                g_string_append(s, "  <features><acpi/><pmu state='on'/></features>\n"
                                   "  <cpu mode='host-passthrough'/>\n");
        else
                g_string_append(s, "  <features><acpi/></features>\n");
}

/* The work disk and the swap disk, on the guest's bus, with the bus's
 * controller. */
static void xml_disks(GString *s, const struct vm_config *cfg) {
        const struct diskbus *bus = diskbus_get(cfg->guest->disk_bus);

        for (int i = 0; i < 2; i++) {
                const char *path = i == 0 ? cfg->disk : cfg->swap_disk;
                const char *serial = i == 0 ? bus->serial_disk : bus->serial_swap;
                char dev[VM_DISK_TARGET_MAX];
                if (!path)
                        continue;
                vm_disk_target(cfg->guest, i, dev);
                g_string_append(s, "    <disk type='file' device='disk'>\n"
                                   "      <driver name='qemu' type='raw' cache='none' error_policy='stop' rerror_policy='stop'/>\n      <source file='");
                xml_text(s, path);
                g_string_append_printf(s, "'/>\n      <target dev='%s' bus='%s'/>\n", dev, bus->target_bus);
                if (serial)
                        g_string_append_printf(s, "      <serial>%s</serial>\n", serial);
                if (i == 0 && guest_disk_bytes_per_s(cfg->guest))
                        g_string_append_printf(s, "      <iotune><total_bytes_sec>%llu</total_bytes_sec></iotune>\n",
                                               (unsigned long long)guest_disk_bytes_per_s(cfg->guest));
                g_string_append(s, "    </disk>\n");
        }
        if (bus->controller && (cfg->disk || cfg->swap_disk))
                g_string_append_printf(s, "    %s\n", bus->controller);
}

/* What goes to QEMU beside libvirt: the loopback NIC's forwards and the
 * plugins. */
static void xml_commandline(GString *s, const struct vm_config *cfg) {
        if (cfg->n_forwards > 0 || plugin_on(cfg))
                g_string_append(s, "  <qemu:commandline>\n");
        if (cfg->n_forwards > 0) {
                /* Debian's libvirt ignores <portForward> on user interfaces, so
                 * the NIC goes in as QEMU arguments (the domain is tainted
                 * custom-argv, as expected). Forwards bind to 127.0.0.1 only. */
                g_string_append(s, "    <qemu:arg value='-netdev'/>\n"
                                   "    <qemu:arg value='user,id=kbnet");
                for (size_t i = 0; i < cfg->n_forwards && i < G_N_ELEMENTS(cfg->forwards); i++)
                        g_string_append_printf(s, ",hostfwd=tcp:127.0.0.1:%u-:%u",
                                               cfg->forwards[i].host, cfg->forwards[i].guest);
                g_string_append(s, "'/>\n    <qemu:arg value='-device'/>\n"
                                   "    <qemu:arg value='" VM_NIC_DEVICE "'/>\n");
        }
        /* The instruction counter (plugin/kbinsn.c). QEMU splits -plugin's
         * value at commas, so neither path may hold one (vm_plugin_path_ok). */
        if (plugin_on(cfg)) {
                g_string_append(s, "    <qemu:arg value='-plugin'/>\n    <qemu:arg value='file=");
                xml_text(s, cfg->plugin);
                g_string_append(s, ",out=");
                xml_text(s, cfg->plugin_out);
                g_string_append(s, "'/>\n");
        }
        /* The profile (plugin/kbprof.c) rides with the counter: its
         * segments end at the counter's marks. */
        if (plugin_on(cfg) && vm_plugin_path_ok(cfg->prof_plugin) && vm_plugin_path_ok(cfg->prof_out)) {
                g_string_append(s, "    <qemu:arg value='-plugin'/>\n    <qemu:arg value='file=");
                xml_text(s, cfg->prof_plugin);
                g_string_append(s, ",out=");
                xml_text(s, cfg->prof_out);
                g_string_append(s, "'/>\n");
        }
        if (cfg->n_forwards > 0 || plugin_on(cfg))
                g_string_append(s, "  </qemu:commandline>\n");
}

char *vm_domain_xml(const struct vm_config *cfg) {
        GString *s = g_string_new(NULL);

        g_string_append_printf(s, "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n",
                               strcmp(cfg->guest->accel, "kvm") == 0 ? "kvm" : "qemu");
        g_string_append(s, "  <name>");
        xml_text(s, cfg->name);
        g_string_append(s, "</name>\n");
        if (cfg->uuid) {
                g_string_append(s, "  <uuid>");
                xml_text(s, cfg->uuid);
                g_string_append(s, "</uuid>\n");
        }
        g_string_append_printf(s, "  <memory unit='MiB'>%u</memory>\n  <vcpu>%u</vcpu>\n",
                               cfg->guest->mem_mb, cfg->guest->cpus);
        xml_os(s, cfg);
        g_string_append(s, "  <clock offset='utc'/>\n"
                           "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
                           "  <on_crash>destroy</on_crash>\n  <devices>\n");
        xml_disks(s, cfg);
        xml_serials(s, cfg);
        g_string_append(s, "    <controller type='usb' model='none'/>\n"
                           "    <memballoon model='none'/>\n  </devices>\n");
        /* Once QEMU is up, libvirt 9.0 reads the guest CPU back one QOM
         * property per QMP command (qom-get, about 400 of them), and QEMU 7.2
         * reads QMP one byte per poll: 0.23 s of every start and every
         * restore on this project's host, most of a restore. Without this
         * capability libvirt reads the two CPUID word lists instead (three
         * commands). Under TCG the domain asks for no CPU model or feature
         * (libvirt fills in qemu64), so the read has nothing to find missing,
         * and QEMU's -cpu and the CPU a save records come out the same either
         * way (docs/design.md, "Where a restore's time goes"). libvirt taints
         * the domain "hypervisor feature autodetection override". KVM keeps
         * the full read: its host-passthrough CPU is what that read updates. */
        if (strcmp(cfg->guest->accel, "kvm") != 0)
                g_string_append(s, "  <qemu:capabilities>\n"
                                   "    <qemu:del capability='cpu-unavailable-features'/>\n"
                                   "  </qemu:capabilities>\n");
        xml_commandline(s, cfg);
        g_string_append(s, "</domain>\n");
        return g_string_free(s, FALSE);
}
