/* Unit tests for the KVM probe's cached verdict: used only for the host
 * kernel and QEMU it was probed with, and only when it is a clear yes/no. */
#include <glib.h>

#include "common/test.h"
#include "host/accel.h"

TEST_MAIN();

TEST(cache_applies_to_same_host_and_qemu) {
        json_t *j = json_pack("{s:s, s:s, s:b, s:f}", "host_kernel", "6.1.0-57-amd64", "qemu", "7.2.22",
                              "kvm_works", 0, "probe_s", 6.1);
        int works = -1;

        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-57-amd64", "7.2.22", &works), 1);
        ASSERT_EQ(works, 0);
        json_object_set_new(j, "kvm_works", json_true());
        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-57-amd64", "7.2.22", &works), 1);
        ASSERT_EQ(works, 1);
        json_decref(j);
}

TEST(cache_ignored_when_anything_changed) {
        json_t *j = json_pack("{s:s, s:s, s:b}", "host_kernel", "6.1.0-57-amd64", "qemu", "7.2.22", "kvm_works", 1);
        int works = -1;

        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-58-amd64", "7.2.22", &works), 0);
        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-57-amd64", "8.0.0", &works), 0);
        ASSERT_EQ(accel_cache_verdict(NULL, "6.1.0-57-amd64", "7.2.22", &works), 0);
        json_object_set_new(j, "kvm_works", json_string("yes"));
        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-57-amd64", "7.2.22", &works), 0);
        json_object_del(j, "kvm_works");
        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-57-amd64", "7.2.22", &works), 0);
        ASSERT_EQ(works, -1);
        json_decref(j);
        j = json_array();
        ASSERT_EQ(accel_cache_verdict(j, "6.1.0-57-amd64", "7.2.22", &works), 0);
        json_decref(j);
}

/* What doctor and a run say of a failed probe: QEMU's reason, one line,
 * without libvirt's wrapping (a real message from a nested host). */
TEST(failure_reason_is_one_line) {
        char *r = accel_failure_reason("libvirt: cannot create domain kb8842-kvm-probe: internal error: qemu "
                                       "unexpectedly closed the monitor: 2026-12-02T09:42:39.120816Z "
                                       "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69\n"
                                       "qemu-system-x86_64: ../target/i386/kvm/kvm.c:3241: kvm_buf_set_msrs: "
                                       "Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.");

        ASSERT_STREQ(r, "failed to set MSR 0x10a to 0x69");
        g_free(r);
        r = accel_failure_reason("could not open /dev/kvm\nmore");
        ASSERT_STREQ(r, "could not open /dev/kvm");
        g_free(r);
        r = accel_failure_reason(NULL);
        ASSERT_STREQ(r, "");
        g_free(r);
        r = accel_failure_reason("internal error: ");
        ASSERT_STREQ(r, "internal error:");
        g_free(r);
}
