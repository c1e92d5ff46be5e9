/* Unit tests for host/vm's domain XML (vm_xml.c): the settings that matter for the
 * measurement (IDE on PIIX, cache=none, ACPI, destroy on crash/reboot, two
 * serial ports, iotune) and 127.0.0.1-only forwards; well-formed XML with
 * hostile names escaped. And whether QEMU's user can reach a store (vm_qemu.c): a
 * closed directory on the way is named, whoever owns it. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/test.h"
#include "host/vm.h"

TEST_MAIN();

static void well_formed(const char *xml) {
        GMarkupParser p = { 0 };
        GMarkupParseContext *ctx = g_markup_parse_context_new(&p, 0, NULL, NULL);
        GError *e = NULL;

        if (!g_markup_parse_context_parse(ctx, xml, -1, &e) || !g_markup_parse_context_end_parse(ctx, &e))
                TEST_FAIL("XML not well formed: %s\n%s", e->message, xml);
        g_markup_parse_context_free(ctx);
}

static const struct guest_shape tcg_guest = { .accel = "tcg", .mem_mb = 256, .cpus = 1 };
static const struct guest_shape kvm_guest = { .accel = "kvm", .mem_mb = 256, .cpus = 1 };

TEST(domain_xml_tcg_ide_serial) {
        static const struct guest_shape guest = { .accel = "tcg", .mem_mb = 160, .cpus = 2, .disk_mbps = 40 };
        struct vm_config c = {
                .name = "kb1-r1-c000", .guest = &guest,
                .kernel = "/s/k/vmlinux", .initrd = "/s/cache/i.cpio.gz",
                .cmdline = "console=ttyS0,115200 panic=-1 kbench.cell=c000",
                .disk = "/s/scratch/disk.img", .swap_disk = "/s/scratch/swap.img",
                .console_path = "/s/scratch/console.log",
        };
        g_autofree char *x = vm_domain_xml(&c);

        well_formed(x);
        ASSERT_TRUE(strstr(x, "<domain type='qemu'"));
        /* A full host disk must pause the guest (detectable), not hand it
         * an error its filesystem turns into a hang or a crash. */
        {
                const char *p = x;
                int n = 0;
                while ((p = strstr(p, "error_policy='stop' rerror_policy='stop'")))
                        n++, p++;
                ASSERT_EQ(n, 2);
        }
        ASSERT_TRUE(strstr(x, "machine='pc'"));
        ASSERT_TRUE(strstr(x, "<memory unit='MiB'>160</memory>"));
        ASSERT_TRUE(strstr(x, "<vcpu>2</vcpu>"));
        ASSERT_TRUE(strstr(x, "<acpi/>"));
        ASSERT_TRUE(strstr(x, "<on_crash>destroy</on_crash>"));
        ASSERT_TRUE(strstr(x, "<on_reboot>destroy</on_reboot>"));
        ASSERT_TRUE(strstr(x, "cache='none'"));
        ASSERT_TRUE(strstr(x, "<target dev='hda' bus='ide'/>"));
        ASSERT_TRUE(strstr(x, "<target dev='hdb' bus='ide'/>"));
        ASSERT_TRUE(strstr(x, "<total_bytes_sec>40000000</total_bytes_sec>"));
        ASSERT_TRUE(strstr(x, "<serial type='file'>"));
        ASSERT_TRUE(strstr(x, "<serial type='pty'>"));
        ASSERT_TRUE(strstr(x, "<target port='1'/>"));
        ASSERT_TRUE(!strstr(x, "qemu:commandline"));
        ASSERT_TRUE(!strstr(x, "host-passthrough"));
        ASSERT_TRUE(!strstr(x, "<pmu"));
        /* libvirt's read of the guest CPU, three QMP commands under TCG. */
        ASSERT_TRUE(strstr(x, "<qemu:capabilities>\n    <qemu:del capability='cpu-unavailable-features'/>\n"
                              "  </qemu:capabilities>\n</domain>"));
}

/* Each bus: the disks' target names and bus, the controller the bus needs
 * (one, after the disks), the serial numbers the agent finds the disks by
 * on every bus but IDE, and the throttle on the disk under test alone. */
