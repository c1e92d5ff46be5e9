/* common/guest-paths.h: the paths inside the guest that more than one side
 * names: the agent (which creates or reads them), the initramfs builder (which puts
 * files there), the host (which tells workloads where the disk under test
 * is) and the workloads' scripts. Plain macros, no includes: usable by the
 * static agent. It sits in common/ because guest/ and workloads/ both name
 * these paths and neither may include the other's folder. */
#pragma once

#define KB_GUEST_MNT "/mnt/test"                  /* the disk under test is mounted here */
#define KB_GUEST_DISK "/dev/sda"                  /* its default device */
#define KB_GUEST_MODULES_LIST "/etc/kbench/modules" /* modules the agent loads, one a line */
#define KB_GUEST_RUN_DIR "/run/kbench"            /* the agent's runtime directory */
#define KB_GUEST_HOST_FIFO KB_GUEST_RUN_DIR "/host" /* host lines for the job ($KBENCH_HOST_FIFO) */
