/* Unit tests for what pool_reap reads of a volume: its age, from the XML
 * libvirt describes it with (a remote host's answer: untrusted). */
#include <errno.h>

#include "common/test.h"
#include "host/pool.h"

TEST_MAIN();

TEST(mtime_of_a_dir_pool_volume) {
        int64_t t = 0;

        ASSERT_EQ(pool_vol_mtime("<volume type='file'><name>kb1-r2-c000-disk.img</name><target>"
                                 "<path>/var/lib/libvirt/kbench/kb1-r2-c000-disk.img</path><timestamps>"
                                 "<atime>1796280000.5</atime><mtime>1796281234.123456789</mtime>"
                                 "<ctime>1796281234.2</ctime></timestamps></target></volume>", &t), 0);
        ASSERT_EQ(t, 1796281234);
        ASSERT_EQ(pool_vol_mtime("<mtime>17</mtime>", &t), 0);
        ASSERT_EQ(t, 17);
}

TEST(no_usable_mtime_is_no_age) {
        int64_t t = 5;

        ASSERT_EQ(pool_vol_mtime(NULL, &t), -EINVAL);
        ASSERT_EQ(pool_vol_mtime("", &t), -EINVAL);
        ASSERT_EQ(pool_vol_mtime("<volume><timestamps><atime>1</atime></timestamps></volume>", &t), -EINVAL);
        ASSERT_EQ(pool_vol_mtime("<mtime>-1</mtime>", &t), -EINVAL);
        ASSERT_EQ(pool_vol_mtime("<mtime>1234567890123456789012</mtime>", &t), -EINVAL);
        ASSERT_EQ(pool_vol_mtime("<mtime>12x</mtime>", &t), -EINVAL);
        ASSERT_EQ(t, 5);
}