TEST(domain_xml_disk_bus) {
        static const struct {
                const char *bus, *disk, *swap, *controller, *serial;
        } cases[] = {
                { "ide", "<target dev='hda' bus='ide'/>", "<target dev='hdb' bus='ide'/>", NULL, NULL },
                { "ahci", "<target dev='sda' bus='sata'/>", "<target dev='sdb' bus='sata'/>",
                  "<controller type='sata' index='0'/>", "<serial>kbench-disk</serial>" },
                { "virtio-blk", "<target dev='vda' bus='virtio'/>", "<target dev='vdb' bus='virtio'/>", NULL,
                  "<serial>kbench-disk</serial>" },
                { "virtio-scsi", "<target dev='sda' bus='scsi'/>", "<target dev='sdb' bus='scsi'/>",
                  "<controller type='scsi' index='0' model='virtio-scsi'/>", "<serial>kbench-disk</serial>" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                struct guest_shape g = { .accel = "tcg", .mem_mb = 256, .cpus = 1, .disk_mbps = 40,
                                         .disk_bus = cases[i].bus };
                struct vm_config c = { .name = "b", .guest = &g, .kernel = "/k", .cmdline = "x",
                                       .console_path = "/c", .disk = "/d.img", .swap_disk = "/s.img" };
                g_autofree char *x = vm_domain_xml(&c);
                const char *d = strstr(x, cases[i].disk), *sw = strstr(x, cases[i].swap);
                char dev[VM_DISK_TARGET_MAX];

                well_formed(x);
                ASSERT_TRUE(d && sw && d < sw);
                /* The throttle sits in the first disk's element. */
                ASSERT_TRUE(strstr(d, "<total_bytes_sec>40000000</total_bytes_sec>") < sw);
                ASSERT_TRUE(strstr(sw, "total_bytes_sec") == NULL);
                ASSERT_EQ(strstr(x, "<controller type='sata'") != NULL || strstr(x, "<controller type='scsi'") != NULL,
                          cases[i].controller != NULL);
                if (cases[i].controller)
                        ASSERT_TRUE(strstr(sw, cases[i].controller) && !strstr(strstr(x, cases[i].controller) + 1,
                                                                                cases[i].controller));
                ASSERT_EQ(strstr(x, "<serial>") != NULL, cases[i].serial != NULL);
                if (cases[i].serial)
                        ASSERT_TRUE(strstr(d, cases[i].serial) < sw && strstr(sw, "<serial>kbench-swap</serial>"));
                /* What the host's block statistics ask libvirt for. */
                vm_disk_target(&g, 0, dev);
                ASSERT_TRUE(strstr(cases[i].disk, dev) != NULL);
        }
}

/* The agent's channel as a socket kbench connects to (a local connection):
 * libvirt listens at the path, escaped like every other text. */
TEST(domain_xml_serial_socket) {
        struct vm_config c = {
                .name = "s", .guest = &tcg_guest, .kernel = "/k", .cmdline = "x",
                .console_path = "/c", .serial_socket = "/run/k&b/ttyS1.sock",
        };
        g_autofree char *x = vm_domain_xml(&c);

        well_formed(x);
        ASSERT_TRUE(strstr(x, "<serial type='unix'>\n      <source mode='bind' path='/run/k&amp;b/ttyS1.sock'/>\n"
                              "      <target port='1'/>"));
        ASSERT_TRUE(!strstr(x, "<serial type='pty'>"));
        ASSERT_TRUE(strstr(x, "<serial type='file'>"));
}

TEST(domain_xml_network_loopback_only) {
        struct vm_config c = {
                .name = "a<b>&'c", .guest = &kvm_guest, .kernel = "/k",
                .cmdline = "x", .console_path = "/c", .n_forwards = 2,
                .forwards = { { 40021, 21 }, { 40022, 40022 } },
        };
        g_autofree char *x = vm_domain_xml(&c);

        well_formed(x);
        ASSERT_TRUE(strstr(x, "<domain type='kvm'"));
        ASSERT_TRUE(strstr(x, "a&lt;b&gt;&amp;&apos;c"));
        ASSERT_TRUE(strstr(x, "hostfwd=tcp:127.0.0.1:40021-:21,hostfwd=tcp:127.0.0.1:40022-:40022"));
        /* The link is up at once, not after QEMU's 0.5 s autonegotiation
         * and the driver's next 2 s watchdog run. */
        ASSERT_TRUE(strstr(x, "e1000,netdev=kbnet,autonegotiation=off"));
        ASSERT_TRUE(!strstr(x, "<disk"));
        ASSERT_TRUE(!strstr(x, "<initrd>"));
        ASSERT_TRUE(strstr(x, "<cpu mode='host-passthrough'/>"));
        /* The guest counts its instructions with a vPMU (guest/pmu.h). */
        ASSERT_TRUE(strstr(x, "<features><acpi/><pmu state='on'/></features>"));
        ASSERT_TRUE(!strstr(x, "qemu:capabilities"));
}

/* The instruction counter rides on QEMU's command line under TCG only,
 * beside the NIC in the one qemu:commandline; a path with the comma that
 * QEMU splits -plugin's value at is left out. */
TEST(domain_xml_plugin) {
        struct vm_config c = {
                .name = "p", .guest = &tcg_guest, .kernel = "/k", .cmdline = "x",
                .console_path = "/c", .plugin = "/store/cache/kbinsn-ab.so", .plugin_out = "/s/insns&.bin",
        };
        g_autofree char *x = vm_domain_xml(&c), *y = NULL, *z = NULL, *k = NULL;

        well_formed(x);
        ASSERT_TRUE(strstr(x, "<qemu:arg value='-plugin'/>\n    <qemu:arg value='file=/store/cache/kbinsn-ab.so,"
                              "out=/s/insns&amp;.bin'/>"));
        c.n_forwards = 1;
        c.forwards[0] = (struct vm_forward){ 40021, 21 };
        y = vm_domain_xml(&c);
        well_formed(y);
        ASSERT_TRUE(strstr(y, "-netdev") && strstr(y, "-plugin"));
        ASSERT_TRUE(strstr(strstr(y, "<qemu:commandline>") + 1, "<qemu:commandline>") == NULL);
        c.plugin_out = "/s/a,b";
        z = vm_domain_xml(&c);
        ASSERT_TRUE(!strstr(z, "-plugin"));
        ASSERT_EQ(vm_plugin_path_ok("/s/a,b"), 0);
        ASSERT_EQ(vm_plugin_path_ok("rel/path"), 0);
        ASSERT_EQ(vm_plugin_path_ok("/ok/path"), 1);
        c.plugin_out = "/s/insns.bin";
        c.guest = &kvm_guest;
        k = vm_domain_xml(&c);
        ASSERT_TRUE(!strstr(k, "-plugin"));
}

TEST(qemu_can_reach) {
        /* A uid and gid no account has: only the "other" bits apply to it. */
        struct vm_qemu_user u = { .set = 1, .uid = 4000123, .gid = 4000123 };
        struct vm_qemu_user none = { 0 };
        g_autofree char *top = g_dir_make_tmp("kbench-test-vm-XXXXXX", NULL);
        g_autofree char *store = g_build_filename(top, "store", NULL);
        g_autofree char *kernel = g_build_filename(store, "vmlinux", NULL);
        struct kb_error err = { "" };

        ASSERT_TRUE(top != NULL);
        ASSERT_EQ(g_mkdir(store, 0755), 0);
        ASSERT_TRUE(g_file_set_contents(kernel, "k", 1, NULL));
        ASSERT_EQ(chmod(kernel, 0644), 0);
        ASSERT_EQ(chmod(top, 0700), 0);
        ASSERT_EQ(vm_qemu_can_reach(&u, kernel, 1, &err), -EACCES);
        ASSERT_TRUE(strstr(err.msg, "cannot enter") && strstr(err.msg, top) && strstr(err.msg, "mode 0700"));
        ASSERT_EQ(vm_qemu_can_reach(&none, kernel, 1, &err), 0);
        ASSERT_EQ(chmod(top, 0711), 0);
        ASSERT_EQ(vm_qemu_can_reach(&u, kernel, 1, &err), 0);
        ASSERT_EQ(vm_qemu_can_reach(&u, store, 0, &err), 0);
        ASSERT_EQ(chmod(kernel, 0600), 0);
        ASSERT_EQ(vm_qemu_can_reach(&u, kernel, 1, &err), -EACCES);
        ASSERT_TRUE(strstr(err.msg, "cannot read") != NULL);
        ASSERT_EQ(vm_qemu_can_reach(&u, kernel, 0, &err), 0);
        /* Its own directory is open to the user whatever the other bits. */
        ASSERT_EQ(chmod(store, 0700), 0);
        ASSERT_EQ(vm_qemu_can_reach(&u, store, 0, &err), -EACCES);
        if (geteuid() == 0) {
                ASSERT_EQ(chown(store, u.uid, u.gid), 0);
                ASSERT_EQ(vm_qemu_can_reach(&u, store, 0, &err), 0);
        }
        ASSERT_EQ(vm_qemu_can_reach(&u, "/nonexistent/kbench", 0, &err), -ENOENT);
        g_unlink(kernel);
        g_rmdir(store);
        g_rmdir(top);
}

TEST(qemu_user_lookup) {
        struct vm_qemu_user u = { .set = 7 };
        struct kb_error err = { "" };

        /* A missing user is one line naming it and the fix. */
        ASSERT_EQ(vm_qemu_user_lookup("kbench-no-such-user", VM_KVM_DEV, &u, &err), -ENOENT);
        ASSERT_TRUE(strstr(err.msg, "the user kbench-no-such-user does not exist") != NULL);
        ASSERT_TRUE(strstr(err.msg, "tools/setup.sh") != NULL && !strchr(err.msg, '\n'));
        ASSERT_EQ(u.set, 7);
        /* root is refused: QEMU would run as uid 0. */
        ASSERT_EQ(vm_qemu_user_lookup("root", VM_KVM_DEV, &u, &err), -EPERM);
        ASSERT_TRUE(strstr(err.msg, "uid 0") != NULL);
        ASSERT_EQ(u.set, 7);
}

/* A host without udev leaves /dev/kvm root:root 0600. QEMU must not run in
 * group root, and the refusal names a step that fixes it; once the device
 * has a group of its own, QEMU runs in that group and can open it. */
TEST(qemu_user_kvm_group_root) {
        g_autofree char *dir = g_dir_make_tmp("kbench-kvm-XXXXXX", NULL);
        g_autofree char *dev = g_build_filename(dir, "kvm", NULL);
        struct vm_qemu_user u = { .set = 7 };
        struct kb_error err = { "" };
        struct passwd *pw = getpwnam(VM_QEMU_USER);
        struct group *gr;

        if (geteuid() != 0 || !pw)
                TEST_SKIP("needs root and the user " VM_QEMU_USER " (tools/setup.sh)");
        ASSERT_TRUE(g_file_set_contents(dev, "", 0, NULL));
        ASSERT_EQ(chown(dev, 0, 0), 0);
        ASSERT_EQ(chmod(dev, 0600), 0);
        ASSERT_EQ(vm_qemu_user_lookup(VM_QEMU_USER, dev, &u, &err), -EPERM);
        ASSERT_TRUE(strstr(err.msg, dev) != NULL && strstr(err.msg, "group root") != NULL);
        ASSERT_TRUE(strstr(err.msg, "bash tools/setup.sh") != NULL);
        ASSERT_TRUE(strstr(err.msg, "chgrp kvm") != NULL && !strchr(err.msg, '\n'));
        ASSERT_EQ(u.set, 7);

        /* What tools/setup.sh does: the device in the user's own group
         * stands in for the kvm group here, so the test needs no group. */
        ASSERT_EQ(chown(dev, 0, pw->pw_gid), 0);
        ASSERT_EQ(chmod(dev, 0660), 0);
        ASSERT_EQ(vm_qemu_user_lookup(VM_QEMU_USER, dev, &u, &err), 0);
        ASSERT_EQ(u.set, 1);
        ASSERT_EQ(u.gid, pw->pw_gid);
        gr = getgrgid(pw->pw_gid);
        ASSERT_TRUE(gr && strstr(u.gid_why, gr->gr_name) != NULL);
        ASSERT_EQ(vm_qemu_kvm_usable(&u, dev), 1);
        /* A group that may not open it: libvirt would probe again. */
        ASSERT_EQ(chmod(dev, 0600), 0);
        ASSERT_EQ(vm_qemu_kvm_usable(&u, dev), 0);
        /* No device at all: QEMU runs in the user's own group. */
        g_unlink(dev);
        ASSERT_EQ(vm_qemu_kvm_usable(&u, dev), -1);
        ASSERT_EQ(vm_qemu_user_lookup(VM_QEMU_USER, dev, &u, &err), 0);
        ASSERT_EQ(u.gid, pw->pw_gid);
        g_rmdir(dir);
}

/* The capabilities a Debian 12 libvirtd gave for this project's host
 * (tests/data/libvirt/capabilities.xml): the CPU and who QEMU runs as. */
TEST(caps_of_a_real_host) {
        g_autofree char *xml = NULL;
        gsize len = 0;
        struct vm_caps c;

        ASSERT_TRUE(g_file_get_contents(KB_TESTDATA_DIR "/libvirt/capabilities.xml", &xml, &len, NULL));
        ASSERT_EQ(vm_caps_parse(xml, len, &c), 0);
        ASSERT_STREQ(c.cpu_vendor, "AMD");
        ASSERT_STREQ(c.cpu_model, "kvm64");
        ASSERT_EQ(c.qemu_uid, 999);
        ASSERT_EQ(c.qemu_gid, 994);
}

/* What a host says is untrusted: labels that are not "+UID:+GID", a label
 * of another security model, texts too long, XML that is not. */
TEST(caps_hostile) {
        static const struct {
                const char *xml;
                int ret;
                long uid;
                const char *model;
        } rows[] = {
                { "<capabilities><host><secmodel><model>dac</model><baselabel type='qemu'>+5:+6</baselabel>"
                  "</secmodel></host></capabilities>", 0, 5, "" },
                { "<capabilities><host><secmodel><model>selinux</model><baselabel type='qemu'>+5:+6</baselabel>"
                  "</secmodel></host></capabilities>", 0, -1, "" },
                { "<capabilities><host><secmodel><model>dac</model><baselabel type='kvm'>+5:+6</baselabel>"
                  "</secmodel></host></capabilities>", 0, -1, "" },
                { "<capabilities><host><secmodel><model>dac</model><baselabel type='qemu'>+5:6</baselabel>"
                  "</secmodel></host></capabilities>", 0, -1, "" },
                { "<capabilities><host><secmodel><model>dac</model><baselabel type='qemu'>+-5:+6</baselabel>"
                  "</secmodel></host></capabilities>", 0, -1, "" },
                { "<capabilities><host><secmodel><model>dac</model>"
                  "<baselabel type='qemu'>+99999999999999999999:+6</baselabel></secmodel></host></capabilities>", 0,
                  -1, "" },
                { "<capabilities><host><cpu><model>a&lt;b</model></cpu></host></capabilities>", 0, -1, "a<b" },
                { "<capabilities><host><cpu><model>x</model></cpu></host>", -EINVAL, -1, "" },
                { "<capabilities><host><cpu><model>x</mod></cpu></host></capabilities>", -EINVAL, -1, "" },
                { "", -EINVAL, -1, "" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
                struct vm_caps c = { .qemu_uid = 42 };
                int r = vm_caps_parse(rows[i].xml, strlen(rows[i].xml), &c);

                ASSERT_EQ(r, rows[i].ret);
                if (r == 0) {
                        ASSERT_EQ(c.qemu_uid, rows[i].uid);
                        ASSERT_STREQ(c.cpu_model, rows[i].model);
                }
        }
}

/* A model name longer than the field is cut, never overflowed. */
TEST(caps_long_text) {
        GString *x = g_string_new("<capabilities><host><cpu><model>");
        struct vm_caps c;

        for (int i = 0; i < 100000; i++)
                g_string_append_c(x, 'm');
        g_string_append(x, "</model></cpu></host></capabilities>");
        ASSERT_EQ(vm_caps_parse(x->str, x->len, &c), 0);
        ASSERT_EQ(strlen(c.cpu_model), sizeof(c.cpu_model) - 1);
        g_string_free(x, TRUE);
}

/* A host kbench reaches only through libvirt: ttyS0 is a pty, read as a
 * stream, with no file of this machine named in the domain. */
TEST(domain_xml_console_stream) {
        static const struct guest_shape g = { .accel = "tcg", .mem_mb = 160, .cpus = 1 };
        struct vm_config c = {
                .name = "kb1-r1-c000", .guest = &g, .kernel = "/pool/kernel-ab", .cmdline = "console=ttyS0",
                .disk = "/pool/kb1-r1-c000-disk.img", .console_path = "/local/console.log", .console_stream = 1,
        };
        g_autofree char *x = vm_domain_xml(&c);

        well_formed(x);
        ASSERT_TRUE(strstr(x, "<serial type='pty'>\n      <target port='0'/>") != NULL);
        ASSERT_TRUE(strstr(x, "/local/console.log") == NULL);
        ASSERT_TRUE(strstr(x, "<serial type='pty'>\n      <target port='1'/>") != NULL);
}
